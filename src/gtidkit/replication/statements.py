"""The replica's statements, registered as the handlers of their rows of the engine's statement specs
(``server.statements``, :mod:`gtidkit.engine.statements.specs`) (classifier info in
``stmt.info``): CHANGE REPLICATION SOURCE TO / CHANGE MASTER TO, START / STOP REPLICA|SLAVE [IO_THREAD | SQL_THREAD],
RESET REPLICA|SLAVE [ALL], FLUSH RELAY LOGS; SHOW REPLICA STATUS / SHOW SLAVE STATUS (5.7 column names) and SHOW
RELAYLOG EVENTS are the providers of their SHOWs (``server.provide_show``, engine/statements/show.py).

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
from gtidkit.engine.api import result_set
from gtidkit.engine.results import Condition, StatementResult
from gtidkit.errors import BinlogDecodeError
from gtidkit.mysql_errors import REPLICA_ERRANT_GTIDS, message, mysql_error
from gtidkit.replication.channel import MASTER_ALIASES
from gtidkit.replication.channel_map import ChannelMap
from gtidkit.replication.filters import parse_filter_statement
from gtidkit.replication.replica import REPLICA_STATUS_COLUMNS, SLAVE_STATUS_COLUMNS, Replica
from gtidkit.replication.until import parse_until

__all__ = ["EVENTS_COLUMNS", "deprecated_syntax", "register", "relaylog_events", "thread_types"]

#: SHOW BINLOG EVENTS / SHOW RELAYLOG EVENTS columns (``Log_event::init_show_field_list``).
EVENTS_COLUMNS = ("Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info")


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
)


def _deprecated(old: str, new: str) -> Condition:
    return Condition("Warning", 1287, message(1287, old, new))


def deprecated_syntax(text: str) -> list[Condition]:
    """Warning 1287 when ``text`` uses a 5.7 spelling (CHANGE MASTER, START / STOP / RESET SLAVE), as MySQL 8.0's
    parser gives it; else nothing (SHOW SLAVE STATUS: its parsed ``slave`` argument, see :func:`register`)."""
    words = text.upper().split(maxsplit=3)  # a statement classify.py recognised: its leading keywords
    for old, new in _DEPRECATED_STATEMENTS:
        n = old.count(" ") + 1
        if words[:n] == old.split():
            return [_deprecated(old, new)]
    return []


def _threads_text(text: str) -> str:
    """START / STOP REPLICA's text before UNTIL and FOR CHANNEL: where its thread list is."""
    return re.split(r"\b(?:UNTIL|FOR\s+CHANNEL)\b", text, maxsplit=1, flags=re.IGNORECASE)[0]


def register(server: Any, channels: ChannelMap) -> None:
    """Register the replica's statement handlers and SHOW providers on ``server`` (an engine ``Server``): the
    statements run the engine's statement lifecycle (implicit commit, GTID pre-checks ...) as every statement does.

    Args:
        server: the engine server whose statement table (``server.statements``) receives the handlers (its
            ``provide_show`` the SHOW REPLICA STATUS and SHOW RELAYLOG EVENTS providers).
        channels: the replica's channels; ``FOR CHANNEL 'x'`` (the classifier's ``info["channel"]``) picks one,
            as :mod:`gtidkit.replication.channel_map` describes.
    """

    def change(session: Any, stmt: Any) -> StatementResult:
        options = dict(stmt.info.get("options", {}))
        warnings = deprecated_syntax(stmt.text)
        warnings += [
            _deprecated(name.upper(), MASTER_ALIASES[name].upper())
            for name in options
            if name in MASTER_ALIASES
        ]
        secure = bool(getattr(session, "secure_transport", False))
        notes = channels.change_source(options, stmt.info.get("channel"), secure=secure)
        return StatementResult(warnings=tuple(warnings + notes))

    def thread(session: Any, stmt: Any) -> StatementResult:
        warnings = deprecated_syntax(stmt.text)
        io, sql = thread_types(_threads_text(stmt.text))
        channel = stmt.info.get("channel")
        if stmt.info.get("start"):
            notes = channels.start(io, sql, parse_until(stmt.text), channel)
        else:
            notes = channels.stop(io, sql, channel)
        return StatementResult(warnings=tuple(warnings + notes))

    def reset(session: Any, stmt: Any) -> StatementResult:
        warnings = deprecated_syntax(stmt.text)
        channels.reset(bool(stmt.info.get("all")), stmt.info.get("channel"))
        return StatementResult(warnings=tuple(warnings))

    def status(session: Any, stmt: Any) -> StatementResult:
        slave = bool(stmt.info.get("slave"))  # SHOW SLAVE STATUS: the old column names
        names = SLAVE_STATUS_COLUMNS if slave else REPLICA_STATUS_COLUMNS
        channel = stmt.info.get("channel")
        res = result_set(list(names), channels.status_rows(channel, slave=slave))
        if slave:  # 1287 as for the other 5.7 spellings (sql_yacc.yy push_deprecated_warn)
            warning = _deprecated("SHOW SLAVE STATUS", "SHOW REPLICA STATUS")
            res = dataclasses.replace(res, warnings=(*res.warnings, warning))
        for errant in channels.errant_gtids(channel):
            warning = Condition("Warning", 1105, REPLICA_ERRANT_GTIDS % errant)
            res = dataclasses.replace(res, warnings=(*res.warnings, warning))
        return res

    def relaylog(session: Any, stmt: Any) -> StatementResult:
        info = stmt.info
        replica = channels.one(info.get("channel"))
        return relaylog_events(
            replica, info.get("file"), info.get("pos"), info.get("off", 0), info.get("cnt")
        )

    def change_filter(session: Any, stmt: Any) -> StatementResult:
        channels.change_filter(parse_filter_statement(stmt.text), stmt.info.get("channel"))
        return StatementResult()

    def flush_relay_logs(session: Any, stmt: Any) -> StatementResult:
        channels.flush_relay_logs(stmt.info.get("channel"))
        return StatementResult()

    table = (
        server.statements
    )  # the server's statement specs: these rows keep their flags, only the handler changes
    table.register("change_replication_filter", change_filter)
    table.register("change_replication_source", change)
    table.register("replica_thread", thread)
    table.register("reset_replica", reset)
    # not a statement: FLUSH RELAY LOGS (engine/statements/flush.py) asks this row for the channels' relay logs
    table.register("flush_relay_logs", flush_relay_logs)
    # the replica's SHOWs: providers of engine/statements/show.py's rows owned by replication
    server.provide_show("relaylog_events", relaylog)
    server.provide_show("replica_status", status)
