"""``BINLOG '<base64>'``: the row events mysqlbinlog prints, executed by a client session.

mysqlbinlog cannot turn a row event back into SQL, so it prints the event's bytes in base64 (first the binlog's
Format_description event, then each Table_map + rows group) and the server applies them as its replica applier
would. MySQL sources: ``sql/sql_binlog.cc`` (``mysql_client_binlog_statement`` and ``check_event_type``),
``sql/sys_vars.cc`` (``check_pseudo_replica_mode``), ``sql/log_event.cc`` (``Rows_log_event::do_apply_event``: a
rows event whose table id has no Table_map is ignored; ``rows_event_stmt_cleanup`` forgets the table maps at the
end of the statement), ``sql/rpl_gtid_execution.cc`` (``is_stmt_innocent``: BINLOG is not innocent, so a
statement under an already executed GTID_NEXT is skipped).

Rules, in MySQL's order:

* the account needs SUPER, BINLOG_ADMIN or REPLICATION_APPLIER (1227; checked by ``protocol/privileges.py``);
* an empty argument is ER_SYNTAX_ERROR 1149; text that is not base64 is ER_BASE64_DECODE_ERROR 1575;
* each decoded event is checked by type before it is decoded: a Format_description is always allowed (it is the
  session's description of the rest: MySQL's ``rli_fake``); Table_map, Rows_query and the rows events (v1, v2,
  PARTIAL_UPDATE_ROWS) need one first (1609 naming the type); any other type is 1730;
* an event that is cut short or does not decode with the Format_description in force is 1149;
* the events apply through the engine's applier code (:func:`gtidkit.engine.sql.rowimage.apply_rows_event`, the
  one :class:`gtidkit.engine.apply.ApplierSession` uses), inside the session's transaction: the changes become the
  session's row changes, so its binlog re-logs them under the session's GTID_NEXT (a replayed transaction keeps
  its original GTID) and an autocommitted BINLOG statement commits at its end like any DML;
* row errors are the applier's (1032 a row not found, 1062 a duplicate, 1146 no such table): MySQL raises them
  first, so its later ER_UNKNOWN_ERROR does not replace them in the diagnostics area.

``SET pseudo_replica_mode = 0`` (mysqlbinlog's last statement) forgets the Format_description and the table maps,
as MySQL deletes the session's ``rli_fake``.
"""

from __future__ import annotations

import base64
import binascii
import re
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gtidkit.binlog.codec import decode_event
from gtidkit.binlog.constants import EVENT_TYPE_NAMES, EventType
from gtidkit.binlog.events.control import FormatDescriptionEvent
from gtidkit.binlog.events.rows import ROWS_EVENT_TYPES, STMT_END_F, RowsEvent, RowsQueryEvent, TableMapEvent
from gtidkit.engine.binlog.transaction_events import statement_rows
from gtidkit.engine.results import StatementResult
from gtidkit.engine.sql import rowimage
from gtidkit.engine.sql.parse import unquote_string
from gtidkit.errors import BinlogDecodeError
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = [
    "BinlogStatementState",
    "binlog_argument",
    "check_binlog",
    "pseudo_replica_mode_changed",
    "run_binlog",
    "split_events",
]

#: Header fields the type check reads before decoding (``EVENT_TYPE_OFFSET`` and ``EVENT_LEN_OFFSET`` of
#: ``binlog_event.h``), and the shortest prefix that holds both.
EVENT_TYPE_OFFSET = 4
EVENT_LEN_OFFSET = 9
_MIN_PREFIX = EVENT_LEN_OFFSET + 4

#: Types that need a Format_description seen first (``check_event_type``).
_NEED_FDE = frozenset({EventType.ROWS_QUERY_LOG_EVENT, EventType.TABLE_MAP_EVENT, *ROWS_EVENT_TYPES})

#: ``BINLOG TEXT_STRING_sys`` (sql_yacc.yy ``binlog_base64_event``).
_BINLOG = re.compile(
    r"^\s*BINLOG\s+('(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")\s*;?\s*$", re.IGNORECASE | re.DOTALL
)
#: base64 alphabet with padding, whitespace allowed between chunks (``MY_BASE64_DECODE_ALLOW_MULTIPLE_CHUNKS``).
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")


@dataclass
class BinlogStatementState:
    """What a session's BINLOG statements remember between statements (MySQL's ``thd->rli_fake``).

    Attributes:
        fde: the Format_description in force, None before the first one.
        table_maps: table id -> Table_map, until the end of the statement whose rows use them (STMT_END_F).
        statement: the row changes of the rows statement not yet ended (a statement's rows events may be split
            over several BINLOG statements).
        query: the text of the last Rows_query event (re-logged before the statement's rows when the session's
            binlog writes Rows_query events).
    """

    fde: FormatDescriptionEvent | None = None
    table_maps: dict[int, TableMapEvent] = field(default_factory=dict)
    statement: list[Any] = field(default_factory=list)
    query: str = ""


def binlog_argument(text: str) -> str:
    """The string of ``BINLOG '<base64>'`` (comments already stripped).

    Raises:
        MySQLError: 1149 ER_SYNTAX_ERROR when ``text`` is not a BINLOG statement or its string is empty.
    """
    m = _BINLOG.match(text)
    if m is None:
        raise mysql_error(1149)
    arg = unquote_string(m.group(1))
    if not arg:
        raise mysql_error(1149)
    return arg


def decode_base64(arg: str) -> bytes:
    """The bytes of the argument: base64 chunks, whitespace between them ignored.

    Raises:
        MySQLError: 1575 ER_BASE64_DECODE_ERROR.
    """
    if not _BASE64.match(arg):
        raise mysql_error(1575)
    compact = "".join(arg.split())
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        # MySQL decodes chunk by chunk: each '='-padded chunk ends and the next begins
        out = bytearray()
        for chunk in re.findall(r"[A-Za-z0-9+/]+=*", compact):
            try:
                out += base64.b64decode(chunk, validate=True)
            except (binascii.Error, ValueError) as err:
                raise mysql_error(1575) from err
        return bytes(out)


def split_events(data: bytes) -> list[bytes]:
    """The events in ``data`` one after another, each ``event_size`` bytes (header field at offset 9).

    Raises:
        MySQLError: 1149 when an event is cut short (``bytes_decoded < EVENT_LEN_OFFSET + 4`` or its size is
            larger than what remains), as MySQL checks before decoding.
    """
    out = []
    pos = 0
    while pos < len(data):
        rest = len(data) - pos
        if rest < _MIN_PREFIX:
            raise mysql_error(1149)
        (size,) = struct.unpack_from("<I", data, pos + EVENT_LEN_OFFSET)
        if size > rest or size < _MIN_PREFIX:
            raise mysql_error(1149)
        out.append(data[pos : pos + size])
        pos += size
    return out


def _type_name(type_code: int) -> str:
    return EVENT_TYPE_NAMES.get(type_code, f"Unknown event type {type_code}")


def _check_event_type(type_code: int, state: BinlogStatementState) -> None:
    if type_code == EventType.FORMAT_DESCRIPTION_EVENT:
        return
    if type_code in _NEED_FDE:
        if state.fde is None:
            raise mysql_error(1609, _type_name(type_code))
        return
    raise mysql_error(1730, _type_name(type_code))


def state_of(session: Session) -> BinlogStatementState:
    """The session's :class:`BinlogStatementState`, created on first use (MySQL creates ``rli_fake`` then)."""
    state = session.binlog_statement_state
    if state is None:
        state = session.binlog_statement_state = BinlogStatementState()
    return state


def check_binlog(session: Session, stmt: Statement) -> None:
    """The statement is ``BINLOG '<non-empty string>'`` (checked before anything happens).

    Raises:
        MySQLError: 1149 ER_SYNTAX_ERROR.
    """
    binlog_argument(stmt.text)


def run_binlog(session: Session, stmt: Statement) -> StatementResult:
    """Execute ``BINLOG '<base64>'`` in ``session`` (see the module docstring for the rules): its events are
    applied in the session's transaction; in autocommit mode the rows statement is closed here and the lifecycle
    (:func:`gtidkit.engine.statements.dispatch.dispatch`) commits the transaction.

    Args:
        session: the client session.
        stmt: the classified statement (``stmt.text`` the statement as sent, comments stripped).

    Returns:
        An OK result.

    Raises:
        MySQLError: 1149, 1575, 1609, 1730 as above; the applier's row errors (1032, 1062, 1146, 1364 ...).
    """
    arg = binlog_argument(stmt.text)
    autocommit = not session.explicit_trx and session.autocommit()
    state = state_of(session)
    try:
        data = decode_base64(arg)
        for raw in split_events(data):
            _apply_one(session, state, raw)
    except BaseException:
        state.table_maps.clear()
        state.statement = []
        state.query = ""
        raise
    if autocommit and (session.in_transaction() or state.statement):
        _end_statement(session, state)
    return StatementResult()


def _apply_one(session: Session, state: BinlogStatementState, raw: bytes) -> None:
    type_code = raw[EVENT_TYPE_OFFSET]
    _check_event_type(type_code, state)
    fde = None if type_code == EventType.FORMAT_DESCRIPTION_EVENT else state.fde
    try:
        ev = decode_event(raw, fde, verify_checksum=False).event
    except BinlogDecodeError as err:
        raise mysql_error(1149) from err
    if isinstance(ev, FormatDescriptionEvent):
        state.fde = ev
    elif isinstance(ev, RowsQueryEvent):
        state.query = ev.query
    elif isinstance(ev, TableMapEvent):
        state.table_maps[ev.table_id] = ev
    elif isinstance(ev, RowsEvent):
        _apply_rows(session, state, ev)
    else:  # a type the Format_description in force does not describe (its post-header table is too short)
        raise mysql_error(1149)


def _apply_rows(session: Session, state: BinlogStatementState, ev: RowsEvent) -> None:
    tm = state.table_maps.get(ev.table_id)
    if tm is not None:  # Rows_log_event::do_apply_event: no Table_map for the id, nothing to apply
        session.ensure_write_trx()
        changes = rowimage.apply_rows_event(session.executor, tm, ev)
        session.row_changes.extend(changes)
        state.statement.extend(changes)
        if changes:
            session.trx_dirty = True
    if ev.flags & STMT_END_F:
        _end_statement(session, state)
        state.table_maps.clear()  # rows_event_stmt_cleanup


def _end_statement(session: Session, state: BinlogStatementState) -> None:
    """Close the rows statement: its changes become one logged statement of the session's transaction."""
    if state.statement:
        logged = statement_rows(session.server, session, state.statement, state.query)
        if not state.query:
            logged.query = None
        session.row_statements.append(logged)
    state.statement = []
    state.query = ""


def pseudo_replica_mode_changed(session: Session, new: bool) -> str | None:
    """``SET pseudo_replica_mode`` (alias ``pseudo_slave_mode``) is being set to ``new`` in ``session``
    (``check_pseudo_replica_mode``, after its outside-a-transaction check): turning it off forgets the session's
    Format_description and table maps (MySQL deletes ``rli_fake``).

    Returns:
        The text of the warning MySQL gives (as ER_WRONG_VALUE_FOR_VAR 1231), or None: "'pseudo_replica_mode' is
        already ON." when the session has BINLOG state and the mode goes from OFF to ON; "'pseudo_replica_mode'
        change was ineffective." for ON again with BINLOG state, or OFF again without it; "Replica applier
        execution mode not active, statement ineffective." for ON -> OFF without BINLOG state.
    """
    previous = bool(session.session_vars.get("pseudo_replica_mode", False))
    if session.binlog_statement_state is not None:
        if not new:
            session.binlog_statement_state = None
            return None
        if previous:
            return "'pseudo_replica_mode' change was ineffective."
        return "'pseudo_replica_mode' is already ON."
    if not previous and not new:
        return "'pseudo_replica_mode' change was ineffective."
    if previous and not new:
        return "Replica applier execution mode not active, statement ineffective."
    return None
