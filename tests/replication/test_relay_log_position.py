"""CHANGE REPLICATION SOURCE TO RELAY_LOG_FILE / RELAY_LOG_POS between real `gtidkit server` processes.

Oracles: the manual's "CHANGE REPLICATION SOURCE TO Statement" (RELAY_LOG_FILE / RELAY_LOG_POS: "the relay log file
name, and the location in that file, at which the replication SQL thread begins reading from the replica's relay
log the next time the thread starts"; the relay log is not purged when either is given; they need the SQL thread
stopped), ``ER_BAD_REPLICA_AUTO_POSITION`` (1776) for them under SOURCE_AUTO_POSITION = 1 and ``ER_RELAY_LOG_INIT``
(1380) for a file the relay log index does not hold, worded as ``Relay_log_info::is_group_relay_log_name_invalid``
words it (naming the index file).
"""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest

from gtidkit.gtid import GtidSet
from replication.cluster import Node, cluster, wait_until

NO_RELAY_FILE = (
    "Failed initializing relay log position: Could not find target log file mentioned in relay log info in the index "
    "file '{index}' during relay log initialization"
)
BAD_AUTO = (
    "Parameters SOURCE_LOG_FILE, SOURCE_LOG_POS, RELAY_LOG_FILE and RELAY_LOG_POS cannot be set when "
    "SOURCE_AUTO_POSITION is active."
)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Node, Node]]:
    with cluster(tmp_path_factory.mktemp("relay_pos")) as c:
        src = c.node("source", 1, log_bin=True)
        rep = c.node("replica", 2, log_bin=False)
        src.query("CREATE DATABASE d")
        src.query("CREATE TABLE d.t (a INT PRIMARY KEY)")
        rep.query(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '127.0.0.1', SOURCE_PORT = %s, SOURCE_USER = 'root', "
            "SOURCE_AUTO_POSITION = 0, SOURCE_CONNECT_RETRY = 1",
            (src.port,),
        )
        rep.query("START REPLICA")
        assert rep.wait_for(src.executed(), 60), rep.replica_status()
        rep.query("STOP REPLICA")
        yield src, rep


def error_of(node: Node, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.MySQLError) as e:
        node.query(sql)
    return e.value.args[0], e.value.args[1]


def commits(rep: Node, relay_file: str) -> list[int]:
    """The relay offset where each transaction of ``relay_file`` ends: the Pos of the event after its Xid (SHOW
    RELAYLOG EVENTS' End_log_pos is the source's position, not the relay log's)."""
    rows = rep.query(f"SHOW RELAYLOG EVENTS IN '{relay_file}'")
    return [int(rows[i + 1][1]) for i, r in enumerate(rows[:-1]) if r[2] == "Xid"]


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        pytest.param(
            "CHANGE REPLICATION SOURCE TO RELAY_LOG_FILE = 'nosuch-relay-bin.000009', RELAY_LOG_POS = 4",
            (1380, NO_RELAY_FILE),
            id="missing-file",
        ),
        pytest.param(
            "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1, RELAY_LOG_POS = 4",
            (1776, BAD_AUTO),
            id="auto-position",
        ),
        pytest.param(
            "CHANGE MASTER TO MASTER_AUTO_POSITION = 1, RELAY_LOG_FILE = 'x.000001'",
            (1776, BAD_AUTO),
            id="auto-position-5.7-spelling",
        ),
    ],
)
def test_errors(pair, sql, expected):
    _src, rep = pair
    index = next(rep.datadir.glob("*relay-bin.index")).resolve()
    assert error_of(rep, sql) == (expected[0], expected[1].format(index=index))


def test_applier_starts_at_the_relay_position(pair):
    src, rep = pair
    gtids = []
    for i in (1, 2, 3):
        before = src.executed()
        src.query("INSERT INTO d.t VALUES (%s)", (i,))
        gtids.append(src.executed() - before)
    rep.query("START REPLICA IO_THREAD")  # received, not applied (the SQL thread is stopped)
    wait_until(
        lambda: GtidSet.parse(rep.replica_status()["Retrieved_Gtid_Set"]) >= src.executed(),
        what="the inserts received",
    )
    rep.query("STOP REPLICA IO_THREAD")
    relay_files = sorted(p.name for p in rep.datadir.glob("*relay-bin.[0-9]*"))
    relay_file = next(f for f in reversed(relay_files) if len(commits(rep, f)) >= 2)
    first_end = commits(rep, relay_file)[0]

    # skip the first insert: the applier starts after its Xid
    assert (
        rep.query(
            "CHANGE REPLICATION SOURCE TO RELAY_LOG_FILE = %s, RELAY_LOG_POS = %s", (relay_file, first_end)
        )
        == ()
    )
    status = rep.replica_status()
    assert (status["Relay_Log_File"], status["Relay_Log_Pos"]) == (relay_file, first_end)
    assert rep.query("SELECT Relay_log_name, Relay_log_pos FROM mysql.slave_relay_log_info") == (
        (relay_file, first_end),
    )
    assert relay_file in {p.name for p in rep.datadir.glob("*relay-bin.[0-9]*")}  # the relay log is kept
    rep.query("START REPLICA SQL_THREAD")
    assert rep.wait_for(gtids[2], 60), rep.replica_status()
    assert rep.query("SELECT a FROM d.t ORDER BY a") == ((2,), (3,))
    assert not rep.executed() >= gtids[0]
    # the SQL thread running: 3085, as for the applier's other options
    assert error_of(rep, f"CHANGE REPLICATION SOURCE TO RELAY_LOG_POS = {first_end}")[0] == 3085
    rep.query("STOP REPLICA")


def test_until_sql_after_mts_gaps(pair):
    """``START REPLICA SQL_THREAD UNTIL SQL_AFTER_MTS_GAPS`` with no gaps left (one applier, commit order): the SQL
    thread stops before dispatching the next event (``Until_mts_gap::check_before_dispatching_event`` with
    ``mts_recovery_group_cnt == 0``), without note 1278 (positions only), Until_Condition SQL_AFTER_MTS_GAPS."""
    src, rep = pair
    before = src.executed()
    src.query("INSERT INTO d.t VALUES (4)")
    gtid = src.executed() - before
    rep.query("START REPLICA IO_THREAD")
    wait_until(
        lambda: GtidSet.parse(rep.replica_status()["Retrieved_Gtid_Set"]) >= src.executed(), what="the insert"
    )
    conn = rep.connect()
    try:
        cur = conn.cursor()
        cur.execute("START REPLICA SQL_THREAD UNTIL SQL_AFTER_MTS_GAPS")
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall() == ()
    finally:
        conn.close()
    wait_until(lambda: rep.replica_status()["Replica_SQL_Running"] == "No", what="the applier stopping")
    status = rep.replica_status()
    assert (status["Until_Condition"], status["Last_SQL_Errno"]) == ("SQL_AFTER_MTS_GAPS", 0)
    assert not rep.executed() >= gtid
    rep.query("START REPLICA SQL_THREAD")
    assert rep.wait_for(gtid, 60), rep.replica_status()
    assert rep.replica_status()["Until_Condition"] == "None"
    rep.query("STOP REPLICA")


def test_heartbeats_reach_replication_connection_status(pair):
    """An idle source sends a heartbeat every SOURCE_HEARTBEAT_PERIOD seconds (manual: "CHANGE REPLICATION SOURCE TO
    Statement"); performance_schema.replication_connection_status counts them (COUNT_RECEIVED_HEARTBEATS) and
    stamps the last one (LAST_HEARTBEAT_TIMESTAMP, ``0000-00-00 00:00:00.000000`` before any)."""
    _src, rep = pair
    rep.query("CHANGE REPLICATION SOURCE TO SOURCE_HEARTBEAT_PERIOD = 0.2")
    sql = "SELECT COUNT_RECEIVED_HEARTBEATS, LAST_HEARTBEAT_TIMESTAMP FROM performance_schema.replication_connection_status"
    rep.query("START REPLICA")
    try:
        wait_until(lambda: rep.query(sql)[0][0] >= 2, 30, what="two heartbeats")
        stamp = rep.query(sql)[0][1]
        assert str(stamp) != "0000-00-00 00:00:00.000000"
        assert rep.query(
            "SELECT HEARTBEAT_INTERVAL FROM performance_schema.replication_connection_configuration"
        )[0][0] == ("0.200")
        status = rep.replica_status()
        assert (status["Last_IO_Errno"], status["Last_SQL_Errno"]) == (0, 0)
    finally:
        rep.query("STOP REPLICA")
