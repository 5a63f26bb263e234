"""The engine write lock across real processes: mutual exclusion, 1205 on timeout, KILL (1317), a SIGKILLed holder,
and the waiter table that INNODB_TRX / data_lock_waits will read."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from gtidkit.engine.shared import control, waiters
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.engine.shared.workers import clear_worker
from gtidkit.engine.shared.write_lock import SharedWriteLock
from gtidkit.errors import MySQLError
from tests.engine.shared import procs


@pytest.fixture
def page(tmp_path):
    """A fresh shared page in ``tmp_path`` (the test's datadir)."""
    p = SharedPage.create(tmp_path)
    yield p
    p.close()


def _stop(*processes) -> None:
    for p in processes:
        if p.is_alive():
            p.kill()
        p.join(10)


@pytest.mark.parametrize(
    ("contenders", "threads"),
    [(2, 1), (3, 1), (2, 3)],
    ids=["2-processes", "3-processes", "2-processes-of-3-sessions"],
)
def test_processes_exclude_each_other(tmp_path, page, contenders: int, threads: int) -> None:
    """Each session increments a file's number under the lock, slowly; any overlap would lose an update or find
    the other's ``inside`` marker. Sessions of one process (threads, each with its own handle) exclude each other
    too."""
    shared = tmp_path / "counter.txt"
    shared.write_text("0")
    go, out = procs.CTX.Event(), procs.CTX.Queue()
    rounds = 150 // threads
    ps = [
        procs.start(procs.lock_contender, str(tmp_path), w, 100 * w, rounds, str(shared), go, out, threads)
        for w in range(1, contenders + 1)
    ]
    try:
        go.set()
        results = [out.get(timeout=120) for _ in ps]
    finally:
        _stop(*ps)
    assert sorted(r[1] for r in results) == list(range(1, contenders + 1))
    assert [r[2] for r in results] == [0] * contenders  # no two holders at once
    assert int(shared.read_text()) == rounds * contenders * threads  # no lost update
    assert page.counter("write_lock_waiters").get() == 0  # every waiter slot given back
    assert page.counter("waiters_high").get() == 0


def test_timeout_is_1205(tmp_path, page) -> None:
    acquired, release = procs.CTX.Event(), procs.CTX.Event()
    holder = procs.start(procs.lock_holder, str(tmp_path), 1, 10, acquired, release)
    try:
        assert acquired.wait(60)
        lock = SharedWriteLock(page, tmp_path, 2)
        t0 = time.monotonic()
        with pytest.raises(MySQLError) as err:
            lock.acquire(20, timeout=0.3)
        waited = time.monotonic() - t0
        assert (err.value.code, err.value.sqlstate, err.value.message) == (
            1205,
            "HY000",
            "Lock wait timeout exceeded; try restarting transaction",
        )
        assert 0.3 <= waited < 2.0
        assert waiters.waiters(page) == []  # the timed-out waiter left the table
        release.set()
        lock.acquire(20, timeout=30)  # released by its holder: taken
        assert lock.snapshot()[0] == 20
        lock.release()
        lock.close()
    finally:
        release.set()
        _stop(holder)


def test_release_wakes_a_waiter_of_another_process(tmp_path, page) -> None:
    """The waiter sleeps on its socket (no timer): the release's datagram hands the lock over."""
    lock = SharedWriteLock(page, tmp_path, 1)
    lock.acquire(10, timeout=5)
    ready, out = procs.CTX.Event(), procs.CTX.Queue()
    waiter = procs.start(procs.lock_waiter, str(tmp_path), 2, 20, 60.0, ready, out)
    try:
        assert ready.wait(60)
        deadline = time.monotonic() + 30
        while not waiters.waiters(page, waiters.WRITE_LOCK) and time.monotonic() < deadline:
            time.sleep(0.01)
        (w,) = waiters.waiters(page, waiters.WRITE_LOCK)
        assert (w.worker_id, w.connection_id, w.pid) == (2, 20, waiter.pid)
        holder, _since, waiting = lock.snapshot()
        assert holder == 10 and list(waiting) == [20]
        time.sleep(0.5)  # the waiter sleeps meanwhile
        lock.release()
        status, waited, cpu = out.get(timeout=30)
        assert status == "ok" and waited >= 0.5
        assert cpu < 0.1 * waited  # asleep meanwhile: no retry loop burning CPU
    finally:
        _stop(waiter)
        lock.close()


def test_sigkill_of_the_holder_releases_it(tmp_path, page) -> None:
    """A holder killed with SIGKILL never releases: the kernel drops its flock and the waiter, watching the holder's
    pidfd, proceeds at once (well before its timeout); no supervisor involved."""
    acquired, release = procs.CTX.Event(), procs.CTX.Event()
    holder = procs.start(procs.lock_holder, str(tmp_path), 1, 10, acquired, release)
    try:
        assert acquired.wait(60)
        assert page.write_owner()[:3] == (holder.pid, 1, 10)
        lock = SharedWriteLock(page, tmp_path, 2)
        got: list[float] = []

        def wait() -> None:
            lock.acquire(20, timeout=60)
            got.append(time.monotonic())

        t = threading.Thread(target=wait)
        t.start()
        deadline = time.monotonic() + 30
        while not waiters.waiters(page) and time.monotonic() < deadline:
            time.sleep(0.01)
        killed_at = time.monotonic()
        os.kill(holder.pid, signal.SIGKILL)
        t.join(30)
        assert got, "the waiter did not get the lock"
        assert got[0] - killed_at < 5
        assert page.write_owner()[:3] == (os.getpid(), 2, 20)
        lock.release()
        lock.close()
    finally:
        _stop(holder)


def test_kill_query_interrupts_the_wait_with_1317(tmp_path, page) -> None:
    """KILL QUERY reaches the waiter's worker on its control socket; the worker sets the session's kill flag and
    wakes its wait, which ends with 1317 at once."""
    lock = SharedWriteLock(page, tmp_path, 1)
    lock.acquire(10, timeout=5)
    ready, out = procs.CTX.Event(), procs.CTX.Queue()
    waiter = procs.start(procs.lock_waiter, str(tmp_path), 2, 20, 60.0, ready, out)
    me = control.ControlSocket(page.token, 0)
    try:
        assert ready.wait(60)
        deadline = time.monotonic() + 30
        while not waiters.waiters(page) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert me.send(2, control.OP_KILL_QUERY, b"20")
        result = out.get(timeout=30)
        assert result[:2] == ("error", 1317)
        assert result[2] < 30
        assert waiters.waiters(page) == []
    finally:
        me.close()
        _stop(waiter)
        lock.release()
        lock.close()


def test_clear_worker_drops_a_dead_waiters_slot(tmp_path, page) -> None:
    """A waiter SIGKILLed while waiting leaves its slot; the supervisor's clear_worker gives it back."""
    lock = SharedWriteLock(page, tmp_path, 1)
    lock.acquire(10, timeout=5)
    ready, out = procs.CTX.Event(), procs.CTX.Queue()
    waiter = procs.start(procs.lock_waiter, str(tmp_path), 3, 30, 60.0, ready, out)
    try:
        assert ready.wait(60)
        deadline = time.monotonic() + 30
        while not waiters.waiters(page) and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(waiter.pid, signal.SIGKILL)
        waiter.join(10)
        assert [w.connection_id for w in waiters.waiters(page)] == [30]
        cleared = clear_worker(page, 3)
        assert (cleared.waiters, cleared.held_write_lock) == (1, False)
        assert waiters.waiters(page) == [] and page.counter("write_lock_waiters").get() == 0
    finally:
        _stop(waiter)
        lock.release()
        lock.close()


def test_one_handle_per_contender(tmp_path, page) -> None:
    lock = SharedWriteLock(page, tmp_path, 1)
    with pytest.raises(RuntimeError):
        lock.release()
    assert lock.try_acquire(1)
    with pytest.raises(RuntimeError):
        lock.try_acquire(1)
    other = SharedWriteLock(page, tmp_path, 1)  # another session of the same process: excluded too
    assert not other.try_acquire(2)
    lock.close()  # releases
    assert other.try_acquire(2)
    other.close()


def test_sessions_of_one_process_hand_over_without_a_limit(tmp_path, page) -> None:
    """timeout=None waits as long as it takes; the holder is a thread of this process (no pidfd to watch)."""
    holder = SharedWriteLock(page, tmp_path, 1)
    waiter = SharedWriteLock(page, tmp_path, 1)
    holder.acquire(1, timeout=5)
    got: list[float] = []
    t = threading.Thread(target=lambda: (waiter.acquire(2, timeout=None), got.append(time.monotonic())))
    t.start()
    deadline = time.monotonic() + 30
    while not waiters.waiters(page) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    assert got == []
    released = time.monotonic()
    holder.release()
    t.join(30)
    assert got and got[0] - released < 5
    assert holder.snapshot()[0] == 2
    waiter.close()
    holder.close()


def test_release_clears_only_its_own_owner_record(tmp_path) -> None:
    """release() clears the owner record without the page lock: its own record only (pid and connection)."""
    page = SharedPage.create(tmp_path)
    lock = SharedWriteLock(page, tmp_path, 1)
    try:
        lock.acquire(10, timeout=5)
        assert page.write_owner()[:3] == (os.getpid(), 1, 10)
        lock.release()
        assert page.write_owner_pid() == 0 and lock.snapshot()[0] is None
        lock.acquire(11, timeout=5)
        with page.locked():  # a record that is not this handle's (another connection of the same pid)
            page.set_write_owner(os.getpid(), 1, 99, 1.0)
        lock.release()
        assert page.write_owner()[:3] == (os.getpid(), 1, 99)
    finally:
        lock.close()
        page.close()
