"""What backup tools (mariadb-dump, mysqldump) send, answered as MySQL 8.4 answers it.

Expected values: RM8.4 "INFORMATION_SCHEMA Tables" (FILES, PARTITIONS, TRIGGERS, ROUTINES, EVENTS columns),
"Server System Variables" (sql_quote_show_create, sql_notes, unique_checks, foreign_key_checks,
collation_database), "Switchable Optimizations" (optimizer_switch), "SHOW CREATE DATABASE"; mysql-test
``r/show_check.result`` for the CREATE DATABASE text; ``sql_yacc.yy`` / ``sql_table.cc`` for the warnings of
``SQL_NO_CACHE`` (1681) and ``ALTER TABLE ... DISABLE KEYS`` on InnoDB (note 1031).
"""

from __future__ import annotations

import pytest

from gtidkit.engine.optimizer_switch import DEFAULT
from gtidkit.errors import MySQLError


@pytest.fixture
def s(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    sess = srv.session()
    sess.execute("CREATE DATABASE d1")
    sess.execute("USE d1")
    sess.execute("CREATE TABLE t (a INT PRIMARY KEY, b BLOB)")
    return sess


def _rows(s, sql):
    return s.execute(sql)[-1].rows


def _columns(s, table):
    return [
        r[0]
        for r in _rows(
            s,
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'information_schema' "
            f"AND TABLE_NAME = '{table}' ORDER BY ORDINAL_POSITION",
        )
    ]


def test_information_schema_object_tables_have_mysql_columns(s):
    assert len(_columns(s, "FILES")) == 38
    assert _columns(s, "FILES")[:4] == ["FILE_ID", "FILE_NAME", "FILE_TYPE", "TABLESPACE_NAME"]
    assert len(_columns(s, "PARTITIONS")) == 25
    assert _columns(s, "PARTITIONS")[-1] == "TABLESPACE_NAME"
    assert len(_columns(s, "TRIGGERS")) == 22
    assert len(_columns(s, "ROUTINES")) == 31
    assert len(_columns(s, "EVENTS")) == 24
    for table in ("FILES", "TRIGGERS", "ROUTINES", "EVENTS"):
        assert _rows(s, f"SELECT * FROM information_schema.{table}") == []


def test_partitions_lists_each_base_table_once_unpartitioned(s):
    s.execute("CREATE VIEW v AS SELECT a FROM t")
    rows = _rows(
        s,
        "SELECT TABLE_NAME, PARTITION_NAME, PARTITION_METHOD, TABLESPACE_NAME FROM information_schema.PARTITIONS "
        "WHERE TABLE_SCHEMA = 'd1'",
    )
    assert rows == [("t", None, None, None)]


def test_mariadb_dump_tablespace_query_is_empty(s):
    sql = (
        "SELECT DISTINCT TABLESPACE_NAME, FILE_NAME, LOGFILE_GROUP_NAME, EXTENT_SIZE, INITIAL_SIZE, ENGINE "
        "FROM INFORMATION_SCHEMA.FILES WHERE FILE_TYPE = 'DATAFILE' AND TABLESPACE_NAME IN (SELECT DISTINCT "
        "TABLESPACE_NAME FROM INFORMATION_SCHEMA.PARTITIONS WHERE TABLE_SCHEMA IN ('d1')) "
        "ORDER BY TABLESPACE_NAME, LOGFILE_GROUP_NAME"
    )
    assert _rows(s, sql) == []


def test_dump_session_variables_defaults_and_set(s):
    names = ("sql_quote_show_create", "sql_notes", "unique_checks", "foreign_key_checks")
    assert _rows(s, "SELECT " + ", ".join(f"@@{n}" for n in names)) == [(1, 1, 1, 1)]
    s.execute("SET @OLD=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0")
    s.execute("SET FOREIGN_KEY_CHECKS=0, SQL_QUOTE_SHOW_CREATE=1")
    assert _rows(s, "SELECT @@unique_checks, @@foreign_key_checks, @OLD") == [(0, 0, 1)]


def test_sql_notes_off_keeps_notes_out_of_the_diagnostics_area(s):
    s.execute("SET SQL_NOTES=0")
    s.execute("DROP TABLE IF EXISTS nope")
    assert _rows(s, "SHOW WARNINGS") == []
    s.execute("SET SQL_NOTES=1")
    s.execute("DROP TABLE IF EXISTS nope")
    assert _rows(s, "SHOW WARNINGS") == [("Note", 1051, "Unknown table 'd1.nope'")]


def test_optimizer_switch_merges_flags(s):
    assert _rows(s, "SELECT @@optimizer_switch") == [(DEFAULT,)]
    s.execute("SET optimizer_switch='semijoin=off'")
    value = _rows(s, "SELECT @@optimizer_switch")[0][0]
    assert "semijoin=off" in value and value.replace("semijoin=off", "semijoin=on") == DEFAULT
    s.execute("SET optimizer_switch=default")
    assert _rows(s, "SELECT @@optimizer_switch") == [(DEFAULT,)]
    with pytest.raises(MySQLError) as e:
        s.execute("SET optimizer_switch='no_such_flag=on'")
    assert e.value.code == 1231


def test_collation_database_follows_the_default_database(s):
    s.execute("CREATE DATABASE l1 CHARACTER SET latin1 COLLATE latin1_swedish_ci")
    s.execute("USE l1")
    assert _rows(s, "SELECT @@character_set_database, @@collation_database") == [
        ("latin1", "latin1_swedish_ci")
    ]
    s.execute("USE d1")
    assert _rows(s, "SELECT @@collation_database") == [("utf8mb4_0900_ai_ci",)]


def test_show_create_database(s):
    assert _rows(s, "SHOW CREATE DATABASE IF NOT EXISTS `d1`") == [
        (
            "d1",
            (
                "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `d1` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE "
                "utf8mb4_0900_ai_ci */ /*!80016 DEFAULT ENCRYPTION='N' */"
            ),
        )
    ]
    with pytest.raises(MySQLError) as e:
        s.execute("SHOW CREATE DATABASE nope")
    assert e.value.code == 1049


def test_show_triggers_events_routines_are_empty_with_mysql_columns(s):
    (res,) = s.execute("SHOW TRIGGERS LIKE 't'")
    names = [c.name for c in res.columns]
    assert res.rows == [] and names[:3] == ["Trigger", "Event", "Table"]
    assert len(names) == 11 and names[-1] == "Database Collation"
    assert s.execute("SHOW EVENTS")[-1].rows == []
    assert s.execute("SHOW PROCEDURE STATUS WHERE Db = 'd1'")[-1].rows == []
    with pytest.raises(MySQLError) as e:
        s.execute("SHOW TRIGGERS FROM nope")
    assert e.value.code == 1049


def test_select_sql_no_cache_warns_1681(s):
    s.execute("INSERT INTO t VALUES (1, X'00FF')")
    (res,) = s.execute("SELECT /*!40001 SQL_NO_CACHE */ * FROM t")
    assert res.rows == [(1, b"\x00\xff")]
    assert _rows(s, "SHOW WARNINGS") == [
        ("Warning", 1681, "'SQL_NO_CACHE' is deprecated and will be removed in a future release.")
    ]


def test_alter_table_disable_keys_is_a_logged_no_op_with_note_1031(s):
    before = _rows(s, "SELECT @@GLOBAL.gtid_executed")[0][0]
    s.execute("/*!40000 ALTER TABLE `t` DISABLE KEYS */")
    assert _rows(s, "SHOW WARNINGS") == [
        ("Note", 1031, "Table storage engine for 't' doesn't have this option")
    ]
    s.execute("ALTER TABLE d1.t ENABLE KEYS")
    assert _rows(s, "SELECT @@GLOBAL.gtid_executed")[0][0] != before
    with pytest.raises(MySQLError) as e:
        s.execute("ALTER TABLE nope DISABLE KEYS")
    assert e.value.code == 1146


def test_log_tables_exist_and_are_empty(s):
    assert _rows(s, "SELECT COUNT(*) FROM mysql.general_log") == [(0,)]
    assert _rows(s, "SELECT COUNT(*) FROM mysql.slow_log") == [(0,)]
