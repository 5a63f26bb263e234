"""The file edge of :mod:`gtidkit.binlog`: read binlog and relay-log files from disk.

* :func:`read_events` — every event with its offsets, fully decoded (through the sans-I/O
  :class:`~gtidkit.binlog.stream.BinlogStream`), Transaction_payload contents surfaced.
* :func:`iter_transactions` / :func:`scan_file` — the fast path: the file is memory-mapped, headers are read with
  ``struct.unpack_from``, CRC32s are checked with ``zlib.crc32`` over a ``memoryview`` (a correct footer makes the
  CRC of the whole event the constant :data:`~gtidkit.binlog.constants.CRC32_RESIDUE`), and only the bodies that
  matter for transactions are decoded (Gtid, Query text head, Table_map database, Previous_gtids, FDE, Rotate,
  Transaction_payload). Two tiers: :func:`_fast_trx` takes a whole common 8.0 row-based transaction (Gtid, Query
  ``BEGIN``, Table_map/rows..., Xid) in one call with no per-event dispatch; anything else (DDL, payloads,
  old layouts, damage) goes through the event-by-event scanner, which feeds the one
  :class:`~gtidkit.binlog.transactions.TransactionParser` and raises the precise error. Measured on the bench corpus (MySQL 8.0, CRC32 on, one core of a loaded 2-core machine):
  framing + CRC alone is ~0.35-0.45 µs/event (``struct.unpack_from`` + ``zlib.crc32(memoryview slice)``); the
  whole scan is ~0.9-1.4 µs/event, i.e. ~0.7-1.1 M events/s.

MySQL sources: ``Binlog_file_reader`` (``sql/binlog_reader.h``) for the framing rules, ``mysqlbinlog`` for what a
reader reports, ``Transaction_boundary_parser`` for transactions (see :mod:`gtidkit.binlog.transactions`).
MariaDB binlogs are rejected (server version naming MariaDB, or MariaDB event types 160+).
"""

from __future__ import annotations

import mmap
import os
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from gtidkit.binlog.codec import LAYOUTS, UnknownEvent, decode_event
from gtidkit.binlog.constants import (
    BINLOG_MAGIC,
    CHECKSUM_LEN,
    CRC32_RESIDUE,
    EVENT_HEADER_LEN,
    LOG_EVENT_BINLOG_IN_USE_F,
    LOG_EVENT_IGNORABLE_F,
    MARIADB_EVENT_TYPES,
    ChecksumAlg,
    EventType,
    event_type_name,
)
from gtidkit.binlog.events.control import (
    SID_CACHE,
    FormatDescriptionEvent,
    GtidEvent,
    PreviousGtidsEvent,
    RotateEvent,
    TransactionPayloadEvent,
    gtid_body_fields,
    sid_from_bytes,
)
from gtidkit.binlog.events.rows import TableMapEvent
from gtidkit.binlog.events.statement import QueryEvent, query_kind
from gtidkit.binlog.header import HEADER_STRUCT, EventHeader
from gtidkit.binlog.stream import MAX_EVENT_SIZE, iter_payload_events, mariadb_error
from gtidkit.binlog.transactions import (
    K_BEGIN,
    K_END,
    K_GTID,
    K_IGNORE,
    K_PRE,
    K_STATEMENT,
    S_NONE,
    Transaction,
    TransactionParser,
    database_names,
    gtid_fields,
    kind_of,
)
from gtidkit.errors import BinlogDecodeError, ChecksumMismatchError
from gtidkit.gtid import Gtid, GtidSet

#: Bytes read per ``read()`` by :func:`read_events`.
READ_CHUNK = 4 << 20


@dataclass(frozen=True, slots=True)
class PositionedEvent:
    """An event read from a file, with where it sits.

    Args:
        file: the path as given to the reader.
        pos: offset of the event's first byte; for an event inside a Transaction_payload, the payload event's.
        end_pos: offset right after the event (for payload contents: after the payload event).
        header: the 19-byte header.
        event: the decoded body object (:class:`~gtidkit.binlog.codec.UnknownEvent` for unknown types).
        in_payload: True for events surfaced from inside a Transaction_payload.
        checksum: the CRC32 footer value, ``None`` when the event has none.
    """

    file: str
    pos: int
    end_pos: int
    header: EventHeader
    event: Any
    in_payload: bool = False
    checksum: int | None = None

    @property
    def type_code(self) -> int:
        """The header's type code."""
        return self.header.type_code


def read_events(
    path: str | os.PathLike[str],
    *,
    verify_checksum: bool = True,
    expand_payloads: bool = True,
    start: int | None = None,
    stop_at_torn_tail: bool = False,
) -> Iterator[PositionedEvent]:
    """Every event of a binlog or relay-log file, fully decoded, in file order (streaming: chunked reads).

    Args:
        path: the file.
        verify_checksum: check CRC32 footers when the FDE says CRC32.
        expand_payloads: after each Transaction_payload event, also yield the events inside it
            (``in_payload=True``).
        start: yield only the events starting at or after this offset (an offset inside an event starts at the
            next one); the FDE before it is still read. ``None``: from the first event.
        stop_at_torn_tail: a last event cut short ends the iteration quietly instead of raising.

    Yields:
        :class:`PositionedEvent` for each event; every good event before a fault is yielded first.

    Raises:
        BinlogDecodeError: at the first fault (bad magic, truncated or corrupt event, CRC mismatch, MariaDB
            binlog), with the file, the offset of the faulty event and its type code.
        OSError: the file cannot be opened or read.
    """
    reader = FrameReader(
        path, verify_checksum=verify_checksum, start=start, stop_at_torn_tail=stop_at_torn_tail
    )
    return _decoded(reader, expand_payloads)


def _decoded(reader: FrameReader, expand_payloads: bool) -> Iterator[PositionedEvent]:
    for pos, buf, at, size in reader:
        yield from decode_frame(reader, pos, buf, at, size, expand_payloads=expand_payloads)


def decode_frame(
    reader: FrameReader, pos: int, buf: bytes, at: int, size: int, *, expand_payloads: bool = True
) -> Iterator[PositionedEvent]:
    """The decoded event of one frame :class:`FrameReader` yielded (``buf[at:at + size]`` at file offset
    ``pos``), then, with ``expand_payloads``, the events inside it when it is a Transaction_payload: what
    :func:`read_events` yields for that frame (a caller reading some frames by itself decodes the others so).

    Raises:
        BinlogDecodeError: an undecodable body or payload, with the file, offset and event type.
    """
    name = reader.file
    fde = reader.fde
    data = buf[at : at + size]
    t = data[4]
    ev = decode_event(data, None if t == _T_FDE else fde, verify_checksum=False, offset=pos, file=name)
    body = ev.event
    has_crc = (
        body.has_checksum_alg_byte
        if t == _T_FDE
        else fde is not None and fde.checksum_alg == ChecksumAlg.CRC32
    )
    crc = int.from_bytes(data[-CHECKSUM_LEN:], "little") if has_crc else None
    yield PositionedEvent(name, pos, pos + size, ev.header, body, False, crc)
    if expand_payloads and isinstance(body, TransactionPayloadEvent):
        assert fde is not None
        for inner in iter_payload_events(body, fde, file=name, offset=pos):
            yield PositionedEvent(name, pos, pos + size, inner.header, inner.event, True, None)


class FrameReader:
    """Stream the events of one binlog or relay-log file as raw frames, in file order, reading fixed-size chunks
    (memory stays flat in the file size).

    Iterating yields ``(pos, buf, at, size)``: the event starts at file offset ``pos`` and is
    ``buf[at:at + size]`` (``buf`` is a ``bytes`` chunk, valid as long as the caller holds it). The reader checks
    the framing (magic, sizes), rejects MariaDB binlogs, tracks the Format_description_event in force
    (:attr:`fde`; relay logs carry several) and verifies CRC32 footers; bodies are left to the caller.

    Args:
        path: the file.
        verify_checksum: check CRC32 footers when the FDE in force says CRC32.
        start: yield only events starting at or after this offset (the events before it are framed and
            checked, not yielded, so the FDE in force is known: an offset inside an event starts at the next
            one, as SHOW BINLOG EVENTS FROM does). ``None``: from the first event.
        stop_at_torn_tail: a last event cut short (a crash while writing) ends the iteration quietly and sets
            :attr:`torn_at`, instead of raising.
        chunk_size: bytes per ``read()``.

    Attributes:
        file: the path as a string.
        fde: the Format_description_event in force (``None`` before the first).
        end: offset right after the last whole, valid event framed (yielded or skipped).
        torn_at: offset of the torn last event when ``stop_at_torn_tail`` stopped there, else ``None``.

    Raises (while iterating):
        BinlogDecodeError: bad magic, an invalid event size, a truncated last event (unless
            ``stop_at_torn_tail``), a CRC mismatch, an event before any FDE, a MariaDB binlog; with the file, the
            offset of the faulty event and its type code. Every frame before the fault is yielded first.
        OSError: the file cannot be opened or read.
    """

    __slots__ = (
        "chunk_size",
        "end",
        "fde",
        "file",
        "skip_to",
        "start",
        "stop_at_torn_tail",
        "torn_at",
        "verify",
    )

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        verify_checksum: bool = True,
        start: int | None = None,
        stop_at_torn_tail: bool = False,
        chunk_size: int = READ_CHUNK,
    ) -> None:
        self.file = os.fspath(path)
        self.verify = verify_checksum
        self.start = start or 0
        self.stop_at_torn_tail = stop_at_torn_tail
        self.chunk_size = chunk_size
        self.fde: FormatDescriptionEvent | None = None
        self.end = 0
        self.torn_at: int | None = None
        self.skip_to = 0

    def skip(self, at: int) -> None:
        """Go on at ``buf[at]`` of the buffer of the frame just yielded: the consumer read the events up to there
        by itself (framed, CRC-checked, none of them a Format_description). Call it before asking for the next
        frame."""
        self.skip_to = at

    def __iter__(self) -> Iterator[tuple[int, bytes, int, int]]:
        name = self.file
        chunk = self.chunk_size
        start = self.start
        unpack_size = _SIZE_AT_9.unpack_from
        crc32 = zlib.crc32
        residue = CRC32_RESIDUE
        header_len = EVENT_HEADER_LEN
        t_fde = _T_FDE
        mariadb = MARIADB_EVENT_TYPES
        crc_on = False
        with open(name, "rb") as f:
            buf = f.read(max(chunk, 4))
            if len(buf) < 4 or buf[:4] != BINLOG_MAGIC:
                what = "empty" if not buf else "bad magic"
                raise BinlogDecodeError(f"not a binlog file ({what})", file=name, offset=0)
            mv = memoryview(buf)
            base, at = 0, 4
            self.end = 4
            while True:
                left = len(buf) - at
                if left >= header_len:
                    size = unpack_size(buf, at)[0]
                    if size < header_len or size > MAX_EVENT_SIZE:
                        raise BinlogDecodeError(
                            f"invalid event_size {size}", file=name, offset=base + at, event_type=buf[at + 4]
                        )
                    if left >= size:
                        t = buf[at + 4]
                        pos = base + at
                    else:
                        size = -size
                else:
                    size = -header_len
                if size < 0:  # a partial event at the end of the chunk: read on
                    more = f.read(max(chunk, -size - left))
                    if more:
                        buf = buf[at:] + more
                        mv = memoryview(buf)
                        base += at
                        at = 0
                        continue
                    if left == 0:
                        return
                    if self.stop_at_torn_tail:
                        self.torn_at = base + at
                        return
                    raise BinlogDecodeError(
                        f"truncated event: trailing {left} bytes at offset {base + at}",
                        file=name,
                        offset=base + at,
                        event_type=buf[at + 4] if left > 4 else None,
                    )
                if t in mariadb:
                    raise mariadb_error(None, file=name, offset=pos, event_type=t)
                if t == t_fde:
                    fde = decode_event(
                        buf[at : at + size], None, verify_checksum=self.verify, offset=pos, file=name
                    )
                    ev = fde.event
                    if ev.is_mariadb:
                        raise mariadb_error(ev.server_version, file=name, offset=pos, event_type=t)
                    self.fde = ev
                    crc_on = self.verify and ev.checksum_alg == ChecksumAlg.CRC32
                elif self.fde is None:
                    raise BinlogDecodeError(
                        "event before any Format_description_event", file=name, offset=pos, event_type=t
                    )
                elif crc_on and crc32(mv[at : at + size]) != residue:
                    # the codec raises the precise ChecksumMismatchError (stored and computed values)
                    decode_event(buf[at : at + size], self.fde, verify_checksum=True, offset=pos, file=name)
                if pos >= start:
                    yield pos, buf, at, size
                    if self.skip_to:  # the consumer read on by itself (ScriptPrinter.feed_frames)
                        at, self.skip_to = self.skip_to, 0
                        self.end = base + at
                        continue
                at += size
                self.end = base + at


_SIZE_AT_9 = struct.Struct("<9xI")


@dataclass(slots=True)
class TransactionRead:
    """What :func:`read_transactions` learned about one file.

    Args:
        file: the path as given.
        size: file size in bytes.
        previous_gtids: the first Previous_gtids event's set, ``None`` when the file has none.
        transactions: the complete transactions, in file order (one cut short by the next, or by the end of the
            file, is left out: :attr:`complete_end` stops before it).
        events: with ``keep_events_from``, ``begin_pos`` → the decoded events of each complete transaction that
            begins at or after that offset (its Gtid event first; events inside a Transaction_payload in its
            place).
        complete_end: offset right after the last event that is not inside an unfinished transaction: where a
            torn or unfinished tail starts (a crash recovery truncates there); ``size`` for a clean file.
        torn_at: offset of a last event cut short by the end of the file, else ``None``.
        ends_with: ``"ROTATE"`` / ``"STOP"`` when such an event closes the file, else ``None``.
    """

    file: str
    size: int
    previous_gtids: GtidSet | None = None
    transactions: list[Transaction] = field(default_factory=list)
    events: dict[int, tuple[PositionedEvent, ...]] = field(default_factory=dict)
    complete_end: int = 4
    torn_at: int | None = None
    ends_with: str | None = None


def read_transactions(
    path: str | os.PathLike[str],
    *,
    keep_events_from: int | None = None,
    verify_checksum: bool = True,
) -> TransactionRead:
    """The complete transactions of a binlog file (grouped by :class:`~gtidkit.binlog.transactions.
    TransactionParser`, MySQL's ``Transaction_boundary_parser``), stopping quietly at a torn tail.

    This is what a server needs at start-up (the GTIDs of its last binlog, the transactions past its applied
    position, where to truncate a crash's torn tail) and what SHOW BINLOG EVENTS-like callers need to group
    events: every event is decoded, so use :func:`iter_transactions` when only the transactions' metadata is
    wanted on large files.

    Args:
        path: the file.
        keep_events_from: keep the decoded events of the transactions beginning at or after this offset
            (``None``: keep none, ``0``: all).
        verify_checksum: check CRC32 footers when the FDE says CRC32.

    Returns:
        A :class:`TransactionRead`.

    Raises:
        BinlogDecodeError: a whole event that is corrupt (CRC mismatch, undecodable body, bad size); a torn last
            event is not an error.
        OSError: the file cannot be read.
    """
    name = os.fspath(path)
    reader = FrameReader(name, verify_checksum=verify_checksum, stop_at_torn_tail=True)
    parser = TransactionParser(name, keep_events=keep_events_from is not None)
    res = TransactionRead(name, os.stat(name).st_size)
    feed = parser.feed
    last_type = -1
    for pe in _decoded(reader, True):
        ev = pe.event
        h = pe.header
        t = h.type_code
        if pe.in_payload:
            pass
        elif isinstance(ev, TransactionPayloadEvent):
            continue  # its events follow, fed one by one (the payload itself belongs to no grammar rule)
        else:
            last_type = t
        database = None
        gtid_event = None
        if isinstance(ev, QueryEvent):
            qk = query_kind(ev.query)
            kind = kind_of(t, h.flags, qk)
            if qk == "STATEMENT" and ev.database:
                database = ev.database
        else:
            kind = kind_of(t, h.flags)
            if isinstance(ev, GtidEvent):
                gtid_event = ev
            elif isinstance(ev, TableMapEvent) and ev.database:
                database = ev.database
            elif isinstance(ev, PreviousGtidsEvent) and res.previous_gtids is None:
                res.previous_gtids = ev.gtids
        feed(kind, pe.pos, pe.end_pos, h.timestamp, h.server_id, gtid_event, database, pe)
        if parser.state == S_NONE:
            res.complete_end = pe.end_pos
        if parser.finished:
            for i, trx in enumerate(parser.finished):
                if not trx.complete:
                    continue
                res.transactions.append(trx)
                if keep_events_from is not None and trx.begin_pos >= keep_events_from:
                    res.events[trx.begin_pos] = parser.finished_events[i]
            parser.finished.clear()
            parser.finished_events.clear()
    res.torn_at = reader.torn_at
    res.ends_with = "ROTATE" if last_type == _T_ROTATE else "STOP" if last_type == _T_STOP else None
    return res


def read_previous_gtids(path: str | os.PathLike[str], *, verify_checksum: bool = True) -> GtidSet | None:
    """The Previous_gtids set of a binlog file (the event right after its FDE), ``None`` when it has none.

    Raises:
        BinlogDecodeError: the file's first events are corrupt.
        OSError: the file cannot be read.
    """
    reader = FrameReader(path, verify_checksum=verify_checksum, stop_at_torn_tail=True, chunk_size=64 << 10)
    for pe in _decoded(reader, False):
        if isinstance(pe.event, PreviousGtidsEvent):
            return pe.event.gtids
        if not isinstance(pe.event, FormatDescriptionEvent):
            return None
    return None


@dataclass(slots=True)
class FileScan:
    """What :func:`scan_file` learned about one file. Never raised: faults are recorded.

    Args:
        file: the path as given.
        size: file size in bytes.
        server_version: from the FDE describing the events (in a relay log: the last FDE, the source's);
            ``None`` when there is no FDE.
        binlog_version: from that FDE (4), or ``None``.
        checksum_alg: that FDE's :class:`~gtidkit.binlog.constants.ChecksumAlg` value, or ``None``.
        previous_gtids: the first Previous_gtids event's set, ``None`` when the file has none (pre-5.6 or 5.6
            with gtid_mode OFF).
        transactions: every transaction read, incomplete ones (``complete=False``) included.
        event_count: top-level events read (not counting events inside Transaction_payloads).
        event_type_counts: top-level events by MySQL enum name (``GTID_LOG_EVENT``) or decimal code for types
            MySQL does not name (Aurora's ``"100"``).
        in_use: the first FDE has LOG_EVENT_BINLOG_IN_USE_F (file open, or not closed cleanly).
        ends_with: ``"ROTATE"`` / ``"STOP"`` when the last event is a Rotate / Stop, else ``None``.
        next_file: the final Rotate's next file name.
        error: message of the fault that stopped the scan, or ``None``.
        error_offset: offset of the faulty event, or ``None``.
        good_bytes: offset right after the last complete, valid event (``size`` when there is no fault).
        relay_log: True when the file has several FDEs or events flagged LOG_EVENT_RELAY_LOG_F.
    """

    file: str
    size: int
    server_version: str | None = None
    binlog_version: int | None = None
    checksum_alg: int | None = None
    previous_gtids: GtidSet | None = None
    transactions: list[Transaction] = field(default_factory=list)
    event_count: int = 0
    event_type_counts: dict[str, int] = field(default_factory=dict)
    in_use: bool = False
    ends_with: str | None = None
    next_file: str | None = None
    error: str | None = None
    error_offset: int | None = None
    good_bytes: int = 0
    relay_log: bool = False


_HEADER = HEADER_STRUCT
_QUERY_HEAD = struct.Struct("<IIBHH")  # thread_id, exec_time, db_len, error_code, status_vars_len
_QUERY_POST = _QUERY_HEAD.size
#: The commonest 8.0 layouts in full: the 42 fixed bytes, immediate_commit_timestamp (u56 as u32+u16+u8) with its
#: top bit set then original_commit_timestamp (u56) -- or with the bit clear and no original --, then
#: transaction_length packed as 0xFC + u16 (251..65535 bytes).
_GTID_80_TWO_TS = struct.Struct("<B16sqBqqIHBIHBBH")
_GTID_80_ONE_TS = struct.Struct("<B16sqBqqIHBBH")
_ZERO_SID = bytes(16)
_MAX_GNO = (1 << 63) - 2
_T_FDE = EventType.FORMAT_DESCRIPTION_EVENT
_T_QUERY = EventType.QUERY_EVENT
_T_TABLE_MAP = EventType.TABLE_MAP_EVENT
_T_PREV = EventType.PREVIOUS_GTIDS_LOG_EVENT
_T_ROTATE = EventType.ROTATE_EVENT
_T_STOP = EventType.STOP_EVENT
_T_PAYLOAD = EventType.TRANSACTION_PAYLOAD_EVENT
_T_GTID = EventType.GTID_LOG_EVENT
_T_ANON = EventType.ANONYMOUS_GTID_LOG_EVENT
_T_XID = EventType.XID_EVENT
_GTID_TYPES = (_T_GTID, _T_ANON, EventType.GTID_TAGGED_LOG_EVENT)
_RELAY_F = 0x40

# Boundary kind by type code when it depends on the type alone; -1 = look closer (Query, Gtid, unknown types
# whose IGNORABLE flag decides, and the types the scanner decodes: FDE, Previous_gtids, Rotate, Stop, payload).
_FAST_KIND = [-1] * 256
_LOOK_CLOSER = (_T_QUERY, _T_FDE, _T_PREV, _T_ROTATE, _T_STOP, _T_PAYLOAD, *_GTID_TYPES, *MARIADB_EVENT_TYPES)
for _t in range(256):
    if _t not in _LOOK_CLOSER and kind_of(_t, 0) == kind_of(_t, LOG_EVENT_IGNORABLE_F):
        _FAST_KIND[_t] = kind_of(_t, 0)


def _query_kind(buf: Any, body: int, end: int) -> tuple[int, bytes | None]:
    """Boundary kind and default database (raw bytes) of the Query body at ``buf[body:end]`` (no full decode).

    Raises:
        BinlogDecodeError: the post-header, status variables or database run past the body.
    """
    if end - body < _QUERY_POST + 1:
        raise BinlogDecodeError("Query event body shorter than its post-header")
    _, _, db_len, _, status_len = _QUERY_HEAD.unpack_from(buf, body)
    db_at = body + _QUERY_POST + status_len
    q = db_at + db_len + 1
    if q > end or buf[q - 1] != 0:
        raise BinlogDecodeError("Query event: status variables or database run past the body")
    # MySQL writes the boundary statements verbatim: try those first, then the general rule.
    text = bytes(buf[q : min(q + 24, end)])
    if text == b"BEGIN":
        return K_BEGIN, None
    if text == b"COMMIT":
        return K_END, None
    kind = _BOUNDARY_KINDS.get(query_kind(text.decode("latin-1")), K_STATEMENT)
    if kind != K_STATEMENT:
        return kind, None
    return K_STATEMENT, (bytes(buf[db_at : db_at + db_len]) if db_len else None)


_BOUNDARY_KINDS = {"BEGIN": K_BEGIN, "COMMIT": K_END, "ROLLBACK": K_END}


def _fast_gtid(buf: Any, t: int, body: int, body_end: int) -> tuple | None:
    """The transaction fields of a 5.7.5+ untagged Gtid/Anonymous body (parsed by
    :func:`~gtidkit.binlog.events.control.gtid_body_fields`), or ``None`` when anything is unusual (the caller
    then decodes the event fully, which raises the precise error). An 8.0 body must carry transaction_length."""
    f = gtid_body_fields(buf, body, body_end)
    if f is None:
        return None
    _flags, raw_sid, gno, lc, seq, imm, orig, tlen, _next = f
    if tlen is None and imm is not None:
        return None
    if gno == 0 and raw_sid == _ZERO_SID:
        if t != _T_ANON:
            return None
        return (None, True, lc, seq, imm, orig, tlen)
    if t != _T_GTID or not 1 <= gno <= _MAX_GNO:
        return None
    sid = SID_CACHE.get(raw_sid) or sid_from_bytes(raw_sid)
    return (_untagged_gtid(sid, gno), False, lc, seq, imm, orig, tlen)


def _gtid_factory() -> Any:
    """A constructor for untagged :class:`Gtid` values whose parts the caller has already validated.

    ``Gtid(sid, gno)`` re-validates in ``__post_init__`` (half of its cost); on the hot path the scanner has
    checked the GNO range and the SID comes from 16 bytes, so it fills the slots directly. The shortcut is used
    only if it builds values equal to the constructor's (checked once at import), else the constructor is used.
    """
    try:
        new = object.__new__
        slots: Any = Gtid  # the slot descriptors (mypy cannot see them on the class)
        set_sid, set_gno, set_tag = slots.sid.__set__, slots.gno.__set__, slots.tag.__set__

        def make(sid: UUID, gno: int) -> Gtid:
            g = new(Gtid)
            set_sid(g, sid)
            set_gno(g, gno)
            set_tag(g, "")
            return g

        probe = UUID(int=0x1234)
        if make(probe, 7) == Gtid(probe, 7) and hash(make(probe, 7)) == hash(Gtid(probe, 7)):
            return make
    except (AttributeError, TypeError, ValueError):
        pass
    return Gtid


_untagged_gtid = _gtid_factory()


# -- the transaction fast path ---------------------------------------------------------------------------------
#: Header fields the fast path needs: type code, event_size, flags (at offsets 4, 9 and 17).
_TYPE_SIZE_FLAGS = struct.Struct("<4xBxxxxIxxxxH")
_QUERY_LENS = struct.Struct("<8xBxxH")  # db_len, status_vars_len of the Query post-header
#: 1 for the types that, inside ``BEGIN ... COMMIT``, only extend the transaction whatever their body and flags
#: (rows events, Intvar/Rand/User_var, Rows_query, …: boundary kind STATEMENT or PRE regardless of flags);
#: Table_map (which names a database) and the types that need a closer look are excluded.
_PLAIN_IN_DML = bytes(
    1 if _FAST_KIND[_t] in (K_STATEMENT, K_PRE) and _t != _T_TABLE_MAP else 0 for _t in range(256)
)
_ONE_DB: dict[bytes, tuple[str, ...]] = {}
_new_tuple = tuple.__new__


def _one_db(raw: bytes) -> tuple[str, ...]:
    """``databases`` of a transaction that touched the one database ``raw`` (cached: a handful per file)."""
    dbs = _ONE_DB.get(raw)
    if dbs is None:
        if len(_ONE_DB) > 65536:
            _ONE_DB.clear()
        dbs = _ONE_DB[raw] = database_names({raw})
    return dbs


def _fast_trx(
    name: str,
    buf: mmap.mmap,
    mv: memoryview,
    pos: int,
    size: int,
    crc_on: bool,
    footer: int,
    tm_post: int,
    types: bytearray,
    base: int = 0,
) -> tuple[Transaction, int] | None:
    """One whole row-based transaction ``Gtid|Anonymous_gtid, Query BEGIN, (Table_map | rows …)*, Xid`` at
    ``pos`` in one pass (the state machine in ``S_NONE``), or ``None``.

    ``None`` means "not this shape, or something is wrong" (a short or corrupt event, a CRC mismatch, a DDL, a
    COMMIT query, an event of any other type, a body the codecs would reject): nothing has been consumed and the
    caller runs the event-by-event path from ``pos``, which raises the precise error. On success the state
    machine would have gone ``NONE -START-> GTID -ADD-> DML -ADD…-> END -> NONE`` over exactly these events, so
    the :class:`Transaction` is the one :class:`~gtidkit.binlog.transactions.TransactionParser` builds.

    Why a separate tier: the per-event dispatch of the general loop (kind table, state table, per-type branches)
    cost more than framing and CRC together; here each row event is one header unpack, one CRC and one table
    lookup. The Gtid body is read with one ``unpack_from`` in the two usual 8.0 layouts (:data:`_GTID_80_TWO_TS`,
    :data:`_GTID_80_ONE_TS`), else by :func:`_fast_gtid`.

    Args:
        name: file name copied into the Transaction.
        buf, mv: the mapped file and a memoryview of it (bodies are read through either).
        pos: offset of the Gtid/Anonymous_gtid event (its type code already checked by the caller).
        size: file size in bytes.
        crc_on: verify each event's CRC32 footer (the CRC of an event with its footer is ``CRC32_RESIDUE``).
        footer: checksum bytes at the end of each event (4 with CRC32, else 0).
        tm_post: Table_map post-header length from the FDE (the database name follows it).
        types: the scanner's per-event type codes (appended to only on success).
        base: file offset of ``buf[0]`` (a stream scan holds a window of the file; 0 for a mapped file).

    Returns:
        (transaction, OR of the events' header flags); the events' type codes are appended to ``types``.
    """
    unpack = _TYPE_SIZE_FLAGS.unpack_from
    crc32 = zlib.crc32
    residue = CRC32_RESIDUE
    plain = _PLAIN_IN_DML
    # Gtid / Anonymous_gtid
    ts, gt, server_id, sz, _, flags = _HEADER.unpack_from(mv, pos)
    e = pos + sz
    if sz < EVENT_HEADER_LEN or e > size or (crc_on and crc32(mv[pos:e]) != residue):
        return None
    body = pos + EVENT_HEADER_LEN
    bend = e - footer
    # The usual MySQL 8.0 bodies in one unpack, transaction_length packed as 0xFC + u16 (251..65535 bytes): a
    # replica's event with both commit timestamps (immediate_commit_timestamp has its top bit set) or the
    # originating server's with only the immediate one (original = immediate). Anything else: _fast_gtid.
    n = bend - body
    if n >= _GTID_80_TWO_TS.size and buf[body + 48] & 0x80:
        _, raw_sid, gno, lt_type, lc, seq, ilo, imid, ihi, olo, omid, ohi, first, tlen = (
            _GTID_80_TWO_TS.unpack_from(mv, body)
        )
        imm = ilo | imid << 32 | (ihi & 0x7F) << 48
        orig = olo | omid << 32 | ohi << 48
    elif n >= _GTID_80_ONE_TS.size and not buf[body + 48] & 0x80:
        _, raw_sid, gno, lt_type, lc, seq, ilo, imid, ihi, first, tlen = _GTID_80_ONE_TS.unpack_from(mv, body)
        imm = orig = ilo | imid << 32 | ihi << 48
    else:
        first = 0
    if first == 0xFC and lt_type == 2 and gt == _T_GTID and 1 <= gno <= _MAX_GNO:
        g: tuple | None = (
            _untagged_gtid(SID_CACHE.get(raw_sid) or sid_from_bytes(raw_sid), gno),
            False,
            lc,
            seq,
            imm,
            orig,
            tlen,
        )
    else:
        g = _fast_gtid(mv, gt, body, bend)
    if g is None:
        return None
    # Query BEGIN (MySQL writes it verbatim; anything else, e.g. a DDL or XA START, takes the slow path)
    p = e
    if size - p < EVENT_HEADER_LEN:
        return None
    t, sz, fl = unpack(mv, p)
    e = p + sz
    if t != _T_QUERY or sz < EVENT_HEADER_LEN or e > size or (crc_on and crc32(mv[p:e]) != residue):
        return None
    body = p + EVENT_HEADER_LEN
    bend = e - footer
    if bend - body < _QUERY_POST + 1:
        return None
    db_len, status_len = _QUERY_LENS.unpack_from(mv, body)
    q = body + _QUERY_POST + status_len + db_len + 1
    if bend - q != 5 or buf[q - 1] != 0 or buf[q:bend] != b"BEGIN":
        return None
    flags |= fl
    mark = len(types)
    tapp = types.append
    tapp(gt)
    tapp(_T_QUERY)
    db1 = None
    dbset = None
    p = e
    hl = EVENT_HEADER_LEN
    tm_at = hl + tm_post
    stop = size - hl
    while p <= stop:
        t, sz, fl = unpack(mv, p)
        e = p + sz
        if sz < hl or e > size or (crc_on and crc32(mv[p:e]) != residue):
            break
        if plain[t]:
            tapp(t)
            flags |= fl
            p = e
            continue
        if t == _T_TABLE_MAP:
            at = p + tm_at
            bend = e - footer
            if at >= bend:
                break
            n = buf[at]
            if n:
                if at + 1 + n > bend:
                    break
                d = buf[at + 1 : at + 1 + n]
                if db1 is None:
                    db1 = d
                elif d != db1:
                    if dbset is None:
                        dbset = {db1, d}
                    else:
                        dbset.add(d)
            tapp(t)
            flags |= fl
            p = e
            continue
        if t == _T_XID:
            tapp(t)
            flags |= fl
            gtid, anon, lc, seq, imm, orig, tlen = g
            dbs = database_names(dbset) if dbset is not None else _one_db(db1) if db1 is not None else ()
            return (
                _new_tuple(
                    Transaction,
                    (
                        name,
                        base + pos,
                        base + e,
                        gtid,
                        anon,
                        lc,
                        seq,
                        ts,
                        imm,
                        orig,
                        e - pos,
                        len(types) - mark,
                        dbs,
                        server_id,
                        True,
                        tlen,
                    ),
                ),
                flags,
            )
        break
    del types[mark:]
    return None


#: Transactions per list handed out by :meth:`FileScanner.run`.
_BATCH = 256
#: A stream scan refills its window when fewer bytes than this are left ahead (a whole common transaction then
#: fits the window, so the fast tier still takes it).
_LOW_WATER = 1 << 20


def _fill(read: Callable[[int], Any], have: bytes, need: int) -> tuple[bytes, bool]:
    """``have`` followed by what ``read`` returns until there are ``need`` bytes or the stream ends (raw streams
    may return short reads). Returns (bytes, True when the stream has ended)."""
    parts = [have]
    n = len(have)
    while n < need:
        more = read(max(READ_CHUNK, need - n))
        if not more:
            return b"".join(parts), True
        parts.append(more)
        n += len(more)
    return b"".join(parts), False


class FileScanner:
    """Streaming transaction scan of one binlog file: the fast path behind :func:`iter_transactions` and
    :func:`scan_file` (see the module docstring), public for callers that must not hold a whole file's
    transactions in memory (a Spark task over a 1 GiB binlog).

    Usage: ``sc = FileScanner(path, verify_checksum=True)``; iterate ``sc.run()`` (or ``sc.batches()``) and
    catch :class:`~gtidkit.errors.BinlogDecodeError`; afterwards ``sc.result`` is the :class:`FileScan` without
    its ``transactions`` list filled, and ``sc.counts`` the event counts by type code.

    Events are grouped by the one :class:`~gtidkit.binlog.transactions.TransactionParser` (fed raw fields with
    ``feed_fields``); the :func:`_fast_trx` tier only takes, while the parser is between transactions, whole
    transactions of the one shape whose outcome the grammar fixes (``NONE -START-> GTID -ADD-> DML ... -END->``),
    and ``tests/binlog`` checks both tiers against the parser fed from :func:`read_events` on every fixture.
    """

    def __init__(self, path: str | os.PathLike[str], verify_checksum: bool) -> None:
        self.name = os.fspath(path)
        self.verify = verify_checksum
        self.result = FileScan(self.name, 0)
        self.types = bytearray()  # type code of every top-level event read, in file order

    def run(self) -> Iterator[Transaction]:
        """Yield transactions one by one; raise BinlogDecodeError at the first fault (after yielding the good
        ones). ``gtidkit.pipeline.scan`` streams through this."""
        for batch in self.batches():
            yield from batch

    @property
    def counts(self) -> list[int]:
        """Top-level events read so far, by type code (a list of 256 ints)."""
        types = self.types
        out = [0] * 256
        for t in set(types):
            out[t] = types.count(t)
        return out

    def batches(self) -> Iterator[list[Transaction]]:
        """Yield lists of transactions (file order, up to :data:`_BATCH` each: one ``yield`` per transaction costs
        as much as framing an event); raise BinlogDecodeError at the first fault, after yielding the good ones."""
        res = self.result
        with open(self.name, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            res.size = size
            if size == 0:
                raise BinlogDecodeError("not a binlog file (empty)", file=self.name, offset=0)
            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            mv = memoryview(mm)
            try:
                yield from self._walk(mm, mv, size)
            finally:
                # Only temporary slices of ``mv`` are ever taken, so both normally close at once; should a
                # traceback still hold a view, leave the map to the garbage collector rather than mask the error.
                mv.release()
                try:
                    mm.close()
                except BufferError:  # pragma: no cover - defensive
                    pass

    def _walk(
        self, buf: Any, mv: memoryview, size: int, read: Callable[[int], Any] | None = None
    ) -> Iterator[list[Transaction]]:
        """The scan proper over ``buf[:size]``. With ``read`` (a stream's ``read(n)``), ``buf`` is a window of the
        file starting at offset ``base``, refilled from ``read`` as the scan advances; without it, the whole file."""
        name, res = self.name, self.result
        if size < 4 or buf[:4] != BINLOG_MAGIC:
            raise BinlogDecodeError("not a binlog file (bad magic)", file=name, offset=0)
        tapp = self.types.append
        types = self.types
        fast_trx = _fast_trx
        fast_ok = False
        batch = _BATCH
        unpack = _HEADER.unpack_from
        crc32 = zlib.crc32
        residue = CRC32_RESIDUE
        fast_kind = _FAST_KIND
        t_query, t_table_map, t_fde = _T_QUERY, _T_TABLE_MAP, _T_FDE
        relay_f, header_len = _RELAY_F, EVENT_HEADER_LEN
        # the boundary grammar is the one TransactionParser's; finished transactions land in ``out`` directly
        parser = TransactionParser(name)
        out: list[Transaction] = []
        parser.finished = out
        feed = parser.feed_fields
        fde: FormatDescriptionEvent | None = None
        crc_on = False
        footer = 0
        gtid_fast = False
        tm_post = 8
        tm_known = False
        last_type = -1
        pos = 4
        base = 0  # file offset of buf[0]
        eof = read is None
        low = _LOW_WATER
        res.good_bytes = 4
        try:
            while True:
                if not eof and size - pos < low:  # a stream: keep at least ``low`` bytes ahead when there are
                    assert read is not None
                    buf, eof = _fill(read, buf[pos:size], low + READ_CHUNK)
                    base += pos
                    pos, size = 0, len(buf)
                    mv = memoryview(buf)
                if pos >= size:
                    break
                # -- a whole row-based transaction in one call when it has the common shape (see _fast_trx) --
                if fast_ok and parser.state == S_NONE and size - pos >= header_len:
                    t = buf[pos + 4]
                    if t == _T_GTID or t == _T_ANON:
                        done = fast_trx(name, buf, mv, pos, size, crc_on, footer, tm_post, types, base)
                        if done is not None:
                            trx, flags = done
                            if flags & relay_f:
                                res.relay_log = True
                            last_type = _T_XID
                            pos = trx[2] - base
                            out.append(trx)
                            if len(out) >= batch:
                                res.good_bytes = base + pos
                                yield out
                                out = parser.finished = []
                            continue
                # -- one event at a time --
                if size - pos < EVENT_HEADER_LEN:
                    raise BinlogDecodeError(
                        f"truncated event header: trailing {size - pos} bytes at offset {base + pos}",
                        file=name,
                        offset=base + pos,
                    )
                ts, t, server_id, ev_size, _log_pos, flags = unpack(mv, pos)
                end = pos + ev_size
                if ev_size < header_len or end > size:
                    if not eof and ev_size >= header_len:  # an event longer than the window: read it whole
                        assert read is not None
                        buf, eof = _fill(read, buf[pos:size], ev_size)
                        base += pos
                        pos, size = 0, len(buf)
                        mv = memoryview(buf)
                        continue
                    what = "invalid event_size" if ev_size < EVENT_HEADER_LEN else "truncated event"
                    raise BinlogDecodeError(
                        f"{what} {ev_size}: trailing {size - pos} bytes at offset {base + pos}",
                        file=name,
                        offset=base + pos,
                        event_type=t,
                    )
                if crc_on and t != t_fde and crc32(mv[pos:end]) != residue:
                    raise self._crc_error(mv, pos, end, t, base)
                db = None
                gfields = None
                kind = fast_kind[t]
                if kind < 0:
                    if fde is None and t != _T_FDE:
                        raise BinlogDecodeError(
                            "event before any Format_description_event",
                            file=name,
                            offset=base + pos,
                            event_type=t,
                        )
                    if t == t_query:
                        try:
                            kind, db = _query_kind(mv, pos + EVENT_HEADER_LEN, end - footer)
                        except BinlogDecodeError as err:
                            raise BinlogDecodeError(
                                err.message, file=name, offset=base + pos, event_type=t
                            ) from None
                    elif t in _GTID_TYPES:
                        kind = K_GTID
                        gfields = (
                            _fast_gtid(mv, t, pos + EVENT_HEADER_LEN, end - footer) if gtid_fast else None
                        )
                        if gfields is None:
                            ev = decode_event(
                                buf[pos:end], fde, verify_checksum=False, offset=base + pos, file=name
                            ).event
                            if isinstance(ev, GtidEvent):
                                gfields = gtid_fields(ev)
                            else:  # a type this FDE does not describe as a Gtid event: an unknown one
                                kind = K_STATEMENT
                    elif t == _T_FDE:
                        fde = self._fde(mv, pos, end, flags, base)
                        crc_on = self.verify and fde.checksum_alg == ChecksumAlg.CRC32
                        footer = CHECKSUM_LEN if fde.checksum_alg == ChecksumAlg.CRC32 else 0
                        gtid_fast = fde.post_header_len(_T_GTID) == 42 and fde.post_header_len(_T_ANON) == 42
                        tm_post = fde.post_header_len(t_table_map)
                        tm_known = tm_post in LAYOUTS[t_table_map]  # else not the Table_map layout we know
                        fast_ok = gtid_fast and tm_known
                        kind = K_IGNORE
                    elif t in MARIADB_EVENT_TYPES:
                        raise mariadb_error(None, file=name, offset=base + pos, event_type=t)
                    elif t in (_T_PREV, _T_ROTATE, _T_STOP, _T_PAYLOAD):
                        kind, extra = self._special(t, mv, pos, end, fde, flags, base)
                        if t == _T_PAYLOAD and extra is not None:
                            # the payload's events run through the same table (BEGIN ... XID inside); all of them
                            # are decoded first, so a corrupt payload emits nothing past the last good event
                            for k, d, g, its, isid in list(
                                self._payload_kinds(extra, base + pos, fde, ts, server_id)
                            ):
                                feed(k, base + pos, base + end, its, isid, g, d)
                            kind = K_IGNORE
                        elif t == _T_ROTATE:
                            res.next_file = extra
                    else:
                        kind = kind_of(t, flags)
                elif t == t_table_map and tm_known:
                    at = pos + header_len + tm_post
                    n = buf[at] if at < end else 0
                    if at + 1 + n > end - footer:
                        raise BinlogDecodeError(
                            "Table_map database name runs past the event",
                            file=name,
                            offset=base + pos,
                            event_type=t,
                        )
                    db = buf[at + 1 : at + 1 + n] if n else None
                tapp(t)
                if flags & relay_f:
                    res.relay_log = True
                last_type = t
                # -- the boundary grammar (gtidkit.binlog.transactions.TransactionParser) --
                feed(kind, base + pos, base + end, ts, server_id, gfields, db)
                pos = end
                if len(out) >= batch:
                    res.good_bytes = base + pos
                    yield out
                    out = parser.finished = []
            res.good_bytes = base + pos
        except BinlogDecodeError:
            res.good_bytes = base + pos
            if out:
                yield out
            raise
        res.ends_with = "ROTATE" if last_type == _T_ROTATE else "STOP" if last_type == _T_STOP else None
        if res.ends_with != "ROTATE":
            res.next_file = None
        parser.close()  # a transaction still open at the end of the file: incomplete
        if out:
            yield out

    def _crc_error(self, mv: memoryview, pos: int, end: int, t: int, base: int = 0) -> ChecksumMismatchError:
        stored = int.from_bytes(mv[end - CHECKSUM_LEN : end], "little")
        computed = zlib.crc32(mv[pos : end - CHECKSUM_LEN])
        return ChecksumMismatchError(
            f"event CRC32 mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}",
            file=self.name,
            offset=base + pos,
            event_type=t,
        )

    def _fde(self, mv: memoryview, pos: int, end: int, flags: int, base: int = 0) -> FormatDescriptionEvent:
        res = self.result
        # bytes copies (mmap slices), never memoryview slices: a traceback must not pin the map open
        ev = decode_event(
            bytes(mv[pos:end]), None, verify_checksum=self.verify, offset=base + pos, file=self.name
        )
        fde: FormatDescriptionEvent = ev.event
        if fde.is_mariadb:
            raise mariadb_error(fde.server_version, file=self.name, offset=base + pos, event_type=_T_FDE)
        if res.server_version is None:
            res.in_use = bool(flags & LOG_EVENT_BINLOG_IN_USE_F)
        else:
            res.relay_log = True
        res.server_version = fde.server_version
        res.binlog_version = fde.binlog_version
        res.checksum_alg = fde.checksum_alg
        return fde

    def _special(
        self,
        t: int,
        mv: memoryview,
        pos: int,
        end: int,
        fde: FormatDescriptionEvent | None,
        flags: int,
        base: int = 0,
    ) -> tuple[int, Any]:
        """Previous_gtids, Rotate, Stop, Transaction_payload: decoded fully (they are rare)."""
        ev = decode_event(
            bytes(mv[pos:end]), fde, verify_checksum=False, offset=base + pos, file=self.name
        ).event
        if isinstance(ev, PreviousGtidsEvent):
            if self.result.previous_gtids is None:
                self.result.previous_gtids = ev.gtids
            return K_IGNORE, None
        if isinstance(ev, RotateEvent):
            return K_IGNORE, ev.next_file
        if isinstance(ev, TransactionPayloadEvent):
            return K_STATEMENT, ev
        if isinstance(ev, UnknownEvent):  # the FDE does not describe this type: classify like any unknown
            return kind_of(t, flags), None
        return K_IGNORE, None

    def _payload_kinds(
        self,
        payload: TransactionPayloadEvent,
        pos: int,
        fde: FormatDescriptionEvent | None,
        ts: int,
        server_id: int,
    ) -> Iterator[tuple[int, bytes | None, tuple | None, int, int]]:
        """(kind, database, gtid fields, timestamp, server_id) of each event inside a Transaction_payload."""
        assert fde is not None
        for inner in iter_payload_events(payload, fde, file=self.name, offset=pos):
            h, ev = inner.header, inner.event
            db = None
            g = None
            if isinstance(ev, QueryEvent):
                qk = query_kind(ev.query)
                kind = kind_of(h.type_code, h.flags, qk)
                if qk == "STATEMENT" and ev.database:
                    db = ev.database.encode("utf-8", "surrogateescape")
            else:
                kind = kind_of(h.type_code, h.flags)
                if isinstance(ev, TableMapEvent) and ev.database:
                    db = ev.database.encode("utf-8", "surrogateescape")
                elif isinstance(ev, GtidEvent):
                    g = gtid_fields(ev)
            yield kind, db, g, ts, server_id

    def event_type_counts(self) -> dict[str, int]:
        """Non-zero per-type counts keyed by MySQL's enum name, in type-code order."""
        types = self.types
        return {event_type_name(t): types.count(t) for t in sorted(set(types))}


class StreamScanner(FileScanner):
    """The :class:`FileScanner` scan of a binlog read from a sequential binary stream (any object with
    ``read(n) -> bytes``: ``io.RawIOBase``, ``io.BufferedReader``, ``pyarrow.fs`` input streams): the same code
    walks a window of the stream (at least :data:`_LOW_WATER` bytes ahead, refilled :data:`READ_CHUNK` bytes at a
    time; an event longer than the window is read whole), so transactions, counts, ``result`` and errors (message
    and offset) are the path scan's; memory stays bounded by the window plus the largest event.

    Usage as :class:`FileScanner`: iterate :meth:`batches` (or :meth:`run`), catch
    :class:`~gtidkit.errors.BinlogDecodeError`, then read ``result`` / ``counts``. The stream is read from its
    current position (the file's first byte) and never closed here.

    Args:
        stream: the binary stream.
        name: the file name copied into ``result``, transactions and errors (a path or URI).
        verify_checksum: check CRC32 footers when the FDE says CRC32.
        size: the file size in bytes when known (``result.size``); ``None``: the bytes read, counted to the end
            of the stream even after a fault.

    Attributes:
        head: the first bytes of the stream (up to :data:`READ_CHUNK`), e.g. for the FDE's header fields.
    """

    def __init__(self, stream: Any, name: str, verify_checksum: bool, size: int | None = None) -> None:
        super().__init__(name, verify_checksum)
        self.stream = stream
        self.known_size = size
        self.head = b""

    def batches(self) -> Iterator[list[Transaction]]:
        """Yield lists of transactions as :meth:`FileScanner.batches` does.

        Raises:
            BinlogDecodeError: at the first fault, after yielding every transaction completed before it (an empty
                stream: ``not a binlog file (empty)``).
            OSError: the stream cannot be read.
        """
        res, read = self.result, self.stream.read
        buf, eof = _fill(read, b"", READ_CHUNK)
        self.head = buf[:READ_CHUNK]
        total = [len(buf)]

        def counted(n: int) -> Any:
            data = read(n)
            if data:
                total[0] += len(data)
            return data

        res.size = self.known_size if self.known_size is not None else len(buf)
        try:
            if not buf:
                raise BinlogDecodeError("not a binlog file (empty)", file=self.name, offset=0)
            yield from self._walk(buf, memoryview(buf), len(buf), None if eof else counted)
        except BinlogDecodeError:
            if self.known_size is None:
                while counted(READ_CHUNK):  # the size of the file is the rest of the stream too
                    pass
                res.size = total[0]
            raise
        if self.known_size is None:
            res.size = total[0]


def scan_stream(stream: Any, name: str, *, verify_checksum: bool = True, size: int | None = None) -> FileScan:
    """:func:`scan_file` for a binlog read from a sequential binary stream (see :class:`StreamScanner`).

    Args:
        stream: an object with ``read(n) -> bytes`` positioned at the file's first byte (not closed here).
        name: the file name recorded in the result (a path or URI).
        verify_checksum: check CRC32 footers when the FDE says CRC32.
        size: the file size when known, else counted from the stream.

    Returns:
        The same :class:`FileScan` as :func:`scan_file` on the same bytes.

    Raises:
        OSError: the stream cannot be read.
    """
    return _collect(StreamScanner(stream, name, verify_checksum, size))


def iter_transactions(path: str | os.PathLike[str], *, verify_checksum: bool = True) -> Iterator[Transaction]:
    """Transactions of a binlog file, in file order (the fast path).

    Args:
        path: the file.
        verify_checksum: check CRC32 footers when the FDE says CRC32.

    Yields:
        :class:`~gtidkit.binlog.transactions.Transaction`; one still open at the end of the file is yielded
        with ``complete=False``.

    Raises:
        BinlogDecodeError: at the first fault, after yielding every transaction completed before it.
        OSError: the file cannot be opened.
    """
    for batch in FileScanner(path, verify_checksum).batches():
        yield from batch


def scan_file(path: str | os.PathLike[str], *, verify_checksum: bool = True) -> FileScan:
    """Scan one file into a :class:`FileScan`; bad content never raises (it is recorded with its offset).

    Args:
        path: the file.
        verify_checksum: check CRC32 footers when the FDE says CRC32.

    Returns:
        The scan: file metadata, Previous_gtids, every transaction read (all good ones before a fault are kept),
        event counts, and ``error``/``error_offset``/``good_bytes`` when the file could not be read to the end.

    Raises:
        OSError: the file cannot be opened or mapped.
    """
    return _collect(FileScanner(path, verify_checksum))


def _collect(scanner: FileScanner) -> FileScan:
    """Run ``scanner`` to its end (or first fault) into its :class:`FileScan`."""
    res = scanner.result
    try:
        for batch in scanner.batches():
            res.transactions.extend(batch)
    except BinlogDecodeError as err:
        res.error = str(err.message)
        res.error_offset = err.offset if err.offset is not None else res.good_bytes
    res.event_count = len(scanner.types)
    res.event_type_counts = scanner.event_type_counts()
    return res
