"""Replica apply rate through the applier seam: binlog off (WL#6559) vs log_replica_updates on, and vs the source.

One source engine commits N ROW-format transactions (binlog on); its binlog is then applied by
``server.applier_session()`` into (a) a replica with the binary log off (GTID row + relay position in the data's
SQLite transaction) and (b) a replica with log_replica_updates on (its own binlog + rotation-time GTID saves). All
three runs happen in this process, one after the other, so the figures are ratios from one run (WL#6559 NF-3
expects (a) to be the faster replica). Writes the ``apply`` section of bench/RESULTS.md.

Run: ``.venv/bin/python bench/bench_apply.py [--transactions N]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import update_section

from gtidkit.engine import Server
from gtidkit.engine.apply import read_transactions


def main() -> None:
    """Run the three configurations and write the ratios."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--transactions", type=int, default=3000)
    args = ap.parse_args()
    n = args.transactions
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        src = Server.open(d / "src", log_bin=True, server_id=1, synchronous="NORMAL", sync_binlog=0)
        with src.session() as s:
            s.execute("CREATE DATABASE b")
            s.execute("CREATE TABLE b.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(40), n INT)")
            t0 = time.perf_counter()
            for i in range(n):
                s.execute(f"INSERT INTO b.t (v, n) VALUES ('row {i}', {i})")
            source_s = time.perf_counter() - t0
        assert src.binlog is not None
        files = [src.binlog.path(f) for f in src.binlog.existing_files()]
        src.shutdown()
        trxs = [t for f in files for t in read_transactions(f)]
        results = {}
        for name, opts in (
            ("binlog off", {"log_bin": False}),
            ("log_replica_updates on", {"log_bin": True, "log_replica_updates": True, "sync_binlog": 0}),
        ):
            rep = Server.open(d / name.replace(" ", "_"), server_id=2, synchronous="NORMAL", **opts)
            with rep, rep.applier_session() as applier:
                t0 = time.perf_counter()
                for trx in trxs:
                    applier.apply(trx)
                results[name] = time.perf_counter() - t0
    rate = {k: len(trxs) / v for k, v in results.items()}
    src_rate = (n + 2) / source_s
    md = (
        "## Replica apply rate (applier seam)\n\n"
        f"`{' '.join(['.venv/bin/python', 'bench/bench_apply.py', *sys.argv[1:]])}`: {len(trxs)} ROW transactions "
        "(single-row INSERT), SQLite synchronous=NORMAL, sync_binlog=0 on both sides.\n\n"
        "| run | transactions/s | ratio to the source's commit rate |\n|---|---|---|\n"
        f"| source commits (binlog on) | {src_rate:,.0f} | 1.00 |\n"
        + "".join(f"| replica apply, {k} | {r:,.0f} | {r / src_rate:.2f} |\n" for k, r in rate.items())
        + f"\nbinlog-off replica / log_replica_updates replica: "
        f"**{rate['binlog off'] / rate['log_replica_updates on']:.2f}** (WL#6559 NF-3 expects > 1).\n"
    )
    update_section("apply", md)
    print(md)


if __name__ == "__main__":
    main()
