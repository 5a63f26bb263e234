"""Anomaly checks over the pipeline's tables; every finding is a ``checks`` row (schemas.CHECKS).

Each finding names its host, file and byte offset (the transaction's ``begin_pos``, the Previous_gtids event's
position, or the fault's offset), so a DBA can go straight to it with ``gtidkit binlog show``.

========================== ========= ====================================================================
check                      severity  rule (MySQL source)
========================== ========= ====================================================================
``file_error``             error     the file could not be read to its end (status, error, error_offset)
``chain_break``            error     Previous_gtids(N+1) != Previous_gtids(N) ∪ GTIDs(N) within a series
                                     (WL#7592: a new binlog's Previous_gtids is the executed set at rotation)
``gap``                    warning   a GNO range of one (host, uuid, tag) has a hole (MySQL hands out the
                                     smallest free GNO, formats.md §5.5, so holes mean lost transactions)
``duplicate_gtid``         error     a GTID committed twice on a host, or already in its file's
                                     Previous_gtids (a GTID is executed at most once, WL#3584)
``anonymous_in_gtid_mode`` error     an anonymous transaction between GTID transactions of one series
                                     (gtid_mode=ON forbids them, formats.md §8.3)
``errant``                 error     a GTID a replica has that its source(s) do not (GTID_SUBTRACT(replica,
                                     source), the standard errant-transaction test)
``parallelism``            info      commit groups and average transactions per group of a host (WL#7165)
========================== ========= ====================================================================
"""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from gtidkit.pipeline import schemas

CHECK_COLS = schemas.field_names(schemas.CHECKS)


def _gtid_text(sid: str = "sid", tag: str = "tag", gno: str = "gno") -> F.Column:
    return F.when(F.col(tag) == "", F.concat_ws(":", F.col(sid), F.col(gno).cast("string"))).otherwise(
        F.concat_ws(":", F.col(sid), F.col(tag), F.col(gno).cast("string"))
    )


def file_errors(files: DataFrame) -> DataFrame:
    """``file_error`` for every file whose status is not ``ok`` (offset = the fault's offset)."""
    return files.where(F.col("status") != "ok").select(
        F.lit("file_error").alias("check"),
        F.lit("error").alias("severity"),
        "host",
        "file",
        F.col("error_offset").alias("offset"),
        F.lit(None).cast("string").alias("gtid"),
        F.format_string(
            "%s: %s (good_bytes=%d, bad_bytes=%d of %d)", "status", "error", "good_bytes", "bad_bytes", "size"
        ).alias("detail"),
    )


def duplicate_gtids(transactions: DataFrame, files: DataFrame) -> DataFrame:
    """``duplicate_gtid``: every occurrence of a GTID after its first on the host, and every GTID that its own
    file's Previous_gtids already contains (offset = the repeated transaction's ``begin_pos``)."""
    t = transactions.where(F.col("gno").isNotNull())
    w = Window.partitionBy("host", "sid", "tag", "gno").orderBy("file_index", "begin_pos")
    first_w = w.rowsBetween(Window.unboundedPreceding, Window.currentRow)
    repeated = (
        t.withColumn("_n", F.row_number().over(w))
        .withColumn("_first_file", F.first("file").over(first_w))
        .withColumn("_first_pos", F.first("begin_pos").over(first_w))
        .where(F.col("_n") > 1)
        .select(
            F.lit("duplicate_gtid").alias("check"),
            F.lit("error").alias("severity"),
            "host",
            "file",
            F.col("begin_pos").alias("offset"),
            _gtid_text().alias("gtid"),
            F.format_string("GTID committed again; first at %s:%d", "_first_file", "_first_pos").alias(
                "detail"
            ),
        )
    )
    prev = (
        files.where(F.col("previous_gtids_intervals").isNotNull())
        .select("host", "file", F.explode("previous_gtids_intervals").alias("i"))
        .select(
            "host",
            "file",
            F.col("i.sid").alias("p_sid"),
            F.col("i.tag").alias("p_tag"),
            F.col("i.interval_start").alias("p_start"),
            F.col("i.interval_end").alias("p_end"),
        )
    )
    cond = (
        (t.host == prev.host)
        & (t.file == prev.file)
        & (t.sid == prev.p_sid)
        & (t.tag == prev.p_tag)
        & t.gno.between(prev.p_start, prev.p_end)
    )
    in_prev = t.join(prev, on=cond, how="inner").select(
        F.lit("duplicate_gtid").alias("check"),
        F.lit("error").alias("severity"),
        t.host,
        t.file,
        t.begin_pos.alias("offset"),
        _gtid_text().alias("gtid"),
        F.lit("GTID already in this file's Previous_gtids").alias("detail"),
    )
    return repeated.unionByName(in_prev)


def anonymous_in_gtid_mode(transactions: DataFrame, files: DataFrame) -> DataFrame:
    """``anonymous_in_gtid_mode``: a transaction without a GTID (Anonymous_gtid, or no Gtid event at all) with
    GTID transactions both before and after it in the same series of the same host (a stretch where the server
    ran with gtid_mode=ON)."""
    series = files.select("host", "file", "series")
    t = transactions.join(series, on=["host", "file"], how="left")
    # Both frames grow from the partition start (O(n)); a (1, unboundedFollowing) frame would be recomputed for
    # every row by Spark (UnboundedFollowingWindowFunctionFrame), quadratic on a host's millions of transactions.
    forward = Window.partitionBy("host", "series").orderBy("file_index", "begin_pos")
    backward = Window.partitionBy("host", "series").orderBy(F.desc("file_index"), F.desc("begin_pos"))
    is_gtid = F.col("gno").isNotNull().cast("int")
    before = F.max(is_gtid).over(forward.rowsBetween(Window.unboundedPreceding, -1))
    after = F.max(is_gtid).over(backward.rowsBetween(Window.unboundedPreceding, -1))
    return (
        t.withColumn("_before", before)
        .withColumn("_after", after)
        .where(F.col("gno").isNull() & (F.col("_before") == 1) & (F.col("_after") == 1))
        .select(
            F.lit("anonymous_in_gtid_mode").alias("check"),
            F.lit("error").alias("severity"),
            "host",
            "file",
            F.col("begin_pos").alias("offset"),
            F.lit("ANONYMOUS").alias("gtid"),
            F.when(
                F.col("anonymous"),
                "Anonymous_gtid transaction between GTID transactions (gtid_mode=ON stretch)",
            )
            .otherwise("transaction without a Gtid event between GTID transactions (gtid_mode=ON stretch)")
            .alias("detail"),
        )
    )


def gaps(gtid_executed: DataFrame, transactions: DataFrame, files: DataFrame) -> DataFrame:
    """``gap``: holes between consecutive intervals of one (host, uuid, tag) in the compressed table.

    The offset is that of the first transaction after the hole; for a hole inside Previous_gtids it is the
    Previous_gtids event of the first file whose set shows the interval after the hole.
    """
    w = Window.partitionBy("host", "source_uuid", "tag").orderBy("interval_start")
    holes = (
        gtid_executed.withColumn("_prev_end", F.lag("interval_end").over(w))
        .where(F.col("_prev_end").isNotNull())
        .select(
            "host",
            "source_uuid",
            "tag",
            (F.col("_prev_end") + 1).alias("gap_start"),
            (F.col("interval_start") - 1).alias("gap_end"),
            F.col("interval_start").alias("after"),
        )
    )
    at_txn = transactions.where(F.col("gno").isNotNull()).select(
        "host",
        F.col("sid").alias("source_uuid"),
        "tag",
        F.col("gno").alias("after"),
        F.col("file").alias("t_file"),
        F.col("begin_pos").alias("t_pos"),
        F.col("file_index").alias("t_idx"),
    )
    first_txn = (
        at_txn.withColumn(
            "_n",
            F.row_number().over(
                Window.partitionBy("host", "source_uuid", "tag", "after").orderBy("t_idx", "t_pos")
            ),
        )
        .where(F.col("_n") == 1)
        .drop("_n", "t_idx")
    )
    prev = files.where(F.col("previous_gtids_intervals").isNotNull()).select(
        "host", "file", "file_index", "previous_gtids_pos", F.explode("previous_gtids_intervals").alias("i")
    )
    located = holes.join(first_txn, on=["host", "source_uuid", "tag", "after"], how="left")
    in_prev = (
        located.alias("h")
        .join(
            prev.alias("p"),
            on=(F.col("h.host") == F.col("p.host"))
            & (F.col("h.source_uuid") == F.col("i.sid"))
            & (F.col("h.tag") == F.col("i.tag"))
            & F.col("h.after").between(F.col("i.interval_start"), F.col("i.interval_end")),
            how="left",
        )
        .withColumn(
            "_n",
            F.row_number().over(
                Window.partitionBy("h.host", "h.source_uuid", "h.tag", "h.after").orderBy(
                    F.col("p.file_index")
                )
            ),
        )
        .where(F.col("_n") == 1)
    )
    gtid = F.when(
        F.col("h.tag") == "", F.format_string("%s:%d-%d", "h.source_uuid", "h.gap_start", "h.gap_end")
    ).otherwise(F.format_string("%s:%s:%d-%d", "h.source_uuid", "h.tag", "h.gap_start", "h.gap_end"))
    return in_prev.select(
        F.lit("gap").alias("check"),
        F.lit("warning").alias("severity"),
        F.col("h.host").alias("host"),
        F.coalesce(F.col("h.t_file"), F.col("p.file")).alias("file"),
        F.coalesce(F.col("h.t_pos"), F.col("p.previous_gtids_pos")).alias("offset"),
        F.regexp_replace(gtid, r":(\d+)-\1$", ":$1").alias("gtid"),
        F.format_string(
            "%d missing GNO(s) before %d", F.col("h.gap_end") - F.col("h.gap_start") + 1, "h.after"
        ).alias("detail"),
    )


def locate_gtids(intervals: DataFrame, transactions: DataFrame, check: str, detail: str) -> DataFrame:
    """Rows of ``check`` for every transaction of ``intervals`` (host, source_uuid, tag, interval_start,
    interval_end; inclusive) found in ``transactions`` (offset = its ``begin_pos``)."""
    t = transactions.where(F.col("gno").isNotNull())
    i = intervals.select(
        F.col("host").alias("i_host"),
        F.col("source_uuid").alias("i_sid"),
        F.col("tag").alias("i_tag"),
        F.col("interval_start").alias("i_start"),
        F.col("interval_end").alias("i_end"),
    )
    cond = (
        (F.col("host") == F.col("i_host"))
        & (F.col("sid") == F.col("i_sid"))
        & (F.col("tag") == F.col("i_tag"))
        & F.col("gno").between(F.col("i_start"), F.col("i_end"))
    )
    return t.join(F.broadcast(i), on=cond, how="inner").select(
        F.lit(check).alias("check"),
        F.lit("error").alias("severity"),
        "host",
        "file",
        F.col("begin_pos").alias("offset"),
        _gtid_text().alias("gtid"),
        F.lit(detail).alias("detail"),
    )
