"""A replica as DBAs operate it, on one source/replica pair of real `gtidkit server` processes (shared by the module):
the replica options mysqld accepts, the performance_schema tables monitoring tools read, SHOW REPLICAS.

Oracles:
- RM8 "Replication Replica Options and Variables" (``relay_log_purge``, ``relay_log_recovery``,
  ``relay_log_space_limit``, ``replica_parallel_workers`` (8.0.27+ default 4), ``replica_parallel_type``,
  ``replica_preserve_commit_order``, ``replica_skip_errors`` with ``ddl_exist_errors``, ``skip_replica_start``,
  ``report_host`` / ``report_port``), "read_only" / "super_read_only" (1290 ER_OPTION_PREVENTS_STATEMENT, "The MySQL
  server is running with the --read-only option so it cannot execute this statement"; the applier is exempt);
- storage/perfschema/table_replication_applier_*.cc (columns) and mysql-test
  ``rpl_nogtid/r/rpl_perfschema_applier_status_by_worker.result``: WORKER_ID 1..replica_parallel_workers, kept after
  STOP REPLICA with SERVICE_STATE OFF and THREAD_ID NULL, LAST_ERROR_MESSAGE ``Worker 1 failed executing transaction
  '<gtid>' at source log <file>, end_log_pos <pos>; <error>`` equal to SHOW REPLICA STATUS's worker text;
- RM8 "SHOW REPLICAS": Server_Id, Host (report_host), Port (report_port), Source_Id, Replica_UUID.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import mysql.connector
import pymysql
import pytest

from gtidkit.gtid import GtidSet
from replication.cluster import Node, cluster, wait_until

REPLICA_OPTIONS = (
    "--replica-parallel-workers=3",
    "--replica-preserve-commit-order=ON",
    "--relay-log-purge=OFF",
    "--relay-log-space-limit=64M",
    "--replica-skip-errors=1062",
    "--replica-net-timeout=30",
    "--report-host=replica-2.example",
    "--report-port=3999",
    "--read-only",
)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Node, Node]]:
    with cluster(tmp_path_factory.mktemp("ops")) as c:
        src = c.node("source", 1, log_bin=True)
        rep = c.node("replica", 2, log_bin=False, extra=REPLICA_OPTIONS)
        src.query("CREATE DATABASE d")
        src.query("CREATE TABLE d.t (a INT PRIMARY KEY, b VARCHAR(20))")
        rep.replicate_from(src)
        yield src, rep


def _sync(src: Node, rep: Node) -> None:
    assert rep.wait_for(src.executed(), 60), rep.replica_status()


def _rows(node: Node, sql: str) -> list[dict]:
    conn = node.connect()
    try:
        with conn.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def test_replica_options_are_variables(pair: tuple[Node, Node]) -> None:
    _, rep = pair
    row = _rows(
        rep,
        "SELECT @@relay_log_purge AS purge, @@relay_log_recovery AS recovery, @@relay_log_space_limit AS space, "
        "@@replica_parallel_workers AS workers, @@slave_parallel_workers AS old_workers, "
        "@@replica_parallel_type AS type, @@replica_preserve_commit_order AS commit_order, "
        "@@replica_skip_errors AS skip, @@replica_net_timeout AS timeout, @@report_host AS host, "
        "@@report_port AS port, @@read_only AS ro, @@super_read_only AS sro, @@skip_replica_start AS skip_start",
    )[0]
    assert row == {
        "purge": 0,
        "recovery": 0,
        "space": 64 * 1024 * 1024,
        "workers": 3,
        "old_workers": 3,
        "type": "LOGICAL_CLOCK",
        "commit_order": 1,
        "skip": "1062",
        "timeout": 30,
        "host": "replica-2.example",
        "port": 3999,
        "ro": 1,
        "sro": 0,
        "skip_start": 0,
    }


def test_show_replicas_reports_host_and_port(pair: tuple[Node, Node]) -> None:
    src, rep = pair
    uuid = rep.server_uuid()
    expected = (2, "replica-2.example", 3999, 1, uuid)
    wait_until(lambda: src.query("SHOW REPLICAS") == (expected,), what="SHOW REPLICAS row")
    conn = src.connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW SLAVE HOSTS")
            assert [d[0] for d in cur.description] == ["Server_id", "Host", "Port", "Master_id", "Slave_UUID"]
            assert cur.fetchall() == (expected,)
    finally:
        conn.close()


def test_worker_and_coordinator_tables(pair: tuple[Node, Node]) -> None:
    src, rep = pair
    src.query("INSERT INTO d.t VALUES (1, 'one')")
    _sync(src, rep)
    last = f"{src.server_uuid()}:{GtidSet.parse(src.executed().to_text()).count()}"
    workers = _rows(
        rep, "SELECT * FROM performance_schema.replication_applier_status_by_worker ORDER BY WORKER_ID"
    )
    assert [w["WORKER_ID"] for w in workers] == [1, 2, 3]
    w1 = workers[0]
    assert (w1["SERVICE_STATE"], w1["LAST_ERROR_NUMBER"], w1["LAST_ERROR_MESSAGE"]) == ("ON", 0, "")
    assert w1["LAST_APPLIED_TRANSACTION"] == last
    zero = "0000-00-00 00:00:00.000000"
    stamps = [
        w1[f"LAST_APPLIED_TRANSACTION_{c}_TIMESTAMP"]
        for c in ("ORIGINAL_COMMIT", "IMMEDIATE_COMMIT", "START_APPLY", "END_APPLY")
    ]
    assert zero not in stamps
    assert stamps[0] == stamps[1]  # the source is the original committer
    assert stamps[0] <= stamps[2] <= stamps[3]
    assert (w1["APPLYING_TRANSACTION"], w1["APPLYING_TRANSACTION_START_APPLY_TIMESTAMP"]) == ("", zero)
    assert all(w["LAST_APPLIED_TRANSACTION"] == "" and w["SERVICE_STATE"] == "ON" for w in workers[1:])
    coord = _rows(rep, "SELECT * FROM performance_schema.replication_applier_status_by_coordinator")
    assert len(coord) == 1
    assert (coord[0]["SERVICE_STATE"], coord[0]["LAST_PROCESSED_TRANSACTION"]) == ("ON", last)
    assert coord[0]["PROCESSING_TRANSACTION"] == ""
    config = _rows(rep, "SELECT * FROM performance_schema.replication_applier_configuration")
    assert config == [
        {
            "CHANNEL_NAME": "",
            "DESIRED_DELAY": 0,
            "PRIVILEGE_CHECKS_USER": None,
            "REQUIRE_ROW_FORMAT": "NO",
            "REQUIRE_TABLE_PRIMARY_KEY_CHECK": "STREAM",
            "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_TYPE": "OFF",
            "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_VALUE": None,
        }
    ]
    received = _rows(
        rep,
        "SELECT SERVICE_STATE, RECEIVED_TRANSACTION_SET, LAST_QUEUED_TRANSACTION, QUEUEING_TRANSACTION "
        "FROM performance_schema.replication_connection_status",
    )[0]
    assert GtidSet.parse(received.pop("RECEIVED_TRANSACTION_SET")) == src.executed()
    assert received == {"SERVICE_STATE": "ON", "LAST_QUEUED_TRANSACTION": last, "QUEUEING_TRANSACTION": ""}


def test_skip_errors_goes_on_with_the_gtid(pair: tuple[Node, Node]) -> None:
    """--replica-skip-errors=1062: a duplicate key from the source does not stop the applier; the GTID is
    executed (never fetched again) and the replica keeps its own row."""
    src, rep = pair
    rep.query("INSERT INTO d.t VALUES (2, 'replica')")  # root holds SUPER: read_only lets it write
    src.query("INSERT INTO d.t VALUES (2, 'source')")
    src.query("INSERT INTO d.t VALUES (3, 'three')")
    _sync(src, rep)
    status = rep.replica_status()
    assert (status["Replica_SQL_Running"], status["Last_SQL_Errno"]) == ("Yes", 0)
    assert rep.query("SELECT a, b FROM d.t ORDER BY a") == ((1, "one"), (2, "replica"), (3, "three"))


def test_worker_error_with_its_gtid_then_stop(pair: tuple[Node, Node]) -> None:
    src, rep = pair
    rep.query("DELETE FROM d.t WHERE a = 1")
    src.query("UPDATE d.t SET b = 'uno' WHERE a = 1")  # 1032: not in replica_skip_errors
    gtid = f"{src.server_uuid()}:{src.executed().count()}"
    wait_until(lambda: rep.replica_status()["Last_SQL_Errno"] == 1032, what="error 1032")
    status = rep.replica_status()
    w1 = _rows(
        rep, "SELECT * FROM performance_schema.replication_applier_status_by_worker WHERE WORKER_ID = 1"
    )[0]
    assert w1["LAST_ERROR_NUMBER"] == 1032
    assert w1["LAST_ERROR_MESSAGE"].startswith(
        f"Worker 1 failed executing transaction '{gtid}' at source log binlog.000001, end_log_pos "
    )
    head = w1["LAST_ERROR_MESSAGE"].split("; ", 1)[0]  # the coordinator's text names the worker's failure
    assert status["Last_SQL_Error"].startswith(f"Coordinator stopped because there were error(s) in the worker(s). "
                                               f"The most recent failure being: {head}. ")  # fmt: skip
    coord = _rows(rep, "SELECT * FROM performance_schema.replication_applier_status_by_coordinator")[0]
    assert (coord["SERVICE_STATE"], coord["LAST_ERROR_NUMBER"]) == ("OFF", 1032)
    assert coord["LAST_ERROR_MESSAGE"] == status["Last_SQL_Error"]
    rep.query("STOP REPLICA")
    after = _rows(rep, "SELECT WORKER_ID, THREAD_ID, SERVICE_STATE, LAST_ERROR_NUMBER FROM "
                  "performance_schema.replication_applier_status_by_worker ORDER BY WORKER_ID")  # fmt: skip
    assert [tuple(r.values()) for r in after] == [
        (1, None, "OFF", 1032),
        (2, None, "OFF", 0),
        (3, None, "OFF", 0),
    ]
    rep.query("INSERT INTO d.t VALUES (1, 'one')")  # the DBA fixes the data and restarts
    rep.query("START REPLICA")
    _sync(src, rep)
    assert rep.query("SELECT b FROM d.t WHERE a = 1") == (("uno",),)


def test_read_only_and_super_read_only(pair: tuple[Node, Node]) -> None:
    src, rep = pair
    rep.query("CREATE USER app IDENTIFIED BY 'pw'")
    rep.query("GRANT INSERT, SELECT, CREATE ON *.* TO app")
    app = pymysql.connect(host="127.0.0.1", port=rep.port, user="app", password="pw", autocommit=True)
    try:
        with app.cursor() as cur:
            with pytest.raises(pymysql.err.OperationalError) as err:
                cur.execute("INSERT INTO d.t VALUES (10, 'app')")
            assert err.value.args == (
                1290,
                "The MySQL server is running with the --read-only option so it cannot execute this statement",
            )
            with pytest.raises(pymysql.err.OperationalError) as err:
                cur.execute("CREATE TABLE d.app (a INT PRIMARY KEY)")
            assert err.value.args[0] == 1290
            cur.execute("CREATE TEMPORARY TABLE d.tmp (a INT)")  # temporary tables stay writable
            cur.execute("INSERT INTO d.tmp VALUES (1)")
        prepared = mysql.connector.connect(host="127.0.0.1", port=rep.port, user="app", password="pw")
        try:  # a prepared statement (COM_STMT_EXECUTE) is refused all the same
            with pytest.raises(mysql.connector.Error) as perr:
                prepared.cursor(prepared=True).execute("INSERT INTO d.t VALUES (?, ?)", (10, "app"))
            assert perr.value.errno == 1290
        finally:
            prepared.close()
        rep.query("SET GLOBAL super_read_only = ON")
        assert rep.query("SELECT @@read_only, @@super_read_only") == ((1, 1),)
        with pytest.raises(pymysql.err.OperationalError) as err:
            rep.query("INSERT INTO d.t VALUES (11, 'root')")
        assert err.value.args == (
            1290,
            "The MySQL server is running with the --super-read-only option so it cannot execute this statement",
        )
        src.query("INSERT INTO d.t VALUES (12, 'from source')")  # the applier is exempt
        _sync(src, rep)
        assert rep.query("SELECT b FROM d.t WHERE a = 12") == (("from source",),)
    finally:
        app.close()
        rep.query("SET GLOBAL read_only = OFF")
    assert rep.query("SELECT @@read_only, @@super_read_only") == ((0, 0),)


def _relay_files(node: Node) -> list[str]:
    index = next(node.datadir.glob("*-relay-bin.index"))
    return [line.strip().removeprefix("./") for line in index.read_text().splitlines() if line.strip()]


def test_seconds_behind_source_counts_from_the_transaction_being_applied(pair: tuple[Node, Node]) -> None:
    """Seconds_Behind_Source is now minus the source timestamp of the event the applier is processing (RM8 "SHOW
    REPLICA STATUS": "the difference between the current timestamp on the replica and the original timestamp logged
    on the source for the event currently being processed on the replica"; ``Relay_log_info::last_master_timestamp``,
    set before ``sql_delay_event``), not of the last event received: with SOURCE_DELAY holding an old transaction
    back after a newer one was received, the lag counts from the old one."""
    src, rep = pair
    src.query("CREATE TABLE d.lag (a INT PRIMARY KEY)")
    _sync(src, rep)
    rep.query("STOP REPLICA SQL_THREAD")
    rep.query("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 30")
    rep.query("START REPLICA SQL_THREAD")
    try:
        old = time.time()
        src.query("INSERT INTO d.lag VALUES (1)")
        time.sleep(3)
        src.query("INSERT INTO d.lag VALUES (2)")
        newest = src.executed()
        wait_until(
            lambda: GtidSet.parse(rep.replica_status()["Retrieved_Gtid_Set"]) >= newest,
            20,
            what="the newer one",
        )
        st = rep.replica_status()
        age = time.time() - old
        assert st["SQL_Remaining_Delay"] is not None  # the old transaction is still held back
        assert rep.query("SELECT COUNT(*) FROM d.lag") == ((0,),)
        # counted from the old transaction's second (a whole-second timestamp): at least age - 1, >= 2 here; the
        # newer transaction's timestamp would give about 0
        assert age - 1 <= st["Seconds_Behind_Source"] <= age + 1, (st["Seconds_Behind_Source"], age)
    finally:
        rep.query("STOP REPLICA SQL_THREAD")
        rep.query("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 0")
        rep.query("START REPLICA SQL_THREAD")
    _sync(src, rep)
    assert rep.query("SELECT a FROM d.lag ORDER BY a") == ((1,), (2,))
    assert rep.replica_status()["Seconds_Behind_Source"] == 0


def test_relay_log_purge_off_keeps_files_then_recovery_discards_them(pair: tuple[Node, Node]) -> None:
    src, rep = pair
    before = _relay_files(rep)
    for n in (20, 21):
        src.query("FLUSH LOGS")
        src.query(f"INSERT INTO d.t VALUES ({n}, 'rotated')")
    _sync(src, rep)
    kept = _relay_files(rep)
    assert (
        kept[: len(before)] == before and len(kept) >= len(before) + 2
    )  # relay_log_purge=OFF: nothing purged
    assert all((rep.datadir / f).exists() for f in kept)

    # restart with relay_log_recovery and skip_replica_start: old relay files gone, threads stopped, then resume
    rep.stop()
    rep.args.extend(["--relay-log-recovery", "--skip-replica-start"])
    rep.start()
    status = rep.replica_status()
    assert (status["Replica_IO_Running"], status["Replica_SQL_Running"]) == ("No", "No")
    recovered = _relay_files(rep)
    assert len(recovered) == 1  # one new relay log; every one received before is discarded
    assert all(not (rep.datadir / f).exists() for f in kept if f not in recovered)
    src.query("INSERT INTO d.t VALUES (30, 'after recovery')")
    rep.query("START REPLICA")
    _sync(src, rep)
    assert rep.query("SELECT a FROM d.t WHERE a >= 20 ORDER BY a") == ((20,), (21,), (30,))
    assert rep.executed() == src.executed()


def test_relay_log_space_limit_waits_for_the_applier(pair: tuple[Node, Node]) -> None:
    """relay_log_space_limit with relay_log_purge ON: with the applier stopped the receiver stops reading once the
    relay log outgrows the limit (Replica_IO_State "Waiting for the replica SQL thread to free relay log space",
    the 8.0.26+ stage name), and goes on when the applier purges what it applied."""
    src, rep = pair
    rep.stop()
    dropped = (
        "--relay-log-purge=OFF",
        "--relay-log-space-limit=64M",
        "--relay-log-recovery",
        "--skip-replica-start",
    )
    rep.args = [a for a in rep.args if a not in dropped] + [
        "--relay-log-purge=ON",
        "--relay-log-space-limit=2048",
    ]
    rep.start()
    _sync(src, rep)
    rep.query("STOP REPLICA SQL_THREAD")
    for n in range(40, 48):
        src.query(f"INSERT INTO d.t VALUES ({n}, 'space')")
        src.query("FLUSH LOGS")  # each source rotation starts a relay file
    waiting = "Waiting for the replica SQL thread to free relay log space"
    wait_until(
        lambda: rep.replica_status()["Replica_IO_State"] == waiting, what="the receiver to wait for space"
    )
    status = rep.replica_status()
    assert GtidSet.parse(status["Retrieved_Gtid_Set"]) != src.executed()  # it stopped fetching
    assert status["Relay_Log_Space"] > 2048
    rep.query("START REPLICA SQL_THREAD")
    _sync(src, rep)
    assert rep.query("SELECT COUNT(*) FROM d.t WHERE b = 'space'") == ((8,),)
