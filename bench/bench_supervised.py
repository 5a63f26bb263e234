"""Supervised `gtidkit server` (issue 21 step 5) vs the one-process server: connect latency, point-select CPU,
time to a serving worker.

Per round, both modes on fresh datadirs (alternating which goes first, so drift on a shared machine hits both):

* connect: ``--connects`` sequential connections; "first byte" is TCP connect to the Handshake's first byte (the
  supervisor's accept + hand-off + the worker's session open), "PyMySQL" a whole connect + authenticate + close;
* point select: one PyMySQL connection, ``--selects`` ``SELECT v FROM b.t WHERE id = ?`` (1000 rows); wall time
  per statement and the server's CPU per statement (utime + stime of every process of the server: supervisor,
  fork server, worker), the supervisor's share apart;
* supervised only: fork request to a serving worker at start (the worker's engine open included), and SIGKILL
  of the worker to the next successful connection (replacement + crash recovery).

Writes its section of bench/RESULTS.md with the command used.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pymysql
from _results import update_section

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from protocol.server_proc import children, running_server


def _cpu(pid: int) -> float:
    """utime + stime of ``pid`` (seconds)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _first_byte(port: int) -> float:
    t0 = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.recv(1)
        return time.perf_counter() - t0


def _connect(port: int) -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)


def _run_mode(tmp: Path, supervised: bool, connects: int, selects: int) -> dict[str, float]:
    out: dict[str, float] = {}
    datadir = tmp / f"{'sup' if supervised else 'plain'}-{time.monotonic_ns()}"
    with running_server(datadir, "--server-id=1", supervised=supervised) as srv:
        c = _connect(srv.port)
        with c.cursor() as cur:
            cur.execute("CREATE DATABASE b")
            cur.execute("CREATE TABLE b.t (id INT PRIMARY KEY, v VARCHAR(20))")
            cur.executemany("INSERT INTO b.t VALUES (%s, %s)", [(i, f"v{i}") for i in range(1, 1001)])
        fb = [_first_byte(srv.port) for _ in range(connects)]
        time.sleep(0.5)  # the probes' sessions close
        full = []
        for _ in range(connects):
            t0 = time.perf_counter()
            _connect(srv.port).close()
            full.append(time.perf_counter() - t0)
        out["first_byte_us"] = statistics.median(fb) * 1e6
        out["connect_us"] = statistics.median(full) * 1e6
        out["connect_p95_us"] = sorted(full)[int(len(full) * 0.95)] * 1e6
        pids = [srv.proc.pid, *children(srv.proc.pid)]
        cpu0 = [_cpu(p) for p in pids]
        with c.cursor() as cur:
            t0 = time.perf_counter()
            for i in range(selects):
                cur.execute("SELECT v FROM b.t WHERE id = %s", (1 + i % 1000,))
                cur.fetchall()
            wall = time.perf_counter() - t0
        cpu = [_cpu(p) - a for p, a in zip(pids, cpu0, strict=True)]
        out["select_wall_us"] = wall / selects * 1e6
        out["select_cpu_us"] = sum(cpu) / selects * 1e6
        out["supervisor_cpu_us"] = cpu[0] / selects * 1e6 if supervised else 0.0
        c.close()
        if supervised:
            log = (datadir / "error.log").read_text()
            m = re.search(r"worker 0 \(pid \d+\) ready, ([\d.]+) ms .*engine open ([\d.]+) ms", log)
            out["worker_ready_ms"] = float(m.group(1)) if m else float("nan")
            out["worker_open_ms"] = float(m.group(2)) if m else float("nan")
            (worker,) = srv.worker_pids()
            t0 = time.perf_counter()
            os.kill(worker, signal.SIGKILL)
            while True:
                try:
                    _connect(srv.port).close()
                    break
                except pymysql.err.OperationalError:
                    time.sleep(0.01)
            out["replace_ms"] = (time.perf_counter() - t0) * 1000
            log = (datadir / "error.log").read_text()
            ms = re.findall(r"worker 0 \(pid \d+\) ready, ([\d.]+) ms .*engine open ([\d.]+) ms", log)
            out["replacement_ready_ms"] = float(ms[-1][0]) if len(ms) > 1 else float("nan")
            out["replacement_open_ms"] = float(ms[-1][1]) if len(ms) > 1 else float("nan")
    return out


def main() -> int:
    """Run the rounds and write the section."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--connects", type=int, default=100)
    ap.add_argument("--selects", type=int, default=3000)
    ap.add_argument("--no-write", action="store_true", help="print only; leave bench/RESULTS.md alone")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    runs: dict[bool, list[dict[str, float]]] = {False: [], True: []}
    with tempfile.TemporaryDirectory(prefix="bench-supervised-") as tmp:
        for r in range(args.rounds):
            for supervised in (r % 2 == 0, r % 2 == 1):
                runs[supervised].append(_run_mode(Path(tmp), supervised, args.connects, args.selects))
                print(supervised, runs[supervised][-1], flush=True)
    load1 = os.getloadavg()[0]

    def fig(mode: bool, key: str) -> str:
        return ", ".join(f"{run[key]:.0f}" for run in runs[mode])

    def ratio(key: str) -> str:
        sup = statistics.median(run[key] for run in runs[True])
        plain = statistics.median(run[key] for run in runs[False])
        return f"{sup / plain:.2f}"

    rows = [
        ("connect to the Handshake's first byte, median µs", "first_byte_us"),
        ("PyMySQL connect + auth + close, median µs", "connect_us"),
        ("PyMySQL connect, p95 µs", "connect_p95_us"),
        ("point select, wall µs per statement", "select_wall_us"),
        ("point select, server CPU µs per statement (all its processes)", "select_cpu_us"),
    ]
    lines = [
        "## Supervised server (issue 21 step 5): connection hand-off cost",
        "",
        (
            f"Command: `.venv/bin/python bench/bench_supervised.py --rounds {args.rounds} --connects "
            f"{args.connects} --selects {args.selects}` (load average before / after: {load0:.1f} / {load1:.1f} "
            "on 2 CPUs; one figure per round, the modes alternating first)."
        ),
        "",
        "| measure | one process | supervised, 1 worker | supervised / one process, medians |",
        "|---|---|---|---|",
    ]
    lines += [f"| {label} | {fig(False, key)} | {fig(True, key)} | {ratio(key)} |" for label, key in rows]
    lines += [
        f"| of which the supervisor's CPU, µs per statement | - | {fig(True, 'supervisor_cpu_us')} | - |",
        "",
        (
            "Supervised only, per round: fork request to a serving worker at start "
            f"{fig(True, 'worker_ready_ms')} ms, of which opening the engine (recovery included) "
            f"{fig(True, 'worker_open_ms')} ms; SIGKILL of the worker to the next successful connection "
            f"{fig(True, 'replace_ms')} ms (the replacement's fork request to serving "
            f"{fig(True, 'replacement_ready_ms')} ms, of which opening the engine "
            f"{fig(True, 'replacement_open_ms')} ms)."
        ),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        update_section("supervised", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
