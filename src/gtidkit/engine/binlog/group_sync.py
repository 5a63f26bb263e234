"""Group sync: one WAL fsync for every binlogged transaction committed since the last one (binlog group commit).

Source: MySQL ``sql/binlog.cc`` (``MYSQL_BIN_LOG::ordered_commit``: the sync stage's queue, whose leader syncs for
every follower; ``Stage_manager::wait_count_or_timeout`` for ``binlog_group_commit_sync_delay`` /
``binlog_group_commit_sync_no_delay_count``), RM8 "Binary Logging Options and Variables"; docs/design/
multi_worker.md §5.3 step 4 (issue 21).

Theory of operation: a committer COMMITs its SQLite transaction under the engine write lock without an fsync
(``synchronous=NORMAL``), takes the next sequence number (:meth:`GroupSync.committed_one`), releases the lock and
calls :meth:`GroupSync.wait_durable`. If no leader is syncing it becomes the leader: it waits up to
``binlog_group_commit_sync_delay`` µs (ended early once ``binlog_group_commit_sync_no_delay_count`` transactions
wait; no wait at all when the delay is 0), reads the last committed sequence number, fsyncs the WAL and publishes
that number as synced. SQLite's WAL is one ordered file, so that fsync makes every transaction committed before it
durable (recovery.py, F1-F2). A committer whose number is already synced is a follower and returns without an
fsync; one that arrives while a leader syncs waits for it, then leads the next group if it is still not covered.
A leader whose fsync fails hands the leadership on (the next waiter tries again) and raises.

In a server of several processes the leaders of all processes share their fsyncs (:mod:`gtidkit.engine.shared.
wal_sync`): the sequence numbers are then the server-wide ones of the shared page, and a leader whose number
another process's fsync already covered returns without one.

Unlike MySQL the delay does not widen COMMIT_ORDER's ``last_committed`` groups: SQLite commits are serialised by
the write lock, so no two transactions overlap in the engine (replicas get parallelism from WRITESET).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

__all__ = ["GroupSync", "SharedSync"]


class SharedSync(Protocol):
    """The server-wide half of the sync stage (:class:`gtidkit.engine.shared.wal_sync.SharedWalSync`)."""

    def ticket(self) -> int:
        """The server-wide number of the transaction just COMMITted (caller holds the write lock)."""
        ...

    def synced(self) -> int:
        """The highest number a finished fsync of any process covers."""
        ...

    def sync(self, ticket: int, fsync: Callable[[], None]) -> tuple[bool, int]:
        """Run ``fsync`` unless another process's covered ``ticket``: (whether it ran, the number durable)."""
        ...


class GroupSync:
    """The sync stage's leader/follower state of one server.

    Attributes:
        committed: sequence number of the last transaction COMMITted with its fsync deferred.
        synced: the highest sequence number an fsync has covered.
        fsyncs: fsyncs made so far (``committed / fsyncs`` = the mean group size in one process).
        shared: the server-wide sync of a multi-worker server (set when the process attaches the shared page),
            else None: the numbers are then server-wide and fsyncs are shared across processes.
    """

    def __init__(self) -> None:
        self.shared: SharedSync | None = None
        # the lock is taken directly (a C context manager); the condition only waits and wakes, and only when
        # someone waits (``_waiting``, changed under the lock): every commit passes here three times
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._waiting = 0
        self.committed = 0
        self.synced = 0
        self.fsyncs = 0
        self._leading = False
        self._inflight = 0

    def _wake(self) -> None:
        """Wake every waiter (caller holds the lock); nothing to do when none waits."""
        if self._waiting:
            self._cond.notify_all()

    def _wait(self, timeout: float | None = None) -> None:
        """Wait for a wake-up (caller holds the lock), counted in ``_waiting``."""
        self._waiting += 1
        try:
            self._cond.wait(timeout)
        finally:
            self._waiting -= 1

    def committed_one(self) -> int:
        """Count one transaction just COMMITted (caller holds the engine write lock); returns its sequence number.
        It is in flight until :meth:`done`."""
        with self._lock:
            shared = self.shared
            self.committed = shared.ticket() if shared is not None else self.committed + 1
            self._inflight += 1
            self._wake()  # a leader in its delay counts the group
            return self.committed

    def wait_durable(
        self, seq: int, sync: Callable[[], None], *, delay_us: int = 0, no_delay_count: int = 0
    ) -> bool:
        """Return once transaction ``seq`` is durable: as a follower of another committer's fsync or as the
        leader calling ``sync()`` for the group.

        Args:
            seq: the number :meth:`committed_one` gave.
            sync: the fsync (of the WAL) the leader runs.
            delay_us: ``binlog_group_commit_sync_delay``: µs the leader waits before its fsync (0 = none).
            no_delay_count: ``binlog_group_commit_sync_no_delay_count``: a waiting group of this many transactions
                ends the delay early (0 = wait the whole delay).

        Returns:
            True when this committer led (ran ``sync()``), False when another's fsync covered it.

        Raises:
            OSError: this committer led and ``sync()`` failed (``seq`` is not known durable).
        """
        lock = self._lock
        shared = self.shared
        with lock:
            while True:
                if self.synced >= seq:
                    return False
                if shared is not None:
                    done = shared.synced()
                    if done >= seq:  # another process's fsync covered it
                        self.synced = max(self.synced, done)
                        self._wake()
                        return False
                if not self._leading:
                    self._leading = True
                    break
                self._wait()
        led = True
        try:
            if delay_us > 0:
                deadline = time.monotonic() + delay_us / 1e6
                with lock:
                    while not (no_delay_count and self.committed - self.synced >= no_delay_count):
                        left = deadline - time.monotonic()
                        if left <= 0:
                            break
                        self._wait(left)
            with lock:
                target = self.committed
            if shared is not None:
                led, target = shared.sync(seq, sync)
            else:
                sync()
        except BaseException:
            with lock:
                self._leading = False
                self._wake()
            raise
        with lock:
            self.synced = max(self.synced, target)
            self.fsyncs += led
            self._leading = False
            self._wake()
        return led

    def done(self) -> None:
        """The transaction :meth:`committed_one` counted has finished its commit (durable or failed)."""
        with self._lock:
            self._inflight -= 1
            self._wake()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until no committed transaction is between its COMMIT and the end of its commit (gtid_executed and
        the binlog's published end updated): what rotation, RESET MASTER and shutdown need, with the write lock
        held, to see every committed transaction. Returns False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._inflight != 0:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._wait(left)
            return True
