"""The file edge of :mod:`gtidkit.binlog`: read binlog and relay-log files from disk.

* :func:`read_events` — every event with its offsets, fully decoded (through the sans-I/O
  :class:`~gtidkit.binlog.stream.BinlogStream`), Transaction_payload contents surfaced.
* :func:`iter_transactions` / :func:`scan_file` — the fast path: the file is memory-mapped, headers are read with
  ``struct.unpack_from``, CRC32s are checked with ``zlib.crc32`` over a ``memoryview`` (a correct footer makes the
  CRC of the whole event the constant :data:`~gtidkit.binlog.constants.CRC32_RESIDUE`), and only the bodies that
  matter for transactions are decoded (Gtid, Query text head, Table_map database, Previous_gtids, FDE, Rotate,
  Transaction_payload).

MySQL sources: ``Binlog_file_reader`` (``sql/binlog_reader.h``) for the framing rules, ``mysqlbinlog`` for what a
reader reports, ``Transaction_boundary_parser`` for transactions (see :mod:`gtidkit.binlog.transactions`).
MariaDB binlogs are rejected (server version naming MariaDB, or MariaDB event types 160+).
"""

from __future__ import annotations

import mmap
import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gtidkit.binlog.codec import BinlogEvent, decode_event
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
    FormatDescriptionEvent,
    GtidEvent,
    PreviousGtidsEvent,
    RotateEvent,
    TransactionPayloadEvent,
)
from gtidkit.binlog.events.statement import query_kind
from gtidkit.binlog.header import HEADER_STRUCT, EventHeader
from gtidkit.binlog.stream import NEED_DATA, BinlogStream, iter_payload_events, mariadb_error
from gtidkit.binlog.transactions import (
    K_BEGIN,
    K_END,
    K_GTID,
    K_IGNORE,
    K_STATEMENT,
    Transaction,
    TransactionParser,
    kind_of,
)
from gtidkit.errors import BinlogDecodeError, ChecksumMismatchError
from gtidkit.gtid import GtidSet

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


def _checksum_of(ev: BinlogEvent, fde: FormatDescriptionEvent | None) -> int | None:
    raw = ev.raw
    if ev.type_code == EventType.FORMAT_DESCRIPTION_EVENT:
        has = ev.event.has_checksum_alg_byte
    else:
        has = fde is not None and fde.checksum_alg == ChecksumAlg.CRC32
    return int.from_bytes(raw[-CHECKSUM_LEN:], "little") if has else None


def read_events(
    path: str | os.PathLike[str], *, verify_checksum: bool = True, expand_payloads: bool = True
) -> Iterator[PositionedEvent]:
    """Every event of a binlog or relay-log file, fully decoded, in file order.

    Args:
        path: the file.
        verify_checksum: check CRC32 footers when the FDE says CRC32.
        expand_payloads: after each Transaction_payload event, also yield the events inside it
            (``in_payload=True``).

    Yields:
        :class:`PositionedEvent` for each event; every good event before a fault is yielded first.

    Raises:
        BinlogDecodeError: at the first fault (bad magic, truncated or corrupt event, CRC mismatch, MariaDB
            binlog), with the file, the offset of the faulty event and its type code.
        OSError: the file cannot be opened or read.
    """
    name = os.fspath(path)
    stream = BinlogStream(magic=True, verify_checksum=verify_checksum, file=name)
    with open(name, "rb") as f:
        eof = False
        while True:
            ev = stream.next_event()
            if ev is NEED_DATA:
                if eof:
                    stream.end_of_data()
                    return
                chunk = f.read(READ_CHUNK)
                if not chunk:
                    eof = True
                else:
                    stream.feed(chunk)
                continue
            assert isinstance(ev, BinlogEvent)
            fde = stream.fde
            pos, end = stream.last_pos, stream.offset
            yield PositionedEvent(name, pos, end, ev.header, ev.event, False, _checksum_of(ev, fde))
            if expand_payloads and isinstance(ev.event, TransactionPayloadEvent):
                assert fde is not None
                for inner in iter_payload_events(ev.event, fde, file=name, offset=pos):
                    yield PositionedEvent(name, pos, end, inner.header, inner.event, True, None)


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
_T_FDE = EventType.FORMAT_DESCRIPTION_EVENT
_T_QUERY = EventType.QUERY_EVENT
_T_XID = EventType.XID_EVENT
_T_TABLE_MAP = EventType.TABLE_MAP_EVENT
_T_PREV = EventType.PREVIOUS_GTIDS_LOG_EVENT
_T_ROTATE = EventType.ROTATE_EVENT
_T_STOP = EventType.STOP_EVENT
_T_PAYLOAD = EventType.TRANSACTION_PAYLOAD_EVENT
_GTID_TYPES = (EventType.GTID_LOG_EVENT, EventType.ANONYMOUS_GTID_LOG_EVENT, EventType.GTID_TAGGED_LOG_EVENT)
_RELAY_F = 0x40

# Fast boundary kind by type code: -1 = needs a look at the body/flags.
_FAST_KIND = [-1] * 256
for _t in range(256):
    if _t not in (_T_QUERY, *_GTID_TYPES):
        try:
            _FAST_KIND[_t] = kind_of(_t, 0) if kind_of(_t, 0) == kind_of(_t, LOG_EVENT_IGNORABLE_F) else -1
        except Exception:  # pragma: no cover - kind_of is total
            _FAST_KIND[_t] = -1
_DIRECT = frozenset({_T_FDE, _T_QUERY, _T_TABLE_MAP, _T_PREV, _T_ROTATE, _T_STOP, _T_PAYLOAD, *_GTID_TYPES})


def _classify_query(buf: Any, body: int, end: int) -> tuple[int, str | None]:
    """Boundary kind and default database of the Query event body at ``buf[body:end]`` (no full decode)."""
    if end - body < _QUERY_POST + 1:
        raise BinlogDecodeError("Query event body shorter than its post-header")
    _, _, db_len, _, status_len = _QUERY_HEAD.unpack_from(buf, body)
    db_at = body + _QUERY_POST + status_len
    q = db_at + db_len + 1
    if q > end or buf[q - 1] != 0:
        raise BinlogDecodeError("Query event: status variables or database run past the body")
    head = bytes(buf[q : min(q + 24, end)]).lstrip().upper()
    if head.startswith(b"BEGIN") or head.startswith(b"XA START"):
        return K_BEGIN, None
    if head.startswith(b"COMMIT") or head.startswith(b"XA COMMIT") or head.startswith(b"XA ROLLBACK"):
        return K_END, None
    if head.startswith(b"ROLLBACK") and not head[8:].lstrip().startswith(b"TO"):
        return K_END, None
    db = bytes(buf[db_at : db_at + db_len]).decode("utf-8", "surrogateescape") if db_len else None
    return K_STATEMENT, db


def _table_map_db(buf: Any, body: int, end: int, post_header: int) -> str | None:
    at = body + post_header
    if at >= end:
        raise BinlogDecodeError("Table_map event body shorter than its post-header")
    n = buf[at]
    if at + 1 + n > end:
        raise BinlogDecodeError("Table_map database name runs past the body")
    return bytes(buf[at + 1 : at + 1 + n]).decode("utf-8", "surrogateescape") or None


class _Scanner:
    """The fast path shared by :func:`iter_transactions` and :func:`scan_file` (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str], verify_checksum: bool) -> None:
        self.name = os.fspath(path)
        self.verify = verify_checksum
        self.result = FileScan(self.name, 0)
        self.counts = [0] * 256

    def run(self) -> Iterator[Transaction]:
        """Yield transactions; raise BinlogDecodeError at the first fault (after yielding the good ones)."""
        res = self.result
        with open(self.name, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            res.size = size
            if size == 0:
                raise BinlogDecodeError("not a binlog file (empty)", file=self.name, offset=0)
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                mv = memoryview(mm)
                try:
                    yield from self._walk(mm, mv, size)
                finally:
                    mv.release()

    def _walk(self, buf: mmap.mmap, mv: memoryview, size: int) -> Iterator[Transaction]:
        name, res = self.name, self.result
        if size < 4 or buf[:4] != BINLOG_MAGIC:
            raise BinlogDecodeError("not a binlog file (bad magic)", file=name, offset=0)
        parser = TransactionParser(name)
        finished = parser.finished
        feed = parser.feed
        counts = self.counts
        unpack = _HEADER.unpack_from
        crc32 = zlib.crc32
        fast_kind = _FAST_KIND
        direct = _DIRECT
        verify = self.verify
        fde: FormatDescriptionEvent | None = None
        crc_on = False
        last_type = -1
        pos = 4
        res.good_bytes = 4
        while pos < size:
            if size - pos < EVENT_HEADER_LEN:
                raise BinlogDecodeError(
                    f"truncated event header: trailing {size - pos} bytes at offset {pos}", file=name, offset=pos
                )
            ts, t, server_id, ev_size, log_pos, flags = unpack(buf, pos)
            end = pos + ev_size
            if ev_size < EVENT_HEADER_LEN or end > size:
                what = "invalid event_size" if ev_size < EVENT_HEADER_LEN else "truncated event"
                raise BinlogDecodeError(
                    f"{what} {ev_size}: trailing {size - pos} bytes at offset {pos}",
                    file=name, offset=pos, event_type=t,
                )
            if t in direct or fde is None:
                if t == _T_FDE:
                    fde = self._fde(mv, pos, end, flags)
                    crc_on = fde.checksum_alg == ChecksumAlg.CRC32
                    kind = K_IGNORE
                    extra = None
                elif fde is None:
                    raise BinlogDecodeError("event before any Format_description_event", file=name, offset=pos,
                                            event_type=t)
                else:
                    if crc_on and verify and crc32(mv[pos:end]) != CRC32_RESIDUE:
                        raise self._crc_error(mv, pos, end, t)
                    kind, extra = self._direct(t, mv, pos, end, fde, crc_on, parser)
            else:
                if t in MARIADB_EVENT_TYPES:
                    raise mariadb_error(None, file=name, offset=pos, event_type=t)
                if crc_on and verify and crc32(mv[pos:end]) != CRC32_RESIDUE:
                    raise self._crc_error(mv, pos, end, t)
                kind = fast_kind[t]
                extra = None
                if kind < 0:
                    kind = kind_of(t, flags)
            counts[t] += 1
            if flags & _RELAY_F:
                res.relay_log = True
            last_type = t
            if kind == K_GTID:
                feed(kind, pos, end, ts, server_id, extra)
            elif kind != K_IGNORE or t == _T_PAYLOAD:
                if t == _T_PAYLOAD:
                    self._feed_payload(extra, pos, end, ts, server_id, fde, parser)  # type: ignore[arg-type]
                else:
                    feed(kind, pos, end, ts, server_id, None, extra)
            if t == _T_ROTATE and extra is not None:
                res.next_file = extra
            pos = end
            res.good_bytes = end
            if finished:
                yield from finished
                finished.clear()
        res.ends_with = "ROTATE" if last_type == _T_ROTATE else "STOP" if last_type == _T_STOP else None
        if res.ends_with != "ROTATE":
            res.next_file = None
        parser.close()
        yield from finished
        finished.clear()

    def _crc_error(self, mv: memoryview, pos: int, end: int, t: int) -> ChecksumMismatchError:
        stored = int.from_bytes(mv[end - CHECKSUM_LEN : end], "little")
        computed = zlib.crc32(mv[pos : end - CHECKSUM_LEN])
        return ChecksumMismatchError(
            f"event CRC32 mismatch: stored 0x{stored:08x}, computed 0x{computed:08x}",
            file=self.name, offset=pos, event_type=t,
        )

    def _fde(self, mv: memoryview, pos: int, end: int, flags: int) -> FormatDescriptionEvent:
        res = self.result
        ev = decode_event(mv[pos:end], None, verify_checksum=self.verify, offset=pos, file=self.name)
        fde: FormatDescriptionEvent = ev.event
        if fde.is_mariadb:
            raise mariadb_error(fde.server_version, file=self.name, offset=pos, event_type=_T_FDE)
        if res.server_version is None:
            res.in_use = bool(flags & LOG_EVENT_BINLOG_IN_USE_F)
        else:
            res.relay_log = True
        res.server_version = fde.server_version
        res.binlog_version = fde.binlog_version
        res.checksum_alg = fde.checksum_alg
        return fde

    def _direct(self, t: int, mv: memoryview, pos: int, end: int, fde: FormatDescriptionEvent, crc_on: bool,
                parser: TransactionParser) -> tuple[int, Any]:
        """Kind and extra payload (GtidEvent, database, file name, payload event) of a body-inspected event."""
        name = self.name
        body_end = end - CHECKSUM_LEN if crc_on else end
        try:
            if t == _T_QUERY:
                return _classify_query(mv, pos + EVENT_HEADER_LEN, body_end)
            if t in _GTID_TYPES:
                ev = decode_event(mv[pos:end], fde, verify_checksum=False, offset=pos, file=name)
                return (K_GTID, ev.event) if isinstance(ev.event, GtidEvent) else (K_STATEMENT, None)
            if t == _T_TABLE_MAP:
                return K_STATEMENT, _table_map_db(mv, pos + EVENT_HEADER_LEN, body_end, fde.post_header_len(t))
            if t == _T_PREV:
                ev = decode_event(mv[pos:end], fde, verify_checksum=False, offset=pos, file=name)
                if isinstance(ev.event, PreviousGtidsEvent) and self.result.previous_gtids is None:
                    self.result.previous_gtids = ev.event.gtids
                return K_IGNORE, None
            if t in (_T_ROTATE, _T_STOP, _T_PAYLOAD):
                ev = decode_event(mv[pos:end], fde, verify_checksum=False, offset=pos, file=name)
                if isinstance(ev.event, RotateEvent):
                    return K_IGNORE, ev.event.next_file
                if isinstance(ev.event, TransactionPayloadEvent):
                    return K_STATEMENT, ev.event
                return K_IGNORE, None
        except BinlogDecodeError as err:
            if err.offset is None:
                raise BinlogDecodeError(err.message, file=name, offset=pos, event_type=t) from err
            raise
        raise AssertionError(f"unexpected direct type {t}")  # pragma: no cover

    def _feed_payload(self, payload: Any, pos: int, end: int, ts: int, server_id: int,
                      fde: FormatDescriptionEvent, parser: TransactionParser) -> None:
        if not isinstance(payload, TransactionPayloadEvent):  # a type-40 event this FDE does not describe
            parser.feed(kind_of(_T_PAYLOAD, 0), pos, end, ts, server_id)
            return
        for inner in iter_payload_events(payload, fde, file=self.name, offset=pos):
            h = inner.header
            ev = inner.event
            db = None
            if h.type_code == _T_QUERY:
                qk = query_kind(ev.query)
                kind = kind_of(_T_QUERY, h.flags, qk)
                db = ev.database or None if qk == "STATEMENT" else None
            else:
                kind = kind_of(h.type_code, h.flags)
                if h.type_code == _T_TABLE_MAP:
                    db = getattr(ev, "database", None) or None
            if kind == K_GTID:
                parser.feed(kind, pos, end, h.timestamp, h.server_id, ev if isinstance(ev, GtidEvent) else None)
            elif kind != K_IGNORE:
                parser.feed(kind, pos, end, ts, server_id, None, db)

    def event_type_counts(self) -> dict[str, int]:
        """Non-zero per-type counts keyed by MySQL's enum name."""
        return {event_type_name(t): n for t, n in enumerate(self.counts) if n}


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
    yield from _Scanner(path, verify_checksum).run()


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
    scanner = _Scanner(path, verify_checksum)
    res = scanner.result
    try:
        for trx in scanner.run():
            res.transactions.append(trx)
    except BinlogDecodeError as err:
        res.error = str(err.message)
        res.error_offset = err.offset if err.offset is not None else res.good_bytes
    res.event_count = sum(scanner.counts)
    res.event_type_counts = scanner.event_type_counts()
    return res
