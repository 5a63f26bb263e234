"""The engine write lock across processes: an ``flock`` on ``gtidkit.write.lock``, waits woken by datagram.

SQLite has one writer per database file, so gtidkit has one write lock, taken at a transaction's first write and
held to its COMMIT (engine/server.py ``acquire_write_lock`` in one process; §5.3 of docs/design/multi_worker.md
for the multi-worker commit path). Across processes it is an exclusive ``flock`` on ``gtidkit.write.lock``:

* the kernel releases it when its holder dies, SIGKILL included, so a killed worker never wedges the server;
* an ``flock`` belongs to an open file description, so each contender (a session) has its own
  :class:`SharedWriteLock` object with its own descriptor (two threads sharing one would not exclude each other);
* a contender that finds it held registers in the shared page's waiter table (:mod:`.waiters`, also what
  ``INNODB_TRX`` / ``data_lock_waits`` will list) and sleeps in ``poll()`` on its own wake-up socket plus a pidfd
  of the holder's process (:mod:`.wakeup`). The releasing holder sends the registered waiters one datagram each;
  a holder that dies wakes them through its pidfd. No sleep-and-retry loop: the hand-off costs one datagram.

MySQL's behaviours kept: the wait ends with 1205 ER_LOCK_WAIT_TIMEOUT after ``innodb_lock_wait_timeout`` seconds
(InnoDB's ``lock_wait_suspend_thread`` / ``lock_wait_timeout_thread``, ``storage/innobase/lock/lock0wait.cc``:
``DB_LOCK_WAIT_TIMEOUT`` -> ``HA_ERR_LOCK_WAIT_TIMEOUT`` -> ER_LOCK_WAIT_TIMEOUT), and a ``KILL [QUERY]`` of the
waiting session ends it with 1317 ER_QUERY_INTERRUPTED (``DB_INTERRUPTED``; ``trx_is_interrupted``), as the
in-process lock does today.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path

from gtidkit.engine.shared import waiters
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.engine.shared.wakeup import pidfd, thread_wake_socket
from gtidkit.mysql_errors import mysql_error

__all__ = ["WRITE_LOCK_FILE", "SharedWriteLock"]

#: the lock file's name in the datadir
WRITE_LOCK_FILE = "gtidkit.write.lock"
#: the longest sleep while the holder has taken the flock but not yet recorded its pid (a few µs window): only
#: then can a waiter not watch the holder's death, so it re-checks after this many seconds
_UNRECORDED_HOLDER_RECHECK = 0.005


class SharedWriteLock:
    """One contender's handle on the server's write lock (one per session: it owns its own descriptor).

    Args:
        page: the mapped shared page (owner record, waiter table).
        datadir: the data directory (holds ``gtidkit.write.lock``).
        worker_id: this process's worker id (recorded with the holder and with waiters).

    Raises:
        OSError: the lock file cannot be opened.
    """

    def __init__(self, page: SharedPage, datadir: str | os.PathLike[str], worker_id: int) -> None:
        self.page = page
        self.worker_id = worker_id
        self.path = Path(datadir) / WRITE_LOCK_FILE
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        # this process's pid, read once: os.getpid() is a system call at every use (glibc caches no pid), twice per
        # hold; a handle never crosses a fork (its flock descriptor would be shared with the child)
        self._pid = os.getpid()
        #: the connection id holding the lock through this handle, or None
        self.holder: int | None = None

    def close(self) -> None:
        """Release the lock if held and close the descriptor."""
        if self.holder is not None:
            self.release()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _try(self) -> bool:
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _record(self, connection_id: int) -> None:
        with self.page.locked():
            self.page.set_write_owner(self._pid, self.worker_id, connection_id, time.time())
        self.holder = connection_id

    def try_acquire(self, connection_id: int) -> bool:
        """Take the lock for ``connection_id`` if it is free. Returns whether it was taken."""
        if self.holder is not None:
            raise RuntimeError("this handle already holds the write lock")
        if not self._try():
            return False
        self._record(connection_id)
        return True

    def acquire(
        self,
        connection_id: int,
        timeout: float | None,
        killed: Callable[[], bool] | None = None,
    ) -> None:
        """Take the lock for ``connection_id``, waiting at most ``timeout`` seconds.

        Args:
            connection_id: the session taking it (recorded for ``INNODB_TRX`` and for KILL's wake-up).
            timeout: seconds (``innodb_lock_wait_timeout``); None waits without limit.
            killed: checked after every wake-up; True ends the wait with 1317. ``KILL`` wakes the waiter at once
                with :func:`~.waiters.wake_connection`.

        Raises:
            MySQLError: 1205 ER_LOCK_WAIT_TIMEOUT when ``timeout`` passes, 1317 ER_QUERY_INTERRUPTED when
                ``killed()``, 1041 ER_OUT_OF_RESOURCES when the waiter table is full.
            RuntimeError: this handle already holds the lock (a bug of the caller).
        """
        if self.try_acquire(connection_id):
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        page = self.page
        ws = thread_wake_socket()
        ws.drain()
        slot = waiters.register_here(
            page, waiters.WRITE_LOCK, worker_id=self.worker_id, connection_id=connection_id
        )
        watched_pid, watch_fd = 0, None
        try:
            while True:  # registered before this try: a release from here on queues a wake-up
                if self._try():
                    break
                if killed is not None and killed():
                    raise mysql_error(1317)
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise mysql_error(1205)
                holder_pid = page.write_owner_pid()
                if holder_pid != watched_pid:
                    if watch_fd is not None:
                        os.close(watch_fd)
                    watched_pid, watch_fd = holder_pid, None
                    try:
                        watch_fd = pidfd(holder_pid)
                    except ProcessLookupError:
                        continue  # the recorded holder is gone: try again at once
                if holder_pid == 0:
                    # taken but not recorded yet (or cleared just before its unlock): its release still wakes us
                    remaining = (
                        _UNRECORDED_HOLDER_RECHECK
                        if remaining is None
                        else min(remaining, _UNRECORDED_HOLDER_RECHECK)
                    )
                ws.wait(remaining, watch_fd)
        finally:
            if watch_fd is not None:
                os.close(watch_fd)
            waiters.unregister(page, slot)
        self._record(connection_id)

    def release(self) -> None:
        """Release the lock and wake every registered waiter (the first to retry takes it).

        Raises:
            RuntimeError: this handle does not hold the lock (a bug of the caller).
        """
        if self.holder is None:
            raise RuntimeError("this handle does not hold the write lock")
        page = self.page
        # no page lock (an flock pair fewer per write transaction, h-xproc): while this handle holds the write
        # lock nobody else writes the owner record (the next holder waits for the flock below; clear_worker
        # clears only a dead worker's record), so checking it and clearing its pid word (one store, what every
        # reader tests first; the other words are left as they were, so a reader under the page lock sees this
        # holder whole or no holder) need no lock
        base = page.layout.write_owner
        if page.word(base) == self._pid and page.word(base + 16) == self.holder:
            page.set_word(base, 0)
        self.holder = None
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        waiters.wake_matching(page, waiters.WRITE_LOCK)

    def snapshot(self) -> tuple[int | None, float, dict[int, float]]:
        """``(holder connection id, since, {waiting connection id: since})`` across every worker, the shape of
        engine/lock_waits.py's ``WriteLockWaits.snapshot`` (for ``INNODB_TRX`` / ``data_lock_waits``)."""
        with self.page.locked():
            pid, _worker, conn, since = self.page.write_owner()
        found = waiters.waiters(self.page, waiters.WRITE_LOCK)
        return (conn if pid else None), since, {w.connection_id: w.since for w in found}
