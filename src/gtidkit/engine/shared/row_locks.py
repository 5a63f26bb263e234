"""Row and table locks across the worker processes (``gtidkit_row_locks``; docs/design/multi_worker.md §5.7).

With the option ON a transaction's single-row primary-key DML runs without the engine write lock until COMMIT
(engine/statements/deferred.py); it takes an exclusive lock on its row instead, as InnoDB's ``LOCK_X |
LOCK_REC_NOT_GAP`` on the clustered index record. Every other writer of a table takes a table lock, which
conflicts with every other connection's row lock in that table (InnoDB's table ``LOCK_X`` against ``LOCK_IX``).

The lock table is the shared page's waiter table (:mod:`.waiters`): a :data:`~.waiters.ROW_HOLD` slot per held
lock and a :data:`~.waiters.ROW_WAIT` slot per waiting session, with the table's 32-bit key in ``sid_index`` and
the row's 64-bit key in ``gno`` (0 = the whole table). Keys are hashes of the names and the key value, so two
different rows may share a key: they then lock each other (a spurious wait, never a missed conflict).

MySQL's behaviours kept: a wait ends with 1205 ER_LOCK_WAIT_TIMEOUT after ``innodb_lock_wait_timeout`` seconds
(``lock_wait_suspend_thread``), 1317 ER_QUERY_INTERRUPTED on ``KILL [QUERY]``, and 1213 ER_LOCK_DEADLOCK when the
wait would close a cycle of waits (InnoDB's ``Deadlock_checker``, ``storage/innobase/lock/lock0lock.cc``): the
graph is walked under the page lock and the wait registered in the same critical section (as
:mod:`.file_waits`), so of two sessions closing a cycle at once the second is the victim. A session holding the
engine write lock never waits here (``may_wait=False``: 1213 at once), because the other holder needs that lock
to commit. A dead worker's slots go with its other waiter slots (:func:`.waiters.clear_worker_locked`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable

from gtidkit.engine.shared import slots, waiters
from gtidkit.engine.shared.file_waits import FileLock
from gtidkit.engine.shared.shm import Layout, SharedPage
from gtidkit.engine.shared.wakeup import thread_wake_socket
from gtidkit.mysql_errors import mysql_error

__all__ = ["RowLocks", "private_page", "row_key", "table_key"]

_Who = tuple[int, int]  # (worker id, connection id)


@functools.lru_cache(maxsize=4096)
def table_key(schema: str, table: str) -> int:
    """The table's 32-bit lock key (never 0), from its names compared as SQLite compares them (case-blind)."""
    digest = hashlib.blake2b(f"{schema}\0{table}".lower().encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") or 1


@functools.lru_cache(maxsize=4096)
def _row_seed(schema: str, table: str) -> int:
    """A 64-bit hash of the table's names (case-blind), the seed of its rows' keys."""
    digest = hashlib.blake2b(f"{schema}\0{table}\0row".lower().encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


_M64 = (1 << 64) - 1


def row_key(schema: str, table: str, pk: int) -> int:
    """The row's 64-bit lock key (never 0: 0 means the whole table) for primary-key value ``pk``: the table's seed
    and the key mixed by splitmix64's finalizer (Steele, Lea, Flood 2014), a bijection of the 64-bit word, so two
    keys of one table whose values differ below 2^64 share a lock key only through the one mixed to 0, which
    becomes 1 (no hashing of text per statement)."""
    x = (_row_seed(schema, table) + (pk & _M64) * 0x9E3779B97F4A7C15) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return (x ^ (x >> 31)) or 1


def private_page() -> SharedPage:
    """A page of the shared layout for a one-process server (nobody else maps it): the same lock table code runs
    with one worker or several. The file is unlinked at once (the mapping and the lock descriptor stay)."""
    directory = tempfile.mkdtemp(prefix="gtidkit-rowlocks-")
    try:
        return SharedPage.create(directory, Layout(owners=1, waiters=1024, workers=1, sids=1))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _blockers(holds: list[waiters.Waiter], who: _Who, table: int, row: int) -> set[_Who]:
    """The other connections whose held locks conflict with ``who``'s request for (``table``, ``row``)."""
    return {
        (h.worker_id, h.connection_id)
        for h in holds
        if h.sid_index == table
        and (row == 0 or h.gno == 0 or h.gno == row)
        and (h.worker_id, h.connection_id) != who
    }


def _lock_name(table: int, row: int) -> str:
    """A row or table lock's name in the lock-wait tables: its keys in hex."""
    return f"{table:08x}:{row:016x}" if row else f"{table:08x}"


def _lock_kind(row: int) -> str:
    return "row" if row else "table"


class RowLocks:
    """The row/table lock table of one process (one object per process; sessions call it with their ids).

    Args:
        page: the mapped shared page (a worker's, or :func:`private_page` in a one-process server).
        worker_id: this process's worker id (recorded in its slots).
    """

    def __init__(self, page: SharedPage, worker_id: int) -> None:
        self.page = page
        self.worker_id = worker_id
        #: the page's waiter table, kept (the uncontended path reads and writes it directly)
        self._table = slots.table(page, "waiters")
        self._lock = threading.Lock()
        #: connection id -> {(table key, row key): its ROW_HOLD slot}
        self._held: dict[int, dict[tuple[int, int], int]] = {}
        # this process's pid, read once (recorded in every hold's slot): os.getpid() is a system call at every use;
        # the lock table is made by its process's server and never crosses a fork (as SharedWriteLock's handle)
        self._pid = os.getpid()

    def holds(self, connection_id: int, table: int, row: int) -> bool:
        """Whether ``connection_id`` holds the lock on (``table``, ``row``) or on the whole table."""
        mine = self._held.get(connection_id)
        return mine is not None and ((table, row) in mine or (table, 0) in mine)

    def held_count(self, connection_id: int) -> int:
        """How many locks ``connection_id`` holds."""
        return len(self._held.get(connection_id, ()))

    def crowded(self) -> bool:
        """Row and table locks fill half the page's slot table (shared with the write lock's and GTIDs' waiters):
        new statements then lock whole tables, one slot each, so the other waiters never run out of slots."""
        page = self.page
        return page.counter("row_holders").get() >= page.layout.waiters // 2

    def try_lock(self, connection_id: int, table: int, row: int) -> bool:
        """Take the lock on (``table``, ``row``) as :meth:`lock` does when no other connection's hold conflicts,
        without a wait: False (nothing registered) on a conflict, where the caller goes on with :meth:`lock`. The
        uncontended path of every row lock: no deadline, wake-up socket or kill check is prepared."""
        mine = self._held.get(connection_id)
        if mine is not None and ((table, row) in mine or (table, 0) in mine):
            return True
        worker_id = self.worker_id
        slot_table = self._table
        address = thread_wake_socket().address
        with self.page.locked():
            for worker, conn, gno in waiters.keyed_in(slot_table, waiters.ROW_HOLD, table):
                if (row == 0 or gno == 0 or gno == row) and (worker != worker_id or conn != connection_id):
                    return False
            slot = waiters.hold_locked(
                slot_table, waiters.ROW_HOLD, worker_id, connection_id, self._pid, address, table, row
            )
            with self._lock:
                if mine is None:
                    mine = self._held.setdefault(connection_id, {})
                mine[(table, row)] = slot
        return True

    def lock(
        self,
        connection_id: int,
        table: int,
        row: int,
        *,
        timeout: float,
        killed: Callable[[], bool] | None = None,
        may_wait: bool = True,
    ) -> None:
        """Take the exclusive lock on (``table``, ``row``) (``row`` 0: the table lock) for ``connection_id``,
        held until :meth:`release_all`. Taking a lock already held (or covered by the table lock) does nothing.

        Args:
            connection_id: the session's connection id.
            table: :func:`table_key`.
            row: :func:`row_key`, or 0 for the whole table.
            timeout: seconds to wait (``innodb_lock_wait_timeout``).
            killed: checked after every wake-up; True ends the wait with 1317.
            may_wait: False when the session holds the engine write lock: a conflict is 1213 at once.

        Raises:
            MySQLError: 1205 ER_LOCK_WAIT_TIMEOUT, 1213 ER_LOCK_DEADLOCK, 1317 ER_QUERY_INTERRUPTED, 1041
                ER_OUT_OF_RESOURCES (the page's slot table is full).
        """
        if self.holds(connection_id, table, row):
            return
        who = (self.worker_id, connection_id)
        page = self.page
        deadline = time.monotonic() + timeout
        ws = thread_wake_socket()
        waiting: int | None = None
        try:
            while True:
                with page.locked():
                    # the holds on this table's key only; every slot is read on a conflict (the deadlock check)
                    blockers = {
                        (worker, conn)
                        for worker, conn, gno in waiters.keyed_locked(page, waiters.ROW_HOLD, table)
                        if (row == 0 or gno == 0 or gno == row) and (worker, conn) != who
                    }
                    if not blockers:
                        if waiting is not None:
                            waiters.free_locked(page, waiting)
                            waiting = None
                        slot = waiters.register_here(
                            page,
                            waiters.ROW_HOLD,
                            worker_id=self.worker_id,
                            connection_id=connection_id,
                            sid_index=table,
                            gno=row,
                            locked=True,
                        )
                        with self._lock:
                            self._held.setdefault(connection_id, {})[(table, row)] = slot
                        return
                    if not may_wait:
                        raise mysql_error(1213)
                    slots = waiters.read_locked(page)
                    holds = [w for w in slots if w.kind == waiters.ROW_HOLD]
                    if self._closes_cycle(slots, holds, who, blockers):
                        raise mysql_error(1213)
                    if waiting is None:
                        ws.drain()  # wake-ups queued before this wait are stale
                        waiting = waiters.register_here(
                            page,
                            waiters.ROW_WAIT,
                            worker_id=self.worker_id,
                            connection_id=connection_id,
                            sid_index=table,
                            gno=row,
                            locked=True,
                        )
                if killed is not None and killed():
                    raise mysql_error(1317)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise mysql_error(1205)
                ws.wait(remaining)
        finally:
            if waiting is not None:
                waiters.unregister(page, waiting)

    @staticmethod
    def _closes_cycle(
        slots: list[waiters.Waiter], holds: list[waiters.Waiter], who: _Who, blockers: set[_Who]
    ) -> bool:
        """Whether ``who`` waiting for ``blockers`` closes a cycle: some blocker waits (transitively) for it."""
        waits = {
            (w.worker_id, w.connection_id): (w.sid_index, w.gno) for w in slots if w.kind == waiters.ROW_WAIT
        }
        seen: set[_Who] = set()
        todo = list(blockers)
        while todo:
            h = todo.pop()
            if h == who:
                return True
            if h in seen:
                continue
            seen.add(h)
            request = waits.get(h)
            if request is not None:
                todo.extend(_blockers(holds, h, *request))
        return False

    def snapshot(self) -> list[FileLock]:
        """Every worker's row and table locks at one instant, for INNODB_TRX / data_lock_waits
        (engine/lock_waits.py): per waiting session the lock it waits for, held by the oldest conflicting holder,
        and per holding connection one entry without waiters (INNODB_TRX lists it ``RUNNING``). Lock names are
        the keys in hex (``<table key>:<row key>`` for a row, ``<table key>`` for a table lock)."""
        with self.page.locked():
            slots = waiters.read_locked(self.page)
        holds = sorted((w for w in slots if w.kind == waiters.ROW_HOLD), key=lambda w: w.since)
        out: list[FileLock] = []
        holders: dict[int, waiters.Waiter] = {}
        for h in holds:
            holders.setdefault(h.connection_id, h)
        for h in holders.values():
            out.append(
                FileLock(_lock_name(h.sid_index, h.gno), h.connection_id, h.since, {}, _lock_kind(h.gno))
            )
        for w in slots:
            if w.kind != waiters.ROW_WAIT:
                continue
            who = (w.worker_id, w.connection_id)
            blocker = next(
                (
                    h
                    for h in holds
                    if (h.worker_id, h.connection_id) in _blockers([h], who, w.sid_index, w.gno)
                ),
                None,
            )
            if blocker is not None:
                name = _lock_name(w.sid_index, w.gno)
                out.append(
                    FileLock(
                        name,
                        blocker.connection_id,
                        blocker.since,
                        {w.connection_id: w.since},
                        _lock_kind(w.gno),
                    )
                )
        return out

    def release_all(self, connection_id: int) -> None:
        """``connection_id``'s transaction ended: free its locks and wake the sessions waiting for row locks."""
        with self._lock:
            mine = self._held.pop(connection_id, None)
        if not mine:
            return
        page = self.page
        with page.locked():
            waiters.free_slots_locked(self._table, waiters.ROW_HOLD, mine.values())
        waiters.wake_matching(page, waiters.ROW_WAIT)
