"""What client drivers need of the packets (issue 19 section 1), through real drivers on a real server process.

- Result sets of 251 columns or more: the column count is a length-encoded integer (``0xFC`` + 2 bytes from 251
  on), and the packet's length covers all of it (client/server protocol manual, "Text Resultset": the first packet
  is ``int<lenenc> column_count``; "Basic Data Types": ``0xFC`` + 2-byte integer for 251 <= x < 2^16).
- sql_mode NO_BACKSLASH_ESCAPES (manual "Server SQL Modes": a backslash is an ordinary character within strings)
  sets SERVER_STATUS_NO_BACKSLASH_ESCAPES (0x0200, ``mysql_com.h``) in OK / EOF packets, and the clients that read
  it escape with doubled quotes only: PyMySQL (``Connection.escape_string``), mysql-connector-python (its
  ``sql_mode``) and libmariadb's ``mysql_real_escape_string``.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from pathlib import Path

import mysql.connector
import pymysql
import pytest

from . import node_mysql2
from .server_proc import LibMariaDB, ServerProcess, running_server

NO_BACKSLASH_ESCAPES = 0x0200


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("driverwire") / "data"
    with running_server(datadir, "--server-id=19") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE w")
        conn.close()
        yield s


@pytest.fixture(scope="module")
def mysql2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return node_mysql2.install(tmp_path_factory.mktemp("mysql2"))


def _pymysql(srv: ServerProcess) -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True)


def _connector(srv: ServerProcess) -> mysql.connector.MySQLConnection:
    return mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", use_pure=True, autocommit=True
    )


# ------------------------------------------------------------------------------------------------ 251+ columns
WIDTHS = [250, 251, 252, 1000, 4096]


@pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}cols" for w in WIDTHS])
def test_wide_result_sets_pymysql_and_connector(srv: ServerProcess, width: int) -> None:
    sql = "SELECT " + ", ".join(f"{i} AS c{i}" for i in range(width))
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute(sql)
        assert cur.fetchall() == (tuple(range(width)),)
        assert [d[0] for d in cur.description][-1] == f"c{width - 1}"
    conn.close()
    c2 = _connector(srv)
    for prepared in (False, True):  # text and binary protocol
        cur2 = c2.cursor(prepared=prepared)
        cur2.execute(sql)
        assert cur2.fetchall() == [tuple(range(width))]
        cur2.close()
    c2.close()


def test_wide_result_sets_mysql2(srv: ServerProcess, mysql2: Path) -> None:
    steps = []
    for width in WIDTHS:
        sql = "SELECT " + ", ".join(f"'v{i}'" for i in range(width))
        steps += [{"how": "query", "sql": sql}, {"how": "execute", "sql": sql}]
    out = node_mysql2.run(mysql2, srv.port, steps)
    for width, (text, binary) in zip(WIDTHS, zip(out[::2], out[1::2], strict=True), strict=True):
        expected = [[f"v{i}" for i in range(width)]]
        assert text.get("rows") == expected, text
        assert binary.get("rows") == expected, binary


# ------------------------------------------------------------------------------------------------ NO_BACKSLASH_ESCAPES
#: (literal as sent, its value with NO_BACKSLASH_ESCAPES): the manual's rule, a backslash is an ordinary character
LITERALS = [
    (r"'a\'", "a\\"),
    (r"'a\\b'", "a\\\\b"),
    (r"'it''s\n'", "it's\\n"),
    (r"'\%'", "\\%"),
    (r'"q\"', "q\\"),
]


@pytest.mark.parametrize(("literal", "value"), LITERALS, ids=[lit for lit, _ in LITERALS])
def test_no_backslash_escapes_literals(srv: ServerProcess, literal: str, value: str) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        assert not conn.server_status & NO_BACKSLASH_ESCAPES
        cur.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')")
        assert conn.server_status & NO_BACKSLASH_ESCAPES  # the OK packet of the SET
        cur.execute(f"SELECT {literal}, LENGTH({literal})")
        assert cur.fetchall() == ((value, len(value)),)
        assert conn.server_status & NO_BACKSLASH_ESCAPES  # the EOF / OK that ends the result set
        cur.execute("SET SESSION sql_mode = DEFAULT")
        assert not conn.server_status & NO_BACKSLASH_ESCAPES
    conn.close()


def test_no_backslash_escapes_splits_statements_at_the_quote(srv: ServerProcess) -> None:
    conn = pymysql.connect(
        host="127.0.0.1",
        port=srv.port,
        user="root",
        password="",
        autocommit=True,
        client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS,
    )
    with conn.cursor() as cur:
        cur.execute("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
        cur.execute(r"SELECT 'x\'; SELECT 'y'")
        assert cur.fetchall() == (("x\\",),)
        assert cur.nextset()
        assert cur.fetchall() == (("y",),)
    conn.close()


#: values a client escapes into a statement: backslashes, quotes, a NUL, newlines
AWKWARD = ["p\\q'r", "\\", "'\\'", "a\nb\\n", "end\\"]


def test_no_backslash_escapes_client_escaping_round_trips(srv: ServerProcess) -> None:
    """Each client escapes as the status flag / sql_mode tells it, and the server reads it back unchanged."""
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE w.nbe (id INT PRIMARY KEY, s VARCHAR(40), b VARBINARY(40))")
        cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES'")
        for i, v in enumerate(AWKWARD):  # PyMySQL: escape_string with '' only (server_status has 0x0200)
            cur.execute("INSERT INTO w.nbe VALUES (%s, %s, %s)", (i, v, v.encode()))
        cur.execute("SELECT s, b FROM w.nbe ORDER BY id")
        assert cur.fetchall() == tuple((v, v.encode()) for v in AWKWARD)
        cur.execute("DELETE FROM w.nbe")
    conn.close()
    c2 = _connector(srv)
    c2.sql_mode = "STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES"  # the connector escapes by its sql_mode
    cur2 = c2.cursor()
    for i, v in enumerate(AWKWARD):
        cur2.execute("INSERT INTO w.nbe VALUES (%s, %s, %s)", (i, v, v.encode()))
    cur2.execute("SELECT s FROM w.nbe ORDER BY id")
    assert cur2.fetchall() == [(v,) for v in AWKWARD]
    cur2.execute("DELETE FROM w.nbe")
    c2.close()
    lib = LibMariaDB()
    lib.connect(srv.port)
    try:
        lib.query("SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
        lib.lib.mysql_real_escape_string.restype = ctypes.c_ulong
        lib.lib.mysql_real_escape_string.argtypes = [
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_ulong,
        ]
        for i, v in enumerate(AWKWARD):
            raw = v.encode()
            buf = ctypes.create_string_buffer(2 * len(raw) + 1)
            n = lib.lib.mysql_real_escape_string(lib.handle, buf, raw, len(raw))
            escaped = buf.raw[:n].decode()
            assert "\\\\" not in escaped or "\\\\" in v  # libmariadb doubled no backslash: it saw 0x0200
            lib.query(f"INSERT INTO w.nbe VALUES ({i}, '{escaped}', NULL)")
    finally:
        lib.close()
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("SELECT s FROM w.nbe ORDER BY id")
        assert cur.fetchall() == tuple((v,) for v in AWKWARD)
    conn.close()


def test_no_backslash_escapes_prepared(srv: ServerProcess, mysql2: Path) -> None:
    """A prepared statement's text is read under the mode too; its bound values are never re-read."""
    c2 = _connector(srv)
    cur = c2.cursor(prepared=True)
    cur.execute("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'")
    cur.execute(r"SELECT 'c:\dir\', ?", ("x\\'y",))
    assert cur.fetchall() == [("c:\\dir\\", "x\\'y")]
    c2.close()
