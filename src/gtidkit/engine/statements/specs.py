"""One table of statement specs (MySQL's ``sql_command_flags``, ``sql/sql_parse.cc``): per parsed statement, the
flags that drive its lifecycle (:func:`gtidkit.engine.statements.dispatch.dispatch`), the global privileges it needs,
and its handler.

A statement's spec is found by its parser command (``stmt.command``: ``flush_logs``, ``kill`` ...), else by its
form (``temporary_ddl``, ``create_start_transaction``, ``empty``: :func:`form_of`), else by its kind (``ddl``,
``account`` ...) (:meth:`StatementTable.of`). Adding a statement is one row here next to its parser row in
:mod:`gtidkit.engine.statements.classify`, and its handler registered with :meth:`StatementTable.register`.

Handlers are registered, not imported here (this module sits below every handler): the engine registers its own in
:mod:`gtidkit.engine.statements.dispatch` into :data:`SPECS`; each server copies that table
(``Server.statements``, :meth:`StatementTable.child`) and the layers above the engine register the statements they
answer into that copy when they start (replication: START / STOP REPLICA, CHANGE REPLICATION SOURCE, SHOW REPLICA
STATUS ...; the source: SHOW REPLICAS). A statement nobody answers keeps its refusal handler: MySQL's error for a
statement this server does not run (1235, :func:`refusal`).

Sources: ``sql_command_flags`` (CF_AUTO_COMMIT_TRANS = CF_IMPLICIT_COMMIT_BEGIN | CF_IMPLICIT_COMMIT_END,
CF_DIAGNOSTIC_STMT, CF_CHANGES_DATA), ``sql/rpl_gtid_execution.cc`` (``is_stmt_innocent``,
``gtid_pre_statement_checks``), RM8 "Statements That Cause an Implicit Commit"; RM8 "Privileges Provided by MySQL"
and ``sql/sql_parse.cc`` / ``sql/auth/sql_authorization.cc`` for the privileges (1227 names them in this order).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gtidkit.engine.results import StatementResult
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = [
    "DEFAULT",
    "SKIP_AUTOCOMMIT",
    "SKIP_COMMIT",
    "SKIP_OK",
    "SKIP_RUN",
    "SPECS",
    "Handler",
    "StatementSpec",
    "StatementTable",
    "form_of",
    "refusal",
    "spec_of",
]

#: ``handler(session, stmt) -> StatementResult``: the statement's own work (its lifecycle is the dispatcher's)
Handler = Callable[["Session", "Statement"], "StatementResult"]

#: a skipped statement (its GTID is already executed) ends its transaction, as an implicit commit does
SKIP_COMMIT = "commit"
#: ... ends it only in autocommit mode (DML: ``trans_commit_stmt``)
SKIP_AUTOCOMMIT = "autocommit"
#: ... answers OK and leaves the transaction as it is
SKIP_OK = "ok"
#: ... runs all the same (CHECKSUM TABLE only reads)
SKIP_RUN = "run"


@dataclass(frozen=True, slots=True)
class StatementSpec:
    """The properties of one statement (a row of :data:`SPECS`), in the order the lifecycle uses them.

    Attributes:
        handler: ``handler(session, stmt) -> StatementResult``, the statement's own work; None only in a row no
            handler was registered for (``tests/engine/test_statement_lifecycle.py`` checks there is none).
        check: ``check(session, stmt)``, the statement's own syntax checks that fail before anything happens (the
            parser's 1064 in MySQL: no implicit commit, no GTID consumed), or None.
        innocent: it never takes GTID ownership (``is_stmt_innocent``: SELECT, SHOW, SET, USE, DO; and
            BEGIN / COMMIT / ROLLBACK, which ``gtid_pre_statement_checks`` always lets run): no GTID pre-checks
            beyond 1778, no rollback when it fails.
        starts_transaction: it commits the open transaction itself before it opens one (BEGIN: ``trans_begin``),
            so 1778 applies to it as to an implicit commit.
        implicit_commit: the open transaction is committed before it runs (CF_IMPLICIT_COMMIT_BEGIN) and an owned
            GTID ends with it (CF_IMPLICIT_COMMIT_END, ``gtid_end_transaction``).
        commit_condition: ``condition(session)``: the implicit commit happens only when it says so (UNLOCK TABLES:
            only while LOCK TABLES locks are held), or None: always.
        diagnostic: it reads the diagnostics area without clearing it (CF_DIAGNOSTIC_STMT: SHOW WARNINGS / ERRORS
            and their COUNT(*) forms).
        checks_read_only: 1290 under read_only / super_read_only, before the GTID pre-checks (DDL, accounts).
        changes_data: 1290 under read_only and 1792 in a READ ONLY transaction, after the GTID pre-checks (DML:
            CF_CHANGES_DATA; temporary tables exempt).
        writes: it writes in the session's storage transaction, opened (write lock taken) before it runs.
        autocommits: in autocommit mode its transaction commits when it ends (``trans_commit_stmt``).
        resets_one_shot: that commit also forgets a one-shot ``SET TRANSACTION``.
        on_skip: what a statement skipped because its GTID is already executed does (:data:`SKIP_COMMIT`,
            :data:`SKIP_AUTOCOMMIT`, :data:`SKIP_OK`, :data:`SKIP_RUN`).
        on_failure: what its failure does to the transaction: ``"statement"`` (an autocommitted statement rolls
            back, ``statement_failed``), ``"rollback"`` (the statement's own transaction rolls back: DDL after its
            implicit commit) or ``"none"``.
        logged: ``logged(session, stmt) -> text or None``: the text its transaction is logged with as a DDL
            Query event (DDL, account statements, a logged FLUSH / ANALYZE TABLE), or None.
        after_commit: ``after_commit(session, stmt)``, run once its transaction committed (account statements
            reload the account cache: ``acl_reload``), or None.
        privileges: global privileges of which the account needs one (``check_global_access``), else 1227
            naming them joined by " or "; empty: no global privilege (tables and databases are checked apart).
    """

    handler: Handler | None = None
    check: Callable[[Session, Statement], None] | None = None
    innocent: bool = False
    starts_transaction: bool = False
    implicit_commit: bool = False
    commit_condition: Callable[[Session], bool] | None = None
    diagnostic: bool = False
    checks_read_only: bool = False
    changes_data: bool = False
    writes: bool = False
    autocommits: bool = False
    resets_one_shot: bool = False
    on_skip: str = SKIP_COMMIT
    on_failure: str = "statement"
    logged: Callable[[Session, Statement], str | None] | None = None
    after_commit: Callable[[Session, Statement], None] | None = None
    privileges: tuple[str, ...] = ()


#: what a statement without a row is: an administrative statement with no implicit commit
DEFAULT = StatementSpec()


def refusal(session: Session, stmt: Statement) -> StatementResult:
    """The handler of a statement MySQL has and this server does not run: MySQL's error for it, 1235
    ER_NOT_SUPPORTED_YET naming its family, or 1064 when MySQL would not parse it either
    (:func:`gtidkit.engine.sql.unsupported.statement_error`).

    Raises:
        MySQLError: always.
    """
    from gtidkit.engine.sql.unsupported import statement_error

    raise statement_error(stmt.text)


def replication_refusal(session: Session, stmt: Statement) -> StatementResult:
    """The handler of a replica statement while no replication layer registered its own (an engine on its own):
    1235 naming the statement's first 40 characters.

    Raises:
        MySQLError: always.
    """
    from gtidkit.mysql_errors import mysql_error

    raise mysql_error(1235, stmt.text.strip()[:40])


_INNOCENT = StatementSpec(innocent=True, on_failure="none")
_COMMITS = StatementSpec(implicit_commit=True, handler=refusal)
_DDL = StatementSpec(
    implicit_commit=True,
    checks_read_only=True,
    writes=True,
    on_failure="rollback",
    logged=lambda session, stmt: stmt.text,
)
_RELOAD = dataclasses.replace(_COMMITS, privileges=("RELOAD",))
_BINLOG_ADMIN = dataclasses.replace(_COMMITS, privileges=("SUPER", "BINLOG_ADMIN"))
_REPLICA_ADMIN = StatementSpec(
    implicit_commit=True, handler=replication_refusal, privileges=("SUPER", "REPLICATION_SLAVE_ADMIN")
)
_REPLICATION_CLIENT = dataclasses.replace(_INNOCENT, privileges=("SUPER", "REPLICATION CLIENT"))
_REPLICATION_SLAVE = dataclasses.replace(_INNOCENT, privileges=("REPLICATION SLAVE",))
_DIAGNOSTIC = dataclasses.replace(_INNOCENT, diagnostic=True)
_AUTOCOMMITTED = StatementSpec(autocommits=True, on_skip=SKIP_AUTOCOMMIT)


def _unlock_tables_commits(session: Session) -> bool:
    from gtidkit.engine.statements.locks import unlock_tables_commits

    return unlock_tables_commits(session)


#: parser command, statement form or statement kind -> its properties (a command's row wins over its form's and
#: its kind's). Handlers are filled in by :mod:`gtidkit.engine.statements.dispatch` (and by the layers above).
_ROWS: dict[str, StatementSpec] = {
    # kinds
    "select": _INNOCENT,
    "show": _INNOCENT,
    "use": _INNOCENT,
    "set": _INNOCENT,
    "prepared": _INNOCENT,  # PREPARE / DEALLOCATE PREPARE (EXECUTE runs as the statement it names)
    "begin": dataclasses.replace(_INNOCENT, starts_transaction=True),
    "commit": _INNOCENT,
    "rollback": _INNOCENT,
    "dml": dataclasses.replace(_AUTOCOMMITTED, changes_data=True, writes=True, resets_one_shot=True),
    "ddl": _DDL,
    "account": _DDL,  # CREATE USER, GRANT ... (their privileges: protocol/admin.py, per statement)
    "savepoint": StatementSpec(writes=True, on_skip=SKIP_OK, on_failure="none"),
    "release_savepoint": StatementSpec(writes=True, on_skip=SKIP_OK, on_failure="none"),
    "rollback_to_savepoint": StatementSpec(writes=True, on_skip=SKIP_OK, on_failure="none"),
    "admin": _COMMITS,  # FLUSH, RESET, PURGE, LOCK TABLES, ANALYZE TABLE ... unless their row says otherwise
    "other": StatementSpec(on_skip=SKIP_OK),  # what the SQL layer may know (HANDLER, LOAD DATA ...)
    # forms (form_of)
    "empty": _INNOCENT,  # only a comment: SQLCOM_EMPTY_QUERY
    # no implicit commit; its handler opens the write transaction itself, after 3748's "inside a transaction" test
    "temporary_ddl": _AUTOCOMMITTED,
    "create_start_transaction": _INNOCENT,  # CREATE TABLE ... START TRANSACTION: joins the open transaction
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
    "change_replication_filter": dataclasses.replace(_REPLICA_ADMIN, handler=refusal),
    "table_maintenance": _COMMITS,  # ANALYZE / OPTIMIZE / CHECK / REPAIR TABLE: logged as DDL is
    # CHECKSUM TABLE only reads: no implicit commit, no GTID consumed, not logged
    "checksum_table": StatementSpec(on_skip=SKIP_RUN, on_failure="none"),
    # BINLOG '<base64>' (sql_binlog.cc mysql_client_binlog_statement): no implicit commit, it joins the transaction
    "binlog": dataclasses.replace(
        _AUTOCOMMITTED, resets_one_shot=True, privileges=("SUPER", "BINLOG_ADMIN", "REPLICATION_APPLIER")
    ),
    "lock_tables": _COMMITS,
    "unlock_tables": dataclasses.replace(_COMMITS, commit_condition=_unlock_tables_commits),
    "kill": StatementSpec(),
    # LOAD DATA: a DML statement (no implicit commit, autocommitted); INSERT / DELETE / FILE are checked per table by
    # the wire server's authorizer (protocol/privileges.py), as check_one_table_access does in
    # Sql_cmd_load_table::execute; 1290 / 1792 on the INSERT into its table (``info["write_target"]``)
    "load_data": dataclasses.replace(_AUTOCOMMITTED, changes_data=True, resets_one_shot=True),
    "xa": StatementSpec(handler=refusal),
    # SHOW commands
    "binary_log_status": _REPLICATION_CLIENT,
    "binary_logs": _REPLICATION_CLIENT,
    "replica_status": _REPLICATION_CLIENT,
    "replicas": _REPLICATION_SLAVE,
    "relaylog_events": _REPLICATION_SLAVE,
    # sql_parse.cc SQLCOM_SHOW_ENGINE_STATUS: PROCESS
    "engine_innodb_status": dataclasses.replace(_INNOCENT, privileges=("PROCESS",)),
    "warnings": _DIAGNOSTIC,
    "errors": _DIAGNOSTIC,
    "count_warnings": _DIAGNOSTIC,
    "count_errors": _DIAGNOSTIC,
    # the wire server's own statements (protocol/admin.py answers them); an engine on its own refuses SHUTDOWN
    "shutdown": StatementSpec(on_skip=SKIP_OK, handler=refusal, privileges=("SHUTDOWN",)),
}


def form_of(stmt: Statement) -> str:
    """The key of ``stmt``'s row when it has no command: a statement form whose lifecycle differs from its kind's
    (``temporary_ddl``: CREATE / DROP TEMPORARY TABLE; ``create_start_transaction``: CREATE TABLE ... START
    TRANSACTION; ``empty``: a statement that is only a comment), else its kind. Remembered in ``stmt.info``."""
    kind = stmt.kind
    if kind == "ddl":
        info = stmt.info
        form = info.get("form")
        if form is None:
            from gtidkit.engine.sql.create_select import START_TRANSACTION
            from gtidkit.engine.sql.temporary import is_temporary_ddl

            if is_temporary_ddl(stmt.text):
                form = "temporary_ddl"
            elif START_TRANSACTION.search(stmt.text):
                form = "create_start_transaction"
            else:
                form = "ddl"
            info["form"] = form
        return str(form)
    if kind == "other" and not stmt.text.strip():
        return "empty"
    return str(kind)


class StatementTable:
    """Statement specs by key (parser command, form or kind): :data:`SPECS` for the engine, one child per server.

    A child starts as a copy of its parent's rows; :meth:`register` replaces a row's handler (and any flags) in
    this table only, so a layer that registers on one server changes nothing on another.
    """

    __slots__ = ("_rows",)

    def __init__(self, rows: Mapping[str, StatementSpec]) -> None:
        self._rows: dict[str, StatementSpec] = dict(rows)

    def child(self) -> StatementTable:
        """A copy of this table (a server's own, for the layers above the engine to register into)."""
        return StatementTable(self._rows)

    def key_list(self) -> list[str]:
        """Every key with a row."""
        return list(self._rows)

    def spec(self, key: str) -> StatementSpec:
        """The row of ``key`` (a command, form or kind), or :data:`DEFAULT`."""
        return self._rows.get(key, DEFAULT)

    def of(self, stmt: Statement) -> StatementSpec:
        """The row of a classified statement: its command's, else its form's or kind's (:func:`form_of`)."""
        rows = self._rows
        info = stmt.info
        if info:
            command = info.get("command")
            if command is not None:
                spec = rows.get(command)
                if spec is not None:
                    return spec
        kind = stmt.kind
        if (
            kind != "ddl" and kind != "other"
        ):  # every other kind is its own key (the fast path of SELECT / DML)
            return rows.get(kind, DEFAULT)
        return rows.get(form_of(stmt), DEFAULT)

    def register(self, key: str, handler: Handler, **flags: Any) -> StatementSpec:
        """Answer the statements of ``key`` with ``handler`` (their flags as before unless ``flags`` names some).

        Args:
            key: a parser command (``replica_thread``, ``kill`` ...), form or kind.
            handler: ``handler(session, stmt) -> StatementResult``.
            flags: :class:`StatementSpec` fields to change with it.

        Returns:
            The row now in force; the previous one is :meth:`spec` before the call (a layer wrapping the engine's
            handler takes it from there).
        """
        row = dataclasses.replace(self.spec(key), handler=handler, **flags)
        self._rows[key] = row
        return row


#: the engine's statement table (:mod:`gtidkit.engine.statements.dispatch` registers its handlers into it)
SPECS = StatementTable(_ROWS)


def spec_of(stmt: Statement) -> StatementSpec:
    """The engine's :class:`StatementSpec` of a classified statement (:meth:`StatementTable.of` on :data:`SPECS`;
    a server's own table differs only in the handlers registered on it)."""
    return SPECS.of(stmt)
