"""The control service (engine/shared/service.py) between real worker processes: handlers registered by op code,
``ask_peers`` gathering every other worker's answer, a failing or missing handler answered empty (never a hang), a
dead or stopped worker left out after the timeout, and an unstarted service asking no one (one process)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from gtidkit.engine.shared.service import ControlService
from gtidkit.engine.shared.shm import SharedPage
from tests.engine.shared import procs


@pytest.fixture
def page(tmp_path):
    """A fresh shared page in ``tmp_path`` (its token names the control sockets)."""
    p = SharedPage.create(tmp_path)
    yield p
    p.close()


@pytest.fixture
def peers(tmp_path, page):
    """Workers 1 and 2 of a three-worker server, each in its own process; this test process is worker 0."""
    ready = [procs.CTX.Event() for _ in range(2)]
    ps = [procs.start(procs.service_worker, str(tmp_path), w, 3, ready[w - 1]) for w in (1, 2)]
    for r in ready:
        assert r.wait(60)
    yield ps
    for p in ps:
        if p.is_alive():
            os.kill(p.pid, signal.SIGCONT)
            p.kill()
        p.join(10)


@pytest.fixture
def me(page):
    """Worker 0's service, started."""
    svc = ControlService()
    svc.start(page.token, 0, 3)
    yield svc
    svc.stop()


@pytest.mark.parametrize(
    ("op", "expected"),
    [(40, {1: b"1<-0:hi", 2: b"2<-0:hi"}), (41, {1: b"", 2: b""}), (42, {1: b"", 2: b""})],
    ids=["answered", "handler-raises", "no-handler"],
)
def test_ask_peers_gathers_every_other_worker(me, peers, op: int, expected: dict[int, bytes]) -> None:
    assert me.peers() == [1, 2]
    assert me.ask_peers(op, b"hi", timeout=30) == expected


def test_a_peer_asks_this_worker(me, peers, page) -> None:
    """The service answers requests with the handler registered for the op (also registered after the start)."""
    me.register(40, lambda m: b"zero<-%d" % m.sender)
    other = ControlService()
    other.start(page.token, 5, 6)  # a worker id no peer process uses
    try:
        assert other.ask_peers(40, workers=[0, 1], timeout=30) == {0: b"zero<-5", 1: b"1<-5:"}
    finally:
        other.stop()


@pytest.mark.parametrize("how", ["stopped", "dead"], ids=["sigstop", "sigkill"])
def test_a_stalled_or_dead_peer_is_left_out(me, peers, how: str) -> None:
    victim = peers[1]
    os.kill(victim.pid, signal.SIGSTOP if how == "stopped" else signal.SIGKILL)
    if how == "dead":
        victim.join(10)
    else:
        wait_stopped(victim.pid)
    started = time.monotonic()
    answers = me.ask_peers(40, timeout=1.0)
    took = time.monotonic() - started
    assert answers == {1: b"1<-0:", 2: None}
    # a dead worker's socket is gone: no wait at all; a stopped one costs the timeout, not more
    assert took < (1.0 if how == "dead" else 5.0), took
    if how == "stopped":
        assert took >= 0.9


def wait_stopped(pid: int) -> None:
    """Wait until every thread of ``pid`` is stopped (a SIGSTOP takes effect when each thread next runs)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        states = {
            (t / "stat").read_text().rsplit(")", 1)[1].split()[0] for t in Path(f"/proc/{pid}/task").iterdir()
        }
        if states <= {"T", "t"}:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not stop")


def test_an_unstarted_service_asks_no_one(page) -> None:
    svc = ControlService()
    svc.register(40, lambda m: b"never")
    assert not svc.active
    assert svc.peers() == []
    assert svc.ask_peers(40, timeout=30) == {}
    assert not svc.notify(1, 40)
    svc.stop()  # harmless


def test_a_second_service_with_the_same_id_is_refused(me, page) -> None:
    twin = ControlService()
    with pytest.raises(OSError):
        twin.start(page.token, 0, 3)
    assert not twin.active
