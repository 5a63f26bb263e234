"""A catch-up running in one thread of a worker process: another thread of the same process does not take the
process for caught up before that catch-up's catalog, GTIDs or published settings are in place (issue 21; the 1146
that sysbench's COM_STMT_PREPARE got in a second worker,
tests/protocol/test_real_clients.py::test_sysbench_oltp_read_write_prepared).

The interleaving, found by logging in that test: sysbench's two threads in the second worker connect at once; the
first thread's statement starts the catch-up after the other worker's CREATE TABLE, which marked the catalog
generation seen and then re-read the catalog (25 ms under load); the second thread's COM_STMT_PREPARE checked
``catalog_moved()`` meanwhile, found it false, and looked the table up in the old catalog. The GTIDs of the same
catch-up and the accounts / globals of engine/shared_config.py's reload had the same gap.

A primary (``shared=True``) and a worker-role engine in this process on one datadir, as test_follow_gtids.py; two
sessions of the worker run in two threads. The first thread's catch-up is held inside its work (a gate around the
catalog's ``reload`` or the accounts' ``replace``); the second thread's statement runs meanwhile, and the gate opens
once that statement has finished or has started a catch-up of its own (which then waits for the first). MySQL is
the oracle: one server has one catalog, one ``gtid_executed`` and one account cache, so a table another session
created is there for the next PREPARE (MySQL checks a prepared statement's tables at PREPARE: RM8 "Prepared
Statements"), a committed GTID is in ``@@GLOBAL.gtid_executed`` of every session (RM8 "gtid_executed"), and an
account another session created is there for the next statement.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from gtidkit.engine.server import Server
from gtidkit.errors import MySQLError

OPTS = {"log_bin": True, "gtid_mode": "ON", "enforce_gtid_consistency": "ON", "server_id": 1}
WAIT = 30.0  # seconds: a bound on each wait of the test, never a synchronisation


@dataclass(frozen=True)
class Case:
    """One row: what the primary changes, where the worker's first catch-up is held, what the second thread runs."""

    change: str  # run by the primary's session
    held: Callable[[Server], tuple[Any, str]]  # (object, method name) the first thread's catch-up is held in
    catching_up: Callable[
        [Server], tuple[Any, str]
    ]  # (object, method name) the second thread's catch-up starts at
    stale: Callable[[Server], bool]  # the lock-free check that must still say "stale" meanwhile
    second: Callable[[Any], object]  # the second thread's statement, on a worker session: its value
    expected: Callable[[Server], object]  # that value, from the primary


def _follower(server: Server) -> Any:
    assert server.follower is not None
    return server.follower


def _config(server: Server) -> Any:
    assert server.shared_config is not None
    return server.shared_config


CASES = {
    "prepare-names-the-new-table": Case(
        "CREATE TABLE d.t2 (id INT PRIMARY KEY, v INT)",
        lambda w: (w.storage.catalog, "reload"),
        lambda w: (_follower(w), "catch_up"),
        lambda w: _follower(w).stale() and _follower(w).catalog_moved(),
        lambda s: s.prepare("SELECT v FROM d.t2 WHERE id = ?").param_count,
        lambda p: 1,
    ),
    "gtid-executed-has-the-ddl": Case(
        "CREATE TABLE d.t2 (id INT PRIMARY KEY, v INT)",
        lambda w: (w.storage.catalog, "reload"),
        lambda w: (_follower(w), "catch_up"),
        lambda w: _follower(w).stale(),
        lambda s: s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows[0][0],
        lambda p: str(p.gtid_state.executed()),
    ),
    "show-grants-of-the-new-account": Case(
        "CREATE USER late@'%' IDENTIFIED BY 'x'",
        lambda w: (w.accounts, "replace"),
        lambda w: (_config(w), "reload"),
        lambda w: _config(w).stale(),
        lambda s: s.execute("SHOW GRANTS FOR late@'%'")[-1].rows,
        lambda p: [("GRANT USAGE ON *.* TO `late`@`%`",)],
    ),
}


@pytest.fixture
def pair(open_server):
    """(primary, worker, primary session) with database d, the worker caught up with it."""
    primary = open_server(shared=True, **OPTS)
    worker = Server.open(primary.datadir, role="worker", **OPTS)
    try:
        p = primary.session()
        p.execute("CREATE DATABASE d")
        worker.session().execute("SELECT @@GLOBAL.gtid_executed")  # caught up once
        yield primary, worker, p
    finally:
        worker.shutdown()


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_a_statement_beside_a_catch_up_in_progress_sees_its_result(pair, monkeypatch, case: Case) -> None:
    primary, worker, p = pair
    p.execute(case.change)  # another process's change
    obj, name = case.held(worker)
    work = getattr(obj, name)
    reached, gate = threading.Event(), threading.Event()

    def held(*args: Any, **kw: Any) -> Any:
        reached.set()
        assert gate.wait(WAIT)
        return work(*args, **kw)

    monkeypatch.setattr(obj, name, held)
    first = threading.Thread(target=worker.session().execute, args=("SELECT 1",))
    first.start()
    try:
        assert reached.wait(WAIT)  # the first thread's catch-up is inside its work
        # until that catch-up is done, the process is not caught up for anyone who asks
        assert case.stale(worker)
        out = _second_thread(worker, monkeypatch, case, gate)
    finally:
        gate.set()  # a failed assertion leaves no thread waiting at the gate
        first.join(WAIT)
    assert not first.is_alive()
    assert out == {"value": case.expected(primary)}
    assert not case.stale(worker)


def _second_thread(worker: Server, monkeypatch: Any, case: Case, gate: threading.Event) -> dict[str, object]:
    """Run ``case.second`` in a second thread while the first thread's catch-up is held; open ``gate`` once the
    statement has finished or has started its own catch-up. Returns ``{"value": ...}`` or ``{"error": ...}``."""
    obj, name = case.catching_up(worker)
    catch_up = getattr(obj, name)
    started_or_done = threading.Event()

    def observed(*args: Any, **kw: Any) -> Any:
        started_or_done.set()  # the second thread waits for the first one's catch-up from here
        return catch_up(*args, **kw)

    monkeypatch.setattr(obj, name, observed)
    out: dict[str, object] = {}
    session = worker.session()

    def second() -> None:
        try:
            out["value"] = case.second(session)
        except MySQLError as err:
            out["error"] = (err.code, str(err))
        finally:
            started_or_done.set()

    thread = threading.Thread(target=second)
    thread.start()
    assert started_or_done.wait(WAIT)
    gate.set()
    thread.join(WAIT)
    assert not thread.is_alive()
    return out
