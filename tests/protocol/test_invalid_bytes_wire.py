"""A string literal holding bytes that are no character of ``character_set_client`` (utf8mb4), sent as raw bytes by
PyMySQL, read together with a table: MySQL's ``Item_string`` holds the literal's bytes as sent, so the row carries
them back, HEX / LENGTH see them, a VARBINARY column stores and compares them, and a utf8mb4 column refuses them
with ER_TRUNCATED_WRONG_VALUE_FOR_FIELD 1366 "Incorrect string value: '\\xFF' for column ..." (strict mode; the
manual's "The Binary and VarBinary Types" and "Server SQL Modes"). Before the fix every such statement that reached
SQLite failed with internal error 1815 (UnicodeEncodeError).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from .server_proc import ServerProcess, running_server

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir: Path = tmp_path_factory.mktemp("bytes") / "data"
    with running_server(datadir, "--sql-mode=STRICT_TRANS_TABLES") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE app")
            cur.execute("CREATE TABLE app.t (id INT PRIMARY KEY, name VARCHAR(10), b VARBINARY(10))")
            cur.execute("INSERT INTO app.t VALUES (1, 'ab', 'q')")
        conn.close()
        yield s


def _connect(srv: ServerProcess) -> pymysql.connections.Connection:
    return pymysql.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", database="app", charset="utf8mb4",
        use_unicode=False, autocommit=True,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("sql", "rows"),
    [
        (b"SELECT 'x\xff' AS a FROM t", ((b"x\xff",),)),
        (b"SELECT 'x\xff' AS a", ((b"x\xff",),)),
        (b"SELECT 'x\xff' AS a, name FROM t WHERE name <> 'x\xfe'", ((b"x\xff", b"ab"),)),
        (b"SELECT CONCAT('x\xff', name) AS a FROM t", ((b"x\xffab",),)),
        (b"SELECT HEX('x\xff') AS h FROM t", ((b"78FF",),)),
        (b"SELECT LENGTH('x\xff') AS n FROM t", ((2,),)),
        (b"SELECT 'x\xff' AS a FROM t UNION ALL SELECT 'y'", ((b"x\xff",), (b"y",))),
    ],
    ids=["from-table", "no-table", "where", "concat", "hex", "length", "union"],
)
def test_literal_bytes_come_back(srv: ServerProcess, sql: bytes, rows: tuple) -> None:
    conn = _connect(srv)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            assert cur.fetchall() == rows
    finally:
        conn.close()


def test_varbinary_keeps_the_bytes_and_utf8mb4_refuses_them(srv: ServerProcess) -> None:
    conn = _connect(srv)
    try:
        with conn.cursor() as cur:
            cur.execute(b"INSERT INTO t (id, b) VALUES (2, 'x\xff')")
            cur.execute(b"UPDATE t SET b = 'y\xfe' WHERE id = 1")
            cur.execute(b"SELECT id, HEX(b) FROM t WHERE b IN ('x\xff', 'y\xfe') ORDER BY id")
            assert cur.fetchall() == ((1, b"79FE"), (2, b"78FF"))
            with pytest.raises(pymysql.err.MySQLError) as err:
                cur.execute(b"INSERT INTO t (id, name) VALUES (3, 'x\xff')")
            assert err.value.args[0] == 1366
            assert "Incorrect string value: '\\xFF' for column 'name' at row 1" in err.value.args[1]
            cur.execute("SELECT COUNT(*) FROM t")
            assert cur.fetchall() == ((2,),)
    finally:
        conn.close()


#: An introduced hexadecimal / bit-value literal whose bytes are no string of the introduced set is ERROR 1300
#: ER_INVALID_CHARACTER_STRING "Invalid %s character string: '%s'" with the hex of at most three bytes from the first
#: invalid one (``Item::check_well_formed_result`` with send_error; results captured from a MySQL 8.0 server:
#: ``SELECT _utf8mb4 X'FF'`` -> 'FF', ``_utf8mb4 X'C080'`` -> 'C080', ``_utf8mb4 X'E282'`` -> 'E282',
#: ``_utf8mb3 X'F09F9880'`` -> 'F09F98', ``_utf8mb4 X'41FF42' WHERE FALSE`` -> 'FF42'); before the fix the bytes
#: went out in a utf8mb4 column and the driver failed to decode the row.
INVALID_INTRODUCED = [
    pytest.param(b"SELECT _utf8mb4 X'FF'", "utf8mb4", "FF", id="ff"),
    pytest.param(b"SELECT _utf8mb4 X'C080'", "utf8mb4", "C080", id="overlong"),
    pytest.param(b"SELECT _utf8mb4 X'E282'", "utf8mb4", "E282", id="truncated-sequence"),
    pytest.param(b"SELECT _utf8mb3 X'F09F9880'", "utf8mb3", "F09F98", id="utf8mb3-4-byte-char"),
    pytest.param(b"SELECT _utf8mb4 X'41FF42' FROM t WHERE FALSE", "utf8mb4", "FF42", id="after-valid-byte"),
    pytest.param(b"SELECT _utf8mb4 0xFF41", "utf8mb4", "FF41", id="0x-form"),
    pytest.param(b"SELECT _utf8mb4 b'11111111'", "utf8mb4", "FF", id="bit-form"),
    pytest.param(b"SELECT IF(FALSE, _utf8mb4 X'FF', 'ok')", "utf8mb4", "FF", id="unevaluated-branch"),
]


@pytest.mark.parametrize(("sql", "charset", "shown"), INVALID_INTRODUCED)
def test_invalid_introduced_hex_is_error_1300(
    srv: ServerProcess, sql: bytes, charset: str, shown: str
) -> None:
    conn = _connect(srv)
    try:
        with conn.cursor() as cur, pytest.raises(pymysql.err.MySQLError) as err:
            cur.execute(sql)
        assert err.value.args == (1300, f"Invalid {charset} character string: '{shown}'")
        with conn.cursor() as cur:  # the session goes on
            cur.execute(b"SELECT HEX(_utf8mb4 X'C3A9'), _utf8mb4 0x41, HEX(_utf8mb3 X'E282AC')")
            assert cur.fetchall() == ((b"C3A9", b"A", b"E282AC"),)
    finally:
        conn.close()
