"""The statement specs (``engine/statements/specs.py``, MySQL's ``sql_command_flags``), one line per statement:
whether it commits the open transaction first (RM8 "Statements That Cause an Implicit Commit": DDL, account
statements, LOCK TABLES, FLUSH, RESET, PURGE, ANALYZE / CHECK / OPTIMIZE / REPAIR TABLE, START / STOP REPLICA, CHANGE
REPLICATION SOURCE; not KILL, not XA, not SHOW or DML), whether it is a diagnostic statement (CF_DIAGNOSTIC_STMT: SHOW
WARNINGS / ERRORS and their COUNT(*) forms) and which global privileges it needs (RM8 "Privileges Provided by
MySQL": RELOAD for FLUSH and RESET BINARY LOGS, BINLOG_ADMIN for PURGE, REPLICATION_SLAVE_ADMIN for the replica
statements, REPLICATION CLIENT for SHOW BINARY LOG STATUS / REPLICA STATUS, REPLICATION SLAVE for SHOW REPLICAS,
SHUTDOWN for SHUTDOWN; SUPER is accepted in place of the dynamic ones).
"""

from __future__ import annotations

import pytest

from gtidkit.engine.statements.classify import classify

SPECS = [
    # text, implicit commit, diagnostic, global privileges (any one of)
    ("CREATE TABLE t (a INT)", True, False, ()),
    # "CREATE TABLE and DROP TABLE statements do not commit a transaction if the TEMPORARY keyword is used"
    ("CREATE TEMPORARY TABLE t (a INT)", False, False, ()),
    ("DROP TEMPORARY TABLE t", False, False, ()),
    ("DROP DATABASE d", True, False, ()),
    ("CREATE USER u", True, False, ()),
    ("GRANT SELECT ON *.* TO u", True, False, ()),
    ("LOCK TABLES t READ", True, False, ()),
    ("UNLOCK TABLES", True, False, ()),
    ("FLUSH LOGS", True, False, ("RELOAD",)),
    ("FLUSH PRIVILEGES", True, False, ("RELOAD",)),
    ("FLUSH TABLES WITH READ LOCK", True, False, ()),
    ("RESET BINARY LOGS AND GTIDS", True, False, ("RELOAD",)),
    ("PURGE BINARY LOGS TO 'b.000002'", True, False, ("SUPER", "BINLOG_ADMIN")),
    ("START REPLICA", True, False, ("SUPER", "REPLICATION_SLAVE_ADMIN")),
    ("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h'", True, False, ("SUPER", "REPLICATION_SLAVE_ADMIN")),
    ("RESET REPLICA", True, False, ("SUPER", "REPLICATION_SLAVE_ADMIN")),
    ("ANALYZE TABLE t", True, False, ()),
    ("KILL 3", False, False, ()),
    ("CHECKSUM TABLE t", False, False, ()),  # implicit_commit.result: SQLCOM_CHECKSUM does not commit
    ("XA START 'x'", False, False, ()),
    ("SHOW BINARY LOG STATUS", False, False, ("SUPER", "REPLICATION CLIENT")),
    ("SHOW BINARY LOGS", False, False, ("SUPER", "REPLICATION CLIENT")),
    ("SHOW REPLICA STATUS", False, False, ("SUPER", "REPLICATION CLIENT")),
    ("SHOW REPLICAS", False, False, ("REPLICATION SLAVE",)),
    ("SHOW WARNINGS", False, True, ()),
    ("SHOW COUNT(*) ERRORS", False, True, ()),
    ("SHOW VARIABLES", False, False, ()),
    ("SHUTDOWN", False, False, ("SHUTDOWN",)),
    ("SELECT 1", False, False, ()),
    ("INSERT INTO t VALUES (1)", False, False, ()),
    ("BEGIN", False, False, ()),
    ("SET @a = 1", False, False, ()),
]


@pytest.mark.parametrize(("text", "commits", "diagnostic", "privileges"), SPECS, ids=[s[0] for s in SPECS])
def test_spec(text: str, commits: bool, diagnostic: bool, privileges: tuple[str, ...]) -> None:
    spec = classify(text).spec
    assert (spec.implicit_commit, spec.diagnostic, spec.privileges) == (commits, diagnostic, privileges)
