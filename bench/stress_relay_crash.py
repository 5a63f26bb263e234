"""Relay-log crash stress: SIGKILL a replica process that receives (RelayLog.append) and applies (Applier) at random
moments, restart it (relay_log_recovery), check nothing is lost, re-requested or applied twice.

For each mode of ``tests/replication/relay_crash_driver.py`` (binary log off: WL#6559; log_replica_updates on), a
fresh replica is killed ``--kills`` times after a random delay, each restart recovering its relay log and asking
only for the transactions it lacks (gtid_executed united with Retrieved_Gtid_Set); the invariant is checked after
every kill (each relay file ends on a whole transaction, no GTID twice in the relay log, Retrieved_Gtid_Set and
gtid_executed ordered prefixes of the source's transactions, each GTID once in the replica's binlog); then the
replica runs to the end and its data and gtid_executed must equal the source's. Writes the ``relay_crash`` section
of bench/RESULTS.md.

Run: ``.venv/bin/python bench/stress_relay_crash.py --trials 100``
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "replication"))

import relay_crash_driver as driver
import test_relay_crash as harness
from _results import update_section


def main() -> None:
    """Run the trials of every mode and write the section."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--kills", type=int, default=2)
    ap.add_argument("--max-delay", type=float, default=0.5)
    ap.add_argument("--transactions", type=int, default=150)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source"
        final = driver.make_source(str(source), transactions=args.transactions)
        for mode in sorted(driver.MODES):
            rng = random.Random(f"stress-relay-{mode}")
            kills = completions = mid_stream = 0
            failures: list[str] = []
            t0 = time.perf_counter()
            for trial in range(args.trials):
                replica = Path(tmp) / f"{mode}-{trial}"
                for k in range(args.kills):
                    done = harness.run_once(
                        source, replica, mode, trial * 100 + k, rng.uniform(0.02, args.max_delay)
                    )
                    kills += 1
                    mid_stream += not done
                    failures += [
                        f"trial {trial} kill {k}: {p}" for p in driver.check(str(source), str(replica), mode)
                    ]
                if harness.run_once(source, replica, mode, trial * 100 + 99, None):
                    completions += 1
                failures += [
                    f"trial {trial} final: {p}"
                    for p in driver.check(str(source), str(replica), mode, final=final)
                ]
            rows.append(
                (mode, kills, mid_stream, completions, len(failures), time.perf_counter() - t0, failures)
            )
            print(rows[-1][:6], flush=True)
    md = [
        "## Relay log crash stress (SIGKILL while receiving and applying)",
        "",
        (
            f"Command: `.venv/bin/python bench/stress_relay_crash.py --trials {args.trials} --kills {args.kills}` "
            f"(source: {args.transactions + 3} transactions; each trial is a fresh replica killed {args.kills} times "
            f"after a random 0.02-{args.max_delay}s, restarted with relay_log_recovery and auto-position each time, "
            "invariant checked after every kill, then run to the end and compared with the source)."
        ),
        "",
        (
            "| mode | kills | kills before the replica caught up | complete runs equal to the source | "
            "invariant violations | seconds |"
        ),
        "|---|---|---|---|---|---|",
    ]
    md += [f"| {m} | {k} | {ms} | {c} | {f} | {s:.0f} |" for m, k, ms, c, f, s, _fl in rows]
    for m, *_rest, fails in rows:
        md += [f"- {m}: {f}" for f in fails[:10]]
    update_section("relay_crash", "\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
