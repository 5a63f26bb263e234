"""SHOW [GLOBAL | SESSION] STATUS [LIKE 'pattern' | WHERE expr]: the server status variables the engine keeps.

Only the counters the engine can answer truthfully are listed (MySQL has several hundred): ``Prepared_stmt_count``
(statements prepared now in every session, SQL PREPARE and COM_STMT_PREPARE alike), ``Ssl_cipher`` /
``Ssl_version`` (this connection's TLS cipher and protocol, empty on a plain connection), ``Threads_connected``
(open sessions, replication's own included, as MySQL counts its replica threads), ``Threads_running`` (1: the
engine does not track which sessions are mid-statement; the asking session always is), ``Uptime`` and
``Uptime_since_flush_status`` (seconds since start-up: the server's, also in a worker that started later;
FLUSH STATUS does not reset it), ``Innodb_rows_inserted`` / ``_updated`` / ``_deleted`` (rows written by
statements, as SHOW ENGINE INNODB STATUS counts them; rows read are not counted, so ``Innodb_rows_read`` is not
listed). ``Prepared_stmt_count`` counts every worker's sessions (the shared page). A higher layer adds or replaces
values through ``Server.status_providers``: the wire server answers ``Connections``, ``Max_used_connections``,
``Questions`` (client commands received), ``Bytes_received`` / ``Bytes_sent`` (protocol bytes read from and
written to clients, packet headers included, before TLS encryption as MySQL's ``net_serv`` counts them) and a real
``Threads_running`` (connections executing a command); with several workers each of those and the
``Innodb_rows_*`` counters are summed over the workers (asked through the control service), and the supervisor
counts ``Connections``, ``Max_used_connections`` and ``Threads_connected`` (protocol/admin.py ``status_values``). Tools read these before
and while they work: Percona Toolkit's ``--max-load`` / ``--critical-load`` poll ``SHOW GLOBAL STATUS LIKE
'Threads_running'``. Rows are sorted by name; LIKE and WHERE filter as SHOW VARIABLES does (``Variable_name``,
``Value``).

The statement counters (:mod:`gtidkit.engine.statements.com_counters`): every ``Com_xxx`` of MySQL 8.0,
``Questions`` and ``Queries``. SHOW [SESSION] STATUS shows the session's ``Com_xxx`` and ``Questions``, SHOW GLOBAL
STATUS the server's sums (every worker's); ``Queries`` is server-wide in both (MySQL's query id). FLUSH STATUS
moves every session's counters into the server's and starts them again from 0 (the global sums stay). Rows come
in MySQL's order: by name, the ``Com_`` rows as one block at "Com" in ``com_status_vars`` order.
``performance_schema.global_status`` / ``session_status`` hold the same rows without the ``Com_`` ones (RM8
"Performance Schema Status Variable Tables": the Performance Schema does not collect them).

Source: MySQL 8.4 Reference Manual "SHOW STATUS Statement" and "Server Status Variables" (Threads_connected,
Threads_running, Uptime, Uptime_since_flush_status).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from gtidkit.engine.results import StatementResult
from gtidkit.engine.statements import com_counters
from gtidkit.engine.statements.innodb_status import row_status
from gtidkit.engine.statements.prepared import prepared_count
from gtidkit.engine.statements.variables import SHOW_COLUMNS, plain_like

if TYPE_CHECKING:
    from gtidkit.engine.session import Session

__all__ = ["providers", "show_status", "status_rows"]


def status_rows(session: Session, scope: str | None = None) -> list[tuple[str, str]]:
    """(Variable_name, Value) of every status variable kept, in SHOW STATUS order.

    Args:
        session: the asking session.
        scope: ``"GLOBAL"`` for the server's values; else (SESSION, LOCAL, None) the session's own where a
            variable has one (Com_xxx, Questions), the server's for the others.
    """
    server = session.server
    uptime = str(int(time.time() - server.started_at))
    rows = {
        "Prepared_stmt_count": str(prepared_count(session)),
        "Ssl_cipher": session.tls_cipher,
        "Ssl_version": session.tls_version,
        "Threads_connected": str(len(server.sessions())),
        "Threads_running": "1",
        "Uptime": uptime,
        "Uptime_since_flush_status": uptime,
    }
    rows.update((name, str(n)) for name, n in row_status(server).items())
    rows.update((name, str(n)) for name, n in com_counters.describe(server.statement_counts()).items())
    for provider in server.status_providers:  # the wire server's (Connections, the workers' sums ...)
        rows.update(provider())
    if (scope or "").upper() != "GLOBAL":
        own = session.status_counts
        rows.update((name, str(n)) for name, n in com_counters.com_rows(own))
        rows["Questions"] = str(own[com_counters.QUESTIONS])
    return sorted(rows.items(), key=_order)


def _order(row: tuple[str, str]) -> tuple[str, int]:
    """SHOW STATUS order: by name, the Com_ rows one block at "Com" in MySQL's order (``com_status_vars`` is one
    SHOW_ARRAY entry named "Com" among the sorted status variables)."""
    name = row[0]
    if name.startswith("Com_"):
        return ("Com", _COM_ORDER[name])
    return (name, 0)


_COM_ORDER = {f"Com_{name}": i for i, name in enumerate(com_counters.COM_NAMES)}


def providers(session: Session) -> dict[tuple[str, str], Callable[[], list[tuple[str, str]]]]:
    """Row providers of ``performance_schema.global_status`` / ``session_status`` for the SQL layer's per-query
    tables (``Executor.virtual_tables``): SHOW GLOBAL / SESSION STATUS's rows without the ``Com_`` ones (with them
    while :func:`show_status` filters its rows through the table)."""
    return {
        ("performance_schema", "global_status"): lambda: _table_rows(session, "GLOBAL"),
        ("performance_schema", "session_status"): lambda: _table_rows(session, None),
    }


def _table_rows(session: Session, scope: str | None) -> list[tuple[str, str]]:
    rows = status_rows(session, scope)
    if _SHOWING not in session.executor.virtual_tables:
        rows = [row for row in rows if not row[0].startswith("Com_")]
    return rows


#: present in the session's virtual tables while SHOW STATUS reads its rows through the Performance Schema table
_SHOWING = ("", "com_rows_included")


def show_status(
    session: Session, like: str | None, where: str | None, scope: str | None = None
) -> StatementResult:
    """SHOW [GLOBAL|SESSION] STATUS [LIKE 'p' | WHERE expr] (``like``: the quoted pattern as written; ``where``: the
    expression's text; ``scope``: GLOBAL, SESSION, LOCAL or None), as :mod:`gtidkit.engine.statements.classify`
    parsed it. A plain LIKE pattern is matched here; any other filter runs as a query over the Performance Schema
    table of the scope (as MySQL 8.0's SHOW STATUS reads it), its ``Com_`` rows included for this query.

    Raises:
        MySQLError: what the WHERE expression raises (1054 for an unknown column ...).
    """
    from gtidkit.engine.sql.metadata import result_set

    if like is None and where is None:
        return result_set(list(SHOW_COLUMNS), status_rows(session, scope))
    rx = plain_like(like) if like is not None else None
    if rx is not None:
        return result_set(list(SHOW_COLUMNS), [r for r in status_rows(session, scope) if rx.fullmatch(r[0])])
    cond = (
        f" WHERE Variable_name LIKE {like}"
        if like is not None
        else f" WHERE {str(where).strip().rstrip(';')}"
    )
    table = "global_status" if (scope or "").upper() == "GLOBAL" else "session_status"
    sql = (
        "SELECT Variable_name, Value FROM (SELECT VARIABLE_NAME AS Variable_name, VARIABLE_VALUE AS Value "
        f"FROM performance_schema.{table}) AS v{cond}"
    )
    tables = session.executor.virtual_tables
    tables[_SHOWING] = list
    try:
        er = session.executor.execute_select(sql, session.current_db)
    finally:
        del tables[_SHOWING]
    return result_set(list(SHOW_COLUMNS), sorted((tuple(r) for r in er.rows), key=_order))
