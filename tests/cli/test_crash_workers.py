"""Crash safety of the multi-worker server (issue 21 step 7): SIGKILL of one worker, or of the whole server, under
load from clients in every worker; the invariant of tests/engine/crash_driver.py after each kill.

A few trials per mode (tests/cli/crash_workers.py has the harness; bench/stress_crash.py ``--workers 2`` runs 200).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.cli import crash_workers
from tests.protocol.server_proc import initialize

#: trials per mode here (a whole-server trial restarts every process: ~15 s on the shared 2-core machine)
TRIALS = {"random_worker": 3, "whole_server": 2}


@pytest.mark.parametrize("mode", crash_workers.MODES)
def test_sigkill_under_load_keeps_the_invariant(tmp_path: Path, mode: str) -> None:
    datadir = tmp_path / "d"
    initialize(datadir)
    trials = crash_workers.Trials(datadir, mode, workers=2, clients=4, rng=random.Random(f"crash-{mode}"))
    try:
        trials.setup()
        for trial in range(1, TRIALS[mode] + 1):
            problems = trials.trial()
            assert problems == [], f"trial {trial}: {problems}"
        assert trials.finish() == []
    finally:
        trials.abandon()
    assert len(trials.ledger.acked) > 2 * TRIALS[mode], "the clients hardly committed"
    if mode == "random_worker":
        assert len(trials.replacements) == TRIALS[mode]
