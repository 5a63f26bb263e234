"""Percona Toolkit's pt-table-checksum against a gtidkit source and a binlog-off gtidkit replica.

The oracle is the data and the tool's documented exit status (``man pt-table-checksum``, EXIT STATUS: a bit field,
0 = no errors, no differences; 16 = TABLE_DIFF "at least one diff was found"). The tool sets ``binlog_format =
STATEMENT`` for its session so that the replica re-runs each ``REPLACE INTO percona.checksums ... SELECT COUNT(*),
COALESCE(LOWER(CONV(BIT_XOR(CAST(CRC32(CONCAT_WS(...)) AS UNSIGNED)), 10, 16)), 0) ...`` on its own rows, waits
with ``MASTER_POS_WAIT`` for the replica to apply it, then compares the replica's ``this_crc`` / ``this_cnt`` with
the source's ``master_crc`` / ``master_cnt``. The replica is named through a DSN table (``--recursion-method=dsn``):
processlist discovery assumes the replica listens on the source's port and ``SHOW SLAVE HOSTS`` has an empty Host
without ``report_host``, on MySQL as here. ``--no-check-binlog-format`` because the replica's global binlog_format
is ROW, MySQL 8's default, which the tool refuses by default on MySQL too (LIMITATIONS, "Replicas using row-based
replication").
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from replication.cluster import Cluster, Node, cluster

TOOL = shutil.which("pt-table-checksum")
pytestmark = pytest.mark.skipif(TOOL is None, reason="pt-table-checksum (percona-toolkit) is not installed")


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Node, Node]]:
    base: Path = tmp_path_factory.mktemp("ptc")
    with cluster(base) as c:
        yield _setup(c)


def _setup(c: Cluster) -> tuple[Node, Node]:
    source = c.node("source", 1, log_bin=True)
    replica = c.node("replica", 2, log_bin=False)
    source.query("CREATE DATABASE app")
    source.query("CREATE TABLE app.t1 (id INT PRIMARY KEY, v VARCHAR(20), n INT)")
    source.query(
        "CREATE TABLE app.t2 (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, c CHAR(5), KEY k (k))"
    )
    source.query("INSERT INTO app.t1 VALUES " + ",".join(f"({i}, 'v{i}', {i * 3})" for i in range(1, 201)))
    source.query("INSERT INTO app.t1 VALUES (201, NULL, NULL)")
    source.query("INSERT INTO app.t2 (k, c) VALUES " + ",".join(f"({i % 7}, 'c{i}')" for i in range(1, 51)))
    source.query("CREATE DATABASE percona")
    source.query(
        "CREATE TABLE percona.dsns (id INT AUTO_INCREMENT PRIMARY KEY, parent_id INT, dsn VARCHAR(255) NOT NULL)"
    )
    source.query("INSERT INTO percona.dsns (dsn) VALUES (%s)", (f"h=127.0.0.1,P={replica.port},u=root",))
    replica.replicate_from(source)
    assert replica.wait_for(source.executed())
    return source, replica


def _checksum(source: Node, *extra: str, database: str = "app") -> subprocess.CompletedProcess[str]:
    assert TOOL is not None
    dsn = f"h=127.0.0.1,P={source.port},u=root"
    return subprocess.run(
        [
            TOOL,
            dsn,
            f"--databases={database}",
            "--no-check-binlog-format",
            f"--recursion-method=dsn={dsn},D=percona,t=dsns",
            "--no-version-check",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _report(out: str, database: str = "app") -> dict[str, tuple[int, int, int]]:
    """table -> (ERRORS, DIFFS, ROWS) from the tool's report lines."""
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 9 and parts[-1].startswith(f"{database}."):
            rows[parts[-1]] = (int(parts[1]), int(parts[2]), int(parts[3]))
    return rows


@pytest.mark.parametrize("chunking", [(), ("--chunk-size=30",)], ids=["one-chunk", "chunks-of-30"])
def test_equal_then_one_changed_row(pair: tuple[Node, Node], chunking: tuple[str, ...]) -> None:
    source, replica = pair
    r = _checksum(source, *chunking)
    assert r.returncode == 0, r.stdout + r.stderr
    assert _report(r.stdout) == {"app.t1": (0, 0, 201), "app.t2": (0, 0, 50)}, r.stdout + r.stderr
    # change one row on the replica only, outside replication
    conn = replica.connect()
    try:
        cur = conn.cursor()
        cur.execute("SET sql_log_bin = 0")
        cur.execute("UPDATE app.t1 SET v = 'changed' WHERE id = 5")
        r = _checksum(source, *chunking)
        assert r.returncode == 16, r.stdout + r.stderr  # TABLE_DIFF
        assert _report(r.stdout) == {"app.t1": (0, 1, 201), "app.t2": (0, 0, 50)}, r.stdout + r.stderr
        bad = replica.query(
            "SELECT tbl FROM percona.checksums WHERE this_crc <> master_crc OR this_cnt <> master_cnt"
        )
        assert bad == (("t1",),)
    finally:
        cur.execute("UPDATE app.t1 SET v = 'v5' WHERE id = 5")
        conn.close()


# The column types issue 18 added, written by a source that compresses its transactions (Transaction_payload
# events, binlog_transaction_compression=ON) and applied by the replica from those payloads: pt-table-checksum's
# CRC32(CONCAT_WS(...)) of every row agrees on both sides, and sees a row changed on the replica only.
TYPES_DDL = (
    "CREATE TABLE types.t (id INT PRIMARY KEY, e ENUM('a','b','c'), s SET('x','y','z'), b BIT(10),"
    " d DECIMAL(65,30), u BIGINT UNSIGNED, tm TIME(3), j JSON, g GEOMETRY, l VARCHAR(10) CHARACTER SET latin1)"
)
TYPES_ROWS = [
    (
        "(1, 'b', 'x,z', b'1010101010', 12345678901234567890123456789012345.123456789012345678901234567890,"
        ' 18446744073709551615, \'-838:59:59.000\', \'{"a": [1, 2.5, "x"], "b": null}\','
        " ST_GeomFromText('POINT(1 2)'), 'caf\u00e9')"
    ),
    (
        "(2, 'c', '', b'0', -0.000000000000000000000000000001, 0, '838:59:58.999', '[]',"
        " ST_GeomFromText('LINESTRING(0 0, 1 1, 2 0)'), '')"
    ),
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
]


def test_new_types_through_compressed_transactions(pair: tuple[Node, Node]) -> None:
    source, replica = pair
    source.query("SET GLOBAL binlog_transaction_compression = ON")
    try:
        source.query("CREATE DATABASE types")
        source.query(TYPES_DDL)
        for row in TYPES_ROWS:
            source.query(f"INSERT INTO types.t VALUES {row}")
        source.query("UPDATE types.t SET u = u - 1, tm = '-00:00:01.5', s = 'y' WHERE id = 1")
        payloads = [r for r in source.query("SHOW BINLOG EVENTS") if r[2] == "Transaction_payload"]
        assert len(payloads) >= len(TYPES_ROWS) + 1
    finally:
        source.query("SET GLOBAL binlog_transaction_compression = OFF")
    assert replica.wait_for(source.executed())
    assert replica.checksum("types") == source.checksum("types")
    r = _checksum(source, database="types")
    assert r.returncode == 0, r.stdout + r.stderr
    assert _report(r.stdout, "types") == {"types.t": (0, 0, 3)}, r.stdout + r.stderr
    conn = replica.connect()
    try:
        cur = conn.cursor()
        cur.execute("SET sql_log_bin = 0")
        cur.execute("UPDATE types.t SET d = d + 0.000000000000000000000000000001 WHERE id = 1")
        r = _checksum(source, database="types")
        assert r.returncode == 16, r.stdout + r.stderr  # TABLE_DIFF
        assert _report(r.stdout, "types") == {"types.t": (0, 1, 3)}, r.stdout + r.stderr
    finally:
        conn.close()
