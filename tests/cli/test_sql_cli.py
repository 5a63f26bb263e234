"""`gtidkit sql`: options like mysqld, output like `mysql --batch`, errors like the mysql client."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from gtidkit.cli.main import cli
from gtidkit.cli.sql_cmd import format_batch

GTID_ON = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON")


def run(*args):
    return CliRunner().invoke(cli, ["sql", *args], catch_exceptions=False)


def test_batch_output_and_reopen(tmp_path):
    d = str(tmp_path / "d")
    r = run(
        "--datadir",
        d,
        *GTID_ON,
        "--log-bin",
        "-e",
        "CREATE DATABASE x; CREATE TABLE x.t (a INT PRIMARY KEY, b VARCHAR(5)); "
        "INSERT INTO x.t VALUES (1, NULL), (2, 'a\tb'); SELECT * FROM x.t ORDER BY a; SELECT @@GLOBAL.gtid_mode",
    )
    assert r.exit_code == 0, r.output
    assert r.output == "a\tb\n1\tNULL\n2\ta\\tb\n@@GLOBAL.gtid_mode\nON\n"
    uuid = (tmp_path / "d" / "auto.cnf").read_text().split("=")[1].strip()
    r = run("--datadir", d, *GTID_ON, "--log-bin", "-e", "SHOW MASTER STATUS")
    lines = r.output.splitlines()
    assert lines[0] == "File\tPosition\tBinlog_Do_DB\tBinlog_Ignore_DB\tExecuted_Gtid_Set"
    assert lines[1].startswith("binlog.000002\t") and lines[1].endswith(f"{uuid}:1-3")
    r = run(
        "--datadir",
        d,
        *GTID_ON,
        "--skip-log-bin",
        "-e",
        "SELECT interval_start, interval_end FROM mysql.gtid_executed",
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


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # mysqld 8.0's defaults, the same as `gtidkit server`'s (one datadir, one meaning)
        ((), "1\tOFF\tOFF\t1\tROW"),
        (("--skip-log-bin",), "0\tOFF\tOFF\t1\tROW"),
        (("--gtid_mode", "ON", "--enforce-gtid-consistency"), "1\tON\tON\t1\tROW"),
        (("--server-id", "7", "--disable-log-bin"), "0\tOFF\tOFF\t7\tROW"),
        (("--loose-no-such-option=1", "--binlog-format", "statement"), "1\tOFF\tOFF\t1\tSTATEMENT"),
    ],
    ids=["defaults", "skip-log-bin", "gtid-on", "server-id-space", "loose"],
)
def test_mysqld_spellings_and_defaults(tmp_path, args, expected):
    r = run(
        "--datadir",
        str(tmp_path / "d"),
        *args,
        "-e",
        "SELECT @@log_bin, @@gtid_mode, @@enforce_gtid_consistency, @@server_id, @@binlog_format",
    )
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[1] == expected


def test_unknown_option_refused(tmp_path):
    r = CliRunner().invoke(
        cli, ["sql", "--datadir", str(tmp_path / "d"), "--no-such=1", "--nope", "-e", "SELECT 1"]
    )
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [
        "[ERROR] [MY-000067] [Server] unknown variable 'no-such=1'.",
        "[ERROR] [MY-000068] [Server] unknown option '--nope'.",
        "[ERROR] [MY-010119] [Server] Aborting",
    ]


def test_help_lists_the_engine_options():
    r = run("--help", "--verbose")
    assert r.exit_code == 0
    assert "--gtid-mode=name" in r.stdout and "--log-bin[=name]" in r.stdout
    assert "--bind-address" not in r.stdout  # a wire-server option: not `gtidkit sql`'s


def test_server_only_options_are_ignored_with_a_warning(tmp_path):
    r = run(
        "--datadir",
        str(tmp_path / "d"),
        "--bind-address=0.0.0.0",
        "--innodb-buffer-pool-size=1G",
        "-e",
        "SELECT 1",
    )
    assert r.exit_code == 0 and r.stdout == "1\n1\n"
    assert r.stderr.splitlines() == [
        "[Warning] [Server] option 'bind_address' is not used by this command; it is ignored.",
        (
            "[Warning] [Server] option 'innodb_buffer_pool_size' is a mysqld option that gtidkit does not implement; it is "
            "ignored."
        ),
    ]
