"""SHOW [GLOBAL | SESSION] STATUS [LIKE 'pattern' | WHERE expr]: the server status variables the engine keeps.

Only the counters the engine can answer truthfully are listed (MySQL has several hundred): ``Prepared_stmt_count``
(statements prepared now in every session, SQL PREPARE and COM_STMT_PREPARE alike), ``Ssl_cipher`` /
``Ssl_version`` (this connection's TLS cipher and protocol, empty on a plain connection), ``Threads_connected``
(open sessions, replication's own included, as MySQL counts its replica threads), ``Threads_running`` (1: the
engine does not track which sessions are mid-statement; the asking session always is), ``Uptime`` and
``Uptime_since_flush_status`` (seconds since start-up: the server's, also in a worker that started later;
FLUSH STATUS is not supported), ``Innodb_rows_inserted`` / ``_updated`` / ``_deleted`` (rows written by
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

Source: MySQL 8.4 Reference Manual "SHOW STATUS Statement" and "Server Status Variables" (Threads_connected,
Threads_running, Uptime, Uptime_since_flush_status).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from gtidkit.engine.results import StatementResult
from gtidkit.engine.statements.innodb_status import row_status
from gtidkit.engine.statements.prepared import prepared_count
from gtidkit.engine.statements.variables import SHOW_COLUMNS

if TYPE_CHECKING:
    from gtidkit.engine.session import Session

__all__ = ["show_status", "status_rows"]


def status_rows(session: Session) -> list[tuple[str, str]]:
    """(Variable_name, Value) of every status variable kept, sorted by name."""
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
    for provider in server.status_providers:  # the wire server's (Connections, Threads_running ...)
        rows.update(provider())
    return sorted(rows.items())


def show_status(session: Session, like: str | None, where: str | None) -> StatementResult:
    """SHOW [GLOBAL|SESSION] STATUS [LIKE 'p' | WHERE expr] (``like``: the quoted pattern as written; ``where``: the
    expression's text), as :mod:`gtidkit.engine.statements.classify` parsed it.

    Raises:
        MySQLError: what the WHERE expression raises (1054 for an unknown column ...).
    """
    from gtidkit.engine.sql.metadata import result_set

    rows = status_rows(session)
    cond = ""
    if like is not None:
        cond = f" WHERE Variable_name LIKE {like}"
    elif where is not None:
        cond = f" WHERE {where.strip().rstrip(';')}"
    values = " UNION ALL ".join(f"SELECT '{n}' AS Variable_name, '{v}' AS Value" for n, v in rows)
    sql = f"SELECT Variable_name, Value FROM ({values}) AS v{cond} ORDER BY Variable_name"
    er = session.executor.execute_select(sql, session.current_db)
    return result_set(list(SHOW_COLUMNS), [tuple(r) for r in er.rows])
