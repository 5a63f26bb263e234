"""Machine instructions per statement of a sysbench write transaction with ``gtidkit_row_locks`` OFF and ON
(docs/design/multi_worker.md §5.7), counted by valgrind's callgrind: a comparison the machine's load does not move.

One engine session in one process (binary log on, GTIDs on) runs sysbench oltp_read_write's write part as prepared
statements: BEGIN, ``UPDATE sbtest1 SET k=k+1 WHERE id=?`` (index), ``UPDATE sbtest1 SET c=? WHERE id=?``
(non-index), ``DELETE FROM sbtest1 WHERE id=?``, ``INSERT INTO sbtest1 (id, k, c, pad) VALUES (?,?,?,?)`` of the
deleted key, COMMIT, on a table of 2000 rows. The child runs under ``valgrind --tool=callgrind
--instr-atstart=no``; after 40 warm transactions it switches instrumentation on and dumps the counters after every
statement (``CALLGRIND_DUMP_STATS_AT``, from a tiny C helper built with gcc into a temporary directory), so each
statement kind gets its own count. Printed as millions of instructions per transaction and thousands per statement.

Usage: .venv/bin/python bench/bench_row_locks_instructions.py [--tx 40] [--baseline-src /tmp/base/src]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _sbtest import load_sbtest1

KINDS = ("begin", "update_index", "update_non_index", "delete", "insert", "commit")
STATEMENTS = {
    "begin": "BEGIN",
    "update_index": "UPDATE sbtest1 SET k=k+1 WHERE id=?",
    "update_non_index": "UPDATE sbtest1 SET c=? WHERE id=?",
    "delete": "DELETE FROM sbtest1 WHERE id=?",
    "insert": "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)",
    "commit": "COMMIT",
}
ROWS = 2000
HELPER = """
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void cg_dump(const char *s) { CALLGRIND_DUMP_STATS_AT(s); }
"""


def _text(rng: random.Random, groups: int) -> str:
    """sysbench's c / pad text: ``groups`` groups of 11 digits joined by '-'."""
    return "-".join(f"{rng.randrange(10**11):011d}" for _ in range(groups))


def _child(row_locks: bool, tx: int, helper: str) -> None:
    """Warm up, then run ``tx`` transactions dumping callgrind's counters after each statement."""
    from gtidkit.engine.server import Server

    cg = ctypes.CDLL(helper)
    rng = random.Random(3)
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server.open(
            Path(tmp),
            log_bin=True,
            gtid_mode="ON",
            enforce_gtid_consistency="ON",
            server_id=1,
            gtidkit_row_locks=row_locks,
        )
        try:
            s = srv.session()
            load_sbtest1(s.execute, rng, ROWS, lambda r: _text(r, 10))
            p = {k: s.prepare(STATEMENTS[k]) for k in KINDS}

            def params() -> list[list[Any]]:
                i = rng.randint(1, ROWS)
                return [
                    [],
                    [rng.randint(1, ROWS)],
                    [_text(rng, 10), rng.randint(1, ROWS)],
                    [i],
                    [i, rng.randint(1, ROWS), _text(rng, 10), _text(rng, 5)],
                    [],
                ]

            for _ in range(40):
                for kind, v in zip(KINDS, params()):
                    s.execute_prepared(p[kind], v)
            drawn = [params() for _ in range(tx)]
            names = {k: k.encode() for k in KINDS}
            cg.cg_start()
            cg.cg_dump(b"start")
            for values in drawn:
                for kind, v in zip(KINDS, values):
                    s.execute_prepared(p[kind], v)
                    cg.cg_dump(names[kind])
        finally:
            srv.shutdown()


def _count(src: Path, row_locks: bool, tx: int, work: Path, helper: Path) -> dict[str, float]:
    """Instructions per statement kind (and ``transaction``) with the tree ``src``."""
    out = work / f"cg.{abs(hash(str(src)))}.{int(row_locks)}"
    out.mkdir()
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out}/cg.out",
        sys.executable,
        __file__,
        "--child",
        str(int(row_locks)),
        str(tx),
        str(helper),
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"child failed:\n{proc.stderr[-3000:]}")
    sums = dict.fromkeys(KINDS, 0)
    for f in out.iterdir():
        text = f.read_text(errors="replace")
        trigger = re.search(r"^desc: Trigger: Client Request: (\S+)", text, re.MULTILINE)
        total = re.search(r"^(?:totals|summary): (\d+)", text, re.MULTILINE)
        if trigger and total and trigger.group(1) in sums:
            sums[trigger.group(1)] += int(total.group(1))
    counts = {k: v / tx for k, v in sums.items()}
    counts["transaction"] = sum(counts[k] for k in KINDS)
    return counts


def main() -> int:
    """Count OFF and ON (for this tree and, when given, a baseline tree) and print a markdown table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tx", type=int, default=40, help="measured transactions per case")
    ap.add_argument("--baseline-src", help="an older gtidkit src/ (git archive): the 'before'")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child[0] == "1", int(args.child[1]), args.child[2])
        return 0
    if shutil.which("valgrind") is None or shutil.which("gcc") is None:
        raise SystemExit("valgrind and gcc (with valgrind/callgrind.h) are needed")
    trees = [("after", Path(__file__).resolve().parent.parent / "src")]
    if args.baseline_src:
        trees.insert(0, ("before", Path(args.baseline_src).resolve()))
    cols: list[tuple[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory() as work:
        helper = Path(work) / "cghelper.so"
        (Path(work) / "cghelper.c").write_text(HELPER)
        subprocess.run(
            ["gcc", "-shared", "-fPIC", "-O2", f"{work}/cghelper.c", "-o", str(helper)], check=True
        )
        for label, src in trees:
            for row_locks in (False, True):
                name = f"{label} {'ON' if row_locks else 'OFF'}"
                counts = _count(src, row_locks, args.tx, Path(work), helper)
                cols.append((name, counts))
                print(name, {k: round(v / 1e3) for k, v in counts.items()}, flush=True)
    print(
        f"\nThousands of instructions per statement ({args.tx} transactions per case after 40 warm ones):\n"
    )
    print("| statement | " + " | ".join(n for n, _ in cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for kind in (*KINDS, "transaction"):
        print(f"| {kind} | " + " | ".join(f"{c[kind] / 1e3:.0f}" for _, c in cols) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
