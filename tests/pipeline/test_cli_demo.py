"""``gtidkit pipeline demo`` and ``gtidkit demo`` through the real CLI: no JVM for their few MB of binlogs, progress
on stderr, nothing a user reads holds a Python repr or a cut UUID, Ctrl-C exits 130 with no traceback and no
process left behind (servers and Spark included)."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from tests.pipeline.cli_proc import interrupt_when

REPRS = re.compile(r"\('|\{'|\['|=True|=False|\bNone\b|Traceback|…\)")


def test_pipeline_demo_without_jvm(tmp_path, binlog_fixtures):
    t0 = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-m", "gtidkit", "pipeline", "demo", "--output", str(tmp_path / "d"),
         "--fixtures", str(binlog_fixtures)],
        check=False, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "log4j" not in p.stderr and "Traceback" not in p.stderr  # no JVM started
    assert not REPRS.search(p.stdout), REPRS.search(p.stdout)
    # the line wraps at 160 columns when the output path is long (a pytest-xdist worker's tmp_path): words, not lines
    assert "topology replica1 ← source; replica2 ← source" in " ".join(p.stdout.split())
    assert "MISSED" not in p.stdout
    assert re.search(r"gtidkit pipeline: scan: \d+/\d+ files", p.stderr)
    assert (tmp_path / "d" / "fleet-report" / "report.html").exists()
    assert time.monotonic() - t0 < 600


def test_pipeline_demo_ctrl_c(tmp_path):
    rc, _out, err, left = interrupt_when(
        ["pipeline", "demo", "--output", str(tmp_path / "d"), "--fixtures", str(tmp_path / "none")],
        "pipeline: scan",
        prefix=[sys.executable, "-m", "gtidkit"],
    )
    assert rc == 130, err
    assert "interrupted: the fleet demo did not finish" in err
    assert "Traceback" not in err and "Aborted" not in err
    assert not left


@pytest.mark.parametrize("marker", ["== 2.", "== 5."], ids=["replication", "pipeline"])
def test_demo_ctrl_c_stops_servers(tmp_path, marker):
    """SIGINT to the whole group (servers included) while replication runs, or while the pipeline step runs."""
    rc, _out, err, left = interrupt_when(
        ["demo", "--output", str(tmp_path / "d"), "--skip-fleet"],
        marker,
        prefix=[sys.executable, "-m", "gtidkit"],
        stream="stdout",
    )
    assert rc == 130, err
    assert re.search(r"interrupted: during step \d\.", err), err
    assert "Traceback" not in err and "Aborted" not in err
    assert not left, left
