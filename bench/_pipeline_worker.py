"""Child process of bench_pipeline.py: one warm Spark session driven over stdin/stdout (one JSON per line).

    python bench/_pipeline_worker.py MASTER CORPUS

Commands (one per line): ``noop`` (the job's scan, ``read_scan``, with every column materialised by the
``noop`` sink), ``persist`` (the job's scan stage as it runs: ``persist(MEMORY_AND_DISK).count()``),
``file PATH`` (a ``level=scan`` noop read of one file, reporting the Python workers' peak RSS), ``quit``.
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
