"""Issue 21 design spike: does moving readers out of the writer's process stop the write-lock hold from stretching?

One engine ``Server`` (binlog on, sync_binlog=1) runs one writer thread executing sysbench oltp_read_write
transactions through ``session.execute_prepared`` (bench_session's statements), and K readers run point selects
at the same time, either as K threads of the writer's process (today's model: they share the writer's GIL) or as
K processes that open the same datadir as read-only secondaries (the multi-worker model), or not at all. All
processes stay in this script's session in the first three configurations, so the scheduler gives the whole
experiment the same CPU share (on this loaded machine, a fraction of one CPU): the difference is the GIL, not CPU
time. In the fourth the reader processes call setsid() and get scheduler slices of their own, as workers on cores
of their own would.

Measured per configuration: the writer's transactions per second, the median time it holds the engine write lock
per transaction (first write through COMMIT, binlog fsync included), and the readers' statements per second.

Usage: .venv/bin/python bench/spike_mw_rw.py [--seconds 4] [--readers 3] [--repeat 2] [--no-write]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_session import STATEMENTS, TABLE_ROWS, _c, _load

POINT = "SELECT c FROM sbtest1 WHERE id=?"


def _reader_loop(session: Any, start_at: float, stop_at: float, seed: int) -> int:
    stmt = session.prepare(POINT)
    rng = random.Random(seed)
    while time.monotonic() < start_at:
        time.sleep(0.001)
    n = 0
    while time.monotonic() < stop_at:
        for _ in range(20):
            session.execute_prepared(stmt, [rng.randint(1, TABLE_ROWS)])
        n += 20
    return n


def _reader_process(datadir: str, go: Any, seconds: float, seed: int, q: Any, own: bool) -> None:
    from spike_mw_reads import _secondary_lock

    if own:  # its own scheduler slice, as a worker on a core of its own
        os.setsid()

    from gtidkit.engine import Server

    _secondary_lock()
    server = Server.open(datadir, log_bin=False)
    s = server.session()
    s.execute("USE sbtest")
    q.put("ready")
    while (
        go.value == 0.0
    ):  # the start time (CLOCK_MONOTONIC is one clock for every process), once all are ready
        time.sleep(0.001)
    q.put(_reader_loop(s, go.value, go.value + seconds, seed))
    s.close()
    server.storage.close()


def run(server: Any, datadir: Path, mode: str, readers: int, seconds: float) -> dict[str, float]:
    """One configuration: ``mode`` is ``none``, ``threads``, ``processes`` or ``processes, own sessions``."""
    holds: list[float] = []
    since: dict[int, float] = {}
    acquire, release = server.acquire_write_lock, server.release_write_lock

    def timed_acquire(session: Any, timeout: float | None = None) -> None:
        acquire(session, timeout)
        since[threading.get_ident()] = time.perf_counter()

    def timed_release(session: Any) -> None:
        t0 = since.pop(threading.get_ident(), None)
        release(session)
        if t0 is not None:
            holds.append(time.perf_counter() - t0)

    server.acquire_write_lock = timed_acquire
    server.release_write_lock = timed_release
    start_at = time.monotonic() + 0.5
    counts: list[int] = []
    procs = []
    q: Any = None
    threads: list[threading.Thread] = []
    if mode.startswith("processes"):
        ctx = mp.get_context("spawn")  # never fork a process that runs threads inside SQLite
        q = ctx.Queue()
        go = ctx.Value("d", 0.0)
        procs = [
            ctx.Process(target=_reader_process, args=(str(datadir), go, seconds, i, q, "own" in mode))
            for i in range(readers)
        ]
        for p in procs:
            p.start()
        for _ in procs:
            assert q.get(timeout=300) == "ready"
        start_at = time.monotonic() + 0.2
        go.value = start_at
    elif mode == "threads":

        def body(i: int) -> None:
            s = server.session()
            s.execute("USE sbtest")
            counts.append(_reader_loop(s, start_at, start_at + seconds, i))
            s.close()

        threads = [threading.Thread(target=body, args=(i,)) for i in range(readers)]
        for t in threads:
            t.start()
    done = 0
    r = random.Random(5)
    s = server.session()
    s.execute("USE sbtest")
    p = {k: s.prepare(t) for k, t in STATEMENTS.items()}
    e = s.execute_prepared
    stop_at = start_at + seconds
    while time.monotonic() < start_at:
        time.sleep(0.001)
    while time.monotonic() < stop_at:
        e(p["begin"], [])
        for _ in range(10):
            e(p["point_select"], [r.randint(1, TABLE_ROWS)])
        for kind in ("simple_range", "sum_range", "order_range", "distinct_range"):
            lo = r.randint(1, TABLE_ROWS - 99)
            e(p[kind], [lo, lo + 99])
        e(p["update_index"], [r.randint(1, TABLE_ROWS)])
        e(p["update_non_index"], [_c(r, 10), r.randint(1, TABLE_ROWS)])
        i = r.randint(1, TABLE_ROWS)
        e(p["delete"], [i])
        e(p["insert"], [i, r.randint(1, TABLE_ROWS), _c(r, 10), _c(r, 5)])
        e(p["commit"], [])
        done += 1
    s.close()
    for t in threads:
        t.join()
    if q is not None:
        counts = [q.get(timeout=120) for _ in procs]
        for pr in procs:
            pr.join()
    server.acquire_write_lock, server.release_write_lock = acquire, release
    holds.sort()
    return {
        "tps": done / seconds,
        "hold_ms": holds[len(holds) // 2] * 1e3 if holds else 0.0,
        "reads": sum(counts) / seconds,
    }


def main() -> None:
    """Run the configurations, print the section and (unless --no-write) store it in bench/RESULTS.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--readers", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    from gtidkit.engine import Server

    modes = ("none", "threads", "processes", "processes, own sessions")
    res: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        server = Server.open(d, log_bin=True)
        try:
            _load(server.session(), random.Random(3))
            for _ in range(args.repeat):
                for m in modes:
                    res[m].append(run(server, d, m, args.readers, args.seconds))
                    print(m, res[m][-1], flush=True)
        finally:
            server.shutdown()
    load1 = os.getloadavg()
    lines = [
        "## Multi-worker spike (issue 21): the writer's lock hold with readers as threads vs as processes",
        "",
        (
            f"Command: `.venv/bin/python bench/spike_mw_rw.py --seconds {args.seconds:g} --readers {args.readers} "
            f"--repeat {args.repeat}` (one writer thread running sysbench oltp_read_write transactions through "
            "`session.execute_prepared`, binlog on, sync_binlog=1; readers running point selects as threads of the "
            "writer's process or as secondary processes on the same datadir, in one scheduler autogroup (same CPU "
            "share) or each in its own ('own sessions': the CPU a free core would give); configurations interleaved; load average before / after: "
            f"{load0[0]:.1f} / {load1[0]:.1f} on {os.cpu_count()} CPUs)."
        ),
        "",
        "| readers | writer TPS (each repeat) | write lock held per transaction, median ms | reader statements/s |",
        "|---|---|---|---|",
    ]
    for m in modes:
        r = res[m]
        lines.append(
            f"| {args.readers if m != 'none' else 0} {m if m != 'none' else ''} | "
            + ", ".join(f"{x['tps']:.0f}" for x in r)
            + " | "
            + ", ".join(f"{x['hold_ms']:.2f}" for x in r)
            + " | "
            + ", ".join(f"{x['reads']:.0f}" for x in r)
            + " |"
        )
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from _results import update_section

        update_section("mw_rw", text)


if __name__ == "__main__":
    main()
