"""COMMIT AND CHAIN / RELEASE over the wire, PyMySQL against a real ``gtidkit server`` process.

MySQL sources: RM8 "START TRANSACTION, COMMIT, and ROLLBACK Statements" (RELEASE: "the server disconnects the
current client session after terminating the current transaction"); ``sql_parse.cc`` SQLCOM_COMMIT sets
``thd->killed = KILL_CONNECTION`` after ``my_ok``: the client gets the OK, then the connection ends, and its next
command fails with 2006 / 2013 (mysql-test ``suite/sys_vars/t/completion_type_func.test``: ``--error
2006,2013,ER_SERVER_SHUTDOWN``). A chained transaction is open when the COMMIT's OK is sent, so the OK carries
SERVER_STATUS_IN_TRANS (``trans_begin`` sets it before ``my_ok``), and SERVER_STATUS_IN_TRANS_READONLY for a READ
ONLY one.
"""

from __future__ import annotations

from collections.abc import Iterator

import pymysql
import pytest
from pymysql.constants import CLIENT, SERVER_STATUS

from .server_proc import ServerProcess, running_server

IN_TRANS_READONLY = 0x2000  # SERVER_STATUS_IN_TRANS_READONLY (mysql_com.h)


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("completion") / "data"
    with running_server(
        datadir, "--log-bin", "--server-id=11", "--gtid-mode=ON", "--enforce-gtid-consistency=ON"
    ) as s:
        yield s


def _conn(srv: ServerProcess) -> pymysql.connections.Connection:
    return pymysql.connect(
        host="127.0.0.1",
        port=srv.port,
        user="root",
        password="",
        autocommit=True,
        client_flag=CLIENT.MULTI_STATEMENTS,
    )


def test_commit_and_chain_keeps_in_trans_and_rollback_undoes(srv: ServerProcess) -> None:
    """The OK of COMMIT AND CHAIN has IN_TRANS; ROLLBACK then undoes the chained INSERT (MySQL keeps 20 only)."""
    c = _conn(srv)
    try:
        cur = c.cursor()
        cur.execute("CREATE DATABASE IF NOT EXISTS db")
        cur.execute("CREATE TABLE db.chain (a INT PRIMARY KEY)")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO db.chain VALUES (20)")
        cur.execute("COMMIT AND CHAIN")
        assert c.server_status & SERVER_STATUS.SERVER_STATUS_IN_TRANS
        cur.execute("INSERT INTO db.chain VALUES (21)")
        cur.execute("ROLLBACK")
        assert not c.server_status & SERVER_STATUS.SERVER_STATUS_IN_TRANS
        cur.execute("SELECT a FROM db.chain")
        assert cur.fetchall() == ((20,),)
        cur.execute("START TRANSACTION READ ONLY")
        cur.execute("COMMIT AND CHAIN")
        assert c.server_status & IN_TRANS_READONLY
        with pytest.raises(pymysql.err.MySQLError) as exc:
            cur.execute("INSERT INTO db.chain VALUES (22)")
        assert exc.value.args[0] == 1792
        cur.execute("ROLLBACK")
    finally:
        c.close()


@pytest.mark.parametrize("how", ["COMMIT RELEASE", "completion_type"])
def test_release_closes_the_connection_after_the_ok(srv: ServerProcess, how: str) -> None:
    """The RELEASE statement succeeds (its OK arrives), its commit is durable, the next command finds the
    connection gone (2006 / 2013)."""
    c = _conn(srv)
    other = _conn(srv)
    try:
        cur = c.cursor()
        cur.execute("CREATE DATABASE IF NOT EXISTS db")
        cur.execute("CREATE TABLE IF NOT EXISTS db.rel (a INT PRIMARY KEY)")
        cur.execute("DELETE FROM db.rel")
        if how == "completion_type":
            cur.execute("SET @@session.completion_type = 2")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO db.rel VALUES (1)")
        cur.execute("COMMIT RELEASE" if how != "completion_type" else "COMMIT")  # the OK arrives
        with pytest.raises(pymysql.err.OperationalError) as exc:
            cur.execute("SELECT 1")
        assert exc.value.args[0] in (2006, 2013)
        ocur = other.cursor()
        ocur.execute("SELECT a FROM db.rel")
        assert ocur.fetchall() == ((1,),)
    finally:
        other.close()
        try:
            c.close()
        except pymysql.err.Error:
            pass


def test_prepared_commit_and_chain_over_com_stmt_prepare(srv: ServerProcess) -> None:
    """COM_STMT_PREPARE / COM_STMT_EXECUTE of COMMIT AND CHAIN (mysql.connector's prepared cursor) chains as the
    text statement does: the INSERT after it is undone by ROLLBACK."""
    mysql_connector = pytest.importorskip("mysql.connector")
    c = mysql_connector.connect(host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True)
    try:
        cur = c.cursor(prepared=True)
        cur.execute("CREATE DATABASE IF NOT EXISTS db")
        cur.execute("CREATE TABLE IF NOT EXISTS db.prep (a INT PRIMARY KEY)")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO db.prep VALUES (?)", (1,))
        cur.execute("COMMIT AND CHAIN")
        assert c.in_transaction
        cur.execute("INSERT INTO db.prep VALUES (?)", (2,))
        cur.execute("ROLLBACK")
        cur.execute("SELECT a FROM db.prep")
        assert cur.fetchall() == [(1,)]
    finally:
        c.close()
