"""SET statement parsing: scopes, @@ forms, user variables, literal typing."""

from __future__ import annotations

import pytest

from gtidkit.engine.statements.set_parser import (
    Assignment,
    Default,
    Expression,
    Keyword,
    SysVarRef,
    UserVarRef,
    parse_set,
)
from gtidkit.errors import MySQLError


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "SET GLOBAL gtid_executed_compression_period= 0",
            [Assignment("sys", "gtid_executed_compression_period", "GLOBAL", 0)],
        ),
        (
            "set global gtid_executed_compression_period= 1.1",
            [Assignment("sys", "gtid_executed_compression_period", "GLOBAL", 1.1)],
        ),
        ("set global x= 1e1", [Assignment("sys", "x", "GLOBAL", 10.0)]),
        ('set global x= "foobar"', [Assignment("sys", "x", "GLOBAL", "foobar")]),
        ("SET GLOBAL x= -1", [Assignment("sys", "x", "GLOBAL", -1)]),
        ("SET @@global.gtid_purged = '+a'", [Assignment("sys", "gtid_purged", "GLOBAL", "+a")]),
        ("SET @@SESSION.GTID_NEXT= 'AUTOMATIC'", [Assignment("sys", "gtid_next", "SESSION", "AUTOMATIC")]),
        ("SET gtid_next = ANONYMOUS", [Assignment("sys", "gtid_next", None, Keyword("ANONYMOUS"))]),
        (
            "SET @start = @@global.gtid_executed_compression_period",
            [Assignment("user", "start", None, SysVarRef("gtid_executed_compression_period", "GLOBAL"))],
        ),
        ("SET @@global.x = @start", [Assignment("sys", "x", "GLOBAL", UserVarRef("start"))]),
        (
            "SET autocommit=0, @a=1",
            [Assignment("sys", "autocommit", None, 0), Assignment("user", "a", None, 1)],
        ),
        ("SET SESSION x = DEFAULT", [Assignment("sys", "x", "SESSION", Default())]),
        ("SET @x = 1 + 2", [Assignment("user", "x", None, Expression("1 + 2"))]),
        ("SET NAMES utf8mb4", [Assignment("names", "names", None, "utf8mb4")]),
    ],
)
def test_parse(text, expected):
    assert parse_set(text) == expected


@pytest.mark.parametrize("text", ["SET", "SET x", "SET x =", "SELECT 1"])
def test_parse_errors(text):
    with pytest.raises(MySQLError) as exc:
        parse_set(text)
    assert exc.value.code == 1064
