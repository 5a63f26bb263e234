"""MAX_EXECUTION_TIME for prepared statements (issue 19 §3): COM_STMT_EXECUTE of a SELECT honours the session's
``max_execution_time`` and the ``/*+ MAX_EXECUTION_TIME(ms) */`` hint written in the prepared text as a text SELECT
does (ER_QUERY_TIMEOUT 3024, RM8 "Optimizer Hints" and "max_execution_time": "applies to read-only SELECT
statements"), and COM_STMT_PREPARE reads no row (MySQL's PREPARE does not run the statement).
Driver: mysql-connector-python's prepared cursor (binary protocol).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import mysql.connector
import pytest

from .server_proc import ServerProcess, running_server

JOIN = "COUNT(*) FROM big a, big b, big c"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("pstimeout") / "data"
    with running_server(datadir, "--server-id=22") as s:
        conn = _connect(s, database=None)
        cur = conn.cursor()
        cur.execute("CREATE DATABASE pt")
        cur.execute("CREATE TABLE pt.big (a INT)")
        cur.execute("INSERT INTO pt.big VALUES " + ",".join(f"({i})" for i in range(1000)))
        conn.close()
        yield s


def _connect(srv: ServerProcess, database: str | None = "pt") -> mysql.connector.MySQLConnection:
    return mysql.connector.connect(
        host="127.0.0.1",
        port=srv.port,
        user="root",
        password="",
        database=database,
        use_pure=True,
        autocommit=True,
    )


@pytest.mark.parametrize(
    ("setup", "sql", "params"),
    [
        pytest.param(None, f"SELECT /*+ MAX_EXECUTION_TIME(200) */ {JOIN} WHERE a.a >= ?", (0,), id="hint"),
        pytest.param(
            "SET SESSION max_execution_time = 200", f"SELECT {JOIN} WHERE a.a >= ?", (0,), id="variable"
        ),
        pytest.param(
            "SET SESSION max_execution_time = 200", f"SELECT {JOIN}", (), id="variable-no-parameters"
        ),
        pytest.param(None, f"SELECT /*+ MAX_EXECUTION_TIME(200) */ {JOIN}", (), id="hint-no-parameters"),
    ],
)
def test_prepared_select_stops_with_3024(
    srv: ServerProcess, setup: str | None, sql: str, params: tuple[int, ...]
) -> None:
    conn = _connect(srv)
    if setup:
        conn.cursor().execute(setup)
    cur = conn.cursor(prepared=True)
    started = time.monotonic()
    with pytest.raises(mysql.connector.Error) as exc:
        cur.execute(sql, params)
        cur.fetchall()
    assert exc.value.errno == 3024
    assert exc.value.msg == "Query execution was interrupted, maximum statement execution time exceeded"
    assert time.monotonic() - started < 5  # PREPARE read no row, EXECUTE stopped at its deadline
    cur = conn.cursor(prepared=True)
    cur.execute("SELECT COUNT(*) FROM big WHERE a >= ?", (0,))  # the session goes on
    assert cur.fetchall() == [(1000,)]
    conn.close()


def test_prepared_select_within_its_time(srv: ServerProcess) -> None:
    """A prepared SELECT that ends in time returns its rows, and a sleep past the hint is cut short (1)."""
    conn = _connect(srv)
    cur = conn.cursor(prepared=True)
    cur.execute("SELECT /*+ MAX_EXECUTION_TIME(5000) */ COUNT(*) FROM big WHERE a < ?", (10,))
    assert cur.fetchall() == [(10,)]
    cur = conn.cursor(prepared=True)
    started = time.monotonic()
    cur.execute("SELECT /*+ MAX_EXECUTION_TIME(200) */ SLEEP(?)", (3,))
    assert cur.fetchall() == [(1,)]
    assert time.monotonic() - started < 2
    conn.close()
