"""Bytes, character sets and literals over the wire (issue 19 section 2), through real drivers on a real server.

Expected values from MySQL's manual: "Character Set Introducers" (``_charset_name'string'``, ``_binary``, the
examples ``_latin1 X'4D7953514C'``, ``_latin1 b'1000001'``, ``_utf8mb4 0x4D7953514C COLLATE utf8mb4_danish_ci``),
"National Character Set" (``N'..'``), "Information Functions" (CHARSET(), COLLATION(), COERCIBILITY() and their
examples), "Collation Coercibility in Expressions", "Connection Character Sets and Collations" (``SET NAMES cs
COLLATE coll``), "Using Data Types from Other Database Engines" (``LONG VARBINARY`` = MEDIUMBLOB, ``LONG VARCHAR`` =
MEDIUMTEXT), "The TIME Type" / "Date and Time Literals" (``'D HH:MM:SS'``), "Fixed-Point Types" (DECIMAL up to 65
digits).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal

import mysql.connector
import pymysql
import pytest

from .server_proc import ServerProcess, running_server

EVERY_BYTE = bytes(range(256))


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("charsetlit") / "data"
    with running_server(datadir, "--server-id=20") as s:
        conn = _pymysql(s)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE c")
        conn.close()
        yield s


def _pymysql(srv: ServerProcess, **kw: object) -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True, **kw)


# ------------------------------------------------------------------------------------------------ _binary'..'
@pytest.mark.parametrize("charset", ["utf8mb4", "latin1"], ids=["utf8mb4-client", "latin1-client"])
def test_binary_introducer_stores_raw_bytes_exactly(srv: ServerProcess, charset: str) -> None:
    """PyMySQL with ``binary_prefix`` (MySQLdb's default) sends a bytes parameter as ``_binary'<raw bytes>'``: the
    bytes need not be valid in character_set_client, and every one of them is stored as sent."""
    conn = _pymysql(srv, binary_prefix=True, charset=charset)
    table = f"c.raw_{charset}"
    with conn.cursor() as cur:
        cur.execute(f"CREATE TABLE {table} (id INT PRIMARY KEY, b BLOB, vb VARBINARY(300))")
        cur.execute(f"INSERT INTO {table} VALUES (1, %s, %s)", (EVERY_BYTE, EVERY_BYTE[::-1]))
        cur.execute(f"INSERT INTO {table} VALUES (2, %s, %s)", (b"\xff\xfe'\\\x00", b"\xc3\x28"))
        cur.execute(f"SELECT b, vb, LENGTH(b) FROM {table} ORDER BY id")
        assert cur.fetchall() == (
            (EVERY_BYTE, EVERY_BYTE[::-1], 256),
            (b"\xff\xfe'\\\x00", b"\xc3\x28", 5),
        )
        cur.execute(f"SELECT id FROM {table} WHERE vb = %s", (b"\xc3\x28",))  # in a WHERE too
        assert cur.fetchall() == ((2,),)
        cur.execute("SELECT %s, HEX(%s)", (b"\x80\xff", b"\x80\xff"))
        assert cur.fetchall() == ((b"\x80\xff", "80FF"),)
    conn.close()


def test_introducers_read_the_bytes_as_sent(srv: ServerProcess) -> None:
    """``_latin1'<byte E9>'`` is é whatever the client's set; the same bytes after ``_utf8mb4`` are UTF-8."""
    conn = _pymysql(srv)
    conn.query(b"SELECT _latin1'\xe9', _utf8mb4'\xc3\xa9', _binary'\xe9\x00', _latin1 '\xe9t\xe9'")
    result = conn._result
    assert result is not None
    assert result.rows == (("\u00e9", "\u00e9", b"\xe9\x00", "\u00e9t\u00e9"),)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE c.lat (s VARCHAR(10) CHARACTER SET latin1, u VARCHAR(10))")
        conn.query(b"INSERT INTO c.lat VALUES (_latin1'caf\xe9', _latin1 X'E9')")
        cur.execute("SELECT s, u FROM c.lat")
        assert cur.fetchall() == (("caf\u00e9", "\u00e9"),)
    conn.close()


#: (literal, its value as PyMySQL decodes it): the manual's introducer examples
LITERALS = [
    ("_latin1 X'4D7953514C'", "MySQL"),
    ("_latin1 b'1000001'", "A"),
    ("_utf8mb4 0x4D7953514C COLLATE utf8mb4_danish_ci", "MySQL"),
    ("_binary'abc'", b"abc"),
    ("_utf8mb4'abc' COLLATE utf8mb4_danish_ci", "abc"),
    ("N'some text'", "some text"),
    ("n'x'", "x"),
]


@pytest.mark.parametrize(("literal", "value"), LITERALS, ids=[lit for lit, _ in LITERALS])
def test_introducer_literals(srv: ServerProcess, literal: str, value: object) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute(f"SELECT {literal}")
        assert cur.fetchall() == ((value,),)
    conn.close()


def test_introduced_literals_named_by_their_string(srv: ServerProcess) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("SELECT _binary'abc', _latin1'xyz', N'nat'")
        assert [d[0] for d in cur.description] == ["abc", "xyz", "nat"]
    conn.close()


def test_binary_literal_metadata(srv: ServerProcess) -> None:
    """``_binary'abc'`` is a binary string: VAR_STRING in the binary set (63), 3 bytes long."""
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("SELECT _binary'abc'")
        desc = cur.description[0]
        assert (desc[1], desc[3]) == (253, 3)
        assert cur._result.fields[0].charsetnr == 63
    conn.close()


# ------------------------------------------------------------------------------------------------ CHARSET() ...
#: (expression, value): RM "Information Functions" examples (MySQL 8.0 defaults: utf8mb4 / utf8mb4_0900_ai_ci)
CHARSET_FUNCTIONS = [
    ("CHARSET('abc')", "utf8mb4"),
    ("CHARSET(CONVERT('abc' USING latin1))", "latin1"),
    ("CHARSET(USER())", "utf8mb3"),
    ("COERCIBILITY('abc' COLLATE utf8mb4_swedish_ci)", 0),
    ("COERCIBILITY(USER())", 3),
    ("COERCIBILITY('abc')", 4),
    ("COERCIBILITY(1000)", 5),
    ("COERCIBILITY(NULL)", 6),
    ("COLLATION('abc')", "utf8mb4_0900_ai_ci"),
    ("COLLATION(_utf8mb4'abc')", "utf8mb4_0900_ai_ci"),
    ("COLLATION(_latin1'abc')", "latin1_swedish_ci"),
    ("CHARSET(_binary'abc')", "binary"),
    ("COLLATION('abc' COLLATE utf8mb4_bin)", "utf8mb4_bin"),
    ("CHARSET(1)", "binary"),
    ("COERCIBILITY(s)", 2),
    ("CHARSET(s)", "utf8mb4"),
]


@pytest.mark.parametrize(("expr", "value"), CHARSET_FUNCTIONS, ids=[e for e, _ in CHARSET_FUNCTIONS])
def test_charset_functions(srv: ServerProcess, expr: str, value: object) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS c.one (s VARCHAR(5))")
        cur.execute("DELETE FROM c.one")
        cur.execute("INSERT INTO c.one VALUES ('x')")
        cur.execute(f"SELECT {expr} FROM c.one")
        assert cur.fetchall() == ((value,),)
    conn.close()


def test_charset_functions_prepared(srv: ServerProcess) -> None:
    """The binary protocol (mysql-connector-python's prepared cursor) sees the same answers."""
    c2 = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", use_pure=True, autocommit=True
    )
    cur = c2.cursor(prepared=True)
    cur.execute("SELECT CHARSET('abc'), COLLATION(_latin1'abc'), COERCIBILITY(1000), COERCIBILITY(?)", ("x",))
    assert cur.fetchall() == [("utf8mb4", "latin1_swedish_ci", 5, 4)]
    c2.close()


# ------------------------------------------------------------------------------------------------ SET NAMES
def test_set_names_collate(srv: ServerProcess) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("SET NAMES utf8mb4 COLLATE utf8mb4_bin")
        cur.execute("SELECT @@character_set_client, @@character_set_connection, @@collation_connection")
        assert cur.fetchall() == (("utf8mb4", "utf8mb4", "utf8mb4_bin"),)
        cur.execute("SELECT COLLATION('a')")
        assert cur.fetchall() == (("utf8mb4_bin",),)
        cur.execute("SET NAMES 'latin1' COLLATE 'latin1_bin'")
        cur.execute("SELECT @@character_set_results, @@collation_connection")
        assert cur.fetchall() == (("latin1", "latin1_bin"),)
        with pytest.raises(pymysql.err.MySQLError) as ei:
            cur.execute("SET NAMES utf8mb4 COLLATE latin1_bin")
        assert ei.value.args == (1253, "COLLATION 'latin1_bin' is not valid for CHARACTER SET 'utf8mb4'")
        with pytest.raises(pymysql.err.MySQLError) as ei:
            cur.execute("SET NAMES utf8mb4 COLLATE nonesuch")
        assert ei.value.args == (1273, "Unknown collation: 'nonesuch'")
        cur.execute("SET NAMES utf8mb4")
        cur.execute("SELECT @@collation_connection")
        assert cur.fetchall() == (("utf8mb4_0900_ai_ci",),)
    conn.close()


# ------------------------------------------------------------------------------------------------ types, literals
def test_long_type_synonyms(srv: ServerProcess) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE c.longs (a LONG, b LONG VARCHAR, c LONG VARBINARY, d LONG BYTE,"
            " e LONG CHAR VARYING CHARACTER SET latin1)"
        )
        cur.execute(
            "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS"
            " WHERE TABLE_SCHEMA = 'c' AND TABLE_NAME = 'longs' ORDER BY ORDINAL_POSITION"
        )
        assert cur.fetchall() == (
            ("a", "mediumtext"),
            ("b", "mediumtext"),
            ("c", "mediumblob"),
            ("d", "mediumblob"),
            ("e", "mediumtext"),
        )
        text = "x" * 70000  # more than a TEXT holds
        cur.execute(
            "INSERT INTO c.longs VALUES (%s, %s, %s, %s, 'l')", (text, text, b"\xff" * 70000, b"\x00")
        )
        cur.execute("SELECT LENGTH(a), LENGTH(b), LENGTH(c), d FROM c.longs")
        assert cur.fetchall() == ((70000, 70000, 70000, b"\x00"),)
        cur.execute("ALTER TABLE c.longs ADD COLUMN f LONG")
        cur.execute("SHOW CREATE TABLE c.longs")
        assert "`f` mediumtext" in cur.fetchone()[1]
    conn.close()


#: 'D HH:MM:SS' and its shorter forms (RM "Date and Time Literals": D is days, 0 to 34)
TIME_LITERALS = [
    ("'1 10:11:12'", dt.timedelta(days=1, hours=10, minutes=11, seconds=12)),
    ("'34 22:59:59'", dt.timedelta(hours=838, minutes=59, seconds=59)),
    ("'2 3'", dt.timedelta(days=2, hours=3)),
    ("'0 1:2:3'", dt.timedelta(hours=1, minutes=2, seconds=3)),
]


@pytest.mark.parametrize(("literal", "value"), TIME_LITERALS, ids=[lit for lit, _ in TIME_LITERALS])
def test_day_time_literals(srv: ServerProcess, literal: str, value: dt.timedelta) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS c.times (t TIME)")
        cur.execute("DELETE FROM c.times")
        cur.execute(f"INSERT INTO c.times VALUES ({literal})")
        cur.execute(f"SELECT t, CAST({literal} AS TIME) FROM c.times")
        assert cur.fetchall() == ((value, value),)
    conn.close()


def test_decimal_65_digits_both_protocols(srv: ServerProcess) -> None:
    values = [
        "12345678901234567890123456789012345.123456789012345678901234567890",
        "-99999999999999999999999999999999999.999999999999999999999999999999",
    ]
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE c.wide (id INT PRIMARY KEY, d DECIMAL(65,30), e DECIMAL(65,0))")
        cur.execute(
            "INSERT INTO c.wide VALUES (1, %s, 10 * 1e0), (2, %s, '99999999999999999999999999999999999999999999999999999999999999999')",
            tuple(values),
        )
        cur.execute("SELECT d FROM c.wide ORDER BY id")
        assert cur.fetchall() == tuple((Decimal(v),) for v in values)
        assert cur.description[0][1] == 246
    conn.close()
    c2 = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", use_pure=True, autocommit=True
    )
    cur2 = c2.cursor(prepared=True)
    cur2.execute("SELECT d, e FROM c.wide WHERE id = ?", (2,))
    assert cur2.fetchall() == [(Decimal(values[1]), Decimal("9" * 65))]
    c2.close()


#: DECIMAL literals of up to 65 digits keep every digit (RM "Fixed-Point Types", "Numeric Literals": an exact-value
#: literal is a DECIMAL), with or without a table, negated or not
WIDE_LITERALS = [
    "12345678901234567890123456789012345678901234567890.5",
    "-12345678901234567890.123456789012345678901234567890",
    "123456789012345678901234567890",
]


@pytest.mark.parametrize(
    "literal", WIDE_LITERALS, ids=["51-digits", "negative-50-digits", "30-digit-integer"]
)
def test_wide_decimal_literals(srv: ServerProcess, literal: str) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS c.single (a INT)")
        cur.execute("DELETE FROM c.single")
        cur.execute("INSERT INTO c.single VALUES (1)")
        for sql in (f"SELECT {literal}", f"SELECT {literal} FROM c.single"):
            cur.execute(sql)
            assert cur.fetchall() == ((Decimal(literal),),), sql
            assert cur.description[0][1] == 246
    conn.close()


# ------------------------------------------------------------------------------------------------ ill-formed text
def test_bytes_not_in_the_client_set(srv: ServerProcess) -> None:
    """Bytes that are no character of character_set_client: a BLOB stores them as sent, a text column refuses them
    with MySQL's 1366 (strict mode; the message shows up to 6 bytes from the first bad one) - never an internal
    error."""
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE c.ill (id INT PRIMARY KEY, s VARCHAR(10), b BLOB)")
    conn.query(b"INSERT INTO c.ill (id, b) VALUES (1, 'x\xf0\x9f\x98\xff')")
    with pytest.raises(pymysql.err.MySQLError) as ei:
        conn.query(b"INSERT INTO c.ill (id, s) VALUES (2, 'x\xf0\x9f\x98')")
    assert ei.value.args == (1366, "Incorrect string value: '\\xF0\\x9F\\x98' for column 's' at row 1")
    with conn.cursor() as cur:
        cur.execute("SELECT id, s, b FROM c.ill")
        assert cur.fetchall() == ((1, None, b"x\xf0\x9f\x98\xff"),)
    conn.close()


def test_utf8mb3_client_sending_4_byte_characters(srv: ServerProcess) -> None:
    """A utf8mb3 connection cannot send U+1F600: its 4 bytes are no utf8mb3 character, so a utf8mb4 column refuses
    them with 1366 ("Incorrect string value: '\\xF0\\x9F\\x98\\x80'", the classic emoji error) and a BLOB keeps the
    bytes; over a utf8mb4 connection the same bytes are the character."""
    conn = _pymysql(srv, charset="utf8mb3")
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE c.emoji (id INT PRIMARY KEY, s VARCHAR(10) CHARACTER SET utf8mb4, b BLOB)")
        with pytest.raises(pymysql.err.MySQLError) as ei:
            cur.execute("INSERT INTO c.emoji (id, s) VALUES (1, 'a\U0001f600')")
        assert ei.value.args == (
            1366,
            "Incorrect string value: '\\xF0\\x9F\\x98\\x80' for column 's' at row 1",
        )
        cur.execute("INSERT INTO c.emoji (id, b) VALUES (2, 'a\U0001f600')")
    conn.close()
    conn = _pymysql(srv, charset="utf8mb4")
    with conn.cursor() as cur:
        cur.execute("INSERT INTO c.emoji (id, s) VALUES (3, 'a\U0001f600')")
        cur.execute("SELECT id, s, b FROM c.emoji ORDER BY id")
        assert cur.fetchall() == ((2, None, "a\U0001f600".encode()), (3, "a\U0001f600", None))
    conn.close()
