"""One dispatch table: statement kind -> handler(session, stmt) -> StatementResult (MySQL's mysql_execute_command).

:func:`dispatch` is the only place a classified statement (:mod:`gtidkit.engine.statements.classify`) meets the code
that runs it. What a statement is (implicit commit, diagnostic, global privileges) is its row of
:mod:`gtidkit.engine.statements.specs`.

The lifecycle of one statement, in this order:

1. parse: :func:`~gtidkit.engine.statements.classify.classify` (one split per COM_QUERY, one classification per
   statement; ``Session._execute_statement``);
2. privileges: the session's authorizer (:mod:`gtidkit.engine.statements.access`), on the parsed statement and the
   tables its plan names; then the wire server's own statements (KILL, SHUTDOWN, SHOW PROCESSLIST, accounts) are
   answered by its hook;
3. diagnostics area: cleared unless the spec is ``diagnostic``;
4. locks: :func:`gtidkit.engine.statements.locks.check_statement` while LOCK TABLES / FLUSH TABLES WITH READ LOCK
   is held by some session (:func:`dispatch`);
5. GTID pre-checks: :func:`gtidkit.engine.statements.transaction.pre_statement` (1837 while gtid_next is UNDEFINED,
   skipping a transaction whose GTID is already executed; 1778 before an implicit commit); SET and the diagnostic
   SHOWs skip them (they are "innocent" statements that never touch a GTID);
6. implicit commit: when the spec says ``implicit_commit`` (DDL, account statements, FLUSH / RESET / PURGE / LOCK
   TABLES ...);
7. handler: the kind's entry of :data:`HANDLERS` (SQL runs in the SQL layer through :meth:`Session.run_sql`);
8. completion: commit of an autocommitted DML / DDL, or rollback / ``statement_failed`` on failure
   (:mod:`gtidkit.engine.statements.transaction`); then the session completes the result (warning count, status
   flags, session-state changes): handlers return its content only.

Steps 5 to 8 are still written out in each handler of this module (not yet one function driven by the spec alone).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from gtidkit.engine.binlog.statement_context import LoggedStatement
from gtidkit.engine.binlog.transaction_events import session_binlog_format
from gtidkit.engine.gtid import gtid_next as gnx
from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.sql.create_select import START_TRANSACTION
from gtidkit.engine.sql.temporary import is_temporary_ddl
from gtidkit.engine.statements import (
    binlog_statement,
    checksum_table,
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
from gtidkit.engine.statements.classify import StatementKind as K
from gtidkit.engine.statements.specs import spec_of
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = ["HANDLERS", "dispatch"]

Handler = Callable[["Session", "Statement"], StatementResult]


def _set(session: Session, stmt: Statement) -> StatementResult:
    return session.run_set(stmt.text, stmt.assignments)


def _show(session: Session, stmt: Statement) -> StatementResult:
    # every SHOW's rows come from its provider (engine/statements/show.py); diagnostic SHOWs skip the GTID checks
    if not spec_of(stmt).diagnostic:
        trx.pre_statement(session, stmt)
    return show.answer(session, stmt)


def _begin(session: Session, stmt: Statement) -> StatementResult:
    trx.pre_statement(session, stmt)
    trx.begin(session, stmt.text)
    # START TRANSACTION releases table locks, not the global read lock (statements/locks.py)
    session.server.table_locks.unlock(session.id, global_read=False)
    return StatementResult()


def _commit(session: Session, stmt: Statement) -> StatementResult:
    trx.completion(session, stmt)  # AND CHAIN RELEASE: 1064 before anything ends
    trx.pre_statement(session, stmt)
    trx.complete(session, stmt, rollback_trx=False)
    return StatementResult()


def _rollback(session: Session, stmt: Statement) -> StatementResult:
    trx.completion(session, stmt)
    trx.pre_statement(session, stmt)
    trx.complete(session, stmt, rollback_trx=True)
    return StatementResult()


def _admin(session: Session, stmt: Statement) -> StatementResult:
    if stmt.command == "table_maintenance":  # ANALYZE / OPTIMIZE / CHECK / REPAIR TABLE: logged as DDL is
        return maintenance.run_maintenance(session, stmt)
    if stmt.command == "flush":  # FLUSH TABLES / ENGINE LOGS / PRIVILEGES ...: logged unless LOCAL
        return flush.run_flush(session, stmt)
    if stmt.command == "checksum_table":  # reads only: no implicit commit, no GTID, not logged
        return checksum_table.run_checksum_table(session, stmt)
    if stmt.command == "binlog":  # BINLOG '<base64>': row events applied in the session's transaction
        return binlog_statement.run_binlog(session, stmt)
    if stmt.command == "load_data":  # LOAD DATA [LOCAL] INFILE: a DML statement's lifecycle, its own module
        return load_data.run_load_data(session, stmt)
    skip = trx.pre_statement(session, stmt)
    # UNLOCK TABLES commits only when LOCK TABLES locks are held (statements/locks.py)
    commits = trx.causes_implicit_commit(stmt) and session.server.admin.commits_implicitly(session, stmt)
    if commits:
        trx.implicit_commit(session)
    if skip:
        trx.commit(session)  # skipped like any statement of an already executed GTID; gtid_next -> UNDEFINED
        return StatementResult()
    hook = session.server.statement_hooks.get(stmt.command or "")
    try:
        res = hook(session, stmt) if hook is not None else session.server.admin.run(session, stmt)
    except BaseException as err:
        trx.statement_failed(session, err)
        raise
    if commits and session.gtid.owned is not gnx.NOTHING and not session.in_transaction():
        # sql_parse.cc: at the end of an implicitly committing statement an owned GTID is logged as an empty
        # transaction (gtid_end_transaction); ANONYMOUS ownership is released
        trx.commit(session)
    return res


def _savepoint(session: Session, stmt: Statement) -> StatementResult:
    if trx.pre_statement(session, stmt):
        return StatementResult()
    session.ensure_write_trx()
    return session.run_sql(stmt, writes=True)


def _ddl(session: Session, stmt: Statement) -> StatementResult:
    if is_temporary_ddl(stmt.text):
        return _temporary_ddl(session, stmt)
    if START_TRANSACTION.search(stmt.text):
        return _create_start_transaction(session, stmt)
    trx.check_read_only(session, stmt)  # 1290 under read_only / super_read_only, before the implicit commit
    skip = trx.pre_statement(session, stmt)
    trx.implicit_commit(session)
    if skip:
        trx.commit(session)  # ends the skipped transaction: gtid_next becomes UNDEFINED
        return StatementResult()
    trx.reacquire_anonymous(session)
    session.ensure_write_trx()
    try:
        res = session.run_sql(stmt, writes=True)
    except BaseException:
        trx.rollback(session)
        raise
    trx.commit(session, ddl_text=stmt.text)
    return res


def _account(session: Session, stmt: Statement) -> StatementResult:
    """CREATE / ALTER / DROP / RENAME USER, GRANT, REVOKE, SET PASSWORD, CREATE / DROP ROLE: DDL as MySQL runs it
    (``sql_command_flags``: CF_AUTO_COMMIT_TRANS): an implicit commit before, the grant tables changed in the
    statement's own transaction, which commits with its GTID and its binlog event in MySQL's rewritten form
    (:mod:`gtidkit.engine.accounts.statements`); the account cache is reloaded after it (``acl_reload``).
    ``session.account_outcome`` keeps what it did for the wire server (passwords changed, own password set)."""
    from gtidkit.engine.accounts import statements as account_statements
    from gtidkit.engine.accounts.passwords import CACHING_SHA2

    parsed = account_statements.parse(stmt.text)  # 1064 before any commit, as the parser fails first in MySQL
    trx.check_read_only(session, stmt)  # 1290 under read_only / super_read_only
    skip = trx.pre_statement(session, stmt)
    trx.implicit_commit(session)
    if skip:
        trx.commit(session)
        return StatementResult()
    trx.reacquire_anonymous(session)
    session.ensure_write_trx()
    try:
        outcome = account_statements.run(
            session.conn,
            parsed,
            current_user=session.executor.current_user,
            current_db=session.current_db,
            default_plugin=str(
                session.server.globals.values.get("default_authentication_plugin", CACHING_SHA2)
            ),
        )
    except BaseException:
        trx.rollback(session)
        raise
    trx.commit(session, ddl_text=outcome.binlog_text)  # on failure the cache keeps the committed accounts
    session.server.accounts.load(session.conn)
    session.account_outcome = outcome
    return StatementResult(warnings=tuple(Condition(*n) for n in outcome.notes))


def _create_start_transaction(session: Session, stmt: Statement) -> StatementResult:
    """``CREATE TABLE ... START TRANSACTION``: how 8.0.21+ logs a CREATE TABLE ... SELECT (a replica applies it
    between the transaction's BEGIN and its row events): the table is created inside the open transaction, which
    its Xid commits; logged again in the same form (log_replica_updates)."""
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
    it is logged as a statement, and inside a transaction enforce_gtid_consistency refuses it (3748)."""
    skip = trx.pre_statement(session, stmt)
    autocommit = not session.explicit_trx and session.autocommit()
    if skip:
        if autocommit:
            trx.commit(session)
        return StatementResult()
    statement_format = session_binlog_format(session.server, session) == "STATEMENT"
    warnings: list[tuple[str, int, str]] = []
    if statement_format and session.in_transaction():
        enforce = str(session.server.globals.get("enforce_gtid_consistency")).upper()
        if enforce in ("ON", "1", "TRUE"):
            raise mysql_error(3748)
        if enforce == "WARN":
            warnings.append(("Warning", 3748, mysql_error(3748).message))
    session.ensure_write_trx()
    try:
        res = session.run_sql(stmt, writes=True)
    except BaseException as err:
        trx.statement_failed(session, err)
        raise
    session.temp_dirty = True
    if statement_format:
        if autocommit:
            trx.commit(session, ddl_text=stmt.text)
            return _with_warnings(res, warnings)
        session.statements.append(LoggedStatement(session.current_db or "", stmt.text))
        session.trx_dirty = True
    if autocommit:
        trx.commit(session)
    return _with_warnings(res, warnings)


def _dml(session: Session, stmt: Statement) -> StatementResult:
    skip = trx.pre_statement(session, stmt)
    autocommit = not session.explicit_trx and session.autocommit()
    if skip:
        if autocommit:
            trx.commit(session)
        return StatementResult()
    try:
        trx.check_read_only(session, stmt)  # 1290 under read_only / super_read_only
        trx.check_writable(session, stmt)  # 1792 in a READ ONLY transaction
    except BaseException as err:
        trx.statement_failed(session, err)
        raise
    session.ensure_write_trx()
    try:
        res = session.run_sql(stmt, writes=True)
    except BaseException as err:
        trx.statement_failed(session, err)
        raise
    if autocommit:
        trx.commit(session)
        session.reset_one_shot_characteristics()
    return _with_warnings(res, system_tables.gtid_table_warnings(session, stmt.text))


def _prepared(session: Session, stmt: Statement) -> StatementResult:
    # PREPARE / DEALLOCATE PREPARE touch no table and no GTID; EXECUTE was replaced by its statement in the session
    from gtidkit.engine.statements import prepared

    if stmt.command == "prepare":
        return prepared.sql_prepare(session, stmt)
    return prepared.deallocate(session, stmt)


def _other(session: Session, stmt: Statement) -> StatementResult:
    if not stmt.text.strip():
        # only a version comment whose body is empty (``/*!*/``: what the mysql / mariadb client sends for
        # mysqlbinlog's ``/*!\C utf8mb4 *//*!*/;`` after running \C): MySQL's SQLCOM_EMPTY_QUERY, an innocent OK
        # (sql_yacc.yy ``sql_statement: END_OF_INPUT`` with has_comment())
        return StatementResult()
    # statements the SQL layer may not know (HANDLER, LOAD DATA, ...): not innocent, so a failure of an
    # autocommitted one ends its transaction like any other statement's
    if trx.pre_statement(session, stmt):
        return StatementResult()
    try:
        refused = load_data.local_infile_error(session, stmt.text)
        if refused is not None:
            raise refused
        return session.run_sql(stmt, writes=False)
    except BaseException as err:
        trx.statement_failed(session, err)
        raise


def _read(session: Session, stmt: Statement) -> StatementResult:
    trx.pre_statement(session, stmt)
    return session.run_sql(stmt, writes=False)


def _select(session: Session, stmt: Statement) -> StatementResult:
    trx.pre_statement(session, stmt)
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


#: Statement kind -> handler. Every :class:`~gtidkit.engine.statements.classify.StatementKind` has one.
HANDLERS: dict[K, Handler] = {
    K.SELECT: _select,
    K.USE: _read,
    K.DML: _dml,
    K.DDL: _ddl,
    K.BEGIN: _begin,
    K.COMMIT: _commit,
    K.ROLLBACK: _rollback,
    K.SAVEPOINT: _savepoint,
    K.RELEASE_SAVEPOINT: _savepoint,
    K.ROLLBACK_TO_SAVEPOINT: _savepoint,
    K.SET: _set,
    K.SHOW: _show,
    K.ADMIN: _admin,
    K.PREPARED: _prepared,
    K.ACCOUNT: _account,
    K.OTHER: _other,
}


def dispatch(session: Session, stmt: Statement) -> StatementResult:
    """Run one classified statement through its handler.

    Raises:
        MySQLError: whatever the statement fails with (MySQL's code, SQLSTATE and message).
    """
    if session.server.table_locks.active:  # LOCK TABLES / FLUSH TABLES WITH READ LOCK held by some session
        locks.check_statement(session, stmt.kind, stmt.text)
    return HANDLERS[stmt.kind](session, stmt)
