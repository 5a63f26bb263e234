"""FLUSH / RESET / PURGE BINARY LOGS and binlog dump threads across the workers of `gtidkit server --workers=2`
(issue 21 step 6, docs/design/multi_worker.md §5.2: "binlog dump threads" and "FLUSH BINARY LOGS, RESET MASTER /
BINARY LOGS AND GTIDS, PURGE").

Connections are forced into different workers by the supervisor's round-robin placement (the i-th connection goes
to worker i mod 2; checked with ``@@gtidkit_worker_id``). MySQL is the oracle: one server, so a statement in one
worker is seen by every other as MySQL's one process would show it (RM8 "PURGE BINARY LOGS", "RESET MASTER",
"FLUSH", "binlog_expire_logs_seconds", "max_binlog_size"): the next commit anywhere goes to the new file, whose
Previous_gtids holds everything before it; RESET leaves an empty gtid_executed / gtid_purged and the next
transaction is GNO 1 in binlog.000001; PURGE moves gtid_purged to the oldest remaining file's Previous_gtids. The
files are checked with our reader and with mariadb-binlog.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pymysql
import pytest

from gtidkit.binlog.file import read_events, read_previous_gtids
from gtidkit.gtid import GtidSet
from tests.protocol.prefork import popen_gtidkit
from tests.protocol.server_proc import initialize, running_server

GTIDS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1", "--log-bin")


def connect(port: int) -> pymysql.connections.Connection:
    """A PyMySQL connection as root (autocommit)."""
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)


def query(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """Run ``sql``; its rows."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def two_workers(port: int) -> tuple[pymysql.connections.Connection, pymysql.connections.Connection]:
    """Two connections, the first in worker 0 and the second in worker 1 (round-robin placement)."""
    a, b = connect(port), connect(port)
    assert [query(c, "SELECT @@gtidkit_worker_id")[0][0] for c in (a, b)] == [0, 1]
    return a, b


def gtids_of(path: Path) -> list[str]:
    """The GTIDs of a binlog file's Gtid events, in order (our reader)."""
    return [str(pe.event.gtid) for pe in read_events(path) if type(pe.event).__name__ == "GtidEvent"]


def mariadb_binlog_reads(path: Path) -> None:
    """mariadb-binlog reads ``path`` whole, checksums verified (when installed)."""
    if shutil.which("mariadb-binlog") is None:
        return
    r = subprocess.run(
        ["mariadb-binlog", "--verify-binlog-checksum", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 0, r.stderr


def status(conn: pymysql.connections.Connection, statement: str = "SHOW MASTER STATUS") -> tuple:
    """(File, Position, Executed_Gtid_Set) of SHOW MASTER STATUS / SHOW BINARY LOG STATUS."""
    row = query(conn, statement)[0]
    return row[0], row[1], row[4]


@pytest.mark.parametrize(
    "statement", ["FLUSH BINARY LOGS", "FLUSH LOGS"], ids=["flush-binary-logs", "flush-logs"]
)
def test_flush_in_one_worker_rotates_the_log_of_both(tmp_path: Path, statement: str) -> None:
    with running_server(tmp_path / "d", *GTIDS, "--workers=2", base=(), supervised=True) as srv:
        a, b = two_workers(srv.port)
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "CREATE DATABASE d1")
        query(a, "CREATE TABLE d1.t (id INT PRIMARY KEY)")
        query(b, "INSERT INTO d1.t VALUES (1)")
        assert query(a, "SHOW BINARY LOGS") == query(b, "SHOW BINARY LOGS")
        assert status(a) == status(b)
        query(a, statement)
        # B has not written since: it still sees the rotation at once, as one mysqld would show it
        logs = query(b, "SHOW BINARY LOGS")
        assert [r[0] for r in logs] == ["binlog.000001", "binlog.000002"]
        assert logs == query(a, "SHOW BINARY LOGS")
        assert status(b) == status(a) == ("binlog.000002", logs[1][1], f"{uuid}:1-3")
        query(b, "INSERT INTO d1.t VALUES (2)")  # the next commit, in the other worker, goes to the new file
        logs = query(a, "SHOW BINARY LOGS")
        assert logs == query(b, "SHOW BINARY LOGS")
        assert status(a) == status(b) == ("binlog.000002", logs[1][1], f"{uuid}:1-4")
        events = query(a, "SHOW BINLOG EVENTS IN 'binlog.000002'")
        assert events == query(b, "SHOW BINLOG EVENTS IN 'binlog.000002'")
        assert [e[2] for e in events][:3] == ["Format_desc", "Previous_gtids", "Gtid"]
        assert events[1][5] == f"{uuid}:1-3"  # Previous_gtids: everything before the file
        assert events[-1][4] == logs[1][1]  # the file ends with B's transaction
        assert query(b, "SHOW BINLOG EVENTS IN 'binlog.000001'")[-1][2] == "Rotate"
        a.close()
        b.close()
        assert srv.stop() == 0
    datadir = tmp_path / "d"
    assert gtids_of(datadir / "binlog.000001") == [f"{uuid}:{n}" for n in (1, 2, 3)]
    assert gtids_of(datadir / "binlog.000002") == [f"{uuid}:4"]
    assert str(read_previous_gtids(datadir / "binlog.000002")) == f"{uuid}:1-3"
    for name in ("binlog.000001", "binlog.000002"):
        mariadb_binlog_reads(datadir / name)


def test_max_binlog_size_rotation_with_commits_in_both_workers(tmp_path: Path) -> None:
    n = 40
    with running_server(
        tmp_path / "d", *GTIDS, "--workers=2", "--max-binlog-size=4096", base=(), supervised=True
    ) as srv:
        a, b = two_workers(srv.port)
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "CREATE DATABASE d1")
        query(b, "CREATE TABLE d1.t (id INT PRIMARY KEY, w INT, pad VARCHAR(200))")
        errors: list[BaseException] = []

        def insert(c: pymysql.connections.Connection, base: int, worker: int) -> None:
            try:
                for i in range(n):
                    query(c, f"INSERT INTO d1.t VALUES ({base + i}, {worker}, REPEAT('x', 200))")
            except BaseException as err:  # noqa: BLE001 - reported below
                errors.append(err)

        threads = [
            threading.Thread(target=insert, args=(c, base, w)) for c, base, w in ((a, 0, 0), (b, 1000, 1))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        assert not errors
        logs = query(a, "SHOW BINARY LOGS")
        assert logs == query(b, "SHOW BINARY LOGS")
        assert len(logs) > 3  # 82 transactions of ~400 bytes in 4 KiB files
        assert status(a) == status(b) == (logs[-1][0], logs[-1][1], f"{uuid}:1-{2 + 2 * n}")
        a.close()
        b.close()
        assert srv.stop() == 0
    datadir = tmp_path / "d"
    before = GtidSet()
    seen: list[str] = []
    for name, size, _encrypted in logs:
        path = datadir / name
        assert read_previous_gtids(path) == before, name  # each file's Previous_gtids = every earlier GTID
        file_gtids = gtids_of(path)
        seen += file_gtids
        before = before | GtidSet.parse(",".join(file_gtids)) if file_gtids else before
        if name != logs[-1][0]:
            assert path.stat().st_size == size
            assert size >= 4096 or name == logs[-1][0]
        mariadb_binlog_reads(path)
    assert seen == [f"{uuid}:{g}" for g in range(1, 3 + 2 * n)]  # every GNO once, in commit order


@pytest.mark.parametrize(
    ("version", "reset", "show_status", "first"),
    [  # first: the end of an empty first file (8.4's Format_description lists one more event type: 8.3's tagged GTID)
        ("8.0", "RESET MASTER", "SHOW MASTER STATUS", 157),
        ("8.4", "RESET BINARY LOGS AND GTIDS", "SHOW BINARY LOG STATUS", 158),
    ],
    ids=["reset-master-8.0", "reset-binary-logs-and-gtids-8.4"],
)
def test_reset_in_one_worker_empties_the_gtid_state_of_both(
    tmp_path: Path, version: str, reset: str, show_status: str, first: int
) -> None:
    datadir = tmp_path / "d"
    initialize(datadir, True, "--server-version", version)
    args = (*GTIDS, "--workers=2", "--server-version", version)
    with running_server(datadir, *args, base=(), supervised=True) as srv:
        a, b = two_workers(srv.port)
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "CREATE DATABASE d1")
        query(b, "CREATE TABLE d1.t (id INT PRIMARY KEY)")
        query(b, "INSERT INTO d1.t VALUES (1)")
        query(a, "FLUSH BINARY LOGS")
        query(b, "INSERT INTO d1.t VALUES (2)")
        query(a, "PURGE BINARY LOGS TO 'binlog.000002'")
        assert query(b, "SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged") == (
            (f"{uuid}:1-4", f"{uuid}:1-3"),
        )
        query(a, reset)
        for c in (b, a):
            assert query(c, "SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged") == (("", ""),)
            assert query(c, "SHOW BINARY LOGS") == (("binlog.000001", first, "No"),)
            assert status(c, show_status) == ("binlog.000001", first, "")
            assert query(c, "SELECT * FROM mysql.gtid_executed") == ()
        assert sorted(p.name for p in datadir.glob("binlog.0*")) == ["binlog.000001"]
        query(b, "INSERT INTO d1.t VALUES (3)")  # the other worker's next commit: GNO 1 in binlog.000001
        for c in (a, b):
            assert query(c, "SELECT @@GLOBAL.gtid_executed") == ((f"{uuid}:1",),)
            events = query(c, "SHOW BINLOG EVENTS IN 'binlog.000001'")
            assert [(e[2], e[5]) for e in events[:3]] == [
                ("Format_desc", events[0][5]),
                ("Previous_gtids", ""),
                ("Gtid", f"SET @@SESSION.GTID_NEXT= '{uuid}:1'"),
            ]
        query(a, "INSERT INTO d1.t VALUES (4)")
        assert query(b, "SELECT @@GLOBAL.gtid_executed") == ((f"{uuid}:1-2",),)
        assert query(b, "SELECT id FROM d1.t ORDER BY id") == ((1,), (2,), (3,), (4,))
        a.close()
        b.close()
        assert srv.stop() == 0
    assert gtids_of(datadir / "binlog.000001") == [f"{uuid}:1", f"{uuid}:2"]
    mariadb_binlog_reads(datadir / "binlog.000001")


def test_reset_waits_for_an_open_transaction_of_the_other_worker(tmp_path: Path) -> None:
    """A RESET needs the engine's write lock, which another worker's open write transaction holds: it waits and
    fails with 1205 after innodb_lock_wait_timeout, leaving everything as it was; once the transaction commits the
    RESET runs and removes it from the GTID state too (MySQL's RESET takes the global read lock instead, which an
    idle open transaction does not hold: there the RESET runs first and the later COMMIT gets GNO 1). Row locks
    OFF: with ON the open transaction's single-row INSERT takes the write lock only at COMMIT."""
    with running_server(
        tmp_path / "d", *GTIDS, "--workers=2", "--gtidkit-row-locks=OFF", base=(), supervised=True
    ) as srv:
        a, b = two_workers(srv.port)
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "CREATE DATABASE d1")
        query(a, "CREATE TABLE d1.t (id INT PRIMARY KEY)")
        query(b, "BEGIN")
        query(b, "INSERT INTO d1.t VALUES (1)")
        query(a, "SET GLOBAL innodb_lock_wait_timeout = 1")
        started = time.monotonic()
        with pytest.raises(pymysql.err.OperationalError) as err:
            query(a, "RESET MASTER")
        assert err.value.args[0] == 1205
        assert 0.9 <= time.monotonic() - started < 30
        assert query(a, "SELECT @@GLOBAL.gtid_executed") == ((f"{uuid}:1-2",),)
        query(b, "COMMIT")
        query(a, "RESET MASTER")
        assert query(b, "SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged") == (("", ""),)
        assert query(b, "SELECT id FROM d1.t") == ((1,),)
        a.close()
        b.close()


@pytest.mark.parametrize("how", ["to", "before"], ids=["purge-to", "purge-before"])
def test_purge_in_one_worker_is_seen_by_the_other(tmp_path: Path, how: str) -> None:
    datadir = tmp_path / "d"
    with running_server(datadir, *GTIDS, "--workers=2", base=(), supervised=True) as srv:
        a, b = two_workers(srv.port)
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "CREATE DATABASE d1")
        query(b, "FLUSH BINARY LOGS")
        query(a, "CREATE TABLE d1.t (id INT PRIMARY KEY)")
        query(b, "FLUSH BINARY LOGS")
        query(a, "INSERT INTO d1.t VALUES (1)")
        assert [r[0] for r in query(b, "SHOW BINARY LOGS")] == [f"binlog.00000{i}" for i in (1, 2, 3)]
        assert query(b, "SELECT @@GLOBAL.gtid_purged") == (("",),)
        if how == "to":
            query(a, "PURGE BINARY LOGS TO 'binlog.000003'")
        else:
            old = time.time() - 7200
            for name in ("binlog.000001", "binlog.000002"):
                os.utime(datadir / name, (old, old))
            cut = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(time.time() - 3600))
            query(a, f"PURGE BINARY LOGS BEFORE '{cut}'")
        logs = query(b, "SHOW BINARY LOGS")
        assert [r[0] for r in logs] == ["binlog.000003"]
        assert logs == query(a, "SHOW BINARY LOGS")
        for c in (a, b):
            assert query(c, "SELECT @@GLOBAL.gtid_purged, @@GLOBAL.gtid_executed") == (
                (f"{uuid}:1-2", f"{uuid}:1-3"),
            )
        assert not (datadir / "binlog.000001").exists() and not (datadir / "binlog.000002").exists()
        query(b, "INSERT INTO d1.t VALUES (2)")
        assert query(a, "SHOW BINLOG EVENTS IN 'binlog.000003'")[-1][4] == query(a, "SHOW BINARY LOGS")[0][1]
        query(
            b, "FLUSH BINARY LOGS"
        )  # the other worker's next rotation keeps the purged files out of the index
        assert [r[0] for r in query(a, "SHOW BINARY LOGS")] == ["binlog.000003", "binlog.000004"]
        query(a, "PURGE BINARY LOGS TO 'binlog.000004'")
        query(b, "FLUSH BINARY LOGS")
        for c in (a, b):
            assert [r[0] for r in query(c, "SHOW BINARY LOGS")] == ["binlog.000004", "binlog.000005"]
        assert (datadir / "binlog.index").read_text() == "./binlog.000004\n./binlog.000005\n"
        a.close()
        b.close()


@pytest.mark.parametrize("rotating", [0, 1], ids=["worker0-rotates", "worker1-rotates"])
def test_expiry_at_a_rotation_in_one_worker_is_seen_by_the_other(tmp_path: Path, rotating: int) -> None:
    """binlog_expire_logs_seconds: files older than it go at the next rotation (RM8; mysql-test
    binlog_expire_logs_seconds: purged on FLUSH LOGS), whichever worker rotates (MySQL's rotating thread purges)."""
    datadir = tmp_path / "d"
    args = (*GTIDS, "--workers=2", "--binlog-expire-logs-seconds=3600")
    with running_server(datadir, *args, base=(), supervised=True) as srv:
        conns = two_workers(srv.port)
        rotator, other = conns[rotating], conns[1 - rotating]
        uuid = query(rotator, "SELECT @@server_uuid")[0][0]
        query(rotator, "CREATE DATABASE d1")
        query(other, "FLUSH BINARY LOGS")
        query(other, "CREATE DATABASE d2")
        old = time.time() - 7200
        os.utime(datadir / "binlog.000001", (old, old))
        query(rotator, "FLUSH BINARY LOGS")
        logs = query(other, "SHOW BINARY LOGS")
        assert [r[0] for r in logs] == ["binlog.000002", "binlog.000003"]
        assert logs == query(rotator, "SHOW BINARY LOGS")
        for c in conns:
            assert query(c, "SELECT @@GLOBAL.gtid_purged, @@GLOBAL.gtid_executed") == (
                (f"{uuid}:1", f"{uuid}:1-2"),
            )
        assert not (datadir / "binlog.000001").exists()
        for c in conns:
            c.close()


def _arrivals(stream: object, got: dict[str, float], cond: threading.Condition, last: str) -> None:
    """Read Gtid events from a BinLogStreamReader, noting when each GTID arrived, until GTID ``last``; then close
    the stream (in this thread: PyMySQL's TLS socket must not be closed under a reading thread)."""
    try:
        for event in stream:  # type: ignore[attr-defined]
            with cond:
                got[str(event.gtid)] = time.monotonic()
                cond.notify_all()
            if str(event.gtid) == last:
                break
    except Exception:  # noqa: BLE001 - a failed test stops the server under the reader
        return
    stream.close()  # type: ignore[attr-defined]


def test_a_dump_thread_wakes_on_commits_in_either_worker(tmp_path: Path) -> None:
    """python-mysql-replication's BinLogStreamReader (a real COM_BINLOG_DUMP_GTID client) is served by one worker;
    commits in that worker and in the other reach it within the same short delay, each before the next commit is
    made (without the cross-worker wake-up the other worker's commits would wait for the dump's own worker to
    write). The delay is from the commit's OK to the Gtid event's arrival."""
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.event import GtidEvent

    per_worker = 8
    with running_server(tmp_path / "d", *GTIDS, "--workers=2", base=(), supervised=True) as srv:
        a, b = two_workers(srv.port)
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "CREATE DATABASE d1")
        query(b, "CREATE TABLE d1.t (id INT PRIMARY KEY)")
        stream = BinLogStreamReader(
            connection_settings={"host": "127.0.0.1", "port": srv.port, "user": "root", "password": ""},
            server_id=311,
            auto_position=f"{uuid}:1-2",
            blocking=True,
            only_events=[GtidEvent],
        )
        got: dict[str, float] = {}
        cond = threading.Condition()
        last = f"{uuid}:{3 + 2 * per_worker}"
        reader = threading.Thread(target=_arrivals, args=(stream, got, cond, last), daemon=True)
        reader.start()
        delays: dict[int, list[float]] = {
            0: [],
            1: [],
        }  # OK received -> event received (0: the event came first)
        latencies: dict[int, list[float]] = {0: [], 1: []}  # INSERT sent -> event received
        gno = 3
        try:
            query(
                a, "INSERT INTO d1.t VALUES (3)"
            )  # the stream's start-up (its ctl connection) is not measured
            with cond:
                assert cond.wait_for(lambda: f"{uuid}:3" in got, timeout=20)
            dump_in = [
                w
                for w, c in ((0, a), (1, b))
                if any("Binlog Dump" in str(r[4]) for r in query(c, "SHOW PROCESSLIST"))
            ]
            for series, (worker, conn) in enumerate(((0, a), (1, b), (0, a), (1, b))):
                if series == 2:  # the dump follows a rotation made in the other worker into the next file
                    query(b, "FLUSH BINARY LOGS")
                for _ in range(per_worker // 2):
                    gno += 1
                    sent = time.monotonic()
                    query(conn, f"INSERT INTO d1.t VALUES ({gno})")
                    acked = time.monotonic()
                    with cond:
                        assert cond.wait_for(lambda g=gno: f"{uuid}:{g}" in got, timeout=20), (worker, gno)
                        arrived = got[f"{uuid}:{gno}"]
                    delays[worker].append(max(0.0, arrived - acked))
                    latencies[worker].append(arrived - sent)
            reader.join(30)
            assert not reader.is_alive()
        finally:
            a.close()
            b.close()
        for worker, values in delays.items():
            values.sort()
            sent_to_event = sorted(latencies[worker])
            print(
                f"dump served by worker(s) {dump_in}; commits in worker {worker}: INSERT sent -> event median "
                f"{sent_to_event[len(values) // 2] * 1000:.1f} ms, max {sent_to_event[-1] * 1000:.1f} ms; "
                f"OK -> event max {values[-1] * 1000:.1f} ms"
            )
            assert values[-1] < 5.0, (worker, values)


def test_a_replica_of_a_two_worker_source_converges_after_commits_in_each_worker(tmp_path: Path) -> None:
    """A real replica (`gtidkit server`, one process, SOURCE_AUTO_POSITION) of a two-worker source: its receiver is
    served by one of the workers; commits made only in worker 0, then only in worker 1, each reach the replica."""
    with running_server(tmp_path / "src", *GTIDS, "--workers=2", base=(), supervised=True) as src:
        a, b = two_workers(src.port)
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "CREATE DATABASE d1")
        query(b, "CREATE TABLE d1.t (id INT PRIMARY KEY, w INT)")
        replica_args = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=2", "--skip-log-bin")
        with running_server(tmp_path / "rep", *replica_args, base=(), supervised=False) as rep:
            r = connect(rep.port)
            query(
                r,
                f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={src.port}, "
                "SOURCE_USER='root', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1",
            )
            query(r, "START REPLICA")
            total = 2
            for worker, conn in ((0, a), (1, b), (0, a), (1, b)):
                for _ in range(3):
                    total += 1
                    query(conn, f"INSERT INTO d1.t VALUES ({total}, {worker})")
                started = time.monotonic()
                wanted = ((f"{uuid}:1-{total}",),)
                while query(r, "SELECT @@GLOBAL.gtid_executed") != wanted:
                    assert time.monotonic() - started < 30, (worker, total, query(r, "SHOW REPLICA STATUS"))
                    time.sleep(0.02)
            assert query(r, "SELECT COUNT(*), SUM(w) FROM d1.t") == ((total - 2, 6),)
            query(r, "STOP REPLICA")
            r.close()
        a.close()
        b.close()


def test_a_raw_stop_never_copy_of_a_two_worker_source_is_byte_identical(tmp_path: Path) -> None:
    """`gtidkit binlog show --read-from-remote-source=BINLOG-DUMP-GTIDS --raw --stop-never` (mysqlbinlog's live
    backup) connected to a two-worker source: transactions and rotations made in both workers arrive while it is
    connected (each waited for before the next step), and after the source's shutdown every copy equals the
    source's file byte for byte (the last may lack only the Stop event written at shutdown)."""
    datadir, copy = tmp_path / "d", tmp_path / "copy"
    with running_server(datadir, *GTIDS, "--workers=2", base=(), supervised=True) as srv:
        a, b = two_workers(srv.port)
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "CREATE DATABASE d1")
        query(b, "CREATE TABLE d1.t (id INT PRIMARY KEY)")
        copier = popen_gtidkit(
            [
                "binlog", "show",
                "--read-from-remote-source=BINLOG-DUMP-GTIDS", "-h127.0.0.1", f"-P{srv.port}", "-uroot",
                "--raw", "--stop-never", "-r", f"{copy}/", "binlog.000001",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip

        def saved() -> list[str]:
            out: list[str] = []
            for p in sorted(copy.glob("binlog.0*")) if copy.exists() else []:
                try:
                    out += gtids_of(p)
                except Exception:  # noqa: BLE001 - a file being written
                    return []
            return out

        def wait_for(n: int) -> None:
            deadline = time.monotonic() + 30
            while len(saved()) < n:
                assert time.monotonic() < deadline, (n, saved())
                time.sleep(0.05)

        try:
            wait_for(2)
            steps = [
                (a, "INSERT INTO d1.t VALUES (1)"),
                (b, "INSERT INTO d1.t VALUES (2)"),
                (b, "FLUSH BINARY LOGS"),
            ]
            steps += [
                (a, "INSERT INTO d1.t VALUES (3)"),
                (a, "FLUSH LOGS"),
                (b, "INSERT INTO d1.t VALUES (4)"),
            ]
            count = 2
            for conn, sql in steps:
                query(conn, sql)
                if sql.startswith("INSERT"):
                    count += 1
                    wait_for(count)
            a.close()
            b.close()
            assert srv.stop() == 0
        finally:
            copier.send_signal(signal.SIGTERM)
            try:
                copier.wait(30)
            except subprocess.TimeoutExpired:
                copier.kill()
                copier.wait()
    assert saved() == [f"{uuid}:{n}" for n in range(1, 7)]
    names = sorted(p.name for p in datadir.glob("binlog.0*"))
    assert names == ["binlog.000001", "binlog.000002", "binlog.000003"]
    assert sorted(p.name for p in copy.glob("binlog.0*")) == names
    for name in names[:-1]:
        assert (copy / name).read_bytes() == (datadir / name).read_bytes(), name
    last, whole = (copy / names[-1]).read_bytes(), (datadir / names[-1]).read_bytes()
    assert whole.startswith(last)
    rest = whole[len(last) :]
    assert rest == b"" or (rest[4] == 3 and int.from_bytes(rest[9:13], "little") == len(rest)), rest  # Stop


@pytest.mark.parametrize("kill", ["KILL", "KILL QUERY"], ids=["kill-connection", "kill-query"])
def test_kill_ends_a_dump_thread_waiting_in_a_worker(tmp_path: Path, kill: str) -> None:
    """A dump thread of a two-worker server sleeps on the shared page, not on its process's condition: KILL [QUERY]
    from a session of the same worker still wakes it at once and the dump ends, its connection gone from the
    processlist (MySQL: the killed sender returns from com_binlog_dump and the connection closes). The reader
    (python-mysql-replication) reconnects by itself, as it does after any lost connection."""
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.event import GtidEvent

    with running_server(tmp_path / "d", *GTIDS, "--workers=2", base=(), supervised=True) as srv:
        a, b = two_workers(srv.port)
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(b, "CREATE DATABASE d1")
        stream = BinLogStreamReader(
            connection_settings={"host": "127.0.0.1", "port": srv.port, "user": "root", "password": ""},
            server_id=313,
            auto_position=f"{uuid}:1",
            blocking=True,
            only_events=[GtidEvent],
        )

        def read() -> None:
            with contextlib.suppress(Exception):  # the server's shutdown closes the stream
                for _event in stream:
                    pass

        threading.Thread(target=read, daemon=True).start()

        def dumps() -> list[tuple]:
            return [
                (c, r[0]) for c in (a, b) for r in query(c, "SHOW PROCESSLIST") if "Binlog Dump" in str(r[4])
            ]

        deadline = time.monotonic() + 30
        while not dumps():  # the dump's worker lists it (KILL is sent from a session of that worker)
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.3)  # let it reach its wait
        conn, dump_id = dumps()[0]
        started = time.monotonic()
        query(conn, f"{kill} {dump_id}")
        while dump_id in [i for _c, i in dumps()]:
            assert time.monotonic() - started < 5, "the killed dump thread is still listed"
            time.sleep(0.02)
        a.close()
        b.close()
