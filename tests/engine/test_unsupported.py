"""Statements MySQL has and this engine lacks answer 1235 (ER_NOT_SUPPORTED_YET), never 1064 (ER_PARSE_ERROR).

Each statement below is valid MySQL 8.4 (RM8 chapter 15 "SQL Statements", one per family); 1064 would tell a
DBA the SQL is wrong. Genuine syntax errors keep 1064 with MySQL's wording; the ones quoted from mysql-test
``r/user_var.result`` (mysql/mysql-server) are checked word for word, the others for the token MySQL's parser
stops at (``near '<rest>' at line N``).
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError

UNSUPPORTED = [
    "ALTER VIEW v AS SELECT 2",
    "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @x = 1",
    "DROP TRIGGER IF EXISTS tr",
    "CREATE PROCEDURE p() SELECT 1",
    "CREATE DEFINER=root@localhost PROCEDURE p(IN a INT) SELECT a",
    "DROP PROCEDURE p",
    "CREATE FUNCTION f() RETURNS INT DETERMINISTIC RETURN 1",
    "DROP FUNCTION IF EXISTS f",
    "CREATE EVENT e ON SCHEDULE EVERY 1 HOUR DO SELECT 1",
    "ALTER EVENT e DISABLE",
    "DROP EVENT e",
    "GRANT r TO u",
    "SET ROLE ALL",
    "SET DEFAULT ROLE ALL TO u",
    "SET RESOURCE GROUP g",
    "HANDLER t OPEN",
    "HANDLER t READ FIRST",
    "XA START 'x'",
    "XA END 'x'",
    "XA COMMIT 'x'",
    "XA RECOVER",
    "LOAD XML INFILE 'f' INTO TABLE t",
    "CALL p()",
    "SHOW FULL PROCESSLIST",
    "SHOW CREATE TRIGGER tr",
    "SHOW PROCEDURE CODE p",
    "SHOW CHARACTER SET",
    "SHOW COLLATION",
    "SHOW RELAYLOG EVENTS",
    "INSTALL PLUGIN p SONAME 'x.so'",
    "UNINSTALL COMPONENT 'file://x'",
    "CACHE INDEX t IN c",
    "LOAD INDEX INTO CACHE t",
    "SHUTDOWN",
    "RESTART",
    "CLONE LOCAL DATA DIRECTORY = '/tmp/x'",
    "HELP 'contents'",
    "IMPORT TABLE FROM 'x.sdi'",
    "CREATE TABLESPACE ts ADD DATAFILE 'ts.ibd'",
    "CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (USER 'x')",
    "CREATE RESOURCE GROUP g TYPE = USER",
    "SIGNAL SQLSTATE '45000'",
    "GET DIAGNOSTICS @n = NUMBER",
    "EXPLAIN FORMAT=JSON SELECT 1",
    "EXPLAIN FOR CONNECTION 5",
    "EXPLAIN ANALYZE SELECT 1",
    "VALUES ROW(1)",
    "ALTER INSTANCE ROTATE INNODB MASTER KEY",
    "LOCK INSTANCE FOR BACKUP",
    "UNLOCK INSTANCE",
    "START GROUP_REPLICATION",
    "CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d)",
]

PARSE = (
    "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the "
    "right syntax to use near '{}' at line {}"
)
SYNTAX_ERRORS = [
    # r/user_var.result: set session @honk=99;  ERROR 42000: ... near '@honk=99' at line 1
    ("set session @honk=99", "@honk=99", 1),
    # r/user_var.result: insert into city 'blah';  ERROR 42000: ... near ''blah'' at line 1
    ("insert into city 'blah'", "'blah'", 1),
    ("SELEC 1", "SELEC 1", 1),
    ("FOO BAR", "FOO BAR", 1),
    ("CREATE FOO", "FOO", 1),
    ("DROP FOO x", "FOO x", 1),
    ("SHOW FOO", "FOO", 1),
    ("GRANT", "", 1),
    ("LOCK TABLES", "", 1),
    ("UNLOCK TABLE t1", "t1", 1),
    ("PURGE BINARY LOGS", "", 1),
    ("CREATE\nFOO", "FOO", 2),
]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    from gtidkit.engine import Server

    srv = Server.open(tmp_path_factory.mktemp("unsupported"), log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d")
    s.execute("USE d")
    s.execute("CREATE TABLE t (a INT)")
    yield s
    srv.shutdown()


@pytest.mark.parametrize("sql", UNSUPPORTED)
def test_mysql_statement_we_lack_is_1235(session, sql):
    with pytest.raises(MySQLError) as exc:
        session.execute(sql)
    assert (exc.value.code, exc.value.sqlstate) == (1235, "42000"), exc.value.message
    assert exc.value.message.startswith("This version of MySQL doesn't yet support '")


@pytest.mark.parametrize(("sql", "near", "line"), SYNTAX_ERRORS, ids=[s for s, _, _ in SYNTAX_ERRORS])
def test_syntax_error_is_1064(session, sql, near, line):
    with pytest.raises(MySQLError) as exc:
        session.execute(sql)
    assert (exc.value.code, exc.value.sqlstate) == (1064, "42000")
    assert exc.value.message == PARSE.format(near, line)


def test_do_and_kill(session, tmp_path):
    # RM8 15.2.3 DO: evaluates, returns no result set
    res = session.execute("DO 1, SLEEP(0)")[-1]
    assert not res.has_result_set
    # RM8 15.7.8.4 KILL: unknown thread id -> ER_NO_SUCH_THREAD 1094
    with pytest.raises(MySQLError) as exc:
        session.execute("KILL QUERY 999999")
    assert (exc.value.code, exc.value.message) == (1094, "Unknown thread id: 999999")


def test_kill_query_and_connection(open_server):
    import threading
    import time

    srv = open_server(log_bin=True)
    a, b = srv.session(), srv.session()
    out: list = []
    t = threading.Thread(target=lambda: out.append(a.execute("SELECT SLEEP(60)")[-1].rows))
    t.start()
    time.sleep(0.1)
    b.execute(f"KILL QUERY {a.id}")
    t.join(10)
    assert out == [[(1,)]]  # interrupted SLEEP returns 1, the session lives on
    assert a.execute("SELECT 1")[-1].rows == [(1,)]
    b.execute(f"KILL {a.id}")
    with pytest.raises(MySQLError) as exc:
        a.execute("SELECT 1")
    assert exc.value.code == 2013
    assert a.closed
    with pytest.raises(MySQLError) as exc:
        b.execute(f"KILL {b.id}")
    assert (exc.value.code, exc.value.message) == (1317, "Query execution was interrupted")
