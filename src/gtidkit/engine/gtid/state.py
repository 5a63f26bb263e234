"""The server's GTID state: executed, purged and owned GTIDs, with ownership waits (WL#6559, WL#7592).

Source: MySQL ``sql/rpl_gtid_state.cc`` (``Gtid_state::acquire_ownership``, ``generate_automatic_gtid``,
``update_on_commit``, ``update_on_rollback``), ``sql/rpl_gtid_execution.cc`` (``set_gtid_next``: an owned GTID
makes the setter wait until the owner commits or rolls back), ../shared/research/formats.md §5.5.

Relations kept here (formats.md §5.5):

* ``gtid_purged ⊆ gtid_executed``;
* ``GTID_SUBTRACT(gtid_executed, gtid_purged)`` = the GTIDs present in the binary log files;
* with the binary log off, ``gtid_purged == gtid_executed``;
* a new AUTOMATIC GTID takes the smallest GNO of ``(server_uuid, tag)`` not in ``executed ∪ owned`` (gaps fill).

All methods are thread-safe: one lock, one condition variable notified whenever ``executed`` grows or an
ownership is released, so ``SET gtid_next`` and ``WAIT_FOR_EXECUTED_GTID_SET`` can wait without polling.

Several worker processes on one datadir (issue 21): :attr:`GtidState.shared` (a
:class:`~gtidkit.engine.gtid.cross_process.SharedGtids`) takes ownership and the executed-set waits across
processes, and :attr:`GtidState.refresh` makes every read of ``gtid_executed`` / ``gtid_purged`` first catch up
with what the other processes committed (a counter read when they committed nothing), so a statement that reads
GTID state (a SELECT of ``@@GLOBAL.gtid_executed``, SHOW, a session tracker, a dump thread) sees every
acknowledged commit while the others pay nothing (docs/design/multi_worker.md §9 "Step 6").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from uuid import UUID

from gtidkit.gtid import Gtid, GtidSet
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.gtid.cross_process import SharedGtids

OWNED = "owned"
EXECUTED = "executed"


class GtidState:
    """Executed / purged / owned GTIDs of one server.

    ``executed`` and ``purged`` are private mutable :class:`GtidSet` objects updated in place on the commit path;
    readers get copies through :meth:`executed` / :meth:`purged`.
    """

    def __init__(self, server_uuid: UUID) -> None:
        self.server_uuid = server_uuid
        self._executed = GtidSet()
        self._purged = GtidSet()
        # owner key (sid.int, tag, gno) -> (gtid, session id): tuples of ints hash in C, a Gtid's UUID in Python
        self._owned: dict[tuple[int, str, int], tuple[Gtid, int]] = {}
        self._waiters = 0  # threads waiting on ``changed``: commits skip notify_all when nobody waits
        self._gtid_waits = 0  # WAIT_FOR_EXECUTED_GTID_SET calls in progress (Gtid_state::get_gtid_wait_count)
        self._anonymous_owners = 0
        self._lock = threading.Lock()
        self.changed = threading.Condition(self._lock)
        #: ownership and executed-set waits across the worker processes of one server (None: one process)
        self.shared: SharedGtids | None = None
        #: ``refresh(force)``: catch up with the other processes' commits before a read (None: one process);
        #: ``force`` reads the commit log even when the shared page's counter says nothing moved
        self.refresh: Callable[[bool], object] | None = None

    # -- reading -------------------------------------------------------------------------------------------
    def executed(self) -> GtidSet:
        """A copy of ``@@GLOBAL.gtid_executed`` (with other processes: after catching up with their commits)."""
        if self.refresh is not None:
            self.refresh(False)
        with self._lock:
            return GtidSet() | self._executed

    def purged(self) -> GtidSet:
        """A copy of ``@@GLOBAL.gtid_purged`` (with other processes: after catching up with their commits)."""
        if self.refresh is not None:
            self.refresh(False)
        with self._lock:
            return GtidSet() | self._purged

    def owned(self, session_id: int | None = None) -> GtidSet:
        """GTIDs owned by in-flight sessions (all sessions of every worker process, or only ``session_id``)."""
        if self.shared is not None:
            return GtidSet.from_gtids(
                g for g, s in self.shared.owned() if session_id is None or s == session_id
            )
        with self._lock:
            return GtidSet.from_gtids(
                g for g, s in self._owned.values() if session_id is None or s == session_id
            )

    def owned_text(self) -> str:
        """``@@GLOBAL.gtid_owned``: ``uuid:n#session_id`` entries sorted by GTID, joined by ``,\n`` (the owners of
        every worker process when there are several)."""
        if self.shared is not None:
            entries = self.shared.owned()
        else:
            with self._lock:
                entries = list(self._owned.values())
        owned = sorted(entries, key=lambda kv: (kv[0].sid.bytes, kv[0].tag, kv[0].gno))
        return ",\n".join(f"{g}#{s}" for g, s in owned)

    def gtid_wait_count(self) -> int:
        """WAIT_FOR_EXECUTED_GTID_SET calls waiting now (``Gtid_state::get_gtid_wait_count``)."""
        return self._gtid_waits

    def anonymous_count(self) -> int:
        """Sessions owning ANONYMOUS (``Gtid_state::get_anonymous_ownership_count``)."""
        return self._anonymous_owners

    def acquire_anonymous(self) -> None:
        """One more session owns ANONYMOUS (``acquire_anonymous_ownership``)."""
        with self._lock:
            self._anonymous_owners += 1

    def release_anonymous(self) -> None:
        """One session less owns ANONYMOUS (``release_anonymous_ownership``)."""
        with self._lock:
            self._anonymous_owners -= 1

    def owner_of(self, gtid: Gtid) -> int | None:
        """Session id owning ``gtid``, or None."""
        with self._lock:
            entry = self._owned.get(_key(gtid))
            return None if entry is None else entry[1]

    def is_executed(self, gtid: Gtid) -> bool:
        """True when ``gtid`` is in ``gtid_executed``."""
        with self._lock:
            return gtid in self._executed

    # -- loading and resetting -------------------------------------------------------------------------------
    def load(self, executed: GtidSet, purged: GtidSet) -> None:
        """Install the state computed at start-up (recovery) or by RESET MASTER."""
        with self._lock:
            self._executed = GtidSet() | executed
            self._purged = GtidSet() | purged
            self.changed.notify_all()
        if self.shared is not None:
            self.shared.wake_executed()

    def add_purged(self, gtids: GtidSet, *, also_executed: bool) -> None:
        """Add ``gtids`` to ``gtid_purged`` (and to ``gtid_executed`` when ``also_executed``)."""
        with self._lock:
            self._purged.union_in_place(gtids)
            if also_executed:
                self._executed.union_in_place(gtids)
            self.changed.notify_all()
        if also_executed and self.shared is not None:
            self.shared.wake_executed()

    def add_executed(self, gtids: GtidSet) -> None:
        """Add ``gtids`` to ``gtid_executed``: transactions another worker process of the same server committed
        (:mod:`gtidkit.engine.follow`), wakes WAIT_FOR_EXECUTED_GTID_SET / ownership waiters."""
        with self._lock:
            self._executed.union_in_place(gtids)
            if self._waiters:
                self.changed.notify_all()

    def set_purged(self, purged: GtidSet) -> None:
        """Replace ``gtid_purged`` (PURGE BINARY LOGS recomputes it from the new oldest file)."""
        with self._lock:
            self._purged = GtidSet() | purged

    # -- ownership -----------------------------------------------------------------------------------------
    def acquire_ownership(
        self,
        gtid: Gtid,
        session_id: int,
        timeout: float | None = None,
        killed: Callable[[], bool] | None = None,
    ) -> str:
        """Take ``gtid`` for ``session_id`` (``SET gtid_next='uuid:n'``).

        Waits while another session (of any worker process) owns it. Returns :data:`EXECUTED` when the GTID is (or
        becomes) executed — the session must then skip its next transaction, as MySQL does — else :data:`OWNED`.

        Args:
            gtid: the GTID.
            session_id: the claiming session's connection id.
            timeout: seconds to wait at most (None: no limit).
            killed: across processes, True ends the wait with 1317 (KILL QUERY wakes it).

        Raises:
            MySQLError: 1205 ER_LOCK_WAIT_TIMEOUT when ``timeout`` seconds pass while another session owns it; 1317
                when ``killed()``; 1041 when the shared owner table is full.
        """
        key = _key(gtid)
        if self.shared is not None:
            with self._lock:
                if gtid in self._executed:
                    return EXECUTED
            outcome = self.shared.claim(
                gtid, session_id, timeout=timeout, killed=killed, executed=lambda: self._caught_up_has(gtid)
            )
            if outcome == OWNED:
                with self._lock:
                    self._owned[key] = (gtid, session_id)
            return outcome
        deadline = None
        with self._lock:
            while True:
                if gtid in self._executed:
                    return EXECUTED
                entry = self._owned.get(key)
                if entry is None or entry[1] == session_id:
                    self._owned[key] = (gtid, session_id)
                    return OWNED
                if deadline is None and timeout is not None:
                    deadline = time.monotonic() + timeout
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise mysql_error(1205)
                self.wait_changed(remaining)

    def _caught_up_has(self, gtid: Gtid) -> bool:
        """Whether ``gtid`` is executed once the other processes' commits are read (a forced catch-up unless this
        process already knows it: engine/gtid/cross_process.py says why the counter is not trusted here)."""
        with self._lock:
            if gtid in self._executed:
                return True
        if self.refresh is not None:
            self.refresh(True)
        with self._lock:
            return gtid in self._executed

    def generate_automatic(self, session_id: int, tag: str = "") -> Gtid:
        """Own the next free GTID of ``(server_uuid, tag)`` (``Gtid_state::generate_automatic_gtid``).

        The GNO is the smallest one >= 1 in neither ``executed`` nor ``owned`` (by a session of any worker
        process: it is claimed in the shared owner table too), so gaps are filled.

        Raises:
            MySQLError: 1775 ER_GNO_EXHAUSTED when no GNO is left; 1041 when the shared owner table is full.
        """
        shared = self.shared
        with self._lock:
            gno = self._executed.next_free_gno(self.server_uuid, tag)
            while True:
                gtid = Gtid(self.server_uuid, gno, tag)
                key = _key(gtid)
                if key not in self._owned and (shared is None or shared.try_claim(gtid, session_id)):
                    break
                gno = self._executed.next_free_gno(self.server_uuid, tag, gno + 1)
            self._owned[key] = (gtid, session_id)
            return gtid

    def release(self, gtid: Gtid) -> None:
        """Drop ownership without executing (rollback: ``update_on_rollback``); claimants in every process wake."""
        with self._lock:
            entry = self._owned.pop(_key(gtid), None)
            if self._waiters:
                self.changed.notify_all()
        if entry is not None and self.shared is not None:
            self.shared.release(gtid, entry[1])

    def commit(self, gtid: Gtid, *, lost: bool = False) -> None:
        """Add ``gtid`` to ``executed`` (and ``purged`` when ``lost``) and drop its ownership (``update_on_commit``).

        ``lost`` is for GTIDs that never reach the binary log although it is on: binlog off, or a replica
        applier with ``log_replica_updates=OFF`` (formats.md §5.2).

        With other processes the ownership is released in the shared table after ``executed`` grew (a claimant
        woken there catches up and finds the GTID executed), then their WAIT_FOR_EXECUTED_GTID_SET waiters wake.
        """
        sid = gtid.sid.bytes
        with self._lock:
            self._executed.add_in_place(sid, gtid.tag, gtid.gno)
            if lost:
                self._purged.add_in_place(sid, gtid.tag, gtid.gno)
            entry = self._owned.pop(_key(gtid), None)
            if self._waiters:
                self.changed.notify_all()
        shared = self.shared
        if shared is not None:
            if entry is not None:
                shared.release(gtid, entry[1])
            shared.wake_executed()

    def wait_changed(self, timeout: float | None) -> None:
        """Wait on ``changed`` (caller holds ``changed``), counted so commits notify only when someone waits.

        Wait through this method, never ``changed.wait`` directly: a bare wait is not counted and misses wake-ups.
        """
        self._waiters += 1
        try:
            self.changed.wait(timeout)
        finally:
            self._waiters -= 1

    def wait_for_executed(
        self,
        gtids: GtidSet,
        timeout: float | None,
        *,
        interrupted: Callable[[], bool] | None = None,
        session_id: int = 0,
    ) -> bool | None:
        """Block until ``gtids ⊆ executed`` (True) or ``timeout`` seconds pass (False); None = forever.

        Woken by :meth:`commit`, :meth:`load` and :meth:`add_purged` (no polling: a timed wait is cut into waits of at
        most a second only as a safety net). ``interrupted`` is checked at each wake-up (KILL QUERY calls :meth:`wake_waiters`);
        when it answers True the wait ends and None is returned (``Gtid_state::wait_for_gtid_set`` seeing
        ``thd->killed``). With other worker processes the wait sleeps on its wake-up socket, woken by a commit in
        any of them (:meth:`SharedGtids.wait_executed`); ``session_id`` is the waiter's connection id (for KILL).

        Raises:
            MySQLError: 1041 when the shared waiter table is full.
        """
        shared = self.shared
        if shared is not None:
            with self._lock:
                self._gtid_waits += 1
            try:
                return shared.wait_executed(
                    lambda: self._caught_up_covers(gtids),
                    timeout,
                    session_id=session_id,
                    interrupted=interrupted,
                )
            finally:
                with self._lock:
                    self._gtid_waits -= 1
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            self._gtid_waits += 1
            try:
                while not gtids <= self._executed:
                    if interrupted is not None and interrupted():
                        return None
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        return False
                    self.wait_changed(remaining if remaining is None else min(remaining, 1.0))
                return True
            finally:
                self._gtid_waits -= 1

    def _caught_up_covers(self, gtids: GtidSet) -> bool:
        """Whether ``gtids ⊆ executed`` once the other processes' commits are read (a forced catch-up unless this
        process already has them)."""
        with self._lock:
            if gtids <= self._executed:
                return True
        if self.refresh is not None:
            self.refresh(True)
        with self._lock:
            return gtids <= self._executed

    def wake_waiters(self) -> None:
        """Wake every waiter so it re-checks its condition (KILL QUERY of a session waiting here)."""
        with self._lock:
            self.changed.notify_all()


def _key(gtid: Gtid) -> tuple[int, str, int]:
    """The owned-GTID dictionary key of ``gtid``."""
    return (gtid.sid.int, gtid.tag, gtid.gno)
