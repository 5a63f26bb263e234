"""The pipeline on a generated fleet: every anomaly the generator wrote is found where the manifest says."""

from __future__ import annotations

import base64
import re

import pytest

from gtidkit.binlog.file import iter_transactions, scan_file
from gtidkit.gtid import GtidSet
from gtidkit.pipeline import schemas
from gtidkit.pipeline.demo import ANOMALY_CHECKS, match_expected
from tests.pipeline.frames import assert_frames_equal, assert_schemas_equal

pytestmark = pytest.mark.spark


def test_every_expected_anomaly_is_found(fleet_result, fleet_manifest):
    kinds = {a["type"] for a in fleet_manifest.anomalies}
    assert kinds == set(ANOMALY_CHECKS)  # the fleet exercises every check the generator can seed
    pairs = match_expected(fleet_manifest.anomalies, fleet_result.checks)
    missed = [a for a, hit in pairs if hit is None]
    assert not missed, missed


def test_no_unexpected_errors(fleet_result, fleet_manifest):
    expected = {(ANOMALY_CHECKS[a["type"]], a["host"], a["file"], a["pos"]) for a in fleet_manifest.anomalies}
    errors = {
        (c["check"], c["host"], c["file"], c["offset"])
        for c in fleet_result.checks
        if c["severity"] != "info"
    }
    assert errors == expected


def test_topology_inferred_from_server_uuids(fleet_result, fleet_manifest):
    assert fleet_result.topology_origin == "inferred"
    assert fleet_result.topology == {r: [s] for r, s in fleet_manifest.topology.items()}
    for h in fleet_manifest.hosts:
        got = fleet_result.host(h.name)
        assert got["source_host"] == h.source
        if h.role == "source" or h.name in {a["host"] for a in fleet_manifest.anomalies_of("errant_gtid")}:
            assert got["server_uuid"] == h.server_uuid  # hosts with local writes reveal their UUID


def test_host_gtid_state_matches_manifest(fleet_result, fleet_manifest):
    for h in fleet_manifest.hosts:
        got = fleet_result.host(h.name)
        assert GtidSet.parse(got["gtid_executed_binlog"]) == GtidSet.parse(h.gtid_executed), h.name
        assert GtidSet.parse(got["gtid_purged_binlog"]) == GtidSet.parse(h.gtid_purged), h.name
        assert got["transactions"] == h.transactions
        assert got["files"] == len(h.files)


def test_gtid_executed_table_equals_plain_python(spark, fleet_result, fleet_dir):
    """The window-function compression against GtidSet built from the binlogs without Spark."""
    expected = []
    for host_dir in sorted(p for p in fleet_dir.iterdir() if p.is_dir()):
        s = GtidSet()
        for f in sorted(host_dir.glob("binlog.[0-9]*")):
            scan = scan_file(f)
            s = (
                s
                | (scan.previous_gtids or GtidSet())
                | GtidSet.from_gtids(t.gtid for t in iter_transactions(f) if t.gtid is not None)
            )
        expected += [(host_dir.name, str(sid), tag, a, b) for sid, tag, a, b in s.intervals()]
    got = spark.read.parquet(str(fleet_result.output / "gtid_executed"))
    assert_schemas_equal(got.schema, spark.createDataFrame([], schemas.GTID_EXECUTED).schema)
    assert_frames_equal(got, spark.createDataFrame(expected, schemas.GTID_EXECUTED))


def test_files_table_matches_manifest(fleet_result, fleet_manifest):
    files = {(f["host"], f["file"]): f for f in fleet_result.files}
    assert len(files) == sum(len(h.files) for h in fleet_manifest.hosts)
    for h in fleet_manifest.hosts:
        for info in h.files:
            got = files[(h.name, info.name)]
            assert (
                got["status"] == "ok"
                and got["good_bytes"] == got["size"] == info.size
                and got["bad_bytes"] == 0
            )
            assert GtidSet.parse(got["previous_gtids"]) == GtidSet.parse(info.previous_gtids)
            assert (got["transactions"], got["first_gtid"], got["last_gtid"]) == (
                info.transactions,
                info.first_gtid,
                info.last_gtid,
            )
            assert got["ends_with"] == info.ends_with and got["in_use"] == info.in_use


def test_parquet_tables_have_documented_schemas(spark, fleet_result):
    for name, ddl in [
        ("files", schemas.FILES),
        ("hosts", schemas.HOSTS),
        ("checks", schemas.CHECKS),
        ("parallelism", schemas.PARALLELISM),
    ]:
        got = spark.read.parquet(str(fleet_result.output / name)).schema
        assert_schemas_equal(got, spark.createDataFrame([], ddl).schema)
    txn = spark.read.parquet(str(fleet_result.output / "transactions"))
    assert txn.columns == schemas.field_names(schemas.TRANSACTIONS) + ["commit_time"]
    assert txn.count() == fleet_result.counts["transactions"]


def test_parallelism_reported_per_host(fleet_result, fleet_manifest):
    par = {c["host"]: c for c in fleet_result.checks_of("parallelism")}
    assert set(par) == {h.name for h in fleet_manifest.hosts}
    for h in fleet_result.hosts:
        assert h["commit_groups"] > 0 and h["avg_group_size"] >= 1.0
        assert h["commit_groups"] * h["avg_group_size"] == pytest.approx(
            h["gtid_transactions"] + h["anonymous_transactions"]
        )


def test_report_html_embeds_three_plots(fleet_result):
    html = (fleet_result.output / "report.html").read_text()
    pngs = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert len(pngs) == 3
    assert all(base64.b64decode(p)[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    assert (fleet_result.output / "summary.json").exists()
