"""Cost of a SQLite file per schema (``gtidkit_file_per_schema``, issue 21 step 9, engine/schema_files.py).

One engine session in one process (binary log on, ROW format, the engine's default commit path) runs write
transactions ``BEGIN; INSERT INTO dbN.t ...; COMMIT`` touching one schema or two schemas (one INSERT each), with the
option OFF (every schema in the main file) and ON (a file per schema, ATTACHed). Reported: wall µs per transaction
(median of ``--rounds`` rounds of ``--n`` transactions each), for ``synchronous=FULL`` (the default: the WALs are
fsynced at commit, one per file written) and ``synchronous=OFF`` (no fsync: the CPU cost alone). Then the headline:
how long an INSERT into db2 takes while another session holds an open transaction on db1 (OFF: it waits for the
lock and fails with 1205 after innodb_lock_wait_timeout=1; ON: committed at once).

Run: ``.venv/bin/python bench/bench_schema_files.py`` (writes the ``schema_files`` section of bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "src"))

from _results import update_section

from gtidkit.engine import Server
from gtidkit.errors import MySQLError


def per_transaction(option: bool, synchronous: str, schemas: int, n: int, rounds: int) -> tuple[float, float]:
    """Median (wall µs, this process's CPU µs) per transaction touching ``schemas`` schemas (1 or 2)."""
    with tempfile.TemporaryDirectory(prefix="gk-bench-files-") as d:
        srv = Server.open(
            Path(d) / "data", gtidkit_file_per_schema=option, log_bin=True, synchronous=synchronous
        )
        try:
            s = srv.session()
            s.execute(
                "CREATE DATABASE db1; CREATE DATABASE db2; "
                "CREATE TABLE db1.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT); "
                "CREATE TABLE db2.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"
            )
            body = ["INSERT INTO db1.t (v) VALUES (1)", "INSERT INTO db2.t (v) VALUES (2)"][:schemas]
            walls, cpus = [], []
            for _ in range(rounds):
                started, cpu = time.perf_counter(), time.process_time()
                for _ in range(n):
                    s.execute("BEGIN")
                    for sql in body:
                        s.execute(sql)
                    s.execute("COMMIT")
                walls.append((time.perf_counter() - started) / n * 1e6)
                cpus.append((time.process_time() - cpu) / n * 1e6)
            return statistics.median(walls), statistics.median(cpus)
        finally:
            srv.shutdown()


def blocked(option: bool) -> tuple[float, str]:
    """Seconds an autocommitted INSERT into db2 takes while another session holds an open INSERT into db1, and
    its outcome."""
    with tempfile.TemporaryDirectory(prefix="gk-bench-files-") as d:
        srv = Server.open(Path(d) / "data", gtidkit_file_per_schema=option, log_bin=True)
        try:
            s1, s2 = srv.session(), srv.session()
            s1.execute(
                "CREATE DATABASE db1; CREATE DATABASE db2; CREATE TABLE db1.t (id INT PRIMARY KEY); "
                "CREATE TABLE db2.t (id INT PRIMARY KEY)"
            )
            s2.execute("SET SESSION innodb_lock_wait_timeout = 1")
            s1.execute("BEGIN; INSERT INTO db1.t VALUES (1)")
            started = time.perf_counter()
            try:
                s2.execute("INSERT INTO db2.t VALUES (1)")
                outcome = "committed"
            except MySQLError as err:
                outcome = f"error {err.code}"
            took = time.perf_counter() - started
            s1.execute("ROLLBACK")
            return took, outcome
        finally:
            srv.shutdown()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="transactions per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-write", action="store_true", help="print only; leave bench/RESULTS.md alone")
    args = ap.parse_args()
    lines = [
        (
            f"Command: `.venv/bin/python bench/bench_schema_files.py --n {args.n} --rounds {args.rounds}` (one "
            "engine session, binary log on, ROW; `BEGIN; INSERT ...; COMMIT` touching one or two schemas; median "
            "of the rounds; 2-core machine shared with other work, so read the ratios, not the absolute figures)."
        ),
        "",
        (
            "| synchronous | schemas touched | one file (OFF) wall / CPU µs/tx "
            "| file per schema (ON) wall / CPU µs/tx | ON / OFF (CPU) |"
        ),
        "|---|---|---|---|---|",
    ]
    for synchronous in ("OFF", "FULL"):
        for schemas in (1, 2):
            off = per_transaction(False, synchronous, schemas, args.n, args.rounds)
            on = per_transaction(True, synchronous, schemas, args.n, args.rounds)
            lines.append(
                f"| {synchronous} | {schemas} | {off[0]:.0f} / {off[1]:.0f} | {on[0]:.0f} / {on[1]:.0f} "
                f"| {on[1] / off[1]:.2f} |"
            )
            print(lines[-1], flush=True)
    lines += [
        "",
        "| layout | INSERT into db2 while db1 has an open write transaction | outcome |",
        "|---|---|---|",
    ]
    for option in (False, True):
        took, outcome = blocked(option)
        lines.append(
            f"| {'file per schema (ON)' if option else 'one file (OFF)'} | {took * 1000:.1f} ms | {outcome} |"
        )
        print(lines[-1], flush=True)
    if not args.no_write:
        update_section("schema_files", "## A SQLite file per schema (issue 21 step 9)\n\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
