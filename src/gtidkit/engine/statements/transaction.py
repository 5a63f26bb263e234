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

The GTID bookkeeping is the table of :mod:`gtidkit.engine.gtid.gtid_next`; this module feeds it events and
performs the side effects on the server's GTID state. The write matrix of a commit is
:func:`gtidkit.engine.gtid.commit.commit`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gtidkit.engine.gtid import commit as commit_mod
from gtidkit.engine.gtid import gtid_next as gnx
from gtidkit.engine.gtid.gtid_next import ANONYMOUS, ASSIGNED, implicit_commit_error
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.sql.parse import Statement

#: Statement kinds that never touch GTID ownership (``is_stmt_innocent``: SET, SHOW, SELECT, DO, USE).
INNOCENT = frozenset({"select", "show", "use", "set"})
#: Transaction control: always allowed, even while gtid_next is UNDEFINED.
CONTROL = frozenset({"begin", "commit", "rollback"})
#: Admin commands without CF_IMPLICIT_COMMIT_BEGIN.
_ADMIN_NO_IMPLICIT_COMMIT = frozenset({"kill", "xa"})


def causes_implicit_commit(stmt: Statement) -> bool:
    """True for statements that commit the open transaction before running (DDL, most admin commands)."""
    if stmt.kind == "ddl":
        return True
    if stmt.kind == "admin":
        return stmt.info.get("command") not in _ADMIN_NO_IMPLICIT_COMMIT
    return False


def pre_statement(session: Session, stmt: Statement) -> bool:
    """``gtid_pre_statement_checks``; returns True when the statement must be skipped (GTID already executed).

    Raises:
        MySQLError: 1778 implicit commit inside a transaction with gtid_next=UUID:NUMBER; 1837 while UNDEFINED;
            1782 re-acquiring ANONYMOUS after gtid_mode became ON.
    """
    gn = session.gtid
    kind = stmt.kind
    if gn.type is ASSIGNED and (kind == "begin" or causes_implicit_commit(stmt)) and session.in_transaction():
        raise implicit_commit_error()
    if kind in INNOCENT or kind in CONTROL:
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


def begin(session: Session) -> None:
    """BEGIN / START TRANSACTION: commit the open transaction, then open an explicit one."""
    implicit_commit(session)
    session.explicit_trx = True


def implicit_commit(session: Session) -> None:
    """Commit the open transaction, if any (``trans_commit_implicit``)."""
    if session.explicit_trx or session.holds_write_lock:
        commit(session)


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
            session.ensure_write_trx()
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
    if gn.owned is gnx.OWN_ANONYMOUS:
        session.server.gtid_state.release_anonymous()
    gn.handle(gnx.TRX_END)


def rollback(session: Session) -> None:
    """ROLLBACK (also a failing autocommitted statement): discard, release what is owned, advance gtid_next."""
    session.release_after_rollback()
    session.explicit_trx = False
    _release_owned(session)
    session.gtid.handle(gnx.TRX_END)
    if session.purged_in_trx:
        # SET GLOBAL gtid_purged inside the transaction saved its rows through it: save them again
        added, session.purged_in_trx = session.purged_in_trx, type(session.purged_in_trx)()
        session.server.save_gtids_now(added, lock=True)


def statement_failed(session: Session) -> None:
    """A statement failed: an autocommitted one rolls back its transaction (ownership released, ha_rollback_trans);
    inside a multi-statement transaction the transaction and its GTID stay."""
    if not session.explicit_trx:
        rollback(session)


def _release_owned(session: Session) -> None:
    gn = session.gtid
    if gn.owned is gnx.OWN_GTID and gn.gtid is not None:
        session.server.gtid_state.release(gn.gtid)
    elif gn.owned is gnx.OWN_ANONYMOUS:
        session.server.gtid_state.release_anonymous()


__all__ = [
    "CONTROL",
    "INNOCENT",
    "begin",
    "causes_implicit_commit",
    "commit",
    "implicit_commit",
    "pre_statement",
    "reacquire_anonymous",
    "rollback",
    "statement_failed",
]
