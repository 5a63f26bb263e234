"""Helpers of the CLI tests: run a gtidkit command in its own process group and Ctrl-C it like a terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

CMD = [sys.executable, "-m", "gtidkit", "pipeline", "run"]


def _group_alive(pgid: int) -> list[str]:
    alive = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(f"{proc.name} {stat.split(')')[0]})")
    return alive


def interrupt_when(
    args: list[str], marker: str, timeout: float = 600, *, prefix: list[str] = CMD, stream: str = "stderr"
) -> tuple[int, str, str, list[str]]:
    """Start ``prefix + args`` in its own process group and send SIGINT to the whole group, as a terminal's
    Ctrl-C does, when ``marker`` shows on ``stream``; returns (exit status, stdout, stderr, processes of the
    group still alive a second after the command ended; the answer comes as soon as none is left)."""
    proc = subprocess.Popen(
        [*prefix, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    seen = []
    deadline = time.monotonic() + timeout
    try:
        for line in getattr(proc, stream):
            seen.append(line)
            if marker in line:
                os.killpg(proc.pid, signal.SIGINT)
                break
            assert time.monotonic() < deadline, "marker never seen"
        else:
            raise AssertionError(f"{marker!r} never seen: {''.join(seen)[-2000:]}")
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    left = _group_alive(proc.pid)
    # what outlives the command by a second is left behind; stop looking as soon as nothing is
    settle = time.monotonic() + 1.0
    while left and time.monotonic() < settle:
        time.sleep(0.05)
        left = _group_alive(proc.pid)
    if stream == "stdout":
        out = "".join(seen) + out
    else:
        err = "".join(seen) + err
    return proc.returncode, out, err, left
