"""The ``binlog`` PySpark Python Data Source: MySQL binary logs as DataFrames, one partition per file.

::

    spark.read.format("binlog").load("/data/fleet")                              # transactions
    spark.read.format("binlog").option("level", "events").load("/data/fleet/db1/binlog.000042")
    spark.sql("SELECT host, count(*) FROM binlog.`/data/fleet` GROUP BY host")   # after register(spark)

Name: ``binlog``. Path: a fleet directory (one sub-directory per host), a host directory, a single binlog, or
a JSON mapping file ``{"host": [paths]}`` (see :mod:`gtidkit.pipeline.layout`), as a local path or a
``file://``, ``s3://``, ``s3a://``, ``gs://`` or ``hdfs://`` URI (the driver lists it once through
``pyarrow.fs``; executors open their file as a stream).

Options (strings, as Spark passes them):

* ``level``: ``transactions`` (default; schemas.TRANSACTIONS), ``events`` (schemas.EVENTS), ``files``
  (schemas.FILES) or ``scan`` (schemas.SCAN: the pipeline's single pass, transactions then one file record).
* ``verifyChecksum``: ``true`` (default) or ``false``: verify CRC32 footers when the FDE announces them.
* ``include``: JSON list of ``[host, file]`` pairs: read only those files of the listing (``file_index`` stays
  the one of the whole listing; incremental runs use it).
* ``batchRows``: transactions per Arrow record batch (default 8192; memory per task is one batch).
* ``maxPartitionBytes`` / ``minPartitions``: pack several files into one partition (task) as Spark's file
  sources do (:func:`pack_files`; a file is never split); unset (default): one partition per file.
* storage: ``fs.s3a.endpoint``, ``fs.s3a.access.key``, ``fs.s3a.secret.key``, ``fs.s3a.path.style.access``...
  or pyarrow's own names, for ``s3://``/``s3a://``/``gs://``/``hdfs://`` paths (see
  :mod:`gtidkit.pipeline.storage`).

Output: ``read()`` yields ``pyarrow.RecordBatch`` es (Spark 4 takes them as they are: no per-row conversion
between Python and the JVM) for every level but ``events``, which yields tuples.

Partitioning: ``partitions()`` runs once on the driver and returns one :class:`BinlogFilePartition` per binlog
(so one Spark task per file, and a 1 GiB file is streamed by one task, never loaded into one record), or small
files packed together with ``maxPartitionBytes``; files are opened inside ``read()`` on the executor, as the Data Source contract requires for unpicklable resources.
A corrupt or truncated file never fails the query: ``events`` ends that file with an ``ERROR`` row at the
fault's offset, ``files``/``scan`` report status, error and offset, and ``transactions`` keeps every
transaction before the fault.

Follows ``python/pyspark/sql/datasource.py`` (Spark 4) and allisonwang-db/pyspark-data-sources' file sources.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import ClassVar

from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from gtidkit.pipeline import schemas
from gtidkit.pipeline.layout import FileSpec, discover
from gtidkit.pipeline.storage import storage_options


def scan_batch_rows() -> int:
    """Default ``batchRows``: transactions per Arrow record batch (``gtidkit.pipeline.scan.BATCH_ROWS``)."""
    from gtidkit.pipeline.scan import BATCH_ROWS

    return BATCH_ROWS


class BinlogFilePartition(InputPartition):
    """The binlog files one task reads, in order: carries a picklable list of :class:`FileSpec` (``value``)."""

    def __init__(self, specs: list[FileSpec]) -> None:
        super().__init__(list(specs))


#: Spark's ``spark.sql.files.openCostInBytes`` default: what opening one file is estimated to cost, in bytes.
OPEN_COST_BYTES = 4 << 20


def pack_files(files: list[FileSpec], max_bytes: int, min_partitions: int) -> list[list[FileSpec]]:
    """Group files into partitions the way Spark's file sources size them: a target of
    ``min(max_bytes, max(OPEN_COST_BYTES, total / min_partitions))`` bytes (each file counted with
    :data:`OPEN_COST_BYTES` added), filled in listing order (next fit); a file larger than the target is a
    partition of its own, and a file is never split.

    Why: a Spark task costs tens of milliseconds of CPU whatever it reads (the Python worker's task set-up and
    its ``gc.collect()`` after each task, the JVM runner), so one task per small binlog wastes a measurable share
    of the scan (bench/bench_pipeline.py); ``min_partitions`` (the cluster's default parallelism) keeps every
    core busy.

    Args:
        files: the listing (FileSpec, each with ``size`` in bytes).
        max_bytes: the largest target (Spark's ``spark.sql.files.maxPartitionBytes``, 128 MiB); <= 0 gives
            one partition per file.
        min_partitions: the parallelism to keep (>= 1).

    Returns:
        The partitions, each a non-empty list of files in listing order.
    """
    if max_bytes <= 0 or len(files) <= 1:
        return [[f] for f in files]
    total = sum(f.size + OPEN_COST_BYTES for f in files)
    target = min(max_bytes, max(OPEN_COST_BYTES, total // max(1, min_partitions)))
    parts: list[list[FileSpec]] = []
    current: list[FileSpec] = []
    filled = 0
    for f in files:
        cost = f.size + OPEN_COST_BYTES
        if current and filled + cost > target:
            parts.append(current)
            current, filled = [], 0
        current.append(f)
        filled += cost
    if current:
        parts.append(current)
    return parts


_FROZEN = False


def _freeze_worker_heap() -> None:
    """Inside a Spark Python worker, move the objects alive now (modules, pyspark, pyarrow, gtidkit: all long
    lived) to the collector's permanent generation, once per process.

    PySpark's daemon runs ``gc.collect()`` after every task of a reused worker; a full collection walks every
    tracked object of those libraries, about 25 ms per task here, and ``gc.freeze()`` takes them out of that
    walk (bench/bench_pipeline.py measures the per-task cost). Only the objects existing at the first call are
    frozen (a collection runs first, so no garbage is kept), and nothing happens outside a Spark task (a driver
    calling ``read()`` directly is left alone).
    """
    global _FROZEN
    if _FROZEN:
        return
    from pyspark import TaskContext

    if TaskContext.get() is None:
        return
    import gc

    gc.collect()
    gc.freeze()
    _FROZEN = True


def _bool_option(options: dict, key: str, default: bool) -> bool:
    value = options.get(key)
    if value is None:
        return default
    return str(value).strip().lower() in ("1", "true", "yes", "on")


class BinlogReader(DataSourceReader):
    """Reader for one ``load()``: plans partitions on the driver, decodes files on executors."""

    def __init__(self, options: dict, level: str) -> None:
        self.options = {str(k).lower(): v for k, v in dict(options).items()}
        self.level = level
        self.verify_checksum = _bool_option(self.options, "verifychecksum", True)
        self.batch_rows = int(self.options.get("batchrows", scan_batch_rows()))
        self.max_partition_bytes = int(self.options.get("maxpartitionbytes", 0))
        self.min_partitions = int(self.options.get("minpartitions", 1))
        self.arrow = schemas.arrow_schema(BinlogDataSource._SCHEMAS[level]) if level != "events" else None

    def partitions(self) -> list[BinlogFilePartition]:
        """The binlogs found under the ``path`` option (driver side, at planning time), one partition per file,
        or packed by :func:`pack_files` when the ``maxPartitionBytes`` option is given.

        Raises:
            ValueError: no ``path`` given, or :class:`~gtidkit.pipeline.layout.LayoutError` (no binlog there).
        """
        path = self.options.get("path")
        if not path:
            raise ValueError("binlog data source: load(path) needs a path")
        layout = discover(path, storage_options(self.options))
        files = layout.files
        if self.options.get("include"):
            wanted = {tuple(k) for k in json.loads(self.options["include"])}
            files = [f for f in files if (f.host, f.file) in wanted]
        # Spark calls read(None) when this list is empty; one empty partition makes "no file" zero rows (an
        # incremental run with nothing new to scan)
        return [
            BinlogFilePartition(group)
            for group in pack_files(files, self.max_partition_bytes, self.min_partitions)
        ] or [BinlogFilePartition([])]

    def read(self, partition: BinlogFilePartition) -> Iterator:
        """Stream the partition's files one after the other (executor side; each file is opened here):
        ``pyarrow.RecordBatch`` es of up to ``batchRows`` transactions for ``transactions``/``scan``/``files``,
        tuples for ``events``."""
        from gtidkit.pipeline import scan

        _freeze_worker_heap()
        sopts = storage_options(self.options)
        for spec in partition.value if partition is not None else ():
            if self.level == "events":
                yield from scan.event_rows(spec, verify_checksum=self.verify_checksum)
                continue
            yield from scan.arrow_batches(
                spec,
                self.level,
                self.arrow,
                verify_checksum=self.verify_checksum,
                batch_rows=self.batch_rows,
                storage_options=sopts,
            )


class BinlogDataSource(DataSource):
    """``spark.read.format("binlog")``: see the module docstring for path forms, options and partitioning."""

    _SCHEMAS: ClassVar[dict[str, str]] = {
        "transactions": schemas.TRANSACTIONS,
        "events": schemas.EVENTS,
        "files": schemas.FILES,
        "scan": schemas.SCAN,
    }

    @classmethod
    def name(cls) -> str:
        """The format name: ``binlog``."""
        return "binlog"

    def _level(self) -> str:
        level = str(self.options.get("level", "transactions")).lower()
        if level not in self._SCHEMAS:
            raise ValueError(
                f"binlog data source: level must be one of {', '.join(sorted(self._SCHEMAS))}, not {level}"
            )
        return level

    def schema(self) -> str:
        """The DDL of the chosen ``level`` (schemas.TRANSACTIONS by default)."""
        return self._SCHEMAS[self._level()]

    def reader(self, schema) -> BinlogReader:
        """A :class:`BinlogReader` for this load."""
        return BinlogReader(self.options, self._level())


class ParquetPartition(InputPartition):
    """One Parquet file (its URI) of a :class:`ArrowParquetDataSource` directory."""

    def __init__(self, uri: str) -> None:
        super().__init__(uri)


class ArrowParquetReader(DataSourceReader):
    """Reads the Parquet files of a directory on any :mod:`gtidkit.pipeline.storage` URI with pyarrow."""

    def __init__(self, options: dict, schema) -> None:
        from pyspark.sql.pandas.types import to_arrow_schema

        self.options = {str(k).lower(): v for k, v in dict(options).items()}
        self.arrow = to_arrow_schema(schema, timezone="UTC")

    def partitions(self) -> list[ParquetPartition]:
        """One partition per ``*.parquet`` file below ``path`` (driver side)."""
        from gtidkit.pipeline import storage

        loc = storage.resolve(self.options["path"], storage_options(self.options))
        parts = [e.uri for e in storage.list_files(loc) if e.rel.endswith(".parquet")]
        return [ParquetPartition(u) for u in parts]

    def read(self, partition: ParquetPartition) -> Iterator:
        """The file's record batches, cast to the requested schema (executor side, streamed by row group)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from gtidkit.pipeline import storage

        loc = storage.resolve(partition.value, storage_options(self.options))
        with loc.fs.open_input_file(loc.path) as fh:
            for batch in pq.ParquetFile(fh).iter_batches(columns=self.arrow.names):
                yield from pa.Table.from_batches([batch]).cast(self.arrow).to_batches()


class ArrowParquetDataSource(DataSource):
    """``spark.read.format("gtidkit_parquet").schema(DDL).options(...).load(uri)``: Parquet on object storage
    through ``pyarrow.fs`` (Spark's own ``s3a://`` needs hadoop-aws jars); the schema must be given."""

    @classmethod
    def name(cls) -> str:
        """The format name: ``gtidkit_parquet``."""
        return "gtidkit_parquet"

    def schema(self) -> str:
        """No inference: ``.schema(DDL)`` is required.

        Raises:
            ValueError: always (called only when no schema was given).
        """
        raise ValueError("gtidkit_parquet: give the schema with .schema(DDL)")

    def reader(self, schema) -> ArrowParquetReader:
        """An :class:`ArrowParquetReader`."""
        return ArrowParquetReader(self.options, schema)


def register(spark) -> None:
    """Register the ``binlog`` and ``gtidkit_parquet`` formats on ``spark`` (idempotent; build_session does it)."""
    spark.dataSource.register(BinlogDataSource)
    spark.dataSource.register(ArrowParquetDataSource)
