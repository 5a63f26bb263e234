"""Every real binlog in ../shared/research/fixtures/binlogs is read and agrees with INDEX.md.

Expectations come from INDEX.md's table (parsed by ``index_md.py``), never from per-file constants, except the
documented deviations in :data:`DEVIATIONS` (a fault INDEX.md's header-only walk could not see).
"""

from __future__ import annotations

import gzip
import struct
from collections import Counter
from pathlib import Path

import pytest

from gtidkit.binlog import (
    BinlogDecodeError,
    BinlogStream,
    ChecksumAlg,
    EventType,
    FormatDescriptionEvent,
    GtidEvent,
    PreviousGtidsEvent,
    decode_event,
    encode_event,
    read_events,
    scan_file,
)
from gtidkit.binlog.stream import NEED_DATA
from gtidkit.binlog.versions import has_checksum_alg
from gtidkit.gtid import GtidSet
from tests.conftest import BINLOG_FIXTURES

from .index_md import IndexRow, parse_gz_companions, parse_index

ROWS = parse_index(BINLOG_FIXTURES / "INDEX.md") if (BINLOG_FIXTURES / "INDEX.md").exists() else []
GTID_TYPES = (EventType.GTID_LOG_EVENT, EventType.ANONYMOUS_GTID_LOG_EVENT, EventType.GTID_TAGGED_LOG_EVENT)

#: Files where gtidkit stops earlier than INDEX.md's header-only walk: file → (fault offset, why).
DEVIATIONS = {
    "blackbeam__rust_mysql_common/corrupt-relay-bin.000624": (
        91204,
        (
            "the Query event at 91204 has a garbage body (status_vars_len runs past the event), which MySQL's "
            "Query_event decoder rejects too; INDEX.md only walked headers"
        ),
    ),
}


def _path(row: IndexRow) -> Path:
    return BINLOG_FIXTURES / row.file


def _header_walk_counts(data: bytes, start: int) -> Counter[int]:
    """Type codes of the events from ``start`` on, by headers only (used to explain a deviation)."""
    counts: Counter[int] = Counter()
    pos = start
    while pos + 19 <= len(data):
        size = struct.unpack_from("<I", data, pos + 9)[0]
        counts[data[pos + 4]] += 1
        pos += size
    return counts


def test_index_has_rows(binlog_fixtures: Path) -> None:
    assert len(ROWS) >= 60
    assert all(_path(r).exists() for r in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[r.file for r in ROWS])
def test_fixture_agrees_with_index(row: IndexRow) -> None:
    path = _path(row)
    scan = scan_file(path)
    assert scan.size == row.size

    if row.mariadb:
        assert scan.error is not None and "MariaDB" in scan.error
        assert scan.error_offset == 4
        with pytest.raises(BinlogDecodeError, match="MariaDB") as info:
            list(read_events(path))
        assert info.value.offset == 4 and info.value.file == str(path)
        return

    events: list = []
    fault: BinlogDecodeError | None = None
    try:
        events.extend(read_events(path))
    except BinlogDecodeError as err:
        fault = err

    deviation = DEVIATIONS.get(row.file)
    if row.trailing is not None:
        n, offset = row.trailing
        assert fault is not None and fault.offset == offset and fault.file == str(path)
        assert scan.error_offset == offset and scan.good_bytes == offset and row.size - offset == n
    elif deviation is not None:
        offset, _why = deviation
        assert fault is not None and fault.offset == offset
        assert scan.error_offset == offset and scan.good_bytes == offset
    else:
        assert fault is None, fault
        assert scan.error is None and scan.good_bytes == row.size

    top = [pe for pe in events if not pe.in_payload]
    counts = Counter(pe.header.type_code for pe in top)
    if deviation is not None:
        counts += _header_walk_counts(path.read_bytes(), deviation[0])
    assert dict(counts) == row.event_types
    assert {
        EventType(t).name if t in EventType._value2member_map_ else str(t): n for t, n in counts.items()
    } == scan.event_type_counts or deviation is not None

    # server version: the FDE that describes the events (the last one in a relay log)
    fdes = [pe.event for pe in top if isinstance(pe.event, FormatDescriptionEvent)]
    assert (fdes[-1].server_version if fdes else None) == row.server_version == scan.server_version

    # checksum
    if fdes:
        alg = fdes[-1].checksum_alg
        if row.checksum == "CRC32":
            assert alg == ChecksumAlg.CRC32
        elif row.checksum == "NONE":
            assert alg == ChecksumAlg.OFF and has_checksum_alg(fdes[-1].server_version)
        else:
            assert row.checksum.startswith("pre-5.6") and not has_checksum_alg(fdes[-1].server_version)
    # INDEX.md notes the IN_USE flag where it matters for the FDE's CRC (CRC32 files); elsewhere it may be silent
    # (test-mysql-bin, 5.5, is in use per its mysqlbinlog companion output, checked in the CLI tests)
    if row.checksum == "CRC32":
        assert scan.in_use == row.in_use
    elif row.in_use:
        assert scan.in_use

    # Previous_gtids
    prev = [pe.event for pe in top if isinstance(pe.event, PreviousGtidsEvent)]
    if row.prev_gtids == "":
        assert prev == [] and scan.previous_gtids is None
    else:
        expected = (
            GtidSet()
            if row.prev_gtids == "(empty)"
            else GtidSet.parse(row.prev_gtids.replace("[tagged format]", "").strip())
        )
        assert prev[0].gtids == expected == scan.previous_gtids
        assert prev[0].tagged_format == ("[tagged format]" in row.prev_gtids)

    # GTID events
    gtid_events = [pe for pe in events if pe.header.type_code in GTID_TYPES]
    assert Counter(pe.header.type_code for pe in gtid_events) == +Counter(row.gtid_counts())
    gno_range = row.gno_range()
    if gno_range is not None:
        first, last, sid_hex = gno_range
        gnos = [pe.event.gtid.gno for pe in gtid_events]
        assert (min(gnos), max(gnos)) == (first, last)
        # INDEX.md names one SID (the first); a file may mix SIDs (rpl_atomic_ddl_rollback_view has two)
        sids = [pe.event.gtid.sid.hex for pe in gtid_events]
        assert sids[0] == sid_hex
    # every GTID event starts a transaction the scanner found, with the same GTID, in order
    trx_gtids = [(t.begin_pos, t.gtid, t.anonymous) for t in scan.transactions if t.anonymous or t.gtid]
    assert trx_gtids == [(pe.pos, pe.event.gtid, pe.event.gtid is None) for pe in gtid_events]


@pytest.mark.parametrize("row", [r for r in ROWS if not r.mariadb], ids=lambda r: r.file)
def test_fixture_events_round_trip_byte_for_byte(row: IndexRow) -> None:
    """Real MySQL bytes → decode → encode gives the identical bytes, for every event of every file."""
    data = _path(row).read_bytes()
    pos, fde, n = 4, None, 0
    while pos + 19 <= len(data):
        size = struct.unpack_from("<I", data, pos + 9)[0]
        raw = data[pos : pos + size]
        if len(raw) < size:
            break
        try:
            ev = decode_event(raw, fde, offset=pos)
        except BinlogDecodeError:
            assert row.file in DEVIATIONS
            break
        if isinstance(ev.event, FormatDescriptionEvent):
            fde = ev.event
        h = ev.header
        again = encode_event(
            ev.event, fde, timestamp=h.timestamp, server_id=h.server_id, log_pos=h.log_pos, flags=h.flags
        )
        assert again == raw, (pos, h.type_code)
        n += 1
        pos += size
    assert n >= 1 or row.trailing is not None


def test_transaction_length_matches_bytes(binlog_fixtures: Path) -> None:
    """MySQL's transaction_length (8.0.2+) equals the bytes from the Gtid event to the end of the commit."""
    checked = 0
    for row in ROWS:
        if row.mariadb or row.trailing:
            continue
        for trx in scan_file(_path(row)).transactions:
            if trx.transaction_length is not None and trx.complete:
                assert trx.bytes == trx.transaction_length, (row.file, trx.begin_pos)
                checked += 1
    assert checked >= 40


def test_8_0_gtid_events_are_77_bytes_when_short(binlog_fixtures: Path) -> None:
    """formats.md §2.2: an originating 8.0 Gtid event is 77 bytes (79 when transaction_length >= 251)."""
    seen = set()
    for row in ROWS:
        if row.mariadb or row.trailing or row.file in DEVIATIONS:
            continue
        for pe in read_events(_path(row)):
            ev = pe.event
            if (
                isinstance(ev, GtidEvent)
                and not ev.tagged_layout
                and ev.immediate_server_version is not None
                and ev.original_commit_timestamp == ev.immediate_commit_timestamp
                and ev.original_server_version == ev.immediate_server_version
            ):
                expected = 77 if ev.transaction_length < 251 else 79
                assert pe.header.event_size == expected
                seen.add(expected)
    assert seen == {77, 79}


def test_gz_companions_read_in_memory(binlog_fixtures: Path) -> None:
    """The gzip companions (sakila: 5.5.27, 1.4 MB of WRITE_ROWS_V1) read through the sans-I/O stream in memory,
    agreeing with INDEX.md's companion table on size, server version and event counts."""
    companions = parse_gz_companions(binlog_fixtures / "INDEX.md")
    assert companions
    for comp in companions:
        data = gzip.decompress((binlog_fixtures / comp.file).read_bytes())
        assert len(data) == comp.size
        stream = BinlogStream(file=comp.file)
        counts: Counter[int] = Counter()
        for i in range(0, len(data), 65536):
            stream.feed(data[i : i + 65536])
            while (ev := stream.next_event()) is not NEED_DATA:
                counts[ev.type_code] += 1  # type: ignore[union-attr]
        stream.end_of_data()
        assert stream.fde is not None and stream.fde.server_version == comp.server_version
        assert dict(counts) == comp.event_types


def test_every_real_table_map_decodes_fully(binlog_fixtures: Path) -> None:
    """Column metadata splits exactly per column type and the optional metadata TLVs parse, on every real
    Table_map event (5.1 to 9.6, including 9.0's VECTOR type and 8.0 binlog_row_metadata=FULL names)."""
    from gtidkit.binlog import TableMapEvent

    seen = named = 0
    for row in ROWS:
        if row.mariadb:
            continue
        try:
            for pe in read_events(_path(row)):
                if isinstance(pe.event, TableMapEvent):
                    tm = pe.event
                    md = tm.column_metadata()
                    assert len(md) == tm.column_count and b"".join(md) == tm.metadata
                    tm.optional_metadata_fields()
                    names = tm.column_names()
                    if names is not None:
                        assert len(names) == tm.column_count
                        named += 1
                    seen += 1
        except BinlogDecodeError:
            assert row.trailing or row.file in DEVIATIONS
    assert seen >= 100 and named >= 10
