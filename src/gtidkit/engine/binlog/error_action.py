"""``binlog_error_action``: what the server does when it cannot write, sync or rotate its binary log.

Source: RM8 "binlog_error_action" (ABORT_SERVER, the default: the server stops, so no transaction is committed
without being binlogged; IGNORE_ERROR: binary logging is turned off for the rest of the server's life and the
server goes on, the failing transaction committed without a binlog) and mysql-test
``suite/binlog/r/binlog_error_action.result`` (the client-visible texts below: 1598 ER_BINLOG_LOGGING_IMPOSSIBLE
"Binary logging not possible. Message: An error occurred during flush stage of the commit. 'binlog_error_action'
is set to 'ABORT_SERVER'. Server is being stopped."; the same for the sync stage; "..., while rotating the binlog.
Aborting the server" for a rotation; with IGNORE_ERROR a failed FLUSH LOGS reports the OS error itself, the next
statements work, and SHOW BINARY LOGS says "You are not using binary logging").

With binary logging off the server keeps GTIDs as a server without a binlog does (WL#6559): a transaction with a
GTID stores it in mysql.gtid_executed inside the transaction.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Protocol

from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

log = logging.getLogger(__name__)


class ServerGlobals(Protocol):
    """The global system variables as the binlog and GTID code reads them
    (:class:`gtidkit.engine.sysvars.GlobalVariables`)."""

    @property
    def values(self) -> dict[str, Any]:
        """Canonical variable name -> global value (every variable of the release)."""
        ...

    def get(self, name: str) -> Any:
        """The global value of ``name`` (any spelling of it).

        Raises:
            MySQLError: 1193 for an unknown variable.
        """
        ...


class BinlogErrorServer(Protocol):
    """What ``binlog_error_action`` needs of the server (:class:`gtidkit.engine.server.Server` is one)."""

    @property
    def binlog(self) -> object | None:
        """The binary log (:class:`gtidkit.engine.binlog.log.BinlogLog`, which imports this module), None once it
        is off; only compared with None here."""
        ...

    @property
    def globals(self) -> ServerGlobals:
        """The global system variables (``binlog_error_action``)."""
        ...

    def disable_binlog(self, db: Any = None) -> None:
        """IGNORE_ERROR: close the binary log for the rest of the run (its GTIDs saved through ``db``)."""
        ...

    def abort_by_binlog_error(self, err: MySQLError) -> None:
        """ABORT_SERVER: refuse every further statement with ``err``'s kind of failure (mysqld aborts)."""
        ...


ABORT_SERVER = "ABORT_SERVER"
IGNORE_ERROR = "IGNORE_ERROR"
#: mysys EE_WRITE (client error code 3): how MySQL reports an OS write failure on a file.
EE_WRITE = 3


class BinlogStageError(Exception):
    """An OS error while writing the binary log, with the commit stage it happened in.

    Attributes:
        stage: ``"flush"`` (writing the transaction), ``"sync"`` (fsync per sync_binlog) or ``"rotate"``.
        os_error: the underlying :class:`OSError`.
    """

    def __init__(self, stage: str, os_error: OSError) -> None:
        super().__init__(f"{stage}: {os_error}")
        self.stage = stage
        self.os_error = os_error


def os_error_text(err: OSError) -> str:
    """MySQL's EE_WRITE wording for ``err``: ``Error writing file 'binlog.index' (OS errno 28 - No space ...)``."""
    name = os.path.basename(str(err.filename)) if err.filename else "binlog"
    code = err.errno or 0
    return f"Error writing file '{name}' (OS errno {code} - {err.strerror or os.strerror(code)})"


def _stage_text(stage: str) -> str:
    return (
        f"An error occurred during {stage} stage of the commit. 'binlog_error_action' is set to 'ABORT_SERVER'. "
        "Server is being stopped."
    )


#: ER_TURNING_LOGGING_OFF_FOR_THE_DURATION (error log): ``%s`` is the failure's message
TURNING_LOGGING_OFF = (
    "%s Hence turning logging off for the whole duration of the MySQL server process. To turn it on again: fix "
    "the cause, shutdown the MySQL server and restart it."
)


def turn_logging_off(server: BinlogErrorServer, message: str, db: Any = None) -> None:
    """IGNORE_ERROR: log ``message`` with ER_TURNING_LOGGING_OFF_FOR_THE_DURATION and close the binary log for the
    rest of the run (``MYSQL_BIN_LOG::handle_binlog_flush_or_sync_error``); the caller holds the write lock.
    Nothing is logged when the binary log is already closed, as MySQL prints it only while the log is open."""
    if server.binlog is None:
        return
    log.error(TURNING_LOGGING_OFF, message)
    server.disable_binlog(db)


def binlog_failed(server: BinlogErrorServer, failure: BinlogStageError, db: Any = None) -> MySQLError | None:
    """Apply ``@@GLOBAL.binlog_error_action`` to a binary-log failure; the caller holds the write lock.

    ``db`` is the SQLite connection of the transaction being committed, if any (the GTIDs of the abandoned file
    are then saved inside it).

    Returns:
        The error the client sees: 1598 after aborting the server (ABORT_SERVER), the OS error of a failed
        rotation (IGNORE_ERROR), or None when the statement goes on without the binary log (IGNORE_ERROR at
        commit).
    """
    action = str(server.globals.get("binlog_error_action"))
    if action == IGNORE_ERROR:
        log.error(
            "An error occurred during %s stage of the commit. 'binlog_error_action' is set to 'IGNORE_ERROR'. "
            "Hence turning logging off for the whole duration of the MySQL server process. To turn it on again: "
            "fix the cause, shutdown the MySQL server and restart it. (%s)",
            failure.stage,
            failure.os_error,
        )
        server.disable_binlog(db)
        if failure.stage == "rotate":
            return MySQLError(EE_WRITE, os_error_text(failure.os_error))
        return None
    if failure.stage == "rotate":
        err = mysql_error(
            1598, f"{os_error_text(failure.os_error)}, while rotating the binlog. Aborting the server"
        )
    else:
        err = mysql_error(1598, _stage_text(failure.stage))
    log.error("binlog_error_action=ABORT_SERVER: %s", err.message)
    server.abort_by_binlog_error(err)
    return err
