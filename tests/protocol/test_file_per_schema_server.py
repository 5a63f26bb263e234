"""`gtidkit server --gtidkit-file-per-schema=ON` (issue 21 step 9): writers of different schemas do not wait for
each other, with both sessions in one process, in one worker, and in different workers of ``--workers=2``.

MySQL is the oracle (RM8 "InnoDB Locking": a writer waits only for conflicting row locks; "innodb_lock_wait_timeout":
the waiter fails with 1205 ER_LOCK_WAIT_TIMEOUT, "Lock wait timeout exceeded; try restarting transaction"). The
granularity reached is the schema (engine/schema_files.py), so the blocked writer here writes another row of the
same schema's table. Connections land in worker ``i mod 2`` in accept order (the supervisor's round-robin); each
test checks ``@@gtidkit_worker_id``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pymysql
import pytest

from tests.protocol.placement import PLACEMENTS, connect, error_code, query, sessions
from tests.protocol.server_proc import running_server

OPTIONS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1", "--gtidkit-file-per-schema=ON")


@pytest.mark.parametrize(("workers", "w1", "w2"), PLACEMENTS)
def test_idle_transaction_on_db1_does_not_stall_db2(tmp_path: Path, workers: int, w1: int, w2: int) -> None:
    with running_server(tmp_path / "data", *OPTIONS, "--log-bin", workers=workers) as srv:
        s1, s2 = sessions(srv.port, workers, w1, w2)
        query(s1, "CREATE DATABASE db1")
        query(s1, "CREATE DATABASE db2")
        query(s1, "CREATE TABLE db1.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        query(s1, "CREATE TABLE db2.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        assert (tmp_path / "data" / "db1.sqlite").exists() and (tmp_path / "data" / "db2.sqlite").exists()
        query(s2, "SET SESSION innodb_lock_wait_timeout = 2")
        query(s1, "BEGIN")
        query(
            s1, "INSERT INTO db1.t (v) VALUES (1)"
        )  # left open, as an ORM session or a failed test leaves it
        started = time.monotonic()
        query(s2, "INSERT INTO db2.t (v) VALUES (2)")
        assert time.monotonic() - started < 1.0  # committed at once
        started = time.monotonic()
        assert error_code(s2, "INSERT INTO db1.t (v) VALUES (3)") == 1205
        waited = time.monotonic() - started
        assert 1.9 <= waited < 10, waited
        query(s1, "COMMIT")
        query(s2, "INSERT INTO db1.t (v) VALUES (4)")
        assert query(s2, "SELECT id, v FROM db1.t ORDER BY id") == ((1, 1), (2, 4))
        assert query(s1, "SELECT a.v, b.v FROM db1.t a JOIN db2.t b USING (id)") == ((1, 2),)
        executed = query(s2, "SELECT @@GLOBAL.gtid_executed")[0][0]
        assert executed.endswith(":1-7"), executed  # 4 DDL + 3 committed inserts, in every worker
        assert query(s1, "SELECT @@GLOBAL.gtid_executed")[0][0] == executed


@pytest.mark.parametrize("workers", [0, 2], ids=["one-process", "workers2"])
def test_schemas_made_in_one_worker_are_seen_in_the_other(tmp_path: Path, workers: int) -> None:
    with running_server(tmp_path / "data", *OPTIONS, "--skip-log-bin", workers=workers) as srv:
        a, b = sessions(srv.port, workers, 0, 1 if workers else 0)
        query(a, "CREATE DATABASE shop")
        query(a, "CREATE TABLE shop.item (id INT PRIMARY KEY, name VARCHAR(10))")
        query(a, "INSERT INTO shop.item VALUES (1, 'pen')")
        query(b, "USE shop")
        assert query(b, "SELECT name FROM item") == (("pen",),)
        query(b, "CREATE DATABASE stock")
        query(b, "CREATE TABLE stock.level (id INT PRIMARY KEY, n INT)")
        query(b, "INSERT INTO stock.level VALUES (1, 7)")
        assert query(a, "SELECT i.name, l.n FROM shop.item i JOIN stock.level l USING (id)") == (("pen", 7),)
        query(a, "DROP DATABASE shop")
        assert error_code(b, "SELECT * FROM item") == 1146
        assert not (tmp_path / "data" / "shop.sqlite").exists()
        query(b, "CREATE DATABASE shop")  # the same name again: a new, empty file
        query(b, "CREATE TABLE shop.item (id INT PRIMARY KEY)")
        assert query(a, "SELECT COUNT(*) FROM shop.item") == ((0,),)


@pytest.mark.parametrize(("workers", "w1", "w2"), PLACEMENTS)
def test_opposite_order_is_a_deadlock(tmp_path: Path, workers: int, w1: int, w2: int) -> None:
    """Two transactions taking db1 and db2 in opposite orders: one gets 1213 ER_LOCK_DEADLOCK at once, its
    transaction rolled back (RM8 "Deadlocks in InnoDB"), the other goes on; across workers too (the wait-for
    graph is in the shared page's waiter table)."""
    import threading

    with running_server(tmp_path / "data", *OPTIONS, "--skip-log-bin", workers=workers) as srv:
        s1, s2 = sessions(srv.port, workers, w1, w2)
        for sql in (
            "CREATE DATABASE db1",
            "CREATE DATABASE db2",
            "CREATE TABLE db1.t (id INT PRIMARY KEY)",
            "CREATE TABLE db2.t (id INT PRIMARY KEY)",
        ):
            query(s1, sql)
        for s in (s1, s2):
            query(s, "SET SESSION innodb_lock_wait_timeout = 20")
            query(s, "BEGIN")
        query(s1, "INSERT INTO db1.t VALUES (1)")
        query(s2, "INSERT INTO db2.t VALUES (2)")
        codes: list[int] = []
        th = threading.Thread(target=lambda: codes.append(error_code(s1, "INSERT INTO db2.t VALUES (3)")))
        th.start()
        time.sleep(0.5)  # s1 waits for db2
        started = time.monotonic()
        assert error_code(s2, "INSERT INTO db1.t VALUES (4)") == 1213
        assert time.monotonic() - started < 5
        th.join(30)
        assert codes == [0]
        query(s1, "COMMIT")
        assert query(s2, "SELECT id FROM db1.t UNION ALL SELECT id FROM db2.t ORDER BY id") == ((1,), (3,))


@pytest.mark.parametrize(("workers", "w1", "w2"), PLACEMENTS)
def test_a_view_reading_another_schema_works_in_every_worker(
    tmp_path: Path, workers: int, w1: int, w2: int
) -> None:
    """A view in db1 selecting from db2 (RM8 "CREATE VIEW Statement": a view may refer to tables in other
    databases), created in one worker, is read by the other worker's session (opened before it existed), follows
    the base table's changes, and is gone for both after DROP VIEW (1146, "Table 'db1.v' doesn't exist")."""
    with running_server(tmp_path / "data", *OPTIONS, "--log-bin", workers=workers) as srv:
        s1, s2 = sessions(srv.port, workers, w1, w2)
        query(s1, "CREATE DATABASE db1")
        query(s1, "CREATE DATABASE db2")
        query(s1, "CREATE TABLE db2.t (id INT PRIMARY KEY, v INT)")
        query(s1, "INSERT INTO db2.t VALUES (1, 10), (2, 20)")
        assert query(s2, "SELECT COUNT(*) FROM db2.t") == ((2,),)
        query(s1, "CREATE VIEW db1.v AS SELECT id, v * 2 AS w FROM db2.t")
        assert query(s2, "SELECT id, w FROM db1.v ORDER BY id") == ((1, 20), (2, 40))
        query(s2, "INSERT INTO db2.t VALUES (3, 30)")
        assert query(s1, "SELECT SUM(w) FROM db1.v") == ((120,),)
        query(s2, "DROP VIEW db1.v")
        assert error_code(s1, "SELECT * FROM db1.v") == 1146
        assert error_code(s2, "SELECT * FROM db1.v") == 1146


@pytest.mark.parametrize(("workers", "w1", "w2"), PLACEMENTS)
def test_a_wait_for_a_schema_file_is_listed_in_every_worker(
    tmp_path: Path, workers: int, w1: int, w2: int
) -> None:
    """The waiter of a schema file held by an open transaction (of another worker or the same) is LOCK WAIT in
    INNODB_TRX, blocked by the holder in data_lock_waits, and waiting in SHOW ENGINE INNODB STATUS, read from a
    third connection (RM8 "Using InnoDB Transaction and Locking Information")."""
    import threading

    # row locks OFF: with ON the INSERT's table lock is the first wait (listed as ``<trx>:gtidkit:table:<key>``,
    # tests/engine/test_row_locks.py), and SHOW ENGINE INNODB STATUS does not show row-lock waits yet
    with running_server(
        tmp_path / "data", *OPTIONS, "--log-bin", "--gtidkit-row-locks=OFF", workers=workers
    ) as srv:
        s1, s2 = sessions(srv.port, workers, w1, w2)
        query(s1, "CREATE DATABASE db1")
        query(s1, "CREATE TABLE db1.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        id1 = query(s1, "SELECT CONNECTION_ID()")[0][0]
        id2 = query(s2, "SELECT CONNECTION_ID()")[0][0]
        query(s1, "BEGIN")
        query(s1, "INSERT INTO db1.t (v) VALUES (1)")
        query(s2, "SET SESSION innodb_lock_wait_timeout = 10")
        codes: list[int] = []
        th = threading.Thread(target=lambda: codes.append(error_code(s2, "INSERT INTO db1.t (v) VALUES (2)")))
        th.start()
        watcher = connect(srv.port)
        try:
            trx: tuple = ()
            deadline = time.monotonic() + 8
            while time.monotonic() < deadline:
                trx = query(
                    watcher,
                    "SELECT trx_mysql_thread_id, trx_state, trx_requested_lock_id "
                    "FROM information_schema.INNODB_TRX ORDER BY trx_mysql_thread_id",
                )
                if len(trx) == 2:
                    break
                time.sleep(0.05)
            assert sorted(trx) == sorted(
                ((id1, "RUNNING", None), (id2, "LOCK WAIT", f"{id2}:gtidkit:file:db1"))
            )
            assert query(
                watcher,
                "SELECT REQUESTING_ENGINE_TRANSACTION_ID, BLOCKING_ENGINE_TRANSACTION_ID "
                "FROM performance_schema.data_lock_waits",
            ) == ((id2, id1),)
            status = query(watcher, "SHOW ENGINE INNODB STATUS")[0][2]
            assert (
                f"TABLE LOCK table `db1`.`*` trx id {id2} lock mode X waiting held by trx id {id1}" in status
            )
        finally:
            query(s1, "COMMIT")
            th.join(15)
            watcher.close()
        assert codes == [0]


@pytest.mark.parametrize(("workers", "w1", "w2"), PLACEMENTS)
def test_a_read_view_sees_one_commit_point_across_workers(
    tmp_path: Path, workers: int, w1: int, w2: int
) -> None:
    """A writer (session 2) commits to db1 and db2 in a loop; the reader (session 1, in the same or another
    worker) reads db1's counter then db2's in REPEATABLE READ transactions: always equal (RM8 "Consistent
    Nonlocking Reads"), and a read after a commit inside the transaction still sees the snapshot."""
    import threading

    with running_server(tmp_path / "data", *OPTIONS, "--skip-log-bin", workers=workers) as srv:
        s1, s2 = sessions(srv.port, workers, w1, w2)
        for sql in (
            "CREATE DATABASE db1",
            "CREATE DATABASE db2",
            "CREATE TABLE db1.c (id INT PRIMARY KEY, n INT)",
            "CREATE TABLE db2.c (id INT PRIMARY KEY, n INT)",
            "INSERT INTO db1.c VALUES (1, 0)",
            "INSERT INTO db2.c VALUES (1, 0)",
        ):
            query(s1, sql)
        query(s1, "START TRANSACTION WITH CONSISTENT SNAPSHOT")
        query(s2, "BEGIN")
        query(s2, "UPDATE db1.c SET n = n + 1")
        query(s2, "UPDATE db2.c SET n = n + 1")
        query(s2, "COMMIT")
        assert query(s1, "SELECT n FROM db2.c") == ((0,),)  # the snapshot was made at START TRANSACTION
        query(s1, "COMMIT")
        stop = time.monotonic() + 3
        failed: list[BaseException] = []

        def write() -> None:
            try:
                while time.monotonic() < stop:
                    query(s2, "BEGIN")
                    query(s2, "UPDATE db1.c SET n = n + 1")
                    query(s2, "UPDATE db2.c SET n = n + 1")
                    query(s2, "COMMIT")
            except pymysql.err.MySQLError as err:  # reported below
                failed.append(err)

        th = threading.Thread(target=write)
        th.start()
        seen = []
        try:
            while time.monotonic() < stop:
                query(s1, "BEGIN")
                a = query(s1, "SELECT n FROM db1.c")[0][0]
                b = query(s1, "SELECT n FROM db2.c")[0][0]
                query(s1, "COMMIT")
                seen.append((a, b))
        finally:
            th.join(15)
        assert failed == []
        assert len(seen) > 10 and seen[-1][0] > 5, seen[-3:]
        assert [p for p in seen if p[0] != p[1]] == []


@pytest.mark.parametrize(("workers", "w1", "w2"), PLACEMENTS)
def test_a_schema_made_again_during_a_transaction_is_not_written_through_its_old_file(
    tmp_path: Path, workers: int, w1: int, w2: int
) -> None:
    """Session 1's transaction attached db2's file; session 2 drops db2 and makes it again (a new file). Session
    1's INSERT into the new db2.t must not go to the dropped file (the row would be lost): it fails with 1412
    ER_TABLE_DEF_CHANGED ("Table definition has changed, please retry transaction"), and the retried transaction
    commits its row where everyone sees it. (InnoDB would let the INSERT write the new table at once: a
    difference, without loss.)"""
    with running_server(tmp_path / "data", *OPTIONS, "--log-bin", workers=workers) as srv:
        s1, s2 = sessions(srv.port, workers, w1, w2)
        for sql in (
            "CREATE DATABASE db1",
            "CREATE DATABASE db2",
            "CREATE TABLE db1.t (id INT PRIMARY KEY)",
            "CREATE TABLE db2.t (id INT PRIMARY KEY)",
        ):
            query(s1, sql)
        query(s1, "BEGIN")
        query(s1, "INSERT INTO db1.t VALUES (1)")
        query(s2, "DROP DATABASE db2")
        query(s2, "CREATE DATABASE db2")
        query(s2, "CREATE TABLE db2.t (id INT PRIMARY KEY)")
        assert error_code(s1, "INSERT INTO db2.t VALUES (1)") == 1412
        query(s1, "ROLLBACK")
        query(s1, "BEGIN")
        query(s1, "INSERT INTO db1.t VALUES (1)")
        query(s1, "INSERT INTO db2.t VALUES (1)")
        query(s1, "COMMIT")
        assert query(s2, "SELECT (SELECT COUNT(*) FROM db1.t), (SELECT COUNT(*) FROM db2.t)") == ((1, 1),)
