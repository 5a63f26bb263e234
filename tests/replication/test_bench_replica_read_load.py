"""bench/bench_replica_read_load.py runs end to end in its quickest mode: a real gtidkit source and binlog-off
passive replica, sysbench writers on the source and point-select readers on the replica, the replica sampled,
caught up and equal to the source; RESULTS.md left alone. Skipped when sysbench is not installed."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("sysbench") is None, reason="sysbench not installed (.ci/run installs it)")
def test_replica_read_load_quick_catches_up_with_equal_data() -> None:
    results = (ROOT / "bench" / "RESULTS.md").read_text()
    r = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_replica_read_load.py"),
            "--quick",
            "--seconds",
            "2",  # each phase: what it checks (commits, applies, samples, catch-up, equal data) needs no more
            "--table-size",
            "200",
            "--no-write",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert (ROOT / "bench" / "RESULTS.md").read_text() == results  # --no-write
    table = r.stdout.split("| round |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table]
    assert [row[1] for row in rows] == ["4", "0"]  # the phase with 4 readers, then the control
    for row in rows:
        commits, applies = float(row[2].split()[0]), float(row[3])
        assert commits > 0 and applies > 0, row
        assert int(row[6]) >= 1, row  # samples taken
        sbs_max = row[7].split(" / ")[0]
        assert sbs_max.isdigit(), row  # Seconds_Behind_Source was never NULL: both replica threads ran
        assert math.isfinite(float(row[10])), row  # caught up (inf: WAIT_FOR_EXECUTED_GTID_SET timed out)
        assert row[11] == "yes", row  # data equal
    readers_row = rows[0]
    assert float(readers_row[5].split()[0]) > 0  # the replica served reads
    assert "of what the source committed with 4 readers on it" in r.stdout
