"""Crash stress: SIGKILL a committing server process at random moments, restart, check the invariant.

For every mode of ``tests/engine/crash_driver.py`` (binlog off; binlog on ROW; binlog on STATEMENT; binlog on
without log_replica_updates applying explicit GTIDs; gtid_mode=OFF), run ``--trials`` kill/restart cycles on one
datadir and check after each restart (recovery) that every acknowledged commit is present, nothing is in the
engine and not in the binlog or the reverse, @@gtid_executed equals the GTIDs whose data is present, and no GTID
appears twice. Writes the ``crash`` section of bench/RESULTS.md.

Run: ``.venv/bin/python bench/stress_crash.py --trials 200`` (a few minutes per mode).

Multi-worker server (issue 21 step 7): ``--workers N`` runs the modes of ``tests/cli/crash_workers.py`` instead, on a
real ``gtidkit server --workers=N`` with PyMySQL clients committing through every worker: ``random_worker`` (SIGKILL
one randomly chosen worker while clients commit through every worker; its clients get errors, its open transactions
roll back, the supervisor replaces it, the others continue; checked on the live server after the replacement) and
``whole_server`` (SIGKILL the supervisor, the fork server and every worker at once, restart: recovery, check). Each
mode ends with a whole-server kill, restart and check. Writes the ``crash_workers`` section.

Negative control: ``--control no-commit-log`` restarts with the commit-log step of recovery switched off
(``recovery.complete_binlogs`` does nothing: neither the cut of binlog bytes never committed nor the write-back of
committed ones): the invariant check must then flag violations, which shows the trials reach the crash windows
that step covers. Its figures go to the ``crash_control`` section. ``--control no-ddl-redo --modes
schema_files_ddl`` restarts without replaying a DDL's statements on a schema file that missed its commit
(``schema_files._replay_ops`` does nothing): the file / catalog check must flag (section ``crash_control_ddl``).
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
sys.path.insert(0, str(ROOT / "tests" / "engine"))
sys.path.insert(
    0, str(ROOT / "tests")
)  # the test modules import their helpers as the suite does (protocol.prefork)

from _results import load_module, update_section

crash_driver = load_module("crash_driver", ROOT / "tests" / "engine" / "crash_driver.py")
test_crash = load_module("test_crash", ROOT / "tests" / "engine" / "test_crash.py")
crash_workers = load_module("crash_workers", ROOT / "tests" / "cli" / "crash_workers.py")


def report(rows: list, args: argparse.Namespace, final: bool) -> str:
    """The markdown section for the modes finished so far."""
    lines = [
        f"Command: `.venv/bin/python bench/stress_crash.py --trials {args.trials}"
        + (f" --control {args.control}" if args.control else "")
        + "` (SIGKILL after a random "
        f"0-{args.max_delay}s of committing; restart with recovery; invariant checked after every restart)."
        + ("" if final else " Partial: modes still running are missing."),
        "",
        "| mode | trials | acknowledged commits | invariant violations | seconds |",
        "|---|---|---|---|---|",
    ]
    for mode, trials, nacks, nfail, elapsed, _f in rows:
        lines.append(f"| {mode} | {trials} | {nacks} | {nfail} | {elapsed:.0f} |")
    for mode, _t, _n, _nf, _e, fails in rows:
        for f in fails:
            lines.append(f"\n- {mode}: {f}")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=200, help="kill/restart cycles per mode")
    ap.add_argument(
        "--modes",
        default=",".join(sorted(crash_driver.MODES)),
        help="comma-separated; also schema_files (two schemas per transaction, a SQLite file each)",
    )
    ap.add_argument("--max-delay", type=float, default=0.5, help="seconds of load before the kill, at most")
    ap.add_argument("--seed", default="stress")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument(
        "--control",
        choices=["no-commit-log", "no-ddl-redo"],
        help="negative control (see the module docstring)",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=0,
        help="run the multi-worker modes (random_worker, whole_server) on `gtidkit server --workers=N`",
    )
    ap.add_argument("--clients", type=int, default=4, help="with --workers: committing client connections")
    args = ap.parse_args()
    if args.workers:
        workers_main(args)
        return
    section, title = "crash", "## Crash safety (issue 3): SIGKILL stress\n\n"
    if args.control == "no-ddl-redo":
        from gtidkit.engine import schema_files

        schema_files._replay_ops = lambda *a, **k: None  # type: ignore[assignment]
        section = "crash_control_ddl"
        title = (
            "## Crash safety negative control: schema files without the DDL redo (must flag)\n\n"
            "`--control no-ddl-redo`: the restart does not replay a DDL's statements on a file that missed it.\n\n"
        )
    elif args.control:
        from gtidkit.engine import recovery

        recovery.complete_binlogs = lambda *a, **k: 0  # type: ignore[assignment]
        section = "crash_control"
        title = (
            "## Crash safety negative control: recovery without the commit-log step (must flag)\n\n"
            "`--control no-commit-log`: the restart skips `recovery.complete_binlogs`.\n\n"
        )
    rows = []
    for mode in args.modes.split(","):
        rng = random.Random(f"{args.seed}-{mode}")
        datadir = Path(tempfile.mkdtemp(prefix=f"crash_{mode}_")) / "data"
        acks: list = []
        failures: list[str] = []
        t0 = time.perf_counter()
        for trial in range(1, args.trials + 1):
            acks += test_crash.run_trial(datadir, mode, rng, args.max_delay)
            problems = crash_driver.check(str(datadir), mode, acks, trials=trial)
            if problems:
                failures.append(f"trial {trial}: {problems}")
        elapsed = time.perf_counter() - t0
        rows.append((mode, args.trials, len(acks), len(failures), elapsed, failures[:3]))
        if not args.no_write:  # write after every mode, so a long run leaves figures even if stopped
            update_section(section, title + report(rows, args, False))
        print(
            f"{mode}: {args.trials} trials, {len(acks)} acknowledged commits, {len(failures)} failures, "
            f"{elapsed:.0f}s",
            flush=True,
        )
    text = report(rows, args, final=True)
    print(text)
    if not args.no_write:
        update_section(section, title + text)
    if any(r[3] for r in rows) and not args.control:
        sys.exit(1)


def workers_report(rows: list, args: argparse.Namespace, final: bool) -> str:
    """The markdown section for the multi-worker modes finished so far."""
    import subprocess

    head = (
        subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        or "an exported tree, not a git checkout"
    )
    lines = [
        "## Crash safety of the multi-worker server (issue 21 step 7): SIGKILL stress",
        "",
        f"Command: `.venv/bin/python bench/stress_crash.py --workers {args.workers} --clients {args.clients} "
        f"--trials {args.trials} --modes {args.modes}` (code at {head}; PyMySQL clients commit two-row transactions "
        f"through every worker; SIGKILL after a random 0-{args.max_delay}s; random_worker: one worker, replaced, "
        "checked live; whole_server: the process group, restart with recovery, checked; every mode ends with a "
        "whole-server kill, restart and check). Invariant: tests/cli/crash_workers.py."
        + ("" if final else " Partial: modes still running are missing."),
        "",
        (
            "| mode | trials | acknowledged commits | in doubt at a kill | open transactions killed | invariant "
            "violations | median replacement s | seconds |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode, trials, nacks, doubt, held, nfail, repl, elapsed, _f in rows:
        lines.append(f"| {mode} | {trials} | {nacks} | {doubt} | {held} | {nfail} | {repl} | {elapsed:.0f} |")
    for mode, *_rest, fails in rows:
        for f in fails:
            lines.append(f"\n- {mode}: {f}")
    return "\n".join(lines) + "\n"


def workers_main(args: argparse.Namespace) -> None:
    """The multi-worker modes (``--workers N``)."""
    import statistics

    modes = (
        args.modes
        if set(args.modes.split(",")) <= set(crash_workers.MODES)
        else ",".join(crash_workers.MODES)
    )
    args.modes = modes
    rows = []
    for mode in modes.split(","):
        rng = random.Random(f"{args.seed}-{mode}")
        datadir = Path(tempfile.mkdtemp(prefix=f"crash_{mode}_")) / "data"
        trials = crash_workers.Trials(datadir, mode, args.workers, args.clients, rng, args.max_delay)
        failures: list[str] = []
        t0 = time.perf_counter()
        try:
            trials.setup()
            for trial in range(1, args.trials + 1):
                problems = trials.trial()
                if problems:
                    failures.append(f"trial {trial}: {problems}")
                    print(f"{mode} trial {trial}: {problems}", flush=True)
                if trial % 10 == 0:
                    print(f"{mode}: {trial} trials, {len(failures)} failures", flush=True)
            problems = trials.finish()
            if problems:
                failures.append(f"final restart: {problems}")
        finally:
            trials.abandon()
        elapsed = time.perf_counter() - t0
        led = trials.ledger
        repl = f"{statistics.median(trials.replacements):.2f}" if trials.replacements else "-"
        rows.append(
            (
                mode,
                args.trials,
                len(led.acked),
                len(led.in_doubt),
                trials.held_open,
                len(failures),
                repl,
                elapsed,
                failures[:3],
            )
        )
        if not args.no_write:
            update_section("crash_workers", workers_report(rows, args, False))
        print(
            f"{mode}: {args.trials} trials, {len(led.acked)} acknowledged, {len(failures)} failures, "
            f"{elapsed:.0f}s" + (f", {trials.ddls} DDL statements" if trials.ddls else ""),
            flush=True,
        )
    text = workers_report(rows, args, True)
    print(text)
    if not args.no_write:
        update_section("crash_workers", text)
    if any(r[5] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
