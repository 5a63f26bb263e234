"""mariadb-dump against `gtidkit server`, and its dump restored through the `mariadb` CLI into a second server.

The oracles are the tools and the data: mariadb-dump's exit status (0, or 2 on the first query the server
refuses), the `mariadb` CLI's exit status on restore, every row of every table and SHOW CREATE TABLE equal on both
servers, and, with gtid_mode=ON, the target's gtid_executed growing by one GTID per transaction / DDL of the
restore, as on MySQL (RM8.4 "GTID Format and Storage": every committed transaction and DDL gets a GTID; mariadb-dump
writes no ``SET @@GLOBAL.GTID_PURGED``, so no source GTID reaches the target).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from gtidkit.gtid import GtidSet

from .prefork import run_gtidkit
from .server_proc import ServerProcess, running_server

pytestmark = pytest.mark.timeout(300)

_GTID_ON = ("--log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON")

#: Source data: the column types, NULLs, quoting hazards, binary bytes, indexes and a view the dump must carry.
_SEED = [
    "CREATE DATABASE d1",
    (
        "CREATE TABLE d1.t1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, b BIGINT, dec1 DECIMAL(10,2), "
        "v VARCHAR(50), tx TEXT, bl BLOB, d DATE, dt DATETIME, ts TIMESTAMP NULL, UNIQUE KEY uv (v), KEY kb (b))"
    ),
    (
        "INSERT INTO d1.t1 (b, dec1, v, tx, bl, d, dt, ts) VALUES "
        "(9223372036854775807, 12.34, 'it''s', 'back\\\\slash\\nnew\"line\\ttab', X'00FF0A0D275C1A', '2024-01-02', "
        "'2024-01-02 03:04:05', '2024-01-02 03:04:05'), "
        "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
        "(-9223372036854775807, -0.01, '\"dq\"', '', X'', '1000-01-01', '9999-12-31 23:59:59', NULL), "
        "(0, 99999999.99, 'ünïcødé ✓', 'line1\\r\\nline2', X'80', '2000-02-29', '1970-01-01 00:00:01', "
        "'2038-01-19 03:14:07')"
    ),
    "DELETE FROM d1.t1 WHERE id = 3",  # a gap: the restored AUTO_INCREMENT must not reuse it
    "CREATE TABLE d1.t2 (a INT, s VARCHAR(10))",
    "INSERT INTO d1.t2 VALUES (1, 'x'), (2, NULL), (3, 'x')",
    "CREATE TABLE d1.empty_t (k INT PRIMARY KEY)",
    "CREATE VIEW d1.v1 AS SELECT a, s FROM d1.t2",
    (  # the string family: ENUM / SET, a latin1 column, a spatial column, an invisible column
        "CREATE TABLE d1.t3 (id INT PRIMARY KEY, e ENUM('a','b''c') NOT NULL, st SET('x','y'), "
        "l VARCHAR(5) CHARACTER SET latin1, p POINT, h INT INVISIBLE)"
    ),
    (
        "INSERT INTO d1.t3 (id, e, st, l, p, h) VALUES (1, 'b''c', 'y,x', 'é', ST_GeomFromText('POINT(1 2)'), 7), "
        "(2, 'a', '', NULL, NULL, NULL)"
    ),
]


def _tool(name: str) -> str:
    exe = shutil.which(name)
    if exe is None:
        pytest.skip(f"{name} not installed (.ci/run installs mariadb-client)")
    return exe


def _connect(srv: ServerProcess) -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True)


def _query(srv: ServerProcess, sql: str) -> list[tuple]:
    conn = _connect(srv)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def _next_id(srv: ServerProcess) -> int:
    """The id AUTO_INCREMENT gives the next row of d1.t1."""
    conn = _connect(srv)
    try:
        with conn.cursor() as cur:
            cur.execute("INSERT INTO d1.t1 (v) VALUES ('next')")
            return int(cur.lastrowid)
    finally:
        conn.close()


def _dump(srv: ServerProcess, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [_tool("mariadb-dump"), "-h127.0.0.1", f"-P{srv.port}", "-uroot", "--single-transaction", *args],
        capture_output=True,
        timeout=120,
        check=False,
    )


def _restore(srv: ServerProcess, dump: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [_tool("mariadb"), "-h127.0.0.1", f"-P{srv.port}", "-uroot"],
        input=dump,
        capture_output=True,
        timeout=120,
        check=False,
    )


def _snapshot(srv: ServerProcess, db: str) -> dict[str, tuple[str, list[tuple]]]:
    """``table -> (SHOW CREATE TABLE text, every row sorted)`` for each table and view of ``db``."""
    out = {}
    for (name,) in _query(srv, f"SHOW TABLES FROM {db}"):
        create = _query(srv, f"SHOW CREATE TABLE {db}.{name}")[0][1]
        rows = sorted(_query(srv, f"SELECT * FROM {db}.{name}"), key=repr)
        out[name] = (create, rows)
    return out


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    _tool("mariadb-dump")
    with running_server(tmp_path_factory.mktemp("dump") / "src", *_GTID_ON, "--server-id=1") as s:
        conn = _connect(s)
        with conn.cursor() as cur:
            for sql in _SEED:
                cur.execute(sql)
        conn.close()
        yield s


def test_dump_databases_restores_equal_rows_and_consumes_target_gtids(
    source: ServerProcess, tmp_path: Path
) -> None:
    dumped = _dump(source, "--databases", "d1")
    assert dumped.returncode == 0, dumped.stderr.decode()
    text = dumped.stdout
    assert b"CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d1` /*!40100 DEFAULT CHARACTER SET utf8mb4" in text
    assert b"/*!40000 ALTER TABLE `t1` DISABLE KEYS */" in text
    assert b"GTID_PURGED" not in text  # mariadb-dump knows nothing of MySQL GTIDs
    source_uuid = _query(source, "SELECT @@server_uuid")[0][0]
    with running_server(tmp_path / "dst", *_GTID_ON, "--server-id=2") as target:
        before = GtidSet.parse(_query(target, "SELECT @@GLOBAL.gtid_executed")[0][0])
        restored = _restore(target, text)
        assert restored.returncode == 0, restored.stderr.decode()
        assert _snapshot(target, "d1") == _snapshot(source, "d1")
        # binary bytes survive byte for byte, NULL stays NULL
        assert _query(target, "SELECT bl FROM d1.t1 ORDER BY id") == [
            (b"\x00\xff\n\r'\\\x1a",),
            (None,),
            (b"\x80",),
        ]
        # the AUTO_INCREMENT counter travels with the rows: the next id is the source's next id
        assert _next_id(source) == _next_id(target) == 5
        _query(source, "DELETE FROM d1.t1 WHERE v = 'next'")
        after = GtidSet.parse(_query(target, "SELECT @@GLOBAL.gtid_executed")[0][0])
        target_uuid = _query(target, "SELECT @@server_uuid")[0][0]
        gained = after.subtract(before)
        assert source_uuid not in str(after)
        assert str(gained).startswith(target_uuid)
        # one GTID per DDL / transaction: CREATE DATABASE; per table DROP + CREATE; per table DISABLE KEYS +
        # ENABLE KEYS (ALTER TABLE is binlogged even when InnoDB ignores it) and, with rows, one INSERT; for the
        # view DROP TABLE + DROP VIEW + placeholder CREATE VIEW + DROP VIEW + CREATE VIEW; the INSERT after
        tables, with_rows, view = 4, 3, 5
        assert gained.count() == 1 + tables * 2 + tables * 2 + with_rows + view + 1
        binlogs = sorted((tmp_path / "dst").glob("binlog.[0-9]*"))
        shown = run_gtidkit(
            ["binlog", "show", "--per-transaction", *map(str, binlogs)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert shown.returncode == 0, shown.stderr
        assert sum(f"{target_uuid}:" in line for line in shown.stdout.splitlines()) == after.count()


def test_dump_all_databases_skips_system_schemas(source: ServerProcess, tmp_path: Path) -> None:
    dumped = _dump(source, "--all-databases")
    assert dumped.returncode == 0, dumped.stderr.decode()
    text = dumped.stdout
    assert b"-- Current Database: `d1`" in text
    assert b"-- Current Database: `mysql`" in text
    assert b"CREATE TABLE IF NOT EXISTS `general_log`" in text  # log tables: structure only
    assert b"Current Database: `information_schema`" not in text
    assert b"Current Database: `performance_schema`" not in text
    with running_server(tmp_path / "dst", *_GTID_ON, "--server-id=3") as target:
        restored = _restore(target, text)
        assert restored.returncode == 0, restored.stderr.decode()
        assert _snapshot(target, "d1") == _snapshot(source, "d1")


def test_dump_unknown_database_is_mysql_error_exit_2(source: ServerProcess) -> None:
    dumped = _dump(source, "--databases", "nope")
    assert dumped.returncode == 2
    assert b"Unknown database 'nope'" in dumped.stderr
