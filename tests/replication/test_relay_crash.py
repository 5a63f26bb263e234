"""SIGKILL of a replica process while its relay log is being written and applied (relay_crash_driver.py):
relay_log_recovery truncates the torn tail, the receiver asks only for what it lacks, and the replica ends with the
source's data and gtid_executed: no lost, no re-requested, no double-applied transaction. Binlog off and
log_replica_updates on. ``bench/relay_crash_stress.py`` runs the same trials many more times."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import relay_crash_driver as driver
from workload import run_driver

TRIALS = 2
KILLS = 2


def run_once(source: Path, replica: Path, mode: str, seed: int, delay: float | None) -> bool:
    """One replica run: SIGKILLed ``delay`` seconds after READY, or (None) once it printed DONE. True if DONE.

    Raises:
        AssertionError: the driver reported STUCK (the applier did not reach the source's gtid_executed).
    """
    text, done = run_driver(
        HERE / "relay_crash_driver.py", [str(source), str(replica), mode, str(seed)], delay
    )
    stuck = [line for line in text.splitlines() if line.startswith("STUCK")]
    if stuck:
        raise AssertionError(stuck[0])
    return done


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    path = tmp_path_factory.mktemp("relay-crash") / "source"
    final = driver.make_source(str(path))
    return path, final


@pytest.mark.parametrize("mode", sorted(driver.MODES))
def test_sigkill_while_receiving_and_applying(tmp_path, source, mode):
    src, final = source
    rng = random.Random(f"relay-crash-{mode}")
    for trial in range(TRIALS):
        replica = tmp_path / f"replica{trial}"
        for kill in range(KILLS):
            run_once(src, replica, mode, trial * 10 + kill, rng.uniform(0.02, 0.4))
            problems = driver.check(str(src), str(replica), mode)
            assert not problems, f"trial {trial}, kill {kill}: {problems}"
        assert run_once(src, replica, mode, trial * 10 + 9, None)
        problems = driver.check(str(src), str(replica), mode, final=final)
        assert not problems, f"trial {trial}, final: {problems}"
