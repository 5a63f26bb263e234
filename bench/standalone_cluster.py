"""Run the pipeline on a real Spark standalone cluster (master + worker on 127.0.0.1) and check the result.

    .venv/bin/python bench/standalone_cluster.py [--workdir bench/out/cluster]

Starts ``org.apache.spark.deploy.master.Master`` and ``...deploy.worker.Worker`` with pyspark's own
``bin/spark-class`` (gtidkit.pipeline.cluster), generates a small fleet with gtidkit.generate, submits the
job to ``spark://127.0.0.1:PORT`` as a separate driver process (``python -m gtidkit.pipeline.app``), checks that
every anomaly of the generator's manifest was found and that the hosts' GTID_EXECUTED matches it, and ALWAYS kills
both JVMs. Writes section "pipeline_cluster" of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def bare_worker_python(workdir: Path) -> str:
    """An interpreter with PySpark, pyarrow and zstandard but without gtidkit: a venv (no pip, no system
    site-packages) whose one ``.pth`` line adds this venv's site-packages as a plain directory. Python does not
    process the ``.pth`` files of such a directory, so this venv's editable install of gtidkit is not seen."""
    import site
    import venv

    target = workdir / "bare-python"
    venv.EnvBuilder(with_pip=False, system_site_packages=False, clear=True, symlinks=True).create(target)
    python = target / "bin" / "python"
    site_dir = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = [p for p in site.getsitepackages() if (Path(p) / "pyspark").is_dir()]
    (Path(site_dir) / "deps-without-gtidkit.pth").write_text("\n".join(ours) + "\n")
    return str(python)


def run_on_cluster(workdir: Path, *, cores: int = 2, worker_python: str | None = None) -> dict:
    """Generate a fleet, run the job on a fresh standalone cluster; returns figures and the check results.

    Args:
        worker_python: the executors' interpreter (``PYSPARK_PYTHON``); when given, the driver ships gtidkit to
            them (``--ship-package``: ``SparkContext.addPyFile`` of a zip of the package), as a real cluster
            whose workers lack gtidkit needs.

    Raises:
        SystemExit: the job failed or its result disagrees with the generator's manifest.
    """
    from gtidkit.generate import generate_fleet, load_manifest
    from gtidkit.gtid import GtidSet
    from gtidkit.pipeline.cluster import standalone_cluster
    from gtidkit.pipeline.demo import match_expected

    fleet = workdir / "fleet"
    generate_fleet(fleet, overwrite=True)
    manifest = load_manifest(fleet)
    out = workdir / "out"
    t0 = time.perf_counter()
    with standalone_cluster(workdir / "cluster", cores=cores) as cluster:
        t_up = time.perf_counter() - t0
        env = dict(
            os.environ,
            SPARK_LOCAL_IP="127.0.0.1",
            PYSPARK_PYTHON=worker_python or sys.executable,
            PYSPARK_DRIVER_PYTHON=sys.executable,
        )
        env.pop("PYTHONPATH", None)
        t1 = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "gtidkit.pipeline.app",
                "--master",
                cluster.url,
                "--input",
                str(fleet),
                "--output",
                str(out),
                "--topology",
                str(fleet / "topology.json"),
                # a small fleet: a few shuffle partitions instead of the cluster default of 200
                "--conf",
                "spark.sql.shuffle.partitions=4",
                *(["--ship-package"] if worker_python else []),
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
            check=False,
        )
        t_job = time.perf_counter() - t1
        pids = cluster.pids
    alive = [pid for pid in pids if _alive(pid)]
    if proc.returncode != 0:
        raise SystemExit(f"job failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    summary = json.loads(proc.stdout)
    pairs = match_expected(manifest.anomalies, summary["checks"])
    missed = [a for a, hit in pairs if hit is None]
    wrong = [
        h["host"]
        for h in summary["hosts"]
        if GtidSet.parse(h["gtid_executed_binlog"]) != GtidSet.parse(manifest.host(h["host"]).gtid_executed)
    ]
    return {
        "url": cluster.url,
        "startup_s": t_up,
        "job_s": t_job,
        "timings": summary["timings_s"],
        "counts": summary["counts"],
        "anomalies": len(pairs),
        "missed": missed,
        "wrong_hosts": wrong,
        "alive_after": alive,
    }


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie still answers kill(0); Popen.wait() in the cluster helper reaped ours.
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, default=HERE / "out" / "cluster")
    ap.add_argument(
        "--bare-workers",
        action="store_true",
        help="executors run a Python without gtidkit; the driver ships it (addPyFile)",
    )
    args = ap.parse_args()
    worker = bare_worker_python(args.workdir) if args.bare_workers else None
    r = run_on_cluster(args.workdir, worker_python=worker)
    ok = not r["missed"] and not r["wrong_hosts"] and not r["alive_after"]
    lines = [
        "## Pipeline on a Spark standalone cluster",
        "",
        "Command: `.venv/bin/python bench/standalone_cluster.py`",
        "",
        (
            f"Master + 1 worker (2 cores, 1 GiB) started with pyspark's `bin/spark-class` on 127.0.0.1 in "
            f"{r['startup_s']:.1f} s; the job (`python -m gtidkit.pipeline.app --master {r['url'].rsplit(':', 1)[0]}:PORT`, "
            f"a separate driver) ran in {r['job_s']:.1f} s (stages {r['timings']})."
        ),
        (
            f"Result: {r['counts']['files']} files, {r['counts']['transactions']} transactions; "
            f"{r['anomalies'] - len(r['missed'])}/{r['anomalies']} generator anomalies found, GTID_EXECUTED of "
            f"{'every host matches' if not r['wrong_hosts'] else 'hosts ' + str(r['wrong_hosts']) + ' differ from'} "
            f"the manifest; master and worker killed afterwards ({'none' if not r['alive_after'] else r['alive_after']} "
            f"left). {'OK' if ok else 'FAILED'}."
        ),
    ]
    from _results import update_section

    update_section("pipeline_cluster", "\n".join(lines))
    print("\n".join(lines))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
