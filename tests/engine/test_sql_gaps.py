"""SQL that applications use and the engine used to refuse with 1235: multi-table UPDATE / DELETE, temporary
tables, CREATE TABLE ... SELECT. Expected values are MySQL's (RM8 statement pages, quoted per test); binlog
shapes are checked through SHOW BINLOG EVENTS and re-applied by the replica applier."""

from __future__ import annotations

import pytest

from gtidkit.engine.apply import read_transactions
from gtidkit.errors import MySQLError


def _events(s) -> list[tuple[str, str]]:
    return [(r[2], r[5]) for r in s.execute("SHOW BINLOG EVENTS")[-1].rows]


def _last_trx(s) -> list[tuple[str, str]]:
    ev = _events(s)
    start = max(i for i, (t, _) in enumerate(ev) if t == "Gtid")
    return ev[start:]


def _gtids(s) -> str:
    return s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows[0][0]


def _replay(primary, open_server, tmp_path):
    """Apply every transaction of the primary's binlog on a fresh replica; returns the replica's session."""
    path = primary.binlog.path(primary.binlog.existing_files()[-1])
    trxs = list(read_transactions(path))
    rep = open_server(tmp_path / "replica", gtid_mode="ON", log_bin=True, log_replica_updates=True)
    applier = rep.applier_session()
    for trx in trxs:
        applier.apply(trx)
    return rep.session()


@pytest.fixture
def primary(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE test")
    s.execute("USE test")
    s.execute("CREATE TABLE t1 (a INT PRIMARY KEY, b INT)")
    s.execute("CREATE TABLE t2 (a INT PRIMARY KEY, c INT)")
    s.execute("INSERT INTO t1 VALUES (1, 10), (2, 20), (3, 30)")
    s.execute("INSERT INTO t2 VALUES (1, 100), (2, 200), (4, 400)")
    return srv, s


# ---------------------------------------------------------------- multi-table UPDATE / DELETE (RM8 15.2.17, 15.2.2)
def test_multi_table_update_changes_both_tables_in_one_gtid(primary, open_server, tmp_path):
    srv, s = primary
    before = _gtids(s)
    (res,) = s.execute("UPDATE t1 JOIN t2 ON t1.a = t2.a SET t1.b = t2.c, t2.c = t2.c + 1 WHERE t2.c > 50")
    # "Rows matched" counts the distinct rows of the updated tables the join found
    assert (res.affected_rows, res.info) == (4, "Rows matched: 4  Changed: 4  Warnings: 0")
    assert s.execute("SELECT * FROM t1")[-1].rows == [(1, 100), (2, 200), (3, 30)]
    assert s.execute("SELECT * FROM t2")[-1].rows == [(1, 101), (2, 201), (4, 400)]
    trx = _last_trx(s)
    assert [t for t, _ in trx] == [
        "Gtid",
        "Query",
        "Table_map",
        "Table_map",
        "Update_rows",
        "Update_rows",
        "Xid",
    ]
    assert _gtids(s) != before and _gtids(s).endswith(":1-" + str(int(before.rsplit("-", 1)[1]) + 1))
    rep = _replay(srv, open_server, tmp_path)
    assert rep.execute("SELECT * FROM test.t1")[-1].rows == [(1, 100), (2, 200), (3, 30)]
    assert rep.execute("SELECT * FROM test.t2")[-1].rows == [(1, 101), (2, 201), (4, 400)]


def test_multi_table_update_comma_join_and_unchanged_rows(primary):
    _srv, s = primary
    (res,) = s.execute("UPDATE t1, t2 SET b = 10 WHERE t1.a = t2.a")
    # row 1 already has b = 10: matched, not changed (HA_ERR_RECORD_IS_THE_SAME)
    assert res.info == "Rows matched: 2  Changed: 1  Warnings: 0"
    with pytest.raises(MySQLError) as exc:
        s.execute("UPDATE t1, t2 SET a = 5 WHERE t1.a = t2.a")
    assert exc.value.code == 1052  # Column 'a' in field list is ambiguous
    with pytest.raises(MySQLError) as exc:
        s.execute("UPDATE t1 JOIN t2 ON t1.a = t2.a SET t1.a = 2")
    assert exc.value.code == 1062
    assert s.execute("SELECT a FROM t1")[-1].rows == [(1,), (2,), (3,)]  # the statement was undone


@pytest.mark.parametrize(
    ("sql", "t1_left", "t2_left", "affected"),
    [
        ("DELETE t1 FROM t1 JOIN t2 ON t1.a = t2.a WHERE t2.c > 150", [1, 3], [1, 2, 4], 1),
        ("DELETE t1, t2 FROM t1 INNER JOIN t2 ON t1.a = t2.a", [3], [4], 4),
        ("DELETE FROM t1 USING t1, t2 WHERE t1.a = t2.a", [3], [1, 2, 4], 2),
        ("DELETE FROM t1, t2 USING t1 JOIN t2 WHERE t1.a = t2.a", [3], [4], 4),
        ("DELETE x FROM t1 AS x JOIN t2 AS y ON x.a = y.a AND y.c = 100", [2, 3], [1, 2, 4], 1),
    ],
    ids=["delete-join", "delete-two", "using-comma", "using-two", "aliases"],
)
def test_multi_table_delete(primary, open_server, tmp_path, sql, t1_left, t2_left, affected):
    srv, s = primary
    (res,) = s.execute(sql)
    assert res.affected_rows == affected
    assert [r[0] for r in s.execute("SELECT a FROM t1")[-1].rows] == t1_left
    assert [r[0] for r in s.execute("SELECT a FROM t2")[-1].rows] == t2_left
    kinds = [t for t, _ in _last_trx(s)]
    assert kinds[0] == "Gtid" and kinds[-1] == "Xid" and "Delete_rows" in kinds
    rep = _replay(srv, open_server, tmp_path)
    assert [r[0] for r in rep.execute("SELECT a FROM test.t1")[-1].rows] == t1_left
    assert [r[0] for r in rep.execute("SELECT a FROM test.t2")[-1].rows] == t2_left


def test_multi_delete_unknown_target_is_1109(primary):
    _srv, s = primary
    with pytest.raises(MySQLError) as exc:
        s.execute("DELETE t3 FROM t1 JOIN t2 ON t1.a = t2.a")
    assert (exc.value.code, exc.value.message) == (1109, "Unknown table 't3' in MULTI DELETE")


# ---------------------------------------------------------------- temporary tables (RM8 15.1.20.2)
def test_temporary_table_is_private_shadows_and_is_not_logged(primary):
    srv, s = primary
    other = srv.session()
    other.execute("USE test")
    before = (_gtids(s), len(_events(s)))
    s.execute("CREATE TEMPORARY TABLE t1 (x INT AUTO_INCREMENT PRIMARY KEY, y VARCHAR(10))")
    s.execute("INSERT INTO t1 (y) VALUES ('a'), ('b')")
    s.execute("UPDATE t1 SET y = 'c' WHERE x = 2")
    assert s.execute("SELECT * FROM t1")[-1].rows == [(1, "a"), (2, "c")]
    # the other session sees the base table; information_schema does not list temporary tables
    assert other.execute("SELECT * FROM t1")[-1].rows == [(1, 10), (2, 20), (3, 30)]
    assert s.execute(
        "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = 't1'"
    )[-1].rows == [(1,)]
    # binlog_format=ROW: nothing about temporary tables is logged, and no GTID is generated
    assert (_gtids(s), len(_events(s))) == before
    # a base table written from a temporary one is logged (its rows only)
    s.execute("CREATE TEMPORARY TABLE tmp (a INT)")
    s.execute("INSERT INTO tmp VALUES (7)")
    s.execute("INSERT INTO t2 SELECT a, a FROM tmp")
    assert [t for t, _ in _last_trx(s)] == ["Gtid", "Query", "Table_map", "Write_rows", "Xid"]
    s.execute("DROP TEMPORARY TABLE t1")
    assert s.execute("SELECT * FROM t1")[-1].rows == [(1, 10), (2, 20), (3, 30)]
    with pytest.raises(MySQLError) as exc:
        s.execute("DROP TEMPORARY TABLE t1")
    assert (exc.value.code, exc.value.message) == (1051, "Unknown table 'test.t1'")
    s.close()
    with pytest.raises(MySQLError) as exc:
        other.execute("SELECT * FROM tmp")
    assert exc.value.code == 1146


def test_temporary_table_ddl_does_not_commit_and_survives_rollback(primary):
    _srv, s = primary
    s.execute("BEGIN")
    s.execute("INSERT INTO t1 VALUES (9, 90)")
    s.execute("CREATE TEMPORARY TABLE tmp (a INT)")  # no implicit commit (RM8 15.3.3)
    s.execute("INSERT INTO tmp VALUES (1)")
    assert s.in_transaction()
    s.execute("ROLLBACK")
    # the row changes roll back, CREATE TEMPORARY TABLE does not
    assert s.execute("SELECT COUNT(*) FROM t1 WHERE a = 9")[-1].rows == [(0,)]
    assert s.execute("SELECT * FROM tmp")[-1].rows == []
    s.execute("BEGIN")
    s.execute("DROP TEMPORARY TABLE tmp")
    s.execute("ROLLBACK")
    with pytest.raises(MySQLError):
        s.execute("SELECT * FROM tmp")


def test_temporary_table_gtid_consistency_with_statement_format(primary):
    """8.0.13+: inside a transaction with binlog_format=STATEMENT, enforce_gtid_consistency refuses CREATE / DROP
    TEMPORARY TABLE (ER_CLIENT_GTID_UNSAFE_CREATE_DROP_TEMP_TABLE_IN_TRX_IN_SBR); with ROW it is allowed."""
    _srv, s = primary
    s.execute("BEGIN")
    s.execute("CREATE TEMPORARY TABLE ok_in_row (a INT)")
    s.execute("COMMIT")
    s.execute("SET SESSION binlog_format = STATEMENT")
    s.execute("BEGIN")
    with pytest.raises(MySQLError) as exc:
        s.execute("CREATE TEMPORARY TABLE t9 (a INT)")
    assert (exc.value.code, exc.value.sqlstate) == (3748, "HY000")
    assert exc.value.message.startswith("Statement violates GTID consistency: CREATE TEMPORARY TABLE")
    s.execute("ROLLBACK")


def test_explicit_gtid_next_with_temporary_table_commits_the_gtid(primary):
    _srv, s = primary
    gtid = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:7"
    s.execute(f"SET GTID_NEXT = '{gtid}'")
    s.execute("CREATE TEMPORARY TABLE tmp (a INT)")
    s.execute("SET GTID_NEXT = AUTOMATIC")
    assert "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:7" in _gtids(s).replace("\n", "")
    assert [t for t, _ in _last_trx(s)] == ["Gtid", "Query", "Query"]  # the empty transaction BEGIN; COMMIT


# ---------------------------------------------------------------- CREATE TABLE ... SELECT (RM8 15.1.20.4)
def test_create_table_select_columns_rows_and_binlog(primary, open_server, tmp_path):
    srv, s = primary
    (res,) = s.execute("CREATE TABLE t3 (id INT PRIMARY KEY) SELECT a AS id, b, 'x' AS tag FROM t1")
    assert (res.affected_rows, res.info) == (3, "Records: 3  Duplicates: 0  Warnings: 0")
    assert s.execute("SELECT * FROM t3")[-1].rows == [(1, 10, "x"), (2, 20, "x"), (3, 30, "x")]
    create = s.execute("SHOW CREATE TABLE t3")[-1].rows[0][1]
    assert create.startswith(
        "CREATE TABLE `t3` (\n  `id` int NOT NULL,\n  `b` int DEFAULT NULL,\n  `tag` varchar(1) NOT NULL,\n"
        "  PRIMARY KEY (`id`)\n)"
    )
    # 8.0.21+: one transaction, one GTID: BEGIN, CREATE ... START TRANSACTION, the rows, COMMIT
    trx = _last_trx(s)
    assert [t for t, _ in trx] == ["Gtid", "Query", "Query", "Table_map", "Write_rows", "Xid"]
    assert trx[1][1] == "BEGIN"
    assert trx[2][1].startswith("use `test`; CREATE TABLE `t3` (") and trx[2][1].endswith(
        ") START TRANSACTION"
    )
    rep = _replay(srv, open_server, tmp_path)
    assert rep.execute("SELECT * FROM test.t3")[-1].rows == [(1, 10, "x"), (2, 20, "x"), (3, 30, "x")]
    assert rep.execute("SHOW CREATE TABLE test.t3")[-1].rows[0][1] == create
    # log_replica_updates re-logs it in the same shape
    assert [t for t, _ in _last_trx(rep)] == ["Gtid", "Query", "Query", "Table_map", "Write_rows", "Xid"]


def test_create_table_select_is_atomic(primary):
    _srv, s = primary
    with pytest.raises(MySQLError) as exc:
        s.execute("CREATE TABLE t4 (b INT PRIMARY KEY) SELECT b FROM t1 UNION ALL SELECT 10")
    assert exc.value.code == 1062
    with pytest.raises(MySQLError) as exc:
        s.execute("SELECT * FROM t4")
    assert exc.value.code == 1146  # no table is left behind
    s.execute("CREATE TABLE IF NOT EXISTS t1 SELECT 1 AS z")
    assert s.execute("SHOW WARNINGS")[-1].rows == [("Note", 1050, "Table 't1' already exists")]


def test_create_temporary_table_select(primary):
    _srv, s = primary
    n = len(_events(s))
    s.execute("CREATE TEMPORARY TABLE tmp AS SELECT a, b * 2 AS b2 FROM t1 WHERE a < 3")
    assert s.execute("SELECT * FROM tmp")[-1].rows == [(1, 20), (2, 40)]
    assert len(_events(s)) == n


# ---------------------------------------------------------------- views (RM8 15.1.23, 15.1.35, 15.7.7.13)
def test_view_create_select_show_and_replicate(primary, open_server, tmp_path):
    srv, s = primary
    s.execute("CREATE VIEW v1 AS SELECT 1")
    assert s.execute("SELECT * FROM v1")[-1].rows == [(1,)]
    s.execute("CREATE VIEW v2 (k, v) AS SELECT a, b * 2 FROM t1 WHERE a > 1")
    (res,) = s.execute("SELECT * FROM v2 ORDER BY k")
    assert res.rows == [(2, 40), (3, 60)]
    assert [(c.name, c.table, c.schema) for c in res.columns] == [("k", "v2", "test"), ("v", "v2", "test")]
    # a view is DDL: one Query event, one GTID
    assert [t for t, _ in _last_trx(s)] == ["Gtid", "Query"]
    assert s.execute("SHOW FULL TABLES")[-1].rows == [
        ("t1", "BASE TABLE"),
        ("t2", "BASE TABLE"),
        ("v1", "VIEW"),
        ("v2", "VIEW"),
    ]
    assert s.execute(
        "SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_COMMENT FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME LIKE 'v%' ORDER BY TABLE_NAME"
    )[-1].rows == [("v1", "VIEW", None, "VIEW"), ("v2", "VIEW", None, "VIEW")]
    assert s.execute(
        "SELECT TABLE_SCHEMA, TABLE_NAME, CHECK_OPTION, DEFINER, SECURITY_TYPE FROM information_schema.VIEWS "
        "ORDER BY TABLE_NAME"
    )[-1].rows == [
        ("test", "v1", "NONE", "root@localhost", "DEFINER"),
        ("test", "v2", "NONE", "root@localhost", "DEFINER"),
    ]
    (show,) = s.execute("SHOW CREATE VIEW v2")
    assert list(show.column_names) == ["View", "Create View", "character_set_client", "collation_connection"]
    assert show.rows[0][1].startswith(
        "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v2` AS "
    )
    assert (
        s.execute("SHOW CREATE TABLE v2")[-1].rows == show.rows
    )  # SHOW CREATE TABLE of a view shows the view
    s.execute("CREATE OR REPLACE VIEW v1 AS SELECT b FROM t1 WHERE a = 1")
    assert s.execute("SELECT * FROM v1")[-1].rows == [(10,)]
    s.execute("UPDATE t1 SET b = 11 WHERE a = 1")
    assert s.execute("SELECT * FROM v1")[-1].rows == [(11,)]  # a view reads the table as it is now
    rep = _replay(srv, open_server, tmp_path)
    assert rep.execute("SELECT * FROM test.v2 ORDER BY k")[-1].rows == [(2, 40), (3, 60)]
    assert rep.execute("SELECT * FROM test.v1")[-1].rows == [(11,)]


@pytest.mark.parametrize(
    ("sql", "code", "message"),
    [
        ("CREATE VIEW v1 AS SELECT 2", 1050, "Table 'v1' already exists"),
        ("CREATE OR REPLACE VIEW t1 AS SELECT 1", 1347, "'test.t1' is not VIEW"),
        ("DROP VIEW t1", 1347, "'test.t1' is not VIEW"),
        ("DROP TABLE v1", 1051, "Unknown table 'test.v1'"),
        ("DROP VIEW v1, v9", 1051, "Unknown table 'test.v9'"),
        ("SHOW CREATE VIEW t1", 1347, "'test.t1' is not VIEW"),
        ("CREATE VIEW v5 AS SELECT @a", 1351, "View's SELECT contains a variable or parameter"),
        ("CREATE VIEW v6 (x) AS SELECT 1, 2", 1353, None),
        ("CREATE VIEW v7 AS SELECT nosuch FROM t1", 1054, None),
    ],
)
def test_view_errors(primary, sql, code, message):
    _srv, s = primary
    s.execute("CREATE VIEW v1 AS SELECT a FROM t1")
    with pytest.raises(MySQLError) as exc:
        s.execute(sql)
    assert exc.value.code == code
    if message is not None:
        assert exc.value.message == message
    assert s.execute("SELECT COUNT(*) FROM v1")[-1].rows == [(3,)]  # the failed statement changed nothing


def test_drop_view_if_exists_and_drop_database(primary):
    _srv, s = primary
    s.execute("CREATE VIEW v1 AS SELECT a FROM t1")
    (res,) = s.execute("DROP VIEW IF EXISTS v1, v8")
    assert [w.as_tuple() for w in res.warnings] == [("Note", 1051, "Unknown table 'test.v8'")]
    s.execute("CREATE VIEW v2 AS SELECT a FROM t1")
    s.execute("DROP DATABASE test")
    assert s.execute("SELECT COUNT(*) FROM information_schema.VIEWS")[-1].rows == [(0,)]


def test_temporary_table_describe_and_refused_changes(primary):
    _srv, s = primary
    s.execute("CREATE TEMPORARY TABLE t1 (x INT, y INT)")
    assert [r[0] for r in s.execute("DESCRIBE t1")[-1].rows] == ["x", "y"]
    assert s.execute("SHOW CREATE TABLE t1")[-1].rows[0][1].startswith("CREATE TEMPORARY TABLE `t1`")
    for sql in ("ALTER TABLE t1 ADD COLUMN z INT", "CREATE INDEX ix ON t1 (x)"):
        with pytest.raises(MySQLError) as exc:
            s.execute(sql)
        assert exc.value.code == 1235
    # the base table t1 was not touched
    s.execute("DROP TEMPORARY TABLE t1")
    assert [r[0] for r in s.execute("DESCRIBE t1")[-1].rows] == ["a", "b"]
    s.execute("CREATE TEMPORARY TABLE tmp (a INT)")
    with pytest.raises(MySQLError) as exc:
        s.execute("CREATE VIEW v AS SELECT * FROM tmp")
    assert (exc.value.code, exc.value.message) == (1352, "View's SELECT refers to a temporary table 'tmp'")
