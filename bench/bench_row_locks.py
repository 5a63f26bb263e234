"""In-process CPU of a sysbench oltp_read_write transaction's writes with ``gtidkit_row_locks`` OFF and ON
(docs/design/multi_worker.md §5.7): one engine session runs sysbench's four DML as prepared statements (UPDATE by
key of an indexed and a non-indexed column, DELETE by key, INSERT of that key) and COMMIT, on a table of 10000
rows, binary log on; ``time.process_time`` per part, averaged over ``--n`` transactions; the two settings alternate
for ``--rounds`` rounds, each on a fresh datadir. Figures for bench/RESULTS.md ``row_locks`` (printed only).

Usage: .venv/bin/python bench/bench_row_locks.py [--n 400] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from gtidkit.engine import Server

TABLE = (
    "CREATE DATABASE sbtest; USE sbtest; CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, "
    "k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k))"
)


def run(row_locks: bool, n: int) -> dict[str, int]:
    """µs of CPU per transaction (DML, COMMIT, total) with the option ``row_locks``."""
    srv = Server.open(
        tempfile.mkdtemp(prefix="rowlocks"),
        gtidkit_row_locks=row_locks,
        log_bin=True,
        gtid_mode="ON",
        enforce_gtid_consistency="ON",
    )
    try:
        s = srv.session()
        s.execute(TABLE)
        s.execute("BEGIN")
        for i in range(1, 10001, 500):
            s.execute(
                "INSERT INTO sbtest1 VALUES "
                + ",".join(f"({j}, {j % 100}, 'c{j}', 'p{j}')" for j in range(i, i + 500))
            )
        s.execute("COMMIT")
        update_k = s.prepare("UPDATE sbtest1 SET k=k+1 WHERE id=?")
        update_c = s.prepare("UPDATE sbtest1 SET c=? WHERE id=?")
        delete = s.prepare("DELETE FROM sbtest1 WHERE id=?")
        insert = s.prepare("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)")
        rng = random.Random(1)
        dml = commit = 0.0
        t0 = time.process_time()
        for _ in range(n):
            s.execute("BEGIN")
            t1 = time.process_time()
            s.execute_prepared(update_k, [rng.randint(1, 10000)])
            s.execute_prepared(update_c, ["x" * 100, rng.randint(1, 10000)])
            key = rng.randint(1, 10000)
            s.execute_prepared(delete, [key])
            s.execute_prepared(insert, [key, 5, "c" * 100, "p" * 50])
            t2 = time.process_time()
            s.execute("COMMIT")
            dml += t2 - t1
            commit += time.process_time() - t2
        total = time.process_time() - t0
    finally:
        srv.shutdown()
    return {"dml": round(dml / n * 1e6), "commit": round(commit / n * 1e6), "total": round(total / n * 1e6)}


def main() -> None:
    """Alternate OFF and ON, print µs per transaction."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    for _ in range(args.rounds):
        for option in (False, True):
            print("row locks", "ON " if option else "OFF", run(option, args.n), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
