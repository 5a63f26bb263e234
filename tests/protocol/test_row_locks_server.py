"""`gtidkit server --gtidkit-row-locks=ON` (docs/design/multi_worker.md §5.7): single-row primary-key DML locks its
row, not the server's write lock, with both sessions in one process, in one worker and in different workers of
``--workers=2``.

MySQL is the oracle (RM8 "InnoDB Locking": record locks on different index records do not conflict;
"innodb_lock_wait_timeout": the waiter fails with 1205 "Lock wait timeout exceeded; try restarting transaction";
"Deadlocks in InnoDB": 1213 "Deadlock found when trying to get lock; try restarting transaction", the victim's
transaction rolled back). Connections land in worker ``i mod 2`` in accept order; each test checks
``@@gtidkit_worker_id``.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import mysql.connector
import pytest

from tests.protocol.placement import PLACEMENTS, connect, error_code, query, sessions
from tests.protocol.server_proc import process_name, running_server

OPTIONS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1", "--log-bin")


@pytest.mark.parametrize(("workers", "w1", "w2"), PLACEMENTS)
def test_rows_not_the_table(tmp_path: Path, workers: int, w1: int, w2: int) -> None:
    with running_server(tmp_path / "data", *OPTIONS, "--gtidkit-row-locks=ON", workers=workers) as srv:
        s1, s2 = sessions(srv.port, workers, w1, w2)
        assert query(s1, "SELECT @@GLOBAL.gtidkit_row_locks") == ((1,),)
        query(s1, "CREATE DATABASE db")
        query(s1, "CREATE TABLE db.t (id INT PRIMARY KEY, k INT NOT NULL)")
        query(s1, "INSERT INTO db.t VALUES (1, 10), (2, 20)")
        query(s2, "SET SESSION innodb_lock_wait_timeout = 1")

        # different rows: no wait
        query(s1, "BEGIN")
        query(s1, "UPDATE db.t SET k = 11 WHERE id = 1")
        started = time.monotonic()
        query(s2, "BEGIN")
        query(s2, "UPDATE db.t SET k = 21 WHERE id = 2")
        query(s2, "INSERT INTO db.t VALUES (3, 30)")
        query(s2, "COMMIT")
        assert time.monotonic() - started < 0.5

        # the same row: 1205 after the timeout, the waiter's transaction stays
        query(s2, "BEGIN")
        started = time.monotonic()
        assert error_code(s2, "UPDATE db.t SET k = 12 WHERE id = 1") == 1205
        assert 0.9 < time.monotonic() - started < 3
        query(s2, "ROLLBACK")
        query(s1, "COMMIT")
        assert query(s2, "SELECT id, k FROM db.t ORDER BY id") == ((1, 11), (2, 21), (3, 30))

        # opposite order: 1213 for the transaction closing the cycle, the other one goes on
        query(s1, "SET SESSION innodb_lock_wait_timeout = 10")
        query(s1, "BEGIN")
        query(s1, "UPDATE db.t SET k = 101 WHERE id = 1")
        query(s2, "BEGIN")
        query(s2, "UPDATE db.t SET k = 202 WHERE id = 2")
        out: list[int] = []
        th = threading.Thread(
            target=lambda: out.append(error_code(s1, "UPDATE db.t SET k = 102 WHERE id = 2"))
        )
        th.start()
        time.sleep(0.5)
        assert error_code(s2, "UPDATE db.t SET k = 201 WHERE id = 1") == 1213
        th.join(10)
        assert out == [0]
        query(s1, "COMMIT")
        query(s2, "ROLLBACK")  # nothing left to roll back: 1213 ended it
        assert query(s2, "SELECT id, k FROM db.t ORDER BY id") == ((1, 101), (2, 102), (3, 30))


@pytest.mark.parametrize("workers", [0, 2], ids=["one-process", "workers2"])
def test_sysbench_statements_prepared(tmp_path: Path, workers: int) -> None:
    """sysbench's oltp_read_write DML as server-side prepared statements (mysql-connector's binary protocol):
    deferred, their results as MySQL reports them, the rows written at COMMIT; another connection's prepared
    UPDATE of another row meanwhile commits without waiting."""
    with running_server(tmp_path / "data", *OPTIONS, "--gtidkit-row-locks=ON", workers=workers) as srv:
        setup = connect(srv.port)
        query(setup, "CREATE DATABASE sbtest")
        query(
            setup,
            "CREATE TABLE sbtest.sbtest1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, "
            "c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))",
        )
        query(
            setup,
            "INSERT INTO sbtest.sbtest1 VALUES (1, 5, 'c1', 'p1'), (2, 6, 'c2', 'p2'), (3, 7, 'c3', 'p3')",
        )
        conns = [
            mysql.connector.connect(host="127.0.0.1", port=srv.port, user="root", database="sbtest")
            for _ in range(2)
        ]
        try:
            a = conns[0].cursor(prepared=True)
            b = conns[1].cursor(prepared=True)
            a.execute("BEGIN")
            a.execute("UPDATE sbtest1 SET k=k+1 WHERE id=?", (1,))
            assert a.rowcount == 1
            a.execute("UPDATE sbtest1 SET c=? WHERE id=?", ("new-c", 2))
            assert a.rowcount == 1
            a.execute("DELETE FROM sbtest1 WHERE id=?", (3,))
            assert a.rowcount == 1
            a.execute("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", (3, 70, "c3b", "p3b"))
            assert a.rowcount == 1
            started = time.monotonic()
            b.execute("BEGIN")
            b.execute("UPDATE sbtest1 SET k=k+1 WHERE id=?", (4,))  # no such row: 0 rows, no wait
            assert b.rowcount == 0
            b.execute("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", (5, 1, "c5", "p5"))
            b.execute("COMMIT")
            assert time.monotonic() - started < 0.5
            a.execute("COMMIT")
        finally:
            for c in conns:
                c.close()
        assert query(setup, "SELECT id, k, c, pad FROM sbtest.sbtest1 ORDER BY id") == (
            (1, 6, "c1", "p1"),
            (2, 6, "new-c", "p2"),
            (3, 70, "c3b", "p3b"),
            (5, 1, "c5", "p5"),
        )


def test_a_dead_workers_row_locks_are_released(tmp_path: Path) -> None:
    """A worker holding a row lock is SIGKILLed: its transaction is gone, and a session of the other worker waiting
    for that row goes on at once (the supervisor clears the dead worker's slots and wakes the row waiters), not
    after innodb_lock_wait_timeout."""
    with running_server(tmp_path / "data", *OPTIONS, "--gtidkit-row-locks=ON", workers=2) as srv:
        s0, s1 = sessions(srv.port, 2, 0, 1)
        query(s0, "CREATE DATABASE db")
        query(s0, "CREATE TABLE db.t (id INT PRIMARY KEY, k INT NOT NULL)")
        query(s0, "INSERT INTO db.t VALUES (1, 10)")
        query(s1, "BEGIN")
        query(s1, "UPDATE db.t SET k = 11 WHERE id = 1")  # worker 1 holds row 1, uncommitted
        query(s0, "SET SESSION innodb_lock_wait_timeout = 50")
        query(s0, "BEGIN")
        out: list[object] = []

        def update() -> None:
            out.append(error_code(s0, "UPDATE db.t SET k = 12 WHERE id = 1"))
            out.append(time.monotonic())

        th = threading.Thread(target=update)
        th.start()
        time.sleep(0.5)
        assert not out  # waiting for the row
        (victim,) = [p for p in srv.worker_pids() if process_name(p) == "gtidkit-worker1"]
        killed_at = time.monotonic()
        os.kill(victim, signal.SIGKILL)
        th.join(40)
        assert out[0] == 0 and float(out[1]) - killed_at < 20, out  # type: ignore[arg-type]
        query(s0, "COMMIT")
        assert query(s0, "SELECT k FROM db.t WHERE id = 1") == ((12,),)
