"""Machine instructions per point select through the wire layer, counted by valgrind's callgrind: a before/after
comparison that the machine's load does not move (on a shared machine, CPU time per query drifts by tens of percent
between runs; an instruction count repeats to a fraction of a percent).

Each (tree, mode, account) runs in its own child under ``valgrind --tool=callgrind --instr-atstart=no``: the child
opens an engine Server, loads sysbench's table, logs in through a ``ClientHandler`` fed packets in memory (no
sockets), warms up, then switches counting on (``callgrind_control -i on``) around ``--n`` point selects sent as
sysbench sends them (COM_STMT_EXECUTE of ``SELECT c FROM sbtest1 WHERE id=?``) or as text (COM_QUERY). What is
counted: the Python interpreter, SQLite and libc inside those calls, plus the switching itself (a constant of
about 1-2% at n=1000, the same for both trees). Instructions are not time (a cache miss costs more than an add), but
on one interpreter build and the same statement they track CPU time closely, and they need no quiet machine.

``--opcodes`` counts Python bytecodes instead (``sys.settrace``, no valgrind: seconds per case, blind to SQLite's C).

Usage: .venv/bin/python bench/bench_instructions.py --baseline-src /tmp/base/src [--opcodes] [--n 1000] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import update_section

#: (mode, account) pairs measured, in this order
CASES = (("prepared", "root"), ("text", "root"), ("prepared", "app"), ("text", "app"))
#: rows of the child's sbtest1 (fewer than sysbench's 10000 so the child's setup under valgrind stays short; a point
#: select by primary key reads one B-tree path either way)
ROWS = 2000


def _child(mode: str, user: str, n: int, opcodes: bool = False) -> None:
    """Run in the child under callgrind: set up, warm up, count ``n`` point selects (see the module docstring).
    With ``opcodes``, no valgrind: print the Python bytecodes executed per point select (``sys.settrace`` with
    ``f_trace_opcodes``), a count as load-independent and much quicker to take, blind to C code (SQLite)."""
    import bench_session

    from gtidkit.engine import Server
    from gtidkit.protocol.packets import frame

    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server.open(Path(tmp), log_bin=True)
        try:
            setup = server.session()
            setup.execute("CREATE DATABASE sbtest; USE sbtest")
            setup.execute(
                "CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
                "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))"
            )
            rows = ",".join(f"({i}, {i % 97}, 'c-{i:011d}', 'p-{i}')" for i in range(1, ROWS + 1))
            setup.execute(f"INSERT INTO sbtest1 (id, k, c, pad) VALUES {rows}")
            setup.close()
            handler, _session = bench_session._login(server, user)
            ids = [rng.randint(1, ROWS) for _ in range(n + 200)]
            if mode == "text":
                packets = [frame(b"\x03SELECT c FROM sbtest1 WHERE id=%d" % i, 0)[0] for i in ids]
            else:
                prepared = handler.receive_data(frame(b"\x16SELECT c FROM sbtest1 WHERE id=?", 0)[0])
                assert prepared[4] == 0, prepared  # COM_STMT_PREPARE_OK
                sid = struct.unpack("<I", prepared[5:9])[0]
                head = b"\x17" + struct.pack("<IBI", sid, 0, 1) + b"\0\x01\x08\x00"
                packets = [frame(head + struct.pack("<q", i), 0)[0] for i in ids]
            for packet in packets[:200]:  # warm: plan, privilege check and result metadata cached
                assert handler.receive_data(packet)[4] != 0xFF
            timed = packets[200:]
            if opcodes:
                print(f"opcodes {_opcodes(handler, timed) / len(timed)}")
                handler.close()
                return
            pid = str(os.getpid())
            subprocess.run(["callgrind_control", "-i", "on", pid], capture_output=True, check=False)
            for packet in timed:
                handler.receive_data(packet)
            subprocess.run(["callgrind_control", "-i", "off", pid], capture_output=True, check=False)
            handler.close()
        finally:
            server.shutdown()


def _opcodes(handler: Any, packets: list[bytes]) -> int:
    """Bytecodes the interpreter executes while ``handler`` answers ``packets``."""
    count = 0

    def local(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "opcode":
            count += 1
        return local

    def trace(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        return local

    sys.settrace(trace)
    try:
        for packet in packets:
            handler.receive_data(packet)
    finally:
        sys.settrace(None)
    return count


def _count_opcodes(src: Path, mode: str, user: str, n: int) -> float:
    """Python bytecodes per point select of the tree ``src`` (a child without valgrind)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.run(
        [sys.executable, __file__, "--opcodes", "--child", mode, user, str(n)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("opcodes ") and proc.returncode == 0:
            return float(line.split()[1])
    raise SystemExit(f"no opcode count for {src} {mode} {user}:\n{proc.stderr[-2000:]}")


def _count(src: Path, mode: str, user: str, n: int, work: Path) -> int:
    """Instructions callgrind counted for ``n`` point selects of the tree ``src`` (its ``src/`` directory)."""
    out = work / f"cg.{src.parent.name}.{mode}.{user}.out"
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--child",
            mode,
            user,
            str(n),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in proc.stderr.splitlines():
        if "Collected :" in line and proc.returncode == 0:
            return int(line.split("Collected :")[1].strip())
    raise SystemExit(f"callgrind gave no count for {src} {mode} {user}:\n{proc.stderr[-2000:]}")


def main() -> int:
    """Count both trees' instructions per point select and write bench/RESULTS.md's ``instructions`` section."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--baseline-src", help="an older gtidkit src/ directory: the before column (required)")
    ap.add_argument("--baseline-label", help="how RESULTS.md names --baseline-src")
    ap.add_argument(
        "--src",
        help="the src/ directory of the tree measured as 'after' (default: this checkout's; a copy keeps "
        "edits made while the run goes on out of it)",
    )
    ap.add_argument("--n", type=int, default=1000, help="point selects counted per case")
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    ap.add_argument(
        "--opcodes",
        action="store_true",
        help="count Python bytecodes instead (no valgrind, seconds per case; C code such as SQLite not seen)",
    )
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        mode, user, n = args.child
        _child(mode, user, int(n), args.opcodes)
        return 0
    if not args.baseline_src:
        ap.error("--baseline-src is required")
    if not args.opcodes and (shutil.which("valgrind") is None or shutil.which("callgrind_control") is None):
        raise SystemExit("valgrind (with callgrind_control) is needed: apt-get install valgrind")
    this = Path(args.src).resolve() if args.src else Path(__file__).resolve().parent.parent / "src"
    before = Path(args.baseline_src).resolve()
    unit = "opcodes" if args.opcodes else "instructions"
    counts: dict[tuple[str, str, str], float] = {}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for mode, user in CASES:
            for label, src in (("before", before), ("after", this)):
                if args.opcodes:
                    counts[(label, mode, user)] = _count_opcodes(src, mode, user, args.n)
                else:
                    counts[(label, mode, user)] = _count(src, mode, user, args.n, Path(tmp)) / args.n
                print(
                    f"{label} {mode} {user}: {counts[(label, mode, user)]:.0f} {unit} per query",
                    flush=True,
                )
    how = (
        "one child per case, Python bytecodes counted by `sys.settrace` (`f_trace_opcodes`) around the point selects"
        if args.opcodes
        else "one child per case under `valgrind --tool=callgrind --instr-atstart=no`, counting on only around "
        "the point selects"
    )
    lines = [
        f"## {unit.capitalize()} per point select (load-independent before/after)",
        "",
        (
            f"Command: `.venv/bin/python bench/bench_instructions.py{' --opcodes' if args.opcodes else ''} "
            f"--n {args.n} --baseline-src {args.baseline_label or args.baseline_src}` ({how}; a `ClientHandler` "
            f"fed packets in memory, no sockets; sbtest1 of {ROWS} rows; {time.monotonic() - started:.0f} s)"
        ),
        "",
        f"| statement | account | before ({unit}/query) | this tree | this / before |",
        "|---|---|---|---|---|",
    ]
    for mode, user in CASES:
        b, a = counts[("before", mode, user)], counts[("after", mode, user)]
        what = "COM_STMT_EXECUTE (sysbench)" if mode == "prepared" else "COM_QUERY text"
        lines.append(f"| {what} | {user} | {b:,.0f} | {a:,.0f} | {a / b:.3f} |")
    for mode in ("prepared", "text"):
        root, app = counts[("after", mode, "root")], counts[("after", mode, "app")]
        lines.append("")
        lines.append(f"{mode}: the application account costs {app / root:.3f}x root's in this tree.")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        update_section("opcodes" if args.opcodes else "instructions", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
