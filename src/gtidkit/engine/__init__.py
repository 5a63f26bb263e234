"""gtidkit.engine: an embedded MySQL-style server core on SQLite with MySQL's GTID state machine.

Public surface: :class:`Server` (``Server.open(datadir, **options)``, ``server.session()``, ``server.shutdown()``,
commit and binlog-flush observers), :class:`Session` (``execute(sql) -> list[StatementResult]``, one per statement)
and the result values of :mod:`gtidkit.engine.results` (:class:`StatementResult`, :class:`Column`,
:class:`StateChange`). Errors are :class:`gtidkit.errors.MySQLError` with MySQL's code, SQLSTATE and message.
"""

from gtidkit.engine.results import Column, Condition, StateChange, StatementResult
from gtidkit.engine.server import Server
from gtidkit.engine.session import Session
from gtidkit.errors import MySQLError

__all__ = ["Column", "Condition", "MySQLError", "Server", "Session", "StateChange", "StatementResult"]
