"""Issue 21 step 4: a primary (``shared=True``) and a worker-role open in another process on one datadir.

What MySQL promises of one server (docs/design/multi_worker.md §2.1): one gtid_executed (a commit in one process
is in the other's ``@@GLOBAL.gtid_executed`` and ends its WAIT_FOR_EXECUTED_GTID_SET), GNOs never handed out
twice, one binary log in commit order; after a restart, recovery finds data = gtid_executed = the binlog =
mysql.gtid_executed. Each worker is a real process (tests/engine/multi/engine_worker.py) on real SQLite.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from gtidkit.binlog.file import read_transactions
from gtidkit.engine.server import Server
from gtidkit.gtid import GtidSet
from tests.protocol.prefork import popen_python

WORKER = Path(__file__).with_name("engine_worker.py")
# the engine write lock's hand-off across processes is what these tests hold a transaction open for: row locks OFF,
# so a transaction's single-row INSERT takes the write lock at once (with ON it takes it at COMMIT, and another
# row's writer does not wait, as in InnoDB: tests/engine/test_row_locks.py, tests/protocol/test_row_locks_server.py)
OPTS = {
    "log_bin": True,
    "gtid_mode": "ON",
    "enforce_gtid_consistency": "ON",
    "server_id": 1,
    "gtidkit_row_locks": False,
}


class Worker:
    """A worker-role engine process on ``datadir``."""

    def __init__(self, datadir: Path, opts: dict | None = None) -> None:
        env = dict(os.environ)
        args = [f"{k}={json.dumps(v)}" for k, v in (OPTS if opts is None else opts).items()]
        self.proc = popen_python(
            [WORKER, str(datadir), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self._read() == {"ready": True}

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        assert line, f"worker exited with {self.proc.wait(10)}"
        return json.loads(line)

    def send(self, cmd: dict) -> None:
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()

    def ask(self, cmd: dict) -> dict:
        self.send(cmd)
        return self._read()

    def sql(self, text: str) -> list[list]:
        reply = self.ask({"sql": text})
        assert "rows" in reply, reply
        return reply["rows"]

    def quit(self) -> None:
        if self.proc.poll() is None:
            self.send({"quit": True})
            self.proc.wait(30)
        assert self.proc.returncode == 0

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def primary(tmp_path):
    server = Server.open(tmp_path, shared=True, **OPTS)
    s = server.session()
    s.execute("CREATE DATABASE test")  # GNO 1
    s.execute("CREATE TABLE test.t (id INT PRIMARY KEY, who VARCHAR(8))")
    s.close()
    yield server
    if not server.closed:
        server.shutdown()


@pytest.fixture
def worker(primary):
    w = Worker(primary.datadir)
    yield w
    w.kill()


def test_commit_in_primary_seen_by_worker(primary, worker):
    s = primary.session()
    s.execute("INSERT INTO test.t VALUES (1, 'a')")
    executed = str(primary.gtid_state.executed())
    assert worker.sql("SELECT @@GLOBAL.gtid_executed") == [[executed]]
    assert worker.sql("SELECT id FROM test.t") == [[1]]


def test_commit_in_worker_seen_by_primary(primary, worker):
    worker.sql("INSERT INTO test.t VALUES (2, 'w')")
    uuid = str(primary.server_uuid)
    # the fixture's CREATE DATABASE and CREATE TABLE (GNOs 1-2), then the worker's insert (GNO 3)
    s = primary.session()
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{uuid}:1-3",)]
    assert s.execute("SELECT WAIT_FOR_EXECUTED_GTID_SET(CONCAT(@@server_uuid, ':3'), 1)")[-1].rows == [(0,)]


@pytest.mark.parametrize("waiter", ["worker"], ids=["worker-waits-for-primary"])
def test_wait_for_executed_gtid_set_across_processes(primary, worker, waiter):
    uuid = str(primary.server_uuid)
    worker.send({"sql": f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{uuid}:3', 10)"})
    s = primary.session()
    s.execute("INSERT INTO test.t VALUES (3, 'p')")
    assert worker._read() == {"rows": [[0]]}
    # and one that no process commits times out with 1
    assert worker.sql(f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{uuid}:4', 0.2)") == [[1]]


def test_concurrent_inserts_unique_gnos_one_binlog(primary, worker, tmp_path):
    n = 500
    primary.session().execute("CREATE TABLE test.c (id INT PRIMARY KEY)")  # GNO 3
    worker.send({"inserts": n, "table": "test.c", "first": 100000})
    s = primary.session()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            for i in range(n):
                s.execute(f"INSERT INTO test.c (id) VALUES ({i})")
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    t = threading.Thread(target=run)
    t.start()
    t.join(300)
    assert not errors
    assert worker._read() == {"done": n}
    worker.quit()
    uuid = str(primary.server_uuid)
    total = 3 + 2 * n
    # through a statement (its start catches up with the worker's last commits)
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{uuid}:1-{total}",)]
    primary.shutdown()
    # one binary log in commit order: every GNO once, ascending, as Gtid events in the files
    reopened = Server.open(tmp_path, **OPTS)
    try:
        assert str(reopened.gtid_state.executed()) == f"{uuid}:1-{total}"
        gnos = []
        for name in reopened.binlog.index:
            for tx in read_transactions(reopened.binlog.path(name)).transactions:
                if tx.gtid is not None:
                    gnos.append(tx.gtid.gno)
        assert gnos == list(range(1, total + 1))
        r = reopened.session()
        assert r.execute("SELECT COUNT(*) FROM test.c")[-1].rows == [(2 * n,)]
        table = GtidSet.parse(
            ",".join(
                f"{row[0]}:{row[1]}-{row[2]}"
                for row in r.execute(
                    "SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed"
                )[-1].rows
            )
        )
        assert table == reopened.gtid_state.executed()
    finally:
        reopened.shutdown()


def test_write_lock_across_processes_1205_then_hand_off(primary, worker):
    """The engine write lock spans processes (engine/shared/write_lock.py behind Server.acquire_write_lock): an
    open write transaction in the primary makes the worker's INSERT wait and fail with 1205 after the worker's
    innodb_lock_wait_timeout (InnoDB's ER_LOCK_WAIT_TIMEOUT); once it commits the worker writes."""
    s = primary.session()
    s.execute("BEGIN")
    s.execute("INSERT INTO test.t VALUES (10, 'p')")
    worker.sql("SET SESSION innodb_lock_wait_timeout = 1")
    reply = worker.ask({"sql": "INSERT INTO test.t VALUES (11, 'w')"})
    assert reply["error"] == 1205, reply
    assert reply["message"] == "Lock wait timeout exceeded; try restarting transaction"
    s.execute("COMMIT")
    worker.sql("INSERT INTO test.t VALUES (11, 'w')")
    uuid = str(primary.server_uuid)
    assert worker.sql("SELECT @@GLOBAL.gtid_executed") == [[f"{uuid}:1-4"]]


def test_write_lock_held_by_worker_is_handed_to_primary(primary, worker):
    """A write transaction open in the worker blocks the primary's writer until the worker commits: the
    primary's INSERT then takes the next GNO after the worker's."""
    worker.sql("BEGIN")
    worker.sql("INSERT INTO test.t VALUES (20, 'w')")
    s = primary.session()
    done: list[object] = []
    t = threading.Thread(target=lambda: done.append(s.execute("INSERT INTO test.t VALUES (21, 'p')")))
    t.start()
    t.join(0.5)
    assert t.is_alive() and not done  # waiting for the worker's transaction
    worker.sql("COMMIT")
    t.join(30)
    assert done
    uuid = primary.server_uuid
    rows = s.execute("SELECT id FROM test.t ORDER BY id")[-1].rows
    assert rows == [(20,), (21,)]
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{uuid}:1-4",)]
    # the worker's insert was GNO 3, the primary's GNO 4: the binlog has them in that order
    gtids = [
        tx.gtid.gno
        for name in primary.binlog.index
        for tx in read_transactions(primary.binlog.path(name)).transactions
        if tx.gtid is not None
    ]
    assert gtids == [1, 2, 3, 4]


def test_worker_open_refused_without_a_shared_primary(tmp_path):
    """A worker-role open needs the shared page a running primary built: a clear error, not a traceback."""
    Server.open(tmp_path, **OPTS).shutdown()
    (tmp_path / "gtidkit.shm").unlink(missing_ok=True)
    with pytest.raises(Exception, match="cannot open the shared page"):
        Server.open(tmp_path, role="worker", **OPTS)


def test_kill_query_ends_a_wait_for_the_lock_another_process_holds(primary, worker):
    """KILL QUERY of a session waiting for the write lock that another process holds ends the wait at once with
    1317 ER_QUERY_INTERRUPTED (InnoDB: ``trx_is_interrupted`` -> DB_INTERRUPTED), long before the timeout."""
    worker.sql("BEGIN")
    worker.sql("INSERT INTO test.t VALUES (30, 'w')")
    s = primary.session()
    s.execute("SET SESSION innodb_lock_wait_timeout = 30")
    got: list[BaseException] = []

    def write() -> None:
        try:
            s.execute("INSERT INTO test.t VALUES (31, 'p')")
        except BaseException as err:  # noqa: BLE001 - checked below
            got.append(err)

    t = threading.Thread(target=write)
    t.start()
    t.join(0.5)
    assert t.is_alive()
    started = time.monotonic()
    primary.session().execute(f"KILL QUERY {s.id}")
    t.join(10)
    assert time.monotonic() - started < 5
    assert [getattr(e, "code", None) for e in got] == [1317]
    worker.sql("COMMIT")


def test_auto_increment_continues_across_processes(primary, worker):
    """AUTO_INCREMENT values come from one sequence whichever process inserts (a cached counter would hand the
    primary's next insert a value the worker already used: 1062)."""
    s = primary.session()
    s.execute("CREATE TABLE test.a (id INT PRIMARY KEY AUTO_INCREMENT, who VARCHAR(8))")
    s.execute("INSERT INTO test.a (who) VALUES ('p')")
    worker.sql("INSERT INTO test.a (who) VALUES ('w')")
    s.execute("INSERT INTO test.a (who) VALUES ('p')")
    worker.sql("INSERT INTO test.a (who) VALUES ('w')")
    assert s.execute("SELECT id, who FROM test.a ORDER BY id")[-1].rows == [
        (1, "p"),
        (2, "w"),
        (3, "p"),
        (4, "w"),
    ]


def test_innodb_trx_lists_a_waiter_of_another_process(primary, worker):
    """information_schema.INNODB_TRX in the primary shows its own open write transaction RUNNING and the worker's
    session waiting for it in LOCK WAIT (what a DBA reads to find whom to KILL)."""
    wid = worker.sql("SELECT CONNECTION_ID()")[0][0]
    s = primary.session()
    s.execute("BEGIN")
    s.execute("INSERT INTO test.t VALUES (40, 'p')")
    worker.sql("SET SESSION innodb_lock_wait_timeout = 5")
    worker.send({"sql": "INSERT INTO test.t VALUES (41, 'w')"})
    q = primary.session()
    deadline = time.monotonic() + 5
    rows: list = []
    while time.monotonic() < deadline:
        rows = q.execute("SELECT trx_mysql_thread_id, trx_state FROM information_schema.INNODB_TRX")[-1].rows
        if len(rows) == 2:
            break
        time.sleep(0.05)
    assert sorted(rows, key=lambda r: r[1]) == [(wid, "LOCK WAIT"), (s.id, "RUNNING")]
    waits = q.execute(
        "SELECT REQUESTING_THREAD_ID, BLOCKING_THREAD_ID FROM performance_schema.data_lock_waits"
    )
    assert waits[-1].rows == [(wid, s.id)]
    s.execute("COMMIT")
    assert worker._read() == {"rows": []}


def test_shared_open_rebuilds_a_commit_log_without_autoincrement(tmp_path):
    """A commit log created before workers followed it (seq restarting at 1 after a trim) is rebuilt with
    AUTOINCREMENT, its rows kept, when the server opens with the shared page (before any worker joins)."""
    import sqlite3

    Server.open(tmp_path, **OPTS).shutdown()
    db = sqlite3.connect(tmp_path / "gtidkit.sqlite")
    db.executescript(
        'ALTER TABLE "_gk_commit_log" RENAME TO old; '
        'CREATE TABLE "_gk_commit_log" (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, sid TEXT, tag TEXT, '
        "gno INTEGER, file TEXT NOT NULL, start_pos INTEGER NOT NULL, end_pos INTEGER NOT NULL, payload BLOB); "
        'INSERT INTO "_gk_commit_log" SELECT * FROM old; DROP TABLE old;'
    )
    db.close()
    server = Server.open(tmp_path, shared=True, **OPTS)
    try:
        db = server.storage.sqlite(server.internal_conn)
        sql = db.execute("SELECT sql FROM sqlite_master WHERE name = '_gk_commit_log'").fetchone()[0]
        assert "AUTOINCREMENT" in sql.upper()
        # the start-up's mark of the new active file was written before the rebuild, and kept by it
        assert db.execute('SELECT kind, file FROM "_gk_commit_log"').fetchall() == [("file", "binlog.000002")]
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    "ddl, check, expected",
    [
        ("CREATE DATABASE other", "USE other", []),
        (
            "DROP DATABASE test",
            "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'test'",
            [[0]],
        ),
        (
            "ALTER DATABASE test CHARACTER SET latin1",
            "SELECT DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'test'",
            [["latin1"]],
        ),
    ],
    ids=["create", "drop", "alter"],
)
def test_schema_statements_in_one_process_reach_the_other(primary, worker, ddl, check, expected):
    # a schema lives in the catalog's _gk_schemata rows, not in SQLite's schema: the catch-up must see it change
    # (sysbench's connection to `sbtest` in a second worker failed with 1049 before)
    primary.session().execute(ddl)
    assert worker.sql(check) == expected


#: the binlog-off passive replica of the read scale-out use case: no commit-log row for any transaction
BINLOG_OFF = {**OPTS, "log_bin": False}
SOURCE = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def test_binlog_off_commits_reach_the_other_process(tmp_path):
    """With the binary log off, replicated transactions (assigned GTIDs, as the applier commits them) leave no
    commit-log row: the other process still sees their GTIDs in ``gtid_executed`` and, as MySQL adds the GTIDs of
    transactions it does not binlog to ``lost_gtids``, in ``gtid_purged`` (RM8 "gtid_purged": GTIDs of replicated
    transactions committed with binary logging disabled), their tables (the catalog follows the DDL), and one
    AUTO_INCREMENT sequence."""
    primary = Server.open(tmp_path, shared=True, **BINLOG_OFF)
    worker = Worker(primary.datadir, BINLOG_OFF)
    try:
        s = primary.session()
        for gno, sql in enumerate(
            [
                "CREATE DATABASE r",
                "CREATE TABLE r.t (id INT PRIMARY KEY AUTO_INCREMENT, who VARCHAR(8))",
                "INSERT INTO r.t (who) VALUES ('p')",
            ],
            start=1,
        ):
            s.execute(f"SET GTID_NEXT = '{SOURCE}:{gno}'")
            s.execute(sql)
        s.execute("SET GTID_NEXT = 'AUTOMATIC'")
        assert worker.sql("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged") == [[f"{SOURCE}:1-3"] * 2]
        assert worker.sql("SELECT id, who FROM r.t") == [[1, "p"]]
        for gno, (who, inserter) in enumerate([("w", "worker"), ("p", "primary"), ("w", "worker")], start=4):
            sql = f"SET GTID_NEXT = '{SOURCE}:{gno}'; INSERT INTO r.t (who) VALUES ('{who}')"
            if inserter == "worker":
                worker.sql(sql + "; SET GTID_NEXT = 'AUTOMATIC'")
            else:
                s.execute(f"SET GTID_NEXT = '{SOURCE}:{gno}'")
                s.execute(f"INSERT INTO r.t (who) VALUES ('{who}')")
                s.execute("SET GTID_NEXT = 'AUTOMATIC'")
        assert s.execute("SELECT id, who FROM r.t ORDER BY id")[-1].rows == [
            (1, "p"),
            (2, "w"),
            (3, "p"),
            (4, "w"),
        ]
        assert s.execute("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged")[-1].rows == [
            (f"{SOURCE}:1-6",) * 2
        ]
        s.close()
    finally:
        worker.kill()
        primary.shutdown()


def test_one_wal_fsync_covers_both_processes_commits(primary, worker):
    """Group sync across processes (engine/shared/wal_sync.py): while the sync lock is held (a leader of a third
    process in its fsync), the primary and the worker each COMMIT and queue in their sync stage; once it is free,
    whichever leads fsyncs for both (both released the write lock before), the other is covered: one fsync for two
    transactions, both acknowledged, both in each process's gtid_executed."""
    import fcntl

    from gtidkit.engine.shared.wal_sync import SYNC_LOCK_FILE

    page = primary.shared_page
    committed = page.counter("committed")
    fd = os.open(Path(primary.datadir) / SYNC_LOCK_FILE, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    done: list[object] = []
    try:
        before = committed.get()
        s = primary.session()
        t = threading.Thread(target=lambda: done.append(s.execute("INSERT INTO test.t VALUES (10, 'p')")))
        t.start()
        deadline = time.monotonic() + 10
        while committed.get() < before + 1 and time.monotonic() < deadline:
            time.sleep(0.005)
        worker.send({"sql": "INSERT INTO test.t VALUES (11, 'w')"})
        while committed.get() < before + 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert committed.get() == before + 2  # both released the write lock: both wait in their sync stage
        time.sleep(0.1)
        assert not done  # no OK before the fsync
        fsyncs_before = primary.group_sync.fsyncs
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    t.join(10)
    assert worker._read() == {"rows": []}
    w = worker.ask({"fsyncs": True})
    primary_wal = primary.group_sync.shared
    # the worker committed nothing before (the fixture's statements ran in the primary)
    assert (primary.group_sync.fsyncs - fsyncs_before) + w["fsyncs"] == 1
    assert primary_wal.covered + w["covered"] == 1
    assert page.counter("synced").get() >= before + 2
    uuid = str(primary.server_uuid)
    assert worker.sql("SELECT @@GLOBAL.gtid_executed") == [[f"{uuid}:1-4"]]
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{uuid}:1-4",)]
