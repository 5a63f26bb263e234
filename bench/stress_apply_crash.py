"""Applier crash stress: SIGKILL a replica applier process at random moments, restart it, check nothing is lost or
applied twice.

For each mode of ``tests/engine/apply_crash_driver.py`` (binary log off: WL#6559, position + data + GTID row in one
SQLite transaction; log_replica_updates on: the replica's own binlog), one source binlog (``--transactions``, default 400: DDL,
ROW and STATEMENT DML, a table without a primary key) is applied by a child process killed after a random delay,
``--trials`` times, each restart resuming from the stored position; after every restart the invariant is checked
(every acknowledged GTID executed, gtid_executed a prefix of the source's transactions, the stored position at its
end with the binlog off, each GTID once in the replica's binlog); once a run finishes (DONE) the replica's data and
gtid_executed must equal the source's, and a fresh replica starts. Writes the ``apply_crash`` section of
bench/RESULTS.md.

Run: ``.venv/bin/python bench/stress_apply_crash.py --trials 200``
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "engine"))

from _results import load_module, update_section

driver = load_module("apply_crash_driver", ROOT / "tests" / "engine" / "apply_crash_driver.py")
harness = load_module("test_apply_crash", ROOT / "tests" / "engine" / "test_apply_crash.py")


def main() -> None:
    """Run the trials of every mode and write the section."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--max-delay", type=float, default=1.5)
    ap.add_argument("--transactions", type=int, default=400)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source"
        driver.make_source(str(source), transactions=args.transactions)
        final = driver.source_state(str(source))
        for mode in sorted(driver.MODES):
            rng = random.Random(f"stress-apply-{mode}")
            replica = Path(tmp) / mode
            acks: list[str] = []
            kills = completions = 0
            failures: list[str] = []
            t0 = time.perf_counter()
            for trial in range(1, args.trials + 1):
                got, done = harness._run(source, replica, mode, rng.uniform(0.05, args.max_delay))
                acks += got
                kills += 1
                problems = driver.check(str(source), str(replica), mode, acks, final=final if done else None)
                failures += [f"trial {trial}: {p}" for p in problems]
                if done:  # the whole source applied: verified against the source, start a fresh replica
                    completions += 1
                    shutil.rmtree(replica)
                    acks = []
            rows.append(
                (mode, args.trials, kills, completions, len(failures), time.perf_counter() - t0, failures)
            )
            print(rows[-1][:6], flush=True)
    md = [
        "## Applier crash stress (SIGKILL during apply)",
        "",
        (
            f"Command: `.venv/bin/python bench/stress_apply_crash.py --trials {args.trials}` (source: "
            f"{args.transactions} transactions; the applier process is killed after a random "
            f"0.05-{args.max_delay}s and restarts from its stored position; invariant checked after every restart, "
            "data and gtid_executed compared with the source after every complete run)."
        ),
        "",
        "| mode | kills | complete runs verified against the source | invariant violations | seconds |",
        "|---|---|---|---|---|",
    ]
    md += [f"| {m} | {k} | {c} | {f} | {s:.0f} |" for m, _t, k, c, f, s, _fl in rows]
    for m, *_rest, fails in rows:
        md += [f"- {m}: {f}" for f in fails[:10]]
    update_section("apply_crash", "\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
