"""mysqlbinlog's replayable output: decoded events in, the text ``mysqlbinlog FILE | mysql`` runs out (pure).

MySQL source (facts only): ``client/mysqlbinlog.cc`` (``process_event``, ``shall_skip_gtids``,
``shall_skip_database``, ``end_binlog``, ``dump_multiple_logs``, the preamble and epilogue written by ``main``)
and the ``print`` overrides of ``sql/log_event.cc`` (``Query_log_event::print_query_header``,
``Format_description_log_event::print``, ``Log_event::print_base64``, ``Rows_log_event::print_helper``,
``Gtid_log_event::print``; ``PRINT_EVENT_INFO`` is the state carried from event to event), MySQL 8.0.41/8.4.

:class:`ScriptPrinter` is ``PRINT_EVENT_INFO`` plus ``process_event``: feed it every event of every file in
order (:meth:`ScriptPrinter.event`), and write what each call returns. It keeps mysqlbinlog's three caches:

* *head*: ``# at N``, the header comment and the statements of an event; written after every event. An event
  skipped by a GTID filter leaves its ``# at N`` line there, so it is printed before the next printed event (as
  mysqlbinlog does);
* *body*: the ``BINLOG '<base64>'`` block of a Table_map + rows statement, written at the rows event flagged
  STMT_END_F (the Format_description's own block goes into the head);
* *footer*: the ``-v`` pseudo-SQL (``### INSERT INTO ...``) of those rows, written after the body.

Times in header comments print in UTC (mysqlbinlog uses the local time zone); the statements themselves
(``SET TIMESTAMP=``) carry epoch seconds and are the same.
"""

from __future__ import annotations

import binascii
import enum
import os
import re
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, cast
from uuid import UUID

from gtidkit.binlog.codec import BinlogEvent, UnknownEvent, decode_event, fde_has_footer
from gtidkit.binlog.constants import (
    CHECKSUM_LEN,
    EVENT_TYPE_NAMES,
    LOG_EVENT_BINLOG_IN_USE_F,
    ChecksumAlg,
    EventType,
)
from gtidkit.binlog.cursor import CursorError
from gtidkit.binlog.events.control import (
    FormatDescriptionEvent,
    TransactionPayloadEvent,
    XidEvent,
    gtid_body_fields,
    gtid_server_versions,
)
from gtidkit.binlog.events.query_status import QueryStatusVars, decode_status_vars
from gtidkit.binlog.events.rows import STMT_END_F, RowsEvent, TableMapEvent
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.binlog.header import HEADER_STRUCT, EventHeader
from gtidkit.binlog.stream import iter_payload_events
from gtidkit.binlog.table_metadata import table_metadata_lines
from gtidkit.binlog.text import USER_VAR_COLLATIONS, event_lines, header_line, micro_time, short_time
from gtidkit.errors import BinlogDecodeError, GtidkitError
from gtidkit.gtid import Gtid, GtidSet

try:  # the compiled hot loop (setup.py builds it; optional)
    import gtidkit.binlog._scriptfast as _scriptfast  # noqa: PLR0402 - mypy finds the .pyi stub this way
except ImportError:  # pragma: no cover - no C compiler at install time
    _scriptfast = None  # type: ignore[assignment]

#: True when the compiled hot loop is installed and not turned off by ``GTIDKIT_PURE_PYTHON=1`` in the
#: environment (:class:`ScriptPrinter` then uses it unless told not to).
COMPILED = _scriptfast is not None and os.environ.get("GTIDKIT_PURE_PYTHON", "") in ("", "0")

__all__ = [
    "COMPILED",
    "Base64Output",
    "ScriptOptions",
    "ScriptPrinter",
    "base64_lines",
]

_T = EventType
DELIMITER = "/*!*/;"
#: ``LOG_EVENT_SUPPRESS_USE_F``: the Query event's database must not become the session's default database.
LOG_EVENT_SUPPRESS_USE_F = 0x8
#: ``LOG_EVENT_ARTIFICIAL_F``: an event made up by a replica (a fake FDE or Rotate).
LOG_EVENT_ARTIFICIAL_F = 0x20
#: ``LOG_EVENT_RELAY_LOG_F``: an event the replica wrote to its relay log (not from the source).
LOG_EVENT_RELAY_LOG_F = 0x40
#: ``OPTION_*`` bits of a Query event's flags2 that mysqlbinlog prints (``sql/query_options.h``).
OPTION_AUTO_IS_NULL = 1 << 14
OPTION_NOT_AUTOCOMMIT = 1 << 19
OPTION_NO_FOREIGN_KEY_CHECKS = 1 << 26
OPTION_RELAXED_UNIQUE_CHECKS = 1 << 27
#: sql_mode bits MySQL 8.0.5 removed; mysqlbinlog masks them out for 8.0.5+ servers.
_REMOVED_SQL_MODES = 0x1003FF00
#: Unset values of ``PRINT_EVENT_INFO`` (``ILLEGAL_CHARSET_INFO_NUMBER``, the 0xff "not given" flags).
_ILLEGAL_CHARSET = 0xFFFFFFFF
_UNSET_FLAG = 0xFF
#: MySQL's base64 line length (``base64_encode``: a newline every 76 characters).
_B64_LINE = 76
_B64_CHUNK = _B64_LINE // 4 * 3
#: base64 text cut into lines of _B64_LINE characters, the last one shorter (one C-level pass: faster than slicing)
_b64_cut = re.compile(f".{{1,{_B64_LINE}}}").findall
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


class Base64Output(enum.Enum):
    """``--base64-output``: when row events (and the FDE) print as ``BINLOG '...'`` statements.

    AUTO (the default, ``UNSPEC`` means the same): always; NEVER: never (a row event is then an error);
    DECODE_ROWS: never, the rows shown only as ``-v`` comments (the output cannot replay them).
    """

    AUTO = "AUTO"
    NEVER = "NEVER"
    DECODE_ROWS = "DECODE-ROWS"

    @classmethod
    def parse(cls, text: str) -> Base64Output:
        """The mode named ``text`` (any case; ``UNSPEC`` is AUTO).

        Raises:
            ValueError: with mysqlbinlog's message ``Unknown option to base64-output: X``.
        """
        up = text.upper()
        if up == "UNSPEC":
            return cls.AUTO
        for mode in cls:
            if mode.value == up:
                return mode
        raise ValueError(
            f"Unknown option to base64-output: {text}\nAlternatives are: 'NEVER','AUTO','UNSPEC','DECODE-ROWS'"
        )


@dataclass(frozen=True, slots=True)
class ScriptOptions:
    """mysqlbinlog's options that change what :class:`ScriptPrinter` prints.

    Args:
        base64_output: ``--base64-output``.
        verbose: ``-v`` count (1: row changes as ``###`` pseudo-SQL, 2: with column types and Rows_query text).
        skip_gtids: ``--skip-gtids``: no ``SET @@SESSION.GTID_NEXT`` and no Previous_gtids.
        include_gtids: ``--include-gtids``: only transactions whose GTID is in the set (anonymous ones are hidden).
        exclude_gtids: ``--exclude-gtids``: not the transactions whose GTID is in the set.
        database: ``--database``: only statements and row events of this default database.
        print_table_metadata: ``--print-table-metadata``: Table_map optional metadata as comments.
        disable_log_bin: ``-D/--disable-log-bin``: the script turns SQL_LOG_BIN off for its session.
        start_datetime, stop_datetime: ``--start-datetime`` / ``--stop-datetime`` as epoch seconds: events
            before the start are skipped (until the first one at or after it); the first event at or after the
            stop ends the output.
    """

    base64_output: Base64Output = Base64Output.AUTO
    verbose: int = 0
    skip_gtids: bool = False
    include_gtids: GtidSet | None = None
    exclude_gtids: GtidSet | None = None
    database: str | None = None
    print_table_metadata: bool = False
    disable_log_bin: bool = False
    start_datetime: int | None = None
    stop_datetime: int | None = None


class ScriptError(GtidkitError):
    """A condition mysqlbinlog treats as fatal while printing (a row event with ``--base64-output=NEVER``, a row
    event before any Format_description). ``str()`` is mysqlbinlog's message."""


def base64_lines(data: bytes | memoryview) -> str:
    """``data`` in base64 as MySQL's ``base64_encode`` writes it: 76 characters a line, each line ending in a
    newline."""
    if len(data) <= _B64_CHUNK:
        return binascii.b2a_base64(data).decode("ascii")
    s = binascii.b2a_base64(data, newline=False).decode("ascii")
    return "\n".join(_b64_cut(s)) + "\n"


_TRANS_KEYWORDS = ("BEGIN", "COMMIT", "SAVEPOINT", "ROLLBACK", "XA START", "XA END", "XA PREPARE", "XA COMMIT",
                   "XA ROLLBACK")  # fmt: skip


def _is_trans_keyword(q: str) -> bool:
    """``Query_log_event::is_trans_keyword``: the statement starts with a transaction-control keyword."""
    head = q[:11].upper()
    return any(head.startswith(k) for k in _TRANS_KEYWORDS)


def _starts_group(q: str) -> bool:
    """``Query_log_event::starts_group``: ``BEGIN`` or ``XA START``."""
    return q == "BEGIN" or q[:8].upper() == "XA START"


def _ends_group(q: str) -> bool:
    """``Query_log_event::ends_group``: ``COMMIT``, ``ROLLBACK`` (not ``ROLLBACK TO``) or ``XA ROLLBACK``."""
    up = q[:12].upper()
    return (
        q == "COMMIT"
        or (up.startswith("ROLLBACK") and not up.startswith("ROLLBACK TO "))
        or (up.startswith("XA ROLLBACK"))
    )


def _quoted_id(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


#: One framed event: (offset in the file, buffer, index of its first byte in the buffer, size).
Frame = tuple[int, Any, int, int]


class _Head(NamedTuple):
    """The common header as the fast path reads it (the fields of :class:`EventHeader`, unchecked)."""

    timestamp: int
    type_code: int
    server_id: int
    event_size: int
    log_pos: int
    flags: int


class _GtidView:
    """The fields of an untagged Gtid / Anonymous_gtid event the printer uses, read from its bytes (the
    :class:`Gtid` value is built only when a filter asks for it)."""

    __slots__ = (
        "flags",
        "gno",
        "gtid_text",
        "immediate_commit_timestamp",
        "immediate_server_version",
        "last_committed",
        "original_commit_timestamp",
        "original_server_version",
        "raw_sid",
        "sequence_number",
        "transaction_length",
    )

    def __init__(self, fields: tuple, imm_ver: int | None, orig_ver: int | None, text: str) -> None:
        flags, raw_sid, gno, lc, seq, imm, orig, tlen, _ = fields
        self.flags = flags
        self.raw_sid = bytes(raw_sid)
        self.gno = gno
        self.last_committed = lc
        self.sequence_number = seq
        self.immediate_commit_timestamp = imm
        self.original_commit_timestamp = orig
        self.transaction_length = tlen
        self.immediate_server_version = imm_ver
        self.original_server_version = orig_ver
        self.gtid_text = text

    @property
    def gtid(self) -> Gtid | None:
        """The GTID (``None`` for an anonymous transaction)."""
        if self.gtid_text == "ANONYMOUS":
            return None
        sid = _SID_UUID.get(self.raw_sid)
        if sid is None:
            if len(_SID_UUID) > 4096:
                _SID_UUID.clear()
            sid = _SID_UUID[self.raw_sid] = UUID(bytes=self.raw_sid)
        return Gtid(sid, self.gno)


class _TableMapView(NamedTuple):
    """A Table_map's id and names (the fast path; the full event is decoded when -v needs its columns)."""

    table_id: int
    database: str
    table: str


class _RowsView(NamedTuple):
    """A rows event's table id and flags (the fast path; the images are only base64-encoded)."""

    table_id: int
    flags: int


_QUERY_POST = struct.Struct("<IIBHH")
#: The common header, then a rows post-header's 6-byte table id (u32 + u16) and flags.
_HEAD_ROWS = struct.Struct("<IBIIIHIHH")
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_GTID_POST = 42
_ZERO_SID = bytes(16)
_ENC = ("utf-8", "surrogateescape")
_SID_TEXT: dict[bytes, str] = {}
_SID_UUID: dict[bytes, UUID] = {}


def _sid_text(raw: bytes) -> str:
    text = _SID_TEXT.get(raw)
    if text is None:
        if len(_SID_TEXT) > 4096:
            _SID_TEXT.clear()
        text = _SID_TEXT[raw] = str(UUID(bytes=raw))
    return text


class ScriptPrinter:
    """mysqlbinlog's ``PRINT_EVENT_INFO`` and ``process_event``: events in, replayable text out.

    Use: write :meth:`preamble`, then for every event of every file (in order) what :meth:`event` returns,
    then :meth:`finish` and :meth:`epilogue`. :attr:`stopped` turns true at ``--stop-datetime`` (and at a
    ``stop_position`` passed to :meth:`event`): the caller stops feeding events.

    Args:
        options: the printing options.
        compiled: use the compiled hot loop in :meth:`feed_frames` when it is installed (``False``: the
            pure-Python loop, which prints the same bytes).
    """

    def __init__(self, options: ScriptOptions | None = None, *, compiled: bool = True) -> None:
        self.options = opts = options or ScriptOptions()
        self._c_run = _scriptfast.run if compiled and COMPILED else None
        #: the last Query printed, when the compiled loop may print it again (see :meth:`_cache_query`)
        self._qcache: tuple[bytes, bytes, bytes, bytes] | None = None
        self._c_fast = bytes(256)
        self._c_names: tuple[bytes | None, ...] = tuple(
            EVENT_TYPE_NAMES[t].encode() if t in EVENT_TYPE_NAMES else None for t in range(256)
        )
        self.b64 = opts.base64_output
        self.verbose = opts.verbose
        self.skip_gtids = opts.skip_gtids
        self.stopped = False
        # PRINT_EVENT_INFO
        self.db = ""
        self.flags2: int | None = None
        self.sql_mode: int | None = None
        self.auto_increment: tuple[int, int] = (0, 0)
        self.charset: tuple[int, int, int] | None = None
        self.time_zone = ""
        self.lc_time_names = -1
        self.charset_database = _ILLEGAL_CHARSET
        self.default_collation_for_utf8mb4 = _ILLEGAL_CHARSET
        self.thread_id: int | None = None
        self.printed_fd_event = False
        self.have_unflushed_events = False
        self.skipped_event_in_transaction = False
        self.immediate_server_version: int | None = None
        # process_event's globals
        self.fde: FormatDescriptionEvent | None = None
        self.first_fd = True
        self.in_transaction = False
        self.seen_gtid = False
        self.filter_based_on_gtids = False
        self.start_datetime = opts.start_datetime
        self.deferred: list[BinlogEvent] = []  # Intvar / Rand / User_var waiting for their Query
        self.table_maps: dict[int, TableMapEvent] = {}
        self.ignored_maps: set[int] = set()
        self.head: list[str] = []
        self.body: list[str] = []
        self.footer: list[str] = []
        self._status_cache: dict[bytes, QueryStatusVars] = {}
        self._decode_fde: FormatDescriptionEvent | None = (
            None  # the FDE in force for decoding (relay ones too)
        )
        self._footer = 0
        self._fast: dict[int, Any] = {}
        self._rows_inline = bytes(256)
        self.file: str | None = None

    # -- the frame around the events --------------------------------------------------------------------------
    def preamble(self) -> str:
        """What mysqlbinlog writes before the first event (pseudo-replica mode, SQL_LOG_BIN with
        ``--disable-log-bin``, COMPLETION_TYPE, DELIMITER)."""
        return (
            "# The proper term is pseudo_replica_mode, but we use this compatibility alias\n"
            "# to make the statement usable on server versions 8.0.24 and older.\n"
            "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n"
            + (
                "/*!32316 SET @OLD_SQL_LOG_BIN=@@SQL_LOG_BIN, SQL_LOG_BIN=0*/;\n"
                if self.options.disable_log_bin
                else ""
            )
            + "/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;\n"
            "DELIMITER /*!*/;\n"
        )

    def finish(self) -> tuple[str, list[str]]:
        """The end of ``dump_multiple_logs``: a COMMIT for a transaction whose events were filtered, the
        rollback of an unfinished transaction, ``GTID_NEXT='AUTOMATIC'`` and ``DELIMITER ;``.

        Returns:
            The text, and mysqlbinlog's warnings (for stderr) about a range that ends inside a statement.
        """
        warnings = []
        if self.deferred:
            warnings.append(
                "The range of printed events ends with an Intvar_event, Rand_event or User_var_event with no "
                "matching Query_log_event. This might be because the last statement was not fully written to "
                "the log, or because you are using a --stop-position or --stop-datetime that refers to an event "
                "in the middle of a statement. The event(s) from the partial statement have not been written "
                "to output. "
            )
        elif self.have_unflushed_events:
            warnings.append(
                "The range of printed events ends with a row event or a table map event that does not have the "
                "STMT_END_F flag set. This might be because the last statement was not fully written to the "
                "log, or because you are using a --stop-position or --stop-datetime that refers to an event in "
                "the middle of a statement. The event(s) from the partial statement have not been written to "
                "output."
            )
        out = []
        if self.skipped_event_in_transaction:
            out.append(f"COMMIT /* added by mysqlbinlog */{DELIMITER}\n")
        out.append(self.end_binlog())
        out.append("DELIMITER ;\n")
        return "".join(out), warnings

    def epilogue(self) -> str:
        """What mysqlbinlog writes after everything (``# End of log file`` and the session restored)."""
        return (
            "# End of log file\n"
            "/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n"
            + ("/*!32316 SET SQL_LOG_BIN=@OLD_SQL_LOG_BIN*/;\n" if self.options.disable_log_bin else "")
            + "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n"
        )

    def end_binlog(self) -> str:
        """``end_binlog``: roll back an unfinished transaction and set GTID_NEXT back to AUTOMATIC (at the end
        of the output and before the Format_description of every further binlog)."""
        out = ""
        if self.in_transaction:
            out = f"ROLLBACK /* added by mysqlbinlog */ {DELIMITER}\n"
        elif self.seen_gtid and not self.skip_gtids:
            out = f"BEGIN /*added by mysqlbinlog */ {DELIMITER}\nROLLBACK /* added by mysqlbinlog */ {DELIMITER}\n"
        if not self.skip_gtids:
            out += f"SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ {DELIMITER}\n"
        self.seen_gtid = False
        self.in_transaction = False
        return out

    # -- one event ---------------------------------------------------------------------------------------------
    def feed(self, pos: int, raw: bytes | memoryview, *, stop_position: int | None = None) -> str:
        """:meth:`event` for one event's bytes: the common types (Gtid, Query, Table_map, rows, Xid) are read
        straight from the bytes (only the fields printed), the others decoded by the codecs.

        Args:
            pos: the event's offset in its file.
            raw: the whole event (header, body, CRC footer).
            stop_position: as for :meth:`event`.

        Raises:
            BinlogDecodeError: the event does not decode (with the file and offset).
            ScriptError: as for :meth:`event`.
        """
        ts, t, server_id, size, log_pos, flags = HEADER_STRUCT.unpack_from(raw, 0)
        fast = self._fast.get(t)
        ev = fast(raw, 19, len(raw) - self._footer) if fast is not None else None
        if ev is None:
            be = decode_event(raw, self._decode_fde, verify_checksum=False, offset=pos, file=self.file)
            if t == _T.FORMAT_DESCRIPTION_EVENT:
                self._set_decode_fde(be.event)
            return self.event(pos, raw, be, stop_position=stop_position)
        head = cast(EventHeader, _Head(ts, t, server_id, size, log_pos, flags))
        return self.event(pos, raw, BinlogEvent(head, ev, cast(bytes, raw)), stop_position=stop_position)

    def feed_frames(
        self,
        frames: Iterable[Frame],
        *,
        stop_position: int | None = None,
        batch: int = 512,
        reader: Any = None,
        on_gtids: Callable[[list[tuple[bytes, int]]], None] | None = None,
    ) -> Iterator[str | bytes]:
        """:meth:`feed` over framed events (``(pos, buf, at, size)`` as :class:`gtidkit.binlog.file.FrameReader`
        yields them), the text joined ``batch`` events at a time; stops at :attr:`stopped`.

        The hot loop: when no filter is active (no GTID, database, datetime or position filter, no ``-v``), the
        Gtid, Query, Table_map, rows and Xid events of the usual layouts are printed inline, with exactly the
        text :meth:`feed` gives (``tests/binlog/test_mysqlbinlog.py`` checks both on every fixture). Given the
        ``reader`` that frames them, the compiled loop (``_scriptfast.c``) prints whole runs of those events
        straight from the reader's buffer, checks their CRC32 footers, and tells the reader where to go on
        (``reader.skip(at)``); its text comes as ``bytes`` (UTF-8 with the binlog's own bytes for names and
        statements, as ``str.encode("utf-8", "surrogateescape")`` gives them), the rest as ``str``.
        ``tests/binlog/test_scriptfast.py`` compares both loops on every fixture binlog.

        Args:
            frames: the framed events.
            stop_position: as for :meth:`event`.
            batch: events per yielded text.
            reader: the :class:`gtidkit.binlog.file.FrameReader` behind ``frames`` (its ``verify`` and ``skip``).
            on_gtids: called with the ``(sid bytes, gno)`` of the GTID events the compiled loop printed (the
                frames it read on by itself are not in ``frames``).

        Raises:
            BinlogDecodeError, ScriptError: as :meth:`feed` (the text before is yielded first).
        """
        o = self.options
        simple = (
            stop_position is None
            and o.include_gtids is None
            and o.exclude_gtids is None
            and o.database is None
            and o.start_datetime is None
            and o.stop_datetime is None
            and not o.verbose
            and not o.print_table_metadata
            and not self.skip_gtids
            and self.b64 is Base64Output.AUTO
        )
        out: list[str] = []
        append = out.append
        heads: dict[tuple[int, int], str] = {}
        names = EVENT_TYPE_NAMES
        u32 = _U32.unpack_from
        header = HEADER_STRUCT.unpack_from
        b64 = base64_lines
        body = self.body
        b2a = binascii.b2a_base64
        cut = _b64_cut
        head_rows = _HEAD_ROWS.unpack_from
        rows_types = bytes(0 for _ in range(256))
        n = 0
        last_buf: Any = None
        mv: Any = None
        # the compiled loop: also under GTID filters (it leaves every Gtid event to Python, and runs only inside a
        # transaction they keep), --skip-gtids and the datetimes (from the first event printed on; it stops
        # before the first event at or after --stop-datetime)
        c_run = (
            self._c_run
            if reader is not None
            and stop_position is None
            and o.database is None
            and not o.verbose
            and not o.print_table_metadata
            and self.b64 is Base64Output.AUTO
            else None
        )
        gtid_py = o.include_gtids is not None or o.exclude_gtids is not None or self.skip_gtids
        stop_ts = -1 if o.stop_datetime is None else max(o.stop_datetime, 0)
        verify = bool(getattr(reader, "verify", False))
        gtids: list[tuple[bytes, int]] | None = [] if on_gtids is not None else None
        try:
            for pos, buf, at, size in frames:
                t = buf[at + 4]
                fast = self._fast.get(t) if simple and not self.head and not self.deferred else None
                if fast is not None and buf is not last_buf:
                    last_buf, mv = buf, memoryview(buf)
                    rows_types = self._rows_inline
                if (
                    c_run is not None
                    and (self._c_fast[t] or self._rows_inline[t])
                    and not (gtid_py and (t == _T.GTID_LOG_EVENT or t == _T.ANONYMOUS_GTID_LOG_EVENT))
                    and not body
                    # the head holds only the "# at" lines of skipped events here (no --database filter)
                    and not self.deferred
                    and self.printed_fd_event
                    and self.start_datetime is None
                ):
                    q = self._qcache or (b"", b"", b"", b"")
                    isv = self.immediate_server_version
                    was_skipping = self.filter_based_on_gtids
                    # while skipping, the lines stay in self.head (handing them over at every call would be
                    # quadratic); otherwise they come first in what the compiled loop prints
                    head_in = b"" if was_skipping else "".join(self.head).encode("ascii")
                    nxt, data, isv2, seen, in_trx, skipped, skipping = c_run(
                        buf, at, pos - at, self._footer, verify, -1 if isv is None else isv, self._c_names,
                        self._rows_inline, self._c_fast, q[0], q[1], q[2], q[3], gtids, gtid_py, stop_ts,
                        was_skipping, head_in,
                    )  # fmt: skip
                    if nxt > at:
                        if data:
                            if out:
                                yield "".join(out)
                                out.clear()
                                n = 0
                            yield data
                            self.skipped_event_in_transaction = False
                        if not was_skipping:
                            self.head.clear()
                        if skipped:
                            self.head.append(skipped.decode("ascii"))
                        self.immediate_server_version = None if isv2 < 0 else isv2
                        self.filter_based_on_gtids = bool(skipping)
                        if seen >= 0:
                            self.seen_gtid = bool(seen)
                        if in_trx >= 0:
                            self.in_transaction = bool(in_trx)
                        if gtids:
                            on_gtids(gtids)  # type: ignore[misc]
                            gtids.clear()
                        reader.skip(nxt)
                        continue
                if fast is None:
                    text = self.feed(pos, buf[at : at + size], stop_position=stop_position)
                    rows_types = self._rows_inline  # an FDE may have changed the layouts
                    if text:
                        append(text)
                    if self.stopped:
                        break
                elif rows_types[t] and self.printed_fd_event and size - self._footer >= 27:
                    # rows events, most of a row-based binlog: header, table id and flags in one unpack
                    ts, _, server_id, _, log_pos, _, lo, hi, rflags = head_rows(buf, at)
                    head = heads.get((ts, server_id))
                    if head is None:
                        if len(heads) > 4096:
                            heads.clear()
                        head = heads[(ts, server_id)] = (
                            f"#{short_time(ts)} server id {server_id}  end_log_pos "
                        )
                    crc = f"CRC32 0x{u32(buf, at + size - 4)[0]:08x} " if self._footer else ""
                    end = rflags & STMT_END_F
                    append(
                        f"# at {pos}\n{head}{log_pos} {crc}\t{names[t]}: table id {lo | hi << 32}"
                        f"{' flags: STMT_END_F' if end else ''}\n"
                    )
                    if not body:
                        body.append("\nBINLOG '\n")
                    b = b2a(mv[at : at + size], newline=False).decode("ascii")
                    if len(b) > _B64_LINE:
                        b = "\n".join(cut(b))
                    body.append(b)
                    if end:
                        body.append(f"\n'{DELIMITER}\n")
                        out.extend(body)
                        body.clear()
                        self.have_unflushed_events = False
                    else:
                        body.append("\n")
                        self.have_unflushed_events = True
                else:
                    footer = self._footer
                    ev = fast(buf, at + 19, at + size - footer)
                    if ev is None:
                        append(self.feed(pos, buf[at : at + size]))
                        continue
                    ts, _, server_id, _, log_pos, flags = header(buf, at)
                    head = heads.get((ts, server_id))
                    if head is None:
                        if len(heads) > 4096:
                            heads.clear()
                        head = heads[(ts, server_id)] = (
                            f"#{short_time(ts)} server id {server_id}  end_log_pos "
                        )
                    if footer:
                        head = f"# at {pos}\n{head}{log_pos} CRC32 0x{u32(buf, at + size - 4)[0]:08x} \t"
                    else:
                        head = f"# at {pos}\n{head}{log_pos} \t"
                    if t in _ROWS_TYPES:
                        if not self.printed_fd_event:
                            append(self.feed(pos, buf[at : at + size]))  # raises ScriptError
                            continue
                        end = ev.flags & STMT_END_F
                        append(
                            f"{head}{names[t]}: table id {ev.table_id}{' flags: STMT_END_F' if end else ''}\n"
                        )
                        if not body:
                            body.append("\nBINLOG '\n")
                        body.append(b64(buf[at : at + size]))
                        if end:
                            body.append(f"'{DELIMITER}\n")
                            out.extend(body)
                            body.clear()
                            self.have_unflushed_events = False
                        else:
                            self.have_unflushed_events = True
                    elif t == _T.TABLE_MAP_EVENT:
                        append(
                            f"{head}Table_map: `{ev.database}`.`{ev.table}` mapped to number {ev.table_id}\n"
                        )
                        isv = self.immediate_server_version
                        if isv is not None and isv != 999999 and isv >= 80030:
                            append("# has_generated_invisible_primary_key=0\n")
                        if not body:
                            body.append("\nBINLOG '\n")
                        body.append(b64(buf[at : at + size]))
                        self.have_unflushed_events = True
                    elif t == _T.XID_EVENT:
                        self.filter_based_on_gtids = False
                        self.in_transaction = False
                        self.skipped_event_in_transaction = False
                        self.seen_gtid = False
                        append(f"{head}Xid = {ev.xid}\nCOMMIT{DELIMITER}\n")
                    elif t == _T.QUERY_EVENT:
                        h = cast(EventHeader, _Head(ts, t, server_id, size, log_pos, flags))
                        self.head.append(f"# at {pos}\n")
                        self._query(out, h, ev, buf[at : at + size])
                        out.extend(self.head)
                        self.head.clear()
                        self._cache_query(h, ev, buf[at : at + size])
                    else:  # Gtid / Anonymous_gtid
                        self.filter_based_on_gtids = False
                        self.seen_gtid = True
                        self.immediate_server_version = ev.immediate_server_version
                        self.skipped_event_in_transaction = False
                        self._gtid_lines(out, head, t, ev)
                n += 1
                if n >= batch:
                    n = 0
                    yield "".join(out)
                    out.clear()
        except GeneratorExit:  # the consumer went away (closed pipe): nothing more may be yielded
            raise
        except BaseException:
            if out:
                yield "".join(out)
            raise
        if out:
            yield "".join(out)

    def _set_decode_fde(self, fde: FormatDescriptionEvent) -> None:
        """The FDE now in force: picks the layouts the fast path reads."""
        self._decode_fde = fde
        self._footer = CHECKSUM_LEN if fde.checksum_alg == ChecksumAlg.CRC32 else 0
        fast: dict[int, Any] = {}
        if fde.post_header_len(_T.QUERY_EVENT) == _QUERY_POST.size:
            fast[_T.QUERY_EVENT] = _fast_query
        if fde.post_header_len(_T.XID_EVENT) == 0:
            fast[_T.XID_EVENT] = _fast_xid
        for t in (_T.GTID_LOG_EVENT, _T.ANONYMOUS_GTID_LOG_EVENT):
            if fde.post_header_len(t) == _GTID_POST:
                fast[t] = _fast_gtid
        if not self.verbose and not self.options.print_table_metadata:
            if fde.post_header_len(_T.TABLE_MAP_EVENT) == 8:
                fast[_T.TABLE_MAP_EVENT] = _fast_table_map
            for t in _ROWS_TYPES:
                if fde.post_header_len(t) in (8, 10):
                    fast[t] = _fast_rows
        self._fast = fast
        self._rows_inline = bytes(1 if t in _ROWS_TYPES and t in fast else 0 for t in range(256))
        self._c_fast = bytes(1 if t in fast and t not in _ROWS_TYPES else 0 for t in range(256))

    def event(
        self,
        pos: int,
        raw: bytes | memoryview,
        be: BinlogEvent,
        *,
        stop_position: int | None = None,
        in_payload: bool = False,
    ) -> str:
        """``process_event`` for one event.

        Args:
            pos: its offset in the file (for an event inside a Transaction_payload: the payload's end_log_pos).
            raw: its bytes (header, body and CRC footer as in the file), for ``BINLOG`` blocks.
            be: the decoded event.
            stop_position: ``--stop-position`` for this file: an event at or after it ends the output.
            in_payload: the event came out of a Transaction_payload (no position check).

        Returns:
            The text to write now (possibly ``""``).

        Raises:
            ScriptError: a row event that cannot be printed (see :class:`ScriptError`).
        """
        h = be.header
        ev = be.event
        t = h.type_code
        is_fde = t == _T.FORMAT_DESCRIPTION_EVENT
        when = h.timestamp
        if not is_fde and self.start_datetime is not None:
            if when < self.start_datetime:
                return ""
            self.start_datetime = None
        if not in_payload and stop_position is not None and pos >= stop_position:
            self.stopped = True
            return ""
        stop_dt = self.options.stop_datetime
        if stop_dt is not None and when >= stop_dt:
            self.stopped = True
            return ""
        out: list[str] = []
        self.head.append(f"# at {pos}\n")
        if self._skip_gtids(t, ev):
            return ""  # the "# at" line stays in the head: printed before the next printed event
        flush = True
        if isinstance(ev, UnknownEvent) and not is_fde:
            # a type code this FDE's layouts do not decode (e.g. 5.1's pre-GA rows codes 16-19, one of them
            # Xid's today): the generic header line, as for every other event mysqlbinlog cannot interpret
            self._other(h, ev, raw)
        elif t == _T.QUERY_EVENT:
            flush = self._query(out, h, ev, raw)
            if flush and not in_payload:
                self._cache_query(h, ev, raw)
        elif t in (_T.INTVAR_EVENT, _T.RAND_EVENT, _T.USER_VAR_EVENT):
            self.deferred.append(be)  # printed by the Query event they belong to
        elif is_fde:
            self._fde(out, h, ev, raw)
        elif t == _T.TABLE_MAP_EVENT or t in _ROWS_TYPES or t == _T.ROWS_QUERY_LOG_EVENT:
            flush = self._rows(out, h, ev, raw, t)
        elif t in (_T.GTID_LOG_EVENT, _T.ANONYMOUS_GTID_LOG_EVENT, _T.GTID_TAGGED_LOG_EVENT):
            self.seen_gtid = True
            self.immediate_server_version = ev.immediate_server_version
            if self.skipped_event_in_transaction:
                out.append(f"COMMIT /* added by mysqlbinlog */{DELIMITER}\n")
            self.skipped_event_in_transaction = False
            self._gtid(h, ev, raw)
        elif t == _T.XID_EVENT:
            self.in_transaction = False
            self.skipped_event_in_transaction = False
            self.seen_gtid = False
            self.head.append(f"{self._header(h, raw)}\tXid = {ev.xid}\nCOMMIT{DELIMITER}\n")
        elif t == _T.TRANSACTION_PAYLOAD_EVENT:
            self._payload(out, h, ev, raw)
        else:
            self._other(h, ev, raw)
        if flush:
            out.extend(self.head)
            self.head.clear()
        return "".join(out)

    # -- filters -------------------------------------------------------------------------------------------------
    def _skip_gtids(self, t: int, ev: Any) -> bool:
        """``shall_skip_gtids``."""
        opts = self.options
        if t in (_T.GTID_LOG_EVENT, _T.ANONYMOUS_GTID_LOG_EVENT, _T.GTID_TAGGED_LOG_EVENT):
            filtered = False
            gtid = ev.gtid
            if opts.include_gtids is not None:
                filtered = gtid is None or gtid not in opts.include_gtids
            if opts.exclude_gtids is not None:
                filtered = filtered or (gtid is not None and gtid in opts.exclude_gtids)
            self.filter_based_on_gtids = filtered
            return filtered or self.skip_gtids
        if t == _T.PREVIOUS_GTIDS_LOG_EVENT:
            return self.skip_gtids
        if t == _T.XID_EVENT:
            filtered = self.filter_based_on_gtids
            self.filter_based_on_gtids = False
            return filtered
        if t == _T.QUERY_EVENT:
            filtered = self.filter_based_on_gtids
            if _ends_group(ev.query):
                self.filter_based_on_gtids = False
            return filtered
        if t in (_T.STOP_EVENT, _T.FORMAT_DESCRIPTION_EVENT, _T.ROTATE_EVENT, _T.IGNORABLE_LOG_EVENT,
                 _T.INCIDENT_EVENT):  # fmt: skip
            return False
        return self.filter_based_on_gtids

    def _skip_database(self, db: str | None) -> bool:
        """``shall_skip_database``."""
        want = self.options.database
        return want is not None and db is not None and db != want

    # -- printing ----------------------------------------------------------------------------------------------
    def _header(self, h: Any, raw: bytes | memoryview) -> str:
        """``Log_event::print_header``'s comment line (without the trailing tab and text)."""
        crc = None
        if self._has_footer(h.type_code, raw):
            crc = int.from_bytes(raw[len(raw) - CHECKSUM_LEN :], "little")
        return header_line(h, crc)

    def _has_footer(self, t: int, raw: bytes | memoryview) -> bool:
        if t == _T.FORMAT_DESCRIPTION_EVENT:
            return fde_has_footer(raw)
        return self.fde is not None and self.fde.checksum_alg == ChecksumAlg.CRC32

    def _fde(self, out: list[str], h: Any, ev: FormatDescriptionEvent, raw: bytes | memoryview) -> None:
        relay = bool(h.flags & LOG_EVENT_RELAY_LOG_F)
        if not relay:
            if h.log_pos > 0 and not self.first_fd:
                out.append(self.end_binlog())  # written before the head, which holds this FDE's "# at"
            self.first_fd = False
            self.fde = ev
        head = self.head
        created = ev.create_timestamp
        head.append(
            f"{self._header(h, raw)}\tStart: binlog v {ev.binlog_version}, server v {ev.server_version} created "
            f"{short_time(h.timestamp)}"  # print_timestamp(): the header's time
            + (" at startup" if created else "")
            + "\n"
        )
        if h.flags & LOG_EVENT_BINLOG_IN_USE_F:
            head.append("# Warning: this binlog is either in use or was not closed properly.\n")
        if relay:
            head.append(
                "# This Format_description_event appears in a relay log and was generated by the replica thread.\n"
            )
            return
        if not (h.flags & LOG_EVENT_ARTIFICIAL_F) and created:
            head.append(f"ROLLBACK{DELIMITER}\n")
        if self.b64 is not Base64Output.NEVER:
            if self.b64 is not Base64Output.DECODE_ROWS:
                head.append("BINLOG '\n")
                head.append(base64_lines(raw))
                head.append(f"'{DELIMITER}\n")
            self.printed_fd_event = True
            if self.skip_gtids:
                head.append(f"/*!50616 SET @@SESSION.GTID_NEXT='AUTOMATIC'*/{DELIMITER}\n")

    def _gtid(self, h: Any, ev: Any, raw: bytes | memoryview) -> None:
        """``Gtid_log_event::print``."""
        self._gtid_lines(self.head, f"{self._header(h, raw)}\t", h.type_code, ev)

    @staticmethod
    def _gtid_lines(out: list[str], head: str, t: int, ev: Any) -> None:
        """The lines of ``Gtid_log_event::print`` after ``head`` (the ``# at`` and header comment)."""
        word = "GTID" if t != _T.ANONYMOUS_GTID_LOG_EVENT else "Anonymous_GTID"
        may_have_sbr = ev.flags & 1
        orig = ev.original_commit_timestamp or 0
        imm = ev.immediate_commit_timestamp or 0
        imm_ver = ev.immediate_server_version or 0
        orig_ver = ev.original_server_version if ev.original_server_version is not None else imm_ver
        gtid = getattr(ev, "gtid_text", None) or ("ANONYMOUS" if ev.gtid is None else str(ev.gtid))
        rc = "" if may_have_sbr else f"/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*/{DELIMITER}\n"
        out.append(
            f"{head}{word}\tlast_committed={ev.last_committed or 0}"
            f"\tsequence_number={ev.sequence_number or 0}\trbr_only={'no' if may_have_sbr else 'yes'}"
            f"\toriginal_committed_timestamp={orig}\timmediate_commit_timestamp={imm}"
            f"\ttransaction_length={ev.transaction_length or 0}\n{rc}"
            f"# original_commit_timestamp={orig} ({micro_time(orig)})\n"
            f"# immediate_commit_timestamp={imm} ({micro_time(imm)})\n"
            f"/*!80001 SET @@session.original_commit_timestamp={orig}*/{DELIMITER}\n"
            f"/*!80014 SET @@session.original_server_version={orig_ver}*/{DELIMITER}\n"
            f"/*!80014 SET @@session.immediate_server_version={imm_ver}*/{DELIMITER}\n"
            f"SET @@SESSION.GTID_NEXT= '{gtid}'{DELIMITER}\n"
        )

    def _query(self, out: list[str], h: Any, ev: QueryEvent, raw: bytes | memoryview) -> bool:
        """The QUERY_EVENT branch of ``process_event``, then ``Query_log_event::print``.

        Returns:
            False when the statement was filtered by ``--database`` (its "# at" line stays in the head).
        """
        q = ev.query
        parent_skips = not _is_trans_keyword(q) and self._skip_database(ev.database)
        ends, starts = _ends_group(q), _starts_group(q)
        for deferred in self.deferred:
            if not parent_skips:
                self._other(deferred.header, deferred.event, deferred.raw)
        self.deferred.clear()
        if parent_skips:
            if self.seen_gtid and not self.in_transaction and not starts and not ends:
                out.append(f"COMMIT /* added by mysqlbinlog */{DELIMITER}\n")  # a DDL: commit its GTID now
                self.skipped_event_in_transaction = False
                self.in_transaction = False
                self.seen_gtid = False
            else:
                self.skipped_event_in_transaction = True
            return False
        if ends:
            self.in_transaction = False
            self.skipped_event_in_transaction = False
            self.seen_gtid = False
        elif starts:
            self.in_transaction = True
        elif not self.in_transaction:
            self.seen_gtid = False  # an implicitly committing DDL
        self._print_query(h, ev, raw)
        return True

    def _status(self, raw: bytes) -> QueryStatusVars:
        sv = self._status_cache.get(raw)
        if sv is None:
            try:
                sv = decode_status_vars(raw)
            except CursorError:
                sv = QueryStatusVars()
            if len(self._status_cache) > 1024:
                self._status_cache.clear()
            self._status_cache[raw] = sv
        return sv

    def _cache_query(self, h: Any, ev: QueryEvent, raw: bytes | memoryview) -> None:
        """Keep what the compiled loop needs to print this Query event again, when it is a ``BEGIN`` without
        LOG_EVENT_THREAD_SPECIFIC_F that was just printed: the session state then equals its status variables
        and printing it once more changes nothing; the text is its header line, ``SET TIMESTAMP`` and a fixed
        tail (the statement and the settings printed every time). The key is the event's bytes after the
        post-header (status variables, database, statement)."""
        if self._c_run is None or h.flags & 0x04 or ev.query != "BEGIN":
            return
        probe: list[str] = []
        head, self.head = self.head, probe
        try:
            self._print_query(h, ev, raw)
        finally:
            self.head = head
        sv = self._status(ev.status_vars)
        us = f".{sv.microseconds:06d}" if sv.microseconds else ""
        if len(probe) < 2 or probe[1] != f"SET TIMESTAMP={h.timestamp}{us}{DELIMITER}\n":
            return  # not the layout the compiled loop writes (self._qcache stays None)
        xid = "" if sv.ddl_xid is None else f"\tXid = {sv.ddl_xid}"
        self._qcache = (
            bytes(raw[19 + _QUERY_POST.size : len(raw) - self._footer]),
            "".join(probe[2:]).encode(*_ENC),
            us.encode(),
            xid.encode(),
        )

    def _print_query(self, h: Any, ev: QueryEvent, raw: bytes | memoryview) -> None:
        """``Query_log_event::print_query_header`` and the statement."""
        self._qcache = None  # the session state may change: the cached Query is no longer a fixed point
        sv = self._status(ev.status_vars)
        head = self.head
        xid = "" if sv.ddl_xid is None else f"\tXid = {sv.ddl_xid}"
        head.append(
            f"{self._header(h, raw)}\tQuery\tthread_id={ev.thread_id}\texec_time={ev.exec_time}"
            f"\terror_code={ev.error_code}{xid}\n"
        )
        if h.flags & LOG_EVENT_SUPPRESS_USE_F:
            if not _is_trans_keyword(ev.query):
                self.db = ""
        else:
            db = ev.database
            if db != self.db:
                self.db = db
                if db:
                    head.append(f"use {_quoted_id(db)}{DELIMITER}\n")
        us = sv.microseconds
        ts = f"{h.timestamp}.{us:06d}" if us else str(h.timestamp)
        head.append(f"SET TIMESTAMP={ts}{DELIMITER}\n")
        if self.thread_id is None or (h.flags & 0x4 and ev.thread_id != self.thread_id):
            head.append(f"SET @@session.pseudo_thread_id={ev.thread_id}{DELIMITER}\n")
            self.thread_id = ev.thread_id
        f2 = sv.flags2
        if f2 is not None:
            changed = 0xFFFFFFFF if self.flags2 is None else self.flags2 ^ f2
            if changed:
                parts = []
                for bit, name, inverted in (
                    (OPTION_NO_FOREIGN_KEY_CHECKS, "@@session.foreign_key_checks", True),
                    (OPTION_AUTO_IS_NULL, "@@session.sql_auto_is_null", False),
                    (OPTION_RELAXED_UNIQUE_CHECKS, "@@session.unique_checks", True),
                    (OPTION_NOT_AUTOCOMMIT, "@@session.autocommit", True),
                ):
                    if changed & bit:
                        on = not (f2 & bit) if inverted else bool(f2 & bit)
                        parts.append(f"{name}={1 if on else 0}")
                head.append("SET " + ", ".join(parts) + f"{DELIMITER}\n")
                self.flags2 = f2
        mode = sv.sql_mode
        if mode is not None and mode != self.sql_mode:
            mask = "/*!80005 &~0x1003ff00*/" if mode & _REMOVED_SQL_MODES else ""
            head.append(f"SET @@session.sql_mode={mode}{mask}{DELIMITER}\n")
            self.sql_mode = mode
        inc = (
            sv.auto_increment_increment if sv.auto_increment_increment is not None else 1,
            sv.auto_increment_offset if sv.auto_increment_offset is not None else 1,
        )
        if inc != self.auto_increment:
            head.append(
                f"SET @@session.auto_increment_increment={inc[0]}, @@session.auto_increment_offset={inc[1]}"
                f"{DELIMITER}\n"
            )
            self.auto_increment = inc
        if sv.character_set_client is not None:
            cs = (sv.character_set_client, sv.collation_connection or 0, sv.collation_server or 0)
            if cs != self.charset:
                names = USER_VAR_COLLATIONS.get(cs[0])
                if names is not None:
                    head.append(f"/*!\\C {names[0]} */{DELIMITER}\n")
                head.append(
                    f"SET @@session.character_set_client={cs[0]},@@session.collation_connection={cs[1]},"
                    f"@@session.collation_server={cs[2]}{DELIMITER}\n"
                )
                self.charset = cs
        if sv.time_zone and sv.time_zone != self.time_zone:
            head.append(f"SET @@session.time_zone='{sv.time_zone}'{DELIMITER}\n")
            self.time_zone = sv.time_zone
        lc = sv.lc_time_names or 0
        if lc != self.lc_time_names:
            head.append(f"SET @@session.lc_time_names={lc}{DELIMITER}\n")
            self.lc_time_names = lc
        cdb = sv.collation_database or 0
        if cdb != self.charset_database:
            head.append(f"SET @@session.collation_database={cdb or 'DEFAULT'}{DELIMITER}\n")
            self.charset_database = cdb
        if sv.explicit_defaults_for_timestamp is not None:
            head.append(
                f"SET @@session.explicit_defaults_for_timestamp={1 if sv.explicit_defaults_for_timestamp else 0}"
                f"{DELIMITER}\n"
            )
        dc = sv.default_collation_for_utf8mb4 or 0
        if dc != self.default_collation_for_utf8mb4:
            if dc:
                head.append(f"/*!80011 SET @@session.default_collation_for_utf8mb4={dc}*/{DELIMITER}\n")
            self.default_collation_for_utf8mb4 = dc
        if sv.sql_require_primary_key is not None and sv.sql_require_primary_key != _UNSET_FLAG:
            head.append(
                f"/*!80013 SET @@session.sql_require_primary_key={sv.sql_require_primary_key}*/{DELIMITER}\n"
            )
        if sv.default_table_encryption is not None and sv.default_table_encryption != _UNSET_FLAG:
            head.append(
                f"/*!80016 SET @@session.default_table_encryption={sv.default_table_encryption}*/{DELIMITER}\n"
            )
        head.append(f"{ev.query}\n{DELIMITER}\n")

    def _rows(self, out: list[str], h: Any, ev: Any, raw: bytes | memoryview, t: int) -> bool:
        """The Table_map / Rows_query / rows branch of ``process_event``.

        Returns:
            False when the event was filtered by ``--database`` (its "# at" line stays in the head).
        """
        if t == _T.TABLE_MAP_EVENT and self._skip_database(ev.database):
            self.skipped_event_in_transaction = True
            self.ignored_maps.add(ev.table_id)
            return False
        is_rows = t in _ROWS_TYPES
        stmt_end = is_rows and bool(ev.flags & STMT_END_F)
        skip = is_rows and ev.table_id in self.ignored_maps
        if stmt_end:
            self.ignored_maps.clear()
            if skip:
                self.have_unflushed_events = False
                if self.body:
                    self.body.append(f"'{DELIMITER}\n")
                out.extend(self.head)
                out.extend(self.body)
                out.extend(self.footer)
                self.head.clear()
                self.body.clear()
                self.footer.clear()
        if skip:
            self.skipped_event_in_transaction = True
            return False
        if (
            not self.printed_fd_event
            and t not in (_T.TABLE_MAP_EVENT, _T.ROWS_QUERY_LOG_EVENT)
            and self.b64 is not Base64Output.DECODE_ROWS
        ):
            name = EVENT_TYPE_NAMES.get(t, str(t))
            if self.b64 is Base64Output.NEVER:
                raise ScriptError(
                    f"--base64-output=never specified, but binlog contains a {name} event which must be printed "
                    "in base64."
                )
            raise ScriptError(
                "malformed binlog: it does not contain any Format_description_log_event. I now found a "
                f"{name} event, which is not safe to process without a Format_description_log_event."
            )
        head = self.head
        if t == _T.TABLE_MAP_EVENT:
            self.table_maps[ev.table_id] = ev
            head.append(
                f"{self._header(h, raw)}\tTable_map: `{ev.database}`.`{ev.table}` mapped to number {ev.table_id}\n"
            )
            isv = self.immediate_server_version
            if isv is not None and isv != 999999 and isv >= 80030:
                head.append(f"# has_generated_invisible_primary_key={_has_gipk(ev)}\n")
            if self.options.print_table_metadata:
                head.append(table_metadata_lines(ev))
            self._base64(raw, more=True)
        elif t == _T.ROWS_QUERY_LOG_EVENT:
            if self.verbose > 1:
                head.append(f"{self._header(h, raw)}\tRows_query\n")
                head.extend(f"# {line}\n" for line in ev.query.split("\n") if line)
                self._base64(raw, more=True)
        else:
            name = EVENT_TYPE_NAMES.get(t, str(t))
            head.append(
                f"{self._header(h, raw)}\t{name}: table id {ev.table_id}{' flags: STMT_END_F' if stmt_end else ''}\n"
            )
            self._base64(raw, more=not stmt_end)
            if self.verbose:
                self._verbose_rows(t, ev)
        self.have_unflushed_events = True
        if stmt_end:
            self.have_unflushed_events = False
            out.extend(head)
            out.extend(self.body)
            out.extend(self.footer)
            head.clear()
            self.body.clear()
            self.footer.clear()
        return True

    def _base64(self, raw: bytes | memoryview, *, more: bool) -> None:
        """``Log_event::print_base64`` into the body cache."""
        if self.b64 is Base64Output.DECODE_ROWS or self.b64 is Base64Output.NEVER:
            return
        body = self.body
        if not body:
            body.append("\nBINLOG '\n")
        body.append(base64_lines(raw))
        if not more:
            body.append(f"'{DELIMITER}\n")

    def _verbose_rows(self, t: int, ev: RowsEvent) -> None:
        """``Rows_log_event::print_verbose`` into the footer cache (see :mod:`gtidkit.binlog.row_text`)."""
        from gtidkit.binlog.row_text import rows_pseudo_sql

        tm = self.table_maps.get(ev.table_id)
        self.footer.append(rows_pseudo_sql(t, ev, tm, self.verbose))

    def _payload(self, out: list[str], h: Any, ev: TransactionPayloadEvent, raw: bytes | memoryview) -> None:
        """``Transaction_payload_log_event::print``: the payload's header, then each event inside it through
        :meth:`event` at the payload's end_log_pos (given a CRC32 footer when the binlog has them, as
        mysqlbinlog does before printing its ``BINLOG`` block)."""
        kind = "ZSTD" if ev.compression_type == 0 else "NONE"
        line = (
            f"{self._header(h, raw)}\tTransaction_Payload\t\tpayload_size={len(ev.payload)}"
            f"\tcompression_type={kind}"
        )
        if kind != "NONE":
            line += f"\tuncompressed_size={ev.uncompressed_size}"
        self.head.append(line + "\n# Start of compressed events.\n")
        out.extend(self.head)
        self.head.clear()
        fde = self.fde
        if fde is None:
            return
        crc = fde.checksum_alg == ChecksumAlg.CRC32
        for inner in iter_payload_events(ev, fde, offset=h.log_pos):
            data = inner.raw
            if crc:
                size = len(data) + CHECKSUM_LEN
                data = data[:9] + size.to_bytes(4, "little") + data[13:]
                data += binascii.crc32(data).to_bytes(4, "little")
            fixed = BinlogEvent(replace(inner.header, log_pos=h.log_pos), inner.event, data)
            out.append(self.event(h.log_pos, data, fixed, in_payload=True))
        self.head.append("# End of compressed events.\n")

    def _other(self, h: Any, ev: Any, raw: bytes | memoryview) -> None:
        """Every other event's ``print`` (Intvar, Rand, User_var, Previous_gtids, Rotate, Stop ...): the lines of
        :func:`gtidkit.binlog.text.event_lines` without its ``# at`` line."""
        crc = None
        if self._has_footer(h.type_code, raw):
            crc = int.from_bytes(raw[len(raw) - CHECKSUM_LEN :], "little")
        self.head.extend(f"{ln}\n" for ln in event_lines(0, h, ev, crc)[1:])


def _has_gipk(tm: Any) -> int:
    """``has_generated_invisible_primary_key`` of a Table_map (8.0.30+): 1 when its first column is the
    generated invisible primary key ``my_row_id`` (the optional metadata carries the column names only with
    binlog_row_metadata=FULL; 0 otherwise)."""
    if isinstance(tm, _TableMapView):
        return 0  # the fast path is taken only when the event has no column named my_row_id
    try:
        names = tm.column_names()
    except BinlogDecodeError:  # a malformed optional metadata block: not a GIPK table
        return 0
    return 1 if names and names[0] == "my_row_id" else 0


def _fast_query(buf: Any, b: int, e: int) -> QueryEvent | None:
    """A Query event's fields from its bytes (``None``: let the codec decide)."""
    if e - b < _QUERY_POST.size + 1:
        return None
    thread_id, exec_time, db_len, error_code, status_len = _QUERY_POST.unpack_from(buf, b)
    db_at = b + _QUERY_POST.size + status_len
    q = db_at + db_len + 1
    if q > e or buf[q - 1] != 0:
        return None
    return QueryEvent(
        thread_id,
        exec_time,
        error_code,
        bytes(buf[b + _QUERY_POST.size : db_at]),
        bytes(buf[db_at : db_at + db_len]).decode(*_ENC),
        bytes(buf[q:e]).decode(*_ENC),
    )


def _fast_xid(buf: Any, b: int, e: int) -> XidEvent | None:
    if e - b != 8:
        return None
    return XidEvent(_U64.unpack_from(buf, b)[0])


def _fast_gtid(buf: Any, b: int, e: int) -> _GtidView | None:
    f = gtid_body_fields(buf, b, e)
    if f is None:
        return None
    raw_sid, gno, tlen, p = bytes(f[1]), f[2], f[7], f[8]
    if gno == 0 and raw_sid == _ZERO_SID:
        text = "ANONYMOUS"
    elif buf[b - 15] == _T.GTID_LOG_EVENT and 1 <= gno <= (1 << 63) - 2:  # the header's type byte
        text = f"{_sid_text(raw_sid)}:{gno}"
    else:
        return None
    versions = gtid_server_versions(buf, p, e, tlen)
    if versions is None:
        return None
    imm_ver, orig_ver, p = versions
    if p != e:  # a commit_group_ticket or anything newer: the codec reads it
        return None
    return _GtidView(f, imm_ver, orig_ver, text)


def _fast_table_map(buf: Any, b: int, e: int) -> _TableMapView | None:
    p = b + 8
    if p >= e:
        return None
    n = buf[p]
    d = p + 1 + n
    if d + 1 >= e or buf[d] != 0:
        return None
    m = buf[d + 1]
    tn = d + 2 + m
    if tn >= e or buf[tn] != 0 or b"my_row_id" in bytes(buf[tn:e]):
        return None
    return _TableMapView(
        int.from_bytes(buf[b : b + 6], "little"),
        bytes(buf[p + 1 : d]).decode(*_ENC),
        bytes(buf[d + 2 : tn]).decode(*_ENC),
    )


def _fast_rows(buf: Any, b: int, e: int) -> _RowsView | None:
    if e - b < 8:
        return None
    return _RowsView(int.from_bytes(buf[b : b + 6], "little"), buf[b + 6] | buf[b + 7] << 8)
