"""Replication statements from any worker of a multi-worker replica (issue 21: "the replication threads exist once
and the server stays one MySQL server"), the relay log owned by the process with the replication threads, and
SHOW REPLICAS across the workers of a source.

Real ``gtidkit server`` processes: a one-process source with the binary log, a replica with ``--workers=2``;
PyMySQL connections forced into a worker by the round-robin placement (checked with ``@@gtidkit_worker_id``). The
statement sequence also runs against a one-process replica (``one-process``): the same expectations hold there.
MySQL is the oracle: RM8 "CHANGE REPLICATION SOURCE TO Statement" (1287 ER_WARN_DEPRECATED_SYNTAX for the 5.7
spellings, 1760 ER_INSECURE_CHANGE_SOURCE), "START REPLICA" / "STOP REPLICA" (3083
ER_REPLICA_CHANNEL_WAS_RUNNING, 3084 ER_REPLICA_CHANNEL_WAS_NOT_RUNNING, 3074 ER_REPLICA_CHANNEL_DOES_NOT_EXIST),
"SHOW REPLICA STATUS" (8.4 columns; SHOW SLAVE STATUS with 5.7 names and 1287), "RESET REPLICA" (ALL: no row
left), "SOURCE_POS_WAIT" (0 reached, -1 timed out, NULL for an unknown channel), "SHOW REPLICAS" (one row per
registered replica, until its connection ends), "relay_log_recovery" (at start-up the relay log is discarded once).
"""

from __future__ import annotations

import os
import signal
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest
from protocol.server_proc import ServerProcess, process_name, running_server

GTIDS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON")
PS_TABLES = (
    "replication_connection_configuration",
    "replication_connection_status",
    "replication_applier_status",
    "replication_applier_filters",
    "replication_applier_configuration",
    "replication_applier_status_by_coordinator",
    "replication_applier_status_by_worker",
    "replication_applier_global_filters",
)


def connect(port: int) -> pymysql.connections.Connection:
    """A root PyMySQL connection (autocommit)."""
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)


def query(conn: pymysql.connections.Connection, sql: str, args: Any = None) -> tuple:
    """Run ``sql``; its rows."""
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()


def warnings_of(conn: pymysql.connections.Connection, sql: str) -> list[tuple[str, int, str]]:
    """Run ``sql``; the conditions it raised (none when its OK packet counts none, else SHOW WARNINGS)."""
    with conn.cursor() as cur:
        cur.execute(sql)
        if not cur.warning_count:
            return []
        cur.execute("SHOW WARNINGS")
        return [tuple(r) for r in cur.fetchall()]  # type: ignore[misc]


def status(conn: pymysql.connections.Connection, sql: str = "SHOW REPLICA STATUS") -> list[dict[str, Any]]:
    """SHOW REPLICA STATUS (or ``sql``) as one dict per channel."""
    with conn.cursor() as cur:
        cur.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def in_worker(port: int, index: int | None, timeout: float = 60.0) -> pymysql.connections.Connection:
    """A connection placed in worker ``index`` (round-robin: connections are opened until one lands there; a
    worker being replaced gets none until its replacement serves); ``index`` None: any connection."""
    deadline = time.monotonic() + timeout
    while True:
        c = connect(port)
        if index is None or query(c, "SELECT @@gtidkit_worker_id")[0][0] == index:
            return c
        c.close()
        if time.monotonic() > deadline:
            raise AssertionError(f"no connection reached worker {index}")
        time.sleep(0.02)


def wait_until(check: Any, timeout: float = 30.0, what: str = "condition") -> None:
    """Poll ``check()`` until it is true."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def worker_pid(srv: ServerProcess, index: int) -> int:
    """The pid of worker ``index`` (named ``gtidkit-worker<index>``)."""
    (pid,) = [p for p in srv.worker_pids() if process_name(p) == f"gtidkit-worker{index}"]
    return pid


def kill_and_wait_for_replacement(srv: ServerProcess, index: int) -> None:
    """SIGKILL worker ``index`` and wait until its replacement serves."""
    old = worker_pid(srv, index)
    os.kill(old, signal.SIGKILL)
    wait_until(
        lambda: (
            [p for p in srv.worker_pids() if process_name(p) == f"gtidkit-worker{index}"] not in ([], [old])
        ),
        what=f"a replacement of worker {index}",
    )
    in_worker(srv.port, index).close()


@pytest.fixture
def source(tmp_path: Path) -> Iterator[ServerProcess]:
    """A one-process source with the binary log and a table."""
    with running_server(
        tmp_path / "source", *GTIDS, "--server-id=1", "--log-bin", base=(), supervised=False
    ) as s:
        with connect(s.port) as c:
            query(c, "CREATE DATABASE d")
            query(c, "CREATE TABLE d.t (a INT PRIMARY KEY)")
        yield s


def replica_server(tmp_path: Path, workers: int, *extra: str) -> Any:
    """A replica (server_id 2, no binary log) with ``workers`` worker processes (0: one process)."""
    args = (*GTIDS, "--server-id=2", "--skip-log-bin", *extra)
    if workers:
        return running_server(tmp_path / "replica", *args, f"--workers={workers}", base=(), supervised=True)
    return running_server(tmp_path / "replica", *args, base=(), supervised=False)


def source_position(src: ServerProcess) -> tuple[str, int]:
    """The source's SHOW MASTER STATUS (File, Position): 8.0.36 has no SHOW BINARY LOG STATUS."""
    with connect(src.port) as c:
        row = query(c, "SHOW MASTER STATUS")[0]
    return str(row[0]), int(row[1])


def change_source(port: int) -> str:
    """CHANGE MASTER TO (the 5.7 spelling) pointing at the source on ``port``."""
    return (
        f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={port}, MASTER_USER='root', "
        "MASTER_AUTO_POSITION=1, MASTER_CONNECT_RETRY=1"
    )


def deprecated(old: str, new: str) -> tuple[str, int, str]:
    """MySQL's 1287 warning for a 5.7 spelling."""
    return (
        "Warning",
        1287,
        f"'{old}' is deprecated and will be removed in a future release. Please use {new} instead",
    )


#: (the worker that configures / stops / resets, the worker that starts / reads), or None: one process
PLACEMENTS = {"one-process": None, "configure-in-1-start-in-0": (1, 0), "configure-in-0-start-in-1": (0, 1)}


@pytest.mark.parametrize("placement", list(PLACEMENTS), ids=list(PLACEMENTS))
def test_replication_statements_from_either_worker(
    tmp_path: Path, source: ServerProcess, placement: str
) -> None:
    where = PLACEMENTS[placement]
    a_worker, b_worker = where if where is not None else (None, None)
    with replica_server(tmp_path, 0 if where is None else 2) as rep:
        a, b = in_worker(rep.port, a_worker), in_worker(rep.port, b_worker)
        # CHANGE MASTER: the 5.7 spellings' warnings and the insecure-credentials note, as in one process
        got = warnings_of(a, change_source(source.port))
        assert got[:6] == [
            deprecated("CHANGE MASTER", "CHANGE REPLICATION SOURCE"),
            deprecated("MASTER_HOST", "SOURCE_HOST"),
            deprecated("MASTER_PORT", "SOURCE_PORT"),
            deprecated("MASTER_USER", "SOURCE_USER"),
            deprecated("MASTER_AUTO_POSITION", "SOURCE_AUTO_POSITION"),
            deprecated("MASTER_CONNECT_RETRY", "SOURCE_CONNECT_RETRY"),
        ]
        assert [w[1] for w in got[6:]] == [1760]
        (row,) = status(b)
        assert (row["Source_Port"], row["Replica_IO_Running"], row["Replica_SQL_Running"]) == (
            source.port,
            "No",
            "No",
        )
        assert status(a) == [row]
        assert warnings_of(b, "START REPLICA") == []
        assert warnings_of(a, "START REPLICA") == [
            ("Note", 3083, "Replication thread(s) for channel '' are already runnning.")
        ]
        with connect(source.port) as s:
            for i in range(3):
                query(s, "INSERT INTO d.t VALUES (%s)", (i,))
            executed = query(s, "SELECT @@GLOBAL.gtid_executed")[0][0]
        file, pos = source_position(source)
        assert query(a, "SELECT SOURCE_POS_WAIT(%s, %s, 30)", (file, pos)) == ((0,),)
        assert query(a, "SELECT SOURCE_POS_WAIT(%s, %s, 1)", (file, pos + 100000)) == ((-1,),)
        assert query(a, "SELECT SOURCE_POS_WAIT(%s, %s, 1, 'nope')", (file, pos)) == ((None,),)
        assert query(b, "SELECT COUNT(*) FROM d.t") == ((3,),)
        for conn in (a, b):
            (row,) = status(conn)
            assert (row["Replica_IO_Running"], row["Replica_SQL_Running"], row["Executed_Gtid_Set"]) == (
                "Yes",
                "Yes",
                executed,
            )
            assert row["Seconds_Behind_Source"] == 0
        # CHANGE REPLICATION FILTER without FOR CHANNEL needs the SQL thread stopped, wherever it runs
        with pytest.raises(pymysql.err.OperationalError) as err:
            query(b, "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (scratch)")
        assert err.value.args == (
            3017,
            "This operation cannot be performed with a running replica sql thread; run STOP REPLICA SQL_THREAD first",
        )
        # the channel stopped: every replication table and SHOW the same from both connections
        assert warnings_of(b, "STOP REPLICA IO_THREAD") == []
        (row,) = status(a)
        assert (row["Replica_IO_Running"], row["Replica_SQL_Running"]) == ("No", "Yes")
        assert warnings_of(a, "STOP REPLICA") == []
        assert warnings_of(b, "STOP REPLICA") == [
            ("Note", 3084, "Replication thread(s) for channel '' are already stopped.")
        ]
        assert warnings_of(b, "CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (scratch)") == []
        assert query(
            a,
            "SELECT FILTER_NAME, FILTER_RULE, CONFIGURED_BY FROM performance_schema.replication_applier_global_filters",
        ) == (("REPLICATE_IGNORE_DB", "scratch", "CHANGE_REPLICATION_FILTER"),)
        assert status(a)[0]["Replicate_Ignore_DB"] == "scratch"
        assert status(a) == status(b)
        for table in PS_TABLES:
            assert query(a, f"SELECT * FROM performance_schema.{table}") == query(
                b, f"SELECT * FROM performance_schema.{table}"
            ), table
        assert query(a, "SELECT SERVICE_STATE FROM performance_schema.replication_connection_status") == (
            ("OFF",),
        )
        events = query(b, "SHOW RELAYLOG EVENTS")
        assert events and events == query(a, "SHOW RELAYLOG EVENTS")
        # errors and the 5.7 SHOW
        with pytest.raises(pymysql.err.OperationalError) as err:
            query(b, "START REPLICA FOR CHANNEL 'nope'")
        assert err.value.args == (3074, "Replica channel 'nope' does not exist.")
        old = status(b, "SHOW SLAVE STATUS")
        assert old[0]["Slave_IO_Running"] == "No" and old[0]["Master_Port"] == source.port
        assert query(b, "SHOW WARNINGS") == (deprecated("SHOW SLAVE STATUS", "SHOW REPLICA STATUS"),)
        last = max(str(e[0]) for e in events)
        following = f"{last[:-6]}{int(last[-6:]) + 1:06d}"
        with pytest.raises(pymysql.err.OperationalError) as err:
            query(a, f"SHOW RELAYLOG EVENTS IN '{following}'")
        assert err.value.args[0] == 1220
        query(b, "FLUSH RELAY LOGS")  # a new relay file, written by the process with the channel
        assert query(a, f"SHOW RELAYLOG EVENTS IN '{following}'")
        assert warnings_of(a, "RESET REPLICA ALL") == []
        assert status(a) == status(b) == []
        assert query(b, "SELECT COUNT(*) FROM performance_schema.replication_connection_configuration") == (
            (0,),
        )
        a.close()
        b.close()


def relay_fds(pid: int) -> list[str]:
    """The relay-log files process ``pid`` has open."""
    out = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if "relay-bin" in target:
            out.append(target)
    return out


def test_the_relay_log_is_opened_by_the_process_with_the_replication_threads_only(
    tmp_path: Path, source: ServerProcess
) -> None:
    datadir = tmp_path / "replica"
    with replica_server(tmp_path, 2, "--relay-log-recovery=ON") as rep:
        with in_worker(rep.port, 1) as c:
            query(c, change_source(source.port))
            query(c, "START REPLICA")
        with connect(source.port) as s:
            query(s, "INSERT INTO d.t VALUES (1)")
        file, pos = source_position(source)
        with in_worker(rep.port, 1) as c:
            assert query(c, "SELECT SOURCE_POS_WAIT(%s, %s, 30)", (file, pos)) == ((0,),)
        assert relay_fds(worker_pid(rep, 0))  # the receiver writes the relay log there
        assert relay_fds(worker_pid(rep, 1)) == []
        files = sorted(p.name for p in datadir.iterdir() if "relay-bin" in p.name)
        kill_and_wait_for_replacement(
            rep, 1
        )  # a new worker 1 runs no relay log recovery, starts no relay file
        assert relay_fds(worker_pid(rep, 1)) == []
        assert sorted(p.name for p in datadir.iterdir() if "relay-bin" in p.name) == files
        with in_worker(rep.port, 1) as c:
            query(c, "STOP REPLICA")
    log_before = (datadir / "error.log").read_text()
    with replica_server(tmp_path, 2, "--relay-log-recovery=ON") as rep:
        with in_worker(rep.port, 1) as c:  # the channel started at boot, in worker 0
            wait_until(lambda: status(c)[0]["Replica_IO_Running"] == "Yes", what="the channel to start")
        assert relay_fds(worker_pid(rep, 1)) == []
    recovered = (datadir / "error.log").read_text()[len(log_before) :]
    assert recovered.count("relay_log_recovery: discarding the relay log of channel ''") == 1


def test_statements_reach_the_replacement_of_worker_0(tmp_path: Path, source: ServerProcess) -> None:
    with replica_server(tmp_path, 2) as rep:
        with in_worker(rep.port, 1) as c:
            query(c, change_source(source.port))
            query(c, "START REPLICA")
        # worker 0 stops answering while a statement of worker 1 waits for it, then dies: the statement fails
        # with 1105 naming what happened (MySQL's client would have lost its server)
        w1 = in_worker(rep.port, 1)
        old = worker_pid(rep, 0)
        os.kill(old, signal.SIGSTOP)
        out: list[Any] = []

        def ask() -> None:
            try:
                out.append(status(w1))
            except pymysql.err.MySQLError as err:
                out.append(err.args)

        t = threading.Thread(target=ask, daemon=True)
        t.start()
        time.sleep(0.5)
        assert t.is_alive()  # waiting for the stopped worker 0
        os.kill(old, signal.SIGKILL)
        t.join(30)
        assert out == [
            (
                1105,
                (
                    "The process running the replication threads (worker 0) ended during the statement; "
                    "its replacement runs them"
                ),
            )
        ]
        # the replacement took the channel over (it starts at boot, as in a mysqld start)
        wait_until(
            lambda: (
                (status(w1)[0]["Replica_IO_Running"], status(w1)[0]["Replica_SQL_Running"]) == ("Yes", "Yes")
            ),
            what="the replacement's channel",
        )
        with connect(source.port) as s:
            query(s, "INSERT INTO d.t VALUES (7)")
        file, pos = source_position(source)
        assert query(w1, "SELECT SOURCE_POS_WAIT(%s, %s, 30)", (file, pos)) == ((0,),)
        assert warnings_of(w1, "STOP REPLICA") == []
        with in_worker(rep.port, 0) as c0:
            assert query(
                c0, "SELECT SERVICE_STATE FROM performance_schema.replication_connection_status"
            ) == (("OFF",),)
        w1.close()


def register_body(server_id: int, host: bytes, port: int) -> bytes:
    """A COM_REGISTER_SLAVE body (user ``ru``, password ``rp``, source id 0)."""
    return (
        struct.pack("<I", server_id)
        + bytes([len(host)])
        + host
        + b"\x02ru\x02rp"
        + struct.pack("<HII", port, 0, 0)
    )


def register(conn: pymysql.connections.Connection, server_id: int, host: bytes, port: int, uuid: str) -> None:
    """COM_REGISTER_SLAVE on ``conn`` after ``SET @replica_uuid``."""
    query(conn, "SET @replica_uuid = %s", (uuid,))
    conn._execute_command(0x15, register_body(server_id, host, port))  # type: ignore[attr-defined]
    assert conn._read_packet().is_ok_packet()  # type: ignore[attr-defined]


def test_show_replicas_lists_the_replicas_registered_in_every_worker(tmp_path: Path) -> None:
    args = (*GTIDS, "--server-id=1", "--log-bin", "--workers=2")
    with running_server(tmp_path / "source", *args, base=(), supervised=True) as src:
        uuid_a, uuid_b = "aaaaaaaa-0000-0000-0000-000000000042", "bbbbbbbb-0000-0000-0000-000000000043"
        r1 = in_worker(src.port, 1)
        register(r1, 42, b"host-a", 3307, uuid_a)
        r0 = in_worker(src.port, 0)
        register(r0, 43, b"host-b", 3308, uuid_b)
        both = ((42, "host-a", 3307, 1, uuid_a), (43, "host-b", 3308, 1, uuid_b))
        for w in (0, 1):
            with in_worker(src.port, w) as c, c.cursor() as cur:
                cur.execute("SHOW REPLICAS")
                assert [d[0] for d in cur.description] == [
                    "Server_Id",
                    "Host",
                    "Port",
                    "Source_Id",
                    "Replica_UUID",
                ]
                assert cur.fetchall() == both
                cur.execute("SHOW SLAVE HOSTS")
                assert [d[0] for d in cur.description] == [
                    "Server_id",
                    "Host",
                    "Port",
                    "Master_id",
                    "Slave_UUID",
                ]
                assert cur.fetchall() == both
        # a later registration of the same server_id, in the other worker, replaces the earlier one
        r1b = in_worker(src.port, 0)
        register(r1b, 42, b"host-a2", 3317, uuid_a)
        with in_worker(src.port, 1) as c:
            assert query(c, "SHOW REPLICAS") == ((42, "host-a2", 3317, 1, uuid_a), both[1])
        r1b.close()  # unregister_replica when the registering connection ends, whichever worker it lived in
        with in_worker(src.port, 1) as c:  # r1's registration was replaced: it does not come back
            wait_until(lambda: query(c, "SHOW REPLICAS") == (both[1],), 10, "42's registration to go")
        r1.close()
        r0.close()
        with in_worker(src.port, 1) as c:
            wait_until(lambda: query(c, "SHOW REPLICAS") == (), 10, "43's registration to go")
