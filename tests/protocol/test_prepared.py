"""Prepared-statement helpers: placeholders outside quotes/comments, exact literals (no injection)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from gtidkit.errors import MySQLError
from gtidkit.protocol.prepared import PreparedStatement, literal, placeholder_positions


@pytest.mark.parametrize(
    ("sql", "count"),
    [
        ("SELECT ?", 1),
        ("SELECT '?', \"?\", `?` , ?", 1),
        ("SELECT 1 -- ?\n, ?", 1),
        ("SELECT 1 # ?\n", 0),
        ("SELECT /* ? */ ?, ?", 2),
        ("SELECT 'it\\'s ?', ?", 1),
        ("INSERT INTO t VALUES (?, ?, ?)", 3),
    ],
)
def test_placeholders(sql: str, count: int) -> None:
    assert len(placeholder_positions(sql)) == count


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "NULL"),
        (5, "5"),
        (-1.5, "-1.5"),
        (Decimal("1.20"), "1.20"),
        ("it's", "'it\\'s'"),
        ("a\\b", "'a\\\\b'"),
        (b"x\0y", "'x\\0y'"),
        (b"\xff", "X'ff'"),
        (dt.date(2020, 1, 2), "'2020-01-02'"),
        (dt.datetime(2020, 1, 2, 3, 4, 5), "'2020-01-02 03:04:05'"),
        (dt.timedelta(hours=-1), "'-01:00:00'"),
    ],
)
def test_literals(value: object, text: str) -> None:
    assert literal(value) == text


def test_bind_injection_stays_a_string() -> None:
    stmt = PreparedStatement(1, "SELECT * FROM t WHERE v = ? AND w = ?", [])
    stmt.positions = placeholder_positions(stmt.sql)
    assert stmt.bind(["x' OR '1'='1", 2]) == "SELECT * FROM t WHERE v = 'x\\' OR \\'1\\'=\\'1' AND w = 2"
    with pytest.raises(MySQLError) as exc:
        stmt.bind([1])
    assert exc.value.code == 1210
