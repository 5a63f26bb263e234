"""Issue 17 section 2 end to end: accounts created on a source log in on its replica.

Two real `gtidkit server` processes (source with the binlog, replica with --log-bin --log-replica-updates, both
gtid_mode=ON) replicating by GTID auto-position. Each account statement on the source is one GTID and one Query
event in MySQL's rewritten form (``IDENTIFIED WITH 'plugin' AS '<hash>'``: the clear password never reaches the
binlog); the replica applies it to its grant tables, so the same password logs in there, GRANT / REVOKE take
effect there, and the replica re-logs the event under the source's GTID. The README's read-your-writes example
(an ``app`` account on both servers) runs as written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pymysql
import pytest

from gtidkit.replication.read_your_writes import Endpoint, ReadYourWrites
from replication.cluster import Node, cluster


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Node, Node]]:
    with cluster(tmp_path_factory.mktemp("accounts")) as c:
        source = c.node("source", 1, log_bin=True)
        replica = c.node("replica", 2, log_bin=True, log_replica_updates=True)
        replica.replicate_from(source)
        yield source, replica


def _login(node: Node, user: str, password: str, database: str | None = None) -> pymysql.Connection:
    return pymysql.connect(
        host="127.0.0.1",
        port=node.port,
        user=user,
        password=password,
        database=database,
        autocommit=True,
        connect_timeout=30,
    )


def _denied(node: Node, user: str, password: str) -> tuple[int, str]:
    with pytest.raises(pymysql.err.OperationalError) as err:
        _login(node, user, password).close()
    return err.value.args


def _sync(source: Node, replica: Node) -> None:
    assert replica.wait_for(source.executed(), timeout=60), replica.replica_status().get("Last_SQL_Error")


def _binlog_queries(node: Node) -> list[str]:
    return [str(r[5]) for r in node.query("SHOW BINLOG EVENTS") if r[2] == "Query"]


def test_created_account_logs_in_on_the_replica(pair: tuple[Node, Node]) -> None:
    source, replica = pair
    before = source.executed()
    source.query("CREATE DATABASE app")
    source.query("CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(20))")
    source.query("INSERT INTO app.t VALUES (1, 'one')")
    source.query("CREATE USER 'app'@'%' IDENTIFIED BY 'x'")
    source.query("CREATE USER 'nat'@'%' IDENTIFIED WITH mysql_native_password BY 'natpw'")
    source.query("GRANT SELECT, INSERT ON app.* TO 'app'@'%'")
    assert (source.executed() - before).count() == 6  # each account statement took one GTID
    _sync(source, replica)
    with _login(replica, "app", "x", "app") as conn, conn.cursor() as cur:
        cur.execute("SELECT v FROM t WHERE id = 1")
        assert cur.fetchall() == (("one",),)
        cur.execute("SELECT CURRENT_USER()")
        assert cur.fetchall() == (("app@%",),)
    with _login(replica, "nat", "natpw") as conn, conn.cursor() as cur:
        cur.execute("SELECT USER()")
        assert cur.fetchone()[0].startswith("nat@")
    assert _denied(replica, "app", "wrong")[0] == 1045
    # the same authentication_string on both servers: the replica stored the source's hash
    row = "SELECT plugin, authentication_string FROM mysql.user WHERE user = 'app'"
    assert source.query(row) == replica.query(row)
    assert source.query(row)[0][1].startswith("$A$005$")
    # the binlogs carry the hashed form only, the replica's re-logged under the source's GTIDs
    for node in (source, replica):
        queries = _binlog_queries(node)
        creates = [q for q in queries if q.startswith("CREATE USER")]
        assert creates[0].startswith(
            "CREATE USER 'app'@'%' IDENTIFIED WITH 'caching_sha2_password' AS '$A$005$"
        )
        native = "*" + hashlib.sha1(hashlib.sha1(b"natpw").digest()).hexdigest().upper()  # MySQL's PASSWORD()
        assert creates[1] == f"CREATE USER 'nat'@'%' IDENTIFIED WITH 'mysql_native_password' AS '{native}'"
        assert "GRANT SELECT, INSERT ON `app`.* TO 'app'@'%'" in queries
        assert not any("natpw" in q or "'x'" in q for q in queries)


def test_grant_revoke_alter_drop_apply_on_the_replica(pair: tuple[Node, Node]) -> None:
    source, replica = pair
    source.query("REVOKE INSERT ON app.* FROM 'app'@'%'")
    _sync(source, replica)
    with _login(replica, "app", "x", "app") as conn, conn.cursor() as cur:
        with pytest.raises(pymysql.err.OperationalError) as err:
            cur.execute("INSERT INTO t VALUES (2, 'two')")
        assert err.value.args[0] == 1142
    source.query("ALTER USER 'app'@'%' IDENTIFIED BY 'y'")
    source.query("DROP USER 'nat'@'%'")
    _sync(source, replica)
    assert _denied(replica, "app", "x")[0] == 1045
    _login(replica, "app", "y").close()
    assert _denied(replica, "nat", "natpw")[0] == 1045
    source.query("ALTER USER 'app'@'%' IDENTIFIED BY 'x'")
    _sync(source, replica)


def test_readme_read_your_writes_example(pair: tuple[Node, Node]) -> None:
    """README: ReadYourWrites with the ``app`` account on the source and the replica (was 1045 on the replica)."""
    source, replica = pair
    # the module's first test made these; run alone, this test makes them itself
    source.query("CREATE DATABASE IF NOT EXISTS app")
    source.query("CREATE TABLE IF NOT EXISTS app.t (id INT PRIMARY KEY, v VARCHAR(20))")
    source.query("CREATE USER IF NOT EXISTS 'app'@'%' IDENTIFIED BY 'x'")
    source.query("GRANT ALL ON app.* TO 'app'@'%'")
    _sync(source, replica)
    with ReadYourWrites(
        Endpoint("127.0.0.1", source.port, "app", "x", "app"),
        [Endpoint("127.0.0.1", replica.port, "app", "x", "app")],
        timeout=10.0,
    ) as rw:
        rw.write("INSERT INTO t VALUES (10, 'ten')")
        r = rw.read("SELECT v FROM t WHERE id = 10")
        assert (r.rows, r.served_by) == ((("ten",),), "replica")
