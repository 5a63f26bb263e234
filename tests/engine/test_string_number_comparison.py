"""A string compared with a number compares as two doubles, as in MySQL (gtidkit.engine.sql.comparison).

Expected values and their sources:

- TC: MySQL 8.4 Reference Manual, "Type Conversion in Expression Evaluation"
  (https://dev.mysql.com/doc/refman/8.4/en/type-conversion.html): "In all other cases, the arguments are compared
  as floating-point (double-precision) numbers. For example, a comparison of string and numeric operands takes
  place as a comparison of floating-point numbers"; its examples ``SELECT 1 > '6x'`` -> 0, ``SELECT 7 > '6x'`` -> 1,
  ``SELECT 0 > 'x6'`` -> 0, ``SELECT 0 = 'x6'`` -> 1; and "If str_col is an indexed string column, the index
  cannot be used when performing the lookup in the following statement: SELECT * FROM tbl_name WHERE str_col=1;
  [...] there are many different strings that may convert to the value 1, such as '1', ' 1', or '1a'".
- CMP: the manual's "Comparison Functions and Operators" (IN: "Implicit type conversion may produce nonintuitive
  results: SELECT 'a' IN (0), 0 IN ('b'); -> 1, 1"; BETWEEN: ``2 BETWEEN 2 AND 'x-3'`` -> 0; ``'0.0' = 0`` -> 1).
- compare.result: MySQL's ``mysql-test/r/compare.result`` (a CHAR(12) primary key ``id`` holding
  '000000000001' and '000000000002': ``select * from t1 where id=000000000001`` finds '000000000001', EXPLAIN shows
  a full index scan (type index, not a lookup), ``delete from t1 where id=000000000002`` deletes the other row).
- Warnings: ``double_from_string_with_check`` (``sql/item.cc``) raises Warning 1292 "Truncated incorrect DOUBLE
  value: '<the string>'" once per conversion that leaves more than trailing spaces; ``Strict_error_handler``
  (``sql/error_handler.cc``) makes ER_TRUNCATED_WRONG_VALUE an error in INSERT / UPDATE / DELETE under strict mode
  and leaves SELECT's a warning.
"""

from __future__ import annotations

import re

import pytest

from gtidkit.engine.sql.comparison import string_to_double
from gtidkit.errors import MySQLError


def truncated(text: str) -> tuple[str, int, str]:
    return ("Warning", 1292, f"Truncated incorrect DOUBLE value: '{text}'")


@pytest.fixture
def s(open_server):
    srv = open_server()
    with srv.session() as sess:
        sess.execute("CREATE DATABASE test; USE test")
        sess.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), KEY (v))")
        sess.execute(
            "INSERT INTO t VALUES (1, 'abc'), (2, '10abc'), (3, '0'), (4, ' 1e2'), (5, NULL), (6, '10')"
        )
        yield sess


def rows(s, sql):
    (res,) = s.execute(sql)
    return res.rows


def warnings(s):
    return rows(s, "SHOW WARNINGS")


# ------------------------------------------------------------------------------------------------ the conversion
@pytest.mark.parametrize(
    ("text", "value", "clean"),
    [
        ("10abc", 10.0, False),
        ("abc", 0.0, False),
        (" 1e2", 100.0, True),
        ("\t5", 5.0, True),  # my_strtod skips leading spaces and tabs
        ("5  ", 5.0, True),  # check_if_only_end_space: trailing spaces are not truncation
        ("5\t", 5.0, False),
        ("1e", 1.0, False),
        ("-.5", -0.5, True),
        ("0x10", 0.0, False),
        ("", 0.0, True),
        ("1e400", 1.7976931348623157e308, False),
    ],
    ids=repr,
)
def test_string_to_double(text, value, clean):
    assert string_to_double(text) == (value, clean)


# ------------------------------------------------------------------------------------------------ literals
@pytest.mark.parametrize(
    ("expr", "expected", "warned"),
    [
        ("1 > '6x'", 0, ["6x"]),  # TC
        ("7 > '6x'", 1, ["6x"]),  # TC
        ("0 > 'x6'", 0, ["x6"]),  # TC
        ("0 = 'x6'", 1, ["x6"]),  # TC
        ("'0.0' = 0", 1, []),  # CMP
        ("'.01' = 0.01", 1, []),  # CMP
        ("2 BETWEEN 2 AND 'x-3'", 0, ["x-3"]),  # CMP: one aggregated (double) type for the three arguments
        ("'10' > 9", 1, []),  # as strings, '10' < '9'
        ("'10' > '9'", 0, []),  # two strings compare as strings
        ("'abc' <=> 0", 1, ["abc"]),
        # "If one or both arguments are NULL, the result of the comparison is NULL"
        ("NULL = 'abc'", None, []),
        ("NULL <=> 'abc'", 0, []),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_literal_comparisons(s, expr, expected, warned):
    assert rows(s, f"SELECT {expr}") == [(int(expected) if expected is not None else None,)]
    assert warnings(s) == [truncated(w) for w in warned]


def test_in_with_mixed_types(s):
    # CMP: SELECT 'a' IN (0), 0 IN ('b') -> 1, 1
    assert rows(s, "SELECT 'a' IN (0), 0 IN ('b')") == [(1, 1)]
    assert warnings(s) == [truncated("a"), truncated("b")]
    # each value compares with its own pair's type: 'a' = 'a' as strings, '1x' against 1 as doubles
    assert rows(s, "SELECT '1x' IN ('a', 1), '1x' IN ('a', 2), 'a' IN ('a', 2), 3 NOT IN ('3z', 4)") == [
        (1, 0, 1, 0)
    ]


# ------------------------------------------------------------------------------------------------ columns
def test_string_column_against_a_number(s):
    # the classic gotcha: every string without a numeric prefix equals 0, with one warning per converted row
    assert rows(s, "SELECT id FROM t WHERE v = 0 ORDER BY id") == [(1,), (3,)]
    assert warnings(s) == [truncated("abc"), truncated("10abc")]
    assert rows(s, "SELECT id FROM t WHERE v = 10 ORDER BY id") == [(2,), (6,)]
    assert rows(s, "SELECT id FROM t WHERE v = 100") == [(4,)]
    assert rows(s, "SELECT id FROM t WHERE 9 < v ORDER BY id") == [(2,), (4,), (6,)]
    assert rows(s, "SELECT id FROM t WHERE v <> 0 ORDER BY id") == [(2,), (4,), (6,)]  # NULL stays unknown
    assert rows(s, "SELECT id FROM t WHERE v <=> 0 ORDER BY id") == [(1,), (3,)]
    # the same template with a string literal compares as strings, without warnings
    assert rows(s, "SELECT id FROM t WHERE v = '10'") == [(6,)]
    assert warnings(s) == []
    assert rows(s, "SELECT id FROM t WHERE v > '9' ORDER BY id") == [(1,)]


def test_string_column_between_and_in(s):
    assert rows(s, "SELECT id FROM t WHERE v BETWEEN 5 AND 20 ORDER BY id") == [(2,), (6,)]
    assert rows(s, "SELECT id FROM t WHERE v NOT BETWEEN 5 AND 20 ORDER BY id") == [(1,), (3,), (4,)]
    assert rows(s, "SELECT id FROM t WHERE v IN (100, 'abc') ORDER BY id") == [(1,), (4,)]
    assert rows(s, "SELECT id FROM t WHERE v IN ('0', 'abc') ORDER BY id") == [(1,), (3,)]
    assert warnings(s) == []
    assert rows(s, "SELECT id FROM t WHERE v NOT IN (0, 10) ORDER BY id") == [(4,)]


def test_number_column_against_a_string(s):
    # the constant is converted (once), the column is not
    assert rows(s, "SELECT v FROM t WHERE id = '3'") == [("0",)]
    assert rows(s, "SELECT id FROM t WHERE id IN ('2', 3) ORDER BY id") == [(2,), (3,)]
    assert rows(s, "SELECT id FROM t WHERE id BETWEEN '2' AND '3.5' ORDER BY id") == [(2,), (3,)]
    assert warnings(s) == []
    # a number that is not a column (no SQLite affinity) converts any string literal, as MySQL
    assert rows(s, "SELECT id FROM t WHERE id + 1 = '4'") == [(3,)]
    assert rows(s, "SELECT id FROM t WHERE id * 2 IN ('8x', 2) ORDER BY id") == [(1,), (4,)]
    assert warnings(s) == [truncated("8x")]


def test_columns_of_both_kinds(s):
    s.execute("CREATE TABLE n (k INT)")
    s.execute("INSERT INTO n VALUES (0), (10), (100)")
    got = rows(s, "SELECT t.id, n.k FROM t JOIN n ON t.v = n.k ORDER BY t.id, n.k")
    assert got == [(1, 0), (2, 10), (3, 0), (4, 100), (6, 10)]


def test_compare_result_char_primary_key(s):
    # compare.result: a CHAR primary key compared with a number
    s.execute("CREATE TABLE t1 (id CHAR(12) NOT NULL, PRIMARY KEY (id))")
    s.execute("INSERT INTO t1 VALUES ('000000000001'), ('000000000002')")
    assert rows(s, "SELECT * FROM t1 WHERE id=000000000001") == [("000000000001",)]
    plan = rows(s, "EXPLAIN SELECT * FROM t1 WHERE id=000000000001")
    assert plan[0][4] not in ("const", "eq_ref", "ref", "range")  # scanned (MySQL: index), not looked up
    (res,) = s.execute("DELETE FROM t1 WHERE id=000000000002")
    assert res.affected_rows == 1
    assert rows(s, "SELECT * FROM t1") == [("000000000001",)]


# ------------------------------------------------------------------------------------------------ DML
def test_strict_mode_makes_the_warning_an_error_in_dml(s):
    err = pytest.raises(MySQLError, s.execute, "UPDATE t SET id = id + 10 WHERE v = 0").value
    assert (err.code, err.message) == (1292, "Truncated incorrect DOUBLE value: 'abc'")
    err = pytest.raises(MySQLError, s.execute, "DELETE FROM t WHERE v = 0").value
    assert err.code == 1292
    s.execute("CREATE TABLE c (id INT)")
    err = pytest.raises(MySQLError, s.execute, "INSERT INTO c SELECT id FROM t WHERE v = 0").value
    assert err.code == 1292
    assert rows(s, "SELECT COUNT(*) FROM t") == [(6,)] and rows(s, "SELECT COUNT(*) FROM c") == [(0,)]
    # clean conversions are no error
    s.execute("CREATE TABLE u (v VARCHAR(5)); INSERT INTO u VALUES ('1'), (' 2'), ('3  ')")
    (res,) = s.execute("UPDATE u SET v = 'x' WHERE v = 2 OR v = 3")
    assert res.affected_rows == 2


def test_without_strict_mode_dml_warns(s):
    s.execute("SET sql_mode = ''")
    (res,) = s.execute("UPDATE t SET id = id + 10 WHERE v = 0")
    assert res.affected_rows == 2
    assert warnings(s) == [truncated("abc"), truncated("10abc")]
    (res,) = s.execute("DELETE FROM t WHERE v = 10")
    assert res.affected_rows == 2
    assert sorted(warnings(s)) == sorted([truncated("abc"), truncated("10abc")])
    assert rows(s, "SELECT id FROM t ORDER BY id") == [(4,), (5,), (11,), (13,)]


# ------------------------------------------------------------------------------------------------ plans
def test_int_point_lookup_keeps_its_index(s):
    # the hot path: an integer primary key against an integer literal or a prepared parameter is not rewritten
    assert rows(s, "EXPLAIN SELECT v FROM t WHERE id = 3")[0][4] == "const"
    p = s.prepare("SELECT v FROM t WHERE id = ?")
    (res,) = s.execute_prepared(p, [3])
    assert res.rows == [("0",)] and rows(s, "SELECT v FROM t WHERE id = 3") == [("0",)]
    ex = s.executor
    plans = [plan.sql for plan in ex.storage.plan_cache.values() if "WHERE" in str(getattr(plan, "sql", ""))]
    lookups = [sql for sql in plans if re.search(r"WHERE [`\"]id[`\"] = :g[pk]0$", sql)]
    assert len(lookups) == 2  # the literal's template and the prepared statement's
    for sql in lookups:
        detail = " ".join(
            str(r[-1])
            for r in ex.conn.raw.execute("EXPLAIN QUERY PLAN " + sql, {"gp0": 3, "gk0": 3}).fetchall()
        )
        assert "PRIMARY KEY" in detail or "USING INDEX" in detail, (sql, detail)


def test_string_literal_against_a_number_column_keeps_its_index(s):
    (res,) = s.execute("SELECT v FROM t WHERE id = '3'")
    assert res.rows == [("0",)]
    assert rows(s, "EXPLAIN SELECT v FROM t WHERE id = '3'")[0][4] == "const"


def test_one_plan_per_literal_kind(s):
    # the template "v = :gk0" keeps a plan per kind: a string after a number, and a number again
    assert rows(s, "SELECT id FROM t WHERE v = 0 ORDER BY id") == [(1,), (3,)]
    assert rows(s, "SELECT id FROM t WHERE v = 'abc'") == [(1,)]
    assert rows(s, "SELECT id FROM t WHERE v = 'abcdefgh'") == []
    assert rows(s, "SELECT id FROM t WHERE v = 1e2") == [(4,)]
    assert rows(s, "SELECT id FROM t WHERE v = 0.0 ORDER BY id") == [(1,), (3,)]


def test_assignments_are_not_comparisons(s):
    # UPDATE ... SET v = 5 and ON DUPLICATE KEY UPDATE v = 9 assign (sqlglot reads them as "="): nothing converted
    s.execute("UPDATE t SET v = 5 WHERE id = 1")
    s.execute("INSERT INTO t VALUES (2, 'x') ON DUPLICATE KEY UPDATE v = 9")
    s.execute("UPDATE t AS a JOIN t AS b ON a.id = b.id SET a.v = 7 WHERE b.id = 3")
    assert rows(s, "SELECT id, v FROM t WHERE id <= 3 ORDER BY id") == [(1, "5"), (2, "9"), (3, "7")]
    s.execute("UPDATE t SET v = (v = 7.0) WHERE id = 3")  # a comparison inside an assigned value is one
    assert rows(s, "SELECT v FROM t WHERE id = 3") == [("1",)]


def test_case_and_nullif_compare_as_equality(s):
    # manual "Flow Control Functions": CASE value WHEN compare_value "returns the result for the first
    # value=compare_value comparison that is true"; NULLIF(expr1,expr2) "Returns NULL if expr1 = expr2 is true"
    got = rows(
        s, "SELECT CASE 'a' WHEN 0 THEN 'zero' WHEN 'a' THEN 'a' END, NULLIF('1x', 1), NULLIF('2x', 1)"
    )
    assert got == [("zero", None, "2x")]
    got = rows(
        s, "SELECT id, CASE v WHEN 10 THEN 'ten' WHEN 'abc' THEN 'abc' END, NULLIF(v, 0) FROM t ORDER BY id"
    )
    assert got == [
        (1, "abc", None),
        (2, "ten", "10abc"),
        (3, None, None),
        (4, None, " 1e2"),
        (5, None, None),
        (6, "ten", "10"),
    ]


def test_number_column_templates_keep_one_plan(s):
    # a number column compared with literals is planned once for every literal (no per-kind cache key): the
    # sysbench shapes; a string column compared with a literal is planned per kind
    for sql in [
        "SELECT v FROM t WHERE id = 3",
        "SELECT v FROM t WHERE id BETWEEN 2 AND 4",
        "SELECT v FROM t WHERE id IN (2, 4)",
        "DELETE FROM t WHERE id = 9",
        "SELECT id FROM t WHERE v = 'abc'",
    ]:
        s.execute(sql)
    by_shape = {
        str(k[0]) for k, plan in s.executor.storage.plan_cache.items() if type(plan).__name__ == "_ByShape"
    }
    assert by_shape == {"SELECT id FROM t WHERE v = :gk0"}
