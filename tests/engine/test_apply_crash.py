"""SIGKILL during apply: a replica applier process (apply_crash_driver.py) killed at random moments resumes from
its stored position with no lost and no duplicated transaction (issue 7 applier seam; issue 9's crash bullet in
short). Binlog off (WL#6559: position, data and GTID row in one SQLite transaction) and log_replica_updates on."""

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
import apply_crash_driver as driver

TRIALS = 3


def _spawn(source: Path, replica: Path, mode: str) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HERE.parents[1] / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen(
        [sys.executable, str(HERE / "apply_crash_driver.py"), str(source), str(replica), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        bufsize=0,
    )


def _run(source: Path, replica: Path, mode: str, delay: float | None) -> tuple[list[str], bool]:
    """One applier run: killed after ``delay`` seconds, or (None) once it printed DONE."""
    proc = _spawn(source, replica, mode)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if first.strip() != b"READY":
            proc.kill()
            raise AssertionError(f"driver did not start: {first!r} {proc.stderr.read().decode()[-2000:]}")
        if delay is not None:
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            out, _ = proc.communicate(timeout=60)
            return driver.parse_acks(out.decode())
        lines = []
        while True:
            line = proc.stdout.readline()
            if not line:
                raise AssertionError(f"driver exited: {proc.stderr.read().decode()[-2000:]}")
            lines.append(line.decode())
            if line.strip() == b"DONE":
                break
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        return driver.parse_acks("".join(lines))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    path = tmp_path_factory.mktemp("apply-crash") / "source"
    driver.make_source(str(path))
    return path, driver.source_state(str(path))


@pytest.mark.parametrize("mode", sorted(driver.MODES))
def test_sigkill_during_apply_resumes_without_loss_or_duplicate(tmp_path, source, mode):
    src, final = source
    rng = random.Random(f"apply-crash-{mode}")
    replica = tmp_path / "replica"
    acks: list[str] = []
    for trial in range(1, TRIALS + 1):
        got, _done = _run(src, replica, mode, rng.uniform(0.3, 1.5))
        acks += got
        problems = driver.check(str(src), str(replica), mode, acks)
        assert problems == [], f"trial {trial}: {problems}"
    got, done = _run(src, replica, mode, None)
    assert done
    acks += got
    assert acks, "the applier never acknowledged a transaction"
    assert driver.check(str(src), str(replica), mode, acks, final=final) == []
