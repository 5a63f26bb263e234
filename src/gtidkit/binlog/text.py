"""The one event formatter: the text MySQL shows for an event (pure: events or raw bytes in, ``str`` out).

Two outputs, one place:

* :func:`event_info`: the ``Info`` column of ``SHOW BINLOG EVENTS`` (MySQL's ``Log_event::pack_info`` overrides
  in ``sql/log_event.cc``), used by the engine's SHOW BINLOG EVENTS.
* :func:`event_lines`: the mysqlbinlog-style lines of ``gtidkit binlog show`` (``Log_event::print_header`` and the
  ``print`` overrides of ``client/mysqlbinlog.cc``' events: ``# at <pos>``, ``#yymmdd hh:mm:ss server id N
  end_log_pos M CRC32 0x…``, ``SET @@SESSION.GTID_NEXT= '…'/*!*/;`` …). Times print in UTC (mysqlbinlog uses the
  local time zone). Row images are not printed (mysqlbinlog's ``BINLOG '…'`` base64 block is left out).

:class:`ListingFormatter` produces exactly :func:`event_lines`' text straight from an event's raw bytes for the
common types (Gtid/Anonymous_gtid, Query, Table_map, rows events, Xid), reading only the fields the listing shows
(the row images are never decoded); other types, and any body it does not recognise, go through the codecs and
:func:`event_lines`. ``tests/binlog/test_text.py`` checks both paths give the same text on every fixture.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from uuid import UUID

from gtidkit.binlog.codec import BinlogEvent, decode_event
from gtidkit.binlog.constants import (
    CHECKSUM_LEN,
    EVENT_HEADER_LEN,
    EVENT_TYPE_NAMES,
    LOG_EVENT_BINLOG_IN_USE_F,
    ChecksumAlg,
    EventType,
    IntvarType,
)
from gtidkit.binlog.events.control import (
    FormatDescriptionEvent,
    GtidEvent,
    PreviousGtidsEvent,
    RotateEvent,
    StopEvent,
    TransactionPayloadEvent,
    XidEvent,
    gtid_body_fields,
    gtid_server_versions,
)
from gtidkit.binlog.events.rows import RowsEvent, RowsQueryEvent, TableMapEvent
from gtidkit.binlog.events.statement import IntvarEvent, QueryEvent, RandEvent, UserVarEvent
from gtidkit.binlog.header import HEADER_STRUCT, EventHeader
from gtidkit.binlog.stream import iter_payload_events
from gtidkit.errors import BinlogDecodeError

__all__ = [
    "ListingFormatter",
    "event_info",
    "event_lines",
    "header_line",
    "micro_time",
    "short_time",
    "user_var_text",
]

_ENC = ("utf-8", "surrogateescape")
_T = EventType


# ---------------------------------------------------------------------------------------------------------------
# SHOW BINLOG EVENTS: Info
# ---------------------------------------------------------------------------------------------------------------

#: ``Intvar_log_event::get_var_type_name``.
_INTVAR_NAMES = {
    int(IntvarType.LAST_INSERT_ID_EVENT): "LAST_INSERT_ID",
    int(IntvarType.INSERT_ID_EVENT): "INSERT_ID",
}
#: Query texts that ``Query_log_event::pack_info`` prints without the ``use `db`;`` prefix (MySQL writes the
#: transaction-control statements with no default database).
_BARE_QUERIES = frozenset({"BEGIN", "COMMIT", "ROLLBACK"})


def event_info(ev: Any) -> str:
    """The ``Info`` column of SHOW BINLOG EVENTS for one decoded event (MySQL's ``*_log_event::pack_info``).

    Args:
        ev: a decoded event body (:mod:`gtidkit.binlog.events` classes, or ``UnknownEvent``).

    Returns:
        The text; ``""`` for events whose class has no ``pack_info`` in MySQL (Stop, unknown types).

    MySQL texts: Format_desc ``Server ver: X, Binlog ver: 4``; Previous_gtids the set; Gtid
    ``SET @@SESSION.GTID_NEXT= 'uuid:n'`` (``'ANONYMOUS'``); Query ``use `db`; text``; Xid
    ``COMMIT /* xid=N */``; Intvar ``INSERT_ID=N``; Rand ``rand_seed1=A,rand_seed2=B``; Rotate ``file;pos=N``;
    Table_map ``table_id: N (db.t)``; rows ``table_id: N flags: STMT_END_F``; Rows_query ``# text``;
    Transaction_payload ``compression='ZSTD', decompressed_size=N bytes``.
    """
    if isinstance(ev, FormatDescriptionEvent):
        return f"Server ver: {ev.server_version}, Binlog ver: {ev.binlog_version}"
    if isinstance(ev, PreviousGtidsEvent):
        return ev.gtids.to_text()
    if isinstance(ev, GtidEvent):
        return f"SET @@SESSION.GTID_NEXT= '{ev.gtid if ev.gtid is not None else 'ANONYMOUS'}'"
    if isinstance(ev, QueryEvent):
        q = ev.query
        if ev.database and q.upper() not in _BARE_QUERIES:
            return f"use `{ev.database}`; {q}"
        return q
    if isinstance(ev, XidEvent):
        return f"COMMIT /* xid={ev.xid} */"
    if isinstance(ev, IntvarEvent):
        return f"{_INTVAR_NAMES.get(ev.type, 'INVALID_INT')}={ev.value}"
    if isinstance(ev, RandEvent):
        return f"rand_seed1={ev.seed1},rand_seed2={ev.seed2}"
    if isinstance(ev, UserVarEvent):
        return f"@{_quoted(ev.name)}={user_var_text(ev, quote_collation=False)}"
    if isinstance(ev, RotateEvent):
        return f"{ev.next_file};pos={ev.position}"
    if isinstance(ev, TableMapEvent):
        return f"table_id: {ev.table_id} ({ev.database}.{ev.table})"
    if isinstance(ev, RowsEvent):
        return f"table_id: {ev.table_id}" + (" flags: STMT_END_F" if ev.flags & 1 else "")
    if isinstance(ev, RowsQueryEvent):
        return f"# {ev.query}"
    if isinstance(ev, TransactionPayloadEvent):  # Transaction_payload_log_event::pack_info
        kind = "ZSTD" if ev.compression_type == 0 else "NONE"
        return f"compression='{kind}', decompressed_size={ev.uncompressed_size or len(ev.payload)} bytes"
    return ""


# ---------------------------------------------------------------------------------------------------------------
# mysqlbinlog-style lines
# ---------------------------------------------------------------------------------------------------------------

_SHORT_TIMES: dict[int, str] = {}


def short_time(ts: int) -> str:
    """``yymmdd hh:mm:ss`` in UTC, the hour space-padded (mysqlbinlog's ``print_header`` layout).

    Args:
        ts: seconds since the epoch.
    """
    s = _SHORT_TIMES.get(ts)
    if s is None:
        t = time.gmtime(ts)
        s = f"{t.tm_year % 100:02d}{t.tm_mon:02d}{t.tm_mday:02d} {t.tm_hour:2d}:{t.tm_min:02d}:{t.tm_sec:02d}"
        if len(_SHORT_TIMES) > 4096:
            _SHORT_TIMES.clear()
        _SHORT_TIMES[ts] = s
    return s


_SECONDS: dict[int, str] = {}


def micro_time(us: int) -> str:
    """``YYYY-MM-DD hh:mm:ss.uuuuuu UTC`` for a commit timestamp in microseconds since the epoch."""
    sec, frac = divmod(us, 1_000_000)
    s = _SECONDS.get(sec)
    if s is None:
        if len(_SECONDS) > 4096:
            _SECONDS.clear()
        s = _SECONDS[sec] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(sec))
    return f"{s}.{frac:06d} UTC"


def header_line(header: EventHeader, checksum: int | None) -> str:
    """``#yymmdd hh:mm:ss server id N  end_log_pos M CRC32 0x… `` (mysqlbinlog ``print_header``).

    Args:
        header: the event's common header.
        checksum: its CRC32 footer, ``None`` when it has none (no ``CRC32`` part is printed).
    """
    line = f"#{short_time(header.timestamp)} server id {header.server_id}  end_log_pos {header.log_pos} "
    if checksum is not None:
        line += f"CRC32 0x{checksum:08x} "
    return line


def event_lines(
    pos: int, header: EventHeader, ev: Any, checksum: int | None = None, in_payload: bool = False
) -> list[str]:
    """mysqlbinlog-like lines for one decoded event.

    Args:
        pos: the event's offset (for events inside a Transaction_payload: the payload event's).
        header: its common header.
        ev: its decoded body.
        checksum: its CRC32 footer value, ``None`` when it has none.
        in_payload: the event was read from inside a Transaction_payload (noted on the ``# at`` line).

    Returns:
        The lines, without newlines.
    """
    h = header
    head = header_line(h, checksum)
    lines = [f"# at {pos}" + ("  (inside Transaction_payload)" if in_payload else "")]
    if isinstance(ev, FormatDescriptionEvent):
        created = ev.create_timestamp or h.timestamp
        tail = " at startup" if ev.create_timestamp else ""
        lines.append(
            f"{head}\tStart: binlog v {ev.binlog_version}, server v {ev.server_version} created "
            f"{short_time(created)}{tail}"
        )
        if h.flags & LOG_EVENT_BINLOG_IN_USE_F:
            lines.append("# Warning: this binlog is either in use or was not closed properly.")
    elif isinstance(ev, PreviousGtidsEvent):
        lines.append(f"{head}\tPrevious-GTIDs")
        lines.append(ev.gtids.to_text(commented=True))
    elif isinstance(ev, GtidEvent):
        lines.extend(
            _gtid_lines(
                head,
                "ANONYMOUS" if ev.gtid is None else str(ev.gtid),
                ev.flags,
                ev.last_committed,
                ev.sequence_number,
                ev.immediate_commit_timestamp,
                ev.original_commit_timestamp,
                ev.transaction_length,
                ev.immediate_server_version,
                ev.original_server_version,
            )
        )
    elif isinstance(ev, QueryEvent):
        lines.append(
            f"{head}\tQuery\tthread_id={ev.thread_id}\texec_time={ev.exec_time}\terror_code={ev.error_code}"
        )
        if ev.database:
            lines.append(f"use `{ev.database}`/*!*/;")
        lines.append(f"SET TIMESTAMP={h.timestamp}/*!*/;")
        lines.append(ev.query)
        lines.append("/*!*/;")
    elif isinstance(ev, XidEvent):
        lines.append(f"{head}\tXid = {ev.xid}")
        lines.append("COMMIT/*!*/;")
    elif isinstance(ev, RotateEvent):
        lines.append(f"{head}\tRotate to {ev.next_file}  pos: {ev.position}")
    elif isinstance(ev, StopEvent):
        lines.append(f"{head}\tStop")
    elif isinstance(ev, TableMapEvent):
        lines.append(f"{head}\tTable_map: `{ev.database}`.`{ev.table}` mapped to number {ev.table_id}")
    elif isinstance(ev, RowsEvent):
        name = EVENT_TYPE_NAMES.get(h.type_code, str(h.type_code))
        end = " flags: STMT_END_F" if ev.flags & 1 else ""
        lines.append(f"{head}\t{name}: table id {ev.table_id}{end}")
    elif isinstance(ev, TransactionPayloadEvent):
        lines.append(
            f"{head}\tTransaction_Payload\tpayload_size={len(ev.payload)}"
            f"\tcompression_type={'ZSTD' if ev.compression_type == 0 else 'NONE'}"
            f"\tuncompressed_size={ev.uncompressed_size}"
        )
    elif isinstance(ev, IntvarEvent):
        lines.append(f"{head}\tIntvar")
        lines.append(f"SET {_INTVAR_NAMES.get(ev.type, 'INVALID_INT')}={ev.value}/*!*/;")
    elif isinstance(ev, RandEvent):
        lines.append(f"{head}\tRand")
        lines.append(f"SET @@RAND_SEED1={ev.seed1}, @@RAND_SEED2={ev.seed2}/*!*/;")
    elif isinstance(ev, UserVarEvent):
        lines.append(f"{head}\tUser_var")
        lines.append(f"SET @{_quoted(ev.name)}:={user_var_text(ev, quote_collation=True)}/*!*/;")
    elif isinstance(ev, RowsQueryEvent):
        lines.append(f"{head}\tRows_query")
        lines.extend(f"# {line}" for line in ev.query.split("\n"))
    else:
        known = EVENT_TYPE_NAMES.get(h.type_code)
        lines.append(f"{head}\t" + (known if known else f"Unknown event type {h.type_code}"))
    return lines


def _gtid_lines(
    head: str,
    gtid: str,
    flags: int,
    last_committed: int | None,
    sequence_number: int | None,
    imm_ts: int | None,
    orig_ts: int | None,
    trx_len: int | None,
    imm_ver: int | None,
    orig_ver: int | None,
) -> list[str]:
    """The lines of a Gtid / Anonymous_gtid event (``Gtid_log_event::print``), from its fields."""
    word = "GTID" if gtid != "ANONYMOUS" else "Anonymous_GTID"
    may_have_sbr = flags & 1
    lines = []
    if last_committed is None:
        lines.append(f"{head}\t{word} [commit={'yes' if may_have_sbr else 'no'}]")
    else:
        text = (
            f"{head}\t{word}\tlast_committed={last_committed}\tsequence_number={sequence_number}"
            f"\trbr_only={'no' if may_have_sbr else 'yes'}"
        )
        if imm_ts is not None:
            text += f"\toriginal_committed_timestamp={orig_ts}\timmediate_commit_timestamp={imm_ts}"
            if trx_len is not None:
                text += f"\ttransaction_length={trx_len}"
        lines.append(text)
        if not may_have_sbr:
            lines.append("/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*//*!*/;")
    if imm_ts is not None:
        orig = orig_ts or 0
        lines.append(f"# original_commit_timestamp={orig} ({micro_time(orig)})")
        lines.append(f"# immediate_commit_timestamp={imm_ts} ({micro_time(imm_ts)})")
        lines.append(f"/*!80001 SET @@session.original_commit_timestamp={orig}*//*!*/;")
    if imm_ver is not None:
        lines.append(f"/*!80014 SET @@session.original_server_version={orig_ver}*//*!*/;")
        lines.append(f"/*!80014 SET @@session.immediate_server_version={imm_ver}*//*!*/;")
    lines.append(f"SET @@SESSION.GTID_NEXT= '{gtid}'/*!*/;")
    return lines


# ---------------------------------------------------------------------------------------------------------------
# The listing straight from raw bytes
# ---------------------------------------------------------------------------------------------------------------

#: One event as the file edge frames it: (offset in the file, buffer, index of its first byte in the buffer, size).
Frame = tuple[int, Any, int, int]

_QUERY_POST = struct.Struct("<IIBHH")  # thread_id, exec_time, db_len, error_code, status_vars_len
_TYPE_FLAGS = struct.Struct("<6xH")  # rows post-header with a 6-byte table id: skip it, then flags
#: The common header then a rows post-header's 6-byte table id (u32 + u16) and flags.
_HEAD_ROWS = struct.Struct("<IBIIIHIHH")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
#: Gtid 5.7.5+ untagged post-header length (the body itself is read by ``gtid_body_fields``).
_GTID_42 = struct.Struct("<B16sqBqq")
_ZERO_SID = bytes(16)
_MAX_GNO = (1 << 63) - 2
_ROWS_TYPES = frozenset(
    {
        _T.WRITE_ROWS_EVENT,
        _T.UPDATE_ROWS_EVENT,
        _T.DELETE_ROWS_EVENT,
        _T.WRITE_ROWS_EVENT_V1,
        _T.UPDATE_ROWS_EVENT_V1,
        _T.DELETE_ROWS_EVENT_V1,
        _T.PARTIAL_UPDATE_ROWS_EVENT,
    }
)
_SID_TEXT: dict[bytes, str] = {}


def _sid_text(raw: bytes) -> str:
    s = _SID_TEXT.get(raw)
    if s is None:
        if len(_SID_TEXT) > 65536:
            _SID_TEXT.clear()
        s = _SID_TEXT[raw] = str(UUID(bytes=raw))
    return s


class ListingFormatter:
    """The text of ``gtidkit binlog show`` for a stream of framed events, formatted from their raw bytes.

    Feed it frames in file order with :meth:`text` (the caller frames, checks CRCs and tracks the FDE, e.g.
    :class:`gtidkit.binlog.file.FrameReader`); each call returns exactly what ``"\\n".join(event_lines(...))``
    gives for the decoded event (plus its payload's events for a Transaction_payload).

    Args:
        file: the file name, for error messages.
        expand_payloads: also list the events inside Transaction_payload events.

    Raises (from :meth:`text`):
        BinlogDecodeError: an event the codecs reject (with file, offset and type).
    """

    __slots__ = ("_fast", "_fde", "_footer", "_heads", "expand_payloads", "file")

    def __init__(self, file: str | None = None, *, expand_payloads: bool = True) -> None:
        self.file = file
        self.expand_payloads = expand_payloads
        self._fde: FormatDescriptionEvent | None = None
        self._footer = 0
        self._heads: dict[tuple[int, int], str] = {}
        self._fast: dict[int, Callable[[Any, int, int, int, int, int, str], str | None]] = {}

    def set_fde(self, fde: FormatDescriptionEvent) -> None:
        """The FDE now in force (the framer calls this after each FDE): picks the layouts the fast path knows."""
        self._fde = fde
        self._footer = CHECKSUM_LEN if fde.checksum_alg == ChecksumAlg.CRC32 else 0
        fast: dict[int, Callable[[Any, int, int, int, int, int, str], str | None]] = {}
        if fde.post_header_len(_T.QUERY_EVENT) == _QUERY_POST.size:
            fast[_T.QUERY_EVENT] = self._query
        if fde.post_header_len(_T.XID_EVENT) == 0:
            fast[_T.XID_EVENT] = self._xid
        if fde.post_header_len(_T.TABLE_MAP_EVENT) == 8:
            fast[_T.TABLE_MAP_EVENT] = self._table_map
        for t in _ROWS_TYPES:
            if fde.post_header_len(t) in (8, 10):  # a 6-byte table id, flags (and the v2 extra-data length)
                fast[t] = self._rows
        for t in (_T.GTID_LOG_EVENT, _T.ANONYMOUS_GTID_LOG_EVENT):
            if fde.post_header_len(t) == _GTID_42.size:
                fast[t] = self._gtid
        self._fast = fast

    def text(self, buf: Any, at: int, size: int, pos: int) -> str:
        """The listing text of the event ``buf[at:at+size]`` found at file offset ``pos`` (no final newline).

        Raises:
            BinlogDecodeError: the event does not decode (see the class docstring).
        """
        ts, t, server_id, _, log_pos, _ = HEADER_STRUCT.unpack_from(buf, at)
        fn = self._fast.get(t)
        if fn is not None:
            key = (ts, server_id)
            head = self._heads.get(key)
            if head is None:
                if len(self._heads) > 4096:
                    self._heads.clear()
                head = self._heads[key] = f"#{short_time(ts)} server id {server_id}  end_log_pos "
            footer = self._footer
            if footer:
                crc = _U32.unpack_from(buf, at + size - CHECKSUM_LEN)[0]
                head = f"# at {pos}\n{head}{log_pos} CRC32 0x{crc:08x} \t"
            else:
                head = f"# at {pos}\n{head}{log_pos} \t"
            out = fn(buf, at + EVENT_HEADER_LEN, at + size - footer, ts, t, log_pos, head)
            if out is not None:
                return out
        return self.slow_text(bytes(buf[at : at + size]), pos)

    def slow_text(self, data: bytes, pos: int) -> str:
        """The listing text of one whole event through the codecs and :func:`event_lines`.

        Raises:
            BinlogDecodeError: the event does not decode.
        """
        be = decode_event(data, self._fde, verify_checksum=False, offset=pos, file=self.file)
        ev = be.event
        if isinstance(ev, FormatDescriptionEvent):
            self.set_fde(ev)
        crc = None
        if self._has_footer(be):
            crc = _U32.unpack_from(data, len(data) - CHECKSUM_LEN)[0]
        text = "\n".join(event_lines(pos, be.header, ev, crc))
        if self.expand_payloads and isinstance(ev, TransactionPayloadEvent) and self._fde is not None:
            parts = [text]
            for inner in iter_payload_events(ev, self._fde, file=self.file, offset=pos):
                parts.append("\n".join(event_lines(pos, inner.header, inner.event, None, True)))
            text = "\n".join(parts)
        return text

    def _has_footer(self, be: BinlogEvent) -> bool:
        if be.header.type_code == _T.FORMAT_DESCRIPTION_EVENT:
            return bool(be.event.has_checksum_alg_byte)
        return self._footer > 0

    # -- per type: (buf, body start, body end, timestamp, type, log_pos, head) -> text | None ------------------
    @staticmethod
    def _query(buf: Any, b: int, e: int, ts: int, t: int, log_pos: int, head: str) -> str | None:
        if e - b < _QUERY_POST.size + 1:
            return None
        thread_id, exec_time, db_len, error_code, status_len = _QUERY_POST.unpack_from(buf, b)
        db_at = b + _QUERY_POST.size + status_len
        q = db_at + db_len + 1
        if q > e or buf[q - 1] != 0:
            return None
        query = bytes(buf[q:e]).decode(*_ENC)
        if db_len:
            db = bytes(buf[db_at : db_at + db_len]).decode(*_ENC)
            return (
                f"{head}Query\tthread_id={thread_id}\texec_time={exec_time}\terror_code={error_code}\n"
                f"use `{db}`/*!*/;\nSET TIMESTAMP={ts}/*!*/;\n{query}\n/*!*/;"
            )
        return (
            f"{head}Query\tthread_id={thread_id}\texec_time={exec_time}\terror_code={error_code}\n"
            f"SET TIMESTAMP={ts}/*!*/;\n{query}\n/*!*/;"
        )

    @staticmethod
    def _xid(buf: Any, b: int, e: int, ts: int, t: int, log_pos: int, head: str) -> str | None:
        if e - b != 8:
            return None
        return f"{head}Xid = {_U64.unpack_from(buf, b)[0]}\nCOMMIT/*!*/;"

    @staticmethod
    def _table_map(buf: Any, b: int, e: int, ts: int, t: int, log_pos: int, head: str) -> str | None:
        p = b + 8
        if p >= e:
            return None
        n = buf[p]
        d = p + 1 + n  # the database's NUL
        if d + 1 >= e or buf[d] != 0:
            return None
        m = buf[d + 1]
        tn = d + 2 + m  # the table's NUL
        if tn >= e or buf[tn] != 0:
            return None
        table_id = int.from_bytes(buf[b : b + 6], "little")
        db = bytes(buf[p + 1 : d]).decode(*_ENC)
        table = bytes(buf[d + 2 : tn]).decode(*_ENC)
        return f"{head}Table_map: `{db}`.`{table}` mapped to number {table_id}"

    @staticmethod
    def _rows(buf: Any, b: int, e: int, ts: int, t: int, log_pos: int, head: str) -> str | None:
        if e - b < 8:
            return None
        table_id = int.from_bytes(buf[b : b + 6], "little")
        flags = _TYPE_FLAGS.unpack_from(buf, b)[0]
        if flags & 1:
            return f"{head}{EVENT_TYPE_NAMES[t]}: table id {table_id} flags: STMT_END_F"
        return f"{head}{EVENT_TYPE_NAMES[t]}: table id {table_id}"

    @staticmethod
    def _gtid(buf: Any, b: int, e: int, ts: int, t: int, log_pos: int, head: str) -> str | None:
        f = gtid_body_fields(buf, b, e)
        if f is None:
            return None
        flags, raw_sid, gno, lc, seq, imm, orig, tlen, p = f
        raw_sid = bytes(raw_sid)
        if gno == 0 and raw_sid == _ZERO_SID:
            gtid = "ANONYMOUS"
        elif t == _T.GTID_LOG_EVENT and 1 <= gno <= _MAX_GNO:
            gtid = f"{_sid_text(raw_sid)}:{gno}"
        else:
            return None
        versions = gtid_server_versions(buf, p, e, tlen)
        if versions is None:
            return None
        imm_ver, orig_ver, p = versions
        if p != e:  # a commit_group_ticket or anything newer: let the codec decide
            return None
        return "\n".join(_gtid_lines(head[:-1], gtid, flags, lc, seq, imm, orig, tlen, imm_ver, orig_ver))


def listing(frames: Iterable[Frame], formatter: ListingFormatter, batch: int = 1024) -> Iterator[str]:
    """The listing text of the framed events, in order, joined ``batch`` events at a time (newline-separated, no
    final newline): what ``"\n".join`` of :meth:`ListingFormatter.text` over each frame gives.

    The hot loop: the common header line is built once per (timestamp, server id), and rows events (most of a
    row-based binlog) are formatted inline; other types go through :meth:`ListingFormatter.text`.

    Raises:
        BinlogDecodeError: an event the codecs reject (the texts of the events before it are yielded first).
    """
    heads = formatter._heads
    header = _HEAD_ROWS.unpack_from
    u32 = _U32.unpack_from
    names = EVENT_TYPE_NAMES
    rows_types = bytes(1 if t in _ROWS_TYPES else 0 for t in range(256))
    fast = formatter._fast
    footer = formatter._footer
    out: list[str] = []
    append = out.append
    try:
        for pos, buf, at, size in frames:
            fn = fast.get(buf[at + 4])
            if fn is not None and size - footer >= EVENT_HEADER_LEN + 8:
                ts, t, server_id, _, log_pos, _, lo, hi, flags = header(buf, at)
                head = heads.get((ts, server_id))
                if head is None:
                    if len(heads) > 4096:
                        heads.clear()
                    head = heads[(ts, server_id)] = f"#{short_time(ts)} server id {server_id}  end_log_pos "
                crc = f"CRC32 0x{u32(buf, at + size - CHECKSUM_LEN)[0]:08x} " if footer else ""
                if rows_types[t]:  # inline: most events of a row-based binlog
                    end = " flags: STMT_END_F" if flags & 1 else ""
                    append(f"# at {pos}\n{head}{log_pos} {crc}\t{names[t]}: table id {lo | hi << 32}{end}")
                else:
                    line = f"# at {pos}\n{head}{log_pos} {crc}\t"
                    text = fn(buf, at + EVENT_HEADER_LEN, at + size - footer, ts, t, log_pos, line)
                    if text is None:
                        text = formatter.text(buf, at, size, pos)
                    append(text)
            else:
                append(formatter.text(buf, at, size, pos))
                fast = formatter._fast  # an FDE may have changed the layouts
                footer = formatter._footer
            if len(out) >= batch:
                yield "\n".join(out)
                out.clear()
    except BinlogDecodeError:
        if out:
            yield "\n".join(out)
        raise
    if out:
        yield "\n".join(out)


# ---------------------------------------------------------------------------------------------------------------
# User_var values (``User_var_log_event::pack_info`` for SHOW BINLOG EVENTS, ``::print`` for mysqlbinlog)
#: collation id -> (character set, collation) for the ids servers put in User_var events (``SHOW COLLATION``)
USER_VAR_COLLATIONS = {
    8: ("latin1", "latin1_swedish_ci"),
    11: ("ascii", "ascii_general_ci"),
    33: ("utf8mb3", "utf8mb3_general_ci"),
    45: ("utf8mb4", "utf8mb4_general_ci"),
    46: ("utf8mb4", "utf8mb4_bin"),
    63: ("binary", "binary"),
    83: ("utf8mb3", "utf8mb3_bin"),
    224: ("utf8mb4", "utf8mb4_unicode_ci"),
    255: ("utf8mb4", "utf8mb4_0900_ai_ci"),
}
_STRING_RESULT, _REAL_RESULT, _INT_RESULT, _DECIMAL_RESULT = 0, 1, 2, 4


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def user_var_text(ev: UserVarEvent, *, quote_collation: bool) -> str:
    """The value of a User_var event as MySQL shows it: ``NULL``, a number, a decimal, or
    ``_<charset> 0x<hex> COLLATE <collation>`` (``""`` for an empty string; the collation back-quoted in
    mysqlbinlog's ``SET`` line, bare in SHOW BINLOG EVENTS; ``???`` for a collation id we do not know, as MySQL
    for one it lacks). Source: ``sql/log_event.cc`` ``User_var_log_event::pack_info`` / ``print``, ``str_to_hex``.
    """
    if ev.is_null:
        return "NULL"
    raw = bytes(ev.value)
    if ev.value_type == _REAL_RESULT and len(raw) >= 8:
        text = repr(struct.unpack("<d", raw[:8])[0])
        return text.replace("e+", "e")
    if ev.value_type == _INT_RESULT and len(raw) >= 8:
        return str(int.from_bytes(raw[:8], "little", signed=not (ev.flags or 0) & 1))
    if ev.value_type == _DECIMAL_RESULT and len(raw) >= 2:
        from gtidkit.binlog.cursor import Cursor
        from gtidkit.binlog.row_image import decode_decimal

        return str(decode_decimal(Cursor(raw[2:]), raw[0], raw[1]))
    names = USER_VAR_COLLATIONS.get(ev.charset)
    if names is None:
        return "???"
    charset, collation = names
    hex_text = "0x" + raw.hex().upper() if raw else '""'
    return f"_{charset} {hex_text} COLLATE " + (f"`{collation}`" if quote_collation else collation)
