"""The replica's statements, registered as the handlers of their rows of the engine's statement specs
(``server.statements``, :mod:`gtidkit.engine.statements.specs`) (classifier info in
``stmt.info``): CHANGE REPLICATION SOURCE TO / CHANGE MASTER TO, START / STOP REPLICA|SLAVE [IO_THREAD | SQL_THREAD],
RESET REPLICA|SLAVE [ALL], SHOW REPLICA STATUS / SHOW SLAVE STATUS (5.7 column names), SHOW RELAYLOG EVENTS.

MySQL: ``sql/sql_parse.cc`` (SQLCOM_CHANGE_MASTER, SQLCOM_SLAVE_START, SQLCOM_SLAVE_STOP, SQLCOM_RESET with
REFRESH_REPLICA, SQLCOM_SHOW_SLAVE_STAT) dispatching to ``sql/rpl_replica.cc``.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from gtidkit.binlog.constants import EVENT_TYPE_NAMES
from gtidkit.binlog.file import read_events
from gtidkit.binlog.text import event_info
from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.sql.metadata import result_set
from gtidkit.errors import BinlogDecodeError
from gtidkit.mysql_errors import REPLICA_ERRANT_GTIDS, message, mysql_error
from gtidkit.replication.channel import MASTER_ALIASES
from gtidkit.replication.filters import parse_filter_statement
from gtidkit.replication.replica import REPLICA_STATUS_COLUMNS, SLAVE_STATUS_COLUMNS, Replica
from gtidkit.replication.until import parse_until

__all__ = ["EVENTS_COLUMNS", "deprecated_syntax", "register", "relaylog_events", "thread_types"]

#: SHOW BINLOG EVENTS / SHOW RELAYLOG EVENTS columns (``Log_event::init_show_field_list``).
EVENTS_COLUMNS = ("Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info")

_CHANNEL = re.compile(r"\bFOR\s+CHANNEL\s+(['\"`])(.*?)\1", re.IGNORECASE)


def thread_types(text: str) -> tuple[bool, bool]:
    """(io, sql) named by START/STOP REPLICA's thread list; both when none is named (``thread_mask``).

    Args:
        text: the statement text.
    """
    upper = text.upper()
    io = "IO_THREAD" in upper
    sql = "SQL_THREAD" in upper
    if not io and not sql:
        return True, True
    return io, sql


def _check_channel(text: str) -> None:
    m = _CHANNEL.search(text)
    if m and m.group(2) != "":
        raise mysql_error(3074, m.group(2))


def relaylog_events(
    replica: Replica, file: str | None, pos: int | None, offset: int = 0, limit: int | None = None
) -> StatementResult:
    """SHOW RELAYLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] n] (``show_binlog_events`` of
    ``sql/binlog.cc`` on the relay log): the events of one relay file (the oldest by default), End_log_pos being
    each header's log_pos (the source's position for the source's events), Info as SHOW BINLOG EVENTS words it.
    Only whole transactions of the file being written are listed. A FROM position inside an event lists from the
    next event.

    Args:
        replica: the channel whose relay log is read.
        file: relay file name, or None for the first in the index.
        pos: byte offset to start at (None = 4).
        offset, limit: LIMIT's row offset and count (None = all).

    Raises:
        MySQLError: 1220 ER_ERROR_WHEN_EXECUTING_COMMAND ``Could not find target log`` for a file not in the index,
            ``Wrong offset or I/O error`` for an unreadable one.
    """
    relay = replica.relay
    names = list(relay.index)
    name = file.rsplit("/", 1)[-1] if file is not None else (names[0] if names else None)
    if name is None or name not in names:
        raise mysql_error(1220, "SHOW RELAYLOG EVENTS", "Could not find target log")
    end, _finished = relay.readable_end(name)
    start = max(pos or 0, 4)
    rows: list[tuple[Any, ...]] = []
    try:
        for pe in read_events(relay.path(name), expand_payloads=False, stop_at_torn_tail=True):
            if pe.end_pos > end:
                break
            if pe.pos < start:
                continue
            h = pe.header
            rows.append(
                (
                    name,
                    pe.pos,
                    EVENT_TYPE_NAMES.get(h.type_code, "Unknown"),
                    h.server_id,
                    h.log_pos,
                    event_info(pe.event),
                )
            )
    except BinlogDecodeError as err:
        raise mysql_error(1220, "SHOW RELAYLOG EVENTS", f"Wrong offset or I/O error ({err})") from err
    rows = rows[offset:]
    if limit is not None:
        rows = rows[:limit]
    return result_set(list(EVENTS_COLUMNS), rows)


#: The 5.7 statement spellings 8.0.22+ deprecate, with their replacements (``sql/sql_yacc.yy``:
#: ``push_deprecated_warn(YYTHD, "START SLAVE", "START REPLICA")`` ...): warning 1287 ER_WARN_DEPRECATED_SYNTAX.
_DEPRECATED_STATEMENTS = (
    ("CHANGE MASTER", "CHANGE REPLICATION SOURCE"),
    ("START SLAVE", "START REPLICA"),
    ("STOP SLAVE", "STOP REPLICA"),
    ("RESET SLAVE", "RESET REPLICA"),
    ("SHOW SLAVE STATUS", "SHOW REPLICA STATUS"),
)


def _deprecated(old: str, new: str) -> Condition:
    return Condition("Warning", 1287, message(1287, old, new))


def deprecated_syntax(text: str) -> list[Condition]:
    """Warning 1287 when ``text`` uses a 5.7 spelling (CHANGE MASTER, START / STOP / RESET SLAVE, SHOW SLAVE
    STATUS), as MySQL 8.0's parser gives it; else nothing."""
    words = text.upper().split(maxsplit=3)  # a statement classify.py recognised: its leading keywords
    for old, new in _DEPRECATED_STATEMENTS:
        n = old.count(" ") + 1
        if words[:n] == old.split():
            return [_deprecated(old, new)]
    return []


def register(server: Any, replica: Replica) -> None:
    """Register the replica's statement handlers on ``server`` (an engine ``Server``): they run the engine's
    statement lifecycle (implicit commit, GTID pre-checks ...) as every statement does.

    Args:
        server: the engine server whose statement table (``server.statements``) receives the handlers.
        replica: the channel controller the statements act on.
    """

    def change(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        options = dict(stmt.info.get("options", {}))
        warnings = deprecated_syntax(stmt.text)
        warnings += [
            _deprecated(name.upper(), MASTER_ALIASES[name].upper())
            for name in options
            if name in MASTER_ALIASES
        ]
        notes = replica.change_source(options, secure=bool(getattr(session, "secure_transport", False)))
        return StatementResult(warnings=tuple(warnings + notes))

    def thread(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        warnings = deprecated_syntax(stmt.text)
        io, sql = thread_types(re.split(r"\bUNTIL\b", stmt.text, maxsplit=1, flags=re.IGNORECASE)[0])
        if stmt.info.get("start"):
            notes = replica.start(io, sql, until=parse_until(stmt.text))
        else:
            notes = replica.stop(io, sql)
        return StatementResult(warnings=tuple(warnings + notes))

    def reset(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        warnings = deprecated_syntax(stmt.text)
        replica.reset(bool(stmt.info.get("all")))
        return StatementResult(warnings=tuple(warnings))

    def status(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        slave = bool(stmt.info.get("slave"))  # SHOW SLAVE STATUS: the old column names
        names = SLAVE_STATUS_COLUMNS if slave else REPLICA_STATUS_COLUMNS
        rows = [replica.status_row(slave=slave)] if replica.exists else []
        res = result_set(list(names), rows)
        if slave:
            res = dataclasses.replace(res, warnings=(*res.warnings, *deprecated_syntax(stmt.text)))
        errant = replica.receiver.errant_gtids if replica.exists else None
        if errant:
            warning = Condition("Warning", 1105, REPLICA_ERRANT_GTIDS % errant)
            res = dataclasses.replace(res, warnings=(*res.warnings, warning))
        return res

    def relaylog(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        info = stmt.info
        return relaylog_events(
            replica, info.get("file"), info.get("pos"), info.get("off", 0), info.get("cnt")
        )

    def change_filter(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        replica.change_filter(parse_filter_statement(stmt.text))
        return StatementResult()

    table = (
        server.statements
    )  # the server's statement specs: these rows keep their flags, only the handler changes
    table.register("change_replication_filter", change_filter)
    table.register("relaylog_events", relaylog)
    table.register("change_replication_source", change)
    table.register("replica_thread", thread)
    table.register("reset_replica", reset)
    table.register("replica_status", status)
