"""The engine's binlog files are byte-compatible: our reader and mariadb-binlog read them (WL#7592 layout)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from gtidkit.binlog.file import iter_transactions, scan_file


def _workload(srv):
    s = srv.session()
    s.execute(
        "CREATE DATABASE db1; USE db1; "
        "CREATE TABLE t (a INT PRIMARY KEY AUTO_INCREMENT, b VARCHAR(300), c DECIMAL(10,2), d DATETIME)"
    )
    s.execute("INSERT INTO t (b, c, d) VALUES ('x', 1.5, '2024-01-01 10:00:00'), ('y', NULL, NULL)")
    s.execute("INSERT INTO t (b) VALUES ('" + "z" * 280 + "')")
    s.execute("FLUSH LOGS")
    s.execute("BEGIN; UPDATE t SET b='q' WHERE a=1; DELETE FROM t WHERE a=2; COMMIT")
    s.close()


def test_files_layout_and_logical_clock(open_server):
    # COMMIT_ORDER: each transaction depends on the previous one (WRITESET is tested in test_logical_clock.py)
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_transaction_dependency_tracking="COMMIT_ORDER")
    _workload(srv)
    srv.shutdown()
    d = srv.datadir
    first, second = scan_file(d / "binlog.000001"), scan_file(d / "binlog.000002")
    assert first.error is None and second.error is None
    assert first.ends_with == "ROTATE" and first.next_file == "binlog.000002"
    assert second.ends_with == "STOP" and not second.in_use
    assert first.server_version == "8.0.36" and first.checksum_alg == 1
    u = srv.server_uuid
    assert str(second.previous_gtids) == f"{u}:1-4"
    for scan in (first, second):
        assert [(t.last_committed, t.sequence_number) for t in scan.transactions] == [
            (i, i + 1) for i in range(len(scan.transactions))
        ]
    txs = list(iter_transactions(d / "binlog.000001"))
    assert all(t.complete for t in txs)
    # 8.0 originating Gtid events: 77 bytes, 79 once transaction_length >= 251 (formats.md §2.2)
    sizes = scan_gtid_sizes(d / "binlog.000001")
    assert sizes == [77 if t.bytes < 251 else 79 for t in txs]
    assert 77 in sizes and 79 in sizes


def scan_gtid_sizes(path):
    from gtidkit.binlog.file import read_events

    return [e.end_pos - e.pos for e in read_events(path) if e.header.type_code == 33]


@pytest.mark.skipif(shutil.which("mariadb-binlog") is None, reason="mariadb-binlog not installed")
def test_mariadb_binlog_reads_and_verifies(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    _workload(srv)
    srv.shutdown()
    for name in ("binlog.000001", "binlog.000002"):
        r = subprocess.run(  # noqa: PLW1510 - the return code is asserted
            ["mariadb-binlog", "--verify-binlog-checksum", "-v", str(srv.datadir / name)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr
        assert "ERROR" not in r.stderr
    out = subprocess.run(
        ["mariadb-binlog", "-v", str(srv.datadir / "binlog.000002")],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "### UPDATE `db1`.`t`" in out and "### DELETE FROM `db1`.`t`" in out and "Stop" in out


def test_binlog_checksum_none_and_recovery(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_checksum="NONE")
    _workload(srv)
    srv.shutdown()
    scan = scan_file(srv.datadir / "binlog.000002")
    assert scan.error is None and scan.checksum_alg == 0
    sizes = scan_gtid_sizes(srv.datadir / "binlog.000001")
    assert set(sizes) <= {73, 75}  # without the 4-byte CRC
    s = open_server(gtid_mode="ON", log_bin=True, binlog_checksum="NONE").session()
    assert s.execute("SELECT @@GLOBAL.gtid_executed")[-1].rows == [(f"{srv.server_uuid}:1-5",)]
