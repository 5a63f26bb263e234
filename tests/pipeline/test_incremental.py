"""Incremental runs (issue 10): yesterday's output plus today's binlogs equals a full run on today's binlogs,
whichever engine wrote yesterday's output and whichever reads it today.

Day 1 is the generated fleet as it stood a day earlier: ``source`` had not yet written its last binlog (new on
day 2), ``replica1`` was still writing its last one (cut at a transaction boundary: it grew), and a foreign file
sat under ``replica2/binlog.000002`` (rewritten on day 2). On day 2 ``replica1``'s oldest binlog is purged (gone).
Day 1 runs on both engines; on day 2 each engine continues from the other one's output (Spark reads the tables the
local engine wrote, and the reverse), and both are compared with a full run on day 2's binlogs (the local
engine's, whose tables equal Spark's on the same input: tests/pipeline/test_local_engine.py) and with each other.
Two Spark runs in all.
"""

from __future__ import annotations

import json
import shutil

import pytest

from gtidkit.binlog.file import iter_transactions
from tests.pipeline.frames import assert_same_result, table_rows

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def runs(spark, fleet_dir, tmp_path_factory):
    """{"first": {engine: day 1's result}, "second": {engine: day 2's result, continuing the other engine's
    output}, "reference": the local engine's full run on day 2's binlogs}."""
    from gtidkit.pipeline.job import run_pipeline

    root = tmp_path_factory.mktemp("incremental")
    fleet, full = root / "fleet", root / "full"
    # out_a: day 1 by Spark, day 2 by the local engine; out_b: day 1 by the local engine, day 2 by Spark
    out_a, out_b = root / "spark-then-local", root / "local-then-spark"
    shutil.copytree(fleet_dir, fleet)
    day2 = {p.relative_to(fleet): p.read_bytes() for p in fleet.rglob("binlog.*")}
    # day 1
    (fleet / "source" / "binlog.000004").unlink()
    grown = fleet / "replica1" / "binlog.000004"
    txns = list(iter_transactions(grown))
    grown.write_bytes(grown.read_bytes()[: txns[len(txns) // 2].end_pos])
    (fleet / "replica2" / "binlog.000002").write_bytes((fleet / "source" / "binlog.000002").read_bytes())
    first = {
        "spark": run_pipeline(spark, fleet, out_a, incremental=True, write_report=False),
        "local": run_pipeline(None, fleet, out_b, incremental=True, write_report=False),
    }
    # day 2
    for rel, data in day2.items():
        (fleet / rel).write_bytes(data)
    (fleet / "replica1" / "binlog.000001").unlink()
    second = {
        "spark": run_pipeline(spark, fleet, out_b, incremental=True),
        "local": run_pipeline(None, fleet, out_a, incremental=True),
    }
    reference = run_pipeline(None, fleet, full, write_report=False)
    return {"first": first, "second": second, "reference": reference}


def test_first_run_is_a_full_run(runs):
    first = runs["first"]
    assert first["spark"].incremental is None and first["local"].incremental is None
    assert_same_result(first["spark"], first["local"])


@pytest.mark.parametrize("engine", ["spark", "local"])
def test_only_new_grown_and_rewritten_files_are_scanned(runs, engine):
    second, reference = runs["second"][engine], runs["reference"]
    assert second.engine == engine
    inc = second.incremental
    assert inc["new"] == [["source", "binlog.000004"]]
    assert inc["grown"] == [["replica1", "binlog.000004"]]
    assert [r[:2] for r in inc["rewritten"]] == [["replica2", "binlog.000002"]]
    assert "Previous_gtids changed" in inc["rewritten"][0][2]
    assert inc["gone"] == [["replica1", "binlog.000001"]]
    assert inc["scanned"] == 3 and inc["reused"] == len(reference.files) - 3
    found = {
        (c["check"], c["host"], c["file"])
        for c in second.checks
        if c["check"] in ("file_rewritten", "file_gone")
    }
    assert found == {
        ("file_rewritten", "replica2", "binlog.000002"),
        ("file_gone", "replica1", "binlog.000001"),
    }
    summary = json.loads((second.output / "summary.json").read_text())
    assert summary["incremental"]["scanned"] == 3


@pytest.mark.parametrize("engine", ["spark", "local"])
def test_incremental_result_equals_full_run(runs, engine):
    from gtidkit.pipeline.job import TABLES

    second, reference = runs["second"][engine], runs["reference"]
    assert reference.engine == "local"
    for name in TABLES:
        got, want = table_rows(second.output, name), table_rows(reference.output, name)
        if name == "checks":
            got = [r for r in got if r["check"] not in ("file_rewritten", "file_gone")]
        assert got == want, name
    assert second.hosts == reference.hosts
    assert second.counts["transactions"] == reference.counts["transactions"]


def test_engines_agree_on_the_incremental_run(runs):
    """Day 2 by Spark on the local engine's day 1 and by the local engine on Spark's: the same tables, hosts,
    checks (the rewritten and gone files' included), files and counts."""
    second = runs["second"]
    assert second["spark"].incremental == second["local"].incremental
    assert_same_result(second["spark"], second["local"])
