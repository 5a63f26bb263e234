"""``sql_mode`` strict vs non-strict value conversion in INSERT / UPDATE / REPLACE.

Expected values come from MySQL, never from our output:

- ``strict.result``: mysql/mysql-server ``mysql-test/r/strict.result`` (8.0 tree, commit 9476e174), which runs
  each bad value once in strict mode (the error) and once with INSERT IGNORE (the warnings and stored values; IGNORE
  converts as non-strict mode does).
- the manual, "Server SQL Modes" (strict mode: "If strict mode is not in effect, MySQL inserts adjusted values for
  invalid or missing values and produces warnings") and "Constraints on Invalid Data" (out of range -> the closest
  bound; a string not starting with a number -> 0; NULL into NOT NULL is an error for a single-row INSERT and the
  implicit default for a multiple-row INSERT or INSERT ... SELECT; a missing column without DEFAULT -> the implicit
  default).
- the OK packet's info strings are MySQL's ER_INSERT_INFO ``Records: %ld  Duplicates: %ld  Warnings: %ld`` and
  ER_UPDATE_INFO ``Rows matched: %ld  Changed: %ld  Warnings: %ld`` (``share/messages_to_clients.txt``).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from gtidkit.engine.sql.sql_mode import parse_sql_mode
from gtidkit.errors import MySQLError


@pytest.fixture
def s(open_server):
    srv = open_server()
    with srv.session() as sess:
        sess.execute("CREATE DATABASE test; USE test")
        yield sess


def one(s, sql):
    (res,) = s.execute(sql)
    return res


def rows(s, sql):
    return one(s, sql).rows


def warnings(s):
    return rows(s, "SHOW WARNINGS")


def error(s, sql):
    with pytest.raises(MySQLError) as ei:
        s.execute(sql)
    return ei.value.code, ei.value.message


# ------------------------------------------------------------------------------------------------ sql_mode parsing
@pytest.mark.parametrize(
    ("text", "strict"),
    [
        (
            "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO",
            True,
        ),
        ("strict_all_tables", True),
        ("TRADITIONAL", True),  # manual "Combination SQL Modes": TRADITIONAL includes both STRICT modes
        ("ANSI", False),
        ("", False),
        (None, False),
        ("NO_ENGINE_SUBSTITUTION", False),
    ],
    ids=["default", "all_tables_lower", "traditional", "ansi", "empty", "none", "no_strict"],
)
def test_strictness_of_sql_mode(text, strict):
    assert parse_sql_mode(text).strict is strict


def test_default_sql_mode_is_mysql_8(s):
    # manual "Server SQL Modes": the MySQL 8.4 default
    default = (
        "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
        "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
    )
    assert rows(s, "SELECT @@sql_mode") == [(default,)]


# ------------------------------------------------------------------------------------------------ the brief's case
def test_incorrect_integer_strict_is_error_non_strict_is_zero_with_warning(s):
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    # strict.result: INSERT INTO t1 (col1) VALUES ('a59b') -> ERROR HY000 Incorrect integer value
    assert error(s, "INSERT INTO t (id, v) VALUES (10, 'abc')") == (
        1366,
        "Incorrect integer value: 'abc' for column 'v' at row 1",
    )
    s.execute("SET sql_mode=''")
    res = one(s, "INSERT INTO t (id, v) VALUES (10, 'abc')")
    # manual "Constraints on Invalid Data": a string that does not start with a number stores 0
    assert (res.affected_rows, res.warning_count, res.info) == (1, 1, "")
    assert warnings(s) == [("Warning", 1366, "Incorrect integer value: 'abc' for column 'v' at row 1")]
    assert rows(s, "SELECT * FROM t") == [(10, 0)]


def test_integer_trailing_garbage_keeps_the_prefix(s):
    s.execute("CREATE TABLE t1 (col1 INT)")
    # strict.result: INSERT INTO t1 (col1) VALUES ('1a') -> ERROR 01000 Data truncated
    assert error(s, "INSERT INTO t1 (col1) VALUES ('1a')") == (
        1265,
        "Data truncated for column 'col1' at row 1",
    )
    # strict.result: INSERT IGNORE INTO t1 (col1) VALUES ('2a') -> Warning 1265, the row holds 2
    one(s, "INSERT IGNORE INTO t1 (col1) VALUES ('2a')")
    assert warnings(s) == [("Warning", 1265, "Data truncated for column 'col1' at row 1")]
    s.execute("SET sql_mode=''")
    one(s, "INSERT INTO t1 (col1) VALUES ('12abc')")
    assert warnings(s) == [("Warning", 1265, "Data truncated for column 'col1' at row 1")]
    assert rows(s, "SELECT col1 FROM t1") == [(2,), (12,)]


# ------------------------------------------------------------------------------------------------ out of range
def test_int_out_of_range_clips_per_row(s):
    s.execute("CREATE TABLE t1 (col1 INT, col2 INT UNSIGNED)")
    # strict.result: INSERT INTO t1 (col1) VALUES(-2147483649) -> ERROR 22003
    assert error(s, "INSERT INTO t1 (col1) VALUES (-2147483649)") == (
        1264,
        "Out of range value for column 'col1' at row 1",
    )
    # strict.result: INSERT IGNORE INTO t1 values (-2147483649, -1),(2147643648,4294967296) -> four warnings 1264;
    # the final SELECT shows (-2147483648, 0) and (2147483647, 4294967295)
    res = one(s, "INSERT IGNORE INTO t1 VALUES (-2147483649, -1),(2147643648,4294967296)")
    assert (res.affected_rows, res.warning_count) == (2, 4)
    assert res.info == "Records: 2  Duplicates: 0  Warnings: 4"
    assert warnings(s) == [
        ("Warning", 1264, "Out of range value for column 'col1' at row 1"),
        ("Warning", 1264, "Out of range value for column 'col2' at row 1"),
        ("Warning", 1264, "Out of range value for column 'col1' at row 2"),
        ("Warning", 1264, "Out of range value for column 'col2' at row 2"),
    ]
    assert rows(s, "SELECT * FROM t1") == [(-2147483648, 0), (2147483647, 4294967295)]


def test_bigint_out_of_range_clips(s):
    s.execute("CREATE TABLE t1 (col1 BIGINT)")
    s.execute("SET sql_mode=''")
    # strict.result: INSERT IGNORE ... VALUES(-9223372036854775809, ...),(9223372036854775808, ...) -> 1264 per
    # row; -9223372036854775808 and 9223372036854775807 stored
    res = one(s, "INSERT INTO t1 VALUES (-9223372036854775809), (9223372036854775808)")
    assert res.info == "Records: 2  Duplicates: 0  Warnings: 2"
    assert rows(s, "SELECT * FROM t1") == [(-9223372036854775808,), (9223372036854775807,)]


def test_bigint_bounds_are_valid_values(s):
    s.execute("CREATE TABLE t1 (col1 BIGINT)")
    # strict.result: INSERT INTO t1 VALUES(-9223372036854775808,0),(0,0),(9223372036854775807,...) and the same
    # values quoted succeed in strict mode; -9223372036854775809 is ERROR 22003
    one(s, "INSERT INTO t1 VALUES (-9223372036854775808), (0), (9223372036854775807)")
    one(s, "INSERT INTO t1 VALUES ('-9223372036854775808'), ('9223372036854775807')")
    assert error(s, "INSERT INTO t1 (col1) VALUES (-9223372036854775809)") == (
        1264,
        "Out of range value for column 'col1' at row 1",
    )
    assert rows(s, "SELECT col1 FROM t1 WHERE col1 = -9223372036854775808") == [(-9223372036854775808,)] * 2
    one(s, "UPDATE t1 SET col1 = -9223372036854775808 WHERE col1 = 0")
    assert rows(s, "SELECT COUNT(*) FROM t1 WHERE col1 = -9223372036854775808") == [(3,)]


def test_int_out_of_range_with_sql_mode_empty(s):
    s.execute("CREATE TABLE t1 (col1 TINYINT, col2 TINYINT UNSIGNED)")
    s.execute("SET sql_mode=''")
    # strict.result (TINYINT): INSERT IGNORE VALUES('-129','-1'),('128','256') -> 1264 x4; -128/0 and 127/255
    res = one(s, "INSERT INTO t1 VALUES ('-129','-1'),('128','256')")
    assert res.info == "Records: 2  Duplicates: 0  Warnings: 4"
    assert [w[:2] for w in warnings(s)] == [("Warning", 1264)] * 4
    assert rows(s, "SELECT * FROM t1") == [(-128, 0), (127, 255)]


def test_decimal_rounding_note_range_and_garbage(s):
    s.execute("CREATE TABLE t1 (col1 NUMERIC(4,2))")
    # strict.result: INSERT INTO t1 VALUES (10.55),(10.5555),(0),(-10.55),(-10.5555),(11) -> Notes 1265 at rows
    # 2 and 5 even in strict mode; 10.5555 is stored as 10.56
    res = one(s, "INSERT INTO t1 VALUES (10.55),(10.5555),(0),(-10.55),(-10.5555),(11)")
    assert warnings(s) == [
        ("Note", 1265, "Data truncated for column 'col1' at row 2"),
        ("Note", 1265, "Data truncated for column 'col1' at row 5"),
    ]
    assert res.info == "Records: 6  Duplicates: 0  Warnings: 2"
    # strict.result: INSERT INTO t1 (col1) VALUES ('1a') -> ERROR HY000 Incorrect decimal value
    assert error(s, "INSERT INTO t1 (col1) VALUES ('1a')") == (
        1366,
        "Incorrect decimal value: '1a' for column 'col1' at row 1",
    )
    s.execute("DELETE FROM t1")
    # strict.result: INSERT IGNORE ('2a') -> Note 1265 (2.00); INSERT IGNORE (1000),(-1000) -> 1264 x2 (99.99,
    # -99.99)
    one(s, "INSERT IGNORE INTO t1 (col1) VALUES ('2a')")
    assert warnings(s) == [("Note", 1265, "Data truncated for column 'col1' at row 1")]
    one(s, "INSERT IGNORE INTO t1 VALUES (1000),(-1000)")
    assert warnings(s) == [
        ("Warning", 1264, "Out of range value for column 'col1' at row 1"),
        ("Warning", 1264, "Out of range value for column 'col1' at row 2"),
    ]
    assert rows(s, "SELECT col1 FROM t1") == [(Decimal("2.00"),), (Decimal("99.99"),), (Decimal("-99.99"),)]


def test_float_out_of_range_and_garbage(s):
    s.execute("CREATE TABLE t1 (col1 FLOAT)")
    # strict.result: FLOAT ('+3.4E+39') -> ERROR 22003; ('a59b') -> ERROR 01000 Data truncated (not 1366)
    assert error(s, "INSERT INTO t1 (col1) VALUES ('+3.4E+39')")[0] == 1264
    assert error(s, "INSERT INTO t1 (col1) VALUES ('a59b')") == (
        1265,
        "Data truncated for column 'col1' at row 1",
    )
    s.execute("SET sql_mode=''")
    # strict.result: INSERT IGNORE VALUES (+3.4E+39, ...) -> 1264, the column holds FLOAT's maximum 3.40282e38
    one(s, "INSERT INTO t1 VALUES ('+3.4E+39')")
    assert warnings(s) == [("Warning", 1264, "Out of range value for column 'col1' at row 1")]
    ((v,),) = rows(s, "SELECT col1 FROM t1")
    assert f"{v:.6g}" == "3.40282e+38"


# ------------------------------------------------------------------------------------------------ strings
def test_string_too_long_truncates_with_1265(s):
    s.execute("CREATE TABLE t1 (col1 CHAR(5), col2 VARCHAR(6))")
    # strict.result: INSERT INTO t1 (col1) VALUES ('hellobob') -> ERROR 22001 Data too long
    assert error(s, "INSERT INTO t1 (col1) VALUES ('hellobob')") == (
        1406,
        "Data too long for column 'col1' at row 1",
    )
    # strict.result: INSERT INTO t1 (col2) VALUES ('hello  ') -> Note 1265 (only spaces cut), even when strict
    one(s, "INSERT INTO t1 (col2) VALUES ('hello  ')")
    assert warnings(s) == [("Note", 1265, "Data truncated for column 'col2' at row 1")]
    s.execute("SET sql_mode=''")
    # strict.result: INSERT IGNORE INTO t1 VALUES ('hellobob', 'hellobob') -> 1265 x2; 'hello', 'hellob'
    res = one(s, "INSERT INTO t1 VALUES ('hellobob', 'hellobob')")
    assert (res.affected_rows, res.warning_count) == (1, 2)
    assert warnings(s) == [
        ("Warning", 1265, "Data truncated for column 'col1' at row 1"),
        ("Warning", 1265, "Data truncated for column 'col2' at row 1"),
    ]
    assert rows(s, "SELECT col1, col2 FROM t1") == [(None, "hello "), ("hello", "hellob")]


# ------------------------------------------------------------------------------------------------ NULL / defaults
def test_null_into_not_null(s):
    s.execute("CREATE TABLE t1 (col1 INT NOT NULL, col2 CHAR(5) NOT NULL, col3 DATE NOT NULL)")
    # strict.result: INSERT ... (NULL, '', '2004-01-01') -> ERROR 23000 Column 'col1' cannot be null
    assert error(s, "INSERT INTO t1 VALUES (NULL, '', '2004-01-01')") == (
        1048,
        "Column 'col1' cannot be null",
    )
    # strict.result: INSERT IGNORE INTO t1 values (NULL,NULL,NULL) -> 1048 x3, the row (0, '', 0000-00-00)
    one(s, "INSERT IGNORE INTO t1 VALUES (NULL, NULL, NULL)")
    assert warnings(s) == [
        ("Warning", 1048, "Column 'col1' cannot be null"),
        ("Warning", 1048, "Column 'col2' cannot be null"),
        ("Warning", 1048, "Column 'col3' cannot be null"),
    ]
    s.execute("SET sql_mode=''")
    # manual "Constraints on Invalid Data": a single-row INSERT of NULL into NOT NULL stays an error ...
    assert error(s, "INSERT INTO t1 VALUES (NULL, 'a', '2004-01-01')")[0] == 1048
    # ... a multiple-row INSERT stores the implicit default with warning 1048
    res = one(s, "INSERT INTO t1 VALUES (1, 'a', '2004-01-01'), (NULL, 'b', '2004-01-02')")
    assert res.info == "Records: 2  Duplicates: 0  Warnings: 1"
    assert warnings(s) == [("Warning", 1048, "Column 'col1' cannot be null")]
    # ... and so does INSERT ... SELECT
    one(s, "INSERT INTO t1 SELECT 2, NULL, '2004-01-03'")
    assert warnings(s) == [("Warning", 1048, "Column 'col2' cannot be null")]
    assert rows(s, "SELECT * FROM t1 ORDER BY col3") == [
        (0, "", "0000-00-00"),
        (1, "a", "2004-01-01"),
        (0, "b", "2004-01-02"),
        (2, "", "2004-01-03"),
    ]


def test_missing_column_without_default(s):
    s.execute("CREATE TABLE t1 (col1 INT NOT NULL DEFAULT 99, col2 CHAR(6) NOT NULL)")
    # strict.result: INSERT INTO t1 (col1) VALUES (2) -> ERROR HY000 Field 'col2' doesn't have a default value
    assert error(s, "INSERT INTO t1 (col1) VALUES (2)") == (1364, "Field 'col2' doesn't have a default value")
    # strict.result: INSERT IGNORE INTO t1 (col1) values (3) -> Warning 1364, the row (3, '')
    one(s, "INSERT IGNORE INTO t1 (col1) VALUES (3)")
    assert warnings(s) == [("Warning", 1364, "Field 'col2' doesn't have a default value")]
    s.execute("SET sql_mode=''")
    one(s, "INSERT INTO t1 (col1) VALUES (4)")
    assert warnings(s) == [("Warning", 1364, "Field 'col2' doesn't have a default value")]
    assert rows(s, "SELECT * FROM t1") == [(3, ""), (4, "")]


# ------------------------------------------------------------------------------------------------ dates
def test_invalid_date_strict_rolls_back_statement_non_strict_stores_zero(s):
    s.execute("CREATE TABLE t1 (col1 DATE)")
    s.execute("SET sql_mode='strict_trans_tables'")
    # strict.result (engine=innodb): ('2004-1-2'), ('2004-13-31'), ('2004-1-3') -> ERROR 22007 at row 2, and the
    # final SELECT shows none of the three rows (statement rolled back)
    assert error(s, "INSERT INTO t1 VALUES ('2004-1-2'), ('2004-13-31'), ('2004-1-3')") == (
        1292,
        "Incorrect date value: '2004-13-31' for column 'col1' at row 2",
    )
    assert rows(s, "SELECT * FROM t1") == []
    # strict.result: INSERT IGNORE INTO t1 VALUES('2004-13-31'),('2004-1-4') -> Warning 1265 at row 1;
    # 0000-00-00 and 2004-01-04
    one(s, "INSERT IGNORE INTO t1 VALUES ('2004-13-31'), ('2004-1-4')")
    assert warnings(s) == [("Warning", 1265, "Data truncated for column 'col1' at row 1")]
    s.execute("SET sql_mode=''")
    one(s, "INSERT INTO t1 VALUES ('2003-02-30')")
    assert warnings(s) == [("Warning", 1265, "Data truncated for column 'col1' at row 1")]
    assert rows(s, "SELECT * FROM t1") == [("0000-00-00",), ("2004-01-04",), ("0000-00-00",)]


# ------------------------------------------------------------------------------------------------ UPDATE
def test_update_non_strict_adjusts_with_info(s):
    s.execute("CREATE TABLE t1 (id INT PRIMARY KEY, col1 CHAR(5), col2 INT NOT NULL)")
    s.execute("INSERT INTO t1 VALUES (1, 'he', 1)")
    # strict.result: UPDATE t1 SET col1 ='hellobob' ... -> ERROR 22001 Data too long
    assert error(s, "UPDATE t1 SET col1 = 'hellobob'") == (1406, "Data too long for column 'col1' at row 1")
    assert error(s, "UPDATE t1 SET col2 = NULL") == (1048, "Column 'col2' cannot be null")
    s.execute("SET sql_mode=''")
    # strict.result: UPDATE IGNORE ... SET col2 ='hellotrudy' -> Warning 1265, the value cut to the length
    res = one(s, "UPDATE t1 SET col1 = 'hellobob'")
    assert (res.affected_rows, res.warning_count) == (1, 1)
    assert res.info == "Rows matched: 1  Changed: 1  Warnings: 1"
    assert warnings(s) == [("Warning", 1265, "Data truncated for column 'col1' at row 1")]
    # manual "Constraints on Invalid Data": a bad value sets the column to the best possible value
    res = one(s, "UPDATE t1 SET col2 = 'abc'")
    assert res.info == "Rows matched: 1  Changed: 1  Warnings: 1"
    assert warnings(s) == [("Warning", 1366, "Incorrect integer value: 'abc' for column 'col2' at row 1")]
    assert rows(s, "SELECT * FROM t1") == [(1, "hello", 0)]


def test_update_many_rows_counts_warnings_per_row(s):
    s.execute("CREATE TABLE t1 (id INT PRIMARY KEY, col1 TINYINT)")
    s.execute("INSERT INTO t1 VALUES (1, 100), (2, 10), (3, 120)")
    # strict.result: UPDATE t1 SET col1 = col1 + 50 ... -> ERROR 22003; the statement changes nothing
    assert error(s, "UPDATE t1 SET col1 = col1 + 50")[0] == 1264
    assert rows(s, "SELECT col1 FROM t1 ORDER BY id") == [(100,), (10,), (120,)]
    s.execute("SET sql_mode=''")
    res = one(s, "UPDATE t1 SET col1 = col1 + 50")
    assert res.info == "Rows matched: 3  Changed: 3  Warnings: 2"
    assert warnings(s) == [
        ("Warning", 1264, "Out of range value for column 'col1' at row 1"),
        ("Warning", 1264, "Out of range value for column 'col1' at row 3"),
    ]
    assert rows(s, "SELECT col1 FROM t1 ORDER BY id") == [(127,), (60,), (127,)]


def test_replace_non_strict(s):
    s.execute("CREATE TABLE t1 (id INT PRIMARY KEY, v INT)")
    s.execute("SET sql_mode=''")
    res = one(s, "REPLACE INTO t1 VALUES (1, 'x'), (2, '7z')")
    assert res.info == "Records: 2  Duplicates: 0  Warnings: 2"
    assert rows(s, "SELECT * FROM t1") == [(1, 0), (2, 7)]


# ------------------------------------------------------------------------------------------------ replication
def test_statement_format_event_applies_with_the_sources_sql_mode(tmp_path):
    """A Query event carries the source session's sql_mode (Q_SQL_MODE_CODE) and the applier runs the statement
    under it (``Query_log_event::do_apply_event`` copies ``sql_mode`` into the applier's THD), so a non-strict
    INSERT converts on the replica as on the source (0 for 'abc': manual "Constraints on Invalid Data")."""
    from gtidkit.engine import Server
    from gtidkit.engine.apply import read_transactions

    src = Server.open(tmp_path / "a", log_bin=True, server_id=11, binlog_format="STATEMENT")
    try:
        with src.session() as s:
            s.execute("CREATE DATABASE db")
            s.execute("CREATE TABLE db.t (id INT PRIMARY KEY, v INT, c CHAR(2))")
            s.execute("SET sql_mode=''")
            s.execute("INSERT INTO db.t VALUES (1, 'abc', 'xyz'), (2, '7q', 'ok')")
        assert src.binlog is not None
        trxs = [t for name in src.binlog.existing_files() for t in read_transactions(src.binlog.path(name))]
        with Server.open(tmp_path / "b", log_bin=False, server_id=22) as rep, rep.applier_session() as ap:
            for trx in trxs:
                assert ap.apply(trx)
            assert ap.session_vars["sql_mode"] == ""
            with rep.session() as r:
                assert r.execute("SELECT * FROM db.t ORDER BY id")[-1].rows == [(1, 0, "xy"), (2, 7, "ok")]
    finally:
        src.shutdown()


# ------------------------------------------------------------------------------------------------ division by zero
def test_division_by_zero_follows_error_for_division_by_zero(s):
    s.execute("CREATE TABLE t1 (col1 TINYINT, col2 TINYINT UNSIGNED)")
    s.execute("INSERT INTO t1 VALUES (4, 8)")
    # strict.result (traditional): UPDATE t1 SET col1 = col1 / 0 ... -> ERROR 22012 Division by 0; so is MOD(col1,0)
    assert error(s, "UPDATE t1 SET col1 = col1 / 0") == (1365, "Division by 0")
    assert error(s, "UPDATE t1 SET col1 = MOD(col1, 0)") == (1365, "Division by 0")
    assert error(s, "INSERT INTO t1 VALUES (1/0, 1)") == (1365, "Division by 0")
    # strict.result: INSERT IGNORE INTO t1 values (1/0,1/0) -> two warnings 1365, NULLs stored
    res = one(s, "INSERT IGNORE INTO t1 VALUES (1/0, 1/0)")
    assert res.warning_count == 2
    assert warnings(s) == [("Warning", 1365, "Division by 0")] * 2
    # strict.result: set @@sql_mode='ERROR_FOR_DIVISION_BY_ZERO'; INSERT INTO t1 values (1/0,1/0) -> two warnings
    s.execute("SET sql_mode='ERROR_FOR_DIVISION_BY_ZERO'")
    one(s, "INSERT INTO t1 VALUES (1/0, 1/0)")
    assert warnings(s) == [("Warning", 1365, "Division by 0")] * 2
    # strict.result: set @@sql_mode='ansi'; INSERT INTO t1 values (1/0,1/0) -> no warnings (manual: "If this mode
    # is not enabled, division by zero inserts NULL and produces no warning")
    s.execute("SET sql_mode='ANSI'")
    res = one(s, "INSERT INTO t1 VALUES (1/0, 7 DIV 0)")
    assert res.warning_count == 0
    assert rows(s, "SELECT * FROM t1") == [(4, 8)] + [(None, None)] * 3
