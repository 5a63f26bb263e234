"""The one event formatter (gtidkit.binlog.text): SHOW BINLOG EVENTS' Info texts, and the listing formatted from
raw bytes agreeing with the listing of fully decoded events on every real fixture, fault offsets included.

The mysqlbinlog-style text itself is checked against real mysqlbinlog outputs in tests/cli/test_binlog_show.py.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from gtidkit.binlog import BinlogDecodeError, read_events
from gtidkit.binlog.events.control import (
    FormatDescriptionEvent,
    GtidEvent,
    PreviousGtidsEvent,
    RotateEvent,
    StopEvent,
    XidEvent,
)
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.events.statement import IntvarEvent, QueryEvent, RandEvent
from gtidkit.binlog.file import FrameReader
from gtidkit.binlog.text import ListingFormatter, event_info, event_lines, listing
from gtidkit.generate import generate_fleet
from gtidkit.gtid import Gtid, GtidSet
from tests.conftest import BINLOG_FIXTURES

SID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def _binlog_fixtures() -> list[Path]:
    if not BINLOG_FIXTURES.exists():
        return []
    out = []
    for p in sorted(BINLOG_FIXTURES.rglob("*")):
        if p.is_file() and p.stat().st_size >= 4 and p.read_bytes()[:4] == b"\xfebin":
            out.append(p)
    return out


FIXTURES = _binlog_fixtures()


# -- SHOW BINLOG EVENTS Info: the texts of MySQL's pack_info as mysql-test .result files and the manual show them
@pytest.mark.parametrize(
    ("event", "info"),
    [
        (
            FormatDescriptionEvent.for_server("8.0.36"),
            "Server ver: 8.0.36, Binlog ver: 4",
        ),
        (PreviousGtidsEvent(GtidSet.parse(f"{SID}:1-5")), f"{SID}:1-5"),
        (PreviousGtidsEvent(GtidSet()), ""),
        (GtidEvent(0, Gtid.parse(f"{SID}:7"), 0, 1), f"SET @@SESSION.GTID_NEXT= '{SID}:7'"),
        (GtidEvent(0, None, 0, 1), "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'"),
        (QueryEvent(5, 0, 0, b"", "test", "BEGIN"), "BEGIN"),
        (QueryEvent(5, 0, 0, b"", "test", "create table t1 (a int)"), "use `test`; create table t1 (a int)"),
        (QueryEvent(5, 0, 0, b"", "", "CREATE DATABASE d"), "CREATE DATABASE d"),
        (XidEvent(33), "COMMIT /* xid=33 */"),
        (IntvarEvent(2, 10), "INSERT_ID=10"),
        (IntvarEvent(1, 4), "LAST_INSERT_ID=4"),
        (RandEvent(1, 2), "rand_seed1=1,rand_seed2=2"),
        (RotateEvent(4, "binlog.000002"), "binlog.000002;pos=4"),
        (StopEvent(), ""),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else None,
)
def test_event_info(event: object, info: str) -> None:
    assert event_info(event) == info


def test_event_info_rows_and_table_map() -> None:
    tm = TableMapEvent(92, 1, "test", "t1", b"\x03", b"", b"\x01")
    assert event_info(tm) == "table_id: 92 (test.t1)"
    for flags, text in ((1, "table_id: 92 flags: STMT_END_F"), (0, "table_id: 92")):
        rows = RowsEvent(30, 92, flags, b"", 1, b"\x01", None, b"")
        assert event_info(rows) == text


# -- the raw-bytes listing == the decoded listing
def _decoded_listing(path: Path, verify: bool = True) -> tuple[list[str], int | None]:
    out: list[str] = []
    try:
        for pe in read_events(path, verify_checksum=verify, expand_payloads=False):
            lines = event_lines(pe.pos, pe.header, pe.event, pe.checksum)
            out.append("\n".join(lines))
    except BinlogDecodeError as err:
        return out, err.offset
    return out, None


def _payload_free(texts: list[str]) -> list[str]:
    """Cut each text to its own event (a payload's text carries its inner events after it)."""
    return [t.split("\n# at ", 1)[0] for t in texts]


def _raw_listing(path: Path, verify: bool = True) -> tuple[list[str], int | None]:
    out: list[str] = []
    try:
        out.extend(listing(FrameReader(path, verify_checksum=verify), ListingFormatter(str(path)), batch=1))
    except BinlogDecodeError as err:
        return out, err.offset
    return out, None


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_raw_listing_equals_decoded_listing(path: Path) -> None:
    expected, fault = _decoded_listing(path)
    got, got_fault = _raw_listing(path)
    assert got_fault == fault
    assert _payload_free(got) == expected
    blocks: list[str] = []
    with pytest.raises(BinlogDecodeError) if fault is not None else contextlib.nullcontext():
        blocks.extend(listing(FrameReader(path), ListingFormatter(str(path)), batch=7))
    assert "\n".join(blocks) == "\n".join(got)[: len("\n".join(blocks))]
    assert fault is not None or "\n".join(blocks) == "\n".join(got)


def test_raw_listing_is_fast_path_for_generated_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generate_fleet(tmp_path / "fleet", seed=5, replicas=1, transactions=120, max_binlog_size=64 * 1024)
    files = sorted(p for p in (tmp_path / "fleet").rglob("binlog.0*"))
    assert files
    slow_calls = 0
    real = ListingFormatter.slow_text

    def counting(self: ListingFormatter, data: bytes, pos: int) -> str:
        nonlocal slow_calls
        slow_calls += 1
        return real(self, data, pos)

    monkeypatch.setattr(ListingFormatter, "slow_text", counting)
    events = 0
    for path in files:
        expected, fault = _decoded_listing(path)
        got, got_fault = _raw_listing(path)
        assert (got, got_fault) == (expected, fault)
        events += len(expected)
    # FDE, Previous_gtids, Rotate/Stop per file take the codec path; every transaction event the fast one
    assert slow_calls <= 4 * len(files) < events // 10


def test_frames_from_an_offset_and_a_torn_tail(tmp_path: Path) -> None:
    generate_fleet(tmp_path / "f", seed=9, replicas=0, transactions=30)
    path = min((tmp_path / "f").rglob("binlog.0*"))
    frames = [(pos, size) for pos, _buf, _at, size in FrameReader(path)]
    mid = frames[len(frames) // 2][0]
    assert [p for p, _b, _a, _s in FrameReader(path, start=mid)] == [p for p, _ in frames if p >= mid]
    # an offset inside an event starts at the next event
    assert next(iter(FrameReader(path, start=mid + 1)))[0] == frames[len(frames) // 2 + 1][0]
    data = path.read_bytes()
    last_pos, last_size = frames[-1]
    torn = tmp_path / "torn"
    for cut in (last_pos + 5, last_pos + last_size - 1):
        torn.write_bytes(data[:cut])
        reader = FrameReader(torn, stop_at_torn_tail=True, chunk_size=64)
        assert [p for p, _b, _a, _s in reader] == [p for p, _ in frames[:-1]]
        assert reader.torn_at == last_pos and reader.end == last_pos
        with pytest.raises(BinlogDecodeError) as err:
            list(FrameReader(torn))
        assert err.value.offset == last_pos


def test_frames_survive_any_chunk_size(tmp_path: Path) -> None:
    generate_fleet(tmp_path / "f", seed=4, replicas=0, transactions=20)
    path = min((tmp_path / "f").rglob("binlog.0*"))
    whole = [(p, bytes(b[a : a + s])) for p, b, a, s in FrameReader(path)]
    for chunk in (1, 7, 19, 100, 4096):
        assert [(p, bytes(b[a : a + s])) for p, b, a, s in FrameReader(path, chunk_size=chunk)] == whole
