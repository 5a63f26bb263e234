"""BEGIN / COMMIT / ROLLBACK / implicit commit, and the GTID checks every statement passes first.

Sources: MySQL ``sql/transaction.cc`` (``trans_begin`` commits the open transaction first; ``trans_commit``;
``trans_rollback``; ``trans_commit_implicit``), ``sql/rpl_gtid_execution.cc`` (``gtid_pre_statement_checks``:
ER 1778 for BEGIN or an implicitly committing statement inside a multi-statement transaction whose gtid_next is
UUID:NUMBER, checked before anything else; BEGIN/COMMIT/ROLLBACK and innocent statements always run; ER 1837 while
UNDEFINED; a transaction whose GTID is already executed is skipped statement by statement;
``gtid_pre_statement_post_implicit_commit_checks`` re-acquires ANONYMOUS), ``sql/binlog.cc``
(``gtid_end_transaction``: COMMIT of an empty transaction that owns a GTID commits the GTID, written as
Gtid + BEGIN + COMMIT or saved to the table), ``sql/handler.cc`` (``ha_rollback_trans``: "Only call
gtid_rollback ... if complete transaction is being rollback or autocommit=1": a failing autocommitted statement
releases ownership and leaves gtid_next UNDEFINED; inside BEGIN it keeps it).

Completion (``COMMIT|ROLLBACK [WORK] [AND [NO] CHAIN] [[NO] RELEASE]``, :func:`complete`) follows ``sql_parse.cc``
(``SQLCOM_COMMIT`` / ``SQLCOM_ROLLBACK``): chain when ``AND CHAIN`` is written, or ``completion_type`` is CHAIN and
``AND NO CHAIN`` is not; release likewise with RELEASE / ``NO RELEASE``; ``AND CHAIN RELEASE`` is a syntax error
(``sql_yacc.yy``). After the commit or rollback a chained transaction begins at once (``trans_begin``) and keeps the
access mode of the one it replaces (the isolation level too: SQLite serialises writers, so only the session trackers
show it, :mod:`gtidkit.engine.tracking`); without a chain the one-shot ``SET TRANSACTION``
characteristics are reset (``trans_reset_one_shot_chistics``); RELEASE marks the session killed
(``thd->killed = KILL_CONNECTION``): its OK is sent, then the connection ends. ``completion_type`` applies to these
two statements only: not to implicit commits, not to autocommitted statements, not to the replica applier (whose
Xid events commit through ``trans_commit``). RM8 "START TRANSACTION, COMMIT, and ROLLBACK Statements"; mysql-test
``r/commit.result`` (Bug#20837 / Bug#53343) and ``suite/sys_vars/r/completion_type_func.result``.

Access mode: a transaction is READ ONLY when START TRANSACTION READ ONLY opened it, or (no READ WRITE written) when
a one-shot ``SET TRANSACTION READ ONLY`` or ``@@transaction_read_only`` says so (``trans_begin``: ``thd->tx_read_only``);
a write to a non-temporary table in it fails with 1792 ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION.

The GTID bookkeeping is the table of :mod:`gtidkit.engine.gtid.gtid_next`; this module feeds it events and
performs the side effects on the server's GTID state. The write matrix of a commit is
:func:`gtidkit.engine.gtid.commit.commit`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot import exp

from gtidkit.engine.gtid import commit as commit_mod
from gtidkit.engine.gtid import gtid_next as gnx
from gtidkit.engine.gtid.gtid_next import ANONYMOUS, ASSIGNED, implicit_commit_error
from gtidkit.engine.sql.names import physical_name
from gtidkit.engine.sql.parse import parse_error
from gtidkit.engine.statements import deferred
from gtidkit.engine.statements.specs import StatementSpec, spec_of
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

#: ``ER_PARSE_ERROR``: the parser rejected the text (see :func:`statement_failed`)
ER_PARSE_ERROR = 1064
#: ``ER_LOCK_DEADLOCK``: the transaction was chosen as a deadlock's victim (see :func:`statement_failed`)
ER_LOCK_DEADLOCK = 1213


def causes_implicit_commit(stmt: Statement) -> bool:
    """True for statements that commit the open transaction before running (DDL, most admin commands): the
    ``implicit_commit`` flag of their :class:`~gtidkit.engine.statements.specs.StatementSpec`."""
    return spec_of(stmt).implicit_commit


def pre_statement(session: Session, stmt: Statement, spec: StatementSpec | None = None) -> bool:
    """``gtid_pre_statement_checks``, step 3 of the statement lifecycle (only
    :func:`gtidkit.engine.statements.dispatch.dispatch` calls it); returns True when the statement must be skipped
    (its GTID is already executed).

    Args:
        session: the session running the statement.
        stmt: the classified statement.
        spec: its :class:`~gtidkit.engine.statements.specs.StatementSpec` (default: the engine's row): 1778 when
            it commits the open transaction (``implicit_commit`` / ``starts_transaction``); an ``innocent`` one
            stops there, any other takes part in GTID ownership.

    Raises:
        MySQLError: 1778 implicit commit inside a transaction with gtid_next=UUID:NUMBER; 1837 while UNDEFINED;
            1782 re-acquiring ANONYMOUS after gtid_mode became ON.
    """
    if spec is None:
        spec = spec_of(stmt)
    gn = session.gtid
    if gn.type is ASSIGNED and (spec.implicit_commit or spec.starts_transaction) and session.in_transaction():
        raise implicit_commit_error()
    if spec.innocent:
        return False
    reacquire_anonymous(session)
    gn.handle(gnx.STATEMENT)
    return gn.skipping


def reacquire_anonymous(session: Session) -> None:
    """``gtid_reacquire_ownership_if_anonymous``: gtid_next=ANONYMOUS owning nothing takes ANONYMOUS again."""
    gn = session.gtid
    if gn.type is ANONYMOUS and gn.owned is gnx.NOTHING:
        if session.server.globals.values["gtid_mode"] == "ON":
            raise mysql_error(1782)
        session.server.gtid_state.acquire_anonymous()
        gn.handle(gnx.STATEMENT)


#: START TRANSACTION's access-mode option (the recogniser already checked the whole statement)
_ACCESS_MODE = re.compile(r"\bREAD\s+(ONLY|WRITE)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Completion:
    """How a COMMIT / ROLLBACK statement ends (``sql_parse.cc``: ``tx_chain`` / ``tx_release``).

    Attributes:
        chain: a new transaction begins at once, with the same characteristics.
        release: the session ends once the statement's OK is sent.
    """

    chain: bool = False
    release: bool = False


#: neither chain nor release
_PLAIN = Completion()


def completion(session: Session, stmt: Statement) -> Completion:
    """The completion a COMMIT / ROLLBACK statement asks for, ``completion_type`` applied.

    Args:
        session: the session running it (its ``completion_type``; an applier session ignores it).
        stmt: the classified COMMIT / ROLLBACK; ``info["chain"]`` / ``info["release"]`` hold the clauses written.

    Raises:
        MySQLError: 1064 ER_PARSE_ERROR for ``AND CHAIN RELEASE`` (``sql_yacc.yy``: "Don't allow AND CHAIN
            RELEASE").
    """
    chain, release = stmt.info.get("chain"), stmt.info.get("release")
    chain_kw = " ".join(str(chain).upper().split()) if chain else ""
    release_kw = " ".join(str(release).upper().split()) if release else ""
    if chain_kw == "AND CHAIN" and release_kw == "RELEASE":
        raise parse_error(stmt.text, None)
    ctype = str(session.session_value("completion_type")) if session.follows_completion_type else "NO_CHAIN"
    if ctype == "NO_CHAIN" and not chain_kw and not release_kw:
        return _PLAIN  # a bare COMMIT / ROLLBACK (sysbench's every transaction)
    return Completion(
        chain=chain_kw == "AND CHAIN" or (ctype == "CHAIN" and chain_kw != "AND NO CHAIN"),
        release=release_kw == "RELEASE" or (ctype == "RELEASE" and release_kw != "NO RELEASE"),
    )


def begin(session: Session, text: str = "") -> None:
    """BEGIN / START TRANSACTION: commit the open transaction, then open an explicit one.

    Args:
        session: the session.
        text: the statement text; its ``READ ONLY`` / ``READ WRITE`` option sets the access mode, else the
            one-shot ``SET TRANSACTION`` or ``@@transaction_read_only`` value applies (``trans_begin``).
    """
    access = _ACCESS_MODE.search(text)
    read_only = access.group(1).upper() == "ONLY" if access else session.next_read_only()
    if session.explicit_trx or session.holds_write_lock:
        # trans_begin commits the open transaction itself (the one-shot stays for the new one)
        commit(session)
    session.reset_one_shot_characteristics()  # a one-shot SET TRANSACTION applies to this transaction only
    _open_explicit(session, read_only)
    if _CONSISTENT_SNAPSHOT.search(text):
        open_read_view(session)


#: ``START TRANSACTION WITH CONSISTENT SNAPSHOT`` (classify.py accepts it among the characteristics)
_CONSISTENT_SNAPSHOT = re.compile(r"WITH\s+CONSISTENT\s+SNAPSHOT", re.IGNORECASE)


def reads_several_files(session: Session, stmt: Statement) -> bool:
    """Whether SELECT ``stmt`` (outside a transaction) reads tables of more than one SQLite file (schema files,
    or one and the main file; a view reading another file counts as several): its statement then reads them in
    one snapshot (``Connection.open_read_snapshot``), as InnoDB's statement-level read view of an autocommitted
    SELECT sees one commit point."""
    storage = session.executor.storage
    named = session.named_tables(stmt)
    if not named:
        return False
    canonical = storage.catalog.canonical_schema
    cross = storage.cross_views()
    files = set()
    for db, name in named:
        schema = canonical(db)
        if cross and physical_name(schema, name) in cross:
            return True
        files.add(storage.qualifier(schema))
    return len(files) > 1


def open_read_view(session: Session) -> None:
    """With schema files (engine/schema_files.py), a REPEATABLE READ transaction's consistent read view over every
    file at one commit point (``Connection.open_read_snapshot``): at its first SELECT, or at START TRANSACTION
    WITH CONSISTENT SNAPSHOT (RM8 "Consistent Nonlocking Reads": the snapshot is established by the first
    consistent read, or at once WITH CONSISTENT SNAPSHOT; "only if the current isolation level is one that permits
    a consistent read", REPEATABLE READ). A no-op without schema files (the one file is consistent by itself) or
    once the transaction holds a snapshot or writes."""
    conn = session.conn
    if not conn.attached or conn.in_transaction:
        return
    if str(session.sysvar_show_value("transaction_isolation", None)).upper() != "REPEATABLE-READ":
        return
    conn.open_read_snapshot()


def _open_explicit(session: Session, read_only: bool) -> None:
    session.explicit_trx = True
    session.trx_read_only = read_only


def complete(session: Session, stmt: Statement, *, rollback_trx: bool) -> None:
    """COMMIT / ROLLBACK as a statement: end the transaction, then chain or release as :func:`completion` says.

    A chained transaction is explicit (SERVER_STATUS_IN_TRANS stays set) and keeps the access mode of the one it
    replaces; its GTID is a new one (each committed transaction of a chain is logged as any other). After a commit
    with ``gtid_next='UUID:N'`` gtid_next is UNDEFINED, so the chained transaction's first statement fails with
    1837 until gtid_next is set again, as in MySQL.

    Raises:
        MySQLError: 1064 for ``AND CHAIN RELEASE``; what the commit raises (then nothing is chained).
    """
    how = completion(session, stmt)
    read_only = session.trx_read_only
    if rollback_trx:
        rollback(session)
    else:
        commit(session)
    if how.chain:
        _open_explicit(session, read_only)
    else:
        session.reset_one_shot_characteristics()
    if how.release:
        # THD::KILL_CONNECTION: the OK goes out, then the session ends
        session.killed = session.released = True


def check_writable(session: Session, stmt: Statement) -> None:
    """A write in a READ ONLY transaction fails (temporary tables excepted, as InnoDB allows them).

    Raises:
        MySQLError: 1792 ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION (25006).
    """
    read_only = session.trx_read_only if session.explicit_trx else session.next_read_only()
    if read_only and not _writes_temporary_only(session, stmt):
        raise mysql_error(1792)


def check_read_only(session: Session, stmt: Statement) -> None:
    """``read_only`` / ``super_read_only`` (RM8 "read_only": "the server permits no client updates except from users
    who have the CONNECTION_ADMIN privilege (or the deprecated SUPER privilege)"; "super_read_only": "the server
    prohibits client updates, even from users who have CONNECTION_ADMIN or SUPER"). The replication applier and
    writes to temporary tables are exempt (``deny_updates_if_read_only_option`` in ``sql/sql_parse.cc``). The option
    named is ``--super-read-only`` for an account that could pass ``read_only``, ``--read-only`` otherwise
    (``err_readonly``).

    Raises:
        MySQLError: 1290 ER_OPTION_PREVENTS_STATEMENT.
    """
    if session.replication_thread:
        return
    g = session.server.globals.values  # canonical names: no alias lookup on every write's two checks
    if not g["read_only"] and not g["super_read_only"]:
        return
    if session.read_only_exempt and not g["super_read_only"]:
        return
    if _writes_temporary_only(session, stmt):
        return
    raise mysql_error(1290, "--super-read-only" if session.read_only_exempt else "--read-only")


def _writes_temporary_only(session: Session, stmt: Statement) -> bool:
    temp = session.executor.temp_tables
    if not temp:
        return False
    tree = stmt.tree
    target = tree.this if tree is not None else None
    while target is not None and not isinstance(target, exp.Table):
        target = target.this if isinstance(target, exp.Expression) else None
    if target is None:
        return False
    schema = session.executor.storage.catalog.canonical_schema(target.db or session.current_db or "")
    return (schema, target.name) in temp


def file_schemas(session: Session, stmt: Statement) -> list[str] | None:
    """The schemas with their own SQLite file that DML statement ``stmt`` names, when it names only tables of
    such schemas (and temporary tables): its transaction then writes without the engine write lock until COMMIT
    (:meth:`Session.ensure_write_trx`, engine/schema_files.py). None for anything else (DDL, a system table, a
    schema in the main file, a statement naming no table): the engine write lock is taken first, as with one
    file. A transaction must not read the main file before it takes that lock (its COMMIT writes there), so
    tables only read count too. The names come from the plan cache (:meth:`Session.named_tables`: a statement of
    a shape seen before is not parsed for them)."""
    storage = session.executor.storage
    if stmt.kind != "dml" or not storage.schema_files():
        return None
    named = session.named_tables(stmt)
    return _all_in_files(session, named) if named else None


#: Statement kinds that never read a table (the end of a transaction, savepoints, USE).
_READS_NO_TABLE = frozenset(
    {"commit", "rollback", "savepoint", "release_savepoint", "rollback_to_savepoint", "use"}
)


def guard_main_reads(session: Session, stmt: Statement) -> None:
    """A transaction writing schema files without the engine write lock (engine/schema_files.py) must not read
    the main file before it takes that lock: its COMMIT writes there (commit log, GTIDs), and SQLite refuses a
    write on a snapshot older than the file's last commit (the COMMIT would fail). So before a statement that may
    read the main file (one naming a table of the main file — mysql.*, information_schema, a schema without a file
    — or any statement but a SELECT / DML naming schema-file tables only, or naming no table) the lock is taken
    now, after the files' locks (the order every writer takes them in).

    Raises:
        MySQLError: 1205 after innodb_lock_wait_timeout waiting for the engine write lock.
    """
    kind = stmt.kind
    if kind in _READS_NO_TABLE:
        return
    if kind in ("select", "dml"):
        named = session.named_tables(stmt)
        if not named or _all_in_files(session, named) is not None:
            return
    session.ensure_write_trx()


def _all_in_files(session: Session, named: tuple[tuple[str, str], ...]) -> list[str] | None:
    """The file schemas of ``named`` tables when every one is in a schema file or a temporary table, else None."""
    storage = session.executor.storage
    temp = session.executor.temp_tables
    canonical = storage.catalog.canonical_schema
    schemas: list[str] = []
    cross = storage.cross_views()
    for db, name in named:
        schema = canonical(db)
        if (schema, name) in temp:
            continue
        if not storage.has_file(schema) or (cross and physical_name(schema, name) in cross):
            return None  # (a view reading another file may read the main file)
        schemas.append(schema)
    return schemas


def ddl_file_schemas(session: Session, stmt: Statement) -> list[str]:
    """The schemas a DDL or DML statement names (CREATE / DROP / ALTER DATABASE: its name; otherwise those of the
    tables its tree names), for :meth:`Session.lock_schema_files` before the engine write lock: a DDL waiting for
    an open transaction on its schema's file then holds no lock that other schemas' commits need (locks are taken
    files first, the engine write lock last, as a committing DML transaction takes them). Empty when there is no
    schema file or the statement has no tree."""
    storage = session.executor.storage
    if not storage.schema_files():
        return []
    obj = stmt.ddl_object
    if obj.kind == "DATABASE":
        return [obj.name] if obj.name else []
    canonical = storage.catalog.canonical_schema
    if obj.verb == "RENAME":  # RENAME TABLE has no tree: its pairs' schemas
        from gtidkit.engine.sql.alter import rename_schemas

        return [canonical(db) for db in rename_schemas(stmt.text, session.current_db)]
    try:
        tree = stmt.tree if obj.verb == "CREATE" else None
    except MySQLError:  # a CREATE with no sqlglot tree (its handler parses it): its named tables below
        tree = None
    if isinstance(tree, exp.Create) and str(tree.args.get("kind") or "").upper() == "VIEW":
        # CREATE VIEW writes its own schema's file only: the tables it selects from are read (MySQL's shared
        # metadata lock on them does not wait for their open write transactions)
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        db = target.db if isinstance(target, exp.Table) and target.db else session.current_db
        return [canonical(db)] if db else []
    return [canonical(db) for db, _name in session.named_tables(stmt)]


def implicit_commit(session: Session) -> None:
    """Commit the open transaction, if any (``trans_commit_implicit``), and forget a one-shot ``SET TRANSACTION``:
    mysql-test ``r/trans_read_only.result`` Test 10, "Since DDL does implicit commit before starting, SET
    TRANSACTION will have no effect because the "next" transaction will already be over before the DDL statement
    starts"."""
    if session.explicit_trx or session.holds_write_lock:
        commit(session)
    session.reset_one_shot_characteristics()


def commit(session: Session, *, ddl_text: str | None = None) -> None:
    """COMMIT (or the commit after an autocommitted statement / DDL): the write matrix, then the GTID table.

    An empty transaction commits only when it owns a GTID (it is then written as Gtid + BEGIN + COMMIT, or
    saved to mysql.gtid_executed with the binary log off). Ownership is released and gtid_next advances
    (ASSIGNED → UNDEFINED) whether the commit succeeds or fails.
    """
    gn = session.gtid
    try:
        if gn.skipping:
            session.release_after_rollback()
        elif ddl_text is not None or session.has_changes() or gn.owned is gnx.OWN_GTID:
            if session.deferred:  # gtidkit_row_locks: the queued rows written first (deferred.py)
                try:
                    deferred.flush(session)
                except BaseException:
                    session.release_after_rollback()  # no write lock in time: the transaction rolls back
                    raise
            session.ensure_write_trx()
            session.record_file_redo()  # schema files: the redo row, in main, before the COMMIT writes main first
            gtid = commit_mod.commit(session.server, session, ddl_text=ddl_text)
            session.tracker.transaction_committed(
                gtid
            )  # session_track_gtids (bounded: one statement's GTIDs)
            session.server.notify_commit(session, gtid)
        else:
            if session.temp_dirty and session.conn.in_transaction:
                session.conn.commit()  # temporary tables only: kept, nothing to log (ROW format)
            session.release_after_rollback()  # read-only: nothing to log
    except BaseException:
        _release_owned(session)
        gn.handle(gnx.TRX_END)
        raise
    finally:
        session.explicit_trx = False
        session.trx_read_only = False
    if gn.owned is gnx.OWN_ANONYMOUS:
        session.server.gtid_state.release_anonymous()
    gn.handle(gnx.TRX_END)


def rollback(session: Session) -> None:
    """ROLLBACK (also a failing autocommitted statement): discard, release what is owned, advance gtid_next."""
    session.release_after_rollback()
    session.explicit_trx = False
    session.trx_read_only = False
    _release_owned(session)
    session.gtid.handle(gnx.TRX_END)
    if session.purged_in_trx:
        # SET GLOBAL gtid_purged inside the transaction saved its rows through it: save them again
        added, session.purged_in_trx = session.purged_in_trx, type(session.purged_in_trx)()
        session.server.save_gtids_now(added, lock=True)


# ---------------------------------------------------------------------------------------------------- typed operations
# The transaction operations a caller that has no statement text uses (the replica applier's Query BEGIN / COMMIT /
# ROLLBACK and Xid events, the BINLOG statement, replica_skip_errors): what the BEGIN / COMMIT / ROLLBACK statements
# do once parsed, without a text to split, classify or track (Session.begin_transaction ... call these).


def begin_transaction(session: Session) -> None:
    """BEGIN as an operation (``trans_begin``): the one GTID check BEGIN passes (1778 while a transaction with
    gtid_next=UUID:NUMBER is open, ``gtid_pre_statement_checks``), the open transaction committed, an explicit one
    opened with the next transaction's access mode (one-shot ``SET TRANSACTION`` else ``transaction_read_only``),
    and the session's LOCK TABLES locks released (not the global read lock), as the BEGIN statement does.

    Raises:
        MySQLError: 1778 ER_CANT_DO_IMPLICIT_COMMIT_IN_TRX_WHEN_GTID_NEXT_IS_SET; what committing the open
            transaction raises.
    """
    if session.gtid.type is ASSIGNED and session.in_transaction():
        raise implicit_commit_error()
    begin(session)
    session.server.table_locks.unlock(session.id, global_read=False)


def commit_transaction(session: Session) -> None:
    """COMMIT as an operation (``trans_commit``: an Xid event, a COMMIT Query event, the end of an autocommitted
    BINLOG statement): :func:`commit`, then the one-shot ``SET TRANSACTION`` forgotten. It never chains nor
    releases: ``completion_type`` applies to the COMMIT statement only (``Xid_log_event::do_commit``).

    Raises:
        MySQLError: what the commit path raises (ownership is released and gtid_next advances all the same).
    """
    commit(session)
    session.reset_one_shot_characteristics()


def rollback_transaction(session: Session) -> None:
    """ROLLBACK as an operation (``trans_rollback``: a ROLLBACK Query event): :func:`rollback`, then the one-shot
    ``SET TRANSACTION`` forgotten."""
    rollback(session)
    session.reset_one_shot_characteristics()


def end_gtid_transaction(session: Session) -> bool:
    """``gtid_end_transaction`` (``sql/binlog.cc``): end what the session's GTID_NEXT started. The open transaction
    commits (:func:`commit_transaction`); outside one, an owned GTID commits as an empty transaction (Gtid + BEGIN +
    COMMIT in the binary log, or its ``mysql.gtid_executed`` row with the binary log off), owned ANONYMOUS is
    released and a skipped (already executed) GTID ends, so an ASSIGNED gtid_next becomes UNDEFINED. With
    nothing open, owned or skipped it does nothing.

    Returns:
        True when something ended.

    Raises:
        MySQLError: what the commit path raises.
    """
    gn = session.gtid
    if session.in_transaction() or gn.owned is not gnx.NOTHING or gn.skipping:
        commit_transaction(session)
        return True
    return False


def statement_failed(session: Session, error: BaseException | None = None) -> None:
    """A statement failed: an autocommitted one rolls back its transaction (ownership released, ha_rollback_trans);
    inside a multi-statement transaction the transaction and its GTID stay.

    A syntax error (1064 ER_PARSE_ERROR) changes nothing: in MySQL the parser rejects the text before
    ``mysql_execute_command`` runs, so neither ``gtid_pre_statement_checks`` nor the statement rollback
    (``trans_rollback_stmt`` -> ``Gtid_state::update_on_rollback``) happens, and an explicitly assigned GTID stays
    owned for the next statement (``dispatch_sql_command`` in ``sql/sql_parse.cc``).
    """
    if isinstance(error, MySQLError) and error.code == ER_PARSE_ERROR:
        return
    # 1213 ER_LOCK_DEADLOCK rolls back the whole transaction (InnoDB's victim; thd->transaction_rollback_request)
    if not session.explicit_trx or (isinstance(error, MySQLError) and error.code == ER_LOCK_DEADLOCK):
        rollback(session)


def _release_owned(session: Session) -> None:
    gn = session.gtid
    if gn.owned is gnx.OWN_GTID and gn.gtid is not None:
        session.server.gtid_state.release(gn.gtid)
    elif gn.owned is gnx.OWN_ANONYMOUS:
        session.server.gtid_state.release_anonymous()


__all__ = [
    "Completion",
    "begin",
    "begin_transaction",
    "causes_implicit_commit",
    "check_writable",
    "commit",
    "commit_transaction",
    "complete",
    "completion",
    "end_gtid_transaction",
    "implicit_commit",
    "pre_statement",
    "reacquire_anonymous",
    "rollback",
    "rollback_transaction",
    "statement_failed",
]
