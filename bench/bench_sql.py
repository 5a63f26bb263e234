"""SQL layer hot path: sysbench oltp statements through the engine Executor vs plain sqlite3, with and without the
statement-shape plan cache. Ratios come from one run on one machine.

Usage: .venv/bin/python bench/bench_sql.py [ROWS]   (default 1000; each statement kind runs ROWS times, 3 runs)
"""

from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import update_section

from gtidkit.engine.sql import executor as sql_mod
from gtidkit.engine.sql.executor import Executor
from gtidkit.engine.statements.classify import classify
from gtidkit.engine.storage import Storage

DDL = (
    "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
    "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB"
)


def _statements(n: int, rng: random.Random) -> dict[str, list[str]]:
    def c() -> str:
        return "-".join(f"{rng.randrange(10**11):011d}" for _ in range(10))

    def pad() -> str:
        return "-".join(f"{rng.randrange(10**11):011d}" for _ in range(5))

    ids = [rng.randrange(1, n + 1) for _ in range(n)]
    return {
        "insert": [
            f"INSERT INTO sbtest1 (id, k, c, pad) VALUES ({i}, {rng.randrange(n)}, '{c()}', '{pad()}')"
            for i in range(1, n + 1)
        ],
        "point_select": [f"SELECT c FROM sbtest1 WHERE id={i}" for i in ids],
        "range_order": [f"SELECT c FROM sbtest1 WHERE id BETWEEN {i} AND {i + 99} ORDER BY c" for i in ids],
        "sum_range": [f"SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN {i} AND {i + 99}" for i in ids],
        "update_index": [f"UPDATE sbtest1 SET k=k+1 WHERE id={i}" for i in ids],
        "update_non_index": [f"UPDATE sbtest1 SET c='{c()}' WHERE id={i}" for i in ids],
        "delete": [f"DELETE FROM sbtest1 WHERE id={i}" for i in range(1, n + 1, 2)],
    }


def _engine(stmts: dict[str, list[str]], cached: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        storage = Storage.open(
            Path(d), synchronous="OFF"
        )  # CPU cost only; fsync is measured in the GTID benches
        ex = Executor(storage, storage.connect())
        ex.execute(classify("CREATE DATABASE sbtest"))
        ex.execute(classify(DDL), "sbtest")
        ex.execute(classify("CREATE INDEX k_1 ON sbtest1(k)"), "sbtest")
        real_templatize = sql_mod.templatize
        if not cached:
            sql_mod.templatize = lambda text: None  # every statement text is new: full sqlglot parse + plan
        out = {}
        try:
            for kind, texts in stmts.items():
                t0 = time.perf_counter()
                for s in texts:
                    if not cached:
                        storage.plan_cache.clear()
                    ex.execute(classify(s), "sbtest")
                out[kind] = (time.perf_counter() - t0) / len(texts) * 1e6
        finally:
            sql_mod.templatize = real_templatize
            storage.close()
    return out


_INSERT_RE = __import__("re").compile(r".*VALUES \((\d+), (\d+), '([^']*)', '([^']*)'\)")


def _insert_args(s: str) -> tuple:
    m = _INSERT_RE.match(s).groups()  # type: ignore[union-attr]
    return int(m[0]), int(m[1]), m[2], m[3]


def _raw(stmts: dict[str, list[str]]) -> dict[str, float]:
    """The same work as parameterised sqlite3 statements with explicit BEGIN/COMMIT (the floor)."""
    import re

    with tempfile.TemporaryDirectory() as d:
        db = sqlite3.connect(str(Path(d) / "raw.sqlite"), isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=OFF")
        db.execute(
            "CREATE TABLE sbtest1 (id INTEGER PRIMARY KEY, k INTEGER NOT NULL DEFAULT 0, "
            "c TEXT NOT NULL DEFAULT '', pad TEXT NOT NULL DEFAULT '')"
        )
        db.execute("CREATE INDEX k_1 ON sbtest1(k)")
        nums = re.compile(r"\d+")
        plans = {
            "insert": ("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", _insert_args),
            "point_select": ("SELECT c FROM sbtest1 WHERE id=?", lambda s: (int(nums.findall(s)[-1]),)),
            "range_order": (
                "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
                lambda s: tuple(int(x) for x in nums.findall(s)[-2:]),
            ),
            "sum_range": (
                "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
                lambda s: tuple(int(x) for x in nums.findall(s)[-2:]),
            ),
            "update_index": ("UPDATE sbtest1 SET k=k+1 WHERE id=?", lambda s: (int(nums.findall(s)[-1]),)),
            "update_non_index": (
                "UPDATE sbtest1 SET c=? WHERE id=?",
                lambda s: (s.split("'")[1], int(nums.findall(s)[-1])),
            ),
            "delete": ("DELETE FROM sbtest1 WHERE id=?", lambda s: (int(nums.findall(s)[-1]),)),
        }
        out = {}
        for kind, texts in stmts.items():
            sql, args = plans[kind]
            bound = [args(s) for s in texts]
            write = not sql.startswith("SELECT")
            t0 = time.perf_counter()
            for a in bound:
                if write:
                    db.execute("BEGIN IMMEDIATE")
                db.execute(sql, a).fetchall()
                if write:
                    db.execute("COMMIT")
            out[kind] = (time.perf_counter() - t0) / len(texts) * 1e6
        db.close()
    return out


def _best(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: min(r[k] for r in runs) for k in runs[0]}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    stmts = _statements(n, random.Random(42))
    reps = 3  # the best of three fresh runs per statement kind, to shed noise from other load on the machine
    raw = _best([_raw(stmts) for _ in range(reps)])
    cached = _best([_engine(stmts, cached=True) for _ in range(reps)])
    uncached = _best([_engine(stmts, cached=False) for _ in range(reps)])
    lines = [
        "## SQL layer hot path (sysbench oltp statements)",
        "",
        (
            f"Command: `.venv/bin/python bench/bench_sql.py {n}` ({n} statements per kind, synchronous=OFF so the "
            "figures are CPU cost; each write is its own transaction as with autocommit; best of 3 fresh runs)."
        ),
        "",
        (
            "| statement | sqlite3 floor µs | engine µs (plan cache) | engine µs (parse every time) | cache speed-up | "
            "engine / floor |"
        ),
        "|---|---|---|---|---|---|",
    ]
    for kind in stmts:
        lines.append(
            f"| {kind} | {raw[kind]:.0f} | {cached[kind]:.0f} | {uncached[kind]:.0f} | "
            f"{uncached[kind] / cached[kind]:.1f}x | {cached[kind] / raw[kind]:.1f}x |"
        )
    text = "\n".join(lines)
    print(text)
    update_section("sql_hot_path", text)


if __name__ == "__main__":
    main()
