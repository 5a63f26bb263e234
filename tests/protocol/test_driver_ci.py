"""What drivers and their CI scripts use around the SQL (issue 19 section 3), through real drivers on a real
server process. Expected values are MySQL 8.0's (manual pages cited per test)."""

from __future__ import annotations

from collections.abc import Iterator

import mysql.connector
import pymysql
import pytest

from .server_proc import ServerProcess, running_server


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("driverci") / "data"
    with running_server(datadir, "--skip-log-bin", "--gtid-mode=OFF", "--server-id=19") as s:
        yield s


def _conn(srv: ServerProcess, **kw: object) -> pymysql.connections.Connection:
    args: dict[str, object] = {
        "host": "127.0.0.1",
        "port": srv.port,
        "user": "root",
        "password": "",
        "autocommit": True,
        **kw,
    }
    return pymysql.connect(**args)  # type: ignore[arg-type]


def _error(conn: pymysql.connections.Connection, sql: str) -> int:
    with pytest.raises(pymysql.err.MySQLError) as exc, conn.cursor() as cur:
        cur.execute(sql)
    return int(exc.value.args[0])


def test_negative_auto_increment_is_inserted(srv: ServerProcess) -> None:
    """An explicit negative AUTO_INCREMENT value is stored as given; the OK packet's insert id is the value as a
    ulonglong (sql_insert.cc: ``id = next_number_field->val_int()`` into a ulonglong), and it does not move the
    counter (InnoDB's counter is unsigned)."""
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS ci")
        cur.execute("CREATE TABLE ci.neg (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        cur.execute("INSERT INTO ci.neg VALUES (-5, 1)")
        assert cur.lastrowid == 2**64 - 5
        cur.execute("INSERT INTO ci.neg (v) VALUES (2)")
        assert cur.lastrowid == 1
        cur.execute("SELECT id, v FROM ci.neg ORDER BY id")
        assert cur.fetchall() == ((-5, 1), (1, 2))
    other = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True
    )
    cur2 = other.cursor()
    cur2.execute("INSERT INTO ci.neg VALUES (-7, 3)")
    assert cur2.lastrowid == 2**64 - 7
    other.close()
    conn.close()


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("SELECT ?", id="question-mark"),
        pytest.param("SELECT * FROM ci.neg WHERE id = ?", id="question-mark-in-where"),
        pytest.param("SELECT * FROM ci.neg WHERE id = :id", id="named"),
    ],
)
def test_parameter_markers_in_a_text_query_are_1064(srv: ServerProcess, sql: str) -> None:
    """MySQL's grammar takes `?` only in a prepared statement; `:name` is no token at all: ER_PARSE_ERROR near
    the marker."""
    conn = _conn(srv)
    with pytest.raises(pymysql.err.ProgrammingError) as exc, conn.cursor() as cur:
        cur.execute(sql)
    code, message = exc.value.args
    assert code == 1064
    marker = "?" if "?" in sql else ":id"
    assert message.endswith(f"near '{marker}' at line 1")
    with conn.cursor() as cur:  # the session goes on
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall()[0][1] == 1064
    conn.close()


def test_alter_table_under_a_view(srv: ServerProcess) -> None:
    """ALTER TABLE of a table a view reads keeps the view working (the fuzz found an internal error here)."""
    conn = _conn(srv, database="ci")
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE base (a INT, b INT)")
        cur.execute("INSERT INTO base VALUES (1, 2)")
        cur.execute("CREATE VIEW vb AS SELECT a, b FROM base")
        cur.execute("ALTER TABLE base ADD COLUMN c INT")
        cur.execute("SELECT * FROM vb")
        assert cur.fetchall() == ((1, 2),)
    conn.close()
