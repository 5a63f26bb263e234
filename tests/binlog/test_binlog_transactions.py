"""Transaction boundaries (state table) and the file reader's fault handling (scan_file never raises)."""

from __future__ import annotations

import shutil
import tempfile
import zlib
from pathlib import Path
from uuid import UUID

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.binlog import (
    BinlogDecodeError,
    ChecksumMismatchError,
    EventType,
    FormatDescriptionEvent,
    GtidEvent,
    PreviousGtidsEvent,
    QueryEvent,
    RotateEvent,
    RowsEvent,
    StopEvent,
    TableMapEvent,
    TransactionPayloadEvent,
    XidEvent,
    encode_event,
    iter_transactions,
    read_events,
    scan_file,
)
from gtidkit.binlog.events.statement import query_kind
from gtidkit.binlog.transactions import (
    K_BEGIN,
    K_END,
    K_GTID,
    K_IGNORE,
    K_PRE,
    K_STATEMENT,
    S_DML,
    S_GTID,
    S_NONE,
    S_PRE,
    TRANSITIONS,
    TransactionParser,
    kind_of,
)
from gtidkit.gtid import Gtid, GtidSet
from tests.conftest import BINLOG_FIXTURES

SID = UUID("9e3b8d2c-1111-11ee-8000-0242ac110002")


def test_transition_table_is_total() -> None:
    assert set(TRANSITIONS) == {
        (s, k)
        for s in (S_NONE, S_GTID, S_PRE, S_DML)
        for k in (K_GTID, K_BEGIN, K_END, K_PRE, K_STATEMENT, K_IGNORE)
    }


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("BEGIN", "BEGIN"),
        ("  begin", "BEGIN"),
        ("XA START 'x'", "BEGIN"),
        ("COMMIT", "COMMIT"),
        ("XA COMMIT 'x'", "COMMIT"),
        ("XA ROLLBACK 'x'", "COMMIT"),
        ("ROLLBACK", "ROLLBACK"),
        ("ROLLBACK TO SAVEPOINT a", "STATEMENT"),
        ("XA END 'x'", "STATEMENT"),
        ("SAVEPOINT a", "STATEMENT"),
        ("CREATE TABLE t (a int)", "STATEMENT"),
        ("insert into t values (1)", "STATEMENT"),
    ],
)
def test_query_kind(text: str, kind: str) -> None:
    assert query_kind(text) == kind


def test_kind_of_unknown_types_uses_ignorable_flag() -> None:
    assert kind_of(100, 0x80) == K_IGNORE  # Aurora padding
    assert kind_of(100, 0) == K_STATEMENT
    assert kind_of(EventType.ROWS_QUERY_LOG_EVENT, 0x80) == K_STATEMENT  # MySQL knows it: part of the trx
    assert kind_of(EventType.XA_PREPARE_LOG_EVENT, 0) == K_END


# Each case: sequence of kinds → list of (first index, last index, complete) transactions.
CASES = {
    "ddl": ([K_GTID, K_STATEMENT], [(0, 1, True)]),
    "dml": ([K_GTID, K_BEGIN, K_STATEMENT, K_STATEMENT, K_END], [(0, 4, True)]),
    "pre-gtid lone statements": ([K_STATEMENT, K_STATEMENT], [(0, 0, True), (1, 1, True)]),
    "pre-gtid begin..commit": ([K_BEGIN, K_PRE, K_STATEMENT, K_END], [(0, 3, True)]),
    "intvar before statement": ([K_PRE, K_PRE, K_STATEMENT], [(0, 2, True)]),
    "gtid + intvar + statement": ([K_GTID, K_PRE, K_STATEMENT], [(0, 2, True)]),
    "cut by next gtid": ([K_GTID, K_BEGIN, K_STATEMENT, K_GTID, K_STATEMENT], [(0, 2, False), (3, 4, True)]),
    "cut by end of input": ([K_GTID, K_BEGIN, K_STATEMENT], [(0, 2, False)]),
    "orphan commit": ([K_END], [(0, 0, False)]),
    "ignored events between": ([K_IGNORE, K_GTID, K_IGNORE, K_STATEMENT, K_IGNORE], [(1, 3, True)]),
    "begin cuts begin": ([K_BEGIN, K_STATEMENT, K_BEGIN, K_END], [(0, 1, False), (2, 3, True)]),
}


@pytest.mark.parametrize("kinds,expected", CASES.values(), ids=CASES.keys())
def test_boundaries(kinds: list[int], expected: list[tuple[int, int, bool]]) -> None:
    p = TransactionParser("f")
    for i, k in enumerate(kinds):
        p.feed(k, i * 10, i * 10 + 10, 1000 + i, 7, None, f"db{i}" if k == K_STATEMENT else None)
    p.close()
    got = [(t.begin_pos // 10, t.end_pos // 10 - 1, t.complete) for t in p.finished]
    assert got == expected
    for t in p.finished:
        assert (
            t.bytes == t.end_pos - t.begin_pos
            and t.server_id == 7
            and t.timestamp == 1000 + t.begin_pos // 10
        )


# ------------------------------------------------------------------------------- a file we build


def _write(path: Path, with_payload: bool = False) -> list[int]:
    """A small 8.0 binlog: DDL, a DML transaction, an anonymous one, optionally a compressed one; Rotate.
    Returns the start offset of every event."""
    fde = FormatDescriptionEvent.for_server("8.0.36")
    none = FormatDescriptionEvent.for_server("8.0.36", checksum_alg=0)
    out = bytearray(b"\xfebin")
    starts: list[int] = []

    def put(ev: object, ts: int = 1_700_000_000) -> None:
        starts.append(len(out))
        out.extend(encode_event(ev, fde, timestamp=ts, server_id=11, position=len(out)))

    def trx(gtid: Gtid | None, events: list[object], seq: int) -> None:
        body = sum(len(encode_event(e, fde)) for e in events)
        g = GtidEvent(0, gtid, seq - 1, seq, 1_700_000_000_000_000 + seq, None, 0, 80036)
        glen = len(encode_event(g, fde))
        g = GtidEvent(0, gtid, seq - 1, seq, 1_700_000_000_000_000 + seq, None, body + glen, 80036)
        put(g)
        for e in events:
            put(e)

    put(fde)
    put(PreviousGtidsEvent(GtidSet.parse(f"{SID}:1-10")))
    trx(Gtid(SID, 11), [QueryEvent(1, 0, 0, b"", "shop", "CREATE TABLE t (a INT)")], 1)
    trx(
        Gtid(SID, 12),
        [
            QueryEvent(1, 0, 0, b"", "shop", "BEGIN"),
            TableMapEvent(5, 1, "inventory", "t", b"\x03", b"", b"\x00"),
            RowsEvent(EventType.WRITE_ROWS_EVENT, 5, 1, b"", 1, b"\x01", None, b"\x00" * 5),
            XidEvent(99),
        ],
        2,
    )
    trx(
        None,
        [
            QueryEvent(2, 0, 0, b"", "", "BEGIN"),
            QueryEvent(2, 0, 0, b"", "other", "UPDATE x SET a=1"),
            QueryEvent(2, 0, 0, b"", "", "COMMIT"),
        ],
        3,
    )
    if with_payload:
        import zstandard

        inner = b"".join(
            encode_event(e, none)
            for e in (
                QueryEvent(3, 0, 0, b"", "shop", "BEGIN"),
                TableMapEvent(6, 1, "payments", "p", b"\x03", b"", b"\x00"),
                RowsEvent(EventType.WRITE_ROWS_EVENT, 6, 1, b"", 1, b"\x01", None, b"\x00" * 5),
                XidEvent(100),
            )
        )
        trx(
            Gtid(SID, 13),
            [TransactionPayloadEvent(0, len(inner), zstandard.ZstdCompressor().compress(inner))],
            4,
        )
    put(RotateEvent(4, "binlog.000002"))
    path.write_bytes(bytes(out))
    return starts


def test_transactions_of_a_built_file(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    _write(path, with_payload=True)
    scan = scan_file(path)
    assert scan.error is None and scan.ends_with == "ROTATE" and scan.next_file == "binlog.000002"
    assert scan.previous_gtids == GtidSet.parse(f"{SID}:1-10")
    t = scan.transactions
    assert [x.gtid for x in t] == [Gtid(SID, 11), Gtid(SID, 12), None, Gtid(SID, 13)]
    assert [x.anonymous for x in t] == [False, False, True, False]
    assert [x.databases for x in t] == [("shop",), ("inventory",), ("other",), ("payments",)]
    assert [x.event_count for x in t] == [2, 5, 4, 5]  # payload contents counted
    assert [x.sequence_number for x in t] == [1, 2, 3, 4]
    assert all(x.complete and x.bytes == x.transaction_length for x in t)
    assert scan.event_type_counts["TRANSACTION_PAYLOAD_EVENT"] == 1
    assert scan.event_count == sum(scan.event_type_counts.values())
    assert list(iter_transactions(path)) == t
    events = list(read_events(path))
    payload = next(pe for pe in events if isinstance(pe.event, TransactionPayloadEvent))
    inner = [pe for pe in events if pe.in_payload]
    assert [pe.type_code for pe in inner] == [2, 19, 30, 16]
    assert all(
        (pe.pos, pe.end_pos) == (payload.pos, payload.end_pos) == (payload.pos, t[3].end_pos) for pe in inner
    )


def test_truncation_at_every_offset_keeps_good_transactions(tmp_path: Path) -> None:
    """Cut the file at every byte: scan_file never raises, keeps every transaction that ended before the cut,
    and reports the offset of the partial event."""
    full = tmp_path / "full"
    starts = _write(full)
    data = full.read_bytes()
    complete = scan_file(full).transactions
    cut_path = tmp_path / "cut"
    for n in range(4, len(data)):
        cut_path.write_bytes(data[:n])
        scan = scan_file(cut_path)
        last_start = max(s for s in starts if s <= n)
        if n in starts:
            assert scan.error is None and scan.good_bytes == n
        else:
            assert scan.error_offset == last_start and scan.good_bytes == last_start, n
        good = [t._replace(file="cut") for t in complete if t.end_pos <= scan.good_bytes]
        assert [t._replace(file="cut") for t in scan.transactions if t.complete] == good
        with pytest.raises(BinlogDecodeError):
            if n not in starts:
                list(read_events(cut_path))
            else:
                raise BinlogDecodeError("ok")


def test_flipped_byte_is_a_crc_error_at_the_event(tmp_path: Path) -> None:
    path = tmp_path / "b"
    starts = _write(path)
    data = bytearray(path.read_bytes())
    target = starts[5]  # inside the second transaction
    data[target + 25] ^= 0x40
    path.write_bytes(bytes(data))
    scan = scan_file(path)
    assert scan.error_offset == target and "CRC32" in (scan.error or "")
    assert [t.gtid for t in scan.transactions if t.complete] == [Gtid(SID, 11)]
    with pytest.raises(ChecksumMismatchError) as info:
        list(read_events(path))
    assert info.value.offset == target
    # --no-verify-checksum reads through it
    assert scan_file(path, verify_checksum=False).error is None


def test_bad_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert scan_file(empty).error_offset == 0
    junk = tmp_path / "junk"
    junk.write_bytes(b"hello world, not a binlog")
    scan = scan_file(junk)
    assert "magic" in (scan.error or "") and scan.error_offset == 0
    with pytest.raises(OSError):
        scan_file(tmp_path / "missing")
    magic_only = tmp_path / "magic"
    magic_only.write_bytes(b"\xfebin")
    assert scan_file(magic_only).error is None


def test_stop_ended_file_and_in_use_flag(tmp_path: Path) -> None:
    src = BINLOG_FIXTURES / "blackbeam__rust_mysql_common/binlog-invisible-columns.000001"
    scan = scan_file(src)
    assert scan.ends_with == "STOP" and scan.next_file is None and not scan.in_use
    dst = tmp_path / "inuse"
    shutil.copyfile(src, dst)
    data = bytearray(dst.read_bytes())
    data[4 + 17] |= 1  # the FDE's IN_USE flag: its CRC still verifies (computed with the flag cleared)
    dst.write_bytes(bytes(data))
    assert scan_file(dst).in_use and scan_file(dst).error is None
    assert isinstance(list(read_events(dst))[-1].event, StopEvent)


def test_relay_log_detected() -> None:
    scan = scan_file(BINLOG_FIXTURES / "blackbeam__rust_mysql_common/rpl_unfiltered_hidden_gcol.000001")
    assert scan.relay_log and scan.error is None and len(scan.transactions) == 3
    assert (
        scan_file(BINLOG_FIXTURES / "percona__percona-server-mysql-operator/binlog.000003").relay_log is False
    )


def test_crc_residue_matches_zlib() -> None:
    from gtidkit.binlog.constants import CRC32_RESIDUE

    for body in (b"", b"abc", bytes(range(256))):
        assert zlib.crc32(body + zlib.crc32(body).to_bytes(4, "little")) == CRC32_RESIDUE


def _reference_transactions(path: Path) -> tuple[list, bool]:
    """TransactionParser fed from fully decoded events (read_events): the slow, obvious reading."""
    parser = TransactionParser(str(path))
    faulted = False
    try:
        for pe in read_events(path):
            ev, h = pe.event, pe.header
            db = None
            if isinstance(ev, QueryEvent):
                qk = query_kind(ev.query)
                kind = kind_of(h.type_code, h.flags, qk)
                db = ev.database or None if qk == "STATEMENT" else None
            else:
                kind = kind_of(h.type_code, h.flags)
                if isinstance(ev, TableMapEvent):
                    db = ev.database or None
            if not pe.in_payload:
                outer = (h.timestamp, h.server_id)
                if isinstance(ev, TransactionPayloadEvent):
                    continue  # its contents follow as in_payload events
            # events inside a payload take the payload event's position, time and server id
            if kind == K_GTID and not isinstance(ev, GtidEvent):
                kind = K_STATEMENT  # a Gtid type code the FDE does not describe: kept as an unknown event
            parser.feed(kind, pe.pos, pe.end_pos, *outer, ev if kind == K_GTID else None, db)
    except BinlogDecodeError:
        faulted = True
    if not faulted:
        parser.close()
    return parser.finished, faulted


FIXTURE_FILES = (
    sorted(p for p in BINLOG_FIXTURES.rglob("*") if p.is_file() and p.read_bytes()[:4] == b"\xfebin")
    if BINLOG_FIXTURES.exists()
    else []
)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fast_scanner_agrees_with_the_state_machine(path: Path) -> None:
    """The scanner runs the state table inline on raw bytes; it must find exactly what TransactionParser finds
    on fully decoded events."""
    expected, faulted = _reference_transactions(path)
    got = []
    try:
        got.extend(iter_transactions(path))
    except BinlogDecodeError:
        assert faulted
    assert got == expected


FUZZ_FILES = [
    BINLOG_FIXTURES / "zalora__binlog-parser/gtid-fixtures/mysql-bin.01",
    BINLOG_FIXTURES / "osheroff__mysql-binlog-connector-java/mysql-bin.compressed",
    BINLOG_FIXTURES / "blackbeam__rust_mysql_common/binlog_transaction_with_GTID_TAG.000001",
    BINLOG_FIXTURES / "Yelp__ybinlogp/mysql-bin.default-path",
]


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, len(FUZZ_FILES) - 1),
    st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=4),
    st.integers(0, 10**6),
    st.booleans(),
)
def test_fuzzed_files_never_break_scan_file(which: int, flips: list, cut: int, verify: bool) -> None:
    """Random byte changes and truncations: scan_file records the fault (never raises), iter_transactions and
    read_events raise only BinlogDecodeError, and the transactions kept end before the fault."""
    data = bytearray(FUZZ_FILES[which].read_bytes())
    for at, value in flips:
        data[at % len(data)] = value
    del data[len(data) - cut % (len(data) // 2 + 1) :]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "fuzzed"
        path.write_bytes(bytes(data))
        scan = scan_file(path, verify_checksum=verify)
        assert scan.good_bytes <= len(data)
        if scan.error is not None:
            assert scan.error_offset is not None and scan.error_offset <= len(data)
            assert all(t.end_pos <= scan.good_bytes for t in scan.transactions)
        for reader in (
            lambda: list(iter_transactions(path, verify_checksum=verify)),
            lambda: list(read_events(path, verify_checksum=verify)),
        ):
            try:
                reader()
            except BinlogDecodeError as err:
                assert err.offset is not None
