"""Issue 9's read-your-writes point over real replication: a stale read without the wait, a fresh one with it.

A source (binlog on) and a passive replica (binlog off) replicating by GTID auto-position. The replica's applier is
held back deterministically with ``STOP REPLICA SQL_THREAD`` (the receiver keeps fetching, nothing is applied), so
the lag is a fact of the test, not of timing: without the wait the replica answers with the old row; with
WAIT_FOR_EXECUTED_GTID_SET the read falls back to the source on timeout (1), and once ``START REPLICA SQL_THREAD``
applies the write, the wait returns 0 and the replica serves the fresh row (MySQL Router's wait_for_my_writes).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from gtidkit.replication.read_your_writes import Endpoint, ReadYourWrites
from replication.cluster import Node, cluster, wait_until


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Node, Node]]:
    with cluster(tmp_path_factory.mktemp("rywrepl")) as c:
        source = c.node("source", 1, log_bin=True)
        replica = c.node("replica", 2, log_bin=False)
        replica.replicate_from(source)
        source.query("CREATE DATABASE app")
        source.query("CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(20))")
        source.query("INSERT INTO app.t VALUES (1, 'old')")
        assert replica.wait_for(source.executed())
        yield source, replica


def _ep(node: Node) -> Endpoint:
    return Endpoint("127.0.0.1", node.port, "root", "", "app")


def test_stale_without_the_wait_fresh_with_it(pair: tuple[Node, Node]) -> None:
    source, replica = pair
    read = "SELECT v FROM app.t WHERE id = 1"
    replica.query("STOP REPLICA SQL_THREAD")
    try:
        with (
            ReadYourWrites(_ep(source), [_ep(replica)], timeout=0.5) as rw,
            ReadYourWrites(_ep(source), [_ep(replica)], wait=False) as blind,
        ):
            w = rw.write("UPDATE app.t SET v = 'new' WHERE id = 1")
            assert len(w.gtids) == 1
            # the receiver has the transaction, the applier has not run it
            wait_until(lambda: w.gtids <= _retrieved(replica), what="the receiver to fetch the write")
            stale = blind.read(read)
            assert (stale.rows, stale.served_by) == ((("old",),), "replica")
            fallback = rw.read(read)
            assert (fallback.rows, fallback.served_by, fallback.wait_result) == ((("new",),), "source", 1)
            # a read that waits long enough is woken by the applier's commit
            out: list[Any] = []
            reader = threading.Thread(target=lambda: out.append(_read_waiting_for(replica, w.gtids)))
            reader.start()
            wait_until(lambda: _waiters(replica) == 1, what="the wait to start")
            replica.query("START REPLICA SQL_THREAD")
            reader.join(300)
            assert out == [0]
            fresh = rw.read(read)
            assert (fresh.rows, fresh.served_by, fresh.wait_result) == ((("new",),), "replica", 0)
    finally:
        replica.query("START REPLICA SQL_THREAD")


def _retrieved(replica: Node) -> Any:
    from gtidkit.gtid import GtidSet

    return GtidSet.parse(replica.replica_status().get("Retrieved_Gtid_Set") or "")


def _waiters(replica: Node) -> int:
    return int(
        replica.query(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = 'Waiting for GTID to be committed'"
        )[0][0]
    )


def _read_waiting_for(replica: Node, gtids: Any) -> int:
    return int(replica.query("SELECT WAIT_FOR_EXECUTED_GTID_SET(%s, 300)", (str(gtids),))[0][0])


def test_the_applier_gets_null(pair: tuple[Node, Node]) -> None:
    """Section 1.3 of rpl_wait_for_executed_gtid_set: a statement calling the function, replicated, stores NULL on
    the replica (the applier gets NULL, never waits); the source stored 0."""
    source, replica = pair
    source.query("CREATE TABLE app.w (a INT)")
    conn = source.connect()
    cur = conn.cursor()
    cur.execute("SET SESSION binlog_format = 'STATEMENT'")
    cur.execute(f"INSERT INTO app.w VALUES (WAIT_FOR_EXECUTED_GTID_SET('{source.server_uuid()}:1'))")
    conn.close()
    assert source.query("SELECT a FROM app.w") == ((0,),)
    assert replica.wait_for(source.executed())
    assert replica.query("SELECT a FROM app.w") == ((None,),)
