"""The WAL's group sync across processes (engine/shared/wal_sync.py): a leader whose transaction another handle's
fsync already covered makes none; a leader's fsync covers every transaction whose write-lock release came before
it; a failed fsync publishes nothing. Handles have their own descriptors, so their ``flock`` excludes them as it
excludes processes (the engine-level test across real processes is tests/engine/multi/test_worker_open.py)."""

from __future__ import annotations

import threading
import time

import pytest

from gtidkit.engine.binlog.group_sync import GroupSync
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.engine.shared.wal_sync import SharedWalSync


@pytest.fixture
def page(tmp_path):
    """A fresh shared page in ``tmp_path`` (the test's datadir)."""
    p = SharedPage.create(tmp_path)
    yield p
    p.close()


def _release(page: SharedPage) -> int:
    """What a write-lock release publishes (engine/follow.py ``published``): ``committed`` + 1."""
    return page.counter("committed").add(1)


@pytest.mark.parametrize(
    ("released_before_sync", "synced_before", "expect_fsync", "expect_durable"),
    [
        (1, 0, True, 1),  # nothing synced yet: the leader fsyncs for its own transaction
        (3, 0, True, 3),  # two more releases before the fsync began: one fsync covers all three
        (1, 5, False, 5),  # another process's fsync already covered it: no fsync
    ],
    ids=["own-fsync", "covers-later-releases", "covered-by-another"],
)
def test_sync_covers_what_was_released_before_it(
    tmp_path, page, released_before_sync, synced_before, expect_fsync, expect_durable
):
    wal = SharedWalSync(page, tmp_path)
    try:
        page.counter("committed").set(max(0, synced_before - 1))
        page.counter("synced").set(synced_before)
        ticket = wal.ticket()
        for _ in range(released_before_sync):
            _release(page)
        calls: list[int] = []
        led, durable = wal.sync(ticket, lambda: calls.append(page.counter("committed").get()))
        assert led is expect_fsync and bool(calls) is expect_fsync
        assert durable == max(expect_durable, synced_before)
        assert page.counter("synced").get() == durable
        assert (wal.fsyncs, wal.covered) == ((1, 0) if expect_fsync else (0, 1))
    finally:
        wal.close()


def test_a_leader_waiting_for_another_handles_fsync_is_covered_by_it(tmp_path, page):
    """Two handles (two processes' leaders): B commits while A fsyncs, A's fsync began after B's release, so B,
    blocked on the sync lock meanwhile, finds its transaction covered and makes no fsync."""
    a, b = SharedWalSync(page, tmp_path), SharedWalSync(page, tmp_path)
    try:
        ticket_a = a.ticket()
        _release(page)
        ticket_b = b.ticket()
        _release(page)  # both released before A's fsync reads `committed`
        in_fsync, finish = threading.Event(), threading.Event()

        def slow_fsync() -> None:
            in_fsync.set()
            assert finish.wait(10)

        out: dict[str, tuple[bool, int]] = {}
        ta = threading.Thread(target=lambda: out.__setitem__("a", a.sync(ticket_a, slow_fsync)))
        ta.start()
        assert in_fsync.wait(10)
        tb = threading.Thread(
            target=lambda: out.__setitem__("b", b.sync(ticket_b, lambda: out.setdefault("x", (1, 1))))
        )
        tb.start()
        time.sleep(0.1)
        assert "b" not in out  # B waits on the sync lock while A's fsync runs
        finish.set()
        ta.join(10)
        tb.join(10)
        assert out["a"] == (True, 2) and out["b"] == (False, 2) and "x" not in out
        assert (a.fsyncs, b.fsyncs, b.covered) == (1, 0, 1)
    finally:
        a.close()
        b.close()


def test_a_failed_fsync_publishes_nothing_and_releases_the_lock(tmp_path, page):
    wal = SharedWalSync(page, tmp_path)
    try:
        ticket = wal.ticket()
        _release(page)

        def fail() -> None:
            raise OSError(5, "Input/output error")

        with pytest.raises(OSError):
            wal.sync(ticket, fail)
        assert page.counter("synced").get() == 0
        assert wal.sync(ticket, lambda: None) == (True, 1)  # the lock was released: the next leader retries
    finally:
        wal.close()


def test_group_sync_numbers_are_server_wide_with_a_shared_sync(tmp_path, page):
    """A process's GroupSync with the shared sync: its numbers are the page's, and a transaction another process's
    fsync covered returns as a follower without calling its own fsync."""
    group = GroupSync()
    group.shared = SharedWalSync(page, tmp_path)
    try:
        seq = group.committed_one()
        assert seq == 1
        _release(page)
        page.counter("synced").set(1)  # another process's leader fsynced after that release
        calls: list[int] = []
        assert group.wait_durable(seq, lambda: calls.append(1)) is False
        assert calls == [] and group.fsyncs == 0 and group.synced == 1
        group.done()
        seq = group.committed_one()
        _release(page)
        assert seq == 2 and group.wait_durable(seq, lambda: calls.append(2)) is True
        assert calls == [2] and page.counter("synced").get() == 2 and group.fsyncs == 1
        group.done()
    finally:
        group.shared.close()  # type: ignore[attr-defined]
