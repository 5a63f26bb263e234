"""The write-lock catch-up skips the commit-log read when only this process wrote since its last hold (issue 21,
h-mw: the extra server CPU per transaction with several workers; engine/follow.py "Only this process wrote").

A primary (``shared=True``) and a worker-role engine in this process on one datadir, as test_follow_gtids.py. MySQL is
the oracle for what must hold whatever the catch-up skips: GNOs are never handed out twice (MySQL's
``Gtid_state::generate_automatic_gtid`` under ``global_sid_lock``), one binary log in commit order whose GTIDs are
gtid_executed, AUTO_INCREMENT continuing after another session's inserts. The crash case (a holder killed after its
COMMIT, before its release moved ``committed``) is modelled by a primary whose release does not move the counter.
"""

from __future__ import annotations

import pytest

from gtidkit.binlog.file import read_transactions
from gtidkit.engine.server import Server
from gtidkit.gtid import GtidSet

OPTS = {"log_bin": True, "gtid_mode": "ON", "enforce_gtid_consistency": "ON", "server_id": 1}


@pytest.fixture
def pair(open_server):
    """(primary, worker, primary session, worker session) with d.t (AUTO_INCREMENT id) created by the primary."""
    primary = open_server(shared=True, **OPTS)
    worker = Server.open(primary.datadir, role="worker", **OPTS)
    try:
        p, w = primary.session(), worker.session()
        p.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
        yield primary, worker, p, w
    finally:
        worker.shutdown()


def _binlog_gnos(server: Server) -> list[int]:
    """The GNOs of every transaction of the server's binary log files, in file order."""
    assert server.binlog is not None
    gnos: list[int] = []
    for name in server.binlog.existing_files():
        for trx in read_transactions(server.binlog.path(name)).transactions:
            if trx.gtid is not None:
                gnos.append(trx.gtid.gno)
    return gnos


def _commit_in_each(p, w, order: str) -> None:
    """One autocommitted INSERT per letter of ``order`` (``p``: primary, ``w``: worker)."""
    for who in order:
        (p if who == "p" else w).execute("INSERT INTO d.t (v) VALUES (1)")


@pytest.mark.parametrize(
    ("order", "skipped"),
    [
        ("wwww", 3),  # the first hold reads the primary's DDL rows, the next three skip
        ("wwpww", 2),  # after the primary's commit the worker reads again, then skips
        ("wpwpwp", 0),  # alternating: every hold follows another process's
    ],
    ids=["worker-alone", "primary-in-between", "alternating"],
)
def test_a_hold_skips_the_read_only_when_no_other_process_wrote(pair, order: str, skipped: int) -> None:
    primary, worker, p, w = pair
    follower = worker.follower
    assert follower is not None
    before = follower.own_holds
    _commit_in_each(p, w, order)
    assert follower.own_holds - before == skipped
    # one server: the same gtid_executed everywhere, each GNO once, in commit order in the one binary log
    w.execute("SELECT 1")
    expected = primary.gtid_state.executed()
    assert worker.gtid_state.executed() == expected
    gnos = _binlog_gnos(primary)
    assert gnos == list(range(1, len(gnos) + 1))
    assert GtidSet.parse(f"{primary.server_uuid}:1-{len(gnos)}") == expected
    rows = p.execute("SELECT id FROM d.t ORDER BY id")[-1].rows
    assert [r[0] for r in rows] == list(range(1, len(order) + 1))  # AUTO_INCREMENT continued across processes


def test_a_holder_killed_before_its_release_moved_committed_is_read(pair, monkeypatch) -> None:
    """The primary commits but its release leaves ``committed`` where it was (as a holder SIGKILLed between its
    COMMIT and its release): the worker's next hold must still read its row, or it would take the same GNO."""
    primary, worker, p, w = pair
    follower = worker.follower
    assert follower is not None and primary.follower is not None
    w.execute("INSERT INTO d.t (v) VALUES (1)")
    w.execute("INSERT INTO d.t (v) VALUES (2)")  # the worker's own hold: skipped
    committed = primary.shared_page.counter("committed").get()  # type: ignore[union-attr]
    monkeypatch.setattr(primary.follower, "published", lambda: None)
    p.execute("INSERT INTO d.t (v) VALUES (3)")
    assert primary.shared_page.counter("committed").get() == committed  # type: ignore[union-attr]
    monkeypatch.undo()
    before = follower.own_holds
    w.execute("INSERT INTO d.t (v) VALUES (4)")
    assert follower.own_holds == before  # read the commit log: another process took the lock
    gnos = _binlog_gnos(primary)
    assert len(gnos) == len(set(gnos)) and gnos == sorted(gnos), gnos
    assert worker.gtid_state.executed() == primary.gtid_state.executed() | worker.gtid_state.executed()
    assert [r[0] for r in w.execute("SELECT id FROM d.t ORDER BY id")[-1].rows] == [1, 2, 3, 4]
