"""Crash safety of a replica (issue 9): SIGKILL at random moments while applying, restart, resume by auto-position.

The short version of ``bench/stress_replica_crash.py`` (200 trials, results in bench/RESULTS.md): a few trials per
mode. The oracle is the source itself: after catching up, the replica's gtid_executed equals the source's and every
row equals the source's (a counter incremented by every transaction makes a lost or doubled apply visible), with no
applier or receiver error — MySQL's crash-safe replica guarantee with GTID auto-positioning (manual "Making
Replication Resilient to Unexpected Halts"; WL#6559: with the binary log off the GTID row commits with the data).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from replication.cluster import replica_crash_trials


@pytest.mark.parametrize("log_replica_updates", [False, True], ids=["binlog-off", "log-replica-updates"])
def test_replica_killed_while_applying_resumes_exactly(tmp_path: Path, log_replica_updates: bool) -> None:
    run = replica_crash_trials(tmp_path, 2, log_replica_updates=log_replica_updates, seed=9, check_every=1)
    assert run.failures == []
    assert run.trials == 2 and len(run.catch_up_seconds) == 2 and run.commits > 0
