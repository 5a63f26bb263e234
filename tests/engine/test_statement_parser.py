"""The statement parser (``engine/statements/classify.py``), one line per statement form, in the spirit of
sqlglot's ``validate_identity`` tables: each text becomes one typed statement (kind, command) with its arguments
named. The forms and their arguments are MySQL's grammar (``sql/sql_yacc.yy``; RM8 "SQL Statements": KILL,
SHUTDOWN, SHOW PROCESSLIST, SHOW VARIABLES, SHOW BINARY LOG STATUS / SHOW MASTER STATUS, SHOW REPLICA / SLAVE
STATUS, LOCK / UNLOCK TABLES, FLUSH TABLES ... WITH READ LOCK, PURGE BINARY LOGS, RESET BINARY LOGS AND GTIDS,
START / STOP REPLICA, CHANGE REPLICATION SOURCE, transaction control, savepoints, PREPARE / EXECUTE).
"""

from __future__ import annotations

from typing import Any

import pytest

from gtidkit.engine.statements.classify import classify

#: text -> (kind, command, arguments the statement must carry)
CASES: list[tuple[str, str, str | None, dict[str, Any]]] = [
    ("BEGIN", "begin", "begin", {}),
    ("START TRANSACTION READ ONLY", "begin", "begin", {}),
    ("COMMIT AND NO CHAIN RELEASE", "commit", "commit", {"chain": "AND NO CHAIN", "release": "RELEASE"}),
    ("ROLLBACK WORK AND CHAIN", "rollback", "rollback", {"chain": "AND CHAIN"}),
    ("ROLLBACK TO SAVEPOINT `s 1`", "rollback_to_savepoint", "rollback_to_savepoint", {"name": "s 1"}),
    ("SAVEPOINT sp1", "savepoint", "savepoint", {"name": "sp1"}),
    ("RELEASE SAVEPOINT sp1", "release_savepoint", "release_savepoint", {"name": "sp1"}),
    ("USE `my db`", "use", "use", {"db": "my db"}),
    ("FLUSH LOGS", "admin", "flush_logs", {}),
    ("FLUSH LOCAL BINARY LOGS", "admin", "flush_logs", {}),
    ("FLUSH TABLES WITH READ LOCK", "admin", "flush_tables_with_read_lock", {}),
    (
        "FLUSH TABLES t1, db.t2 WITH READ LOCK",
        "admin",
        "flush_tables_with_read_lock",
        {"tables": "t1, db.t2"},
    ),
    ("FLUSH NO_WRITE_TO_BINLOG PRIVILEGES", "admin", "flush", {"local": True, "options": "PRIVILEGES"}),
    ("RESET MASTER", "admin", "reset_binary_logs", {}),
    ("RESET BINARY LOGS AND GTIDS TO 7", "admin", "reset_binary_logs", {"to": 7}),
    ("RESET REPLICA ALL", "admin", "reset_replica", {"all": True}),
    ("RESET SLAVE", "admin", "reset_replica", {"all": False}),
    ("PURGE BINARY LOGS TO 'binlog.000003'", "admin", "purge_binary_logs_to", {"to": "binlog.000003"}),
    (
        "PURGE MASTER LOGS BEFORE '2024-01-02 03:04:05'",
        "admin",
        "purge_binary_logs_before",
        {"before": "2024-01-02 03:04:05"},
    ),
    ("START REPLICA", "admin", "replica_thread", {"start": True}),
    ("STOP SLAVE IO_THREAD", "admin", "replica_thread", {"start": False, "threads": "IO_THREAD"}),
    (
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PORT=3306, SOURCE_AUTO_POSITION=1",
        "admin",
        "change_replication_source",
        {"options": {"source_host": "h", "source_port": 3306, "source_auto_position": 1}},
    ),
    ("SHOW BINARY LOG STATUS", "show", "binary_log_status", {"master": False}),
    ("SHOW MASTER STATUS", "show", "binary_log_status", {"master": True}),
    ("SHOW BINARY LOGS", "show", "binary_logs", {}),
    (
        "SHOW BINLOG EVENTS IN 'binlog.000001' FROM 4 LIMIT 2, 3",
        "show",
        "binlog_events",
        {"file": "binlog.000001", "pos": 4, "off": 2, "cnt": 3},
    ),
    ("SHOW REPLICA STATUS", "show", "replica_status", {"slave": False}),
    ("SHOW SLAVE STATUS FOR CHANNEL ''", "show", "replica_status", {"slave": True, "channel": ""}),
    # FOR CHANNEL takes a quoted string, lowercased (sql_yacc.yy opt_channel: my_casedn_str)
    ("SHOW REPLICA STATUS FOR CHANNEL 'Ch_1'", "show", "replica_status", {"slave": False, "channel": "ch_1"}),
    ('RESET REPLICA ALL FOR CHANNEL "c"', "admin", "reset_replica", {"all": True, "channel": "c"}),
    ("START REPLICA FOR CHANNEL 'c'", "admin", "replica_thread", {"start": True, "channel": "c"}),
    (
        "START REPLICA SQL_THREAD UNTIL SQL_BEFORE_GTIDS = 'a' FOR CHANNEL 'c'",
        "admin",
        "replica_thread",
        {"start": True, "threads": "SQL_THREAD", "rest": "UNTIL SQL_BEFORE_GTIDS = 'a'", "channel": "c"},
    ),
    (
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL 'c'",
        "admin",
        "change_replication_source",
        {"options": {"source_host": "h"}, "channel": "c"},
    ),
    ("SHOW RELAYLOG EVENTS FOR CHANNEL 'c'", "show", "relaylog_events", {"channel": "c"}),
    (
        "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d) FOR CHANNEL 'c'",
        "admin",
        "change_replication_filter",
        {"channel": "c"},
    ),
    ("SHOW REPLICAS", "show", "replicas", {}),
    ("SHOW WARNINGS LIMIT 1, 2", "show", "warnings", {"off": 1, "cnt": 2}),
    ("SHOW ERRORS", "show", "errors", {}),
    ("SHOW COUNT(*) WARNINGS", "show", "count_warnings", {}),
    ("SHOW COUNT(*) ERRORS", "show", "count_errors", {}),
    ("SHOW VARIABLES", "show", "variables", {}),
    ("SHOW GLOBAL VARIABLES LIKE 'gtid%'", "show", "variables", {"scope": "GLOBAL", "like": "'gtid%'"}),
    (
        "SHOW SESSION VARIABLES WHERE Variable_name = 'x'",
        "show",
        "variables",
        {"scope": "SESSION", "where": "Variable_name = 'x'"},
    ),
    ("SHOW PROCESSLIST", "show", "processlist", {"full": False}),
    ("SHOW FULL PROCESSLIST", "show", "processlist", {"full": True}),
    ("ANALYZE LOCAL TABLE t1, t2", "admin", "table_maintenance", {"op": "analyze", "local": True}),
    ("CHECKSUM TABLE t1", "admin", "checksum_table", {"tables": "t1"}),
    ("XA START 'x'", "admin", "xa", {}),
    ("LOCK TABLES t1 READ, t2 WRITE", "admin", "lock_tables", {}),
    ("UNLOCK TABLES", "admin", "unlock_tables", {}),
    ("KILL 12", "admin", "kill", {"id": 12, "query_only": False}),
    ("KILL CONNECTION 12", "admin", "kill", {"id": 12, "query_only": False}),
    ("KILL QUERY 12", "admin", "kill", {"id": 12, "query_only": True}),
    ("SHUTDOWN", "other", "shutdown", {}),
    ("PREPARE s FROM 'SELECT ?'", "prepared", "prepare", {"name": "s", "text": "SELECT ?"}),
    ("EXECUTE s USING @a, @b", "prepared", "execute", {"name": "s", "using": ("a", "b")}),
    ("DEALLOCATE PREPARE s", "prepared", "deallocate", {"name": "s"}),
    ("CREATE USER u@'%' IDENTIFIED BY 'p'", "account", None, {"keyword": "CREATE"}),
    ("ALTER USER u IDENTIFIED BY 'p'", "account", None, {"keyword": "ALTER"}),
    ("SET PASSWORD = 'x'", "account", None, {"keyword": "SET"}),
    ("SELECT 1", "select", None, {}),
    ("REPLACE INTO t VALUES (1)", "dml", None, {"replace": True}),
    ("SET @a = 1", "set", None, {}),
]


@pytest.mark.parametrize(("text", "kind", "command", "args"), CASES, ids=[c[0] for c in CASES])
def test_statement(text: str, kind: str, command: str | None, args: dict[str, Any]) -> None:
    stmt = classify(text)
    assert (stmt.kind, stmt.command) == (kind, command)
    assert {k: stmt.info.get(k) for k in args} == args


@pytest.mark.parametrize(
    ("text", "verb", "kind", "name"),
    [
        ("CREATE DATABASE IF NOT EXISTS `d1`", "CREATE", "DATABASE", "d1"),
        ("DROP SCHEMA d2", "DROP", "DATABASE", "d2"),
        ("ALTER DATABASE d3 CHARACTER SET utf8mb4", "ALTER", "DATABASE", None),
        ("CREATE UNIQUE INDEX i ON t (a)", "CREATE", "INDEX", None),
        ("DROP INDEX i ON t", "DROP", "INDEX", None),
        ("CREATE TABLE t (a INT)", "CREATE", "", None),
        ("TRUNCATE TABLE t", "TRUNCATE", "", None),
    ],
)
def test_ddl_object(text: str, verb: str, kind: str, name: str | None) -> None:
    target = classify(text).ddl_object
    assert (target.verb, target.kind, target.name) == (verb, kind, name)
