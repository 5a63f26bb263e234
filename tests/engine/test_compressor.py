"""The compression thread: period-driven wake-ups, rotation wake-ups, run-time period changes (Bug #86692),
its performance_schema.threads row, and the compression algorithm on the real table."""

from __future__ import annotations

import time
from types import SimpleNamespace

from gtidkit.engine.gtid import table as gtid_table
from gtidkit.engine.gtid.compressor import STATE_SUSPENDING, THREAD_NAME

SRC = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def _rows(s):
    return s.execute("SELECT interval_start, interval_end FROM mysql.gtid_executed ORDER BY 1")[-1].rows


def _apply(s, start, end):
    for gno in range(start, end + 1):
        s.execute(f"SET gtid_next='{SRC}:{gno}'")
        s.execute(f"CREATE DATABASE d{gno}")
    s.execute("SET gtid_next=AUTOMATIC")


def _wait_rows(s, srv, expected, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        srv.compressor.wait_idle()
        if _rows(s) == expected:
            return
        time.sleep(0.02)
    assert _rows(s) == expected


def test_find_runs_table():
    rows = [
        ("a", 1, 1, ""),
        ("a", 2, 2, ""),
        ("a", 3, 5, ""),
        ("a", 7, 7, ""),
        ("a", 8, 8, "t"),
        ("a", 9, 9, "t"),
        ("b", 10, 10, ""),
    ]
    runs = gtid_table.find_runs(sorted(rows, key=lambda r: (r[0], r[3], r[1])))
    assert [[(r[1], r[2]) for r in run] for run in runs] == [[(1, 1), (2, 2), (3, 5)], [(8, 8), (9, 9)]]


def test_period_wakes_thread(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=5)
    s = srv.session()
    _apply(s, 1, 4)
    srv.compressor.wait_idle()
    assert len(_rows(s)) == 4  # fewer than `period` transactions: not compressed yet
    _apply(s, 5, 5)
    _wait_rows(s, srv, [(1, 5)])
    _apply(s, 6, 6)
    srv.compressor.wait_idle()
    assert _rows(s) == [(1, 5), (6, 6)]


def test_period_zero_never_wakes_and_change_at_runtime(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=0)
    s = srv.session()
    _apply(s, 1, 6)
    srv.compressor.wait_idle()
    assert len(_rows(s)) == 6
    # Bug #86692: after the period was 0, setting it again must make the thread work again
    s.execute("SET GLOBAL gtid_executed_compression_period=3")
    _wait_rows(s, srv, [(1, 6)])  # 6 pending transactions >= 3: woken by the change itself
    s.execute("SET GLOBAL gtid_executed_compression_period=0")
    s.execute("SET GLOBAL gtid_executed_compression_period=2")
    _apply(s, 7, 8)
    _wait_rows(s, srv, [(1, 8)])


def test_rotation_wakes_thread(open_server):
    srv = open_server(
        gtid_mode="ON", log_bin=True, log_replica_updates=False, gtid_executed_compression_period=0
    )
    s = srv.session()
    s.applier = SimpleNamespace(
        original_commit_timestamp=None, server_id=None
    )  # the replica applier's session
    _apply(s, 1, 3)  # applier transactions: rows per transaction
    srv.compressor.wait_idle()
    assert len(_rows(s)) == 3
    s.execute("FLUSH LOGS")
    _wait_rows(s, srv, [(1, 3)])


def test_restart_compresses(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=0)
    s = srv.session()
    _apply(s, 1, 3)
    assert len(_rows(s)) == 3
    srv.shutdown()
    srv2 = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=0)
    s2 = srv2.session()
    _wait_rows(s2, srv2, [(1, 3)])


def test_performance_schema_threads_row(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    srv.compressor.wait_idle()
    (res,) = s.execute(
        "SELECT NAME, TYPE, PROCESSLIST_STATE, PROCESSLIST_COMMAND FROM performance_schema.threads "
        f"WHERE NAME = '{THREAD_NAME}'"
    )
    assert res.rows == [(THREAD_NAME, "FOREGROUND", STATE_SUSPENDING, "Daemon")]
    assert srv.compressor.passes >= 1  # compressed once at launch


def test_compression_keeps_concurrent_inserts(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=1)
    s = srv.session()
    _apply(s, 1, 40)
    _wait_rows(s, srv, [(1, 40)])
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{SRC}:1-40",)]


def test_state_while_compressing_is_visible(open_server):
    """While a pass runs (here: blocked on the engine write lock) the thread shows 'Compressing gtid_executed
    table'; committers keep the lock only for their own short transactions."""
    from gtidkit.engine.gtid.compressor import STATE_COMPRESSING

    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=0)
    s = srv.session()
    _apply(s, 1, 3)
    srv.compressor.wait_idle()
    srv.acquire_write_lock(None)
    try:
        srv.compressor.request()
        deadline = time.monotonic() + 5
        while srv.compressor.state != STATE_COMPRESSING and time.monotonic() < deadline:
            time.sleep(0.01)
        (res,) = s.execute(
            f"SELECT PROCESSLIST_STATE FROM performance_schema.threads WHERE NAME = '{THREAD_NAME}'"
        )
        assert res.rows == [(STATE_COMPRESSING,)]
    finally:
        srv.release_write_lock(None)
    _wait_rows(s, srv, [(1, 3)])
