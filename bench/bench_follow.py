"""Costs of the worker-role open (issue 21 step 4, gtidkit.engine.follow): what a worker process pays to stay one
server with the others.

Measured in one process on one datadir: a primary opened with ``shared=True`` and a worker-role engine opened beside
it (``Server.open(role="worker")`` takes no datadir lock, so both fit in one process; the worker's catch-up reads the
same SQLite rows it would read in a process of its own). Rows:

* the statement-start staleness check (one read of the shared page's ``committed`` counter);
* a catch-up after 1 and after 20 foreign commits (the commit-log rows past the worker's last ``seq``);
* an autocommit INSERT in a primary without and with the shared page (the flock write lock, the catch-up under
  it and the counter bump on release), the same binary-log settings: the per-transaction overhead of step 4.

Usage: PYTHONPATH=src .venv/bin/python bench/bench_follow.py [--n N] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import update_section

from gtidkit.engine.server import Server

OPTS = {
    "log_bin": True,
    "gtid_mode": "ON",
    "enforce_gtid_consistency": "ON",
    "server_id": 1,
    "synchronous": "OFF",
}


def _cpu_us(fn, n: int) -> float:
    """Mean CPU µs of ``fn()`` over ``n`` calls."""
    c0 = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - c0) / n * 1e6


def insert_cost(datadir: Path, *, shared: bool, n: int) -> float:
    """Mean CPU µs of an autocommit INSERT on a primary (``shared``: with the shared page)."""
    server = Server.open(datadir, shared=shared, **OPTS)
    try:
        s = server.session()
        s.execute("CREATE DATABASE IF NOT EXISTS b")
        s.execute("CREATE TABLE IF NOT EXISTS b.t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
        for _ in range(200):  # warm-up
            s.execute("INSERT INTO b.t (v) VALUES (1)")
        return _cpu_us(lambda: s.execute("INSERT INTO b.t (v) VALUES (1)"), n)
    finally:
        server.shutdown()


def follow_costs(datadir: Path, n: int) -> dict[str, float]:
    """CPU µs of the staleness check and of catch-ups after 1 and 20 foreign commits."""
    primary = Server.open(datadir, shared=True, **OPTS)
    worker = Server.open(datadir, role="worker", **OPTS)
    try:
        p = primary.session()
        p.execute("CREATE DATABASE b")
        p.execute("CREATE TABLE b.t (id INT PRIMARY KEY AUTO_INCREMENT, v INT)")
        follower = worker.follower
        assert follower is not None
        follower.catch_up()
        stale = _cpu_us(follower.stale, 100_000)
        out = {"staleness check (statement start)": stale}
        for k in (1, 20):
            costs = []
            for _ in range(max(20, n // 50)):
                for _ in range(k):
                    p.execute("INSERT INTO b.t (v) VALUES (1)")
                c0 = time.process_time()
                read = follower.catch_up()
                if read == k:  # else a trim deleted unread rows: that catch-up read the table (kept apart)
                    costs.append((time.process_time() - c0) * 1e6)
            out[f"catch-up after {k} foreign commit(s), per commit"] = statistics.median(costs) / k
        assert worker.gtid_state.executed() == primary.gtid_state.executed()
        return out
    finally:
        worker.shutdown()
        primary.shutdown()


def main() -> None:
    """Measure, print the section and (unless --no-write) store it in bench/RESULTS.md as ``follow``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        costs = follow_costs(Path(tmp), args.n)
    inserts = {}
    for rnd in range(3):  # interleaved rounds: the machine's load moves
        for shared in (False, True):
            with tempfile.TemporaryDirectory() as tmp:
                inserts.setdefault(shared, []).append(insert_cost(Path(tmp), shared=shared, n=args.n))
    load1 = os.getloadavg()
    lines = [
        "## Worker-role open: staleness check, catch-up, shared write lock (gtidkit.engine.follow, issue 21 step 4)",
        "",
        (
            f"Command: `PYTHONPATH=src .venv/bin/python bench/bench_follow.py --n {args.n}` (load average before / "
            f"after: {load0[0]:.1f} / {load1[0]:.1f} on {os.cpu_count()} CPUs; SQLite synchronous=OFF so the CPU of "
            "the protocol, not the disk, is compared). CPU µs per operation."
        ),
        "",
        "| operation | CPU µs |",
        "|---|---|",
        *(f"| {k} | {v:.2f} |" for k, v in costs.items()),
        (
            "| autocommit INSERT, primary without / with the shared page (3 interleaved rounds) | "
            + ", ".join(f"{a:.0f} / {b:.0f}" for a, b in zip(inserts[False], inserts[True], strict=True))
            + " |"
        ),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        update_section("follow", text)


if __name__ == "__main__":
    main()
