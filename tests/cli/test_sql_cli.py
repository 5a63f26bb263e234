"""`gtidkit sql`: options like mysqld, output like `mysql --batch`, errors like the mysql client."""

from __future__ import annotations

from click.testing import CliRunner

from gtidkit.cli.main import cli
from gtidkit.cli.sql_cmd import format_batch


def run(*args):
    return CliRunner().invoke(cli, ["sql", *args], catch_exceptions=False)


def test_batch_output_and_reopen(tmp_path):
    d = str(tmp_path / "d")
    r = run(
        "--datadir",
        d,
        "--log-bin",
        "-e",
        "CREATE DATABASE x; CREATE TABLE x.t (a INT PRIMARY KEY, b VARCHAR(5)); "
        "INSERT INTO x.t VALUES (1, NULL), (2, 'a\tb'); SELECT * FROM x.t ORDER BY a; SELECT @@GLOBAL.gtid_mode",
    )
    assert r.exit_code == 0, r.output
    assert r.output == "a\tb\n1\tNULL\n2\ta\\tb\n@@GLOBAL.gtid_mode\nON\n"
    uuid = (tmp_path / "d" / "auto.cnf").read_text().split("=")[1].strip()
    r = run("--datadir", d, "--log-bin", "-e", "SHOW MASTER STATUS")
    lines = r.output.splitlines()
    assert lines[0] == "File\tPosition\tBinlog_Do_DB\tBinlog_Ignore_DB\tExecuted_Gtid_Set"
    assert lines[1].startswith("binlog.000002\t") and lines[1].endswith(f"{uuid}:1-3")
    r = run(
        "--datadir", d, "--skip-log-bin", "-e", "SELECT interval_start, interval_end FROM mysql.gtid_executed"
    )
    assert r.output == "interval_start\tinterval_end\n1\t3\n"


def test_error_exit(tmp_path):
    d = str(tmp_path / "d")
    r = CliRunner().invoke(
        cli,
        ["sql", "--datadir", d, "-e", "SELECT 1; SET GLOBAL gtid_executed_compression_period= 1.1; SELECT 2"],
    )
    assert r.exit_code == 1
    assert (
        r.stderr
        == "ERROR 1232 (42000): Incorrect argument type to variable 'gtid_executed_compression_period'\n"
    )
    assert r.stdout == "1\n1\n"


def test_options(tmp_path):
    d = str(tmp_path / "d")
    r = run(
        "--datadir",
        d,
        "--gtid-mode=OFF",
        "--log-bin",
        "--skip-log-replica-updates",
        "--server-id=7",
        "--gtid-executed-compression-period=5",
        "--binlog-format=STATEMENT",
        "-e",
        "SELECT @@gtid_mode, @@log_bin, @@log_replica_updates, @@server_id, "
        "@@gtid_executed_compression_period, @@binlog_format",
    )
    assert r.output.splitlines()[1] == "OFF\t1\t0\t7\t5\tSTATEMENT"


def test_format_batch_escapes():
    assert format_batch(["a"], [("x\ny",), (None,), (b"\\",)]) == "a\nx\\ny\nNULL\n\\\\\n"
