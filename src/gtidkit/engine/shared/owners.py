"""GTID ownership across worker processes: who owns ``uuid[:tag]:gno``, claims that block, releases that wake.

``SET gtid_next='uuid:n'`` makes the session the GTID's *owner* until it commits or rolls back; a second session
setting the same GTID waits until the owner lets go, then owns it (or, when the owner committed it, finds it
executed and skips its transaction). In one mysqld that is ``Owned_gtids`` (``sql/rpl_gtid_owned.cc``: a hash of
GTID -> owner thread id), ``Gtid_state::acquire_ownership`` and ``Gtid_state::wait_for_gtid``
(``sql/rpl_gtid_state.cc``) and the loop of ``set_gtid_next`` (``sql/rpl_gtid_execution.cc``: re-check, wait,
give up when the thread is killed). Here the table is a region of the shared page (:mod:`.shm`): one slot per owned
GTID holding (gno, sid index, worker id, connection id, since), changed under the page lock (1-2 µs per claim).

A claimant that finds the GTID owned by another connection registers as a waiter (:mod:`.waiters`) and sleeps on
its wake-up socket; :meth:`GtidOwners.release` wakes it. When the owner's worker dies, the supervisor's
:func:`~.workers.clear_worker` drops the dead worker's slots and wakes their waiters. MySQL waits without a time
limit; gtidkit's engine passes ``innodb_lock_wait_timeout`` and turns its expiry into 1205 (as its in-process
``GtidState.acquire_ownership`` does), and a KILL into 1317.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from uuid import UUID

from gtidkit.engine.shared import slots, waiters
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.engine.shared.slots import SlotTable
from gtidkit.mysql_errors import mysql_error

__all__ = ["EXECUTED", "OWNED", "GtidOwners", "Owner", "clear_worker_locked"]

#: :meth:`GtidOwners.claim`'s outcomes (the same words as engine/gtid/state.py's)
OWNED = "owned"
EXECUTED = "executed"

_SLOT = struct.Struct("=QIIQd")  # gno (0 = free), sid index, worker id, connection id, since


@dataclass(frozen=True, slots=True)
class Owner:
    """An owned GTID and its owner.

    Attributes:
        sid: the GTID's server UUID.
        tag: its tag ("" when untagged).
        gno: its GNO.
        connection_id: the owning session's connection id (server-wide).
        worker_id: the worker process that runs that session.
        since: when it took ownership (seconds since the epoch).
    """

    sid: UUID
    tag: str
    gno: int
    connection_id: int
    worker_id: int
    since: float


def _rows(table: SlotTable) -> list[tuple[int, int, int, int, int, float]]:
    """``(slot, gno, sid index, worker, connection, since)`` of every used slot (page lock held or a racy view)."""
    return [(i, *row) for i, row in table.rows(_SLOT)]


_KEY = struct.Struct("=QI")  # the slot's first 12 bytes: gno, sid index


def clear_worker_locked(page: SharedPage, worker_id: int) -> list[tuple[int, int]]:
    """Drop every GTID owned by a session of ``worker_id`` (page lock held). Returns their (sid index, gno)."""
    table = slots.table(page, "owners")
    gone = [(idx, gno, slot) for slot, gno, idx, worker, _c, _s in _rows(table) if worker == worker_id]
    for _idx, _gno, slot in gone:
        table.release_locked(slot)
    return [(idx, gno) for idx, gno, _slot in gone]


class GtidOwners:
    """The GTID-owner table as seen from one worker process.

    Args:
        page: the mapped shared page.
        worker_id: this process's worker id (recorded with each ownership; its death releases them).
    """

    def __init__(self, page: SharedPage, worker_id: int) -> None:
        self.page = page
        self.worker_id = worker_id
        self._table = slots.table(page, "owners")

    def _owner(self, row: tuple[int, int, int, int, int, float]) -> Owner:
        _slot, gno, idx, worker, conn, since = row
        sid, tag = self.page.sid_of(idx)
        return Owner(sid, tag, gno, conn, worker, since)

    def try_claim(self, sid: UUID, gno: int, connection_id: int, tag: str = "") -> Owner | None:
        """Own ``sid:tag:gno`` for ``connection_id`` unless another connection owns it.

        A connection is known by (worker id, connection id): under the supervisor connection ids are server-wide,
        but processes that open a datadir on their own (tools, tests) number their sessions each from 1.

        Returns:
            None when ``connection_id`` owns it now (or already did); else the current :class:`Owner`.

        Raises:
            MySQLError: 1041 ER_OUT_OF_RESOURCES when the owner table (or the sid map) is full.
            ValueError: ``gno`` is not in 1 .. 2**63 - 1.
        """
        if not 1 <= gno < 1 << 63:
            raise ValueError(f"GNO {gno} is outside 1 .. 2**63 - 1")
        page = self.page
        table = self._table
        idx = page.sid_index(sid, tag)
        with page.locked():
            found = table.find(_KEY.pack(gno, idx))
            if found >= 0:
                _g, _i, worker, conn, since = _SLOT.unpack_from(page.buf, table.offset(found))
                if conn == connection_id and worker == self.worker_id:
                    return None
                return Owner(sid, tag, gno, conn, worker, since)
            slot = table.claim_locked()  # a free slot (gno 0), else a new one at the top
            _SLOT.pack_into(
                page.buf, table.offset(slot), gno, idx, self.worker_id, connection_id, time.time()
            )
        return None

    def claim(
        self,
        sid: UUID,
        gno: int,
        connection_id: int,
        tag: str = "",
        *,
        timeout: float | None = None,
        killed: Callable[[], bool] | None = None,
        executed: Callable[[], bool] | None = None,
    ) -> str:
        """Own ``sid:tag:gno`` for ``connection_id``, waiting while another connection (of any worker) owns it.

        Args:
            sid: the GTID's server UUID.
            gno: its GNO (1 .. 2**63 - 1).
            connection_id: the claiming session.
            tag: its tag ("" when untagged).
            timeout: seconds to wait at most (None: no limit, as MySQL's ``set_gtid_next``).
            killed: checked after every wake-up; True ends the wait with 1317 (``KILL QUERY`` wakes the waiter
                through :func:`~.waiters.wake_connection`).
            executed: checked after each attempt (also after a successful one: the previous owner may have
                committed it just before releasing it, and a process sees another's commit only by reading it);
                True means the GTID was committed: the claim returns :data:`EXECUTED` without owning it (the
                session skips its transaction, as in MySQL). It may read SQLite: it runs outside the page lock.

        Returns:
            :data:`OWNED` or :data:`EXECUTED`.

        Raises:
            MySQLError: 1205 ER_LOCK_WAIT_TIMEOUT when ``timeout`` passes; 1317 ER_QUERY_INTERRUPTED when
                ``killed()``; 1041 when the table is full.
        """
        outcome = self._attempt(sid, gno, connection_id, tag, executed)
        if outcome is not None:
            return outcome
        deadline = None if timeout is None else time.monotonic() + timeout
        idx = self.page.sid_index(sid, tag)
        with waiters.waiting(
            self.page,
            waiters.GTID,
            worker_id=self.worker_id,
            connection_id=connection_id,
            sid_index=idx,
            gno=gno,
        ) as ws:
            while True:  # registered before this check: a release from here on queues a wake-up
                outcome = self._attempt(sid, gno, connection_id, tag, executed)
                if outcome is not None:
                    return outcome
                if killed is not None and killed():
                    raise mysql_error(1317)
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise mysql_error(1205)
                ws.wait(remaining)

    def _attempt(
        self, sid: UUID, gno: int, connection_id: int, tag: str, executed: Callable[[], bool] | None
    ) -> str | None:
        """One claim attempt: :data:`OWNED`, :data:`EXECUTED` (not owned: a claim it won is given back), or None
        while another connection owns the GTID and it is not executed.

        The executed check follows the claim: once this connection owns the GTID nobody else can commit it, so
        a GTID found not executed then stays so; checked before the claim, a commit between check and claim
        would go unseen (the owner commits, then releases, and the claim wins)."""
        won = self.try_claim(sid, gno, connection_id, tag) is None
        if executed is not None and executed():
            if won:
                self.release(sid, gno, connection_id, tag)
            return EXECUTED
        return OWNED if won else None

    def release(self, sid: UUID, gno: int, connection_id: int, tag: str = "") -> bool:
        """Drop ``connection_id``'s ownership of the GTID (commit or rollback: ``Gtid_state::update_on_commit`` /
        ``update_on_rollback``) and wake the connections waiting for it.

        Returns:
            False when ``connection_id`` did not own it (nothing changed).
        """
        page = self.page
        table = self._table
        idx = page.sid_index(sid, tag)
        with page.locked():
            slot = table.find(_KEY.pack(gno, idx))
            if slot < 0 or _SLOT.unpack_from(page.buf, table.offset(slot))[2:4] != (
                self.worker_id,
                connection_id,
            ):
                return False
            table.release_locked(slot)
        waiters.wake_matching(page, waiters.GTID, idx, gno)
        return True

    def release_connection(self, connection_id: int) -> int:
        """Drop every GTID ``connection_id`` owns (its session ends) and wake their waiters. Returns how many."""
        page = self.page
        table = self._table
        with page.locked():
            mine = [
                (slot, i, g)
                for slot, g, i, worker, conn, _s in _rows(table)
                if conn == connection_id and worker == self.worker_id
            ]
            for slot, _i, _g in mine:
                table.release_locked(slot)
        for _slot, i, g in mine:
            waiters.wake_matching(page, waiters.GTID, i, g)
        return len(mine)

    def owner_of(self, sid: UUID, gno: int, tag: str = "") -> Owner | None:
        """Who owns ``sid:tag:gno`` (``Owned_gtids::get_owner``), or None."""
        page = self.page
        table = self._table
        idx = page.sid_index(sid, tag)
        with page.locked():
            slot = table.find(_KEY.pack(gno, idx))
            if slot < 0:
                return None
            row = _SLOT.unpack_from(page.buf, table.offset(slot))
        return self._owner((slot, *row))

    def owned(self) -> list[Owner]:
        """Every owned GTID, in slot order (``@@GLOBAL.gtid_owned``'s content across workers)."""
        with self.page.locked():
            rows = _rows(self._table)
        return [self._owner(row) for row in rows]
