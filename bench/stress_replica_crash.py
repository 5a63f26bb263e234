"""Replica crash stress (issue 9): SIGKILL a replica at random moments while it applies, restart, check exactness.

Per mode (passive replica with the binary log off; replica with ``log_replica_updates``), ``--trials`` kill/restart
cycles of the replica under a sustained write load on the source (`gtidkit server` processes on 127.0.0.1). Every
``--check-every`` trials and at the end the load pauses and the replica must catch up by auto-position with
gtid_executed equal to the source's, the same rows (a counter bumped by every transaction exposes a lost or doubled
apply) and no applier/receiver error. The logic is ``tests/replication/cluster.py``'s ``replica_crash_trials``, which
``make test`` runs for 3 trials per mode. Writes the ``replica_crash`` section of bench/RESULTS.md.

Run: ``.venv/bin/python bench/stress_replica_crash.py --trials 200``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

from _results import update_section
from replication.cluster import CrashRun, replica_crash_trials

MODES = {"binlog-off": False, "log_replica_updates": True}


def report(rows: list[tuple[str, CrashRun]], args: argparse.Namespace, final: bool) -> str:
    """The markdown section for the modes finished so far."""
    cmd = (
        f"`.venv/bin/python bench/stress_replica_crash.py --trials {args.trials} --check-every {args.check_every} "
        f"--max-delay {args.max_delay} --seed {args.seed}`"
    )
    lines = [
        f"Command: {cmd} (per trial, under a sustained load on the source: the replica's applier held back a random "
        f"0.05-{args.max_delay}s, released, and the replica SIGKILLed a random 0-{args.max_delay / 2}s later while "
        "it drains the backlog; restart; replication resumes by auto-position; checked every "
        f"{args.check_every} trials and at the end: gtid_executed and every row equal to the source's, no error)."
        + ("" if final else " Partial: modes still running are missing."),
        "",
        (
            "| replica | trials | source commits | not yet applied at the kill (median / max trx) | checks | violations | "
            "catch-up after check (median s) | seconds |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode, run in rows:
        med = statistics.median(run.catch_up_seconds) if run.catch_up_seconds else float("nan")
        lines.append(
            f"| {mode} | {run.trials} | {run.commits} | {statistics.median(run.pending_at_kill or [0]):.0f} / "
            f"{max(run.pending_at_kill or [0])} | {len(run.catch_up_seconds)} | {len(run.failures)} | "
            f"{med:.2f} | {run.seconds:.0f} |"
        )
    for mode, run in rows:
        for f in run.failures:
            lines.append(f"\n- {mode}: {f}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the stress; return 1 when any invariant was violated."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--check-every", type=int, default=20)
    p.add_argument("--max-delay", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--modes", nargs="*", default=list(MODES), choices=list(MODES))
    args = p.parse_args(argv)
    rows: list[tuple[str, CrashRun]] = []
    for mode in args.modes:
        with tempfile.TemporaryDirectory(prefix="gtidkit-replica-crash-") as tmp:
            run = replica_crash_trials(
                Path(tmp),
                args.trials,
                log_replica_updates=MODES[mode],
                seed=args.seed,
                max_delay=args.max_delay,
                check_every=args.check_every,
            )
        rows.append((mode, run))
        print(
            f"{mode}: {run.trials} trials, {run.commits} commits, {len(run.failures)} violations", flush=True
        )
        update_section("replica_crash", report(rows, args, final=False))
    update_section("replica_crash", report(rows, args, final=True))
    return 1 if any(run.failures for _m, run in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
