"""A worker of a multi-worker server dies (issue 21, docs/design/multi_worker.md §5.6).

Real ``gtidkit server --workers=2`` processes, PyMySQL clients forced into a worker by round-robin placement:

* what the dead process held in the shared page is released by the supervisor when it reaps it
  (engine/shared/workers.py ``clear_worker``): an open transaction it had leaves no trace (no row, no GTID, no
  INNODB_TRX row once the replacement serves), a session of another worker blocked on the write lock it held
  proceeds at once (not after innodb_lock_wait_timeout), and a session of the dead worker that was waiting leaves
  no data_lock_waits / INNODB_TRX row behind;
* the replacement of worker 0 takes over the singletons (the gtid_executed compressor, the replication threads):
  replication continues and the table is still compressed every ``gtid_executed_compression_period`` transactions.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pymysql
import pytest

from tests.cli.test_supervisor import GTIDS, connect, gno_count, query, wait_until
from tests.protocol.server_proc import ServerProcess, process_name, running_server

TWO = (*GTIDS, "--log-bin", "--workers=2")
#: the write lock's record of a dead holder is what the first tests check: row locks OFF, so a transaction's
#: single-row INSERT holds the write lock (with ON it takes it at COMMIT; a dead worker's row locks are cleared
#: with its waiter slots, engine/shared/workers.py)
WRITE_LOCK = (*TWO, "--gtidkit-row-locks=OFF")


def in_worker(port: int, index: int, timeout: float = 60.0) -> pymysql.connections.Connection:
    """A connection placed in worker ``index`` (round-robin: open connections until one lands there; a worker
    being replaced gets none until its replacement is ready)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        c = connect(port)
        if query(c, "SELECT @@gtidkit_worker_id")[0][0] == index:
            return c
        c.close()
        time.sleep(0.05)
    raise AssertionError(f"no connection reached worker {index}")


def worker_pid(srv: ServerProcess, index: int) -> int:
    """The pid of worker ``index`` (its process is named ``gtidkit-worker<index>``)."""
    (pid,) = [p for p in srv.worker_pids() if process_name(p) == f"gtidkit-worker{index}"]
    return pid


def kill_and_wait_for_replacement(srv: ServerProcess, index: int) -> None:
    """SIGKILL worker ``index`` and wait until its replacement serves (a connection lands in it)."""
    old = worker_pid(srv, index)
    os.kill(old, signal.SIGKILL)

    def replaced() -> bool:
        pids = [p for p in srv.worker_pids() if process_name(p) == f"gtidkit-worker{index}"]
        return bool(pids) and pids != [old]

    wait_until(replaced, what=f"a replacement of worker {index}")
    in_worker(srv.port, index).close()


def lock_rows(c: pymysql.connections.Connection) -> tuple[tuple, tuple]:
    """(INNODB_TRX (thread id, state) rows, data_lock_waits (requesting, blocking) rows)."""
    trx = query(c, "SELECT trx_mysql_thread_id, trx_state FROM information_schema.INNODB_TRX ORDER BY 1")
    waits = query(
        c, "SELECT REQUESTING_THREAD_ID, BLOCKING_THREAD_ID FROM performance_schema.data_lock_waits"
    )
    return trx, waits


def test_a_dead_holder_of_the_write_lock_leaves_no_trace_and_its_waiter_proceeds(tmp_path: Path) -> None:
    with running_server(tmp_path / "d", *WRITE_LOCK, base=(), supervised=True) as srv:
        w0 = in_worker(srv.port, 0)
        query(w0, "CREATE DATABASE d")
        query(w0, "CREATE TABLE d.t (id INT PRIMARY KEY)")
        before = query(w0, "SELECT @@GLOBAL.gtid_executed")[0][0]
        holder = in_worker(srv.port, 1)
        holder_id = query(holder, "SELECT CONNECTION_ID()")[0][0]
        query(holder, "BEGIN")
        query(holder, "INSERT INTO d.t VALUES (1)")  # worker 1 holds the write lock, uncommitted
        assert lock_rows(w0)[0] == ((holder_id, "RUNNING"),)
        # the holder dies with nobody waiting: its record must not outlive it
        dead = worker_pid(srv, 1)
        kill_and_wait_for_replacement(srv, 1)
        assert lock_rows(w0) == ((), ())
        log = (srv.datadir / "error.log").read_text()
        assert (
            f"worker 1 (pid {dead}): released 0 owned GTID(s), 0 waiter slot(s), the write lock's record"
            in log
        )
        assert query(w0, "SELECT COUNT(*) FROM d.t") == ((0,),)
        assert query(w0, "SELECT @@GLOBAL.gtid_executed")[0][0] == before
        # a holder dies while a session of the other worker waits for the lock: the waiter proceeds at once
        holder = in_worker(srv.port, 1)
        query(holder, "BEGIN")
        query(holder, "INSERT INTO d.t VALUES (2)")
        query(w0, "SET SESSION innodb_lock_wait_timeout = 50")
        done: list[object] = []

        def insert() -> None:
            try:
                query(w0, "INSERT INTO d.t VALUES (3)")
                done.append(time.monotonic())
            except pymysql.err.MySQLError as err:
                done.append(err)

        waiter = threading.Thread(target=insert)
        waiter.start()
        with connect(srv.port) as probe:
            wait_until(lambda: len(lock_rows(probe)[1]) == 1, what="the insert to wait for the write lock")
        killed_at = time.monotonic()
        os.kill(worker_pid(srv, 1), signal.SIGKILL)
        waiter.join(40)
        assert done and isinstance(done[0], float), done
        assert done[0] - killed_at < 20  # the kernel dropped the flock and the waiter was woken, no 1205
        assert query(w0, "SELECT id FROM d.t") == ((3,),)  # the dead transaction left no row
        assert gno_count(query(w0, "SELECT @@GLOBAL.gtid_executed")[0][0]) == gno_count(before) + 1
        w0.close()


def test_a_dead_waiter_leaves_no_wait_behind(tmp_path: Path) -> None:
    with running_server(tmp_path / "d", *WRITE_LOCK, base=(), supervised=True) as srv:
        w0 = in_worker(srv.port, 0)
        query(w0, "CREATE DATABASE d")
        query(w0, "CREATE TABLE d.t (id INT PRIMARY KEY)")
        holder_id = query(w0, "SELECT CONNECTION_ID()")[0][0]
        query(w0, "BEGIN")
        query(w0, "INSERT INTO d.t VALUES (1)")
        w1 = in_worker(srv.port, 1)
        w1_id = query(w1, "SELECT CONNECTION_ID()")[0][0]
        query(w1, "SET SESSION innodb_lock_wait_timeout = 100")
        failed: list[BaseException] = []

        def insert() -> None:
            try:
                query(w1, "INSERT INTO d.t VALUES (2)")
            except pymysql.err.MySQLError as err:
                failed.append(err)

        waiter = threading.Thread(target=insert)
        waiter.start()
        with connect(srv.port) as probe:
            wait_until(lambda: lock_rows(probe)[1] == ((w1_id, holder_id),), what="the waiter in worker 1")
        dead = worker_pid(srv, 1)
        kill_and_wait_for_replacement(srv, 1)
        waiter.join(30)
        assert failed and failed[0].args[0] in (2013, 2006), failed  # its client lost the connection
        log = (srv.datadir / "error.log").read_text()
        assert (
            f"worker 1 (pid {dead}): released 0 owned GTID(s), 1 waiter slot(s)\n" in log
        )  # by the supervisor
        with connect(srv.port) as probe:
            assert lock_rows(probe) == (((holder_id, "RUNNING"),), ())  # the dead waiter's slot is gone
        query(w0, "COMMIT")
        assert query(w0, "SELECT id FROM d.t") == ((1,),)
        w0.close()


@pytest.mark.parametrize("period", [5], ids=["period-5"])
def test_a_replaced_worker_0_takes_over_the_compressor_and_the_replication_threads(
    tmp_path: Path, period: int
) -> None:
    with running_server(tmp_path / "source", *GTIDS, "--log-bin", supervised=False) as src:
        with connect(src.port) as c:
            query(c, "CREATE DATABASE d")
            query(c, "CREATE TABLE d.t (a INT PRIMARY KEY)")
            source_uuid = query(c, "SELECT @@server_uuid")[0][0]
        replica_args = (
            "--gtid-mode=ON",
            "--enforce-gtid-consistency=ON",
            "--server-id=2",
            "--skip-log-bin",
            "--workers=2",
            f"--gtid-executed-compression-period={period}",
        )
        with running_server(tmp_path / "replica", *replica_args, base=(), supervised=True) as rep:

            def source_rows(n: int) -> None:
                with connect(src.port) as c:
                    for _ in range(n):
                        query(c, "INSERT INTO d.t SELECT COALESCE(MAX(a), 0) + 1 FROM d.t")

            def converged() -> bool:
                with connect(src.port) as s, connect(rep.port) as r:
                    return query(s, "SELECT @@GLOBAL.gtid_executed") == query(
                        r, "SELECT @@GLOBAL.gtid_executed"
                    )

            def table_rows() -> int:
                with connect(rep.port) as r:
                    return int(
                        query(
                            r, f"SELECT COUNT(*) FROM mysql.gtid_executed WHERE source_uuid = '{source_uuid}'"
                        )[0][0]
                    )

            with in_worker(rep.port, 0) as c:
                query(
                    c,
                    f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={src.port}, "
                    "SOURCE_USER='root', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=60",
                )
                query(c, "START REPLICA")
            source_rows(3 * period)
            wait_until(converged, what="the replica to converge")
            wait_until(lambda: table_rows() < period, what="the compressor of worker 0")
            kill_and_wait_for_replacement(rep, 0)
            source_rows(
                4 * period
            )  # 4 periods: without a compressor the table would hold 4 * period more rows
            wait_until(converged, what="the replica to converge after worker 0's replacement")
            wait_until(lambda: table_rows() < period, what="the compressor of the replacement")
            with in_worker(rep.port, 0) as c:
                assert query(c, "SELECT COUNT(*) FROM d.t") == ((7 * period,),)
                assert query(
                    c, "SELECT SERVICE_STATE FROM performance_schema.replication_connection_status"
                ) == (("ON",),)
                names = {r[0] for r in query(c, "SELECT NAME FROM performance_schema.threads")}
                assert "thread/sql/compress_gtid_table" in names
        log = (tmp_path / "replica" / "error.log").read_text()
        assert "worker 0" in log and "killed by SIGKILL" in log
