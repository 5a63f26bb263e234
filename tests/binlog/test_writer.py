"""BinlogWriter and encode_transaction: files we write read back with the reader, match MySQL's sizes and bytes,
and pass ``mariadb-binlog --verify-binlog-checksum``."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.binlog.codec import decode_event
from gtidkit.binlog.constants import EventType
from gtidkit.binlog.events.control import GtidEvent, PreviousGtidsEvent, XidEvent
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.binlog.file import iter_transactions, read_events, scan_file
from gtidkit.binlog.writer import BinlogWriter, encode_transaction, server_version_int, transaction_length_for
from gtidkit.errors import BinlogDecodeError
from gtidkit.gtid import Gtid, GtidSet

SID = uuid.UUID("3e11fa47-71ca-11e1-9e33-c80aa9429562")
T0 = 1_768_471_200_000_000  # µs


def begin() -> QueryEvent:
    return QueryEvent(thread_id=7, exec_time=0, error_code=0, status_vars=b"", database="test", query="BEGIN")


def ddl(text: str) -> QueryEvent:
    return QueryEvent(thread_id=7, exec_time=0, error_code=0, status_vars=b"", database="test", query=text)


def table_map() -> TableMapEvent:
    return TableMapEvent(
        table_id=101,
        flags=1,
        database="test",
        table="t1",
        column_types=bytes([3, 15]),
        metadata=b"\x40\x00",
        null_bitmap=b"\x02",
    )


def write_rows(n: int) -> RowsEvent:
    # n rows of (INT, VARCHAR(64)) consistent with table_map(): null bitmap byte, INT, 1-byte length + text.
    rows = b"".join(b"\x00" + i.to_bytes(4, "little") + bytes([8]) + f"row{i:05d}".encode() for i in range(n))
    return RowsEvent(
        type_code=EventType.WRITE_ROWS_EVENT,
        table_id=101,
        flags=1,
        extra=b"",
        column_count=2,
        columns_before=b"\x03",
        columns_after=None,
        body=rows,
    )


def row_trx(n: int, xid: int = 1) -> list:
    return [begin(), table_map(), write_rows(n), XidEvent(xid=xid)]


def write_file(path: Path, trxs: int = 3, **create) -> list[tuple[int, int]]:
    spans = []
    with BinlogWriter.create(path, server_id=1, timestamp=T0 // 10**6, **create) as w:
        for i in range(trxs):
            spans.append(
                w.write_transaction(
                    Gtid(SID, i + 1),
                    row_trx(1 + i * 5, xid=i + 10),
                    last_committed=i,
                    sequence_number=i + 1,
                    immediate_commit_timestamp=T0 + i,
                )
            )
        w.close()
    return spans


def test_new_file_layout_and_clean_close(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    prev = GtidSet.parse(f"{SID}:1-5")
    with BinlogWriter.create(path, server_id=42, previous_gtids=prev, timestamp=1000) as w:
        assert w.position == 4 + 122 + 71  # magic + 8.0.36 FDE + Previous_gtids with one interval
        w.close()
    events = list(read_events(path))
    assert [e.header.type_code for e in events] == [
        EventType.FORMAT_DESCRIPTION_EVENT,
        EventType.PREVIOUS_GTIDS_LOG_EVENT,
        EventType.STOP_EVENT,
    ]
    assert [e.pos for e in events] == [4, 126, 197]
    assert all(e.header.log_pos == e.end_pos for e in events)
    assert all(e.header.server_id == 42 for e in events)
    scan = scan_file(path)
    assert scan.error is None
    assert scan.server_version == "8.0.36"
    assert scan.previous_gtids == prev
    assert scan.in_use is False
    assert scan.ends_with == "STOP"
    assert path.read_bytes()[4 + 17] & 1 == 0


def test_open_file_keeps_in_use_flag(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    w = BinlogWriter.create(path, server_id=1)
    w.write_transaction(
        Gtid(SID, 1), row_trx(2), last_committed=0, sequence_number=1, immediate_commit_timestamp=T0
    )
    w.close(stop=False, in_use=True)
    scan = scan_file(path)
    assert scan.error is None  # the FDE CRC is computed with the flag cleared, so it verifies while set
    assert scan.in_use is True
    assert scan.ends_with is None
    assert path.read_bytes()[4 + 17] & 1 == 1


def test_transactions_read_back(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    spans = write_file(path, trxs=4)
    trxs = list(iter_transactions(path))
    assert [(t.begin_pos, t.end_pos) for t in trxs] == spans
    assert [t.gtid for t in trxs] == [Gtid(SID, i) for i in range(1, 5)]
    assert [(t.last_committed, t.sequence_number) for t in trxs] == [(i, i + 1) for i in range(4)]
    assert [t.immediate_commit_timestamp for t in trxs] == [T0 + i for i in range(4)]
    assert all(t.original_commit_timestamp == t.immediate_commit_timestamp for t in trxs)
    assert all(t.complete and t.databases == ("test",) for t in trxs)
    gtid_events = [e for e in read_events(path) if e.header.type_code == EventType.GTID_LOG_EVENT]
    for ev, (b, e) in zip(gtid_events, spans):
        assert ev.event.transaction_length == e - b
        assert ev.event.immediate_server_version == 80036 == ev.event.original_server_version
    # every event's log_pos is its end offset, and events tile the file
    events = list(read_events(path))
    assert all(e.header.log_pos == e.end_pos for e in events)
    assert all(a.end_pos == b.pos for a, b in pairwise(events))


# Gtid event sizes (formats.md §2.2): 77 when transaction_length < 251, 79 up to 65535, 80 up to 2^24;
# +7 when original_commit_timestamp differs (a replica with log_replica_updates).
@pytest.mark.parametrize(
    ("rows", "replica", "gtid_size"),
    [(0, False, 77), (30, False, 79), (6000, False, 80), (0, True, 84), (30, True, 86)],
    ids=["short-77", "medium-79", "long-80", "replica-short-84", "replica-medium-86"],
)
def test_gtid_event_sizes_match_mysql(tmp_path: Path, rows: int, replica: bool, gtid_size: int) -> None:
    path = tmp_path / "binlog.000001"
    events = row_trx(rows) if rows else [ddl("CREATE TABLE t2 (a INT)")]  # a DDL: under 251 bytes in all
    with BinlogWriter.create(path, server_id=1) as w:
        b, e = w.write_transaction(
            Gtid(SID, 1),
            events,
            last_committed=0,
            sequence_number=1,
            immediate_commit_timestamp=T0 + 500,
            original_commit_timestamp=T0 if replica else None,
        )
        w.close()
    first = next(e for e in read_events(path) if e.header.type_code == EventType.GTID_LOG_EVENT)
    assert first.end_pos - first.pos == gtid_size
    assert first.event.transaction_length == e - b
    assert first.event.original_commit_timestamp == (T0 if replica else T0 + 500)


@pytest.mark.parametrize("rest", range(170, 178), ids=lambda r: f"rest-{r}")
def test_transaction_length_self_inclusive_boundary(rest: int) -> None:
    # Around 251 the length field grows from 1 to 3 bytes, which itself grows the length (MySQL's fix-up):
    # 250 fits one byte, 251 and 252 cannot exist, the next possible length is 253.
    from gtidkit.binlog.events.control import FormatDescriptionEvent

    fde = FormatDescriptionEvent.for_server("8.0.36")
    query_size = 19 + 13 + 4 + 1 + 4  # header, post-header, "test", NUL, CRC: the rest is the query text
    stmt = "CREATE TABLE t (a INT) -- " + "x" * (rest - query_size - len("CREATE TABLE t (a INT) -- "))
    data, positions = encode_transaction(
        Gtid(SID, 9),
        [ddl(stmt)],
        fde,
        start_pos=157,
        server_id=1,
        timestamp=1,
        last_committed=0,
        sequence_number=1,
        immediate_commit_timestamp=T0,
    )
    assert positions[1][1] - positions[1][0] == rest
    length = len(data)
    gtid = decode_event(data[: positions[0][1] - 157], fde).event
    assert gtid.transaction_length == length
    assert length == (rest + 77 if rest + 77 < 251 else rest + 79)
    assert length == transaction_length_for(rest, 76)
    assert gtid.may_have_sbr  # DDL: FLAG_MAY_HAVE_SBR set, as MySQL does for statement events


@pytest.mark.parametrize("before", [0, 300, 70_000], ids=lambda n: f"after-{n}-byte-statement")
def test_transaction_length_is_the_least_whatever_was_encoded_before(before: int) -> None:
    # MySQL's length is the smallest self-inclusive one: 250 rather than 252 (a 3-byte field would also be
    # self-consistent at 252), whatever size the previous transaction had
    from gtidkit.binlog.events.control import FormatDescriptionEvent

    fde = FormatDescriptionEvent.for_server("8.0.36")

    def length_of(text: str) -> tuple[int, int]:
        data, positions = encode_transaction(
            Gtid(SID, 9),
            [ddl(text)],
            fde,
            start_pos=157,
            server_id=1,
            timestamp=1,
            last_committed=0,
            sequence_number=1,
            immediate_commit_timestamp=T0,
        )
        gtid = decode_event(data[: positions[0][1] - 157], fde).event
        assert gtid.transaction_length == len(data)
        return positions[1][1] - positions[1][0], len(data)

    query_size = 19 + 13 + 4 + 1 + 4
    for rest in range(170, 178):
        length_of("DROP TABLE t -- " + "z" * before)
        got_rest, length = length_of("DROP TABLE t -- " + "x" * (rest - query_size - len("DROP TABLE t -- ")))
        assert got_rest == rest
        assert length == (rest + 77 if rest + 77 < 251 else rest + 79)


@settings(max_examples=150, deadline=None)
@given(
    n=st.one_of(st.integers(0, 400), st.integers(65_300, 65_700), st.integers(0, 70_000)),
    anonymous=st.booleans(),
    replica=st.booleans(),
    tag=st.sampled_from(["", "app_1"]),
)
def test_transaction_length_property(n: int, anonymous: bool, replica: bool, tag: str) -> None:
    """For any size (across the 1/3/4-byte and varlen width steps), the Gtid event says exactly how long the
    transaction is, and the bytes decode back to the same Gtid fields."""
    from gtidkit.binlog.events.control import FormatDescriptionEvent

    fde = FormatDescriptionEvent.for_server("8.4.3")
    gtid = None if anonymous else Gtid(SID, 77, tag)
    data, positions = encode_transaction(
        gtid,
        [ddl("DROP TABLE t -- " + "y" * n)],
        fde,
        start_pos=158,
        server_id=3,
        timestamp=5,
        last_committed=4,
        sequence_number=9,
        immediate_commit_timestamp=T0 + 1,
        original_commit_timestamp=T0 if replica else None,
    )
    g = decode_event(data[: positions[0][1] - 158], fde).event
    assert g.transaction_length == len(data) == positions[-1][1] - 158
    assert (g.gtid, g.last_committed, g.sequence_number) == (gtid, 4, 9)
    assert g.original_commit_timestamp == (T0 if replica else T0 + 1)


def test_tagged_gtid_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    prev = GtidSet.parse(f"{SID}:1-3,{SID}:app_1:1-2")
    with BinlogWriter.create(path, server_id=1, server_version="8.4.3", previous_gtids=prev) as w:
        b, e = w.write_transaction(
            Gtid(SID, 3, "app_1"),
            row_trx(4),
            last_committed=0,
            sequence_number=1,
            immediate_commit_timestamp=T0,
        )
        w.close()
    scan = scan_file(path)
    assert scan.error is None and scan.previous_gtids == prev
    (trx,) = scan.transactions
    assert (trx.gtid, trx.begin_pos, trx.end_pos) == (Gtid(SID, 3, "app_1"), b, e)
    ev = next(e for e in read_events(path) if e.header.type_code == EventType.GTID_TAGGED_LOG_EVENT)
    assert ev.event.transaction_length == e - b


def test_anonymous_transaction(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    with BinlogWriter.create(path, server_id=1) as w:
        b, e = w.write_transaction(
            None, row_trx(3), last_committed=0, sequence_number=1, immediate_commit_timestamp=T0
        )
        w.close()
    (trx,) = list(iter_transactions(path))
    assert trx.anonymous and trx.gtid is None and (trx.begin_pos, trx.end_pos) == (b, e)
    ev = next(e for e in read_events(path) if e.header.type_code == EventType.ANONYMOUS_GTID_LOG_EVENT)
    assert ev.header.flags == 0  # as in every real 5.7/8.0 binlog
    assert ev.event.transaction_length == e - b


def test_rotate(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    w = BinlogWriter.create(path, server_id=1)
    w.write_transaction(
        Gtid(SID, 1), row_trx(1), last_committed=0, sequence_number=1, immediate_commit_timestamp=T0
    )
    size = w.rotate("binlog.000002")
    assert size == path.stat().st_size
    scan = scan_file(path)
    assert (scan.ends_with, scan.next_file, scan.in_use, scan.error) == (
        "ROTATE",
        "binlog.000002",
        False,
        None,
    )
    last = list(read_events(path))[-1]
    assert last.event.position == 4


def test_open_append_truncates_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    w = BinlogWriter.create(path, server_id=7)
    spans = [
        w.write_transaction(
            Gtid(SID, i),
            row_trx(2, xid=i),
            last_committed=0,
            sequence_number=i,
            immediate_commit_timestamp=T0 + i,
        )
        for i in (1, 2)
    ]
    w.close(stop=False, in_use=True)
    with open(path, "ab") as fh:  # a crash in the middle of writing transaction 3
        fh.write(b"\x11" * 50)
    assert scan_file(path).error is not None
    w = BinlogWriter.open_append(path, truncate_at=spans[1][1])
    assert w.position == spans[1][1] and w.server_id == 7
    w.write_transaction(
        Gtid(SID, 3),
        row_trx(1, xid=3),
        last_committed=2,
        sequence_number=3,
        immediate_commit_timestamp=T0 + 3,
    )
    w.close()
    scan = scan_file(path)
    assert scan.error is None and scan.ends_with == "STOP" and not scan.in_use
    assert [t.gtid.gno for t in scan.transactions] == [1, 2, 3]
    assert scan.transactions[2].begin_pos == spans[1][1]


def test_open_append_sets_the_in_use_flag_at_once(tmp_path: Path) -> None:
    """A second handle (another worker process of the server following the log) sets the flag when it opens, not at
    its close: the rotation of the first handle clears it, and the second handle's close must leave it cleared
    (a late buffered write of the flag byte marked a rotated file in use)."""
    path = tmp_path / "binlog.000001"
    first = BinlogWriter.create(path, server_id=7)
    first.write_transaction(
        Gtid(SID, 1), row_trx(1), last_committed=0, sequence_number=1, immediate_commit_timestamp=T0
    )
    first.flush()
    second = BinlogWriter.open_append(path)
    assert path.read_bytes()[4 + 17] & 1 == 1
    first.rotate("binlog.000002")
    assert path.read_bytes()[4 + 17] & 1 == 0
    second.close(stop=False, in_use=True, fsync=False)  # "the file is not ours to close"
    scan = scan_file(path)
    assert (scan.error, scan.ends_with, scan.in_use) == (None, "ROTATE", False)


def test_open_append_rejects_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    write_file(path, trxs=1)
    with pytest.raises(BinlogDecodeError):
        BinlogWriter.open_append(path, truncate_at=50)  # inside the FDE
    with pytest.raises(BinlogDecodeError):
        BinlogWriter.open_append(path, truncate_at=path.stat().st_size + 1)
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a binlog at all, no magic here")
    with pytest.raises(BinlogDecodeError) as err:
        BinlogWriter.open_append(junk)
    assert err.value.offset == 0


def test_create_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    write_file(path, trxs=1)
    before = path.read_bytes()
    with pytest.raises(FileExistsError):
        BinlogWriter.create(path, server_id=1)
    assert path.read_bytes() == before


def test_flush_with_fsync_reaches_the_file(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    w = BinlogWriter.create(path, server_id=1)
    w.write_transaction(
        Gtid(SID, 1), row_trx(1), last_committed=0, sequence_number=1, immediate_commit_timestamp=T0
    )
    w.flush(fsync=True)
    assert path.stat().st_size == w.position
    assert [t.gtid for t in iter_transactions(path)] == [Gtid(SID, 1)]
    w.close()
    with pytest.raises(ValueError):
        w.write_event(XidEvent(xid=1))


def test_no_checksum_files(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    spans = write_file(path, trxs=2, checksum=False)
    scan = scan_file(path)
    assert scan.error is None and scan.checksum_alg == 0
    assert [(t.begin_pos, t.end_pos) for t in scan.transactions] == spans


def test_server_version_int() -> None:
    assert server_version_int("8.0.36") == 80036
    assert server_version_int("8.4.11-log") == 80411
    assert server_version_int("5.7.44-log") == 50744
    with pytest.raises(ValueError):
        server_version_int("banana")


# --- real MySQL bytes --------------------------------------------------------------------------------------


def _real_transactions(path: Path):
    events = list(read_events(path, expand_payloads=False))  # a Transaction_payload is one event here
    groups, current = [], None
    for ev in events:
        if ev.header.type_code in (
            EventType.GTID_LOG_EVENT,
            EventType.ANONYMOUS_GTID_LOG_EVENT,
            EventType.GTID_TAGGED_LOG_EVENT,
        ):
            current = [ev]
            groups.append(current)
        elif current is not None and ev.header.type_code not in (
            EventType.ROTATE_EVENT,
            EventType.STOP_EVENT,
        ):
            current.append(ev)
    return events[0].event, groups


@pytest.mark.parametrize(
    "name",
    [
        "blackbeam__rust_mysql_common/mysql-enum-string-set.000001",
        "blackbeam__rust_mysql_common/binlog-invisible-columns.000001",
        "blackbeam__rust_mysql_common/json.binlog.000001",
        "blackbeam__rust_mysql_common/mysql_type_bit.000001",
        "blackbeam__rust_mysql_common/time_issue.000001",
        "blackbeam__rust_mysql_common/vector.binlog",
        "blackbeam__rust_mysql_common/binlog_transaction_with_GTID_TAG.000001",  # 9.6 tagged (type 42)
        "blackbeam__rust_mysql_common/transaction_compression.000001",  # 8.0.32 Transaction_payload
        "blackbeam__rust_mysql_common/bug27213339-bin.000001",  # 5.7.22: no transaction_length yet
    ],
    ids=lambda n: n.split("/")[-1],
)
def test_encode_transaction_reproduces_real_mysql_bytes(binlog_fixtures: Path, name: str) -> None:
    """Re-encode every transaction of a real 8.0 binlog from its decoded events: same bytes, including
    transaction_length, log_pos and CRC32 (so our transaction_length computation is MySQL's)."""
    path = binlog_fixtures / name
    raw = path.read_bytes()
    fde, groups = _real_transactions(path)
    assert groups
    for group in groups:
        g = group[0]
        gev: GtidEvent = g.event
        body = [(ev.event, ev.header.flags) for ev in group[1:]]
        data, positions = encode_transaction(
            gev.gtid,
            body,
            fde,
            start_pos=g.pos,
            server_id=g.header.server_id,
            timestamp=g.header.timestamp,
            last_committed=gev.last_committed,
            sequence_number=gev.sequence_number,
            immediate_commit_timestamp=gev.immediate_commit_timestamp,
            original_commit_timestamp=gev.original_commit_timestamp,
            immediate_server_version=gev.immediate_server_version,
            original_server_version=gev.original_server_version,
            gtid_flags=gev.flags,
        )
        # (in these files every event of a transaction carries the same header timestamp, as MySQL writes it)
        assert {ev.header.timestamp for ev in group} == {g.header.timestamp}
        assert [p[0] for p in positions] == [ev.pos for ev in group]
        assert len(data) == group[-1].end_pos - g.pos
        assert gev.transaction_length in (None, len(data))  # None: a 5.7 writer (no length field)
        assert data == raw[g.pos : group[-1].end_pos], f"{name}: transaction at {g.pos} differs"


def test_file_head_matches_real_mysql(binlog_fixtures: Path, tmp_path: Path) -> None:
    """FDE + empty Previous_gtids written for 8.0.26 equal the head of a real 8.0.26 binlog, byte for byte."""
    real_path = binlog_fixtures / "blackbeam__rust_mysql_common/binlog-invisible-columns.000001"
    real = real_path.read_bytes()
    first = list(read_events(real_path))[:2]
    fde_hdr, prev_hdr = first[0].header, first[1].header
    path = tmp_path / "binlog.000001"
    w = BinlogWriter.create(
        path,
        server_id=fde_hdr.server_id,
        server_version="8.0.26",
        create_timestamp=first[0].event.create_timestamp,
        timestamp=fde_hdr.timestamp,
    )
    assert prev_hdr.timestamp == fde_hdr.timestamp and isinstance(first[1].event, PreviousGtidsEvent)
    assert w.position == 156 == list(read_events(real_path))[2].pos  # 8.0.26 announces 40 types: 121-byte FDE
    w.close(stop=False)  # flag cleared, as in the real (cleanly closed) file
    assert path.read_bytes() == real[:156]


# --- mariadb-binlog as an independent framing/CRC oracle ---------------------------------------------------

MARIADB_BINLOG = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")


@pytest.mark.skipif(
    MARIADB_BINLOG is None, reason="mariadb-binlog not on PATH (Debian package mariadb-client)"
)
def test_mariadb_binlog_verifies_our_checksums(tmp_path: Path) -> None:
    path = tmp_path / "binlog.000001"
    with BinlogWriter.create(path, server_id=1, previous_gtids=GtidSet.parse(f"{SID}:1-100")) as w:
        for i in range(1, 6):
            w.write_transaction(
                Gtid(SID, 100 + i),
                row_trx(i * 20, xid=i),
                last_committed=i - 1,
                sequence_number=i,
                immediate_commit_timestamp=T0 + i,
            )
        w.write_transaction(
            Gtid(SID, 106),
            [ddl("CREATE TABLE t2 (a INT)")],
            last_committed=5,
            sequence_number=6,
            immediate_commit_timestamp=T0 + 6,
        )
        w.rotate("binlog.000002")
    ok = subprocess.run(
        [MARIADB_BINLOG, "--verify-binlog-checksum", "-vv", "--base64-output=decode-rows", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert "crc check failed" not in (ok.stdout + ok.stderr).lower()
    assert "### INSERT INTO `test`.`t1`" in ok.stdout and "@2='row00099'" in ok.stdout
    assert "Rotate to binlog.000002" in ok.stdout
    # control: the same tool rejects one flipped byte inside a rows event (so the check above can fail)
    data = bytearray(path.read_bytes())
    rows_at = next(e for e in read_events(path) if e.header.type_code == EventType.WRITE_ROWS_EVENT)
    data[rows_at.pos + 30] ^= 0xFF
    bad = tmp_path / "bad.000001"
    bad.write_bytes(bytes(data))
    res = subprocess.run(
        [MARIADB_BINLOG, "--verify-binlog-checksum", str(bad)], capture_output=True, text=True, check=False
    )
    assert res.returncode != 0
