"""Start-up recovery failures say what failed and how to fix it (issue 17 §1), through the real CLI: a damaged
binary log names the file, the offset and the fix (which then works); a binlog transaction the engine cannot
re-apply names the transaction and the fix; no traceback, no bare engine error before "Aborting"."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from gtidkit.engine import Server
from tests.protocol.prefork import run_gtidkit
from tests.protocol.server_proc import initialize, mode_args

SERVER_ARGS = ("--log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")


def gtidkit(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m gtidkit ARGS`` and capture its output."""
    return run_gtidkit(args, capture_output=True, text=True, timeout=120, check=False)


def make_datadir(datadir: Path) -> None:
    """A datadir with the binary log on: CREATE DATABASE, CREATE TABLE, one INSERT; shut down cleanly."""
    with Server.open(datadir, log_bin=True, gtid_mode="ON", server_id=1) as srv:
        s = srv.session()
        s.execute("CREATE DATABASE d")
        s.execute("CREATE TABLE d.t (id INT PRIMARY KEY)")
        s.execute("INSERT INTO d.t VALUES (1)")
        s.close()


def corrupt_byte(path: Path, offset: int) -> None:
    """Flip every bit of one byte of ``path``."""
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def sql(datadir: Path, statement: str) -> subprocess.CompletedProcess[str]:
    """`gtidkit sql --datadir D --log-bin -e STATEMENT`."""
    return gtidkit("sql", "--datadir", str(datadir), "--log-bin", "--server-id", "1", "-e", statement)


def test_damaged_binlog_names_file_offset_and_fix(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    make_datadir(datadir)
    binlog = datadir / "binlog.000001"
    corrupt_byte(binlog, 300)  # inside the second transaction's events (after FDE, Previous_gtids, GTID 1)
    r = sql(datadir, "SELECT 1")
    assert r.returncode == 1 and r.stdout == ""
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith(f"ERROR 1105 (HY000): Start-up recovery of data directory {datadir} failed: ")
    assert f"binary log {binlog} cannot be read at offset " in r.stderr
    assert "CRC32 mismatch" in r.stderr
    offset = int(r.stderr.split("cannot be read at offset ", 1)[1].split(":", 1)[0])
    assert 0 < offset <= 300
    assert f"truncate -s {offset} {binlog}" in r.stderr
    # the advice works: cut the file there, the server starts (the damaged transaction and later ones are lost)
    os.truncate(binlog, offset)
    r = sql(datadir, "SELECT COUNT(*) AS n FROM information_schema.schemata WHERE schema_name = 'd'")
    assert r.returncode == 0, r.stderr


def test_server_reports_damaged_binlog_before_aborting(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    initialize(datadir, True, *SERVER_ARGS)
    with Server.open(datadir, log_bin=True, gtid_mode="ON", server_id=1) as srv:
        srv.session().execute("CREATE DATABASE d")
    last = max(datadir.glob("binlog.0*"))
    corrupt_byte(last, 200)
    r = gtidkit(
        "server", *mode_args(), "--datadir", str(datadir), "--port", "0", "--log-error=", *SERVER_ARGS
    )
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if "[ERROR]" in line]
    assert len(lines) == 2, r.stderr
    assert "Start-up recovery of data directory" in lines[0] and "To fix:" in lines[0]
    assert lines[1].endswith("Aborting")


@pytest.mark.parametrize("fmt", ["ROW", "STATEMENT"])
def test_engine_and_binlog_disagree(tmp_path: Path, fmt: str) -> None:
    datadir = tmp_path / "d"
    with Server.open(datadir, log_bin=True, gtid_mode="ON", server_id=1, binlog_format=fmt) as srv:
        s = srv.session()
        s.execute("CREATE DATABASE d")
        s.execute("CREATE TABLE d.t (id INT PRIMARY KEY)")
        s.execute("INSERT INTO d.t VALUES (1)")
        uuid = str(srv.server_uuid)
    # a datadir as the binlog-first commit order wrote it (no commit log; the engine's applied binlog position),
    # that position rewound to the file's start: recovery re-applies what the engine already has
    db = sqlite3.connect(datadir / "gtidkit.sqlite")
    db.execute("DROP TABLE _gk_commit_log")
    db.execute("UPDATE _gk_binlog_applied SET log_name = 'binlog.000001', log_pos = 4")
    db.commit()
    db.close()
    r = sql(datadir, "SELECT 1")
    assert r.returncode == 1 and r.stdout == ""
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith(
        f"ERROR 1007 (HY000): Start-up recovery of data directory {datadir} failed: re-applying transaction "
        f"{uuid}:1 (binary log binlog.000001, "
    )
    assert "gave ERROR 1007 (HY000): Can't create database 'd'; database exists." in r.stderr
    assert "To fix: restore the data directory from a backup" in r.stderr


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        pytest.param("[auto]\nserver-uuid=not-a-uuid\n", "'not-a-uuid' is not a valid UUID", id="bad-uuid"),
        pytest.param("[auto]\n", "it has no server-uuid line", id="no-uuid"),
    ],
)
def test_damaged_auto_cnf(tmp_path: Path, content: str, problem: str) -> None:
    datadir = tmp_path / "d"
    make_datadir(datadir)
    (datadir / "auto.cnf").write_text(content)
    r = sql(datadir, "SELECT 1")
    assert r.returncode == 1 and r.stdout == ""
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith(
        f"ERROR 1105 (HY000): The server_uuid stored in {datadir / 'auto.cnf'} is not usable: {problem}. "
    )
    assert "To fix: restore auto.cnf from a backup" in r.stderr


def test_damaged_engine_database(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    make_datadir(datadir)
    (datadir / "gtidkit.sqlite").write_bytes(b"not a database" * 1000)
    r = sql(datadir, "SELECT 1")
    assert r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.startswith("ERROR 1030 (HY000): Got error file is not a database (")
    assert "restore the data directory from a backup" in r.stderr
    r = sql(datadir, "SELECT 1")  # the failed start released the datadir lock: the same error, not 1015
    assert r.stderr.startswith("ERROR 1030 (HY000)")


def test_port_in_use(tmp_path: Path) -> None:
    # mysqld: "Can't start server: Bind on TCP/IP port: Address already in use", "Do you already have another
    # mysqld server running on port: N ?", "Aborting"
    import socket

    datadir = tmp_path / "d"
    initialize(datadir, True, *SERVER_ARGS)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = gtidkit(
            "server", *mode_args(), "--datadir", str(datadir), f"--port={port}", "--log-error=", *SERVER_ARGS
        )
    assert r.returncode == 1
    errors = [line.split("[Server] ", 1)[1] for line in r.stderr.splitlines() if "[ERROR]" in line]
    assert errors == [
        "Can't start server: Bind on TCP/IP port: Address already in use",
        f"Do you already have another gtidkit server or mysqld running on port: {port} ?",
        "Aborting",
    ]
    r = gtidkit("sql", "--datadir", str(datadir), "--skip-log-bin", "-e", "SELECT 1 AS x")
    assert (r.returncode, r.stdout) == (0, "x\n1\n"), (
        r.stderr
    )  # the engine was shut down, the datadir unlocked


def test_binlog_missing_from_the_datadir(tmp_path: Path) -> None:
    # mysqld refuses to start when binlog.index names a file that is gone ("Failed to open log", "Can't init tc
    # log", Aborting): gtid_executed is rebuilt from the binary logs
    datadir = tmp_path / "d"
    make_datadir(datadir)
    Server.open(datadir, log_bin=True, gtid_mode="ON", server_id=1).shutdown()  # a second, empty binary log
    index = datadir / "binlog.index"
    names = [Path(line).name for line in index.read_text().split()]  # "./binlog.000001" lines
    assert len(names) >= 2  # the first run's file and the one opened by a restart at least
    (datadir / names[0]).unlink()  # deleted by hand instead of PURGE BINARY LOGS
    r = sql(datadir, "SELECT 1")
    assert r.returncode == 1 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.startswith(
        f"ERROR 1105 (HY000): Start-up recovery of data directory {datadir} failed: binary log(s) {names[0]} "
        f"listed in {index} do not exist."
    )
    assert "remove their lines from the index and start again" in r.stderr
    index.write_text("".join(f"{line}\n" for line in index.read_text().splitlines()[1:]))  # the advice
    r = sql(datadir, "SELECT COUNT(*) AS n FROM d.t")
    assert (r.returncode, r.stdout) == (0, "n\n1\n"), r.stderr
