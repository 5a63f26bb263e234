"""Engine benchmark: passive-replica apply of the same N transactions under the WL#6559 configurations.

Configurations (issue 3), each applying N single-row INSERT transactions the way a replica applier does (one
``SET gtid_next`` per transaction, autocommit):

  (a) gtid_mode=OFF, binlog off             — ``gtid_next='ANONYMOUS'``: no GTID anywhere (baseline)
  (b) gtid_mode=ON, binlog off              — explicit GTID; the GTID row is inserted in the same SQLite
                                              transaction (one fsync per commit)
  (c) gtid_mode=ON, binlog on + log_replica_updates, sync_binlog=1
                                            — binlog write + fsync, then the SQLite commit (two fsyncs)

Targets: b/a >= 0.95, b/c >= 1.6; GTID-table disk bytes <= 1% of the binlog's after the run. Also: the cost of
rotation-time table saves with the binlog on (small max_binlog_size → many rotations vs one file, target <= 3%),
and the compression period 0 / 1 / 1000 in configuration (b).

Run: ``.venv/bin/python bench/bench_engine.py --n 100000`` (develop with ``--n 2000``). Writes the ``engine``
section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _results import update_section

from gtidkit.engine import Server

SRC = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


class Replica:
    """One configuration: a fresh datadir and a session applying transactions in blocks."""

    def __init__(self, datadir: Path, *, anonymous: bool, **options) -> None:
        if datadir.exists():
            shutil.rmtree(datadir)
        self.datadir = datadir
        self.anonymous = anonymous
        self.srv = Server.open(datadir, **options)
        self.s = self.srv.session()
        self.next = 1
        self.seconds = 0.0
        self.cpu = (
            0.0  # CPU seconds of the applying thread (thread_time): the Python bookkeeping, without fsyncs
        )
        for gno, stmt in (
            (1, "CREATE DATABASE r"),
            (2, "CREATE TABLE r.t (id INT PRIMARY KEY, v VARCHAR(32))"),
        ):
            self.s.execute("SET gtid_next='ANONYMOUS'" if anonymous else f"SET gtid_next='{SRC}:{gno}'")
            self.s.execute(stmt)

    def run_block(self, count: int) -> None:
        """Apply ``count`` more transactions, timing only them."""
        s = self.s
        t0, c0 = time.perf_counter(), time.thread_time()
        for i in range(self.next, self.next + count):
            s.execute("SET gtid_next='ANONYMOUS'" if self.anonymous else f"SET gtid_next='{SRC}:{i + 2}'")
            s.execute(f"INSERT INTO r.t VALUES ({i}, 'row-{i}')")
        self.cpu += time.thread_time() - c0
        self.seconds += time.perf_counter() - t0
        self.next += count

    def finish(self) -> dict:
        """Shut down; return throughput and on-disk sizes."""
        n = self.next - 1
        self.s.execute("SET gtid_next='AUTOMATIC'")
        self.srv.compressor.wait_idle()
        rotations = len(self.srv.binlog.existing_files()) - 1 if self.srv.binlog is not None else 0
        self.s.close()
        self.srv.shutdown()
        return {
            "tps": n / self.seconds,
            "seconds": self.seconds,
            "cpu_us": self.cpu / n * 1e6,
            "table_bytes": _table_bytes(self.datadir / "gtidkit.sqlite"),
            "binlog_bytes": sum(p.stat().st_size for p in self.datadir.glob("binlog.[0-9]*")),
            "rotations": rotations,
        }


def _table_bytes(db_path: Path) -> int:
    """Bytes of SQLite pages holding mysql.gtid_executed (table + its primary-key index), via dbstat."""
    db = sqlite3.connect(db_path)
    try:
        rows = db.execute(
            "SELECT SUM(pgsize) FROM dbstat WHERE name = 'mysql.gtid_executed' OR name LIKE "
            "'sqlite_autoindex_mysql.gtid_executed%'"
        ).fetchone()
        return int(rows[0] or 0)
    except sqlite3.OperationalError:  # dbstat not compiled in: estimate from the row count
        n = db.execute('SELECT COUNT(*) FROM "mysql.gtid_executed"').fetchone()[0]
        return int(n) * 64
    finally:
        db.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="transactions per configuration")
    ap.add_argument("--block", type=int, default=100, help="transactions per interleaved block")
    ap.add_argument("--dir", default=None, help="work directory (default: a temp dir)")
    ap.add_argument("--no-write", action="store_true", help="print only; do not update bench/RESULTS.md")
    args = ap.parse_args()
    work = Path(args.dir or tempfile.mkdtemp(prefix="bench_engine_"))
    n = args.n
    configs = {
        "a": {"anonymous": True, "gtid_mode": "OFF", "log_bin": False},
        "b": {
            "anonymous": False,
            "gtid_mode": "ON",
            "log_bin": False,
            "gtid_executed_compression_period": 1000,
        },
        "c": {
            "anonymous": False,
            "gtid_mode": "ON",
            "log_bin": True,
            "log_replica_updates": True,
            "sync_binlog": 1,
        },
        # rotation-time saves: as (c) but rotating every ~64 KiB
        "c_rot": {
            "anonymous": False,
            "gtid_mode": "ON",
            "log_bin": True,
            "log_replica_updates": True,
            "sync_binlog": 1,
            "max_binlog_size": 65536,
        },
        **{
            f"b_p{p}": {
                "anonymous": False,
                "gtid_mode": "ON",
                "log_bin": False,
                "gtid_executed_compression_period": p,
            }
            for p in (0, 1, 1000)
        },
    }
    # All configurations run side by side in interleaved blocks, so disk and CPU contention from the rest of the
    # machine hits them alike (the figures are ratios measured in one run).
    replicas = {name: Replica(work / name, **opts) for name, opts in configs.items()}
    block = max(1, min(args.block, n))
    done = 0
    while done < n:
        k = min(block, n - done)
        for r in replicas.values():
            r.run_block(k)
        done += k
    runs = {name: r.finish() for name, r in replicas.items()}
    shutil.rmtree(work, ignore_errors=True)

    a, b, c, cr = runs["a"], runs["b"], runs["c"], runs["c_rot"]
    ratio_ba = b["tps"] / a["tps"]
    ratio_ba_cpu = a["cpu_us"] / b["cpu_us"]
    ratio_bc = b["tps"] / c["tps"]
    table_vs_binlog = c["table_bytes"] / c["binlog_bytes"] if c["binlog_bytes"] else float("nan")
    rotation_cost = 1 - cr["tps"] / c["tps"]
    lines = [
        (
            f"Command: `.venv/bin/python bench/bench_engine.py --n {n}` ({n} single-row INSERT transactions per "
            "configuration, one `SET gtid_next` each, SQLite synchronous=FULL)."
        ),
        "",
        "| configuration | transactions/s | CPU µs per transaction (applying thread) |",
        "|---|---|---|",
        f"| (a) gtid_mode=OFF, binlog off (ANONYMOUS) | {a['tps']:.0f} | {a['cpu_us']:.0f} |",
        f"| (b) gtid_mode=ON, binlog off, GTID row in the transaction | {b['tps']:.0f} | {b['cpu_us']:.0f} |",
        f"| (c) gtid_mode=ON, binlog on + log_replica_updates, sync_binlog=1 | {c['tps']:.0f} | {c['cpu_us']:.0f} |",
        (
            f"| (c) with max_binlog_size=64 KiB ({cr['rotations']} rotations, table saved at each) "
            f"| {cr['tps']:.0f} | {cr['cpu_us']:.0f} |"
        ),
        "",
        "| ratio | measured | target |",
        "|---|---|---|",
        f"| b/a (throughput, wall clock) | {ratio_ba:.3f} | >= 0.95 |",
        f"| b/a (CPU of the applying thread: the commit path's bookkeeping, no fsync) | {ratio_ba_cpu:.3f} | >= 0.95 |",
        f"| b/c | {ratio_bc:.2f} | >= 1.6 |",
        (
            f"| GTID table bytes / binlog bytes after (c) | {table_vs_binlog:.5f} "
            f"({c['table_bytes']} / {c['binlog_bytes']}) | <= 0.01 |"
        ),
        f"| rotation-time save cost (1 - c_rot/c) | {rotation_cost:+.3f} | <= 0.03 |",
        "",
        "| compression period in (b) | transactions/s | relative to period 1000 |",
        "|---|---|---|",
    ]
    for period in (0, 1, 1000):
        r = runs[f"b_p{period}"]
        lines.append(f"| {period} | {r['tps']:.0f} | {r['tps'] / runs['b_p1000']['tps']:.3f} |")
    noise = abs(runs["b"]["tps"] / runs["b_p1000"]["tps"] - 1)
    lines += [
        "",
        (
            f"(b) and 'period 1000' are the same configuration run twice: their difference ({noise:.1%}) is this "
            "run's noise floor (fsync latency on a shared disk); smaller differences are not significant."
        ),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        update_section("engine", "## Engine (issue 3): WL#6559 configurations\n\n" + text)


if __name__ == "__main__":
    main()
