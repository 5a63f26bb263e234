"""The dump seam of the binlog manager: start file for a GTID set, purged check, end position, wait_for_update.

Expected values follow MySQL's rules for COM_BINLOG_DUMP_GTID (RM8 17.1.3.3 "GTID Auto-Positioning": the source
sends every transaction whose GTID is not in the replica's set; if the replica lacks GTIDs the source has purged,
the source answers error ER_SOURCE_HAS_PURGED_REQUIRED_GTIDS; a replica holding GTIDs of the source's UUID that
the source never executed gets ER_REPLICA_HAS_MORE_GTIDS_THAN_SOURCE) and ``find_first_log_not_in_gtid_set`` in
``sql/binlog.cc`` (walk the index newest first until a file's Previous_gtids is a subset of the replica's set).
"""

from __future__ import annotations

import threading
import time

from gtidkit.gtid import GtidSet


def _three_files(srv):
    """binlog.000001: 1-2, binlog.000002: 3-4, binlog.000003: 5 (Previous_gtids '', 1-2, 1-4)."""
    s = srv.session()
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t (id INT PRIMARY KEY)")
    s.execute("FLUSH LOGS")
    s.execute("INSERT INTO d.t VALUES (1)")
    s.execute("INSERT INTO d.t VALUES (2)")
    s.execute("FLUSH LOGS")
    s.execute("INSERT INTO d.t VALUES (3)")
    return s


def _locate(srv, requested: str):
    st = srv.gtid_state
    return srv.binlog.locate(
        GtidSet.parse(requested),
        gtid_purged=st.purged(),
        gtid_executed=st.executed(),
        server_uuid=srv.server_uuid,
    )


def test_first_file_for_a_gtid_set(open_server):
    srv = open_server(log_bin=True)
    _three_files(srv)
    u = str(srv.server_uuid)
    cases = {
        "": "binlog.000001",
        f"{u}:1": "binlog.000001",
        f"{u}:1-2": "binlog.000002",
        f"{u}:1-3": "binlog.000002",
        f"{u}:1-4": "binlog.000003",
        f"{u}:1-5": "binlog.000003",
        # GTIDs of another server do not change which of our files are needed
        f"{u}:1-2,3e11fa47-71ca-11e1-9e33-c80aa9429562:1-100": "binlog.000002",
    }
    for requested, first in cases.items():
        got = _locate(srv, requested)
        assert (got.first_file, got.ok) == (first, True), requested
        assert not got.purged_missing and not got.replica_has_more


def test_purged_and_replica_has_more(open_server):
    srv = open_server(log_bin=True)
    s = _three_files(srv)
    u = str(srv.server_uuid)
    s.execute("PURGE BINARY LOGS TO 'binlog.000002'")
    assert srv.gtid_state.purged() == GtidSet.parse(f"{u}:1-2")
    empty = _locate(srv, "")
    assert not empty.ok
    assert empty.purged_missing == GtidSet.parse(f"{u}:1-2")
    assert empty.first_file is None  # the oldest file left has Previous_gtids 1-2, not a subset of ''
    partial = _locate(srv, f"{u}:1")
    assert partial.purged_missing == GtidSet.parse(f"{u}:2") and not partial.ok
    fine = _locate(srv, f"{u}:1-2")
    assert fine.ok and fine.first_file == "binlog.000002"
    more = _locate(srv, f"{u}:1-9")
    assert not more.ok and more.replica_has_more == GtidSet.parse(f"{u}:6-9")
    assert more.first_file == "binlog.000003"


def test_end_position_is_the_last_flushed_transaction(open_server):
    srv = open_server(log_bin=True)
    s = srv.session()
    blog = srv.binlog
    start = blog.end_position()
    assert start.file == "binlog.000001" and start.pos > 4
    s.execute("CREATE DATABASE d")
    end = blog.end_position()
    assert end.file == "binlog.000001" and end.pos > start.pos
    assert end.pos == (srv.datadir / "binlog.000001").stat().st_size  # flushed: readable without a lock
    status = s.execute("SHOW MASTER STATUS")[-1].rows[0]
    assert (status[0], status[1]) == (end.file, end.pos)
    s.execute("FLUSH LOGS")
    assert blog.end_position().file == "binlog.000002"


def test_wait_for_update_wakes_on_commit_rotation_and_close(open_server):
    srv = open_server(log_bin=True)
    s = srv.session()
    blog = srv.binlog
    got: list = []

    def reader(file, pos):
        got.append(blog.wait_for_update(file, pos, timeout=30))

    # nothing new: times out (None) without anyone flushing for it
    end = blog.end_position()
    assert blog.wait_for_update(end.file, end.pos, timeout=0.05) is None
    # a commit wakes a waiting reader
    t = threading.Thread(target=reader, args=(end.file, end.pos))
    t.start()
    time.sleep(0.05)
    s.execute("CREATE DATABASE d")
    t.join(10)
    assert not t.is_alive()
    assert got[-1] == blog.end_position() and got[-1].pos > end.pos
    # a reader already behind the end returns at once
    assert blog.wait_for_update(end.file, end.pos, timeout=0) == blog.end_position()
    # rotation wakes a reader sitting at the end of the old file
    end = blog.end_position()
    t = threading.Thread(target=reader, args=(end.file, end.pos))
    t.start()
    time.sleep(0.05)
    s.execute("FLUSH LOGS")
    t.join(10)
    assert not t.is_alive() and got[-1].file == "binlog.000002"
    # shutdown wakes a reader too
    end = blog.end_position()
    t = threading.Thread(target=reader, args=(end.file, end.pos))
    t.start()
    time.sleep(0.05)
    srv.shutdown()
    t.join(10)
    assert not t.is_alive() and got[-1] is not None


def test_wait_for_update_ends_when_interrupted_and_woken(open_server):
    """A reader with no timeout ends only on progress, close, or its ``interrupted`` test after ``wake_readers``
    (a KILLed dump thread: ``THD::awake`` signals ``update_cond``); a wake-up alone does not end the wait."""
    srv = open_server(log_bin=True)
    blog = srv.binlog
    end = blog.end_position()
    stop = threading.Event()
    got: list = []
    t = threading.Thread(
        target=lambda: got.append(blog.wait_for_update(end.file, end.pos, None, interrupted=stop.is_set))
    )
    t.start()
    blog.wake_readers()  # woken with nothing new and no stop: waits on
    t.join(0.2)
    assert t.is_alive()
    stop.set()
    blog.wake_readers()
    t.join(30)
    assert not t.is_alive()
    assert got == [end]  # the unchanged end: no progress, the caller looks at its stop flag
    # already interrupted: returns at once
    assert blog.wait_for_update(end.file, end.pos, None, interrupted=lambda: True) == end


def test_many_readers_see_every_commit(open_server):
    srv = open_server(log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d")
    s.execute("CREATE TABLE d.t (id INT PRIMARY KEY)")
    blog = srv.binlog
    final: list = []
    done = threading.Event()
    wakeups: list[int] = []

    def follower():
        pos = blog.end_position()
        woken = 0
        while not (done.is_set() and pos == blog.end_position()):
            new = blog.wait_for_update(pos.file, pos.pos, timeout=0.2)
            if new is None:
                continue
            woken += 1
            # every byte up to the end position is already in the file
            assert (srv.datadir / new.file).stat().st_size >= new.pos
            assert new.pos > pos.pos
            pos = new
        final.append(pos)
        wakeups.append(woken)

    readers = [threading.Thread(target=follower) for _ in range(3)]
    for r in readers:
        r.start()
    for i in range(20):
        s.execute(f"INSERT INTO d.t VALUES ({i})")
    done.set()
    for r in readers:
        r.join(30)
    assert all(not r.is_alive() for r in readers)
    assert final == [blog.end_position()] * 3
    assert all(1 <= w <= 20 for w in wakeups)  # woken by commits, never spinning
