"""A UNION column where one SELECT gives a string and another a number is a string column, whatever rows come back,
in the text protocol (PyMySQL) and the binary one (mysql-connector-python's server-side prepared statements).

Source: the manual's "UNION Clause" ("the types and lengths of the UNION result take into account the values
retrieved by all the SELECT statements"; its example ``SELECT REPEAT('a',1) UNION SELECT REPEAT('b',20)``) and
``Field::field_type_merge`` (VARCHAR merged with a number is VARCHAR, sent as MYSQL_TYPE_VAR_STRING = 253; a TEXT
column makes it a BLOB type, 252). Before the fix a prepared ``SELECT name FROM t WHERE id = ? UNION SELECT 1.5``
was typed by its rows: DOUBLE when only the number came back, and a string row then had no binary DOUBLE form.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import mysql.connector
import pymysql
import pytest

from .server_proc import ServerProcess, running_server

pytestmark = pytest.mark.timeout(300)

VAR_STRING, BLOB = 253, 252


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir: Path = tmp_path_factory.mktemp("union") / "data"
    with running_server(datadir, "--server-id=1") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE app")
            cur.execute("CREATE TABLE app.t (id INT PRIMARY KEY, name VARCHAR(10), note TEXT)")
            cur.execute("INSERT INTO app.t VALUES (1, 'ab', 'n1'), (2, 'x', 'n2')")
        conn.close()
        yield s


CASES = [
    # (query, parameters, expected rows (any order), expected type code)
    ("SELECT name FROM t UNION SELECT 1.5", (), {("ab",), ("x",), ("1.5",)}, VAR_STRING),
    ("SELECT 1.5 UNION SELECT name FROM t", (), {("ab",), ("x",), ("1.5",)}, VAR_STRING),
    ("SELECT name FROM t UNION ALL SELECT 1.5", (), {("ab",), ("x",), ("1.5",)}, VAR_STRING),
    ("SELECT name FROM t WHERE id = %s UNION SELECT 1.5", (1,), {("ab",), ("1.5",)}, VAR_STRING),
    ("SELECT name FROM t WHERE id = %s UNION SELECT 1.5", (9,), {("1.5",)}, VAR_STRING),
    ("SELECT name FROM t WHERE id = %s UNION SELECT 2", (9,), {("2",)}, VAR_STRING),
    ("SELECT note FROM t WHERE id = %s UNION SELECT 1.5", (9,), {("1.5",)}, BLOB),
    ("SELECT 1 UNION SELECT 'a'", (), {("1",), ("a",)}, VAR_STRING),
    ("SELECT 'a' UNION SELECT 1.5", (), {("a",), ("1.5",)}, VAR_STRING),
]
IDS = ["varchar-decimal", "decimal-varchar", "union-all", "param-both", "param-number-only", "param-int-only",
       "text-decimal", "int-string", "string-decimal"]  # fmt: skip


@pytest.mark.parametrize(("sql", "params", "rows", "ftype"), CASES, ids=IDS)
def test_text_protocol(srv: ServerProcess, sql: str, params: tuple, rows: set, ftype: int) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", database="app")
    try:
        with conn.cursor() as cur:
            cur.execute(sql, params or None)
            assert set(cur.fetchall()) == rows
            assert cur.description[0][1] == ftype
    finally:
        conn.close()


@pytest.mark.parametrize(("sql", "params", "rows", "ftype"), CASES, ids=IDS)
def test_binary_protocol(srv: ServerProcess, sql: str, params: tuple, rows: set, ftype: int) -> None:
    conn = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="root", password="", database="app")
    try:
        cur = conn.cursor(prepared=True)
        stmt = sql.replace("%s", "?")
        cur.execute(stmt, params)
        got = {
            tuple(v.decode() if isinstance(v, (bytes, bytearray)) else v for v in r) for r in cur.fetchall()
        }
        assert got == rows
        assert cur.description[0][1] == ftype
        if params:  # the same statement again, now with string rows: still one string column, still connected
            cur.execute(stmt, (1,))
            got = {
                tuple(v.decode() if isinstance(v, (bytes, bytearray)) else v for v in r)
                for r in cur.fetchall()
            }
            assert ("1.5",) in got or ("2",) in got
            assert len(got) == 2
        cur.close()
        check = conn.cursor()
        check.execute("SELECT 1")
        assert check.fetchall() == [(1,)]
    finally:
        conn.close()
