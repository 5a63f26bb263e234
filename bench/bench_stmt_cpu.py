"""Server CPU per sysbench query, user and system time apart, this tree against an older one in alternating rounds.

Two `gtidkit server --log-bin MODE` processes (one per tree: this checkout's ``src/`` and ``--baseline-src``, each
first on PYTHONPATH), sysbench's table in each (1 table of 10000 rows, the application account of
bench_server.py), then ``--rounds`` rounds of ``sysbench TEST --threads=T --time=S`` against each in turn. The CPU
is the /proc utime and stime of each server's process tree (workers included) over the run, divided by sysbench's
queries. The ratio within a round is the figure to read on a shared machine: the absolute CPU per query moves with
the machine's load (cache and frequency effects), both trees alike.

Usage: .venv/bin/python bench/bench_stmt_cpu.py --baseline-src /tmp/base/src [--mode '--supervised --workers=2']
    [--user app] [--test oltp_point_select] [--threads 1] [--seconds 5] [--rounds 4]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import bench_server
from protocol.server_proc import running_server


def _ticks(pid: int) -> tuple[int, int]:
    """(user, system) clock ticks of ``pid``'s process tree (ended children waited for included)."""
    user = system = 0
    for i, p in enumerate(bench_server._process_tree(pid)):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        user += int(fields[11])
        system += int(fields[12])
        if i == 0:
            user += int(fields[13])
            system += int(fields[14])
    return user, system


def main() -> int:
    """Run the rounds and print each one's figures, the per-round ratios and the medians."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--baseline-src", required=True, help="an older gtidkit src/ directory: the 'before' server"
    )
    ap.add_argument("--mode", default="--workers=1", help="the servers' process-model options")
    ap.add_argument("--user", default="root", help="the account sysbench logs in as (root or app)")
    ap.add_argument("--test", default="oltp_point_select")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    if shutil.which("sysbench") is None:
        raise SystemExit("sysbench is needed")
    here = str(Path(__file__).resolve().parents[1] / "src")
    trees = {"before": str(Path(args.baseline_src).resolve()), "after": here}
    os.environ["GTIDKIT_TEST_NO_PREFORK"] = "1"  # each server imports its own tree
    tick = os.sysconf("SC_CLK_TCK")
    figures: dict[str, list[tuple[float, float]]] = {label: [] for label in trees}
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        servers = {}
        saved = os.environ.get("PYTHONPATH")
        for label, src in trees.items():
            os.environ["PYTHONPATH"] = src
            servers[label] = stack.enter_context(
                running_server(tmp / label, "--log-bin", *shlex.split(args.mode))
            )
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved
        for server in servers.values():
            bench_server._prepare_sbtest(server.port, app=True)
        for r in range(args.rounds):
            for label, server in servers.items():
                cmd = bench_server._sysbench_cmd(server.port, args.user)
                before = _ticks(server.proc.pid)
                run = [
                    cmd[0],
                    args.test,
                    *cmd[1:],
                    f"--threads={args.threads}",
                    f"--time={args.seconds}",
                    "run",
                ]
                out = subprocess.run(run, capture_output=True, text=True, check=True).stdout
                after = _ticks(server.proc.pid)
                queries = next(
                    float(x.split()[1]) for x in out.splitlines() if x.strip().startswith("queries:")
                )
                user = (after[0] - before[0]) / tick / queries * 1e6
                system = (after[1] - before[1]) / tick / queries * 1e6
                figures[label].append((user, system))
                print(
                    f"round {r} {label}: user {user:.1f} sys {system:.1f} total {user + system:.1f} µs/query, "
                    f"{queries / args.seconds:.0f} qps, load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    ratios = [sum(a) / sum(b) for a, b in zip(figures["after"], figures["before"])]
    print(
        "after / before per round:",
        " ".join(f"{x:.2f}" for x in ratios),
        f"median {statistics.median(ratios):.2f}",
    )
    for label, rows in figures.items():
        print(
            f"{label}: median user {statistics.median(u for u, _ in rows):.1f} sys "
            f"{statistics.median(s for _, s in rows):.1f} total {statistics.median(u + s for u, s in rows):.1f} µs"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
