"""Crash safety with real processes: SIGKILL a committing server at random moments, restart, check invariants.

The child is ``crash_driver.py`` (a real server process); the invariant is checked by ``crash_driver.check``
after an in-process restart (which runs recovery). A handful of trials per mode; bench/stress_crash.py runs 200.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import crash_driver
from protocol.prefork import popen_python

TRIALS = 3


def run_trial(
    datadir: Path, mode: str, rng: random.Random, max_delay: float = 0.4
) -> list[tuple[int, str | None]]:
    """Start the driver, wait for READY, let it commit for a random time, SIGKILL it; return its ACKs."""
    env = dict(os.environ)
    src = str(HERE.parents[1] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    proc = popen_python(
        [HERE / "crash_driver.py", str(datadir), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        # unbuffered: readline() must not pull ACK lines into a Python buffer that communicate() would then skip
        bufsize=0,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if first.strip() != b"READY":
            proc.kill()
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise AssertionError(f"driver did not start: {first!r} {err[-2000:]}")
        time.sleep(rng.uniform(0.0, max_delay))
        proc.send_signal(signal.SIGKILL)
        out, _err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return crash_driver.parse_acks(out.decode())


@pytest.mark.parametrize("mode", sorted(crash_driver.MODES))
def test_sigkill_invariant(tmp_path, mode):
    rng = random.Random(f"crash-{mode}")
    datadir = tmp_path / mode
    acks: list[tuple[int, str | None]] = []
    for trial in range(1, TRIALS + 1):
        acks += run_trial(datadir, mode, rng)
        problems = crash_driver.check(str(datadir), mode, acks, trials=trial)
        assert problems == [], f"trial {trial}: {problems}"
    assert acks, "the driver never acknowledged a commit"
