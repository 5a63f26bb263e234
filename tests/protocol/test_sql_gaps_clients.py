"""The SQL that used to give 1235 (temporary tables, views, CREATE TABLE ... SELECT, multi-table UPDATE / DELETE,
SQL PREPARE / EXECUTE) through real clients against a real server process: PyMySQL, mysql-connector-python (pure,
server-side prepared statements) and SQLAlchemy's reflection of a view. Each statement's GTID is read back from
the OK packet (session_track_gtids=OWN_GTID): one GTID per statement, none for temporary tables (ROW format)."""

from __future__ import annotations

from collections.abc import Iterator

import mysql.connector
import pymysql
import pytest
from pymysql.constants import CLIENT

from gtidkit.protocol.client import last_gtids

from .server_proc import ServerProcess, running_server


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("gaps") / "data"
    with running_server(datadir, "--log-bin", "--server-id=9", "--session-track-gtids=OWN_GTID") as s:
        yield s


def _conn(srv: ServerProcess, **kw: object) -> pymysql.connections.Connection:
    return pymysql.connect(
        host="127.0.0.1",
        port=srv.port,
        user="root",
        password="",
        autocommit=True,
        client_flag=CLIENT.SESSION_TRACK | CLIENT.MULTI_STATEMENTS,
        **kw,  # type: ignore[arg-type]
    )


def _gno(conn: pymysql.connections.Connection) -> int | None:
    g = last_gtids(conn)
    if g is None or g.is_empty():
        return None
    return int(str(g).rsplit(":", 1)[1].split("-")[-1])


def test_pymysql_statements_each_one_gtid(srv: ServerProcess) -> None:
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE gaps")
        cur.execute("USE gaps")
        cur.execute("CREATE TABLE t1 (a INT PRIMARY KEY, b INT)")
        cur.execute("CREATE TABLE t2 (a INT PRIMARY KEY, c INT)")
        cur.execute("INSERT INTO t1 VALUES (1, 1), (2, 2)")
        cur.execute("INSERT INTO t2 VALUES (1, 10), (2, 20)")
        start = _gno(conn)
        assert start is not None
        steps = [
            ("UPDATE t1 JOIN t2 ON t1.a = t2.a SET t1.b = t2.c, t2.c = 0", 4),
            ("CREATE TABLE t3 AS SELECT a, b FROM t1", 2),
            ("CREATE VIEW v AS SELECT t1.a, t1.b, t3.b AS b3 FROM t1 JOIN t3 USING (a)", 0),
            ("DELETE t1, t3 FROM t1 JOIN t3 ON t1.a = t3.a WHERE t1.a = 1", 2),
        ]
        for n, (sql, affected) in enumerate(steps, 1):
            assert cur.execute(sql) == affected, sql
            assert _gno(conn) == start + n, sql  # exactly one new GTID, reported in the OK packet
        cur.execute("SELECT * FROM v")
        assert cur.fetchall() == ((2, 20, 20),)
        cur.execute("CREATE TEMPORARY TABLE tmp (x INT)")
        assert _gno(conn) is None  # nothing logged for a temporary table in ROW format
        cur.execute("INSERT INTO tmp VALUES (1), (2)")
        assert _gno(conn) is None
        cur.execute("SELECT COUNT(*) FROM tmp")
        assert cur.fetchone() == (2,)
        cur.execute("SET @k = 2")
        cur.execute("PREPARE s FROM 'SELECT b FROM t1 WHERE a = ?'")
        cur.execute("EXECUTE s USING @k")
        assert cur.fetchall() == ((20,),)
        cur.execute("DEALLOCATE PREPARE s")
    other = _conn(srv, database="gaps")
    with other.cursor() as cur, pytest.raises(pymysql.err.ProgrammingError) as exc:
        cur.execute("SELECT * FROM tmp")  # another session's temporary table
    assert exc.value.args[0] == 1146
    other.close()
    conn.close()


def test_mysql_connector_prepared_on_new_sql(srv: ServerProcess) -> None:
    conn = mysql.connector.connect(
        host="127.0.0.1",
        port=srv.port,
        user="root",
        password="",
        use_pure=True,
        autocommit=True,
        ssl_disabled=True,
    )
    cur = conn.cursor(prepared=True)
    cur.execute("CREATE DATABASE IF NOT EXISTS gaps2")
    cur.execute("CREATE TABLE gaps2.p (id INT PRIMARY KEY, v VARCHAR(20))")
    for i in range(3):
        cur.execute("INSERT INTO gaps2.p VALUES (?, ?)", (i, f"v{i}"))
    cur.execute("CREATE TEMPORARY TABLE gaps2.keep (id INT)")
    cur.execute("INSERT INTO gaps2.keep VALUES (?)", (1,))
    cur.execute("UPDATE gaps2.p JOIN gaps2.keep USING (id) SET v = ?", ("kept",))
    cur.execute("SELECT id, v FROM gaps2.p WHERE id <= ? ORDER BY id", (1,))
    assert cur.fetchall() == [(0, "v0"), (1, "kept")]
    cur.execute(
        "DELETE gaps2.p FROM gaps2.p LEFT JOIN gaps2.keep USING (id) WHERE keep.id IS NULL AND p.id > ?", (1,)
    )
    cur.execute("SELECT COUNT(*) FROM gaps2.p")
    assert cur.fetchall() == [(2,)]
    conn.close()


def test_sqlalchemy_reflects_a_view(srv: ServerProcess) -> None:
    sa = pytest.importorskip("sqlalchemy")
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE gaps3")
        cur.execute("CREATE TABLE gaps3.t (id INT PRIMARY KEY, name VARCHAR(10))")
        cur.execute("CREATE VIEW gaps3.names AS SELECT name FROM gaps3.t")
    conn.close()
    engine = sa.create_engine(f"mysql+pymysql://root:@127.0.0.1:{srv.port}/gaps3")
    inspector = sa.inspect(engine)
    assert inspector.get_table_names() == ["t"]
    assert inspector.get_view_names() == ["names"]
    assert [c["name"] for c in inspector.get_columns("names")] == ["name"]
    engine.dispose()
