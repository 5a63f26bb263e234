"""SIGKILL during apply: a replica applier process (apply_crash_driver.py) killed at random moments resumes from
its stored position with no lost and no duplicated transaction (issue 7 applier seam; issue 9's crash bullet in
short). Binlog off (WL#6559: position, data and GTID row in one SQLite transaction) and log_replica_updates on."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import apply_crash_driver as driver
from workload import run_driver

TRIALS = 3


def _run(source: Path, replica: Path, mode: str, delay: float | None) -> tuple[list[str], bool]:
    """One applier run: killed after ``delay`` seconds, or (None) once it printed DONE -> (acks, DONE seen)."""
    text, _done = run_driver(HERE / "apply_crash_driver.py", [str(source), str(replica), mode], delay)
    return driver.parse_acks(text)


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
