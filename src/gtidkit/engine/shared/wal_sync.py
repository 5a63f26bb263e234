"""The WAL's group sync across the processes of one server: one fsync covers every process's commits before it.

Issue 21, docs/design/multi_worker.md §5.3 step 4 ("group sync, outside the write lock"). Every worker of a
multi-worker server COMMITs into the same SQLite write-ahead log without an fsync (``synchronous=NORMAL``) and then
makes its transaction durable in its sync stage (engine/binlog/group_sync.py: one leader per process syncs for the
process's committers). An ``fsync`` flushes a file's dirty pages whatever descriptor or process wrote them, so the
WAL fsync of one worker also makes durable every transaction another worker committed before that fsync began.
This module lets the leaders of all processes share their fsyncs, as MySQL's sync stage shares one for its whole
queue (``MYSQL_BIN_LOG::ordered_commit``, ``sql/binlog.cc``):

* a transaction's number is the page's ``committed`` counter as its write-lock release publishes it
  (engine/follow.py: the holder bumps it by one at each release; only the holder writes it). A committer takes
  :meth:`SharedWalSync.ticket` while it still holds the write lock, after its COMMIT returned: the value the next
  release will publish. Every number up to the counter's current value therefore belongs to a transaction whose
  COMMIT returned before the counter was read (its release came after its COMMIT);
* ``synced`` in the page: the highest number a finished WAL fsync covers. A leader takes the exclusive ``flock`` on
  ``gtidkit.sync.lock`` (the kernel drops it if the process dies), re-reads ``synced``: when another process's fsync
  already covered its number it returns without one; else it reads ``committed``, fsyncs the WAL and publishes
  that value as ``synced`` (the lock holder is the counter's one writer), then unlocks.

Recovery argument (unchanged, §5.4): a transaction is acknowledged only after an fsync that began after its
COMMIT returned (F2 of §5.4 holds for any descriptor of the file), so an acknowledged transaction is durable
whichever process ran the fsync; a process killed before publishing ``synced`` leaves it lower, which only makes
the next leader fsync again.

Only the standard library and the other modules of this package are used (the package sits below the engine).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path

from gtidkit.engine.shared.shm import SharedPage

__all__ = ["SYNC_LOCK_FILE", "SharedWalSync"]

#: the sync stage's lock file in the datadir
SYNC_LOCK_FILE = "gtidkit.sync.lock"


class SharedWalSync:
    """One process's handle on the server-wide WAL sync (one per process: its group-sync leader uses it).

    Args:
        page: the mapped shared page (the ``committed`` and ``synced`` counters).
        datadir: the data directory (holds ``gtidkit.sync.lock``).

    Attributes:
        fsyncs: fsyncs this process ran through :meth:`sync`.
        covered: leaders of this process whose number another process's fsync had covered (no fsync of theirs).

    Raises:
        OSError: the lock file cannot be opened.
    """

    def __init__(self, page: SharedPage, datadir: str | os.PathLike[str]) -> None:
        self._committed = page.counter("committed")
        self._synced = page.counter("synced")
        self._fd = os.open(Path(datadir) / SYNC_LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        self.fsyncs = 0
        self.covered = 0

    def close(self) -> None:
        """Close the lock file's descriptor (idempotent)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def ticket(self) -> int:
        """The number of the transaction the caller just COMMITted: the ``committed`` value its write-lock release
        will publish. Call it holding the write lock, after the COMMIT returned."""
        return self._committed.get() + 1

    def synced(self) -> int:
        """The highest number a finished WAL fsync covers (lock-free read)."""
        return self._synced.get()

    def sync(self, ticket: int, fsync: Callable[[], None]) -> tuple[bool, int]:
        """Make transaction ``ticket`` durable: nothing when another process's fsync covered it meanwhile, else
        ``fsync()`` for every transaction committed so far.

        Args:
            ticket: the number :meth:`ticket` gave (its release published it, or will).
            fsync: the WAL fsync.

        Returns:
            (whether this call ran ``fsync``, the number now known durable: every transaction up to it).

        Raises:
            OSError: ``fsync`` failed (``synced`` is left as it was; the lock is released).
        """
        fcntl.flock(self._fd, fcntl.LOCK_EX)  # the GIL is released while it blocks
        try:
            done = self._synced.get()
            if done >= ticket:
                self.covered += 1
                return False, done
            target = self._committed.get()  # read before the fsync: every number up to it had COMMITted
            fsync()
            if target > done:
                self._synced.set(target)
            self.fsyncs += 1
            return True, max(target, done)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
