"""A BIGINT UNSIGNED column compared with a quoted number finds the row holding it.

MySQL converts a constant compared with an integer field to that field's integer when nothing is lost
(``convert_constant_item`` in ``sql/item_cmpfunc.cc``, applied by ``Item_bool_func2`` / IN / BETWEEN), so
``u = '18446744073709551615'`` compares 2**64-1 with 2**64-1 exactly (no row holding 2**64-2 matches, as a
comparison of doubles would). Each statement runs twice: once planned, once from the statement cache.
"""

from __future__ import annotations

import pytest

U64 = 18446744073709551615


@pytest.fixture
def s(open_server):
    srv = open_server()
    with srv.session() as sess:
        sess.execute("CREATE DATABASE test; USE test")
        sess.execute(
            "CREATE TABLE u (a BIGINT UNSIGNED PRIMARY KEY, b INT, c BIGINT UNSIGNED, s VARCHAR(30))"
        )
        sess.execute(
            "INSERT INTO u VALUES (18446744073709551615, 1, 18446744073709551615, '18446744073709551615'), "
            "(18446744073709551614, 4, 18446744073709551614, 'y'), (5, 2, 5, '5'), "
            "(9223372036854775808, 3, 9223372036854775808, 'x')"
        )
        yield sess


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("a = '18446744073709551615'", [1]),
        ("a = '18446744073709551614'", [4]),
        ("c = '18446744073709551615'", [1]),
        ("c = ' 9223372036854775808 '", [3]),
        ("c = '5'", [2]),
        ("'18446744073709551615' = c", [1]),
        ("c IN ('5', '18446744073709551615')", [1, 2]),
        ("c > '9223372036854775807'", [1, 3, 4]),
        ("c BETWEEN '6' AND '18446744073709551614'", [3, 4]),
        ("s = '18446744073709551615'", [1]),  # a string column compares strings
    ],
    ids=lambda v: str(v)[:40],
)
def test_quoted_u64_matches(s, where: str, expected: list[int]) -> None:
    for _ in range(2):
        assert s.execute(f"SELECT b FROM u WHERE {where} ORDER BY b")[-1].rows == [(b,) for b in expected]


def test_update_and_delete_find_the_row(s) -> None:
    s.execute("UPDATE u SET b = 10 WHERE a = '18446744073709551615'")
    s.execute("DELETE FROM u WHERE c = '9223372036854775808'")
    assert s.execute("SELECT a, b FROM u ORDER BY a")[-1].rows == [(5, 2), (U64 - 1, 4), (U64, 10)]
