"""The pipeline job: binlogs of a fleet → Parquet tables, checks and a report (also the spark-submit entry).

Stages (one Spark job each, the scan being the only one that touches binlogs):

1. **scan** — ``spark.read.format("binlog").option("level", "scan")``: one task per binlog file, streamed by
   :mod:`gtidkit.pipeline.scan`; the records are persisted so that the file is read exactly once.
2. **tables** — ``transactions``, ``files``, ``gtid_executed`` (window-function compression) and
   ``parallelism``, written as Parquet under ``OUTPUT/<table>/``.
3. **state** — on the driver, over small collected rows: per-host GTID_EXECUTED/GTID_PURGED (WL#6559 §5),
   Previous_gtids chain checks, topology (given or inferred) and errant sets; then ``hosts`` and ``checks``.
4. **report** — ``OUTPUT/summary.json`` and ``OUTPUT/report.html`` (see :mod:`gtidkit.pipeline.report`).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from gtidkit.gtid import GtidSet
from gtidkit.pipeline import checks as C
from gtidkit.pipeline import gtid_state as S
from gtidkit.pipeline import schemas
from gtidkit.pipeline import transforms as T
from gtidkit.pipeline.layout import FileSpec, Layout, discover

TABLES = ("transactions", "files", "gtid_executed", "hosts", "checks", "parallelism")


@dataclass(slots=True)
class PipelineResult:
    """What one run produced: where, how long, and the small tables the report shows.

    Attributes:
        output: the output directory (Parquet tables in sub-directories named after :data:`TABLES`): a ``Path``
            for a local output, the URI text for remote storage.
        layout: the discovered input (files per host, skipped files).
        hosts: ``hosts`` rows as dicts (schemas.HOSTS).
        checks: ``checks`` rows as dicts (schemas.CHECKS), errors first.
        files: ``files`` rows as dicts (without the interval arrays).
        counts: row count of every written table.
        topology: replica → sources used for the errant check, and whether it was ``given`` or ``inferred``.
        timings: seconds per stage.
        activity: (host, bucket start, transactions) rows for the report's plot, ordered by host and time; the
            bucket (``activity_bucket``: minute, hour, day or week) is chosen from the commit-time span
            (:func:`gtidkit.pipeline.report.bucket_for_span`) so that years of binlogs stay a few thousand rows.
        group_sizes: (host, group_size, groups) rows for the parallelism histogram.
        storage_options: the filesystem options used (for writing the report).
        incremental: what an incremental run scanned and reused (:meth:`Plan.summary`), None for a full run.
        engine: ``spark`` or ``local`` (:mod:`gtidkit.pipeline.local`), the engine that computed the tables.
    """

    output: Path | str
    layout: Layout
    hosts: list[dict]
    checks: list[dict]
    files: list[dict]
    counts: dict[str, int]
    topology: dict[str, list[str]]
    topology_origin: str
    timings: dict[str, float] = field(default_factory=dict)
    activity: list[tuple] = field(default_factory=list)
    activity_bucket: str = "minute"
    group_sizes: list[tuple] = field(default_factory=list)
    storage_options: dict = field(default_factory=dict, repr=False)
    incremental: dict | None = None
    engine: str = "spark"

    def output_child(self, name: str) -> str:
        """Path or URI of ``name`` in the output directory (``report.html``, ``checks``...)."""
        if isinstance(self.output, Path):
            return str(self.output / name)
        return f"{self.output.rstrip('/')}/{name}"

    def checks_of(self, check: str) -> list[dict]:
        """The findings of one check name."""
        return [c for c in self.checks if c["check"] == check]

    def host(self, name: str) -> dict:
        """The ``hosts`` row of one host. Raises ``KeyError`` if absent."""
        for h in self.hosts:
            if h["host"] == name:
                return h
        raise KeyError(name)


#: Target bytes of binlog per scan task (Spark's ``spark.sql.files.maxPartitionBytes`` default).
SCAN_PARTITION_BYTES = 128 << 20


def read_scan(
    spark: SparkSession,
    input_path: str | Path,
    *,
    verify_checksum: bool = True,
    storage_options: dict | None = None,
    include: list[list[str]] | None = None,
) -> DataFrame:
    """The ``level=scan`` DataFrame of the binlog data source (``include``: only those ``[host, file]`` pairs).

    Small files are packed into partitions of up to :data:`SCAN_PARTITION_BYTES` while keeping at least the
    context's default parallelism (``datasource.pack_files``); a file is never split."""
    reader = (
        spark.read.format("binlog")
        .option("level", "scan")
        .option("verifyChecksum", str(verify_checksum).lower())
        .option("maxPartitionBytes", str(SCAN_PARTITION_BYTES))
        .option("minPartitions", str(spark.sparkContext.defaultParallelism))
        .options(**(storage_options or {}))
    )
    if include is not None:
        reader = reader.option("include", json.dumps(include))
    return reader.load(str(input_path))


def read_table(spark: SparkSession, uri: str, ddl: str, storage_options: dict | None = None) -> DataFrame:
    """A Parquet table the job wrote: Spark's reader for a local path, ``gtidkit_parquet`` (pyarrow.fs) for
    remote storage."""
    from gtidkit.pipeline import storage

    if not storage.is_remote(uri):
        return spark.read.schema(ddl).parquet(storage.resolve(uri).path)
    return spark.read.format("gtidkit_parquet").schema(ddl).options(**(storage_options or {})).load(uri)


def previous_files(output: str, storage_options: dict | None = None) -> list[dict] | None:
    """The ``files`` rows of a previous run into ``output`` (host, file, size, previous_gtids, status), or None
    when there is none."""
    import pyarrow.dataset as ds
    import pyarrow.fs as pafs

    from gtidkit.pipeline import storage

    loc = storage.resolve(storage.resolve(output, storage_options).child("files"), storage_options)
    if storage.info(loc).type != pafs.FileType.Directory:
        return None
    try:
        table = ds.dataset(
            loc.path, filesystem=loc.fs, format="parquet", exclude_invalid_files=True
        ).to_table(columns=["host", "file", "size", "previous_gtids", "status"])
    except Exception as err:  # pyarrow's ArrowInvalid & co.: an unreadable previous output
        raise storage.StorageError(f"{loc.uri}: previous files table unreadable: {err}") from err
    return table.to_pylist()


def write_parquet(df: DataFrame, uri: str, storage_options: dict | None = None) -> int:
    """Write ``df`` as a Parquet directory at ``uri`` (replacing it).

    A local path (or ``file://``) goes through Spark's own writer. Remote storage (``s3://``, ``s3a://``,
    ``gs://``, ``hdfs://``) is written by the executors themselves through ``pyarrow.fs``: each partition
    streams its Arrow batches (``mapInArrow``) into ``part-NNNNN.parquet`` with ``pyarrow.parquet`` — no
    hadoop-aws jars, nothing staged on the driver. Part names follow the partition id, so a retried task
    overwrites its own part; there is no commit protocol (a failed job leaves a partial directory, replaced by
    the next run).

    Returns:
        Rows written (remote), or -1 (local: Spark does not report it).

    Raises:
        gtidkit.pipeline.storage.StorageError: the storage refused (names the URI).
    """
    from gtidkit.pipeline import storage

    if not storage.is_remote(uri):
        df.write.mode("overwrite").parquet(storage.resolve(uri).path)
        return -1
    storage.delete_tree(uri, storage_options)
    opts = dict(storage_options or {})

    def write_part(batches):
        """Executor side: this partition's batches → one Parquet file on the remote filesystem."""
        import pyarrow as pa
        import pyarrow.parquet as pq
        from pyspark import TaskContext

        from gtidkit.pipeline import storage as st

        ctx = TaskContext.get()
        part = ctx.partitionId() if ctx is not None else 0
        loc = st.resolve(f"{uri.rstrip('/')}/part-{part:05d}.parquet", opts)
        writer = None
        n = 0
        try:
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                if writer is None:
                    writer = pq.ParquetWriter(loc.path, batch.schema, filesystem=loc.fs)
                writer.write_batch(batch)
                n += batch.num_rows
        except OSError as err:
            raise st.StorageError(f"{loc.uri}: {err}") from err
        finally:
            if writer is not None:
                writer.close()
        yield pa.RecordBatch.from_pydict({"rows": [n]})

    written = sum(r["rows"] for r in df.mapInArrow(write_part, "rows BIGINT").collect())
    if written == 0:  # keep the table readable: one empty part with the schema
        import pyarrow as pa
        import pyarrow.parquet as pq
        from pyspark.sql.pandas.types import to_arrow_schema

        schema = to_arrow_schema(df.schema, timezone="UTC")
        loc = storage.resolve(f"{uri.rstrip('/')}/part-00000.parquet", opts)
        pq.write_table(pa.Table.from_batches([], schema=schema), loc.path, filesystem=loc.fs)
    return written


def _parallelism_stats(group_sizes: list[tuple]) -> dict[str, tuple[int, float, int]]:
    """host → (commit groups, average transactions per group, largest group) from (host, size, groups) rows."""
    acc: dict[str, list[int]] = {}
    for host, size, n in group_sizes:
        a = acc.setdefault(host, [0, 0, 0])
        a[0] += int(n)
        a[1] += int(size) * int(n)
        a[2] = max(a[2], int(size))
    return {h: (g, total / g, biggest) for h, (g, total, biggest) in acc.items() if g}


@dataclass(slots=True)
class Facts:
    """What the driver-side steps need from the big tables (small, collected).

    Attributes:
        files: ``files`` rows as dicts (schemas.FILES, ``previous_gtids_intervals`` as a list of dicts).
        file_gtids: GTIDs contained in each file, compressed: dicts (host, file, source_uuid, tag,
            interval_start, interval_end).
        gtid_executed: the ``gtid_executed`` rows (dicts of schemas.GTID_EXECUTED).
        sid_stats: per (host, sid): n, local_n, anon_n, first_commit_time, last_commit_time.
        group_sizes: (host, group_size, groups) ordered by host, group_size.
    """

    files: list[dict]
    file_gtids: list[dict]
    gtid_executed: list[dict]
    sid_stats: list[dict]
    group_sizes: list[tuple]


class SparkEngine:
    """The job's big steps as Spark DataFrames (:mod:`transforms`, :mod:`checks`), for any input size."""

    name = "spark"

    def __init__(self, spark: SparkSession, sopts: dict, out_loc: Any, verify_checksum: bool) -> None:
        self.spark = spark
        self.sopts = sopts
        self.out_loc = out_loc
        self.verify_checksum = verify_checksum

    def load(self, input_path: str | Path, plan: Any) -> dict[str, float]:
        """Scan the files (all, or the plan's), add the previous run's rows of unchanged files; returns timings
        extras (``scan_cpu``)."""
        from gtidkit.pipeline.session import process_tree_cpu

        spark, sopts, out_loc = self.spark, self.sopts, self.out_loc
        extra: dict[str, float] = {}
        cpu0 = process_tree_cpu()
        include = None if plan is None else [[f.host, f.file] for f in plan.scan]
        self.scan = read_scan(
            spark, input_path, verify_checksum=self.verify_checksum, storage_options=sopts, include=include
        ).persist(StorageLevel.MEMORY_AND_DISK)
        self.scan.count()
        cpu1 = process_tree_cpu()
        if cpu0 is not None and cpu1 is not None:
            extra["scan_cpu"] = cpu1 - cpu0  # driver + JVM + Python workers (local mode: the whole scan)
        transactions = T.transactions_from_scan(self.scan)
        files = T.files_from_scan(self.scan)
        if plan is not None and plan.reuse:
            # unchanged files: their rows from the previous output, file_index renumbered from today's listing;
            # materialised (localCheckpoint) before the tables they come from are overwritten below
            index = F.broadcast(
                spark.createDataFrame(
                    [(f.host, f.file, f.file_index) for f in plan.reuse],
                    "host STRING, file STRING, new_index INT",
                )
            )

            def reused(df: DataFrame, cols: list[str]) -> DataFrame:
                return (
                    df.join(index, on=["host", "file"], how="inner")
                    .withColumn("file_index", F.col("new_index"))
                    .select(*cols)
                )

            old_t = read_table(
                spark, out_loc.child("transactions"), schemas.TRANSACTIONS + ", commit_time TIMESTAMP", sopts
            )
            old_f = read_table(spark, out_loc.child("files"), schemas.FILES, sopts)
            transactions = transactions.unionByName(reused(old_t, transactions.columns)).localCheckpoint(
                eager=True
            )
            files = files.unionByName(reused(old_f, files.columns)).localCheckpoint(eager=True)
        self.transactions, self.files = transactions, files
        return extra

    def _write(self, df: DataFrame, name: str) -> None:
        write_parquet(df, self.out_loc.child(name), self.sopts)

    def tables(self) -> Facts:
        """Write transactions, files, gtid_executed and parallelism; collect the :class:`Facts`."""
        transactions, files = self.transactions, self.files
        self._write(transactions, "transactions")
        self._write(files, "files")
        self.ge = T.gtid_executed(transactions, files).persist()
        self._write(self.ge.orderBy("host", "source_uuid", "tag", "interval_start"), "gtid_executed")
        self.groups = T.parallelism(transactions).persist()
        self._write(self.groups, "parallelism")
        # One pass for every per-(host, sid) count: totals, locally originated (Gtid event server_id == the
        # FDE's, which MySQL keeps from the originating server on replicated events), anonymous, commit times.
        fde_ids = F.broadcast(files.select("host", "file", F.col("server_id").alias("fde_server_id")))
        sid_stats = (
            transactions.join(fde_ids, on=["host", "file"], how="left")
            .groupBy("host", "sid")
            .agg(
                F.count(F.lit(1)).alias("n"),
                F.sum((F.col("server_id") == F.col("fde_server_id")).cast("int")).alias("local_n"),
                F.sum(F.col("anonymous").cast("int")).alias("anon_n"),
                F.min("commit_time").alias("first_commit_time"),
                F.max("commit_time").alias("last_commit_time"),
            )
            .collect()
        )
        group_sizes = [
            (r["host"], r["group_size"], r["n"])
            for r in self.groups.groupBy("host", "group_size")
            .agg(F.count(F.lit(1)).alias("n"))
            .orderBy("host", "group_size")
            .collect()
        ]
        return Facts(
            files=[r.asDict(recursive=True) for r in files.collect()],
            file_gtids=[r.asDict() for r in T.file_gtid_intervals(transactions).collect()],
            gtid_executed=[r.asDict() for r in self.ge.collect()],
            sid_stats=[r.asDict() for r in sid_stats],
            group_sizes=group_sizes,
        )

    def table_checks(self, errant: dict[str, GtidSet]) -> list[dict]:
        """The checks computed over the big tables (file errors, duplicates, anonymous, gaps, located errant
        GTIDs)."""
        rows = [
            (host, str(sid), tag, start, end)
            for host, s in errant.items()
            for sid, tag, start, end in s.intervals()
        ]
        located = C.locate_gtids(
            self.spark.createDataFrame(rows, schemas.GTID_EXECUTED),
            self.transactions,
            "errant",
            ERRANT_DETAIL,
        )
        t, f = self.transactions, self.files
        df = (
            C.file_errors(f)
            .unionByName(C.duplicate_gtids(t, f))
            .unionByName(C.anonymous_in_gtid_mode(t, f))
            .unionByName(C.gaps(self.ge, t, f))
            .unionByName(located)
        )
        return [r.asDict() for r in df.collect()]

    def write_rows(self, name: str, rows: list[tuple], ddl: str) -> None:
        """Write small driver-built rows (tuples in ``ddl`` order) as the table ``name``."""
        self._write(self.spark.createDataFrame(rows, ddl), name)

    def activity(self, bucket_s: int) -> list[tuple]:
        """(host, bucket start, transactions) ordered by host, bucket: commit times floored to ``bucket_s``
        seconds since the epoch (UTC)."""
        bucket_us = bucket_s * 1_000_000
        start = F.timestamp_micros(F.floor(F.unix_micros("commit_time") / bucket_us) * bucket_us)
        return [
            (r["host"], r["bucket"], r["n"])
            for r in self.transactions.groupBy("host", start.alias("bucket"))
            .agg(F.count(F.lit(1)).alias("n"))
            .orderBy("host", "bucket")
            .collect()
        ]

    def release(self) -> None:
        """Unpersist the cached DataFrames."""
        for df in ("scan", "ge", "groups"):
            if hasattr(self, df):
                getattr(self, df).unpersist()


class LocalEngine:
    """The same steps in plain Python (:mod:`gtidkit.pipeline.local`): no JVM, for small inputs."""

    name = "local"

    def __init__(
        self,
        sopts: dict,
        out_loc: Any,
        verify_checksum: bool,
        on_file: Callable[[FileSpec], None] | None = None,
    ) -> None:
        self.sopts = sopts
        self.out_loc = out_loc
        self.verify_checksum = verify_checksum
        self.on_file = on_file

    def load(self, layout: Layout, plan: Any) -> dict[str, float]:
        """Scan the files (all, or the plan's) and add the previous run's rows of unchanged files."""
        from gtidkit.pipeline import local as L

        specs = layout.files if plan is None else plan.scan
        self.transactions, self.files = L.scan_files(
            specs, verify_checksum=self.verify_checksum, storage_options=self.sopts, on_file=self.on_file
        )
        if plan is not None and plan.reuse:
            index = {(f.host, f.file): f.file_index for f in plan.reuse}
            for name, ddl, into in (
                ("transactions", schemas.TRANSACTIONS + ", commit_time TIMESTAMP", self.transactions),
                ("files", schemas.FILES, self.files),
            ):
                for r in L.read_rows(self.out_loc.child(name), ddl, self.sopts):
                    new_index = index.get((r["host"], r["file"]))
                    if new_index is not None:
                        r["file_index"] = new_index
                        into.append(r)
        return {}

    def tables(self) -> Facts:
        """Write transactions, files, gtid_executed and parallelism; return the :class:`Facts`."""
        from gtidkit.pipeline import local as L

        t, f = self.transactions, self.files
        self.write_rows("transactions", t, schemas.TRANSACTIONS + ", commit_time TIMESTAMP")
        self.write_rows("files", f, schemas.FILES)
        self.ge = L.gtid_executed(t, f)
        self.write_rows("gtid_executed", self.ge, schemas.GTID_EXECUTED)
        groups = L.parallelism(t)
        self.write_rows("parallelism", groups, schemas.PARALLELISM)
        sizes: dict[tuple, int] = defaultdict(int)
        for host, _file, _lc, size, _first in groups:
            sizes[(host, size)] += 1
        ge_cols = schemas.field_names(schemas.GTID_EXECUTED)
        return Facts(
            files=f,
            file_gtids=L.file_gtid_intervals(t),
            gtid_executed=[dict(zip(ge_cols, r)) for r in self.ge],
            sid_stats=L.sid_stats(t, f),
            group_sizes=[(h, s, n) for (h, s), n in sorted(sizes.items())],
        )

    def table_checks(self, errant: dict[str, GtidSet]) -> list[dict]:
        """As :meth:`SparkEngine.table_checks`."""
        from gtidkit.pipeline import local as L

        t, f = self.transactions, self.files
        rows = [
            (host, str(sid), tag, start, end)
            for host, s in errant.items()
            for sid, tag, start, end in s.intervals()
        ]
        return (
            L.file_errors(f)
            + L.duplicate_gtids(t, f)
            + L.anonymous_in_gtid_mode(t, f)
            + L.gaps(self.ge, t, f)
            + L.locate_gtids(rows, t, "errant", ERRANT_DETAIL)
        )

    def write_rows(self, name: str, rows: list, ddl: str) -> None:
        """Write rows (dicts or tuples in ``ddl`` order) as the table ``name``."""
        from gtidkit.pipeline import local as L

        L.write_table(rows, ddl, self.out_loc.child(name), self.sopts)

    def activity(self, bucket_s: int) -> list[tuple]:
        """As :meth:`SparkEngine.activity`."""
        from gtidkit.pipeline import local as L

        return L.activity(self.transactions, bucket_s)

    def release(self) -> None:
        """Drop the rows."""
        self.transactions = self.files = []


ERRANT_DETAIL = "GTID not executed on the replication source (GTID_SUBTRACT(replica, source))"


def _errant_from_previous_gtids(
    errant: dict[str, GtidSet], files: list[S.FileFacts], file_gtids: dict[tuple[str, str], GtidSet]
) -> list[tuple]:
    """Errant GTIDs only seen in a Previous_gtids set (their binlogs are purged): one check per host, pointing at
    the oldest file whose Previous_gtids holds them."""
    extra = []
    in_files: dict[str, GtidSet] = {}
    for (host, _file), s in file_gtids.items():
        in_files[host] = in_files.get(host, GtidSet()) | s
    for host, s in errant.items():
        rest = s - in_files.get(host, GtidSet())
        if not rest:
            continue
        holder = next(
            (
                f
                for f in sorted(files, key=lambda f: f.file_index)
                if f.host == host and f.previous_gtids is not None and f.previous_gtids & rest
            ),
            None,
        )
        extra.append(
            S.check_row(
                "errant",
                "error",
                host,
                holder.file if holder else None,
                holder.previous_gtids_pos if holder else None,
                str(rest),
                "errant GTIDs known only from Previous_gtids (their binlogs are purged)",
            )
        )
    return extra


#: ``--engine auto`` runs without Spark when the input is at most this many bytes.
LOCAL_MAX_BYTES = 64 << 20


def choose_engine(engine: str, layout: Layout, local_max_bytes: int = LOCAL_MAX_BYTES) -> str:
    """``spark`` or ``local`` for ``--engine auto|spark|local``: auto picks local for an input of at most
    ``local_max_bytes`` bytes (both give the same tables; the local one spares a JVM's start, ~15 s).

    Raises:
        ValueError: an unknown engine name.
    """
    if engine not in ("auto", "spark", "local"):
        raise ValueError(f"engine must be auto, spark or local, not {engine}")
    if engine != "auto":
        return engine
    return "local" if layout.total_bytes <= local_max_bytes else "spark"


def resolve_topology(topology: str | Path | dict | None) -> dict[str, list[str]] | None:
    """The topology argument of :func:`run_pipeline` as replica → sources (None: infer).

    Raises:
        ValueError: malformed topology file.
    """
    if topology is None:
        return None
    if isinstance(topology, dict):
        return {k: ([v] if isinstance(v, str) else list(v)) for k, v in topology.items()}
    return S.load_topology(topology)


def run_pipeline(
    spark: SparkSession | None,
    input_path: str | Path,
    output: str | Path,
    *,
    topology: str | Path | dict[str, list[str]] | None = None,
    verify_checksum: bool = True,
    on_stage: Callable[[str], None] | None = None,
    write_report: bool = True,
    storage_options: dict | None = None,
    incremental: bool = False,
    layout: Layout | None = None,
    on_file: Callable[[FileSpec], None] | None = None,
    on_scan: Callable[[list[FileSpec]], None] | None = None,
) -> PipelineResult:
    """Run the whole pipeline on a fleet of binlogs.

    Args:
        spark: the session (see :func:`gtidkit.pipeline.session.build_session`), or None to run the same
            transforms in plain Python (:mod:`gtidkit.pipeline.local`; same tables, no JVM).
        input_path: fleet directory (one sub-directory per host) or JSON mapping file host → files; a local
            path or a ``file://``/``s3://``/``s3a://``/``gs://``/``hdfs://`` URI.
        output: directory for the Parquet tables, ``summary.json`` and ``report.html`` (tables are overwritten);
            a local path or a URI as for ``input_path`` (see :func:`write_parquet` for remote outputs).
        storage_options: filesystem options for remote URIs (``fs.s3a.endpoint``, ``fs.s3a.access.key``...; see
            :mod:`gtidkit.pipeline.storage`).
        incremental: reuse the rows of unchanged files from a previous run into ``output`` and scan only new,
            grown or rewritten ones (see :mod:`gtidkit.pipeline.incremental`); a full run when there is none.
        topology: replica → source(s), as a JSON file path or a dict; None infers it from server UUIDs.
        verify_checksum: verify CRC32 footers.
        on_stage: called with each stage's name as it starts (the CLI drives its progress display with it).
        write_report: write ``report.html`` (matplotlib) and ``summary.json``.
        layout: the input's listing when the caller already made it (:func:`gtidkit.pipeline.layout.discover`).
        on_file: called after each file is scanned (local engine only; Spark reports tasks instead).
        on_scan: called once with the files the scan reads (all, or an incremental run's new and changed ones).

    Returns:
        A :class:`PipelineResult`.

    Raises:
        gtidkit.pipeline.layout.LayoutError: no binlog under ``input_path``.
        gtidkit.pipeline.storage.StorageError: remote storage refused (missing bucket or key, bad credentials).
        ValueError: malformed topology file.
    """
    from gtidkit.pipeline import storage

    stage = on_stage or (lambda _name: None)
    timings: dict[str, float] = {}
    sopts = storage.storage_options(storage_options)
    out_loc = storage.resolve(output, sopts)
    out: Path | str = Path(out_loc.path) if out_loc.local else out_loc.uri
    if out_loc.local:
        Path(out_loc.path).mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()

    stage("discover")
    if layout is None:
        layout = discover(input_path, sopts)
    given = resolve_topology(topology)

    plan = None
    if incremental:
        from gtidkit.pipeline.incremental import make_plan

        before = previous_files(out_loc.uri, sopts)
        plan = None if before is None else make_plan(layout, before, sopts)

    if on_scan is not None:
        on_scan(layout.files if plan is None else plan.scan)
    stage("scan")
    engine: SparkEngine | LocalEngine
    if spark is None:
        engine = LocalEngine(sopts, out_loc, verify_checksum, on_file)
        timings.update(engine.load(layout, plan))
    else:
        engine = SparkEngine(spark, sopts, out_loc, verify_checksum)
        timings.update(engine.load(input_path, plan))
    timings["scan"] = time.perf_counter() - t0

    stage("tables")
    t1 = time.perf_counter()
    facts = engine.tables()
    timings["tables"] = time.perf_counter() - t1

    stage("state")
    t2 = time.perf_counter()
    file_rows = facts.files
    file_facts = [S.FileFacts.from_row(r) for r in file_rows]
    file_gtids = S.sets_by(facts.file_gtids, "host", "file")
    state = S.executed_and_purged(file_facts, file_gtids)
    ge_sets = S.sets_by(facts.gtid_executed, "host")
    sid_stats = facts.sid_stats
    gtid_stats = [r for r in sid_stats if r["sid"] is not None]
    uuids = S.infer_server_uuids(
        {"host": r["host"], "sid": r["sid"], "n": r["local_n"] or 0} for r in gtid_stats
    )
    if given is not None:
        topo, origin = given, "given"
    else:
        topo, origin = S.infer_topology(uuids, gtid_stats), "inferred"
    executed_for_errant = {h: ge_sets.get(h, GtidSet()) for h in layout.hosts}
    errant = S.errant_sets(executed_for_errant, topo)
    group_sizes = facts.group_sizes
    per_host_par = _parallelism_stats(group_sizes)

    driver_checks = S.chain_breaks(file_facts, file_gtids)
    if plan is not None:
        for host, name, why in plan.rewritten:
            driver_checks.append(
                S.check_row(
                    "file_rewritten",
                    "warning",
                    host,
                    name,
                    None,
                    None,
                    f"not the file of the previous run: {why}; scanned again",
                )
            )
        for host, name in plan.gone:
            driver_checks.append(
                S.check_row(
                    "file_gone",
                    "info",
                    host,
                    name,
                    None,
                    None,
                    "in the previous run, no longer listed (purged or rotated away)",
                )
            )
    driver_checks += _errant_from_previous_gtids(errant, file_facts, file_gtids)
    for host, (groups_n, avg, biggest) in sorted(per_host_par.items()):
        driver_checks.append(
            S.check_row(
                "parallelism",
                "info",
                host,
                None,
                None,
                None,
                f"{groups_n} commit groups, {avg:.2f} transactions per group on average (max {biggest})",
            )
        )
    check_names = schemas.field_names(schemas.CHECKS)
    checks_rows = engine.table_checks(errant) + [dict(zip(check_names, r)) for r in driver_checks]
    rank = {"error": 0, "warning": 1, "info": 2}
    # errors first, then by check, host, file, offset (NULL first, as Spark's ascending sort)
    checks_rows.sort(
        key=lambda c: (
            rank.get(c["severity"], 3),
            c["check"],
            c["host"],
            c["file"] is not None,
            c["file"] or "",
            c["offset"] is not None,
            c["offset"] if c["offset"] is not None else -1,
            c["gtid"] or "",
            c["detail"] or "",
        )
    )
    engine.write_rows("checks", [tuple(c[k] for k in check_names) for c in checks_rows], schemas.CHECKS)

    host_rows = []
    for host in layout.hosts:
        mine = [r for r in sid_stats if r["host"] == host]
        hfiles = [r for r in file_rows if r["host"] == host]
        firsts = [r["first_commit_time"] for r in mine if r["first_commit_time"] is not None]
        lasts = [r["last_commit_time"] for r in mine if r["last_commit_time"] is not None]
        server_ids = [r["server_id"] for r in hfiles if r["server_id"] is not None]
        executed, purged = state.get(host, (GtidSet(), GtidSet()))
        groups_n, avg, biggest = per_host_par.get(host, (0, None, None))
        host_rows.append(
            (
                host,
                uuids.get(host),
                max(set(server_ids), key=server_ids.count) if server_ids else None,
                ",".join(topo.get(host, [])) or None,
                len(hfiles),
                sum(r["n"] for r in mine),
                sum(r["n"] for r in mine if r["sid"] is not None),
                sum(r["anon_n"] or 0 for r in mine),
                sum(r["size"] for r in hfiles),
                sum(r["bad_bytes"] for r in hfiles),
                str(executed),
                str(purged),
                len(executed),
                min(firsts) if firsts else None,
                max(lasts) if lasts else None,
                groups_n,
                avg,
                biggest,
            )
        )
    engine.write_rows("hosts", host_rows, schemas.HOSTS)
    timings["state"] = time.perf_counter() - t2

    stage("report")
    t3 = time.perf_counter()
    from gtidkit.pipeline.report import bucket_for_span

    firsts = [r["first_commit_time"] for r in sid_stats if r["first_commit_time"] is not None]
    lasts = [r["last_commit_time"] for r in sid_stats if r["last_commit_time"] is not None]
    span = (max(lasts) - min(firsts)).total_seconds() if firsts and lasts else 0.0
    bucket, bucket_s = bucket_for_span(span)
    activity = engine.activity(bucket_s)
    counts = {
        "transactions": sum(h[5] for h in host_rows),
        "files": len(file_rows),
        "gtid_executed": sum(len(list(s.intervals())) for s in ge_sets.values()),
        "hosts": len(host_rows),
        "checks": len(checks_rows),
        "parallelism": sum(n for _h, _s, n in group_sizes),
    }
    file_dicts = []
    for r in file_rows:
        d = dict(r)
        d.pop("previous_gtids_intervals", None)
        file_dicts.append(d)
    host_names = schemas.field_names(schemas.HOSTS)
    result = PipelineResult(
        output=out,
        layout=layout,
        hosts=[dict(zip(host_names, h)) for h in host_rows],
        checks=checks_rows,
        files=file_dicts,
        counts=counts,
        topology=topo,
        topology_origin=origin,
        timings=timings,
        activity=activity,
        activity_bucket=bucket,
        group_sizes=group_sizes,
        storage_options=sopts,
        incremental=None if plan is None else plan.summary(),
        engine=engine.name,
    )
    engine.release()
    if write_report:
        from gtidkit.pipeline import report

        report.write_summary_json(result)
        report.write_html(result)
    timings["report"] = time.perf_counter() - t3
    timings["total"] = time.perf_counter() - t0
    return result


def summary_dict(result: PipelineResult) -> dict[str, Any]:
    """A JSON-able summary: counts, timings, topology, hosts and checks."""

    def conv(v: Any) -> Any:
        """Timestamps as ISO text."""
        return v.isoformat() if hasattr(v, "isoformat") else v

    return {
        "output": str(result.output),
        "counts": result.counts,
        "timings_s": {k: round(v, 3) for k, v in result.timings.items()},
        "topology": result.topology,
        "topology_origin": result.topology_origin,
        "skipped_inputs": [{"path": p, "reason": r} for p, r in result.layout.skipped],
        "incremental": result.incremental,
        "engine": result.engine,
        "hosts": [{k: conv(v) for k, v in h.items()} for h in result.hosts],
        "checks": result.checks,
    }


def dumps_summary(result: PipelineResult) -> str:
    """:func:`summary_dict` as indented JSON text."""
    return json.dumps(summary_dict(result), indent=2, default=str) + "\n"
