"""Com_xxx and Questions for the client commands, through real clients (mysql-connector-python's binary prepared
statements and ping, PyMySQL's multi-statement COM_QUERY, ``mariadb-admin status``), one process and two workers.

Expected values from MySQL: ``dispatch_command`` (``sql/sql_parse.cc``: COM_PING counts Com_admin_commands, COM_STATISTICS
Com_show_status, COM_STMT_PREPARE / EXECUTE / CLOSE their Com_stmt_*; an executed statement also counts as what it
is), ``server_command_flags`` (CF_SKIP_QUESTIONS: COM_STATISTICS, COM_PING, COM_STMT_PREPARE, COM_STMT_CLOSE,
COM_STMT_RESET are no Questions; each statement of a multi-statement COM_QUERY is one), and 8.0's
``dispatch_command`` taking a query id (Queries) for every command.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import mysql.connector
import pymysql
import pytest

from tests.protocol.server_proc import ServerProcess, running_server

COUNTERS = (
    "Com_admin_commands",
    "Com_show_status",
    "Com_stmt_prepare",
    "Com_stmt_execute",
    "Com_stmt_close",
    "Com_stmt_reset",
    "Com_select",
    "Com_insert",
    "Com_set_option",
    "Questions",
    "Queries",
)
SHOW = "SHOW SESSION STATUS WHERE Variable_name IN ({})".format(", ".join(f"'{n}'" for n in COUNTERS))


@pytest.fixture(scope="module", params=[1, 2], ids=["one-process", "workers2"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    args = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--skip-log-bin", f"--workers={request.param}")
    with running_server(tmp_path_factory.mktemp("com") / "d", *args, base=(), supervised=True) as srv:
        with (
            pymysql.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True) as c,
            c.cursor() as cur,
        ):
            cur.execute("CREATE DATABASE w")
            cur.execute("CREATE TABLE w.t (a INT)")
        yield srv


def _session(cur: object) -> dict[str, int]:
    cur.execute(SHOW)  # type: ignore[attr-defined]
    return {name: int(value) for name, value in cur.fetchall()}  # type: ignore[attr-defined]


def test_prepared_statements_and_ping(server: ServerProcess) -> None:
    conn = mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", autocommit=True)
    try:
        text = conn.cursor()
        prepared = conn.cursor(prepared=True)  # (mysql-connector pings the server here)
        before = _session(text)
        prepared.execute("SELECT a FROM w.t WHERE a = %s", (1,))  # COM_STMT_PREPARE + COM_STMT_EXECUTE
        prepared.fetchall()
        prepared.execute("SELECT a FROM w.t WHERE a = %s", (2,))  # the same statement: COM_STMT_EXECUTE
        prepared.fetchall()
        prepared.close()  # COM_STMT_CLOSE
        conn.ping()
        conn.ping()
        after = _session(text)
    finally:
        conn.close()
    moved = {n: after[n] - before[n] for n in COUNTERS if after[n] != before[n]}
    assert moved == {
        "Com_stmt_prepare": 1,
        "Com_stmt_execute": 2,
        "Com_select": 2,  # each execution counts as the SELECT it is
        "Com_stmt_close": 1,
        "Com_admin_commands": 2,  # COM_PING
        "Com_show_status": 1,  # the second SHOW
        "Questions": 3,  # two COM_STMT_EXECUTE and the SHOW; not PREPARE, RESET, CLOSE, PING
        "Com_stmt_reset": 2,  # mysql-connector resets the statement before each execution
        # every command takes a query id in 8.0 (dispatch_command: next_query_id()), PING included: PREPARE,
        # 2 RESET, 2 EXECUTE, CLOSE, 2 PING and the SHOW (the server's count; no other connection is open)
        "Queries": 9,
    }


def test_multi_statements_and_statistics(server: ServerProcess) -> None:
    conn = pymysql.connect(
        host="127.0.0.1",
        port=server.port,
        user="root",
        autocommit=True,
        client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS,
    )
    try:
        with conn.cursor() as cur:
            before = _session(cur)
            cur.execute("INSERT INTO w.t VALUES (1); SELECT 1; SET @x = 1")
            while cur.nextset():
                pass
            after = _session(cur)
            moved = {n: after[n] - before[n] for n in COUNTERS if after[n] != before[n]}
            # one COM_QUERY, three statements: three questions (and the SHOW's)
            assert moved == {
                "Com_insert": 1,
                "Com_select": 1,
                "Com_set_option": 1,
                "Com_show_status": 1,
                "Questions": 4,
                "Queries": 4,
            }
            # COM_STATISTICS (mariadb-admin status) on another connection: its Questions are the server's
            cur.execute("SHOW GLOBAL STATUS LIKE 'Questions'")
            questions = int(cur.fetchall()[0][1])
    finally:
        conn.close()
    out = subprocess.run(
        ["mariadb-admin", "-h127.0.0.1", f"-P{server.port}", "-uroot", "status"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    shown = int(out.split("Questions: ", 1)[1].split()[0])
    assert shown >= questions + 1  # the SHOW above and what came after; COM_STATISTICS itself is none
