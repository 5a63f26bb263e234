"""System variables: names, scopes, ranges and SET errors (mirrors mysql-test
suite/sys_vars/r/gtid_executed_compression_period_basic.result, read in place by test_mysql_test_mirror)."""

from __future__ import annotations

import pytest

from gtidkit.engine import sysvars
from gtidkit.errors import MySQLError

PERIOD = sysvars.lookup("gtid_executed_compression_period")


@pytest.mark.parametrize(
    "value, expected, warned",
    [
        pytest.param(0, 0, False, id="zero"),
        pytest.param(5000, 5000, False, id="5000"),
        pytest.param(4294967295, 4294967295, False, id="max"),
        pytest.param(-1, 0, True, id="minus-one-clamped"),
        pytest.param(4294967296, 4294967295, True, id="max-plus-one-clamped"),
    ],
)
def test_period_range(value, expected, warned):
    warnings: list[sysvars.Warning_] = []
    assert sysvars.coerce(PERIOD, value, warnings) == expected
    if warned:
        assert [w.as_tuple() for w in warnings] == [
            ("Warning", 1292, f"Truncated incorrect gtid_executed_compression_period value: '{value}'")
        ]
    else:
        assert warnings == []


@pytest.mark.parametrize("value", [1.1, 10.0, "foobar"], ids=["decimal", "float", "string"])
def test_period_wrong_type(value):
    with pytest.raises(MySQLError) as exc:
        sysvars.coerce(PERIOD, value, [])
    assert (exc.value.code, exc.value.sqlstate) == (1232, "42000")
    assert exc.value.message == "Incorrect argument type to variable 'gtid_executed_compression_period'"


def test_alias_log_slave_updates():
    assert sysvars.lookup("log_slave_updates").name == "log_replica_updates"
    assert sysvars.lookup("LOG_SLAVE_UPDATES").name == "log_replica_updates"


def test_unknown_variable():
    with pytest.raises(MySQLError) as exc:
        sysvars.lookup("no_such_var")
    assert exc.value.code == 1193


@pytest.mark.parametrize(
    "var, value, expected",
    [
        ("gtid_mode", "on", "ON"),
        ("gtid_mode", 1, "OFF_PERMISSIVE"),
        ("enforce_gtid_consistency", "warn", "WARN"),
        ("binlog_format", "statement", "STATEMENT"),
        ("autocommit", "OFF", False),
        ("autocommit", 1, True),
    ],
)
def test_enum_and_bool(var, value, expected):
    assert sysvars.coerce(sysvars.lookup(var), value, []) == expected


@pytest.mark.parametrize("var, value", [("gtid_mode", "MAYBE"), ("gtid_mode", 7), ("autocommit", "perhaps")])
def test_bad_enum_value(var, value):
    with pytest.raises(MySQLError) as exc:
        sysvars.coerce(sysvars.lookup(var), value, [])
    assert exc.value.code == 1231
    assert exc.value.message == f"Variable '{var}' can't be set to the value of '{value}'"


def test_startup_option_validation():
    assert sysvars.parse_startup_option("log_slave_updates", False) == ("log_replica_updates", False)
    assert sysvars.parse_startup_option("max_binlog_size", 10) == ("max_binlog_size", 4096)
