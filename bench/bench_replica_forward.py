"""Replication statements from another worker (issue 21): the latency of a forwarded SHOW REPLICA STATUS (and a
performance_schema replication table) against the same statement in the process with the replication threads.

A one-process source and a `gtidkit server --workers=2` replica with a running channel; PyMySQL connections forced
into worker 0 (the channels' process: answered locally) and worker 1 (forwarded over the control service,
replication/forward.py). ``--n`` statements per kind and worker, interleaved in rounds of 20 so both see the same
machine load; the figures are client wall time per statement (median, p90) and the difference.

Usage: PYTHONPATH=src .venv/bin/python bench/bench_replica_forward.py [--n 400] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pymysql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
from _results import update_section

from tests.protocol.server_proc import running_server

GTIDS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON")
STATEMENTS = {
    "SHOW REPLICA STATUS": "SHOW REPLICA STATUS",
    "SELECT * FROM performance_schema.replication_connection_status": (
        "SELECT * FROM performance_schema.replication_connection_status"
    ),
    "SELECT * FROM performance_schema.replication_applier_global_filters (empty: the forwarding alone)": (
        "SELECT * FROM performance_schema.replication_applier_global_filters"
    ),
    "SELECT @@server_id (not forwarded, for scale)": "SELECT @@server_id",
}


def _connect(port: int) -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)


def _q(conn: pymysql.connections.Connection, sql: str) -> tuple:
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def _in_worker(port: int, index: int) -> pymysql.connections.Connection:
    for _ in range(10):
        c = _connect(port)
        if _q(c, "SELECT @@gtidkit_worker_id")[0][0] == index:
            return c
        c.close()
    raise RuntimeError(f"no connection reached worker {index}")


def _timed(conn: pymysql.connections.Connection, sql: str) -> float:
    t = time.perf_counter()
    _q(conn, sql)
    return (time.perf_counter() - t) * 1e6


def measure(n: int) -> list[tuple[str, float, float, float, float]]:
    """(statement, local median µs, local p90, forwarded median, forwarded p90) per statement kind."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        src_args = (*GTIDS, "--server-id=1", "--log-bin")
        rep_args = (*GTIDS, "--server-id=2", "--skip-log-bin", "--workers=2")
        with (
            running_server(t / "source", *src_args, base=(), supervised=False) as src,
            running_server(t / "replica", *rep_args, base=(), supervised=True) as rep,
        ):
            w0, w1 = _in_worker(rep.port, 0), _in_worker(rep.port, 1)
            _q(
                w1,
                f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={src.port}, "
                "SOURCE_USER='root', SOURCE_AUTO_POSITION=1",
            )
            _q(w1, "START REPLICA")
            for name, sql in STATEMENTS.items():
                local: list[float] = []
                forwarded: list[float] = []
                for _ in range(20):  # warm-up
                    _timed(w0, sql), _timed(w1, sql)
                while len(local) < n:
                    local += [_timed(w0, sql) for _ in range(20)]
                    forwarded += [_timed(w1, sql) for _ in range(20)]
                q = statistics.quantiles
                out.append(
                    (
                        name,
                        statistics.median(local),
                        q(local, n=10)[-1],
                        statistics.median(forwarded),
                        q(forwarded, n=10)[-1],
                    )
                )
            _q(w1, "STOP REPLICA")
    return out


def main() -> None:
    """Run the measurement, print it, and with ``--write`` store it in bench/RESULTS.md (``replica_forward``)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400, help="statements per kind and worker")
    ap.add_argument("--write", action="store_true", help="write the section of bench/RESULTS.md")
    args = ap.parse_args()
    rows = measure(args.n)
    load = os.getloadavg()[0]
    lines = [
        "## Replication statements from another worker (issue 21): forwarded vs local",
        "",
        f"`PYTHONPATH=src .venv/bin/python bench/bench_replica_forward.py --n {args.n}` (load {load:.1f}; client",
        "wall µs per statement; worker 0 runs the channel, worker 1 forwards to it over the control service)",
        "",
        "| statement | worker 0 (local) median / p90 | worker 1 (forwarded) median / p90 | forwarded - local (median) |",
        "|---|---|---|---|",
    ]
    for name, lm, lp, fm, fp in rows:
        lines.append(f"| `{name}` | {lm:.0f} / {lp:.0f} | {fm:.0f} / {fp:.0f} | {fm - lm:+.0f} |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        update_section("replica_forward", text)


if __name__ == "__main__":
    main()
