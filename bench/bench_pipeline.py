"""Pipeline benchmark: a generated corpus (default 2 GB, 20 hosts) through the PySpark job on local[1] and
local[2]; parallel efficiency and a cost estimate for 10 TB on a cluster. Writes section "pipeline".

    .venv/bin/python bench/bench_pipeline.py                 # full size: 2 GB, 20 hosts
    .venv/bin/python bench/bench_pipeline.py --size 200MB    # while developing (shared machine)

Each Spark master runs in its own process (one JVM per run, as spark-submit would), via
``python -m gtidkit.pipeline.app``; the figures are the job's own stage timings (JVM start excluded). A
Spark-free baseline decodes the same files in this process with the same executor-side code
(``gtidkit.pipeline.scan.scan_records``), which gives Spark's overhead per core.

Parallel efficiency = T(local[1]) / (2 x T(local[2])); target >= 70 %.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _results import update_section

#: On-demand price of one vCPU-hour used for the estimate (AWS m6i.xlarge, 4 vCPU at $0.192/h, us-east-1).
USD_PER_VCPU_HOUR = 0.048


def parse_size(text: str) -> int:
    """``2GB``, ``200MB``, ``512MiB``, or a byte count → bytes."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([KMGT]?)(i?)B?\s*", text, re.IGNORECASE)
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r}")
    base = 1024 if m.group(3) else 1000
    power = " KMGT".index(m.group(2).upper() or " ")
    return int(float(m.group(1)) * base**power)


def ensure_corpus(path: Path, size: int, hosts: int) -> dict:
    """Generate the corpus unless ``path`` already holds one of the same size and host count."""
    from gtidkit.generate import generate_corpus

    manifest = path / "manifest.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        if (
            data.get("kind") == "corpus"
            and len(data["hosts"]) == hosts
            and abs(data["total_bytes"] - size) < 0.05 * size
        ):
            return {"generated": False, "seconds": 0.0, "bytes": data["total_bytes"]}
    t = time.perf_counter()
    m = generate_corpus(path, size, hosts, overwrite=True)
    return {"generated": True, "seconds": time.perf_counter() - t, "bytes": m.total_bytes}


_CLK = os.sysconf("SC_CLK_TCK")


def _proc_table() -> dict[int, tuple[int, int]]:
    """pid → (ppid, utime + stime ticks) of every process, from /proc (Linux)."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        table[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    return table


def _tree_cpu(root: int, seen: dict[int, int]) -> None:
    """Record the CPU ticks of ``root`` and all its descendants into ``seen`` (highest value per pid)."""
    table = _proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    stack = [root]
    while stack:
        pid = stack.pop()
        if pid in table:
            seen[pid] = max(seen.get(pid, 0), table[pid][1])
        stack.extend(children.get(pid, []))


def run_job(master: str, corpus: Path, out: Path, cpus: str | None = None) -> dict:
    """One pipeline run in a fresh process; returns its summary.json plus the process wall time.

    Args:
        cpus: a ``taskset -c`` CPU list ("0", "0,1") the whole process tree (app, JVM, Python workers) is pinned
            to, so that ``local[N]`` really gets N cores; ``None`` = no pinning.
    """
    env = dict(
        os.environ,
        SPARK_LOCAL_IP="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    t = time.perf_counter()
    seen: dict[int, int] = {}
    with subprocess.Popen(
        (
            [*(["taskset", "-c", cpus] if cpus else [])]
            + [
                sys.executable,
                "-m",
                "gtidkit.pipeline.app",
                "--master",
                master,
                "--input",
                str(corpus),
                "--output",
                str(out),
            ]
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        import threading

        result: dict[str, str] = {}
        reader = threading.Thread(target=lambda: result.update(zip(("out", "err"), proc.communicate())))
        reader.start()
        while reader.is_alive():
            _tree_cpu(proc.pid, seen)  # the JVM and the Python workers are descendants of the app
            reader.join(0.5)
    wall = time.perf_counter() - t
    cpu = sum(seen.values()) / _CLK  # CPU of the app, its JVM and Python workers, sampled every 0.5 s
    stdout, stderr = result.get("out", ""), result.get("err", "")
    if proc.returncode != 0:
        raise SystemExit(f"pipeline on {master} failed ({proc.returncode}):\n{stderr[-4000:]}")
    summary = json.loads(stdout)
    summary["process_wall_s"] = wall
    summary["process_cpu_s"] = cpu  # driver JVM (= local executor) + Python workers, whole process
    return summary


def baseline(corpus: Path, cpu: str | None) -> dict:
    """Spark-free, in a child process pinned like local[1]: (a) the bare decoder (``FileScanner.batches``: every
    event framed and CRC-checked, transactions built) and (b) the executor-side code of the Data Source
    (``scan.arrow_batches``: decoder + Arrow record batches); CPU seconds of each over every file."""
    code = (
        "import json, sys, time\n"
        "from gtidkit.binlog.file import FileScanner\n"
        "from gtidkit.pipeline import scan, schemas\n"
        "from gtidkit.pipeline.layout import discover\n"
        "layout = discover(sys.argv[1])\n"
        "t = time.process_time(); n = 0\n"
        "for spec in layout.files:\n"
        "    for b in FileScanner(spec.path, True).batches(): n += len(b)\n"
        "decode = time.process_time() - t\n"
        "sch = schemas.arrow_schema(schemas.SCAN)\n"
        "t = time.process_time(); rows = 0\n"
        "for spec in layout.files:\n"
        "    for b in scan.arrow_batches(spec, 'scan', sch): rows += b.num_rows\n"
        "arrow = time.process_time() - t\n"
        "print(json.dumps({'decode_s': decode, 'arrow_s': arrow, 'transactions': n, 'records': rows,\n"
        "                  'bytes': layout.total_bytes, 'files': len(layout.files)}))\n"
    )
    cmd = [*(["taskset", "-c", cpu] if cpu else []), sys.executable, "-c", code, str(corpus)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    data = json.loads(out)
    data["seconds"] = data["decode_s"]
    return data


def steady_scan(corpus: Path, cpu: str | None) -> dict:
    """The job's scan stage (``read_scan(...).persist().count()``) in a warm local[1] session pinned like the job:
    one small job first (JVM start, JIT, Python worker imports: a one-time cost per executor), then the scan of the
    whole corpus; CPU seconds of the process tree (driver, JVM, Python workers) and wall seconds of each."""
    code = (
        "import json, sys, time\n"
        "from pyspark import StorageLevel\n"
        "from gtidkit.pipeline.job import read_scan\n"
        "from gtidkit.pipeline.layout import discover\n"
        "from gtidkit.pipeline.session import build_session, process_tree_cpu\n"
        "spark = build_session('local[1]')\n"
        "first = discover(sys.argv[1]).files[0]\n"
        "c, t = process_tree_cpu(), time.perf_counter()\n"
        "read_scan(spark, first.path).count()\n"
        "warm_cpu, warm_s = process_tree_cpu() - c, time.perf_counter() - t\n"
        "c, t = process_tree_cpu(), time.perf_counter()\n"
        "df = read_scan(spark, sys.argv[1]).persist(StorageLevel.MEMORY_AND_DISK)\n"
        "n = df.count()\n"
        "print(json.dumps({'warmup_cpu': warm_cpu, 'warmup_s': warm_s, 'scan_cpu': process_tree_cpu() - c,\n"
        "                  'scan_s': time.perf_counter() - t, 'records': n}))\n"
        "spark.stop()\n"
    )
    env = dict(
        os.environ,
        SPARK_LOCAL_IP="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    cmd = [*(["taskset", "-c", cpu] if cpu else []), sys.executable, "-c", code, str(corpus)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=parse_size, default=parse_size("2GB"), help="corpus size (default 2GB)")
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--workdir", type=Path, default=HERE / "out" / "pipeline")
    ap.add_argument("--no-baseline", action="store_true", help="skip the Spark-free baseline")
    ap.add_argument(
        "--no-pin",
        action="store_true",
        help="do not pin local[N] to N CPUs with taskset (pinning is the default when taskset exists)",
    )
    args = ap.parse_args()

    corpus = args.workdir / f"corpus-{args.size}-{args.hosts}"
    gen = ensure_corpus(corpus, args.size, args.hosts)
    how = f"generated in {gen['seconds']:.1f} s" if gen["generated"] else "reused"
    print(f"corpus {corpus}: {gen['bytes']} bytes ({how})")
    pin = not args.no_pin and shutil.which("taskset") is not None and (os.cpu_count() or 1) >= 2
    load_before = f"{os.getloadavg()[0]:.1f}"
    base = None if args.no_baseline else baseline(corpus, "0" if pin else None)
    if base:
        print(
            f"baseline (no Spark, 1 core): decode {base['decode_s']:.1f} s "
            f"({base['bytes'] / base['decode_s'] / 1e6:.1f} MB/s), decode + Arrow {base['arrow_s']:.1f} s"
        )
    steady = None if args.no_baseline else steady_scan(corpus, "0" if pin else None)
    if steady:
        print(f"steady-state scan (warm local[1]): {steady}")
    runs = {}
    for master, cpus in (("local[1]", "0"), ("local[2]", "0,1")):
        s = run_job(master, corpus, args.workdir / f"out-{master[6:-1]}", cpus if pin else None)
        runs[master] = s
        print(
            f"{master}: timings {s['timings_s']} (process {s['process_wall_s']:.1f} s); counts {s['counts']}"
        )
    t1, t2 = runs["local[1]"]["timings_s"], runs["local[2]"]["timings_s"]
    size = gen["bytes"]
    job1 = t1["scan"] + t1["tables"] + t1["state"]
    job2 = t2["scan"] + t2["tables"] + t2["state"]
    eff_job = job1 / (2 * job2)
    eff_scan = t1["scan"] / (2 * t2["scan"])
    mbps_core = size / t1["scan"] / 1e6
    # 10 TB estimate: the scan scales with cores (one task per file); per-core rate from local[1], discounted by
    # the measured 2-core efficiency; the small-table stages are negligible at that size relative to the scan.
    tb10 = 10e12
    core_hours = tb10 / (mbps_core * 1e6 * min(1.0, eff_scan)) / 3600
    cost = core_hours * USD_PER_VCPU_HOUR
    wall_100 = core_hours / 100
    files_10tb = int(tb10 / (1 << 30))
    lines = [
        "## Pipeline (PySpark job on a generated corpus)",
        "",
        (
            f"Command: `.venv/bin/python bench/bench_pipeline.py --size {args.size} --hosts {args.hosts}"
            f"{' --no-pin' if not pin else ''}`"
        ),
        "",
        (
            f"Corpus: {size / 1e6:.0f} MB of MySQL 8.0 binlogs, {args.hosts} hosts, "
            f"{runs['local[2]']['counts']['files']} files, {runs['local[2]']['counts']['transactions']} transactions "
            f"(gtidkit.generate.generate_corpus). Machine: 2 cores shared with other work."
        ),
        "",
        (
            "| run | scan s | scan CPU s | tables s | state s | job s | scan MB/s (wall) | MB per scan CPU-s "
            "| process CPU s / wall s (cores busy) |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for master, s in runs.items():
        t = s["timings_s"]
        sc = t.get("scan_cpu")
        lines.append(
            f"| {master} | {t['scan']:.1f} | {'' if sc is None else f'{sc:.1f}'} | {t['tables']:.1f} | "
            f"{t['state']:.1f} | {t['scan'] + t['tables'] + t['state']:.1f} | "
            f"{size / t['scan'] / 1e6:.1f} | {'' if not sc else f'{size / sc / 1e6:.1f}'} | "
            f"{s['process_cpu_s']:.0f} / {s['process_wall_s']:.0f} "
            f"({s['process_cpu_s'] / s['process_wall_s']:.2f}) |"
        )
    if base:
        lines.append(
            f"| no Spark, 1 core: decoder only (`FileScanner`) | | {base['decode_s']:.1f} | | | | | "
            f"{size / base['decode_s'] / 1e6:.1f} | |"
        )
        lines.append(
            f"| no Spark, 1 core: executor code (`scan.arrow_batches`: decode + Arrow) | | "
            f"{base['arrow_s']:.1f} | | | | | {size / base['arrow_s'] / 1e6:.1f} | |"
        )
    lines += [
        "",
        (
            f"Parallel efficiency local[1] → local[2]: **{eff_job:.0%}** for the whole job, **{eff_scan:.0%}** for the "
            f"scan stage (target >= 70 %)."
        ),
    ]
    busy1 = runs["local[1]"]["process_cpu_s"] / runs["local[1]"]["process_wall_s"]
    busy2 = runs["local[2]"]["process_cpu_s"] / runs["local[2]"]["process_wall_s"]
    if pin:
        lines.append(
            f"Each run's whole process tree (app, JVM, Python workers) was pinned with `taskset` to as many CPUs as "
            f"task slots (local[1] → CPU 0, local[2] → CPUs 0,1), so local[N] really had N cores; cores busy: "
            f"local[1] {busy1:.2f}, local[2] {busy2:.2f} (CPU of the app, its JVM and Python workers sampled from "
            f"/proc)."
        )
    else:
        lines.append(
            f"Not pinned (`--no-pin`): local[1] is one task slot, not one core — the Python worker decoding a file "
            f"and the JVM are separate processes working at the same time, so local[1] kept {busy1:.2f} cores busy "
            f"and local[2] {busy2:.2f}; on a 2-core machine the local[1] → local[2] speedup is then capped by the "
            f"CPU local[1] already used."
        )
    if base:
        cpu1 = t1.get("scan_cpu") or t1["scan"]
        cpu2 = t2.get("scan_cpu") or t2["scan"]
        lines.append(
            f"Spark scan stage per core, in CPU seconds of the whole local[1] process tree (driver, JVM, Python "
            f"workers: {cpu1:.1f} s for the scan stage, i.e. {size / cpu1 / 1e6:.1f} MB per CPU-second) vs the "
            f"bare decoder on the same files ({base['decode_s']:.1f} CPU s): **{base['decode_s'] / cpu1:.0%}** "
            f"of the no-Spark decode rate (target >= 70 %); vs the executor code alone (decode + Arrow batches, "
            f"{base['arrow_s']:.1f} CPU s): **{base['arrow_s'] / cpu1:.0%}**. By wall time: "
            f"{base['decode_s'] / t1['scan']:.0%} / {base['arrow_s'] / t1['scan']:.0%}. The Data Source yields "
            "`pyarrow.RecordBatch`es of 8192 transactions, so Spark does no per-row Python conversion."
        )
        if steady:
            lines.append(
                f"Steady state (a warm local[1] session, pinned the same way, the same `read_scan(...).persist()"
                f".count()` after one small job that pays the JVM/JIT and Python-worker start, "
                f"{steady['warmup_cpu']:.1f} CPU s once per executor): **{steady['scan_cpu']:.1f} CPU s** for the "
                f"corpus = {size / steady['scan_cpu'] / 1e6:.1f} MB per CPU-second = "
                f"**{base['decode_s'] / steady['scan_cpu']:.0%}** of the bare decoder's rate and "
                f"**{base['arrow_s'] / steady['scan_cpu']:.0%}** of the executor code's."
            )
        lines.append(
            f"Scan-stage CPU local[2] / local[1]: {cpu2 / cpu1:.2f} (CPU spent for the same work on two cores; "
            f"1.00 = no parallel overhead). Load average during the runs: {load_before} → {os.getloadavg()[0]:.1f} "
            f"on {os.cpu_count()} CPUs (other engineers' jobs share them), which inflates wall times, not CPU "
            "times."
        )
    lines += [
        "",
        "### Cost estimate for 10 TB on a cluster",
        "",
        (
            f"- Measured decode rate: {mbps_core:.1f} MB/s per core in the Spark scan (local[1]). The scan is "
            f"embarrassingly parallel (one task per binlog file; 10 TB of 1 GiB binlogs is ~{files_10tb} tasks), so "
            f"it scales with cores at about the measured efficiency ({min(1.0, eff_scan):.0%})."
        ),
        (
            f"- 10 TB ≈ **{core_hours:,.0f} core-hours** of scan ≈ {wall_100:,.1f} h on a 100-core cluster "
            f"(e.g. 25 x m6i.xlarge), ≈ **${cost:,.0f}** on demand at ${USD_PER_VCPU_HOUR}/vCPU-hour "
            "(spot is ~3x cheaper). The later stages work on one row per transaction, then on compressed "
            "intervals, and add little; Parquet output is about 5-8 % of the input size."
        ),
        (
            "- Input must be on storage the executors can read (HDFS/S3 mount/NFS); reading at this rate needs "
            f"≈ {mbps_core * 100 / 1000:.1f} GB/s aggregate for 100 cores."
        ),
    ]
    update_section("pipeline", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
