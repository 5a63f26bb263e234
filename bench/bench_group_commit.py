"""Do concurrent commits share fsyncs? fsync / fdatasync calls per transaction of `gtidkit server` under sysbench
(issue 21, binlog group commit: MySQL's ``binlog_group_commit_sync_delay`` / ``_no_delay_count``).

For each configuration (server options, then ``SET GLOBAL`` assignments) and thread count: a fresh datadir,
``gtidkit server --log-bin --gtid-mode=ON --enforce-gtid-consistency=ON --workers=N`` started under
``strace --seccomp-bpf -f -y -e trace=fsync,fdatasync`` (the filter stops the server only at those two calls, so
the timing the groups depend on is barely touched), sysbench 1.0.20 (1 table of 10000 rows, prepared statements)
for ``--seconds``. Counted from the trace, only during the run: the calls per transaction on the SQLite WAL
(``gtidkit.sqlite-wal``: the group sync), on the binary log files (the flusher, ``sync_binlog=1``) and on
anything else, and the server's CPU per transaction (all its processes, /proc ticks). A WAL figure below 1 means
groups formed: one fsync made several commits durable. Printed as a markdown table (bench/RESULTS.md
``group_commit`` is written by hand from it).

Usage: .venv/bin/python bench/bench_group_commit.py [--workers 2] [--threads 1,4,8] [--seconds 8]
           [--config 'delay 1000=--gtidkit-row-locks=OFF;binlog_group_commit_sync_delay=1000'] [--test oltp_write_only]

A configuration is ``label=server options;SET GLOBAL assignments`` (either part may be empty).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_rw_hold import _cpu_ticks, _free_port, _sysbench

_CALL = re.compile(r"^\d+\s+(fsync|fdatasync)\((\d+)<([^>]*)>")


def _count(trace: Path, start: int) -> dict[str, int]:
    """fsync / fdatasync calls in ``trace`` after byte ``start``, by file kind."""
    counts = {"wal": 0, "binlog": 0, "other": 0}
    with open(trace, "rb") as fh:
        fh.seek(start)
        for raw in fh:
            m = _CALL.match(raw.decode(errors="replace"))
            if not m:
                continue
            name = os.path.basename(m.group(3))
            if name.endswith("-wal"):
                counts["wal"] += 1
            elif re.fullmatch(r"binlog\.\d{6}", name):
                counts["binlog"] += 1
            else:
                counts["other"] += 1
    return counts


def run_once(
    workers: int, threads: int, seconds: int, test: str, options: list[str], sets: list[str]
) -> dict:
    """One traced server and one sysbench run; the figures of the module docstring."""
    import pymysql

    tmp = Path(tempfile.mkdtemp(prefix="gcommit"))
    trace = tmp / "trace"
    port = _free_port()
    cmd = [
        "strace", "--seccomp-bpf", "-f", "-y", "-qq", "-e", "trace=fsync,fdatasync", "-o", str(trace),
        sys.executable, "-m", "gtidkit", "server", f"--datadir={tmp / 'data'}", f"--port={port}",
        "--bind-address=127.0.0.1", "--log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON",
        f"--workers={workers}", *options,
    ]  # fmt: skip
    with open(tmp / "server.log", "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for _ in range(240):
            try:
                pymysql.connect(host="127.0.0.1", port=port, user="root", password="").close()
                break
            except pymysql.err.OperationalError:
                time.sleep(0.5)
        c = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
        c.cursor().execute("CREATE DATABASE sbtest")
        for assignment in sets:
            c.cursor().execute(f"SET GLOBAL {assignment}")
        c.close()
        sb = _sysbench(port)
        subprocess.run([sb[0], test, *sb[1:], "prepare"], capture_output=True, check=True)
        time.sleep(0.5)
        start = trace.stat().st_size
        t0 = _cpu_ticks(proc.pid)
        r = subprocess.run(
            [sb[0], test, *sb[1:], f"--threads={threads}", f"--time={seconds}", "run"],
            capture_output=True,
            text=True,
            check=True,
        )
        t1 = _cpu_ticks(proc.pid)
        time.sleep(0.3)  # strace writes each call's line when it returns
        counts = _count(trace, start)
        load = os.getloadavg()[0]
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(60)
        shutil.rmtree(tmp, ignore_errors=True)
    trx = tps = 0.0
    for line in r.stdout.splitlines():
        line = line.strip()
        if line.startswith("transactions:"):
            trx = float(line.split()[1])
            tps = float(line.split("(")[1].split()[0])
    n = max(trx, 1.0)
    cpu = sum(v - t0.get(p, 0) for p, v in t1.items()) / os.sysconf("SC_CLK_TCK")
    return {
        "tps": tps,
        "load": load,
        "cpu_us": cpu / n * 1e6,
        **{f"{k}_per_trx": v / n for k, v in counts.items()},
    }


def main() -> None:
    """Run every configuration and thread count ``--rounds`` times (interleaved), print a markdown table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", default="1,4,8")
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--test", default="oltp_read_write")
    ap.add_argument(
        "--config", action="append", default=[], help="label=server options;SET GLOBAL assignments"
    )
    args = ap.parse_args()
    configs = [("default", [], [])]
    for spec in args.config:
        label, _, rest = spec.partition("=")
        options, _, sets = rest.partition(";")
        configs.append((label, options.split(), [s for s in sets.split(",") if s]))
    print(
        f"load average {os.getloadavg()[0]:.1f}; {args.test}, --workers={args.workers}, {args.seconds} s runs"
    )
    print()
    print(
        "| configuration | threads | TPS | server CPU µs/tx | WAL fsyncs/tx | binlog fsyncs/tx | other/tx | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for _ in range(args.rounds):
        for threads in [int(t) for t in args.threads.split(",")]:
            for label, options, sets in configs:
                r = run_once(args.workers, threads, args.seconds, args.test, options, sets)
                print(
                    f"| {label} | {threads} | {r['tps']:.0f} | {r['cpu_us']:.0f} | {r['wal_per_trx']:.2f} | "
                    f"{r['binlog_per_trx']:.2f} | {r['other_per_trx']:.2f} | {r['load']:.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
