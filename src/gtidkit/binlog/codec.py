"""One event's bytes ↔ (header, event object): the type-code registry, CRC32 handling, unknown types.

go-mysql's ``parser.go`` shape: one table maps type codes to decoders, an unknown code becomes an
:class:`UnknownEvent` (never an error), and errors carry the file, offset and event type. MySQL source for the
checksum rules: ``Log_event_footer::event_checksum_test`` (``binlog_event.cpp``): the FDE's CRC is computed with
``LOG_EVENT_BINLOG_IN_USE_F`` cleared, and an FDE from 5.6.1+ always has its own 4-byte footer.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

from gtidkit.binlog.constants import (
    CHECKSUM_LEN,
    CRC32_RESIDUE,
    DEFAULT_EVENT_FLAGS,
    EVENT_HEADER_LEN,
    SERVER_VERSION_LEN,
    ChecksumAlg,
    EventType,
)
from gtidkit.binlog.cursor import Cursor, Writer
from gtidkit.binlog.events.control import (
    FormatDescriptionEvent,
    GtidEvent,
    HeartbeatEvent,
    HeartbeatV2Event,
    PreviousGtidsEvent,
    RotateEvent,
    StopEvent,
    TransactionPayloadEvent,
    XidEvent,
)
from gtidkit.binlog.events.rows import ROWS_EVENT_TYPES, RowsEvent, RowsQueryEvent, TableMapEvent
from gtidkit.binlog.events.statement import IntvarEvent, QueryEvent, RandEvent, UserVarEvent
from gtidkit.binlog.header import HEADER_STRUCT, EventHeader, event_crc32
from gtidkit.binlog.versions import has_checksum_alg
from gtidkit.errors import BinlogDecodeError, ChecksumMismatchError, GtidkitError


@dataclass(frozen=True, slots=True)
class UnknownEvent:
    """Any event type gtidkit does not decode: its type code and body bytes (CRC footer excluded).

    Kept, never fatal (go-mysql's ``GenericEvent``): Incident, Transaction_context, View_change,
    XA_prepare, load-data events, Aurora's padding type 100, and whatever future servers add.
    """

    type_code: int
    body: bytes

    @classmethod
    def decode_typed(cls, type_code: int, body: Cursor, fde: FormatDescriptionEvent) -> UnknownEvent:
        """Keep the body as bytes."""
        return cls(type_code, body.rest())

    def encode(self, out: Writer, fde: FormatDescriptionEvent) -> None:
        """Write the body back."""
        out.bytes(self.body)


#: Any decoded event object.
Event = Union[  # noqa: UP007 - a runtime alias, kept readable
    FormatDescriptionEvent,
    PreviousGtidsEvent,
    GtidEvent,
    QueryEvent,
    XidEvent,
    RotateEvent,
    StopEvent,
    HeartbeatEvent,
    HeartbeatV2Event,
    TransactionPayloadEvent,
    TableMapEvent,
    RowsEvent,
    RowsQueryEvent,
    IntvarEvent,
    RandEvent,
    UserVarEvent,
    UnknownEvent,
]

Decoder = Callable[[Cursor, FormatDescriptionEvent], Any]

#: Type code → decoder of the body. Codes absent here decode to :class:`UnknownEvent`.
DECODERS: dict[int, Decoder] = {
    EventType.FORMAT_DESCRIPTION_EVENT: FormatDescriptionEvent.decode,
    EventType.PREVIOUS_GTIDS_LOG_EVENT: PreviousGtidsEvent.decode,
    EventType.GTID_LOG_EVENT: GtidEvent.decode,
    EventType.ANONYMOUS_GTID_LOG_EVENT: GtidEvent.decode,
    EventType.GTID_TAGGED_LOG_EVENT: GtidEvent.decode_tagged,
    EventType.QUERY_EVENT: QueryEvent.decode,
    EventType.XID_EVENT: XidEvent.decode,
    EventType.ROTATE_EVENT: RotateEvent.decode,
    EventType.STOP_EVENT: StopEvent.decode,
    EventType.HEARTBEAT_LOG_EVENT: HeartbeatEvent.decode,
    EventType.HEARTBEAT_LOG_EVENT_V2: HeartbeatV2Event.decode,
    EventType.TRANSACTION_PAYLOAD_EVENT: TransactionPayloadEvent.decode,
    EventType.TABLE_MAP_EVENT: TableMapEvent.decode,
    EventType.ROWS_QUERY_LOG_EVENT: RowsQueryEvent.decode,
    EventType.INTVAR_EVENT: IntvarEvent.decode,
    EventType.RAND_EVENT: RandEvent.decode,
    EventType.USER_VAR_EVENT: UserVarEvent.decode,
}


def _rows_decoder(type_code: int) -> Decoder:
    def decode(body: Cursor, fde: FormatDescriptionEvent) -> RowsEvent:
        return RowsEvent.decode_typed(type_code, body, fde)

    return decode


for _t in ROWS_EVENT_TYPES:
    DECODERS[_t] = _rows_decoder(_t)

#: Event class → its type code, for classes with a single code (GtidEvent, RowsEvent and UnknownEvent carry
#: theirs in ``type_code``).
TYPE_CODES: dict[type, int] = {
    FormatDescriptionEvent: EventType.FORMAT_DESCRIPTION_EVENT,
    PreviousGtidsEvent: EventType.PREVIOUS_GTIDS_LOG_EVENT,
    QueryEvent: EventType.QUERY_EVENT,
    XidEvent: EventType.XID_EVENT,
    RotateEvent: EventType.ROTATE_EVENT,
    StopEvent: EventType.STOP_EVENT,
    HeartbeatEvent: EventType.HEARTBEAT_LOG_EVENT,
    HeartbeatV2Event: EventType.HEARTBEAT_LOG_EVENT_V2,
    TransactionPayloadEvent: EventType.TRANSACTION_PAYLOAD_EVENT,
    TableMapEvent: EventType.TABLE_MAP_EVENT,
    RowsQueryEvent: EventType.ROWS_QUERY_LOG_EVENT,
    IntvarEvent: EventType.INTVAR_EVENT,
    RandEvent: EventType.RAND_EVENT,
    UserVarEvent: EventType.USER_VAR_EVENT,
}


#: Post-header lengths each decoder understands. When a file's FDE announces another length for a type (an
#: unreleased server tree numbering its types differently, e.g. 5.2.2-a_drop6p13 whose type 16 is not Xid), the
#: events of that type are kept as :class:`UnknownEvent` instead of being misread.
LAYOUTS: dict[int, frozenset[int]] = {
    EventType.QUERY_EVENT: frozenset({13}),
    EventType.ROTATE_EVENT: frozenset({8}),
    EventType.XID_EVENT: frozenset({0}),
    EventType.STOP_EVENT: frozenset({0}),
    EventType.INTVAR_EVENT: frozenset({0}),
    EventType.RAND_EVENT: frozenset({0}),
    EventType.USER_VAR_EVENT: frozenset({0}),
    EventType.TABLE_MAP_EVENT: frozenset({8}),
    EventType.ROWS_QUERY_LOG_EVENT: frozenset({0}),
    EventType.WRITE_ROWS_EVENT_V1: frozenset({8}),
    EventType.UPDATE_ROWS_EVENT_V1: frozenset({8}),
    EventType.DELETE_ROWS_EVENT_V1: frozenset({8}),
    EventType.WRITE_ROWS_EVENT: frozenset({10}),
    EventType.UPDATE_ROWS_EVENT: frozenset({10}),
    EventType.DELETE_ROWS_EVENT: frozenset({10}),
    EventType.PARTIAL_UPDATE_ROWS_EVENT: frozenset({10}),
    EventType.GTID_LOG_EVENT: frozenset({25, 42}),
    EventType.ANONYMOUS_GTID_LOG_EVENT: frozenset({25, 42}),
    EventType.PREVIOUS_GTIDS_LOG_EVENT: frozenset({0}),
    EventType.GTID_TAGGED_LOG_EVENT: frozenset({0}),
    EventType.TRANSACTION_PAYLOAD_EVENT: frozenset({40}),
    EventType.HEARTBEAT_LOG_EVENT: frozenset({0}),
    EventType.HEARTBEAT_LOG_EVENT_V2: frozenset({0}),
}


def decoder_for(type_code: int, fde: FormatDescriptionEvent | None) -> Decoder | None:
    """The decoder for ``type_code`` under ``fde``, or ``None`` (→ :class:`UnknownEvent`)."""
    if fde is None or type_code == EventType.FORMAT_DESCRIPTION_EVENT:
        return DECODERS.get(type_code)
    table = _DECODER_TABLES.get(fde.post_header_lengths)
    if table is None:
        table = _decoder_table(fde)
    return table[type_code]


def _decoder_table(fde: FormatDescriptionEvent) -> list[Decoder | None]:
    """Decoder per type code for one FDE layout (cached: a file has one or two layouts)."""
    table: list[Decoder | None] = [None] * 256
    for code, decoder in DECODERS.items():
        if code == EventType.FORMAT_DESCRIPTION_EVENT or fde.post_header_len(code) in LAYOUTS[code]:
            table[code] = decoder
    if len(_DECODER_TABLES) > 64:
        _DECODER_TABLES.clear()
    _DECODER_TABLES[fde.post_header_lengths] = table
    return table


_DECODER_TABLES: dict[bytes, list[Decoder | None]] = {}


def type_code_of(event: Any) -> int:
    """The header type code an event object encodes to."""
    code = TYPE_CODES.get(type(event))
    if code is None:
        code = getattr(event, "type_code", None)
        if code is None:
            raise TypeError(f"not a binlog event object: {type(event).__name__}")
    return int(code)


@dataclass(frozen=True, slots=True)
class BinlogEvent:
    """One decoded event: header, body object and the raw bytes it came from (header and footer included)."""

    header: EventHeader
    event: Any
    raw: bytes

    @property
    def type_code(self) -> int:
        """The header's type code."""
        return self.header.type_code


def fde_has_footer(data: bytes | bytearray | memoryview) -> bool:
    """True when the FDE in ``data`` (one whole event) ends with a 4-byte CRC (its version is >= 5.6.1)."""
    start = EVENT_HEADER_LEN + 2
    raw = bytes(data[start : start + SERVER_VERSION_LEN]).split(b"\0", 1)[0]
    return has_checksum_alg(raw.decode("ascii", "replace"))


def footer_len(
    type_code: int, data: bytes | bytearray | memoryview, fde: FormatDescriptionEvent | None
) -> int:
    """Length of the CRC footer of the event in ``data`` under ``fde`` (0 or 4)."""
    if type_code == EventType.FORMAT_DESCRIPTION_EVENT:
        return CHECKSUM_LEN if fde_has_footer(data) else 0
    return CHECKSUM_LEN if fde is not None and fde.checksum_alg == ChecksumAlg.CRC32 else 0


def decode_event(
    data: bytes | bytearray | memoryview,
    fde: FormatDescriptionEvent | None,
    *,
    verify_checksum: bool = True,
    offset: int | None = None,
    file: str | None = None,
) -> BinlogEvent:
    """Decode one whole event (``data`` = exactly ``event_size`` bytes).

    Args:
        data: the event's bytes: header, body and (when checksums are on) the CRC32 footer.
        fde: the Format_description_event in force (``None`` only when ``data`` is itself an FDE). An FDE
            describes itself: its own checksum algorithm decides whether its CRC is checked.
        verify_checksum: check the CRC32 footer when present (MySQL's ``--verify-binlog-checksum``).
        offset: where the event starts in its file, for error messages.
        file: the file name, for error messages.

    Returns:
        A :class:`BinlogEvent`; unknown type codes give an :class:`UnknownEvent`.

    Raises:
        ChecksumMismatchError: the CRC32 footer does not match.
        BinlogDecodeError: anything else (size mismatch, truncated or malformed body, no FDE yet), with file,
            offset and event type.
    """
    if len(data) < EVENT_HEADER_LEN:
        raise BinlogDecodeError(f"truncated event header ({len(data)} bytes)", file=file, offset=offset)
    ts, type_code, server_id, size, log_pos, flags = HEADER_STRUCT.unpack_from(data, 0)
    if size != len(data):
        raise BinlogDecodeError(
            f"event_size {size} but {len(data)} bytes given", file=file, offset=offset, event_type=type_code
        )
    is_fde = type_code == EventType.FORMAT_DESCRIPTION_EVENT
    if is_fde:
        flen = CHECKSUM_LEN if fde_has_footer(data) else 0
        # an FDE says itself whether its CRC counts: the algorithm byte sits right before the footer
        check = verify_checksum and flen and data[size - CHECKSUM_LEN - 1] == ChecksumAlg.CRC32
    elif fde is None:
        raise BinlogDecodeError(
            "event before any Format_description_event", file=file, offset=offset, event_type=type_code
        )
    else:
        flen = CHECKSUM_LEN if fde.checksum_alg == ChecksumAlg.CRC32 else 0
        check = verify_checksum and flen
    # The checksum first, as MySQL does: a damaged body is reported as a CRC mismatch, not as garbage.
    if check and (event_crc32(data) if is_fde else zlib.crc32(data)) != CRC32_RESIDUE:
        _raise_crc_mismatch(data, size, type_code, is_fde, offset, file)
    try:
        header = EventHeader(ts, type_code, server_id, size, log_pos, flags)
        body = Cursor(data, EVENT_HEADER_LEN, size - flen)
        decoder = decoder_for(type_code, fde)
        if decoder is None:
            event: Any = UnknownEvent(type_code, body.rest())
        else:
            event = decoder(body, fde)  # type: ignore[arg-type]
            if body.remaining:
                raise BinlogDecodeError(f"{body.remaining} unexpected bytes at the end of the event body")
        if type_code in _GTID_TYPES and event.type_code != type_code:
            raise BinlogDecodeError(
                f"Gtid event body does not match its type code (decodes as {event.type_code})"
            )
    except (GtidkitError, ValueError, UnicodeError) as err:
        message = getattr(err, "message", None) or str(err)
        raise BinlogDecodeError(
            f"cannot decode {_type_name(type_code)}: {message}",
            file=file,
            offset=offset,
            event_type=type_code,
        ) from err
    return BinlogEvent(header, event, bytes(data))


def _raise_crc_mismatch(
    data: bytes | bytearray | memoryview,
    size: int,
    type_code: int,
    is_fde: bool,
    offset: int | None,
    file: str | None,
) -> None:
    stored = int.from_bytes(data[size - CHECKSUM_LEN : size], "little")
    head = memoryview(data)[: size - CHECKSUM_LEN]
    computed = event_crc32(head) if is_fde else zlib.crc32(head)
    raise ChecksumMismatchError(
        f"event CRC32 mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}",
        file=file,
        offset=offset,
        event_type=type_code,
    )


_GTID_TYPES = frozenset(
    {EventType.GTID_LOG_EVENT, EventType.ANONYMOUS_GTID_LOG_EVENT, EventType.GTID_TAGGED_LOG_EVENT}
)


def _type_name(type_code: int) -> str:
    try:
        return EventType(type_code).name
    except ValueError:
        return f"event type {type_code}"


def check_layout(event: Any, type_code: int, fde: FormatDescriptionEvent) -> None:
    """Refuse to encode ``event`` (of ``type_code``, not an FDE) under an FDE whose post-header length for its type
    is not one its codec writes (:data:`LAYOUTS`); an :class:`UnknownEvent` is written as it came.

    Raises:
        ValueError: the FDE does not describe the event's layout.
    """
    if (fde.post_header_lengths, type_code) in LAYOUTS_OK or isinstance(event, UnknownEvent):
        return
    if type_code in LAYOUTS and fde.post_header_len(type_code) not in LAYOUTS[type_code]:
        raise ValueError(
            f"the FDE of server {fde.server_version!r} does not describe {_type_name(type_code)} "
            f"(post-header length {fde.post_header_len(type_code)})"
        )
    if len(LAYOUTS_OK) > 4096:
        LAYOUTS_OK.clear()
    LAYOUTS_OK.add((fde.post_header_lengths, type_code))


#: (FDE post-header table, type code) pairs :func:`check_layout` accepted: a writer checks each once per file
LAYOUTS_OK: set[tuple[bytes, int]] = set()


def encode_event(
    event: Any,
    fde: FormatDescriptionEvent | None,
    *,
    timestamp: int = 0,
    server_id: int = 0,
    log_pos: int | None = None,
    position: int | None = None,
    flags: int | None = None,
) -> bytes:
    """Encode one event: header + body + CRC32 footer (when ``fde`` says CRC32).

    Args:
        event: an event object (any class of :mod:`gtidkit.binlog.events`, or :class:`UnknownEvent`).
        fde: the FDE in force; for an FDE ``event`` this may be ``None`` (it describes itself).
        timestamp: header timestamp, seconds since the epoch.
        server_id: header server id.
        log_pos: header log_pos; when ``None`` it is ``position + event_size`` if ``position`` is given, else 0.
        position: the file offset this event will be written at (used for ``log_pos``).
        flags: header flags; ``None`` → MySQL's default for the type (IGNORABLE for Anonymous_gtid,
            Previous_gtids, …; 0 otherwise).

    Returns:
        The event's bytes; ``decode_event`` of them gives back ``event``.

    Raises:
        ValueError: a field out of range, an event the FDE's layout cannot carry, or a type the FDE does not
            describe (e.g. Transaction_payload under a 5.7 FDE).
        TypeError: ``event`` is not an event object.
    """
    type_code = type_code_of(event)
    is_fde = type_code == EventType.FORMAT_DESCRIPTION_EVENT
    layout = event if is_fde else fde
    if layout is None:
        raise ValueError("encoding a non-FDE event needs the Format_description_event in force")
    if not is_fde:
        check_layout(event, type_code, layout)
    out = Writer()
    event.encode(out, layout)
    body = out.getvalue()
    if is_fde:
        crc = event.has_checksum_alg_byte
    else:
        crc = layout.checksum_alg == ChecksumAlg.CRC32
    size = EVENT_HEADER_LEN + len(body) + (CHECKSUM_LEN if crc else 0)
    if log_pos is None:
        log_pos = position + size if position is not None else 0
    if flags is None:
        flags = DEFAULT_EVENT_FLAGS.get(type_code, 0)
    head = EventHeader(timestamp, type_code, server_id, size, log_pos, flags).encode()
    if not crc:
        return head + body
    raw = head + body
    return raw + event_crc32(raw).to_bytes(CHECKSUM_LEN, "little")
