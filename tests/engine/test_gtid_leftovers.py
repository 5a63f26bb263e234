"""GTID core leftovers, each against the MySQL 8.0 mysql-test result that specifies it.

* FLUSH statements: ``rpl_gtid/r/rpl_gtid_while_super_read_only.result`` §6 — one GTID per logged FLUSH (TABLES,
  TABLES t1, ENGINE LOGS, ERROR LOGS, GENERAL LOGS, HOSTS, PRIVILEGES, OPTIMIZER_COSTS, RELAY LOGS, SLOW LOGS,
  STATUS, USER_RESOURCES), none for FLUSH LOGS / BINARY LOGS, none for any with NO_WRITE_TO_BINLOG / LOCAL.
* ``SELECT ... FOR UPDATE`` on mysql.gtid_executed warns 3129 (``rpl_gtid/r/rpl_explicit_modify_gtid_table.result``);
  a plain SELECT does not.
* GNO exhaustion with ``binlog_error_action=IGNORE_ERROR`` (8.0.41 ``binlog_gtid/r/binlog_gtid_exhausted.result``):
  the INSERT fails with ER_GNO_EXHAUSTED yet its row is committed (count 2), the error log says "... Hence turning
  logging off for the whole duration of the MySQL server process ...", and the server goes on; with ABORT_SERVER the
  client gets 1598 "... Server is being stopped.".
"""

from __future__ import annotations

import logging

import pytest

from gtidkit.engine.results import Condition
from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet

LOGGED = [
    "FLUSH TABLES",
    "FLUSH TABLES t1",
    "FLUSH ENGINE LOGS",
    "FLUSH ERROR LOGS",
    "FLUSH GENERAL LOGS",
    "FLUSH HOSTS",
    "FLUSH PRIVILEGES",
    "FLUSH OPTIMIZER_COSTS",
    "FLUSH RELAY LOGS",
    "FLUSH SLOW LOGS",
    "FLUSH STATUS",
    "FLUSH USER_RESOURCES",
]
NOT_LOGGED = [
    "FLUSH LOGS",
    "FLUSH BINARY LOGS",
    "FLUSH LOCAL ENGINE LOGS",
    "FLUSH NO_WRITE_TO_BINLOG ERROR LOGS",
    "FLUSH NO_WRITE_TO_BINLOG GENERAL LOGS",
    "FLUSH NO_WRITE_TO_BINLOG HOSTS",
    "FLUSH NO_WRITE_TO_BINLOG LOGS",
    "FLUSH NO_WRITE_TO_BINLOG PRIVILEGES",
    "FLUSH NO_WRITE_TO_BINLOG OPTIMIZER_COSTS",
    "FLUSH NO_WRITE_TO_BINLOG RELAY LOGS",
    "FLUSH NO_WRITE_TO_BINLOG SLOW LOGS",
    "FLUSH NO_WRITE_TO_BINLOG STATUS",
    "FLUSH NO_WRITE_TO_BINLOG USER_RESOURCES",
    "FLUSH NO_WRITE_TO_BINLOG TABLES",
    "FLUSH NO_WRITE_TO_BINLOG TABLES t1",
    "FLUSH NO_WRITE_TO_BINLOG ENGINE LOGS",
    "FLUSH NO_WRITE_TO_BINLOG BINARY LOGS",
]
ROTATING = (
    "FLUSH LOGS",
    "FLUSH BINARY LOGS",
    "FLUSH NO_WRITE_TO_BINLOG LOGS",
    "FLUSH NO_WRITE_TO_BINLOG BINARY LOGS",
)
MAX_GNO = 2**63 - 1  # GNO_END: the largest GNO is MAX_GNO - 1
GNO_MESSAGE = (
    "Impossible to generate GTID: the integer component reached the maximum value. Restart the server with a new "
    "server_uuid."
)
WARNING_3129 = Condition(
    "Warning",
    3129,
    "Please do not modify the gtid_executed table. This is a mysql internal system table to store GTIDs for "
    "committed transactions. Modifying it can lead to an inconsistent GTID state.",
)


def _one(s, sql: str):
    return s.execute(sql)[-1].rows[0][0]


def _executed(s) -> GtidSet:
    return GtidSet.parse(_one(s, "SELECT @@GLOBAL.gtid_executed"))


@pytest.fixture
def flush_session(open_server):
    srv = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True, server_id=2)
    s = srv.session()
    s.execute("CREATE DATABASE test; USE test; CREATE TABLE t1 (c1 INT NOT NULL PRIMARY KEY)")
    return s


@pytest.mark.parametrize("sql", LOGGED + NOT_LOGGED, ids=LOGGED + NOT_LOGGED)
def test_flush_gtid_count(flush_session, sql):
    s = flush_session
    before = _executed(s)
    events_before = len(s.execute("SHOW BINLOG EVENTS")[-1].rows)
    s.execute(sql)
    added = _executed(s) - before
    assert added.count() == (1 if sql in LOGGED else 0)
    if sql in LOGGED:
        # a Gtid event and the statement as a Query event, with its default database
        last = s.execute("SHOW BINLOG EVENTS")[-1].rows[-2:]
        assert [r[2] for r in last] == ["Gtid", "Query"]
        assert last[1][5] == f"use `test`; {sql}"
    if sql in ROTATING:
        assert s.execute("SHOW MASTER STATUS")[-1].rows[0][0] == "binlog.000002"  # rotated, nothing logged
    else:
        assert len(s.execute("SHOW BINLOG EVENTS")[-1].rows) == events_before + (2 if sql in LOGGED else 0)


def test_flush_commits_the_open_transaction(flush_session):
    s = flush_session
    s.execute("BEGIN")
    s.execute("INSERT INTO t1 VALUES (1)")
    before = _executed(s)
    s.execute("FLUSH ENGINE LOGS")  # implicit commit, then its own GTID
    assert (_executed(s) - before).count() == 2
    assert not s.in_transaction()


@pytest.mark.parametrize(
    ("sql", "warns"),
    [
        ("SELECT * FROM mysql.gtid_executed WHERE source_uuid = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa' FOR UPDATE", True),
        ("SELECT * FROM mysql.gtid_executed WHERE source_uuid = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'", False),
        ("SELECT * FROM mysql.gtid_executed FOR SHARE", False),
        ("SELECT @@GLOBAL.gtid_executed FOR UPDATE", False),
    ],
    ids=["for-update", "plain", "for-share", "variable"],
)  # fmt: skip
def test_select_for_update_on_gtid_table_warns(open_server, sql, warns):
    s = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True).session()
    res = s.execute(sql)[-1]
    assert res.warnings == ((WARNING_3129,) if warns else ())


def test_gno_exhausted_ignore_error_commits_and_turns_logging_off(open_server, caplog):
    srv = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True)
    s = srv.session()
    s.execute("SET GLOBAL binlog_error_action = IGNORE_ERROR")
    s.execute("CREATE DATABASE test; USE test; CREATE TABLE t1 (a INT PRIMARY KEY)")
    s.execute("RESET MASTER")
    s.execute(f"SET GLOBAL gtid_purged = CONCAT(@@GLOBAL.server_uuid, ':1-{MAX_GNO - 2}')")
    s.execute("INSERT INTO t1 VALUES (1)")
    with caplog.at_level(logging.ERROR), pytest.raises(MySQLError) as exc:
        s.execute("INSERT INTO t1 VALUES (2)")
    assert (exc.value.code, exc.value.message) == (1775, GNO_MESSAGE)
    assert _one(s, "SELECT COUNT(*) FROM t1") == 2  # committed all the same
    assert any(
        r.getMessage()
        == f"{GNO_MESSAGE} Hence turning logging off for the whole duration of the MySQL server process. To turn it "
        "on again: fix the cause, shutdown the MySQL server and restart it."
        for r in caplog.records
    )
    # the server goes on, without a binary log
    with pytest.raises(MySQLError) as exc:
        s.execute("SHOW BINARY LOGS")
    assert exc.value.code == 1381
    s.execute("INSERT INTO t1 VALUES (3)")
    assert _one(s, "SELECT COUNT(*) FROM t1") == 3
    assert _one(s, "SELECT @@GLOBAL.gtid_executed") == f"{srv.server_uuid}:1-{MAX_GNO - 1}"


def test_gno_exhausted_abort_server_message(open_server):
    srv = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE test; USE test; CREATE TABLE t1 (a INT PRIMARY KEY)")
    s.execute("RESET MASTER")
    s.execute(f"SET GLOBAL gtid_purged = CONCAT(@@GLOBAL.server_uuid, ':1-{MAX_GNO - 2}')")
    s.execute("INSERT INTO t1 VALUES (1)")
    s.execute("SET GLOBAL binlog_error_action = ABORT_SERVER")
    with pytest.raises(MySQLError) as exc:
        s.execute("INSERT INTO t1 VALUES (2)")
    assert (exc.value.code, exc.value.message) == (
        1598,
        f"Binary logging not possible. Message: {GNO_MESSAGE} Server is being stopped.",
    )


# CHECKSUM TABLE: values from MySQL 8.0.41 mysql-test results (InnoDB tables, no live checksum)
CHECKSUM_CASES = [
    # innodb/r/innodb_misc1.result
    ("create table t1(a int not null) DEFAULT CHARSET=latin1", ["insert into t1 values (1),(2)"], "t1", 1531596814),
    ("create table t1(a int not null) DEFAULT CHARSET=latin1", ["insert into t1 values (1),(2),(3)"], "t1", 2050879373),
    # innodb/r/innodb.result: NULLs, an empty VARCHAR and TEXT (a packed record)
    (
        "create table t2 (a int, b varchar(200), c text not null)",
        ["insert t2 values (1, 'aaa', 'bbb'), (NULL, '', 'ccccc'), (0, NULL, '')"],
        "t2",
        2948697075,
    ),
    # json/r/json_ddl_innodb.result (Bug#23535703): a JSON column by its text
    ("CREATE TABLE t(j JSON)", ["INSERT INTO t VALUES ('[1,2,3]')"], "t EXTENDED", 3005741875),
    # r/merge_myisam.result: a nullable INT column
    ("CREATE TABLE t4 (c1 INT)", ["INSERT INTO t4 VALUES (1),(2),(3),(4),(4)"], "t4", 46622073),
]  # fmt: skip


@pytest.mark.parametrize(
    ("ddl", "inserts", "target", "value"),
    CHECKSUM_CASES,
    ids=["int2", "int3", "nulls-varchar-text", "json", "nullable"],
)
def test_checksum_table_values(open_server, ddl, inserts, target, value):
    s = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True).session()
    s.execute("CREATE DATABASE test; USE test")
    s.execute(ddl)
    for sql in inserts:
        s.execute(sql)
    res = s.execute(f"CHECKSUM TABLE {target}")[-1]
    assert [c.name for c in res.columns] == ["Table", "Checksum"]
    assert res.rows == [(f"test.{target.split()[0]}", value)]


def test_checksum_table_missing_quick_and_no_gtid(open_server):
    """binlog_gtid_next_partially_failed_stmts.result: ``test.t1 0``, ``test.t_non_existent NULL`` with warning
    ``Error 1146``, no GTID, nothing binlogged; QUICK is NULL for InnoDB (innodb.result); no implicit commit."""
    s = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True).session()
    s.execute("CREATE DATABASE test; USE test; CREATE TABLE t1 (a INT, b INT)")
    before = _executed(s)
    events = len(s.execute("SHOW BINLOG EVENTS")[-1].rows)
    res = s.execute("CHECKSUM TABLE t1, t_non_existent")[-1]
    assert res.rows == [("test.t1", 0), ("test.t_non_existent", None)]
    assert res.warnings == (Condition("Error", 1146, "Table 'test.t_non_existent' doesn't exist"),)
    assert _executed(s) == before and len(s.execute("SHOW BINLOG EVENTS")[-1].rows) == events
    s.execute("INSERT INTO t1 VALUES (1, 2)")
    assert s.execute("CHECKSUM TABLE t1 QUICK")[-1].rows == [("test.t1", None)]
    s.execute("BEGIN")
    s.execute("INSERT INTO t1 VALUES (3, 4)")
    s.execute("CHECKSUM TABLE t1")
    assert s.in_transaction()  # implicit_commit.result: SQLCOM_CHECKSUM commits nothing
    s.execute("ROLLBACK")
