"""Who holds the engine's write lock and who waits for it, as InnoDB's lock-wait tables show it (issue 19 §4).

SQLite has one writer, so gtidkit has one write lock for the whole server: a session that leaves a write
transaction open makes every other writing session wait (and fail with ER_LOCK_WAIT_TIMEOUT 1205 after
``innodb_lock_wait_timeout``), even for rows and tables it does not touch. MySQL's 1205 message never names the
blocker; a DBA finds it in ``information_schema.INNODB_TRX`` (``trx_state`` ``LOCK WAIT`` vs ``RUNNING``,
``trx_mysql_thread_id`` = the connection id to KILL) and in ``performance_schema.data_lock_waits``
(REQUESTING_* / BLOCKING_* pairs). These rows are filled here per query from :class:`WriteLockWaits`.

Differences from InnoDB, by construction: one lock for the whole server (its lock id names no table or row:
``<trx>:gtidkit:write``); a transaction id is its session's connection id; ``REQUESTING_THREAD_ID`` /
``BLOCKING_THREAD_ID`` are connection ids too (client sessions have no performance_schema.threads row here).

Sources: RM8 "The INFORMATION_SCHEMA INNODB_TRX Table", "The data_lock_waits Table", "Using InnoDB Transaction
and Locking Information".
"""

from __future__ import annotations

import datetime as _dt
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["LockSnapshot", "WriteLockWaits", "data_lock_waits_rows", "innodb_trx_rows"]


class LockSnapshot(Protocol):
    """What the tables read: :class:`WriteLockWaits` in one process, the shared page's view across processes
    (engine/server.py merges them when the server has one)."""

    def snapshot(self) -> tuple[int | None, float, dict[int, float]]:
        """``(owner, owner since, {waiter: since})`` at one instant (times in seconds since the epoch)."""
        ...


class WriteLockWaits:
    """The write lock's owner (since when) and its waiters (since when), updated by the server's lock calls."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.owner: int | None = None
        self.owner_since = 0.0
        self.waiters: dict[int, float] = {}
        #: sessions' write transactions since start-up (each took the lock once): SHOW ENGINE INNODB STATUS's
        #: "Trx id counter" (InnoDB gives a read-write transaction its id when it first writes)
        self.acquisitions = 0

    def waiting(self, session_id: int) -> None:
        """Session ``session_id`` starts waiting for the write lock."""
        with self._lock:
            self.waiters[session_id] = time.time()

    def done_waiting(self, session_id: int) -> None:
        """Session ``session_id`` got the lock or gave up (1205)."""
        with self._lock:
            self.waiters.pop(session_id, None)

    def acquired(self, session_id: int | None) -> None:
        """The lock's new owner (None: the server's own short transactions)."""
        self.owner = session_id
        self.owner_since = time.time()
        if session_id is not None:  # release_write_lock also reports None
            self.acquisitions += 1

    def snapshot(self) -> tuple[int | None, float, dict[int, float]]:
        """``(owner, owner since, {waiter: since})`` at one instant (times in seconds since the epoch)."""
        with self._lock:
            return self.owner, self.owner_since, dict(self.waiters)


def _when(seconds: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(int(seconds))


def _lock_id(trx: int) -> str:
    return f"{trx}:gtidkit:write"


def innodb_trx_rows(waits: LockSnapshot, isolation: Callable[[int], str]) -> list[tuple[Any, ...]]:
    """``information_schema.INNODB_TRX``: the write lock's owner (``RUNNING``) and each waiter (``LOCK WAIT``).

    Args:
        waits: the server's lock registry.
        isolation: a session id's transaction isolation level (``REPEATABLE READ`` spelling).
    """
    owner, since, waiters = waits.snapshot()
    rows: list[tuple[Any, ...]] = []
    entries = ([(owner, since, None)] if owner else []) + [(w, t, t) for w, t in sorted(waiters.items())]
    for trx, started, wait_started in entries:
        state = "LOCK WAIT" if wait_started is not None else "RUNNING"
        requested = _lock_id(trx) if wait_started is not None else None
        rows.append(
            (trx, state, _when(started), requested, _when(wait_started) if wait_started else None, 1, trx, None,
             None, 0, 0, 1, 1136, 0, 0, 0, isolation(trx), 1, 1, None, 0, 0, 0, 0, None)
        )  # fmt: skip
    return rows


def data_lock_waits_rows(waits: LockSnapshot) -> list[tuple[Any, ...]]:
    """``performance_schema.data_lock_waits``: one row per waiting session, blocked by the lock's owner."""
    owner, _since, waiters = waits.snapshot()
    if not owner:
        return []
    return [
        ("INNODB", _lock_id(w), w, w, None, 0, _lock_id(owner), owner, owner, None, 0)
        for w in sorted(waiters)
    ]
