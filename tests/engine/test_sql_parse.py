"""Statement splitting, classification, the admin recogniser in front of sqlglot, templating, 1064 messages."""

from __future__ import annotations

from decimal import Decimal

import pytest

from gtidkit.engine.sql.parse import parse_tree, split_statements, templatize, unquote_string
from gtidkit.engine.statements.classify import classify
from gtidkit.errors import MySQLError


@pytest.mark.parametrize(
    "text, expected",
    [
        ("SELECT 1; SELECT 2", ["SELECT 1", "SELECT 2"]),
        ("INSERT INTO t VALUES ('a;b', \"c;d\", `e;f`);", ["INSERT INTO t VALUES ('a;b', \"c;d\", `e;f`)"]),
        ("SELECT 'it''s;'; SELECT 'x\\';y'", ["SELECT 'it''s;'", "SELECT 'x\\';y'"]),
        ("SELECT 1; -- trailing; comment\n", ["SELECT 1"]),
        ("/* a; */ SELECT 1 # b;\n; ;", ["/* a; */ SELECT 1 # b;"]),
        ("", []),
    ],
    ids=["two", "quotes", "escapes", "dash-comment", "block-comment", "empty"],
)
def test_split_statements(text, expected):
    assert split_statements(text) == expected


@pytest.mark.parametrize(
    "text, kind, info",
    [
        ("FLUSH LOGS", "admin", {"command": "flush_logs"}),
        ("flush binary logs", "admin", {"command": "flush_logs"}),
        ("RESET MASTER", "admin", {"command": "reset_binary_logs"}),
        ("RESET BINARY LOGS AND GTIDS TO 5", "admin", {"command": "reset_binary_logs", "to": 5}),
        (
            "PURGE BINARY LOGS TO 'binlog.000003'",
            "admin",
            {"command": "purge_binary_logs_to", "to": "binlog.000003"},
        ),
        (
            "PURGE MASTER LOGS BEFORE '2024-01-01 00:00:00'",
            "admin",
            {"command": "purge_binary_logs_before", "before": "2024-01-01 00:00:00"},
        ),
        ("STOP REPLICA", "admin", {"command": "replica_thread", "start": False}),
        (
            "START REPLICA SQL_THREAD",
            "admin",
            {"command": "replica_thread", "start": True, "threads": "SQL_THREAD"},
        ),
        ("START SLAVE", "admin", {"command": "replica_thread", "start": True}),
        (
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=3306, SOURCE_AUTO_POSITION=1",
            "admin",
            {
                "command": "change_replication_source",
                "options": {"source_host": "127.0.0.1", "source_port": 3306, "source_auto_position": 1},
            },
        ),
        ("SHOW BINARY LOG STATUS", "show", {"command": "binary_log_status", "master": False}),
        ("SHOW MASTER STATUS", "show", {"command": "binary_log_status", "master": True}),
        ("SHOW BINARY LOGS", "show", {"command": "binary_logs"}),
        (
            "SHOW BINLOG EVENTS IN 'binlog.000002' FROM 4 LIMIT 1, 10",
            "show",
            {"command": "binlog_events", "file": "binlog.000002", "pos": 4, "off": 1, "cnt": 10},
        ),
        ("BEGIN", "begin", {"command": "begin"}),
        ("START TRANSACTION READ WRITE", "begin", {"command": "begin"}),
        ("COMMIT WORK", "commit", {"command": "commit"}),
        ("ROLLBACK", "rollback", {"command": "rollback"}),
        (
            "ROLLBACK TO SAVEPOINT Sp1",
            "rollback_to_savepoint",
            {"command": "rollback_to_savepoint", "name": "Sp1"},
        ),
        (
            "ROLLBACK WORK TO sp1",
            "rollback_to_savepoint",
            {"command": "rollback_to_savepoint", "name": "sp1"},
        ),
        ("SAVEPOINT `my sp`", "savepoint", {"command": "savepoint", "name": "my sp"}),
        ("RELEASE SAVEPOINT sp1", "release_savepoint", {"command": "release_savepoint", "name": "sp1"}),
        ("USE MyDb", "use", {"command": "use", "db": "MyDb"}),
        ("/* hint */ FLUSH /* x */ LOGS", "admin", {"command": "flush_logs"}),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 40 else None,
)
def test_recogniser_catches_what_sqlglot_misparses(text, kind, info):
    st = classify(text)
    assert st.kind == kind
    assert st.info == info
    assert st.tree is None


@pytest.mark.parametrize(
    "text, kind",
    [
        ("SELECT 1", "select"),
        ("with x as (select 1) select * from x", "select"),
        ("(SELECT 1)", "select"),
        ("INSERT INTO t VALUES (1)", "dml"),
        ("REPLACE INTO t VALUES (1)", "dml"),
        ("update t set a=1", "dml"),
        ("DELETE FROM t", "dml"),
        ("CREATE TABLE t (a INT)", "ddl"),
        ("DROP DATABASE d", "ddl"),
        ("TRUNCATE TABLE t", "ddl"),
        ("SET GTID_NEXT='AUTOMATIC'", "set"),
        ("SHOW TABLES", "show"),
        ("DESCRIBE t", "show"),
        ("EXPLAIN SELECT 1", "show"),
        ("FOO BAR", "other"),
    ],
)
def test_classify_by_first_keyword(text, kind):
    assert classify(text).kind == kind


def test_replace_is_flagged_and_parsed_as_insert():
    st = classify("REPLACE INTO t (a) VALUES (1)")
    assert st.info == {"replace": True}
    assert st.tree.key == "insert"


def test_templatize_replaces_literals_only():
    tpl, values = templatize(
        "SELECT c FROM sbtest1 WHERE id=5 AND c='a\\'b' AND x=1.5e3 AND t1.y=_utf8mb4'q'"
    )
    # an exponent literal stays in the text: it is a DOUBLE (manual "Numeric Literals"), which a Decimal value
    # would not say, and its type decides the type of arithmetic over it
    assert tpl == "SELECT c FROM sbtest1 WHERE id=:gk0 AND c=:gk1 AND x=1.5e3 AND t1.y=_utf8mb4'q'"
    assert values == [5, "a'b"]
    assert templatize("SELECT 2.50 * 3") == ("SELECT :gk0 * :gk1", [Decimal("2.50"), 3])
    assert templatize("SELECT c FROM t") is None
    tpl, values = templatize("INSERT INTO t VALUES (x'00ff', 'a', X'01', 0x1F, _utf8mb4'q', 2) -- 'c' 3")
    assert tpl == "INSERT INTO t VALUES (x'00ff', :gk0, X'01', 0x1F, _utf8mb4'q', :gk1) -- 'c' 3"
    assert values == ["a", 2]


@pytest.mark.parametrize(
    "tok, value",
    [("'a''b'", "a'b"), ("'a\\nb'", "a\nb"), ("'100\\%'", "100\\%"), ('"x\\"y"', 'x"y'), ("'\\0'", "\0")],
)
def test_mysql_string_escapes(tok, value):
    assert unquote_string(tok) == value


def test_parse_error_has_mysql_shape():
    with pytest.raises(MySQLError) as e:
        parse_tree("SELECT * FROM t WHERE")
    assert e.value.code == 1064 and e.value.sqlstate == "42000"
    assert e.value.message.startswith(
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version "
        "for the right syntax to use near '"
    )
    assert e.value.message.endswith("at line 1")


# sql_mode NO_BACKSLASH_ESCAPES (manual "Server SQL Modes"): a backslash is an ordinary character in strings; the
# statement is rewritten once so the default lexing reads the same values
@pytest.mark.parametrize(
    ("text", "ansi_quotes", "expected"),
    [
        (r"SELECT 'a\'", False, r"SELECT 'a\\'"),
        (r"SELECT 'it''s\n', x\y", False, r"SELECT 'it''s\\n', x\y"),
        (r'SELECT "q\", `b\`', False, r'SELECT "q\\", `b\`'),
        (r'SELECT "id\"', True, r'SELECT "id\"'),
        (r"SELECT 1 -- c\ ", False, r"SELECT 1 -- c\ "),
        ("SELECT 'plain'", False, "SELECT 'plain'"),
    ],
    ids=["quote-ends", "doubled-quote", "double-quoted", "ansi-identifier", "comment", "no-backslash"],
)
def test_escape_backslashes(text: str, ansi_quotes: bool, expected: str) -> None:
    from gtidkit.engine.sql.parse import escape_backslashes

    assert escape_backslashes(text, ansi_quotes) == expected


@pytest.mark.parametrize(
    ("text", "escapes", "expected"),
    [
        (r"SELECT 'x\'; SELECT 2", False, [r"SELECT 'x\'", "SELECT 2"]),
        (r"SELECT 'x\';'; SELECT 2", True, [r"SELECT 'x\';'", "SELECT 2"]),
    ],
    ids=["no-backslash-escapes", "default"],
)
def test_split_statements_by_mode(text: str, escapes: bool, expected: list[str]) -> None:
    from gtidkit.engine.sql.parse import split_statements

    assert split_statements(text, backslash_escapes=escapes) == expected


#: MySQL's numeric type synonyms (RM8 13.10 "Using Data Types from Other Database Engines"; RM8 13.1.1: REAL is
#: DOUBLE unless sql_mode REAL_AS_FLOAT) spelled for sqlglot; names that happen to be synonyms stay names.
TYPE_SYNONYMS = [
    pytest.param("CREATE TABLE t (a REAL, b INT8)", False, "CREATE TABLE t (a DOUBLE, b BIGINT)", id="real-int8"),
    pytest.param("CREATE TABLE t (a REAL)", True, "CREATE TABLE t (a FLOAT)", id="real-as-float"),
    pytest.param("CREATE TABLE t (a INT3, b MIDDLEINT)", False, "CREATE TABLE t (a MEDIUMINT, b MEDIUMINT)", id="int3"),
    pytest.param("CREATE TABLE t (real INT1, `int8` INT2)", False, "CREATE TABLE t (real TINYINT, `int8` SMALLINT)",
                 id="names-kept"),
    pytest.param("ALTER TABLE t ADD real REAL, MODIFY int8 INT8", False,
                 "ALTER TABLE t ADD real DOUBLE, MODIFY int8 BIGINT", id="alter"),
    pytest.param("CREATE TABLE t (a VARCHAR(4) DEFAULT 'REAL')", False, "CREATE TABLE t (a VARCHAR(4) DEFAULT 'REAL')",
                 id="string-kept"),
    pytest.param("CREATE TABLE t (b REAL) SELECT a real FROM s", False, "CREATE TABLE t (b DOUBLE) SELECT a real FROM s",
                 id="select-alias-kept"),
    pytest.param("SELECT a real FROM t", False, "SELECT a real FROM t", id="not-ddl"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "real_as_float", "expected"), TYPE_SYNONYMS)
def test_type_synonyms(text: str, real_as_float: bool, expected: str) -> None:
    from gtidkit.engine.sql.parse import type_synonyms

    assert type_synonyms(text, real_as_float) == expected
