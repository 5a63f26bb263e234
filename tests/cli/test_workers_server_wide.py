"""What MySQL counts for the whole server stays server-wide with ``gtidkit server --workers=2`` (issue 21 step 6):
the gtid_executed compressor's period, rotation passes, Prepared_stmt_count and max_prepared_stmt_count, and the
SHOW GLOBAL STATUS counters summed over the workers.

Connections are placed in a given worker by opening them one after another (round-robin) until
``@@gtidkit_worker_id`` says so; every expected value comes from MySQL's definition of the counter or variable
(RM8 "Server Status Variables", "gtid_executed_compression_period", "max_prepared_stmt_count").
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pymysql
import pytest

from tests.cli.test_supervisor import GTIDS, SOURCE, connect, query, wait_until
from tests.cli.test_worker_death import in_worker, kill_and_wait_for_replacement
from tests.protocol.server_proc import ServerProcess, running_server

pytestmark = pytest.mark.xdist_group("workers_server_wide")


def _server_uuid(port: int) -> str:
    with connect(port) as c:
        return str(query(c, "SELECT @@server_uuid")[0][0])


def _table_rows(port: int, uuid: str) -> int:
    with connect(port) as c:
        return int(query(c, f"SELECT COUNT(*) FROM mysql.gtid_executed WHERE source_uuid = '{uuid}'")[0][0])


@pytest.fixture(scope="module")
def binlog_off(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Two workers, binary log off, compression every 4 transactions (one server for the module: each test uses
    its own database, and only the compression test commits transactions with GTIDs)."""
    args = (*GTIDS, "--skip-log-bin", "--workers=2", "--gtid-executed-compression-period=4")
    with running_server(tmp_path_factory.mktemp("wide") / "d", *args, base=(), supervised=True) as srv:
        yield srv


def _commit_as(c: pymysql.connections.Connection, gno: int) -> None:
    """Commit a row with the GTID ``SOURCE:gno`` (as a replica's applier does: with the binary log off, only
    transactions with a given GTID have one to save)."""
    query(c, f"SET gtid_next = '{SOURCE}:{gno}'")
    query(c, f"INSERT INTO d.t VALUES ({gno})")
    query(c, "SET gtid_next = AUTOMATIC")


def test_compression_period_counts_the_commits_of_every_worker(binlog_off: ServerProcess) -> None:
    """Binary log off: the compressor (in worker 0) wakes every ``period`` transactions saved to
    mysql.gtid_executed by any worker; 2 commits in each worker make the period of 4 (neither worker alone does)."""
    port = binlog_off.port
    with in_worker(port, 0) as c:
        query(c, "CREATE DATABASE d")  # no GTID with the binary log off: nothing saved
        query(c, "CREATE TABLE d.t (a INT)")
    with ExitStack() as stack:
        w0 = stack.enter_context(in_worker(port, 0))
        w1 = stack.enter_context(in_worker(port, 1))
        for gno, c in ((1, w0), (2, w1), (3, w0)):  # one short of the period
            _commit_as(c, gno)
        time.sleep(1.0)  # a pass now would be one transaction early
        assert _table_rows(port, SOURCE) == 3
        _commit_as(w1, 4)  # the 4th, in worker 1: the period is complete
        wait_until(lambda: _table_rows(port, SOURCE) == 1, what="the compressor's pass")
        sql = f"SELECT interval_start, interval_end FROM mysql.gtid_executed WHERE source_uuid = '{SOURCE}'"
        assert query(w1, sql) == ((1, 4),)


def test_a_rotation_in_worker_1_wakes_the_compressor(tmp_path: Path) -> None:
    """Binary log on: a rotation saves the closed file's GTIDs and wakes the compressor, wherever it happens (FLUSH
    BINARY LOGS in worker 1; the compressor runs in worker 0)."""
    args = (*GTIDS, "--log-bin", "--workers=2", "--gtid-executed-compression-period=0")
    with running_server(tmp_path / "d", *args, base=(), supervised=True) as srv:
        uuid = _server_uuid(srv.port)
        with in_worker(srv.port, 0) as c:
            query(c, "CREATE DATABASE d")
            query(c, "CREATE TABLE d.t (a INT)")
            for i in range(4):
                query(c, f"INSERT INTO d.t VALUES ({i})")
        with in_worker(srv.port, 1) as c:
            query(c, "FLUSH BINARY LOGS")
        wait_until(lambda: _table_rows(srv.port, uuid) == 1, what="the compressor's pass after the rotation")


def _prepared(port: int) -> int:
    with connect(port) as c:
        return int(query(c, "SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'")[0][1])


def test_prepared_stmt_count_and_its_limit_are_server_wide(binlog_off: ServerProcess) -> None:
    """Prepared_stmt_count sums the statements of every worker's sessions; ``max_prepared_stmt_count`` refuses the
    statement that would pass it with 1461 in whichever worker it is prepared; a closed connection's statements
    and a killed worker's no longer count."""
    port = binlog_off.port
    with ExitStack() as stack:
        w0 = stack.enter_context(in_worker(port, 0))
        w1 = in_worker(port, 1)  # closed by the test
        stack.callback(lambda: w1.close() if w1.open else None)
        query(w0, "PREPARE a FROM 'SELECT 1'")
        query(w1, "PREPARE b FROM 'SELECT 2'")
        query(w1, "PREPARE c FROM 'SELECT 3'")
        assert _prepared(port) == 3
        query(w1, "SET GLOBAL max_prepared_stmt_count = 4")
        query(w0, "PREPARE d FROM 'SELECT 4'")
        for c in (w0, w1):
            with pytest.raises(pymysql.err.OperationalError) as err:
                query(c, "PREPARE e FROM 'SELECT 5'")
            assert err.value.args == (
                1461,
                "Can't create more than max_prepared_stmt_count statements (current value: 4)",
            )
        query(w0, "DEALLOCATE PREPARE a")
        query(w1, "PREPARE e FROM 'SELECT 5'")  # room again, taken from the other worker
        assert _prepared(port) == 4
        w1.close()
        wait_until(lambda: _prepared(port) == 1, what="worker 1's closed connection to leave the count")
        w1b = stack.enter_context(in_worker(port, 1))
        query(w1b, "PREPARE f FROM 'SELECT 6'")
        assert _prepared(port) == 2
        kill_and_wait_for_replacement(binlog_off, 1)
        assert _prepared(port) == 1
        query(w0, "SET GLOBAL max_prepared_stmt_count = DEFAULT")


def _status(c: pymysql.connections.Connection, sql: str) -> dict[str, int]:
    with c.cursor() as cur:
        cur.execute(sql)
        return {name: int(value) for name, value in cur.fetchall()}


SUMMED = (
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Bytes_received', 'Bytes_sent', "
    "'Innodb_rows_inserted', 'Innodb_rows_updated', 'Innodb_rows_deleted', 'Uptime')"
)


def test_status_counters_are_summed_over_the_workers(binlog_off: ServerProcess) -> None:
    """Questions, Bytes_received / Bytes_sent and Innodb_rows_* count the whole server: what worker 1's session did
    shows in worker 0's SHOW GLOBAL STATUS; Uptime is the server's, also in a replaced worker."""
    port = binlog_off.port
    with ExitStack() as stack:
        w0 = stack.enter_context(in_worker(port, 0))
        w1 = stack.enter_context(in_worker(port, 1))
        query(w0, "CREATE DATABASE s")
        query(w0, "CREATE TABLE s.t (a INT)")
        before = _status(w0, SUMMED)
        statements = [
            "INSERT INTO s.t VALUES (1), (2), (3)",
            "UPDATE s.t SET a = a + 10 WHERE a < 3",
            "DELETE FROM s.t",
        ]
        for sql in statements:
            query(w1, sql)
        after = _status(w0, SUMMED)
        # the SHOW itself (counted when it arrives) and worker 1's three statements
        assert after["Questions"] - before["Questions"] == 1 + len(statements)
        # the first SHOW's packet (its bytes are counted once it is answered) and worker 1's COM_QUERY packets:
        # 4-byte header + command byte + text each
        packet = [4 + 1 + len(sql) for sql in (SUMMED, *statements)]
        assert after["Bytes_received"] - before["Bytes_received"] == sum(packet)
        # at least the first SHOW's rows and worker 1's three OK packets (header + 7 bytes)
        assert after["Bytes_sent"] - before["Bytes_sent"] > 3 * 11 + 7 * 20
        assert after["Innodb_rows_inserted"] - before["Innodb_rows_inserted"] == 3
        assert after["Innodb_rows_updated"] - before["Innodb_rows_updated"] == 2
        assert after["Innodb_rows_deleted"] - before["Innodb_rows_deleted"] == 3
        assert _status(w1, SUMMED)["Innodb_rows_inserted"] == after["Innodb_rows_inserted"]
    wait_until(lambda: _uptime(port, 0) >= 3, what="three seconds of uptime")
    kill_and_wait_for_replacement(binlog_off, 1)
    with in_worker(port, 1) as c1, in_worker(port, 0) as c0:
        assert _status(c1, SUMMED)["Uptime"] >= _status(c0, SUMMED)["Uptime"] - 1 >= 2


def _uptime(port: int, worker: int) -> int:
    with in_worker(port, worker) as c:
        return _status(c, "SHOW GLOBAL STATUS LIKE 'Uptime'")["Uptime"]


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The same server in one process (``--workers=1``)."""
    args = (*GTIDS, "--skip-log-bin", "--workers=1")
    with running_server(tmp_path_factory.mktemp("one") / "d", *args, base=(), supervised=True) as srv:
        yield srv


_COUNTED = (
    "('Com_select', 'Com_insert', 'Com_update', 'Com_show_status', 'Com_execute_sql', 'Com_stmt_execute', "
    "'Com_flush', 'Questions', 'Queries')"
)
_GLOBAL = f"SHOW GLOBAL STATUS WHERE Variable_name IN {_COUNTED}"
_SESSION = f"SHOW SESSION STATUS WHERE Variable_name IN {_COUNTED}"


def _moved(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {n: after[n] - before[n] for n in after if after[n] != before[n]}


@pytest.mark.parametrize("mode", ["one_process", "binlog_off"], ids=["one-process", "workers2"])
def test_statement_counters_per_session_and_server_wide(request: pytest.FixtureRequest, mode: str) -> None:
    """Com_xxx, Questions and Queries (engine/statements/com_counters.py): SHOW SESSION STATUS gives the session's
    own counts, SHOW GLOBAL STATUS the whole server's (every worker's sessions); FLUSH STATUS in one worker starts
    every session of every worker again from 0 and leaves the global sums; performance_schema.global_status has
    Questions and Queries but no Com_ rows. Expected: RM8 "Server Status Variables" (Com_stmt_execute and
    Com_execute_sql for EXECUTE, which also counts as the statement it runs; Questions: statements sent by clients;
    Queries: every statement the server ran), ``refresh_status`` (every THD's counters reset)."""
    srv: ServerProcess = request.getfixturevalue(mode)
    port = srv.port
    other = 1 if mode == "binlog_off" else 0
    with ExitStack() as stack:
        a = stack.enter_context(in_worker(port, 0))
        b = stack.enter_context(in_worker(port, other))
        query(a, f"CREATE DATABASE IF NOT EXISTS c_{mode}")
        query(a, f"CREATE TABLE IF NOT EXISTS c_{mode}.t (a INT)")
        a_before, b_before, before = _status(a, _SESSION), _status(b, _SESSION), _status(a, _GLOBAL)
        for sql in (
            "SELECT 1",
            "SELECT 2",
            f"INSERT INTO c_{mode}.t VALUES (1)",
            f"PREPARE p FROM 'UPDATE c_{mode}.t SET a = a + 1'",
            "EXECUTE p",
        ):
            query(b, sql)
        after = _status(a, _GLOBAL)
        # b's five statements and this SHOW (the one before counted itself already)
        assert _moved(after, before) == {
            "Com_select": 2,
            "Com_insert": 1,
            "Com_update": 1,  # EXECUTE counts as the statement it runs
            "Com_execute_sql": 1,
            "Com_stmt_execute": 1,
            "Com_show_status": 1,
            "Questions": 6,
            "Queries": 6,
        }
        b_after = _status(b, _SESSION)
        assert _moved(b_after, b_before) == {
            "Com_select": 2,
            "Com_insert": 1,
            "Com_update": 1,
            "Com_execute_sql": 1,
            "Com_stmt_execute": 1,
            "Com_show_status": 1,
            "Questions": 6,
            "Queries": b_after["Queries"] - b_before["Queries"],  # the server's: every session's statements
        }
        assert b_after["Queries"] == after["Queries"] + 1
        # a's own counts: its two SHOW GLOBAL STATUS and this SHOW SESSION STATUS, none of b's statements; Queries
        # is the server's: every statement since a_before (b's SHOW, the SHOWs, b's five, this one)
        assert _moved(_status(a, _SESSION), a_before) == {"Com_show_status": 3, "Questions": 3, "Queries": 10}
        query(a, "FLUSH STATUS")
        b_flushed = _status(b, _SESSION)
        assert (b_flushed["Com_select"], b_flushed["Com_show_status"]) == (0, 1)  # this SHOW only
        assert _status(a, _SESSION)["Com_flush"] == 0
        flushed = _status(b, _GLOBAL)
        assert flushed["Com_select"] == after["Com_select"]  # the global sums stay
        assert flushed["Com_flush"] == after["Com_flush"] + 1
        rows = query(b, "SELECT VARIABLE_NAME FROM performance_schema.global_status")
        names = {r[0] for r in rows}
        assert {"Queries", "Questions", "Uptime"} <= names
        assert not [n for n in names if n.startswith("Com_")]
