"""The pipeline on a real Spark standalone cluster (issue 2 §4, issue 10): master and worker started on 127.0.0.1
with pyspark's own ``bin/spark-class``, the job submitted as a separate driver process (``python -m
gtidkit.pipeline.app``, the spark-submit-able entry point), the result checked against the generator's
manifest, and both JVMs always killed. The executors run an interpreter that has PySpark but NOT gtidkit; the
driver ships the package to them (``--ship-package``: ``SparkContext.addPyFile`` of a zip, the programmatic
``spark-submit --py-files``). About a minute on the project machine.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHORT_LIVED_JVM_OPTIONS

pytestmark = pytest.mark.spark  # Java 17: three JVMs of its own (master, worker, driver) and an executor

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_job_on_standalone_cluster_with_workers_lacking_gtidkit(tmp_path, fleet_dir):
    sys.path.insert(0, str(BENCH))
    try:
        from standalone_cluster import bare_worker_python, run_on_cluster
    finally:
        sys.path.remove(str(BENCH))
    worker = bare_worker_python(tmp_path)
    probe = subprocess.run(
        [worker, "-c", "import pyspark, pyarrow\nimport gtidkit"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert "No module named 'gtidkit'" in probe.stderr, probe.stderr  # PySpark is there, gtidkit is not
    r = run_on_cluster(
        tmp_path, worker_python=worker, fleet=fleet_dir, executor_java_options=SHORT_LIVED_JVM_OPTIONS
    )
    assert r["url"].startswith("spark://127.0.0.1:")
    assert r["anomalies"] >= 5 and r["missed"] == [], r
    assert r["wrong_hosts"] == [], r
    assert r["alive_after"] == [], "master/worker JVMs left running"
    assert r["counts"]["files"] >= 10 and r["counts"]["transactions"] > 0
