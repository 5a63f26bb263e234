"""Issue 21 design spike, points 3 and 5: cross-process shared state and connection distribution.

Point 3 (how a worker learns of other workers' commits), per statement and per commit, in µs:

* the staleness check each statement would make: read a generation counter from a shared page (``mmap`` of a
  datadir file), ``PRAGMA data_version`` on the session's SQLite connection, or ``SELECT max(seq)`` from the
  commit log table;
* the catch-up when the counter moved: read the new commit log rows (sequence number, GNO, binlog end
  position, logical clock) and add each GTID to the worker's gtid_executed (:class:`gtidkit.gtid.GtidSet`), for 1
  and for 20 new commits; or parse gtid_executed's text from the shared page instead;
* the primitives of cross-process coordination: an uncontended ``flock`` pair (write lock, GTID ownership
  table lock), and the wake-up latency from one process to another (a Unix datagram socket ping-pong / 2; what a
  control channel, KILL or a dump-thread wake-up costs);
* prototypes built on them: GTID ownership in a shared page (``SET GTID_NEXT`` in worker B blocked while worker A
  owns the GTID; A's release wakes B, which then owns it), a SHOW PROCESSLIST fan-out to 4 workers, and the time
  to start a replacement worker (fresh interpreter, imports, engine opened as a secondary).

Point 5 (one listening port, N workers): 400 sequential connections to N=4 worker processes that accept on one
inherited listening socket, on SO_REUSEPORT sockets (one per worker), or that receive each connection from a
supervisor that accepts and passes the descriptor with SCM_RIGHTS (``socket.send_fds``); per mode, how the
connections spread over the workers and the median connect-to-first-byte latency.

Usage: .venv/bin/python bench/spike_mw_shared.py [--no-write]
"""

from __future__ import annotations

import argparse
import fcntl
import mmap
import os
import socket
import sqlite3
import struct
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

SID = uuid.UUID("3e11fa47-71ca-11e1-9e33-c80aa9429562")


def _med(fn, n: int = 20000) -> float:
    """Median µs of ``fn()`` over ``n`` calls, timed in batches of 100."""
    v = []
    for _ in range(n // 100):
        t0 = time.perf_counter()
        for _ in range(100):
            fn()
        v.append((time.perf_counter() - t0) / 100)
    v.sort()
    return v[len(v) // 2] * 1e6


def staleness(d: Path) -> dict[str, float]:
    """µs of each staleness check and of each catch-up step."""
    from gtidkit.gtid import GtidSet

    path = d / "shm"
    path.write_bytes(bytes(4096))
    fd = os.open(path, os.O_RDWR)
    page = mmap.mmap(fd, 4096)
    os.close(fd)
    db = sqlite3.connect(d / "db.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(
        "CREATE TABLE commit_log (seq INTEGER PRIMARY KEY, gno INTEGER, last_committed INTEGER, file TEXT, "
        "end_pos INTEGER, payload BLOB)"
    )
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO commit_log VALUES (?, ?, ?, 'binlog.000001', ?, zeroblob(600))",
        [(i, i, i - 1, 1000 + 700 * i) for i in range(1, 5001)],
    )
    db.execute("COMMIT")
    unpack = struct.Struct("<Q").unpack_from
    out: dict[str, float] = {}
    out["mmap generation counter read"] = _med(lambda: unpack(page, 0))
    out["PRAGMA data_version"] = _med(lambda: db.execute("PRAGMA data_version").fetchone())
    out["SELECT max(seq) FROM commit_log"] = _med(
        lambda: db.execute("SELECT max(seq) FROM commit_log").fetchone()
    )
    base = GtidSet.parse(f"{SID}:1-4000")
    sid_bytes = SID.bytes

    def catch_up(k: int) -> float:
        gset = GtidSet.parse(str(base))
        last = [4000]

        def step() -> None:
            rows = db.execute(
                "SELECT seq, gno, last_committed, file, end_pos FROM commit_log WHERE seq > ? ORDER BY seq LIMIT ?",
                (last[0], k),
            ).fetchall()
            for _seq, gno, _lc, _f, _pos in rows:
                gset.add_in_place(sid_bytes, "", gno)
            last[0] = 4000  # rerun the same rows: add_in_place of a present GNO costs as much as a new one

        return _med(step, 4000)

    out["catch-up of 1 commit (commit_log rows -> gtid_executed)"] = catch_up(1)
    out["catch-up of 20 commits"] = catch_up(20)
    text = f"{SID}:1-123456"
    out["parse gtid_executed text from the shared page (1 interval)"] = _med(lambda: GtidSet.parse(text))
    gappy = f"{SID}:" + ":".join(f"{i * 10 + 1}-{i * 10 + 5}" for i in range(50))
    out["parse gtid_executed text (50 intervals)"] = _med(lambda: GtidSet.parse(gappy), 4000)
    lf = os.open(d / "lock", os.O_RDWR | os.O_CREAT)

    def lock_pair() -> None:
        fcntl.flock(lf, fcntl.LOCK_EX)
        fcntl.flock(lf, fcntl.LOCK_UN)

    out["flock + unlock, uncontended"] = _med(lock_pair)
    db.close()
    return out


def wake_latency(rounds: int = 2000) -> float:
    """Median one-way µs of a Unix datagram between two processes (ping-pong round trip / 2)."""
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    pid = os.fork()
    if pid == 0:
        a.close()
        for _ in range(rounds):
            b.send(b.recv(16))
        os._exit(0)
    b.close()
    v = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        a.send(b"x")
        a.recv(16)
        v.append(time.perf_counter() - t0)
    os.waitpid(pid, 0)
    a.close()
    v.sort()
    return v[len(v) // 2] / 2 * 1e6


# ---------------------------------------------------------------- GTID ownership across processes
_SLOT = struct.Struct("<QQ")  # (gno, owner connection id); 0 = free. One SID in this prototype.
_SLOTS = 64


def _claim(page: mmap.mmap, lockfd: int, gno: int, conn_id: int, waiter: str | None) -> bool:
    """Own ``gno`` for ``conn_id`` unless another connection owns it (then register ``waiter``'s socket path)."""
    fcntl.flock(lockfd, fcntl.LOCK_EX)
    try:
        free = None
        for i in range(_SLOTS):
            g, owner = _SLOT.unpack_from(page, 16 + i * 16)
            if g == gno and owner not in (0, conn_id):
                if waiter is not None:
                    page[2048 : 2048 + 108] = waiter.encode().ljust(108, b"\0")
                return False
            if owner == 0 and free is None:
                free = i
        assert free is not None
        _SLOT.pack_into(page, 16 + free * 16, gno, conn_id)
        return True
    finally:
        fcntl.flock(lockfd, fcntl.LOCK_UN)


def _release(page: mmap.mmap, lockfd: int, gno: int, conn_id: int, sock: socket.socket) -> None:
    """Drop the ownership and wake the registered waiter (one datagram)."""
    fcntl.flock(lockfd, fcntl.LOCK_EX)
    try:
        for i in range(_SLOTS):
            if _SLOT.unpack_from(page, 16 + i * 16) == (gno, conn_id):
                _SLOT.pack_into(page, 16 + i * 16, 0, 0)
        waiter = bytes(page[2048 : 2048 + 108]).rstrip(b"\0").decode()
        page[2048 : 2048 + 108] = bytes(108)
    finally:
        fcntl.flock(lockfd, fcntl.LOCK_UN)
    if waiter:
        sock.sendto(b"released", waiter)


def ownership_handoff(d: Path, rounds: int = 300) -> float:
    """Median µs from the owner's release to the waiting process's successful claim of the same GTID (SET GTID_NEXT
    blocked in another worker), through the shared page + flock + a datagram to the waiter's socket."""
    (d / "own.shm").write_bytes(bytes(4096))
    (d / "own.lock").write_bytes(b"")
    a_path, b_path = str(d / "a.sock"), str(d / "b.sock")
    go_r, go_w = os.pipe()
    res_r, res_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # worker B: waits for each gno that A owns, claims it when woken
        fd = os.open(d / "own.shm", os.O_RDWR)
        page = mmap.mmap(fd, 4096)
        lk = os.open(d / "own.lock", os.O_RDWR)
        sb = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sb.bind(b_path)
        for gno in range(1, rounds + 1):
            os.read(go_r, 1)  # A owns gno now
            while not _claim(page, lk, gno, 2, b_path):
                sb.recv(16)
            os.write(res_w, struct.pack("<d", time.perf_counter()))
            _release(page, lk, gno, 2, sb)
        os._exit(0)
    fd = os.open(d / "own.shm", os.O_RDWR)
    page = mmap.mmap(fd, 4096)
    lk = os.open(d / "own.lock", os.O_RDWR)
    sa = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sa.bind(a_path)
    v = []
    for gno in range(1, rounds + 1):
        assert _claim(page, lk, gno, 1, None)
        os.write(go_w, b"x")
        time.sleep(0.002)  # B is now blocked as a waiter
        t0 = time.perf_counter()
        _release(page, lk, gno, 1, sa)
        t1 = struct.unpack("<d", os.read(res_r, 8))[0]
        v.append(t1 - t0)
    os.waitpid(pid, 0)
    v.sort()
    return v[len(v) // 2] * 1e6


def processlist_fanout(workers: int = 4, rows: int = 10, rounds: int = 300) -> float:
    """Median µs for one worker to ask ``workers`` others for their processlist rows (a datagram each) and merge
    the answers (``rows`` rows of 8 columns each, pickled)."""
    import pickle

    chans, pids = [], []
    for i in range(workers):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        pid = os.fork()
        if pid == 0:
            a.close()
            mine = [
                (i * 100 + k, "app", "127.0.0.1:5000", "sbtest", "Query", 0, "executing", "SELECT 1")
                for k in range(rows)
            ]
            while b.recv(16) == b"plist":
                b.send(pickle.dumps(mine))
            os._exit(0)
        b.close()
        chans.append(a)
        pids.append(pid)
    v = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for c in chans:
            c.send(b"plist")
        merged = []
        for c in chans:
            merged += pickle.loads(c.recv(65536))
        v.append(time.perf_counter() - t0)
    for c in chans:
        c.send(b"quit")
    for pid in pids:
        os.waitpid(pid, 0)
    v.sort()
    return v[len(v) // 2] * 1e6


def worker_start(repeat: int = 3) -> tuple[float, float, float]:
    """Starting a replacement worker: (median wall s, median CPU s) of a fresh interpreter that imports the wire
    server and opens the engine on an existing datadir as a secondary (fork+exec), and the median wall s of the
    same open in a child forked from a process that already imported everything and holds no thread and no open
    SQLite connection (a fork server, as multiprocessing's ``forkserver``)."""
    import resource
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        code = (
            "import sys; sys.path.insert(0, sys.argv[2]);"
            "from spike_mw_reads import _secondary_lock; _secondary_lock();"
            "import gtidkit.protocol.server; from gtidkit.engine import Server;"
            "s = Server.open(sys.argv[1], log_bin=False); s.session().close(); s.storage.close()"
        )
        bench_dir = str(Path(__file__).resolve().parent)
        from gtidkit.engine import Server

        Server.open(tmp, log_bin=False).shutdown()
        from spike_mw_reads import _secondary_lock

        import gtidkit.protocol.server  # noqa: F401 - what a fork server holds imported

        v, cpu, forked = [], [], []
        for _ in range(repeat):
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code, tmp, bench_dir], check=True)
            v.append(time.perf_counter() - t0)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
            rd, wr = os.pipe()
            t0 = time.perf_counter()
            pid = os.fork()
            if pid == 0:
                _secondary_lock()
                srv = Server.open(tmp, log_bin=False)
                srv.session().close()
                srv.storage.close()
                os.write(wr, b"up")
                os._exit(0)
            os.read(rd, 2)
            forked.append(time.perf_counter() - t0)
            os.waitpid(pid, 0)
            os.close(rd)
            os.close(wr)
    return sorted(v)[len(v) // 2], sorted(cpu)[len(cpu) // 2], sorted(forked)[len(forked) // 2]


def flusher_framing(tx: int = 200) -> tuple[float, float]:
    """(bytes, median µs) per sysbench oltp_read_write transaction for what the flusher adds to each one: set every
    event header's ``log_pos`` to its end offset in the file and recompute its CRC32 (the events themselves are
    encoded by the committer). The transactions are real: written by the engine (binlog on) and cut back out of
    its binlog file at the Gtid events."""
    import random as _random
    import zlib

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_session import STATEMENTS, TABLE_ROWS, _c, _load

    from gtidkit.engine import Server

    with tempfile.TemporaryDirectory() as tmp:
        server = Server.open(tmp, log_bin=True)
        r = _random.Random(1)
        sess = server.session()
        _load(sess, r)
        p = {k: sess.prepare(t) for k, t in STATEMENTS.items()}
        e = sess.execute_prepared
        for _ in range(tx):
            e(p["begin"], [])
            e(p["update_index"], [r.randint(1, TABLE_ROWS)])
            e(p["update_non_index"], [_c(r, 10), r.randint(1, TABLE_ROWS)])
            i = r.randint(1, TABLE_ROWS)
            e(p["delete"], [i])
            e(p["insert"], [i, r.randint(1, TABLE_ROWS), _c(r, 10), _c(r, 5)])
            e(p["commit"], [])
        sess.close()
        data = max(Path(tmp).glob("binlog.0*"), key=lambda f: f.stat().st_size).read_bytes()
        server.shutdown()
    events = []  # (offset, size, type)
    pos = 4
    while pos + 19 <= len(data):
        size = struct.unpack_from("<I", data, pos + 9)[0]
        events.append((pos, size, data[pos + 4]))
        pos += size
    txs: list[list[bytes]] = []
    for off, size, typ in events:
        if typ == 33:  # Gtid_log_event starts a transaction
            txs.append([])
        if txs:
            txs[-1].append(data[off : off + size])
    txs = txs[-tx:]  # the read_write transactions (the table load comes first)

    def frame(evs: list[bytes], start: int) -> int:
        out = bytearray(b"".join(evs))
        p = 0
        for ev in evs:
            n = len(ev)
            struct.pack_into("<I", out, p + 13, start + p + n)
            struct.pack_into("<I", out, p + n - 4, zlib.crc32(memoryview(out)[p : p + n - 4]))
            p += n
        return len(out)

    v = []
    for t in txs:
        t0 = time.perf_counter()
        for _ in range(20):
            frame(t, 1000)
        v.append((time.perf_counter() - t0) / 20)
    v.sort()
    return sum(len(b) for t in txs for b in t) / len(txs), v[len(v) // 2] * 1e6


# ---------------------------------------------------------------- point 5
def _serve(sock: socket.socket, index: int, n: int) -> None:
    for _ in range(n):
        try:
            c, _ = sock.accept()
        except OSError:
            return
        c.sendall(bytes([index]))
        c.close()


def _serve_fds(chan: socket.socket, index: int) -> None:
    while True:
        _msg, fds, _flags, _addr = socket.recv_fds(chan, 16, 1)
        if not fds:
            return
        c = socket.socket(fileno=fds[0])
        c.sendall(bytes([index]))
        c.close()


def distribution(mode: str, workers: int = 4, conns: int = 400) -> tuple[Counter[int], float]:
    """Spread of ``conns`` sequential connections over ``workers`` processes, and the median connect-to-first-
    byte µs."""
    pids: list[int] = []
    if mode == "inherited":
        ls = socket.create_server(("127.0.0.1", 0), backlog=128)
        port = ls.getsockname()[1]
        for i in range(workers):
            pid = os.fork()
            if pid == 0:
                _serve(ls, i, conns)
                os._exit(0)
            pids.append(pid)
        ls.close()
    elif mode == "reuseport":
        probe = socket.create_server(("127.0.0.1", 0), reuse_port=True)
        port = probe.getsockname()[1]
        probe.close()
        socks = [
            socket.create_server(("127.0.0.1", port), reuse_port=True, backlog=128) for _ in range(workers)
        ]
        for i in range(workers):
            pid = os.fork()
            if pid == 0:
                _serve(socks[i], i, conns)
                os._exit(0)
            pids.append(pid)
        for s in socks:
            s.close()
    else:  # handoff: this process accepts (the supervisor) and passes each connection round-robin
        ls = socket.create_server(("127.0.0.1", 0), backlog=128)
        port = ls.getsockname()[1]
        chans = []
        for i in range(workers):
            sup, wk = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            pid = os.fork()
            if pid == 0:
                sup.close()
                ls.close()
                _serve_fds(wk, i)
                os._exit(0)
            wk.close()
            chans.append(sup)
            pids.append(pid)
    time.sleep(0.3)
    seen: Counter[int] = Counter()
    lat = []
    for k in range(conns):
        t0 = time.perf_counter()
        c = socket.create_connection(("127.0.0.1", port))
        if mode == "handoff":
            a, _ = ls.accept()
            socket.send_fds(chans[k % workers], [b"c"], [a.fileno()])
            a.close()
        b = c.recv(1)
        lat.append(time.perf_counter() - t0)
        seen[b[0]] += 1
        c.close()
    if mode == "handoff":
        for ch in chans:
            socket.send_fds(ch, [b"q"], [])
            ch.close()
        ls.close()
    for pid in pids:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    lat.sort()
    return seen, lat[len(lat) // 2] * 1e6


def main() -> None:
    """Run the measurements, print the section and (unless --no-write) store it in bench/RESULTS.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        st = staleness(Path(tmp))
    wake = wake_latency()
    with tempfile.TemporaryDirectory() as tmp:
        handoff = ownership_handoff(Path(tmp))
    fanout = processlist_fanout()
    start_s = worker_start()
    frame_bytes, frame_us = flusher_framing()
    dist = {m: distribution(m) for m in ("inherited", "reuseport", "handoff")}
    load1 = os.getloadavg()
    lines = [
        "## Multi-worker spike (issue 21), points 3 and 5: cross-process state, connection distribution",
        "",
        (
            "Command: `.venv/bin/python bench/spike_mw_shared.py` (medians; load average before / after: "
            f"{load0[0]:.1f} / {load1[0]:.1f} on {os.cpu_count()} CPUs)."
        ),
        "",
        "| step | µs |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v:.2f} |" for k, v in st.items()]
    lines.append(f"| wake another process: Unix datagram, one way | {wake:.1f} |")
    lines.append(
        f"| GTID ownership hand-off across processes (owner releases -> blocked claimant owns it) | {handoff:.1f} |"
    )
    lines.append(f"| SHOW PROCESSLIST fan-out: ask 4 worker processes, merge 4 x 10 rows | {fanout:.1f} |")
    lines.append(
        f"| start a replacement worker by fork+exec (interpreter, imports, secondary engine open): wall / CPU "
        f"| {start_s[0] * 1e6:.0f} / {start_s[1] * 1e6:.0f} |"
    )
    lines.append(
        f"| the same open in a child of a fork server (everything imported, no thread) | {start_s[2] * 1e6:.0f} |"
    )
    lines.append(
        f"| flusher: set log_pos and CRC32 of every event of a sysbench read_write transaction "
        f"({frame_bytes:.0f} bytes, written by the engine) | {frame_us:.1f} |"
    )
    lines += [
        "",
        "400 sequential connections to 4 worker processes (connections per worker; median connect to first byte):",
        "",
        "| listening | per worker | µs |",
        "|---|---|---|",
    ]
    for m, (seen, lat) in dist.items():
        lines.append(f"| {m} | {', '.join(str(seen[i]) for i in range(4))} | {lat:.0f} |")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _results import update_section

        update_section("mw_shared", text)


if __name__ == "__main__":
    main()
