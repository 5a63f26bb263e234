"""bench/bench_server.py --scaling runs end to end in its quickest mode (issue 21's scaling table): real
`gtidkit server` and MariaDB processes, real sysbench, every cell of the table filled, RESULTS.md left alone.

Skipped when sysbench or MariaDB's server is not installed (.ci/run installs sysbench; mariadb-server is optional).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "bench_server.py"
MARIADBD = shutil.which("mariadbd") or "/usr/sbin/mariadbd"


def _run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--scaling", *args, "--no-write"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=ROOT,
    )


def _table(out: str, heading: str) -> list[list[str]]:
    """The rows (cells) of the markdown table that follows the paragraph starting with ``heading``."""
    block = next(b for b in out.split(heading, 1)[1].split("\n\n") if b.startswith("|"))
    return [[c.strip() for c in line.strip("|").split("|")] for line in block.splitlines()[2:]]


@pytest.mark.skipif(shutil.which("sysbench") is None, reason="sysbench not installed (.ci/run installs it)")
@pytest.mark.skipif(
    not Path(MARIADBD).exists() or shutil.which("mariadb-install-db") is None,
    reason="MariaDB's server is not installed (the scaling table compares with it)",
)
def test_scaling_quick_fills_every_cell_for_root_and_the_application_account() -> None:
    results = (ROOT / "bench" / "RESULTS.md").read_text()
    r = _run("--quick", "--sysbench-seconds", "1", "--workloads", "oltp_point_select,oltp_read_write")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = r.stdout
    assert (ROOT / "bench" / "RESULTS.md").read_text() == results  # --no-write
    for heading in ("As root", "As the application account"):
        rows = _table(out, heading)
        assert [(row[0], row[1]) for row in rows] == [
            ("oltp_point_select", "1"),
            ("oltp_point_select", "4"),
            ("oltp_read_write", "1"),
            ("oltp_read_write", "4"),
        ]
        for row in rows:
            # gtidkit and MariaDB: "TPS (p95 ms)" with TPS > 0; the ratio to MariaDB in bold
            for cell in row[2:4]:
                m = re.fullmatch(r"(\d+) \((\d+\.\d\d)\)", cell)
                assert m and int(m[1]) > 0, row
            assert re.fullmatch(r"\*\*\d+\.\d\d\*\* \(\d+\.\d\d\)", row[4]), row
    cpu = _table(out, "Server CPU per transaction")
    assert len(cpu) == 4
    for row in cpu:  # ms per transaction for each of the four servers
        assert all(float(c) > 0 for c in row[2:6]), row
    scaling = _table(out, "Thread scaling")
    assert {(row[0], row[1]) for row in scaling} == {
        (w, s)
        for w in ("oltp_point_select", "oltp_read_write")
        for s in ("gtidkit 1 worker", "MariaDB", "gtidkit 1 worker, as app", "MariaDB, as app")
    }
    targets = {(row[0], row[1]): row[3] for row in _table(out, "Issue 21's targets")}
    for who in ("gtidkit 1 worker", "gtidkit 1 worker, as app"):
        assert targets[("oltp_point_select 4 threads >= 0.4x MariaDB", who)] in ("yes", "no")
        assert targets[("oltp_read_write 4 threads >= 0.5x MariaDB", who)] in ("yes", "no")
        assert targets[("oltp_read_write not slower at 4 threads than at 1", who)].startswith(("yes", "no"))
    assert "Load average (1/5/15 min)" in out


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("no-label", "--config wants LABEL=OPTIONS"),
        ("bad=--no-such-server-option", "server did not start"),
    ],
    ids=["config-without-label", "options-reach-the-server"],
)
def test_scaling_config_is_label_and_server_options(config: str, message: str) -> None:
    r = _run("--config", config, "--no-mariadb", timeout=120)
    assert r.returncode != 0
    assert message in r.stderr, r.stderr[-3000:]
