"""The cost of concurrency in `gtidkit server` (issue 21, h-gil): system calls, context switches and CPU per
command of the worker processes under sysbench, counted by the kernel (perf tracepoints), A/B interleaved.

Starts one server per configuration at once (bench_mw_cost.py's ``start``: fresh datadirs, ``--log-bin
--gtid-mode=ON``, sbtest's 1 table of 10000 rows), then for ``--rounds`` rounds runs sysbench ``--test`` with
``--threads`` against each in turn; 1 s into each run, ``perf stat -e <tracepoints> -p <worker pids> -- sleep
--seconds`` counts, over the serving processes' threads, every system call, the calls by kind, context switches,
CPU migrations and task-clock (the CPU time the kernel charged them). Counts are divided by the client commands
in the window: the ``recvfrom`` calls, one per command in every configuration (the edge loop's one ``recv`` per
command, protocol/server.py; sysbench sends its next command after the answer). ``--per`` scales them to a
transaction (20 commands for oltp_read_write: 18 statements, BEGIN, COMMIT).

System call and context-switch counts barely move with the machine's load; task-clock does (cache misses, CPU
frequency), hence the interleaving and the medians.

Usage: PYTHONPATH=src .venv/bin/python bench/bench_gil_cost.py --config '2w=--workers=2' --config
           '2w-free=--workers=2 --skip-worker-cpu-affinity' [--test oltp_read_write] [--threads 4] [--seconds 6]
           [--rounds 4] [--per 20]
Needs perf with tracepoint access (root, or kernel.perf_event_paranoid <= 1).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_mw_cost as mw  # the server start and sysbench plumbing

#: the kernel events counted (perf names); ``raw_syscalls:sys_enter`` counts every system call
EVENTS = [
    "raw_syscalls:sys_enter",
    "syscalls:sys_enter_futex",
    "syscalls:sys_enter_flock",
    "syscalls:sys_enter_fcntl",
    "syscalls:sys_enter_pread64",
    "syscalls:sys_enter_pwrite64",
    "syscalls:sys_enter_recvfrom",
    "syscalls:sys_enter_sendto",
    "syscalls:sys_enter_poll",
    "syscalls:sys_enter_getpid",
    "syscalls:sys_enter_pidfd_open",
    "context-switches",
    "cpu-migrations",
    "task-clock",
]


def _label(event: str) -> str:
    if event == "raw_syscalls:sys_enter":
        return "system calls"
    if event == "task-clock":
        return "task-clock µs"
    return event.removeprefix("syscalls:sys_enter_")


def serving_pids(pgid: int) -> list[int]:
    """The worker processes of the server whose process group is ``pgid`` (the one process of ``--workers=1``)."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        fields = mw._stat_fields(Path(f"/proc/{p}/stat"))
        if (
            fields is not None
            and int(fields[2]) == pgid
            and mw._comm(Path(f"/proc/{p}/comm")).startswith("gtidkit-worker")
        ):
            found.append(int(p))
    return found or [pgid]


def measure(port: int, pgid: int, test: str, threads: int, seconds: int, per: int) -> dict[str, float]:
    """One sysbench run; the kernel's counts over ``seconds`` of it, per ``per`` commands, plus the run's TPS."""
    sb = mw._sysbench(port)
    run = subprocess.Popen(
        [sb[0], test, *sb[1:], f"--threads={threads}", f"--time={seconds + 3}", "run"],
        stdout=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.0)
    pids = ",".join(map(str, serving_pids(pgid)))
    stat = subprocess.run(
        ["perf", "stat", "-x,", "-e", ",".join(EVENTS), "-p", pids, "--", "sleep", str(seconds)],
        capture_output=True,
        text=True,
        check=True,
    )
    out, _ = run.communicate()
    counts: dict[str, float] = {}
    for line in stat.stderr.splitlines():
        f = line.split(",")
        if len(f) > 3 and f[0].replace(".", "").isdigit():
            value = float(f[0]) * (1000.0 if f[2] == "task-clock" else 1.0)  # task-clock: ms -> µs
            counts[_label(f[2])] = value
    commands = max(counts.get("recvfrom", 0.0), 1.0)
    result = {k: v / commands * per for k, v in counts.items()}
    result["commands"] = commands
    for line in out.splitlines():
        if "transactions:" in line:
            result["tps"] = float(line.split("(")[1].split()[0])
    return result


def main() -> None:
    """Run the configurations interleaved; print the medians per ``--per`` commands."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", action="append", default=[], help="label=options (space separated)[|src dir]")
    ap.add_argument("--test", default="oltp_read_write")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--seconds", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--per", type=int, default=20, help="commands per reported unit (20: a read_write trx)")
    ap.add_argument("--src", default=str(HERE.parent / "src"))
    args = ap.parse_args()
    configs = []
    for c in args.config or ["1 worker=--workers=1", "2 workers=--workers=2"]:
        label, rest = c.split("=", 1)
        opts, _, src = rest.partition("|")
        configs.append((label, opts.split(), src or args.src))
    tmp = Path(tempfile.mkdtemp(prefix="gilcost"))
    servers: dict[str, tuple[subprocess.Popen, int]] = {}
    results: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in configs}
    try:
        for label, opts, src in configs:
            servers[label] = mw.start(label, opts, src, tmp)
        load0 = os.getloadavg()[0]
        for rnd in range(args.rounds):
            order = list(servers.items())
            order = order[rnd % len(order) :] + order[: rnd % len(order)]
            for label, (proc, port) in order:
                results[label].append(
                    measure(port, proc.pid, args.test, args.threads, args.seconds, args.per)
                )
        load1 = os.getloadavg()[0]
    finally:
        for proc, _port in servers.values():
            try:
                os.killpg(proc.pid, 15)
            except ProcessLookupError:
                pass
            proc.wait(60)
    print(
        f"{args.test}, {args.threads} threads, per {args.per} commands, median of {args.rounds} rounds "
        f"(load {load0:.1f} -> {load1:.1f})"
    )
    print(f"{'':18s}" + "".join(f"{label:>20s}" for label in results))
    keys = ["tps", "commands"] + [_label(e) for e in EVENTS]
    for k in keys:
        cells = [statistics.median(r.get(k, 0.0) for r in rs) for rs in results.values()]
        print(f"{k:18s}" + "".join(f"{v:20.2f}" for v in cells))


if __name__ == "__main__":
    main()
