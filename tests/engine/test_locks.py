"""LOCK TABLES / UNLOCK TABLES / FLUSH TABLES WITH READ LOCK.

Expected values: mysql-test ``r/lock.result`` (mysql/mysql-server; each case quoted below) and RM8 15.3.6 "LOCK
TABLES and UNLOCK TABLES Statements" (implicit commit, other sessions wait, START TRANSACTION releases table locks,
UNLOCK TABLES commits only when LOCK TABLES was used), RM8 15.7.8.3 FLUSH (the global read lock; 1223 for the
holder's writes). Neither statement is binlogged or consumes a GTID (RM8 "Statements That Cause an Implicit
Commit": the only GTID is the one of the transaction they commit).
"""

from __future__ import annotations

import threading
import time

import pytest

from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet


@pytest.fixture
def srv(open_server):
    server = open_server(log_bin=True)
    with server.session() as s:
        s.execute("CREATE DATABASE test")
    return server


def _session(srv):
    s = srv.session()
    s.execute("USE test")
    return s


def _err(s, sql):
    with pytest.raises(MySQLError) as exc:
        s.execute(sql)
    return exc.value.code, exc.value.message


def _executed(srv):
    return srv.gtid_state.executed()


def test_lock_result_read_and_write_locks(srv):
    s = _session(srv)
    s.execute("CREATE TABLE t1 (id INT NOT NULL, id2 INT NOT NULL, PRIMARY KEY (id, id2))")
    s.execute("INSERT INTO t1 (id, id2) VALUES (1,1),(1,2),(1,3)")
    # LOCK TABLE t1 WRITE; select ...; update t1 set id=-1 where id=1;
    s.execute("LOCK TABLE t1 WRITE")
    assert s.execute("SELECT count(DISTINCT id) FROM t1")[-1].rows == [(1,)]
    s.execute("UPDATE t1 SET id=-1 WHERE id=1")
    # LOCK TABLE t1 READ; update t1 set id=1 where id=1;
    s.execute("LOCK TABLE t1 READ")
    assert _err(s, "UPDATE t1 SET id=1 WHERE id=1") == (
        1099,
        "Table 't1' was locked with a READ lock and can't be updated",
    )
    # create table t2 SELECT * from t1;  ERROR HY000: Table 't2' was not locked with LOCK TABLES
    assert _err(s, "CREATE TABLE t2 SELECT * FROM t1") == (1100, "Table 't2' was not locked with LOCK TABLES")
    s.execute("UNLOCK TABLES")
    s.execute(
        "CREATE TABLE t2 (id INT NOT NULL, id2 INT NOT NULL)"
    )  # (CREATE ... SELECT: not in this engine)
    s.execute("LOCK TABLE t1 WRITE, t2 WRITE")
    s.execute("INSERT INTO t2 SELECT * FROM t1")
    s.execute("UPDATE t1 SET id=1 WHERE id=-1")
    s.execute("UNLOCK TABLES")


def test_lock_result_aliases_and_second_reference(srv):
    s = _session(srv)
    s.execute("CREATE TABLE t1 (index1 SMALLINT, nr SMALLINT)")
    s.execute("CREATE TABLE t2 (nr SMALLINT, name VARCHAR(20))")
    s.execute("INSERT INTO t2 VALUES (1,'item1'), (2,'item2')")
    # lock tables t1 write, t2 read; insert into t1 select 1,nr from t2 where name='item1';
    s.execute("LOCK TABLES t1 WRITE, t2 READ")
    s.execute("INSERT INTO t1 SELECT 1, nr FROM t2 WHERE name='item1'")
    s.execute("UNLOCK TABLES")
    # lock tables t1 write; insert into t1 select index1,nr from t1;  ERROR ... 't1' was not locked
    s.execute("LOCK TABLES t1 WRITE")
    assert _err(s, "INSERT INTO t1 SELECT index1, nr FROM t1") == (
        1100,
        "Table 't1' was not locked with LOCK TABLES",
    )
    s.execute("UNLOCK TABLES")
    # lock tables t1 write, t1 as t1_alias read; insert into t1 select index1,nr from t1 as t1_alias;
    s.execute("LOCK TABLES t1 WRITE, t1 AS t1_alias READ")
    s.execute("INSERT INTO t1 SELECT index1, nr FROM t1 AS t1_alias")
    # drop table t1,t2;  ERROR HY000: Table 't2' was not locked with LOCK TABLES
    assert _err(s, "DROP TABLE t1, t2") == (1100, "Table 't2' was not locked with LOCK TABLES")
    assert _err(s, "SELECT * FROM t1 AS other") == (1100, "Table 'other' was not locked with LOCK TABLES")
    s.execute("UNLOCK TABLES")
    assert s.execute("SELECT count(*) FROM t1")[-1].rows == [(2,)]


def test_lock_result_delete_using_read_locked(srv):
    s = _session(srv)
    s.execute("CREATE TABLE t1 (a INT NOT NULL AUTO_INCREMENT, PRIMARY KEY (a))")
    s.execute("CREATE TABLE t2 (a INT NOT NULL AUTO_INCREMENT, PRIMARY KEY (a))")
    # lock tables t1 write, t2 read; delete from t1 using t1,t2 ...; delete from t2 using t1,t2 -> 1099 't2'
    s.execute("LOCK TABLES t1 WRITE, t2 READ")
    s.execute("DELETE FROM t1 WHERE a = 1")
    msg = "Table 't2' was locked with a READ lock and can't be updated"
    assert _err(s, "DELETE FROM t2 USING t1, t2 WHERE t1.a = t2.a") == (1099, msg)
    # drop table t1,t2;  ERROR HY000: Table 't2' was locked with a READ lock and can't be updated
    assert _err(s, "DROP TABLE t1, t2") == (1099, msg)
    s.execute("UNLOCK TABLES")


def test_ftwrl_under_lock_tables_and_own_writes(srv):
    s = _session(srv)
    s.execute("CREATE TABLE t1 (a INT)")
    # lock table t1 write; flush tables with read lock;  ERROR ... active locked tables or an active transaction
    s.execute("LOCK TABLE t1 WRITE")
    assert _err(s, "FLUSH TABLES WITH READ LOCK") == (
        1192,
        "Can't execute the given command because you have active locked tables or an active transaction",
    )
    s.execute("UNLOCK TABLES")
    s.execute("FLUSH TABLES WITH READ LOCK")
    assert s.execute("SELECT * FROM t1")[-1].rows == []
    conflicting = (1223, "Can't execute the query because you have a conflicting read lock")
    assert _err(s, "INSERT INTO t1 VALUES (1)") == conflicting
    assert _err(s, "CREATE TABLE t3 (a INT)") == conflicting
    s.execute("UNLOCK TABLES")
    s.execute("INSERT INTO t1 VALUES (1)")


def test_unknown_table_and_syntax(srv):
    s = _session(srv)
    assert _err(s, "LOCK TABLES nosuch READ") == (1146, "Table 'test.nosuch' doesn't exist")
    assert _err(s, "LOCK TABLES")[0] == 1064


def test_implicit_commit_and_no_gtid_consumed(srv):
    s = _session(srv)
    s.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    s.execute("CREATE TABLE u (id INT PRIMARY KEY)")
    before = _executed(srv)
    # LOCK TABLES commits the open transaction: its INSERT gets one GTID, LOCK itself none
    s.execute("BEGIN")
    s.execute("INSERT INTO t VALUES (1)")
    s.execute("LOCK TABLES t WRITE")
    assert not s.in_transaction()
    after_lock = _executed(srv)
    assert len(after_lock - before) == 1
    s.execute("UNLOCK TABLES")
    s.execute("FLUSH TABLES WITH READ LOCK")
    s.execute("UNLOCK TABLES")
    assert _executed(srv) == after_lock
    # UNLOCK TABLES without LOCK TABLES does not commit (RM8: only if LOCK TABLES acquired locks)
    s.execute("BEGIN")
    s.execute("INSERT INTO t VALUES (2)")
    s.execute("UNLOCK TABLES")
    assert s.in_transaction()
    s.execute("ROLLBACK")
    assert s.execute("SELECT id FROM t")[-1].rows == [(1,)]
    # ... and with LOCK TABLES it does: autocommit=0 writes under the lock are committed by UNLOCK
    s.execute("SET autocommit = 0")
    s.execute("LOCK TABLES t WRITE")
    s.execute("INSERT INTO t VALUES (3)")
    assert s.in_transaction()
    s.execute("UNLOCK TABLES")
    assert not s.in_transaction()
    s.execute("SET autocommit = 1")
    assert len(_executed(srv) - after_lock) == 1
    # nothing of LOCK / UNLOCK / FLUSH TABLES WITH READ LOCK reaches the binary log
    infos = [r[5] for r in s.execute("SHOW BINLOG EVENTS")[-1].rows]
    assert not any("LOCK" in i.upper() for i in infos)
    assert not any("FLUSH" in i.upper() for i in infos)


def test_begin_releases_table_locks(srv):
    s = _session(srv)
    s.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    s.execute("CREATE TABLE u (id INT PRIMARY KEY)")
    s.execute("LOCK TABLES t READ")
    assert _err(s, "SELECT * FROM u")[0] == 1100
    s.execute("START TRANSACTION")
    assert s.execute("SELECT * FROM u")[-1].rows == []
    s.execute("COMMIT")


def _in_thread(fn):
    out: list = []

    def run():
        try:
            out.append(fn())
        except MySQLError as err:
            out.append((err.code, err.message))

    t = threading.Thread(target=run)
    t.start()
    return t, out


def test_other_sessions_wait(srv):
    a, b = _session(srv), _session(srv)
    a.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    a.execute("INSERT INTO t VALUES (1)")
    # READ lock: others read, their writes wait until UNLOCK TABLES
    a.execute("LOCK TABLES t READ")
    assert b.execute("SELECT * FROM t")[-1].rows == [(1,)]
    t, out = _in_thread(lambda: b.execute("INSERT INTO t VALUES (2)")[-1].affected_rows)
    time.sleep(0.2)
    assert t.is_alive() and out == []
    a.execute("UNLOCK TABLES")
    t.join(10)
    assert out == [1]
    # WRITE lock: others' reads wait too
    a.execute("LOCK TABLES t WRITE")
    t, out = _in_thread(lambda: b.execute("SELECT count(*) FROM t")[-1].rows)
    time.sleep(0.2)
    assert t.is_alive() and out == []
    a.execute("UNLOCK TABLES")
    t.join(10)
    assert out == [[(2,)]]
    # a disconnect releases the locks
    a.execute("LOCK TABLES t WRITE")
    t, out = _in_thread(lambda: b.execute("SELECT count(*) FROM t")[-1].rows)
    time.sleep(0.2)
    a.close()
    t.join(10)
    assert out == [[(2,)]]


def test_global_read_lock_blocks_other_writers_and_times_out(srv):
    a, b = _session(srv), _session(srv)
    a.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    a.execute("FLUSH TABLES WITH READ LOCK")
    assert b.execute("SELECT count(*) FROM t")[-1].rows == [(0,)]
    b.execute("SET SESSION lock_wait_timeout = 1")
    assert _err(b, "INSERT INTO t VALUES (1)") == (
        1205,
        "Lock wait timeout exceeded; try restarting transaction",
    )
    t, out = _in_thread(lambda: b.execute("INSERT INTO t VALUES (1)")[-1].affected_rows)
    time.sleep(0.2)
    assert t.is_alive()
    gtids = _executed(srv)
    a.execute("UNLOCK TABLES")
    t.join(10)
    assert out == [1]
    assert len(_executed(srv) - gtids) == 1
    assert isinstance(gtids, GtidSet)
