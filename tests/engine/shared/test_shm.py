"""The shared page ``gtidkit.shm``: layout and header checks, counters and the sid map seen across real processes."""

from __future__ import annotations

import os
import struct
import time
import uuid

import pytest

from gtidkit.engine.shared.shm import COUNTERS, PAGE_FILE, Layout, SharedPage, SharedPageError
from gtidkit.errors import MySQLError
from tests.engine.shared import procs

SID = uuid.UUID("3e11fa47-71ca-11e1-9e33-c80aa9429562")


def test_create_then_attach_shares_one_page(tmp_path) -> None:
    a = SharedPage.create(tmp_path, Layout(owners=16, waiters=16, workers=4, sids=8))
    b = SharedPage.attach(tmp_path)
    try:
        assert b.layout == a.layout and b.token == a.token and len(a.token) == 16
        assert a.counters() == dict.fromkeys(COUNTERS, 0)
        a.counter("synced").set(41)
        assert b.counter("synced").add(1) == 42
        assert a.counter("synced").get() == 42
        assert a.layout.size % 4096 == 0 and (tmp_path / PAGE_FILE).stat().st_size == a.layout.size
    finally:
        a.close()
        b.close()


def test_create_rebuilds_and_never_trusts_the_old_page(tmp_path) -> None:
    old = SharedPage.create(tmp_path)
    old.counter("committed").set(7)
    new = SharedPage.create(tmp_path)  # a restart: the page is built afresh
    try:
        assert new.token != old.token
        assert new.counter("committed").get() == 0
        assert old.counter("committed").get() == 7  # an orphan keeps its own, unlinked page
        new.counter("committed").set(3)
        assert old.counter("committed").get() == 7
    finally:
        old.close()
        new.close()


def _damage(path, what: str) -> None:
    data = bytearray(path.read_bytes())
    if what == "magic":
        data[0:8] = b"NOTAPAGE"
    elif what == "version":
        struct.pack_into("=I", data, 8, 99)
    elif what == "size":
        data = data[:4096]
    elif what == "short":
        data = data[:10]
    elif what == "slot counts":
        struct.pack_into("=I", data, 56, 0)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("what", "words"),
    [
        ("magic", "not a gtidkit shared page"),
        ("version", "layout version 99"),
        ("size", "its tables need"),
        ("short", "too short"),
        ("slot counts", "damaged"),
    ],
    ids=["wrong-magic", "other-version", "truncated", "shorter-than-header", "zero-slots"],
)
def test_attach_refuses_a_page_it_cannot_trust(tmp_path, what: str, words: str) -> None:
    SharedPage.create(tmp_path).close()
    _damage(tmp_path / PAGE_FILE, what)
    with pytest.raises(SharedPageError, match=words):
        SharedPage.attach(tmp_path)


def test_attach_without_a_page(tmp_path) -> None:
    with pytest.raises(SharedPageError, match="cannot open the shared page"):
        SharedPage.attach(tmp_path)


def test_counters_seen_across_processes(tmp_path) -> None:
    page = SharedPage.create(tmp_path)
    ready, go = procs.CTX.Event(), procs.CTX.Event()
    values = list(range(1, 20001))
    p = procs.start(procs.counter_writer, str(tmp_path), "flushed", values, ready, go)
    assert ready.wait(60)
    seen = []
    c = page.counter("flushed")
    go.set()
    while p.is_alive() or not seen or seen[-1] != values[-1]:
        seen.append(c.get())
        if len(seen) > 50_000_000:
            break
    p.join(30)
    assert p.exitcode == 0
    assert seen[-1] == 20000
    assert seen == sorted(seen)  # one writer, increasing values: a reader never goes back
    page.close()


def test_counter_reads_are_never_torn(tmp_path) -> None:
    """A writer process stores i * 0x0101010101010101 (i = 1..255) as fast as it can; every value read in this
    process must be one of those (a torn 8-byte access would mix two values' bytes, and a zero-filling store such
    as ``struct.pack_into``'s would show 0)."""
    page = SharedPage.create(tmp_path)
    ready = procs.CTX.Event()
    p = procs.start(procs.pattern_writer, str(tmp_path), "config_generation", 1.5, ready)
    assert ready.wait(60)
    c = page.counter("config_generation")
    reads, distinct, torn = 0, set(), []
    while p.is_alive():
        for _ in range(1000):
            v = c.get()
            if v % procs.PATTERN or not v:
                torn.append(v)
            distinct.add(v)
        reads += 1000
    p.join(10)
    assert p.exitcode == 0
    assert torn == []
    assert len(distinct) > 10, "the writer and this reader did not overlap"  # the test saw concurrent updates
    page.close()


def test_sid_map_across_processes(tmp_path) -> None:
    page = SharedPage.create(tmp_path, Layout(sids=4))
    out = procs.CTX.Queue()
    p = procs.start(procs.sid_registrar, str(tmp_path), str(SID), "blue", out)
    index = out.get(timeout=60)
    p.join(30)
    assert page.sid_of(index) == (SID, "blue")
    assert page.sid_index(SID, "blue") == index
    assert page.sid_index(SID) != index  # untagged is another entry
    page.sid_index(uuid.uuid4())
    page.sid_index(uuid.uuid4())
    with pytest.raises(MySQLError) as err:
        page.sid_index(uuid.uuid4())
    assert err.value.code == 1041
    page.close()


def test_page_lock_is_released_by_a_dead_holder(tmp_path) -> None:
    """The page lock's flock is dropped by the kernel when its holder dies (SIGKILL): nobody stays wedged."""
    page = SharedPage.create(tmp_path)
    acquired, release = procs.CTX.Event(), procs.CTX.Event()
    p = procs.start(procs.page_lock_holder, str(tmp_path), acquired, release)
    assert acquired.wait(60)
    t0 = time.monotonic()
    os.kill(p.pid, 9)
    with page.locked():
        waited = time.monotonic() - t0
    p.join(10)
    assert waited < 5
    page.close()
