"""The ``binlog`` PySpark Data Source: spark.read.format("binlog"), one partition per file, Spark SQL."""

from __future__ import annotations

import pytest

from gtidkit.binlog.file import iter_transactions
from gtidkit.pipeline import schemas
from tests.pipeline.frames import assert_frames_equal

pytestmark = pytest.mark.spark


def test_transactions_one_partition_per_file(spark, fleet_dir, fleet_manifest):
    df = spark.read.format("binlog").load(str(fleet_dir))
    assert df.rdd.getNumPartitions() == sum(len(h.files) for h in fleet_manifest.hosts)
    counts = {r["host"]: r["n"] for r in df.groupBy("host").count().withColumnRenamed("count", "n").collect()}
    assert counts == {h.name: h.transactions for h in fleet_manifest.hosts}


def test_transactions_equal_plain_python_reader(spark, fleet_dir):
    host = "replica1"
    expected = []
    for f in sorted((fleet_dir / host).glob("binlog.[0-9]*")):
        for t in iter_transactions(f):
            g = t.gtid
            expected.append(
                (
                    host,
                    f.name,
                    t.begin_pos,
                    t.end_pos,
                    None if g is None else str(g.sid),
                    None if g is None else g.tag,
                    None if g is None else g.gno,
                    t.last_committed,
                    t.sequence_number,
                    t.immediate_commit_timestamp,
                )
            )
    cols = [
        "host",
        "file",
        "begin_pos",
        "end_pos",
        "sid",
        "tag",
        "gno",
        "last_committed",
        "sequence_number",
        "immediate_commit_timestamp",
    ]
    got = (
        spark.read.format("binlog").option("level", "transactions").load(str(fleet_dir / host)).select(*cols)
    )
    # a host directory given directly is one host named after it
    assert_frames_equal(got, spark.createDataFrame(expected, got.schema))


def test_events_level_and_sql(spark, fleet_dir, fleet_manifest):
    info = fleet_manifest.host("source").files[0]
    events = spark.read.format("binlog").option("level", "events").load(str(fleet_dir / "source" / info.name))
    rows = events.orderBy("pos").collect()
    assert len(rows) == info.events
    assert [r["type"] for r in rows[:2]] == ["FORMAT_DESCRIPTION_EVENT", "PREVIOUS_GTIDS_LOG_EVENT"]
    assert rows[0]["pos"] == 4 and rows[-1]["end_pos"] == info.size
    events.createOrReplaceTempView("source_events")
    n_gtid = spark.sql("SELECT count(*) AS n FROM source_events WHERE type = 'GTID_LOG_EVENT'").first()["n"]
    assert n_gtid == info.transactions - info.anonymous_transactions


def test_files_level(spark, fleet_dir, fleet_manifest):
    files = spark.read.format("binlog").option("level", "files").load(str(fleet_dir)).collect()
    assert sorted((f["host"], f["file"], f["size"]) for f in files) == sorted(
        (h.name, f.name, f.size) for h in fleet_manifest.hosts for f in h.files
    )


def test_bad_level_is_rejected(spark, fleet_dir):
    with pytest.raises(Exception, match="level must be one of"):
        spark.read.format("binlog").option("level", "rows").load(str(fleet_dir)).collect()


def test_pack_files_sizes_partitions_like_spark() -> None:
    from gtidkit.pipeline.datasource import OPEN_COST_BYTES, pack_files
    from gtidkit.pipeline.layout import FileSpec

    mib = 1 << 20
    files = [
        FileSpec("h", f"/x/b.{i}", f"b.{i}", "b", i, i, s * mib)
        for i, s in enumerate([50, 50, 50, 300, 10, 10])
    ]
    assert pack_files(files, 0, 4) == [[f] for f in files]  # unset: one partition per file
    parts = pack_files(files, 128 * mib, 1)
    assert [[f.file for f in p] for p in parts] == [["b.0", "b.1"], ["b.2"], ["b.3"], ["b.4", "b.5"]]
    assert [f for p in parts for f in p] == files  # listing order kept, nothing split or dropped
    # parallelism wins over packing: total / min_partitions below the cap
    small = files[:3] + files[4:]
    target = sum(f.size + OPEN_COST_BYTES for f in small) // 8
    assert all(
        sum(f.size + OPEN_COST_BYTES for f in p) <= max(target, p[0].size + OPEN_COST_BYTES)
        for p in pack_files(small, 128 * mib, 8)
    )
    assert len(pack_files(small, 128 * mib, 8)) == len(small)


def test_packed_partitions_read_the_same_rows(spark, fleet_dir, fleet_manifest):
    """maxPartitionBytes packs the fleet's small files into fewer tasks; the rows are the same."""
    plain = spark.read.format("binlog").load(str(fleet_dir))
    packed = spark.read.format("binlog").option("maxPartitionBytes", str(64 << 20)).load(str(fleet_dir))
    n_files = sum(len(h.files) for h in fleet_manifest.hosts)
    assert packed.rdd.getNumPartitions() < n_files == plain.rdd.getNumPartitions()
    assert_frames_equal(packed, plain)
    files = spark.read.format("binlog").option("level", "files").option("maxPartitionBytes", str(64 << 20))
    assert files.load(str(fleet_dir)).count() == n_files


@pytest.mark.parametrize("level", ["transactions", "files", "scan"])
def test_arrow_schema_is_sparks(spark, level, fleet_dir) -> None:
    """The Arrow form's schema (tests/pipeline/test_arrow_scan.py) is the one Spark derives from the DDL: Spark
    rejects batches whose schema differs in any way (DATA_SOURCE_RETURN_SCHEMA_MISMATCH)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    df = spark.read.format("binlog").option("level", level).load(str(fleet_dir / "source"))
    ddl = {"transactions": schemas.TRANSACTIONS, "files": schemas.FILES, "scan": schemas.SCAN}[level]
    assert to_arrow_schema(df.schema, timezone="UTC").equals(schemas.arrow_schema(ddl))
