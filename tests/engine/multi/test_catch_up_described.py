"""The catch-up under the write lock from the shared page's description of the last hold (engine/follow.py "Catch-up
without SQLite under the write lock", issue 21): a process taking the write lock after its own hold, or after one
described hold of another process, reads no commit-log row; anything else reads the commit log as before.

A primary (``shared=True``) and a worker-role engine opened in this process on one datadir (as
test_follow_gtids.py: each engine has its own connections, page mapping, write-lock descriptor and follower).
MySQL is the oracle for what must hold whatever path the catch-up takes: one ``gtid_executed`` (every automatic GNO
handed out once: ``Gtid_state::generate_automatic_gtid`` under ``global_sid_lock``), one binary log written in
commit order holding each GTID once (RM8 "GTID Format and Storage"), every acknowledged row present.
"""

from __future__ import annotations

from itertools import pairwise

import pytest

from gtidkit.binlog.file import read_transactions
from gtidkit.engine.server import Server
from gtidkit.engine.shared import holds

SOURCE = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
BASE = {"gtid_mode": "ON", "enforce_gtid_consistency": "ON", "server_id": 1}


@pytest.fixture(params=[True, False], ids=["log-bin", "skip-log-bin"])
def pair(request, open_server):
    """(primary, worker, primary session, worker session) with d.t, binary log on or off."""
    opts = {**BASE, "log_bin": request.param}
    primary = open_server(shared=True, **opts)
    worker = Server.open(primary.datadir, role="worker", **opts)
    try:
        p, w = primary.session(), worker.session()
        p.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
        _assigned[0] = 100
        _write(w, "INSERT INTO d.t (v) VALUES (0)")  # each has held the lock once
        _write(p, "INSERT INTO d.t (v) VALUES (0)")
        yield primary, worker, p, w
    finally:
        worker.shutdown()


def _executed(session) -> str:
    return session.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows[0][0].replace("\n", "")


_assigned = [100]


def _write(session, sql: str) -> None:
    """``sql`` as one transaction: with the binary log on an automatic GTID; off, an assigned one (an automatic
    GTID needs the binary log: WL#6559), which goes to gtid_executed and gtid_purged through a commit-log ``gtid``
    row."""
    if session.server.binlog is not None:
        session.execute(sql)
        return
    _assigned[0] += 1
    session.execute(f"SET gtid_next = '{SOURCE}:{_assigned[0]}'")
    session.execute(sql)
    session.execute("SET gtid_next = AUTOMATIC")


def _check_one_server(primary, worker, p, w, rows: int) -> None:
    """Both processes agree on gtid_executed, every automatic GNO was given once (1..n without a gap), every row is
    there, and the binary log (when on) holds each GTID once, in commit order."""
    executed = _executed(p)
    assert _executed(w) == executed
    assert p.execute("SELECT COUNT(*) FROM d.t")[-1].rows == [(rows,)]
    uuid = str(primary.server_uuid)
    blog = primary.binlog
    if blog is None:  # every GTID assigned and lost (gtid_purged = gtid_executed: RM8 "gtid_purged")
        assert executed == f"{SOURCE}:101-{_assigned[0]}"
        assert w.execute("SELECT @@GLOBAL.gtid_purged")[-1].rows[0][0].replace("\n", "") == executed
        return
    gnos = [
        t.gtid.gno
        for name in blog.existing_files()
        for t in read_transactions(blog.path(name)).transactions
        if t.gtid is not None and str(t.gtid.sid) == uuid
    ]
    assert gnos == list(range(1, len(gnos) + 1))  # commit order, each once
    assert executed == f"{uuid}:1-{len(gnos)}"


@pytest.mark.parametrize(
    "pattern",
    ["pwpwpwpw", "ppppwwww", "pwwpppww", "pppppppp"],
    ids=["alternating", "runs", "mixed", "own-holds"],
)
def test_commits_in_turn_catch_up_from_the_page(pair, pattern: str) -> None:
    primary, worker, p, w = pair
    fast = {id(s): s.server.follower.fast_catch_ups for s in (p, w)}
    own = {id(s): s.server.follower.own_holds for s in (p, w)}
    for i, who in enumerate(pattern):
        session = p if who == "p" else w
        _write(session, f"INSERT INTO d.t (v) VALUES ({i})")
        _write(session, f"UPDATE d.t SET v = v + 1 WHERE id = {i % 2 + 1}")
    # the holds in order (two per letter; the fixture's last one was p's): a hold after this process's own takes
    # the early return (no ring read), a hold after the other process's never does
    order = "p" + "".join(2 * who for who in pattern)
    for s in (p, w):
        me = "p" if s is p else "w"
        # every hold followed this process's own or one described hold: no commit-log read under the lock
        assert s.server.follower.fast_catch_ups - fast[id(s)] == 2 * pattern.count(me)
        expected = sum(1 for a, b in pairwise(order) if a == b == me)
        assert s.server.follower.own_holds - own[id(s)] == expected
    _check_one_server(primary, worker, p, w, 2 + len(pattern))


def test_an_own_hold_after_a_foreign_commit_reads_it(pair) -> None:
    """The early return is for a hold right after this process's own: a worker whose last hold was its own but
    whose next one follows the primary's must still take the primary's row (its GTID, the binary log's end), or it
    would hand out that GNO again and write over the primary's binlog bytes."""
    primary, worker, p, w = pair
    _write(w, "INSERT INTO d.t (v) VALUES (1)")
    _write(w, "INSERT INTO d.t (v) VALUES (2)")  # after its own hold: the early return
    _write(p, "INSERT INTO d.t (v) VALUES (3)")
    own = worker.follower.own_holds
    _write(w, "INSERT INTO d.t (v) VALUES (4)")  # after the primary's: the ring
    assert worker.follower.own_holds == own
    _check_one_server(primary, worker, p, w, 6)


def test_an_undescribed_hold_is_read_from_the_commit_log(pair) -> None:
    """A holder killed between its COMMIT and its description (SIGKILL) leaves the page describing an older hold:
    the next holder must read the commit log, or it would hand out the dead holder's GNO again."""
    primary, worker, p, w = pair
    _write(p, "INSERT INTO d.t (v) VALUES (1)")
    holds.forget(primary.shared_page, primary.follower._hold)  # what a kill before the description leaves
    before = worker.follower.catch_ups, worker.follower.fast_catch_ups
    _write(w, "INSERT INTO d.t (v) VALUES (2)")
    assert worker.follower.catch_ups == before[0] + 1  # read the commit log
    assert worker.follower.fast_catch_ups == before[1]
    _check_one_server(primary, worker, p, w, 4)


@pytest.mark.parametrize(
    "between",
    [
        "FLUSH BINARY LOGS",
        "CREATE TABLE d.u (id INT PRIMARY KEY)",
        f"SET gtid_next = '{SOURCE}:7'; INSERT INTO d.t (v) VALUES (7); SET gtid_next = AUTOMATIC",
        "BEGIN; INSERT INTO d.t (v) VALUES (8); INSERT INTO d.t (v) VALUES (9); COMMIT",
    ],
    ids=["rotation", "ddl", "assigned-gtid", "two-row-trx"],
)
def test_what_another_hold_did_reaches_the_next_holder(pair, between: str) -> None:
    primary, _worker, p, w = pair
    p.execute(between)
    w.execute("INSERT INTO d.t (v) VALUES (10)")
    p.execute("INSERT INTO d.t (v) VALUES (11)")
    if SOURCE in between:
        assert f"{SOURCE}:7" in _executed(w)
    executed = _executed(p)
    assert _executed(w) == executed
    uuid = str(primary.server_uuid)
    own = [part for part in executed.split(",") if part.startswith(uuid)]
    blog = primary.binlog
    if blog is not None:
        gnos = [
            t.gtid.gno
            for name in blog.existing_files()
            for t in read_transactions(blog.path(name)).transactions
            if t.gtid is not None and str(t.gtid.sid) == uuid
        ]
        assert gnos == list(range(1, len(gnos) + 1))
        assert own == [f"{uuid}:1-{len(gnos)}"]
