"""The CLI behaves like a well-mannered Unix tool (issue 17 §4), through the real CLI (``python -m gtidkit``):
results on stdout, errors on stderr with a non-zero status; a failed producer in a pipe is not read as an empty set;
``gtid subset --exit-status``; Ctrl-C (SIGINT) stops cleanly with a note and status 130, a closed pipe with 141."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_binlog_show import GTID57
from tests.protocol.prefork import run_gtidkit
from tests.protocol.server_proc import running_server

A = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
GTIDKIT = [sys.executable, "-m", "gtidkit"]


@pytest.fixture(autouse=True)
def _sigint_not_ignored() -> Iterator[None]:
    """A test run started with SIGINT ignored (a background job of a non-interactive shell) would hand that on to
    the commands under test, which then could not be interrupted: handle it here while the test runs."""
    previous = signal.getsignal(signal.SIGINT)
    if previous == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def gtidkit(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m gtidkit ARGS`` with ``stdin`` and capture its output."""
    return run_gtidkit(args, input=stdin, capture_output=True, text=True, timeout=120, check=False)


def shell(pipeline: str) -> subprocess.CompletedProcess[str]:
    """Run a bash pipeline of gtidkit commands; stdout gets ``PIPESTATUS`` on its last line."""
    g = " ".join(shlex.quote(a) for a in GTIDKIT)
    script = pipeline.replace("gtidkit", g) + '; echo "status ${PIPESTATUS[*]}"'
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, check=False)


def interrupt(proc: subprocess.Popen[str], ready: str | None = None, wait: float = 0) -> tuple[str, str]:
    """Send SIGINT to ``proc`` (once ``ready`` shows on its stderr, or after ``wait`` s); return stdout, stderr."""
    assert proc.stderr is not None
    if ready is not None:
        seen = ""
        while ready not in seen:
            line = proc.stderr.readline()
            assert line, f"exited before {ready!r}: {seen}"
            seen += line
    time.sleep(wait)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return out, err


def assert_interrupted(proc: subprocess.Popen[str], err: str, note: str) -> None:
    """Status 130, one ``gtidkit: interrupted: ...`` line naming ``note``, no traceback."""
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    lines = [line for line in err.splitlines() if line.startswith("gtidkit: interrupted: ")]
    assert len(lines) == 1 and note in lines[0], err


# ----------------------------------------------------------------------------------------------- pipes and stdin


def test_failed_producer_is_not_an_empty_set() -> None:
    r = shell(f"gtidkit gtid union not-a-set {A}:1 | gtidkit gtid count -")
    assert r.stdout == "status 1 1\n"  # no "0": the consumer fails too
    assert "ERROR 1772 (HY000): Malformed GTID set specification 'not-a-set'." in r.stderr
    assert "standard input is empty: no GTID set was read" in r.stderr
    r = shell(f"gtidkit gtid union {A}:1-3 {A}:7 | gtidkit gtid count -")
    assert r.stdout == "4\nstatus 0 0\n"


@pytest.mark.parametrize(
    ("stdin", "status", "stdout"),
    [
        pytest.param("", 1, "", id="no-bytes-is-an-error"),
        pytest.param("\n", 0, "0\n", id="empty-line-is-the-empty-set"),
        pytest.param(f"{A}:1-5\n", 0, "5\n", id="a-set"),
    ],
)
def test_count_from_stdin(stdin: str, status: int, stdout: str) -> None:
    r = gtidkit("gtid", "count", "-", stdin=stdin)
    assert (r.returncode, r.stdout) == (status, stdout), r.stderr


@pytest.mark.parametrize(
    ("args", "stdin", "status"),
    [
        pytest.param([f"{A}:2", f"{A}:1-4"], None, 0, id="subset"),
        pytest.param([f"{A}:5", f"{A}:1-4"], None, 1, id="not-subset"),
        pytest.param(["", f"{A}:1"], None, 0, id="empty-is-subset"),
        pytest.param(["bad", f"{A}:1"], None, 2, id="malformed"),
        pytest.param(["-", f"{A}:1"], "", 2, id="empty-stdin"),
        pytest.param(["-", f"{A}:1-9"], f"{A}:3\n", 0, id="stdin-subset"),
    ],
)
def test_subset_exit_status(args: list[str], stdin: str | None, status: int) -> None:
    r = gtidkit("gtid", "subset", "--exit-status", *args, stdin=stdin)
    assert r.returncode == status, r.stderr
    assert r.stdout == ""
    assert bool(r.stderr) == (status == 2)


def test_subset_exit_status_in_shell_if() -> None:
    r = shell(f"if gtidkit gtid subset -q {A}:1 {A}:1-3; then echo yes; else echo no; fi")
    assert r.stdout.splitlines()[0] == "yes"


def test_closed_pipe_ends_quietly() -> None:
    r = shell(f"gtidkit binlog show {' '.join([str(GTID57)] * 40)} | head -n 1")
    assert r.stdout.splitlines() == [
        "# The proper term is pseudo_replica_mode, but we use this compatibility alias",
        "status 141 0",
    ]
    assert r.stderr == ""


# ----------------------------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_while_gtid_reads_stdin() -> None:
    proc = subprocess.Popen(
        [*GTIDKIT, "gtid", "count", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = interrupt(proc, wait=3)
    assert out == ""
    assert_interrupted(proc, err, "")


def test_ctrl_c_in_binlog_show_names_what_was_not_listed() -> None:
    files = [str(GTID57)] * 200
    proc = subprocess.Popen(
        [*GTIDKIT, "binlog", "show", *files],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.read(1000)  # listing has started; nobody reads the rest: the writer blocks on the full pipe
    _out, err = interrupt(proc, wait=1)
    assert_interrupted(proc, err, f"the listing of {GTID57} stopped part-way; not listed: {GTID57}")


def test_ctrl_c_in_sql_kills_the_statement_and_shuts_down(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    setup = gtidkit(
        "sql",
        "--datadir",
        str(datadir),
        "--skip-log-bin",
        "-e",
        "CREATE DATABASE d; CREATE TABLE d.t (a INT)",
    )
    assert setup.returncode == 0, setup.stderr
    proc = subprocess.Popen(
        [
            *GTIDKIT,
            "sql",
            "--datadir",
            str(datadir),
            "--skip-log-bin",
            "-e",
            "SELECT 'started'; BEGIN; INSERT INTO d.t VALUES (1); SELECT SLEEP(60); COMMIT; SELECT 'never'",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "started\n"
    assert proc.stdout.readline() == "started\n"
    started = time.monotonic()
    out, err = interrupt(proc, wait=1)
    assert time.monotonic() - started < 30  # the SLEEP(60) was killed, not waited for
    assert out == ""
    assert_interrupted(
        proc,
        err,
        "statement 4 of 6 was interrupted (its result is not printed; a transaction left open is rolled back); "
        "statements 5 to 6 were not run; the server shut down cleanly",
    )
    r = gtidkit("sql", "--datadir", str(datadir), "--skip-log-bin", "-e", "SELECT COUNT(*) AS n FROM d.t")
    assert (r.returncode, r.stdout) == (0, "n\n0\n"), r.stderr  # rolled back; the datadir is not left locked


def test_ctrl_c_stops_the_server_cleanly(tmp_path: Path) -> None:
    args = ("--skip-log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")
    with running_server(tmp_path / "d", *args) as server:
        server.proc.send_signal(signal.SIGINT)
        assert server.proc.wait(120) == 130
        assert server.proc.stderr is not None
        err = server.proc.stderr.read()
    assert "Traceback" not in err
    assert "gtidkit: interrupted: the server shut down cleanly" in err
    assert "Shutdown complete" in (tmp_path / "d" / "error.log").read_text()


def test_ctrl_c_in_topology_check() -> None:
    # a "server" that accepts connections and never sends its greeting: the check waits on it
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True).start()
    try:
        proc = subprocess.Popen(
            [*GTIDKIT, "topology", "check", "--connect-timeout", "60", f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 60
        while not accepted and time.monotonic() < deadline:
            time.sleep(0.05)
        out, err = interrupt(proc, wait=0.5)
        assert out == ""
        assert_interrupted(proc, err, f"reading 127.0.0.1:{port} did not finish; no report was printed")
    finally:
        for conn in accepted:
            conn.close()
        listener.close()


# ----------------------------------------------------------------------------------------------- what a user reads


def test_generate_wraps_uuids_and_speaks_in_options(tmp_path: Path) -> None:
    out = tmp_path / "fleet"
    env = {**os.environ, "COLUMNS": "70"}  # a narrow terminal: the table must fold its cells, not cut them
    cmd = [
        *GTIDKIT,
        "binlog",
        "generate",
        "fleet",
        "--output",
        str(out),
        "--seed",
        "3",
        "--transactions",
        "50",
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert r.returncode == 0, r.stderr
    assert "…" not in r.stdout
    cells = "".join(line.split("│")[3].strip() for line in r.stdout.splitlines() if line.count("│") > 3)
    manifest = json.loads((out / "manifest.json").read_text())
    for host in manifest["hosts"]:
        assert host["server_uuid"] in cells  # every UUID whole once its folded lines are joined
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert r.returncode == 1
    assert r.stderr == f"Error: {out} is not empty: pass --overwrite to replace it\n"  # not "overwrite=True"


@pytest.mark.parametrize(
    ("args", "status", "stdout"),
    [
        (["gtid", "count", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"], 0, "5"),
        (["gtid", "count", "not-a-gtid-set"], 1, ""),
        (["no-such-command"], 2, ""),
    ],
    ids=["done", "command-error", "usage-error"],
)
def test_exit_skips_the_last_collection_and_keeps_status_and_output(args, status, stdout) -> None:
    """However a command ends, what is loaded is frozen before the interpreter exits (its last full collection
    skips it: a tenth of a second of CPU per process), and the exit status and the output are the command's."""
    probe = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen:', gc.get_freeze_count() > 0, file=sys.stderr))\n"
        "from gtidkit.cli.main import main\n"
        f"sys.argv = ['gtidkit', *{args!r}]\n"
        "main()\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert (r.returncode, r.stdout.strip()) == (status, stdout), r.stderr
    assert r.stderr.rstrip().endswith("frozen: True"), r.stderr
