"""Issue 21 design spike, point 2: the commit path for group commit, prototyped on raw SQLite and files.

Two commit orders, each run by C concurrent committers (threads of one process, or processes), all on one
SQLite WAL database; every committer opens its own SQLite connection and its own descriptors, and the engine
write lock is an ``flock`` on ``write.lock`` (it works alike between threads, each with its own open file, and
between processes; SQLite's own busy handler sleeps 1..100 ms between retries, far too coarse for a write lock).
A transaction updates two rows of ``t`` (10000 rows), inserts its id into ``txs`` and carries a binlog payload
of ``--payload`` bytes (about one sysbench read_write transaction's ROW events):

``today`` (engine/recovery.py's order): lock; BEGIN IMMEDIATE; the writes; append the payload to the binlog file
and fsync it; record the binlog end position in ``applied``; COMMIT with ``synchronous=NORMAL``; unlock; OK.
One fsync per transaction, inside the lock.

``engine_first``: lock; BEGIN IMMEDIATE; the writes; read the last ``commit_log`` row (sequence number, GNO, binlog
end position) and insert this transaction's row (seq + 1, GNO + 1, its binlog start/end offsets, the payload)
into ``commit_log``; COMMIT with ``synchronous=NORMAL`` (no fsync); publish ``committed = seq`` in a shared
memory page; unlock. Then the group sync: take ``sync.lock``; if ``synced >= seq`` another committer's fsync
already covered it (follower): done; else (leader) optionally wait ``--sync-delay-us`` or until
``--no-delay-count`` transactions are committed and not synced (binlog_group_commit_sync_delay /
binlog_group_commit_sync_no_delay_count), read ``committed``, ``fdatasync`` the ``-wal`` file, publish
``synced``; unlock; OK. A flusher (a thread, or a process) appends ``commit_log`` rows with ``seq <= synced`` to
the binlog file in sequence order, fsyncs it every ``--flush-batch`` rows and publishes ``binlog_synced``;
committers trim ``commit_log`` below ``binlog_synced`` in their own transaction now and then.

Recovery (``recover``) and the crash test (``--crash N``): a child process runs 4 committers and the flusher and
prints each acknowledged transaction; it is SIGKILLed after a random 0.05-0.6 s (in process mode a random
committer first, then the rest). Recovery cuts the binlog file after its last whole record, appends the
``commit_log`` rows past it, and the checks are: every acknowledged transaction is in ``txs``; the rebuilt binlog
holds every transaction of ``txs`` exactly once, with sequence numbers and GNOs 1..n without gaps, and nothing
else; the updated rows' sum equals two per transaction.

Usage: .venv/bin/python bench/spike_mw_commit.py [--seconds 1.5] [--repeat 2] [--crash 30] [--no-write]
"""

from __future__ import annotations

import argparse
import fcntl
import mmap
import multiprocessing as mp
import os
import random
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROWS = 10000
# shared page: committed seq, synced seq, WAL fsyncs, binlog_synced seq, binlog fsyncs, transactions acknowledged
_SLOTS = ("committed", "synced", "wal_fsyncs", "binlog_synced", "binlog_fsyncs", "acked")
REC = struct.Struct("<IQQ")  # binlog record header: payload length, seq, gno (payload follows)


class Shared:
    """A page of 8-byte counters in ``<dir>/mw.shm``, mapped by every committer (the prototype's shared state).

    Each slot has one writer at a time (committed: the write-lock holder; synced, wal_fsyncs: the sync-lock holder;
    binlog_*: the flusher), readers read without a lock."""

    def __init__(self, d: Path) -> None:
        path = d / "mw.shm"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        if os.fstat(fd).st_size < 4096:
            os.ftruncate(fd, 4096)
        self.map = mmap.mmap(fd, 4096)
        os.close(fd)

    def get(self, name: str) -> int:
        """The counter ``name`` (one of ``_SLOTS``)."""
        return struct.unpack_from("<Q", self.map, 8 * _SLOTS.index(name))[0]

    def set(self, name: str, value: int) -> None:
        """Store ``value`` in counter ``name`` (by its one writer)."""
        struct.pack_into("<Q", self.map, 8 * _SLOTS.index(name), value)

    def add(self, name: str, n: int = 1) -> None:
        """Add ``n`` to counter ``name`` (only under the slot's lock)."""
        self.set(name, self.get(name) + n)


def setup(d: Path) -> None:
    """A fresh datadir: the database with ``t``, ``txs``, ``applied``, ``commit_log`` and an empty binlog."""
    for f in d.iterdir():
        f.unlink()
    db = sqlite3.connect(d / "db.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER NOT NULL)")
    db.execute("CREATE TABLE txs (txid TEXT PRIMARY KEY)")
    db.execute("CREATE TABLE applied (one INTEGER PRIMARY KEY, pos INTEGER)")
    db.execute("INSERT INTO applied VALUES (1, 0)")
    db.execute(
        "CREATE TABLE commit_log (seq INTEGER PRIMARY KEY, gno INTEGER NOT NULL, start_pos INTEGER NOT NULL, "
        "end_pos INTEGER NOT NULL, payload BLOB NOT NULL)"
    )
    db.execute("BEGIN")
    db.executemany("INSERT INTO t VALUES (?, 0)", [(i,) for i in range(1, ROWS + 1)])
    db.execute("COMMIT")
    db.close()
    (d / "binlog").write_bytes(b"")
    (d / "write.lock").write_bytes(b"")
    (d / "sync.lock").write_bytes(b"")
    Shared(d)


class Committer:
    """One committing session: its own SQLite connection, lock descriptors and binlog / WAL descriptors."""

    def __init__(
        self, d: Path, mode: str, payload: int, hold_us: int, sync_delay_us: int, no_delay_count: int
    ):
        self.d, self.mode, self.payload_len, self.hold = d, mode, payload, hold_us / 1e6
        self.sync_delay, self.no_delay_count = sync_delay_us / 1e6, no_delay_count
        self.db = sqlite3.connect(d / "db.sqlite", isolation_level=None, check_same_thread=False, timeout=60)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.wlock = os.open(d / "write.lock", os.O_RDWR)
        self.slock = os.open(d / "sync.lock", os.O_RDWR)
        self.binlog = os.open(d / "binlog", os.O_WRONLY | os.O_APPEND)
        self.db.execute("SELECT count(*) FROM applied").fetchone()  # creates the -wal file if missing
        self.wal = os.open(str(d / "db.sqlite") + "-wal", os.O_RDONLY)
        self.shared = Shared(d)
        self.rng = random.Random(os.getpid() * 1000 + threading.get_ident() % 1000)
        self.trimmed = 0
        #: seconds the write lock was held, summed (the serialized part of a commit)
        self.held = 0.0

    def _writes(self, txid: str) -> None:
        ex = self.db.execute
        ex("UPDATE t SET k=k+1 WHERE id=?", (self.rng.randint(1, ROWS),))
        ex("UPDATE t SET k=k+1 WHERE id=?", (self.rng.randint(1, ROWS),))
        ex("INSERT INTO txs VALUES (?)", (txid,))
        if self.hold:  # the holder's engine CPU (statement execution, event encoding)
            end = time.perf_counter() + self.hold
            while time.perf_counter() < end:
                pass

    def _payload(self, txid: str) -> bytes:
        body = txid.encode()
        return body + b"\0" + bytes(self.payload_len - len(body) - 1)

    def commit(self, txid: str) -> tuple[int, int]:
        """Run one transaction to its acknowledgement; returns (seq, gno) (engine_first) or (0, 0) (today)."""
        fcntl.flock(self.wlock, fcntl.LOCK_EX)
        t_lock = time.perf_counter()
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self._writes(txid)
                if self.mode == "today":
                    p = self._payload(txid)
                    os.write(self.binlog, REC.pack(len(p), 0, 0) + p)
                    os.fsync(self.binlog)
                    self.db.execute("UPDATE applied SET pos=pos+? WHERE one=1", (REC.size + len(p),))
                    self.db.execute("COMMIT")
                    return 0, 0
                row = self.db.execute(
                    "SELECT seq, gno, end_pos FROM commit_log ORDER BY seq DESC LIMIT 1"
                ).fetchone() or (0, 0, 0)
                seq, gno, start = row[0] + 1, row[1] + 1, row[2]
                p = self._payload(txid)
                end = start + REC.size + len(p)
                self.db.execute("INSERT INTO commit_log VALUES (?, ?, ?, ?, ?)", (seq, gno, start, end, p))
                bs = self.shared.get("binlog_synced")
                if bs - self.trimmed >= 200:  # trim what the binlog file holds durably (keep the last row)
                    self.db.execute("DELETE FROM commit_log WHERE seq < ?", (bs,))
                    self.trimmed = bs
                self.db.execute("COMMIT")
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
            self.shared.set("committed", seq)
        finally:
            self.held += time.perf_counter() - t_lock
            fcntl.flock(self.wlock, fcntl.LOCK_UN)
        self._group_sync(seq)
        return seq, gno

    def _group_sync(self, seq: int) -> None:
        sh = self.shared
        if sh.get("synced") >= seq:
            return
        fcntl.flock(self.slock, fcntl.LOCK_EX)
        try:
            if sh.get("synced") >= seq:
                return  # follower: the leader's fsync covered us
            if self.sync_delay:
                deadline = time.perf_counter() + self.sync_delay
                while time.perf_counter() < deadline:
                    if self.no_delay_count and sh.get("committed") - sh.get("synced") >= self.no_delay_count:
                        break
                    time.sleep(0.00005)
            target = sh.get("committed")
            os.fdatasync(self.wal)
            sh.set("synced", target)
            sh.add("wal_fsyncs")
        finally:
            fcntl.flock(self.slock, fcntl.LOCK_UN)

    def close(self) -> None:
        """Close the connection and the descriptors."""
        self.db.close()
        for fd in (self.wlock, self.slock, self.binlog, self.wal):
            os.close(fd)


def flusher(d: Path, stop: Any, batch: int, bound: str = "synced") -> None:
    """Append durable commit_log rows to the binlog file in sequence order; fsync every ``batch`` rows.

    ``bound``: the shared counter the flusher may not pass, ``synced`` (the design) or ``committed`` (a negative
    control for the power-loss model: the binlog then runs ahead of what the WAL fsync made durable)."""
    sh = Shared(d)
    db = sqlite3.connect(d / "db.sqlite", isolation_level=None, check_same_thread=False)
    fd = os.open(d / "binlog", os.O_WRONLY)
    done = sh.get("binlog_synced")
    pending = 0
    while True:
        synced = sh.get(bound)
        if synced > done:
            rows = db.execute(
                "SELECT seq, gno, start_pos, payload FROM commit_log WHERE seq > ? AND seq <= ? ORDER BY seq",
                (done, synced),
            ).fetchall()
            for seq, gno, start, p in rows:
                os.pwrite(fd, REC.pack(len(p), seq, gno) + p, start)
                done = seq
                pending += 1
            if pending >= batch or (pending and stop.is_set()):
                os.fsync(fd)
                sh.set("binlog_synced", done)
                sh.add("binlog_fsyncs")
                pending = 0
        elif stop.is_set():
            if pending:
                os.fsync(fd)
                sh.set("binlog_synced", done)
            break
        else:
            time.sleep(0.0005)
    os.close(fd)
    db.close()


def recover(d: Path, complete: bool = True) -> dict[str, int]:
    """Complete the binlog file from commit_log after a crash: cut it after its last whole record, append the
    rows past it (``complete=False``: cut only, the negative control showing the checks catch a binlog that
    lacks committed transactions). Returns counts for the checks."""
    db = sqlite3.connect(d / "db.sqlite", isolation_level=None)
    data = (d / "binlog").read_bytes()
    pos, last_seq = 0, 0
    while pos + REC.size <= len(data):
        n, seq, _gno = REC.unpack_from(data, pos)
        if seq != last_seq + 1 or pos + REC.size + n > len(data) or seq == 0:
            break
        pos += REC.size + n
        last_seq = seq
    rows = db.execute(
        "SELECT seq, gno, start_pos, payload FROM commit_log WHERE seq > ? ORDER BY seq", (last_seq,)
    ).fetchall()
    first_in_table = db.execute("SELECT min(seq) FROM commit_log").fetchone()[0]
    if not complete:
        rows = []
    if rows and rows[0][0] != last_seq + 1:
        raise AssertionError(f"gap: binlog ends at seq {last_seq}, commit_log resumes at {rows[0][0]}")
    with open(d / "binlog", "r+b") as f:
        f.truncate(pos)
        f.seek(pos)
        for seq, gno, start, p in rows:
            if start != f.tell():
                raise AssertionError(f"seq {seq}: recorded start {start} != file end {f.tell()}")
            f.write(REC.pack(len(p), seq, gno) + p)
        f.flush()
        os.fsync(f.fileno())
    db.close()
    return {"binlog_seq_before": last_seq, "appended": len(rows), "table_min": first_in_table or 0}


def check(d: Path, acked: set[str]) -> str | None:
    """The invariants after recovery; None when they hold, else what broke."""
    db = sqlite3.connect(d / "db.sqlite", isolation_level=None)
    txs = {r[0] for r in db.execute("SELECT txid FROM txs")}
    ksum = db.execute("SELECT sum(k) FROM t").fetchone()[0]
    db.close()
    data = (d / "binlog").read_bytes()
    pos, seqs, gnos, logged = 0, [], [], []
    while pos < len(data):
        n, seq, gno = REC.unpack_from(data, pos)
        p = data[pos + REC.size : pos + REC.size + n]
        logged.append(p.split(b"\0", 1)[0].decode())
        seqs.append(seq)
        gnos.append(gno)
        pos += REC.size + n
    if missing := acked - txs:
        return f"{len(missing)} acknowledged transactions missing from the data"
    if len(logged) != len(set(logged)):
        return "a transaction is twice in the binlog"
    if set(logged) != txs:
        return f"binlog and data differ: {len(set(logged) - txs)} only in binlog, {len(txs - set(logged))} only in data"
    if seqs != list(range(1, len(seqs) + 1)) or gnos != seqs:
        return "sequence numbers or GNOs have a gap or repeat"
    if ksum != 2 * len(txs):
        return f"row updates {ksum} != 2 x {len(txs)} transactions"
    return None


# ---------------------------------------------------------------- throughput
def _committer_loop(
    d: Path, mode: str, opts: dict[str, int], start_at: float, stop_at: float, tag: str
) -> tuple[list[float], float]:
    c = Committer(d, mode, **opts)
    lat = []
    i = 0
    while time.monotonic() < start_at:
        time.sleep(0.001)
    while time.monotonic() < stop_at:
        t0 = time.perf_counter()
        c.commit(f"{tag}-{i}")
        lat.append(time.perf_counter() - t0)
        i += 1
    c.close()
    return lat, c.held


def _proc_main(
    d: str, mode: str, opts: dict[str, int], start_at: float, stop_at: float, tag: str, q: Any
) -> None:
    try:
        q.put(_committer_loop(Path(d), mode, opts, start_at, stop_at, tag))
    except BaseException as err:
        q.put(err)  # the parent fails at once instead of waiting for a result that never comes
        raise


def run(d: Path, mode: str, kind: str, n: int, seconds: float, opts: dict[str, int]) -> dict[str, float]:
    """TPS, p50/p95 ms, WAL fsyncs per transaction for ``n`` committers (threads or processes)."""
    setup(d)
    sh = Shared(d)
    stop = threading.Event()
    fl = None
    if mode == "engine_first":
        # started after the committer processes are forked: forking while another thread runs (here one inside
        # SQLite) can leave a lock held in the child forever; the build uses fork+exec for the same reason
        fl = threading.Thread(target=flusher, args=(d, stop, 50), daemon=True)  # a failed run must still exit
        if kind == "threads":
            fl.start()
    start_at = time.monotonic() + 0.3 + (0.2 * n if kind == "processes" else 0)
    stop_at = start_at + seconds
    lats: list[float] = []
    held = 0.0
    if kind == "threads":
        out: list[tuple[list[float], float]] = [([], 0.0) for _ in range(n)]

        def body(i: int) -> None:
            out[i] = _committer_loop(d, mode, opts, start_at, stop_at, f"t{i}")

        ts = [threading.Thread(target=body, args=(i,)) for i in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        for o, h in out:
            lats += o
            held += h
    else:
        ctx = mp.get_context("fork")
        q = ctx.Queue()
        ps = [
            ctx.Process(target=_proc_main, args=(str(d), mode, opts, start_at, stop_at, f"p{i}", q))
            for i in range(n)
        ]
        for p in ps:
            p.start()
        if fl is not None:
            fl.start()
        for _ in ps:
            got = q.get(timeout=120)
            if isinstance(got, BaseException):
                raise RuntimeError(f"a committer process failed: {got!r}")  # noqa: TRY004 - a failure, not a type
            o, h = got
            lats += o
            held += h
        for p in ps:
            p.join()
    stop.set()
    if fl is not None:
        fl.join()
    lats.sort()
    tx = len(lats)
    fsyncs = sh.get("wal_fsyncs") if mode == "engine_first" else tx
    return {
        "tps": tx / seconds,
        "p50": lats[tx // 2] * 1e3,
        "p95": lats[int(tx * 0.95)] * 1e3,
        "fsync_per_tx": fsyncs / tx,
        "held_us": held / tx * 1e6,
    }


def fsync_cost(d: Path, n: int = 200) -> tuple[float, float]:
    """Median µs of fdatasync after appending 1 KB (a binlog file grows: the file size changes, so the journal
    commits too) and after overwriting 1 KB inside a file (SQLite's WAL restarts from its beginning after a
    checkpoint and is rewritten in place), on this filesystem."""
    fd = os.open(d / "probe", os.O_RDWR | os.O_CREAT | os.O_APPEND)
    out = []
    for append in (True, False):
        v = []
        for i in range(n):
            if append:
                os.write(fd, bytes(1024))
            else:
                os.pwrite(fd, b"\1" * 1024, (i * 1024) % (n * 1024))
            t0 = time.perf_counter()
            os.fdatasync(fd)
            v.append(time.perf_counter() - t0)
        v.sort()
        out.append(v[n // 2] * 1e6)
    os.close(fd)
    os.unlink(d / "probe")
    return out[0], out[1]


# ---------------------------------------------------------------- crash test
def _crash_child(d: str, kind: str, n: int) -> None:
    """Run ``n`` committers + the flusher until killed; print 'ack <txid>' after each acknowledgement."""
    dd = Path(d)
    opts = {"payload": 600, "hold_us": 0, "sync_delay_us": 0, "no_delay_count": 0}
    out_lock = threading.Lock()

    def loop(tag: str) -> None:
        c = Committer(dd, "engine_first", **opts)
        i = 0
        while True:
            txid = f"{tag}-{i}"
            c.commit(txid)
            with out_lock:
                os.write(1, f"ack {txid}\n".encode())
            i += 1

    if kind == "threads":
        stop = threading.Event()
        threading.Thread(target=flusher, args=(dd, stop, 20), daemon=True).start()
        ts = [threading.Thread(target=loop, args=(f"t{i}",), daemon=True) for i in range(n)]
        for t in ts:
            t.start()
        os.write(1, b"ready\n")
        for t in ts:
            t.join()
    else:
        pids = []
        for i in range(n + 1):
            pid = os.fork()
            if pid == 0:
                try:
                    if i == n:
                        flusher(dd, threading.Event(), 20)
                    else:
                        loop(f"p{i}")
                finally:
                    os._exit(0)
            pids.append(pid)
        os.write(1, ("ready " + " ".join(map(str, pids)) + "\n").encode())
        for pid in pids:
            os.waitpid(pid, 0)


def crash_trials(trials: int, kind: str, seed: int, complete: bool = True) -> dict[str, Any]:
    """``trials`` SIGKILL trials of 4 committers (``kind``: threads or processes) + the flusher, each followed by
    :func:`recover` (``complete=False``: the negative control) and :func:`check`; counts and the first violation."""
    rng = random.Random(seed)
    acked_total = violations = 0
    first_violation = ""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for _ in range(trials):
            setup(d)
            proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--crash-child", str(d), kind, "4"],
                stdout=subprocess.PIPE,
                start_new_session=True,
            )
            assert proc.stdout is not None
            lines: list[bytes] = []
            while not (line := proc.stdout.readline()).startswith(b"ready"):
                lines.append(line)  # acknowledgements may come before the ready line
            pids = [int(x) for x in line.split()[1:]]
            acked: set[str] = set()
            reader = threading.Thread(target=lines.extend, args=(proc.stdout,))
            reader.start()
            time.sleep(rng.uniform(0.05, 0.6))
            if pids:  # one random committer first, then everything
                os.kill(rng.choice(pids[:-1]), signal.SIGKILL)
                time.sleep(rng.uniform(0, 0.05))
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            reader.join()
            for line in lines:
                if line.startswith(b"ack ") and line.endswith(b"\n"):
                    acked.add(line[4:-1].decode())
            recover(d, complete)
            err = check(d, acked)
            acked_total += len(acked)
            if err:
                violations += 1
                first_violation = first_violation or err
    return {"trials": trials, "acked": acked_total, "violations": violations, "first": first_violation}


def main() -> None:
    """Run the throughput cells and the crash trials (or, with --crash-child, be the child), print and store."""
    if len(sys.argv) > 1 and sys.argv[1] == "--crash-child":
        _crash_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--payload", type=int, default=600)
    ap.add_argument("--hold-us", type=int, default=0, help="busy CPU per transaction inside the write lock")
    ap.add_argument("--crash", type=int, default=30, help="crash trials per kind (threads, processes)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    base = {"payload": args.payload, "hold_us": args.hold_us, "sync_delay_us": 0, "no_delay_count": 0}
    configs = [
        (mode, kind, n, base)
        for kind in ("threads", "processes")
        for n in (1, 4, 8)
        for mode in ("today", "engine_first")
    ]
    delayed = {**base, "sync_delay_us": 1000, "no_delay_count": 4}
    configs += [("engine_first", "processes", 8, delayed), ("engine_first", "threads", 8, delayed)]
    res: dict[int, list[dict[str, float]]] = {i: [] for i in range(len(configs))}
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        load0 = os.getloadavg()
        fs = fsync_cost(d)
        for _ in range(args.repeat):
            for i, (mode, kind, n, opts) in enumerate(configs):
                res[i].append(run(d, mode, kind, n, args.seconds, opts))
                print(
                    mode,
                    kind,
                    n,
                    opts["sync_delay_us"],
                    {k: round(v, 2) for k, v in res[i][-1].items()},
                    flush=True,
                )
        load1 = os.getloadavg()
    crash = {k: crash_trials(args.crash, k, seed=1) for k in ("threads", "processes")} if args.crash else {}
    if args.crash:  # negative control: recovery that does not complete the binlog from commit_log
        crash["processes, recovery without the commit_log step (control)"] = crash_trials(
            max(3, args.crash // 10), "processes", seed=2, complete=False
        )
    lines = [
        "## Multi-worker spike (issue 21), point 2: group commit, today's order vs engine first",
        "",
        (
            f"Command: `.venv/bin/python bench/spike_mw_commit.py --seconds {args.seconds:g} --repeat {args.repeat} "
            f"--payload {args.payload} --hold-us {args.hold_us} --crash {args.crash}` (raw SQLite prototype, see the "
            "script's docstring: each transaction updates 2 rows, inserts 1 and carries a binlog payload; the write "
            f"lock is an flock; {args.seconds:g} s per cell, configurations interleaved). Load average before / after: "
            f"{load0[0]:.1f} / {load1[0]:.1f} on {os.cpu_count()} CPUs; fdatasync after appending 1 KB: {fs[0]:.0f} µs, "
            f"after overwriting 1 KB in place: {fs[1]:.0f} µs (medians of 200, before the runs)."
        ),
        "",
        (
            "| committers | order | TPS (each repeat) | p50 / p95 ms (last) | write lock held µs/tx (each repeat) "
            "| WAL fsyncs per tx | TPS / today (same repeat) |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for i, (mode, kind, n, opts) in enumerate(configs):
        r = res[i]
        today = next(
            j
            for j, c in enumerate(configs)
            if c[0] == "today" and c[1] == kind and c[2] == n and c[3] is base
        )
        ratio = ", ".join(f"{a['tps'] / b['tps']:.2f}" for a, b in zip(r, res[today], strict=True))
        label = (
            mode
            if not opts["sync_delay_us"]
            else (f"{mode}, sync_delay {opts['sync_delay_us']} µs, no_delay_count {opts['no_delay_count']}")
        )
        fsyncs = "1 (binlog)" if mode == "today" else f"{r[-1]['fsync_per_tx']:.2f}"
        tps = ", ".join(f"{x['tps']:.0f}" for x in r)
        held = ", ".join(f"{x['held_us']:.0f}" for x in r)
        lines.append(
            f"| {n} {kind} | {label} | {tps} | {r[-1]['p50']:.2f} / {r[-1]['p95']:.2f} | {held} | {fsyncs} "
            f"| {ratio} |"
        )
    if crash:
        lines += [
            "",
            (
                "Crash test of engine_first (SIGKILL of the committers and the flusher after a random 0.05-0.6 s; in "
                "process mode one random committer first; then recovery and the checks of the docstring):"
            ),
            "",
            "| committers | trials | acknowledged transactions | invariant violations |",
            "|---|---|---|---|",
        ]
        for k, c in crash.items():
            first = f" (first: {c['first']})" if c["first"] else ""
            lines.append(f"| 4 {k} | {c['trials']} | {c['acked']} | {c['violations']}{first} |")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from _results import update_section

        update_section("mw_commit", text)


if __name__ == "__main__":
    main()
