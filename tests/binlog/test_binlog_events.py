"""Event codecs: built values round-trip through encode_event → decode_event; MySQL's sizes; CRC rules; fuzz."""

from __future__ import annotations

import struct
from uuid import UUID

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.binlog import (
    BinlogDecodeError,
    ChecksumAlg,
    ChecksumMismatchError,
    EventHeader,
    EventType,
    FormatDescriptionEvent,
    GtidEvent,
    HeartbeatEvent,
    HeartbeatV2Event,
    IntvarEvent,
    PreviousGtidsEvent,
    QueryEvent,
    RandEvent,
    RotateEvent,
    RowsEvent,
    StopEvent,
    TableMapEvent,
    TransactionPayloadEvent,
    UnknownEvent,
    UserVarEvent,
    XidEvent,
    decode_event,
    encode_event,
)
from gtidkit.binlog.events.control import gtid_event_size
from gtidkit.binlog.stream import iter_payload_events
from gtidkit.binlog.versions import post_header_lengths_for
from gtidkit.gtid import Gtid, GtidSet

SID = UUID("3e11fa47-71ca-11e1-9e33-c80aa9429562")
FDE80 = FormatDescriptionEvent.for_server("8.0.36")
FDE84 = FormatDescriptionEvent.for_server("8.4.0")
FDE57 = FormatDescriptionEvent.for_server("5.7.44-log")
FDE56 = FormatDescriptionEvent.for_server("5.6.51-log")
FDE55 = FormatDescriptionEvent.for_server("5.5.62-log")
FDE80_NONE = FormatDescriptionEvent.for_server("8.0.36", checksum_alg=ChecksumAlg.OFF)


def round_trip(event: object, fde: FormatDescriptionEvent, **header: int) -> tuple[bytes, object]:
    raw = encode_event(event, fde, **header)
    decoded = decode_event(raw, fde if not isinstance(event, FormatDescriptionEvent) else None)
    assert decoded.raw == raw
    assert (
        encode_event(
            decoded.event,
            fde,
            timestamp=decoded.header.timestamp,
            server_id=decoded.header.server_id,
            log_pos=decoded.header.log_pos,
            flags=decoded.header.flags,
        )
        == raw
    )
    return raw, decoded.event


# ---------------------------------------------------------------- FDE


@pytest.mark.parametrize(
    ("version", "size"),
    [
        ("5.6.51-log", 116),
        ("5.7.44-log", 119),
        ("8.0.36", 122),
        ("8.4.0", 123),
        ("5.5.62-log", 103),
        ("5.0.96-log", 94),
    ],
)
def test_fde_sizes_per_version(version: str, size: int) -> None:
    """formats.md §1.4 table (with CRC for 5.6.1+; pre-5.6.1 FDEs have no algorithm byte and no CRC)."""
    fde = FormatDescriptionEvent.for_server(version)
    raw, back = round_trip(fde, fde, timestamp=1, server_id=2, position=4)
    assert len(raw) == size
    assert back == fde
    assert struct.unpack_from("<I", raw, 13)[0] == 4 + size  # log_pos = end of the event


def test_fde_for_old_server_has_no_checksum() -> None:
    assert FDE55.checksum_alg == ChecksumAlg.OFF and not FDE55.has_checksum_alg_byte
    with pytest.raises(ValueError):
        FormatDescriptionEvent(4, "5.5.62", 0, 19, post_header_lengths_for("5.5.62"), ChecksumAlg.CRC32)


def test_fde_in_use_flag_is_cleared_for_the_crc() -> None:
    raw = bytearray(encode_event(FDE80, None, flags=0))
    raw[17] |= 1  # what a server does while the file is open; the CRC was computed without it
    ev = decode_event(bytes(raw), None)
    assert ev.header.flags == 1
    assert encode_event(ev.event, None, flags=1) == bytes(raw)


def test_fde_with_checksum_off_still_carries_its_crc() -> None:
    raw, _ = round_trip(FDE80_NONE, FDE80_NONE)
    assert len(raw) == 122
    bad = bytearray(raw)
    bad[-1] ^= 0xFF
    decode_event(bytes(bad), None)  # OFF: MySQL does not verify it


# ---------------------------------------------------------------- Gtid events


def test_originating_80_gtid_event_is_77_bytes() -> None:
    ev = GtidEvent(0, Gtid(SID, 7), 3, 4, 1_700_000_000_000_000, None, 200, 80036)
    raw, back = round_trip(ev, FDE80)
    assert len(raw) == 77 == gtid_event_size(200)
    assert back == ev and back.original_commit_timestamp == ev.immediate_commit_timestamp


@pytest.mark.parametrize(("length", "size"), [(250, 77), (251, 79), (65535, 79), (65536, 80), (2**24, 85)])
def test_gtid_event_size_follows_transaction_length_width(length: int, size: int) -> None:
    ev = GtidEvent(1, Gtid(SID, 1), 0, 1, 5, None, length, 80036)
    raw, _ = round_trip(ev, FDE80)
    assert len(raw) == size == gtid_event_size(length)


def test_relayed_gtid_event_carries_original_fields() -> None:
    ev = GtidEvent(0, Gtid(SID, 9), 1, 2, 2_000, 1_000, 300, 80036, 80030)
    raw, back = round_trip(ev, FDE80)
    assert len(raw) == 79 + 7 + 4 == gtid_event_size(300, original_differs=True, server_versions_differ=True)
    assert back == ev


def test_gtid_event_layouts_by_version() -> None:
    _, e56 = round_trip(GtidEvent(1, Gtid(SID, 3), None, None), FDE56)
    raw56 = encode_event(e56, FDE56)
    assert len(raw56) == 48 and e56.last_committed is None
    raw57, e57 = round_trip(GtidEvent(0, Gtid(SID, 3), 1, 2), FDE57)
    assert len(raw57) == 65 and e57.immediate_commit_timestamp is None
    with pytest.raises(ValueError):
        encode_event(GtidEvent(0, Gtid(SID, 3), None, None), FDE57)
    with pytest.raises(ValueError):
        encode_event(GtidEvent(0, Gtid(SID, 3), 1, 2), FDE56)


def test_anonymous_event_type_and_flags() -> None:
    ev = GtidEvent(1, None, 0, 1, 10, None, 100, 80036)
    raw, back = round_trip(ev, FDE80)
    assert raw[4] == EventType.ANONYMOUS_GTID_LOG_EVENT and back.anonymous
    assert raw[9:13] == struct.pack("<I", 77)


def test_commit_group_ticket_only_when_set() -> None:
    plain = encode_event(GtidEvent(0, Gtid(SID, 1), 0, 1, 1, None, 100, 80036), FDE80)
    ticket = encode_event(GtidEvent(0, Gtid(SID, 1), 0, 1, 1, None, 100, 80036, commit_group_ticket=5), FDE80)
    assert len(ticket) == len(plain) + 8
    assert decode_event(ticket, FDE80).event.commit_group_ticket == 5


def test_tagged_gtid_event() -> None:
    ev = GtidEvent(0, Gtid(SID, 1, "test_tag"), 0, 1, 1_700_000_000_000_000, None, 337, 80411)
    raw, back = round_trip(ev, FDE84)
    assert raw[4] == EventType.GTID_TAGGED_LOG_EVENT and back == ev
    body = raw[19:-4]
    assert body[0] == 0x02 and body[1] == len(body) << 1  # format version 1, message size = body size
    # a length crossing a varlen width boundary still gives a self-consistent message size
    for n in range(100, 140):
        raw = encode_event(GtidEvent(0, Gtid(SID, 1, "t" * (n % 32 + 1)), 0, 1, n, None, n, 80411), FDE84)
        assert decode_event(raw, FDE84).event.transaction_length == n


gtid_strategy = st.builds(
    lambda sid, gno, tag, flags, lc, seq, ts, delta, length, ver, vdelta, ticket: GtidEvent(
        flags,
        Gtid(UUID(bytes=sid), gno, tag),
        lc,
        lc + seq,
        ts,
        ts - delta,
        length,
        ver,
        ver - vdelta,
        ticket,
    ),
    st.binary(min_size=16, max_size=16),
    st.integers(1, 2**63 - 2),
    st.sampled_from(["", "a", "tag_1", "z" * 32]),
    st.integers(0, 1),
    st.integers(0, 2**40),
    st.integers(1, 2**20),
    st.integers(2**20, 2**55 - 1),
    st.integers(0, 2**20 - 1),
    st.integers(0, 2**40),
    st.integers(10, 2**31 - 1),
    st.integers(0, 9),
    st.integers(0, 2**64 - 1),
)


@given(gtid_strategy)
def test_gtid_event_round_trip_property(ev: GtidEvent) -> None:
    fde = FDE84 if ev.gtid is not None and ev.gtid.tag else FDE80
    _, back = round_trip(ev, fde)
    assert back == ev


# ---------------------------------------------------------------- Previous_gtids


def test_previous_gtids_sizes() -> None:
    raw, back = round_trip(PreviousGtidsEvent(GtidSet()), FDE80)
    assert len(raw) == 31 and back.gtids == GtidSet()
    raw, back = round_trip(PreviousGtidsEvent(GtidSet.parse(f"{SID}:1-5")), FDE80)
    assert len(raw) == 71 and str(back.gtids) == f"{SID}:1-5"
    assert raw[17:19] == b"\x80\x00"  # IGNORABLE, as MySQL writes it


def test_previous_gtids_tagged() -> None:
    s = GtidSet.parse(f"{SID}:1-3,{SID}:abc:1-2")
    raw, back = round_trip(PreviousGtidsEvent(s), FDE84)
    assert back.gtids == s and back.tagged_format
    bad = bytearray(raw)
    bad[19 + 8 + 16 + 1 + 3 + 8] = (
        0xFF  # corrupt an interval: the GTID-set decoder's 1773 becomes a decode error
    )
    with pytest.raises(BinlogDecodeError):
        decode_event(bytes(bad), FDE84, verify_checksum=False)


# ---------------------------------------------------------------- everything else


OTHER_EVENTS = [
    QueryEvent(7, 0, 0, b"\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00", "db1", "CREATE TABLE t (a INT)"),
    QueryEvent(1, 2, 0, b"", "", "BEGIN"),
    QueryEvent(1, 2, 1062, b"", "d\u00e9j\u00e0", "INSERT INTO t VALUES ('\udcff')"),  # non-UTF-8 byte kept
    XidEvent(2**64 - 1),
    RotateEvent(4, "binlog.000002"),
    StopEvent(),
    HeartbeatEvent("binlog.000003"),
    HeartbeatV2Event("binlog.000003", 2**40),
    IntvarEvent(2, 42),
    RandEvent(1, 2),
    UserVarEvent("x", True),
    UserVarEvent("y", False, 0, 33, b"abc", 0),
    UserVarEvent("z", False, 2, 63, b"\x01" * 8, None),
    TableMapEvent(2**40, 1, "db", "t", bytes([3, 15, 246]), b"\xfc\x00\x0a\x02", b"\x06", b"\x01\x01\x00"),
    RowsEvent(EventType.WRITE_ROWS_EVENT, 88, 1, b"", 3, b"\x07", None, b"\x00\x01\x00\x00\x00"),
    RowsEvent(EventType.UPDATE_ROWS_EVENT, 88, 1, b"\x00\x01\x02", 3, b"\x07", b"\x05", b"row-images"),
    RowsEvent(EventType.PARTIAL_UPDATE_ROWS_EVENT, 88, 0, b"", 9, b"\xff\x01", b"\xff\x01", b""),
    TransactionPayloadEvent(0, 100, b"compressed?"),
    TransactionPayloadEvent(255, None, b"plain"),
    UnknownEvent(100, b"*" * 50),
    UnknownEvent(EventType.INCIDENT_EVENT, b"\x01\x00\x03abc"),
]


@pytest.mark.parametrize("event", OTHER_EVENTS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("fde", [FDE80, FDE80_NONE, FDE57], ids=["8.0-crc", "8.0-none", "5.7"])
def test_other_events_round_trip(event: object, fde: FormatDescriptionEvent) -> None:
    from gtidkit.binlog.codec import LAYOUTS, type_code_of

    code = type_code_of(event)
    if code in LAYOUTS and fde.post_header_len(code) not in LAYOUTS[code]:
        with pytest.raises(ValueError, match="does not describe"):
            encode_event(event, fde)
        return
    _, back = round_trip(event, fde, timestamp=3, server_id=4, position=1000)
    assert back == event


def test_rows_v1_layout() -> None:
    fde = FormatDescriptionEvent.for_server("5.1.73-log")
    ev = RowsEvent(EventType.WRITE_ROWS_EVENT_V1, 5, 1, None, 2, b"\x03", None, b"\xfc\x01")
    _, back = round_trip(ev, fde)
    assert back == ev
    with pytest.raises(ValueError):
        encode_event(RowsEvent(EventType.WRITE_ROWS_EVENT_V1, 5, 1, b"x", 2, b"\x03", None, b""), fde)


def test_unknown_type_is_kept_not_fatal() -> None:
    raw = EventHeader(1, 77, 1, 19 + 3 + 4, 0, 0).encode() + b"abc"
    import zlib

    raw += zlib.crc32(raw).to_bytes(4, "little")
    ev = decode_event(raw, FDE80)
    assert ev.event == UnknownEvent(77, b"abc")


def test_crc_mismatch_names_type_and_offset() -> None:
    raw = bytearray(encode_event(XidEvent(5), FDE80))
    raw[20] ^= 1
    with pytest.raises(ChecksumMismatchError) as info:
        decode_event(bytes(raw), FDE80, offset=1234, file="f")
    assert (
        info.value.offset == 1234 and info.value.event_type == EventType.XID_EVENT and info.value.file == "f"
    )
    assert decode_event(bytes(raw), FDE80, verify_checksum=False).event.xid != 5


def test_event_before_fde_and_size_mismatch() -> None:
    raw = encode_event(XidEvent(5), FDE80)
    with pytest.raises(BinlogDecodeError, match="Format_description"):
        decode_event(raw, None)
    with pytest.raises(BinlogDecodeError, match="event_size"):
        decode_event(raw + b"x", FDE80)


def test_trailing_body_bytes_rejected() -> None:
    raw = EventHeader(0, EventType.XID_EVENT, 1, 19 + 9, 0, 0).encode() + b"\x00" * 9
    with pytest.raises(BinlogDecodeError, match="unexpected bytes") as info:
        decode_event(raw, FDE80_NONE, offset=9)
    assert info.value.offset == 9


def test_transaction_payload_inner_events_surface() -> None:
    fde = FDE80
    inner = b"".join(
        encode_event(e, fde.__class__.for_server("8.0.36", checksum_alg=0))
        for e in (
            QueryEvent(1, 0, 0, b"", "shop", "BEGIN"),
            TableMapEvent(9, 1, "shop", "orders", b"\x03", b"", b"\x00"),
            RowsEvent(EventType.WRITE_ROWS_EVENT, 9, 1, b"", 1, b"\x01", None, b"\x00\x01\x00\x00\x00"),
            XidEvent(77),
        )
    )
    payload = TransactionPayloadEvent(0, len(inner), zstandard.ZstdCompressor().compress(inner))
    _, back = round_trip(payload, fde)
    types = [e.type_code for e in iter_payload_events(back, fde)]
    assert types == [
        EventType.QUERY_EVENT,
        EventType.TABLE_MAP_EVENT,
        EventType.WRITE_ROWS_EVENT,
        EventType.XID_EVENT,
    ]
    broken = TransactionPayloadEvent(0, len(inner), b"\x28\xb5\x2f\xfd garbage")
    with pytest.raises(BinlogDecodeError, match="decompress"):
        list(iter_payload_events(broken, fde, offset=500))


# ---------------------------------------------------------------- fuzz: only BinlogDecodeError escapes


SAMPLES = [encode_event(e, FDE80) for e in OTHER_EVENTS[:17]] + [
    encode_event(GtidEvent(0, Gtid(SID, 1, "tg"), 0, 1, 5, None, 300, 80411), FDE84),
    encode_event(GtidEvent(0, Gtid(SID, 1), 0, 1, 5, 4, 300, 80036, 80030, 3), FDE80),
    encode_event(PreviousGtidsEvent(GtidSet.parse(f"{SID}:1-3:5-9")), FDE80),
    encode_event(FDE80, None),
]


@settings(max_examples=400)
@given(st.sampled_from(SAMPLES), st.integers(0, 200), st.integers(0, 255), st.integers(0, 200))
def test_fuzzed_events_raise_only_binlog_decode_error(raw: bytes, at: int, value: int, cut: int) -> None:
    data = bytearray(raw)
    data[at % len(data)] = value
    data = data[: max(0, len(data) - cut % 8)]
    for verify in (True, False):
        try:
            decode_event(bytes(data), FDE84 if data[4:5] == b"\x2a" else FDE80, verify_checksum=verify)
        except BinlogDecodeError:
            pass


def test_verify_crc32_helper() -> None:
    from gtidkit.binlog.header import verify_crc32

    raw = bytearray(encode_event(FDE80, None, flags=1))  # IN_USE set after the CRC was computed without it
    raw[17] |= 1
    verify_crc32(bytes(raw))
    raw[30] ^= 1
    with pytest.raises(ChecksumMismatchError) as info:
        verify_crc32(bytes(raw), offset=4, file="x")
    assert info.value.event_type == EventType.FORMAT_DESCRIPTION_EVENT and info.value.offset == 4


def test_header_round_trip_and_validation() -> None:
    h = EventHeader(1_700_000_000, 33, 5, 77, 234, 0)
    assert EventHeader.decode(h.encode()) == h and len(h.encode()) == 19 and h.type_name == "GTID_LOG_EVENT"
    with pytest.raises(ValueError):
        EventHeader(0, 256, 0, 19, 0, 0)
    with pytest.raises(BinlogDecodeError):
        EventHeader.decode(h.encode()[:18])
    with pytest.raises(BinlogDecodeError):
        EventHeader.decode(EventHeader(0, 2, 0, 19, 0, 0).encode()[:9] + b"\x05\x00\x00\x00" + b"\x00" * 6)


def test_table_map_helpers() -> None:
    tm = TableMapEvent(
        9, 1, "db", "t", bytes([3, 15, 246]), b"\xfc\x00\x0a\x02", b"\x06", b"\x04\x04\x01a\x01b"
    )  # COLUMN_NAME: ["a", "b"]
    assert tm.column_metadata() == (b"", b"\xfc\x00", b"\x0a\x02")
    assert [tm.nullable(i) for i in range(3)] == [False, True, True]
    assert tm.optional_metadata_fields() == ((4, b"\x01a\x01b"),)
    assert tm.column_names() == ("a", "b")
    with pytest.raises(BinlogDecodeError):
        TableMapEvent(9, 1, "db", "t", bytes([15]), b"\x01", b"\x00").column_metadata()
    with pytest.raises(BinlogDecodeError):
        TableMapEvent(9, 1, "db", "t", bytes([3]), b"", b"\x00", b"\x04\x09ab").optional_metadata_fields()
