"""Deadlock detection for the schema files' write locks across the worker processes (issue 21 step 9).

With ``gtidkit_file_per_schema`` a transaction takes the write lock of each schema file it writes
(engine/schema_files.py, ``Connection.lock_files``). Two transactions taking two files in opposite orders would
each wait for the other until innodb_lock_wait_timeout. MySQL detects the cycle and answers one of them 1213
ER_LOCK_DEADLOCK, rolling its transaction back (InnoDB's ``Deadlock_checker`` in ``storage/innobase/lock/
lock0lock.cc``). The wait-for graph lives in the shared page's waiter table (:mod:`.waiters`), so it spans the
workers: a :data:`~.waiters.FILE_HOLD` slot per held file lock, a :data:`~.waiters.FILE_WAIT` slot per waiting
session, both keyed by the file's inode. A session about to wait walks the graph from the file's holder, under the
page lock, and registers its wait in the same critical section: of two transactions closing a cycle at the same
time, the second to take the page lock sees the first one's wait and is the victim. A dead worker's slots go with
it (:func:`.waiters.clear_worker_locked`).

This object has the interface of :class:`gtidkit.engine.schema_files.FileWaits` (the one-process graph), which
the engine replaces by it when it runs with a shared page.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gtidkit.engine.shared import waiters
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.mysql_errors import mysql_error

__all__ = ["FileLock", "SharedFileWaits"]


@dataclass(frozen=True)
class FileLock:
    """One schema file's write lock as the lock-wait tables show it (``schema_files.FileWaits.snapshot``, :meth:`SharedFileWaits.snapshot`)."""

    #: the schema whose file it is
    schema: str
    #: the connection id of the session holding it (None: nobody, or the server's own start-up redo)
    owner: int | None
    #: since when it is held (seconds since the epoch)
    since: float
    #: connection id -> since when it waits for the lock
    waiters: dict[int, float]
    #: what is locked: ``"file"`` (``schema`` names the schema), or a row-lock table entry (``"row"`` /
    #: ``"table"``, ``schema`` the lock's key in hex; engine/shared/row_locks.py ``RowLocks.snapshot``)
    kind: str = "file"


class SharedFileWaits:
    """The schema files' wait-for graph in the shared page (one per process).

    Args:
        page: the mapped shared page.
        worker_id: this process's worker id (recorded in its slots).
    """

    def __init__(self, page: SharedPage, worker_id: int) -> None:
        self.page = page
        self.worker_id = worker_id
        self._lock = threading.Lock()
        #: (id of the engine connection, ATTACH name) -> its FILE_HOLD slot
        self._held: dict[tuple[int, str], int] = {}
        #: id of the engine connection -> its FILE_WAIT slot
        self._waiting: dict[int, int] = {}

    @staticmethod
    def _key(me: Any, alias: str) -> int:
        """The file's inode (the connection attached it: ``Connection.attached``)."""
        return int(me.attached[alias][1])

    def wait(self, me: Any, alias: str) -> None:
        """``me`` (an engine connection; ``me.owner_id`` is its session's connection id) is about to wait for file
        ``alias``'s lock; recorded until :meth:`done_waiting`.

        Raises:
            MySQLError: 1213 ER_LOCK_DEADLOCK when the wait would close a cycle; 1041 when the waiter table is full.
        """
        key = self._key(me, alias)
        mine = (self.worker_id, int(me.owner_id))
        page = self.page
        with page.locked():
            slots = waiters.read_locked(page)
            holders = {w.gno: (w.worker_id, w.connection_id) for w in slots if w.kind == waiters.FILE_HOLD}
            waits = {(w.worker_id, w.connection_id): w.gno for w in slots if w.kind == waiters.FILE_WAIT}
            holder = holders.get(key)
            seen: set[tuple[int, int]] = set()
            while holder is not None and holder not in seen:
                if holder == mine:
                    raise mysql_error(1213)
                seen.add(holder)
                waits_for = waits.get(holder)
                holder = holders.get(waits_for) if waits_for is not None else None
            slot = waiters.register_here(
                page, waiters.FILE_WAIT, worker_id=self.worker_id, connection_id=mine[1], gno=key, locked=True
            )
        with self._lock:
            self._waiting[id(me)] = slot

    def done_waiting(self, me: Any) -> None:
        """``me``'s wait ended (lock taken or failed)."""
        with self._lock:
            slot = self._waiting.pop(id(me), None)
        if slot is not None:
            waiters.unregister(self.page, slot)

    def acquired(self, me: Any, alias: str) -> None:
        """``me`` holds file ``alias``'s lock until :meth:`release`."""
        slot = waiters.register_here(
            self.page,
            waiters.FILE_HOLD,
            worker_id=self.worker_id,
            connection_id=int(me.owner_id),
            gno=self._key(me, alias),
        )
        with self._lock:
            self._held[(id(me), alias)] = slot

    def snapshot(self, files: dict[str, Path]) -> list[FileLock]:
        """Every worker's schema-file locks at one instant (the shared page's FILE_HOLD / FILE_WAIT slots), as
        :meth:`gtidkit.engine.schema_files.FileWaits.snapshot` gives one process's.

        Args:
            files: ``{schema: path}`` of the schema files (their inodes key the slots).
        """
        schema_of: dict[int, str] = {}
        for schema, path in files.items():
            try:
                schema_of[os.stat(path).st_ino] = schema
            except FileNotFoundError:
                continue
        with self.page.locked():
            slots = waiters.read_locked(self.page)
        locks: dict[int, FileLock] = {}
        for w in slots:
            if w.kind == waiters.FILE_HOLD and w.gno in schema_of:
                locks[w.gno] = FileLock(schema_of[w.gno], w.connection_id or None, w.since, {})
        for w in slots:
            if w.kind == waiters.FILE_WAIT and w.gno in schema_of:
                lock = locks.setdefault(w.gno, FileLock(schema_of[w.gno], None, 0.0, {}))
                lock.waiters[w.connection_id] = w.since
        return list(locks.values())

    def release(self, me: Any, aliases: set[str]) -> None:
        """``me``'s transaction ended: its locks on ``aliases`` are free."""
        with self._lock:
            slots = [self._held.pop((id(me), a), None) for a in aliases]
        for slot in slots:
            if slot is not None:
                waiters.unregister(self.page, slot)
