"""Machine instructions per sysbench write transaction (BEGIN, UPDATE by index, UPDATE of a non-indexed column, DELETE
and INSERT by primary key, COMMIT: the part of oltp_read_write that holds the engine write lock), counted by
valgrind's callgrind, before and after: a comparison the machine's load does not move (bench_instructions.py says
why; on this shared machine CPU time per statement drifts by tens of percent between runs).

Cases, each in its own child under ``valgrind --tool=callgrind --instr-atstart=no`` (counting switched on with
``callgrind_control -i on`` around the measured transactions only), engine sessions in one process, no sockets:

* ``one process``: a plain engine Server (``gtidkit server --workers=1``);
* ``2 workers, alternating``: a primary opened with the shared page and a worker-role engine on the same datadir
  (as bench_follow.py), the transactions alternating between them, so every write-lock hold follows the other
  process's (sysbench at 4 threads over 2 workers, at worst);
* ``2 workers, same worker``: the same pair, every transaction in the worker (sysbench at 1 thread: each hold
  follows this process's own).

Usage: .venv/bin/python bench/bench_dml_instructions.py --baseline-src /tmp/base/src [--tx 60] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import update_section
from _sbtest import load_sbtest1

#: case name -> what the child runs
CASES = {"one process": "single", "2 workers, alternating": "alternating", "2 workers, same worker": "alone"}
ROWS = 2000
KINDS = ("begin", "update_index", "update_non_index", "delete", "insert", "commit")


def _child(case: str, tx: int) -> None:
    """Run the case's warm-up, then ``tx`` transactions with callgrind counting on."""
    from bench_session import STATEMENTS, _c

    from gtidkit.engine.server import Server

    opts: dict[str, Any] = {
        "log_bin": True,
        "gtid_mode": "ON",
        "enforce_gtid_consistency": "ON",
        "server_id": 1,
    }
    rng = random.Random(3)
    with tempfile.TemporaryDirectory() as tmp:
        primary = Server.open(Path(tmp), shared=case != "single", **opts)
        servers = [primary]
        try:
            s = primary.session()
            load_sbtest1(s.execute, rng, ROWS, lambda r: _c(r, 10).decode())
            if case != "single":
                servers.append(Server.open(Path(tmp), role="worker", **opts))
            sessions = []
            for srv in servers:
                session = srv.session()
                session.execute("USE sbtest")
                sessions.append((session, {k: session.prepare(STATEMENTS[k]) for k in KINDS}))
            order = {"single": [0], "alternating": [0, 1], "alone": [1]}[case]

            def params() -> list[list[Any]]:
                """One transaction's parameters, drawn before counting (the bench's own work is not counted)."""
                i = rng.randint(1, ROWS)
                return [
                    [],
                    [rng.randint(1, ROWS)],
                    [_c(rng, 10), rng.randint(1, ROWS)],
                    [i],
                    [i, rng.randint(1, ROWS), _c(rng, 10), _c(rng, 5)],
                    [],
                ]

            def one(n: int, values: list[list[Any]]) -> None:
                session, p = sessions[order[n % len(order)]]
                run = session.execute_prepared
                for kind, v in zip(KINDS, values):
                    run(p[kind], v)

            for n in range(40):  # warm: plans, encoders, caches
                one(n, params())
            drawn = [params() for _ in range(tx)]
            pid = str(os.getpid())
            subprocess.run(["callgrind_control", "-i", "on", pid], capture_output=True, check=False)
            for n in range(tx):
                one(n, drawn[n])
            subprocess.run(["callgrind_control", "-i", "off", pid], capture_output=True, check=False)
        finally:
            for srv in reversed(servers):
                srv.shutdown()


def _count(src: Path, case: str, tx: int, work: Path) -> float:
    """Instructions per transaction callgrind counted for ``case`` with the tree ``src``."""
    out = work / f"cg.{abs(hash(str(src)))}.{case}.out"
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out}",
        sys.executable,
    ]
    proc = subprocess.run(
        [*cmd, __file__, "--child", case, str(tx)], env=env, capture_output=True, text=True, check=False
    )
    for line in proc.stderr.splitlines():
        if "Collected :" in line and proc.returncode == 0:
            return int(line.split("Collected :")[1].strip()) / tx
    raise SystemExit(f"callgrind gave no count for {src} {case}:\n{proc.stderr[-3000:]}")


def main() -> int:
    """Count both trees' instructions per transaction; write bench/RESULTS.md's ``dml_instructions`` section."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--baseline-src", required=False, help="an older gtidkit src/ (git archive): the 'before'"
    )
    ap.add_argument("--baseline-label", default="before")
    ap.add_argument("--label", default="after")
    ap.add_argument("--tx", type=int, default=60, help="measured transactions per case")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.child:
        _child(args.child[0], int(args.child[1]))
        return 0
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("valgrind (with callgrind_control) is needed: apt-get install valgrind")
    here = Path(__file__).resolve().parent.parent / "src"
    trees = [(args.label, here)]
    if args.baseline_src:
        trees.insert(0, (args.baseline_label, Path(args.baseline_src).resolve()))
    counts: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory() as work:
        for case, mode in CASES.items():
            for label, src in trees:
                counts[(label, case)] = _count(src, mode, args.tx, Path(work))
                print(label, case, f"{counts[(label, case)]:.0f}", flush=True)
    cmd = f".venv/bin/python bench/bench_dml_instructions.py --tx {args.tx}"
    if args.baseline_src:
        cmd += f" --baseline-src {args.baseline_label}"
    labels = [label for label, _ in trees]
    lines = [
        "## Instructions per sysbench write transaction (BEGIN, 4 DML by key, COMMIT; issue 21, h-dml)",
        "",
        (
            f"Command: `{cmd}` (callgrind instruction counts, load-independent; {args.tx} measured transactions per "
            "case after 40 warm ones, engine sessions in one process, see the script's docstring). Millions of "
            "instructions per transaction:"
        ),
        "",
        "| case | " + " | ".join(labels) + (" | after / before |" if len(labels) == 2 else ""),
        "|---|" + "---|" * (len(labels) + (1 if len(labels) == 2 else 0)),
    ]
    for case in CASES:
        cells = [f"{counts[(label, case)] / 1e6:.3f}" for label in labels]
        ratio = f" {counts[(labels[1], case)] / counts[(labels[0], case)]:.3f} |" if len(labels) == 2 else ""
        lines.append(f"| {case} | " + " | ".join(cells) + " |" + ratio)
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        update_section("dml_instructions", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
