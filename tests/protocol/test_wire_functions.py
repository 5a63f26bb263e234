"""Functions and statements everyday clients send, over the wire with PyMySQL against a real ``gtidkit server``.

Expected values from MySQL: RM8 "Information Functions" (USER() is the client's ``user@host`` as it connected,
CURRENT_USER() the matched account, e.g. ``'@localhost'`` for an anonymous match: the account's host pattern is
reported as stored, so an account created as ``'app'@'%'`` shows as ``app@%``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest

from tests.protocol.server_proc import ServerProcess, running_server

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("funcs") / "data"
    with running_server(datadir, "--log-bin", "--server-id=9") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE USER 'app'@'%' IDENTIFIED BY 'app-pw'")
            cur.execute("GRANT ALL PRIVILEGES ON *.* TO 'app'@'%'")
            cur.execute("CREATE DATABASE smoke")
            cur.execute("CREATE TABLE smoke.emp (id INT PRIMARY KEY, name VARCHAR(20))")
            cur.execute("INSERT INTO smoke.emp VALUES (1, 'bob'), (2, 'al'), (3, 'cy')")
        conn.close()
        yield s


def _connect(srv: ServerProcess, user: str = "root", password: str = "") -> pymysql.connections.Connection:
    return pymysql.connect(
        host="127.0.0.1", port=srv.port, user=user, password=password, database="smoke", autocommit=True
    )


@pytest.mark.parametrize(
    ("user", "password", "expected"),
    [
        ("root", "", ("root@localhost", "root@localhost", "root@localhost", "root@localhost")),
        ("app", "app-pw", ("app@localhost", "app@%", "app@localhost", "app@localhost")),
    ],
    ids=["root", "app-at-percent"],
)
def test_user_and_current_user(srv: ServerProcess, user: str, password: str, expected: tuple) -> None:
    conn = _connect(srv, user, password)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT USER(), CURRENT_USER(), SESSION_USER(), SYSTEM_USER()")
            assert cur.fetchone() == expected
    finally:
        conn.close()


def test_row_count_and_found_rows(srv: ServerProcess) -> None:
    conn = _connect(srv)
    try:
        with conn.cursor() as cur:
            cur.execute("UPDATE emp SET name = UPPER(name) WHERE id > 1")
            cur.execute("SELECT ROW_COUNT()")
            assert cur.fetchone() == (2,)
            cur.execute("UPDATE emp SET name = LOWER(name)")
            cur.execute("SELECT SQL_CALC_FOUND_ROWS * FROM emp ORDER BY id LIMIT 1")
            assert cur.fetchall() == ((1, "bob"),)
            cur.execute("SELECT FOUND_ROWS()")
            assert cur.fetchone() == (3,)
            cur.execute("CREATE USER 'rc'@'%'")  # an account statement: my_ok() with 0 rows
            cur.execute("SELECT ROW_COUNT()")
            assert cur.fetchone() == (0,)
    finally:
        conn.close()


def test_table_maintenance(srv: ServerProcess) -> None:
    # mysql-test r/analyze.result: "test.t1  analyze  status  OK"; OPTIMIZE on InnoDB: note + status (sql_admin.cc)
    conn = _connect(srv)
    try:
        with conn.cursor() as cur:
            cur.execute("ANALYZE TABLE emp")
            assert [d[0] for d in cur.description] == ["Table", "Op", "Msg_type", "Msg_text"]
            assert cur.fetchall() == (("smoke.emp", "analyze", "status", "OK"),)
            cur.execute("OPTIMIZE TABLE emp, nope")
            assert cur.fetchall() == (
                (
                    "smoke.emp",
                    "optimize",
                    "note",
                    "Table does not support optimize, doing recreate + analyze instead",
                ),
                ("smoke.emp", "optimize", "status", "OK"),
                ("smoke.nope", "optimize", "Error", "Table 'smoke.nope' doesn't exist"),
                ("smoke.nope", "optimize", "status", "Operation failed"),
            )
    finally:
        conn.close()


def test_maintenance_needs_select_and_insert(srv: ServerProcess) -> None:
    # RM8 "ANALYZE TABLE Statement": "ANALYZE TABLE requires SELECT and INSERT privileges for the table";
    # sql_admin.cc checks check_table_access(SELECT_ACL | INSERT_ACL) first; 1142 names the missing INSERT
    root = _connect(srv)
    try:
        with root.cursor() as cur:
            cur.execute("CREATE USER 'reader'@'%' IDENTIFIED BY 'r-pw'")
            cur.execute("GRANT SELECT ON smoke.* TO 'reader'@'%'")
    finally:
        root.close()
    conn = _connect(srv, "reader", "r-pw")
    try:
        with conn.cursor() as cur:
            cur.execute("CHECK TABLE emp")
            assert cur.fetchall() == (("smoke.emp", "check", "status", "OK"),)
            with pytest.raises(pymysql.err.OperationalError) as exc:
                cur.execute("ANALYZE TABLE emp")
            assert exc.value.args == (
                1142,
                "INSERT command denied to user 'reader'@'localhost' for table 'emp'",
            )
    finally:
        conn.close()


def test_everyday_functions_and_metadata(srv: ServerProcess) -> None:
    # JSON results are MYSQL_TYPE_JSON (245) in the column definitions (PyMySQL FIELD_TYPE.JSON); values as MySQL
    # prints them (RM8 "The JSON Data Type"); GROUP_CONCAT / SHA2 / SHOW TABLE STATUS (see the engine tests)
    conn = _connect(srv)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT JSON_OBJECT('a', 1, 'b', name) FROM emp ORDER BY id")
            assert cur.description[0][1] == pymysql.constants.FIELD_TYPE.JSON
            assert cur.fetchall() == (
                ('{"a": 1, "b": "bob"}',),
                ('{"a": 1, "b": "al"}',),
                ('{"a": 1, "b": "cy"}',),
            )
            cur.execute("SELECT GROUP_CONCAT(name ORDER BY name SEPARATOR '|') FROM emp")
            assert cur.fetchall() == (("al|bob|cy",),)
            cur.execute("SELECT SHA2('a', 256)")
            assert cur.fetchall() == (("ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",),)
            cur.execute("SHOW TABLE STATUS LIKE 'emp'")
            row = cur.fetchone()
            assert [d[0] for d in cur.description][:2] == ["Name", "Engine"] and row[:2] == ("emp", "InnoDB")
    finally:
        conn.close()
