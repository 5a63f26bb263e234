"""`gtidkit server --supervised`: a supervisor that accepts and hands connections to a worker process (issue 21,
docs/design/multi_worker.md §3.5, §5.1, §5.6).

Real processes and real clients (PyMySQL): connection ids in one server-wide sequence, placement visible in
``@@gtidkit_worker_id``, ``max_connections`` counted by the supervisor (ERR 1040 "Too many connections", MySQL's
ER_CON_COUNT_ERROR), a SIGKILLed worker replaced with no acknowledged commit lost, a second server refused while an
orphaned worker still holds the datadir, SIGTERM / SHUTDOWN stopping every process, and ``--workers=2`` serving one
server from two processes on one datadir.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pymysql
import pytest

from gtidkit.engine.datadir_lock import DatadirInUseError, DatadirLock
from tests.protocol.prefork import run_gtidkit
from tests.protocol.server_proc import children, initialize, process_name, running_server

GTIDS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")
#: the source UUID of the GTIDs given with GTID_NEXT (as a replica's applier does)
SOURCE = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"


def connect(port: int, **kw: object) -> pymysql.connections.Connection:
    """A PyMySQL connection as root (autocommit)."""
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True, **kw)


def query(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """Run ``sql``; its rows."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def wait_until(check, timeout: float = 60.0, what: str = "condition") -> None:
    """Poll ``check()`` until it is true."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def gno_count(gtid_set: str) -> int:
    """How many GTIDs a one-UUID GTID set text holds."""
    total = 0
    for part in gtid_set.replace("\n", "").split(":")[1:]:
        lo, _, hi = part.partition("-")
        total += int(hi or lo) - int(lo) + 1
    return total


def test_connections_are_handed_to_the_worker_with_server_wide_ids(tmp_path: Path) -> None:
    with running_server(tmp_path / "d", *GTIDS, "--skip-log-bin", supervised=True) as srv:
        conns = [connect(srv.port) for _ in range(3)]
        rows = [
            query(c, "SELECT CONNECTION_ID(), @@gtidkit_worker_id, @@GLOBAL.gtidkit_workers, @@port")[0]
            for c in conns
        ]
        ids = [r[0] for r in rows]
        assert ids == list(range(ids[0], ids[0] + 3))  # sequential, allocated by the supervisor
        assert {r[1:] for r in rows} == {(0, 1, srv.port)}
        assert [p.thread_id() for p in conns] == ids  # the Handshake carries the same id
        listed = {r[0] for r in query(conns[0], "SHOW PROCESSLIST")}
        assert set(ids) <= listed
        assert dict(query(conns[0], "SHOW VARIABLES LIKE 'gtidkit_worker%'")) == {
            "gtidkit_worker_id": "0",
            "gtidkit_workers": "1",
        }
        with pytest.raises(pymysql.err.OperationalError) as err:
            query(conns[0], "SET SESSION gtidkit_worker_id = 1")
        assert err.value.args[0] == 1238
        assert len(srv.worker_pids()) == 1
        worker = srv.worker_pids()[0]
        lock = str(tmp_path / "d" / "gtidkit.sqlite.lock")
        assert lock in {
            os.path.realpath(f"/proc/{worker}/fd/{fd}") for fd in os.listdir(f"/proc/{worker}/fd")
        }
        for c in conns:
            c.close()
        assert srv.stop() == 0
        wait_until(lambda: not alive(worker), what="the worker to exit")


def test_plain_server_reports_worker_zero(tmp_path: Path) -> None:
    with running_server(tmp_path / "d", *GTIDS, supervised=False) as srv:
        with connect(srv.port) as c:
            assert query(c, "SELECT @@gtidkit_worker_id, @@gtidkit_workers") == ((0, 1),)
        assert children(srv.proc.pid) == []


@pytest.mark.parametrize("limit", [2], ids=["max2"])
def test_max_connections_counted_by_the_supervisor(tmp_path: Path, limit: int) -> None:
    with running_server(tmp_path / "d", *GTIDS, f"--max-connections={limit}", supervised=True) as srv:
        held = [connect(srv.port) for _ in range(limit)]
        with pytest.raises(pymysql.err.OperationalError) as err:
            connect(srv.port)
        assert err.value.args == (1040, "Too many connections")
        held.pop().close()

        def one_more() -> bool:
            try:
                held.append(connect(srv.port))
            except pymysql.err.OperationalError as e:
                assert e.args[0] == 1040
                return False
            return True

        wait_until(one_more, what="a freed slot")
        assert len(held) == limit
        for c in held:
            c.close()


def test_clean_shutdown_by_sigterm_and_by_shutdown(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    with running_server(datadir, *GTIDS, supervised=True) as srv:
        pid_file = next(datadir.glob("*.pid"))
        assert pid_file.read_text().strip() == str(srv.proc.pid)  # the supervisor is the server's pid
        workers = srv.worker_pids()
        assert srv.stop(signal.SIGTERM) == 0
        assert not pid_file.exists()
        wait_until(lambda: not any(alive(p) for p in workers), what="the workers to exit")
    with running_server(datadir, *GTIDS, init=False, supervised=True) as srv:
        workers = srv.worker_pids()
        with connect(srv.port) as c, c.cursor() as cur:
            cur.execute("SHUTDOWN")
        assert srv.proc.wait(60) == 0
        wait_until(lambda: not any(alive(p) for p in workers), what="the workers to exit")
        log = (datadir / "error.log").read_text()
        assert "SHUTDOWN from a client of worker 0" in log
        assert "Traceback" not in log
    with running_server(
        datadir, *GTIDS, init=False, supervised=True
    ) as srv:  # Ctrl-C: the supervisor alone decides
        workers = srv.worker_pids()
        for pid in workers:
            os.kill(pid, signal.SIGINT)  # ignored by a worker (a terminal sends it to the whole group)
        with connect(srv.port) as c:
            assert query(c, "SELECT 1") == ((1,),)
        assert srv.worker_pids() == workers
        assert srv.stop(signal.SIGINT) == 130  # a clean shutdown reported as an interruption
        assert "interrupted: the server shut down cleanly" in srv.proc.stderr.read()
        wait_until(lambda: not any(alive(p) for p in workers), what="the workers to exit")


@pytest.mark.parametrize("log_bin", ["--log-bin", "--skip-log-bin"], ids=["binlog", "no-binlog"])
def test_worker_sigkill_is_replaced_and_loses_no_acknowledged_commit(tmp_path: Path, log_bin: str) -> None:
    datadir = tmp_path / "d"
    binlog = log_bin == "--log-bin"
    with running_server(datadir, *GTIDS, log_bin, supervised=True) as srv:
        with connect(srv.port) as c:
            query(c, "CREATE DATABASE s")
            query(c, "CREATE TABLE s.t (id INT PRIMARY KEY)")
            setup_gtids = gno_count(query(c, "SELECT @@GLOBAL.gtid_executed")[0][0])
        acked: list[int] = []
        failure: list[BaseException] = []
        stop = threading.Event()

        def commit_loop() -> None:
            conn = connect(srv.port)
            n = 0
            try:
                while not stop.is_set():
                    n += 1
                    if (
                        not binlog
                    ):  # no binary log: only a transaction with its GTID given gets one (MySQL 8.0)
                        query(conn, f"SET GTID_NEXT = '{SOURCE}:{n}'")
                    query(conn, f"INSERT INTO s.t VALUES ({n})")
                    acked.append(n)
                    if not binlog:
                        query(conn, "SET GTID_NEXT = AUTOMATIC")
            except pymysql.err.OperationalError as err:
                failure.append(err)

        t = threading.Thread(target=commit_loop)
        t.start()
        wait_until(lambda: len(acked) >= 20, what="20 commits")
        (old,) = srv.worker_pids()
        os.kill(old, signal.SIGKILL)
        t.join(60)
        stop.set()
        assert failure, "the client of the killed worker saw no error"
        assert failure[0].args[0] in (2013, 2006), failure[0]  # lost connection / server has gone away
        deadline = time.monotonic() + 60
        while True:
            try:
                conn = connect(srv.port)
                break
            except pymysql.err.OperationalError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        with conn:
            (new,) = srv.worker_pids()
            assert new != old
            rows = {r[0] for r in query(conn, "SELECT id FROM s.t")}
            assert set(acked) <= rows  # no acknowledged commit lost
            assert rows <= set(acked) | {max(acked) + 1}  # at most the one in flight committed unacknowledged
            executed = query(conn, "SELECT @@GLOBAL.gtid_executed")[0][0]
            assert gno_count(executed) == setup_gtids + len(rows)  # gtid_executed = data
            if not binlog:
                assert executed == f"{SOURCE}:1-{len(rows)}" and rows == set(range(1, len(rows) + 1))
            table = query(conn, "SELECT COUNT(*) FROM mysql.gtid_executed")[0][0]
            assert table >= 1
            if not binlog:
                query(conn, f"SET GTID_NEXT = '{SOURCE}:{max(rows) + 1}'")
            query(conn, f"INSERT INTO s.t VALUES ({max(rows) + 1})")  # the replacement serves writes
            assert (
                gno_count(query(conn, "SELECT @@GLOBAL.gtid_executed")[0][0]) == setup_gtids + len(rows) + 1
            )
        log = (datadir / "error.log").read_text()
        assert re.search(rf"worker 0 \(pid {old}\) ended \(killed by SIGKILL\)", log)


def test_second_server_refused_and_sigkill_of_the_supervisor_ends_every_process(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    initialize(datadir)
    second = [
        "server",
        "--workers=1",
        "--datadir",
        str(datadir),
        "--port",
        "0",
        "--log-error=",
    ]
    second += [*GTIDS, "--skip-log-bin"]
    with running_server(datadir, *GTIDS, "--log-bin", init=False, supervised=True) as srv:
        supervisor = srv.proc.pid
        (worker,) = srv.worker_pids()
        (fork_server,) = fork_server_pids(supervisor)
        with connect(srv.port) as c:
            query(c, "CREATE DATABASE kept")
        r = run_gtidkit(second, capture_output=True, text=True, timeout=120)
        assert r.returncode == 1
        assert f"The data directory {datadir} is in use by process {supervisor}" in r.stderr
        assert "Traceback" not in r.stderr
        assert srv.stop(signal.SIGKILL) == -signal.SIGKILL  # the whole server crashes, as kill -9 mysqld
        wait_until(lambda: not alive(worker), timeout=10, what="the worker to die with its supervisor")
        wait_until(lambda: not alive(fork_server), timeout=10, what="the fork server to die")
    with (
        running_server(datadir, *GTIDS, "--log-bin", init=False, supervised=False) as again,
        connect(again.port) as c,
    ):
        assert ("kept",) in query(c, "SHOW DATABASES")


ADOPT_CHILD = """
import sys, time
from pathlib import Path
from gtidkit.engine import Server
server = Server.open(sys.argv[1], log_bin=False, datadir_lock_fd=int(sys.argv[2]))  # open, as a worker's
print("adopted", flush=True)
time.sleep(120)
"""

TAKER = """
import os, subprocess, sys
from pathlib import Path
from gtidkit.engine.datadir_lock import DatadirLock
lock = DatadirLock.acquire(Path(sys.argv[1]) / "gtidkit.sqlite")
child = subprocess.Popen(
    [sys.executable, "-c", sys.argv[2], sys.argv[1], str(lock.fileno())],
    pass_fds=(lock.fileno(),), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
)
assert child.stdout.readline().strip() == "adopted"
print(child.pid, flush=True)
os._exit(0)  # the taker dies without releasing: its child still holds the open file description
"""


def test_releasing_an_adopted_lock_leaves_the_holder_locked(tmp_path: Path) -> None:
    database = tmp_path / "gtidkit.sqlite"
    held = DatadirLock.acquire(database)
    try:
        adopted = DatadirLock.adopt(database, os.dup(held.fileno()))
        adopted.release()  # a worker's engine shutting down
        with pytest.raises(DatadirInUseError):
            DatadirLock.acquire(database)
    finally:
        held.release()
    DatadirLock.acquire(database).release()
    other = DatadirLock.acquire(database)
    try:
        stranger = os.open(database.with_name("gtidkit.sqlite.lock"), os.O_RDWR)
        with pytest.raises(DatadirInUseError):  # a description that is not the holder's cannot adopt
            DatadirLock.adopt(database, stranger)
    finally:
        other.release()


def test_an_inherited_lock_keeps_the_datadir_locked_until_its_last_holder_exits(tmp_path: Path) -> None:
    """The mechanism the supervisor relies on (engine/datadir_lock.py): a worker that inherited the lock's
    descriptor keeps the datadir locked after the process that took the lock has died."""
    datadir = tmp_path / "d"
    initialize(datadir)
    taker = subprocess.run(
        [sys.executable, "-c", TAKER, str(datadir), ADOPT_CHILD],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert taker.returncode == 0, taker.stderr
    orphan = int(taker.stdout.strip())
    try:
        assert alive(orphan)
        sql = [
            "sql",
            "--datadir",
            str(datadir),
            "--skip-log-bin",
            "-e",
            "SELECT 1",
        ]
        r = run_gtidkit(sql, capture_output=True, text=True, timeout=120)
        assert r.returncode == 1 and "1015" in r.stderr and "Traceback" not in r.stderr, r.stderr
    finally:
        os.kill(orphan, signal.SIGKILL)
    wait_until(lambda: not alive(orphan), what="the orphan to die")
    r = run_gtidkit(sql, capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout) == (0, "1\n1\n"), r.stderr


def fork_server_pids(supervisor: int) -> list[int]:
    """The fork servers (``/proc/PID/comm`` ``gtidkit-forksrv``) whose parent is ``supervisor``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or process_name(int(proc.name)) != "gtidkit-forksrv":
            continue
        try:
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == supervisor and alive(int(proc.name)):
            found.append(int(proc.name))
    return found


def test_fork_server_is_a_thread_free_fork_of_the_supervisor_holding_only_its_channel_and_the_lock(
    tmp_path: Path,
) -> None:
    """The supervisor forks its fork server before its first thread (docs/design/multi_worker.md §7's fork
    discipline) instead of exec'ing a new interpreter: the fork server runs one thread, holds its stdio, the request
    channel and the datadir lock's description only (not the listener, not the error log, no SQLite file), and the
    workers it forks log each line once (the supervisor's log handler is not inherited)."""
    datadir = tmp_path / "d"
    with running_server(datadir, *GTIDS, "--skip-log-bin", workers=2, supervised=True) as srv:
        supervisor = srv.proc.pid
        (fork_server,) = fork_server_pids(supervisor)
        assert (
            Path(f"/proc/{fork_server}/cmdline").read_bytes()
            == Path(f"/proc/{supervisor}/cmdline").read_bytes()
        )
        assert os.listdir(f"/proc/{fork_server}/task") == [str(fork_server)]
        held = {}
        for fd in os.listdir(f"/proc/{fork_server}/fd"):
            try:
                held[int(fd)] = os.readlink(f"/proc/{fork_server}/fd/{fd}")
            except FileNotFoundError:
                continue
        assert held[0] == os.devnull
        others = sorted(target for fd, target in held.items() if fd > 2)
        assert len(others) == 2, held
        assert others[0] == str(datadir / "gtidkit.sqlite.lock")
        assert others[1].startswith("socket:")
        listener = {
            os.readlink(f"/proc/{supervisor}/fd/{fd}")
            for fd in os.listdir(f"/proc/{supervisor}/fd")
            if os.path.exists(f"/proc/{supervisor}/fd/{fd}")
        }
        assert str(datadir / "error.log") in listener  # the supervisor logs there; its fork server does not
        with connect(srv.port) as a, connect(srv.port) as b:
            assert {query(c, "SELECT @@gtidkit_worker_id")[0][0] for c in (a, b)} == {0, 1}
        assert srv.stop() == 0
    log = (datadir / "error.log").read_text()
    for index in (0, 1):
        assert len(re.findall(rf"worker {index} \(pid \d+\) serving", log)) == 1, log
    assert not alive(fork_server)


def test_two_workers_share_one_datadir_as_one_server(tmp_path: Path) -> None:
    """``--workers=2`` (issue 21 step 4): two connections forced into different workers (round-robin in accept
    order, seen in @@gtidkit_worker_id) see one gtid_executed, wait for each other's GTIDs, and get unique GNOs
    under concurrent autocommit inserts; after a restart as one process the data, gtid_executed and the binary
    log agree."""
    datadir = tmp_path / "d"
    n = 100
    with running_server(datadir, *GTIDS, "--log-bin", "--workers=2", base=(), supervised=True) as srv:
        a, b = connect(srv.port), connect(srv.port)
        assert [query(c, "SELECT @@gtidkit_worker_id, @@GLOBAL.gtidkit_workers")[0] for c in (a, b)] == [
            (0, 2),
            (1, 2),
        ]
        assert len(srv.worker_pids()) == 2
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "CREATE DATABASE d1")
        query(a, "CREATE TABLE d1.t (id INT PRIMARY KEY, w INT)")
        query(a, "INSERT INTO d1.t VALUES (1, 0)")
        assert query(b, "SELECT @@GLOBAL.gtid_executed") == ((f"{uuid}:1-3",),)
        assert query(b, "SELECT id FROM d1.t") == ((1,),)
        query(b, "INSERT INTO d1.t VALUES (2, 1)")
        assert query(a, "SELECT @@GLOBAL.gtid_executed") == ((f"{uuid}:1-4",),)
        waited: list[tuple] = []
        waiter = threading.Thread(
            target=lambda: waited.append(query(b, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{uuid}:5', 10)"))
        )
        waiter.start()
        time.sleep(0.2)
        query(a, "INSERT INTO d1.t VALUES (3, 0)")
        waiter.join(30)
        assert waited == [((0,),)]
        errors: list[BaseException] = []

        def insert(c: pymysql.connections.Connection, base: int, worker: int) -> None:
            try:
                for i in range(n):
                    query(c, f"INSERT INTO d1.t VALUES ({base + i}, {worker})")
            except BaseException as err:  # noqa: BLE001 - reported below
                errors.append(err)

        threads = [
            threading.Thread(target=insert, args=(c, base, w)) for c, base, w in ((a, 1000, 0), (b, 5000, 1))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        assert not errors
        total = 5 + 2 * n
        for c in (a, b):
            assert query(c, "SELECT @@GLOBAL.gtid_executed") == ((f"{uuid}:1-{total}",),)
        a.close()
        b.close()
        assert srv.stop() == 0
    with (
        running_server(datadir, *GTIDS, "--log-bin", base=(), supervised=False) as srv,
        connect(srv.port) as c,
    ):
        assert query(c, "SELECT @@GLOBAL.gtid_executed") == ((f"{uuid}:1-{total}",),)
        assert query(c, "SELECT COUNT(*), SUM(w) FROM d1.t") == ((3 + 2 * n, 1 + n),)
        gnos = [
            int(r[5].split(":")[-1].rstrip("'"))
            for name in [r[0] for r in query(c, "SHOW BINARY LOGS")]
            for r in query(c, f"SHOW BINLOG EVENTS IN '{name}'")
            if r[2] == "Gtid"
        ]
        assert gnos == list(range(1, total + 1))  # every GNO once, in commit order
        # worker 0 stopped last: its Stop event ends the file both workers wrote
        assert query(c, "SHOW BINLOG EVENTS IN 'binlog.000001'")[-1][2] == "Stop"


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (("--gtid-mode=ON", "--enforce-gtid-consistency=OFF"), "3111"),  # the engine refuses: in the worker
        (("--port={busy}",), "Bind on TCP/IP port"),  # the supervisor's listener: the port is taken
    ],
    ids=["engine-refuses", "bind-fails"],
)
@pytest.mark.parametrize("workers", [1, 2], ids=["one-worker", "two-workers"])
def test_supervised_start_failure_exits_1_with_the_reason(
    tmp_path: Path, options: tuple[str, ...], expected: str, workers: int
) -> None:
    datadir = tmp_path / "d"
    initialize(datadir)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        args = [o.format(busy=busy.getsockname()[1]) for o in options]
        r = run_gtidkit(
            [
                "server",
                "--supervised",
                f"--workers={workers}",
                "--datadir",
                str(datadir),
                "--log-error=",
            ]
            + ["--port=0", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert r.returncode == 1, r.stderr
    assert expected in r.stderr and "Aborting" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert "ready for connections" not in r.stderr
    # mysqld's output of a refused start: the reason, then one "Aborting"; no replacement is started
    errors = [line for line in r.stderr.splitlines() if "[ERROR]" in line]
    assert errors[-1].endswith("Aborting") and sum(e.endswith("Aborting") for e in errors) == 1, r.stderr
    assert "replacement" not in r.stderr, r.stderr


def test_replica_threads_live_in_the_worker_and_restart_with_its_replacement(tmp_path: Path) -> None:
    """The replication threads run in the worker (one worker: the engine as the one-process server runs it):
    after a SIGKILL of the replica's worker the replacement starts them again (``init_replica``, as mysqld at
    start-up) and the replica converges; their ids come from the supervisor's sequence."""
    with running_server(tmp_path / "source", *GTIDS, "--log-bin", supervised=False) as src:
        with connect(src.port) as c:
            query(c, "CREATE DATABASE d")
            query(c, "CREATE TABLE d.t (a INT PRIMARY KEY)")
            query(c, "INSERT INTO d.t VALUES (1)")
        replica_args = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=2", "--skip-log-bin")
        with running_server(tmp_path / "replica", *replica_args, supervised=True) as rep:

            def converged() -> bool:
                with connect(src.port) as s, connect(rep.port) as r:
                    return query(s, "SELECT @@GLOBAL.gtid_executed") == query(
                        r, "SELECT @@GLOBAL.gtid_executed"
                    )

            with connect(rep.port) as c:
                query(
                    c,
                    f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={src.port}, "
                    "SOURCE_USER='root', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=60",
                )
                query(c, "START REPLICA")
            wait_until(converged, what="the replica to converge")
            with connect(rep.port) as c:
                threads = query(
                    c,
                    "SELECT PROCESSLIST_ID, NAME FROM performance_schema.threads WHERE PROCESSLIST_ID IS NOT NULL",
                )
                ids = [r[0] for r in threads]
                assert len(ids) == len(set(ids)), (
                    threads
                )  # one sequence: client and replication threads alike
                assert query(c, "SELECT CONNECTION_ID()")[0][0] in ids
                assert len(ids) >= 3, threads  # this client, the receiver and the applier
            (old,) = srv_workers = rep.worker_pids()
            os.kill(old, signal.SIGKILL)
            with connect(src.port) as c:
                query(c, "INSERT INTO d.t VALUES (2), (3)")
            wait_until(lambda: rep.worker_pids() not in ([], srv_workers), what="a replacement worker")
            wait_until(converged, what="the replica to converge after its worker's replacement")
            with connect(rep.port) as c:
                assert query(c, "SELECT a FROM d.t ORDER BY a") == ((1,), (2,), (3,))
                status = query(
                    c, "SELECT SERVICE_STATE FROM performance_schema.replication_connection_status"
                )
                assert status == (("ON",),)
