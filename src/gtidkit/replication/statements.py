"""The replica's statements, answered through the engine's ``server.statement_hooks`` (classifier info in
``stmt.info``): CHANGE REPLICATION SOURCE TO / CHANGE MASTER TO, START / STOP REPLICA|SLAVE [IO_THREAD | SQL_THREAD],
RESET REPLICA|SLAVE [ALL], SHOW REPLICA STATUS / SHOW SLAVE STATUS (5.7 column names).

MySQL: ``sql/sql_parse.cc`` (SQLCOM_CHANGE_MASTER, SQLCOM_SLAVE_START, SQLCOM_SLAVE_STOP, SQLCOM_RESET with
REFRESH_REPLICA, SQLCOM_SHOW_SLAVE_STAT) dispatching to ``sql/rpl_replica.cc``.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.sql.metadata import result_set
from gtidkit.mysql_errors import REPLICA_ERRANT_GTIDS, mysql_error
from gtidkit.replication.replica import REPLICA_STATUS_COLUMNS, SLAVE_STATUS_COLUMNS, Replica

__all__ = ["register", "thread_types"]

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


def register(server: Any, replica: Replica) -> None:
    """Install the replica's statement hooks on ``server`` (an engine ``Server``).

    Args:
        server: the engine server whose ``statement_hooks`` receive the handlers.
        replica: the channel controller the statements act on.
    """

    def change(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        notes = replica.change_source(dict(stmt.info.get("options", {})))
        return StatementResult(warnings=tuple(notes))

    def thread(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        if re.search(r"\bUNTIL\b", stmt.text, re.IGNORECASE):
            raise mysql_error(1235, "START REPLICA UNTIL")
        io, sql = thread_types(stmt.text)
        notes = replica.start(io, sql) if stmt.info.get("start") else replica.stop(io, sql)
        return StatementResult(warnings=tuple(notes))

    def reset(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        replica.reset(bool(stmt.info.get("all")))
        return StatementResult()

    def status(session: Any, stmt: Any) -> StatementResult:
        _check_channel(stmt.text)
        slave = bool(stmt.info.get("slave"))  # SHOW SLAVE STATUS: the old column names
        names = SLAVE_STATUS_COLUMNS if slave else REPLICA_STATUS_COLUMNS
        rows = [replica.status_row()] if replica.exists else []
        res = result_set(list(names), rows)
        errant = replica.receiver.errant_gtids if replica.exists else None
        if errant:
            warning = Condition("Warning", 1105, REPLICA_ERRANT_GTIDS % errant)
            res = dataclasses.replace(res, warnings=(*res.warnings, warning))
        return res

    server.statement_hooks["change_replication_source"] = change
    server.statement_hooks["replica_thread"] = thread
    server.statement_hooks["reset_replica"] = reset
    server.statement_hooks["replica_status"] = status
