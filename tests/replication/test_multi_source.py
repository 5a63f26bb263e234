"""Multi-source replication between real `gtidkit server` processes: two sources, one replica, two channels.

Set up as the manual's "Configuring Multi-Source Replication" / "Adding GTID-Based Sources to a Multi-Source Replica"
does it: ``CHANGE REPLICATION SOURCE TO ... SOURCE_AUTO_POSITION = 1 FOR CHANNEL 'source_1'`` (and 'source_2'), then
``START REPLICA`` (every channel). Oracles: the manual pages "Starting and Stopping Multi-Source Replicas" (START /
STOP REPLICA [FOR CHANNEL]), "Monitoring Multi-Source Replication" (SHOW REPLICA STATUS gives one row per channel,
Channel_Name; replication_connection_status per channel with its RECEIVED_TRANSACTION_SET), "Replication Channel
Naming Conventions" (relay logs ``<relay_log>-<channel>.NNNNNN``), and MySQL's start-up rule
(``ReplicaInitializer::start_threads``: every configured channel starts unless skip_replica_start, whatever STOP
REPLICA did before the restart). The replica's gtid_executed is the union of both sources' GTIDs.
"""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest

from gtidkit.gtid import GtidSet
from replication.cluster import Node, cluster, wait_until


def _rows(node: Node, sql: str, args: tuple = ()) -> list[dict]:
    conn = node.connect()
    try:
        with conn.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute(sql, args)
            return list(cur.fetchall())
    finally:
        conn.close()


def _channels(rep: Node) -> dict[str, dict]:
    return {r["Channel_Name"]: r for r in _rows(rep, "SHOW REPLICA STATUS")}


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Node, Node, Node]]:
    with cluster(tmp_path_factory.mktemp("msr")) as c:
        s1 = c.node("source1", 1, log_bin=True)
        s2 = c.node("source2", 2, log_bin=True)
        rep = c.node("replica", 3, log_bin=False, extra=("--replica-parallel-workers=0",))
        s1.query("CREATE DATABASE d1")
        s1.query("CREATE TABLE d1.t (a INT PRIMARY KEY, b VARCHAR(20))")
        s2.query("CREATE DATABASE d2")
        s2.query("CREATE TABLE d2.t (a INT PRIMARY KEY, b VARCHAR(20))")
        for name, src in (("source_1", s1), ("source_2", s2)):
            rep.query(
                "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '127.0.0.1', SOURCE_PORT = %s, SOURCE_USER = 'root', "
                f"SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 1 FOR CHANNEL '{name}'",
                (src.port,),
            )
        rep.query("START REPLICA")
        yield s1, s2, rep


def _both(s1: Node, s2: Node) -> GtidSet:
    return s1.executed() | s2.executed()


def test_two_sources_merge_into_one_gtid_executed(nodes):
    s1, s2, rep = nodes
    for i in range(5):
        s1.query("INSERT INTO d1.t VALUES (%s, %s)", (i, f"one-{i}"))
        s2.query("INSERT INTO d2.t VALUES (%s, %s)", (i, f"two-{i}"))
    assert rep.wait_for(_both(s1, s2), 60), _channels(rep)
    executed = rep.executed()
    assert executed == _both(s1, s2)
    assert {str(u) for u in executed.sids()} == {s1.server_uuid(), s2.server_uuid()}
    assert rep.checksum("d1") == s1.checksum("d1")
    assert rep.checksum("d2") == s2.checksum("d2")

    status = _channels(rep)
    assert sorted(status) == ["source_1", "source_2"]
    for name, src in (("source_1", s1), ("source_2", s2)):
        row = status[name]
        assert (row["Replica_IO_Running"], row["Replica_SQL_Running"]) == ("Yes", "Yes")
        assert row["Source_Port"] == src.port
        assert row["Source_UUID"] == src.server_uuid()
        assert GtidSet.parse(row["Retrieved_Gtid_Set"]) == src.executed()  # each channel its own source's
        assert GtidSet.parse(row["Executed_Gtid_Set"]) == executed  # the server's one gtid_executed
        assert row["Relay_Log_File"].endswith(f"-relay-bin-{name}.{row['Relay_Log_File'].rsplit('.', 1)[1]}")
    received = _rows(
        rep,
        "SELECT CHANNEL_NAME, SOURCE_UUID, SERVICE_STATE, RECEIVED_TRANSACTION_SET "
        "FROM performance_schema.replication_connection_status ORDER BY CHANNEL_NAME",
    )
    assert [(r["CHANNEL_NAME"], r["SOURCE_UUID"], r["SERVICE_STATE"]) for r in received] == [
        ("source_1", s1.server_uuid(), "ON"),
        ("source_2", s2.server_uuid(), "ON"),
    ]
    assert [GtidSet.parse(r["RECEIVED_TRANSACTION_SET"]) for r in received] == [s1.executed(), s2.executed()]
    applier = _rows(
        rep,
        "SELECT CHANNEL_NAME, SERVICE_STATE FROM performance_schema.replication_applier_status ORDER BY 1",
    )
    assert applier == [
        {"CHANNEL_NAME": "source_1", "SERVICE_STATE": "ON"},
        {"CHANNEL_NAME": "source_2", "SERVICE_STATE": "ON"},
    ]
    # FOR CHANNEL picks one channel's status and relay log
    one = _rows(rep, "SHOW REPLICA STATUS FOR CHANNEL 'source_2'")
    assert [r["Channel_Name"] for r in one] == ["source_2"]
    events = _rows(rep, "SHOW RELAYLOG EVENTS FOR CHANNEL 'source_2'")
    assert events and all("-relay-bin-source_2." in e["Log_name"] for e in events)
    assert any(e["Event_type"] == "Gtid" and s2.server_uuid() in e["Info"] for e in events)
    # SOURCE_POS_WAIT names the channel; without it (three channels with the default one) MySQL refuses
    binlog = _rows(s2, "SHOW MASTER STATUS")[0]  # the 8.0.36 spelling (SHOW BINARY LOG STATUS is 8.2+)
    file, pos = binlog["File"], binlog["Position"]
    waited = rep.query("SELECT SOURCE_POS_WAIT(%s, %s, 30, 'source_2')", (file, pos))[0][0]
    assert waited is not None and waited >= 0
    with pytest.raises(pymysql.err.OperationalError) as e:
        rep.query("SELECT SOURCE_POS_WAIT(%s, %s, 1)", (file, pos))
    assert e.value.args[0] == 3079


def test_stop_one_channel_keeps_the_other_and_restart_resumes_both(nodes):
    s1, s2, rep = nodes
    rep.query("STOP REPLICA FOR CHANNEL 'source_1'")
    status = _channels(rep)
    assert (status["source_1"]["Replica_IO_Running"], status["source_1"]["Replica_SQL_Running"]) == (
        "No",
        "No",
    )
    assert (status["source_2"]["Replica_IO_Running"], status["source_2"]["Replica_SQL_Running"]) == (
        "Yes",
        "Yes",
    )
    s1.query("INSERT INTO d1.t VALUES (100, 'while stopped')")
    s2.query("INSERT INTO d2.t VALUES (100, 'still flowing')")
    assert rep.wait_for(s2.executed(), 60), _channels(rep)
    assert not s1.executed() <= rep.executed()  # source_1's new transaction waits for its channel
    assert rep.query("SELECT COUNT(*) FROM d1.t WHERE a = 100")[0][0] == 0

    # a restart starts every configured channel (skip_replica_start is OFF), so source_1 catches up
    rep.stop()
    s2.query("INSERT INTO d2.t VALUES (101, 'while replica down')")
    rep.start()
    assert rep.wait_for(_both(s1, s2), 60), _channels(rep)
    assert rep.executed() == _both(s1, s2)
    assert rep.checksum("d1") == s1.checksum("d1")
    assert rep.checksum("d2") == s2.checksum("d2")
    wait_until(
        lambda: all(r["Replica_IO_Running"] == "Yes" for r in _channels(rep).values()), what="both receivers"
    )
    assert sorted(_channels(rep)) == ["source_1", "source_2"]
    names = sorted(p.name for p in rep.datadir.glob("*-relay-bin-source_*.index"))
    assert [n.rsplit("-", 1)[1] for n in names] == ["source_1.index", "source_2.index"]
