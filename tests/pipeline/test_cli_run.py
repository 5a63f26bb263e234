"""``gtidkit pipeline run`` through the real CLI (a ``python -m gtidkit`` process, stdout and stderr piped).

What a user sees: results only on stdout, progress / warnings / errors on stderr, exit 1 for bad input checked
before any JVM starts, damaged files named, no Python reprs, Ctrl-C (SIGINT to the process group, as a terminal
sends it) ending with 130, one line saying what was left undone, no traceback and no process left behind.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.pipeline.cli_proc import interrupt_when

CMD = [sys.executable, "-m", "gtidkit", "pipeline", "run"]
REPRS = re.compile(r"\('|\{'|=True|=False|\bNone\b|Traceback")


def run(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CMD, *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},
    )


@pytest.fixture
def topo_bad(tmp_path) -> Path:
    p = tmp_path / "topo.json"
    p.write_text('{"replica1": 3}')
    return p


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--input", "{missing}", "--output", "{out}"], "error: "),
        (["--input", "{fleet}", "--output", "{out}", "--topology", "{topo_bad}"], "must be a host name"),
        (
            ["--input", "{fleet}", "--output", "{out}", "--topology", "{topo_unknown}"],
            "not in the input: nosuch",
        ),
        (["--input", "{fleet}", "--output", "{file}"], "a file, not a directory"),
        (
            ["--input", "{fleet}", "--output", "{out}", "--engine", "spark", "--master", "lokal"],
            "--master lokal",
        ),
    ],
    ids=["no-input", "bad-topology", "unknown-host", "output-is-file", "bad-master"],
)
def test_bad_input_fails_before_spark(args, message, fleet_dir, tmp_path, topo_bad):
    topo_unknown = tmp_path / "unknown.json"
    topo_unknown.write_text(json.dumps({"replica1": "nosuch"}))
    (tmp_path / "file").write_text("x")
    names = {
        "missing": tmp_path / "missing",
        "out": tmp_path / "out",
        "fleet": fleet_dir,
        "topo_bad": topo_bad,
        "topo_unknown": topo_unknown,
        "file": tmp_path / "file",
    }
    t0 = time.monotonic()
    p = run(*(a.format(**names) for a in args))
    assert p.returncode == 1, p.stderr
    assert p.stdout == ""
    assert message in p.stderr
    assert "Traceback" not in p.stderr and "starting Spark" not in p.stderr and "log4j" not in p.stderr
    assert time.monotonic() - t0 < 60


def test_bad_fs_option_is_a_usage_error(fleet_dir, tmp_path):
    p = run("--input", str(fleet_dir), "--output", str(tmp_path / "o"), "--fs-option", "novalue")
    assert p.returncode == 2 and p.stdout == "" and "KEY=VALUE" in p.stderr


@pytest.fixture(scope="module")
def damaged_fleet(fleet_dir, tmp_path_factory) -> Path:
    """The generated fleet with replica2's last binlog cut in the middle of an event."""
    fleet = tmp_path_factory.mktemp("damaged") / "fleet"
    shutil.copytree(fleet_dir, fleet)
    victim = max((fleet / "replica2").glob("binlog.0*"))
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2 + 7])
    return fleet


def test_local_run_stdout_stderr_and_damaged_file(damaged_fleet, tmp_path):
    out = tmp_path / "out"
    p = run("--input", str(damaged_fleet), "--output", str(out))
    assert p.returncode == 0, p.stderr
    # stdout: the results (tables, report path), nothing else
    assert "GTID state per host" in p.stdout and f"report: {out / 'report.html'}" in p.stdout
    assert "gtidkit pipeline:" not in p.stdout and "warning: " not in p.stdout
    assert not REPRS.search(p.stdout), REPRS.search(p.stdout)
    assert re.search(r"engine\s+local", p.stdout)
    # stderr: progress lines although not a terminal (stage, files done/total, MB/s), then the damaged file
    assert re.search(r"gtidkit pipeline: scan: 12/12 files, [\d.]+ MB of [\d.]+ MB, [\d.,]+ MB/s", p.stderr)
    for stage in ("discover", "tables", "state", "report"):
        assert f"gtidkit pipeline: {stage}" in p.stderr
    victim = max((damaged_fleet / "replica2").glob("binlog.0*")).name
    assert re.search(rf"warning: replica2/{victim}: truncated at offset \d+", p.stderr), p.stderr
    assert "Traceback" not in p.stderr and "log4j" not in p.stderr  # no JVM
    summary = json.loads((out / "summary.json").read_text())
    assert any(c["check"] == "file_error" and c["file"] == victim for c in summary["checks"])


def test_json_output_is_only_json(fleet_dir, tmp_path):
    p = run("--input", str(fleet_dir), "--output", str(tmp_path / "o"), "--json", "--engine", "local")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["counts"]["files"] == 12
    assert "gtidkit pipeline:" not in p.stderr  # --json implies no progress


@pytest.mark.spark
def test_incremental_rerun_with_nothing_new_under_spark(fleet_dir, tmp_path):
    """The everyday re-run (it crashed with a TypeError): reuses every file, rewrites the report."""
    out = tmp_path / "out"
    first = run("--input", str(fleet_dir), "--output", str(out), "--engine", "local", "--json")
    assert first.returncode == 0, first.stderr
    (out / "report.html").unlink()
    p = run(
        "--input", str(fleet_dir), "--output", str(out), "--incremental", "--engine", "spark",
        "--master", "local[2]", "--json",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    again = json.loads(p.stdout)
    assert again["incremental"]["scanned"] == 0 and again["incremental"]["reused"] == 12
    assert again["hosts"] == json.loads(first.stdout)["hosts"]
    assert again["checks"] == json.loads(first.stdout)["checks"]
    assert (out / "report.html").exists()


@pytest.fixture(scope="module")
def big_fleet(fleet_dir, tmp_path_factory) -> Path:
    """40 copies of the generated fleet's hosts (~40 MB): a local scan lasting a few seconds."""
    root = tmp_path_factory.mktemp("big") / "fleet"
    for k in range(40):
        for host in ("source", "replica1", "replica2"):
            shutil.copytree(fleet_dir / host, root / f"{host}{k:02d}")
    return root


def test_ctrl_c_local_engine(big_fleet, tmp_path):
    rc, out, err, left = interrupt_when(
        ["--input", str(big_fleet), "--output", str(tmp_path / "o"), "--engine", "local"], "pipeline: scan"
    )
    assert rc == 130, err
    assert "interrupted: during stage scan" in err and "report not written" in err
    assert "Traceback" not in err and "Aborted" not in err
    assert out == ""
    assert not left


@pytest.mark.spark
def test_ctrl_c_spark_stops_the_jvm(fleet_dir, tmp_path):
    rc, out, err, left = interrupt_when(
        [
            "--input",
            str(fleet_dir),
            "--output",
            str(tmp_path / "o"),
            "--engine",
            "spark",
            "--master",
            "local[2]",
        ],
        "pipeline: scan",
    )
    assert rc == 130, err
    assert "interrupted: during stage scan" in err
    assert "Traceback" not in err and "Exception" not in err
    assert out == ""
    assert not left, left  # the JVM and its Python workers are gone


def test_spark_that_cannot_start_is_one_error_line(fleet_dir, tmp_path):
    """No Java where JAVA_HOME points: one ``error:`` line naming the cause and the way out, exit 1."""
    p = subprocess.run(
        [*CMD, "--input", str(fleet_dir), "--output", str(tmp_path / "o"), "--engine", "spark"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "JAVA_HOME": str(tmp_path / "no-java")},
    )
    assert p.returncode == 1 and p.stdout == ""
    assert "error: Spark failed: [JAVA_GATEWAY_EXITED]" in p.stderr and "--engine local" in p.stderr
    assert "Traceback" not in p.stderr
