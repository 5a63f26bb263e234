"""Defects the statement fuzz (tests/protocol/test_statement_fuzz.py) found, each with MySQL's answer.

- A UNIQUE key added over rows that already hold a duplicate: ER_DUP_ENTRY 1062 naming the first duplicated key
  (``Duplicate entry '1' for key 't.i'``, the 8.0.19+ ``table.key`` form; mysql-test ``r/alter_table.result``,
  ``r/create_index.result``); rows with a NULL key part are no duplicates; the table is left as it was.
- A single-quoted string where a table or schema name goes (``CREATE TABLE 'x' (...)``, ``SELECT * FROM 'x'``):
  ER_PARSE_ERROR 1064 near the string (``table_ident`` is an identifier, never a TEXT_STRING).
- An empty list item (``CONCAT(1, , 2)``, ``f(,1)``, ``f(1,)``): ER_PARSE_ERROR 1064 near the token after the comma
  (no rule of ``sql/sql_yacc.yy`` accepts it; sqlglot's parser skips the empty item).
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError


@pytest.fixture
def session(open_server):
    s = open_server().session()
    for q in (
        "CREATE DATABASE fz",
        "USE fz",
        "CREATE TABLE t (a INT, b VARCHAR(5))",
        "INSERT INTO t VALUES (1,'x'),(1,'x'),(NULL,'y'),(NULL,'y'),(2,'z')",
    ):
        s.execute(q)
    return s


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        ("CREATE UNIQUE INDEX i ON t (a)", "Duplicate entry '1' for key 't.i'"),
        ("/*!80000 CREATE UNIQUE INDEX i ON t ( a ) */", "Duplicate entry '1' for key 't.i'"),
        ("CREATE UNIQUE INDEX j ON t (a, b)", "Duplicate entry '1-x' for key 't.j'"),
        ("ALTER TABLE t ADD UNIQUE k (b)", "Duplicate entry 'x' for key 't.k'"),
        ("ALTER TABLE t ADD UNIQUE KEY k2 (a)", "Duplicate entry '1' for key 't.k2'"),
    ],
    ids=["create-index", "version-comment", "two-columns", "alter-add-unique", "alter-null-skipped"],
)
def test_unique_key_over_duplicates_is_1062(session, ddl: str, message: str) -> None:
    with pytest.raises(MySQLError) as err:
        session.execute(ddl)
    assert (err.value.code, err.value.message) == (1062, message)
    assert session.execute("SELECT COUNT(*) FROM t")[0].rows == [(5,)]
    assert session.execute("SHOW INDEX FROM t")[0].rows == []


def test_unique_key_over_distinct_rows_is_built(session) -> None:
    session.execute("DELETE FROM t WHERE a = 1 OR b = 'y'")
    session.execute("CREATE UNIQUE INDEX i ON t (a)")
    with pytest.raises(MySQLError) as err:
        session.execute("INSERT INTO t VALUES (2, 'w')")
    assert (err.value.code, err.value.message) == (1062, "Duplicate entry '2' for key 't.i'")


@pytest.mark.parametrize(
    ("text", "near"),
    [
        ("SELECT CONCAT(1, , 2)", ", 2)"),
        ("SELECT CONCAT(,1)", ",1)"),
        ("SELECT CONCAT(1,2,)", ")"),
        ("SELECT SOURCE_POS_WAIT('f', 4, , 'c')", ", 'c')"),
        ("INSERT INTO t VALUES (1, , 'x')", ", 'x')"),
    ],
    ids=["middle", "first", "last", "pos-wait", "values"],
)
def test_empty_list_item_is_1064(session, text: str, near: str) -> None:
    with pytest.raises(MySQLError) as err:
        session.execute(text)
    assert err.value.code == 1064
    assert f"near '{near}' at line 1" in err.value.message


@pytest.mark.parametrize(
    "text",
    ["SELECT 'a,,b', CONCAT(1, 2)", "SELECT 1 /* ( , , ) */", "SELECT `a,,)` FROM (SELECT 1 AS `a,,)`) d"],
)
def test_commas_inside_quotes_and_comments_are_not_list_items(session, text: str) -> None:
    assert session.execute(text)[0].rows


@pytest.mark.parametrize(
    ("text", "near"),
    [
        ("CREATE TABLE 'x' (a INT)", "'x' (a INT)"),
        ("CREATE TABLE '\\0' ( col INT NOT NULL AUTO_INCREMENT PRIMARY KEY )", "'\\0' ( col INT"),
        ("SELECT * FROM 't'", "'t'"),
        ("SELECT * FROM fz.'t'", "'t'"),
        ("INSERT INTO 't' VALUES (1, 'x')", "'t' VALUES (1, 'x')"),
    ],
    ids=["create", "create-nul", "select", "qualified", "insert"],
)
def test_string_as_table_name_is_1064(session, text: str, near: str) -> None:
    with pytest.raises(MySQLError) as err:
        session.execute(text)
    assert err.value.code == 1064
    assert f"near '{near}" in err.value.message


def test_quoted_identifiers_and_string_aliases_still_run(session) -> None:
    assert session.execute("SELECT `a` AS 'x' FROM `fz`.`t` WHERE b = 'z' LIMIT 1")[0].rows == [(2,)]


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ("UPDATE k SET id = (@unset := @unset + 1)", 1048, "Column 'id' cannot be null"),
        ("UPDATE k SET id = NULL", 1048, "Column 'id' cannot be null"),
        ("UPDATE k SET id = 'x'", 1366, "Incorrect integer value: 'x' for column 'id' at row 1"),
    ],
    ids=["null-variable", "null", "text"],
)
def test_integer_primary_key_given_no_integer(session, text: str, code: int, message: str) -> None:
    """An AUTO_INCREMENT primary key (SQLite's rowid) set to NULL or to text in strict mode: MySQL's 1048 / 1366,
    not SQLite's "datatype mismatch"; the rows stay as they were."""
    session.execute("CREATE TABLE k (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20))")
    session.execute("INSERT INTO k (v) VALUES ('a'), ('b')")
    with pytest.raises(MySQLError) as err:
        session.execute(text)
    assert (err.value.code, err.value.message) == (code, message)
    assert session.execute("SELECT id, v FROM k ORDER BY id")[0].rows == [(1, "a"), (2, "b")]
