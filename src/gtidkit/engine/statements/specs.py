"""One table of statement properties (MySQL's ``sql_command_flags``, ``sql/sql_parse.cc``): per parsed statement, does
it commit the open transaction first, is it a diagnostic statement, which global privilege does it need.

A statement's spec is found by its parser command (``stmt.command``: ``flush_logs``, ``kill`` ...), else by its
kind (``ddl``, ``account`` ...), else :data:`DEFAULT` (:func:`spec_of`). Adding a statement is one row here next to
its parser row in :mod:`gtidkit.engine.statements.classify`.

Sources: ``sql_command_flags`` (CF_AUTO_COMMIT_TRANS = CF_IMPLICIT_COMMIT_BEGIN | CF_IMPLICIT_COMMIT_END,
CF_DIAGNOSTIC_STMT); RM8 "Statements That Cause an Implicit Commit"; RM8 "Privileges Provided by MySQL" and
``sql/sql_parse.cc`` / ``sql/auth/sql_authorization.cc`` for the privileges (1227 names them in this order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gtidkit.engine.statements.classify import Statement

__all__ = ["DEFAULT", "SPECS", "StatementSpec", "spec_of"]


@dataclass(frozen=True, slots=True)
class StatementSpec:
    """The properties of one statement (a row of :data:`SPECS`).

    Attributes:
        implicit_commit: the open transaction is committed before it runs (CF_IMPLICIT_COMMIT_BEGIN; the
            statement then also ends its own GTID, ``gtid_end_transaction``).
        diagnostic: it reads the diagnostics area without clearing it (CF_DIAGNOSTIC_STMT: SHOW WARNINGS / ERRORS
            and their COUNT(*) forms); it never touches GTID ownership.
        privileges: global privileges of which the account needs one (``check_global_access``), else 1227
            naming them joined by " or "; empty: no global privilege (tables and databases are checked apart).
    """

    implicit_commit: bool = False
    diagnostic: bool = False
    privileges: tuple[str, ...] = ()


#: what a statement without a row is: no implicit commit, not diagnostic, no global privilege
DEFAULT = StatementSpec()

_COMMITS = StatementSpec(implicit_commit=True)
_RELOAD = StatementSpec(implicit_commit=True, privileges=("RELOAD",))
_BINLOG_ADMIN = StatementSpec(implicit_commit=True, privileges=("SUPER", "BINLOG_ADMIN"))
_REPLICA_ADMIN = StatementSpec(implicit_commit=True, privileges=("SUPER", "REPLICATION_SLAVE_ADMIN"))
_REPLICATION_CLIENT = StatementSpec(privileges=("SUPER", "REPLICATION CLIENT"))
_DIAGNOSTIC = StatementSpec(diagnostic=True)

#: parser command or statement kind -> its properties (a command's row wins over its kind's)
SPECS: dict[str, StatementSpec] = {
    # kinds
    "ddl": _COMMITS,
    "account": _COMMITS,  # CREATE USER, GRANT ... (their privileges: protocol/admin.py, per statement)
    "admin": _COMMITS,  # FLUSH, RESET, PURGE, LOCK TABLES, ANALYZE TABLE ... unless their row says otherwise
    # admin commands
    "flush_logs": _RELOAD,
    "flush": _RELOAD,
    "flush_tables_with_read_lock": _COMMITS,
    "reset_binary_logs": _RELOAD,
    "purge_binary_logs_to": _BINLOG_ADMIN,
    "purge_binary_logs_before": _BINLOG_ADMIN,
    "replica_thread": _REPLICA_ADMIN,
    "change_replication_source": _REPLICA_ADMIN,
    "reset_replica": _REPLICA_ADMIN,
    "change_replication_filter": _REPLICA_ADMIN,
    # BINLOG '<base64>' (sql_binlog.cc mysql_client_binlog_statement): no implicit commit, it joins the transaction
    "binlog": StatementSpec(privileges=("SUPER", "BINLOG_ADMIN", "REPLICATION_APPLIER")),
    "lock_tables": _COMMITS,
    "unlock_tables": _COMMITS,  # only when LOCK TABLES locks are held (Admin.commits_implicitly)
    "kill": DEFAULT,
    # LOAD DATA: a DML statement (no implicit commit); INSERT / DELETE / FILE are checked per table by the wire
    # server's authorizer (protocol/privileges.py), as check_one_table_access does in Sql_cmd_load_table::execute
    "load_data": DEFAULT,
    "xa": DEFAULT,
    # SHOW commands
    "binary_log_status": _REPLICATION_CLIENT,
    "binary_logs": _REPLICATION_CLIENT,
    "replica_status": _REPLICATION_CLIENT,
    "replicas": StatementSpec(privileges=("REPLICATION SLAVE",)),
    "relaylog_events": StatementSpec(privileges=("REPLICATION SLAVE",)),
    "engine_innodb_status": StatementSpec(privileges=("PROCESS",)),  # sql_parse.cc SQLCOM_SHOW_ENGINE_STATUS
    "warnings": _DIAGNOSTIC,
    "errors": _DIAGNOSTIC,
    "count_warnings": _DIAGNOSTIC,
    "count_errors": _DIAGNOSTIC,
    # the wire server's own statements (protocol/admin.py answers them)
    "shutdown": StatementSpec(privileges=("SHUTDOWN",)),
}


def spec_of(stmt: Statement) -> StatementSpec:
    """The :class:`StatementSpec` of a classified statement (its command's row, else its kind's, else DEFAULT)."""
    command = stmt.info.get("command")
    if command is not None:
        spec = SPECS.get(command)
        if spec is not None:
            return spec
    return SPECS.get(stmt.kind, DEFAULT)
