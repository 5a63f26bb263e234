"""The local engine (``--engine local``, :mod:`gtidkit.pipeline.local`) writes the tables Spark writes.

Same input, both engines, every table read back from its Parquet files and compared row for row (sorted; the
engines write rows in different orders), plus what the report is drawn from (hosts, checks, per-minute counts,
commit-group sizes). Inputs: the generated fleet (errant GTID, gap, chain break, anonymous transaction), the
real MySQL binlogs of ../shared (5.6 to 8.4, damaged files included); incremental runs continuing the other
engine's output are tests/pipeline/test_incremental.py.
"""

from __future__ import annotations

import pytest

from gtidkit.pipeline.job import run_pipeline
from tests.pipeline.frames import assert_same_result

pytestmark = pytest.mark.spark


def test_generated_fleet(fleet_result, fleet_dir, tmp_path):
    local = run_pipeline(None, fleet_dir, tmp_path / "local")
    assert_same_result(fleet_result, local)
    assert {c["check"] for c in local.checks} >= {"errant", "gap", "chain_break", "anonymous_in_gtid_mode"}


def test_real_binlogs(fixtures_result, binlog_fixtures, tmp_path):
    local = run_pipeline(None, binlog_fixtures, tmp_path / "local", write_report=False)
    assert_same_result(fixtures_result, local)
    assert any(f["status"] != "ok" for f in local.files)  # the damaged fixtures are there


def test_incremental_with_nothing_new(fleet_dir, tmp_path):
    """The everyday re-run: nothing new, every file reused, the report rewritten (Spark crashed here; Spark's
    re-run is tests/pipeline/test_cli_run.py::test_incremental_rerun_with_nothing_new_under_spark)."""
    first = run_pipeline(None, fleet_dir, tmp_path / "out")
    report = tmp_path / "out" / "report.html"
    report.unlink()
    again = run_pipeline(None, fleet_dir, tmp_path / "out", incremental=True)
    assert again.incremental["scanned"] == 0 and again.incremental["reused"] == len(first.files)
    assert report.exists()
    assert again.hosts == first.hosts and again.checks == first.checks


@pytest.mark.parametrize(
    ("size", "limit", "engine", "want"),
    [
        (10, 64, "auto", "local"),
        (65, 64, "auto", "spark"),
        (10, 64, "spark", "spark"),
        (10**12, 64, "local", "local"),
    ],
    ids=["small-auto", "large-auto", "forced-spark", "forced-local"],
)
def test_choose_engine(size, limit, engine, want):
    from gtidkit.pipeline.job import choose_engine
    from gtidkit.pipeline.layout import FileSpec, Layout

    spec = FileSpec(
        host="h", path="/x", file="binlog.000001", series="binlog", seq=1, file_index=0, size=size
    )
    layout = Layout(files=[spec])
    assert choose_engine(engine, layout, limit) == want
