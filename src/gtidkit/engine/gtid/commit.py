"""The WL#6559 write matrix as a pure decision, then the commit sequence that carries it out.

Sources: MySQL ``sql/binlog.cc`` (``MYSQL_BIN_LOG::ordered_commit``; ``assign_automatic_gtids_to_flush_group``;
``gtid_end_transaction``: an empty transaction with an owned GTID is written as Gtid + BEGIN + COMMIT, or saved
to the table when "the binary log is disabled for this thread ... by log_bin=0 or sql_log_bin=0 or by
log_slave_updates=0 for a slave thread"; ``handle_binlog_flush_or_sync_error`` / ``exec_binlog_error_action_abort``
for a GNO exhausted at flush), ``sql/handler.cc`` (``commit_owned_gtids``: the row goes into mysql.gtid_executed
when ``!opt_bin_log || (thd->slave_thread && !opt_log_replica_updates)``), ``sql/rpl_gtid_state.cc``
(``update_gtids_impl_own_gtid``: a replica applier without log_replica_updates also adds the GTID to
``lost_gtids`` = gtid_purged), WL#6559, formats.md §5 and §8.2.

The decision (:func:`decide`) is a function of the configuration only:

======================================  ================  ==========================  ==================
input                                   GTID              binary log                  mysql.gtid_executed
======================================  ================  ==========================  ==================
gtid_next ASSIGNED                      the owned GTID    if the thread logs (below)  row (*)
gtid_next AUTOMATIC, mode >= ON_PERM.,  generated         Gtid + events               row (*)
thread logs
gtid_next AUTOMATIC otherwise           none (anonymous)  Anonymous_gtid + events     nothing
gtid_next ANONYMOUS                     none              Anonymous_gtid + events     nothing
======================================  ================  ==========================  ==================

(*) A row in the committing transaction when the thread does not log; when it does, a row too from 8.0.17 (the
GTID persister, mysql-test binlog_gtid_compress_at_server_start), while a server presenting as 5.7 saves the
GTIDs of a binary log only when it rotates it or stops (:mod:`gtidkit.engine.server_version`).

"The thread logs" = ``log_bin`` and ``sql_log_bin`` and not (replica applier thread and not
``log_replica_updates``): ``log_replica_updates`` applies to the replica applier only; a client session's
``SET gtid_next='uuid:n'`` transaction is binlogged whatever log_replica_updates says. A GTID committed without
reaching the binary log while the binary log is on is also added to gtid_purged (formats.md §5.5: the binlogs
hold ``gtid_executed - gtid_purged``); with the binary log off gtid_purged == gtid_executed.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gtidkit.engine.binlog import commit_log
from gtidkit.engine.binlog.error_action import BinlogStageError, binlog_failed, turn_logging_off
from gtidkit.engine.binlog.transaction_events import (
    transaction_compression,
    transaction_events,
    transaction_writeset,
)
from gtidkit.engine.gtid import table as gtid_table
from gtidkit.engine.gtid.gtid_next import ASSIGNED, AUTOMATIC, NextType
from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid
from gtidkit.gtid.gtid_set import ER_GNO_EXHAUSTED_MESSAGE
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.binlog.log import WrittenTransaction
    from gtidkit.engine.gtid.seams import CommitServer, CommittingSession

log = logging.getLogger(__name__)
ER_GNO_EXHAUSTED = 1775
GNO_EXHAUSTED_MESSAGE = ER_GNO_EXHAUSTED_MESSAGE


def binlogging_impossible(message: str) -> MySQLError:
    """ER_BINLOG_LOGGING_IMPOSSIBLE 1598 "Binary logging not possible. Message: %s"."""
    return mysql_error(1598, message)


@dataclass(frozen=True, slots=True)
class CommitContext:
    """Everything :func:`decide` looks at.

    Args:
        log_bin: the server's binary log is on.
        sql_log_bin: the session's ``sql_log_bin``.
        log_replica_updates: ``@@GLOBAL.log_replica_updates``.
        applier: the committing session is the replica applier thread (``server.applier_session()``).
        gtid_mode: ``@@GLOBAL.gtid_mode`` (OFF, OFF_PERMISSIVE, ON_PERMISSIVE, ON).
        next_type: the session's gtid_next type (AUTOMATIC, ANONYMOUS or ASSIGNED).
        table_on_commit: the release writes every committed GTID to mysql.gtid_executed, also when the binary
            log is on (8.0.17+, :attr:`gtidkit.engine.server_version.Release.gtid_table_on_commit`).
    """

    log_bin: bool
    sql_log_bin: bool
    log_replica_updates: bool
    applier: bool
    gtid_mode: str
    next_type: type[NextType]
    table_on_commit: bool = True


@dataclass(frozen=True, slots=True)
class CommitPlan:
    """What the commit does.

    Args:
        gtid: ``"assigned"`` (the owned GTID), ``"automatic"`` (generate one) or ``None`` (anonymous).
        write_binlog: write the transaction into the binary log.
        save_row: insert the GTID into mysql.gtid_executed inside the transaction.
        lost: also add the GTID to gtid_purged (it never reaches a binary log).
    """

    gtid: str | None
    write_binlog: bool
    save_row: bool
    lost: bool


@functools.lru_cache(maxsize=256)
def decide(ctx: CommitContext) -> CommitPlan:
    """The WL#6559 write matrix (module docstring): pure, and cached since its inputs are few."""
    thread_logs = ctx.log_bin and ctx.sql_log_bin and not (ctx.applier and not ctx.log_replica_updates)
    if ctx.next_type is ASSIGNED:
        gtid: str | None = "assigned"
    elif ctx.next_type is AUTOMATIC and thread_logs and ctx.gtid_mode in ("ON_PERMISSIVE", "ON"):
        gtid = "automatic"
    else:
        gtid = None
    lost = gtid is not None and not thread_logs
    # 8.0.17+: the GTID also goes to the table when the binary log gets it (5.7: only at rotation / shutdown)
    save_row = lost or (gtid is not None and ctx.table_on_commit)
    return CommitPlan(gtid=gtid, write_binlog=thread_logs, save_row=save_row, lost=lost)


def context_of(server: CommitServer, session: CommittingSession) -> CommitContext:
    """The :class:`CommitContext` of ``session`` committing now on ``server``."""
    return CommitContext(
        log_bin=server.binlog is not None,
        sql_log_bin=bool(session.session_vars.get("sql_log_bin", True)),
        log_replica_updates=server.log_replica_updates,
        applier=session.applier is not None,
        gtid_mode=server.globals.values["gtid_mode"],
        next_type=session.gtid.type,
        table_on_commit=server.release.gtid_table_on_commit,
    )


def _plan_of(server: CommitServer, session: CommittingSession) -> CommitPlan:
    """``decide(context_of(server, session))``, looked up by the context's values (no context object built)."""
    key = (
        server.binlog is not None,
        bool(session.session_vars.get("sql_log_bin", True)),
        server.log_replica_updates,
        session.applier is not None,
        server.globals.values["gtid_mode"],
        session.gtid.type,
        server.release.gtid_table_on_commit,
    )
    plan = _PLANS.get(key)
    if plan is None:
        plan = decide(CommitContext(*key))
        if len(_PLANS) >= 256:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


#: the :class:`CommitContext` values -> the plan :func:`decide` gives for them
_PLANS: dict[tuple[bool, bool, bool, bool, str, type[NextType], bool], CommitPlan] = {}


#: ``UNDEFINED_COMMIT_TIMESTAMP`` / ``UNDEFINED_SERVER_VERSION``: the session variables' "not set" values.
UNDEFINED_COMMIT_TIMESTAMP = 1 << 55
UNDEFINED_SERVER_VERSION = 999999


def session_origin(session: Any) -> tuple[int | None, int | None]:
    """The original_commit_timestamp / original_server_version a client session set for its transaction (what
    mysqlbinlog's output sets before each one, so a replayed transaction keeps the source's values), or None each
    (this server's own). They are consumed by the commit, as ``MYSQL_BIN_LOG::write_transaction`` clears them
    (``binlog.cc``); ``immediate_server_version`` is cleared too."""
    sv = session.session_vars
    sv.pop("immediate_server_version", None)
    ocs = sv.pop("original_commit_timestamp", None)
    osv = sv.pop("original_server_version", None)
    return (
        None if ocs is None or int(ocs) == UNDEFINED_COMMIT_TIMESTAMP else int(ocs),
        None if osv is None or int(osv) == UNDEFINED_SERVER_VERSION else int(osv),
    )


def commit(
    server: CommitServer,
    session: CommittingSession,
    *,
    ddl_text: str | None,
) -> Gtid | None:
    """Commit ``session``'s open storage transaction through the write matrix.

    The caller holds the engine write lock with a storage transaction open; on return the transaction is
    committed and the lock released (also on error). The session's GTID state (``session.gtid``) is not
    advanced here: the caller feeds the transaction end to the gtid_next table.

    Args:
        server: the server.
        session: the committing session (its ``gtid`` decides the GTID; ``applier`` the matrix row and, for the
            replica applier, the source's ``original_commit_timestamp`` (µs) and ``server_id`` to log).
        ddl_text: the DDL statement text for a DDL transaction, else None.

    Returns:
        The transaction's GTID, or None for an anonymous transaction.

    Raises:
        MySQLError: 1598 when no GNO is left for an automatic GTID (binlog_error_action=ABORT_SERVER: the server
            then refuses writes), 1775 with binlog_error_action=IGNORE_ERROR; the storage commit's error (the
            binlog transaction already written is re-applied by recovery at the next start).
    """
    if server.aborted:
        session.release_after_rollback()
        raise server.aborted
    plan = _plan_of(server, session)
    state = server.gtid_state
    gtid: Gtid | None = None
    exhausted: MySQLError | None = None
    db = server.storage.sqlite(session.conn)
    if plan.gtid == "assigned":
        gtid = session.gtid.gtid
    elif plan.gtid == "automatic":
        try:
            gtid = state.generate_automatic(session.id, session.gtid.tag)
        except MySQLError as err:
            if err.code != ER_GNO_EXHAUSTED or _error_action(server) != "IGNORE_ERROR":
                session.release_after_rollback()
                if err.code != ER_GNO_EXHAUSTED:
                    raise
                raise _gno_exhausted(server) from err
            # binlog_error_action=IGNORE_ERROR (binlog_gtid_exhausted.result): the flush stage fails, the binary
            # log is closed for good and the commit stage still commits the transaction, without a GTID; the
            # client gets ER_GNO_EXHAUSTED all the same. With the log already closed the flush stage is skipped:
            # no GTID is generated and nothing fails.
            if server.binlog is not None:
                turn_logging_off(server, GNO_EXHAUSTED_MESSAGE, db)
                exhausted = err
            plan = dataclasses.replace(plan, gtid=None, write_binlog=False, save_row=False, lost=False)
    written: WrittenTransaction | None = None
    rows: list[tuple[Any, ...]] = []  # the commit-log rows: what the server's other processes are told
    try:
        if plan.save_row and plan.write_binlog:
            _persist_gtid(server, db, gtid)  # type: ignore[arg-type]
        elif plan.save_row:
            gtid_table.save_gtid(db, server.gtid_table, gtid)  # type: ignore[arg-type]
        if plan.write_binlog and server.binlog is not None:
            ts = server.now_us()
            ocs, osv = session_origin(session)
            try:
                written = server.binlog.write_transaction(
                    gtid,
                    transaction_events(server, session, ddl_text),
                    immediate_commit_timestamp=ts,
                    # the replica applier re-logs with the source's values (Gtid_log_event::do_apply_event)
                    original_commit_timestamp=getattr(session.applier, "original_commit_timestamp", ocs),
                    original_server_version=getattr(session.applier, "original_server_version", osv),
                    server_id=getattr(session.applier, "server_id", None),
                    timestamp=getattr(session.applier, "timestamp", None),
                    writeset=transaction_writeset(server, session, ddl_text),
                    dependency_tracking=str(server.globals.values["binlog_transaction_dependency_tracking"]),
                    history_size=int(server.globals.values["binlog_transaction_dependency_history_size"]),
                    session_id=session.id,
                    compression_level=transaction_compression(server, session, ddl_text),
                )
            except BinlogStageError as failure:
                # binlog_error_action (engine/binlog/error_action.py)
                failed = binlog_failed(server, failure, db)
                if failed is not None:
                    raise failed from failure
                # IGNORE_ERROR: the transaction commits without the binary log; its GTID goes to the table, as
                # with the binary log off
                stored = gtid is not None
                plan = dataclasses.replace(plan, write_binlog=False, save_row=stored, lost=stored)
                if gtid is not None:
                    gtid_table.save_gtid(db, server.gtid_table, gtid)
            else:
                # the commit log's row commits with the data: the binlog bytes are as durable as the rows
                seq = commit_log.record(
                    db, gtid, written.file, written.begin, written.end, written.data, trim=written.synced
                )
                rows.append((seq, commit_log.TRANSACTION, gtid, written.file, written.end, written.data[:64]))
        if plan.lost and gtid is not None and server.commit_log_followed:
            # other worker processes learn gtid_executed from the commit log: a GTID that reaches no binary log
            # gets a row there too (issue 21 step 6; engine/follow.py)
            seq = commit_log.record_gtid(db, gtid)
            rows.append((seq, commit_log.GTID, gtid, "", 0, b""))
        session.before_storage_commit(db)
        session.conn.commit(sync=False)
        for row in rows:
            server.commit_log_row_committed(*row)
    except BaseException as err:
        if written is not None:
            # The binlog file holds bytes the engine did not commit: stop accepting writes, as
            # binlog_error_action=ABORT_SERVER would; the next start cuts them (recovery.py: no commit-log row).
            server.aborted = binlogging_impossible(
                f"the engine commit failed after the binary log write ({err}); restart the server to recover"
            )
        elif gtid is not None and plan.gtid == "automatic":
            state.release(gtid)
        session.release_after_rollback()
        raise
    if session.conn.sync_pending:
        _sync_stage(server, session, gtid, plan.lost, plan.write_binlog, written)
    else:  # synced inside COMMIT (synchronous=FULL) or never (the storage's synchronous mode says so)
        if gtid is not None:
            server.publish_commit()  # other worker processes: the counter moves before the GTID is released
            state.commit(gtid, lost=plan.lost)
            if plan.write_binlog:
                server.binlog_file_gtids.add_in_place(gtid.sid, gtid.tag, gtid.gno)
        if written is not None and server.binlog is not None:
            _published(server, written)
        try:
            if server.binlog is not None and server.binlog.needs_rotation():
                server.rotate_locked(report=False)
        finally:
            session.release_after_commit()
    if plan.save_row:
        server.transactions_saved(1)  # every process's count, with other workers (the compressor runs in one)
    if exhausted is not None:
        raise exhausted
    return gtid


def _sync_stage(
    server: CommitServer,
    session: CommittingSession,
    gtid: Gtid | None,
    lost: bool,
    binlogged: bool,
    written: WrittenTransaction | None,
) -> None:
    """MySQL's sync stage, outside the engine write lock: the committed transaction becomes durable through one WAL
    fsync shared with every transaction committed meanwhile (:class:`~gtidkit.engine.binlog.group_sync.GroupSync`,
    ``binlog_group_commit_sync_delay`` / ``_no_delay_count``); only then does its GTID enter gtid_executed and its
    binlog bytes reach readers. A transaction that makes the active file exceed ``max_binlog_size`` keeps the lock
    instead and rotates once every committed transaction has finished (the next file's Previous_gtids holds them).

    Raises:
        MySQLError: the fsync failed: 1598 (binlog_error_action=ABORT_SERVER) for a binlogged transaction, 1026 for
            one that is not.
    """
    group = server.group_sync
    seq = group.committed_one()
    if gtid is not None and binlogged:
        server.binlog_file_gtids.add_in_place(
            gtid.sid, gtid.tag, gtid.gno
        )  # rotation drains before reading it
    rotate = server.binlog is not None and server.binlog.needs_rotation()
    if not rotate:
        session.release_after_commit()
    globals_ = server.globals.values
    try:
        try:
            group.wait_durable(
                seq,
                session.conn.sync_wal,
                delay_us=int(globals_.get("binlog_group_commit_sync_delay", 0)),
                no_delay_count=int(globals_.get("binlog_group_commit_sync_no_delay_count", 0)),
            )
        except OSError as err:
            group.done()
            seq = 0
            if written is None:
                raise _sync_failed(err) from err
            if not rotate:
                server.acquire_write_lock(None)
            try:
                failed = binlog_failed(server, BinlogStageError("sync", err))
            finally:
                if not rotate:
                    server.release_write_lock(None)
            if failed is not None:
                raise failed from err
            # IGNORE_ERROR: committed; the binary log is off from now on
        try:
            if gtid is not None:
                if rotate:  # the write lock is still held (its release moves the counter otherwise)
                    server.publish_commit()
                server.gtid_state.commit(gtid, lost=lost)
            if written is not None and server.binlog is not None:
                _published(server, written)
        finally:
            if seq:
                group.done()
        if rotate and server.binlog is not None:
            server.rotate_locked(report=False)  # after the other committers' sync stages (it drains them)
    finally:
        if rotate:
            session.release_after_commit()


def _published(server: CommitServer, written: WrittenTransaction) -> None:
    """Readers see ``written`` now that it is committed and durable (MySQL sends a transaction to replicas after
    its sync when ``sync_binlog=1``)."""
    assert server.binlog is not None
    server.binlog.publish_to(written.file, written.end, written.epoch)
    for fn in list(server.flush_observers):
        fn(written.file, written.end)


def _persist_gtid(server: CommitServer, db: Any, gtid: Gtid) -> None:
    """8.0.17+ with the binary log on: the GTID's row, best effort. MySQL's GTID persister writes it after the
    commit, apart from the transaction, so a table a user dropped or re-created with other columns (a restored
    ``--all-databases`` dump drops and re-creates mysql.gtid_executed) fails nothing: the binary log holds the
    GTID and the rotation / shutdown save puts it in the table later."""
    try:
        gtid_table.save_gtid(db, server.gtid_table, gtid)
    except sqlite3.OperationalError as err:
        log.warning(
            "could not save %s into mysql.gtid_executed at commit (%s); the binary log holds it", gtid, err
        )


def _sync_failed(err: OSError) -> MySQLError:
    """The fsync of a transaction that does not go to the binary log failed: MySQL's storage engine write error
    (ER_ERROR_ON_WRITE 1026 "Error writing file '%s' (errno: %d - %s)")."""
    return mysql_error(1026, "gtidkit.sqlite-wal", err.errno or 0, err.strerror or str(err))


def _error_action(server: CommitServer) -> str:
    return str(server.globals.values.get("binlog_error_action", "ABORT_SERVER"))


def _gno_exhausted(server: CommitServer) -> MySQLError:
    """The error of an automatic GTID with no GNO left, per binlog_error_action (binlog.cc)."""
    if _error_action(server) == "IGNORE_ERROR":
        return mysql_error(ER_GNO_EXHAUSTED)
    # handle_binlog_flush_or_sync_error -> exec_binlog_error_action_abort("%s Server is being stopped.") sent as
    # ER_BINLOG_LOGGING_IMPOSSIBLE (8.0.41 binlog_gtid_exhausted.result); mysqld then aborts, we refuse writes.
    err = binlogging_impossible(f"{GNO_EXHAUSTED_MESSAGE} Server is being stopped.")
    server.aborted = err
    return err


__all__ = [
    "GNO_EXHAUSTED_MESSAGE",
    "CommitContext",
    "CommitPlan",
    "binlogging_impossible",
    "commit",
    "context_of",
    "decide",
]
