"""Failover by GTIDs (issue 9): source A, replicas B and C; A dies; B is promoted; C follows B with no gap; A's
unreplicated transactions are reported as errant when A comes back.

Which transactions each server has is set deterministically with STOP REPLICA IO_THREAD (no timing): C stops
receiving first (it lacks transactions only B has), then B (A keeps transactions nobody received). MySQL's recipe
(manual "Switching Sources During Failover"): ``STOP REPLICA; RESET REPLICA ALL`` on the promoted replica (it needs
``log_replica_updates`` so its binlog holds what it applied), ``CHANGE REPLICATION SOURCE TO ... SOURCE_AUTO_POSITION
= 1`` on the others: auto-positioning sends C exactly what it lacks. Oracle: C's gtid_executed and data equal B's,
A's GTIDs on C form one interval (no gap), and A's errant set is exactly the transactions committed while no replica
was receiving, in the binlog that was current then (binlog.000001: a restart starts a new file).
"""

from __future__ import annotations

import json
from pathlib import Path
from uuid import UUID

from click.testing import CliRunner

from gtidkit.cli.main import cli
from gtidkit.gtid import GtidSet
from gtidkit.replication.read_your_writes import Endpoint
from gtidkit.replication.topology import check_topology
from replication.cluster import Load, Node, cluster


def _write(node: Node, ids: range) -> GtidSet:
    """Commit one load transaction per id on ``node``; the GTIDs they took."""
    before = node.executed()
    conn = node.connect()
    cur = conn.cursor()
    for i in ids:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO app.log VALUES (%s, %s, %s)", (i, f"row {i}", i % 7))
        cur.execute("UPDATE app.counter SET n = n + 1 WHERE id = 1")
        cur.execute("COMMIT")
    conn.close()
    return node.executed() - before


def _ep(node: Node) -> Endpoint:
    return Endpoint("127.0.0.1", node.port)


def test_failover_promote_b_c_follows_a_errant(tmp_path: Path) -> None:
    with cluster(tmp_path) as c:
        a = c.node("a", 1, log_bin=True)
        b = c.node("b", 2, log_bin=True, log_replica_updates=True)
        r = c.node("c", 3, log_bin=False)
        Load.create_schema(a)
        b.replicate_from(a)
        r.replicate_from(a)
        _write(a, range(1, 31))
        assert b.wait_for(a.executed()) and r.wait_for(a.executed())
        r.query("STOP REPLICA IO_THREAD")
        only_b = _write(a, range(31, 51))
        assert b.wait_for(a.executed())
        b.query("STOP REPLICA IO_THREAD")
        unreplicated = _write(a, range(51, 61))
        a_uuid = a.server_uuid()
        a.kill()

        b.query("STOP REPLICA")
        b.query("RESET REPLICA ALL")
        assert b.replica_status() == {}
        r.query("STOP REPLICA")
        r.replicate_from(b)
        assert r.wait_for(b.executed())
        assert only_b <= r.executed()
        on_b = _write(b, range(61, 71))  # the new source's own transactions reach C too
        assert r.wait_for(b.executed())
        assert r.executed() == b.executed() and r.checksum("app") == b.checksum("app")
        assert r.query("SELECT n FROM app.counter") == ((70 - 10,),)
        from_a = r.executed().restrict(UUID(a_uuid))
        assert len(list(from_a.intervals())) == 1  # no gap in A's GTIDs on C
        assert not unreplicated & r.executed() and on_b <= r.executed()

        a.start()  # A comes back: its last 10 transactions never reached anyone
        report = check_topology([_ep(b), _ep(r), _ep(a)])
        checks = {chk.server: chk for chk in report.checks}
        on_c, on_a = checks[_ep(r).address], checks[_ep(a).address]
        assert (on_c.basis, on_c.compared_with, on_c.errant) == (
            "replica status",
            (_ep(b).address,),
            GtidSet(),
        )
        assert (on_a.basis, on_a.errant) == ("first named", unreplicated)
        assert on_a.binlogs == (("binlog.000001", unreplicated),) and not on_a.not_in_binlogs

        out = CliRunner().invoke(
            cli, ["topology", "check", "--json", _ep(b).address, _ep(r).address, _ep(a).address]
        )
        assert out.exit_code == 1
        assert GtidSet.parse(json.loads(out.output)["checks"][-1]["errant"]) == unreplicated
