"""SHOW ENGINE INNODB STATUS through PyMySQL (issue 19 §4): MySQL's columns Type / Name / Status and the Standard
Monitor's sections in MySQL's order with the lines tools match (RM8 17.17.3 "InnoDB Standard Monitor and Lock
Monitor Output": ``History list length``, ``---TRANSACTION id, ACTIVE n sec``, ``MySQL thread id``, ``LOCK WAIT``
and ``TRX HAS BEEN WAITING``, ``Log sequence number``, ``Buffer pool size``, ``read views open inside InnoDB``);
the PROCESS privilege (1227, RM8 "SHOW ENGINE Statement").
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator

import pymysql
import pytest

from .server_proc import ServerProcess, running_server

SECTIONS = [
    "BACKGROUND THREAD",
    "SEMAPHORES",
    "TRANSACTIONS",
    "FILE I/O",
    "INSERT BUFFER AND ADAPTIVE HASH INDEX",
    "LOG",
    "BUFFER POOL AND MEMORY",
    "ROW OPERATIONS",
]

#: single-line patterns monitoring tools read (Percona's ss_get_mysql_stats, innotop, pt-mysql-summary)
TOOL_LINES = [
    r"^Trx id counter \d+$",
    r"^History list length \d+$",
    r"^Log sequence number +\d+$",
    r"^Log flushed up to +\d+$",
    r"^Last checkpoint at +\d+$",
    r"^Buffer pool size +\d+$",
    r"^Free buffers +\d+$",
    r"^Database pages +\d+$",
    r"^Modified db pages +\d+$",
    r"^\d+ queries inside InnoDB, \d+ queries in queue$",
    r"^\d+ read views open inside InnoDB$",
    r"^Number of rows inserted \d+, updated \d+, deleted \d+, read \d+$",
    r"^\d+ OS file reads, \d+ OS file writes, \d+ OS fsyncs$",
]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("innostatus") / "data"
    # row locks OFF: a one-row INSERT takes the engine write lock, whose wait this module's lock test shows
    # (row-lock waits, the default: test_row_lock_wait below)
    with running_server(datadir, "--server-id=23", "--gtidkit-row-locks=OFF") as s:
        conn = _conn(s)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE i")
            cur.execute("CREATE TABLE i.t (a INT)")
        conn.close()
        yield s


def _conn(srv: ServerProcess, **kw: object) -> pymysql.connections.Connection:
    kw.setdefault("user", "root")
    kw.setdefault("password", "")
    return pymysql.connect(host="127.0.0.1", port=srv.port, autocommit=True, **kw)


def _status(conn: pymysql.connections.Connection) -> str:
    with conn.cursor() as cur:
        cur.execute("SHOW ENGINE INNODB STATUS")
        assert [d[0] for d in cur.description] == ["Type", "Name", "Status"]
        rows = cur.fetchall()
    assert len(rows) == 1
    kind, name, status = rows[0]
    assert (kind, name) == ("InnoDB", "")
    return str(status)


def test_sections_in_order_with_tool_lines(srv: ServerProcess) -> None:
    conn = _conn(srv)
    status = _status(conn)
    assert re.match(r"\n=+\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\d 0x[0-9a-f]+ INNODB MONITOR OUTPUT\n=+\n", status)
    positions = []
    for title in SECTIONS:
        m = re.search(rf"^(-+)\n{re.escape(title)}\n(-+)$", status, re.MULTILINE)
        assert m is not None, title
        assert len(m.group(1)) == len(m.group(2)) == len(title)
        positions.append(m.start())
    assert positions == sorted(positions)
    assert "LATEST DETECTED DEADLOCK" not in status  # only after a deadlock
    assert status.endswith(
        "----------------------------\nEND OF INNODB MONITOR OUTPUT\n============================\n"
    )
    for pattern in TOOL_LINES:
        assert re.search(pattern, status, re.MULTILINE), pattern
    conn.close()


def test_transactions_and_lock_wait(srv: ServerProcess) -> None:
    """An open write transaction is ACTIVE under its connection id; a session waiting for the write lock is
    LOCK WAIT with TRX HAS BEEN WAITING; the asking session's block shows its statement."""
    holder = _conn(srv)
    waiter = _conn(srv)
    watcher = _conn(srv)
    holder_id, waiter_id, watcher_id = (c.thread_id() for c in (holder, waiter, watcher))
    with holder.cursor() as cur:
        cur.execute("BEGIN")
        cur.execute("INSERT INTO i.t VALUES (1)")
    failures: list[BaseException] = []

    def blocked_insert() -> None:
        try:
            with waiter.cursor() as cur:
                cur.execute("SET SESSION innodb_lock_wait_timeout = 20")
                cur.execute("INSERT INTO i.t VALUES (2)")
        except BaseException as err:  # noqa: BLE001 - reported by the test below
            failures.append(err)

    t = threading.Thread(target=blocked_insert)
    t.start()
    try:
        status = ""
        for _ in range(50):
            status = _status(watcher)
            if "LOCK WAIT" in status:
                break
            time.sleep(0.1)
        assert re.search(rf"^---TRANSACTION {holder_id}, ACTIVE \d+ sec$", status, re.MULTILINE)
        assert re.search(rf"^---TRANSACTION {waiter_id}, ACTIVE \d+ sec\nLOCK WAIT ", status, re.MULTILINE)
        assert re.search(
            r"^------- TRX HAS BEEN WAITING \d+ SEC FOR THIS LOCK TO BE GRANTED:$", status, re.MULTILINE
        )
        assert re.search(
            rf"^MySQL thread id {watcher_id}, OS thread handle \S+, query id \d+ \S+ root.*\nSHOW ENGINE INNODB STATUS$",
            status,
            re.MULTILINE,
        )
        assert re.search(r"^[1-9]\d* read views open inside InnoDB$", status, re.MULTILINE)
    finally:
        with holder.cursor() as cur:
            cur.execute("COMMIT")
        t.join(30)
    assert not failures
    after = _status(watcher)
    assert f"---TRANSACTION {holder_id}, ACTIVE" not in after
    for c in (holder, waiter, watcher):
        c.close()


def test_needs_process_privilege(srv: ServerProcess) -> None:
    root = _conn(srv)
    with root.cursor() as cur:
        cur.execute("CREATE USER 'np'@'%' IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON i.* TO 'np'@'%'")
    user = _conn(srv, user="np", password="pw")
    with pytest.raises(pymysql.err.OperationalError) as exc, user.cursor() as cur:
        cur.execute("SHOW ENGINE INNODB STATUS")
    assert exc.value.args == (
        1227,
        "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation",
    )
    with root.cursor() as cur:
        cur.execute("GRANT PROCESS ON *.* TO 'np'@'%'")
    user.close()
    user = _conn(srv, user="np", password="pw")
    assert "TRANSACTIONS" in _status(user)
    user.close()
    root.close()


def _rows_line(status: str) -> tuple[int, int, int]:
    m = re.search(
        r"^Number of rows inserted (\d+), updated (\d+), deleted (\d+), read \d+$", status, re.MULTILINE
    )
    assert m is not None
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def test_row_operations_count_written_rows(srv: ServerProcess) -> None:
    conn = _conn(srv)
    before = _rows_line(_status(conn))
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE i.r (a INT)")
        cur.execute("INSERT INTO i.r VALUES (1), (2), (3)")
        cur.execute("UPDATE i.r SET a = a + 10 WHERE a > 1")
        cur.execute("DELETE FROM i.r WHERE a = 1")
    after = _rows_line(_status(conn))
    assert tuple(a - b for a, b in zip(after, before)) == (3, 2, 1)
    conn.close()


def test_row_lock_wait(tmp_path_factory: pytest.TempPathFactory) -> None:
    """With row locks (the default), a session waiting for a row another transaction updated is LOCK WAIT with TRX
    HAS BEEN WAITING and a record lock line (``lock_mode X locks rec but not gap waiting``, as InnoDB prints a
    waiting UPDATE by primary key); the holder is ACTIVE."""
    datadir = tmp_path_factory.mktemp("innostatus_rows") / "data"
    with running_server(datadir, "--server-id=24") as s:
        holder, waiter, watcher = _conn(s), _conn(s), _conn(s)
        holder_id, waiter_id = holder.thread_id(), waiter.thread_id()
        with holder.cursor() as cur:
            cur.execute("CREATE DATABASE r")
            cur.execute("CREATE TABLE r.t (id INT PRIMARY KEY, v INT)")
            cur.execute("INSERT INTO r.t VALUES (1, 0), (2, 0)")
            cur.execute("BEGIN")
            cur.execute("UPDATE r.t SET v = 1 WHERE id = 1")
        failures: list[BaseException] = []

        def blocked_update() -> None:
            try:
                with waiter.cursor() as cur:
                    cur.execute("SET SESSION innodb_lock_wait_timeout = 20")
                    cur.execute("BEGIN")
                    cur.execute("UPDATE r.t SET v = 2 WHERE id = 2")  # another row: no wait
                    cur.execute("UPDATE r.t SET v = 2 WHERE id = 1")
                    cur.execute("ROLLBACK")
            except BaseException as err:  # noqa: BLE001 - reported by the test below
                failures.append(err)

        t = threading.Thread(target=blocked_update)
        t.start()
        try:
            status = ""
            for _ in range(100):
                status = _status(watcher)
                if "LOCK WAIT" in status:
                    break
                time.sleep(0.1)
            assert re.search(rf"^---TRANSACTION {holder_id}, ACTIVE \d+ sec$", status, re.MULTILINE)
            assert re.search(
                rf"^---TRANSACTION {waiter_id}, ACTIVE \d+ sec\nLOCK WAIT ", status, re.MULTILINE
            )
            assert re.search(
                r"^------- TRX HAS BEEN WAITING \d+ SEC FOR THIS LOCK TO BE GRANTED:\n"
                rf"RECORD LOCKS .* index PRIMARY trx id {waiter_id} lock_mode X locks rec but not gap waiting"
                rf" held by trx id {holder_id}$",
                status,
                re.MULTILINE,
            )
        finally:
            with holder.cursor() as cur:
                cur.execute("COMMIT")
            t.join(30)
        assert not failures
        assert f"---TRANSACTION {waiter_id}, ACTIVE" not in _status(watcher)
        for c in (holder, waiter, watcher):
            c.close()
