"""Per-worker liveness slots of the shared page, and what a worker's death releases (issue 21, §5.6).

Slot ``worker_id`` (0 = the supervisor) holds the worker's pid, an incarnation number bumped at every
registration (a replacement worker reuses the id of the one it replaces), its start time and the number of
prepared statements its sessions hold (Prepared_stmt_count is the sum over the live workers: :func:`set_prepared`,
:func:`prepared_total`; a dead worker's statements go with its slot) and the transactions it saved to
mysql.gtid_executed (the compressor's period counts every worker's: :func:`add_saved`, :func:`saved_total`; one
writer per word, so a commit takes no page lock to count; a dead worker's count stays, its replacement continues
it). When a worker dies
(SIGKILL included) the kernel drops its ``flock`` locks, but its rows in the shared page stay: the supervisor, told
by SIGCHLD, calls :func:`clear_worker`, which drops the GTIDs its sessions owned, its waiter slots and its record
as the write lock's holder, then wakes whoever waited on them. That is what mysqld does for a thread that ends:
``Gtid_state::update_gtids_impl`` / ``update_on_rollback`` release the dead session's GTID
(``sql/rpl_gtid_state.cc``), and waiters on its SIDNO are broadcast.
"""

from __future__ import annotations

import os
import struct
import time
from dataclasses import dataclass

from gtidkit.engine.shared import owners, waiters
from gtidkit.engine.shared.shm import WORKER_SLOT, SharedPage

__all__ = [
    "ClearedWorker",
    "WorkerSlot",
    "add_saved",
    "clear_worker",
    "is_alive",
    "prepared_total",
    "register_worker",
    "saved_total",
    "set_prepared",
    "worker_slot",
    "workers",
]

_SLOT = struct.Struct("@QQd")  # pid (0 = free), incarnation, started at
_TAIL = struct.Struct("@Qd")  # the same without the pid word (a single store of its own)
_SIZE = WORKER_SLOT
_PREPARED = 24  # offset in the slot of the worker's prepared-statement count (one writer: the worker)
_SAVED = 32  # offset in the slot of the transactions the worker saved to mysql.gtid_executed (one writer)


@dataclass(frozen=True, slots=True)
class WorkerSlot:
    """A worker's liveness record.

    Attributes:
        worker_id: the slot number.
        pid: its process id (0 = no worker).
        incarnation: how many workers have registered under this id since the page was built.
        started: when it registered (seconds since the epoch).
    """

    worker_id: int
    pid: int
    incarnation: int
    started: float


@dataclass(frozen=True, slots=True)
class ClearedWorker:
    """What :func:`clear_worker` released.

    Attributes:
        gtids: (sid index, gno) of every GTID the worker's sessions owned.
        waiters: how many waiter slots it had.
        held_write_lock: whether it was recorded as the write lock's holder.
    """

    gtids: list[tuple[int, int]]
    waiters: int
    held_write_lock: bool


def _base(page: SharedPage, worker_id: int) -> int:
    if not 0 <= worker_id < page.layout.workers:
        raise ValueError(f"worker id {worker_id} is outside 0..{page.layout.workers - 1}")
    return page.layout.worker_table + worker_id * _SIZE


def register_worker(page: SharedPage, worker_id: int, pid: int | None = None) -> int:
    """Record ``pid`` (default: this process) as the live worker ``worker_id``. Returns its incarnation.

    Raises:
        ValueError: ``worker_id`` is outside the page's worker table.
    """
    base = _base(page, worker_id)
    with page.locked():
        _pid, incarnation, _started = _SLOT.unpack_from(page.buf, base)
        _TAIL.pack_into(page.buf, base + 8, incarnation + 1, time.time())
        page.set_word(base + _PREPARED, 0)  # a replacement starts without its predecessor's statements
        page.set_word(base, os.getpid() if pid is None else pid)  # one store: read without the lock
    return int(incarnation) + 1


def worker_slot(page: SharedPage, worker_id: int) -> WorkerSlot:
    """Worker ``worker_id``'s record (pid 0 when no worker is registered there)."""
    base = _base(page, worker_id)
    _pid, incarnation, started = _SLOT.unpack_from(page.buf, base)
    return WorkerSlot(worker_id, page.word(base), incarnation, started)


def workers(page: SharedPage) -> list[WorkerSlot]:
    """The registered workers (pid != 0), by worker id."""
    out = []
    for worker_id in range(page.layout.workers):
        slot = worker_slot(page, worker_id)
        if slot.pid:
            out.append(slot)
    return out


def set_prepared(page: SharedPage, worker_id: int, count: int) -> None:
    """Publish that worker ``worker_id``'s sessions hold ``count`` prepared statements (one store; the worker is
    the word's only writer, so it calls this under its own lock or the page lock).

    Raises:
        ValueError: ``worker_id`` is outside the page's worker table.
    """
    page.set_word(_base(page, worker_id) + _PREPARED, count)


def prepared_total(page: SharedPage, exclude: int | None = None) -> int:
    """The prepared statements the live workers published (:func:`set_prepared`), ``exclude``'s left out."""
    total = 0
    for worker_id in range(page.layout.workers):
        base = _base(page, worker_id)
        if worker_id != exclude and page.word(base):
            total += page.word(base + _PREPARED)
    return total


def add_saved(page: SharedPage, worker_id: int, n: int) -> None:
    """Count ``n`` more transactions that worker ``worker_id`` saved to mysql.gtid_executed (one load and one
    store: the worker is the word's only writer, so its threads call this under one lock of the process; the
    word is neither reset at the worker's death nor at its replacement's registration, so the sum over the
    workers only grows).

    Raises:
        ValueError: ``worker_id`` is outside the page's worker table.
    """
    index = (_base(page, worker_id) + _SAVED) // 8
    words = page.words
    words[index] = words[index] + n


def saved_total(page: SharedPage) -> int:
    """The transactions every worker (live or dead) saved to mysql.gtid_executed since the page was built: the
    sum of the :func:`add_saved` words, read lock-free (each word one aligned load; a count added while the
    sum is read is in this sum or the next). One C-level pass over a strided view of the page, no Python loop:
    the commit path calls it."""
    start = (page.layout.worker_table + _SAVED) // 8
    return sum(page.words[start : start + page.layout.workers * (_SIZE // 8) : _SIZE // 8])


def is_alive(page: SharedPage, worker_id: int) -> bool:
    """Whether worker ``worker_id`` is registered and its process exists (``kill(pid, 0)``)."""
    pid = worker_slot(page, worker_id).pid
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by another user
    return True


def clear_worker(page: SharedPage, worker_id: int) -> ClearedWorker:
    """Release everything worker ``worker_id`` held in the page (it died, or exits) and wake its waiters.

    Drops its GTID ownerships (waking the sessions of other workers that wait for those GTIDs), its waiter
    slots, its write-lock holder record (waking the write lock's waiters) and its liveness record.

    Raises:
        ValueError: ``worker_id`` is outside the page's worker table.
    """
    base = _base(page, worker_id)
    with page.locked():
        gtids = owners.clear_worker_locked(page, worker_id)
        gone = waiters.clear_worker_locked(page, worker_id)
        pid, holder_worker, _conn, _since = page.write_owner()
        held = bool(pid) and holder_worker == worker_id
        if held:
            page.set_write_owner(0, 0, 0, 0.0)
        page.set_word(base + _PREPARED, 0)
        page.set_word(base, 0)
    for sid_index, gno in gtids:
        waiters.wake_matching(page, waiters.GTID, sid_index, gno)
    if held:
        waiters.wake_matching(page, waiters.WRITE_LOCK)
    if any(w.kind == waiters.ROW_HOLD for w in gone):  # its row locks (gtidkit_row_locks) are free
        waiters.wake_matching(page, waiters.ROW_WAIT)
    return ClearedWorker(gtids, len(gone), held)
