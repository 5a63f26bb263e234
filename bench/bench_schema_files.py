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

#: the transactions measured: kind -> (statements per transaction for 1 and 2 schemas)
WORKLOADS = {
    "write": (
        ["BEGIN", "INSERT INTO db1.t (v) VALUES (1)", "COMMIT"],
        ["BEGIN", "INSERT INTO db1.t (v) VALUES (1)", "INSERT INTO db2.t (v) VALUES (2)", "COMMIT"],
    ),
    # REPEATABLE READ: with files, the first SELECT opens every file's snapshot under the commit gate
    "read": (
        ["BEGIN", "SELECT v FROM db1.t WHERE id = 1", "COMMIT"],
        ["BEGIN", "SELECT v FROM db1.t WHERE id = 1", "SELECT v FROM db2.t WHERE id = 1", "COMMIT"],
    ),
}


def per_transaction(
    synchronous: str, kind: str, schemas: int, n: int, rounds: int
) -> dict[bool, tuple[float, float]]:
    """Median (wall µs, this process's CPU µs) per transaction of ``kind`` touching ``schemas`` schemas (1 or
    2), option OFF and ON, their rounds interleaved (A/B in one run on a shared machine)."""
    with tempfile.TemporaryDirectory(prefix="gk-bench-files-") as d:
        servers = {}
        sessions = {}
        try:
            for option in (False, True):
                srv = servers[option] = Server.open(
                    Path(d) / f"data-{option}",
                    gtidkit_file_per_schema=option,
                    log_bin=True,
                    synchronous=synchronous,
                )
                s = sessions[option] = srv.session()
                s.execute(
                    "CREATE DATABASE db1; CREATE DATABASE db2; "
                    "CREATE TABLE db1.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT); "
                    "CREATE TABLE db2.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT); "
                    "INSERT INTO db1.t (v) VALUES (0); INSERT INTO db2.t (v) VALUES (0)"
                )
            body = WORKLOADS[kind][schemas - 1]
            walls: dict[bool, list[float]] = {False: [], True: []}
            cpus: dict[bool, list[float]] = {False: [], True: []}
            for _ in range(rounds):
                for option in (False, True):
                    s = sessions[option]
                    started, cpu = time.perf_counter(), time.process_time()
                    for _ in range(n):
                        for sql in body:
                            s.execute(sql)
                    walls[option].append((time.perf_counter() - started) / n * 1e6)
                    cpus[option].append((time.process_time() - cpu) / n * 1e6)
            return {o: (statistics.median(walls[o]), statistics.median(cpus[o])) for o in (False, True)}
        finally:
            for srv in servers.values():
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
            "engine session, binary log on, ROW; write: `BEGIN; INSERT ...; COMMIT`, read: `BEGIN; SELECT ... WHERE "
            "id = 1; COMMIT` (REPEATABLE READ) touching one or two schemas; OFF and ON rounds interleaved; median "
            "of the rounds; 2-core machine shared with other work, so read the ratios, not the absolute figures)."
        ),
        "",
        (
            "| transaction | synchronous | schemas touched | one file (OFF) wall / CPU µs/tx "
            "| file per schema (ON) wall / CPU µs/tx | ON / OFF (CPU) |"
        ),
        "|---|---|---|---|---|---|",
    ]
    for kind in ("write", "read"):
        for synchronous in ("OFF", "FULL") if kind == "write" else ("FULL",):
            for schemas in (1, 2):
                r = per_transaction(synchronous, kind, schemas, args.n, args.rounds)
                off, on = r[False], r[True]
                lines.append(
                    f"| {kind} | {synchronous} | {schemas} | {off[0]:.0f} / {off[1]:.0f} | {on[0]:.0f} / {on[1]:.0f} "
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
