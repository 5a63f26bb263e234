"""Query events carry MySQL 8.0's status variables; other readers still read our STATEMENT-format files.

Checked against real captures (8.0.28 and Percona 8.4 BEGIN events, byte for byte), python-mysql-replication's
Query/Intvar decoders, and mariadb-binlog.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.binlog.file import read_events
from gtidkit.engine.binlog.transaction_events import sql_mode_bits


def _begin_status_vars(path: Path) -> bytes:
    return next(
        e.event.status_vars
        for e in read_events(path)
        if isinstance(e.event, QueryEvent) and e.event.query == "BEGIN"
    )


def _statement_workload(srv) -> Path:
    s = srv.session()
    s.execute("CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
    s.execute("INSERT INTO t (v) VALUES (1), (2)")
    s.execute("INSERT INTO t (v) VALUES (LAST_INSERT_ID())")
    path = srv.binlog.path(srv.binlog.active)
    srv.shutdown()
    return path


@pytest.mark.parametrize(
    ("fixture", "names"),
    [
        ("blackbeam__rust_mysql_common/mysql-enum-string-set.000001", None),  # 8.0.28, utf8mb4 client
        ("percona__percona-server-mysql-operator/binlog.000003", "latin1"),  # 8.4, latin1 client
    ],
)
def test_begin_status_vars_match_mysql(open_server, binlog_fixtures, fixture, names):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    if names:
        s.execute(f"SET NAMES {names}")
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY)")
    s.execute("INSERT INTO d.t VALUES (1)")
    ours = _begin_status_vars(srv.binlog.path(srv.binlog.active))
    assert ours == _begin_status_vars(binlog_fixtures / fixture)


def test_statement_dml_names_its_updated_database(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    path = _statement_workload(srv)
    dml = [
        e.event
        for e in read_events(path)
        if isinstance(e.event, QueryEvent) and e.event.query.startswith("INSERT")
    ]
    assert dml and all(b"\x0c\x01d\x00" in q.status_vars for q in dml)  # Q_UPDATED_DB_NAMES: 1, "d\0"
    assert sql_mode_bits("STRICT_TRANS_TABLES,ONLY_FULL_GROUP_BY") == (1 << 21) | (1 << 5)


def test_python_mysql_replication_reads_query_and_intvar(open_server):
    pymysql = pytest.importorskip("pymysql")
    pytest.importorskip("pymysqlreplication")
    from pymysqlreplication.event import IntvarEvent as PIntvar
    from pymysqlreplication.event import QueryEvent as PQuery
    from pymysqlreplication.packet import BinLogPacketWrapper

    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    path = _statement_workload(srv)
    data = path.read_bytes()

    class Ctl:  # what BinLogPacketWrapper reads from its control connection
        charset = "utf8"

        def _get_dbms(self):
            return "mysql"

    fde = next(e.event for e in read_events(path))
    seen = []
    for e in read_events(path):
        if e.header.type_code not in (2, 5):
            continue
        packet = pymysql.protocol.MysqlPacket(b"\x00" + data[e.pos : e.end_pos], "utf8")
        w = BinLogPacketWrapper(
            packet, {}, Ctl(), "8.0.36", True, {PQuery, PIntvar}, None, None, None, None,
            False, False, True, True, False, False, fde.post_header_lengths,
        )  # fmt: skip
        ev = w.event
        if isinstance(ev, PQuery):
            seen.append(("Query", ev.schema.decode(), ev.query))
        else:
            seen.append(("Intvar", ev.type, ev.value))
    assert ("Intvar", 2, 1) in seen and ("Intvar", 1, 1) in seen and ("Intvar", 2, 3) in seen
    assert ("Query", "d", "INSERT INTO t (v) VALUES (1), (2)") in seen
    assert ("Query", "", "CREATE DATABASE d") in seen


@pytest.mark.skipif(shutil.which("mariadb-binlog") is None, reason="mariadb-binlog not installed")
def test_mariadb_binlog_reads_statement_files(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format="STATEMENT")
    path = _statement_workload(srv)
    r = subprocess.run(
        ["mariadb-binlog", "--verify-binlog-checksum", str(path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert "ERROR" not in r.stderr
    assert "SET INSERT_ID=1/*!*/;" in r.stdout and "SET LAST_INSERT_ID=1/*!*/;" in r.stdout
    assert f"SET @@session.sql_mode={sql_mode_bits(srv.globals.get('sql_mode'))}/*!*/;" in r.stdout
