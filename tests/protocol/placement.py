"""Two sessions of one test server placed in chosen worker processes (round-robin placement: the i-th connection
lands in worker ``i mod N``), and the small PyMySQL helpers the placement tests share (test_row_locks_server.py,
test_file_per_schema_server.py)."""

from __future__ import annotations

import pymysql
import pytest


def connect(port: int) -> pymysql.connections.Connection:
    """A PyMySQL connection as root (autocommit)."""
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)


def query(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """Run ``sql``; its rows."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def error_code(conn: pymysql.connections.Connection, sql: str) -> int:
    """The MySQL error ``sql`` fails with, 0 when it succeeds."""
    try:
        query(conn, sql)
    except pymysql.err.MySQLError as err:
        return int(err.args[0])
    return 0


#: (process model, the worker of session 1, the worker of session 2): "-" = one process (worker 0)
PLACEMENTS = [
    pytest.param(0, 0, 0, id="one-process"),
    pytest.param(2, 0, 0, id="workers2-same-worker"),
    pytest.param(2, 0, 1, id="workers2-different-workers"),
]


def sessions(port: int, workers: int, w1: int, w2: int) -> tuple[pymysql.connections.Connection, ...]:
    """Two connections placed in workers ``w1`` and ``w2`` (extra connections opened between them as needed)."""
    conns = [connect(port)]
    spare = []
    if workers:
        while True:
            c = connect(port)
            if query(c, "SELECT @@gtidkit_worker_id")[0][0] == w2:
                break
            spare.append(c)
    else:
        c = connect(port)
    conns.append(c)
    assert [query(x, "SELECT @@gtidkit_worker_id")[0][0] for x in conns] == [w1, w2]
    for x in spare:
        x.close()
    return tuple(conns)
