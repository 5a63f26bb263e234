"""Pure DataFrame → DataFrame steps of the pipeline (no I/O; each ends with a ``select`` as its schema contract).

The GTID-state steps follow WL#6559 (mysql.gtid_executed, formats.md §5): a host's executed set is the union of
the Previous_gtids of its binlogs and the GTIDs of the transactions in them, stored as one row per maximal
interval of consecutive GNOs per (host, source_uuid, tag), inclusive ends — the shape MySQL's compression thread
leaves the table in (``Gtid_table_persistor::compress``).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from gtidkit.pipeline import schemas

_TXN_COLS = schemas.field_names(schemas.TRANSACTIONS)
_FILE_COLS = schemas.field_names(schemas.FILES)


def commit_time() -> Column:
    """TIMESTAMP of a transaction: immediate_commit_timestamp (µs, 8.0.1+) or else the header's seconds."""
    micros = F.coalesce(F.col("immediate_commit_timestamp"), F.col("timestamp") * F.lit(1_000_000))
    return F.timestamp_micros(micros)


def transactions_from_scan(scan: DataFrame) -> DataFrame:
    """The ``transactions`` table (schemas.TRANSACTIONS + ``commit_time``) from the ``level=scan`` records."""
    return (
        scan.where(F.col("kind") == "txn")
        .select("txn.*")
        .withColumn("commit_time", commit_time())
        .select(*_TXN_COLS, "commit_time")
    )


def files_from_scan(scan: DataFrame) -> DataFrame:
    """The ``files`` table (schemas.FILES) from the ``level=scan`` records."""
    return scan.where(F.col("kind") == "file").select("file.*").select(*_FILE_COLS)


def merge_intervals(intervals: DataFrame, keys: list[str]) -> DataFrame:
    """Merge overlapping or adjacent closed intervals per ``keys`` (gaps-and-islands with window functions).

    Args:
        intervals: rows with ``keys`` plus ``interval_start`` and ``interval_end`` (inclusive BIGINTs). A
            single GNO is the interval (gno, gno); duplicates and overlaps are allowed.
        keys: the partition columns, e.g. ``["host", "source_uuid", "tag"]``.

    Returns:
        ``keys + [interval_start, interval_end]``, one row per maximal interval (consecutive GNOs merged).

    Notes:
        Sorted by start within each key, a row opens a new island when its start lies beyond the running
        maximum end of all rows before it plus one; the running count of island openings numbers the islands
        and each island collapses to (min start, max end). This generalises the ``gno - row_number()`` trick to
        inputs that mix single GNOs with Previous_gtids intervals.
    """
    order = Window.partitionBy(*keys).orderBy("interval_start", "interval_end")
    before = order.rowsBetween(Window.unboundedPreceding, -1)
    upto = order.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    prev_max = F.max("interval_end").over(before)
    opened = F.when(prev_max.isNull() | (F.col("interval_start") > prev_max + 1), 1).otherwise(0)
    return (
        intervals.withColumn("_open", opened)
        .withColumn("_island", F.sum("_open").over(upto))
        .groupBy(*keys, "_island")
        .agg(F.min("interval_start").alias("interval_start"), F.max("interval_end").alias("interval_end"))
        .select(*keys, "interval_start", "interval_end")
    )


def transaction_gtids(transactions: DataFrame) -> DataFrame:
    """(host, file, source_uuid, tag, interval_start=gno, interval_end=gno) for every GTID transaction."""
    return transactions.where(F.col("gno").isNotNull()).select(
        "host",
        "file",
        F.col("sid").alias("source_uuid"),
        "tag",
        F.col("gno").alias("interval_start"),
        F.col("gno").alias("interval_end"),
    )


def previous_gtids_intervals(files: DataFrame) -> DataFrame:
    """(host, file, file_index, source_uuid, tag, interval_start, interval_end) of every Previous_gtids event."""
    return (
        files.where(F.col("previous_gtids_intervals").isNotNull())
        .select("host", "file", "file_index", F.explode("previous_gtids_intervals").alias("i"))
        .select(
            "host",
            "file",
            "file_index",
            F.col("i.sid").alias("source_uuid"),
            F.col("i.tag").alias("tag"),
            F.col("i.interval_start").alias("interval_start"),
            F.col("i.interval_end").alias("interval_end"),
        )
    )


def gtid_executed(transactions: DataFrame, files: DataFrame) -> DataFrame:
    """The WL#6559 table per host: Previous_gtids ∪ GTIDs in the binlogs, compressed (schemas.GTID_EXECUTED)."""
    keys = ["host", "source_uuid", "tag"]
    rows = (
        transaction_gtids(transactions)
        .select(*keys, "interval_start", "interval_end")
        .unionByName(previous_gtids_intervals(files).select(*keys, "interval_start", "interval_end"))
    )
    return merge_intervals(rows, keys).select(*schemas.field_names(schemas.GTID_EXECUTED))


def file_gtid_intervals(transactions: DataFrame) -> DataFrame:
    """GTIDs contained in each file, compressed: (host, file, source_uuid, tag, interval_start, interval_end)."""
    return merge_intervals(transaction_gtids(transactions), ["host", "file", "source_uuid", "tag"])


def parallelism(transactions: DataFrame) -> DataFrame:
    """Commit groups of the logical clock (WL#7165): transactions of one file sharing ``last_committed``.

    MySQL's multi-threaded applier (``replica_parallel_type=LOGICAL_CLOCK``) may run together the transactions
    whose ``last_committed`` is the same (they committed in one binlog group commit); the counters restart in
    every binlog file, so groups are per (host, file, last_committed). Pre-5.7 transactions (no logical clock)
    are left out. Returns schemas.PARALLELISM.
    """
    return (
        transactions.where(F.col("last_committed").isNotNull() & F.col("sequence_number").isNotNull())
        .groupBy("host", "file", "last_committed")
        .agg(F.count(F.lit(1)).alias("group_size"), F.min("sequence_number").alias("first_sequence_number"))
        .select(*schemas.field_names(schemas.PARALLELISM))
    )


def parallelism_per_host(groups: DataFrame) -> DataFrame:
    """(host, commit_groups, avg_group_size, max_group_size) from :func:`parallelism`."""
    return groups.groupBy("host").agg(
        F.count(F.lit(1)).alias("commit_groups"),
        F.avg("group_size").alias("avg_group_size"),
        F.max("group_size").alias("max_group_size"),
    )
