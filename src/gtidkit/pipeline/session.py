"""Build the one SparkSession the pipeline (and its tests) run in.

Settings follow ../shared/research/tooling.md §1: the worker interpreter is pinned to ``sys.executable`` (an
unactivated venv would otherwise hand tasks to the system ``python3``, which lacks gtidkit), the UI and console
progress bars are off, the driver binds 127.0.0.1, and shuffles use few partitions (a binlog fleet yields small
aggregates; Spark's default of 200 shuffle partitions only adds task overhead).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from pyspark.sql import SparkSession

#: Configuration applied to every session (callers may override any key through ``conf``).
DEFAULT_CONF: dict[str, str] = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.host": "127.0.0.1",
    # One binlog file is one partition; never let AQE coalesce the scan's partitions away.
    "spark.sql.adaptive.coalescePartitions.enabled": "false",
    "spark.python.worker.reuse": "true",
    # The scan is persisted once per run; compressing that cache cost a quarter of the scan stage's CPU
    # (bench_pipeline: 5.2 -> 3.8 CPU s for 400 MB) to save memory the MEMORY_AND_DISK level spills anyway.
    "spark.sql.inMemoryColumnarStorage.compressed": "false",
}


def prepare_environment() -> None:
    """Set the environment variables Spark reads at JVM/worker start (idempotent, never overrides the user's).

    ``SPARK_LOCAL_IP=127.0.0.1`` silences the loopback-hostname warning and keeps every socket on 127.0.0.1;
    ``PYSPARK_PYTHON``/``PYSPARK_DRIVER_PYTHON`` make executors run this very interpreter (tooling.md §1).
    """
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


def local_cores(master: str | None) -> int | None:
    """Cores of a ``local``/``local[N]``/``local[*]`` master URL; None for a cluster master."""
    if not master or not master.startswith("local"):
        return None
    m = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if m is None or m.group(1) in (None, "*"):
        return os.cpu_count() or 1 if m is not None and m.group(1) == "*" else 1
    return int(m.group(1))


def build_session(
    master: str = "local[*]",
    app_name: str = "gtidkit-pipeline",
    conf: dict[str, Any] | None = None,
    *,
    log_level: str = "ERROR",
) -> SparkSession:
    """Return a SparkSession for the binlog pipeline, with the ``binlog`` data source registered.

    Args:
        master: Spark master URL: ``local[2]`` (tests), ``local[*]``, or ``spark://127.0.0.1:7077`` for a
            standalone cluster. ``None``/empty leaves it to ``spark-submit``.
        app_name: the application name shown by the master.
        conf: extra Spark settings (string values), applied after :data:`DEFAULT_CONF`.
        log_level: the JVM log level (``WARN``, ``ERROR``...).

    Returns:
        The (possibly pre-existing) active session. Spark allows one per JVM, so a second call returns the
        first session with the new settings applied where Spark still accepts them.

    Raises:
        pyspark.errors.PySparkRuntimeError: Java could not start (``JAVA_GATEWAY_EXITED``; Java 17 is required).
    """
    prepare_environment()
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    settings = dict(DEFAULT_CONF)
    cores = local_cores(master)
    if cores is not None:
        # One machine means small aggregates: a shuffle partition per core and no adaptive re-planning (AQE
        # turns every shuffle into an extra job, which dominates a run over a few GB). On a cluster Spark's
        # defaults (200 partitions, AQE coalescing) are kept.
        settings["spark.sql.shuffle.partitions"] = str(max(2, cores))
        settings["spark.sql.adaptive.enabled"] = "false"
    settings["spark.pyspark.python"] = os.environ["PYSPARK_PYTHON"]
    settings.update({k: str(v) for k, v in (conf or {}).items()})
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(log_level)
    from gtidkit.pipeline.datasource import register

    register(spark)
    return spark


def package_zip(dest: str | os.PathLike[str] | None = None) -> str:
    """Zip the importable ``gtidkit`` package (its ``.py`` files) for executors that do not have it installed.

    The zip holds ``gtidkit/...`` at its root, the layout ``spark-submit --py-files`` and
    ``SparkContext.addPyFile`` put on the executors' ``sys.path``. Executors need only PySpark and pyarrow
    besides it (``zstandard`` too for binlogs with compressed Transaction_payload events).

    Args:
        dest: the zip file to write; default ``gtidkit-<version>.zip`` in a fresh temporary directory.

    Returns:
        The path of the zip.
    """
    import tempfile
    import zipfile
    from pathlib import Path

    import gtidkit

    root = Path(gtidkit.__file__).resolve().parent
    if dest is None:
        dest = Path(tempfile.mkdtemp(prefix="gtidkit-zip-")) / f"gtidkit-{gtidkit.__version__}.zip"
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" not in path.parts:
                zf.write(path, Path("gtidkit") / path.relative_to(root))
    return str(dest)


def ship_package(spark: SparkSession, zip_path: str | None = None) -> str:
    """Make ``gtidkit`` importable on executors that lack it: ``SparkContext.addPyFile`` of
    :func:`package_zip` (the programmatic form of ``spark-submit --py-files gtidkit.zip``).

    Returns:
        The zip shipped.
    """
    path = zip_path or package_zip()
    spark.sparkContext.addPyFile(path)
    # The data source captured the Python includes when it was registered: register it again so that its
    # planning and reading workers (driver and executors) get the zip too.
    from gtidkit.pipeline.datasource import register

    register(spark)
    return path


def process_tree_cpu(root: int | None = None) -> float | None:
    """CPU seconds (user + system) used so far by process ``root`` (default: this one) and all its descendants —
    in local mode the JVM and the Python workers — read from ``/proc``; reaped children count through their
    parent's ``cutime``/``cstime``. None where ``/proc`` is not available.

    The pipeline records its scan stage's CPU with it (``timings['scan_cpu']``): on a shared machine the wall
    time of a stage says little, its CPU time is what a core costs.
    """
    if not os.path.isdir("/proc/self"):
        return None
    root = os.getpid() if root is None else root
    table: dict[int, tuple[int, int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry)] = (int(fields[1]), sum(int(x) for x in fields[11:15]))
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        if pid in table:
            total += table[pid][1]
        stack.extend(children.get(pid, []))
    return total / os.sysconf("SC_CLK_TCK")
