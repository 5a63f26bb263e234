"""Cross-worker GTID costs of `gtidkit server --workers=2` (issue 21 step 6): the WAIT_FOR_EXECUTED_GTID_SET wake-up
and the CPU of a point SELECT in one worker while the other commits.

Real server, real client (PyMySQL), connections forced into the two workers by the round-robin placement:

* **wake-up**: a session of worker 1 runs ``SELECT WAIT_FOR_EXECUTED_GTID_SET('uuid:n', 60)`` in a thread; a session
  of worker 0 commits ``uuid:n`` (SET GTID_NEXT + INSERT); the figure is the time from worker 0's OK reaching its
  client to worker 1's result reaching its client (median, p90, max over ``--n`` rounds);
* **point SELECT CPU**: worker 1 serves ``--selects`` point SELECTs while a client of worker 0 commits autocommit
  UPDATEs in a loop (so nearly every SELECT starts after a foreign commit); the figure is worker 1's CPU (utime +
  stime from /proc) per SELECT, and the same with no writer.

``--tree DIR`` runs the server from another source tree (its ``src``), so a before / after pair is measured by one
script on one machine: e.g. ``git archive <commit> src | tar -x -C /tmp/before`` then ``--tree /tmp/before``.

Usage: PYTHONPATH=src .venv/bin/python bench/bench_cross_worker.py [--n 40] [--selects 3000] [--tree DIR]
    [--label after] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pymysql

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import update_section

SOURCE = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
ARGS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1", "--log-bin", "--workers=2")


def _connect(port: int) -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)


def _q(conn: pymysql.connections.Connection, sql: str) -> tuple:
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


class Server:
    """`gtidkit server` from ``src`` on a fresh datadir (stopped with SIGTERM)."""

    def __init__(self, src: Path, datadir: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(src), "PYTHONUNBUFFERED": "1"}
        subprocess.run(
            [
                sys.executable,
                "-m",
                "gtidkit",
                "server",
                "--initialize-insecure",
                "--skip-log-bin",
                "--datadir",
                str(datadir),
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gtidkit", "server", "--datadir", str(datadir), "--port", "0", *ARGS],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stderr is not None
        self.port = 0
        for line in self.proc.stderr:
            if "ready for connections" in line and "port:" in line:
                self.port = int(line.split("port:")[1].split()[0])
                break
        if not self.port:
            raise RuntimeError("the server did not start")
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(60)


def _worker_pid(conn: pymysql.connections.Connection, supervisor: int) -> int:
    """The pid of the worker process serving ``conn`` (the supervisor's child named gtidkit-worker<i>)."""
    wid = _q(conn, "SELECT @@gtidkit_worker_id")[0][0]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if ppid == supervisor and (entry / "comm").read_text().strip() == f"gtidkit-worker{wid}":
                    return int(entry.name)
            except (OSError, IndexError, ValueError):
                continue
    raise RuntimeError(f"no process gtidkit-worker{wid}")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wake_latency(port: int, n: int) -> list[float]:
    """Seconds from worker 0's OK to worker 1's WAIT_FOR_EXECUTED_GTID_SET result, ``n`` rounds."""
    a, b = _connect(port), _connect(port)
    assert [_q(c, "SELECT @@gtidkit_worker_id")[0][0] for c in (a, b)] == [0, 1]
    out = []
    for gno in range(1, n + 1):
        done: list[float] = []

        def wait(g: int = gno, ended: list[float] = done) -> None:
            _q(b, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{SOURCE}:{g}', 60)")
            ended.append(time.monotonic())

        t = threading.Thread(target=wait)
        t.start()
        time.sleep(0.05)
        _q(a, f"SET GTID_NEXT = '{SOURCE}:{gno}'")
        _q(a, f"INSERT INTO b.t VALUES ({100000 + gno}, 0)")
        ok = time.monotonic()
        t.join(60)
        _q(a, "SET GTID_NEXT = AUTOMATIC")
        out.append(done[0] - ok)
    a.close()
    b.close()
    return out


def select_cpu(port: int, supervisor: int, selects: int, writer: bool) -> float:
    """Worker 1's CPU µs per point SELECT, with or without a writer committing in worker 0."""
    a, b = _connect(port), _connect(port)
    assert [_q(c, "SELECT @@gtidkit_worker_id")[0][0] for c in (a, b)] == [0, 1]
    pid = _worker_pid(b, supervisor)
    stop = threading.Event()
    commits = [0]

    def write() -> None:
        i = 0
        while not stop.is_set():
            _q(a, f"UPDATE b.t SET v = v + 1 WHERE id = {1 + i % 10}")
            i += 1
        commits[0] = i

    t = threading.Thread(target=write)
    if writer:
        t.start()
        time.sleep(0.2)
    for i in range(200):
        _q(b, f"SELECT v FROM b.t WHERE id = {1 + i % 10}")
    c0 = _cpu_seconds(pid)
    for i in range(selects):
        _q(b, f"SELECT v FROM b.t WHERE id = {1 + i % 10}")
    cpu = _cpu_seconds(pid) - c0
    stop.set()
    if writer:
        t.join(60)
    a.close()
    b.close()
    return cpu / selects * 1e6


def engine_select_cpu(n: int) -> dict[str, float]:
    """In one process (as bench_follow.py): a primary engine and a worker-role engine on one datadir. CPU µs of the
    worker's point SELECT (``session.execute``) right after a commit of the primary, and with no commit between.
    Runs the code of whatever ``gtidkit`` is importable (``--tree`` sets it for the subprocess)."""
    from gtidkit.engine.server import Server as Engine

    opts = {"log_bin": True, "gtid_mode": "ON", "enforce_gtid_consistency": "ON", "server_id": 1}
    with tempfile.TemporaryDirectory() as tmp:
        primary = Engine.open(tmp, shared=True, synchronous="OFF", **opts)
        worker = Engine.open(tmp, role="worker", synchronous="OFF", **opts)
        try:
            p, w = primary.session(), worker.session()
            p.execute("CREATE DATABASE b")
            p.execute("CREATE TABLE b.t (id INT PRIMARY KEY, v INT)")
            p.execute("INSERT INTO b.t VALUES " + ", ".join(f"({i}, 0)" for i in range(1, 11)))
            out = {}
            for label, commit in (("no foreign commit", False), ("after 1 foreign commit", True)):
                for i in range(100):
                    w.execute(f"SELECT v FROM b.t WHERE id = {1 + i % 10}")
                cpu = 0.0
                for i in range(n):
                    if commit:
                        p.execute(f"UPDATE b.t SET v = v + 1 WHERE id = {1 + i % 10}")
                    c0 = time.process_time()
                    w.execute(f"SELECT v FROM b.t WHERE id = {1 + i % 10}")
                    cpu += time.process_time() - c0
                out[label] = cpu / n * 1e6
            return out
        finally:
            worker.shutdown()
            primary.shutdown()


def main() -> None:
    """Measure; print the section and (with --write) store it in bench/RESULTS.md as ``cross_worker_<label>``."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--selects", type=int, default=3000)
    ap.add_argument("--tree", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--label", default="after")
    ap.add_argument("--write", action="store_true")
    ap.add_argument(
        "--engine", type=int, default=0, help=argparse.SUPPRESS
    )  # the subprocess of the engine figure
    args = ap.parse_args()
    if args.engine:
        print(repr(engine_select_cpu(args.engine)))
        return
    engine = []
    for _round in range(3):
        run = subprocess.run(
            [sys.executable, __file__, "--engine", "2000"],
            env={**os.environ, "PYTHONPATH": str(args.tree / "src")},
            capture_output=True,
            text=True,
            check=True,
        )
        engine.append(eval(run.stdout.strip().splitlines()[-1]))  # a dict of floats printed by repr
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server(args.tree / "src", Path(tmp) / "d")
        try:
            c = _connect(srv.port)
            _q(c, "CREATE DATABASE b")
            _q(c, "CREATE TABLE b.t (id INT PRIMARY KEY, v INT)")
            _q(c, "INSERT INTO b.t VALUES " + ", ".join(f"({1000 + i}, 0)" for i in range(10)))
            _q(c, "INSERT INTO b.t SELECT id - 999, v FROM b.t")
            _ = _connect(srv.port)  # an even number of connections: the next one lands in worker 0
            c.close()
            _.close()
            lat = sorted(wake_latency(srv.port, args.n))
            cpu = {w: [] for w in (False, True)}
            for _round in range(3):
                for w in (False, True):
                    cpu[w].append(select_cpu(srv.port, srv.proc.pid, args.selects, w))
        finally:
            srv.stop()
    load1 = os.getloadavg()[0]
    ms = [x * 1000 for x in lat]
    text = "\n".join(
        [
            f"### {args.label}",
            "",
            (
                f"Command: `bench/bench_cross_worker.py --n {args.n} --selects {args.selects} --label {args.label}` "
                f"(source tree {args.tree.name}; load average {load0:.1f} / {load1:.1f} on {os.cpu_count()} CPUs)."
            ),
            "",
            "| figure | value |",
            "|---|---|",
            (
                f"| WAIT_FOR_EXECUTED_GTID_SET wake-up after the other worker's OK, ms: median / p90 / max "
                f"| {statistics.median(ms):.2f} / {ms[int(len(ms) * 0.9) - 1]:.2f} / {ms[-1]:.2f} |"
            ),
            "| worker 1 CPU µs per point SELECT, no writer (3 rounds) | "
            + ", ".join(f"{x:.0f}" for x in cpu[False])
            + " |",
            "| worker 1 CPU µs per point SELECT, worker 0 committing UPDATEs in a loop (3 rounds) | "
            + ", ".join(f"{x:.0f}" for x in cpu[True])
            + " |",
            *(
                f"| engine: worker's point SELECT CPU µs, {k} (3 rounds of 2000) | "
                + ", ".join(f"{e[k]:.1f}" for e in engine)
                + " |"
                for k in engine[0]
            ),
        ]
    )
    print(text)
    if args.write:
        update_section(f"cross_worker_{args.label}", text)


if __name__ == "__main__":
    main()
