"""Session.execute's shape (one StatementResult per statement) and the column metadata MySQL sends.

Expected metadata is MySQL 8.0's ``mysql-test/r/metadata.result`` (mysql/mysql-server commit e45ae218c0dd, run with
``--enable_metadata``: Catalog, Database, Table (org_table), Table_alias (table), Column (org_name), Column_alias
(name), Type, Length, Max length, Is_null, Flags, Decimals, Charsetnr). Info strings: the same file's
``info: Records: 3  Duplicates: 0  Warnings: 0`` and the manual's mysql_info() page ("Rows matched: 40  Changed: 40
Warnings: 0").
"""

from __future__ import annotations

import pytest

from gtidkit.engine.results import (
    Column,
    ColumnFlag,
    FieldType,
    ServerStatus,
    SessionStateType,
    StateChange,
    StatementResult,
)
from gtidkit.errors import MySQLError


@pytest.fixture
def s(open_server):
    srv = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True)
    with srv.session() as sess:
        sess.execute("CREATE DATABASE test; USE test")
        yield sess


def meta(col: Column) -> tuple:
    """A metadata.result line's fields: Database Table Table_alias Column Column_alias Type Length Flags Decimals
    Charsetnr."""
    return (col.schema, col.org_table, col.table, col.org_name, col.name, int(col.type), col.length, col.flags,
            col.decimals, col.charset)  # fmt: skip


# metadata.result: "select 1, 1.0, -1, "hello", NULL;"
LITERALS = [
    ("", "", "", "", "1", 8, 2, 32897, 0, 63),
    ("", "", "", "", "1.0", 246, 4, 32897, 1, 63),
    ("", "", "", "", "-1", 8, 2, 32897, 0, 63),
    ("", "", "", "", "hello", 253, 20, 1, 31, 255),
    ("", "", "", "", "NULL", 6, 0, 32896, 0, 63),
]


def test_literal_metadata(s):
    (res,) = s.execute('select 1, 1.0, -1, "hello", NULL')
    assert [meta(c) for c in res.columns] == LITERALS
    assert res.rows == [(1, res.rows[0][1], -1, "hello", None)] and str(res.rows[0][1]) == "1.0"


# metadata.result: create table t1(... numeric, date/time and string types ...); select * from t1;
TYPES = [
    ("tiny tinyint", 1, 4, 32768, 0, 63),
    ("tiny_uns tinyint unsigned", 1, 3, 32800, 0, 63),
    ("small smallint", 2, 6, 32768, 0, 63),
    ("small_uns smallint unsigned", 2, 5, 32800, 0, 63),
    ("medium mediumint", 9, 9, 32768, 0, 63),
    ("medium_uns mediumint unsigned", 9, 8, 32800, 0, 63),
    ("int_col int", 3, 11, 32768, 0, 63),
    ("int_col_uns int unsigned", 3, 10, 32800, 0, 63),
    ("big bigint", 8, 20, 32768, 0, 63),
    ("big_uns bigint unsigned", 8, 20, 32800, 0, 63),
    ("decimal_col decimal(10,5)", 246, 12, 32768, 5, 63),
    ("numeric_col numeric(10)", 246, 11, 32768, 0, 63),
    ("dec_col dec(10)", 246, 11, 32768, 0, 63),
    ("fcol float", 4, 12, 32768, 31, 63),
    ("dcol double", 5, 22, 32768, 31, 63),
    ("date_col date", 10, 10, 128, 0, 63),
    ("time_col time", 11, 10, 128, 0, 63),
    (
        "timestamp_col timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP",
        7,
        19,
        9345,
        0,
        63,
    ),
    ("year_col year", 13, 4, 32864, 0, 63),
    ("datetime_col datetime", 12, 19, 128, 0, 63),
    ("char_col char(5)", 254, 20, 0, 0, 255),
    ("varchar_col varchar(10)", 253, 40, 0, 0, 255),
    ("binary_col binary(10)", 254, 10, 128, 0, 63),
    ("varbinary_col varbinary(10)", 253, 10, 128, 0, 63),
    ("tinyblob_col tinyblob", 252, 255, 144, 0, 63),
    ("blob_col blob", 252, 65535, 144, 0, 63),
    ("mediumblob_col mediumblob", 252, 16777215, 144, 0, 63),
    ("longblob_col longblob", 252, 4294967295, 144, 0, 63),
    ("text_col text", 252, 262140, 16, 0, 255),
    ("mediumtext_col mediumtext", 252, 67108860, 16, 0, 255),
    ("longtext_col longtext", 252, 4294967295, 16, 0, 255),
    # WL#946 section: fractional seconds
    ("t6 TIME(6)", 11, 17, 128, 6, 63),
    ("dt3 DATETIME(3)", 12, 23, 128, 3, 63),
    ("ts5 TIMESTAMP(5) NOT NULL DEFAULT '2000-01-01 00:00:00'", 7, 25, 129, 5, 63),
]


@pytest.mark.parametrize(
    "ddl,type_,length,flags,decimals,charset", TYPES, ids=[t[0].split()[0] for t in TYPES]
)
def test_table_column_metadata(s, ddl, type_, length, flags, decimals, charset):
    name = ddl.split()[0]
    s.execute(f"CREATE TABLE t1 ({ddl})")
    (res,) = s.execute("SELECT * FROM t1")
    assert [meta(c) for c in res.columns] == [
        ("test", "t1", "t1", name, name, type_, length, flags, decimals, charset)
    ]


def test_alias_metadata(s):
    """metadata.result: ``select a b, b c from t1 as t2`` names the aliases, keeps org names and the org table."""
    s.execute("create table t1 (a tinyint, b smallint)")
    (res,) = s.execute("select a b, b c from t1 as t2")
    assert [meta(c) for c in res.columns] == [
        ("test", "t1", "t2", "a", "b", 1, 4, 32768, 0, 63),
        ("test", "t1", "t2", "b", "c", 2, 6, 32768, 0, 63),
    ]


def test_key_flags(s):
    """NOT NULL, PRI_KEY, AUTO_INCREMENT, PART_KEY, NO_DEFAULT_VALUE, UNIQUE_KEY, MULTIPLE_KEY as include/mysql_com.h."""
    s.execute("CREATE TABLE k (id INT AUTO_INCREMENT PRIMARY KEY, u INT NOT NULL UNIQUE, m INT, KEY (m))")
    (res,) = s.execute("SELECT id, u, m FROM k")
    f = ColumnFlag
    assert [c.flags for c in res.columns] == [
        f.NOT_NULL | f.PRI_KEY | f.AUTO_INCREMENT | f.PART_KEY | f.NUM,
        f.NOT_NULL | f.UNIQUE_KEY | f.NO_DEFAULT_VALUE | f.PART_KEY | f.NUM,
        f.MULTIPLE_KEY | f.PART_KEY | f.NUM,
    ]


def test_count_star_is_not_null_longlong(s):
    s.execute("CREATE TABLE t (a INT)")
    (res,) = s.execute("SELECT COUNT(*) FROM t")
    c = res.columns[0]
    assert (c.name, c.type, c.length, c.flags, c.charset) == (
        "COUNT(*)",
        FieldType.MYSQL_TYPE_LONGLONG,
        21,
        32897,
        63,
    )


def test_one_result_per_statement_and_more_results_flag(s):
    """A multi-statement text answers each statement; all but the last carry SERVER_MORE_RESULTS_EXISTS."""
    results = s.execute(
        "CREATE TABLE t (a INT); INSERT INTO t VALUES (1),(2),(3); SELECT a FROM t ORDER BY a"
    )
    assert len(results) == 3
    assert [r.has_result_set for r in results] == [False, False, True]
    more = ServerStatus.SERVER_MORE_RESULTS_EXISTS
    assert [bool(r.status_flags & more) for r in results] == [True, True, False]
    assert all(r.status_flags & ServerStatus.SERVER_STATUS_AUTOCOMMIT for r in results)
    # metadata.result: "affected rows: 3 / info: Records: 3  Duplicates: 0  Warnings: 0"
    assert (results[1].affected_rows, results[1].info) == (3, "Records: 3  Duplicates: 0  Warnings: 0")
    assert results[2].rows == [(1,), (2,), (3,)]


def test_error_mid_text_delivers_earlier_results(s):
    """Statements before the failing one ran and are on the error; the ones after it never run."""
    with pytest.raises(MySQLError) as exc:
        s.execute("CREATE TABLE t (a INT); INSERT INTO nosuch VALUES (1); CREATE TABLE u (a INT)")
    assert exc.value.code == 1146
    assert len(exc.value.results) == 1 and exc.value.results[0].columns is None
    assert s.execute("SHOW TABLES")[0].rows == [("t",)]
    with pytest.raises(MySQLError) as exc:
        s.execute("SELECT nosuch FROM t")
    assert exc.value.results == ()


def test_empty_query_is_1065(s):
    with pytest.raises(MySQLError) as exc:
        s.execute("  ;  ")
    assert (exc.value.code, exc.value.sqlstate, exc.value.message) == (1065, "42000", "Query was empty")


def test_update_info_and_found_rows(s):
    """UPDATE reports rows changed as affected_rows and rows found as matched_rows (CLIENT_FOUND_ROWS' count)."""
    s.execute("CREATE TABLE t (a INT, b INT); INSERT INTO t VALUES (1, 1), (2, 2)")
    (res,) = s.execute("UPDATE t SET b = 1")
    assert (res.affected_rows, res.matched_rows, res.info) == (
        1,
        2,
        "Rows matched: 2  Changed: 1  Warnings: 0",
    )


def test_last_insert_id_and_in_trans_flag(s):
    s.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    begin, ins, commit = s.execute("BEGIN; INSERT INTO t (v) VALUES (7); COMMIT")
    assert begin.status_flags & ServerStatus.SERVER_STATUS_IN_TRANS
    assert ins.status_flags & ServerStatus.SERVER_STATUS_IN_TRANS and ins.last_insert_id == 1
    assert not commit.status_flags & ServerStatus.SERVER_STATUS_IN_TRANS


def test_connection_id_is_session_id(s):
    (res,) = s.execute("SELECT CONNECTION_ID()")
    assert res.rows == [(s.id,)]


def test_values_validate():
    with pytest.raises(ValueError):
        Column("x", type=99)
    with pytest.raises(ValueError):
        StatementResult(columns=(Column("a"),), rows=[(1, 2)])
    with pytest.raises(ValueError):
        StateChange(SessionStateType.SESSION_TRACK_TRANSACTION_STATE, "T_")
    with pytest.raises(ValueError):
        StatementResult(state_changes=(StateChange(SessionStateType.SESSION_TRACK_SCHEMA, "db"),))


def test_call_without_arguments_is_named_as_written(s):
    s.execute("CREATE TABLE t (a INT); INSERT INTO t VALUES (1)")
    assert s.execute("SELECT CONNECTION_ID() FROM t")[0].column_names == ["CONNECTION_ID()"]
    assert s.execute("SELECT CONNECTION_ID()")[0].column_names == ["CONNECTION_ID()"]


def test_connection_id_is_the_query_events_thread_id(open_server):
    """CONNECTION_ID() == the thread_id MySQL writes into the Query events of the session's transactions."""
    from gtidkit.binlog import QueryEvent, read_events

    srv = open_server(gtid_mode="ON", enforce_gtid_consistency="ON", log_bin=True, binlog_format="STATEMENT")
    with srv.session() as other, srv.session() as sess:
        other.execute("CREATE DATABASE o")
        (res,) = sess.execute("SELECT CONNECTION_ID()")
        sess.execute("CREATE DATABASE d; CREATE TABLE d.t (a INT); INSERT INTO d.t VALUES (1)")
        srv.rotate()
        ids = {
            e.event.query: e.event.thread_id
            for name in srv.binlog.existing_files()
            for e in read_events(srv.binlog.path(name))
            if isinstance(e.event, QueryEvent)
        }
    assert res.rows[0][0] == sess.id != other.id
    assert ids["CREATE DATABASE d"] == sess.id and ids["INSERT INTO d.t VALUES (1)"] == sess.id
    assert ids["CREATE DATABASE o"] == other.id


def test_sysvar_metadata_in_a_select_with_tables(s):
    """``@@var`` follows the variable's type whether or not the SELECT reads tables."""
    s.execute("CREATE TABLE t (a INT); INSERT INTO t VALUES (1)")
    (with_table,) = s.execute("SELECT @@autocommit, @@version FROM t")
    (without,) = s.execute("SELECT @@autocommit, @@version")
    assert [meta(c) for c in with_table.columns] == [meta(c) for c in without.columns]
    assert (with_table.columns[0].type, with_table.columns[0].length) == (FieldType.MYSQL_TYPE_LONGLONG, 1)


def test_expression_metadata(s):
    """metadata.result: ``t1.f1+t2.f1 AS d`` over INT columns -> LONGLONG, length 12, flags 32896; COALESCE /
    IFNULL / IF / CASE / GREATEST / LEAST over a DATE column -> DATE, length 10, flags 128."""
    s.execute("CREATE TABLE t1 (f1 INTEGER, i INT, d DATE); INSERT INTO t1 VALUES (10, 1, '2008-01-01')")
    (res,) = s.execute("SELECT t1.f1+t2.f1 AS d FROM t1 JOIN t1 AS t2")
    assert [meta(c) for c in res.columns] == [("", "", "", "", "d", 8, 12, 32896, 0, 63)]
    (res,) = s.execute(
        "SELECT COALESCE(d, d), IFNULL(d, d), IF(i, d, d), CASE i WHEN i THEN d ELSE d END, GREATEST(d, d), "
        "LEAST(d, d) FROM t1"
    )
    assert [(c.type, c.length, c.flags, c.decimals, c.charset) for c in res.columns] == [
        (10, 10, 128, 0, 63)
    ] * 6
    assert res.column_names[0] == "COALESCE(d, d)"
