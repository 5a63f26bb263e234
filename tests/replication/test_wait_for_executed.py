"""WAIT_FOR_EXECUTED_GTID_SET over the wire, as the read-your-writes helper uses it, against MySQL's own test.

Oracle: mysql-test ``suite/rpl_gtid/t/rpl_wait_for_executed_gtid_set.test`` and its ``.result`` (mysql/mysql-server,
commit 44a77b5b): section 1 (error conditions, their order and texts), 2 (already executed: 0 at once), 3/4 (still
waiting, PROCESSLIST_STATE 'Waiting for GTID to be committed', KILL QUERY -> ER_QUERY_INTERRUPTED), 6 (1 after the
timeout), 7 (not before every GTID is committed, 0 after), 8 (SET GTID_PURGED ends the wait). A real
``gtidkit server`` process; the waits run on their own connections in threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pymysql
import pytest
from protocol.server_proc import ServerProcess, running_server

A = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
B = "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb"
C = "cccccccc-cccc-cccc-cccc-cccccccccccc"
D = "dddddddd-dddd-dddd-dddd-dddddddddddd"
WAITING = "Waiting for GTID to be committed"


#: one process and supervised (issue 21): the same waits through the hand-off
pytestmark = pytest.mark.usefixtures("server_mode")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, server_mode: str) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("wfegs") / "d"
    with running_server(
        datadir, "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--log-bin", "--server-id=1"
    ) as proc:
        c = _connect(proc)
        # section 0 of the MySQL test: other servers' GTIDs, one of them a huge interval
        c.cursor().execute(
            f"SET GLOBAL GTID_PURGED = '{A}:1-3,{B}:1-3,ffffffff-ffff-ffff-ffff-ffffffffffff:1-1234567890'"
        )
        c.cursor().execute("CREATE DATABASE db")
        c.close()
        yield proc


def _connect(server: ServerProcess) -> Any:
    return pymysql.connect(host="127.0.0.1", port=server.port, user="root", autocommit=True)


def _query(conn: Any, sql: str) -> Any:
    cur = conn.cursor()
    cur.execute(sql)
    return cur.fetchall()


def _error(conn: Any, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.MySQLError) as info:
        _query(conn, sql)
    return info.value.args[0], info.value.args[1]


class Waiter:
    """One WAIT_FOR_EXECUTED_GTID_SET running on its own connection in a thread."""

    def __init__(self, server: ServerProcess, sql: str) -> None:
        self.conn = _connect(server)
        self.id = _query(self.conn, "SELECT CONNECTION_ID()")[0][0]
        self.result: Any = None
        self.thread = threading.Thread(target=self._run, args=(sql,), daemon=True)
        self.thread.start()

    def _run(self, sql: str) -> None:
        try:
            self.result = _query(self.conn, sql)[0][0]
        except pymysql.MySQLError as err:
            self.result = err.args[:2]

    def done(self, timeout: float = 60) -> Any:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "WAIT_FOR_EXECUTED_GTID_SET was not woken"
        self.conn.close()
        return self.result


def _state(conn: Any, thread_id: int) -> str | None:
    rows = _query(conn, f"SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = {thread_id}")
    return rows[0][0] if rows else None


def _wait_until_waiting(conn: Any, waiter: Waiter) -> None:
    """include/rpl/wait_for_wait_for_executed_gtid_set.inc: the waiter reached the wait state."""
    deadline = time.monotonic() + 60
    while _state(conn, waiter.id) != WAITING:
        assert waiter.thread.is_alive(), f"returned early: {waiter.result}"
        assert time.monotonic() < deadline, "never reached the wait state"
        time.sleep(0.02)


def _commit_gtid(conn: Any, gtid: str) -> None:
    for sql in (f"SET GTID_NEXT = '{gtid}'", "COMMIT", "SET GTID_NEXT = 'AUTOMATIC'"):
        _query(conn, sql)


@pytest.mark.parametrize(
    ("sql", "code", "message"),
    [
        ("SELECT WAIT_FOR_EXECUTED_GTID_SET(NULL, 5)", 1772, "Malformed GTID set specification 'NULL'."),
        ("SELECT WAIT_FOR_EXECUTED_GTID_SET(NULL, NULL)", 1772, "Malformed GTID set specification 'NULL'."),
        ("SELECT WAIT_FOR_EXECUTED_GTID_SET(NULL)", 1772, "Malformed GTID set specification 'NULL'."),
        ("SELECT WAIT_FOR_EXECUTED_GTID_SET(@null, @null)", 1772, "Malformed GTID set specification 'NULL'."),
        (
            "SELECT WAIT_FOR_EXECUTED_GTID_SET(5, NULL)",
            1210,
            "Incorrect arguments to WAIT_FOR_EXECUTED_GTID_SET.",
        ),
        (
            "SELECT WAIT_FOR_EXECUTED_GTID_SET('Incorrect_value')",
            1772,
            "Malformed GTID set specification 'Incorrect_value'.",
        ),
        (
            "SELECT WAIT_FOR_EXECUTED_GTID_SET('Incorrect_value', 5)",
            1772,
            "Malformed GTID set specification 'Incorrect_value'.",
        ),
        (
            "SELECT WAIT_FOR_EXECUTED_GTID_SET()",
            1582,
            "Incorrect parameter count in the call to native function 'WAIT_FOR_EXECUTED_GTID_SET'",
        ),
        (
            "SELECT WAIT_FOR_EXECUTED_GTID_SET('NULL', 5, 5)",
            1582,
            "Incorrect parameter count in the call to native function 'WAIT_FOR_EXECUTED_GTID_SET'",
        ),
        (
            f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{A}:100', -1)",
            1210,
            "Incorrect arguments to WAIT_FOR_EXECUTED_GTID_SET.",
        ),
    ],
    ids=[
        "null-5",
        "null-null",
        "null",
        "user-var-null",
        "5-null",
        "invalid",
        "invalid-5",
        "no-args",
        "three-args",
        "negative-timeout",
    ],
)
@pytest.mark.parametrize("server_mode", ["plain"], indirect=True)  # the call's own argument checks: no wait
def test_error_conditions(server: ServerProcess, sql: str, code: int, message: str) -> None:
    conn = _connect(server)
    _query(conn, "SET @null = NULL")
    assert _error(conn, sql) == (code, message)
    conn.close()


def test_owned_gtid_cannot_be_waited_for(server: ServerProcess) -> None:
    conn = _connect(server)
    _query(conn, f"SET @@SESSION.GTID_NEXT = '{C}:1'")
    assert _query(conn, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{B}:1')") == ((0,),)
    assert _error(conn, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{C}:1')") == (
        3173,
        f"The client holds ownership of the GTID {C}:1. Therefore, WAIT_FOR_EXECUTED_GTID_SET cannot wait for"
        + " this GTID.",
    )
    _query(conn, "ROLLBACK")
    # not owned any more: it waits, then times out (section 6: 1 after the timeout; 10.1: fractional timeouts)
    assert _query(conn, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{C}:1', 0.1)") == ((1,),)
    _query(conn, "SET @@SESSION.GTID_NEXT = 'AUTOMATIC'")
    conn.close()


@pytest.mark.parametrize(
    "wanted",
    ["", f"{A}:1", f"{A}:1-3", f"{A}:1-3,{B}:1-3", "ffffffff-ffff-ffff-ffff-ffffffffffff:1-1234567890"],
    ids=["empty", "single", "same-uuid", "two-uuids", "huge"],
)
@pytest.mark.parametrize("timeout", ["", ", 999999"], ids=["no-timeout", "big-timeout"])
def test_already_executed_returns_zero(server: ServerProcess, wanted: str, timeout: str) -> None:
    conn = _connect(server)
    assert _query(conn, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{wanted}'{timeout})") == ((0,),)
    conn.close()


@pytest.mark.parametrize("timeout", ["", ", 999999"], ids=["no-timeout", "big-timeout"])
def test_kill_query_interrupts_the_wait(server: ServerProcess, timeout: str) -> None:
    admin = _connect(server)
    waiter = Waiter(server, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{A}:9999'{timeout})")
    _wait_until_waiting(admin, waiter)
    _query(admin, f"KILL QUERY {waiter.id}")
    assert waiter.done() == (1317, "Query execution was interrupted")
    admin.close()


def test_kill_connection_stops_the_wait_at_once(server: ServerProcess) -> None:
    """Section 1.5: KILL of the waiting connection: the client sees CR_SERVER_LOST (2013), the thread is gone."""
    admin = _connect(server)
    waiter = Waiter(server, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{A}:9999')")
    _wait_until_waiting(admin, waiter)
    _query(admin, f"KILL {waiter.id}")
    assert waiter.done() == (2013, "Lost connection to MySQL server during query")
    deadline = (
        time.monotonic() + 60
    )  # the thread leaves the process list as the server closes it (wait_condition)
    while _state(admin, waiter.id) is not None:
        assert time.monotonic() < deadline, "the killed thread stayed in the process list"
        time.sleep(0.02)
    admin.close()


def test_woken_by_commits_not_before_every_gtid(server: ServerProcess) -> None:
    """Section 7: waiting for GTIDs of two UUIDs; one commit is not enough, the second one wakes it with 0.

    The wait has no timeout, so the engine waits on its condition with no time limit at all: returning proves the
    commit woke it (a missed wake-up would hang the thread and fail ``done``)."""
    admin = _connect(server)
    uuid = _query(admin, "SELECT @@GLOBAL.server_uuid")[0][0]
    _query(admin, "CREATE TABLE db.t7 (id INT PRIMARY KEY)")
    executed = _query(admin, "SELECT @@GLOBAL.gtid_executed")[0][0]
    next_gno = int(executed.replace("\n", "").split(f"{uuid}:1-")[1].split(",")[0]) + 1
    waiter = Waiter(server, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{uuid}:{next_gno},{D}:1')")
    _wait_until_waiting(admin, waiter)
    _query(admin, "INSERT INTO db.t7 VALUES (1)")  # AUTOMATIC: takes uuid:next_gno
    assert (
        _state(admin, waiter.id) == WAITING and waiter.thread.is_alive()
    )  # 7a: not before all are committed
    _commit_gtid(admin, f"{D}:1")
    assert waiter.done() == 0  # 7b
    admin.close()


def test_set_gtid_purged_ends_the_wait(server: ServerProcess) -> None:
    """Section 8: GTIDs added by SET GTID_PURGED count as executed (BUG#19579811)."""
    admin = _connect(server)
    waiter = Waiter(server, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{C}:100-1000000')")
    _wait_until_waiting(admin, waiter)
    _query(admin, f"SET GLOBAL GTID_PURGED = '+{C}:100-1000000'")
    assert waiter.done() == 0
    admin.close()


def test_gtid_mode_off_is_an_error(server: ServerProcess) -> None:
    """Section 1.4: 3062 whether or not the set is executed; GTID_MODE is changed one step at a time."""
    conn = _connect(server)
    steps = ["ON_PERMISSIVE", "OFF_PERMISSIVE", "OFF"]
    try:
        for mode in steps:
            _query(conn, f"SET GLOBAL GTID_MODE = {mode}")
        for gtid in (f"{A}:1", f"{A}:9999"):
            assert _error(conn, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{gtid}')") == (
                3062,
                "Cannot use WAIT_FOR_EXECUTED_GTID_SET when GTID_MODE = OFF.",
            )
    finally:
        for mode in reversed(["ON", *steps[:-1]]):
            _query(conn, f"SET GLOBAL GTID_MODE = {mode}")
        conn.close()
