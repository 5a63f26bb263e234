"""GTID ownership across real processes: a claim blocks while a session of another worker owns the GTID and
proceeds when it is released, committed (EXECUTED), timed out (1205), or its worker is SIGKILLed and cleared."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid

import pytest

from gtidkit.engine.shared import waiters
from gtidkit.engine.shared.owners import EXECUTED, OWNED, GtidOwners
from gtidkit.engine.shared.shm import Layout, SharedPage
from gtidkit.engine.shared.workers import clear_worker, is_alive, worker_slot, workers
from gtidkit.errors import MySQLError
from tests.engine.shared import procs

SID = uuid.UUID("3e11fa47-71ca-11e1-9e33-c80aa9429562")


@pytest.fixture
def page(tmp_path):
    """A fresh shared page in ``tmp_path``."""
    p = SharedPage.create(tmp_path)
    yield p
    p.close()


def _stop(*processes) -> None:
    for p in processes:
        if p.is_alive():
            p.kill()
        p.join(10)


def _wait_for_waiter(page: SharedPage) -> None:
    deadline = time.monotonic() + 30
    while not waiters.waiters(page, waiters.GTID) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert waiters.waiters(page, waiters.GTID), "the claimant never registered as a waiter"


@pytest.mark.parametrize(
    ("commit", "expected"),
    [(False, OWNED), (True, EXECUTED)],
    ids=["owner-rolls-back-claimant-owns", "owner-commits-claimant-skips"],
)
def test_claim_blocks_until_the_owner_of_another_process_lets_go(
    tmp_path, page, commit: bool, expected: str
) -> None:
    owned, release = procs.CTX.Event(), procs.CTX.Event()
    ready, out = procs.CTX.Event(), procs.CTX.Queue()
    owner = procs.start(procs.gtid_owner, str(tmp_path), 1, 100, str(SID), 7, owned, release, commit)
    claimant = None
    try:
        assert owned.wait(60)
        table = GtidOwners(page, 0)
        o = table.owner_of(SID, 7)
        assert o is not None and (o.connection_id, o.worker_id, o.gno, o.sid, o.tag) == (100, 1, 7, SID, "")
        claimant = procs.start(procs.gtid_claimant, str(tmp_path), 2, 200, str(SID), 7, 60.0, ready, out)
        assert ready.wait(60)
        _wait_for_waiter(page)
        (w,) = waiters.waiters(page, waiters.GTID)
        assert (w.worker_id, w.connection_id, w.gno) == (2, 200, 7)
        time.sleep(0.3)
        assert out.empty()  # still blocked
        release.set()
        state, seconds, cpu = out.get(timeout=30)
        assert state == expected and seconds >= 0.3
        assert cpu < 0.1 * seconds  # asleep meanwhile: no retry loop burning CPU
        after = table.owner_of(SID, 7)
        if expected == OWNED:
            assert after is not None and (after.connection_id, after.worker_id) == (200, 2)
        else:
            assert after is None
    finally:
        release.set()
        _stop(owner, *([claimant] if claimant else []))


def test_claim_times_out_with_1205(tmp_path, page) -> None:
    owned, release = procs.CTX.Event(), procs.CTX.Event()
    owner = procs.start(procs.gtid_owner, str(tmp_path), 1, 100, str(SID), 3, owned, release, False)
    try:
        assert owned.wait(60)
        table = GtidOwners(page, 0)
        t0 = time.monotonic()
        with pytest.raises(MySQLError) as err:
            table.claim(SID, 3, 200, timeout=0.3)
        assert err.value.code == 1205 and 0.3 <= time.monotonic() - t0 < 2
        assert waiters.waiters(page) == []
        assert table.claim(SID, 4, 200, timeout=0.3) == OWNED  # another GNO: free
    finally:
        release.set()
        _stop(owner)


def test_sigkill_of_the_owners_worker_and_clear_worker(tmp_path, page) -> None:
    """The owner's worker dies with SIGKILL: its ownership stays until the supervisor clears the worker, which
    wakes the claimant blocked in this process; the claimant then owns the GTID."""
    owned, release = procs.CTX.Event(), procs.CTX.Event()
    owner = procs.start(procs.gtid_owner, str(tmp_path), 3, 300, str(SID), 9, owned, release, False)
    try:
        assert owned.wait(60)
        assert is_alive(page, 3) and worker_slot(page, 3).pid == owner.pid
        table = GtidOwners(page, 1)
        result: list[object] = []
        t = threading.Thread(target=lambda: result.append(table.claim(SID, 9, 100, timeout=60)))
        t.start()
        _wait_for_waiter(page)
        os.kill(owner.pid, signal.SIGKILL)
        owner.join(10)
        assert not is_alive(page, 3)
        time.sleep(0.2)
        assert result == []  # ownership is in the page, not in the dead process: still blocked
        t0 = time.monotonic()
        cleared = clear_worker(page, 3)  # the supervisor, on SIGCHLD
        t.join(30)
        assert result == [OWNED] and time.monotonic() - t0 < 5
        assert cleared.gtids == [(page.sid_index(SID), 9)]
        o = table.owner_of(SID, 9)
        assert o is not None and (o.connection_id, o.worker_id) == (100, 1)
        assert [w.worker_id for w in workers(page)] == []  # this process never registered; worker 3 cleared
    finally:
        # no release.set(): a multiprocessing Event whose waiter was SIGKILLed blocks set() for ever
        _stop(owner)


def test_owner_table_in_one_process(page) -> None:
    """The bookkeeping behind the cross-process tests: re-claims, releases, per-connection release, full table."""
    table = GtidOwners(page, 1)
    other = uuid.UUID("11111111-1111-1111-1111-111111111111")
    assert table.try_claim(SID, 1, 10) is None
    assert table.try_claim(SID, 1, 10) is None  # already its own
    blocker = table.try_claim(SID, 1, 11)
    assert blocker is not None and blocker.connection_id == 10
    assert table.try_claim(SID, 1, 11, tag="t1") is None  # a tagged GTID is another GTID
    assert table.try_claim(other, 1, 11) is None
    assert not table.release(SID, 1, 11)  # not its owner
    assert table.release(SID, 1, 10)
    assert table.release_connection(11) == 2
    assert table.owned() == [] and page.counter("owners_high").get() == 0
    with pytest.raises(ValueError):
        table.try_claim(SID, 0, 1)


def test_owner_table_full_is_1041(tmp_path) -> None:
    page = SharedPage.create(tmp_path, Layout(owners=2))
    table = GtidOwners(page, 1)
    table.try_claim(SID, 1, 1)
    table.try_claim(SID, 2, 2)
    with pytest.raises(MySQLError) as err:
        table.try_claim(SID, 3, 3)
    assert err.value.code == 1041
    page.close()


def test_concurrent_claims_never_give_a_gtid_two_owners(tmp_path) -> None:
    """Three processes race for the same 300 GTIDs: each is won by exactly one connection (the claim is atomic
    under the page lock), and the table lists exactly the winners."""
    page = SharedPage.create(tmp_path, Layout(owners=1024))
    go, out = procs.CTX.Event(), procs.CTX.Queue()
    ps = [procs.start(procs.gtid_racer, str(tmp_path), w, 100 * w, str(SID), 300, go, out) for w in (1, 2, 3)]
    try:
        go.set()
        results = dict(out.get(timeout=120) for _ in ps)
    finally:
        _stop(*ps)
    won = [g for w in (1, 2, 3) for g in results[w]]
    assert sorted(won) == list(range(1, 301))
    table = {o.gno: (o.worker_id, o.connection_id) for o in GtidOwners(page, 0).owned()}
    assert table == {g: (w, 100 * w) for w in (1, 2, 3) for g in results[w]}
    page.close()


def test_kill_ends_a_claim_with_1317(page) -> None:
    """KILL QUERY of a blocked claimant: its kill flag is set and its wait woken (wake_connection)."""
    owner, claimant = GtidOwners(page, 1), GtidOwners(page, 2)
    assert owner.claim(SID, 11, 10) == OWNED
    killed = threading.Event()
    errors: list[int] = []

    def claim() -> None:
        try:
            claimant.claim(SID, 11, 20, timeout=60, killed=killed.is_set)
        except MySQLError as err:
            errors.append(err.code)

    t = threading.Thread(target=claim)
    t.start()
    _wait_for_waiter(page)
    killed.set()
    t0 = time.monotonic()
    assert waiters.wake_connection(page, 20) == 1
    t.join(30)
    assert errors == [1317] and time.monotonic() - t0 < 5
    assert waiters.waiters(page) == []
    assert owner.owner_of(SID, 11).connection_id == 10  # the owner keeps it
