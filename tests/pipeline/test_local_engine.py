"""The local engine (``--engine local``, :mod:`gtidkit.pipeline.local`) writes the tables Spark writes.

Same input, both engines, every table read back from its Parquet files and compared row for row (sorted; the
engines write rows in different orders), plus what the report is drawn from (hosts, checks, per-minute counts,
commit-group sizes). Inputs: the generated fleet (errant GTID, gap, chain break, anonymous transaction), the
real MySQL binlogs of ../shared (5.6 to 8.4, damaged files included) and an incremental day-2 run.
"""

from __future__ import annotations

import shutil

import pytest

from gtidkit.pipeline.job import TABLES, run_pipeline
from tests.pipeline.frames import table_rows

pytestmark = pytest.mark.spark


def _assert_same(spark_result, local_result):
    assert local_result.engine == "local" and spark_result.engine == "spark"
    for name in TABLES:
        a, b = table_rows(spark_result.output, name), table_rows(local_result.output, name)
        assert len(a) == len(b), name
        assert a == b, name
    assert local_result.hosts == spark_result.hosts
    assert local_result.checks == spark_result.checks
    assert local_result.files == spark_result.files
    assert local_result.activity == spark_result.activity
    assert local_result.activity_bucket == spark_result.activity_bucket
    assert local_result.group_sizes == spark_result.group_sizes
    assert local_result.counts == spark_result.counts


def test_generated_fleet(fleet_result, fleet_dir, tmp_path):
    local = run_pipeline(None, fleet_dir, tmp_path / "local")
    _assert_same(fleet_result, local)
    assert {c["check"] for c in local.checks} >= {"errant", "gap", "chain_break", "anonymous_in_gtid_mode"}


def test_real_binlogs(fixtures_result, binlog_fixtures, tmp_path):
    local = run_pipeline(None, binlog_fixtures, tmp_path / "local", write_report=False)
    _assert_same(fixtures_result, local)
    assert any(f["status"] != "ok" for f in local.files)  # the damaged fixtures are there


def test_incremental_day2(spark, fleet_dir, fleet_result, tmp_path):
    """Day 1 scanned by Spark, day 2 by the local engine (and the reverse): equal to a full Spark run (the
    session's run on the same fleet, ``fleet_result``; only the files' paths differ, this fleet being a copy)."""
    fleet = tmp_path / "fleet"
    shutil.copytree(fleet_dir, fleet)
    newest = fleet / "source" / "binlog.000004"
    held = newest.read_bytes()
    newest.unlink()
    run_pipeline(spark, fleet, tmp_path / "out-s", write_report=False)
    run_pipeline(None, fleet, tmp_path / "out-l", write_report=False)
    newest.write_bytes(held)
    day2_local = run_pipeline(None, fleet, tmp_path / "out-s", incremental=True, write_report=False)
    day2_spark = run_pipeline(spark, fleet, tmp_path / "out-l", incremental=True, write_report=False)
    assert day2_local.incremental["new"] == [["source", "binlog.000004"]]
    assert day2_local.incremental["scanned"] == 1
    assert day2_spark.incremental == day2_local.incremental
    _assert_same(day2_spark, day2_local)
    for name in TABLES:
        want = table_rows(fleet_result.output, name, drop=("path",))
        assert want == table_rows(day2_local.output, name, drop=("path",)), name
    assert sorted(f["path"] for f in day2_local.files) == sorted(
        str(fleet / f["host"] / f["file"]) for f in fleet_result.files
    )


def test_incremental_with_nothing_new(spark, fleet_dir, tmp_path):
    """The everyday re-run: nothing new, every file reused, the report rewritten (Spark crashed here)."""
    first = run_pipeline(None, fleet_dir, tmp_path / "out")
    report = tmp_path / "out" / "report.html"
    report.unlink()
    again = run_pipeline(spark, fleet_dir, tmp_path / "out", incremental=True)
    assert again.incremental["scanned"] == 0 and again.incremental["reused"] == len(first.files)
    assert report.exists()
    assert again.hosts == first.hosts and again.checks == first.checks
    local_again = run_pipeline(None, fleet_dir, tmp_path / "out", incremental=True)
    assert local_again.incremental["scanned"] == 0
    assert local_again.hosts == first.hosts


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
