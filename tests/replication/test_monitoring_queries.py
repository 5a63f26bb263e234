"""The queries orchestrator and MySQL Shell send to a replica, through PyMySQL, against gtidkit servers: a replica
with two channels (the default one and ``ch2``) from two sources.

Queries as the tools send them: orchestrator ``go/inst/instance_dao.go`` (``ReadTopologyInstanceBufferable``: the
@@global row, SHOW MASTER STATUS, the semi-sync status, the GTID / repository row, mysql.slave_master_info's
credentials, SHOW SLAVE STATUS, SHOW SLAVE HOSTS, the processlist of dump threads) and MySQL Shell
``mysqlshdk/libs/mysql/replication.cc`` (the channel query of ``data/mysqlsh_channel_query.sql``, channel names,
SHOW REPLICA STATUS FOR CHANNEL, the metadata tables, the GTID set helpers). Expected values: MySQL 8.0's
(``@@master_info_repository`` is TABLE from 8.0.2; the metadata tables exist on every server; one SHOW SLAVE
STATUS row per channel; replication_connection_status.THREAD_ID is the receiver's, so joining
performance_schema.threads gives its state).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from replication.cluster import Node, cluster

SHELL_QUERY = (Path(__file__).parent / "data" / "mysqlsh_channel_query.sql").read_text()

#: (id, query) sent to both the replica and a source; each must answer, not fail
TOOL_QUERIES = [
    ("orc-uptime", "show global status like 'Uptime'"),
    (
        "orc-globals",
        (
            "select @@global.hostname, ifnull(@@global.report_host, ''), @@global.server_id, @@global.version, "
            "@@global.version_comment, @@global.read_only, @@global.binlog_format, @@global.log_bin, "
            "@@global.log_slave_updates"
        ),
    ),
    ("orc-master-status", "show master status"),
    ("orc-semi-sync", "show global status like 'rpl_semi_sync_%_status'"),
    (
        "orc-gtid",
        (
            "select @@global.gtid_mode = 'ON', @@global.server_uuid, @@global.gtid_purged, "
            "@@global.master_info_repository = 'TABLE', @@global.binlog_row_image"
        ),
    ),
    ("orc-credentials", "select count(*) > 0 and MAX(User_name) != '' from mysql.slave_master_info"),
    ("orc-slave-status", "show slave status"),
    ("orc-slave-hosts", "show slave hosts"),
    (
        "orc-dump-threads",
        (
            "select substring_index(host, ':', 1) as slave_hostname from information_schema.processlist "
            "where command IN ('Binlog Dump', 'Binlog Dump GTID')"
        ),
    ),
    ("sh-channels", SHELL_QUERY + "ORDER BY channel_name"),
    ("sh-channel", SHELL_QUERY + "WHERE c.channel_name = 'ch2'"),
    ("sh-names", "SELECT channel_name FROM performance_schema.replication_connection_status"),
    (
        "sh-names-running",
        "SELECT channel_name FROM performance_schema.replication_connection_status WHERE service_state <> 'OFF'",
    ),
    ("sh-master-info", "SELECT * FROM mysql.slave_master_info WHERE channel_name = 'ch2'"),
    ("sh-relay-log-info", "SELECT * FROM mysql.slave_relay_log_info WHERE channel_name = 'ch2'"),
    ("sh-user", "SELECT User_name FROM mysql.slave_master_info WHERE Channel_name = 'ch2'"),
    ("sh-subset", "SELECT GTID_SUBSET('', @@GLOBAL.gtid_executed)"),
    (
        "sh-total-gtids",
        (
            "SELECT GTID_SUBTRACT(CONCAT(@@GLOBAL.GTID_EXECUTED, ',', (SELECT GROUP_CONCAT(received_transaction_set) "
            "FROM performance_schema.replication_connection_status WHERE channel_name IN ('','ch2'))), '')"
        ),
    ),
]


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Node, Node, Node]]:
    with cluster(tmp_path_factory.mktemp("tools")) as c:
        s1 = c.node("s1", 1, log_bin=True)
        s2 = c.node("s2", 2, log_bin=True)
        rep = c.node("replica", 3, log_bin=True, extra=("--report-host=127.0.0.1",))
        rep.query(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%s, SOURCE_USER='root', "
            "SOURCE_AUTO_POSITION=1",
            (s1.port,),
        )
        rep.query(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%s, SOURCE_USER='root', "
            "SOURCE_AUTO_POSITION=1 FOR CHANNEL 'ch2'",
            (s2.port,),
        )
        rep.query("START REPLICA")
        s1.query("CREATE DATABASE a")
        s2.query("CREATE DATABASE b")
        assert rep.wait_for(s1.executed() | s2.executed(), 60)
        yield s1, s2, rep


def _run(node: Node, sql: str) -> list[dict]:
    conn = node.connect()
    try:
        with conn.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


@pytest.mark.parametrize(("sql"), [pytest.param(q, id=i) for i, q in TOOL_QUERIES])
def test_tool_query_answers(nodes, sql):
    s1, _, rep = nodes
    _run(rep, sql)
    _run(s1, sql)


def test_what_the_tools_read(nodes):
    s1, s2, rep = nodes
    row = _run(rep, TOOL_QUERIES[4][1])[0]
    assert list(row.values())[3] == 1  # master_info_repository = 'TABLE'
    assert [r["Channel_Name"] for r in _run(rep, "show slave status")] == ["", "ch2"]
    assert _run(rep, TOOL_QUERIES[5][1]) == [{"count(*) > 0 and MAX(User_name) != ''": 1}]
    assert _run(s1, "SELECT * FROM mysql.slave_relay_log_info") == []  # the table exists on a source too
    channels = _run(rep, SHELL_QUERY + "ORDER BY channel_name")
    assert sorted({r["channel_name"] for r in channels}) == ["", "ch2"]
    by_name = {r["channel_name"]: r for r in channels}
    for name, src in (("", s1), ("ch2", s2)):
        r = by_name[name]
        assert (r["port"], r["source_uuid"], r["io_state"]) == (src.port, src.server_uuid(), "ON")
        assert r["io_thread_state"] == "Waiting for source to send event"  # THREAD_ID joins threads
        assert r["queued_gtid_set_to_apply"] == ""
        # TIMEDIFF(NOW(6), a zero or a real LAST_HEARTBEAT_TIMESTAMP): a TIME, never NULL (838:59:59 at most)
        assert r["time_since_last_message"] is not None
    assert [r["channel_name"] for r in _run(rep, TOOL_QUERIES[12][1])] == ["", "ch2"]
