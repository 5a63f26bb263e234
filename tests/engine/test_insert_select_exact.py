"""INSERT ... SELECT from a table sharing column names with the target computes exactly.

MySQL resolves the SELECT's columns in its own FROM clause (manual "INSERT ... SELECT Statement"), so ``INSERT
INTO dst SELECT d * 3, u + 5 FROM src`` multiplies ``src.d`` as a DECIMAL (manual "Precision Math": exact-value
arithmetic, ``*`` keeps s1 + s2 fraction digits) and adds to ``src.u`` as a BIGINT UNSIGNED; the stored values are
the exact results (rounded half away from zero to the target column's scale). An overflow is ERROR 1690 naming
``src``'s column (mysql-test ``func_math.result`` words it ``(`test`.`t2`.`a` - `test`.`t2`.`b`)``).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from gtidkit.errors import MySQLError

D = Decimal("12345678901234567.1234567891")
U = 18446744073709551000


@pytest.fixture
def s(open_server):
    srv = open_server()
    with srv.session() as sess:
        sess.execute("CREATE DATABASE test; USE test")
        sess.execute("CREATE TABLE src (d DECIMAL(30,10), u BIGINT UNSIGNED)")
        sess.execute("CREATE TABLE dst (d DECIMAL(30,10), u BIGINT UNSIGNED)")
        sess.execute(f"INSERT INTO src VALUES ({D}, {U})")
        yield sess


@pytest.mark.parametrize(
    ("select", "expected"),
    [
        ("SELECT d * 3, u + 5 FROM src", (D * 3, U + 5)),
        ("SELECT d + 0.0000000001, u - 1 FROM src", (D + Decimal("1e-10"), U - 1)),
        ("SELECT src.d - 1, src.u * 1 FROM src", (D - 1, U)),
        ("SELECT x.d * 2, x.u + 15 FROM src AS x", (D * 2, U + 15)),
        ("SELECT d / 7, u DIV 1 FROM src", (Decimal("1763668414462081.0176366842"), U)),
    ],
    ids=["mul-add", "add-sub", "qualified", "aliased", "div"],
)
def test_insert_select_is_exact(s, select: str, expected: tuple) -> None:
    s.execute(f"INSERT INTO dst (d, u) {select}")
    assert s.execute("SELECT d, u FROM dst")[-1].rows == [expected]


def test_insert_select_overflow_names_the_source_column(s) -> None:
    with pytest.raises(MySQLError) as e:
        s.execute("INSERT INTO dst SELECT d, u + 1000 FROM src")
    assert (e.value.code, e.value.message) == (
        1690,
        "BIGINT UNSIGNED value is out of range in '(`test`.`src`.`u` + 1000)'",
    )
    assert s.execute("SELECT COUNT(*) FROM dst")[-1].rows == [(0,)]


def test_insert_select_comparisons_resolve_in_the_source(s) -> None:
    """``u = '<2**64-1>'`` and ``s = 10`` in the SELECT compare ``src``'s columns (convert_constant_item; a string
    column with a number compares as doubles, and strict INSERT ... SELECT makes the truncation error 1292)."""
    s.execute("CREATE TABLE src2 (s VARCHAR(10), u BIGINT UNSIGNED)")
    s.execute("CREATE TABLE dst2 (s VARCHAR(10), u BIGINT UNSIGNED)")
    s.execute("INSERT INTO src2 VALUES ('10abc', 18446744073709551615), ('x', 5)")
    s.execute("INSERT INTO dst2 SELECT s, u FROM src2 WHERE u = '18446744073709551615'")
    assert s.execute("SELECT s, u FROM dst2")[-1].rows == [("10abc", 18446744073709551615)]
    with pytest.raises(MySQLError) as e:
        s.execute("INSERT INTO dst2 SELECT s, u FROM src2 WHERE s = 10")
    assert (e.value.code, e.value.message) == (1292, "Truncated incorrect DOUBLE value: '10abc'")
