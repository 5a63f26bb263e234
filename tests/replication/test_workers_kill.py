"""KILL QUERY / KILL of a connection while it waits on replication state that another worker holds (issue 21: "KILL
[QUERY] works across workers").

A multi-worker replica runs its replication threads in worker 0 (replication/forward.py); a connection of worker 1
that calls SOURCE_POS_WAIT reads the applier's position from worker 0, and one that calls
WAIT_FOR_EXECUTED_GTID_SET waits for GTIDs the applier commits in worker 0. The killer sits in worker 0, the
victim in worker 1; the same sequence runs against a one-process replica, and both must answer alike.

MySQL is the oracle: ``Item_source_pos_wait::val_int`` / ``Relay_log_info::wait_for_pos`` (a killed wait returns
-2, shown as NULL; the row is sent, so ``send_kill_message`` adds no error), mysql-test
``rpl_gtid/r/rpl_wait_for_executed_gtid_set.result`` (a killed WAIT_FOR_EXECUTED_GTID_SET fails with 1317
ER_QUERY_INTERRUPTED), RM8 "KILL Statement" (KILL QUERY leaves the connection usable; KILL CONNECTION closes it:
the client sees 2013 CR_SERVER_LOST).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pymysql
import pytest
from protocol.server_proc import ServerProcess

from replication.test_workers_replica import (
    change_source,
    connect,
    in_worker,
    query,
    replica_server,
    source,  # noqa: F401 (a fixture)
    status,
    wait_until,
    worker_pid,
)


def _in_thread(conn: pymysql.connections.Connection, sql: str, out: list[Any]) -> threading.Thread:
    """Run ``sql`` on ``conn`` in a thread; its rows, or its error's (code, message), go to ``out``."""

    def run() -> None:
        try:
            out.append(query(conn, sql))
        except pymysql.err.MySQLError as err:
            out.append(tuple(err.args[:2]))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _wait_running(killer: pymysql.connections.Connection, victim_id: int, text: str) -> None:
    """Wait until SHOW PROCESSLIST shows ``victim_id`` running a statement that contains ``text``."""

    def running() -> bool:
        rows = query(killer, "SHOW FULL PROCESSLIST")
        return any(r[0] == victim_id and r[4] == "Query" and text in (r[7] or "") for r in rows)

    wait_until(running, what=f"connection {victim_id} running {text!r}")
    time.sleep(0.3)  # past its first poll of the applier position


def _rows(conn: pymysql.connections.Connection) -> int:
    """Rows in the replica's d.t (-1 before the applier created it)."""
    try:
        return int(query(conn, "SELECT COUNT(*) FROM d.t")[0][0])
    except pymysql.err.ProgrammingError:
        return -1


@pytest.mark.parametrize("workers", [0, 2], ids=["one-process", "workers2"])
def test_kill_of_a_wait_on_the_replication_threads(
    tmp_path: Path,
    source: ServerProcess,  # noqa: F811
    workers: int,
) -> None:
    with ExitStack() as stack:
        replica = stack.enter_context(replica_server(tmp_path, workers))
        killer = stack.enter_context(in_worker(replica.port, 0 if workers else None))
        victim = stack.enter_context(in_worker(replica.port, 1 if workers else None))
        query(killer, change_source(source.port))
        query(killer, "START REPLICA")
        with connect(source.port) as s:
            query(s, "INSERT INTO d.t VALUES (1)")
            uuid = str(query(s, "SELECT @@server_uuid")[0][0])
        wait_until(lambda: _rows(victim) == 1, what="the first row applied")
        vid = victim.thread_id()
        out: list[Any] = []

        # SOURCE_POS_WAIT for a position the source has not reached: KILL QUERY ends it with NULL, no error
        wait = "SELECT SOURCE_POS_WAIT('binlog.000099', 4)"
        t = _in_thread(victim, wait, out)
        _wait_running(killer, vid, "SOURCE_POS_WAIT")
        query(killer, f"KILL QUERY {vid}")
        t.join(30)
        assert out == [((None,),)]
        assert query(victim, "SELECT 2") == ((2,),)  # the connection is usable

        # WAIT_FOR_EXECUTED_GTID_SET for GTIDs the applier (worker 0) has not committed: 1317
        out.clear()
        t = _in_thread(victim, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{uuid}:1-1000')", out)
        _wait_running(killer, vid, "WAIT_FOR_EXECUTED_GTID_SET")
        query(killer, f"KILL QUERY {vid}")
        t.join(30)
        assert out == [(1317, "Query execution was interrupted")]
        # ... and one that the applier reaches wakes with 0 (a commit in worker 0 reaches worker 1's waiter)
        out.clear()
        t = _in_thread(victim, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{uuid}:1-4', 60)", out)
        _wait_running(killer, vid, "WAIT_FOR_EXECUTED_GTID_SET")
        with connect(source.port) as s:
            query(s, "INSERT INTO d.t VALUES (2)")
        t.join(30)
        assert out == [((0,),)]

        # KILL (CONNECTION) during a SOURCE_POS_WAIT: the client loses the connection (2013), the server lists it
        # no more, and the replication threads run on
        out.clear()
        t = _in_thread(victim, wait, out)
        _wait_running(killer, vid, "SOURCE_POS_WAIT")
        query(killer, f"KILL {vid}")
        t.join(30)
        assert out and out[0][0] == 2013
        wait_until(
            lambda: vid not in {r[0] for r in query(killer, "SHOW PROCESSLIST")}, what="the killed one gone"
        )
        row = status(killer)[0]
        assert (row["Replica_IO_Running"], row["Replica_SQL_Running"]) == ("Yes", "Yes")
        query(killer, "STOP REPLICA")


def _wait_stopped(pid: int) -> None:
    """Wait until every thread of ``pid`` is stopped (SIGSTOP takes effect as each thread next runs)."""

    def stopped() -> bool:
        states = {
            (t / "stat").read_text().rsplit(")", 1)[1].split()[0] for t in Path(f"/proc/{pid}/task").iterdir()
        }
        return states <= {"T", "t"}

    wait_until(stopped, what=f"process {pid} stopped")


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("START REPLICA", (1317, "Query execution was interrupted")),
        ("SELECT SOURCE_POS_WAIT('binlog.000099', 4)", ((None,),)),  # as the wait's own kill check answers
    ],
    ids=["start-replica", "source-pos-wait"],
)
def test_kill_query_ends_a_statement_waiting_for_a_stalled_worker_0(
    tmp_path: Path,
    source: ServerProcess,  # noqa: F811
    statement: str,
    expected: Any,
) -> None:
    """A statement of worker 1 that waits for worker 0's answer (worker 0 runs the replication threads and is
    stalled: SIGSTOP) ends at KILL QUERY from worker 2, as MySQL's waits check ``thd->killed`` (``start_slave_thread``
    answers the kill error while it waits for the threads to start; a killed SOURCE_POS_WAIT is NULL); the
    connection stays usable and, once worker 0 runs again, the replica works."""
    with ExitStack() as stack:
        replica = stack.enter_context(replica_server(tmp_path, 3))
        killer = stack.enter_context(in_worker(replica.port, 2))
        victim = stack.enter_context(in_worker(replica.port, 1))
        query(killer, change_source(source.port))
        if "SOURCE_POS_WAIT" in statement:
            query(killer, "START REPLICA")
            wait_until(lambda: _rows(victim) == 0, what="the table replicated")
        pid = worker_pid(replica, 0)
        os.kill(pid, signal.SIGSTOP)
        stack.callback(os.kill, pid, signal.SIGCONT)
        _wait_stopped(pid)
        vid = victim.thread_id()
        out: list[Any] = []
        t = _in_thread(victim, statement, out)
        time.sleep(1.0)  # the request is out; worker 0 does not answer
        assert t.is_alive() and not out
        query(killer, f"KILL QUERY {vid}")  # worker 0 does not answer the KILL either: up to KILL_TIMEOUT
        t.join(30)
        assert out == [expected]
        assert query(victim, "SELECT 2") == ((2,),)
        os.kill(pid, signal.SIGCONT)
        query(victim, "START REPLICA")  # 3083 if the killed START went through: either is as MySQL
        with connect(source.port) as s:
            query(s, "INSERT INTO d.t VALUES (7)")
        wait_until(lambda: _rows(victim) == 1, what="the replica applying again")
