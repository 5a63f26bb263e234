"""The binary log's published end across the processes of one server, and the dump threads that wait for it.

Issue 21 step 6, docs/design/multi_worker.md §5.2 ("binlog dump threads"; "FLUSH BINARY LOGS, RESET MASTER / BINARY
LOGS AND GTIDS, PURGE"). Every process of a multi-worker server appends to the same binlog files under the engine
write lock, but each keeps its own :class:`~gtidkit.engine.binlog.log.BinlogLog` object. What a reader must agree
on lives in the shared page instead:

* ``binlog_end``: the end of the last transaction committed and durable, as ``file number << 32 | offset`` in one
  8-byte word (a file number is at most 2·10⁹ < 2³¹ and an offset fits the 4-byte ``log_pos`` of an event header),
  so a reader never sees a file name with another file's offset. The packed value grows with (file, offset), so
  committers finishing out of order publish the maximum under the page lock (MySQL's ``update_binlog_end_pos``
  under ``LOCK_binlog_end_pos``). A RESET starts a new ``reset_epoch`` and may number files from 1 again: a
  publication carries the epoch its transaction was written in and is dropped when a RESET came in between.
* ``binlog_generation``: bumped by the write lock's holder whenever the index changes (rotation, PURGE, expiry,
  RESET): readers re-read ``binlog.index`` when it moved.
* ``binlog_waiters``: dump threads sleeping until the end moves (:data:`~gtidkit.engine.shared.waiters.BINLOG`
  waiters, woken by one datagram each after every publication: MySQL's ``update_cond`` broadcast, across
  processes).

Only the standard library and the other modules of this package are used (the package sits below the engine).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gtidkit.engine.shared import waiters
from gtidkit.engine.shared.shm import SharedPage

__all__ = ["BinlogEnd", "pack", "unpack"]

_POS_BITS = 32
_POS_MASK = (1 << _POS_BITS) - 1


def pack(number: int, pos: int) -> int:
    """One word for binlog file ``number`` (``binlog.000042`` → 42) and byte offset ``pos`` in it.

    Raises:
        ValueError: ``number`` outside 1 .. 2³¹ - 1 or ``pos`` outside 0 .. 2³² - 1.
    """
    if not 0 < number < 1 << 31 or not 0 <= pos <= _POS_MASK:
        raise ValueError(f"binlog position ({number}, {pos}) cannot be published")
    return number << _POS_BITS | pos


def unpack(word: int) -> tuple[int, int] | None:
    """``(file number, offset)`` of a :func:`pack` word, None for 0 (nothing published yet)."""
    if not word:
        return None
    return word >> _POS_BITS, word & _POS_MASK


class BinlogEnd:
    """The shared binlog end of one process's view of the page.

    Args:
        page: the mapped shared page.
        worker_id: this process's worker number (recorded with its waiters).
    """

    def __init__(self, page: SharedPage, worker_id: int) -> None:
        self.page = page
        self.worker_id = worker_id
        self._end = page.counter("binlog_end")
        self._generation = page.counter("binlog_generation")
        self._epoch = page.counter("reset_epoch")

    def get(self) -> tuple[int, int] | None:
        """The published ``(file number, offset)``, None before any (one lock-free read)."""
        return unpack(self._end.get())

    def generation(self) -> int:
        """The index generation (moves on rotation, PURGE, expiry, RESET)."""
        return self._generation.get()

    def epoch(self) -> int:
        """The page's ``reset_epoch`` (moves on each RESET MASTER / RESET BINARY LOGS AND GTIDS)."""
        return self._epoch.get()

    def publish(self, number: int, pos: int, epoch: int) -> bool:
        """Move the end to ``(number, pos)`` if it is past the published one and no RESET came after the
        transaction was written in ``epoch``; wake the waiting readers when it moved.

        Returns:
            Whether the end moved.
        """
        word = pack(number, pos)
        with self.page.locked():
            if self._epoch.get() != epoch or word <= self._end.get():
                return False
            self._end.set(word)
        self.wake()
        return True

    def set(self, number: int, pos: int, *, new_epoch: bool = False) -> int:
        """Publish ``(number, pos)`` whatever the previous end (the write lock's holder after it opened a file:
        start-up, rotation, RESET) and bump the index generation; with ``new_epoch`` (RESET MASTER / RESET BINARY
        LOGS AND GTIDS, after its SQLite commit and the new index) start a new ``reset_epoch`` in the same step, so
        a process that sees the new epoch finds the old files gone and the new one indexed. Wakes the readers.

        Returns:
            The epoch the end now belongs to.
        """
        with self.page.locked():
            self._generation.add(1)  # before the end: a reader that sees the new end sees the new generation
            epoch = self._epoch.add(1) if new_epoch else self._epoch.get()
            self._end.set(pack(number, pos))
        self.wake()
        return epoch

    def index_changed(self) -> None:
        """The index changed without a new file (PURGE, expiry): bump the generation (write lock held)."""
        with self.page.locked():
            self._generation.add(1)

    def new_epoch(self) -> int:
        """RESET MASTER on a server without a binary log (write lock held, after its SQLite commit): a new
        ``reset_epoch``, so every process rebuilds its GTID state. Returns it."""
        with self.page.locked():
            return self._epoch.add(1)

    def wake(self) -> int:
        """Wake every waiting binlog reader of every process (they re-check the end). Returns the wake-ups sent."""
        return waiters.wake_matching(self.page, waiters.BINLOG)

    def wait(self, moved: Callable[[], bool], timeout: float | None, *, connection_id: int = 0) -> bool:
        """Sleep until ``moved()`` is true (checked after registering, so no publication is missed) or
        ``timeout`` seconds pass; a :meth:`wake` makes the waiter check again.

        Args:
            moved: the reader's condition (the end moved, the log was closed, the reader was stopped).
            timeout: seconds (None = no limit).
            connection_id: the waiting connection (KILL wakes it through the waiter table).

        Returns:
            ``moved()`` at the end (False on timeout).

        Raises:
            MySQLError: 1041 when the waiter table is full.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with waiters.waiting(
                self.page, waiters.BINLOG, worker_id=self.worker_id, connection_id=connection_id
            ) as sock:
                if moved():
                    return True
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                sock.wait(left)
            if moved():
                return True
