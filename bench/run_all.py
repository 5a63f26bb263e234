"""Run every benchmark in bench/ at its default (issue) size, one after the other; each writes its own section of
bench/RESULTS.md. ``make bench`` calls this. Expect about an hour on a 2-core machine (the engine's 100k run and
the 200-trial crash stress dominate); pass script names to run only those, e.g. ``bench/run_all.py bench_gtid``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: (script, arguments) in the order they run; sizes are the issues' (see each script's --help).
BENCHES: list[tuple[str, list[str]]] = [
    ("bench_gtid", []),
    ("bench_binlog", ["--size", "1GB", "--hosts", "20"]),
    ("bench_binlog_show", ["--size", "100MB"]),
    ("bench_sql", []),
    ("bench_apply", ["--transactions", "3000"]),
    ("bench_pipeline", []),
    ("standalone_cluster", []),
    ("bench_engine", ["--n", "100000"]),
    ("stress_crash", ["--trials", "200"]),
    ("bench_server", []),
    ("bench_server", ["--scaling", "--sysbench-seconds", "10"]),
    ("bench_replica_read_load", ["--rounds", "2"]),
]


def main(argv: list[str]) -> int:
    """Run the selected benchmarks (all when ``argv`` is empty); return the number that failed."""
    wanted = set(argv)
    failed = 0
    for name, args in BENCHES:
        if wanted and name not in wanted:
            continue
        print(f"== {name} {' '.join(args)}", flush=True)
        rc = subprocess.call([sys.executable, str(HERE / f"{name}.py"), *args])
        if rc != 0:
            print(f"!! {name} exited {rc}", flush=True)
            failed += 1
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
