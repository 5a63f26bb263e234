"""Position-based replication and GTID_MODE compatibility between real `gtidkit server` processes.

Expected values come from MySQL 8.0.41: ``sql/rpl_replica.cc`` (``request_dump`` without auto-positioning sends
COM_BINLOG_DUMP with the connection metadata's file/position; ``get_source_version_and_clock`` refuses
incompatible GTID_MODEs with ER_REPLICA_FATAL_ERROR 13117; ``queue_event`` refuses a GTID transaction on a
GTID_MODE=OFF replica and an anonymous one under AUTO_POSITION, after which Last_IO_Error is 13122 "Relay log write
failure: could not queue event from source"), ``sql/sys_vars.cc`` (``Sys_var_gtid_mode::global_update``: 3111 while a
channel uses AUTO_POSITION), the manual's SOURCE_POS_WAIT, and mysql-test ``rpl_gtid_mode.result`` /
``rpl_binlog_errors.result`` (errno 13122 / 13117 waits).

One module-wide trio of servers: ``on`` (GTID_MODE=ON source, binary log), ``off`` (GTID_MODE=OFF source, binary
log) and ``replica`` (binary log off). The tests run in file order and each leaves the replica stopped.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymysql
import pytest
from protocol.server_proc import free_port

from gtidkit.gtid import GtidSet
from replication.cluster import Cluster, Node, cluster, wait_until

GTID_OFF = ("--gtid-mode=OFF", "--enforce-gtid-consistency=OFF")


def _free_port() -> int:
    return free_port()  # the restart finds the same port: one from below the ephemeral range


@pytest.fixture(scope="module")
def trio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    base: Path = tmp_path_factory.mktemp("positions")
    with cluster(base) as c:
        c.node("on", 1, log_bin=True, extra=(f"--port={_free_port()}",))
        c.node("off", 3, log_bin=True, extra=GTID_OFF)
        c.node("replica", 2, log_bin=False)
        yield c


def _point(replica: Node, source: Node, *opts: str) -> None:
    replica.query("STOP REPLICA")
    replica.query("RESET REPLICA ALL")
    replica.query(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '127.0.0.1', SOURCE_PORT = %s, SOURCE_USER = 'root', "
        "SOURCE_CONNECT_RETRY = 1" + "".join(", " + o for o in opts),
        (source.port,),
    )


def _binlog_status(node: Node) -> tuple[str, int]:
    row = node.query("SHOW MASTER STATUS")[0]
    return str(row[0]), int(row[1])


def _io_error(replica: Node) -> tuple[int, str]:
    wait_until(lambda: replica.replica_status().get("Last_IO_Errno"), 30, what="an I/O error")
    st = replica.replica_status()
    return int(st["Last_IO_Errno"]), str(st["Last_IO_Error"])


def _error(node: Node, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.MySQLError) as exc:
        node.query(sql)
    return int(exc.value.args[0]), str(exc.value.args[1])


def test_position_based_replication_starts_at_the_given_position(trio: Cluster) -> None:
    on, replica = trio.nodes["on"], trio.nodes["replica"]
    uuid = on.server_uuid()
    for sql in ("CREATE DATABASE p", "CREATE TABLE p.t (id INT PRIMARY KEY)", "INSERT INTO p.t VALUES (1)"):
        on.query(sql)
    file, pos = _binlog_status(on)
    on.query("INSERT INTO p.t VALUES (2)")  # uuid:4, after the position: the only one replicated
    replica.query("CREATE DATABASE p")
    replica.query("CREATE TABLE p.t (id INT PRIMARY KEY)")
    _point(replica, on, "SOURCE_AUTO_POSITION = 0", f"SOURCE_LOG_FILE = '{file}'", f"SOURCE_LOG_POS = {pos}")
    replica.query("START REPLICA")
    wait_until(lambda: replica.query("SELECT COUNT(*) FROM p.t")[0][0] == 1, 30, what="row 2")
    assert replica.query("SELECT id FROM p.t") == ((2,),)
    st = replica.replica_status()
    assert (st["Auto_Position"], st["Retrieved_Gtid_Set"], st["Source_Log_File"]) == (0, f"{uuid}:4", file)
    assert st["Last_IO_Errno"] == 0 and st["Last_SQL_Errno"] == 0

    # the source restarts (a new binlog file); the receiver reconnects from its position, the applier's
    # executed position follows the rotation: SOURCE_POS_WAIT on the source's new coordinates returns
    on.stop()
    on.start()
    file2, pos2 = _binlog_status(on)
    assert file2 != file
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", (file2, pos2))[0][0] >= 0
    assert replica.replica_status()["Relay_Source_Log_File"] == file2
    on.query("INSERT INTO p.t VALUES (3)")
    file3, pos3 = _binlog_status(on)
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", (file3, pos3))[0][0] >= 0
    assert replica.query("SELECT id FROM p.t ORDER BY id") == ((2,), (3,))
    st = replica.replica_status()
    assert (st["Relay_Source_Log_File"], st["Exec_Source_Log_Pos"]) == (file3, pos3)
    assert st["Retrieved_Gtid_Set"] == f"{uuid}:4-5"
    replica.query("STOP REPLICA")


def test_threads_and_relaylog_events(trio: Cluster) -> None:
    """performance_schema.threads (RM8 "The threads Table": thread/sql/one_connection, replica_io, replica_sql,
    replica_worker; the dump is a connection whose COMMAND is ``Binlog Dump`` (position-based)) and SHOW RELAYLOG EVENTS
    (rpl/r/rpl_show_relaylog_events.result: the columns of SHOW BINLOG EVENTS, End_log_pos the source's)."""
    on, replica = trio.nodes["on"], trio.nodes["replica"]
    file, pos = _binlog_status(on)
    _point(replica, on, "SOURCE_AUTO_POSITION = 0", f"SOURCE_LOG_FILE = '{file}'", f"SOURCE_LOG_POS = {pos}")
    replica.query("START REPLICA")
    on.query("INSERT INTO p.t VALUES (4)")
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", _binlog_status(on))[0][0] >= 0
    names = {
        r[0]: r[1:]
        for r in replica.query(
            "SELECT NAME, PROCESSLIST_USER, PROCESSLIST_COMMAND, PROCESSLIST_STATE FROM performance_schema.threads "
            "WHERE NAME LIKE 'thread/sql/replica%'"
        )
    }
    assert names == {
        "thread/sql/replica_io": ("system user", "Connect", "Waiting for source to send event"),
        "thread/sql/replica_sql": (
            "system user",
            "Connect",
            "Replica has read all relay log; waiting for more updates",
        ),
        "thread/sql/replica_worker": ("system user", "Connect", "Waiting for an event from Coordinator"),
    }
    mine = replica.query(
        "SELECT t.NAME, t.PROCESSLIST_COMMAND, t.THREAD_ID <> t.PROCESSLIST_ID FROM performance_schema.threads t "
        "WHERE t.PROCESSLIST_ID = CONNECTION_ID()"
    )
    assert mine == (("thread/sql/one_connection", "Query", 1),)
    dumps = on.query(
        "SELECT NAME, PROCESSLIST_USER FROM performance_schema.threads WHERE PROCESSLIST_COMMAND = 'Binlog Dump'"
    )
    assert dumps == (("thread/sql/one_connection", "root"),)

    # performance_schema's applier tables (RM8 "Performance Schema Replication Tables", 8.0.41 columns)
    last_gtid = f"{on.server_uuid()}:{on.executed().last_gno(on.server_uuid())}"
    worker = replica.query(
        "SELECT w.WORKER_ID, w.SERVICE_STATE, w.LAST_APPLIED_TRANSACTION, w.APPLYING_TRANSACTION, t.NAME, "
        "w.LAST_ERROR_NUMBER FROM performance_schema.replication_applier_status_by_worker w "
        "JOIN performance_schema.threads t ON t.THREAD_ID = w.THREAD_ID"
    )
    assert worker == ((1, "ON", last_gtid, "", "thread/sql/replica_worker", 0),)
    coordinator = replica.query(
        "SELECT c.SERVICE_STATE, c.LAST_PROCESSED_TRANSACTION, t.NAME FROM "
        "performance_schema.replication_applier_status_by_coordinator c JOIN performance_schema.threads t "
        "ON t.THREAD_ID = c.THREAD_ID"
    )
    assert coordinator == (("ON", last_gtid, "thread/sql/replica_sql"),)
    assert replica.query("SELECT * FROM performance_schema.replication_applier_configuration") == (
        ("", 0, None, "NO", "STREAM", "OFF", None),
    )
    first = replica.query("SHOW RELAYLOG EVENTS")
    assert first[0][2:] == (first[0][2], 2, first[0][4], first[0][5]) and first[0][2] == "Format_desc"
    relay_file = str(replica.replica_status()["Relay_Log_File"])
    events = replica.query(f"SHOW RELAYLOG EVENTS IN '{relay_file}'")
    gtid_rows = [e for e in events if e[2] == "Gtid"]
    source_gtids = [
        e for e in on.query("SHOW BINLOG EVENTS IN %s", (_binlog_status(on)[0],)) if e[2] == "Gtid"
    ]
    assert gtid_rows[-1][3:] == source_gtids[-1][3:]  # server id, the source's End_log_pos, the same Info
    assert replica.query(f"SHOW RELAYLOG EVENTS IN '{relay_file}' FROM {gtid_rows[-1][1]} LIMIT 1") == (
        gtid_rows[-1],
    )
    assert _error(replica, "SHOW RELAYLOG EVENTS IN 'nope.000001'") == (
        1220,
        "Error when executing command SHOW RELAYLOG EVENTS: Could not find target log",
    )
    replica.query("STOP REPLICA")


def _sql_stopped(replica: Node) -> dict[str, Any]:
    wait_until(
        lambda: replica.replica_status()["Replica_SQL_Running"] == "No", 30, what="the SQL thread to stop"
    )
    return replica.replica_status()


def _notes(replica: Node, sql: str) -> list[tuple[Any, ...]]:
    conn: Any = replica.connect()
    try:
        cur = conn.cursor()
        cur.execute(sql)
        cur.execute("SHOW WARNINGS")
        return [tuple(r) for r in cur.fetchall()]
    finally:
        conn.close()


def test_start_replica_until(trio: Cluster) -> None:
    """rpl_gtid/r/rpl_gtid_sql_until_before_after.result: 1277 for wrong combinations, note 1279 for UNTIL with
    IO_THREAD only, the SQL thread stopping exactly before / after the named GTIDs (and at once when they are
    already applied); SOURCE_LOG_FILE/POS and RELAY_LOG_FILE/POS (note 1278 without --skip-replica-start),
    Until_Condition / Until_Log_File / Until_Log_Pos in SHOW REPLICA STATUS (``show_slave_status``)."""
    on, replica = trio.nodes["on"], trio.nodes["replica"]
    uuid = on.server_uuid()
    file, pos = _binlog_status(on)
    _point(replica, on, "SOURCE_AUTO_POSITION = 0", f"SOURCE_LOG_FILE = '{file}'", f"SOURCE_LOG_POS = {pos}")
    first = on.executed().last_gno(uuid) + 1
    ends = []
    for i in range(6):  # GTIDs first .. first+5, rows 100..105
        on.query(f"INSERT INTO p.t VALUES ({100 + i})")
        ends.append(_binlog_status(on))
    g = [f"{uuid}:{first + i}" for i in range(6)]
    for bad in (
        f"START REPLICA UNTIL SQL_BEFORE_GTIDS = '{g[1]}', SOURCE_LOG_FILE = 'foo.bin', SOURCE_LOG_POS = 100",
        f"START REPLICA IO_THREAD UNTIL SQL_BEFORE_GTIDS = '{g[1]}', RELAY_LOG_FILE = 'r.000001', RELAY_LOG_POS = 4",
        "START REPLICA UNTIL SOURCE_LOG_FILE = 'binlog.000001'",
        "START REPLICA UNTIL SQL_AFTER_MTS_GAPS, SOURCE_LOG_FILE = 'binlog.000001', SOURCE_LOG_POS = 4",
        "START REPLICA SQL_THREAD UNTIL SQL_BEFORE_GTIDS = 'not-a-gtid-set'",
    ):
        assert _error(replica, bad) == (
            1277,
            "Incorrect parameter or combination of parameters for START REPLICA UNTIL",
        ), bad
    assert _notes(replica, f"START REPLICA IO_THREAD UNTIL SQL_BEFORE_GTIDS = '{g[1]}'") == [
        ("Note", 1279, "SQL thread is not to be started so UNTIL options are ignored")
    ]
    wait_until(
        lambda: replica.replica_status()["Retrieved_Gtid_Set"] == f"{uuid}:{first}-{first + 5}",
        30,
        what="all",
    )
    replica.query("STOP REPLICA IO_THREAD")
    rows = "SELECT id FROM p.t WHERE id >= 100 ORDER BY id"

    replica.query(f"START REPLICA SQL_THREAD UNTIL SQL_BEFORE_GTIDS = '{uuid}:{first + 1}-{first + 2}'")
    st = _sql_stopped(replica)
    assert replica.query(rows) == ((100,),)
    assert (st["Until_Condition"], st["Until_Log_File"], st["Until_Log_Pos"]) == ("SQL_BEFORE_GTIDS", "", 0)
    assert st["Last_SQL_Errno"] == 0

    replica.query(f"START REPLICA SQL_THREAD UNTIL SQL_AFTER_GTIDS = '{uuid}:{first + 1}-{first + 2}'")
    assert _sql_stopped(replica)["Until_Condition"] == "SQL_AFTER_GTIDS"
    assert replica.query(rows) == ((100,), (101,), (102,))

    # already applied: stops at once, applies nothing
    replica.query(f"START REPLICA SQL_THREAD UNTIL SQL_BEFORE_GTIDS = '{g[0]}'")
    _sql_stopped(replica)
    replica.query(f"START REPLICA SQL_THREAD UNTIL SQL_AFTER_GTIDS = '{g[0]}'")
    _sql_stopped(replica)
    assert replica.query(rows) == ((100,), (101,), (102,))

    src_file, src_pos = ends[3]  # the end of the 4th insert
    notes = _notes(
        replica, f"START REPLICA SQL_THREAD UNTIL SOURCE_LOG_FILE = '{src_file}', SOURCE_LOG_POS = {src_pos}"
    )
    assert [n[:2] for n in notes] == [("Note", 1278)]
    st = _sql_stopped(replica)
    assert replica.query(rows) == ((100,), (101,), (102,), (103,))
    assert (st["Until_Condition"], st["Until_Log_File"], st["Until_Log_Pos"]) == ("Source", src_file, src_pos)
    assert (st["Relay_Source_Log_File"], st["Exec_Source_Log_Pos"]) == (src_file, src_pos)
    slave = replica.query("SHOW SLAVE STATUS")
    assert "Master" in slave[0]

    relay_file = str(st["Relay_Log_File"])
    events = replica.query(f"SHOW RELAYLOG EVENTS IN '{relay_file}'")
    at = next(i for i, e in enumerate(events) if e[2] == "Gtid" and g[4] in e[5])
    xid = next(i for i in range(at, len(events)) if events[i][2] == "Xid")
    relay_pos = int(events[xid + 1][1]) if xid + 1 < len(events) else None
    assert relay_pos is not None
    replica.query(
        f"START REPLICA SQL_THREAD UNTIL RELAY_LOG_FILE = '{relay_file}', RELAY_LOG_POS = {relay_pos}"
    )
    st = _sql_stopped(replica)
    assert replica.query(rows) == ((100,), (101,), (102,), (103,), (104,))
    assert (st["Until_Condition"], st["Until_Log_File"], st["Until_Log_Pos"]) == (
        "Relay",
        relay_file,
        relay_pos,
    )

    replica.query("START REPLICA SQL_THREAD")
    wait_until(lambda: len(replica.query(rows)) == 6, 30, what="the last row")
    assert replica.replica_status()["Until_Condition"] == "None"
    replica.query("STOP REPLICA")


def _warnings(node: Node, sql: str, *, ssl: bool = False) -> list[tuple[Any, ...]]:
    conn: Any = pymysql.connect(
        host="127.0.0.1",
        port=node.port,
        user="root",
        autocommit=True,
        ssl={"check_hostname": False, "verify_mode": 0} if ssl else None,
        ssl_disabled=not ssl,  # PyMySQL would otherwise switch to TLS when the server offers it
    )
    try:
        cur = conn.cursor()
        cur.execute(sql)
        if cur.description:
            cur.fetchall()
        cur.execute("SHOW WARNINGS")
        return [tuple(r) for r in cur.fetchall()]
    finally:
        conn.close()


def _dep(old: str, new: str) -> tuple[str, int, str]:
    return (
        "Warning",
        1287,
        f"'{old}' is deprecated and will be removed in a future release. Please use {new} instead",
    )


N1759 = ("Note", 1759, "Sending passwords in plain text without SSL/TLS is extremely insecure.")
N1760 = (
    "Note",
    1760,
    (
        "Storing MySQL user name or password information in the connection metadata repository is not secure and is "
        "therefore not recommended. Please consider using the USER and PASSWORD connection options for START REPLICA; "
        "see the 'START REPLICA Syntax' in the MySQL Manual for more information."
    ),
)


def test_five_seven_spellings_warn_as_mysql_8_0(trio: Cluster) -> None:
    """rpl_gtid/r/rpl_source_terminology.result and rpl_gtid_sql_until_before_after.result: 1287 for CHANGE
    MASTER and for each MASTER_* option (in the order written), then 1759 (the client connection has no TLS:
    ``thd->get_ssl()``) and 1760; 3023 for SOURCE_LOG_FILE without SOURCE_LOG_POS; 1287 for START / STOP / RESET
    SLAVE and SHOW SLAVE STATUS; IGNORE_SERVER_IDS with GTID_MODE = ON (``issue_deprecation_warnings_for_channel``)."""
    on, replica = trio.nodes["on"], trio.nodes["replica"]
    replica.query("STOP REPLICA")
    replica.query("RESET REPLICA ALL")
    assert _warnings(replica, "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_USER = 'root'") == [
        _dep("CHANGE MASTER", "CHANGE REPLICATION SOURCE"),
        _dep("MASTER_HOST", "SOURCE_HOST"),
        _dep("MASTER_USER", "SOURCE_USER"),
        N1759,
        N1760,
    ]
    assert _warnings(replica, "CHANGE REPLICATION SOURCE TO SOURCE_USER = 'root'", ssl=True) == [N1760]
    assert _warnings(replica, f"CHANGE REPLICATION SOURCE TO MASTER_PORT = {on.port}") == [
        _dep("MASTER_PORT", "SOURCE_PORT")
    ]
    assert _warnings(replica, "CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE = 'binlog.000001'") == [
        (
            "Warning",
            3023,
            (
                "CHANGE REPLICATION SOURCE TO with a SOURCE_LOG_FILE clause but no SOURCE_LOG_POS clause may not be "
                "safe. The old position value may not be valid for the new binary log file."
            ),
        )
    ]
    assert _warnings(replica, "CHANGE REPLICATION SOURCE TO IGNORE_SERVER_IDS = (15, 5, 10, 5)") == [
        (
            "Warning",
            1287,
            (
                "'CHANGE MASTER TO ... IGNORE_SERVER_IDS='...' (when @@GLOBAL.GTID_MODE = ON)' is deprecated and will be "
                "removed in a future release."
            ),
        )
    ]
    assert _warnings(replica, "SHOW SLAVE STATUS") == [_dep("SHOW SLAVE STATUS", "SHOW REPLICA STATUS")]
    st = replica.replica_status()
    assert st["Replicate_Ignore_Server_Ids"] == "5, 10, 15"
    assert _warnings(replica, "CHANGE REPLICATION SOURCE TO IGNORE_SERVER_IDS = ()") == []
    assert replica.replica_status()["Replicate_Ignore_Server_Ids"] == ""
    assert _warnings(
        replica, "START SLAVE IO_THREAD UNTIL SQL_BEFORE_GTIDS = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1'"
    ) == [
        _dep("START SLAVE", "START REPLICA"),
        ("Note", 1279, "SQL thread is not to be started so UNTIL options are ignored"),
    ]
    assert _warnings(replica, "STOP SLAVE") == [_dep("STOP SLAVE", "STOP REPLICA")]
    assert _warnings(replica, "RESET SLAVE") == [_dep("RESET SLAVE", "RESET REPLICA")]


def test_ignore_server_ids_and_source_delay(trio: Cluster) -> None:
    """IGNORE_SERVER_IDS: the source's events are not queued (queue_event); SOURCE_DELAY: SQL_Delay,
    SQL_Remaining_Delay and the state ``Waiting until SOURCE_DELAY seconds after source executed event``
    (``sql_delay_event``, RM8 "Delayed Replication"), 3085 while the SQL thread runs."""
    on, replica = trio.nodes["on"], trio.nodes["replica"]
    file, pos = _binlog_status(on)
    _point(
        replica,
        on,
        "SOURCE_AUTO_POSITION = 0",
        f"SOURCE_LOG_FILE = '{file}'",
        f"SOURCE_LOG_POS = {pos}",
        "IGNORE_SERVER_IDS = (1)",
    )
    replica.query("START REPLICA")
    on.query("INSERT INTO p.t VALUES (200)")
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", _binlog_status(on))[0][0] >= 0
    assert replica.query("SELECT COUNT(*) FROM p.t WHERE id = 200") == ((0,),)
    assert replica.replica_status()["Retrieved_Gtid_Set"] == ""
    replica.query("STOP REPLICA")

    file, pos = _binlog_status(on)
    _point(replica, on, "SOURCE_AUTO_POSITION = 0", f"SOURCE_LOG_FILE = '{file}'", f"SOURCE_LOG_POS = {pos}")
    replica.query("CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 3")
    replica.query("START REPLICA")
    assert _error(replica, "CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 0") == (
        3085,
        (
            "This operation cannot be performed with a running replica sql thread; run STOP REPLICA SQL_THREAD FOR "
            "CHANNEL '' first."
        ),
    )
    on.query("INSERT INTO p.t VALUES (201)")
    wait_until(
        lambda: replica.replica_status()["SQL_Remaining_Delay"] is not None, 10, what="the delay to start"
    )
    st = replica.replica_status()
    # sql_delay_event: the end is ceil(commit second) + SOURCE_DELAY, so up to SOURCE_DELAY + 1 seconds remain
    assert st["SQL_Delay"] == 3 and 1 <= st["SQL_Remaining_Delay"] <= 4
    assert st["Replica_SQL_Running_State"] == "Waiting until SOURCE_DELAY seconds after source executed event"
    assert replica.query("SELECT COUNT(*) FROM p.t WHERE id = 201") == ((0,),)
    assert replica.query(
        "SELECT c.DESIRED_DELAY, s.REMAINING_DELAY IS NOT NULL FROM performance_schema.replication_applier_configuration c"
        " JOIN performance_schema.replication_applier_status s USING (CHANNEL_NAME)"
    ) == ((3, 1),)
    wait_until(
        lambda: replica.query("SELECT COUNT(*) FROM p.t WHERE id = 201") == ((1,),), 10, what="row 201"
    )
    st = replica.replica_status()
    assert (st["SQL_Delay"], st["SQL_Remaining_Delay"]) == (3, None)
    replica.query("STOP REPLICA")
    replica.query("RESET REPLICA")
    assert replica.replica_status()["SQL_Delay"] == 3  # RESET REPLICA keeps it; RESET REPLICA ALL forgets it


def test_filtered_replica(trio: Cluster) -> None:
    """--replicate-ignore-db / --replicate-wild-ignore-table / --replicate-rewrite-db (``Rpl_filter`` of
    sql/rpl_filter.cc; RM8 "How Servers Evaluate Replication Filtering Rules"): filtered transactions still commit
    their GTIDs, as empty transactions, into mysql.gtid_executed on this binlog-off replica (WL#6559);
    performance_schema.replication_applier_global_filters / _filters; CHANGE REPLICATION FILTER (3017 while the
    SQL thread runs)."""
    on, replica = trio.nodes["on"], trio.nodes["replica"]
    uuid = on.server_uuid()
    replica.stop()
    replica.args += [
        "--replicate-ignore-db=skipdb",
        "--replicate-wild-ignore-table=p.tmp%",
        "--replicate-rewrite-db=rw->rwdst",
        "--skip-replica-start",
        "--report-host=replica.example",
        "--report-port=4406",
    ]
    replica.start()
    assert replica.query(
        "SELECT FILTER_NAME, FILTER_RULE, CONFIGURED_BY FROM performance_schema.replication_applier_global_filters"
    ) == (
        ("REPLICATE_IGNORE_DB", "skipdb", "STARTUP_OPTIONS"),
        ("REPLICATE_WILD_IGNORE_TABLE", "p.tmp%", "STARTUP_OPTIONS"),
        ("REPLICATE_REWRITE_DB", "(rw,rwdst)", "STARTUP_OPTIONS"),
    )
    replica.query("CREATE DATABASE rwdst")
    replica.query("CREATE TABLE rwdst.t (id INT PRIMARY KEY)")
    conn: Any = on.connect()
    try:  # the source's own copy of rw.t, not logged: only its rows reach the replica (rewritten)
        cur = conn.cursor()
        cur.execute("SET sql_log_bin = 0")
        cur.execute("CREATE DATABASE rw")
        cur.execute("CREATE TABLE rw.t (id INT PRIMARY KEY)")
    finally:
        conn.close()
    file, pos = _binlog_status(on)
    first = on.executed().last_gno(uuid) + 1
    _point(replica, on, "SOURCE_AUTO_POSITION = 0", f"SOURCE_LOG_FILE = '{file}'", f"SOURCE_LOG_POS = {pos}")
    replica.query("START REPLICA")
    # report_host / report_port reach the source's SHOW REPLICAS (COM_REGISTER_SLAVE)
    # (the registration of the replica's connection before its restart stays until that dump thread ends, then
    # the new one replaces it: wait for the new one)
    registered = ((2, "replica.example", 4406, 1, replica.server_uuid()),)
    wait_until(lambda: on.query("SHOW REPLICAS") == registered, 30, what="the registration")
    assert replica.query("SELECT @@GLOBAL.report_host, @@GLOBAL.report_port") == (("replica.example", 4406),)
    on.query("CREATE DATABASE skipdb")
    skip: Any = on.connect(database="skipdb")
    try:
        cur = skip.cursor()
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY)")
        cur.execute("INSERT INTO t VALUES (1)")
    finally:
        skip.close()
    on.query("CREATE TABLE p.tmp1 (id INT PRIMARY KEY)")
    on.query("INSERT INTO p.tmp1 VALUES (1)")
    on.query("INSERT INTO p.t VALUES (300)")
    on.query("INSERT INTO rw.t VALUES (7)")
    last = on.executed().last_gno(uuid)
    assert last - first == 6
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", _binlog_status(on))[0][0] >= 0
    st = replica.replica_status()
    assert (st["Last_SQL_Errno"], st["Last_SQL_Error"]) == (0, "")
    assert (st["Replicate_Ignore_DB"], st["Replicate_Wild_Ignore_Table"], st["Replicate_Rewrite_DB"]) == (
        "skipdb",
        "p.tmp%",
        "(rw,rwdst)",
    )
    assert replica.query("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'skipdb'") == (
        (0,),
    )
    assert replica.query("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'tmp1'") == (
        (0,),
    )
    assert replica.query("SELECT id FROM p.t WHERE id = 300") == ((300,),)
    assert replica.query("SELECT id FROM rwdst.t") == ((7,),)
    # every GTID, filtered or not, is executed and in mysql.gtid_executed (the binary log is off)
    assert GtidSet.parse(f"{uuid}:{first}-{last}") <= replica.executed()
    table = GtidSet.from_intervals(
        (u, "", int(a), int(b))
        for u, a, b in replica.query(
            "SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed"
        )
    )
    assert GtidSet.parse(f"{uuid}:{first}-{last}") <= table
    counters = dict(
        replica.query("SELECT FILTER_NAME, COUNTER FROM performance_schema.replication_applier_filters")
    )
    assert counters["REPLICATE_IGNORE_DB"] >= 2 and counters["REPLICATE_WILD_IGNORE_TABLE"] >= 1
    assert _error(replica, "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (p)") == (
        3017,
        "This operation cannot be performed with a running replica sql thread; run STOP REPLICA SQL_THREAD first",
    )
    replica.query("STOP REPLICA")
    replica.query("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (p, q), REPLICATE_IGNORE_DB = ()")
    assert replica.query(
        "SELECT FILTER_NAME, FILTER_RULE, CONFIGURED_BY FROM performance_schema.replication_applier_global_filters"
    ) == (
        ("REPLICATE_DO_DB", "p,q", "CHANGE_REPLICATION_FILTER"),
        ("REPLICATE_WILD_IGNORE_TABLE", "p.tmp%", "STARTUP_OPTIONS"),
        ("REPLICATE_REWRITE_DB", "(rw,rwdst)", "STARTUP_OPTIONS"),
    )
    replica.query(
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (), REPLICATE_WILD_IGNORE_TABLE = (), REPLICATE_REWRITE_DB = ()"
    )
    assert replica.query("SELECT * FROM performance_schema.replication_applier_global_filters") == ()


def test_assign_gtids_to_anonymous_transactions(trio: Cluster) -> None:
    """rpl_nogtid/r/rpl_assign_gtids_to_anonymous_transactions.result: a GTID_MODE=ON replica of a GTID_MODE=OFF
    source gives the anonymous transactions GTIDs of its own UUID (LOCAL) or of the UUID given; note 4017, errors
    4014, 4019 and 3111 (SET GLOBAL gtid_mode away from ON)."""
    off, replica = trio.nodes["off"], trio.nodes["replica"]
    mine = replica.server_uuid()
    off.query("CREATE DATABASE agat")
    off.query("CREATE TABLE agat.t (id INT PRIMARY KEY)")
    file, pos = _binlog_status(off)
    _point(replica, off, "SOURCE_AUTO_POSITION = 0", f"SOURCE_LOG_FILE = '{file}'", f"SOURCE_LOG_POS = {pos}")
    replica.query("CREATE DATABASE agat")
    replica.query("CREATE TABLE agat.t (id INT PRIMARY KEY)")
    assert [
        n[:2]
        for n in _warnings(
            replica, "CHANGE REPLICATION SOURCE TO ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = LOCAL"
        )
    ] == [("Note", 4017)]
    assert _error(replica, "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1") == (
        4014,
        (
            "The options ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = LOCAL|<UUID> and SOURCE_AUTO_POSITION = 1 cannot be "
            "used together."
        ),
    )
    assert _error(replica, f"START REPLICA UNTIL SQL_BEFORE_GTIDS = '{mine}:100'")[0] == 4019
    assert _error(replica, "SET GLOBAL gtid_mode = ON_PERMISSIVE") == (
        3111,
        (
            "SET @@GLOBAL.GTID_MODE = ON_PERMISSIVE is not allowed because replication channel '' is configured with "
            "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS set to LOCAL or to a UUID. Execute CHANGE REPLICATION SOURCE TO "
            "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = OFF FOR CHANNEL '' before you set @@GLOBAL.GTID_MODE = "
            "'ON_PERMISSIVE'."
        ),
    )
    before = replica.executed()
    replica.query("START REPLICA")
    off.query("INSERT INTO agat.t VALUES (1)")
    off.query("INSERT INTO agat.t VALUES (2)")
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", _binlog_status(off))[0][0] >= 0
    assert replica.query("SELECT id FROM agat.t ORDER BY id") == ((1,), (2,))
    gained = replica.executed() - before
    assert gained.count() == 2 and gained.sids() == [GtidSet.parse(f"{mine}:1").sids()[0]]
    assert replica.replica_status()["Last_IO_Errno"] == 0
    assert replica.query(
        "SELECT ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_TYPE, ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_VALUE "
        "FROM performance_schema.replication_applier_configuration"
    ) == (("LOCAL", mine),)
    replica.query("STOP REPLICA")
    other = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    replica.query(f"CHANGE REPLICATION SOURCE TO ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = '{other}'")
    replica.query("START REPLICA")
    off.query("INSERT INTO agat.t VALUES (3)")
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", _binlog_status(off))[0][0] >= 0
    assert GtidSet.parse(f"{other}:1") <= replica.executed()
    replica.query("STOP REPLICA")
    replica.query("CHANGE REPLICATION SOURCE TO ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = OFF")


def test_source_with_gtid_mode_off_refused_by_an_on_replica(trio: Cluster) -> None:
    off, replica = trio.nodes["off"], trio.nodes["replica"]
    _point(replica, off, "SOURCE_AUTO_POSITION = 0")
    replica.query("START REPLICA IO_THREAD")
    assert _io_error(replica) == (
        13117,
        (
            "Fatal error: The replication receiver thread cannot start because the source has GTID_MODE = OFF and "
            "this server has GTID_MODE = ON."
        ),
    )
    replica.query("STOP REPLICA")


def test_gtid_mode_off_replica(trio: Cluster) -> None:
    on, off, replica = trio.nodes["on"], trio.nodes["off"], trio.nodes["replica"]
    _point(replica, on, "SOURCE_AUTO_POSITION = 1")
    replica.query("SET GLOBAL gtid_mode = ON_PERMISSIVE")
    replica.query("SET GLOBAL gtid_mode = OFF_PERMISSIVE")
    assert _error(replica, "SET GLOBAL gtid_mode = OFF") == (
        3111,
        (
            "SET @@GLOBAL.GTID_MODE = OFF is not allowed because replication channel '' is configured in "
            "AUTO_POSITION mode. Execute CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 0 FOR CHANNEL '' before "
            "you set @@GLOBAL.GTID_MODE = OFF.."
        ),  # sic: rpl_nogtid/r/rpl_gtid_mode.result has the two periods
    )
    replica.query("CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 0")
    replica.query("SET GLOBAL gtid_mode = OFF")

    # an OFF replica of an OFF source, by position: anonymous transactions apply
    start = _binlog_status(off)
    off.query("CREATE DATABASE q")
    off.query("CREATE TABLE q.t (id INT PRIMARY KEY)")
    off.query("INSERT INTO q.t VALUES (1)")
    file, pos = _binlog_status(off)
    _point(
        replica,
        off,
        "SOURCE_AUTO_POSITION = 0",
        f"SOURCE_LOG_FILE = '{start[0]}'",
        f"SOURCE_LOG_POS = {start[1]}",
    )
    before = replica.query("SELECT @@GLOBAL.gtid_executed")[0][0]
    replica.query("START REPLICA")
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", (file, pos))[0][0] >= 0
    assert replica.query("SELECT id FROM q.t") == ((1,),)
    assert replica.query("SELECT @@GLOBAL.gtid_executed")[0][0] == before
    assert replica.replica_status()["Retrieved_Gtid_Set"] == ""

    # an OFF replica of an ON source
    _point(replica, on, "SOURCE_AUTO_POSITION = 0")
    replica.query("START REPLICA IO_THREAD")
    assert _io_error(replica) == (
        13117,
        (
            "Fatal error: The replication receiver thread cannot start because the source has GTID_MODE = ON and "
            "this server has GTID_MODE = OFF."
        ),
    )
    replica.query("STOP REPLICA")


def test_gtid_transaction_refused_by_the_receiver_once_gtid_mode_is_off(trio: Cluster) -> None:
    on, replica = trio.nodes["on"], trio.nodes["replica"]
    replica.query("SET GLOBAL gtid_mode = OFF_PERMISSIVE")  # compatible with an ON source
    file, pos = _binlog_status(on)
    _point(replica, on, "SOURCE_AUTO_POSITION = 0", f"SOURCE_LOG_FILE = '{file}'", f"SOURCE_LOG_POS = {pos}")
    replica.query("START REPLICA IO_THREAD")
    wait_until(lambda: replica.replica_status()["Replica_IO_Running"] == "Yes", 30, what="the receiver")
    replica.query("SET GLOBAL gtid_mode = OFF")
    on.query("INSERT INTO p.t VALUES (10)")
    assert _io_error(replica) == (13122, "Relay log write failure: could not queue event from source")
    assert replica.replica_status()["Retrieved_Gtid_Set"] == ""
    replica.query("STOP REPLICA")


def test_anonymous_transaction_refused_under_auto_position(trio: Cluster) -> None:
    on, replica = trio.nodes["on"], trio.nodes["replica"]
    for mode in ("OFF_PERMISSIVE", "ON_PERMISSIVE", "ON"):
        replica.query(f"SET GLOBAL gtid_mode = {mode}")
    _point(replica, on, "SOURCE_AUTO_POSITION = 1")
    replica.query("START REPLICA IO_THREAD")
    wait_until(lambda: replica.replica_status()["Replica_IO_Running"] == "Yes", 30, what="the receiver")
    on.query("SET GLOBAL gtid_mode = ON_PERMISSIVE")
    conn: Any = on.connect()
    try:
        cur = conn.cursor()
        cur.execute("SET gtid_next = 'ANONYMOUS'")
        cur.execute("INSERT INTO p.t VALUES (11)")
        cur.execute("SET gtid_next = 'AUTOMATIC'")
    finally:
        conn.close()
    assert _io_error(replica) == (13122, "Relay log write failure: could not queue event from source")
    replica.query("STOP REPLICA")
    on.query("SET GLOBAL gtid_mode = ON")


def test_explicit_dml_on_gtid_executed_is_not_binlogged(trio: Cluster) -> None:
    """rpl_gtid/r/rpl_explicit_modify_gtid_table.result: warning 3129, @@GLOBAL.GTID_EXECUTED does not follow;
    mysql.gtid_executed is a no_replicate table (sql/table.cc), so the statement has no binlog events and no GTID:
    after RESET MASTER, SET GTID_PURGED (which needs an empty gtid_executed) still succeeds."""
    on = trio.nodes["on"]
    on.query("RESET MASTER")
    file, pos = _binlog_status(on)
    conn: Any = on.connect()
    try:
        cur = conn.cursor()
        cur.execute("INSERT INTO mysql.gtid_executed VALUES ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb', 1, 5)")
        cur.execute("SHOW WARNINGS")
        assert [r[:2] for r in cur.fetchall()] == [("Warning", 3129)]
        cur.execute("SELECT @@GLOBAL.gtid_executed")
        assert cur.fetchone() == ("",)
        cur.execute("BEGIN")
        cur.execute("INSERT INTO p.t VALUES (20)")
        cur.execute(
            "DELETE FROM mysql.gtid_executed WHERE source_uuid = 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'"
        )
        cur.execute("COMMIT")
    finally:
        conn.close()
    uuid = on.server_uuid()
    assert on.query("SELECT @@GLOBAL.gtid_executed")[0][0] == f"{uuid}:1"
    events = on.query(f"SHOW BINLOG EVENTS IN '{file}' FROM {pos}")
    assert [e[2] for e in events] == ["Gtid", "Query", "Table_map", "Write_rows", "Xid"]
    assert "p.t" in events[2][5]
    on.query("RESET MASTER")
    on.query("INSERT INTO mysql.gtid_executed VALUES ('bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb', 1, 5)")
    on.query("SET GLOBAL gtid_purged = 'cccccccc-cccc-cccc-cccc-cccccccccccc:1-3'")
    assert on.query("SELECT @@GLOBAL.gtid_executed")[0][0] == "cccccccc-cccc-cccc-cccc-cccccccccccc:1-3"


def test_sighup_flushes_logs_and_keeps_running(trio: Cluster) -> None:
    """mysqld's SIGHUP (``signal_hand`` -> ``reload_acl_and_cache``, REFRESH_LOG | REFRESH_GRANT): the server keeps
    running, the binary log rotates, the error log is reopened (logrotate moves it away, a new file starts)."""
    on = trio.nodes["on"]
    assert on.proc is not None
    logs = len(on.query("SHOW BINARY LOGS"))
    error_log = on.datadir / "error.log"
    error_log.rename(on.datadir / "error.log.1")
    on.proc.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: len(on.query("SHOW BINARY LOGS")) == logs + 1, 30, what="the binary log to rotate")
    assert on.proc.proc.poll() is None
    assert on.query("SELECT 1") == ((1,),)
    wait_until(error_log.exists, 10, what="a new error log")
    assert "Received SIGHUP" in error_log.read_text()


def test_relay_log_recovery(trio: Cluster) -> None:
    """relay_log_recovery=ON (RM8 "Replica Server Options": at start-up the relay logs are discarded and the
    receiver fetches again from the applier's position): transactions received but not applied before the restart
    are fetched again and applied once."""
    on, replica = trio.nodes["on"], trio.nodes["replica"]
    file, pos = _binlog_status(on)
    _point(replica, on, "SOURCE_AUTO_POSITION = 0", f"SOURCE_LOG_FILE = '{file}'", f"SOURCE_LOG_POS = {pos}")
    replica.query("START REPLICA")
    on.query("INSERT INTO p.t VALUES (400)")
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", _binlog_status(on))[0][0] >= 0
    replica.query("STOP REPLICA SQL_THREAD")
    on.query("INSERT INTO p.t VALUES (401)")
    on.query("INSERT INTO p.t VALUES (402)")
    end = _binlog_status(on)
    wait_until(lambda: replica.replica_status()["Read_Source_Log_Pos"] == end[1], 30, what="the receiver")
    assert replica.replica_status()["Retrieved_Gtid_Set"] != ""
    replica.stop()
    replica.args.append("--relay-log-recovery=ON")
    replica.start()
    st = replica.replica_status()
    assert (st["Retrieved_Gtid_Set"], st["Relay_Source_Log_File"]) == ("", file)
    replica.query("START REPLICA")
    assert replica.query("SELECT SOURCE_POS_WAIT(%s, %s, 30)", end)[0][0] >= 0
    assert replica.query("SELECT id FROM p.t WHERE id >= 400 ORDER BY id") == ((400,), (401,), (402,))
    assert replica.replica_status()["Last_SQL_Errno"] == 0
    replica.query("STOP REPLICA")
