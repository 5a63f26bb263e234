"""GTID state across the workers of `gtidkit server --workers=2` (issue 21 step 6, docs/design/multi_worker.md §5.2
rows "GTID ownership" and "gtid_executed, trackers, WAIT_FOR_EXECUTED_GTID_SET").

Connections are forced into different workers by the supervisor's round-robin placement (the i-th connection goes
to worker i mod 2; each test checks ``@@gtidkit_worker_id``). MySQL is the oracle:

* ``SET gtid_next='uuid:n'`` while another session owns the GTID waits (``set_gtid_next`` in
  ``sql/rpl_gtid_execution.cc``: "Waiting for GTID to be committed"); when the owner commits, the waiter finds it
  executed and its transaction is skipped (RM8 "gtid_next": a GTID already in gtid_executed makes the transaction
  be ignored); when the owner rolls back, disconnects or is killed, the waiter owns it. ``@@GLOBAL.gtid_owned``
  lists ``uuid:n#thread_id`` of every owner (``Owned_gtids::to_string``).
* ``WAIT_FOR_EXECUTED_GTID_SET(set, timeout)`` returns 0 once the set is executed, 1 on timeout (RM8 "Functions
  Used with GTIDs"; mysql-test ``rpl_gtid/rpl_wait_for_executed_gtid_set.result``), ends with 1317 when KILL QUERY
  interrupts it.
* A GTID committed with the binary log off for the session (``sql_log_bin=0``) or the server (``--skip-log-bin``)
  is in gtid_executed and gtid_purged (RM8 "gtid_purged": "GTIDs of transactions that were committed while binary
  logging was disabled"); ``session_track_gtids=ALL_GTIDS`` reports the whole gtid_executed.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest
from pymysql.constants import CLIENT

from gtidkit.protocol.client import last_gtids
from tests.protocol.server_proc import ServerProcess, process_name, running_server

GTIDS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")
#: the UUID of the GTIDs given with gtid_next (as a replica's applier or a mysqlbinlog replay gives them)
SOURCE = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"


def connect(port: int, **kw: object) -> pymysql.connections.Connection:
    """A PyMySQL connection as root (autocommit)."""
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True, **kw)


def query(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """Run ``sql``; its rows."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def scalar(conn: pymysql.connections.Connection, sql: str) -> object:
    """The first column of the first row of ``sql``."""
    return query(conn, sql)[0][0]


def in_workers(port: int, *wanted: int, **kw: object) -> list[pymysql.connections.Connection]:
    """Connections opened one after the other, so that the i-th lands in worker ``wanted[i]`` (checked)."""
    conns = [connect(port, **kw) for _ in wanted]
    assert [scalar(c, "SELECT @@gtidkit_worker_id") for c in conns] == list(wanted)
    return conns


def wait_until(check, timeout: float = 60.0, what: str = "condition") -> None:
    """Poll ``check()`` until it is true."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def flat(text: object) -> str:
    """A GTID set text without the line breaks MySQL puts after each comma."""
    return str(text).replace("\n", "")


class Background:
    """Run ``sql`` on ``conn`` in a thread; :meth:`result` gives its rows or the MySQL error code."""

    def __init__(self, conn: pymysql.connections.Connection, sql: str) -> None:
        self.outcome: object = None
        self.ended = 0.0
        self.thread = threading.Thread(target=self._run, args=(conn, sql), daemon=True)
        self.thread.start()

    def _run(self, conn: pymysql.connections.Connection, sql: str) -> None:
        try:
            self.outcome = query(conn, sql)
        except pymysql.MySQLError as err:
            self.outcome = err.args[0]
        self.ended = time.monotonic()

    def running(self) -> bool:
        """Whether the statement has not returned yet."""
        return self.thread.is_alive()

    def result(self, timeout: float = 60) -> object:
        """The rows, or the error code; fails when the statement does not end within ``timeout`` seconds."""
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the statement never returned"
        return self.outcome


@pytest.fixture
def two_workers(tmp_path: Path) -> Iterator[ServerProcess]:
    """`gtidkit server --workers=2` with GTIDs and the binary log on, a table app.t."""
    with running_server(tmp_path / "d", *GTIDS, "--log-bin", "--workers=2", base=(), supervised=True) as srv:
        c, other = in_workers(srv.port, 0, 1)  # two: the tests' first connection lands in worker 0 again
        query(c, "CREATE DATABASE app")
        query(c, "CREATE TABLE app.t (id INT PRIMARY KEY, who VARCHAR(10))")
        c.close()
        other.close()
        yield srv


def waiting_for_gtid(observer: pymysql.connections.Connection, conn_id: int) -> bool:
    """Whether connection ``conn_id`` shows as blocked on a GTID (its processlist state in its own worker)."""
    rows = query(observer, "SELECT ID, STATE FROM information_schema.PROCESSLIST")
    return any(r[0] == conn_id and r[1] == "Waiting for GTID to be committed" for r in rows)


# ------------------------------------------------------------------------------------------------ ownership
def _owner_lets_go(srv: ServerProcess, a: pymysql.connections.Connection, how: str) -> None:
    """The owner in worker 0 ends its ownership of SOURCE:1 ``how``."""
    if how == "commit":
        query(a, "INSERT INTO app.t VALUES (1, 'a')")  # autocommit: the owned GTID commits
    elif how == "rollback":
        query(a, "ROLLBACK")
    elif how == "disconnect":
        a.close()
    elif how == "kill":
        killer = connect(srv.port)  # the 3rd connection: worker 0, beside the owner
        assert scalar(killer, "SELECT @@gtidkit_worker_id") == 0
        query(killer, f"KILL {a.thread_id()}")
        killer.close()
    elif how == "worker-dies":
        (pid,) = [p for p in srv.worker_pids() if process_name(p) == "gtidkit-worker0"]
        os.kill(pid, signal.SIGKILL)
    else:
        raise AssertionError(how)


@pytest.mark.parametrize(
    ("how", "outcome"),
    [
        ("commit", "skipped"),
        ("rollback", "owned"),
        ("disconnect", "owned"),
        ("kill", "owned"),
        ("worker-dies", "owned"),
    ],
    ids=["owner-commits", "owner-rolls-back", "owner-disconnects", "owner-killed", "owner-worker-sigkilled"],
)
def test_gtid_next_blocks_across_workers_until_the_owner_lets_go(
    two_workers: ServerProcess, how: str, outcome: str
) -> None:
    srv = two_workers
    a, b = in_workers(srv.port, 0, 1)
    query(a, f"SET GTID_NEXT = '{SOURCE}:1'")
    if how == "rollback":
        query(a, "BEGIN")
        query(a, "INSERT INTO app.t VALUES (1, 'a')")
    assert scalar(b, "SELECT @@GLOBAL.gtid_owned") == f"{SOURCE}:1#{a.thread_id()}"
    waiter = Background(b, f"SET GTID_NEXT = '{SOURCE}:1'")
    time.sleep(0.3)
    assert waiter.running(), "SET GTID_NEXT did not wait for the owner in the other worker"
    _owner_lets_go(srv, a, how)
    assert waiter.result() in ((), [])  # an OK packet: no rows
    if outcome == "skipped":
        # the GTID is executed: b owns nothing and its transaction is skipped (no row, no error)
        assert scalar(b, "SELECT @@SESSION.gtid_owned") == ""
        query(b, "INSERT INTO app.t VALUES (2, 'b')")
        assert query(b, "SELECT id, who FROM app.t ORDER BY id") == ((1, "a"),)
    else:
        assert scalar(b, "SELECT @@SESSION.gtid_owned") == f"{SOURCE}:1"
        assert scalar(b, "SELECT @@GLOBAL.gtid_owned") == f"{SOURCE}:1#{b.thread_id()}"
        query(b, "INSERT INTO app.t VALUES (2, 'b')")
        assert query(b, "SELECT id, who FROM app.t ORDER BY id") == ((2, "b"),)
    query(b, "SET GTID_NEXT = AUTOMATIC")
    assert scalar(b, "SELECT @@GLOBAL.gtid_owned") == ""
    assert f"{SOURCE}:1" in flat(scalar(b, "SELECT @@GLOBAL.gtid_executed"))


def test_automatic_gtids_skip_a_gno_owned_in_the_other_worker(two_workers: ServerProcess) -> None:
    """A session of worker 0 owns server_uuid:N before anything took it; worker 1's automatic GTIDs go around it
    (``generate_automatic_gtid``: the first GNO neither executed nor owned), and N is b's once committed."""
    a, b = in_workers(two_workers.port, 0, 1)
    uuid = scalar(a, "SELECT @@server_uuid")
    assert flat(scalar(a, "SELECT @@GLOBAL.gtid_executed")) == f"{uuid}:1-2"  # the fixture's two DDL
    query(a, f"SET GTID_NEXT = '{uuid}:3'")
    query(b, "INSERT INTO app.t VALUES (10, 'b')")  # automatic: 3 is owned in worker 0, so 4
    assert flat(scalar(b, "SELECT @@GLOBAL.gtid_executed")) == f"{uuid}:1-2:4"
    query(a, "INSERT INTO app.t VALUES (11, 'a')")
    query(a, "SET GTID_NEXT = AUTOMATIC")
    assert flat(scalar(b, "SELECT @@GLOBAL.gtid_executed")) == f"{uuid}:1-4"


# ----------------------------------------------------------------------------------- WAIT_FOR_EXECUTED_GTID_SET
@pytest.mark.parametrize(
    "committer", [0, 1], ids=["committer-in-the-other-worker", "committer-in-the-same-worker"]
)
def test_wait_for_executed_gtid_set_wakes_on_a_commit(two_workers: ServerProcess, committer: int) -> None:
    srv = two_workers
    w0, b = in_workers(srv.port, 0, 1)
    a = w0 if committer == 0 else in_workers(srv.port, 0, 1)[1]
    latencies = []
    for gno in range(1, 6):
        waiter = Background(b, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{SOURCE}:{gno}', 60)")
        time.sleep(0.2)
        assert waiter.running()
        query(a, f"SET GTID_NEXT = '{SOURCE}:{gno}'")
        query(a, f"INSERT INTO app.t VALUES ({gno}, 'a')")
        acknowledged = time.monotonic()
        query(a, "SET GTID_NEXT = AUTOMATIC")
        assert waiter.result() == ((0,),)
        latencies.append(max(0.0, waiter.ended - acknowledged))
    print(f"WAIT_FOR_EXECUTED_GTID_SET in worker 1 woken by worker {committer}'s commit, ms after its OK: "
          f"{sorted(round(x * 1000, 2) for x in latencies)}")  # fmt: skip
    # a datagram wake-up, not a poll: well under the old 2 ms tick's worst case even on a loaded machine
    assert sorted(latencies)[len(latencies) // 2] < 0.5
    # the timeout form: 1 after the timeout when nobody commits the set
    t0 = time.monotonic()
    assert query(b, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{SOURCE}:100', 0.5)") == ((1,),)
    assert 0.45 <= time.monotonic() - t0 < 10


def test_gtid_next_wait_across_workers_times_out_with_1205(two_workers: ServerProcess) -> None:
    """As in one process: the wait for a GTID another session owns ends with ER_LOCK_WAIT_TIMEOUT after
    innodb_lock_wait_timeout (gtidkit's bound on MySQL's unbounded wait), and the owner keeps it."""
    a, b = in_workers(two_workers.port, 0, 1)
    query(a, f"SET GTID_NEXT = '{SOURCE}:3'")
    query(b, "SET SESSION innodb_lock_wait_timeout = 1")
    t0 = time.monotonic()
    with pytest.raises(pymysql.MySQLError) as err:
        query(b, f"SET GTID_NEXT = '{SOURCE}:3'")
    assert err.value.args[0] == 1205 and 0.9 <= time.monotonic() - t0 < 10
    assert scalar(b, "SELECT @@GLOBAL.gtid_owned") == f"{SOURCE}:3#{a.thread_id()}"
    assert scalar(b, "SELECT @@SESSION.gtid_owned") == ""


def test_kill_query_ends_a_wait_for_executed_gtid_set(two_workers: ServerProcess) -> None:
    a, b, killer = in_workers(two_workers.port, 0, 1, 0)
    waiter = Background(a, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{SOURCE}:50', 60)")
    wait_until(lambda: waiting_for_gtid(killer, a.thread_id()), what="the waiter to wait")
    query(killer, f"KILL QUERY {a.thread_id()}")
    assert waiter.result(10) == 1317  # ER_QUERY_INTERRUPTED
    assert scalar(a, "SELECT 1") == 1  # the connection survives KILL QUERY
    b.close()


# ------------------------------------------------------------------------ GTIDs without the binary log, trackers
def test_gtid_committed_with_sql_log_bin_0_is_seen_by_the_other_worker(two_workers: ServerProcess) -> None:
    a, b = in_workers(two_workers.port, 0, 1, client_flag=CLIENT.SESSION_TRACK)
    query(b, "SELECT @@GLOBAL.gtid_executed")  # b has read the state once before a's commit
    query(a, "SET sql_log_bin = 0")
    query(a, f"SET GTID_NEXT = '{SOURCE}:7'")
    query(a, "INSERT INTO app.t VALUES (7, 'a')")
    query(a, "SET GTID_NEXT = AUTOMATIC")
    assert f"{SOURCE}:7" in flat(scalar(b, "SELECT @@GLOBAL.gtid_executed"))
    assert f"{SOURCE}:7" in flat(scalar(b, "SELECT @@GLOBAL.gtid_purged"))  # in no binary log
    query(b, "SET SESSION session_track_gtids = ALL_GTIDS")
    query(b, "INSERT INTO app.t VALUES (8, 'b')")
    tracked = last_gtids(b)
    assert tracked is not None and str(tracked).replace("\n", "") == flat(
        scalar(a, "SELECT @@GLOBAL.gtid_executed")
    )
    assert f"{SOURCE}:7" in str(tracked).replace("\n", "")


def test_skip_log_bin_workers_see_each_others_gtids(tmp_path: Path) -> None:
    with running_server(
        tmp_path / "d", *GTIDS, "--skip-log-bin", "--workers=2", base=(), supervised=True
    ) as srv:
        a, b = in_workers(srv.port, 0, 1)
        query(a, "CREATE DATABASE app")
        query(a, "CREATE TABLE app.t (id INT PRIMARY KEY)")
        for worker, conn, gno in ((0, a, 1), (1, b, 2), (0, a, 3)):
            query(conn, f"SET GTID_NEXT = '{SOURCE}:{gno}'")
            query(conn, f"INSERT INTO app.t VALUES ({gno})")
            query(conn, "SET GTID_NEXT = AUTOMATIC")
        # the other worker already knows: b must skip SOURCE:3, a must skip SOURCE:2
        for conn, gno in ((b, 3), (a, 2)):
            query(conn, f"SET GTID_NEXT = '{SOURCE}:{gno}'")
            query(conn, f"INSERT INTO app.t VALUES ({gno + 100})")
            query(conn, "SET GTID_NEXT = AUTOMATIC")
        assert query(a, "SELECT id FROM app.t ORDER BY id") == ((1,), (2,), (3,))
        for conn in (a, b):
            assert flat(scalar(conn, "SELECT @@GLOBAL.gtid_executed")) == f"{SOURCE}:1-3"
            assert flat(scalar(conn, "SELECT @@GLOBAL.gtid_purged")) == f"{SOURCE}:1-3"


@pytest.mark.parametrize("log_bin", ["--log-bin", "--skip-log-bin"], ids=["log-bin", "skip-log-bin"])
def test_racing_sessions_of_two_workers_execute_each_gtid_once(tmp_path: Path, log_bin: str) -> None:
    """Four sessions, two per worker, each replaying the same 40 GTIDs (as several mysqlbinlog replays of one
    binlog would): every GTID's transaction runs exactly once, whoever wins it, and the others skip it."""
    with running_server(tmp_path / "d", *GTIDS, log_bin, "--workers=2", base=(), supervised=True) as srv:
        conns = in_workers(srv.port, 0, 1, 0, 1)
        query(conns[0], "CREATE DATABASE app")
        query(conns[0], "CREATE TABLE app.log (id INT AUTO_INCREMENT PRIMARY KEY, g INT, who INT)")
        errors: list[object] = []

        def replay(i: int) -> None:
            try:
                for g in range(1, 41):
                    query(conns[i], f"SET GTID_NEXT = '{SOURCE}:{g}'")
                    query(conns[i], f"INSERT INTO app.log (g, who) VALUES ({g}, {i})")
                    query(conns[i], "SET GTID_NEXT = AUTOMATIC")
            except pymysql.MySQLError as err:
                errors.append(err.args)

        threads = [threading.Thread(target=replay, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        assert errors == []
        rows = query(conns[1], "SELECT g, COUNT(*) FROM app.log GROUP BY g ORDER BY g")
        twice = query(
            conns[1],
            "SELECT id, g, who FROM app.log WHERE g IN (SELECT g FROM app.log GROUP BY g HAVING COUNT(*) > 1)",
        )
        assert rows == tuple((g, 1) for g in range(1, 41)), twice
        for c in conns[:2]:
            assert f"{SOURCE}:1-40" in flat(scalar(c, "SELECT @@GLOBAL.gtid_executed"))
            assert scalar(c, "SELECT @@GLOBAL.gtid_owned") == ""


def test_a_prepare_in_another_worker_sees_a_table_created_just_before(tmp_path: Path) -> None:
    """COM_STMT_PREPARE as a connection's first command after another worker's CREATE TABLE names the new table
    (sysbench's threads prepare right after connecting): MySQL checks the tables at PREPARE (RM8 "Prepared
    Statements"), and one server has one catalog, so the PREPARE succeeds instead of 1146."""
    import mysql.connector

    with running_server(
        tmp_path / "data", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--skip-log-bin", workers=2
    ) as srv:
        s0 = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True)
        c1 = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True)
        with s0.cursor() as cur:
            cur.execute("SELECT @@gtidkit_worker_id")
            w0 = cur.fetchone()[0]
        probe = c1.cursor()
        probe.execute("SELECT @@gtidkit_worker_id")
        assert (
            probe.fetchall()[0][0] != w0
        )  # round-robin placement: the two sessions are in different workers
        probe.close()
        try:
            with s0.cursor() as cur:
                cur.execute("CREATE DATABASE IF NOT EXISTS test")
            for n in range(5):
                with s0.cursor() as cur:
                    cur.execute(f"CREATE TABLE IF NOT EXISTS test.p{n} (id INT PRIMARY KEY, k INT)")
                    cur.execute(f"INSERT INTO test.p{n} VALUES (1, {n})")
                cur1 = c1.cursor(prepared=True)
                cur1.execute(f"SELECT k FROM test.p{n} WHERE id = %s", (1,))
                assert cur1.fetchall() == [(n,)]
                cur1.close()
        finally:
            c1.close()
            s0.close()
