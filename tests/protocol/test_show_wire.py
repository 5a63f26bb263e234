"""SHOWs whose rows a higher layer provides, through a real `gtidkit server` and real clients: the wire server's
SHOW PROCESSLIST and replication's SHOW REPLICAS / SHOW REPLICA STATUS / SHOW SLAVE HOSTS are answered by the
providers those layers register at start (``engine/statements/show.py``), in the text and the binary protocol.

Expected columns: RM8 "SHOW PROCESSLIST Statement" (Id, User, Host, db, Command, Time, State, Info), "SHOW REPLICAS
Statement" (Server_Id, Host, Port, Source_Id, Replica_UUID; SHOW SLAVE HOSTS: Server_id, Host, Port, Master_id,
Slave_UUID), "SHOW REPLICA STATUS Statement" (no row on a server that is no replica).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import mysql.connector
import pymysql
import pytest

from .server_proc import ServerProcess, running_server

PROCESSLIST = ["Id", "User", "Host", "db", "Command", "Time", "State", "Info"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = Path(tmp_path_factory.mktemp("show")) / "data"
    with running_server(datadir, "--log-bin", "--server-id=5") as srv:
        yield srv


def test_text_protocol(server: ServerProcess) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=server.port, user="root", password="", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW FULL PROCESSLIST")
            assert [d[0] for d in cur.description] == PROCESSLIST
            mine = [r for r in cur.fetchall() if r[0] == conn.thread_id()]
            assert [(r[1], r[4], r[7]) for r in mine] == [("root", "Query", "SHOW FULL PROCESSLIST")]
            cur.execute("SHOW REPLICAS")
            assert [d[0] for d in cur.description] == [
                "Server_Id",
                "Host",
                "Port",
                "Source_Id",
                "Replica_UUID",
            ]
            cur.execute("SHOW SLAVE HOSTS")
            assert [d[0] for d in cur.description] == ["Server_id", "Host", "Port", "Master_id", "Slave_UUID"]
            assert cur.execute("SHOW REPLICA STATUS") == 0
    finally:
        conn.close()


def test_binary_protocol(server: ServerProcess) -> None:
    """A prepared SHOW PROCESSLIST (mysql-connector's server-side prepared cursor) reads the same provider: MySQL
    prepares it (``sql/sql_prepare.cc`` check_prepared_statement lists SQLCOM_SHOW_PROCESSLIST among the statements
    it accepts); before its rows had one provider, PREPARE ran it without the wire server and answered 1235."""
    conn = mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", password="")
    try:
        cur = conn.cursor(prepared=True)
        cur.execute("SHOW PROCESSLIST")
        rows = cur.fetchall()
        assert [d[0] for d in cur.description] == PROCESSLIST
        assert [r[1] for r in rows if r[0] == conn.connection_id] == ["root"]
    finally:
        conn.close()
