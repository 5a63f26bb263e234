"""Machine instructions of COMMIT alone in a sysbench write transaction (BEGIN, UPDATE by index, UPDATE of a
non-indexed column, DELETE and INSERT by primary key, COMMIT), counted by valgrind's callgrind before and after: a
comparison the machine's load does not move (bench_instructions.py says why).

The cases are bench_dml_instructions.py's (one process; 2 workers alternating; 2 workers, same worker), run the
same way, but callgrind collects only inside the COMMIT statement's ``execute_prepared``: the child starts under
``valgrind --tool=callgrind --collect-atstart=no`` and flips collection with ``CALLGRIND_TOGGLE_COLLECT`` (a client
request, compiled into a two-line helper library in the work directory: valgrind's ``callgrind.h``) right before
and after each COMMIT, so the DML statements are not counted. What is counted: the interpreter, SQLite, libc inside
COMMIT, with the WAL fsync's kernel time outside it (callgrind counts user-space instructions; the syscall count is
the same in both trees), plus half a ctypes call on each side (the same for both trees). ``--annotate`` prints
callgrind_annotate's inclusive table of the first tree (C functions: SQLite, zlib, the interpreter).

``--opcodes`` counts Python bytecodes per function inside COMMIT instead (``sys.settrace``, no valgrind), the
profile that shows which Python code the instructions run: the top functions by own bytecodes (``GK_TOP=N`` in
the environment lists N of them, 40 by default; a dataclass's generated ``__init__`` is named after its class).
Figures are printed, not written: bench/RESULTS.md ``commit_cpu_h_commitcpu`` is written by hand from them.

Usage: .venv/bin/python bench/bench_commit_instructions.py [--baseline-src /tmp/base/src] [--tx 60]
           [--opcodes] [--annotate]
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: case name -> what the child runs (bench_dml_instructions.py's cases)
CASES = {"one process": "single", "2 workers, alternating": "alternating", "2 workers, same worker": "alone"}
ROWS = 2000
KINDS = ("begin", "update_index", "update_non_index", "delete", "insert", "commit")
TOGGLE_C = "#include <valgrind/callgrind.h>\nvoid gk_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }\n"
from _sbtest import load_sbtest1


def _toggle_library(work: Path) -> Path:
    """Compile the collection toggle (valgrind's client request; a no-op outside valgrind) into ``work``."""
    src, lib = work / "gk_toggle.c", work / "gk_toggle.so"
    if not lib.exists():
        src.write_text(TOGGLE_C)
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", str(src), "-o", str(lib)], check=True)
    return lib


def _workload(case: str, tx: int, around_commit: Callable[[Callable[[], None]], None]) -> None:
    """Load sbtest1, warm up with 40 transactions, then run ``tx`` transactions with each COMMIT called through
    ``around_commit`` (the parameters are drawn before)."""
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
                i = rng.randint(1, ROWS)
                return [
                    [],
                    [rng.randint(1, ROWS)],
                    [_c(rng, 10), rng.randint(1, ROWS)],
                    [i],
                    [i, rng.randint(1, ROWS), _c(rng, 10), _c(rng, 5)],
                    [],
                ]

            def one(n: int, values: list[list[Any]], measured: bool) -> None:
                session, p = sessions[order[n % len(order)]]
                run = session.execute_prepared
                for kind, v in zip(KINDS[:-1], values):
                    run(p[kind], v)
                commit = p["commit"]
                if measured:
                    around_commit(lambda: run(commit, []))
                else:
                    run(commit, [])

            for n in range(40):  # warm: plans, encoders, caches
                one(n, params(), False)
            drawn = [params() for _ in range(tx)]
            for n in range(tx):
                one(n, drawn[n], True)
        finally:
            for srv in reversed(servers):
                srv.shutdown()


def _child_callgrind(case: str, tx: int, lib: str) -> None:
    toggle = ctypes.CDLL(lib).gk_toggle

    def around(fn: Callable[[], None]) -> None:
        toggle()
        fn()
        toggle()

    _workload(case, tx, around)


def _child_opcodes(case: str, tx: int) -> None:
    counts: collections.Counter[Any] = collections.Counter()
    owners: dict[Any, str] = {}  # generated code (a dataclass's __init__) -> its class

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            code = frame.f_code
            counts[code] += 1
            if code not in owners and code.co_filename == "<string>" and "self" in frame.f_locals:
                owners[code] = type(frame.f_locals["self"]).__name__ + "."
        return local

    def trace(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        return local

    def around(fn: Callable[[], None]) -> None:
        sys.settrace(trace)
        try:
            fn()
        finally:
            sys.settrace(None)

    _workload(case, tx, around)
    total = sum(counts.values())
    print(f"TOTAL {total / tx:.1f}")
    for code, n in counts.most_common(int(os.environ.get("GK_TOP", "40"))):
        where = f"{code.co_filename.split('/src/')[-1]}:{code.co_firstlineno}:{owners.get(code, '')}{code.co_name}"
        print(f"{n / tx:8.1f} {where}")


def _count(src: Path, case: str, tx: int, work: Path, annotate: bool) -> float:
    """Instructions per COMMIT callgrind collected for ``case`` with the tree ``src``."""
    out = work / f"cg.{abs(hash(str(src)))}.{case}.out"
    env = {**os.environ, "PYTHONPATH": str(src)}
    lib = _toggle_library(work)
    cmd = [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        f"--callgrind-out-file={out}",
        sys.executable,
    ]
    proc = subprocess.run(
        [*cmd, __file__, "--child", case, str(tx), str(lib)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in proc.stderr.splitlines():
        if "Collected :" in line and proc.returncode == 0:
            if annotate:
                ann = subprocess.run(
                    ["callgrind_annotate", "--inclusive=yes", "--threshold=99", str(out)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                print("\n".join(ann.stdout.splitlines()[:60]))
            return int(line.split("Collected :")[1].strip()) / tx
    raise SystemExit(f"callgrind gave no count for {src} {case}:\n{proc.stderr[-3000:]}")


def main() -> int:
    """Count both trees' instructions per COMMIT (or bytecodes with ``--opcodes``) and print them."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline-src", help="an older gtidkit src/ (git archive): the 'before'")
    ap.add_argument("--tx", type=int, default=60, help="measured transactions per case")
    ap.add_argument("--case", choices=list(CASES), action="append", help="only these cases (repeatable)")
    ap.add_argument(
        "--opcodes", action="store_true", help="Python bytecodes per function instead (no valgrind)"
    )
    ap.add_argument("--annotate", action="store_true", help="print callgrind_annotate's table of each run")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        if args.child[0] == "opcodes":
            _child_opcodes(args.child[1], int(args.child[2]))
        else:
            _child_callgrind(args.child[0], int(args.child[1]), args.child[2])
        return 0
    here = Path(__file__).resolve().parent.parent / "src"
    trees = [("after", here)]
    if args.baseline_src:
        trees.insert(0, ("before", Path(args.baseline_src).resolve()))
    cases = args.case or list(CASES)
    if args.opcodes:
        for case in cases:
            for label, src in trees:
                env = {**os.environ, "PYTHONPATH": str(src)}
                print(f"== {label} {case}: bytecodes per COMMIT", flush=True)
                subprocess.run(
                    [sys.executable, __file__, "--child", "opcodes", CASES[case], str(args.tx)],
                    env=env,
                    check=True,
                )
        return 0
    if shutil.which("valgrind") is None or shutil.which("gcc") is None:
        raise SystemExit("valgrind (with valgrind/callgrind.h) and gcc are needed")
    counts: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory() as work:
        for case in cases:
            for label, src in trees:
                counts[(label, case)] = _count(src, CASES[case], args.tx, Path(work), args.annotate)
                print(label, case, f"{counts[(label, case)]:.0f}", flush=True)
    labels = [label for label, _ in trees]
    print("| case | " + " | ".join(labels) + (" | after / before |" if len(labels) == 2 else ""))
    for case in cases:
        cells = [f"{counts[(label, case)] / 1e3:.0f} k" for label in labels]
        ratio = f" {counts[('after', case)] / counts[('before', case)]:.3f} |" if len(labels) == 2 else ""
        print(f"| {case} | " + " | ".join(cells) + " |" + ratio)
    return 0


if __name__ == "__main__":
    sys.exit(main())
