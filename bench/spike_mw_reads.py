"""Issue 21 design spike, point 1: read scaling across processes against ONE shared SQLite WAL database.

Each reader runs sysbench's point select (``SELECT c FROM sbtest1 WHERE id=?``) through the real engine
(``gtidkit.engine.Server`` + ``session.prepare`` / ``session.execute_prepared``, the path COM_STMT_EXECUTE takes),
as N threads in one process (one Server, one session per thread) or as N processes (one Server per process, all on
the same datadir). Today :meth:`Storage.open` refuses a second process on a datadir (``engine/datadir_lock.py``);
a secondary here bypasses that lock with :func:`_secondary_lock` (a private stand-in for ``DatadirLock`` in this
script only), opens with ``log_bin`` off and only reads.

Also measured, on one reader: the SQLite page-cache settings (default cache, a large ``cache_size``, ``mmap_size``,
``cache=shared``), and what a commit by another connection costs the next read (SQLite drops a connection's page
cache when the WAL index's change counter moved: the first read after it re-reads the pages it touches).

Usage: .venv/bin/python bench/spike_mw_reads.py [--seconds 2] [--repeat 2] [--write]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_session import TABLE_ROWS, _load

POINT = "SELECT c FROM sbtest1 WHERE id=?"


class _NoLock:
    """What :class:`gtidkit.engine.datadir_lock.DatadirLock` returns, for a read-only secondary (no flock)."""

    path = None

    def held(self) -> bool:
        return False

    def release(self) -> None:
        pass


def _secondary_lock() -> None:
    """Let this process open a datadir another process has open: the engine's flock is skipped (prototype only)."""
    from gtidkit.engine import storage

    class _Bypass:
        @staticmethod
        def acquire(_path: Any) -> _NoLock:
            return _NoLock()

    storage.DatadirLock = _Bypass  # type: ignore[assignment,misc]


def _prepare_datadir(path: Path) -> None:
    from gtidkit.engine import Server

    server = Server.open(path, log_bin=False)
    try:
        s = server.session()
        _load(s, random.Random(3))
        s.close()
    finally:
        server.shutdown()


def _pragmas(raw: sqlite3.Connection, variant: str) -> None:
    if variant == "cache64m":
        raw.execute("PRAGMA cache_size=-65536")
    elif variant == "mmap":
        raw.execute("PRAGMA mmap_size=268435456")


def _read_loop(session: Any, stop_at: float, rng: random.Random) -> int:
    stmt = session.prepare(POINT)
    n = 0
    ex = session.execute_prepared
    while True:
        for _ in range(50):
            ex(stmt, [rng.randint(1, TABLE_ROWS)])
        n += 50
        if time.monotonic() >= stop_at:
            return n


def _open_session(datadir: Path, variant: str) -> tuple[Any, Any]:
    from gtidkit.engine import Server

    server = Server.open(datadir, log_bin=False)
    s = server.session()
    s.execute("USE sbtest")
    _pragmas(s.conn.raw, variant)
    return server, s


def _proc_reader(
    datadir: str, variant: str, start_at: float, seconds: float, q: Any, own_session: bool = False
) -> None:
    if own_session:  # its own session = its own scheduler autogroup (kernel.sched_autogroup_enabled)
        os.setsid()
    _secondary_lock()
    server, s = _open_session(Path(datadir), variant)
    for _ in range(200):  # warm the plan and page caches
        s.execute_prepared(s.prepare(POINT), [random.randint(1, TABLE_ROWS)])
    while time.monotonic() < start_at:
        time.sleep(0.001)
    c0 = time.process_time()
    n = _read_loop(s, start_at + seconds, random.Random(os.getpid()))
    q.put((n, time.process_time() - c0))
    s.close()
    server.storage.close()  # no shutdown checkpoint from a secondary


def _writer(datadir: str, start_at: float, seconds: float, rate: float, q: Any) -> None:
    """Another process committing ``rate`` autocommit UPDATEs per second to sbtest1 (raw SQLite)."""
    raw = sqlite3.connect(os.path.join(datadir, "gtidkit.sqlite"), isolation_level=None, timeout=30)
    raw.execute("PRAGMA synchronous=NORMAL")
    while time.monotonic() < start_at:
        time.sleep(0.001)
    n = 0
    rng = random.Random(1)
    t = start_at
    while time.monotonic() < start_at + seconds:
        raw.execute('UPDATE "sbtest.sbtest1" SET k=k+1 WHERE id=?', (rng.randint(1, TABLE_ROWS),))
        n += 1
        t += 1 / rate
        d = t - time.monotonic()
        if d > 0:
            time.sleep(d)
    raw.close()
    q.put(("w", n))


def run_processes(
    datadir: Path,
    n: int,
    seconds: float,
    variant: str = "default",
    write_rate: float = 0,
    own_session: bool = False,
) -> tuple[float, float]:
    """(point selects per second summed over ``n`` reader processes, each its own Server and session; CPU µs
    per statement, the readers' CPU summed)."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    start_at = time.monotonic() + 1.5 + 0.3 * n
    procs = [
        ctx.Process(target=_proc_reader, args=(str(datadir), variant, start_at, seconds, q, own_session))
        for _ in range(n)
    ]
    if write_rate:
        procs.append(ctx.Process(target=_writer, args=(str(datadir), start_at, seconds, write_rate, q)))
    for p in procs:
        p.start()
    total = 0
    cpu = 0.0
    for _ in procs:
        item = q.get(timeout=120)
        if item[0] != "w":
            total += item[0]
            cpu += item[1]
    for p in procs:
        p.join()
    return total / seconds, cpu / total * 1e6


def run_threads(datadir: Path, n: int, seconds: float, variant: str = "default") -> tuple[float, float]:
    """(point selects per second summed over ``n`` threads of one process, one Server and a session per thread;
    process CPU µs per statement)."""
    from gtidkit.engine import Server

    _secondary_lock()
    server = Server.open(datadir, log_bin=False)
    sessions = []
    for _ in range(n):
        s = server.session()
        s.execute("USE sbtest")
        _pragmas(s.conn.raw, variant)
        sessions.append(s)
    counts = [0] * n
    start_at = time.monotonic() + 0.3

    def body(i: int) -> None:
        while time.monotonic() < start_at:
            time.sleep(0.001)
        counts[i] = _read_loop(sessions[i], start_at + seconds, random.Random(i))

    ts = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    c0 = time.process_time()
    for t in ts:
        t.join()
    cpu = time.process_time() - c0
    for s in sessions:
        s.close()
    server.storage.close()
    return sum(counts) / seconds, cpu / sum(counts) * 1e6


def _threads_child(datadir: str, n: int, seconds: float, q: Any) -> None:
    os.setsid()
    q.put(run_threads(Path(datadir), n, seconds))


def run_threads_own_session(datadir: Path, n: int, seconds: float) -> tuple[float, float]:
    """:func:`run_threads` in a child process that is its own session (its own scheduler autogroup)."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_threads_child, args=(str(datadir), n, seconds, q))
    p.start()
    out = q.get(timeout=120)
    p.join()
    return out


def invalidation_cost(datadir: Path, variant: str, rounds: int = 400) -> tuple[float, float]:
    """(µs of a point select in steady state, µs of the first point select after another connection committed).

    Wall time of one read, medians; the commit is an UPDATE of one row of sbtest1 by a raw SQLite connection,
    which moves the WAL index's change counter exactly as a commit in another process does."""
    from gtidkit.engine import Server

    _secondary_lock()
    server = Server.open(datadir, log_bin=False)
    s = server.session()
    s.execute("USE sbtest")
    if variant == "shared":
        raise ValueError("shared cache is measured by _shared_cache_cost")
    _pragmas(s.conn.raw, variant)
    w = sqlite3.connect(os.path.join(datadir, "gtidkit.sqlite"), isolation_level=None)
    w.execute("PRAGMA synchronous=OFF")
    stmt = s.prepare(POINT)
    rng = random.Random(5)
    steady, after = [], []
    for _ in range(200):
        s.execute_prepared(stmt, [rng.randint(1, TABLE_ROWS)])
    clock = time.perf_counter
    for _ in range(rounds):
        for _ in range(5):
            t0 = clock()
            s.execute_prepared(stmt, [rng.randint(1, TABLE_ROWS)])
            steady.append(clock() - t0)
        w.execute('UPDATE "sbtest.sbtest1" SET k=k+1 WHERE id=?', (rng.randint(1, TABLE_ROWS),))
        t0 = clock()
        s.execute_prepared(stmt, [rng.randint(1, TABLE_ROWS)])
        after.append(clock() - t0)
    w.close()
    s.close()
    server.storage.close()
    steady.sort()
    after.sort()
    return steady[len(steady) // 2] * 1e6, after[len(after) // 2] * 1e6


def raw_invalidation(datadir: Path, uri_extra: str, rounds: int = 400) -> tuple[float, float, float]:
    """The same at the SQLite level alone (a 10-row range read so several pages are touched): (steady µs,
    after-commit µs, PRAGMA data_version µs). ``uri_extra``: e.g. ``cache=shared`` or ``""``; ``mmap`` sets
    mmap_size."""
    path = os.path.join(datadir, "gtidkit.sqlite")
    mmap = uri_extra == "mmap"
    uri = f"file:{path}" + ("?cache=shared" if uri_extra == "shared" else "")
    r = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    if mmap:
        r.execute("PRAGMA mmap_size=268435456")
    w = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    w.execute("PRAGMA synchronous=OFF")
    q = 'SELECT c FROM "sbtest.sbtest1" WHERE id BETWEEN ? AND ?'
    rng = random.Random(9)
    steady, after, dv = [], [], []
    clock = time.perf_counter
    for _ in range(200):
        i = rng.randint(1, TABLE_ROWS - 10)
        r.execute(q, (i, i + 9)).fetchall()
    for _ in range(rounds):
        for _ in range(5):
            i = rng.randint(1, TABLE_ROWS - 10)
            t0 = clock()
            r.execute(q, (i, i + 9)).fetchall()
            steady.append(clock() - t0)
        t0 = clock()
        r.execute("PRAGMA data_version").fetchone()
        dv.append(clock() - t0)
        w.execute('UPDATE "sbtest.sbtest1" SET k=k+1 WHERE id=?', (rng.randint(1, TABLE_ROWS),))
        i = rng.randint(1, TABLE_ROWS - 10)
        t0 = clock()
        r.execute(q, (i, i + 9)).fetchall()
        after.append(clock() - t0)
    r.close()
    w.close()

    def med(v: list[float]) -> float:
        v.sort()
        return v[len(v) // 2] * 1e6

    return med(steady), med(after), med(dv)


def _fmt(out: list[tuple[float, float]]) -> str:
    return ", ".join(f"{t:.0f} ({c:.0f} µs, {t * c / 1e6:.2f} CPUs)" for t, c in out)


def main() -> None:
    """Run the measurements, print the section and (unless --no-write) store it in bench/RESULTS.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-write", action="store_true", help="print only, do not rewrite bench/RESULTS.md")
    args = ap.parse_args()
    configs = [
        (kind, n)
        for kind in ("threads", "processes", "threads, own session", "processes, own sessions")
        for n in (1, 2, 4)
    ]
    runners = {
        "threads": run_threads,
        "processes": run_processes,
        "threads, own session": run_threads_own_session,
        "processes, own sessions": lambda d, n, sec: run_processes(d, n, sec, own_session=True),
    }
    rows: dict[tuple[str, int], list[tuple[float, float]]] = {c: [] for c in configs}
    variants: dict[str, list[tuple[float, float]]] = {"default": [], "cache64m": [], "mmap": []}
    writer: dict[int, list[tuple[float, float]]] = {0: [], 200: [], 1000: []}
    with tempfile.TemporaryDirectory() as tmp:
        datadir = Path(tmp)
        _prepare_datadir(datadir)
        load0 = os.getloadavg()
        for _ in range(args.repeat):
            for kind, n in configs:
                rows[(kind, n)].append(runners[kind](datadir, n, args.seconds))
                print(kind, n, rows[(kind, n)][-1], flush=True)
            for v, out in variants.items():
                out.append(run_processes(datadir, 2, args.seconds, variant=v))
                print("variant", v, out[-1], flush=True)
            for rate, out in writer.items():
                out.append(run_processes(datadir, 2, args.seconds, write_rate=rate))
                print("writer", rate, out[-1], flush=True)
        inval = {v: invalidation_cost(datadir, v) for v in ("default", "cache64m", "mmap")}
        raw = {v: raw_invalidation(datadir, v) for v in ("", "shared", "mmap")}
        load1 = os.getloadavg()
    base_of = {kind: rows[(kind, 1)] for kind, _n in configs}
    lines = [
        "## Multi-worker spike (issue 21), point 1: read scaling across processes on one SQLite WAL database",
        "",
        (
            f"Command: `.venv/bin/python bench/spike_mw_reads.py --seconds {args.seconds:g} --repeat {args.repeat}` "
            "(sysbench's point select `SELECT c FROM sbtest1 WHERE id=?`, 10000 rows, through `Server` / "
            "`session.execute_prepared`, no sockets; N threads of one process vs N processes each opening the same "
            "datadir as a read-only secondary; each cell: statements per second summed over the readers and, in "
            "brackets, the readers' CPU µs per statement and the CPUs they kept busy (CPU s / wall s), one value per "
            "repeat, configurations interleaved). "
            f"Load average before / after: {load0[0]:.1f} / {load1[0]:.1f} on {os.cpu_count()} CPUs: the machine is "
            "shared, so a reader gets a slice of a CPU and wall throughput follows the scheduler's share (more "
            "processes get more slices); CPU µs per statement is the contention-free figure. The kernel groups "
            "the tasks of one session for the scheduler (sched_autogroup_enabled=1 here), so readers started from "
            "this script share one autogroup's slice of the machine; in the 'own session' rows each reader process "
            "(or the one threaded process) calls setsid() and gets a slice of its own, which is how N workers "
            "compete for idle cores on a dedicated machine."
        ),
        "",
        "| readers | statements/s (CPU µs/statement, CPUs used) each repeat | throughput / 1 reader of that kind (same repeat) |",
        "|---|---|---|",
    ]
    for (kind, n), out in rows.items():
        ratios = ", ".join(f"{o[0] / b[0]:.2f}" for o, b in zip(out, base_of[kind], strict=True))
        lines.append(f"| {n} {kind} | {_fmt(out)} | {ratios} |")
    lines += [
        "",
        "Page cache settings, 2 reader processes (statements/s (CPU µs/statement) each repeat): "
        + "; ".join(f"{v}: {_fmt(out)}" for v, out in variants.items())
        + " (cache64m = `PRAGMA cache_size=-65536`, mmap = `PRAGMA mmap_size=256MB`).",
        "",
        "2 reader processes while a third process commits autocommit UPDATEs of sbtest1 at a fixed rate "
        "(statements/s (CPU µs/statement) each repeat): "
        + "; ".join(f"{r}/s: {_fmt(out)}" for r, out in writer.items())
        + ".",
        "",
        (
            "The first read after another connection's commit (the WAL index change counter moved, so SQLite drops the "
            "reader's page cache), wall µs, medians of 400:"
        ),
        "",
        "| reader | steady | first after a commit |",
        "|---|---|---|",
    ]
    for v, (a, b) in inval.items():
        lines.append(f"| engine point select, {v} | {a:.1f} | {b:.1f} |")
    for v, (a, b, _c) in raw.items():
        lines.append(f"| raw SQLite 10-row range, {v or 'private cache'} | {a:.1f} | {b:.1f} |")
    lines.append("")
    lines.append(
        f"`PRAGMA data_version` (the per-connection 'did anyone else commit' check): {raw[''][2]:.1f} µs."
    )
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        from _results import update_section

        update_section("mw_reads", text)


if __name__ == "__main__":
    main()
