"""Incremental runs (issue 10): yesterday's output plus today's binlogs equals a full run on today's binlogs.

Day 1 is the generated fleet as it stood a day earlier: ``source`` had not yet written its last binlog (new on
day 2), ``replica1`` was still writing its last one (cut at a transaction boundary: it grew), and a foreign file
sat under ``replica2/binlog.000002`` (rewritten on day 2). On day 2 ``replica1``'s oldest binlog is purged (gone).
Both days run on Spark; the full run on day 2's binlogs is the local engine's (its tables equal Spark's on the same
input, tests/pipeline/test_local_engine.py), one Spark run fewer.
"""

from __future__ import annotations

import json
import shutil

import pytest

from gtidkit.binlog.file import iter_transactions
from tests.pipeline.frames import table_rows

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def runs(spark, fleet_dir, tmp_path_factory):
    from gtidkit.pipeline.job import run_pipeline

    root = tmp_path_factory.mktemp("incremental")
    fleet, out, full = root / "fleet", root / "out", root / "full"
    shutil.copytree(fleet_dir, fleet)
    day2 = {p.relative_to(fleet): p.read_bytes() for p in fleet.rglob("binlog.*")}
    # day 1
    (fleet / "source" / "binlog.000004").unlink()
    grown = fleet / "replica1" / "binlog.000004"
    txns = list(iter_transactions(grown))
    grown.write_bytes(grown.read_bytes()[: txns[len(txns) // 2].end_pos])
    (fleet / "replica2" / "binlog.000002").write_bytes((fleet / "source" / "binlog.000002").read_bytes())
    first = run_pipeline(spark, fleet, out, incremental=True, write_report=False)
    # day 2
    for rel, data in day2.items():
        (fleet / rel).write_bytes(data)
    (fleet / "replica1" / "binlog.000001").unlink()
    second = run_pipeline(spark, fleet, out, incremental=True)
    # the full run by the local engine, whose tables equal Spark's on the same input (test_local_engine)
    reference = run_pipeline(None, fleet, full, write_report=False)
    return first, second, reference


def test_first_run_is_a_full_run(runs):
    first, _, _ = runs
    assert first.incremental is None


def test_only_new_grown_and_rewritten_files_are_scanned(runs):
    _, second, reference = runs
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


def test_incremental_result_equals_full_run(runs):
    from gtidkit.pipeline.job import TABLES

    _, second, reference = runs
    assert (second.engine, reference.engine) == ("spark", "local")
    for name in TABLES:
        got, want = table_rows(second.output, name), table_rows(reference.output, name)
        if name == "checks":
            got = [r for r in got if r["check"] not in ("file_rewritten", "file_gone")]
        assert got == want, name
    assert second.hosts == reference.hosts
    assert second.counts["transactions"] == reference.counts["transactions"]
