"""Start-up and crash recovery: the engine's commit log completes the binlog, then GTID_EXECUTED / GTID_PURGED.

Sources: MySQL ``sql/binlog.cc`` (``MYSQL_BIN_LOG::ordered_commit``: flush, sync and commit stages;
``MYSQL_BIN_LOG::open_binlog`` + ``binlog::Binlog_recovery``: XA-style recovery of prepared InnoDB transactions from
the last binlog, truncation of a partially written tail; ``init_gtid_sets`` with ``binlog_gtid_simple_recovery``),
``sql/rpl_gtid_state.cc`` (``Gtid_state::init``/``save`` at start-up: the last binlog's GTIDs missing from
mysql.gtid_executed are written there), formats.md §5.2 and §5.5, docs/design/multi_worker.md §5.3-5.4 (issue 21).

Design: the engine commits first, and carries the binlog
--------------------------------------------------------
MySQL makes the binlog and InnoDB agree with two-phase commit: InnoDB prepares, the binlog is flushed and synced,
InnoDB commits; after a crash every prepared transaction whose Xid is in the binlog is committed, the others rolled
back and cut from the binlog. SQLite has no prepare; instead the SQLite transaction carries its own binlog bytes.
A binlogged transaction T commits in these steps, all but the last under the engine write lock (one writer at a
time, so binlog order = commit order):

1. Statements run in T's SQLite transaction (``BEGIN IMMEDIATE``).
2. Flush stage: T's events are framed as today (``log_pos``, CRC32, the logical clock of the
   :class:`~gtidkit.engine.binlog.dependency.DependencyTracker`) and appended to the active binlog file, handed to
   the OS, not fsynced and not yet visible to readers (dump threads, SHOW BINLOG EVENTS read up to
   :meth:`~gtidkit.engine.binlog.log.BinlogLog.end_position` only). Every ``sync_interval`` transactions (256, or
   ``sync_binlog`` when above 1) the file is fsynced here.
3. T's row goes into ``_gk_commit_log`` (:mod:`gtidkit.engine.binlog.commit_log`: its file, offsets and those same
   bytes), with its mysql.gtid_executed row and its data; a transaction that has just fsynced the file deletes
   every earlier row. SQLite ``COMMIT`` with ``synchronous=NORMAL``: no fsync yet.
4. Sync stage: ``fsync`` of the WAL. T is now durable: data, GTID row and binlog bytes (in its row).
5. T's GTID enters gtid_executed, the binlog end is published to readers, the client gets its OK.

Why the writes before the COMMIT: a failure to write the file (disk full) must leave T uncommitted, as MySQL's
flush-stage error does (``binlog_error_action``); and a crash between steps 2 and 3 leaves bytes that recovery
recognises as uncommitted because no row accounts for them.

Facts used: (F1) a SQLite transaction in WAL mode is atomic for process and power failures, and WAL frames are
ordered: a power loss that takes T takes every later transaction too; (F2) once the WAL fsync returns, every
transaction committed before it is durable; (F3) a process crash (kill -9) loses nothing handed to the kernel;
(F4) rows are deleted only after the file holding their bytes was fsynced, and the last row is never deleted
without a newer one (a file's mark, written when a file is opened: start-up, rotation, RESET MASTER).

=======================  ==============================================  ===================================================
a crash after step       what is durable                                 what recovery finds and does
=======================  ==============================================  ===================================================
1                        nothing of T                                    T nowhere; never acknowledged
2 (bytes written)        process crash: T's bytes in the file (F3).      T's bytes past the last row: cut (below). T in
                         Power loss: some, all or none of them            nothing; never acknowledged
3 (COMMIT, no fsync)     process crash: T whole (F3). Power loss: T      process crash: T in data, table, commit log and
                         and every later transaction, or none (F1)       file: nothing to do (T committed, not
                                                                         acknowledged, as MySQL's transaction that reached
                                                                         the binlog). Power loss without T: as step 2
4-5 (fsynced, OK or not) T in data, GTID table and commit log (F2);      T's row is written back where the file lacks it;
                         the file's bytes only up to its last fsync      T in all three exactly once
=======================  ==============================================  ===================================================

Recovery (:func:`complete_binlogs`): the last commit-log row names where the committed binlog ends; bytes of a
transaction that begins past it (in its file, or in any later one) and a torn tail are cut; then every row whose
bytes the file lacks is appended at its offset (a row must start exactly at the file's end, and bytes already
there must equal the row's, else the server refuses to start: RECOVERY_COMMIT_LOG_MISMATCH). No gap is possible:
rows go only once their file is fsynced (F4). Then GTID_EXECUTED is rebuilt from the binlog (Previous_gtids of the
last file + its Gtid events) ∪ mysql.gtid_executed as before: the binlog and the table now derive from the same
committed transactions, so GTIDs are never lost nor duplicated.

One difference from MySQL: between steps 3 and 4 another session can read T's rows (SQLite shows a commit when
it is written). After a power loss in that window (one fsync) such a reader may have seen a transaction that is
then lost; nothing that orders itself after T (the reader's own commits follow T in the WAL, F1), gtid_executed,
the session trackers, WAIT_FOR_EXECUTED_GTID_SET, dump threads or replicas ever see T before step 4. A process
crash never loses T (F3).

Rotation fsyncs the closed file, creates the next one and marks it in the commit log in one SQLite transaction
that deletes the older rows, so PURGE can remove old files without recovery ever needing them. With the binlog
off there is no commit log: the GTID row commits atomically with the data (WL#6559).

A datadir written by the binlog-first order (no ``_gk_commit_log`` yet) is recovered the old way once
(:func:`reapply_binlogs`: complete binlog transactions past ``_gk_binlog_applied`` are re-applied through the
applier seam), then gets its commit log. The relay-log applier (replication) keeps its own position and
re-applies from its relay log as before.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from gtidkit.binlog.file import PositionedEvent, TransactionRead, read_previous_gtids, read_transactions
from gtidkit.engine.apply import BinlogTransaction, ExecutorTarget, apply
from gtidkit.engine.binlog import commit_log
from gtidkit.engine.binlog.log import BASENAME, BinlogLog, file_number
from gtidkit.engine.gtid import table as gtid_table
from gtidkit.engine.sql.executor import Executor
from gtidkit.errors import BinlogDecodeError, MySQLError
from gtidkit.gtid import GtidSet
from gtidkit.mysql_errors import (
    RECOVERY_BINLOG_MISSING,
    RECOVERY_BINLOG_UNREADABLE,
    RECOVERY_COMMIT_LOG_MISMATCH,
    recovery_reapply_failed,
    unknown_error,
)

if TYPE_CHECKING:
    from gtidkit.engine.server import Server

log = logging.getLogger(__name__)

_T = TypeVar("_T")


def binlog_unreadable(datadir: Path, path: Path, err: BinlogDecodeError | OSError) -> MySQLError:
    """The start-up error for a binary log recovery cannot read: what (file, offset, cause) and how to fix it.

    Args:
        datadir: the data directory.
        path: the binary log file.
        err: the decoding fault (with its offset) or the OS error.

    Returns:
        Error 1105 with :data:`~gtidkit.mysql_errors.RECOVERY_BINLOG_UNREADABLE` (not raised).
    """
    if isinstance(err, BinlogDecodeError):
        offset = err.offset or 0
        detail = err.message
    else:
        offset, detail = 0, err.strerror or str(err)
    return unknown_error(RECOVERY_BINLOG_UNREADABLE % (datadir, path, offset, detail, offset, path))


def _reading(datadir: Path, path: Path, read: Callable[[], _T]) -> _T:
    """Run ``read()`` on binary log ``path``, turning a decoding or OS fault into :func:`binlog_unreadable`."""
    try:
        return read()
    except (BinlogDecodeError, OSError) as err:
        raise binlog_unreadable(datadir, path, err) from err


def make_binlog_log(server: Server) -> BinlogLog:
    """The binlog manager configured from the server's variables (reads the index)."""
    g = server.globals
    return BinlogLog(
        server.datadir,
        basename=g.get("log_bin_basename") or BASENAME,
        index_file=g.get("log_bin_index") or None,
        server_id=int(g.get("server_id")),
        checksum=g.get("binlog_checksum") == "CRC32",
        max_binlog_size=int(g.get("max_binlog_size")),
        sync_binlog=int(g.get("sync_binlog")),
        server_version=server.release.version,
    )


def start_up(server: Server) -> None:
    """Recover the datadir and initialise GTID state; open a new binlog file when ``log_bin`` is on.

    Steps: (1) complete the binlog from the commit log (:func:`complete_binlogs`; a datadir without one:
    re-apply binlog transactions past the engine's applied position, :func:`reapply_binlogs`); (2) compute
    ``gtid_executed = Previous_gtids(last) ∪ GTIDs(last) ∪ table`` and ``gtid_purged = Previous_gtids(first) ∪
    (table − binlog GTIDs)``, or ``purged = executed`` without binlogs; (3) save the binlog GTIDs missing from the
    table (crash recovery, the upgrade case); (4) start a new binlog file.

    Raises:
        MySQLError: 1105 :data:`~gtidkit.mysql_errors.RECOVERY_BINLOG_MISSING` for a binary log the index lists
            but the datadir lacks, :data:`~gtidkit.mysql_errors.RECOVERY_BINLOG_UNREADABLE` for one that cannot be
            read, :data:`~gtidkit.mysql_errors.RECOVERY_COMMIT_LOG_MISMATCH` for one the commit log cannot
            complete; the applier's code with :data:`~gtidkit.mysql_errors.RECOVERY_REAPPLY_FAILED` for a
            transaction that cannot be re-applied (a datadir without a commit log). Each message says what failed
            and how to fix it.
    """
    blog = make_binlog_log(server)
    files = blog.existing_files()
    missing_files = [n for n in blog.index if n not in files]
    if missing_files:
        raise unknown_error(
            RECOVERY_BINLOG_MISSING % (server.datadir, ", ".join(missing_files), blog.index_path)
        )
    conn = server.internal_conn
    db = server.storage.sqlite(conn)
    legacy = not commit_log.exists(db)
    binlog_set = GtidSet()
    first_prev = GtidSet()
    if files:
        if legacy:  # a datadir written binlog-first (before the commit log): re-apply what the engine lacks
            reapplied = reapply_binlogs(server, blog, files)
            if reapplied:
                log.info("recovery re-applied %d binlog transactions", reapplied)
        else:
            complete_binlogs(server, blog, files)
        last = blog.path(files[-1])
        summary = _reading(server.datadir, last, lambda: read_transactions(last))
        binlog_set = GtidSet() | (summary.previous_gtids or GtidSet())
        for tx in summary.transactions:
            if tx.gtid is not None:
                binlog_set.add_in_place(tx.gtid.sid, tx.gtid.tag, tx.gtid.gno)
        first = blog.path(files[0])
        first_prev = _reading(server.datadir, first, lambda: read_previous_gtids(first)) or GtidSet()
    table_set = gtid_table.read_set(db, server.gtid_table)
    executed = binlog_set | table_set
    if files:
        purged = first_prev | (table_set - binlog_set)
    else:
        purged = GtidSet() | executed
    missing = binlog_set - table_set
    if missing:
        conn.begin()
        try:
            gtid_table.save_set(db, server.gtid_table, missing)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
    server.gtid_state.load(executed, purged)
    if legacy:
        commit_log.create_table(db)
    if server.log_bin:
        server.binlog = blog
        blog.open_new(executed, at_startup=True)
        record_file_start(server)


def record_file_start(server: Server) -> None:
    """Mark the new active file in the commit log (its first transaction's offset): every transaction before it
    is in an fsynced binary log, so recovery never needs an older row."""
    assert server.binlog is not None
    pos = server.binlog.position
    conn = server.internal_conn
    conn.begin()
    try:
        commit_log.mark_file(server.storage.sqlite(conn), pos.file, pos.pos)
        conn.commit()
    except BaseException:
        conn.rollback()
        raise


def complete_binlogs(server: Server, blog: BinlogLog, files: list[str]) -> int:
    """Make the binary log hold exactly the committed transactions: cut what no commit-log row accounts for,
    append the rows the files lack (the module docstring's argument).

    1. The last row names the last committed transaction's (file, end), or a file's start: bytes of a
       transaction that begins past it there, or in any later file, were written but never committed (a crash
       between the binlog write and the COMMIT): the file is cut before them, as is a torn tail.
    2. Each row whose bytes are missing from its file (a power loss took binlog bytes not yet fsynced) is written
       back at its offset; a row whose bytes are there must match them. Rows of files no longer in the index
       (purged, RESET MASTER) are skipped.

    Returns:
        The number of transactions written back.

    Raises:
        MySQLError: 1105 :data:`~gtidkit.mysql_errors.RECOVERY_BINLOG_UNREADABLE` for a binary log that cannot be
            read, :data:`~gtidkit.mysql_errors.RECOVERY_COMMIT_LOG_MISMATCH` when a file and the commit log
            disagree (neither a cut nor an append explains it).
    """
    db = server.storage.sqlite(server.internal_conn)
    rows = [row for row in commit_log.rows(db) if row.kind != commit_log.GTID]  # GTID rows: no binlog bytes
    if not rows:
        return 0
    last = rows[-1]
    ends: dict[str, int] = {}
    if last.file in files:
        for name in files[files.index(last.file) :]:
            path = blog.path(name)
            summary = _reading(server.datadir, path, functools.partial(read_transactions, path))
            limit = last.end_pos if name == last.file else 0
            cut = summary.complete_end
            for tx in summary.transactions:
                if tx.begin_pos >= limit:
                    cut = min(cut, tx.begin_pos)
                    break
            if cut < summary.size:
                log.warning(
                    "cutting binlog %s at %d (%d bytes past the last committed transaction)",
                    name,
                    cut,
                    summary.size - cut,
                )
                os.truncate(path, cut)
            ends[name] = cut
    restored = 0
    touched: set[str] = set()
    for row in rows:
        if row.kind != commit_log.TRANSACTION or row.file not in files:
            continue
        path = blog.path(row.file)
        end = ends.get(row.file)
        if end is None:
            end = ends[row.file] = _reading(server.datadir, path, lambda p=path: os.stat(p).st_size)  # type: ignore[misc]
        if row.end_pos <= end:
            with open(path, "rb") as fh:
                fh.seek(row.start_pos)
                same = fh.read(row.end_pos - row.start_pos) == row.payload
            if not same:
                raise _mismatch(server, row, "holds other bytes at the transaction's offsets")
            continue
        if row.start_pos != end:
            raise _mismatch(server, row, f"ends at {end}")
        with open(path, "r+b") as fh:
            fh.seek(row.start_pos)
            fh.write(row.payload)
        ends[row.file] = row.end_pos
        touched.add(row.file)
        restored += 1
    for name in touched:
        with open(blog.path(name), "r+b") as fh:
            os.fsync(fh.fileno())
    if restored:
        log.warning("recovery wrote %d committed transactions back into the binary log", restored)
    return restored


def _mismatch(server: Server, row: commit_log.CommitLogRow, what: str) -> MySQLError:
    gtid = "ANONYMOUS" if row.gtid is None else str(row.gtid)
    return unknown_error(
        RECOVERY_COMMIT_LOG_MISMATCH % (server.datadir, row.file, what, gtid, row.start_pos, row.end_pos)
    )


def reapply_binlogs(server: Server, blog: BinlogLog, files: list[str]) -> int:
    """Re-apply complete transactions past the applied position; truncate the last file's torn tail.

    Returns:
        The number of transactions re-applied.

    Raises:
        MySQLError: as :func:`start_up`.
    """
    conn = server.internal_conn
    db = server.storage.sqlite(conn)
    applied = server.applied_position(db)
    start_index = 0
    start_pos: int | None = None
    if applied is not None:
        name, pos = applied
        if name in files:
            start_index, start_pos = files.index(name), pos
        elif files and file_number(name) > file_number(files[-1]):
            start_index = len(files)  # position in a file newer than all we have: nothing to re-apply
        # else: the applied file was purged; everything in the remaining files is newer
    count = 0
    for i in range(start_index, len(files)):
        path = blog.path(files[i])
        from_pos = start_pos if i == start_index else None
        summary: TransactionRead = _reading(
            server.datadir, path, functools.partial(read_transactions, path, keep_events_from=from_pos or 0)
        )
        if i == len(files) - 1 and summary.complete_end < summary.size:
            log.warning(
                "truncating torn binlog tail of %s at %d (%d bytes)",
                files[i],
                summary.complete_end,
                summary.size,
            )
            os.truncate(path, summary.complete_end)
        for tx in summary.transactions:
            if from_pos is not None and tx.begin_pos < from_pos:
                continue
            try:
                apply_transaction(server, files[i], tx.end_pos, summary.events[tx.begin_pos])
            except MySQLError as err:
                gtid = "ANONYMOUS" if tx.gtid is None else str(tx.gtid)
                raise recovery_reapply_failed(
                    err, server.datadir, gtid, files[i], tx.begin_pos, tx.end_pos
                ) from err
            count += 1
    return count


def apply_transaction(server: Server, file: str, end_pos: int, events: tuple[PositionedEvent, ...]) -> None:
    """Re-apply one binlog transaction through the applier seam (:func:`gtidkit.engine.apply.apply`) and record
    its end position, all in one SQLite transaction.

    The transaction is already in the binlog and start-up recomputes GTID_EXECUTED from the binlog, so this
    goes through :class:`~gtidkit.engine.apply.ExecutorTarget`: no binlog write, no GTID row, no GTID_NEXT.

    Args:
        server: the server.
        file, end_pos: the binlog file name and the offset right after the transaction (the applied position).
        events: the transaction's decoded events (:func:`gtidkit.binlog.file.read_transactions`).
    """
    conn = server.internal_conn
    target = ExecutorTarget(
        Executor(server.storage, conn),
        conn,
        lambda trx, db: server.record_position(db, trx.file, trx.end_pos),
    )
    apply(target, BinlogTransaction(tuple(events), file=file, end_pos=end_pos))
