"""Per-operation costs of the multi-worker server's cross-process primitives (gtidkit.engine.shared, issue 21 step 3).

Uncontended operations are timed in this process (median of batches); hand-offs across real processes (children
of a ``forkserver``: a fresh interpreter, no thread, no SQLite) are timed from the releaser's clock reading just
before its release to the woken process's reading just after it got what it waited for (both CLOCK_MONOTONIC).

Usage: PYTHONPATH=src .venv/bin/python bench/bench_shared.py [--rounds N] [--no-write]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

from gtidkit.engine.shared import control, waiters
from gtidkit.engine.shared.owners import GtidOwners
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.engine.shared.workers import clear_worker, register_worker
from gtidkit.engine.shared.write_lock import SharedWriteLock
from gtidkit.errors import MySQLError

SID = uuid.UUID("3e11fa47-71ca-11e1-9e33-c80aa9429562")
CTX = mp.get_context("forkserver")


def _med(fn, n: int = 20000) -> tuple[float, float]:
    """(median wall µs, mean CPU µs) of ``fn()`` over ``n`` calls, timed in batches of 100. On a loaded machine the
    wall time includes the time this process waits for a CPU; the CPU time is what the operation costs."""
    v = []
    c0 = time.process_time()
    for _ in range(max(1, n // 100)):
        t0 = time.perf_counter()
        for _ in range(100):
            fn()
        v.append((time.perf_counter() - t0) / 100)
    cpu = (time.process_time() - c0) / (max(1, n // 100) * 100)
    v.sort()
    return v[len(v) // 2] * 1e6, cpu * 1e6


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1e6


def _row(what: str, lat: list[float]) -> str:
    return f"| {what} | {_pct(lat, 0.5):.0f} | {_pct(lat, 0.95):.0f} | {len(lat)} |"


def uncontended(d: Path) -> dict[str, tuple[float, float]]:
    """(wall µs, CPU µs) per uncontended operation, in one process."""
    page = SharedPage.create(d)
    c = page.counter("committed")
    lock = SharedWriteLock(page, d, 1)
    owners = GtidOwners(page, 1)
    page.sid_index(SID)
    out: dict[str, tuple[float, float]] = {}
    out["counter read (Counter.get)"] = _med(c.get, 100000)
    words = page.words
    out["counter read, a bare item of the page's memoryview (floor)"] = _med(lambda: words[8], 100000)
    out["counter write (Counter.set, one writer)"] = _med(lambda: c.set(5), 100000)

    def page_lock() -> None:
        with page.locked():
            pass

    out["page lock + unlock (flock + thread lock)"] = _med(page_lock)

    def write_lock() -> None:
        lock.try_acquire(10)
        lock.release()

    out["write lock acquire + release, uncontended (no waiter)"] = _med(write_lock)

    def gtid() -> None:
        owners.try_claim(SID, 5, 10)
        owners.release(SID, 5, 10)

    for g in range(100, 110):
        owners.try_claim(SID, g, g)
    out["GTID claim + release, uncontended (10 other owners in the table)"] = _med(gtid)
    out["sid index of a known (sid, tag)"] = _med(lambda: page.sid_index(SID), 100000)
    out["wake a connection that waits for nothing (KILL's wake-up)"] = _med(
        lambda: waiters.wake_connection(page, 10), 100000
    )
    for g in range(100, 110):
        owners.release(SID, g, g)
    register_worker(page, 7)
    for g in range(1, 11):
        GtidOwners(page, 7).try_claim(SID, g, 700 + g)

    def clear() -> None:
        clear_worker(page, 7)

    t0, c0 = time.perf_counter(), time.process_time()
    clear()
    out["clear_worker of a dead worker owning 10 GTIDs (once)"] = (
        (time.perf_counter() - t0) * 1e6,
        (time.process_time() - c0) * 1e6,
    )
    lock.close()
    page.close()
    return out


# ---------------------------------------------------------------------------------------------- hand-offs
def _lock_taker(datadir: str, go, stamps) -> None:
    page = SharedPage.attach(datadir)
    lock = SharedWriteLock(page, datadir, 2)
    while True:
        if go.recv() is None:
            return
        lock.acquire(20, timeout=60)
        stamps.send(time.perf_counter())
        lock.release()


def lock_handoff(d: Path, rounds: int) -> list[float]:
    """Seconds from the holder's release (process A) to the blocked waiter's acquire (process B)."""
    page = SharedPage.create(d)
    lock = SharedWriteLock(page, d, 1)
    go_r, go_w = CTX.Pipe(False)
    st_r, st_w = CTX.Pipe(False)
    p = CTX.Process(target=_lock_taker, args=(str(d), go_r, st_w), daemon=True)
    p.start()
    lat = []
    high = page.counter("write_lock_waiters")
    for _ in range(rounds):
        lock.acquire(10, timeout=60)
        go_w.send(1)
        while not high.get():  # the bench waits for the waiter to be asleep; the lock itself never polls
            time.sleep(0.0005)
        time.sleep(0.002)
        t0 = time.perf_counter()
        lock.release()
        lat.append(st_r.recv() - t0)
    go_w.send(None)
    p.join(10)
    lock.close()
    page.close()
    return lat


def _gtid_taker(datadir: str, go, stamps) -> None:
    page = SharedPage.attach(datadir)
    owners = GtidOwners(page, 2)
    while True:
        gno = go.recv()
        if gno is None:
            return
        owners.claim(SID, gno, 20, timeout=60)
        stamps.send(time.perf_counter())
        owners.release(SID, gno, 20)


def gtid_handoff(d: Path, rounds: int) -> list[float]:
    """Seconds from the owner's release (process A) to the blocked claimant's ownership (process B)."""
    page = SharedPage.create(d)
    owners = GtidOwners(page, 1)
    go_r, go_w = CTX.Pipe(False)
    st_r, st_w = CTX.Pipe(False)
    p = CTX.Process(target=_gtid_taker, args=(str(d), go_r, st_w), daemon=True)
    p.start()
    lat = []
    high = page.counter("gtid_waiters")
    for gno in range(1, rounds + 1):
        owners.claim(SID, gno, 10)
        go_w.send(gno)
        while not high.get():
            time.sleep(0.0005)
        time.sleep(0.002)
        t0 = time.perf_counter()
        owners.release(SID, gno, 10)
        lat.append(st_r.recv() - t0)
    go_w.send(None)
    p.join(10)
    page.close()
    return lat


def _kill_sleeper(datadir: str, ready, stamps) -> None:
    page = SharedPage.attach(datadir)
    lock = SharedWriteLock(page, datadir, 2)
    sock = control.ControlSocket(page.token, 2)
    killed = [False]
    ready.send(1)
    while True:
        msg = sock.receive()
        if msg is None:
            return
        if msg.op == control.OP_WAKE:  # "start waiting"
            killed[0] = False
            import threading

            def wait() -> None:
                try:
                    lock.acquire(20, timeout=60, killed=lambda: killed[0])
                except MySQLError:  # 1317
                    stamps.send(time.perf_counter())

            threading.Thread(target=wait).start()
        elif msg.op == control.OP_KILL_QUERY:
            killed[0] = True
            waiters.wake_connection(page, 20)
        elif msg.op == 99:
            return


def kill_latency(d: Path, rounds: int) -> list[float]:
    """Seconds from sending KILL QUERY (a control datagram to the waiter's worker) to the waiter's 1317."""
    page = SharedPage.create(d)
    lock = SharedWriteLock(page, d, 1)
    lock.acquire(10, timeout=60)
    rd_r, rd_w = CTX.Pipe(False)
    st_r, st_w = CTX.Pipe(False)
    p = CTX.Process(target=_kill_sleeper, args=(str(d), rd_w, st_w), daemon=True)
    p.start()
    rd_r.recv()
    me = control.ControlSocket(page.token, 0)
    high = page.counter("write_lock_waiters")
    lat = []
    for _ in range(rounds):
        me.send(2, control.OP_WAKE)
        while not high.get():
            time.sleep(0.0005)
        time.sleep(0.002)
        t0 = time.perf_counter()
        me.send(2, control.OP_KILL_QUERY, b"20")
        lat.append(st_r.recv() - t0)
        while high.get():
            time.sleep(0.0005)
    me.send(2, 99)
    p.join(10)
    me.close()
    lock.release()
    lock.close()
    page.close()
    return lat


def _control_worker(datadir: str, worker_id: int, ready) -> None:
    page = SharedPage.attach(datadir)
    sock = control.ControlSocket(page.token, worker_id)
    rows = "\n".join(
        f"{worker_id * 100 + k}\tapp\t127.0.0.1:5000\tsbtest\tQuery\t0\texecuting\tSELECT 1"
        for k in range(10)
    )

    def handle(msg: control.ControlMessage) -> bytes | None:
        if msg.reply_to is None:
            sock.send(msg.sender, msg.op, msg.body)  # echo notifications
            return None
        return rows.encode()

    ready.send(1)
    sock.serve(handle)


def control_costs(d: Path, rounds: int) -> dict[str, float]:
    """Median µs: a notification one way (ping-pong / 2), a request round trip, a 4-worker fan-out."""
    page = SharedPage.create(d)
    ps = []
    for w in range(1, 5):
        r, wr = CTX.Pipe(False)
        p = CTX.Process(target=_control_worker, args=(str(d), w, wr), daemon=True)
        p.start()
        r.recv()
        ps.append(p)
    me = control.ControlSocket(page.token, 0)
    one_way, req, fan = [], [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        me.send(1, 7)
        me.receive(5)
        one_way.append((time.perf_counter() - t0) / 2)
        t0 = time.perf_counter()
        control.request(page.token, 1, control.OP_PROCESSLIST, timeout=5)
        req.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        answers = control.fan_out(page.token, [1, 2, 3, 4], control.OP_PROCESSLIST, timeout=5)
        fan.append(time.perf_counter() - t0)
        assert all(answers.values())
    me.close()
    for p in ps:
        p.kill()
        p.join(10)
    page.close()
    return {
        "control notification, one way (ping-pong / 2)": _pct(one_way, 0.5),
        "control request round trip (10 processlist rows)": _pct(req, 0.5),
        "control fan-out: ask 4 workers, merge 4 x 10 rows": _pct(fan, 0.5),
    }


def main() -> None:
    """Measure, print the section and (unless --no-write) store it in bench/RESULTS.md as ``shared``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        costs = uncontended(Path(tmp))
    with tempfile.TemporaryDirectory() as tmp:
        lock_lat = lock_handoff(Path(tmp), args.rounds)
    with tempfile.TemporaryDirectory() as tmp:
        gtid_lat = gtid_handoff(Path(tmp), args.rounds)
    with tempfile.TemporaryDirectory() as tmp:
        kill_lat = kill_latency(Path(tmp), max(20, args.rounds // 5))
    with tempfile.TemporaryDirectory() as tmp:
        ctl = control_costs(Path(tmp), args.rounds)
    load1 = os.getloadavg()
    lines = [
        "## Cross-process primitives of the multi-worker server (gtidkit.engine.shared, issue 21 step 3)",
        "",
        (
            f"Command: `PYTHONPATH=src .venv/bin/python bench/bench_shared.py --rounds {args.rounds}` (load average "
            f"before / after: {load0[0]:.1f} / {load1[0]:.1f} on {os.cpu_count()} CPUs). Uncontended: median µs "
            "in one process (the CPU column is what an operation costs; the wall column adds the waits for a CPU on this "
            "loaded machine). Hand-offs: between two real processes, from the releaser's clock before its release "
            "to the woken process's clock after it got what it waited for (no polling: a datagram wakes it)."
        ),
        "",
        "| operation | median wall µs | CPU µs |",
        "|---|---|---|",
    ]
    lines += [f"| {k} | {wall:.2f} | {cpu:.2f} |" for k, (wall, cpu) in costs.items()]
    lines += [f"| {k} | {v:.1f} | - |" for k, v in ctl.items()]
    lines += [
        "",
        "| hand-off across processes | median µs | p95 µs | rounds |",
        "|---|---|---|---|",
        _row("write lock: holder releases -> blocked waiter holds it", lock_lat),
        _row("GTID ownership: owner releases -> blocked claimant owns it", gtid_lat),
        _row("KILL QUERY: control datagram sent -> the waiter's 1317", kill_lat),
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _results import update_section

        update_section("shared", text)


if __name__ == "__main__":
    main()
