"""The commit path's cost (issue 21 §8 steps 1-2): CPU µs, fsyncs and write-lock hold per binlogged commit.

Each run is a fresh child process on a new datadir (binlog on, ``sync_binlog=1``, gtid_mode=ON) that commits
``--tx`` small write transactions per thread (BEGIN; UPDATE one row by primary key; INSERT one row; COMMIT) through
the engine session API, from 1 and 4 threads at once. Measured per transaction:

* CPU µs: the process's CPU time over the measured loop (fsync waits are not CPU);
* fsyncs: every ``fsync`` / ``fdatasync`` the process makes (``strace -f --seccomp-bpf -c``, SQLite's own
  included), minus those of a run that only starts, sets up and shuts down;
* lock hold: the engine write lock's hold time (first write .. commit) per transaction, µs;
* TPS, wall clock.

``--src DIR`` runs the same children against another ``src/`` tree (e.g. ``git archive <commit> src``): the
"before" column; trees and repeats are interleaved so both see the same machine load. Writes the ``commit_log``
section of bench/RESULTS.md unless ``--no-write``.

Usage: .venv/bin/python bench/bench_commit_log.py [--tx 300] [--rounds 3] [--src before=/tmp/base/src]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROWS = 1000


def _child(threads: int, tx: int, options: dict[str, Any]) -> dict[str, float]:
    from gtidkit.engine import Server

    with tempfile.TemporaryDirectory() as tmp:
        server = Server.open(Path(tmp), gtid_mode="ON", log_bin=True, sync_binlog=1, **options)
        try:
            s = server.session()
            s.execute("CREATE DATABASE b")
            s.execute("CREATE TABLE b.t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(120))")
            s.execute("INSERT INTO b.t VALUES " + ",".join(f"({i}, {i}, 'c{i}')" for i in range(1, ROWS + 1)))
            s.close()
            held = [0.0]
            since: dict[int, float] = {}
            acquire, release = server.acquire_write_lock, server.release_write_lock

            def timed_acquire(session: Any, timeout: float | None = None) -> None:
                acquire(session, timeout)
                since[threading.get_ident()] = time.perf_counter()

            def timed_release(session: Any) -> None:
                t0 = since.pop(threading.get_ident(), None)
                release(session)
                if t0 is not None:
                    held[0] += time.perf_counter() - t0

            server.acquire_write_lock = timed_acquire  # type: ignore[method-assign]
            server.release_write_lock = timed_release  # type: ignore[method-assign]

            def work(n: int) -> None:
                sess = server.session()
                base = ROWS + 1 + n * tx
                for i in range(tx):
                    sess.execute("BEGIN")
                    sess.execute(f"UPDATE b.t SET k = k + 1 WHERE id = {(base + i) % ROWS + 1}")
                    sess.execute(f"INSERT INTO b.t VALUES ({base + i}, {i}, 'x')")
                    sess.execute("COMMIT")
                sess.close()

            workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
            c0, w0 = time.process_time(), time.perf_counter()
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        finally:
            server.shutdown()
    n = max(threads * tx, 1)
    return {"tps": n / wall, "cpu_us": cpu / n * 1e6, "hold_us": held[0] / n * 1e6, "n": threads * tx}


def _fsyncs(trace: Path) -> int:
    total = 0
    for line in trace.read_text().splitlines():
        m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(fsync|fdatasync)\s*$", line)
        if m:
            total += int(m.group(1))
    return total


def _run(src: str, threads: int, tx: int, options: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=src)
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "strace.txt"
        cmd = [
            "strace", "-f", "--seccomp-bpf", "-c", "-e", "trace=fsync,fdatasync", "-o", str(trace),
            sys.executable, __file__, "--child", "--threads", str(threads), "--tx", str(tx), "--options", options,
        ]  # fmt: skip
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        res = json.loads(out.stdout.strip().splitlines()[-1])
        res["fsyncs"] = _fsyncs(trace)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tx", type=int, default=300, help="transactions per thread")
    ap.add_argument("--threads", default="1,4")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--src", action="append", default=[], help="LABEL=DIR: another src/ tree to compare")
    ap.add_argument("--label", default="this tree")
    ap.add_argument("--options", default="{}", help="JSON Server.open options (children)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(int(args.threads), args.tx, json.loads(args.options))))
        return 0
    trees = [(args.label, str(Path(__file__).resolve().parents[1] / "src"))]
    trees += [tuple(spec.split("=", 1)) for spec in args.src]  # type: ignore[misc]
    threads = [int(t) for t in args.threads.split(",")]
    results: dict[tuple[str, int], list[dict[str, float]]] = {}
    base: dict[str, list[int]] = {}
    for _ in range(args.rounds):
        for label, src in trees:
            base.setdefault(label, []).append(_run(src, 1, 0, args.options)["fsyncs"])
            for t in threads:
                results.setdefault((label, t), []).append(_run(src, t, args.tx, args.options))
    lines = [
        f"Command: `.venv/bin/python bench/bench_commit_log.py --tx {args.tx} --rounds {args.rounds}"
        + "".join(f" --src {s}" for s in args.src)
        + f"` (load average at the end: {os.getloadavg()[0]:.1f}). Per transaction (BEGIN; UPDATE by PK; INSERT; "
        "COMMIT), binlog on, sync_binlog=1; median of the rounds (each value: min-max).",
        "",
        "| tree | threads | TPS | CPU µs / tx | fsyncs / tx | write lock held µs / tx |",
        "|---|---|---|---|---|---|",
    ]

    def cell(values: list[float], fmt: str) -> str:
        return f"{format(statistics.median(values), fmt)} ({format(min(values), fmt)}-{format(max(values), fmt)})"

    for (label, t), runs in results.items():
        fs = [(r["fsyncs"] - statistics.median(base[label])) / r["n"] for r in runs]
        lines.append(
            f"| {label} | {t} | {cell([r['tps'] for r in runs], '.0f')} | {cell([r['cpu_us'] for r in runs], '.0f')}"
            f" | {cell(fs, '.2f')} | {cell([r['hold_us'] for r in runs], '.0f')} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        from _results import update_section

        update_section("commit_log", "## Commit path: the commit log (issue 21 steps 1-2)\n\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
