"""The read-your-writes helper against two real ``gtidkit server`` processes, replication done by hand.

The "replica" is a second server to which a test applies the source's transaction itself, under the source's GTID
(``SET GTID_NEXT = '<gtid>'``, the same row), as an applier would: so the test decides exactly when the replica
catches up. Expected values come from MySQL's rules: the OK packet after a commit carries the session's own GTID
(WL#6972, OWN_GTID), WAIT_FOR_EXECUTED_GTID_SET returns 0 once the set is executed and 1 after the timeout
(mysql-test rpl_wait_for_executed_gtid_set), Router falls back to the read_write destination on a timeout.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pymysql
import pytest
from protocol.server_proc import ServerProcess, free_port, running_server

from gtidkit.gtid import GtidSet
from gtidkit.replication.read_your_writes import Endpoint, ReadYourWrites

OPTIONS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON")


#: one process and supervised (issue 21): the replica's threads live in its worker
pytestmark = pytest.mark.usefixtures("server_mode")


@pytest.fixture(scope="module")
def pair(
    tmp_path_factory: pytest.TempPathFactory, server_mode: str
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    base = tmp_path_factory.mktemp("ryw")
    with (
        running_server(base / "source", *OPTIONS, "--log-bin", "--server-id=1") as source,
        running_server(base / "replica", *OPTIONS, "--skip-log-bin", "--server-id=2") as replica,
    ):
        for server in (source, replica):
            conn = _connect(server)
            conn.cursor().execute("CREATE DATABASE app")
            conn.cursor().execute("CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(20))")
            conn.close()
        yield source, replica


def _connect(server: ServerProcess) -> Any:
    return pymysql.connect(host="127.0.0.1", port=server.port, user="root", autocommit=True)


def _endpoint(server: ServerProcess) -> Endpoint:
    return Endpoint("127.0.0.1", server.port, "root", "", "app")


def _executed(server: ServerProcess) -> GtidSet:
    conn = _connect(server)
    cur = conn.cursor()
    cur.execute("SELECT @@GLOBAL.gtid_executed")
    text = cur.fetchone()[0]
    conn.close()
    return GtidSet.parse(text)


def _apply_by_hand(replica: ServerProcess, gtid: GtidSet, sql: str) -> None:
    """What an applier does with one transaction: run it under the source's GTID."""
    conn = _connect(replica)
    cur = conn.cursor()
    cur.execute(f"SET GTID_NEXT = '{gtid}'")
    cur.execute(sql)
    cur.execute("SET GTID_NEXT = 'AUTOMATIC'")
    conn.close()


def test_write_takes_its_gtid_from_the_ok_packet(pair: tuple[ServerProcess, ServerProcess]) -> None:
    source, _ = pair
    before = _executed(source)
    with ReadYourWrites(_endpoint(source), []) as rw:
        w = rw.write("INSERT INTO app.t VALUES (1, 'one')")
        assert w.affected_rows == 1
        assert len(w.gtids) == 1 and w.gtids == _executed(source) - before
        # another session's commit is not this session's write (OWN_GTID, not ALL_GTIDS)
        other = _connect(source)
        other.cursor().execute("INSERT INTO app.t VALUES (2, 'other')")
        other.close()
        assert rw.write("SELECT 1").gtids == GtidSet()
        # an explicit transaction reports its GTID on COMMIT; the session keeps the union
        rw.write("BEGIN")
        assert rw.write("INSERT INTO app.t VALUES (3, 'three')").gtids == GtidSet()
        assert rw.in_transaction()
        assert (
            rw.read("SELECT v FROM app.t WHERE id = 3").served_by == "source"
        )  # a transaction stays on the source
        c = rw.write("COMMIT")
        assert len(c.gtids) == 1 and not rw.in_transaction()
        assert rw.gtids == w.gtids | c.gtids
        assert not rw.gtids & (_executed(source) - before - w.gtids - c.gtids)


def test_stale_without_wait_fresh_with_it(pair: tuple[ServerProcess, ServerProcess]) -> None:
    """Without the wait a lagging replica serves a stale read; with it the read falls back to the source (1), and
    once the replica has applied the write the read is served there (0)."""
    source, replica = pair
    src, rep = _endpoint(source), _endpoint(replica)
    read = "SELECT v FROM app.t WHERE id = 10"
    with ReadYourWrites(src, [rep], wait=False) as blind, ReadYourWrites(src, [rep], timeout=0.2) as rw:
        w = rw.write("INSERT INTO app.t VALUES (10, 'ten')")
        stale = blind.read(read)
        assert (stale.rows, stale.served_by, stale.wait_result) == ((), "replica", None)
        fallback = rw.read(read)
        assert (fallback.rows, fallback.served_by, fallback.wait_result) == ((("ten",),), "source", 1)
        _apply_by_hand(replica, w.gtids, "INSERT INTO app.t VALUES (10, 'ten')")
        fresh = rw.read(read)
        assert (fresh.rows, fresh.served_by, fresh.wait_result) == ((("ten",),), "replica", 0)
        assert fresh.endpoint == rep
        assert (rw.counters.replica_reads, rw.counters.source_reads, rw.counters.timeouts) == (1, 1, 1)


def test_the_wait_is_woken_by_the_replica_commit(pair: tuple[ServerProcess, ServerProcess]) -> None:
    """A read blocked in WAIT_FOR_EXECUTED_GTID_SET (long timeout) returns from the replica when the write is applied
    there, long before its timeout: the commit wakes it."""
    source, replica = pair
    with ReadYourWrites(_endpoint(source), [_endpoint(replica)], timeout=3600) as rw:
        w = rw.write("INSERT INTO app.t VALUES (20, 'twenty')")
        out: list[Any] = []
        reader = threading.Thread(target=lambda: out.append(rw.read("SELECT v FROM app.t WHERE id = 20")))
        reader.start()
        watcher = _connect(replica)
        cur = watcher.cursor()
        deadline = time.monotonic() + 60
        while True:  # include/rpl/wait_for_wait_for_executed_gtid_set.inc
            cur.execute(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE = %s",
                ("Waiting for GTID to be committed",),
            )
            if cur.fetchone()[0] == 1:
                break
            assert reader.is_alive() and time.monotonic() < deadline
            time.sleep(0.02)
        watcher.close()
        _apply_by_hand(replica, w.gtids, "INSERT INTO app.t VALUES (20, 'twenty')")
        reader.join(60)
        assert not reader.is_alive()
        assert (out[0].rows, out[0].served_by, out[0].wait_result) == ((("twenty",),), "replica", 0)


def test_unreachable_replica_falls_back_to_the_source(pair: tuple[ServerProcess, ServerProcess]) -> None:
    source, replica = pair
    dead = Endpoint("127.0.0.1", free_port(), "root", "", "app")  # a port nobody listens on
    with ReadYourWrites(_endpoint(source), [dead], timeout=0.2) as rw:
        rw.write("INSERT INTO app.t VALUES (30, 'thirty')")
        r = rw.read("SELECT v FROM app.t WHERE id = 30")
        assert (r.rows, r.served_by, r.wait_result) == ((("thirty",),), "source", None)
    with ReadYourWrites(_endpoint(source), [dead, _endpoint(replica)], timeout=0.2) as rw:
        r = rw.read("SELECT 1")  # no write yet: no wait, served by the next reachable replica
        assert (r.served_by, r.endpoint.port, r.wait_result) == ("replica", replica.port, None)


def test_timeout_must_be_positive(pair: tuple[ServerProcess, ServerProcess]) -> None:
    source, _ = pair
    with pytest.raises(ValueError):
        ReadYourWrites(_endpoint(source), [], timeout=0)


@pytest.mark.parametrize(
    ("text", "host", "port"),
    [("db1", "db1", 3306), ("db1:3307", "db1", 3307), ("[::1]:3310", "::1", 3310), ("::1", "::1", 3306)],
    ids=["host", "host-port", "v6-port", "v6"],
)
@pytest.mark.parametrize("server_mode", ["plain"], indirect=True)  # no server: once is enough
def test_endpoint_parse(text: str, host: str, port: int) -> None:
    e = Endpoint.parse(text, user="u")
    assert (e.host, e.port, e.user) == (host, port, "u")


@pytest.mark.parametrize("server_mode", ["plain"], indirect=True)  # no server: once is enough
def test_endpoint_parse_rejects_bad_ports() -> None:
    for bad in ("h:x", "h:0", "h:70000"):
        with pytest.raises(ValueError):
            Endpoint.parse(bad)
