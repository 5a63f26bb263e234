"""BinlogStream (sans-I/O): fed whole, one byte at a time, in random chunks and with trailing bytes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.binlog import BinlogDecodeError, BinlogStream, EventType, read_events
from gtidkit.binlog.stream import NEED_DATA
from tests.conftest import BINLOG_FIXTURES

SAMPLES = [
    "zalora__binlog-parser/gtid-fixtures/mysql-bin.01",  # 5.7, GTIDs, in use
    "blackbeam__rust_mysql_common/binlog_transaction_with_GTID_TAG.000001",  # 9.6 tagged
    "blackbeam__rust_mysql_common/rpl_unfiltered_hidden_gcol.000001",  # 8.0 relay log, two FDEs
    "osheroff__mysql-binlog-connector-java/mysql-bin.compressed",  # Transaction_payload
    "blackbeam__rust_mysql_common/bug11747887-bin.000003",  # 5.6.4 checksum NONE
    "Yelp__ybinlogp/mysql-bin.default-path",  # 5.0
]


def _drain(stream: BinlogStream) -> list[tuple[int, int, bytes]]:
    out = []
    while True:
        ev = stream.next_event()
        if ev is NEED_DATA:
            return out
        out.append((stream.last_pos, ev.type_code, ev.raw))  # type: ignore[union-attr]


def _feed_in_pieces(data: bytes, sizes: list[int]) -> list[tuple[int, int, bytes]]:
    stream = BinlogStream(file="x")
    got: list[tuple[int, int, bytes]] = []
    i = 0
    for n in sizes:
        stream.feed(data[i : i + n])
        i += n
        got += _drain(stream)
    stream.feed(data[i:])
    got += _drain(stream)
    stream.end_of_data()
    return got


def _reference(path: Path) -> list[tuple[int, int, bytes]]:
    data = path.read_bytes()
    return [
        (pe.pos, pe.type_code, data[pe.pos : pe.end_pos]) for pe in read_events(path) if not pe.in_payload
    ]


@pytest.mark.parametrize("name", SAMPLES)
def test_whole_and_byte_by_byte(name: str) -> None:
    path = BINLOG_FIXTURES / name
    data = path.read_bytes()
    expected = _reference(path)
    assert _feed_in_pieces(data, []) == expected
    assert _feed_in_pieces(data, [1] * len(data)) == expected
    rng = random.Random(len(data))
    assert _feed_in_pieces(data, [rng.randint(1, 300) for _ in range(len(data) // 50)]) == expected


@pytest.mark.parametrize("name", SAMPLES)
@pytest.mark.parametrize("extra", [b"\x00", b"\x00" * 18, b"\xff" * 40])
def test_trailing_bytes_are_reported_at_their_offset(name: str, extra: bytes) -> None:
    data = (BINLOG_FIXTURES / name).read_bytes()
    stream = BinlogStream()
    stream.feed(data + extra)
    try:
        events = _drain(stream)
        stream.end_of_data()
    except BinlogDecodeError as err:
        assert err.offset == len(data)
        return
    pytest.fail(f"trailing {extra!r} accepted after {len(events)} events")


def test_fde_is_tracked_across_relay_log_fdes() -> None:
    stream = BinlogStream()
    stream.feed(
        (BINLOG_FIXTURES / "blackbeam__rust_mysql_common/rpl_unfiltered_hidden_gcol.000001").read_bytes()
    )
    _drain(stream)
    stream.end_of_data()
    assert stream.fde_count == 2 and stream.fde is not None and stream.fde.server_version == "8.0.17-debug"


def test_bad_magic_and_sticky_error() -> None:
    stream = BinlogStream(file="f")
    stream.feed(b"\xfebix")
    with pytest.raises(BinlogDecodeError, match="magic") as info:
        stream.next_event()
    assert info.value.offset == 0 and info.value.file == "f"
    with pytest.raises(BinlogDecodeError, match="magic"):
        stream.next_event()


def test_partial_magic_needs_data_then_end_of_data_fails() -> None:
    stream = BinlogStream()
    stream.feed(b"\xfeb")
    assert stream.next_event() is NEED_DATA
    with pytest.raises(BinlogDecodeError, match="magic"):
        stream.end_of_data()


def test_stream_without_magic_with_given_fde() -> None:
    path = BINLOG_FIXTURES / SAMPLES[0]
    events = list(read_events(path))
    fde = events[0].event
    data = path.read_bytes()[events[1].pos :]
    stream = BinlogStream(magic=False, fde=fde, offset=events[1].pos)
    stream.feed(data)
    got = _drain(stream)
    stream.end_of_data()
    assert [p for p, _, _ in got] == [e.pos for e in events[1:]]


def test_mariadb_rejected() -> None:
    stream = BinlogStream()
    stream.feed((BINLOG_FIXTURES / "blackbeam__rust_mysql_common/mariadb-bin.000001").read_bytes())
    with pytest.raises(BinlogDecodeError, match="MariaDB") as info:
        _drain(stream)
    assert info.value.offset == 4 and info.value.event_type == EventType.FORMAT_DESCRIPTION_EVENT


FUZZ_BASE = (
    (BINLOG_FIXTURES / "percona__percona-server-mysql-operator/binlog.000003").read_bytes()
    if BINLOG_FIXTURES.exists()
    else b""
)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 255), st.integers(0, 600))
def test_fuzzed_file_bytes_raise_only_binlog_decode_error(at: int, value: int, cut: int) -> None:
    data = bytearray(FUZZ_BASE)
    data[at % len(data)] = value
    del data[len(data) - cut % len(data) :]
    stream = BinlogStream()
    stream.feed(bytes(data))
    try:
        _drain(stream)
        stream.end_of_data()
    except BinlogDecodeError as err:
        assert err.offset is not None
