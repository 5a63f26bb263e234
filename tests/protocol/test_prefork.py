"""tests/protocol/prefork.py: a preforked ``python -m gtidkit`` behaves as a new interpreter's would.

The oracle is the same command started with plain ``subprocess.Popen`` (``GTIDKIT_TEST_NO_PREFORK=1``): output,
exit status, signal deaths, working directory and the descriptors the process holds must be the same.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gtidkit.cli.interrupt import EXIT_INTERRUPTED

from .prefork import NO_PREFORK_ENV, PreforkedProcess, popen_gtidkit, popen_python
from .server_proc import BASE_ARGS, initialize


def start(preforked: bool, args: list[str], **kwargs):
    """``popen_gtidkit`` (preforked) or plain ``Popen`` of the same command."""
    if preforked:
        return popen_gtidkit(args, **kwargs)
    return subprocess.Popen([sys.executable, "-m", "gtidkit", *args], **kwargs)


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--version"], id="version"),
        pytest.param(["server", "--no-such-option"], id="unknown-server-option"),
        pytest.param(["gtid", "count", "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7"], id="gtid-count"),
        pytest.param(["no-such-command"], id="unknown-command"),
    ],
)
def test_output_and_exit_status_are_a_new_interpreters(args: list[str]) -> None:
    runs = []
    for preforked in (False, True):
        proc = start(preforked, args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = proc.communicate(timeout=120)
        assert isinstance(proc, PreforkedProcess) == preforked
        runs.append((proc.returncode, out, err))
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("sig", "status"),
    [
        pytest.param(signal.SIGTERM, 0, id="sigterm-clean-shutdown"),
        pytest.param(signal.SIGKILL, -signal.SIGKILL, id="sigkill"),
        pytest.param(signal.SIGINT, EXIT_INTERRUPTED, id="sigint-interrupted"),  # SIGINT is not ignored
    ],
)
def test_signals_reach_the_server_and_its_status_comes_back(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    initialize(tmp_path / "d")
    proc = popen_gtidkit(
        [
            "server",
            "--workers=1",
            "--datadir",
            str(tmp_path / "d"),
            "--port",
            "0",
            "--log-error",
            "error.log",
            *BASE_ARGS,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    with proc:
        assert isinstance(proc, PreforkedProcess)
        assert proc.stderr is not None
        while "ready for connections" not in (line := proc.stderr.readline()):
            assert line, "the server exited before it was ready"
        assert proc.poll() is None
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(0.05)
        proc.send_signal(sig)
        assert proc.wait(60) == status
        assert proc.returncode == status
        assert proc.poll() == status


def test_working_directory_environment_and_stdin(tmp_path: Path) -> None:
    """A relative ``--datadir`` is the caller's ``cwd``'s; the caller's ``env`` is the process's; stdin is the
    caller's pipe (``gtidkit gtid`` reads sets from it)."""
    env = {**os.environ, "GTIDKIT_PREFORK_PROBE": "1"}
    proc = popen_gtidkit(
        ["server", "--initialize-insecure", "--datadir", "rel", "--skip-log-bin"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert (tmp_path / "rel" / "gtidkit.sqlite").exists()
    pipe = popen_gtidkit(
        ["gtid", "count", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = pipe.communicate("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7\n", timeout=120)
    plain = subprocess.run(
        [sys.executable, "-m", "gtidkit", "gtid", "count", "-"],
        input="3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (pipe.returncode, out, err) == (plain.returncode, plain.stdout, plain.stderr)


def descriptor_kinds(pid: int, datadir: Path) -> list[str]:
    """What each descriptor of ``pid`` is (a file under ``datadir`` by its relative name; the one-process row-lock
    page's lock file, made in a fresh temporary directory, without that directory's random name; pipe, socket,
    anon_inode without their inode numbers)."""
    kinds = []
    for fd in sorted(os.listdir(f"/proc/{pid}/fd"), key=int):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(datadir)):
            target = "datadir:" + os.path.relpath(target, datadir)
        target = re.sub(r"/gtidkit-rowlocks-[^/]+/", "/gtidkit-rowlocks-*/", target)  # row_locks.private_page
        kinds.append(f"{fd}={target.split(':[', 1)[0]}")
    return kinds


def test_a_preforked_server_holds_the_descriptors_a_new_interpreter_holds(tmp_path: Path) -> None:
    held = []
    for preforked in (False, True):
        datadir = tmp_path / f"d{int(preforked)}"
        initialize(datadir)
        proc = start(
            preforked,
            [
                "server",
                "--workers=1",
                "--datadir",
                str(datadir),
                "--port",
                "0",
                "--log-error",
                "error.log",
                *BASE_ARGS,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        with proc:
            assert proc.stderr is not None
            while "ready for connections" not in (line := proc.stderr.readline()):
                assert line, "the server exited before it was ready"
            held.append(descriptor_kinds(proc.pid, datadir))
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(60) == 0
    assert held[0] == held[1]


def test_the_switch_gives_plain_popen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(NO_PREFORK_ENV, "1")
    proc = popen_gtidkit(["--version"], stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=120)
    assert type(proc) is subprocess.Popen
    assert proc.returncode == 0 and out.startswith("gtidkit")


PROBE = """
import sys, time
import gtidkit.binlog.mysqlbinlog as listing
print(listing.COMPILED, time.tzname, sys.stdout.encoding, sys.argv[1:], sys.path[0] == sys.argv[1])
"""


@pytest.mark.parametrize(
    "env",
    [
        pytest.param({}, id="as-the-tests-run"),
        pytest.param({"GTIDKIT_PURE_PYTHON": "1"}, id="pure-python-listing"),
        pytest.param({"TZ": "Asia/Kolkata"}, id="time-zone"),
        pytest.param({"PYTHONIOENCODING": "latin-1"}, id="stdio-encoding"),
    ],
)
def test_a_script_sees_what_it_imports_as_a_new_interpreter_would(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """What a module decides on import from the environment (gtidkit's compiled listing, ``time``'s zone, the stdio
    encoding) is the caller's ``env``'s, as in a new interpreter; a script's directory is first on its path."""
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    full = {**os.environ, **env}
    outs = []
    for preforked in (False, True):
        argv = [script, str(tmp_path)]
        if preforked:
            proc = popen_python(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full)
        else:
            proc = subprocess.Popen(
                [sys.executable, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full
            )
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert isinstance(proc, PreforkedProcess) == preforked
        outs.append(out)
    assert outs[0] == outs[1]
    assert outs[1].endswith(b" True\n")


SESSION_PROBE = """
import os, sys
print(os.getsid(0) == os.getpid(), os.getpgid(0) == os.getpid(), os.getsid(0) == int(sys.argv[1]))
sys.stdin.read()  # stays until the caller closes its stdin
"""


@pytest.mark.parametrize("new_session", [False, True], ids=["same-session", "start-new-session"])
def test_start_new_session_as_plain_popen(tmp_path: Path, new_session: bool) -> None:
    """``start_new_session=True``: the child leads a new session and process group (``setsid``) by the time its
    pid is returned, so ``killpg(pid)`` at once reaches it, as with ``Popen``; without it, the caller's session."""
    script = tmp_path / "session.py"
    script.write_text(SESSION_PROBE)
    outs = []
    for preforked in (False, True):
        argv = [script, str(os.getsid(0))]
        kwargs = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "start_new_session": new_session}
        if preforked:
            proc = popen_python(argv, **kwargs)
        else:
            proc = subprocess.Popen([sys.executable, *argv], **kwargs)
        assert isinstance(proc, PreforkedProcess) == preforked
        if new_session:
            assert os.getpgid(proc.pid) == proc.pid  # the group exists as soon as the pid is known
        assert proc.stdout is not None
        outs.append(proc.stdout.readline())
        if new_session:
            os.killpg(proc.pid, signal.SIGTERM)
            assert proc.wait(60) == -signal.SIGTERM
        else:
            proc.communicate(b"", timeout=60)
            assert proc.returncode == 0
    assert outs[0] == outs[1] == (b"True True False\n" if new_session else b"False False True\n")
