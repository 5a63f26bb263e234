"""Numeric type synonyms and LIKE's default escape through real drivers (issue 19 §2 / §3).

Expected values:
- RM8 13.10 "Using Data Types from Other Database Engines": FIXED / NUMERIC = DECIMAL, FLOAT4 = FLOAT, FLOAT8 =
  DOUBLE, INT1 = TINYINT, INT2 = SMALLINT, INT3 = MIDDLEINT = MEDIUMINT, INT4 = INT, INT8 = BIGINT;
  RM8 13.1.1 "Numeric Data Type Syntax": "REAL[(M,D)] ... is a synonym for DOUBLE[(M,D)]. Exception: If the
  REAL_AS_FLOAT SQL mode is enabled, REAL is a synonym for FLOAT"; "DOUBLE PRECISION[(M,D)] ... synonym for
  DOUBLE"; "FLOAT(p) ... If p is from 25 to 53, the data type becomes DOUBLE with no M or D values".
- Column metadata: MYSQL_TYPE_FLOAT 4, MYSQL_TYPE_DOUBLE 5 (``field_types.h``); a DOUBLE keeps 1.1E-100 (RM8 13.1.4:
  approximate range of DOUBLE to 2.2250738585072014E-308), a FLOAT cannot (1.175494351E-38).
- RM8 14.8.1 "String Comparison Functions and Operators": "To test for literal instances of a wildcard
  character, precede it by the escape character. If you do not specify the ESCAPE character, \\ is assumed, unless
  the NO_BACKSLASH_ESCAPES SQL mode is enabled. In that case, no escape character is used."; RM8 15.7.7.41 "SHOW
  VARIABLES" (the LIKE / WHERE forms), mysql-test ``r/variables.result`` (``show variables like
  'max_error_count'`` and friends).
"""

from __future__ import annotations

from collections.abc import Iterator

import mysql.connector
import pymysql
import pytest

from .server_proc import ServerProcess, running_server

SYNONYMS = [
    pytest.param("REAL", "double", 5, id="real-is-double"),
    pytest.param("REAL(7,3)", "double(7,3)", 5, id="real-m-d"),
    pytest.param("REAL UNSIGNED", "double unsigned", 5, id="real-unsigned"),
    pytest.param("DOUBLE PRECISION", "double", 5, id="double-precision"),
    pytest.param("FLOAT(30)", "double", 5, id="float-p-above-24"),
    pytest.param("FLOAT(24)", "float", 4, id="float-p-24"),
    pytest.param("FLOAT4", "float", 4, id="float4"),
    pytest.param("FLOAT8", "double", 5, id="float8"),
    pytest.param("INT1", "tinyint", 1, id="int1"),
    pytest.param("INT2", "smallint", 2, id="int2"),
    pytest.param("INT3", "mediumint", 9, id="int3"),
    pytest.param("MIDDLEINT", "mediumint", 9, id="middleint"),
    pytest.param("INT4", "int", 3, id="int4"),
    pytest.param("INT8", "bigint", 8, id="int8"),
    pytest.param("FIXED(5,2)", "decimal(5,2)", 246, id="fixed"),
    pytest.param("NUMERIC(5,2)", "decimal(5,2)", 246, id="numeric"),
]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("synonyms") / "data"
    with running_server(datadir, "--server-id=23") as s:
        conn = _conn(s)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE syn")
            cur.execute("CREATE DATABASE tl")
            cur.execute("CREATE TABLE tl.x_1 (i INT)")
            cur.execute("CREATE TABLE tl.xa1 (i INT)")
        conn.close()
        yield s


def _conn(s: ServerProcess, **kw: object) -> pymysql.Connection:
    return pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True, **kw)


@pytest.mark.parametrize(("spelled", "shown", "wire_type"), SYNONYMS)
def test_type_synonym(srv: ServerProcess, spelled: str, shown: str, wire_type: int) -> None:
    table = "t_" + spelled.split("(")[0].split()[0].lower() + str(abs(hash(spelled)) % 1000)
    conn = _conn(srv, database="syn")
    with conn.cursor() as cur:
        cur.execute(f"CREATE TABLE {table} (c {spelled})")
        cur.execute(f"SHOW CREATE TABLE {table}")
        assert f"`c` {shown} DEFAULT NULL" in cur.fetchone()[1]
        cur.execute(f"SELECT c FROM {table}")
        assert cur.description[0][1] == wire_type
    conn.close()


def test_real_keeps_double_range_and_real_as_float(srv: ServerProcess) -> None:
    conn = _conn(srv, database="syn")
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE r (a REAL, b INT8)")
        cur.execute("INSERT INTO r VALUES (1.1E-100, 9223372036854775807)")
        cur.execute("SELECT a, b FROM r")
        assert cur.fetchall() == ((1.1e-100, 9223372036854775807),)
        cur.execute("SET SESSION sql_mode = 'REAL_AS_FLOAT'")
        cur.execute("CREATE TABLE rf (a REAL, `real` INT)")
        cur.execute("ALTER TABLE rf ADD COLUMN b REAL")
        cur.execute("SHOW CREATE TABLE rf")
        text = cur.fetchone()[1]
        assert "`a` float DEFAULT NULL" in text
        assert "`real` int DEFAULT NULL" in text
        assert "`b` float DEFAULT NULL" in text
        cur.execute("SET SESSION sql_mode = 'ANSI'")  # ANSI includes REAL_AS_FLOAT
        cur.execute("CREATE TABLE ra (a REAL)")
        cur.execute("SHOW CREATE TABLE ra")
        assert " float DEFAULT NULL" in cur.fetchone()[1]  # (the name's quoting under ANSI_QUOTES aside)
    conn.close()


LIKES = [
    pytest.param("'a_c' LIKE 'a\\_c'", 1, id="escaped-underscore-matches-itself"),
    pytest.param("'abc' LIKE 'a\\_c'", 0, id="escaped-underscore-no-wildcard"),
    pytest.param("'a%' LIKE 'a\\%'", 1, id="escaped-percent"),
    pytest.param("'ab' LIKE 'a\\%'", 0, id="escaped-percent-no-wildcard"),
    pytest.param("'a\\\\b' LIKE 'a\\\\\\\\b'", 1, id="escaped-backslash"),
    pytest.param("'a|_' LIKE 'a|_' ESCAPE '|'", 0, id="explicit-escape-kept"),
    pytest.param("'a_' LIKE 'a|_' ESCAPE '|'", 1, id="explicit-escape-used"),
    pytest.param("'abc' NOT LIKE 'a\\_c'", 1, id="not-like"),
]


@pytest.mark.parametrize(("expr", "expected"), LIKES)
def test_like_default_escape(srv: ServerProcess, expr: str, expected: int) -> None:
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute(f"SELECT {expr}")
        assert cur.fetchone()[0] == expected
    conn.close()


def test_like_escape_in_table_where_and_prepared(srv: ServerProcess) -> None:
    conn = _conn(srv, database="syn")
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE w (s VARCHAR(10))")
        cur.execute("INSERT INTO w VALUES ('a_c'), ('abc'), ('a%c'), ('a\\\\c')")
        cur.execute("SELECT s FROM w WHERE s LIKE 'a\\_c' ORDER BY s")
        assert cur.fetchall() == (("a_c",),)
        cur.execute("SELECT s FROM w WHERE s LIKE 'a\\%%c' ORDER BY s")  # PyMySQL: %% is one %
        assert cur.fetchall() == (("a%c",),)
        cur.execute("SELECT COUNT(*) FROM w WHERE s LIKE 'a_c'")
        assert cur.fetchone()[0] == 4
        # the pattern a\_c written with a doubled backslash: the engine's text of the NO_BACKSLASH_ESCAPES query
        # below is the same, so a plan kept from here would answer 1 there
        cur.execute("SELECT COUNT(*) FROM w WHERE s LIKE 'a\\\\_c'")
        assert cur.fetchone()[0] == 1
        cur.execute("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'")  # no escape character at all
        cur.execute("SELECT s FROM w WHERE s LIKE 'a\\c'")
        assert cur.fetchall() == (("a\\c",),)
        cur.execute("SELECT COUNT(*) FROM w WHERE s LIKE 'a\\_c'")  # backslash itself, then any one character
        assert cur.fetchone()[0] == 0
    conn.close()
    mc = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="root", password="", database="syn")
    cur2 = mc.cursor(prepared=True)
    cur2.execute("SELECT s FROM w WHERE s LIKE ?", ("a\\_c",))
    assert cur2.fetchall() == [("a_c",)]
    mc.close()


SHOWS = [
    pytest.param(
        "SHOW VARIABLES WHERE Variable_name LIKE 'gtid\\_mode'", [("gtid_mode", "ON")], id="where-like"
    ),
    pytest.param("SHOW VARIABLES LIKE 'gtid\\_mode'", [("gtid_mode", "ON")], id="like"),
    pytest.param("SHOW GLOBAL VARIABLES LIKE 'gtid\\_mod_'", [("gtid_mode", "ON")], id="like-mixed"),
    pytest.param("SHOW VARIABLES LIKE 'gtid\\%'", [], id="escaped-percent-matches-nothing"),
    pytest.param(
        "SHOW STATUS WHERE Variable_name LIKE 'Prepared\\_stmt\\_count'", ["Prepared_stmt_count"], id="status"
    ),
    pytest.param("SHOW TABLES FROM tl LIKE 'x\\_1'", [("x_1",)], id="tables-escaped"),
    pytest.param("SHOW TABLES FROM tl LIKE 'x_1'", [("x_1",), ("xa1",)], id="tables-wildcard"),
]


@pytest.mark.parametrize(("sql", "expected"), SHOWS)
def test_show_like_escape(srv: ServerProcess, sql: str, expected: list[object]) -> None:
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute(sql)
        rows = list(cur.fetchall())
        if "STATUS" in sql:
            rows = [r[0] for r in rows]
        assert sorted(rows) == expected
    conn.close()
