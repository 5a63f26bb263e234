"""Machine instructions per statement of a sysbench write transaction (BEGIN, UPDATE by index, UPDATE of a
non-indexed column, DELETE and INSERT by primary key, COMMIT), one process, engine session API, prepared as
sysbench prepares them: bench_dml_instructions.py's ``one process`` case split by statement, so a change to one
statement's path shows on its own row. Load-independent (callgrind counts, not CPU time).

How the split is made: a tiny C function ``gk_dump`` (compiled here into a temporary shared library, loaded with
ctypes) is called before each statement and after the last; callgrind runs with ``--dump-before=gk_dump``, so each
statement's instructions land in a dump file of their own (the marker's own cost, a ctypes call, is the ``marker``
row: about 3 k instructions, included in each statement's figure). The transactions' parameters are drawn before
counting; 40 warm transactions run first (plans, encoders, caches).

``--first-write`` runs BEGIN, three UPDATEs of c, INSERT, COMMIT instead: the same statement as a transaction's
first write and as its second and third (what the first write's extra work costs in instructions).

Usage: .venv/bin/python bench/bench_dml_statements.py --baseline-src /tmp/base/src [--tx 30] [--first-write]
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _sbtest import load_sbtest1

ROWS = 2000
KINDS = ("begin", "update_index", "update_non_index", "delete", "insert", "commit")
FIRST_WRITE_KINDS = ("begin", "update_non_index", "update_non_index", "update_non_index", "insert", "commit")
FIRST_WRITE_LABELS = (
    "begin",
    "update_non_index 1st",
    "update_non_index 2nd",
    "update_non_index 3rd",
    "insert",
    "commit",
)
_MARKER_C = (
    '__attribute__((noinline)) int gk_dump(int x) { __asm__ volatile(""); return x + 1; }\n'
    "int gk_mark(void) { return gk_dump(0); }\n"
)


def _marker(work: Path) -> Path:
    """Compile the marker library into ``work`` (``gk_mark`` calls ``gk_dump``: callgrind sees a real call)."""
    src, lib = work / "mark.c", work / "libgkmark.so"
    src.write_text(_MARKER_C)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", str(src), "-o", str(lib)], check=True)
    return lib


def _child(tx: int, lib: str, first_write: bool) -> None:
    """Warm up, then run ``tx`` transactions with a marker before each statement and after the last."""
    from bench_session import STATEMENTS, _c

    from gtidkit.engine.server import Server

    mark = ctypes.CDLL(lib).gk_mark
    kinds = FIRST_WRITE_KINDS if first_write else KINDS
    rng = random.Random(3)
    opts: dict[str, Any] = {
        "log_bin": True,
        "gtid_mode": "ON",
        "enforce_gtid_consistency": "ON",
        "server_id": 1,
    }
    with tempfile.TemporaryDirectory() as tmp:
        server = Server.open(Path(tmp), **opts)
        try:
            s = server.session()
            load_sbtest1(s.execute, rng, ROWS, lambda r: _c(r, 10).decode())
            session = server.session()
            session.execute("USE sbtest")
            prepared = {k: session.prepare(STATEMENTS[k]) for k in set(kinds)}
            fresh = iter(range(ROWS + 1, 10**9))

            def params() -> list[list[Any]]:
                i = rng.randint(1, ROWS)
                if first_write:  # three UPDATEs of c, then an INSERT of a new id
                    c = [[_c(rng, 10), rng.randint(1, ROWS)] for _ in range(3)]
                    return [[], *c, [next(fresh), rng.randint(1, ROWS), _c(rng, 10), _c(rng, 5)], []]
                return [
                    [],
                    [rng.randint(1, ROWS)],
                    [_c(rng, 10), rng.randint(1, ROWS)],
                    [i],
                    [i, rng.randint(1, ROWS), _c(rng, 10), _c(rng, 5)],
                    [],
                ]

            run = session.execute_prepared
            for _ in range(40):
                for kind, values in zip(kinds, params()):
                    run(prepared[kind], values)
            drawn = [params() for _ in range(tx)]
            for values_of_tx in drawn:
                for kind, values in zip(kinds, values_of_tx):
                    mark()
                    run(prepared[kind], values)
                mark()
        finally:
            server.shutdown()


def _count(src: Path, tx: int, work: Path, lib: Path, first_write: bool) -> dict[str, list[int]]:
    """Instructions of each statement of each measured transaction, by statement label, for the tree ``src``."""
    out = work / f"cg.{abs(hash(str(src)))}"
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--dump-before=gk_dump",
        f"--callgrind-out-file={out}/cg.out",
        sys.executable,
        __file__,
        "--child",
        str(tx),
        str(lib),
    ]
    if first_write:
        cmd.append("--first-write")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"callgrind run failed for {src}:\n{proc.stderr[-3000:]}")
    totals = []
    for name in sorted(glob.glob(f"{out}/cg.out.*"), key=lambda f: int(f.rsplit(".", 1)[1])):
        with open(name) as fh:
            for line in fh:
                if line.startswith(("summary:", "totals:")):
                    totals.append(int(line.split()[1]))
                    break
    labels = (*(FIRST_WRITE_LABELS if first_write else KINDS), "marker")
    per_tx = len(labels)  # a marker before each statement, one after the last, then the next transaction's
    # the first dump holds the start-up and the warm-up; the part after the last marker is in no numbered dump
    segments = totals[1:]
    if len(segments) != per_tx * tx - 1:
        raise SystemExit(f"expected {per_tx * tx - 1} dumps after the first, got {len(segments)}")
    by_label: dict[str, list[int]] = {label: [] for label in labels}
    for n, value in enumerate(segments):
        by_label[labels[n % per_tx]].append(value)
    return by_label


def main() -> int:
    """Count both trees' instructions per statement and print the table (hand-copied into bench/RESULTS.md)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline-src", help="an older gtidkit src/ (git archive): the 'before'")
    ap.add_argument("--baseline-label", default="before")
    ap.add_argument("--label", default="after")
    ap.add_argument("--tx", type=int, default=30, help="measured transactions")
    ap.add_argument(
        "--first-write", action="store_true", help="the same UPDATE as first, second and third write"
    )
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(int(args.child[0]), args.child[1], args.first_write)
        return 0
    if shutil.which("valgrind") is None or shutil.which("gcc") is None:
        raise SystemExit("valgrind and gcc are needed")
    trees = [(args.label, Path(__file__).resolve().parent.parent / "src")]
    if args.baseline_src:
        trees.insert(0, (args.baseline_label, Path(args.baseline_src).resolve()))
    counts = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        lib = _marker(work)
        for label, src in trees:
            counts[label] = _count(src, args.tx, work, lib, args.first_write)
    labels = [label for label, _ in trees]
    print(
        "| statement | "
        + " | ".join(f"{label} k instr." for label in labels)
        + (" | after / before |" if len(labels) == 2 else "")
    )
    print("|---|" + "---|" * (len(labels) + (1 if len(labels) == 2 else 0)))
    rows = list(counts[labels[0]])
    means = {label: 0.0 for label in labels}
    for row in rows:
        cells = []
        for label in labels:
            med = statistics.median(counts[label][row])
            means[label] += statistics.mean(counts[label][row])
            cells.append(f"{med / 1e3:.1f}")
        ratio = ""
        if len(labels) == 2:
            a, b = (statistics.median(counts[label][row]) for label in labels)
            ratio = f" {b / a:.3f} |"
        print(f"| {row} | " + " | ".join(cells) + " |" + ratio)
    total = " | ".join(f"{means[label] / 1e6:.3f} M" for label in labels)
    print(
        f"| transaction (means summed) | {total} |"
        + (f" {means[labels[1]] / means[labels[0]]:.3f} |" if len(labels) == 2 else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
