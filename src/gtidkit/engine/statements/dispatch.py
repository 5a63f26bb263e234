"""One statement lifecycle (MySQL's ``mysql_execute_command``), driven by the statement's spec; the engine's handlers.

:func:`dispatch` is the only place a classified statement (:mod:`gtidkit.engine.statements.classify`) meets the code
that runs it, and the only place its lifecycle is written. What a statement is (implicit commit, innocent, changes
data, autocommitted, logged as DDL ...) is its row of :mod:`gtidkit.engine.statements.specs`, found in the server's
statement table (``Server.statements``); the row's handler does the statement's own work only. The engine's
handlers are registered into :data:`~gtidkit.engine.statements.specs.SPECS` at the end of this module; the layers
above the engine register theirs into their server's table (:meth:`~gtidkit.engine.statements.specs.
StatementTable.register`), so replication statements and the wire server's own statements run the same lifecycle.

The lifecycle of one statement, in this order:

1. parse: :func:`~gtidkit.engine.statements.classify.classify` (one split per COM_QUERY, one classification per
   statement; ``Session._execute_statement``);
2. privileges: the session's authorizer (:mod:`gtidkit.engine.statements.access`), on the parsed statement and the
   tables its plan names (``Session._execute_statement``, before anything of the statement happens: MySQL checks
   them before it opens or locks a table);
3. diagnostics area: cleared unless the spec is ``diagnostic`` (``Session._execute_statement``);
4. locks: :func:`gtidkit.engine.statements.locks.check_statement` while LOCK TABLES / FLUSH TABLES WITH READ LOCK
   is held by some session;
5. the statement's own syntax checks (``spec.check``: MySQL's parser fails before anything happens), then
   ``checks_read_only`` (1290 before the GTID checks: DDL, account statements);
6. GTID pre-checks: :func:`gtidkit.engine.statements.transaction.pre_statement` (1778 before an implicit commit or
   BEGIN; then, unless the spec is ``innocent``, 1837 while gtid_next is UNDEFINED and ownership taken; a
   statement whose GTID is already executed is skipped as ``spec.on_skip`` says);
7. implicit commit: when the spec says ``implicit_commit`` (and its ``commit_condition`` holds), then ANONYMOUS
   ownership re-acquired (``gtid_pre_statement_post_implicit_commit_checks``);
8. ``changes_data`` checks (1290, 1792) and, for a spec that ``writes``, the storage transaction opened;
9. handler: the spec's ``handler(session, stmt)`` (SQL runs in the SQL layer through :meth:`Session.run_sql`); a
   failure rolls back as ``spec.on_failure`` says;
10. completion: the commit of an ``autocommits`` statement in autocommit mode, of a ``logged`` one (with its
    DDL text), or of the GTID an implicitly committing one owns (``gtid_end_transaction``); then
    ``after_commit``. The session then completes the result (warning count, status flags, session-state changes):
    handlers return its content only.

An ``innocent`` statement (SELECT, SHOW, SET, USE, BEGIN, COMMIT, ROLLBACK, PREPARE) stops after step 6's 1778 check
and runs its handler directly: the fast path of point SELECTs. ``tests/engine/test_statement_lifecycle.py`` checks
that every statement has a handler and that no handler module runs a lifecycle step itself.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from gtidkit.engine.binlog.statement_context import LoggedStatement
from gtidkit.engine.binlog.transaction_events import session_binlog_format
from gtidkit.engine.gtid import gtid_next as gnx
from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.sql.create_select import START_TRANSACTION
from gtidkit.engine.statements import (
    admin,
    binlog_statement,
    checksum_table,
    deferred,
    flush,
    found_rows,
    load_data,
    locks,
    maintenance,
    show,
    system_tables,
    user_vars,
)
from gtidkit.engine.statements import transaction as trx
from gtidkit.engine.statements.show import show_conditions, show_count
from gtidkit.engine.statements.specs import (
    SKIP_AUTOCOMMIT,
    SKIP_COMMIT,
    SKIP_RUN,
    SPECS,
    Handler,
    StatementSpec,
)
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = ["HANDLERS", "dispatch"]


def dispatch(session: Session, stmt: Statement, spec: StatementSpec | None = None) -> StatementResult:
    """Run one classified (and authorized) statement through its lifecycle (steps 4 to 10 of the module
    docstring), as its row of the server's statement table says.

    Args:
        session: the session running it.
        stmt: the classified statement.
        spec: its row of ``session.server.statements`` when the caller looked it up already, else None.

    Raises:
        MySQLError: whatever the statement fails with (MySQL's code, SQLSTATE and message).
    """
    server = session.server
    interrupt = session.executor.interrupt
    if (
        interrupt.is_set()
    ):  # a KILL QUERY that ended an earlier statement ends with it (MySQL's do_command resets
        interrupt.clear()  # KILL_QUERY), before this one waits for the write lock, which checks the flag
    if spec is None:
        spec = server.statements.of(stmt)
    follower = server.follower
    if follower is not None:
        if follower.stale() and (
            (not spec.innocent and not _catches_up_at_lock(session, stmt, spec)) or follower.catalog_moved()
        ):
            # another worker process committed (engine/follow.py): a statement that writes or takes a GTID
            # catches up now, an innocent one (SELECT, SHOW, SET ...) only when the catalog changed (DDL); its
            # reads of GTID state catch up themselves (GtidState.refresh)
            follower.catch_up()
        config = server.shared_config
        if config is not None and config.stale():  # it set a global, an account (engine/shared_config.py)
            config.reload()
    # schema files created or dropped since this connection's last statement (engine/schema_files.py)
    session.conn.sync_attachments()
    if session.deferred:  # gtidkit_row_locks: queued rows applied before a statement that may read them
        deferred.flush_before(session, stmt)
    session.conn.sync_views()  # views reading another schema's file: this connection's TEMP views
    # schema files: a statement reading several files reads them in one snapshot (engine/schema_files.py)
    one_view = False
    if stmt.kind == "select" and session.conn.attached and not session.holds_write_lock:
        if session.explicit_trx:
            trx.open_read_view(session)  # REPEATABLE READ's one commit point across the files
        else:
            one_view = trx.reads_several_files(session, stmt)
    if session.holds_write_lock and not session.holds_main_lock:
        trx.guard_main_reads(session, stmt)  # the engine write lock before the main file is read
    if server.table_locks.active:  # LOCK TABLES / FLUSH TABLES WITH READ LOCK held by some session
        locks.check_statement(session, stmt.kind, stmt.text)
    handler = spec.handler
    assert handler is not None, stmt.kind  # every row has one (tests/engine/test_statement_lifecycle.py)
    if spec.check is not None:
        spec.check(session, stmt)
    if one_view:
        return _in_one_view(session, stmt, spec, handler)
    if stmt.kind == "select" and server.row_locks is not None and session.explicit_trx:
        try:  # gtidkit_row_locks: a locking read's row or table locks (deferred.py)
            deferred.lock_for_select(session, stmt)
        except BaseException as err:
            trx.statement_failed(session, err)  # 1213: InnoDB's victim rolls back its whole transaction
            raise
    if spec.innocent:
        if spec.starts_transaction or spec.implicit_commit:
            trx.pre_statement(session, stmt, spec)  # 1778 only: an innocent statement takes no GTID
        return handler(session, stmt)
    return _run(session, stmt, spec, handler)


def _in_one_view(session: Session, stmt: Statement, spec: StatementSpec, handler: Handler) -> StatementResult:
    """An autocommitted SELECT reading several files, in one snapshot of them (``Connection.open_read_snapshot``)."""
    session.conn.open_read_snapshot()
    try:
        if spec.innocent:
            return handler(session, stmt)
        return _run(session, stmt, spec, handler)
    finally:
        session.conn.end_read_snapshot()


def _catches_up_at_lock(session: Session, stmt: Statement, spec: StatementSpec) -> bool:
    """A DML statement with an automatic GTID takes the engine write lock before it runs (:func:`_run`:
    ``ensure_write_trx``), whose acquisition catches up with the other worker processes (engine/follow.py, from the
    shared page when it can): catching up at its start as well would read the commit log for nothing. Not so with
    an assigned GTID (the skip check reads gtid_executed first), an implicit commit, or schema files (their locks
    come first, the engine write lock only at COMMIT)."""
    return (
        spec.writes
        and stmt.kind == "dml"
        and not spec.implicit_commit
        and session.gtid.type is gnx.AUTOMATIC
        and not session.server.storage.schema_files()
    )


def _run(session: Session, stmt: Statement, spec: StatementSpec, handler: Handler) -> StatementResult:
    """Steps 5 to 10 for a statement that takes part in GTID ownership."""
    if spec.checks_read_only:
        trx.check_read_only(
            session, stmt
        )  # 1290 under read_only / super_read_only, before the implicit commit
    skip = trx.pre_statement(session, stmt, spec)
    condition = spec.commit_condition
    commits = spec.implicit_commit and (condition is None or condition(session))
    if commits:
        trx.implicit_commit(session)
    autocommit = not session.explicit_trx and session.autocommit()
    if skip:
        on_skip = spec.on_skip
        if on_skip == SKIP_COMMIT or (on_skip == SKIP_AUTOCOMMIT and autocommit):
            trx.commit(session)  # the skipped transaction ends: gtid_next becomes UNDEFINED
        if on_skip != SKIP_RUN:
            return StatementResult()
    if commits:
        trx.reacquire_anonymous(session)
    if spec.changes_data:
        target = stmt.info.get("write_target") or stmt  # what it writes (LOAD DATA: an INSERT into its table)
        try:
            trx.check_read_only(session, target)  # 1290 under read_only / super_read_only
            trx.check_writable(session, target)  # 1792 in a READ ONLY transaction
        except BaseException as err:
            _failed(session, spec, err)
            raise
    files = None
    ran = None
    if spec.writes and session.server.row_locks is not None and deferred.takes_row_locks(session):
        # gtidkit_row_locks (deferred.py): a single-row primary-key DML of a transaction runs under its row lock,
        # written at COMMIT; any other writer takes its row or table locks first
        try:
            ran = deferred.try_deferred(session, stmt, handler)
            if ran is None:
                deferred.lock_for_immediate(session, stmt)
        except BaseException as err:
            _failed(session, spec, err)
            raise
    if spec.writes and ran is None:
        files = trx.file_schemas(session, stmt)
        if files is None and stmt.kind in ("ddl", "dml") and not session.holds_write_lock:
            files = trx.ddl_file_schemas(session, stmt)
            if (
                files
            ):  # its schema files' locks first (their redo), then the engine write lock (schema_files.py)
                session.ensure_write_trx(files_only=True)
                try:
                    session.lock_schema_files(files)
                except BaseException as err:
                    _failed(session, spec, err)
                    raise
            files = None
        session.ensure_write_trx(files_only=files is not None)
    try:
        # engine/schema_files.py: 1205 when another writer holds one (the statement fails, as a wait does)
        if files:
            session.lock_schema_files(files)
        res = handler(session, stmt) if ran is None else ran
    except BaseException as err:
        _failed(session, spec, err)
        raise
    logged = spec.logged(session, stmt) if spec.logged is not None else None
    if spec.autocommits:
        if autocommit and (session.explicit_trx or session.holds_write_lock):  # in_transaction(), inlined
            trx.commit(session, ddl_text=logged)
            if spec.resets_one_shot:
                session.reset_one_shot_characteristics()
    elif logged is not None:
        trx.reacquire_anonymous(session)
        trx.commit(session, ddl_text=logged)
    elif commits and session.gtid.owned is not gnx.NOTHING and not session.in_transaction():
        # sql_parse.cc: at the end of an implicitly committing statement an owned GTID is logged as an empty
        # transaction (gtid_end_transaction); ANONYMOUS ownership is released
        trx.commit(session)
    if spec.after_commit is not None:
        spec.after_commit(session, stmt)
    return res


def _failed(session: Session, spec: StatementSpec, err: BaseException) -> None:
    """A statement failed: what ``spec.on_failure`` says happens to its transaction."""
    if spec.on_failure == "statement":
        trx.statement_failed(session, err)
    elif spec.on_failure == "rollback":
        trx.rollback(session)


# ---------------------------------------------------------------------------------------------- the handlers
def _set(session: Session, stmt: Statement) -> StatementResult:
    return session.run_set(stmt.text, stmt.assignments)


def _show(session: Session, stmt: Statement) -> StatementResult:
    # every SHOW's rows come from its provider (engine/statements/show.py)
    return show.answer(session, stmt)


def _begin(session: Session, stmt: Statement) -> StatementResult:
    trx.begin(session, stmt.text)
    # START TRANSACTION releases table locks, not the global read lock (statements/locks.py)
    session.server.table_locks.unlock(session.id, global_read=False)
    return StatementResult()


def _commit(session: Session, stmt: Statement) -> StatementResult:
    trx.complete(session, stmt, rollback_trx=False)
    return StatementResult()


def _rollback(session: Session, stmt: Statement) -> StatementResult:
    trx.complete(session, stmt, rollback_trx=True)
    return StatementResult()


def _completion_syntax(session: Session, stmt: Statement) -> None:
    trx.completion(session, stmt)  # AND CHAIN RELEASE: 1064 before anything ends


def _write_sql(session: Session, stmt: Statement) -> StatementResult:
    return session.run_sql(stmt, writes=True)


def _account_check(session: Session, stmt: Statement) -> None:
    from gtidkit.engine.accounts import statements as account_statements

    # 1064 before any commit, as the parser fails first in MySQL
    stmt.info["account"] = account_statements.parse(stmt.text)


def _account(session: Session, stmt: Statement) -> StatementResult:
    """CREATE / ALTER / DROP / RENAME USER, GRANT, REVOKE, SET PASSWORD, CREATE / DROP ROLE: DDL as MySQL runs it
    (``sql_command_flags``: CF_AUTO_COMMIT_TRANS): the grant tables changed in the statement's own transaction,
    which the lifecycle commits with its GTID and its binlog event in MySQL's rewritten form
    (:mod:`gtidkit.engine.accounts.statements`), then reloads the account cache (``acl_reload``).
    ``session.account_outcome`` keeps what it did for the wire server (passwords changed, own password set)."""
    from gtidkit.engine.accounts import statements as account_statements
    from gtidkit.engine.accounts.passwords import CACHING_SHA2

    parsed = stmt.info.get("account")
    if parsed is None:
        parsed = account_statements.parse(stmt.text)
    outcome = account_statements.run(
        session.conn,
        parsed,
        current_user=session.executor.current_user,
        current_db=session.current_db,
        default_plugin=str(session.server.globals.values.get("default_authentication_plugin", CACHING_SHA2)),
    )
    session.account_outcome = outcome
    return StatementResult(warnings=tuple(Condition(*n) for n in outcome.notes))


def _account_logged(session: Session, stmt: Statement) -> str | None:
    return str(session.account_outcome.binlog_text)


def _account_reload(session: Session, stmt: Statement) -> None:
    session.server.accounts_changed(session.conn)  # on a failed commit the cache keeps the committed accounts


def _create_start_transaction(session: Session, stmt: Statement) -> StatementResult:
    """``CREATE TABLE ... START TRANSACTION``: how 8.0.21+ logs a CREATE TABLE ... SELECT (a replica applies it
    between the transaction's BEGIN and its row events): the table is created inside the open transaction, which
    its Xid commits; logged again in the same form (log_replica_updates). It joins that transaction's GTID: nothing
    is done while the transaction is skipped."""
    from gtidkit.engine.statements.classify import classify

    if session.gtid.skipping:
        return StatementResult()
    text = START_TRANSACTION.sub(")", stmt.text)
    session.ensure_write_trx()
    session.explicit_trx = True  # the DDL does not end the transaction: its row events and Xid follow
    res = session.run_sql(classify(text), writes=True)
    session.ddl_binlog_text = stmt.text.strip().rstrip(";")
    return res


def _temporary_ddl(session: Session, stmt: Statement) -> StatementResult:
    """CREATE / DROP TEMPORARY TABLE: no implicit commit (RM8 "Statements That Cause an Implicit Commit"); with
    ROW / MIXED format nothing is logged, so an autocommitted one consumes a GTID only when it owns one (an
    explicit GTID_NEXT: committed as an empty transaction, as no_binlog_gtid_mode_on shows); with STATEMENT format
    it is logged as a statement (:func:`_temporary_logged`), and inside a transaction enforce_gtid_consistency
    refuses it (3748)."""
    statement_format = session_binlog_format(session.server, session) == "STATEMENT"
    warnings: list[tuple[str, int, str]] = []
    if statement_format and session.in_transaction():
        enforce = str(session.server.globals.get("enforce_gtid_consistency")).upper()
        if enforce in ("ON", "1", "TRUE"):
            raise mysql_error(3748)
        if enforce == "WARN":
            warnings.append(("Warning", 3748, mysql_error(3748).message))
    autocommit = not session.explicit_trx and session.autocommit()
    session.ensure_write_trx()
    res = session.run_sql(stmt, writes=True)
    session.temp_dirty = True
    if statement_format and not autocommit:  # one statement of the transaction's log
        session.statements.append(LoggedStatement(session.current_db or "", stmt.text))
        session.trx_dirty = True
    return _with_warnings(res, warnings)


def _temporary_logged(session: Session, stmt: Statement) -> str | None:
    return stmt.text if session_binlog_format(session.server, session) == "STATEMENT" else None


def _dml(session: Session, stmt: Statement) -> StatementResult:
    res = session.run_sql(stmt, writes=True)
    return _with_warnings(res, system_tables.gtid_table_warnings(session, stmt.text))


def _prepared(session: Session, stmt: Statement) -> StatementResult:
    # PREPARE / DEALLOCATE PREPARE touch no table and no GTID; EXECUTE was replaced by its statement in the session
    from gtidkit.engine.statements import prepared

    if stmt.command == "prepare":
        return prepared.sql_prepare(session, stmt)
    return prepared.deallocate(session, stmt)


def _empty(session: Session, stmt: Statement) -> StatementResult:
    # only a version comment whose body is empty (``/*!*/``: what the mysql / mariadb client sends for
    # mysqlbinlog's ``/*!\C utf8mb4 *//*!*/;`` after running \C): MySQL's SQLCOM_EMPTY_QUERY, an innocent OK
    # (sql_yacc.yy ``sql_statement: END_OF_INPUT`` with has_comment())
    return StatementResult()


def _other(session: Session, stmt: Statement) -> StatementResult:
    # statements the SQL layer may not know (HANDLER, LOAD DATA, ...): not innocent, so a failure of an
    # autocommitted one ends its transaction like any other statement's
    refused = load_data.local_infile_error(session, stmt.text)
    if refused is not None:
        raise refused
    return session.run_sql(stmt, writes=False)


def _read(session: Session, stmt: Statement) -> StatementResult:
    return session.run_sql(stmt, writes=False)


def _select(session: Session, stmt: Statement) -> StatementResult:
    if "into_file" in stmt.info:  # SELECT ... INTO OUTFILE / DUMPFILE: the result goes to a server file
        from gtidkit.engine.statements.into_file import run_into_file

        return run_into_file(session, stmt)
    into = user_vars.select_into(session, stmt.text)  # SELECT ... INTO @a, @b
    if into is not None:
        return into
    calc = found_rows.strip_calc_found_rows(stmt.text)
    if calc is not None:  # SELECT SQL_CALC_FOUND_ROWS ...: FOUND_ROWS() counts the rows without the LIMIT
        from gtidkit.engine.statements.classify import classify

        res = session.run_sql(classify(calc), writes=False)
        session.calc_found_rows = found_rows.count_without_limit(session, calc)
        return _with_warnings(res, user_vars.expression_assignment_warnings(stmt.text))
    res = session.run_sql(stmt, writes=False)
    warnings = [
        *user_vars.expression_assignment_warnings(stmt.text),
        *system_tables.select_for_update_warnings(session, stmt.text),
    ]
    return _with_warnings(res, warnings)


def _with_warnings(res: StatementResult, first: list[tuple[str, int, str]]) -> StatementResult:
    """``res`` with the conditions ``first`` raised before its own (MySQL raises them when opening/parsing)."""
    if not first:
        return res
    return dataclasses.replace(res, warnings=tuple(Condition(*w) for w in first) + res.warnings)


def _show_warnings(session: Session, stmt: Statement) -> StatementResult:
    return show_conditions(session, stmt, errors_only=False)


def _show_errors(session: Session, stmt: Statement) -> StatementResult:
    return show_conditions(session, stmt, errors_only=True)


def _count_warnings(session: Session, stmt: Statement) -> StatementResult:
    return show_count(session, "warning_count")


def _count_errors(session: Session, stmt: Statement) -> StatementResult:
    return show_count(session, "error_count")


#: spec key (kind, form or command) -> the engine's handler, registered into :data:`SPECS` below (the refusals
#: are the rows' own handlers: :func:`gtidkit.engine.statements.specs.refusal`)
HANDLERS: dict[str, Handler] = {
    # kinds
    "select": _select,
    "use": _read,
    "dml": _dml,
    "ddl": _write_sql,
    "begin": _begin,
    "commit": _commit,
    "rollback": _rollback,
    "savepoint": _write_sql,
    "release_savepoint": _write_sql,
    "rollback_to_savepoint": _write_sql,
    "set": _set,
    "show": _show,
    "prepared": _prepared,
    "account": _account,
    "other": _other,
    # forms
    "empty": _empty,
    "temporary_ddl": _temporary_ddl,
    "create_start_transaction": _create_start_transaction,
    # admin commands
    **admin.HANDLERS,
    "flush": flush.run_flush,
    "table_maintenance": maintenance.run_maintenance,
    "checksum_table": checksum_table.run_checksum_table,
    "binlog": binlog_statement.run_binlog,
    "load_data": load_data.run_load_data,
    # SHOW commands (SHOW REPLICA STATUS / RELAYLOG EVENTS / REPLICAS: replication registers its own)
    "binary_log_status": _show,
    "binary_logs": _show,
    "replica_status": _show,
    "replicas": _show,
    "relaylog_events": _show,
    "engine_innodb_status": _show,
    "warnings": _show_warnings,
    "errors": _show_errors,
    "count_warnings": _count_warnings,
    "count_errors": _count_errors,
}

#: the statement-specific hooks of a row besides its handler (syntax checks, logged text, after the commit)
_HOOKS: dict[str, dict[str, object]] = {
    "commit": {"check": _completion_syntax},
    "rollback": {"check": _completion_syntax},
    "account": {"check": _account_check, "logged": _account_logged, "after_commit": _account_reload},
    "temporary_ddl": {"logged": _temporary_logged},
    "flush": {"logged": flush.logged_text},
    "table_maintenance": {"check": maintenance.check_maintenance, "logged": maintenance.logged_text},
    "checksum_table": {"check": checksum_table.check_checksum_table},
    "binlog": {"check": binlog_statement.check_binlog},
    "load_data": {"check": load_data.check_load_data},
}

for _key, _handler in HANDLERS.items():
    SPECS.register(_key, _handler, **_HOOKS.get(_key, {}))
