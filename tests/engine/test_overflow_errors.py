"""ERROR 1690 for DOUBLE overflow, ROUND of integers leaving their type, and sql_mode NO_UNSIGNED_SUBTRACTION.

Oracle: mysql-test ``r/func_math.result`` (MySQL 8.0.41): "Bug #8433: Overflow must be an error" (the DOUBLE cases
and the NO_UNSIGNED_SUBTRACTION block), "Bug #30680384" (``round(-9223372036854775808, -4)`` and the procedures
``test_round`` / ``test_round_unsigned``, which ROUND a BIGINT / BIGINT UNSIGNED argument to 0 .. -20 digits), and
RM8 "Out-of-Range and Overflow Handling" (``SELECT CAST(0 AS UNSIGNED) - 1`` is 1690 by default, -1 under
NO_UNSIGNED_SUBTRACTION).
"""

from __future__ import annotations

import pytest

from gtidkit.engine import Server
from gtidkit.errors import MySQLError


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    with Server.open(tmp_path_factory.mktemp("ovf") / "d") as srv, srv.session() as s:
        s.execute("CREATE DATABASE d")
        s.execute("CREATE TABLE d.t (a BIGINT, b BIGINT UNSIGNED)")
        s.execute("INSERT INTO d.t VALUES (9223372036854775807, 18446744073709551614)")
        yield s


DOUBLE = [
    ("SELECT 1e308 + 1e308", "(1e308 + 1e308)"),
    ("SELECT -1e308 - 1e308", "(-(1e308) - 1e308)"),
    ("SELECT 1e300 * 1e300", "(1e300 * 1e300)"),
    ("SELECT 1e300 / 1e-300", "(1e300 / 1e-300)"),
    ("SELECT EXP(750)", "exp(750)"),
    ("SELECT POW(10, 309)", "pow(10,309)"),
    ("SELECT COT(0)", "cot(0)"),
    ("SELECT DEGREES(1e307)", "degrees(1e307)"),
]
INTEGER = [
    ("", "SELECT round(-9223372036854775808, -4)", "BIGINT", "round(-(9223372036854775808),-(4))"),
    ("", "SELECT CAST(0 AS UNSIGNED) - 1", "BIGINT UNSIGNED", "(cast(0 as unsigned) - 1)"),
    ("NO_UNSIGNED_SUBTRACTION", "SELECT 18446744073709551615 - 1", "BIGINT", "(18446744073709551615 - 1)"),
    (
        "NO_UNSIGNED_SUBTRACTION",
        "SELECT 18446744073709551615 - CAST(1 AS UNSIGNED)",
        "BIGINT",
        "(18446744073709551615 - cast(1 as unsigned))",
    ),
    (
        "NO_UNSIGNED_SUBTRACTION",
        "SELECT 18446744073709551614 - (-1)",
        "BIGINT",
        "(18446744073709551614 - -(1))",
    ),
    ("NO_UNSIGNED_SUBTRACTION", "SELECT 9223372036854775807 - -1", "BIGINT", "(9223372036854775807 - -(1))"),
    # a DOUBLE function read as an integer (Item_func::llrint_with_overflow_check)
    ("", "select cast(pow(2,63) as signed) as pp", "BIGINT", "pow(2,63)"),
    ("", "SELECT 1-CAST(POW(2,100) AS SIGNED)", "BIGINT", "pow(2,100)"),
    ("", "SELECT 1-CAST(POW(2,1000) AS SIGNED)", "BIGINT", "pow(2,1000)"),
]


def _error(session, sql: str, mode: str = "") -> MySQLError:
    session.execute(f"SET sql_mode = '{mode}'" if mode else "SET sql_mode = DEFAULT")
    with pytest.raises(MySQLError) as err:
        session.execute(sql)
    return err.value


@pytest.mark.parametrize(("sql", "text"), DOUBLE, ids=[t for _, t in DOUBLE])
def test_double_overflow(session, sql: str, text: str) -> None:
    err = _error(session, sql)
    assert (err.code, err.sqlstate, err.message) == (
        1690,
        "22003",
        f"DOUBLE value is out of range in '{text}'",
    )


@pytest.mark.parametrize(("mode", "sql", "kind", "text"), INTEGER, ids=[t for *_, t in INTEGER])
def test_integer_overflow(session, mode: str, sql: str, kind: str, text: str) -> None:
    err = _error(session, sql, mode)
    assert (err.code, err.message) == (1690, f"{kind} value is out of range in '{text}'")


def test_no_unsigned_subtraction_gives_a_signed_result(session) -> None:
    session.execute("SET sql_mode = 'NO_UNSIGNED_SUBTRACTION'")
    try:
        assert session.execute("SELECT CAST(0 AS UNSIGNED) - 1")[-1].rows == [(-1,)]
        assert session.execute("SELECT b - 18446744073709551615 FROM d.t")[-1].rows == [(-1,)]
    finally:
        session.execute("SET sql_mode = DEFAULT")
    with pytest.raises(MySQLError):  # the same statement text is planned again under the default mode
        session.execute("SELECT CAST(0 AS UNSIGNED) - 1")


def test_cast_of_a_double_function_in_range(session) -> None:
    # func_math.result: 2**63 - 1024 is the largest DOUBLE below 2**63
    assert session.execute("select cast(pow(2,63)-1024 as signed) as pp")[-1].rows == [(9223372036854774784,)]


E = None  # ERROR 1690
# test_round(9223372036854775807) and test_round_unsigned(18446744073709551614): ROUND(arg, 0), ..., ROUND(arg, -20)
ROUND_SIGNED = [9223372036854775807, E, 9223372036854775800, E, E, E, E, 9223372036850000000, E, E, E]
ROUND_SIGNED += [9223372000000000000, 9223372000000000000, 9223370000000000000, E, 9223000000000000000]
ROUND_SIGNED += [9220000000000000000, 9200000000000000000, 9000000000000000000, E, 0]
ROUND_UNSIGNED = [18446744073709551614, 18446744073709551610, 18446744073709551600, E, 18446744073709550000]
ROUND_UNSIGNED += [E, E, E, 18446744073700000000, E, 18446744070000000000, E, 18446744000000000000]
ROUND_UNSIGNED += [
    18446740000000000000,
    18446700000000000000,
    E,
    E,
    18400000000000000000,
    18000000000000000000,
]
ROUND_UNSIGNED += [E, 0]
ROUND = [("a", "BIGINT", d, v) for d, v in enumerate(ROUND_SIGNED)]
ROUND += [("b", "BIGINT UNSIGNED", d, v) for d, v in enumerate(ROUND_UNSIGNED)]


@pytest.mark.parametrize(("col", "kind", "digits", "value"), ROUND, ids=[f"{c}{-d}" for c, _, d, _ in ROUND])
def test_round_of_an_integer_column(session, col: str, kind: str, digits: int, value: int | None) -> None:
    sql = f"SELECT ROUND({col}, -{digits}) FROM d.t"
    if value is None:
        err = _error(session, sql)
        assert err.code == 1690 and err.message.startswith(f"{kind} value is out of range in 'round(")
    else:
        assert session.execute(sql)[-1].rows == [(value,)]
