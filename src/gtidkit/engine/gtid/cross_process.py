"""The GTID state's cross-process half: ownership and WAIT_FOR_EXECUTED_GTID_SET across worker processes.

Issue 21 step 6, docs/design/multi_worker.md §5.2 (rows "GTID ownership" and "gtid_executed, trackers,
WAIT_FOR_EXECUTED_GTID_SET"). When several worker processes serve one datadir, :class:`~.state.GtidState` hands
the parts of its job that other processes must see to a :class:`SharedGtids` built on the shared page:

* **Ownership** (``SET gtid_next='uuid:n'``, and the automatic GTID a committer takes): the owner table of
  :mod:`gtidkit.engine.shared.owners`, where a claim blocks while a session of any worker owns the GTID and ends
  when the owner commits (the claimant finds it executed and skips its transaction), rolls back, disconnects or its
  worker dies. MySQL: ``Owned_gtids`` (``sql/rpl_gtid_owned.cc``), ``Gtid_state::acquire_ownership`` /
  ``wait_for_gtid`` (``sql/rpl_gtid_state.cc``), the loop of ``set_gtid_next`` (``sql/rpl_gtid_execution.cc``).
* **WAIT_FOR_EXECUTED_GTID_SET**: the waiting session registers an :data:`~gtidkit.engine.shared.waiters.EXECUTED`
  waiter with its wake-up socket; every commit that adds to gtid_executed wakes those waiters with one datagram
  each once its GTID is in its process's state (a counter read, ~0.1 µs, when nobody waits), and each woken waiter
  catches up with the commit log and re-checks its set. MySQL: ``Gtid_state::wait_for_gtid_set`` sleeping on
  ``update_gtids_impl``'s broadcast.

A woken process learns what the others committed only by reading the commit log (:mod:`gtidkit.engine.follow`).
Every committer moves the shared page's ``committed`` counter before it releases a GTID in the owner table (the
sync-stage path releases the write lock, which moves it, before its GTID enters gtid_executed; a commit without a
sync stage, or one keeping the lock to rotate, moves it first with ``Server.publish_commit``). Even so, a re-check
gated on that counter let a GTID run twice (3 of 300 GTIDs replayed by 4 sessions of 2 workers, binary log on;
the cause is not found yet), so the re-check of a claim that is not already known executed, and of a woken
WAIT_FOR_EXECUTED_GTID_SET, reads the commit log whatever the counter says (``GtidState.refresh(True)``: ~150 µs
per ``SET gtid_next`` of a new GTID with several workers; 0 duplicates in 3 x 300 then).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from gtidkit.engine.shared import waiters
from gtidkit.engine.shared.owners import GtidOwners
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.gtid import Gtid

__all__ = ["SAFETY_TICK", "SharedGtids"]

#: seconds a WAIT_FOR_EXECUTED_GTID_SET waiter sleeps at most between re-checks when no wake-up comes (a committer
#: SIGKILLed between its commit and its wake-up; never the normal path, which is the datagram)
SAFETY_TICK = 1.0


class SharedGtids:
    """GTID ownership and executed-set waits of one worker process, shared with the server's other processes.

    Args:
        page: the mapped shared page.
        worker_id: this process's worker id (recorded with each ownership).
    """

    def __init__(self, page: SharedPage, worker_id: int) -> None:
        self.page = page
        self.worker_id = worker_id
        self.owners = GtidOwners(page, worker_id)
        self._executed_waiters = page.counter("executed_waiters")

    # -- ownership -------------------------------------------------------------------------------------------
    def claim(
        self,
        gtid: Gtid,
        session_id: int,
        *,
        timeout: float | None,
        killed: Callable[[], bool] | None,
        executed: Callable[[], bool],
    ) -> str:
        """Own ``gtid`` for ``session_id``, waiting while a session of any worker owns it.

        Args:
            gtid: the GTID (``SET gtid_next``'s).
            session_id: the claiming session's connection id.
            timeout: seconds to wait at most (None: no limit).
            killed: True ends the wait with 1317 (KILL QUERY wakes it).
            executed: whether ``gtid`` is executed, after a catch-up (checked after each attempt).

        Returns:
            ``"owned"`` or ``"executed"`` (:data:`gtidkit.engine.shared.owners.OWNED` / ``EXECUTED``).

        Raises:
            MySQLError: 1205 after ``timeout``, 1317 when killed, 1041 when the owner table is full.
        """
        return self.owners.claim(
            gtid.sid, gtid.gno, session_id, gtid.tag, timeout=timeout, killed=killed, executed=executed
        )

    def try_claim(self, gtid: Gtid, session_id: int) -> bool:
        """Own ``gtid`` for ``session_id`` unless a session of any worker owns it (an automatic GTID's candidate
        GNO, under the write lock). Returns whether ``session_id`` owns it now.

        Raises:
            MySQLError: 1041 when the owner table is full.
        """
        return self.owners.try_claim(gtid.sid, gtid.gno, session_id, gtid.tag) is None

    def release(self, gtid: Gtid, session_id: int) -> None:
        """``session_id`` lets ``gtid`` go (committed or rolled back); its claimants in every worker wake."""
        self.owners.release(gtid.sid, gtid.gno, session_id, gtid.tag)

    def owned(self) -> list[tuple[Gtid, int]]:
        """Every owned GTID of every worker with its owner's connection id (``@@GLOBAL.gtid_owned``)."""
        return [(Gtid(o.sid, o.gno, o.tag), o.connection_id) for o in self.owners.owned()]

    # -- gtid_executed waits --------------------------------------------------------------------------------
    def wake_executed(self) -> int:
        """gtid_executed grew in this process (a commit, SET gtid_purged, RESET): wake every
        WAIT_FOR_EXECUTED_GTID_SET waiter of every worker so it re-checks. One counter read when none waits.

        Returns:
            How many wake-ups were sent.
        """
        if not self._executed_waiters.get():
            return 0
        return waiters.wake_matching(self.page, waiters.EXECUTED)

    def wait_executed(
        self,
        reached: Callable[[], bool],
        timeout: float | None,
        *,
        session_id: int,
        interrupted: Callable[[], bool] | None = None,
    ) -> bool | None:
        """Block until ``reached()`` (True), ``timeout`` seconds pass (False; None = no limit) or ``interrupted()``
        (None: KILL QUERY, which wakes the waiter through :func:`~gtidkit.engine.shared.waiters.wake_connection`).

        Args:
            reached: catches up with the other processes and answers whether the awaited set is executed.
            timeout: seconds.
            session_id: the waiting session's connection id (KILL QUERY finds the waiter by it).
            interrupted: the session's kill check.

        Raises:
            MySQLError: 1041 when the waiter table is full.
        """
        if reached():
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        with waiters.waiting(
            self.page, waiters.EXECUTED, worker_id=self.worker_id, connection_id=session_id
        ) as ws:
            while True:  # registered before this check: a commit from here on queues a wake-up
                if reached():
                    return True
                if interrupted is not None and interrupted():
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                ws.wait(SAFETY_TICK if remaining is None else min(remaining, SAFETY_TICK))
