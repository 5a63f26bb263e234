"""gtidkit.engine: an embedded MySQL-style server core on SQLite with MySQL's GTID state machine.

Public surface (issue 3): :class:`Server` (``Server.open(datadir, **options)``, ``server.session()``,
``server.shutdown()``, commit and binlog-flush observers), :class:`Session` (``execute(sql) -> Result``) and
:class:`Result`. Errors are :class:`gtidkit.errors.MySQLError` with MySQL's code, SQLSTATE and message.
"""

from gtidkit.engine.server import Server
from gtidkit.engine.session import Result, Session
from gtidkit.errors import MySQLError

__all__ = ["MySQLError", "Result", "Server", "Session"]
