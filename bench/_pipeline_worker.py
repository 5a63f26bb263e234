"""Child process of bench_pipeline.py: one warm Spark session driven over stdin/stdout (one JSON per line).

    python bench/_pipeline_worker.py MASTER CORPUS

Commands (one per line): ``noop`` (the job's scan, ``read_scan``, with every column materialised by the
``noop`` sink), ``persist`` (the job's scan stage as it runs: ``persist(MEMORY_AND_DISK).count()``),
``replay_noop DIR`` / ``replay_persist DIR`` (the same two with the scan's record batches read back from the
Arrow IPC files in DIR, written beforehand by ``bench_pipeline.write_replay``: the same rows, schema and
partitions at almost no Python cost, i.e. what Spark alone costs for them), ``file PATH`` (a ``level=scan`` noop
read of one file, reporting the Python workers' peak RSS), ``quit``.
Each answer: wall seconds and CPU seconds of this process tree, split into the JVM and the Python workers.
"""

from __future__ import annotations

import json
import os
import sys
import time

_CLK = os.sysconf("SC_CLK_TCK")


def tree() -> dict[int, tuple[str, float, int]]:
    """pid -> (kind, CPU seconds, VmHWM KiB) of this process and its descendants; kind is ``java``,
    ``python_worker`` or ``driver``."""
    table: dict[int, tuple[int, float, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().decode(errors="replace")
        except OSError:
            continue
        f = stat[stat.rindex(")") + 2 :].split()
        table[int(entry)] = (int(f[1]), sum(int(x) for x in f[11:15]) / _CLK, cmd)
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, stack = {}, [os.getpid()]
    while stack:
        pid = stack.pop()
        if pid in table:
            _, cpu, cmd = table[pid]
            kind = "driver" if pid == os.getpid() else "java" if "java" in cmd else "python_worker"
            hwm = 0
            if kind == "python_worker" and "pyspark.worker" in cmd:
                try:
                    with open(f"/proc/{pid}/status") as fh:
                        hwm = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM"))
                except (OSError, StopIteration):
                    pass
            out[pid] = (kind, cpu, hwm)
        stack.extend(children.get(pid, []))
    return out


def cpu_split() -> dict[str, float]:
    """CPU seconds so far per kind of process in this tree."""
    acc = {"java": 0.0, "python_worker": 0.0, "driver": 0.0}
    for kind, cpu, _ in tree().values():
        acc[kind] += cpu
    return acc


def replay_source(corpus: str) -> type:
    """A Python Data Source ``binlog_replay`` (defined here, in ``__main__``, so that cloudpickle ships it by
    value): ``load(DIR)`` yields the record batches stored in ``DIR/<host>__<file>.arrow`` for every binlog of
    ``corpus``, packed into the partitions ``job.read_scan`` gives the same listing, schema schemas.SCAN."""
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    from gtidkit.pipeline import schemas

    class ReplayReader(DataSourceReader):
        def __init__(self, options: dict) -> None:
            self.options = dict(options)

        def partitions(self) -> list:
            from gtidkit.pipeline.datasource import pack_files
            from gtidkit.pipeline.job import SCAN_PARTITION_BYTES
            from gtidkit.pipeline.layout import discover

            root = self.options["path"]
            groups = pack_files(
                discover(corpus).files, SCAN_PARTITION_BYTES, int(self.options["parallelism"])
            )
            return [InputPartition([f"{root}/{f.host}__{f.file}.arrow" for f in g]) for g in groups]

        def read(self, partition):
            import pyarrow as pa

            for path in partition.value:
                with pa.memory_map(path) as src:
                    reader = pa.ipc.open_file(src)
                    for i in range(reader.num_record_batches):
                        yield reader.get_batch(i)

    class ReplaySource(DataSource):
        @classmethod
        def name(cls) -> str:
            return "binlog_replay"

        def schema(self) -> str:
            return schemas.SCAN

        def reader(self, schema) -> ReplayReader:
            return ReplayReader(self.options)

    return ReplaySource


def main() -> None:
    from pyspark import StorageLevel

    from gtidkit.pipeline.job import read_scan
    from gtidkit.pipeline.layout import discover
    from gtidkit.pipeline.session import build_session

    master, corpus = sys.argv[1], sys.argv[2]
    spark = build_session(master)
    # warm-up: JVM start, first JIT, Python worker start and imports (a one-time cost per executor)
    first = discover(corpus).files[0].path
    for _ in range(2):
        read_scan(spark, first).write.format("noop").mode("overwrite").save()
        df = read_scan(spark, first).persist(StorageLevel.MEMORY_AND_DISK)  # the cache's code paths too
        df.count()
        df.unpersist(blocking=True)
    import gtidkit

    # which gtidkit the driver and the Python workers import (--baseline-src puts an older one first)
    workers = spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("gtidkit").__file__).collect()
    print(json.dumps({"ready": True, "gtidkit": gtidkit.__file__, "worker_gtidkit": workers[0]}), flush=True)
    for line in sys.stdin:
        cmd, _, arg = line.strip().partition(" ")
        if cmd == "quit":
            break
        before, t = cpu_split(), time.perf_counter()
        if cmd == "noop":
            read_scan(spark, corpus).write.format("noop").mode("overwrite").save()
        elif cmd == "persist":
            df = read_scan(spark, corpus).persist(StorageLevel.MEMORY_AND_DISK)
            df.count()
            df.unpersist(blocking=True)
        elif cmd in ("replay_noop", "replay_persist"):
            if not hasattr(spark, "_replay_registered"):
                spark.dataSource.register(replay_source(corpus))
                spark._replay_registered = True
            df = (
                spark.read.format("binlog_replay")
                .option("parallelism", str(spark.sparkContext.defaultParallelism))
                .load(arg)
            )
            if cmd == "replay_noop":
                df.write.format("noop").mode("overwrite").save()
            else:
                df = df.persist(StorageLevel.MEMORY_AND_DISK)
                df.count()
                df.unpersist(blocking=True)
        elif cmd == "file":
            spark.read.format("binlog").option("level", "scan").load(arg).write.format("noop").mode(
                "overwrite"
            ).save()
        wall = time.perf_counter() - t
        after = cpu_split()
        cpu = {k: after[k] - before[k] for k in after}
        hwm = max((h for _, _, h in tree().values()), default=0)
        print(json.dumps({"wall": wall, "cpu": cpu, "worker_hwm_kib": hwm}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
