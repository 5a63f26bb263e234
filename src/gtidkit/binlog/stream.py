"""Sans-I/O binlog decoder: bytes in (:meth:`BinlogStream.feed`), events out (:meth:`BinlogStream.next_event`).

The h11 shape: no I/O, a receive buffer, ``next_event`` answers :data:`NEED_DATA` until a whole event is
buffered, and after an error the stream stays in the error state. The stream tracks the Format_description_event
in force (relay logs carry several), rejects MariaDB binlogs, and expands Transaction_payload events on request.
MySQL source for the framing: ``Binlog_event_data_istream`` / ``Binlog_event_object_istream``
(``sql/binlog_istream.h``), which read the 19-byte header, then ``event_size − 19`` more bytes.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Iterator

from gtidkit.binlog.codec import BinlogEvent, decode_event
from gtidkit.binlog.constants import (
    BINLOG_MAGIC,
    EVENT_HEADER_LEN,
    MARIADB_EVENT_TYPES,
    ChecksumAlg,
    EventType,
)
from gtidkit.binlog.events.control import FormatDescriptionEvent, TransactionPayloadEvent
from gtidkit.errors import BinlogDecodeError

_SIZE = struct.Struct("<I")
_SIZE_OFFSET = 9


class _NeedData:
    """Sentinel type of :data:`NEED_DATA` (one instance)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NEED_DATA"


#: Returned by :meth:`BinlogStream.next_event` when more bytes are needed.
NEED_DATA = _NeedData()

#: Largest event accepted (MySQL's ``max_allowed_packet`` ceiling is 1 GiB; events cannot be larger).
MAX_EVENT_SIZE = (1 << 30) + EVENT_HEADER_LEN + 4


def mariadb_error(
    server_version: str | None, *, file: str | None, offset: int, event_type: int
) -> BinlogDecodeError:
    """The error raised for a MariaDB binlog (gtidkit reads MySQL's format only)."""
    what = f"server version {server_version!r}" if server_version else f"MariaDB event type {event_type}"
    return BinlogDecodeError(
        f"MariaDB binary logs are not supported ({what}); gtidkit reads MySQL binlogs",
        file=file,
        offset=offset,
        event_type=event_type,
    )


class BinlogStream:
    """Incremental decoder of a binlog byte stream (a file's bytes, or events from a dump connection).

    Args:
        magic: expect the 4-byte ``\\xfebin`` magic first (files); ``False`` for a stream of bare events.
        verify_checksum: check CRC32 footers (when the FDE says CRC32).
        fde: the FDE in force at the start (for streams that begin mid-file); otherwise the first event must be
            an FDE.
        file: name used in error messages.
        offset: byte offset of the first byte fed (default 0; 4 when ``magic`` is False and the bytes come from
            a file position).

    Attributes:
        fde: the Format_description_event in force.
        offset: offset of the next unread byte (the end of the last event returned).
        last_pos: offset where the last returned event starts.

    Errors: :meth:`next_event` raises :class:`~gtidkit.errors.BinlogDecodeError` (with file, offset and event
    type) for bad magic, a bad size, a CRC mismatch, an undecodable body or a MariaDB binlog; every later call
    raises the same error again. :meth:`end_of_data` raises for a truncated tail.
    """

    def __init__(
        self,
        *,
        magic: bool = True,
        verify_checksum: bool = True,
        fde: FormatDescriptionEvent | None = None,
        file: str | None = None,
        offset: int = 0,
    ) -> None:
        self._buf = bytearray()
        self._start = 0  # index in _buf of the next unread byte
        self._need_magic = magic
        self.verify_checksum = verify_checksum
        self.fde = fde
        self.file = file
        self.offset = offset
        self.last_pos = offset
        self.fde_count = 0
        self._error: BinlogDecodeError | None = None

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Append bytes to the receive buffer."""
        if self._start and self._start * 2 >= len(self._buf):
            del self._buf[: self._start]
            self._start = 0
        self._buf += data

    @property
    def buffered(self) -> int:
        """Bytes fed but not consumed yet."""
        return len(self._buf) - self._start

    def _fail(self, err: BinlogDecodeError) -> BinlogDecodeError:
        self._error = err
        return err

    def next_event(self) -> BinlogEvent | _NeedData:
        """The next whole event, or :data:`NEED_DATA`.

        Raises:
            BinlogDecodeError: see the class docstring.
        """
        if self._error is not None:
            raise self._error
        buf, start = self._buf, self._start
        if self._need_magic:
            if len(buf) - start < len(BINLOG_MAGIC):
                if bytes(buf[start:]) != BINLOG_MAGIC[: len(buf) - start]:
                    raise self._fail(
                        BinlogDecodeError("not a binlog file (bad magic)", file=self.file, offset=0)
                    )
                return NEED_DATA
            if bytes(buf[start : start + 4]) != BINLOG_MAGIC:
                raise self._fail(BinlogDecodeError("not a binlog file (bad magic)", file=self.file, offset=0))
            self._start = start = start + 4
            self.offset += 4
            self._need_magic = False
        if len(buf) - start < EVENT_HEADER_LEN:
            return NEED_DATA
        size = _SIZE.unpack_from(buf, start + _SIZE_OFFSET)[0]
        type_code = buf[start + 4]
        if size < EVENT_HEADER_LEN or size > MAX_EVENT_SIZE:
            raise self._fail(
                BinlogDecodeError(
                    f"invalid event_size {size}", file=self.file, offset=self.offset, event_type=type_code
                )
            )
        if len(buf) - start < size:
            return NEED_DATA
        pos = self.offset
        if type_code in MARIADB_EVENT_TYPES:
            raise self._fail(mariadb_error(None, file=self.file, offset=pos, event_type=type_code))
        try:
            event = decode_event(
                bytes(buf[start : start + size]),  # a copy: no view may pin the resizable buffer
                self.fde,
                verify_checksum=self.verify_checksum,
                offset=pos,
                file=self.file,
            )
        except BinlogDecodeError as err:
            raise self._fail(err) from None
        if type_code == EventType.FORMAT_DESCRIPTION_EVENT:
            fde = event.event
            if fde.is_mariadb:
                raise self._fail(
                    mariadb_error(fde.server_version, file=self.file, offset=pos, event_type=type_code)
                )
            self.fde = fde
            self.fde_count += 1
        self._start = start + size
        self.last_pos = pos
        self.offset = pos + size
        return event

    def __iter__(self) -> Iterator[BinlogEvent]:
        """Every whole event currently buffered."""
        while True:
            ev = self.next_event()
            if ev is NEED_DATA:
                return
            yield ev  # type: ignore[misc]

    def end_of_data(self) -> None:
        """Declare the input finished.

        Raises:
            BinlogDecodeError: bytes are left that do not make a whole event (a truncated file), naming the offset
                of the partial event and how many bytes trail.
        """
        if self._error is not None:
            raise self._error
        left = self.buffered
        if self._need_magic:
            raise self._fail(
                BinlogDecodeError(f"not a binlog file ({left} bytes, no magic)", file=self.file, offset=0)
            )
        if left:
            type_code = self._buf[self._start + 4] if left > 4 else None
            raise self._fail(
                BinlogDecodeError(
                    f"truncated event: trailing {left} bytes at offset {self.offset}",
                    file=self.file,
                    offset=self.offset,
                    event_type=type_code,
                )
            )


def payload_fde(fde: FormatDescriptionEvent) -> FormatDescriptionEvent:
    """The FDE for events inside a Transaction_payload: same layout, no CRC footers (MySQL writes none)."""
    if fde.checksum_alg == ChecksumAlg.OFF:
        return fde
    return dataclasses.replace(fde, checksum_alg=ChecksumAlg.OFF)


def iter_payload_events(
    payload: TransactionPayloadEvent,
    fde: FormatDescriptionEvent,
    *,
    file: str | None = None,
    offset: int | None = None,
) -> Iterator[BinlogEvent]:
    """Decode the events inside a Transaction_payload (decompressed with zstandard).

    Args:
        payload: the payload event.
        fde: the FDE in force for the file.
        file, offset: where the payload event is, for error messages.

    Raises:
        BinlogDecodeError: corrupt compression or an inner event that does not decode or overruns the payload.
    """
    try:
        data = payload.uncompressed()
    except BinlogDecodeError as err:
        raise BinlogDecodeError(
            f"cannot decompress TRANSACTION_PAYLOAD_EVENT: {err.message}",
            file=file,
            offset=offset,
            event_type=EventType.TRANSACTION_PAYLOAD_EVENT,
        ) from err
    inner = BinlogStream(magic=False, fde=payload_fde(fde), file=file, offset=0, verify_checksum=False)
    inner.feed(data)
    try:
        yield from inner
        inner.end_of_data()
    except BinlogDecodeError as err:
        raise BinlogDecodeError(
            f"inside TRANSACTION_PAYLOAD_EVENT at payload offset {inner.offset}: {err.message}",
            file=file,
            offset=offset,
            event_type=err.event_type,
        ) from err
