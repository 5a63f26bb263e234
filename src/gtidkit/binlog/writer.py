"""The binlog writing edge: :class:`BinlogWriter` appends events to a binlog file, with real fsync.

Follows MySQL ``sql/binlog.cc`` (``MYSQL_BIN_LOG::open_binlog``: magic, Format_description with
``LOG_EVENT_BINLOG_IN_USE_F``, Previous_gtids; ``MYSQL_BIN_LOG::close``: Stop event, then the in-use flag byte
rewritten in place at ``BIN_LOG_HEADER_SIZE + FLAGS_OFFSET``; ``new_file_impl``: Rotate), ``sql/binlog.cc``
``Binlog_cache_data::finalize`` / ``Gtid_log_event::set_trx_length_by_cache_size`` (the self-inclusive
``transaction_length``), and ../shared/research/formats.md §1-2.

Layering: this module is the only place besides :mod:`gtidkit.binlog.file` that touches binlog files. Event bytes
come from the codecs (:func:`gtidkit.binlog.codec.encode_event`, or for a transaction each event's own ``encode``
under :func:`gtidkit.binlog.codec.check_layout`, assembled with its final header in one buffer); the pure helper
:func:`encode_transaction` turns a transaction into bytes (used by :class:`BinlogWriter` and by the generator's
templates).
"""

from __future__ import annotations

import functools
import os
import struct
import time
import zlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO

from gtidkit.binlog.codec import (
    LAYOUTS_OK,
    TYPE_CODES,
    check_layout,
    decode_event,
    encode_event,
    type_code_of,
)
from gtidkit.binlog.constants import (
    BINLOG_MAGIC,
    CHECKSUM_LEN,
    DEFAULT_EVENT_FLAGS,
    EVENT_HEADER_LEN,
    FIRST_EVENT_POS,
    LOG_EVENT_BINLOG_IN_USE_F,
    ChecksumAlg,
    CompressionType,
    EventFlags,
    EventType,
    GtidFlags,
)
from gtidkit.binlog.cursor import Writer, packed_int_width
from gtidkit.binlog.event_fast import frame as _frame
from gtidkit.binlog.events.control import (
    FormatDescriptionEvent,
    GtidEvent,
    PreviousGtidsEvent,
    RotateEvent,
    StopEvent,
    TransactionPayloadEvent,
    untagged_gtid_body,
)
from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.binlog.header import HEADER_STRUCT
from gtidkit.errors import BinlogDecodeError
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.version import MYSQL_VERSION

__all__ = [
    "BinlogWriter",
    "EventSpec",
    "compress_transaction",
    "encode_transaction",
    "frame_events",
    "patch_event",
    "server_version_int",
    "transaction_length_for",
]

#: Offset of the header ``log_pos`` field (u32) inside an event.
LOG_POS_OFFSET = 13
#: Offset of the header ``flags`` field (u16) inside an event.
FLAGS_OFFSET = 17
#: ``BIN_LOG_HEADER_SIZE + FLAGS_OFFSET``: where MySQL rewrites the FDE's in-use flag byte on close.
FDE_FLAGS_FILE_OFFSET = FIRST_EVENT_POS + FLAGS_OFFSET

_U32 = struct.Struct("<I")

#: An event to write: an event object, or ``(event, header_flags)`` to override the header flags.
EventSpec = Any


#: 8.0.1 (WL#7319): the first release whose Gtid events carry commit timestamps (and, later, the length)
GTID_TIMESTAMPS_VERSION = 80001


@functools.lru_cache(maxsize=64)
def server_version_int(server_version: str) -> int:
    """``8.0.36-log`` → ``80036`` (major·10000 + minor·100 + patch), as MySQL's ``do_server_version_int``.
    Cached (every transaction's encoding asks for its file's version).

    Raises:
        ValueError: ``server_version`` does not start with ``X.Y.Z``.
    """
    head = server_version.split("-", 1)[0].split(".")
    try:
        major, minor, patch = (int("".join(ch for ch in part if ch.isdigit()) or "x") for part in head[:3])
    except ValueError as err:
        raise ValueError(f"not a MySQL server version: {server_version!r}") from err
    return major * 10000 + minor * 100 + patch


def _packed_width_limit(width: int) -> int:
    """Exclusive upper bound of the value a ``net_store_length`` field of ``width`` bytes holds."""
    return {1: 251, 3: 1 << 16, 4: 1 << 24, 9: 1 << 64}[width]


def transaction_length_for(rest_bytes: int, gtid_event_size_without_length: int) -> int:
    """MySQL's self-inclusive ``transaction_length`` (``Gtid_log_event::set_trx_length_by_cache_size``).

    The length counts every byte of the transaction, the Gtid event itself included, and the Gtid event contains
    the length as a ``net_store_length`` integer whose width (1, 3, 4 or 9 bytes) depends on the value: the width
    is grown until the total fits it.

    Args:
        rest_bytes: total size in bytes of the transaction's events after the Gtid event (CRC included).
        gtid_event_size_without_length: size of the Gtid event (header, body, CRC) minus its length field.

    Returns:
        The transaction length in bytes (= end offset - begin offset of the transaction in the file).

    Raises:
        ValueError: the length does not fit 64 bits.
    """
    base = rest_bytes + gtid_event_size_without_length
    for width in (1, 3, 4, 9):
        if base + width < _packed_width_limit(width):
            return base + width
    raise ValueError(f"transaction of {base} bytes is too long")


def _query_text(event: QueryEvent) -> str:
    q = event.query
    return q.decode("utf-8", "replace") if isinstance(q, (bytes, bytearray)) else str(q)


def _encode(
    event: object,
    fde: FormatDescriptionEvent,
    *,
    timestamp: int,
    server_id: int,
    log_pos: int | None,
    flags: int | None,
    position: int | None = None,
) -> bytes:
    """One event's bytes (header + body + CRC when the FDE says so) via the codec registry."""
    return encode_event(
        event, fde, timestamp=timestamp, server_id=server_id, log_pos=log_pos, position=position, flags=flags
    )


def patch_event(buf: bytearray, offset: int, size: int, *, log_pos: int | None, checksum: bool) -> None:
    """Rewrite an encoded event's header ``log_pos`` in place and recompute its CRC32 footer.

    Args:
        buf: buffer holding the event.
        offset: offset of the event's first header byte in ``buf``.
        size: the event's ``event_size`` (header + body + CRC).
        log_pos: new ``log_pos`` (end offset of the event in its file), or ``None`` to keep it.
        checksum: whether the event ends with a CRC32 footer to recompute.
    """
    if log_pos is not None:
        _U32.pack_into(buf, offset + LOG_POS_OFFSET, log_pos)
    if checksum:
        end = offset + size - CHECKSUM_LEN
        _U32.pack_into(buf, end, zlib.crc32(memoryview(buf)[offset:end]))


def encode_transaction(
    gtid: Gtid | None,
    events: Sequence[EventSpec],
    fde: FormatDescriptionEvent,
    *,
    start_pos: int,
    server_id: int,
    timestamp: int,
    last_committed: int,
    sequence_number: int,
    immediate_commit_timestamp: int,
    original_commit_timestamp: int | None = None,
    immediate_server_version: int | None = None,
    original_server_version: int | None = None,
    gtid_flags: int | None = None,
    commit_group_ticket: int = 0,
) -> tuple[bytes, list[tuple[int, int]]]:
    """Encode a transaction (its Gtid/Anonymous_gtid event first) as MySQL writes it into a binlog file.

    Args:
        gtid: the transaction's GTID; ``None`` writes an Anonymous_gtid_log_event (type 34).
        events: the body events after the Gtid event (``Query(BEGIN)``, Table_map, rows events, ``Xid``; or a
            single DDL ``Query``). Each item is an event object or ``(event, header_flags)``.
        fde: the file's Format_description_event (decides the checksum and the post-header lengths).
        start_pos: file offset where the transaction begins (the Gtid event's position).
        server_id: header ``server_id`` of every event (the *originating* server, also on a replica).
        timestamp: header timestamp, seconds since the epoch.
        last_committed: logical clock, relative to the file (0 for the first transaction of a file).
        sequence_number: logical clock, relative to the file (1 for the first transaction of a file).
        immediate_commit_timestamp: µs since the epoch, when this server committed.
        original_commit_timestamp: µs since the epoch, when the originating server committed; ``None`` = same
            as immediate (the originating server). A different value makes the event 7 bytes longer.
        immediate_server_version: ``major*10000+minor*100+patch``; ``None`` = from the FDE's server version.
        original_server_version: ``None`` = same as immediate (a different value adds 4 bytes).
        gtid_flags: ``None`` = ``FLAG_MAY_HAVE_SBR`` iff a Query other than BEGIN/COMMIT is present (DDL).
        commit_group_ticket: group replication ticket; 0 = not written.

    Returns:
        ``(data, positions)``: the bytes, and for each event (Gtid first) its ``(begin, end)`` file offsets.
        ``data`` ends at ``start_pos + transaction_length``.

    Raises:
        ValueError: a field is out of range for its width.
    """
    checksum = fde.checksum_alg == ChecksumAlg.CRC32
    if immediate_server_version is None:
        immediate_server_version = server_version_int(fde.server_version)
    if original_server_version is None:
        original_server_version = immediate_server_version
    if original_commit_timestamp is None:
        original_commit_timestamp = immediate_commit_timestamp
    commit_timestamps: int | None = immediate_commit_timestamp
    if server_version_int(fde.server_version) < GTID_TIMESTAMPS_VERSION:
        # a 5.7 file: its Gtid events stop after the logical clock (42-byte body, no timestamps, no length)
        commit_timestamps = original_commit_timestamp = None
    # The events are assembled here rather than through encode_event: each body is encoded once, its header is
    # packed with its final log_pos (no patching) and its CRC32 computed once, into one buffer.
    if not (0 <= timestamp <= _U32_MAX and 0 <= server_id <= _U32_MAX):
        raise ValueError(f"header timestamp {timestamp} or server_id {server_id} outside u32")
    footer = CHECKSUM_LEN if checksum else 0
    bodies: list[tuple[int, int, bytes | bytearray]] = []
    rest = 0
    sbr = False
    layouts = fde.post_header_lengths
    for spec in events:
        if isinstance(spec, tuple):
            event, flags = spec
            flags = int(flags)
        else:
            event, flags = spec, None
        # _event_body inlined (11 events per sysbench write transaction): the class's type code, the layout
        # check once per (FDE, type), one Writer per body
        cls = type(event)
        type_code = _CLASS_CODES.get(cls)
        if type_code is None:  # a rows event carries its own (4 of them in a sysbench write transaction)
            type_code = int(event.type_code) if cls is RowsEvent else type_code_of(event)
        if (layouts, type_code) not in LAYOUTS_OK:
            check_layout(event, type_code, fde)
        body: bytes | bytearray
        if cls is TableMapEvent:  # one frozen Table_map object serves every transaction on its table
            body = _table_map_body(event, fde)
        else:
            out = Writer()
            event.encode(out, fde)
            body = out.getbuffer()
        if type_code == _QUERY and isinstance(event, QueryEvent):
            # Query_log_event sets LOG_EVENT_SUPPRESS_USE_F when the statement does not depend on the default
            # database; BEGIN/COMMIT always carry it (sql/log_event.cc, Query_log_event::Query_log_event).
            if _query_text(event) in ("BEGIN", "COMMIT"):
                if flags is None:
                    flags = _SUPPRESS_USE
            else:
                sbr = True
        if flags is None:
            flags = DEFAULT_EVENT_FLAGS.get(type_code, 0)
        elif not 0 <= flags <= 0xFFFF:
            raise ValueError(f"header flags {flags} outside u16")
        bodies.append((type_code, flags, body))
        rest += EVENT_HEADER_LEN + len(body) + footer
    if gtid_flags is None:
        gtid_flags = _MAY_HAVE_SBR if sbr else 0

    # Self-inclusive length: the Gtid event's own size depends on the width of the length field it carries
    # (net_store_length 1/3/4/9 bytes, or a varlen integer in the tagged layout). The untagged layout is encoded
    # with a guess (the last transaction's Gtid size): its size minus the guess's width is the size without the
    # field, from which transaction_length_for gives the least fixpoint (one encoding when the guess was right).
    # Otherwise iterate to the least fixpoint from below (``rest`` is less than any length): sizes only grow
    # with the value, so this ends after a few rounds.
    # Header flags 0 for Gtid *and* Anonymous_gtid events: every real 5.7/8.0 file shows 0 (the fixtures).
    def gtid_event_at(length: int) -> tuple[int, bytearray]:
        event = GtidEvent(
            gtid_flags,
            gtid,
            last_committed,
            sequence_number,
            commit_timestamps,
            original_commit_timestamp,
            length,
            immediate_server_version,
            original_server_version,
            commit_group_ticket,
        )
        return _event_body(event, fde)

    length = rest + _gtid_size_hint[0]
    untagged = gtid is None or not gtid.tag
    fast_type = _ANONYMOUS if gtid is None else _GTID
    if untagged and commit_timestamps is not None and (layouts, fast_type) in LAYOUTS_OK:
        # the common Gtid event packed without building it (GtidEvent's defaults applied here; its checks are
        # the fallback's when a field needs them)
        def untagged_body(length: int) -> bytes | None:
            return untagged_gtid_body(
                fde,
                gtid_flags,
                gtid,
                last_committed,
                sequence_number,
                commit_timestamps,
                original_commit_timestamp,
                length,
                immediate_server_version,
                original_server_version,
                commit_group_ticket,
            )

        fast = untagged_body(length)
        if fast is not None and 0 <= gtid_flags < 256:
            exact = transaction_length_for(
                rest, EVENT_HEADER_LEN + len(fast) + footer - packed_int_width(length)
            )
            if exact != length:
                length = exact
                fast = untagged_body(length)
            if fast is not None:
                _gtid_size_hint[0] = EVENT_HEADER_LEN + len(fast) + footer
                return _framed(
                    [(fast_type, 0, fast), *bodies], start_pos, timestamp, server_id, checksum, length
                )
    gtid_type, gtid_body = gtid_event_at(length)
    gtid_size = EVENT_HEADER_LEN + len(gtid_body) + footer
    if gtid_type in _UNTAGGED_GTID_TYPES and commit_timestamps is not None:
        # the body holds the length as net_store_length, the rest of it does not depend on the value
        exact = transaction_length_for(rest, gtid_size - packed_int_width(length))
        if exact != length:
            length = exact
            gtid_type, gtid_body = gtid_event_at(length)
            gtid_size = EVENT_HEADER_LEN + len(gtid_body) + footer
    else:
        length = rest
        while True:
            gtid_type, gtid_body = gtid_event_at(length)
            gtid_size = EVENT_HEADER_LEN + len(gtid_body) + footer
            if rest + gtid_size == length:
                break
            length = rest + gtid_size
    _gtid_size_hint[0] = gtid_size

    return _framed([(gtid_type, 0, gtid_body), *bodies], start_pos, timestamp, server_id, checksum, length)


def _table_map_body(event: TableMapEvent, fde: FormatDescriptionEvent) -> bytes:
    """The body of a Table_map event under ``fde``, encoded once per (event object, FDE): the engine keeps one
    frozen :class:`~gtidkit.binlog.events.rows.TableMapEvent` per table definition and table id
    (:func:`gtidkit.engine.sql.rowimage.table_map_event`), so every transaction touching the table writes the same
    bytes. The entry holds both objects, so their ids cannot be reused while it exists."""
    key = (id(event), id(fde))
    hit = _TABLE_MAP_BODIES.get(key)
    if hit is not None and hit[0] is event and hit[1] is fde:
        return hit[2]
    out = Writer()
    event.encode(out, fde)
    body = out.getvalue()
    if len(_TABLE_MAP_BODIES) >= 1024:
        _TABLE_MAP_BODIES.clear()
    _TABLE_MAP_BODIES[key] = (event, fde, body)
    return body


#: (id(Table_map event), id(FDE)) -> (the event, the FDE, its body bytes): :func:`_table_map_body`
_TABLE_MAP_BODIES: dict[tuple[int, int], tuple[TableMapEvent, FormatDescriptionEvent, bytes]] = {}


def _framed(
    items: list[tuple[int, int, bytes | bytearray]],
    start_pos: int,
    timestamp: int,
    server_id: int,
    checksum: bool,
    length: int,
) -> tuple[bytes, list[tuple[int, int]]]:
    """:func:`frame_events` (the compiled loop first, when it takes these values) of a transaction of
    ``length`` bytes."""
    framed = _frame(items, start_pos, timestamp, server_id, checksum) if _frame is not None else None
    if framed is None:  # no compiled loop, or values it leaves to the reference
        framed = frame_events(items, start_pos, timestamp, server_id, checksum)
    if len(framed[0]) != length:  # pragma: no cover - a codec bug, not an input error
        raise AssertionError(f"transaction_length {length} != encoded {len(framed[0])}")
    return framed


def frame_events(
    items: Sequence[tuple[int, int, bytes | bytearray]],
    start_pos: int,
    timestamp: int,
    server_id: int,
    checksum: bool,
) -> tuple[bytes, list[tuple[int, int]]]:
    """Frame event bodies as consecutive events of a binlog file (the reference of the compiled
    ``gtidkit.binlog._eventfast.frame``, which :func:`encode_transaction` tries first).

    Each ``(type_code, header flags, body)`` gets its 19-byte header (timestamp, type code, server_id,
    event_size, ``log_pos`` = the event's end offset, flags; ``Log_event_header``) and, with ``checksum``, the
    CRC32 of header and body as its footer.

    Args:
        items: the events' type codes, header flags and body bytes, in file order.
        start_pos: file offset of the first event.
        timestamp, server_id: every header's fields (seconds since the epoch; the originating server).
        checksum: append CRC32 footers (``binlog_checksum=CRC32``).

    Returns:
        ``(data, positions)``: the bytes, and each event's ``(begin, end)`` offsets.

    Raises:
        struct.error: a field out of range for its header width.
    """
    footer = CHECKSUM_LEN if checksum else 0
    out = bytearray()
    positions = []
    pos = start_pos
    for type_code, flags, body in items:
        size = EVENT_HEADER_LEN + len(body) + footer
        end = pos + size
        head = HEADER_STRUCT.pack(timestamp, type_code, server_id, size, end, flags)
        out += head
        out += body
        if checksum:
            out += _U32.pack(zlib.crc32(body, zlib.crc32(head)))
        positions.append((pos, end))
        pos = end
    return bytes(out), positions


_U32_MAX = 0xFFFFFFFF
#: event class -> its type code as an int (:data:`gtidkit.binlog.codec.TYPE_CODES`; the classes that carry their
#: own code are not in it)
_CLASS_CODES = {cls: int(code) for cls, code in TYPE_CODES.items()}
_UNTAGGED_GTID_TYPES = frozenset({int(EventType.GTID_LOG_EVENT), int(EventType.ANONYMOUS_GTID_LOG_EVENT)})
#: the size of the last Gtid event :func:`encode_transaction` wrote: the first guess at the next one's (a guess
#: only: the length written is always computed)
_gtid_size_hint = [0]
_QUERY = int(EventType.QUERY_EVENT)
_GTID = int(EventType.GTID_LOG_EVENT)
_ANONYMOUS = int(EventType.ANONYMOUS_GTID_LOG_EVENT)
_SUPPRESS_USE = int(EventFlags.SUPPRESS_USE)
_MAY_HAVE_SBR = int(GtidFlags.MAY_HAVE_SBR)


def compress_transaction(
    events: Sequence[EventSpec],
    fde: FormatDescriptionEvent,
    *,
    server_id: int,
    timestamp: int,
    level: int = 3,
) -> TransactionPayloadEvent:
    """The Transaction_payload event carrying ``events`` as MySQL 8.0.20+ writes it with
    ``binlog_transaction_compression=ON`` (``Transaction_payload_log_event``; the 8.0.28 / 8.0.32 fixtures show
    the layout): each inner event keeps its header (same timestamp and server_id as the transaction, ``log_pos`` 0,
    the flags :func:`encode_transaction` would give it) and has no CRC footer; the concatenation is compressed
    into one zstd frame without content size or checksum (MySQL's streaming compressor), and the uncompressed
    size goes into the payload header. The Gtid event stays outside.

    Args:
        events: the transaction's body events (BEGIN ... Xid), or ``(event, flags)`` pairs.
        fde: the file's FDE (post-header lengths; its checksum setting is ignored inside the payload).
        server_id, timestamp: the header fields of the inner events.
        level: ``binlog_transaction_compression_level_zstd`` (1-22).

    Raises:
        ValueError: a field out of range for its width.
    """
    import zstandard  # lazy, as in TransactionPayloadEvent.uncompressed

    inner = Writer()
    for spec in events:
        event, flags = spec if isinstance(spec, tuple) else (spec, None)
        type_code, body = _event_body(event, fde)
        if flags is None:
            if (
                type_code == _QUERY
                and isinstance(event, QueryEvent)
                and _query_text(event) in ("BEGIN", "COMMIT")
            ):
                flags = _SUPPRESS_USE
            else:
                flags = DEFAULT_EVENT_FLAGS.get(type_code, 0)
        size = EVENT_HEADER_LEN + len(body)
        inner.bytes(HEADER_STRUCT.pack(timestamp, type_code, server_id, size, 0, int(flags)))
        inner.bytes(bytes(body))
    raw = inner.getvalue()
    # a stream of unknown size, as MySQL's ZSTD_compressStream: the frame header carries the level's window size
    # (2^21 at level 3: window descriptor 0x58, as in the fixtures) rather than one fitted to this input
    stream = zstandard.ZstdCompressor(
        level=level, write_content_size=False, write_checksum=False
    ).compressobj()
    data = stream.compress(raw) + stream.flush()
    return TransactionPayloadEvent(int(CompressionType.ZSTD), len(raw), data)


def _event_body(event: object, fde: FormatDescriptionEvent) -> tuple[int, bytearray]:
    """``(type code, body bytes)`` of a non-FDE event under ``fde``, checked as :func:`encode_event` checks it."""
    type_code = type_code_of(event)
    check_layout(event, type_code, fde)
    out = Writer()
    event.encode(out, fde)  # type: ignore[attr-defined]
    return type_code, out.getbuffer()


class BinlogWriter:
    """Append-only writer of one binlog file (the file edge; real ``fsync``).

    Create a file with :meth:`create` (magic, FDE with the in-use flag, Previous_gtids) or reopen one after
    recovery with :meth:`open_append`; add transactions with :meth:`write_transaction`; end the file with
    :meth:`rotate` (Rotate event) or :meth:`close` (Stop event). Closing rewrites the FDE flag byte in place to
    clear ``LOG_EVENT_BINLOG_IN_USE_F``, as ``MYSQL_BIN_LOG::close`` does; the FDE's CRC stays valid because MySQL
    computes it with the flag cleared.

    Writes are buffered; :meth:`flush` hands them to the OS and, with ``fsync=True``, to the disk.
    """

    def __init__(
        self,
        path: Path,
        fh: BinaryIO,
        fde: FormatDescriptionEvent,
        server_id: int,
        position: int,
        fde_flag_byte: int,
    ) -> None:
        self.path = Path(path)
        self._fde_flag_byte = fde_flag_byte
        self._fh = fh
        self.fde = fde
        self._version_of: tuple[FormatDescriptionEvent, int] | None = None
        self.server_id = server_id
        self._pos = position
        self._checksum = fde.checksum_alg == ChecksumAlg.CRC32
        self.closed = False
        #: Offset of the Previous_gtids event written by :meth:`create` (``None`` for :meth:`open_append`).
        self.previous_gtids_pos: int | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    def create(
        cls,
        path: str | os.PathLike[str],
        *,
        server_id: int,
        server_version: str = MYSQL_VERSION,
        checksum: bool = True,
        previous_gtids: GtidSet | None = None,
        create_timestamp: int | None = None,
        timestamp: int | None = None,
        buffer_size: int = 1 << 20,
    ) -> BinlogWriter:
        """Create a new binlog file: magic, Format_description (in-use flag set), Previous_gtids.

        Args:
            path: the file to create; it must not exist (binlogs are never overwritten).
            server_id: this server's ``server_id`` (u32), written in the header of the file's own events.
            server_version: the FDE's server version (decides the post-header table: ``8.0.36`` → 41 types).
            checksum: CRC32 on every event (``binlog_checksum=CRC32``) or none.
            previous_gtids: ``gtid_executed`` when the file is created (``GtidSet()`` for none).
            create_timestamp: FDE ``create_timestamp`` (s); non-zero only in the first file after start-up.
            timestamp: header timestamp (s) of the FDE and Previous_gtids; ``None`` = now.
            buffer_size: userspace write buffer in bytes.

        Raises:
            FileExistsError: ``path`` exists.
            OSError: the file cannot be created.
        """
        ts = int(time.time()) if timestamp is None else timestamp
        fde = FormatDescriptionEvent.for_server(
            server_version, checksum_alg=ChecksumAlg.CRC32 if checksum else ChecksumAlg.OFF
        )
        if create_timestamp:
            fde = replace(fde, create_timestamp=create_timestamp)
        fh = open(path, "xb", buffering=buffer_size)  # noqa: SIM115 - owned by the writer
        try:
            fh.write(BINLOG_MAGIC)
            # MySQL computes the FDE's CRC with the in-use flag cleared, so clearing it at close keeps it valid;
            # encode_event does the same.
            fde_bytes = _encode(
                fde,
                fde,
                timestamp=ts,
                server_id=server_id,
                log_pos=None,
                flags=LOG_EVENT_BINLOG_IN_USE_F,
                position=FIRST_EVENT_POS,
            )
            fh.write(fde_bytes)
            writer = cls(
                Path(path), fh, fde, server_id, FIRST_EVENT_POS + len(fde_bytes), fde_bytes[FLAGS_OFFSET]
            )
            writer.previous_gtids_pos = writer.write_event(
                PreviousGtidsEvent(gtids=previous_gtids or GtidSet()), timestamp=ts
            )
        except BaseException:
            fh.close()
            raise
        return writer

    @classmethod
    def open_append(cls, path: str | os.PathLike[str], *, truncate_at: int | None = None) -> BinlogWriter:
        """Reopen an existing binlog file for appending, e.g. after crash recovery.

        The FDE is decoded to learn the server version, checksum and ``server_id``; with ``truncate_at`` the file
        is cut there first (a torn tail: the caller found the last complete transaction with the reader). The
        in-use flag is set again, since the file is open.

        Args:
            path: an existing binlog file.
            truncate_at: byte offset to cut the file at (must be an event boundary at or after the FDE's end);
                ``None`` keeps the whole file.

        Raises:
            BinlogDecodeError: the file does not start with the magic and a valid FDE, or ``truncate_at`` lies
                inside the FDE or past the end of the file.
            OSError: the file cannot be opened.
        """
        fh = open(path, "r+b")  # noqa: SIM115 - owned by the writer
        try:
            head = fh.read(FIRST_EVENT_POS + EVENT_HEADER_LEN)
            name = os.fspath(path)
            if head[:FIRST_EVENT_POS] != BINLOG_MAGIC:
                raise BinlogDecodeError("not a binlog file (bad magic)", file=name, offset=0)
            if len(head) < FIRST_EVENT_POS + EVENT_HEADER_LEN:
                raise BinlogDecodeError(
                    "truncated Format_description event", file=name, offset=FIRST_EVENT_POS
                )
            fde_size = _U32.unpack_from(head, FIRST_EVENT_POS + 9)[0]
            fh.seek(FIRST_EVENT_POS)
            raw = fh.read(fde_size)
            decoded = decode_event(raw, None, verify_checksum=True, offset=FIRST_EVENT_POS, file=name)
            fde = decoded.event
            if not isinstance(fde, FormatDescriptionEvent):
                raise BinlogDecodeError(
                    "first event is not a Format_description event", file=name, offset=FIRST_EVENT_POS
                )
            size = fh.seek(0, os.SEEK_END)
            fde_end = FIRST_EVENT_POS + fde_size
            if truncate_at is not None:
                if not fde_end <= truncate_at <= size:
                    raise BinlogDecodeError(
                        f"cannot truncate at {truncate_at}: outside {fde_end}..{size}",
                        file=name,
                        offset=truncate_at,
                    )
                fh.truncate(truncate_at)
                size = truncate_at
            fh.seek(FDE_FLAGS_FILE_OFFSET)
            flag = fh.read(1)[0]
            fh.seek(FDE_FLAGS_FILE_OFFSET)
            fh.write(bytes([flag | LOG_EVENT_BINLOG_IN_USE_F]))
            # written now: a buffered write survives the seek (the read buffer covers it) and would land at the
            # next flush -- a close long after another process of the server rotated the file and cleared the flag
            fh.flush()
            fh.seek(size)
        except BaseException:
            fh.close()
            raise
        return cls(Path(path), fh, fde, decoded.header.server_id, size, flag | LOG_EVENT_BINLOG_IN_USE_F)

    # ------------------------------------------------------------------ writing
    @property
    def position(self) -> int:
        """Offset where the next event will start (= current file size, buffered bytes included)."""
        return self._pos

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError(f"binlog writer for {self.path} is closed")

    def write_event(
        self,
        event: object,
        *,
        timestamp: int | None = None,
        server_id: int | None = None,
        flags: int | None = None,
    ) -> int:
        """Append one event (outside any transaction: Previous_gtids, Rotate, Stop, ...).

        Args:
            event: an event object with ``encode(out, fde)``.
            timestamp: header timestamp in seconds (``None`` = now).
            server_id: header ``server_id`` (``None`` = this writer's).
            flags: header flags (``None`` = the codec's default for the type).

        Returns:
            The offset where the event begins.
        """
        self._check_open()
        ts = int(time.time()) if timestamp is None else timestamp
        sid = self.server_id if server_id is None else server_id
        data = bytearray(_encode(event, self.fde, timestamp=ts, server_id=sid, log_pos=0, flags=flags))
        begin = self._pos
        patch_event(data, 0, len(data), log_pos=begin + len(data), checksum=self._checksum)
        self._fh.write(data)
        self._pos += len(data)
        return begin

    def write_transaction(
        self,
        gtid: Gtid | None,
        events: Sequence[EventSpec],
        *,
        last_committed: int,
        sequence_number: int,
        immediate_commit_timestamp: int,
        original_commit_timestamp: int | None = None,
        server_id: int | None = None,
        timestamp: int | None = None,
        immediate_server_version: int | None = None,
        original_server_version: int | None = None,
        gtid_flags: int | None = None,
        compression_level: int | None = None,
    ) -> tuple[int, int]:
        """Append a transaction: its Gtid (or Anonymous_gtid) event, then ``events``.

        ``transaction_length`` and each event's ``log_pos`` are computed here (see :func:`encode_transaction`
        for the arguments; ``server_id`` defaults to this writer's, ``timestamp`` to the immediate commit time
        in seconds). With ``compression_level`` (``binlog_transaction_compression=ON``) the events travel in one
        zstd Transaction_payload event after the Gtid event (:func:`compress_transaction`).

        Returns:
            ``(begin, end)`` file offsets of the transaction; ``end - begin == transaction_length``.
        """
        data = self.encode_transaction(
            gtid,
            events,
            last_committed=last_committed,
            sequence_number=sequence_number,
            immediate_commit_timestamp=immediate_commit_timestamp,
            original_commit_timestamp=original_commit_timestamp,
            server_id=server_id,
            timestamp=timestamp,
            immediate_server_version=immediate_server_version,
            original_server_version=original_server_version,
            gtid_flags=gtid_flags,
            compression_level=compression_level,
        )
        begin = self.write_raw(data)
        return begin, self._pos

    def encode_transaction(
        self,
        gtid: Gtid | None,
        events: Sequence[EventSpec],
        *,
        last_committed: int,
        sequence_number: int,
        immediate_commit_timestamp: int,
        original_commit_timestamp: int | None = None,
        server_id: int | None = None,
        timestamp: int | None = None,
        immediate_server_version: int | None = None,
        original_server_version: int | None = None,
        gtid_flags: int | None = None,
        compression_level: int | None = None,
    ) -> bytes:
        """The bytes :meth:`write_transaction` would append now (framed for :attr:`position`: ``log_pos`` fields
        and CRC32 final), without writing them; :meth:`write_raw` appends them.

        Args:
            gtid, events, last_committed, sequence_number, immediate_commit_timestamp, original_commit_timestamp,
                server_id, timestamp, immediate_server_version, original_server_version, gtid_flags,
                compression_level: as :meth:`write_transaction`.

        Raises:
            ValueError: a field is out of range for its width (:func:`encode_transaction`).
        """
        self._check_open()
        ts = immediate_commit_timestamp // 1_000_000 if timestamp is None else timestamp
        sid = self.server_id if server_id is None else server_id
        if compression_level is not None:
            events = [
                compress_transaction(events, self.fde, server_id=sid, timestamp=ts, level=compression_level)
            ]
        data, _positions = encode_transaction(
            gtid,
            events,
            self.fde,
            start_pos=self._pos,
            server_id=sid,
            timestamp=ts,
            last_committed=last_committed,
            sequence_number=sequence_number,
            immediate_commit_timestamp=immediate_commit_timestamp,
            original_commit_timestamp=original_commit_timestamp,
            immediate_server_version=(
                self._fde_version() if immediate_server_version is None else immediate_server_version
            ),
            original_server_version=original_server_version,
            gtid_flags=gtid_flags,
        )
        return data

    def _fde_version(self) -> int:
        """:func:`server_version_int` of this file's FDE, parsed once (not at every transaction)."""
        cached = self._version_of
        if cached is None or cached[0] is not self.fde:
            cached = self._version_of = (self.fde, server_version_int(self.fde.server_version))
        return cached[1]

    def write_raw(self, data: bytes | bytearray | memoryview) -> int:
        """Append already-encoded events verbatim (the generator's fast path).

        The caller guarantees the bytes are whole events whose ``log_pos`` fields already match their offsets
        (i.e. they were encoded for ``start_pos == self.position``) and whose CRCs are valid.

        Returns:
            The offset where the bytes begin.
        """
        self._check_open()
        begin = self._pos
        self._fh.write(data)
        self._pos += len(data)
        return begin

    def reposition(self, pos: int) -> None:
        """Make ``pos`` the offset of the next write: another process appended to the file meanwhile (a worker
        of a multi-worker server follows the commit log, :mod:`gtidkit.engine.follow`). Buffered bytes are
        flushed first; nothing is truncated."""
        self._check_open()
        self._fh.flush()
        self._fh.seek(pos)
        self._pos = pos

    def flush(self, fsync: bool = False) -> None:
        """Hand buffered bytes to the OS; with ``fsync=True`` also wait until they are on disk (``fsync(2)``)."""
        self._check_open()
        self._fh.flush()
        if fsync:
            os.fsync(self._fh.fileno())

    def rotate(self, next_file: str, *, timestamp: int | None = None, fsync: bool = True) -> int:
        """End the file with a Rotate event pointing at ``next_file`` (position 4), then close it.

        Args:
            next_file: base name of the next binlog file (e.g. ``binlog.000002``).
            timestamp: header timestamp in seconds (``None`` = now).
            fsync: fsync the file before closing.

        Returns:
            The final size of the file.
        """
        self.write_event(RotateEvent(position=FIRST_EVENT_POS, next_file=next_file), timestamp=timestamp)
        return self._finish(clear_in_use=True, fsync=fsync)

    def close(
        self, stop: bool = True, *, in_use: bool = False, timestamp: int | None = None, fsync: bool = True
    ) -> int:
        """Close the file.

        Args:
            stop: write a Stop event first (clean server shutdown).
            in_use: leave ``LOG_EVENT_BINLOG_IN_USE_F`` set, as a server that is still running (or crashed)
                leaves its active binlog; by default the flag is cleared in place.
            timestamp: header timestamp of the Stop event (``None`` = now).
            fsync: fsync the file before closing.

        Returns:
            The final size of the file.
        """
        if self.closed:
            return self._pos
        if stop:
            self.write_event(StopEvent(), timestamp=timestamp)
        return self._finish(clear_in_use=not in_use, fsync=fsync)

    def _finish(self, *, clear_in_use: bool, fsync: bool) -> int:
        self._fh.flush()
        if clear_in_use:
            # MYSQL_BIN_LOG::close: pwrite one byte at BIN_LOG_HEADER_SIZE + FLAGS_OFFSET.
            self._fh.seek(FDE_FLAGS_FILE_OFFSET)
            self._fh.write(bytes([self._fde_flag_byte & ~LOG_EVENT_BINLOG_IN_USE_F & 0xFF]))
            self._fh.flush()
        if fsync:
            os.fsync(self._fh.fileno())
        self._fh.close()
        self.closed = True
        return self._pos

    def __enter__(self) -> BinlogWriter:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.closed:
            self.close(stop=False, in_use=True, fsync=False)
