"""CHARSET() / COLLATION() / COERCIBILITY() of a column (issue 19 §2): the column's own definition, not the
connection's set, through PyMySQL (text protocol) and mysql-connector's prepared cursor (binary protocol).

Expected values: RM8 "Information Functions" (CHARSET(str): "the character set of the string argument";
COLLATION(str); COERCIBILITY: 2 "Implicit: column value"; 5 "Numeric: numbers and temporal values"), RM8 "Column
Character Set and Collation" (a column without CHARACTER SET takes the table's default, a table's its database's),
"The JSON Data Type" (utf8mb4 / utf8mb4_bin), "The BINARY and VARBINARY Types" (the binary set).
"""

from __future__ import annotations

from collections.abc import Iterator

import mysql.connector
import pymysql
import pytest

from .server_proc import ServerProcess, running_server

DDL = (
    "CREATE TABLE cc.t (l VARCHAR(5) CHARACTER SET latin1, d VARCHAR(5), b TEXT COLLATE utf8mb4_bin, "
    "v VARBINARY(5), i INT, dt DATE, e ENUM('x', 'y'), j JSON) DEFAULT CHARSET=latin1 COLLATE latin1_general_ci"
)

CASES = [
    pytest.param(
        "CHARSET(l), COLLATION(l), COERCIBILITY(l)", ("latin1", "latin1_swedish_ci", 2), id="own-charset"
    ),
    pytest.param("CHARSET(d), COLLATION(d)", ("latin1", "latin1_general_ci"), id="table-default"),
    pytest.param("CHARSET(b), COLLATION(b)", ("utf8mb4", "utf8mb4_bin"), id="own-collation"),
    pytest.param("CHARSET(v), COLLATION(v), COERCIBILITY(v)", ("binary", "binary", 2), id="varbinary"),
    pytest.param("CHARSET(i), COLLATION(i), COERCIBILITY(i)", ("binary", "binary", 5), id="int"),
    pytest.param("CHARSET(dt), COERCIBILITY(dt)", ("binary", 5), id="date"),
    pytest.param("COLLATION(e)", ("latin1_general_ci",), id="enum"),
    pytest.param("CHARSET(j), COLLATION(j)", ("utf8mb4", "utf8mb4_bin"), id="json"),
    pytest.param("CHARSET(x.l), COLLATION(x.b)", ("latin1", "utf8mb4_bin"), id="qualified-by-alias"),
    pytest.param("COERCIBILITY(n.l), CHARSET(n.l)", (2, "latin1"), id="null-value-is-still-implicit"),
]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("colcs") / "data"
    with running_server(datadir, "--server-id=21") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE cc")
            cur.execute(DDL)
            cur.execute("INSERT INTO cc.t VALUES ('a', 'b', 'c', 'd', 1, '2020-01-01', 'x', '{}')")
            cur.execute("CREATE TABLE cc.n (l VARCHAR(3) CHARACTER SET latin1)")
            cur.execute("INSERT INTO cc.n VALUES (NULL)")
        conn.close()
        yield s


@pytest.mark.parametrize(("exprs", "expected"), CASES)
def test_column_charset_text_protocol(srv: ServerProcess, exprs: str, expected: tuple[object, ...]) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", database="cc")
    with conn.cursor() as cur:
        table = "n" if "n." in exprs else "t AS x" if "x." in exprs else "t"
        cur.execute(f"SELECT {exprs} FROM {table}")
        assert cur.fetchall() == (expected,)
    conn.close()


def test_column_charset_binary_protocol(srv: ServerProcess) -> None:
    conn = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", database="cc", use_pure=True
    )
    cur = conn.cursor(prepared=True)
    cur.execute("SELECT CHARSET(l), COLLATION(b), COERCIBILITY(i) FROM t WHERE i = ?", (1,))
    assert cur.fetchall() == [("latin1", "utf8mb4_bin", 5)]
    conn.close()
