"""``replica_type_conversions``: which source column types the applier takes into the replica's, and what it stores.

Oracle: mysql-test ``extra/rpl_tests/type_conversions.test`` (MySQL 8.0.41), run by rpl_typeconv / the
rpl_ndb_typeconv_{strict,nonlossy,lossy,all} suites: tables ``(pk INT PRIMARY KEY, a <source>) CHARACTER SET latin1``
on the source, ``ALTER TABLE t1 MODIFY a <target>`` on the replica, one INSERT, and ``can_convert`` = 1 /
``$if_is_non_lossy`` / ``$if_is_lossy`` / 0 with the value the replica must then hold. The rows below are copied
from that file (a subset: every integer pair, the strings, DECIMAL / FLOAT / DOUBLE, BLOB sizes, BIT, SET).
The 13146 text: MySQL replica error logs ("Column 1 of table 'mydb.code_2' cannot be converted from type 'int' to
type 'varchar(1020(bytes) utf8mb4)'") and rowimage's source names (``show_sql_type``: lengths in bytes).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from gtidkit.engine.apply import read_transactions
from gtidkit.errors import MySQLError
from tests.engine.datadirs import open_new

ALWAYS, NON_LOSSY, LOSSY, NEVER = "1", "non_lossy", "lossy", "0"
SMOOTH = "Smoothnoodlemaps"
BLOB = "abcd" * 125

# (source type, target type, source value SQL, expected target value, can_convert)
ROWS = [
    ("TINYBLOB", "BLOB", "'aaa'", b"aaa", NON_LOSSY),
    ("BLOB", "TINYBLOB", "'aaa'", b"aaa", LOSSY),
    ("BLOB", "BLOB", "'aaa'", b"aaa", ALWAYS),
    ("LONGBLOB", "MEDIUMBLOB", "'aaa'", b"aaa", LOSSY),
    ("CHAR(10)", "ENUM('master','slave')", "'master'", None, NEVER),
    ("ENUM('master','slave')", "CHAR(10)", "'master'", None, NEVER),
    ("SET('master','slave')", "CHAR(10)", "'master'", None, NEVER),
    (
        "SET('0','1','2','3','4','5','6')",
        "SET('0','1','2','3','4','5','6','7','8','9','10')",
        "'5'",
        "5",
        NON_LOSSY,
    ),
    (
        "SET('0','1','2','3','4','5','6','7','8','9','10')",
        "SET('0','1','2','3','4','5','6')",
        "'5'",
        "5",
        LOSSY,
    ),
    ("TINYINT", "TINYINT", "1", 1, ALWAYS),
    ("TINYINT", "SMALLINT", "1", 1, NON_LOSSY),
    ("TINYINT", "MEDIUMINT", "1", 1, NON_LOSSY),
    ("TINYINT", "INT", "1", 1, NON_LOSSY),
    ("TINYINT", "BIGINT", "1", 1, NON_LOSSY),
    ("SMALLINT", "TINYINT", "1", 1, LOSSY),
    ("SMALLINT", "TINYINT", "1 << 9", (1 << 7) - 1, LOSSY),
    ("SMALLINT", "TINYINT UNSIGNED", "1 << 9", (1 << 8) - 1, LOSSY),
    ("SMALLINT", "MEDIUMINT", "1", 1, NON_LOSSY),
    ("SMALLINT", "BIGINT", "1", 1, NON_LOSSY),
    ("MEDIUMINT", "TINYINT", "1 << 20", (1 << 7) - 1, LOSSY),
    ("MEDIUMINT", "SMALLINT", "1", 1, LOSSY),
    ("MEDIUMINT", "INT", "1", 1, NON_LOSSY),
    ("INT", "TINYINT", "(1 << 30)", (1 << 7) - 1, LOSSY),
    ("INT", "TINYINT UNSIGNED", "(1 << 30)", (1 << 8) - 1, LOSSY),
    ("INT", "MEDIUMINT", "1", 1, LOSSY),
    ("INT", "INT", "1", 1, ALWAYS),
    ("INT", "BIGINT", "1", 1, NON_LOSSY),
    ("BIGINT", "INT", "1", 1, LOSSY),
    ("BIGINT", "BIGINT", "1", 1, ALWAYS),
    ("CHAR(20)", "CHAR(20)", f"'{SMOOTH}'", SMOOTH, ALWAYS),
    ("CHAR(20)", "CHAR(30)", f"'{SMOOTH}'", SMOOTH, NON_LOSSY),
    ("CHAR(20)", "CHAR(10)", f"'{SMOOTH}'", "Smoothnood", LOSSY),
    ("CHAR(20)", "VARCHAR(20)", f"'{SMOOTH}'", SMOOTH, NON_LOSSY),
    ("CHAR(20)", "VARCHAR(10)", f"'{SMOOTH}'", "Smoothnood", LOSSY),
    ("CHAR(20)", "TEXT", f"'{SMOOTH}'", SMOOTH, NON_LOSSY),
    ("VARCHAR(20)", "VARCHAR(20)", f"'{SMOOTH}'", SMOOTH, ALWAYS),
    ("VARCHAR(20)", "VARCHAR(30)", f"'{SMOOTH}'", SMOOTH, NON_LOSSY),
    ("VARCHAR(20)", "VARCHAR(10)", f"'{SMOOTH}'", "Smoothnood", LOSSY),
    ("VARCHAR(20)", "CHAR(30)", f"'{SMOOTH}'", SMOOTH, NON_LOSSY),
    ("VARCHAR(20)", "CHAR(10)", f"'{SMOOTH}'", "Smoothnood", LOSSY),
    ("VARCHAR(20)", "LONGTEXT", f"'{SMOOTH}'", SMOOTH, NON_LOSSY),
    ("VARCHAR(500)", "VARCHAR(510)", f"'{BLOB}'", BLOB, NON_LOSSY),
    ("VARCHAR(500)", "VARCHAR(255)", f"'{BLOB}'", BLOB[:255], LOSSY),
    ("VARCHAR(500)", "TINYTEXT", f"'{BLOB}'", BLOB[:255], LOSSY),
    ("VARCHAR(500)", "TEXT", f"'{BLOB}'", BLOB, NON_LOSSY),
    ("TINYTEXT", "VARCHAR(500)", f"'{BLOB[:255]}'", BLOB[:255], NON_LOSSY),
    ("TEXT", "VARCHAR(500)", f"'{BLOB}'", BLOB, LOSSY),
    ("TINYTEXT", "CHAR(255)", f"'{BLOB[:255]}'", BLOB[:255], NON_LOSSY),
    ("TINYTEXT", "CHAR(250)", f"'{BLOB[:255]}'", BLOB[:250], LOSSY),
    ("TEXT", "TINYTEXT", f"'{BLOB}'", BLOB[:255], LOSSY),
    ("DECIMAL(10,5)", "DECIMAL(10,5)", "3.14159", Decimal("3.14159"), ALWAYS),
    ("DECIMAL(10,5)", "DECIMAL(10,6)", "3.14159", Decimal("3.141590"), NON_LOSSY),
    ("DECIMAL(10,5)", "DECIMAL(11,6)", "3.14159", Decimal("3.141590"), NON_LOSSY),
    ("DECIMAL(10,5)", "DECIMAL(10,4)", "3.14159", Decimal("3.1416"), LOSSY),
    ("DECIMAL(10,5)", "DECIMAL(9,5)", "3.14159", Decimal("3.14159"), LOSSY),
    ("FLOAT", "DECIMAL(10,5)", "3.15625", Decimal("3.15625"), LOSSY),
    ("DECIMAL(10,5)", "DOUBLE", "3.15625", 3.15625, LOSSY),
    ("FLOAT", "DOUBLE", "3.15625", 3.15625, NON_LOSSY),
    ("DOUBLE", "FLOAT", "3.15625", 3.15625, LOSSY),
    ("BIT(5)", "BIT(5)", "b'11001'", b"\x19", ALWAYS),
    ("BIT(5)", "BIT(6)", "b'11001'", b"\x19", NON_LOSSY),
    ("BIT(6)", "BIT(5)", "b'111001'", b"\x1f", LOSSY),
    ("BIT(12)", "BIT(5)", "b'101100111000'", b"\x1f", LOSSY),
]

#: the test's runs: @@replica_type_conversions and which can_convert values hold under it
FLAG_RUNS = {
    "": {ALWAYS},
    "ALL_NON_LOSSY": {ALWAYS, NON_LOSSY},
    "ALL_LOSSY": {ALWAYS, LOSSY},
    "ALL_LOSSY,ALL_NON_LOSSY": {ALWAYS, NON_LOSSY, LOSSY},
}


@pytest.mark.parametrize(
    ("source", "target", "value", "expected", "can"), ROWS, ids=[f"{r[0]}->{r[1]}:{r[2][:12]}" for r in ROWS]
)
def test_type_conversions_oracle(tmp_path, source, target, value, expected, can) -> None:
    src = tmp_path / "src"
    with open_new(src, log_bin=True, gtid_mode="OFF") as srv, srv.session() as s:
        s.execute("CREATE DATABASE test")
        s.execute(f"CREATE TABLE test.t1 (pk INT NOT NULL PRIMARY KEY, a {source}) CHARACTER SET latin1")
        s.execute(f"INSERT INTO test.t1 VALUES (1, {value})")
    insert = list(read_transactions(src / "binlog.000001"))[-1]
    with open_new(tmp_path / "rep", log_bin=False, gtid_mode="OFF") as r, r.session() as s:
        s.execute("CREATE DATABASE test")
        s.execute(f"CREATE TABLE test.t1 (pk INT NOT NULL PRIMARY KEY, a {target}) CHARACTER SET latin1")
        for flags, converts in FLAG_RUNS.items():
            s.execute(f"SET GLOBAL replica_type_conversions = '{flags}'")
            with r.applier_session() as ap:
                if can in converts:
                    assert ap.apply(insert), flags
                else:
                    with pytest.raises(MySQLError) as err:
                        ap.apply(insert)
                    assert err.value.code == 13146, (flags, err.value.message)
                    continue
            got = s.execute("SELECT a FROM test.t1")[-1].rows
            s.execute("DELETE FROM test.t1")
            if isinstance(expected, float):
                assert got == [(pytest.approx(expected),)], flags
            else:
                assert got == [(expected,)], flags


@pytest.mark.parametrize(
    ("source", "target", "message"),
    [
        ("VARCHAR(20)", "VARCHAR(10)", "from type 'varchar(20(bytes))' to type 'varchar(10(bytes) latin1)'"),
        ("CHAR(20)", "CHAR(10)", "from type 'char(20(bytes))' to type 'char(10(bytes) latin1)'"),
        ("DECIMAL(10,5)", "DECIMAL(9,5)", "from type 'decimal(10,5)' to type 'decimal(9,5)'"),
        ("INT", "BIGINT", "from type 'int' to type 'bigint'"),
    ],
    ids=["varchar", "char", "decimal", "int"],
)
def test_a_smaller_column_stops_the_applier_with_13146(tmp_path, source, target, message) -> None:
    src = tmp_path / "src"
    with open_new(src, log_bin=True, gtid_mode="OFF") as srv, srv.session() as s:
        s.execute("CREATE DATABASE test")
        s.execute(f"CREATE TABLE test.t1 (pk INT NOT NULL PRIMARY KEY, a {source}) CHARACTER SET latin1")
        s.execute("INSERT INTO test.t1 VALUES (1, 1)")
    insert = list(read_transactions(src / "binlog.000001"))[-1]
    with open_new(tmp_path / "rep", log_bin=False, gtid_mode="OFF") as r:
        with r.session() as s:
            s.execute("CREATE DATABASE test")
            s.execute(f"CREATE TABLE test.t1 (pk INT NOT NULL PRIMARY KEY, a {target}) CHARACTER SET latin1")
        with r.applier_session() as ap, pytest.raises(MySQLError) as err:
            ap.apply(insert)
    assert err.value.code == 13146
    assert err.value.message == f"Column 1 of table 'test.t1' cannot be converted {message}"


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("''", ""),
        ("'ALL_NON_LOSSY'", "ALL_NON_LOSSY"),
        ("'all_non_lossy,ALL_LOSSY'", "ALL_LOSSY,ALL_NON_LOSSY"),
        ("'ALL_SIGNED,ALL_UNSIGNED'", "ALL_UNSIGNED,ALL_SIGNED"),
        ("3", "ALL_LOSSY,ALL_NON_LOSSY"),
    ],
    ids=["empty", "one", "order", "signed", "bits"],
)
def test_replica_type_conversions_variable(open_server, written, shown) -> None:
    s = open_server().session()
    assert s.execute("SELECT @@GLOBAL.replica_type_conversions")[-1].rows == [("",)]
    s.execute(f"SET GLOBAL replica_type_conversions = {written}")
    assert s.execute("SELECT @@GLOBAL.replica_type_conversions, @@slave_type_conversions")[-1].rows == [
        (shown, shown)
    ]


def test_an_unknown_member_is_refused(open_server) -> None:
    # rpl_ndb_typeconv_*.result: ERROR 42000: Variable 'replica_type_conversions' can't be set to the value of
    # 'NONEXISTING_BIT'
    s = open_server().session()
    with pytest.raises(MySQLError) as err:
        s.execute("SET GLOBAL REPLICA_TYPE_CONVERSIONS='ALL_LOSSY,ALL_NON_LOSSY,NONEXISTING_BIT'")
    assert (err.value.code, err.value.message) == (
        1231,
        "Variable 'replica_type_conversions' can't be set to the value of 'NONEXISTING_BIT'",
    )


def test_startup_option(open_server) -> None:
    s = open_server(replica_type_conversions="ALL_NON_LOSSY").session()
    assert s.execute("SELECT @@replica_type_conversions")[-1].rows == [("ALL_NON_LOSSY",)]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ("ALL_NON_LOSSY", -1),
        ("ALL_NON_LOSSY,ALL_UNSIGNED", 65535),
        ("ALL_NON_LOSSY,ALL_UNSIGNED,ALL_SIGNED", -1),
    ],
    ids=["signed-default", "unsigned", "signed-wins"],
)
def test_promoted_integer_signedness(tmp_path, flags, expected) -> None:
    # manual "Replication with Differing Table Definitions": ALL_UNSIGNED treats promoted integers as unsigned,
    # ALL_SIGNED (the default) as signed, and ALL_SIGNED wins when both are set
    src = tmp_path / "src"
    with open_new(src, log_bin=True, gtid_mode="OFF") as srv, srv.session() as s:
        s.execute("CREATE DATABASE test")
        s.execute("CREATE TABLE test.t1 (pk INT NOT NULL PRIMARY KEY, a SMALLINT)")
        s.execute("INSERT INTO test.t1 VALUES (1, -1)")
    insert = list(read_transactions(src / "binlog.000001"))[-1]
    with open_new(tmp_path / "rep", log_bin=False, gtid_mode="OFF", replica_type_conversions=flags) as r:
        with r.session() as s:
            s.execute("CREATE DATABASE test")
            s.execute("CREATE TABLE test.t1 (pk INT NOT NULL PRIMARY KEY, a INT)")
        with r.applier_session() as ap:
            assert ap.apply(insert)
        assert r.session().execute("SELECT a FROM test.t1")[-1].rows == [(expected,)]
