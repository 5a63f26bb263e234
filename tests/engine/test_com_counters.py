"""Com_xxx, Questions and Queries in the engine (engine/statements/com_counters.py, status.py).

Expected values from MySQL: RM8 "Server Status Variables" (Com_xxx: "The Com_xxx statement counter variables
indicate the number of times each xxx statement has been executed"; Com_stmt_xxx also count PREPARE / EXECUTE /
DEALLOCATE PREPARE, Com_prepare_sql / Com_execute_sql / Com_dealloc_sql those statements; Com_replica_start and
Com_slave_start count the same statements), ``com_status_vars`` of ``sql/mysqld.cc`` (the names and their
order), mysql-test ``main/r/status.result`` (``flush status; show status like 'Com%function'`` lists 0s;
``Com_show_status`` counts the SHOW that reads it), RM8 "Performance Schema Status Variable Tables" (no Com_ rows
in global_status / session_status), ``refresh_status`` (FLUSH STATUS: every thread's counters to the global ones,
then 0).
"""

from __future__ import annotations

import pytest

from gtidkit.engine.statements import com_counters
from gtidkit.engine.statements.classify import classify
from gtidkit.errors import MySQLError


@pytest.fixture
def session(open_server):
    """A session of a server without a binary log, in database ``test`` with a table ``t (a INT)``."""
    s = open_server(log_bin=False).session()
    s.execute("CREATE DATABASE test")
    s.execute("USE test")
    s.execute("CREATE TABLE t (a INT)")
    return s


def _moved(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {n: after[n] - before[n] for n in after if after[n] != before[n]}


def _status(session, scope: str = "SESSION", like: str = "%") -> dict[str, int]:
    rows = session.execute(f"SHOW {scope} STATUS LIKE '{like}'")[0].rows
    return {name: int(value) for name, value in rows if value.lstrip("-").isdigit()}


#: (statement, the Com_ counter it bumps): sql_parse.cc's SQLCOM_ of the statement
CASES = [
    ("SELECT 1", "Com_select"),
    ("INSERT INTO t VALUES (1)", "Com_insert"),
    ("INSERT INTO t (a) SELECT 1", "Com_insert_select"),
    ("REPLACE INTO t VALUES (1)", "Com_replace"),
    ("REPLACE INTO t SELECT a FROM t", "Com_replace_select"),
    ("UPDATE t SET a = a + 1", "Com_update"),
    ("UPDATE t, t AS u SET t.a = 1", "Com_update_multi"),
    ("DELETE FROM t WHERE a = 0", "Com_delete"),
    ("DELETE t FROM t JOIN t AS u ON t.a = u.a WHERE t.a = 0", "Com_delete_multi"),
    ("BEGIN", "Com_begin"),
    ("COMMIT", "Com_commit"),
    ("ROLLBACK", "Com_rollback"),
    ("SET @a = 1", "Com_set_option"),
    ("USE test", "Com_change_db"),
    ("SHOW VARIABLES LIKE 'gtid_mode'", "Com_show_variables"),
    ("SHOW TABLES", "Com_show_tables"),
    ("SHOW WARNINGS", "Com_show_warnings"),
    ("SHOW COUNT(*) WARNINGS", "Com_select"),  # a SELECT of @@warning_count in MySQL's grammar
    ("SHOW CREATE TABLE t", "Com_show_create_table"),
    ("SHOW DATABASES", "Com_show_databases"),
    ("SHOW BINARY LOGS", "Com_show_binlogs"),
    ("SHOW MASTER STATUS", "Com_show_master_status"),
    ("DESCRIBE t", "Com_show_fields"),
    ("CREATE TABLE t2 (a INT)", "Com_create_table"),
    ("DROP TABLE t2", "Com_drop_table"),
    ("CREATE DATABASE d2", "Com_create_db"),
    ("DROP DATABASE d2", "Com_drop_db"),
    ("TRUNCATE TABLE t", "Com_truncate"),
    ("FLUSH LOGS", "Com_flush"),
    ("DO 1", "Com_do"),
    ("EXPLAIN SELECT * FROM t", "Com_select"),
    ("CREATE USER u1", "Com_create_user"),
    ("DROP USER u1", "Com_drop_user"),
]


@pytest.mark.parametrize(("sql", "counter"), CASES, ids=[c[0] for c in CASES])
def test_each_statement_bumps_its_counter(session, sql: str, counter: str) -> None:
    s = session
    before = _status(s, like="Com\\_%")
    try:  # a statement that fails counts all the same (DROP TABLE t2 of a missing table: 1051)
        s.execute(sql)
    except MySQLError:
        pass
    changed = _moved(_status(s, like="Com\\_%"), before)
    # the SHOW STATUS that reads them counts itself (mysql-test status.result: Com_show_status)
    expected = {counter: 1, "Com_show_status": 1}
    if counter == "Com_show_status":
        expected = {counter: 2}
    assert changed == expected


def test_every_mysql_8_0_counter_is_listed_with_0_until_run(open_server) -> None:
    server = open_server(log_bin=False)
    s = server.session()
    rows = s.execute("SHOW SESSION STATUS LIKE 'Com%'")[0].rows
    names = [n for n, _ in rows]
    assert names == [f"Com_{n}" for n in com_counters.COM_NAMES]  # MySQL's com_status_vars order
    assert len(names) == 172
    values = dict(rows)
    assert values["Com_show_status"] == "1"  # this SHOW
    assert {n for n, v in values.items() if v != "0"} == {"Com_show_status"}
    # mysql-test status.result: flush status; show status like 'Com%function'
    function_rows = s.execute("SHOW STATUS LIKE 'Com%function'")[0].rows
    assert function_rows == [
        ("Com_alter_function", "0"),
        ("Com_create_function", "0"),
        ("Com_drop_function", "0"),
    ]


def test_replica_and_slave_names_show_one_counter(open_server) -> None:
    server = open_server(log_bin=False)
    s = server.session()
    s.status_counts[com_counters.slot("replica_start")] += 2  # as two START REPLICA / START SLAVE would
    got = dict(
        s.execute("SHOW STATUS WHERE Variable_name IN ('Com_replica_start', 'Com_slave_start')")[0].rows
    )
    assert got == {"Com_replica_start": "2", "Com_slave_start": "2"}


def test_prepared_statements_count_stmt_and_sql_counters(session) -> None:
    s = session
    before = _status(s, like="Com%")
    s.execute("PREPARE p FROM 'INSERT INTO t VALUES (?)'")
    s.execute("SET @v = 1")
    s.execute("EXECUTE p USING @v")
    s.execute("EXECUTE p USING @v")
    s.execute("DEALLOCATE PREPARE p")
    assert _moved(_status(s, like="Com%"), before) == {
        "Com_prepare_sql": 1,
        "Com_stmt_prepare": 1,
        "Com_execute_sql": 2,
        "Com_stmt_execute": 2,
        "Com_insert": 2,  # the executed statement counts as what it is
        "Com_dealloc_sql": 1,
        "Com_stmt_close": 1,
        "Com_set_option": 1,
        "Com_show_status": 1,
    }


def test_prepared_select_on_the_short_path_counts_com_select(open_server) -> None:
    server = open_server(log_bin=False)
    s = server.session()
    s.execute("CREATE DATABASE test")
    s.execute("USE test")
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, c INT)")
    s.execute("INSERT INTO t VALUES (1, 10)")
    stmt = s.prepare("SELECT c FROM t WHERE id = ?")
    before = list(s.status_counts)
    for _ in range(3):
        assert s.execute_prepared(stmt, [1])[0].rows == [(10,)]
    assert s.status_counts[com_counters.slot("select")] - before[com_counters.slot("select")] == 3
    assert s.status_counts[com_counters.QUERIES] - before[com_counters.QUERIES] == 3


def test_session_and_global_scope_and_flush_status(open_server) -> None:
    server = open_server(log_bin=False)
    a, b = server.session(), server.session()
    a.execute("SELECT 1")
    a.execute("SELECT 2")
    b.execute("SELECT 3")
    c = server.session()
    c.execute("SELECT 4")
    c.close()  # a closed session's counts stay in the global sums
    assert _status(a, "SESSION", "Com_select")["Com_select"] == 2
    assert _status(b, "SESSION", "Com_select")["Com_select"] == 1
    assert _status(a, "GLOBAL", "Com_select")["Com_select"] == 4
    # Queries: the server's statement count (MySQL's query id), the same in both scopes
    queries = _status(a, "GLOBAL", "Queries")["Queries"]
    assert _status(b, "SESSION", "Queries")["Queries"] == queries + 1
    b.execute("FLUSH STATUS")
    # every session starts again from 0 (refresh_status resets every THD); the global sums stay
    assert _status(a, "SESSION", "Com_select")["Com_select"] == 0
    assert _status(b, "SESSION", "Com_%")["Com_flush"] == 0
    assert _status(a, "GLOBAL", "Com_select")["Com_select"] == 4
    assert _status(a, "GLOBAL", "Com_flush")["Com_flush"] == 1


def test_performance_schema_status_tables_have_no_com_rows(open_server) -> None:
    server = open_server(log_bin=False)
    s = server.session()
    s.execute("SELECT 1")
    for table in ("global_status", "session_status"):
        rows = s.execute(f"SELECT VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.{table}")[0].rows
        names = {n for n, _ in rows}
        assert "Uptime" in names and "Queries" in names and "Questions" in names
        assert not any(n.startswith("Com_") for n in names)
    glob = s.execute(
        "SELECT VARIABLE_VALUE FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Queries'"
    )
    assert int(glob[0].rows[0][0]) >= 3


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("GRANT SELECT ON *.* TO u", "grant"),
        ("GRANT r1 TO u", "grant_roles"),
        ("REVOKE r1 FROM u", "revoke_roles"),
        ("REVOKE ALL PRIVILEGES, GRANT OPTION FROM u", "revoke_all"),
        ("SET PASSWORD = 'x'", "set_password"),
        ("START SLAVE", "replica_start"),
        ("STOP REPLICA IO_THREAD", "replica_stop"),
        ("CHANGE MASTER TO MASTER_HOST = 'h'", "change_replication_source"),
        ("SHOW SLAVE HOSTS", "show_replicas"),
        ("SHOW FUNCTION STATUS", "show_function_status"),
        ("XA START 'x'", "xa_start"),
        ("CREATE OR REPLACE VIEW v AS SELECT 1", "create_view"),
        ("CREATE TEMPORARY TABLE tt (event INT)", "create_table"),
        ("DELETE FROM t1 USING t1, t2 WHERE t1.a = t2.a", "delete_multi"),
        ("INSERT INTO db.t (a, b) (SELECT 1, 2)", "insert_select"),
        ("INSERT INTO t (a) VALUES ('select')", "insert"),
        ("PURGE BINARY LOGS BEFORE '2020-01-01'", "purge_before_date"),
    ],
    ids=lambda v: v if isinstance(v, str) and " " not in v else None,
)
def test_slot_of(text: str, name: str) -> None:
    assert com_counters.slot_of(classify(text)) == com_counters.slot(name)
