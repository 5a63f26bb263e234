"""`gtidkit gtid ...`: the GTID calculator, through click's CliRunner and once as a real subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gtidkit.cli.main import cli

A = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
B = "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb"
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli, ["gtid", *args], input=stdin)


CASES = [
    (["normalize", f"{B}:1-3, {A.upper()}:5:4"], f"{A}:4-5,{B}:1-3\n"),
    (["normalize", "--newline", f"{B}:1-3,{A}:5"], f"{A}:5,\n{B}:1-3\n"),
    (["normalize", "-s", ",\\n", f"{B}:1-3,{A}:5"], f"{A}:5,\n{B}:1-3\n"),
    (["normalize", "--commented", f"{B}:1-3,{A}:5"], f"# {A}:5,\n# {B}:1-3\n"),
    (["normalize", "--commented", ""], "# [empty]\n"),
    (["normalize", ""], "\n"),
    (["union", f"{A}:1-3"], f"{A}:1-3\n"),
    (["union", f"{A}:1-3", f"{A}:4-9", f"{B}:1"], f"{A}:1-9,{B}:1\n"),
    (["intersect", f"{A}:1-9", f"{A}:3-20", f"{A}:5-6:8"], f"{A}:5-6:8\n"),
    (["subtract", f"{A}:1-10,{B}:1", f"{A}:4"], f"{A}:1-3:5-10,{B}:1\n"),
    (["subset", f"{A}:2", f"{A}:1-4"], "1\n"),
    (["subset", f"{A}:5", f"{A}:1-4"], "0\n"),
    (["count", f"{A}:1-10:12,{B}:t:1-2"], "13\n"),
    (["count", ""], "0\n"),
    (
        ["encode", f"{A}:1-5"],
        "0100000000000000" + "aa" * 16 + "0100000000000000" + "0100000000000000" + "0600000000000000\n",
    ),
    (["encode", "--format", "tagged", ""], "0100000000000001\n"),
    (["decode", "0000000000000000"], "\n"),
    (
        ["decode", "01000000 00000000" + "aa" * 16 + "01000000000000000100000000000000 0600000000000000"],
        f"{A}:1-5\n",
    ),
]


@pytest.mark.parametrize("args, out", CASES, ids=[" ".join(a)[:60] for a, _ in CASES])
def test_commands(args: list[str], out: str) -> None:
    res = run(*args)
    assert res.exit_code == 0, res.output
    assert res.output == out


def test_encode_decode_round_trip_with_tags() -> None:
    hexed = run("encode", f"{A}:1-5:t:3").output.strip()
    assert hexed.startswith("0102000000000001")
    assert run("decode", hexed).output == f"{A}:1-5:t:3\n"


def test_stdin() -> None:
    assert run("count", "-", stdin=f"{A}:1-3,\n{B}:7\n").output == "4\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["normalize", "x"], "ERROR 1772 (HY000): Malformed GTID set specification 'x'.\n"),
        (["union", f"{A}:1", f"{A}:0"], f"ERROR 1772 (HY000): Malformed GTID set specification '{A}:0'.\n"),
        (["subset", f"{A}:1", "nope"], "ERROR 1772 (HY000): Malformed GTID set specification 'nope'.\n"),
        (["count", f"{A}:"], f"ERROR 1772 (HY000): Malformed GTID set specification '{A}:'.\n"),
        (["decode", "00"], "ERROR 1773 (HY000): Malformed GTID set encoding.\n"),
        (["decode", "zz"], "ERROR 1773 (HY000): Malformed GTID set encoding.\n"),
    ],
)
def test_bad_input_prints_mysql_error_and_exits_1(args: list[str], message: str) -> None:
    res = CliRunner().invoke(cli, ["gtid", *args])
    assert res.exit_code == 1
    assert res.stderr == message  # click >= 8.2 keeps stderr apart
    assert res.stdout == ""


def test_encode_classic_refuses_tags() -> None:
    res = run("encode", "--format", "classic", f"{A}:t:1")
    assert res.exit_code == 2 and "classic" in res.output


def test_usage_errors() -> None:
    assert run("union").exit_code == 2
    assert run("subtract", f"{A}:1").exit_code == 2


def test_real_subprocess() -> None:
    exe = ROOT / ".venv" / "bin" / "gtidkit"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "gtidkit"]
    ok = subprocess.run(
        [*cmd, "gtid", "subtract", f"{A}:1-10", f"{A}:3-4"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ok.returncode == 0 and ok.stdout == f"{A}:1-2:5-10\n" and ok.stderr == ""
    bad = subprocess.run(
        [*cmd, "gtid", "normalize", "x"], capture_output=True, text=True, timeout=60, check=False
    )
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr == "ERROR 1772 (HY000): Malformed GTID set specification 'x'.\n"
