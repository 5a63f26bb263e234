"""The GTID-set benchmark script still runs (tiny size, no timing assertions, RESULTS.md left alone)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_gtid_runs_and_cross_checks_results() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_gtid.py"),
            "--uuids",
            "5",
            "--intervals",
            "8",
            "--repeat",
            "1",
            "--peer-repeat",
            "1",
            "--no-write",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    # every operation line printed after its result was cross-checked against python-mysql-replication
    for op in ("parse", "union", "subtract", "subset", "encode", "decode"):
        assert f"\n{op} " in "\n" + proc.stdout
