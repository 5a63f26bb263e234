"""GROUP_CONCAT([DISTINCT] expr[, expr] [ORDER BY ...] [SEPARATOR s]) and group_concat_max_len.

Expected values: mysql-test ``r/func_gconcat.result`` (table t1 below and its results, case-insensitive ties kept
in input order, NULL rows skipped, ``group_concat_max_len = 4`` cutting ``D,D,E`` to ``D,D,``); the warning text
is MySQL 8's ER_CUT_VALUE_GROUP_CONCAT "Row %u was cut by GROUP_CONCAT()" (``share/messages_to_clients.txt``) and
6 values of 200 characters under the default 1024 give a 1024-byte result and "Row 6 was cut" (RM8
"group_concat_max_len": "The maximum permitted result length in bytes for the GROUP_CONCAT() function. The
default is 1024").
"""

from __future__ import annotations

import pytest

T1 = (
    "(1,1,'a','a'),(2,2,'b','a'),(2,3,'c','b'),(3,4,'E','a'),(3,5,'C','b'),(3,6,'D','b'),(3,7,'d','d'),"
    "(3,8,'d','d'),(3,9,'D','c')"
)


@pytest.fixture
def s(open_server):
    session = open_server().session()
    session.execute(
        "CREATE DATABASE d; USE d; CREATE TABLE t1 (grp INT, a BIGINT UNSIGNED, c CHAR(10), d CHAR(10));"
        f"INSERT INTO t1 VALUES {T1}"
    )
    yield session
    session.close()


@pytest.mark.parametrize(
    ("item", "rows"),
    [
        ("group_concat(c)", ["a", "b,c", "E,C,D,d,d,D"]),
        ("group_concat(a,c)", ["1a", "2b,3c", "4E,5C,6D,7d,8d,9D"]),
        ('group_concat(c separator "---->")', ["a", "b---->c", "E---->C---->D---->d---->d---->D"]),
        ("group_concat(c order by c)", ["a", "b,c", "C,D,d,d,D,E"]),
        ("group_concat(c order by c desc)", ["a", "c,b", "E,D,d,d,D,C"]),
        ("group_concat(d order by a desc)", ["a", "b,a", "c,d,d,b,b,a"]),
        ("group_concat(distinct c order by c)", ["a", "b,c", "C,D,E"]),
        ('group_concat(distinct c order by c desc separator ",")', ["a", "c,b", "E,D,C"]),
    ],
)
def test_func_gconcat_result(s, item, rows) -> None:
    res = s.execute(f"select grp,{item} from t1 group by grp")[0]
    assert [c.name for c in res.columns] == ["grp", item]  # the item as written names the column
    assert [r[1] for r in res.rows] == rows


def test_several_order_keys(s) -> None:
    # func_gconcat.result (t1 joined to t2 on id1, which keeps every row once)
    s.execute(
        "CREATE TABLE t2 (id1 INT, id2 INT); INSERT INTO t2 VALUES (1,1),(1,2),(1,3),(1,4),(1,5),(2,1),(2,2),(2,3)"
    )
    res = s.execute(
        'SELECT id1, GROUP_CONCAT(id2,"/",6-id2 ORDER BY 1+0,6-id2,id2 ASC) FROM t2 GROUP BY id1'
    )[0]
    assert res.rows == [(1, "5/1,4/2,3/3,2/4,1/5"), (2, "3/3,2/4,1/5")]
    res = s.execute("SELECT id1, GROUP_CONCAT(id2 ORDER BY id2 DESC) AS concat_id FROM t2 GROUP BY id1")[0]
    assert res.rows == [(1, "5,4,3,2,1"), (2, "3,2,1")]


def test_nulls_and_max_len(s) -> None:
    s.execute(
        "CREATE TABLE n (grp INT, c CHAR(10)); INSERT INTO n VALUES (1,NULL),(2,'b'),(2,NULL),(3,'E'),(3,NULL),"
        "(3,'D'),(3,NULL),(3,NULL),(3,'D'),(4,''),(5,NULL)"
    )
    res = s.execute("select grp,group_concat(c order by c) from n group by grp")[0]
    assert [r[1] for r in res.rows] == [None, "b", "D,D,E", "", None]
    s.execute("set group_concat_max_len = 4")
    res = s.execute("select grp,group_concat(c order by c) from n group by grp")[0]
    assert [r[1] for r in res.rows] == [None, "b", "D,D,", "", None]
    assert [w.code for w in res.warnings] == [1260]


def test_default_limit_1024_and_warning(s) -> None:
    s.execute(
        "CREATE TABLE big (v VARCHAR(300)); INSERT INTO big VALUES " + ",".join(["(REPEAT('x', 200))"] * 6)
    )
    res = s.execute("SELECT LENGTH(GROUP_CONCAT(v)) FROM big")[0]
    assert res.rows == [(1024,)]
    assert s.execute("SHOW WARNINGS")[0].rows == [("Warning", 1260, "Row 6 was cut by GROUP_CONCAT()")]
    s.execute("SET SESSION group_concat_max_len = 2000")
    assert s.execute("SELECT LENGTH(GROUP_CONCAT(v)) FROM big")[0].rows == [(1205,)]
    assert s.execute("SELECT @@group_concat_max_len")[0].rows == [(2000,)]
