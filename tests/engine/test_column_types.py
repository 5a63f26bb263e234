"""Numeric and temporal column types in the engine: DDL, range errors, order and equality at rest (issue 18 section 2).

Expected values come from MySQL's manual and mysql-test, cited per table:

- [INT] RM8 13.1.2 "Integer Types": BIGINT UNSIGNED 0 .. 18446744073709551615; out of range is 1264 in strict mode,
  the nearest bound with a warning otherwise (RM8 13.1.7 "Out-of-Range and Overflow Handling");
- [BIT] RM8 13.1.5 "Bit-Value Type": BIT(M), M 1..64 (ER_TOO_BIG_DISPLAYWIDTH 1439 above), ``b'value'`` literals;
  a value too wide is ER_DATA_TOO_LONG 1406 in strict mode and the all-ones value with 1264 otherwise
  (``Field_bit::store``);
- [ZF] RM8 13.1.6 "Numeric Data Type Attributes": ZEROFILL implies UNSIGNED and pads to the display width, which
  SHOW CREATE TABLE keeps for ZEROFILL columns only (8.0.19 release notes);
- [FLT] RM8 13.1.4: FLOAT(p) is FLOAT for p 0..24 and DOUBLE for 25..53;
- [TIME] RM8 13.2.3 "The TIME Type": -838:59:59 .. 838:59:59, 'D hh:mm:ss' and HHMMSS forms, clipped to the range
  with 1264; RM8 13.2.6 "Fractional Seconds in Time Values": rounded to the column's fsp;
- [YEAR] RM8 13.2.4 "The YEAR Type".
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from gtidkit.binlog.events.rows import TableMapEvent
from gtidkit.engine import Server
from gtidkit.engine.apply import read_transactions
from gtidkit.engine.results import ColumnFlag, FieldType
from gtidkit.errors import MySQLError


@pytest.fixture
def s(open_server):
    session = open_server().session()
    session.execute("CREATE DATABASE test")
    session.execute("USE test")
    yield session
    session.close()


def rows(s, sql: str) -> list[tuple]:
    return s.execute(sql)[-1].rows


def error(s, sql: str) -> tuple[int, str]:
    with pytest.raises(MySQLError) as e:
        s.execute(sql)
    return e.value.code, e.value.message


U64 = 18446744073709551615
BIG = [U64, 2**63, 2**63 - 1, 5, 0, U64 - 1]


def _bigint_table(s, key: str = "PRIMARY KEY") -> None:
    s.execute(f"CREATE TABLE u (a BIGINT UNSIGNED {key}, b INT)")
    s.execute("INSERT INTO u VALUES " + ", ".join(f"({v}, {i})" for i, v in enumerate(BIG)))


# [INT] order and equality over the whole range: as a primary key, a secondary index and a plain column
@pytest.mark.parametrize("key", ["PRIMARY KEY", "UNIQUE", ""], ids=["primary", "unique", "plain"])
@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("a = 18446744073709551615", [U64]),
        ("a = 9223372036854775808", [2**63]),
        ("a > 9223372036854775807", [2**63, U64 - 1, U64]),
        ("a >= 9223372036854775807", [2**63 - 1, 2**63, U64 - 1, U64]),
        ("a < 18446744073709551614", [0, 5, 2**63 - 1, 2**63]),
        ("a BETWEEN 5 AND 9223372036854775808", [5, 2**63 - 1, 2**63]),
        ("a IN (0, 18446744073709551615)", [0, U64]),
        ("a <> 18446744073709551615", [0, 5, 2**63 - 1, 2**63, U64 - 1]),
    ],
)
def test_bigint_unsigned_order_and_equality(s, key: str, where: str, expected: list[int]) -> None:
    _bigint_table(s, key)
    assert rows(s, f"SELECT a FROM u WHERE {where} ORDER BY a") == [(v,) for v in expected]


def test_bigint_unsigned_aggregates_dml_and_keys(s) -> None:
    _bigint_table(s)
    assert rows(s, "SELECT a FROM u ORDER BY a DESC LIMIT 2") == [(U64,), (U64 - 1,)]
    assert rows(s, "SELECT MIN(a), MAX(a), COUNT(DISTINCT a), SUM(a) FROM u") == [
        (0, U64, 6, Decimal(sum(BIG)))
    ]
    assert rows(s, "SELECT a + 0, a - 1 FROM u WHERE a = 18446744073709551615") == [(U64, U64 - 1)]
    s.execute("UPDATE u SET b = 99 WHERE a = 18446744073709551615")
    s.execute("UPDATE u SET a = a - 10 WHERE a = 9223372036854775808")
    s.execute("DELETE FROM u WHERE a = 18446744073709551614")
    assert rows(s, "SELECT a, b FROM u WHERE a > 9000000000000000000 ORDER BY a") == [
        (2**63 - 10, 1),
        (2**63 - 1, 2),
        (U64, 99),
    ]
    assert error(s, "INSERT INTO u VALUES (18446744073709551615, 1)") == (
        1062,
        "Duplicate entry '18446744073709551615' for key 'u.PRIMARY'",
    )


@pytest.mark.parametrize(
    ("ctype", "literal", "stored", "err"),
    [
        ("BIGINT UNSIGNED", "18446744073709551616", U64, 1264),
        ("BIGINT UNSIGNED", "-1", 0, 1264),
        ("INT UNSIGNED", "4294967296", 4294967295, 1264),
        ("TINYINT", "-129", -128, 1264),
        ("BIT(6)", "64", b"\x3f", 1406),  # strict: 1406; otherwise the all-ones value with 1264
        ("BIT(8)", "'ab'", b"\xff", 1406),
        ("TIME", "'839:00:00'", "838:59:59", 1264),
        ("TIME", "'-900:00:00'", "-838:59:59", 1264),
        ("TIME(2)", "'-838:59:59.999'", "-838:59:59.00", 1264),
    ],
    ids=lambda v: str(v)[:24],
)
def test_out_of_range_is_an_error_then_clipped_with_a_warning(
    s, ctype: str, literal: str, stored: Any, err: int
) -> None:
    s.execute(f"CREATE TABLE t (v {ctype})")
    assert error(s, f"INSERT INTO t VALUES ({literal})")[0] == err
    s.execute("SET sql_mode = ''")
    res = s.execute(f"INSERT INTO t VALUES ({literal})")[-1]
    assert [w.code for w in res.warnings] == [1264]
    assert rows(s, "SELECT v FROM t") == [(stored,)]


# [BIT] [ZF] [FLT] [TIME] [YEAR]: the value a client receives (text protocol), one line per case
@pytest.mark.parametrize(
    ("ctype", "literal", "sent"),
    [
        ("BIT(6)", "b'100010'", b'"'),
        ("BIT(6)", "0b000101", b"\x05"),
        ("BIT(12)", "x'0abc'", b"\x0a\xbc"),
        ("BIT(64)", "-1", b"\xff" * 8),
        ("BIT", "TRUE", b"\x01"),
        ("INT(4) ZEROFILL", "5", "0005"),
        ("INT(4) ZEROFILL", "123456", "123456"),
        ("SMALLINT ZEROFILL", "7", "00007"),
        ("DECIMAL(6,2) ZEROFILL", "1.5", "0001.50"),
        ("FLOAT(7,3)", "1.2345", 1.235),
        ("TIME", "0", "00:00:00"),
        ("TIME", "'-1 00:00:01'", "-24:00:01"),
        ("TIME", "'10:11'", "10:11:00"),
        ("TIME", "235959", "23:59:59"),
        ("TIME(1)", "'-00:00:00.96'", "-00:00:01.0"),
        ("TIME(6)", "'-838:59:59.000000'", "-838:59:59.000000"),
        ("YEAR", "'00'", "2000"),
        ("YEAR", "'0000'", "0000"),
        ("YEAR", "70", "1970"),
        ("DATETIME(2)", "'2024-12-31 23:59:59.996'", "2025-01-01 00:00:00.00"),
        ("TIMESTAMP(3)", "'2024-01-02 03:04:05.1235'", "2024-01-02 03:04:05.124"),
    ],
    ids=lambda v: str(v)[:24],
)
def test_value_sent(s, ctype: str, literal: str, sent: Any) -> None:
    s.execute("SET time_zone = '+00:00'")
    s.execute(f"CREATE TABLE t (v {ctype})")
    s.execute(f"INSERT INTO t VALUES ({literal})")
    assert rows(s, "SELECT v FROM t") == [(sent,)]


@pytest.mark.parametrize(
    ("ctype", "shown", "field_type", "length", "flags"),
    [
        ("BIT(6)", "bit(6)", FieldType.MYSQL_TYPE_BIT, 6, ColumnFlag.UNSIGNED),
        ("BIT", "bit(1)", FieldType.MYSQL_TYPE_BIT, 1, ColumnFlag.UNSIGNED),
        ("INT(5) ZEROFILL", "int(5) unsigned zerofill", FieldType.MYSQL_TYPE_LONG, 5, ColumnFlag.ZEROFILL),
        ("INT ZEROFILL", "int(10) unsigned zerofill", FieldType.MYSQL_TYPE_LONG, 10, ColumnFlag.ZEROFILL),
        ("INT(5)", "int", FieldType.MYSQL_TYPE_LONG, 11, 0),
        ("BOOL", "tinyint(1)", FieldType.MYSQL_TYPE_TINY, 1, 0),
        ("BIGINT UNSIGNED", "bigint unsigned", FieldType.MYSQL_TYPE_LONGLONG, 20, ColumnFlag.UNSIGNED),
        ("FLOAT(24)", "float", FieldType.MYSQL_TYPE_FLOAT, 12, 0),
        ("FLOAT(25)", "double", FieldType.MYSQL_TYPE_DOUBLE, 22, 0),
        ("TIME(3)", "time(3)", FieldType.MYSQL_TYPE_TIME, 14, 0),
    ],
    ids=lambda v: str(v)[:24],
)
def test_ddl_and_result_metadata(s, ctype: str, shown: str, field_type: int, length: int, flags: int) -> None:
    s.execute(f"CREATE TABLE t (v {ctype})")
    assert rows(s, "SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_NAME = 't'") == [(shown,)]
    assert f"  `v` {shown} DEFAULT NULL" in rows(s, "SHOW CREATE TABLE t")[0][1].splitlines()
    col = s.execute("SELECT v FROM t")[0].columns[0]
    assert (col.type, col.length, col.flags & flags) == (field_type, length, flags)


@pytest.mark.parametrize(
    ("ddl", "err"),
    [
        ("CREATE TABLE t (v BIT(65))", (1439, "Display width out of range for column 'v' (max = 64)")),
        ("CREATE TABLE t (v FLOAT(54))", (1063, "Incorrect column specifier for column 'v'")),
    ],
    ids=["bit65", "float54"],
)
def test_ddl_errors(s, ddl: str, err: tuple[int, str]) -> None:
    assert error(s, ddl) == err


def test_time_default_0(s) -> None:
    s.execute(
        "CREATE TABLE t (id INT PRIMARY KEY, v TIME DEFAULT 0, w TIME(6) NOT NULL DEFAULT '-00:00:00.5')"
    )
    s.execute("INSERT INTO t (id) VALUES (1)")
    assert rows(s, "SELECT v, w FROM t") == [("00:00:00", "-00:00:00.500000")]
    assert "  `v` time DEFAULT '00:00:00'," in rows(s, "SHOW CREATE TABLE t")[0][1].splitlines()


# -- the applier on real MySQL 8.0 binlogs (INDEX.md) ----------------------------------------------------------------
def _apply_file(srv, path) -> None:
    # the fixture's server was initialized with root@localhost, which its ALTER USER changes (1396 without it)
    with srv.session() as s:
        s.execute("CREATE USER 'root'@'localhost'")
    ap = srv.applier_session()
    for trx in read_transactions(path):
        assert ap.apply(trx) is True


def test_applier_reads_mysql_80_bit_columns(tmp_path, binlog_fixtures) -> None:
    """8.0.26 ``mysql_type_bit.000001``: ``CREATE TABLE foo(a BIT(3), b TEXT, c BIT(8))`` and one row whose image
    holds a = 0b100 and c = 0x20 (its Table_map metadata: BIT(3) ``03 00``, BIT(8) ``00 01``)."""
    with Server.open(tmp_path / "b", log_bin=False, gtid_mode="ON") as srv:
        _apply_file(srv, binlog_fixtures / "blackbeam__rust_mysql_common" / "mysql_type_bit.000001")
        db = next(r[0] for r in rows(srv.session(), "SELECT TABLE_SCHEMA FROM information_schema.TABLES "
                                      "WHERE TABLE_NAME = 'foo'"))  # fmt: skip
        assert rows(srv.session(), f"SELECT a, b, c FROM `{db}`.foo") == [(b"\x04", "foo", b" ")]


def test_applier_reads_a_mysql_80_negative_time(tmp_path, binlog_fixtures) -> None:
    """8.0.40 ``time_issue.000001``: one TIME (fsp 0) row image ``60 43 e5``: 0x6043e5 - 0x800000 = -2079771, which
    ``TIME_from_longlong_time_packed`` reads as hour 507, minute 48, second 27, negative."""
    path = binlog_fixtures / "blackbeam__rust_mysql_common" / "time_issue.000001"
    trx = next(iter(read_transactions(path)))
    table_map = next(e.event for e in trx.events if isinstance(e.event, TableMapEvent))
    # an anonymous transaction (the fixture's GTID mode is OFF) needs gtid_mode below ON here too
    with Server.open(tmp_path / "b", log_bin=False, gtid_mode="OFF") as srv, srv.session() as s:
        s.execute(f"CREATE DATABASE `{table_map.database}`")
        s.execute(f"CREATE TABLE `{table_map.database}`.t (v TIME)")
        assert srv.applier_session().apply(trx) is True
        assert rows(s, f"SELECT v FROM `{table_map.database}`.t") == [("-507:48:27",)]


# RM8 7.1.11 "Server SQL Modes", NO_ZERO_DATE / NO_ZERO_IN_DATE (both in 8.0's default mode, with strict mode):
# refused in strict mode (1292), the zero date with warning 1264 under IGNORE, and kept as written without the modes
STRICT = "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO"


@pytest.mark.parametrize(
    ("mode", "insert", "ctype", "literal", "outcome", "warnings"),
    [
        (STRICT, "INSERT", "DATE", "'0000-00-00'", 1292, []),
        (STRICT, "INSERT", "DATE", "'2024-00-15'", 1292, []),
        (STRICT, "INSERT", "DATETIME", "'2024-02-00 10:00:00'", 1292, []),
        (STRICT, "INSERT IGNORE", "DATE", "'2024-02-00'", "0000-00-00", [1264]),
        (STRICT, "INSERT IGNORE", "DATETIME(2)", "'0000-00-00'", "0000-00-00 00:00:00.00", [1264]),
        ("", "INSERT", "DATE", "'2024-00-15'", "2024-00-15", []),
        ("", "INSERT", "DATETIME(1)", "'2024-02-00 10:00:00.25'", "2024-02-00 10:00:00.2", []),
        ("", "INSERT", "DATE", "'0000-00-00'", "0000-00-00", []),
        ("STRICT_TRANS_TABLES", "INSERT", "DATE", "'0000-00-00'", "0000-00-00", []),
        ("NO_ZERO_DATE", "INSERT", "DATE", "'0000-00-00'", "0000-00-00", [1264]),
        ("", "INSERT", "TIMESTAMP", "'2024-02-00 10:00:00'", "0000-00-00 00:00:00", [1265]),
    ],
    ids=lambda v: str(v)[:20],
)
def test_zero_and_partial_dates_follow_sql_mode(
    s, mode: str, insert: str, ctype: str, literal: str, outcome: Any, warnings: list[int]
) -> None:
    s.execute(f"CREATE TABLE t (v {ctype})")
    s.execute(f"SET sql_mode = '{mode}'")
    if isinstance(outcome, int):
        assert error(s, f"{insert} INTO t VALUES ({literal})")[0] == outcome
        return
    res = s.execute(f"{insert} INTO t VALUES ({literal})")[-1]
    assert [w.code for w in res.warnings] == warnings
    assert rows(s, "SELECT v FROM t") == [(outcome,)]


# [TIME]: ordered and compared as durations (negative values, hours above 99), with and without an index
@pytest.mark.parametrize("key", ["KEY (v)", ""], ids=["indexed", "plain"])
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SELECT id FROM t ORDER BY v", [7, 1, 5, 2, 6, 3, 4]),
        ("SELECT id FROM t WHERE v > '-01:00:00' AND v < '10:00:00' ORDER BY v", [2, 6, 3]),
        ("SELECT id FROM t WHERE v = '9:00'", [3]),
        ("SELECT id FROM t WHERE v >= 90000 ORDER BY v DESC", [4, 3]),
        ("SELECT MIN(v), MAX(v) FROM t", [("-838:59:59.0", "100:00:00.0")]),
    ],
    ids=["order", "range", "equal", "number", "min-max"],
)
def test_time_orders_as_a_duration(s, key: str, query: str, expected: list[Any]) -> None:
    s.execute(f"CREATE TABLE t (id INT PRIMARY KEY, v TIME(1){', ' + key if key else ''})")
    s.execute(
        "INSERT INTO t VALUES (1, '-838:59:59'), (2, '-00:00:00.5'), (3, '09:00:00'), (4, '100:00:00'), "
        "(5, '-01:00:00'), (6, '00:00:00'), (7, NULL)"
    )
    got = rows(s, query)
    assert got == [e if isinstance(e, tuple) else (e,) for e in expected]


def test_bit_and_year_defaults_in_show_create_table(s) -> None:
    # SHOW CREATE TABLE prints a BIT default as b'...' and a YEAR in four digits (mysql-test type_bit.result:
    # `a` bit(1) DEFAULT b'1'; type_year.result)
    s.execute("CREATE TABLE t (b BIT(6) DEFAULT b'101', c BIT(8) DEFAULT x'41', y YEAR DEFAULT 0, id INT)")
    lines = rows(s, "SHOW CREATE TABLE t")[0][1].splitlines()
    assert lines[1:4] == [
        "  `b` bit(6) DEFAULT b'101',",
        "  `c` bit(8) DEFAULT b'1000001',",
        "  `y` year DEFAULT '0000',",
    ]
    s.execute("INSERT INTO t (id) VALUES (1)")
    assert rows(s, "SELECT b, c, y FROM t") == [(b"\x05", b"A", "0000")]


def test_applier_reads_mysql_unsigned_and_wide_decimals(tmp_path, binlog_fixtures) -> None:
    """Real row images: 8.0.40 ``minimal_row_metadata.000001`` (INT UNSIGNED 3230202323, signed per its SIGNEDNESS
    metadata) and 5.6.16 ``tcb-eval002c-bin.003320`` (go-mysql's decodedecimal table: -10.55 stored in DECIMAL(4,2)
    .. DECIMAL(30,25), clipped to DECIMAL(15,14)'s -9.99999999999999). The tables are not in those files; they are
    created from the Table_maps' types."""
    ddl = {
        "noria.t1": "(a INT, b TEXT, c CHAR(2), d INT, e INT UNSIGNED)",
        "test.decodedecimal": "(id INT, "
        + ", ".join(
            f"d{i} DECIMAL({p},{s})"
            for i, (p, s) in enumerate(
                [
                    (4, 2),
                    (5, 0),
                    (7, 3),
                    (10, 2),
                    (10, 3),
                    (13, 2),
                    (15, 14),
                    (20, 10),
                    (30, 5),
                    (30, 20),
                    (30, 25),
                ]
            )
        )
        + ", p INT, s INT)",
    }
    with Server.open(tmp_path / "b", log_bin=False, gtid_mode="OFF") as srv, srv.session() as s:
        for name, cols in ddl.items():
            s.execute(f"CREATE DATABASE IF NOT EXISTS {name.split('.')[0]}")
            s.execute(f"CREATE TABLE {name} {cols}")
        for path in (
            binlog_fixtures / "blackbeam__rust_mysql_common" / "minimal_row_metadata.000001",
            binlog_fixtures / "go-mysql-org__go-mysql" / "tcb-eval002c-bin.003320",
        ):
            for trx in read_transactions(path):
                assert srv.applier_session().apply(trx) is True
        assert rows(s, "SELECT * FROM noria.t1") == [(1, None, "a", None, 3230202323)]
        first = rows(s, "SELECT * FROM test.decodedecimal WHERE id = 1")[0]
        assert [str(v) for v in first[1:12]] == [
            "-10.55", "-11", "-10.550", "-10.55", "-10.550", "-10.55", "-9.99999999999999", "-10.5500000000",
            "-10.55000", "-10.55000000000000000000", "-10.5500000000000000000000000",
        ]  # fmt: skip
        assert rows(s, "SELECT d10 FROM test.decodedecimal WHERE id = 2") == [
            (Decimal("0.0123456789012345678912345"),)
        ]


# RM8 14.10 "Cast Functions and Operators": CAST(expr AS UNSIGNED) is a BIGINT UNSIGNED; "CAST(1-2 AS UNSIGNED)"
# is 18446744073709551615 (the manual's example), a fraction is rounded
@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("CAST(1 - 2 AS UNSIGNED)", U64),
        ("CAST(-2 AS UNSIGNED) + 0", U64 - 1),
        ("CAST('18446744073709551615' AS UNSIGNED)", U64),
        ("CAST(1.5 AS UNSIGNED)", 2),
        ("CAST(i AS UNSIGNED)", U64),
    ],
    ids=lambda v: str(v)[:24],
)
def test_cast_as_unsigned(s, expr: str, value: int) -> None:
    s.execute("CREATE TABLE t (u BIGINT UNSIGNED, i INT)")
    s.execute(f"INSERT INTO t VALUES ({expr.replace('i AS', '-1 AS')}, -1)")
    res = s.execute(f"SELECT {expr}, u FROM t")[0]
    assert res.rows == [(value, value)]
    assert res.columns[0].type == FieldType.MYSQL_TYPE_LONGLONG
