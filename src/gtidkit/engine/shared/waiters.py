"""The shared page's waiter table: which connection of which worker blocks on what, and how to wake it.

One slot per blocked session: what it waits for (:data:`WRITE_LOCK`, :data:`GTID` with the sid index and GNO, or
:data:`BINLOG`: a dump thread waiting for the binary log to grow),
its worker and connection id, since when, its pid and the address of its :class:`~.wakeup.WakeSocket`. Releasers
wake the matching waiters with one datagram each; ``KILL`` wakes a connection's waiter with
:func:`wake_connection` so it sees its kill flag at once. The same rows feed ``information_schema.INNODB_TRX``
(``LOCK WAIT``) and ``performance_schema.data_lock_waits`` across workers (engine/lock_waits.py today, per process).

Sources: InnoDB's lock-wait table (``lock_wait_table`` of ``storage/innobase/lock/lock0wait.cc``: one slot per
suspended thread, with its event to signal) and MySQL's ``Gtid_state::wait_for_gtid`` / ``broadcast_sidno``
(``sql/rpl_gtid_state.cc``: a GTID's release signals the threads waiting on its SIDNO).
"""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from gtidkit.engine.shared import slots
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.engine.shared.wakeup import WakeSocket, thread_wake_socket, wake

__all__ = [
    "BINLOG",
    "EXECUTED",
    "FILE_HOLD",
    "FILE_WAIT",
    "GTID",
    "ROW_HOLD",
    "ROW_WAIT",
    "WRITE_LOCK",
    "Waiter",
    "clear_worker_locked",
    "free_locked",
    "free_slots_locked",
    "hold_locked",
    "keyed_in",
    "keyed_locked",
    "read_locked",
    "register",
    "register_here",
    "register_locked",
    "unregister",
    "waiters",
    "waiting",
    "wake_connection",
    "wake_matching",
]

#: what a waiter waits for (slot ``kind``; 0 = free slot)
WRITE_LOCK = 1
GTID = 2
#: a binlog reader (a dump thread) waiting for the binary log's published end to move (engine/shared/binlog_end.py)
BINLOG = 3
#: a ``WAIT_FOR_EXECUTED_GTID_SET`` call: woken by every commit that adds to gtid_executed (it re-checks its set)
EXECUTED = 4
#: a session waiting for a schema file's write lock (``gno``: the file's inode; engine/shared/file_waits.py)
FILE_WAIT = 5
#: a session holding a schema file's write lock (``gno``: the file's inode): the deadlock detector's edges
FILE_HOLD = 6
#: a session waiting for a row or table lock (``sid_index``: the table's key, ``gno``: the row's key, 0 = the
#: whole table; engine/shared/row_locks.py, ``gtidkit_row_locks``)
ROW_WAIT = 7
#: a row or table lock held (same keys): the lock table itself and the deadlock detector's edges
ROW_HOLD = 8
_COUNT = {
    WRITE_LOCK: "write_lock_waiters",
    GTID: "gtid_waiters",
    BINLOG: "binlog_waiters",
    EXECUTED: "executed_waiters",
    FILE_WAIT: "file_waiters",
    FILE_HOLD: "file_holders",
    ROW_WAIT: "row_waiters",
    ROW_HOLD: "row_holders",
}

_SLOT = struct.Struct(
    "=IIQdQ8sIIQ8x"
)  # kind, worker, connection, since, pid, address, sid index, pad, gno; pad
_KIND = struct.Struct("=I")
#: the same slot, only kind, worker, connection, sid index and gno read (:func:`keyed_locked`)
_KEYED = struct.Struct("=IIQ24xI4xQ8x")


@dataclass(frozen=True, slots=True)
class Waiter:
    """One registered waiter.

    Attributes:
        slot: its slot number (for :func:`unregister`).
        kind: :data:`WRITE_LOCK`, :data:`GTID`, :data:`BINLOG` or :data:`EXECUTED`.
        worker_id: the worker whose session waits.
        connection_id: the waiting session's connection id.
        since: when it started waiting (seconds since the epoch).
        pid: the waiting process.
        address: its wake-up socket's address.
        sid_index: for :data:`GTID`, the awaited GTID's sid index (else 0).
        gno: for :data:`GTID`, the awaited GNO (else 0).
    """

    slot: int
    kind: int
    worker_id: int
    connection_id: int
    since: float
    pid: int
    address: bytes
    sid_index: int
    gno: int


def _read(page: SharedPage) -> list[Waiter]:
    """Every used slot (caller holds the page lock, or accepts a racy view)."""
    return [
        Waiter(i, kind, worker, conn, since, pid, addr.rstrip(b"\0"), sid_index, gno)
        for i, (kind, worker, conn, since, pid, addr, sid_index, _pad, gno) in slots.table(
            page, "waiters"
        ).rows(_SLOT)
    ]


def register(page: SharedPage, kind: int, **fields: Any) -> int:
    """Add a waiter (before its last check of what it waits for, so no release is missed). Returns its slot.

    Args:
        page: the mapped shared page.
        kind: what it waits for.
        fields: :func:`register_locked`'s keyword arguments.

    Raises:
        MySQLError: 1041 ER_OUT_OF_RESOURCES when every slot is used.
    """
    with page.locked():
        return register_locked(page, kind, **fields)


def register_locked(
    page: SharedPage,
    kind: int,
    *,
    worker_id: int,
    connection_id: int,
    pid: int,
    address: bytes,
    since: float,
    sid_index: int = 0,
    gno: int = 0,
) -> int:
    """:func:`register` with the page lock already held (a check and the registration in one critical section).

    Raises:
        MySQLError: 1041 ER_OUT_OF_RESOURCES when every slot is used.
    """
    table = slots.table(page, "waiters")
    slot = table.claim_locked()
    _SLOT.pack_into(
        page.buf, table.offset(slot), kind, worker_id, connection_id, since, pid, address, sid_index, 0, gno
    )
    page.counter(_COUNT[kind]).add(1)
    return slot


def register_here(
    page: SharedPage,
    kind: int,
    *,
    worker_id: int,
    connection_id: int,
    sid_index: int = 0,
    gno: int = 0,
    locked: bool = False,
) -> int:
    """:func:`register` (``locked``: :func:`register_locked`) for the calling thread: this process's pid, the
    address of the thread's wake-up socket (:func:`~.wakeup.thread_wake_socket`), now. Returns the slot.

    Raises:
        MySQLError: 1041 ER_OUT_OF_RESOURCES when every slot is used.
    """
    fields: dict[str, Any] = {
        "worker_id": worker_id,
        "connection_id": connection_id,
        "pid": os.getpid(),
        "address": thread_wake_socket().address,
        "since": time.time(),
        "sid_index": sid_index,
        "gno": gno,
    }
    return register_locked(page, kind, **fields) if locked else register(page, kind, **fields)


@contextmanager
def waiting(
    page: SharedPage, kind: int, *, worker_id: int, connection_id: int, sid_index: int = 0, gno: int = 0
) -> Iterator[WakeSocket]:
    """Registered as a waiter of ``kind`` for the block (unregistered at its end, whatever happens): yields the
    thread's wake-up socket, drained before the registration, so a wake-up queued from then on is not lost.

    Raises:
        MySQLError: 1041 ER_OUT_OF_RESOURCES when every slot is used.
    """
    ws = thread_wake_socket()
    ws.drain()
    slot = register_here(
        page, kind, worker_id=worker_id, connection_id=connection_id, sid_index=sid_index, gno=gno
    )
    try:
        yield ws
    finally:
        unregister(page, slot)


def _free_locked(page: SharedPage, slot: int) -> None:
    """Free ``slot`` and lower the high-water mark past trailing free slots (page lock held)."""
    table = slots.table(page, "waiters")
    kind = int(_KIND.unpack_from(page.buf, table.offset(slot))[0])
    if not kind:
        return
    table.release_locked(slot)
    page.counter(_COUNT[kind]).add(-1)


def unregister(page: SharedPage, slot: int) -> None:
    """Remove the waiter in ``slot`` (it got what it waited for, timed out, or was killed)."""
    with page.locked():
        _free_locked(page, slot)


def clear_worker_locked(page: SharedPage, worker_id: int) -> list[Waiter]:
    """Remove every waiter of ``worker_id`` (its process died). Page lock held. Returns the removed waiters."""
    gone = [w for w in _read(page) if w.worker_id == worker_id]
    for w in gone:
        _free_locked(page, w.slot)
    return gone


def read_locked(page: SharedPage) -> list[Waiter]:
    """Every registered slot; the caller holds the page lock."""
    return _read(page)


def keyed_locked(page: SharedPage, kind: int, sid_index: int) -> list[tuple[int, int, int]]:
    """``(worker_id, connection_id, gno)`` of the registered slots of ``kind`` whose ``sid_index`` is ``sid_index``
    (a row lock's table key); the caller holds the page lock. Reads only those fields and builds no
    :class:`Waiter` (the row lock's check of every request)."""
    return [
        (worker, conn, gno)
        for k, worker, conn, index, gno in slots.table(page, "waiters").unpack_used(_KEYED)
        if k == kind and index == sid_index
    ]


def keyed_in(table: slots.SlotTable, kind: int, sid_index: int) -> list[tuple[int, int, int]]:
    """:func:`keyed_locked` on the caller's (kept) waiter :class:`~.slots.SlotTable` of the page: the row lock
    table's check of every request, without building the table object each time. Page lock held."""
    return [
        (worker, conn, gno)
        for k, worker, conn, index, gno in table.unpack_used(_KEYED)
        if k == kind and index == sid_index
    ]


def hold_locked(
    table: slots.SlotTable,
    kind: int,
    worker_id: int,
    connection_id: int,
    pid: int,
    address: bytes,
    sid_index: int,
    gno: int,
) -> int:
    """:func:`register_locked` on the caller's (kept) waiter :class:`~.slots.SlotTable`, since now: a row lock's
    ``ROW_HOLD`` slot on the uncontended path. Page lock held. Returns the slot.

    Raises:
        MySQLError: 1041 ER_OUT_OF_RESOURCES when every slot is used.
    """
    page = table.page
    slot = table.claim_locked()
    _SLOT.pack_into(
        page.buf,
        table.offset(slot),
        kind,
        worker_id,
        connection_id,
        time.time(),
        pid,
        address,
        sid_index,
        0,
        gno,
    )
    page.counter(_COUNT[kind]).add(1)
    return slot


def free_slots_locked(table: slots.SlotTable, kind: int, used: Iterable[int]) -> None:
    """Free the slots ``used``, all registered as ``kind`` (a transaction's row locks), and lower the table's
    high-water mark once. Page lock held."""
    page = table.page
    buf = page.buf
    size = table.size
    blank = bytes(size)
    freed = 0
    for slot in used:
        at = table.offset(slot)
        if _KIND.unpack_from(buf, at)[0]:
            buf[at : at + size] = blank
            freed += 1
    if freed:
        page.counter(_COUNT[kind]).add(-freed)
        table.lower_high_locked()


def free_locked(page: SharedPage, slot: int) -> None:
    """Free ``slot``; the caller holds the page lock."""
    _free_locked(page, slot)


def waiters(page: SharedPage, kind: int | None = None) -> list[Waiter]:
    """The registered waiters (of ``kind`` only, when given), read under the page lock."""
    with page.locked():
        found = _read(page)
    return [w for w in found if kind is None or w.kind == kind]


def _send(targets: Iterable[Waiter]) -> int:
    return sum(1 for w in targets if wake(w.address))


def wake_matching(page: SharedPage, kind: int, sid_index: int = 0, gno: int = 0) -> int:
    """Wake every waiter of ``kind`` (for :data:`GTID`: of that sid index and GNO; GNO 0 = any of the sid).

    Cheap when nobody waits: the kind's waiter counter is read first, without the lock.

    Returns:
        How many wake-ups were queued.
    """
    if not page.counter(_COUNT[kind]).get():
        return 0
    with page.locked():
        found = _read(page)
    return _send(
        w
        for w in found
        if w.kind == kind and (kind != GTID or (w.sid_index == sid_index and gno in (0, w.gno)))
    )


def wake_connection(page: SharedPage, connection_id: int) -> int:
    """Wake the waits of connection ``connection_id`` (``KILL [QUERY]``: the waiter then sees its kill flag).

    Returns:
        How many wake-ups were queued (0 when it waits for nothing).
    """
    if not any(page.counter(name).get() for name in _COUNT.values()):
        return 0
    with page.locked():
        found = _read(page)
    return _send(w for w in found if w.connection_id == connection_id)
