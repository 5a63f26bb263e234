"""User-defined variables read back in SELECT, WHERE, INSERT VALUES and UPDATE; SELECT ... INTO; SLEEP().

Expected values: mysql-test ``r/user_var.result`` (mysql/mysql-server; cases quoted in each test), RM8 "User-Defined
Variables" (types kept: integer, DECIMAL, double, string, NULL; an unassigned variable is NULL; ``@a := expr``
outside SET is deprecated since 8.0.13 with warning 1287, still executed by 8.4), RM8 "SELECT ... INTO"
(ER_TOO_MANY_ROWS 1172, warning 1329 for no row) and RM8 "Miscellaneous Functions" (SLEEP returns 0; NULL or a
negative duration is error 1210 "Incorrect arguments to sleep." in strict mode, as MySQL 8.4 answers).
"""

from __future__ import annotations

import threading
import time
from decimal import Decimal

import pytest

from gtidkit.engine.results import Condition
from gtidkit.errors import MySQLError

DEPRECATED = (
    "Warning",
    1287,
    (
        "Setting user variables within expressions is deprecated and will be removed in a future release. "
        "Consider alternatives: 'SET variable=expression, ...', or 'SELECT expression(s) INTO variables(s)'."
    ),
)


@pytest.fixture
def s(open_server):
    srv = open_server(log_bin=True)
    with srv.session() as sess:
        sess.execute("CREATE DATABASE test")
        sess.execute("USE test")
        yield sess


def _err(s, sql):
    with pytest.raises(MySQLError) as exc:
        s.execute(sql)
    return exc.value.code, exc.value.message


def test_gtid_executed_saved_in_a_user_variable(s):
    # issue 7: SET @a=@@GLOBAL.gtid_executed; ...; SELECT GTID_SUBTRACT(@@GLOBAL.gtid_executed, @a)
    uuid = s.execute("SELECT @@server_uuid")[-1].rows[0][0]
    s.execute("SET @a = @@GLOBAL.gtid_executed")
    assert s.execute("SELECT @a")[-1].rows == [(f"{uuid}:1",)]
    s.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    s.execute("INSERT INTO t VALUES (1)")
    assert s.execute("SELECT GTID_SUBTRACT(@@GLOBAL.gtid_executed, @a)")[-1].rows == [(f"{uuid}:2-3",)]
    assert s.execute("SELECT GTID_SUBSET(@a, @@GLOBAL.gtid_executed)")[-1].rows == [(1,)]


def test_types_are_kept(s):
    # RM8: "User variables can be assigned a value from a limited set of data types: integer, decimal,
    # floating-point, binary or nonbinary string, or NULL value"; mysql-test user_var: SET @v3=1.1 is DECIMAL.
    s.execute(
        "SET @i = 5, @d = 1.50, @f = 1e1, @n = NULL, @s = 'str', @e = 1 + 1, @big = 18446744071710965857"
    )
    assert s.execute("SELECT @i, @d, @f, @n, @s, @e, @big, @never_set")[-1].rows == [
        (5, Decimal("1.50"), 10.0, None, "str", 2, 18446744071710965857, None)
    ]
    # names are case-insensitive
    s.execute("SET @MiXeD = 7")
    assert s.execute("SELECT @mixed, @MIXED")[-1].rows == [(7, 7)]


def test_unknown_column_on_the_right(s):
    # user_var.result: set @a := foo;  ERROR 42S22: Unknown column 'foo' in 'field list'
    assert _err(s, "SET @a := foo") == (1054, "Unknown column 'foo' in 'field list'")


def test_variables_in_where_insert_and_update(s):
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(64))")
    s.execute("SET @id = 7, @v = 'seven'")
    s.execute("INSERT INTO t VALUES (@id, @v), (@id + 1, CONCAT(@v, '+1'))")
    assert s.execute("SELECT * FROM t WHERE id = @id")[-1].rows == [(7, "seven")]
    assert s.execute("SELECT v FROM t WHERE id > @id")[-1].rows == [("seven+1",)]
    s.execute("SET @v = 'changed'")
    s.execute("UPDATE t SET v = @v WHERE id = @id")
    assert s.execute("SELECT v FROM t ORDER BY id")[-1].rows == [("changed",), ("seven+1",)]


def test_assignment_inside_expressions(s):
    # user_var.result: "select @a:=1;" -> 1; "select @c:=0; update t1 SET id=(@c:=@c+1); select @c;" -> 1;
    # "select @d,(@d:=id),@d from t1;" -> NULL 1 1 (left to right); 8.0.13+ adds warning 1287 to each.
    res = s.execute("SELECT @a:=1")[-1]
    assert ([c.name for c in res.columns], res.rows) == (["@a:=1"], [(1,)])
    assert res.warnings == (Condition(*DEPRECATED),)
    s.execute("CREATE TABLE t1 (id INT, d DOUBLE, c CHAR(10))")
    s.execute("INSERT INTO t1 VALUES (1, 2.0, 'test')")
    s.execute("SELECT @c:=0")
    s.execute("UPDATE t1 SET id=(@c:=@c+1)")
    assert s.execute("SELECT @c")[-1].rows == [(1,)]
    res = s.execute("SELECT @d,(@d:=id),@d FROM t1")[-1]
    assert ([c.name for c in res.columns], res.rows) == (["@d", "(@d:=id)", "@d"], [(None, 1, 1)])
    res = s.execute("SELECT @c:=@c+1")[-1]
    assert ([c.name for c in res.columns], res.rows) == (["@c:=@c+1"], [(2,)])
    # a ':=' inside a string literal is not an assignment
    assert s.execute("SELECT '@x:=1'")[-1].warnings == ()
    # SET's own ':=' is not deprecated
    assert s.execute("SET @z := 3")[-1].warnings == ()


def test_select_into_variables(s):
    # user_var.result: SELECT a, b INTO @a, @b FROM t1 WHERE a=2 AND b=3 GROUP BY a, b; SELECT @a, @b -> 2 3
    s.execute("CREATE TABLE t1 (a INT, b INT)")
    s.execute("INSERT INTO t1 VALUES (0, 0), (2, 1), (2, 3), (1, 1), (30, 20)")
    res = s.execute("SELECT a, b INTO @a, @b FROM t1 WHERE a=2 AND b=3 GROUP BY a, b")[-1]
    assert not res.has_result_set
    assert s.execute("SELECT @a, @b")[-1].rows == [(2, 3)]
    s.execute("SELECT a FROM t1 WHERE a = 30 INTO @a")  # INTO at the end (the 8.0.20+ preferred place)
    assert s.execute("SELECT @a")[-1].rows == [(30,)]
    assert _err(s, "SELECT a INTO @a FROM t1") == (1172, "Result consisted of more than one row")
    res = s.execute("SELECT a INTO @a FROM t1 WHERE a = 99")[-1]
    assert res.warnings == (
        Condition("Warning", 1329, "No data - zero rows fetched, selected, or processed"),
    )
    assert s.execute("SELECT @a")[-1].rows == [(30,)]  # unchanged
    assert _err(s, "SELECT a, b INTO @a FROM t1 WHERE a = 30")[0] == 1222


def test_sleep(s):
    assert s.execute("SELECT SLEEP(0)")[-1].rows == [(0,)]
    assert s.execute("SELECT SLEEP(0.01)")[-1].rows == [(0,)]
    assert _err(s, "SELECT SLEEP(NULL)") == (1210, "Incorrect arguments to sleep.")
    assert _err(s, "SELECT SLEEP(-1)") == (1210, "Incorrect arguments to sleep.")


def test_sleep_interrupted_returns_1(s):
    # RM8: "When SLEEP() is the only thing invoked by a query that is interrupted, it returns 1"
    out: list = []
    t = threading.Thread(target=lambda: out.append(s.execute("SELECT SLEEP(30)")[-1].rows))
    t.start()
    time.sleep(0.1)
    s.executor.interrupt.set()  # the KILL QUERY hook
    t.join(10)
    assert not t.is_alive()
    assert out == [[(1,)]]
