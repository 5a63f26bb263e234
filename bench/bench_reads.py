"""sysbench's read statements through the wire layer, in instructions (callgrind) and CPU µs per statement: the
14 reads of an oltp_read_only / oltp_read_write transaction (10 point selects and the four 100-row ranges), each a
COM_STMT_EXECUTE fed to a ``ClientHandler`` in memory (no sockets), binary result rows, logged in as root.

Instructions are load-independent (the machine is shared: CPU µs drift by tens of percent between runs), so they
carry the before/after; the µs column is the best of ``--rounds`` timed rounds in a plain child (no valgrind).
Each tree builds its own datadir (sysbench's sbtest1 of 10000 rows, bench_session's data) in a child outside
valgrind, then one child per tree runs under ``valgrind --tool=callgrind --instr-atstart=no`` with counting switched
on around each shape's ``--n`` executions and the counts dumped per shape.

Usage: .venv/bin/python bench/bench_reads.py --baseline-src /tmp/base/src [--n 200] [--no-write]
"""

from __future__ import annotations

import argparse
import json
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

#: the statements measured: bench_session's sysbench texts, and how many of each one transaction runs
SHAPES = (
    ("point_select", 10),
    ("simple_range", 1),
    ("sum_range", 1),
    ("order_range", 1),
    ("distinct_range", 1),
)


def _make_datadir(path: Path) -> None:
    """sbtest.sbtest1 (bench_session's 10000 rows) and root@localhost in a new datadir at ``path``."""
    import bench_session

    from gtidkit.engine import Server
    from gtidkit.engine.accounts.bootstrap import create_root

    server = Server.open(path, log_bin=True)
    try:
        create_root(server, "")
        setup = server.session()
        bench_session._load(setup, random.Random(5))
        setup.close()
    finally:
        server.shutdown()


def _packets(handler: Any, shape: str, n: int, rng: random.Random) -> list[bytes]:
    """``n`` COM_STMT_EXECUTE packets of ``shape`` (prepared on ``handler`` first), parameters as sysbench draws them."""
    import bench_session

    from gtidkit.protocol.packets import frame

    prepared = handler.receive_data(frame(b"\x16" + bench_session.STATEMENTS[shape].encode(), 0)[0])
    assert prepared[4] == 0, prepared  # COM_STMT_PREPARE_OK
    sid = struct.unpack("<I", prepared[5:9])[0]
    rows = bench_session.TABLE_ROWS
    if shape == "point_select":
        head = b"\x17" + struct.pack("<IBI", sid, 0, 1) + b"\0\x01\x08\x00"
        return [frame(head + struct.pack("<q", rng.randint(1, rows)), 0)[0] for _ in range(n)]
    head = b"\x17" + struct.pack("<IBI", sid, 0, 1) + b"\0\x01\x08\x00\x08\x00"
    out = []
    for _ in range(n):
        lo = rng.randint(1, rows - 99)
        out.append(frame(head + struct.pack("<qq", lo, lo + 99), 0)[0])
    return out


def _login(datadir: Path) -> tuple[Any, Any]:
    """(server, handler) of root logged in through the wire layer in memory on the datadir ``datadir``."""
    from gtidkit.engine import Server
    from gtidkit.protocol.constants import Capability
    from gtidkit.protocol.handler import ClientHandler, ServerContext
    from gtidkit.protocol.messages import HandshakeResponse
    from gtidkit.protocol.packets import frame

    caps = (
        Capability.PROTOCOL_41
        | Capability.SECURE_CONNECTION
        | Capability.PLUGIN_AUTH
        | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA
        | Capability.TRANSACTIONS
        | Capability.CONNECT_WITH_DB
    )
    server = Server.open(datadir, log_bin=True)
    handler = ClientHandler(ServerContext(engine=server, accounts=server.accounts))
    handler.start()
    login = HandshakeResponse(caps, "root", b"", "sbtest", "caching_sha2_password")
    ok = handler.receive_data(frame(login.encode(), 1)[0])
    assert ok[4] == 0, ok  # the OK packet: logged in
    return server, handler


def _child(datadir: Path, n: int, callgrind: bool, rounds: int) -> None:
    """Run in a child: per shape, warm up then either count ``n`` executions under callgrind (switched on and
    dumped per shape) or time ``rounds`` rounds of ``n`` (JSON of µs per statement on stdout)."""
    rng = random.Random(9)
    server, handler = _login(datadir)
    out: dict[str, float] = {}
    try:
        work = []
        for shape, _per_tx in SHAPES:
            packets = _packets(handler, shape, n + 20, rng)
            for p in packets[:20]:  # plan, privilege check and result metadata cached
                assert handler.receive_data(p)[4] != 0xFF
            work.append((shape, packets[20:]))
        pid = str(os.getpid())
        for shape, packets in work:
            if callgrind:
                subprocess.run(["callgrind_control", "-i", "on", pid], capture_output=True, check=False)
                for p in packets:
                    handler.receive_data(p)
                subprocess.run(["callgrind_control", "-i", "off", pid], capture_output=True, check=False)
                subprocess.run(["callgrind_control", "-d", shape, pid], capture_output=True, check=False)
        if not callgrind:
            for _ in range(rounds):
                for shape, packets in work:
                    t0 = time.process_time()
                    for p in packets:
                        handler.receive_data(p)
                    cost = (time.process_time() - t0) / len(packets) * 1e6
                    out[shape] = min(out.get(shape, float("inf")), cost)
        handler.close()
    finally:
        server.shutdown()
    if not callgrind:
        print(json.dumps(out))


def _run_child(src: Path, args: list[str], valgrind: list[str] | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [*(valgrind or []), sys.executable, __file__, "--child", *args]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"child of {src} failed:\n{proc.stderr[-3000:]}")
    return proc.stdout


def _instructions(src: Path, datadir: Path, n: int, work: Path) -> dict[str, float]:
    """Instructions per statement of each shape, tree ``src``, on a copy of ``datadir``."""
    run_dir = work / f"run.{os.urandom(4).hex()}"
    shutil.copytree(datadir, run_dir)
    out = work / f"cg.{run_dir.name}.out"
    valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
    _run_child(src, ["--datadir", str(run_dir), "--n", str(n), "--callgrind"], valgrind)
    counts: dict[str, float] = {}
    for dump in sorted(work.glob(f"cg.{run_dir.name}.out.*"), key=lambda p: int(p.suffix[1:])):
        text = dump.read_text(errors="replace")
        trigger = next((ln for ln in text.splitlines() if ln.startswith("desc: Trigger: dump ")), "")
        total = next((ln for ln in text.splitlines() if ln.startswith("totals:")), None)
        shape = trigger.split()[-1] if trigger else ""
        if total is not None and shape in dict(SHAPES):
            counts[shape] = int(total.split()[1]) / n
    missing = [s for s, _ in SHAPES if s not in counts]
    if missing:
        raise SystemExit(f"callgrind gave no count for {missing} ({src})")
    shutil.rmtree(run_dir, ignore_errors=True)
    return counts


def main() -> int:
    """Count and time both trees' reads and write bench/RESULTS.md's ``reads`` section."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--baseline-src", help="an older gtidkit src/ directory: the before column")
    ap.add_argument("--baseline-label", help="how RESULTS.md names --baseline-src")
    ap.add_argument("--src", help="the src/ directory measured as 'after' (default: this checkout's)")
    ap.add_argument("--n", type=int, default=200, help="executions counted / timed per shape")
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds per child (the best counts)")
    ap.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--make-datadir", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--datadir", help=argparse.SUPPRESS)
    ap.add_argument("--callgrind", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        if args.make_datadir:
            _make_datadir(Path(args.datadir))
        else:
            _child(Path(args.datadir), args.n, args.callgrind, args.rounds)
        return 0
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("valgrind (with callgrind_control) is needed: apt-get install valgrind")
    this = Path(args.src).resolve() if args.src else Path(__file__).resolve().parent.parent / "src"
    trees = {"after": this}
    if args.baseline_src:
        trees = {"before": Path(args.baseline_src).resolve(), **trees}
    started = time.monotonic()
    instr: dict[str, dict[str, float]] = {}
    micros: dict[str, dict[str, float]] = {}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(os.environ.get("BENCH_READS_KEEP", tmp))
        work.mkdir(exist_ok=True)
        for label, src in trees.items():
            datadir = work / f"datadir.{label}"
            _run_child(src, ["--make-datadir", "--datadir", str(datadir)])
            instr[label] = _instructions(src, datadir, args.n, work)
            print(label, {k: round(v) for k, v in instr[label].items()}, flush=True)
        for _ in range(2):  # the timed children alternate: the machine's load hits both
            for label, src in trees.items():
                run_dir = work / f"time.{label}"
                shutil.rmtree(run_dir, ignore_errors=True)
                shutil.copytree(work / f"datadir.{label}", run_dir)
                got = json.loads(
                    _run_child(
                        src, ["--datadir", str(run_dir), "--n", str(args.n), "--rounds", str(args.rounds)]
                    )
                )
                prev = micros.get(label)
                micros[label] = got if prev is None else {k: min(v, got[k]) for k, v in prev.items()}
    load = max(load, os.getloadavg()[0])
    before = "before" in trees
    cmd = f".venv/bin/python bench/bench_reads.py --n {args.n} --rounds {args.rounds}"
    if before:
        cmd += f" --baseline-src {args.baseline_label or args.baseline_src}"
    lines = [
        "## sysbench's reads through the wire layer: instructions and µs per statement (issue 21, h-range)",
        "",
        (
            f"Command: `{cmd}` (COM_STMT_EXECUTE packets fed to a `ClientHandler` in memory, root, binary result "
            f"rows, sbtest1 of 10000 rows; instructions: callgrind around {args.n} executions per shape, "
            f"load-independent; µs: process CPU, best of {args.rounds} rounds x 2 children; load average up to "
            f"{load:.1f} on 2 CPUs; {time.monotonic() - started:.0f} s)"
        ),
        "",
    ]
    if before:
        lines += [
            "| statement | instructions before | after | after / before | µs before | µs after |",
            "|---|---|---|---|---|---|",
        ]
    else:
        lines += ["| statement | instructions | µs |", "|---|---|---|"]
    tx = {label: [0.0, 0.0] for label in trees}
    for shape, per_tx in SHAPES:
        for label in trees:
            tx[label][0] += instr[label][shape] * per_tx
            tx[label][1] += micros[label][shape] * per_tx
        a_i, a_u = instr["after"][shape], micros["after"][shape]
        if before:
            b_i, b_u = instr["before"][shape], micros["before"][shape]
            lines.append(f"| {shape} | {b_i:,.0f} | {a_i:,.0f} | {a_i / b_i:.2f} | {b_u:.1f} | {a_u:.1f} |")
        else:
            lines.append(f"| {shape} | {a_i:,.0f} | {a_u:.1f} |")
    a_i, a_u = tx["after"]
    what = "the 14 reads of a transaction (10 point + 4 ranges)"
    if before:
        b_i, b_u = tx["before"]
        lines.append(f"| {what} | {b_i:,.0f} | {a_i:,.0f} | {a_i / b_i:.2f} | {b_u:.0f} | {a_u:.0f} |")
    else:
        lines.append(f"| {what} | {a_i:,.0f} | {a_u:.0f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        from _results import update_section

        update_section("reads", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
