"""`gtidkit topology check` against two real servers that diverge, and the comparison rules on their own.

The "replica" gets the source's transactions applied by hand under the source's GTIDs (as an applier would), then
commits transactions of its own (the errant ones), in two binary logs, and takes more GTIDs through
``SET GTID_PURGED = '+...'`` (errant, but in no binlog: MySQL adds them to gtid_executed and gtid_purged and to the
next file's Previous_gtids only). The expected errant set and the file of each errant GTID follow from what the
test did, by MySQL's rules: each transaction is logged in the file current at its commit; FLUSH BINARY LOGS
rotates (manual "SET GTID_PURGED", "FLUSH BINARY LOGS").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pymysql
import pytest
from click.testing import CliRunner
from protocol.server_proc import ServerProcess, free_port, running_server
from pymysql.constants import CLIENT

from gtidkit.cli.main import cli
from gtidkit.gtid import GtidSet
from gtidkit.protocol.client import last_gtids
from gtidkit.replication.read_your_writes import Endpoint
from gtidkit.replication.topology import ServerState, check_topology, compare

OPTIONS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--log-bin")
PURGED_ELSEWHERE = "eeeeeeee-eeee-eeee-eeee-eeeeeeeeeeee:1-5"


def _connect(server: ServerProcess, track: bool = False) -> Any:
    return pymysql.connect(
        host="127.0.0.1",
        port=server.port,
        user="root",
        autocommit=True,
        client_flag=CLIENT.SESSION_TRACK if track else 0,
    )


def _uuid(server: ServerProcess) -> str:
    conn = _connect(server)
    cur = conn.cursor()
    cur.execute("SELECT @@GLOBAL.server_uuid")
    uuid = cur.fetchone()[0]
    conn.close()
    return str(uuid)


@pytest.fixture(scope="module")
def diverged(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[ServerProcess, ServerProcess, GtidSet]]:
    """(source, replica, the replica's errant GTIDs) after the scenario of the module docstring."""
    base = tmp_path_factory.mktemp("topo")
    with (
        running_server(base / "source", *OPTIONS, "--server-id=1") as source,
        running_server(base / "replica", *OPTIONS, "--server-id=2") as replica,
    ):
        src = _connect(source, track=True)
        src.cursor().execute("SET session_track_gtids = OWN_GTID")
        rep = _connect(replica)
        for sql in (
            "CREATE DATABASE app",
            "CREATE TABLE app.t (id INT PRIMARY KEY)",
            "INSERT INTO app.t VALUES (1)",
            "INSERT INTO app.t VALUES (2)",
        ):
            src.cursor().execute(sql)
            gtid = last_gtids(src)
            for step in (f"SET GTID_NEXT = '{gtid}'", sql, "SET GTID_NEXT = 'AUTOMATIC'"):
                rep.cursor().execute(step)
        src.cursor().execute(
            "INSERT INTO app.t VALUES (3)"
        )  # the source moves on: the replica lags, not errant
        ruuid = _uuid(replica)
        rep.cursor().execute("INSERT INTO app.t VALUES (100)")  # errant ruuid:1, in binlog.000001
        rep.cursor().execute("FLUSH BINARY LOGS")
        rep.cursor().execute(f"SET GLOBAL GTID_PURGED = '+{PURGED_ELSEWHERE}'")  # errant, in no binlog
        rep.cursor().execute("FLUSH BINARY LOGS")
        rep.cursor().execute("INSERT INTO app.t VALUES (101)")  # errant ruuid:2, in binlog.000003
        src.close()
        rep.close()
        yield source, replica, GtidSet.parse(f"{ruuid}:1-2,{PURGED_ELSEWHERE}")


def test_errant_gtids_and_their_binlogs(diverged: tuple[ServerProcess, ServerProcess, GtidSet]) -> None:
    source, replica, errant = diverged
    ruuid = _uuid(replica)
    report = check_topology([Endpoint("127.0.0.1", source.port), Endpoint("127.0.0.1", replica.port)])
    assert report.unreachable == () and report.has_errant
    (chk,) = report.checks
    assert chk.server == f"127.0.0.1:{replica.port}"
    assert chk.compared_with == (f"127.0.0.1:{source.port}",) and chk.basis == "first named"
    assert chk.errant == errant
    # exact: binlog.000002 is where the GTID_PURGED GTIDs first appear in Previous_gtids, yet holds none of them
    assert chk.binlogs == (
        ("binlog.000001", GtidSet.parse(f"{ruuid}:1")),
        ("binlog.000003", GtidSet.parse(f"{ruuid}:2")),
    )
    assert chk.not_in_binlogs == GtidSet.parse(PURGED_ELSEWHERE)


def test_cli_reports_errant_and_exits_1(diverged: tuple[ServerProcess, ServerProcess, GtidSet]) -> None:
    source, replica, errant = diverged
    ruuid = _uuid(replica)
    r = CliRunner().invoke(
        cli, ["topology", "check", f"127.0.0.1:{source.port}", f"127.0.0.1:{replica.port}"]
    )
    assert r.exit_code == 1, r.output
    assert "ERRANT" in r.output and "binlog.000001" in r.output and "binlog.000003" in r.output
    assert f"{ruuid}:1" in r.output and "in no binary log" in r.output
    r = CliRunner().invoke(
        cli, ["topology", "check", "--json", f"127.0.0.1:{source.port}", f"127.0.0.1:{replica.port}"]
    )
    assert r.exit_code == 1
    doc = json.loads(r.output)
    assert doc["errant"] is True and GtidSet.parse(doc["checks"][0]["errant"]) == errant
    assert [b["file"] for b in doc["checks"][0]["binlogs"]] == ["binlog.000001", "binlog.000003"]


def test_cli_order_matters_without_replica_status(
    diverged: tuple[ServerProcess, ServerProcess, GtidSet],
) -> None:
    """Without replica status the first name is the reference: named first, the diverged server makes the
    source's last write (id 3, which it never got) look errant on the source. A server alone has nothing to check."""
    source, replica, _ = diverged
    r = CliRunner().invoke(
        cli, ["topology", "check", "--json", f"127.0.0.1:{replica.port}", f"127.0.0.1:{source.port}"]
    )
    doc = json.loads(r.output)
    assert r.exit_code == 1 and len(GtidSet.parse(doc["checks"][0]["errant"])) == 1
    r = CliRunner().invoke(cli, ["topology", "check", f"127.0.0.1:{source.port}"])
    assert r.exit_code == 0, r.output


def test_cli_unreachable_exits_2(diverged: tuple[ServerProcess, ServerProcess, GtidSet]) -> None:
    source, _, _ = diverged
    dead = (
        free_port()
    )  # nothing listens there (below the ephemeral range: no other test's server is given it)
    r = CliRunner().invoke(cli, ["topology", "check", f"127.0.0.1:{source.port}", f"127.0.0.1:{dead}"])
    assert r.exit_code == 2 and "unreachable" in r.output
    r = CliRunner().invoke(cli, ["topology", "check", "127.0.0.1:notaport"])
    assert r.exit_code == 2 and "bad port" in r.output  # click's usage error


def _state(port: int, sources: tuple[tuple[str, int], ...] = ()) -> ServerState:
    return ServerState(Endpoint("127.0.0.1", port), str(UUID(int=port)), GtidSet(), GtidSet(), sources)


@pytest.mark.parametrize(
    ("states", "expected"),
    [
        pytest.param([_state(1)], [], id="alone"),
        pytest.param([_state(1), _state(2)], [(2, [1], "first named", [])], id="no-replica-status"),
        pytest.param(
            [_state(1), _state(2, (("localhost", 1),)), _state(3, (("127.0.0.1", 2),)), _state(4)],
            [(2, [1], "replica status", []), (3, [2], "replica status", []), (4, [1], "first named", [])],
            id="chain-and-stray",
        ),
        pytest.param(
            [_state(2, (("127.0.0.1", 1),)), _state(1)],
            [(2, [1], "replica status", []), (1, [2], "first named", [])],
            id="replica-named-first",
        ),
        pytest.param(
            [_state(1), _state(2, (("127.0.0.1", 1), ("127.0.0.1", 9)))],
            [(2, [1], "replica status", ["127.0.0.1:9"])],
            id="multi-source-one-missing",
        ),
    ],
)
def test_compare_rules(
    states: list[ServerState], expected: list[tuple[int, list[int], str, list[str]]]
) -> None:
    got = [
        (s.endpoint.port, [x.endpoint.port for x in srcs], basis, missing)
        for s, srcs, basis, missing in compare(states)
    ]
    assert got == expected


def test_no_binlog_server(diverged: tuple[ServerProcess, ServerProcess, GtidSet], tmp_path: Path) -> None:
    """A server with the binary log off: SHOW BINARY LOGS fails with 1381, so its errant GTIDs are in no binlog.

    With the binary log off, a client's AUTOMATIC transactions take no GTID (WL#6559): the errant one is committed
    under an explicit GTID_NEXT, as a hand-made fix would be."""
    source, _, _ = diverged
    with running_server(
        tmp_path / "b", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--skip-log-bin", "--server-id=3"
    ) as b:
        conn = _connect(b)
        gtid = PURGED_ELSEWHERE.replace("1-5", "7")
        for sql in (f"SET GTID_NEXT = '{gtid}'", "CREATE DATABASE only_here", "SET GTID_NEXT = 'AUTOMATIC'"):
            conn.cursor().execute(sql)
        conn.close()
        report = check_topology([Endpoint("127.0.0.1", source.port), Endpoint("127.0.0.1", b.port)])
        (chk,) = report.checks
        assert report.servers[1].binlogs is None
        assert chk.errant == GtidSet.parse(gtid) == chk.not_in_binlogs and chk.binlogs == ()
