"""Who holds the engine's write lock and who waits for it, as InnoDB's lock-wait tables show it (issue 19 §4).

SQLite has one writer, so gtidkit has one write lock for the whole server: a session that leaves a write
transaction open makes every other writing session wait (and fail with ER_LOCK_WAIT_TIMEOUT 1205 after
``innodb_lock_wait_timeout``), even for rows and tables it does not touch. MySQL's 1205 message never names the
blocker; a DBA finds it in ``information_schema.INNODB_TRX`` (``trx_state`` ``LOCK WAIT`` vs ``RUNNING``,
``trx_mysql_thread_id`` = the connection id to KILL) and in ``performance_schema.data_lock_waits``
(REQUESTING_* / BLOCKING_* pairs). These rows are filled here per query from :class:`WriteLockWaits`.

Differences from InnoDB, by construction: one lock for the whole server (its lock id names no table or row:
``<trx>:gtidkit:write``), and with ``gtidkit_file_per_schema`` one per schema file (``<trx>:gtidkit:file:<schema>``,
taken at a transaction's first write to the schema: engine/schema_files.py); a transaction id is its session's connection id; ``REQUESTING_THREAD_ID`` /
``BLOCKING_THREAD_ID`` are connection ids too (client sessions have no performance_schema.threads row here).

Sources: RM8 "The INFORMATION_SCHEMA INNODB_TRX Table", "The data_lock_waits Table", "Using InnoDB Transaction
and Locking Information".
"""

from __future__ import annotations

import datetime as _dt
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from gtidkit.engine.shared.file_waits import FileLock

__all__ = ["LockSnapshot", "Trx", "WriteLockWaits", "data_lock_waits_rows", "innodb_trx_rows", "transactions"]


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


def _lock_id(trx: int, schema: str | None = None, kind: str = "file") -> str:
    """A lock's id as a transaction holds or requests it: ``<trx>:gtidkit:write`` (the engine write lock),
    ``<trx>:gtidkit:file:<schema>`` (a schema file's write lock), ``<trx>:gtidkit:row:<table key>:<row key>`` /
    ``<trx>:gtidkit:table:<table key>`` (``gtidkit_row_locks``, keys in hex); InnoDB's ids are
    ``<trx>:<space>:<page>:<heap>`` and likewise start with the transaction."""
    return f"{trx}:gtidkit:write" if schema is None else f"{trx}:gtidkit:{kind}:{schema}"


def _all_locks(
    waits: LockSnapshot, files: Sequence[FileLock]
) -> list[tuple[str | None, str, int | None, float, dict[int, float]]]:
    """Every lock: ``(schema or None for the engine write lock, kind, owner, since, {waiter: since})``."""
    owner, since, waiters = waits.snapshot()
    return [
        (None, "write", owner, since, waiters),
        *((f.schema, f.kind, f.owner, f.since, f.waiters) for f in files),
    ]


class Trx(NamedTuple):
    """A transaction holding or waiting for a lock (:func:`transactions`)."""

    #: its first lock taken or wait begun (seconds since the epoch)
    started: float
    #: the id of the lock it waits for (None: it waits for none)
    requested: str | None = None
    #: since when it waits
    wait_started: float | None = None
    #: the connection id holding the lock it waits for
    holder: int | None = None
    #: the schema whose file's lock it waits for (None: the engine write lock, or no wait)
    schema: str | None = None


def transactions(waits: LockSnapshot, files: Sequence[FileLock] = ()) -> dict[int, Trx]:
    """Each transaction (by connection id) that holds or waits for a lock; a transaction waits for one lock at a
    time.

    Args:
        waits: the engine write lock's owner and waiters.
        files: the schema files' locks (``Storage.file_lock_view``).
    """
    out: dict[int, Trx] = {}
    for schema, kind, owner, since, waiters in _all_locks(waits, files):
        if owner:
            known = out.get(owner)
            out[owner] = (
                Trx(since)
                if known is None
                else Trx(
                    min(known.started, since), known.requested, known.wait_started, known.holder, known.schema
                )
            )
        for w, t in waiters.items():
            known = out.get(w)
            started = t if known is None else min(known.started, t)
            out[w] = Trx(
                started, _lock_id(w, schema, kind), t, owner or None, schema if kind == "file" else None
            )
    return out


def innodb_trx_rows(
    waits: LockSnapshot, isolation: Callable[[int], str], files: Sequence[FileLock] = ()
) -> list[tuple[Any, ...]]:
    """``information_schema.INNODB_TRX``: each transaction holding the write lock or a schema file's
    (``RUNNING``), or waiting for one (``LOCK WAIT``, ``trx_requested_lock_id`` the lock it waits for).

    Args:
        waits: the server's lock registry.
        isolation: a session id's transaction isolation level (``REPEATABLE READ`` spelling).
        files: the schema files' locks (``Storage.file_lock_view``; engine/schema_files.py).
    """
    rows: list[tuple[Any, ...]] = []
    for trx, (started, requested, wait_started, _holder, _schema) in sorted(
        transactions(waits, files).items()
    ):
        state = "LOCK WAIT" if requested is not None else "RUNNING"
        rows.append(
            (trx, state, _when(started), requested, _when(wait_started) if wait_started else None, 1, trx, None,
             None, 0, 0, 1, 1136, 0, 0, 0, isolation(trx), 1, 1, None, 0, 0, 0, 0, None)
        )  # fmt: skip
    return rows


def data_lock_waits_rows(waits: LockSnapshot, files: Sequence[FileLock] = ()) -> list[tuple[Any, ...]]:
    """``performance_schema.data_lock_waits``: one row per waiting session and the lock it waits for (the write
    lock or a schema file's), blocked by that lock's owner."""
    rows = []
    for schema, kind, owner, _since, waiters in _all_locks(waits, files):
        if not owner:
            continue
        for w in sorted(waiters):
            rows.append(
                ("INNODB", _lock_id(w, schema, kind), w, w, None, 0, _lock_id(owner, schema, kind), owner, owner,
                 None, 0)
            )  # fmt: skip
    return rows
