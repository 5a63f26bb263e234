"""Where a sysbench oltp_read_write transaction's time goes in `gtidkit server --workers=N` (issue 21): the write
lock's hold (wall and the holder thread's CPU), the waits for it, the WAL fsyncs per transaction, the CPU of the
commit path's parts, and the server's CPU per transaction per process; load-independent quantities first.

For each tree (this one and ``--baseline-src``, alternating, ``--rounds`` times) and each thread count: a fresh
datadir, ``gtidkit server --log-bin --gtid-mode=ON --enforce-gtid-consistency=ON --workers=N`` on 127.0.0.1 with
bench/hold_probe on its PYTHONPATH (the probe wraps the write lock, the WAL fsync and a few commit-path functions in
the worker processes only, see its docstring), sysbench 1.0.20 ``oltp_read_write`` (1 table of 10000 rows,
prepared statements) for ``--seconds``. Figures: sysbench's TPS; the server's CPU (all its processes) per
transaction; write-lock holds (median wall µs, median holder CPU µs, share of the wall time the lock is held);
fsyncs per transaction; the CPU µs per transaction of the commit path's parts. Writes the ``rw_hold`` section of
bench/RESULTS.md.

Usage: .venv/bin/python bench/bench_rw_hold.py [--workers 2] [--threads 1,4] [--seconds 8] [--rounds 2]
           [--baseline-src /tmp/base/src] [--config 'row locks=--gtidkit-row-locks=ON'] [--no-write]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import update_section

HERE = Path(__file__).resolve().parent
PROBE = HERE / "hold_probe"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cpu_ticks(pgid: int) -> dict[int, int]:
    """utime + stime (clock ticks) of every live process of process group ``pgid``."""
    out = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            out[int(p)] = int(fields[11]) + int(fields[12])
    return out


def _sysbench(port: int) -> list[str]:
    exe = shutil.which("sysbench")
    if exe is None:
        raise SystemExit("sysbench is not installed")
    return [
        exe,
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        f"--mysql-port={port}",
        "--mysql-user=root",
        "--mysql-password=",
        "--tables=1",
        "--table-size=10000",
    ]


def run_once(
    src: str,
    workers: int,
    threads: int,
    seconds: int,
    test: str = "oltp_read_write",
    extra: tuple[str, ...] = (),
) -> dict[str, object]:
    """One server of tree ``src`` (with the server options ``extra``) on a fresh datadir, one sysbench run; the
    figures of the module docstring."""
    import pymysql

    tmp = Path(tempfile.mkdtemp(prefix="rwhold"))
    probe_dir = tmp / "probe"
    probe_dir.mkdir()
    env = dict(os.environ, PYTHONPATH=f"{PROBE}:{src}", GK_PROBE_DIR=str(probe_dir))
    port = _free_port()
    with open(tmp / "server.log", "w") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gtidkit",
                "server",
                f"--datadir={tmp / 'data'}",
                f"--port={port}",
                "--bind-address=127.0.0.1",
                "--log-bin",
                "--gtid-mode=ON",
                "--enforce-gtid-consistency=ON",
                f"--workers={workers}",
                *extra,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    try:
        for _ in range(240):
            try:
                pymysql.connect(host="127.0.0.1", port=port, user="root", password="").close()
                break
            except pymysql.err.OperationalError:
                time.sleep(0.5)
        c = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
        c.cursor().execute("CREATE DATABASE sbtest")
        c.close()
        sb = _sysbench(port)
        subprocess.run([sb[0], "oltp_read_write", *sb[1:], "prepare"], capture_output=True, check=True)
        (probe_dir / "start").touch()
        time.sleep(0.5)  # the probes' watchers poll every 0.1 s
        t0 = _cpu_ticks(proc.pid)
        r = subprocess.run(
            [sb[0], test, *sb[1:], f"--threads={threads}", f"--time={seconds}", "run"],
            capture_output=True,
            text=True,
            check=True,
        )
        t1 = _cpu_ticks(proc.pid)
        (probe_dir / "dump").touch()
        deadline = time.monotonic() + 30
        while len(glob.glob(str(probe_dir / "probe.*.json"))) < workers and time.monotonic() < deadline:
            time.sleep(0.2)
        load = os.getloadavg()[0]
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(60)
    trx = tps = 0.0
    for line in r.stdout.splitlines():
        line = line.strip()
        if line.startswith("transactions:"):
            trx = float(line.split()[1])
            tps = float(line.split("(")[1].split()[0])
    tick = os.sysconf("SC_CLK_TCK")
    cpu = sum(v - t0.get(p, 0) for p, v in t1.items()) / tick
    holds: list[float] = []
    hold_cpu: list[float] = []
    waits: list[float] = []
    fsyncs: list[float] = []
    parts: dict[str, float] = {}
    for f in glob.glob(str(probe_dir / "probe.*.json")):
        d = json.loads(Path(f).read_text())
        holds += d["hold"]
        hold_cpu += d["hold_cpu"]
        waits += d["wait"]
        fsyncs += d["fsync"]
        for label, (_n, t) in d["cpu"].items():
            parts[label] = parts.get(label, 0.0) + t
    shutil.rmtree(tmp, ignore_errors=True)
    n = max(trx, 1.0)
    return {
        "tps": tps,
        "trx": trx,
        "load": load,
        "cpu_us_per_trx": cpu / n * 1e6,
        "hold_us": statistics.median(holds) * 1e6 if holds else 0.0,
        "hold_cpu_us": statistics.median(hold_cpu) * 1e6 if hold_cpu else 0.0,
        "held_share": sum(holds) / seconds,
        "wait_share": sum(waits) / (seconds * threads),
        "fsyncs_per_trx": len(fsyncs) / n,
        "fsync_us": statistics.median(fsyncs) * 1e6 if fsyncs else 0.0,
        "parts_us_per_trx": {k: v / n * 1e6 for k, v in parts.items()},
    }


def main() -> None:
    """Run the configurations and write the ``rw_hold`` section."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", default="1,4")
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--baseline-src", help="an older src/ (git archive): its server runs alternately")
    ap.add_argument("--baseline-label", default="before")
    ap.add_argument("--label", default="this tree")
    ap.add_argument("--test", default="oltp_read_write", help="the sysbench workload (oltp_write_only ...)")
    ap.add_argument(
        "--config",
        action="append",
        default=[],
        help="'LABEL=OPTIONS': this tree once more with these server options (e.g. 'row locks=--gtidkit-row-locks=ON')",
    )
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    trees: list[tuple[str, str, tuple[str, ...]]] = [(args.label, str(HERE.parent / "src"), ())]
    if args.baseline_src:
        trees.insert(0, (args.baseline_label, args.baseline_src, ()))
    for config in args.config:
        label, _, options = config.partition("=")
        trees.append((label, str(HERE.parent / "src"), tuple(options.split())))
    threads = [int(t) for t in args.threads.split(",")]
    results: dict[tuple[str, int], list[dict[str, object]]] = {}
    loads = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for t in threads:
            for label, src, extra in trees:
                res = run_once(src, args.workers, t, args.seconds, args.test, extra)
                results.setdefault((label, t), []).append(res)
                print(label, t, json.dumps({k: v for k, v in res.items() if k != "parts_us_per_trx"}))
    loads.append(os.getloadavg()[0])

    def med(rs: list[dict[str, object]], key: str) -> float:
        return statistics.median(float(r[key]) for r in rs)  # type: ignore[arg-type]

    cmd = (
        f".venv/bin/python bench/bench_rw_hold.py --test {args.test} --workers {args.workers} --threads {args.threads} "
        f"--seconds {args.seconds} --rounds {args.rounds}"
        + (f" --baseline-src {args.baseline_label}" if args.baseline_src else "")
        + "".join(f" --config '{c}'" for c in args.config)
    )
    lines = [
        f"## Where a {args.test} transaction's time goes with `--workers={args.workers}` (issue 21, h-perf)",
        "",
        (
            f"Command: `{cmd}` (see the script's docstring; load average {loads[0]:.1f} before, {loads[1]:.1f} after, "
            "on 2 CPUs shared with other work; medians over the rounds, each round's values in brackets)."
        ),
        "",
        (
            "| tree | threads | TPS | server CPU µs/tx | lock hold µs (wall) | holder CPU µs in the hold | lock held "
            "share | cross-process lock wait share | WAL fsyncs/tx | fsync µs |"
        ),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (label, t), rs in results.items():

        def each(key: str, fmt: str = "{:.0f}", rs: list[dict[str, object]] = rs) -> str:
            vals = ", ".join(fmt.format(float(r[key])) for r in rs)  # type: ignore[arg-type]
            return f"{fmt.format(med(rs, key))} ({vals})"

        lines.append(
            f"| {label} | {t} | {each('tps')} | {each('cpu_us_per_trx')} | {each('hold_us')} | "
            f"{each('hold_cpu_us')} | {each('held_share', '{:.2f}')} | {each('wait_share', '{:.2f}')} | "
            f"{each('fsyncs_per_trx', '{:.2f}')} | {each('fsync_us')} |"
        )
    lines += ["", "CPU µs per transaction of the commit path's parts (median over the rounds):", ""]
    labels = sorted({k for rs in results.values() for r in rs for k in r["parts_us_per_trx"]})  # type: ignore[attr-defined]
    lines.append("| part | " + " | ".join(f"{lab} {t} thr" for lab, t in results) + " |")
    lines.append("|---|" + "---|" * len(results))
    for part in labels:
        cells = [
            f"{statistics.median(float(r['parts_us_per_trx'].get(part, 0.0)) for r in rs):.0f}"  # type: ignore[attr-defined]
            for rs in results.values()
        ]
        lines.append(f"| {part} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        update_section("rw_hold" if args.test == "oltp_read_write" else f"rw_hold_{args.test}", text)


if __name__ == "__main__":
    main()
