"""BIGINT / BIGINT UNSIGNED arithmetic that leaves its type's range is ERROR 1690, worded as MySQL words it.

Every case is MySQL 8.0's own: mysql-test ``r/func_math.result`` (Bug #8433 "Overflow must be an error": the
statement, then ``ERROR 22003: BIGINT UNSIGNED value is out of range in '(18446744073709551615 + 1)'``; the
``t1(a BIGINT, b BIGINT UNSIGNED)`` negations; ``-1 + 9223372036854775808`` -> 9223372036854775807), and the
manual's "Bit Functions and Operators" (``~0`` is 18446744073709551615, a BIGINT UNSIGNED).
"""

from __future__ import annotations

import pytest

from gtidkit.engine.results import ColumnFlag, FieldType
from gtidkit.errors import MySQLError

U = "BIGINT UNSIGNED value is out of range in "
S = "BIGINT value is out of range in "

# (statement, MySQL's message) -- func_math.result, in its order
OVERFLOW_CASES = [
    ("SELECT 9223372036854775808 + 9223372036854775808", U + "'(9223372036854775808 + 9223372036854775808)'"),
    ("SELECT 18446744073709551615 + 1", U + "'(18446744073709551615 + 1)'"),
    ("SELECT 1 + 18446744073709551615", U + "'(1 + 18446744073709551615)'"),
    ("SELECT -2 + CAST(1 AS UNSIGNED)", U + "'(-(2) + cast(1 as unsigned))'"),
    ("SELECT CAST(1 AS UNSIGNED) + -2", U + "'(cast(1 as unsigned) + -(2))'"),
    (
        "SELECT -9223372036854775808 + -9223372036854775808",
        S + "'(-(9223372036854775808) + -(9223372036854775808))'",
    ),
    ("SELECT 9223372036854775807 + 9223372036854775807", S + "'(9223372036854775807 + 9223372036854775807)'"),
    ("SELECT CAST(0 AS UNSIGNED) - 9223372036854775809", U + "'(cast(0 as unsigned) - 9223372036854775809)'"),
    ("SELECT 9223372036854775808 - 9223372036854775809", U + "'(9223372036854775808 - 9223372036854775809)'"),
    ("SELECT CAST(1 AS UNSIGNED) - 2", U + "'(cast(1 as unsigned) - 2)'"),
    ("SELECT 18446744073709551615 - (-1)", U + "'(18446744073709551615 - -(1))'"),
    ("SELECT -1 - 9223372036854775808", U + "'(-(1) - 9223372036854775808)'"),
    ("SELECT -1 - CAST(1 AS UNSIGNED)", U + "'(-(1) - cast(1 as unsigned))'"),
    ("SELECT -9223372036854775808 - 1", S + "'(-(9223372036854775808) - 1)'"),
    (
        "SELECT 9223372036854775807 - -9223372036854775808",
        S + "'(9223372036854775807 - -(9223372036854775808))'",
    ),
    ("SELECT 4294967296 * 4294967296", S + "'(4294967296 * 4294967296)'"),
    ("SELECT 9223372036854775808 * 2", U + "'(9223372036854775808 * 2)'"),
    ("SELECT 7158278827 * 3221225472", S + "'(7158278827 * 3221225472)'"),
    ("SELECT 9223372036854775807 * (-2)", S + "'(9223372036854775807 * -(2))'"),
    ("SELECT CAST(1 as UNSIGNED) * (-1)", U + "'(cast(1 as unsigned) * -(1))'"),
    ("SELECT 9223372036854775807 * 2", S + "'(9223372036854775807 * 2)'"),
    # func_math.result, Bug #8433 further down and type_newdecimal / func_math's chained product
    (
        "SELECT 1024 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024",
        S + "'((((((1024 * 1024) * 1024) * 1024) * 1024) * 1024) * 1024)'",
    ),
    ("SELECT -9223372036854775808 DIV -1", S + "'(-(9223372036854775808) DIV -(1))'"),
    ("SELECT 18446744073709551615 DIV -1", U + "'(18446744073709551615 DIV -(1))'"),
    ("SELECT ABS(-9223372036854775808)", S + "'abs(-(9223372036854775808))'"),
    ("SELECT -a FROM t1", S + "'-(`test`.`t1`.`a`)'"),
    ("SELECT -b FROM t1", S + "'-(`test`.`t1`.`b`)'"),
]


@pytest.fixture
def s(open_server):
    srv = open_server()
    with srv.session() as sess:
        sess.execute("CREATE DATABASE test; USE test")
        sess.execute("CREATE TABLE t1 (a BIGINT, b BIGINT UNSIGNED)")
        sess.execute("INSERT INTO t1 VALUES (-9223372036854775808, 9223372036854775809)")
        yield sess


@pytest.mark.parametrize(("sql", "msg"), OVERFLOW_CASES, ids=[c[0][7:40] for c in OVERFLOW_CASES])
def test_overflow_is_error_1690(s, sql: str, msg: str) -> None:
    with pytest.raises(MySQLError) as e:
        s.execute(sql)
    assert (e.value.code, e.value.sqlstate, e.value.message) == (1690, "22003", msg)


def test_overflow_is_reported_the_same_on_a_second_run(s) -> None:
    """The statement cache plans ``a + <literal>`` once: the message still names each run's literal."""
    for lit in ("9223372036854775807", "9223372036854775806"):
        with pytest.raises(MySQLError) as e:
            s.execute(f"SELECT {lit} + 9223372036854775807")
        assert e.value.message == S + f"'({lit} + 9223372036854775807)'"


@pytest.mark.parametrize(
    ("sql", "value"),
    [
        ("SELECT -1 + 9223372036854775808", 9223372036854775807),  # func_math.result
        ("SELECT b - 10 FROM t1", 9223372036854775799),
        ("SELECT a + 1 FROM t1", -9223372036854775807),
        ("SELECT CAST(1 AS UNSIGNED) - 1", 0),
        ("SELECT 18446744073709551614 + 1", 18446744073709551615),
        ("SELECT ~0", 18446744073709551615),  # manual "Bit Functions and Operators"
        ("SELECT ~5", 18446744073709551610),
        ("SELECT 1 << 63", 9223372036854775808),
        ("SELECT ~0 >> 1", 9223372036854775807),
        ("SELECT ~0 > 5", 1),
        ("SELECT -1 | 0", 18446744073709551615),
        ("SELECT 2 DIV -2", -1),  # func_math.result
        ("SELECT ABS(b) FROM t1", 9223372036854775809),
        ("SELECT 18446744073709551615 DIV 2", 9223372036854775807),
    ],
    ids=lambda v: str(v)[:30],
)
def test_in_range_results(s, sql: str, value: int) -> None:
    assert s.execute(sql)[-1].rows == [(value,)]


def test_bit_operators_are_bigint_unsigned(s) -> None:
    """Item_func_bit: the result column is LONGLONG with the UNSIGNED flag."""
    col = s.execute("SELECT ~0")[-1].columns[0]
    assert col.type == FieldType.MYSQL_TYPE_LONGLONG and col.flags & ColumnFlag.UNSIGNED


@pytest.mark.parametrize(
    "sql",
    ["UPDATE t1 SET b = b * 2", "INSERT INTO t1 VALUES (1, 18446744073709551615 + 1)"],
    ids=["update", "insert"],
)
def test_dml_overflow_is_an_error_and_changes_nothing(s, sql: str) -> None:
    with pytest.raises(MySQLError) as e:
        s.execute(sql)
    assert e.value.code == 1690
    assert s.execute("SELECT a, b FROM t1")[-1].rows == [(-9223372036854775808, 9223372036854775809)]


def test_a_cached_plan_follows_the_literals_kinds_and_widths(s) -> None:
    """The statement cache plans ``<lit> DIV <lit>``, ABS(<lit>) and ``<lit> | <lit>`` per literal kind and width:
    a narrow first run does not make a wide second one wrong."""
    assert s.execute("SELECT 7 DIV 2")[-1].rows == [(3,)]
    assert s.execute("SELECT 18446744073709551615 DIV 2")[-1].rows == [(9223372036854775807,)]
    assert s.execute("SELECT ABS(-5)")[-1].rows == [(5,)]
    with pytest.raises(MySQLError) as e:
        s.execute("SELECT ABS(-9223372036854775808)")
    assert e.value.code == 1690
    assert s.execute("SELECT '5' | 1")[-1].rows == [(5,)]
    assert s.execute("SELECT -5 | 0")[-1].rows == [(18446744073709551611,)]
