"""GTID_ONLY = 1 and REQUIRE_ROW_FORMAT = 1 between real `gtidkit server` processes.

Oracles: mysql-test ``rpl_gtid/r/rpl_gtid_only_no_applier_repo_persistency.result`` (with GTID_ONLY = 1 the applier
metadata repository keeps its old position while SHOW REPLICA STATUS moves on; replication resumes after a restart
by GTIDs) and the manual's REQUIRE_ROW_FORMAT ("only row-based replication events are processed ... a DML
transaction logged in statement format stops the applier"; WL#12968 test ``rpl_channel_require_row_format``), the
error being ER_CLIENT_QUERY_FAILURE_INVALID_NON_ROW_FORMAT.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from replication.cluster import Node, cluster, wait_until


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Node, Node]]:
    with cluster(tmp_path_factory.mktemp("gtid_only")) as c:
        src = c.node("source", 1, log_bin=True)
        rep = c.node("replica", 2, log_bin=False)
        src.query("CREATE DATABASE d")
        src.query("CREATE TABLE d.t (a INT PRIMARY KEY, b VARCHAR(20))")
        rep.query(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '127.0.0.1', SOURCE_PORT = %s, SOURCE_USER = 'root', "
            "SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 1, REQUIRE_ROW_FORMAT = 1, GTID_ONLY = 1",
            (src.port,),
        )
        rep.query("START REPLICA")
        yield src, rep


def _repository(rep: Node) -> tuple:
    return rep.query("SELECT Relay_log_name, Relay_log_pos, Master_log_pos FROM mysql.slave_relay_log_info")[
        0
    ]


def test_positions_not_persisted_and_restart_resumes(pair):
    src, rep = pair
    for i in range(3):
        src.query("INSERT INTO d.t VALUES (%s, 'row')", (i,))
    assert rep.wait_for(src.executed(), 60), rep.replica_status()
    before = _repository(rep)
    src.query("INSERT INTO d.t VALUES (10, 'more')")
    assert rep.wait_for(src.executed(), 60), rep.replica_status()
    status = rep.replica_status()
    assert status["Exec_Source_Log_Pos"] > 0 and status["Relay_Log_Pos"] > 4
    # the repository did not follow: GTID_ONLY = 1 persists no positions
    assert _repository(rep) == before
    assert (status["Relay_Log_Pos"], status["Exec_Source_Log_Pos"]) != (before[1], before[2])

    rep.stop()
    src.query("INSERT INTO d.t VALUES (11, 'while down')")
    rep.start()  # resumes by GTIDs from the stale position, skipping what it executed
    assert rep.wait_for(src.executed(), 60), rep.replica_status()
    assert rep.executed() == src.executed()
    assert rep.checksum("d") == src.checksum("d")
    assert (
        rep.query("SELECT GTID_ONLY FROM performance_schema.replication_connection_configuration")[0][0]
        == "1"
    )


def test_require_row_format_stops_on_statement_dml(pair):
    src, rep = pair
    conn = src.connect()
    try:
        cur = conn.cursor()
        cur.execute("SET SESSION binlog_format = 'STATEMENT'")
        cur.execute("INSERT INTO d.t VALUES (20, 'statement')")
    finally:
        conn.close()
    wait_until(lambda: rep.replica_status()["Last_SQL_Errno"] != 0, what="the applier error")
    status = rep.replica_status()
    assert status["Last_SQL_Errno"] == 3944
    worker = rep.query(
        "SELECT LAST_ERROR_NUMBER, LAST_ERROR_MESSAGE FROM performance_schema.replication_applier_status_by_worker "
        "WHERE LAST_ERROR_NUMBER <> 0"
    )
    assert worker[0][0] == 3944
    assert worker[0][1].endswith("The query does not comply with variable require_row_format restrictions.")
    assert status["Replica_SQL_Running"] == "No"
    assert not src.executed() <= rep.executed()
    assert rep.query("SELECT COUNT(*) FROM d.t WHERE a = 20")[0][0] == 0


def test_change_source_writes_the_current_positions(tmp_path):
    """Step 6 of ``rpl_change_rep_source_to_gtid_only_syntax_pfs``: with valid positions, ``SOURCE_AUTO_POSITION = 0,
    GTID_ONLY = 0`` needs no coordinates. CHANGE REPLICATION SOURCE writes the applier's current positions into
    mysql.slave_relay_log_info (``change_master()`` flushes with ``RLI_FLUSH_IGNORE_GTID_ONLY``) and the receiver
    resumes from the source position the applier executed (``change_receive_options()``)."""
    with cluster(tmp_path) as c:
        src = c.node("source", 1, log_bin=True)
        rep = c.node("replica", 2, log_bin=False)
        src.query("CREATE DATABASE d")
        src.query("CREATE TABLE d.t (a INT PRIMARY KEY)")
        rep.query(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '127.0.0.1', SOURCE_PORT = %s, SOURCE_USER = 'root', "
            "SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 1, REQUIRE_ROW_FORMAT = 1, GTID_ONLY = 1",
            (src.port,),
        )
        rep.query("START REPLICA")
        assert rep.wait_for(src.executed(), 60), rep.replica_status()
        stale = _repository(rep)
        for i in range(3):
            src.query("INSERT INTO d.t VALUES (%s)", (i,))
        assert rep.wait_for(src.executed(), 60), rep.replica_status()
        rep.query("STOP REPLICA SQL_THREAD")  # the receiver keeps running: the relay log is not purged
        status = rep.replica_status()
        assert _repository(rep) == stale  # GTID_ONLY = 1: not persisted while replicating

        rep.query(
            "CHANGE REPLICATION SOURCE TO SOURCE_DELAY = 0"
        )  # an applier option: the SQL thread is stopped
        assert _repository(rep) == (
            status["Relay_Log_File"],
            status["Relay_Log_Pos"],
            status["Exec_Source_Log_Pos"],
        )
        assert (
            rep.query("SELECT Master_log_name FROM mysql.slave_relay_log_info")[0][0]
            == (status["Relay_Source_Log_File"])
        )

        # step 6: both threads stopped, the relay log is purged; the applier's source position is kept, and the
        # receiver resumes from it
        rep.query("STOP REPLICA")
        rep.query("CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 0, GTID_ONLY = 0")
        executed = (status["Relay_Source_Log_File"], status["Exec_Source_Log_Pos"])
        row = rep.query(
            "SELECT Relay_log_pos, Master_log_name, Master_log_pos FROM mysql.slave_relay_log_info"
        )[0]
        assert row == (4, *executed)
        assert rep.query("SELECT Master_log_name, Master_log_pos FROM mysql.slave_master_info")[0] == executed
        after = rep.replica_status()
        assert (after["Relay_Source_Log_File"], after["Exec_Source_Log_Pos"], after["Auto_Position"]) == (
            *executed,
            0,
        )
        rep.query("START REPLICA")  # position-based from there: nothing received twice
        src.query("INSERT INTO d.t VALUES (10)")
        assert rep.wait_for(src.executed(), 60), rep.replica_status()
        assert rep.replica_status()["Last_SQL_Errno"] == 0
        assert rep.checksum("d") == src.checksum("d")
