"""The binary log's shared end (engine/shared/binlog_end.py): packing, publication order, RESET epochs, and the
wait a dump thread makes, woken by a publication from another page handle (as another process's would)."""

from __future__ import annotations

import threading
import time

import pytest

from gtidkit.engine.shared import waiters
from gtidkit.engine.shared.binlog_end import BinlogEnd, pack, unpack
from gtidkit.engine.shared.shm import SharedPage


@pytest.mark.parametrize(
    ("number", "pos"),
    [(1, 4), (1, 157), (42, 1 << 30), ((1 << 31) - 1, (1 << 32) - 1)],
    ids=["first-event", "after-previous-gtids", "max-binlog-size", "largest"],
)
def test_pack_round_trips(number: int, pos: int) -> None:
    assert unpack(pack(number, pos)) == (number, pos)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [((1, 157), (1, 158)), ((1, (1 << 32) - 1), (2, 4)), ((9, 900), (10, 157))],
    ids=["same-file", "next-file-at-its-start", "next-file-shorter"],
)
def test_packed_words_order_like_positions(earlier: tuple[int, int], later: tuple[int, int]) -> None:
    assert pack(*earlier) < pack(*later)


@pytest.mark.parametrize(
    ("number", "pos"), [(0, 4), (1 << 31, 4), (1, -1), (1, 1 << 32)], ids=["no-file", "number", "neg", "pos"]
)
def test_pack_refuses_what_a_word_cannot_hold(number: int, pos: int) -> None:
    with pytest.raises(ValueError):
        pack(number, pos)


def test_nothing_published_reads_none(tmp_path) -> None:
    page = SharedPage.create(tmp_path)
    try:
        assert BinlogEnd(page, 0).get() is None and unpack(0) is None
    finally:
        page.close()


def test_publication_keeps_the_maximum_and_drops_a_stale_epoch(tmp_path) -> None:
    page = SharedPage.create(tmp_path)
    other = SharedPage.attach(tmp_path)
    try:
        a, b = BinlogEnd(page, 0), BinlogEnd(other, 1)
        assert a.set(1, 157) == 0
        generation = b.generation()
        assert a.publish(1, 900, 0) and b.get() == (1, 900)
        assert not b.publish(1, 500, 0)  # a committer finishing late cannot move the end back
        assert b.set(2, 157) == 0 and b.generation() == generation + 1  # rotation: a new file
        assert not a.publish(1, 1200, 0)  # the old file's late committer
        assert a.get() == (2, 157)
        epoch = a.set(1, 157, new_epoch=True)  # RESET: numbering restarts
        assert epoch == 1 and b.epoch() == 1 and b.get() == (1, 157)
        assert not b.publish(7, 900, 0)  # written before the RESET: dropped
        assert b.publish(1, 400, 1) and a.get() == (1, 400)
        a.index_changed()
        assert b.generation() == generation + 3
        assert b.new_epoch() == 2 and a.epoch() == 2
    finally:
        other.close()
        page.close()


def test_a_waiting_reader_is_woken_by_a_publication_through_another_handle(tmp_path) -> None:
    page = SharedPage.create(tmp_path)
    other = SharedPage.attach(tmp_path)
    try:
        reader, writer = BinlogEnd(page, 1), BinlogEnd(other, 0)
        writer.set(1, 157)
        woke: list[float] = []

        def wait() -> None:
            assert reader.wait(lambda: reader.get() != (1, 157), 20, connection_id=9)
            woke.append(time.monotonic())

        t = threading.Thread(target=wait)
        t.start()
        deadline = time.monotonic() + 10
        while not waiters.waiters(other, waiters.BINLOG):
            assert time.monotonic() < deadline
            time.sleep(0.005)
        (w,) = waiters.waiters(other, waiters.BINLOG)
        assert (w.worker_id, w.connection_id) == (1, 9)
        published = time.monotonic()
        assert writer.publish(1, 300, 0)
        t.join(10)
        assert woke and woke[0] - published < 5
        assert waiters.waiters(other, waiters.BINLOG) == []  # the slot is freed after the wait
        assert other.counter("binlog_waiters").get() == 0
    finally:
        other.close()
        page.close()


def test_a_wait_times_out_without_a_publication(tmp_path) -> None:
    page = SharedPage.create(tmp_path)
    try:
        end = BinlogEnd(page, 0)
        started = time.monotonic()
        assert not end.wait(lambda: False, 0.2)
        assert 0.15 < time.monotonic() - started < 5
        assert page.counter("binlog_waiters").get() == 0
    finally:
        page.close()
