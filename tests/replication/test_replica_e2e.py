"""Replication by GTID auto-positioning between two real `gtidkit server` processes on 127.0.0.1: a source (log_bin,
gtid_mode ON) and a passive replica (binary log OFF).

What MySQL does, and so must we (manual "Setting Up Replication Using GTIDs", "CHANGE REPLICATION SOURCE TO",
"SHOW REPLICA STATUS"; ``sql/rpl_replica.cc``): data and gtid_executed converge; a replica with the binlog off keeps
its GTIDs in mysql.gtid_executed; the replica resumes after a restart of either side without re-requesting what it
holds (Retrieved_Gtid_Set survives, no transaction is applied twice); STOP/START REPLICA; RESET REPLICA ALL forgets
the channel; ``--skip-replica-start`` keeps the threads stopped; equal server ids stop the I/O thread with 13117 and a
source's dump error shows as 13114 ``Got fatal error 1236 from source when reading data from binary log: '...'``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pymysql
import pytest
from protocol.server_proc import running_server

SOURCE_ARGS = ("--log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")
REPLICA_ARGS = ("--server-id=2", "--skip-log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON")


def q(port: int, *sql: str) -> list[dict]:
    """Run the statements on one connection; the rows of the last one."""
    c = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        with c.cursor(pymysql.cursors.DictCursor) as cur:
            for stmt in sql:
                cur.execute(stmt)
            return list(cur.fetchall())
    finally:
        c.close()


def status(port: int) -> dict:
    rows = q(port, "SHOW REPLICA STATUS")
    return rows[0] if rows else {}


def executed(port: int) -> str:
    return q(port, "SELECT @@GLOBAL.gtid_executed AS g")[0]["g"]


def wait(cond, timeout: float = 60.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return False


def converged(src: int, rep: int) -> bool:
    return executed(src) == executed(rep)


def change_source(rep: int, src: int) -> None:
    q(
        rep,
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={src}, SOURCE_USER='root', "
        "SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=60",
    )


def rows(port: int) -> list[dict]:
    return q(port, "SELECT * FROM d.t ORDER BY a")


def test_replicate_restart_stop_start_reset(tmp_path: Path) -> None:
    src_dir, rep_dir = tmp_path / "source", tmp_path / "replica"
    with running_server(src_dir, *SOURCE_ARGS) as src:
        q(src.port, "CREATE DATABASE d")
        q(src.port, "CREATE TABLE d.t (a INT PRIMARY KEY, b VARCHAR(20))")
        q(src.port, "INSERT INTO d.t VALUES (1, 'one'), (2, 'two')")
        with running_server(rep_dir, *REPLICA_ARGS) as rep:
            change_source(rep.port, src.port)
            q(rep.port, "START REPLICA")
            assert wait(lambda: converged(src.port, rep.port))
            assert rows(rep.port) == rows(src.port)
            st = status(rep.port)
            src_uuid = q(src.port, "SELECT @@GLOBAL.server_uuid AS u")[0]["u"]
            assert (st["Replica_IO_Running"], st["Replica_SQL_Running"]) == ("Yes", "Yes")
            assert st["Replica_IO_State"] == "Waiting for source to send event"
            assert (st["Source_UUID"], st["Source_Server_Id"]) == (src_uuid, 1)
            assert st["Retrieved_Gtid_Set"] == st["Executed_Gtid_Set"] == f"{src_uuid}:1-3"
            assert (st["Last_IO_Errno"], st["Last_SQL_Errno"]) == (0, 0)
            assert wait(lambda: status(rep.port)["Seconds_Behind_Source"] == 0)
            src_file = q(src.port, "SHOW MASTER STATUS")[0]
            assert wait(lambda: status(rep.port)["Read_Source_Log_Pos"] == src_file["Position"])
            assert status(rep.port)["Source_Log_File"] == src_file["File"]
            # binlog off on the replica: the GTIDs are in mysql.gtid_executed (WL#6559)
            table = q(rep.port, "SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed")
            assert {r["source_uuid"] for r in table} == {src_uuid}
            # performance_schema (RM8 29.12.11): the same state as tables
            cs = q(
                rep.port,
                "SELECT SERVICE_STATE, SOURCE_UUID, RECEIVED_TRANSACTION_SET, LAST_QUEUED_TRANSACTION, "
                "LAST_ERROR_NUMBER, QUEUEING_TRANSACTION FROM performance_schema.replication_connection_status",
            )
            assert cs == [
                {
                    "SERVICE_STATE": "ON",
                    "SOURCE_UUID": src_uuid,
                    "RECEIVED_TRANSACTION_SET": f"{src_uuid}:1-3",
                    "LAST_QUEUED_TRANSACTION": f"{src_uuid}:3",
                    "LAST_ERROR_NUMBER": 0,
                    "QUEUEING_TRANSACTION": "",
                }
            ]
            applier = "SELECT CHANNEL_NAME, SERVICE_STATE FROM performance_schema.replication_applier_status"
            assert q(rep.port, applier) == [{"CHANNEL_NAME": "", "SERVICE_STATE": "ON"}]
            cfg = q(
                rep.port,
                "SELECT HOST, PORT, USER, AUTO_POSITION, CONNECTION_RETRY_INTERVAL, CONNECTION_RETRY_COUNT "
                "FROM performance_schema.replication_connection_configuration",
            )
            assert cfg == [
                {
                    "HOST": "127.0.0.1",
                    "PORT": src.port,
                    "USER": "root",
                    "AUTO_POSITION": "1",
                    "CONNECTION_RETRY_INTERVAL": 1,
                    "CONNECTION_RETRY_COUNT": 60,
                }
            ]
            # the source lists its replica
            assert [r["Server_Id"] for r in q(src.port, "SHOW REPLICAS")] == [2]

            # live: new commits arrive without polling the source
            q(src.port, "INSERT INTO d.t VALUES (3, 'three')")
            assert wait(lambda: converged(src.port, rep.port))

            # STOP REPLICA: commits pile up on the source; START REPLICA catches up
            q(rep.port, "STOP REPLICA")
            st = status(rep.port)
            assert (st["Replica_IO_Running"], st["Replica_SQL_Running"], st["Seconds_Behind_Source"]) == (
                "No",
                "No",
                None,
            )
            states = "SELECT SERVICE_STATE FROM performance_schema.replication_connection_status"
            assert q(rep.port, states) == [{"SERVICE_STATE": "OFF"}]
            assert q(rep.port, applier) == [{"CHANNEL_NAME": "", "SERVICE_STATE": "OFF"}]
            q(src.port, "UPDATE d.t SET b = 'TWO' WHERE a = 2")
            q(src.port, "INSERT INTO d.t VALUES (4, 'four')")
            time.sleep(0.3)
            assert not converged(src.port, rep.port)
            q(rep.port, "START REPLICA")
            assert wait(lambda: converged(src.port, rep.port))

            # only the SQL thread stopped: the receiver keeps queueing (Retrieved grows, Executed does not)
            q(rep.port, "STOP REPLICA SQL_THREAD")
            q(src.port, "INSERT INTO d.t VALUES (5, 'five')")
            assert wait(lambda: status(rep.port)["Retrieved_Gtid_Set"] == executed(src.port))
            assert executed(rep.port) != executed(src.port)
            q(rep.port, "START REPLICA SQL_THREAD")
            assert wait(lambda: converged(src.port, rep.port))
            retrieved = status(rep.port)["Retrieved_Gtid_Set"]

        # replica restart: the threads start at boot, nothing is re-requested or re-applied
        q(src.port, "INSERT INTO d.t VALUES (6, 'six')")
        with running_server(rep_dir, *REPLICA_ARGS) as rep:
            assert wait(lambda: converged(src.port, rep.port))
            assert rows(rep.port) == rows(src.port)
            st = status(rep.port)
            assert (st["Replica_IO_Running"], st["Replica_SQL_Running"]) == ("Yes", "Yes")
            assert st["Retrieved_Gtid_Set"] == executed(src.port) != retrieved

            # source restart: the receiver reconnects (SOURCE_CONNECT_RETRY=1) and resumes
            src.stop()
    with running_server(src_dir, *SOURCE_ARGS) as src2:
        with running_server(rep_dir, *REPLICA_ARGS) as rep:
            # the stored port is the old source's: re-point the channel
            q(rep.port, "STOP REPLICA")
            change_source(rep.port, src2.port)
            q(rep.port, "START REPLICA")
            q(src2.port, "INSERT INTO d.t VALUES (7, 'seven')")
            assert wait(lambda: converged(src2.port, rep.port))
            assert rows(rep.port) == rows(src2.port)
            assert [r["a"] for r in rows(rep.port)] == [1, 2, 3, 4, 5, 6, 7]

        # --skip-replica-start: configured, but the threads stay stopped
        with running_server(rep_dir, *REPLICA_ARGS, "--skip-replica-start") as rep:
            st = status(rep.port)
            assert (st["Replica_IO_Running"], st["Replica_SQL_Running"]) == ("No", "No")
            assert q(rep.port, "SELECT @@GLOBAL.skip_replica_start AS s")[0]["s"] == 1
            q(rep.port, "RESET REPLICA ALL")
            assert q(rep.port, "SHOW REPLICA STATUS") == []
            # RESET REPLICA does not touch gtid_executed
            assert executed(rep.port) == executed(src2.port)


def test_source_restart_reconnects(tmp_path: Path) -> None:
    """The source goes away and comes back on the same port: the receiver's reconnection loop resumes."""
    src_dir, rep_dir = tmp_path / "source", tmp_path / "replica"
    with running_server(src_dir, *SOURCE_ARGS) as src:
        port = src.port
        q(port, "CREATE DATABASE d")
        q(port, "CREATE TABLE d.t (a INT PRIMARY KEY, b VARCHAR(20))")
        with running_server(rep_dir, *REPLICA_ARGS) as rep:
            change_source(rep.port, port)
            q(rep.port, "START REPLICA")
            assert wait(lambda: converged(port, rep.port))
            src.stop()
            assert wait(lambda: status(rep.port)["Replica_IO_Running"] == "Connecting")
            # an attempt made while the source was closing can fail in its TLS handshake first (2026, as libmysql
            # reports it); the next ones (SOURCE_CONNECT_RETRY=1) find the port closed: 2003
            assert wait(lambda: status(rep.port)["Last_IO_Errno"] == 2003, timeout=20)
            st = status(rep.port)
            assert st["Last_IO_Error"].startswith(
                f"Error reconnecting to source 'root@127.0.0.1:{port}'. This was "
            )
            with running_server(src_dir, *SOURCE_ARGS, f"--port={port}") as src2:
                assert src2.port == port
                q(port, "INSERT INTO d.t VALUES (1, 'after restart')")
                assert wait(lambda: converged(port, rep.port))
                assert rows(rep.port) == [{"a": 1, "b": "after restart"}]
                st = status(rep.port)
                assert (st["Replica_IO_Running"], st["Last_IO_Errno"], st["Last_IO_Error"]) == ("Yes", 0, "")


def test_fatal_receiver_errors(tmp_path: Path) -> None:
    with running_server(tmp_path / "source", *SOURCE_ARGS) as src:
        src_uuid = q(src.port, "SELECT @@GLOBAL.server_uuid AS u")[0]["u"]
        # equal server ids (get_source_version_and_clock): 13117, the I/O thread stops
        with running_server(tmp_path / "same", "--server-id=1", "--skip-log-bin") as rep:
            change_source(rep.port, src.port)
            q(rep.port, "START REPLICA")
            assert wait(lambda: status(rep.port)["Replica_IO_Running"] == "No")
            st = status(rep.port)
            assert st["Last_IO_Errno"] == 13117
            assert st["Last_IO_Error"] == (
                "Fatal error: The replica I/O thread stops because source and replica have equal MySQL server ids; "
                "these ids must be different for replication to work (or the --replicate-same-server-id option must "
                "be used on replica but this does not always make sense; please check the manual before using it)."
            )
        # the replica holds a GTID of the source's UUID the source never executed: the source refuses the dump
        # (1236) and the receiver reports it as 13114
        with running_server(tmp_path / "ahead", *REPLICA_ARGS) as rep:
            q(rep.port, f"SET GTID_NEXT = '{src_uuid}:100'", "CREATE DATABASE errant")
            change_source(rep.port, src.port)
            q(rep.port, "START REPLICA")
            assert wait(lambda: status(rep.port)["Last_IO_Errno"] != 0)
            st = status(rep.port)
            assert st["Last_IO_Errno"] == 13114
            assert st["Last_IO_Error"].startswith(
                "Got fatal error 1236 from source when reading data from binary log: 'Replica has more GTIDs than "
                "the source has, using the source's SERVER_UUID."
            )
            assert wait(lambda: status(rep.port)["Replica_IO_Running"] == "No")
            assert status(rep.port)["Replica_SQL_Running"] == "Yes"


pytestmark = pytest.mark.timeout(300)


def test_errant_gtids_are_warned_by_show_replica_status(tmp_path: Path) -> None:
    """A transaction committed on the replica itself is a GTID the source lacks: after the receiver connects, SHOW
    REPLICA STATUS carries a warning naming it; replication itself goes on. (With the binary log off a client
    transaction gets no GTID, WL#6559; an explicit GTID_NEXT, as a DBA's manual fix or a former source's, does.)"""
    with running_server(tmp_path / "source", *SOURCE_ARGS) as src:
        q(src.port, "CREATE DATABASE d", "CREATE TABLE d.t (a INT PRIMARY KEY, b VARCHAR(20))")
        with running_server(tmp_path / "replica", *REPLICA_ARGS) as rep:
            errant = "aaaaaaaa-1111-2222-3333-bbbbbbbbbbbb:7"
            q(
                rep.port,
                f"SET GTID_NEXT = '{errant}'",
                "CREATE DATABASE local_only",
                "SET GTID_NEXT = AUTOMATIC",
            )
            change_source(rep.port, src.port)
            c = pymysql.connect(host="127.0.0.1", port=rep.port, user="root", autocommit=True)
            try:
                with c.cursor() as cur:
                    cur.execute("SHOW REPLICA STATUS")
                    cur.execute("SHOW WARNINGS")
                    assert cur.fetchall() == ()  # not connected yet: nothing known
                    cur.execute("START REPLICA")
                    assert wait(lambda: "d" in {r["Database"] for r in q(rep.port, "SHOW DATABASES")})
                    cur.execute("SHOW REPLICA STATUS")
                    cur.execute("SHOW WARNINGS")
                    warnings = cur.fetchall()
            finally:
                c.close()
            assert len(warnings) == 1
            level, code, text = warnings[0]
            assert (level, code) == ("Warning", 1105)
            assert f"'{errant}'" in text
            q(src.port, "INSERT INTO d.t VALUES (1, 'one')")
            assert wait(lambda: rows(rep.port) == [{"a": 1, "b": "one"}])


def test_source_ssl_connects_over_tls_and_verifies_the_source_certificate(tmp_path: Path) -> None:
    """SOURCE_SSL=1 replicates over TLS; with SOURCE_SSL_VERIFY_SERVER_CERT=1 and a CA that did not sign the source's
    certificate (the replica's own auto-generated CA) the TLS handshake fails: Last_IO_Errno is set and nothing is
    replicated, which shows the connection really is TLS (manual: CHANGE REPLICATION SOURCE TO, SOURCE_SSL_*)."""
    with running_server(tmp_path / "source", *SOURCE_ARGS) as src:
        q(src.port, "CREATE DATABASE d", "CREATE TABLE d.t (a INT PRIMARY KEY, b VARCHAR(20))")
        q(src.port, "INSERT INTO d.t VALUES (1, 'tls')")
        with running_server(tmp_path / "replica", *REPLICA_ARGS) as rep:
            wrong_ca = tmp_path / "replica" / "ca.pem"
            assert wrong_ca.exists()
            change_source(rep.port, src.port)
            q(
                rep.port,
                f"CHANGE REPLICATION SOURCE TO SOURCE_SSL=1, SOURCE_SSL_CA='{wrong_ca}', "
                "SOURCE_SSL_VERIFY_SERVER_CERT=1",
                "START REPLICA",
            )
            assert wait(lambda: status(rep.port).get("Last_IO_Errno", 0) != 0)
            st = status(rep.port)
            assert (
                st["Last_IO_Errno"] == 2026
            )  # CR_SSL_CONNECTION_ERROR, as libmysql reports a failed handshake
            assert "SSL connection error: " in st["Last_IO_Error"]
            assert "d" not in {r["Database"] for r in q(rep.port, "SHOW DATABASES")}
            q(
                rep.port,
                "STOP REPLICA",
                "CHANGE REPLICATION SOURCE TO SOURCE_SSL_VERIFY_SERVER_CERT=0",
                "START REPLICA",
            )
            assert wait(lambda: converged(src.port, rep.port))
            assert rows(rep.port) == [{"a": 1, "b": "tls"}]
            st = status(rep.port)
            assert (st["Source_SSL_Allowed"], st["Source_SSL_Verify_Server_Cert"]) == ("Yes", "No")
