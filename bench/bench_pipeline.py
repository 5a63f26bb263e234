"""Pipeline benchmark (issue 10): the Spark scan per core against the decoder without Spark on the same files,
parallel efficiency local[1] -> local[2], and a task's memory against the file size. Writes section "pipeline".

    .venv/bin/python bench/bench_pipeline.py --size 1GB --hosts 20           # the RESULTS.md run
    .venv/bin/python bench/bench_pipeline.py --size 200MB --repeat 2 --no-memory   # while developing
    .venv/bin/python bench/bench_pipeline.py --no-memory --repeat 3 --baseline-src /tmp/old/src  # before/after

1. Per core: every process pinned to CPU 0 (``taskset``). The baseline runs in a child process: the bare decoder
   (``gtidkit.binlog.file.FileScanner``: every event framed and CRC-checked, every transaction built with every
   field the scan outputs), the same with the cyclic GC off (the executor code pauses it: a stricter baseline)
   and the executor code of the Data Source (``scan.arrow_batches``: the same decode plus the Arrow record
   batches), best CPU time of ``--repeat``, alternately. The Spark side is a warm ``local[1]`` session
   (``bench/_pipeline_worker.py``; JVM start, JIT warm-up and Python-worker start paid before measuring, as on a
   long-lived executor) running the job's scan stage exactly as ``job.run_pipeline`` does (``job.read_scan(...)
   .persist(MEMORY_AND_DISK).count()``: the headline figure) and the same scan into the ``noop`` sink (every
   column materialised, no cache); CPU of the whole process tree (driver, JVM, Python workers), split JVM /
   Python workers. "Spark alone" replays the scan's own record batches from Arrow IPC files through a Data Source
   with the same schema and partitions: what Spark costs for these rows when the Python side does nothing, hence
   the ceiling of the ratio. ``--baseline-src DIR`` (an older ``src/``, e.g. ``git archive main src``) runs that
   gtidkit's executor code and Spark scan in the same rounds, for before/after figures from one run.
2. Parallel efficiency: a warm ``local[1]`` session pinned to one CPU and a warm ``local[2]`` session pinned to
   two run the same scan alternately (never at the same time), ``--repeat`` pairs; efficiency of a pair =
   T1 / (2 x T2) in wall time; the spread over pairs and the load average are reported (the machine is shared).
3. Memory: one host with one binlog of 64 MiB and one of 1 GiB (gtidkit.generate), each scanned in a fresh
   ``local[1]`` session; the Python worker's peak RSS (VmHWM) and, in a plain process, the executor code's peak
   RSS with the file streamed (the Data Source's reader for files over ``scan.MMAP_MAX_BYTES``) and memory-mapped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
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


_BASELINE = r"""
import gc, json, sys, time
from gtidkit.binlog.file import FileScanner
from gtidkit.pipeline import scan, schemas
from gtidkit.pipeline.layout import discover
layout = discover(sys.argv[1])
sch = schemas.arrow_schema(schemas.SCAN)
out = {"decode_s": [], "decode_nogc_s": [], "arrow_s": [], "bytes": layout.total_bytes, "files": len(layout.files)}
first = layout.files[0]  # warm-up, untimed: imports (pyarrow) and first calls, as a warm executor has them
for b in FileScanner(first.path, True).batches(): pass
for b in scan.arrow_batches(first, "scan", sch): pass
def decode():
    n = 0
    for spec in layout.files:
        for b in FileScanner(spec.path, True).batches(): n += len(b)
    return n
for _ in range(int(sys.argv[2])):
    t = time.process_time(); n = decode()
    out["decode_s"].append(time.process_time() - t)
    gc.disable()
    t = time.process_time(); decode()
    out["decode_nogc_s"].append(time.process_time() - t)
    gc.enable()
    t = time.process_time(); rows = 0
    for spec in layout.files:
        for b in scan.arrow_batches(spec, "scan", sch): rows += b.num_rows
    out["arrow_s"].append(time.process_time() - t)
out["transactions"] = n
print(json.dumps(out))
"""


def baseline(corpus: Path, cpu: str | None, repeat: int, src: str | None = None) -> dict:
    """Spark-free CPU seconds over every file, in a child process pinned to ``cpu``: ``decode_s`` (the bare
    decoder), ``decode_nogc_s`` (the same with the cyclic GC off, as the executor code runs it) and ``arrow_s``
    (the Data Source's executor code), ``repeat`` times each, alternately. ``src``: an older gtidkit's ``src/``
    directory put first on PYTHONPATH (``--baseline-src``)."""
    cmd = [
        *(["taskset", "-c", cpu] if cpu else []),
        sys.executable,
        "-c",
        _BASELINE,
        str(corpus),
        str(repeat),
    ]
    return json.loads(
        subprocess.run(cmd, check=True, capture_output=True, text=True, env=_spark_env(src)).stdout
    )


def _spark_env(src: str | None = None) -> dict:
    """The environment of a bench child: Spark on 127.0.0.1, this interpreter for the workers, and ``src`` (an
    older gtidkit's ``src/``) first on PYTHONPATH when given: the driver, and through it the JVM and the Python
    workers, then import that gtidkit instead of the worktree's."""
    env = dict(
        os.environ,
        SPARK_LOCAL_IP="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    if src:
        env["PYTHONPATH"] = str(Path(src).resolve())
    return env


class Session:
    """A warm Spark session in a child process (bench/_pipeline_worker.py), pinned with ``taskset``; ``src``: run
    an older gtidkit (see :func:`_spark_env`)."""

    def __init__(self, master: str, corpus: Path, cpus: str | None, src: str | None = None) -> None:
        cmd = [*(["taskset", "-c", cpus] if cpus else [])]
        cmd += [sys.executable, str(HERE / "_pipeline_worker.py"), master, str(corpus)]
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=_spark_env(src),
        )
        self.ready = self._answer()

    def _answer(self) -> dict:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                return json.loads(line)
        raise SystemExit(f"Spark session exited ({self.proc.wait()})")

    def run(self, command: str) -> dict:
        """Send one command; its answer (wall, cpu split, worker_hwm_kib)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self) -> None:
        """Stop the session and wait for the child."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def write_replay(corpus: Path, dest: Path) -> None:
    """The executor code's record batches (``scan.arrow_batches``, level ``scan``) of every binlog of ``corpus``,
    stored as Arrow IPC files ``dest/<host>__<file>.arrow`` for the workers' ``replay_*`` commands."""
    import pyarrow as pa

    from gtidkit.pipeline import scan, schemas
    from gtidkit.pipeline.layout import discover

    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    schema = schemas.arrow_schema(schemas.SCAN)
    for spec in discover(corpus).files:
        path = str(dest / f"{spec.host}__{spec.file}.arrow")
        with pa.OSFile(path, "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
            for batch in scan.arrow_batches(spec, "scan", schema):
                writer.write_batch(batch)


def _total(r: dict) -> float:
    return sum(r["cpu"].values())


_PEAK_RSS = r"""
import json, sys, time
from pathlib import Path
from gtidkit.pipeline import scan, schemas
from gtidkit.pipeline.layout import FileSpec
p = Path(sys.argv[1])
if sys.argv[2] == "mmap":
    scan.MMAP_MAX_BYTES = 1 << 62
elif sys.argv[2] == "stream":
    scan.MMAP_MAX_BYTES = 0
spec = FileSpec("h", str(p), p.name, "s", None, 0, p.stat().st_size)
def hwm():
    with open("/proc/self/status") as fh:
        return next(int(x.split()[1]) for x in fh if x.startswith("VmHWM"))
before = hwm(); t = time.process_time()
rows = sum(b.num_rows for b in scan.arrow_batches(spec, "scan", schemas.arrow_schema(schemas.SCAN)))
print(json.dumps({"rows": rows, "before_kib": before, "peak_kib": hwm(), "cpu": time.process_time() - t}))
"""


def memory(workdir: Path, cpu: str | None) -> list[dict]:
    """Peak RSS of a task against the file size (see the module docstring, part 3)."""
    from gtidkit.generate import generate_corpus

    out = []
    for label, size in (("64 MiB", 64 << 20), ("1 GiB", 1 << 30)):
        d = workdir / f"memory-{size}"
        files = sorted(d.rglob("binlog.0*")) if (d / "manifest.json").exists() else []
        if len(files) != 1:
            generate_corpus(d, size, hosts=1, max_binlog_size=size + (64 << 20), overwrite=True)
            files = sorted(d.rglob("binlog.0*"))
        (path,) = files
        row = {"label": label, "bytes": path.stat().st_size}
        for mode in ("default", "stream", "mmap"):
            cmd = [*(["taskset", "-c", cpu] if cpu else []), sys.executable, "-c", _PEAK_RSS, str(path), mode]
            row[mode] = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        s = Session("local[1]", path.parent.parent, cpu)
        try:
            row["spark"] = s.run(f"file {path}")
        finally:
            s.close()
        out.append(row)
    return out


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _row(label: str, runs: list[dict], decode: float, size: int, ratio: bool = True) -> str:
    """One table row of part 1 for the Spark runs ``runs`` (best by total CPU); ``ratio``: fill the last column
    (not for the replay rows, which decode nothing)."""
    best = min(runs, key=_total)
    med = statistics.median(_total(r) for r in runs)
    last = f"**{_pct(decode / _total(best))}**" if ratio else "(no decoding)"
    return (
        f"| {label} | {_total(best):.2f} | {med:.2f} | {best['cpu']['java']:.2f} | "
        f"{best['cpu']['python_worker']:.2f} | {size / _total(best) / 1e6:.0f} | {last} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=parse_size, default=parse_size("1GB"), help="corpus size (default 1GB)")
    ap.add_argument("--hosts", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3, help="repetitions of every measurement (default 3)")
    ap.add_argument("--workdir", type=Path, default=HERE / "out" / "pipeline")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory part (generates 1 GiB)")
    ap.add_argument(
        "--baseline-src",
        help="an older gtidkit's src/ directory (e.g. from `git archive`): its executor code and its Spark scan "
        "run in the same rounds (alternately), for before/after figures measured in one run",
    )
    ap.add_argument("--baseline-label", help="how the command line in RESULTS.md names --baseline-src")
    ap.add_argument(
        "--jobs", action="store_true", help="also run the whole job once on local[1] and local[2]"
    )
    args = ap.parse_args()

    corpus = args.workdir / f"corpus-{args.size}-{args.hosts}"
    gen = ensure_corpus(corpus, args.size, args.hosts)
    size = gen["bytes"]
    print(f"corpus {corpus}: {size} bytes ({'generated' if gen['generated'] else 'reused'})", flush=True)
    pin = shutil.which("taskset") is not None and (os.cpu_count() or 1) >= 2
    one, two = ("0", "0,1") if pin else (None, None)
    loads = [os.getloadavg()[0]]
    old_src = args.baseline_src

    # 1. per core
    base = baseline(corpus, one, args.repeat)
    decode, decode_nogc, arrow = min(base["decode_s"]), min(base["decode_nogc_s"]), min(base["arrow_s"])
    print(
        f"baseline: decode {base['decode_s']} nogc {base['decode_nogc_s']} arrow {base['arrow_s']}",
        flush=True,
    )
    old_arrow = None
    if old_src:
        old_base = baseline(corpus, one, args.repeat, old_src)
        old_arrow = min(old_base["arrow_s"])
        print(f"baseline before: arrow {old_base['arrow_s']}", flush=True)
    replay = args.workdir / f"replay-{args.size}-{args.hosts}"
    write_replay(corpus, replay)
    s1 = Session("local[1]", corpus, one)
    print(f"session: {s1.ready}", flush=True)
    s1.run(f"replay_noop {replay}")  # warm-up of the replay source, untimed
    s1.run(f"replay_persist {replay}")
    s0 = Session("local[1]", corpus, one, old_src) if old_src else None
    if s0 is not None:
        print(f"session before: {s0.ready}", flush=True)
    noop1, persist1, noop0, persist0, rnoop, rpersist = [], [], [], [], [], []
    try:
        for _ in range(args.repeat):
            persist1.append(s1.run("persist"))
            noop1.append(s1.run("noop"))
            rpersist.append(s1.run(f"replay_persist {replay}"))
            rnoop.append(s1.run(f"replay_noop {replay}"))
            print(f"local[1] persist {persist1[-1]} noop {noop1[-1]}", flush=True)
            print(f"replay persist {rpersist[-1]} noop {rnoop[-1]}", flush=True)
            if s0 is not None:
                persist0.append(s0.run("persist"))
                noop0.append(s0.run("noop"))
                print(f"before: local[1] persist {persist0[-1]} noop {noop0[-1]}", flush=True)
        if s0 is not None:
            s0.close()
            s0 = None
        loads.append(os.getloadavg()[0])
        # 2. parallel efficiency: the same warm local[1] session against a warm local[2] one, alternately
        s2 = Session("local[2]", corpus, two)
        pairs = []
        try:
            for _ in range(args.repeat):
                a = s1.run("noop")
                b = s2.run("noop")
                pairs.append((a, b, os.getloadavg()[0]))
                print(f"pair: local[1] {a['wall']:.2f} s, local[2] {b['wall']:.2f} s", flush=True)
        finally:
            s2.close()
    finally:
        s1.close()
        if s0 is not None:
            s0.close()
    loads.append(os.getloadavg()[0])
    mem = None if args.no_memory else memory(args.workdir, one)

    best_noop = min(noop1, key=_total)
    best_persist = min(persist1, key=_total)
    med_noop = statistics.median(_total(r) for r in noop1)
    med_persist = statistics.median(_total(r) for r in persist1)
    effs = [a["wall"] / (2 * b["wall"]) for a, b, _ in pairs]
    cpu_ratio = [_total(b) / _total(a) for a, b, _ in pairs]
    command = (
        f"Command: `.venv/bin/python bench/bench_pipeline.py --size {args.size} --hosts {args.hosts} "
        f"--repeat {args.repeat}{' --no-memory' if args.no_memory else ''}"
        + (f" --baseline-src {args.baseline_label or old_src}" if old_src else "")
        + "`"
    )
    lines = [
        "## Pipeline: Spark scan per core, parallel efficiency, task memory (issue 10)",
        "",
        command,
        "",
        (
            f"Corpus: {size / 1e6:.0f} MB of MySQL 8.0 binlogs (gtidkit.generate.generate_corpus), {args.hosts} hosts, "
            f"{base['files']} files, {base['transactions']} transactions ({size / base['transactions']:.0f} bytes "
            f"each on average). Python {sys.version.split()[0]}, 2 cores shared with other engineers' jobs; load "
            f"average {', '.join(f'{x:.1f}' for x in loads)} (start, after part 1, end). "
            f"{'Every process tree pinned with taskset.' if pin else 'Not pinned (no taskset).'}"
        ),
        "",
        "### 1. Spark scan per core vs the decoder without Spark (same files, same fields, CPU seconds)",
        "",
        (
            "| what (all on one CPU) | CPU s (best) | CPU s (median) | JVM s | Python workers s | MB per CPU-s | "
            "bare decoder's CPU / this CPU |"
        ),
        "|---|---|---|---|---|---|---|",
        (
            f"| bare decoder, no Spark (`FileScanner.batches`) | {decode:.2f} | "
            f"{statistics.median(base['decode_s']):.2f} | | | {size / decode / 1e6:.0f} | 100% |"
        ),
        (
            f"| the same, cyclic GC off (as the executor code runs) | {decode_nogc:.2f} | "
            f"{statistics.median(base['decode_nogc_s']):.2f} | | | {size / decode_nogc / 1e6:.0f} | "
            f"{_pct(decode / decode_nogc)} |"
        ),
        (
            f"| executor code, no Spark (`scan.arrow_batches`: decode + Arrow batches) | {arrow:.2f} | "
            f"{statistics.median(base['arrow_s']):.2f} | | | {size / arrow / 1e6:.0f} | {_pct(decode / arrow)} |"
        ),
    ]
    if old_arrow is not None:
        lines.append(
            f"| before (`--baseline-src`): executor code, no Spark | {old_arrow:.2f} | "
            f"{statistics.median(old_base['arrow_s']):.2f} | | | {size / old_arrow / 1e6:.0f} | "
            f"{_pct(decode / old_arrow)} |"
        )
    lines.append(
        _row(
            "**Spark local[1], the job's scan stage** (`read_scan(...).persist(MEMORY_AND_DISK).count()`, as "
            "`job.run_pipeline` runs it)",
            persist1,
            decode,
            size,
        )
    )
    if persist0:
        lines.append(_row("before (`--baseline-src`): the job's scan stage", persist0, decode, size))
    lines.append(_row("Spark local[1], the job's scan into the `noop` sink (no cache)", noop1, decode, size))
    if noop0:
        lines.append(_row("before (`--baseline-src`): the scan into the `noop` sink", noop0, decode, size))
    lines.append(
        _row(
            "Spark alone: the scan stage with the same batches replayed from Arrow IPC files (no decoding)",
            rpersist,
            decode,
            size,
            ratio=False,
        )
    )
    lines.append(
        _row("Spark alone: the `noop` scan with the batches replayed", rnoop, decode, size, ratio=False)
    )
    strict = min(decode, decode_nogc)
    spark_stage = min(_total(r) for r in rpersist)
    spark_noop = min(_total(r) for r in rnoop)
    lines += [
        "",
        (
            f"Spark scan stage per core (as the job runs it) = **{_pct(decode / _total(best_persist))}** of the "
            f"no-Spark decode rate (best of {args.repeat}; median {_pct(decode / med_persist)}); the bare scan into "
            f"the `noop` sink **{_pct(decode / _total(best_noop))}** (median {_pct(decode / med_noop)}); target "
            f">= 70 %. Against the bare decoder with the GC off as well (the stricter baseline): "
            f"{_pct(strict / _total(best_persist))} and {_pct(strict / _total(best_noop))}. Where the rest goes "
            f"(best runs): the Python workers spend {best_noop['cpu']['python_worker']:.2f} s against "
            f"{arrow:.2f} s for the same code outside Spark (the difference is Spark's per-task and per-query cost in "
            f"the workers and the Arrow IPC stream to the JVM), the JVM {best_noop['cpu']['java']:.2f} s turning the "
            f"Arrow batches into rows (Spark 4.x's Python Data Source has no columnar read path: "
            f"`PythonPartitionReaderFactory.supportColumnarReads` is false) plus, for the scan stage, "
            f"{best_persist['cpu']['java'] - best_noop['cpu']['java']:.2f} s building the in-memory cache. "
            "Each figure includes the query's fixed cost (planning, the data source's listing, task set-up)."
        ),
        "",
        (
            f"What Spark itself costs for these rows (the replay rows: the scan's own batches, schema and partitions "
            f"read back from Arrow IPC files, so the Python side does almost nothing but hand them over): "
            f"{spark_stage:.2f} CPU s for the scan stage, {spark_noop:.2f} s into `noop`. Even with decoding and "
            f"Arrow building free of any overhead the ratio could not exceed decode / (decode + Spark alone) = "
            f"**{_pct(decode / (decode + spark_stage))}** for the scan stage and "
            f"**{_pct(decode / (decode + spark_noop))}** for `noop`."
        ),
        "",
        "### 2. Parallel efficiency local[1] → local[2] (the job's scan, warm sessions, alternately)",
        "",
        (
            "| pair | local[1] wall s | local[2] wall s | efficiency T1 / (2 T2) | CPU local[2] / local[1] | "
            "load average |"
        ),
        "|---|---|---|---|---|---|",
    ]
    for i, ((a, b, load), e, c) in enumerate(zip(pairs, effs, cpu_ratio), 1):
        lines.append(f"| {i} | {a['wall']:.2f} | {b['wall']:.2f} | {_pct(e)} | {c:.2f} | {load:.1f} |")
    lines += [
        "",
        (
            f"Parallel efficiency of the scan: median **{_pct(statistics.median(effs))}**, spread "
            f"{_pct(min(effs))}–{_pct(max(effs))} over {len(effs)} pairs (target >= 70 %). The machine's two CPUs "
            "are shared with other engineers' jobs, so local[2] rarely gets both CPUs to itself: the CPU ratio "
            "column (1.00 = no parallel overhead) separates Spark's own overhead from that contention."
        ),
    ]
    if mem:
        lines += [
            "",
            "### 3. A task's memory against the file size",
            "",
            (
                "| binlog | Spark local[1]: Python worker peak RSS | executor code peak RSS, as the Data Source "
                "reads it | streamed | memory-mapped |"
            ),
            "|---|---|---|---|---|",
        ]
        for r in mem:

            def rss(d: dict) -> str:
                return f"{d['peak_kib'] / 1024:.0f} MiB (+{(d['peak_kib'] - d['before_kib']) / 1024:.0f})"

            lines.append(
                f"| {r['label']} ({r['bytes'] / 2**20:.0f} MiB, {r['default']['rows']} rows) | "
                f"{r['spark']['worker_hwm_kib'] / 1024:.0f} MiB | {rss(r['default'])} | {rss(r['stream'])} | "
                f"{rss(r['mmap'])} |"
            )
        lines += [
            "",
            (
                "Peak RSS is VmHWM (file-backed pages included; in parentheses the growth during the scan). A "
                "memory-mapped scan keeps every page of the file it has read in the resident set, so the Data Source "
                f"maps only files of at most {2**-20 * _mmap_max():.0f} MiB and streams larger ones through a window "
                "(gtidkit.binlog.file.StreamScanner): the task's peak then stays flat in the file size."
            ),
        ]
    update_section("pipeline", "\n".join(lines))
    print("\n".join(lines))


def _mmap_max() -> int:
    from gtidkit.pipeline.scan import MMAP_MAX_BYTES

    return MMAP_MAX_BYTES


if __name__ == "__main__":
    main()
