"""The 19-byte v4 common event header and the CRC32 footer.

MySQL source: ``Log_event_header`` and ``Log_event_footer`` in ``libs/mysql/binlog/event/binlog_event.h``;
../shared/research/formats.md §1.2, §1.6.

Header layout (little-endian):

| off | size | field      | meaning                                                              |
|-----|------|------------|----------------------------------------------------------------------|
| 0   | 4    | timestamp  | seconds since the epoch (statement start)                            |
| 4   | 1    | type_code  | :class:`~gtidkit.binlog.constants.EventType`                          |
| 5   | 4    | server_id  | originating server                                                   |
| 9   | 4    | event_size | header + body + footer, in bytes                                     |
| 13  | 4    | log_pos    | end position of this event in its file (0 for artificial events)     |
| 17  | 2    | flags      | :class:`~gtidkit.binlog.constants.EventFlags`                         |

Footer: CRC32 (zlib / ISO-HDLC) over header + body, u32 little-endian, present when the FDE's checksum
algorithm is CRC32. For the FDE itself the CRC is computed with ``LOG_EVENT_BINLOG_IN_USE_F`` cleared.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from gtidkit.binlog.constants import CHECKSUM_LEN, EVENT_HEADER_LEN, LOG_EVENT_BINLOG_IN_USE_F, EventType
from gtidkit.errors import BinlogDecodeError, ChecksumMismatchError

#: ``struct`` layout of the common header.
HEADER_STRUCT = struct.Struct("<IBIIIH")
_U32 = struct.Struct("<I")
_FLAGS_OFFSET = 17
_U32_MAX = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class EventHeader:
    """The common header of every event (see the module docstring for the layout).

    Args:
        timestamp: seconds since the epoch (u32).
        type_code: event type code (u8).
        server_id: originating server id (u32).
        event_size: total event size in bytes, header and footer included (u32, >= 19).
        log_pos: position right after this event in its file; 0 for artificial events (u32).
        flags: header flags (u16).

    Raises:
        ValueError: a field out of its range.
    """

    timestamp: int
    type_code: int
    server_id: int
    event_size: int
    log_pos: int
    flags: int

    def __post_init__(self) -> None:
        # one expression on the common path: this runs for every event decoded
        if not (
            0 <= self.timestamp <= _U32_MAX
            and 0 <= self.type_code <= 0xFF
            and 0 <= self.server_id <= _U32_MAX
            and EVENT_HEADER_LEN <= self.event_size <= _U32_MAX
            and 0 <= self.log_pos <= _U32_MAX
            and 0 <= self.flags <= 0xFFFF
        ):
            raise ValueError(
                f"EventHeader field out of range (u32 timestamp/server_id/event_size>=19/log_pos, u8 type_code, "
                f"u16 flags): {self.timestamp}, {self.type_code}, {self.server_id}, {self.event_size}, "
                f"{self.log_pos}, {self.flags}"
            )

    @classmethod
    def decode(cls, buf: bytes | bytearray | memoryview, offset: int = 0) -> EventHeader:
        """Decode the 19 bytes at ``buf[offset:]``.

        Raises:
            BinlogDecodeError: fewer than 19 bytes, or an event_size below 19.
        """
        if len(buf) - offset < EVENT_HEADER_LEN:
            raise BinlogDecodeError(
                f"truncated event header: {len(buf) - offset} of {EVENT_HEADER_LEN} bytes", offset=offset
            )
        ts, type_code, server_id, size, log_pos, flags = HEADER_STRUCT.unpack_from(buf, offset)
        if size < EVENT_HEADER_LEN:
            raise BinlogDecodeError(
                f"event_size {size} is smaller than the {EVENT_HEADER_LEN}-byte header",
                offset=offset,
                event_type=type_code,
            )
        return cls(ts, type_code, server_id, size, log_pos, flags)

    def encode(self) -> bytes:
        """The 19 header bytes."""
        return HEADER_STRUCT.pack(
            self.timestamp, self.type_code, self.server_id, self.event_size, self.log_pos, self.flags
        )

    @property
    def type_name(self) -> str:
        """MySQL's enum name of :attr:`type_code` (``GTID_LOG_EVENT``), or the number for unknown codes."""
        try:
            return EventType(self.type_code).name
        except ValueError:
            return str(self.type_code)


def event_crc32(event: bytes | bytearray | memoryview) -> int:
    """CRC32 MySQL stores for ``event`` (header + body, *without* the footer).

    For a Format_description_event the ``LOG_EVENT_BINLOG_IN_USE_F`` flag is cleared first, as MySQL does, so
    closing a file (which clears the flag in place) keeps the checksum valid.
    """
    if (
        len(event) > _FLAGS_OFFSET
        and event[4] == EventType.FORMAT_DESCRIPTION_EVENT
        and event[_FLAGS_OFFSET] & LOG_EVENT_BINLOG_IN_USE_F
    ):
        copy = bytearray(event)
        copy[_FLAGS_OFFSET] &= ~LOG_EVENT_BINLOG_IN_USE_F & 0xFF
        return zlib.crc32(copy)
    return zlib.crc32(event)


def verify_crc32(
    event: bytes | bytearray | memoryview, *, offset: int | None = None, file: str | None = None
) -> None:
    """Check the CRC32 footer of one whole event (header + body + 4-byte footer).

    Raises:
        ChecksumMismatchError: the stored and computed CRCs differ (names the event type and offset).
        BinlogDecodeError: the event is too short to hold a footer.
    """
    if len(event) < EVENT_HEADER_LEN + CHECKSUM_LEN:
        raise BinlogDecodeError("event too short for a CRC32 footer", file=file, offset=offset)
    stored = _U32.unpack_from(event, len(event) - CHECKSUM_LEN)[0]
    computed = event_crc32(memoryview(event)[: len(event) - CHECKSUM_LEN])
    if stored != computed:
        raise ChecksumMismatchError(
            f"event CRC32 mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}",
            file=file,
            offset=offset,
            event_type=event[4],
        )
