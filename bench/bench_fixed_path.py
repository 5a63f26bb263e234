"""The fixed per-command cost of sysbench's oltp_read_write commands through the wire layer: Python bytecodes and
machine instructions per command for a prepared point select, a prepared 100-row range, a prepared UPDATE (the OK
packet with session tracking), and the text BEGIN / COMMIT (issue 21, h-fixed).

Each tree builds its own datadir (sysbench's sbtest1 of 10000 rows, bench_session's data) in a child; then a child
logs root in through a ``ClientHandler`` fed packets in memory (no sockets) with the capabilities sysbench's
libmariadb negotiates (PROTOCOL_41, SESSION_TRACK, MULTI_STATEMENTS / MULTI_RESULTS, no DEPRECATE_EOF), warms up,
and runs ``--n`` transactions shaped as sysbench's: ``BEGIN`` (COM_QUERY), a point select, a range, an ``UPDATE
sbtest1 SET c=? WHERE id=?`` (COM_STMT_EXECUTE), ``COMMIT`` (COM_QUERY). Only the command measured is counted in
each pass: bytecodes by ``sys.settrace`` (``f_trace_opcodes``) switched around that command; instructions by
callgrind with collection toggled around that command through valgrind's client request (a tiny C helper built
here with ``valgrind/callgrind.h``; the switch itself costs a handful of instructions). Both counts are
load-independent (the machine is shared: CPU time moves by tens of percent with other work).

``--profile`` prints, per command, the code objects that executed the most bytecodes (file:line:function).

Usage: .venv/bin/python bench/bench_fixed_path.py [--baseline-src /tmp/base/src] [--n 300] [--profile] [--opcodes-only]
"""

from __future__ import annotations

import argparse
import collections
import ctypes
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

#: the commands measured, in a transaction's order: BEGIN and COMMIT as sysbench 1.0.20 sends them to gtidkit
#: (it prepares them: COM_STMT_EXECUTE, seen with strace), then as text (COM_QUERY: the mysql client, PyMySQL's
#: begin() / commit()) in transactions of their own
SHAPES = ("begin", "point_select", "simple_range", "update_non_index", "commit", "begin_text", "commit_text")
#: the commands of one transaction, per shape measured
_SEQUENCE = ("begin", "point_select", "simple_range", "update_non_index", "commit")
_TEXT_SEQUENCE = ("begin_text", "point_select", "simple_range", "update_non_index", "commit_text")


def _sequence(shape: str) -> tuple[str, ...]:
    return _TEXT_SEQUENCE if shape.endswith("_text") else _SEQUENCE


_TOGGLE_C = r"""
#include <valgrind/callgrind.h>
void gk_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
void gk_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
"""


def _toggle_lib(work: Path) -> Path:
    """Build the callgrind client-request helper (``gk_toggle`` / ``gk_dump``) into ``work``."""
    src, lib = work / "gk_toggle.c", work / "gk_toggle.so"
    if not lib.exists():
        src.write_text(_TOGGLE_C)
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", str(src), "-o", str(lib)], check=True)
    return lib


def _make_datadir(path: Path) -> None:
    import bench_reads

    bench_reads._make_datadir(path)


def _login(datadir: Path, user: str = "root") -> tuple[Any, Any]:
    """(server, handler) of ``user`` (root, or ``app``: bench_session's application account, created here) logged in
    with libmariadb's capabilities (sysbench 1.0.20's client)."""
    import bench_session

    from gtidkit.engine import Server
    from gtidkit.protocol.constants import Capability
    from gtidkit.protocol.handler import ClientHandler, ServerContext
    from gtidkit.protocol.messages import HandshakeResponse
    from gtidkit.protocol.packets import frame

    caps = (
        Capability.LONG_PASSWORD
        | Capability.LONG_FLAG
        | Capability.PROTOCOL_41
        | Capability.SECURE_CONNECTION
        | Capability.PLUGIN_AUTH
        | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA
        | Capability.TRANSACTIONS
        | Capability.MULTI_STATEMENTS
        | Capability.MULTI_RESULTS
        | Capability.PS_MULTI_RESULTS
        | Capability.SESSION_TRACK
        | Capability.CONNECT_WITH_DB
    )
    server = Server.open(datadir, log_bin=True)
    if user == "app":
        setup = server.session()
        setup.execute("CREATE USER IF NOT EXISTS app@'%' IDENTIFIED BY ''")
        setup.execute(bench_session.APP_GRANT)
        setup.close()
    handler = ClientHandler(ServerContext(engine=server, accounts=server.accounts))
    handler.start()
    login = HandshakeResponse(caps, user, b"", "sbtest", "caching_sha2_password")
    ok = handler.receive_data(frame(login.encode(), 1)[0])
    assert ok[4] == 0, ok  # the OK packet: logged in
    return server, handler


def _prepare(handler: Any, sql: str) -> int:
    from gtidkit.protocol.packets import frame

    prepared = handler.receive_data(frame(b"\x16" + sql.encode(), 0)[0])
    assert prepared[4] == 0, prepared  # COM_STMT_PREPARE_OK
    return int(struct.unpack("<I", prepared[5:9])[0])


def _prepare_all(handler: Any) -> tuple[int, ...]:
    """The statement ids of the point select, the range, the UPDATE, BEGIN and COMMIT, prepared once as sysbench
    does."""
    import bench_session

    return tuple(
        _prepare(handler, bench_session.STATEMENTS[name])
        for name in ("point_select", "simple_range", "update_non_index", "begin", "commit")
    )


def _transactions(ids: tuple[int, ...], n: int, rng: random.Random) -> list[dict[str, bytes]]:
    """``n`` transactions: each a dict shape -> the packet sent for it (parameters drawn as sysbench draws them)."""
    import bench_session

    from gtidkit.protocol.packets import frame

    rows = bench_session.TABLE_ROWS
    point, rng_sid, upd, begin, commit = ids
    out = []
    for _ in range(n):
        lo = rng.randint(1, rows - 99)
        c = bench_session._c(rng, 12)[:120]
        out.append(
            {
                "begin": frame(b"\x17" + struct.pack("<IBI", begin, 0, 1), 0)[0],
                "commit": frame(b"\x17" + struct.pack("<IBI", commit, 0, 1), 0)[0],
                "begin_text": frame(b"\x03BEGIN", 0)[0],
                "point_select": frame(
                    b"\x17"
                    + struct.pack("<IBI", point, 0, 1)
                    + b"\0\x01\x08\x00"
                    + struct.pack("<q", rng.randint(1, rows)),
                    0,
                )[0],
                "simple_range": frame(
                    b"\x17"
                    + struct.pack("<IBI", rng_sid, 0, 1)
                    + b"\0\x01\x08\x00\x08\x00"
                    + struct.pack("<qq", lo, lo + 99),
                    0,
                )[0],
                "update_non_index": frame(
                    b"\x17"
                    + struct.pack("<IBI", upd, 0, 1)
                    + b"\0\x01\xfe\x00\x08\x00"
                    + bytes([len(c)])
                    + c
                    + struct.pack("<q", rng.randint(1, rows)),
                    0,
                )[0],
                "commit_text": frame(b"\x03COMMIT", 0)[0],
            }
        )
    return out


def _check(shape: str, answer: bytes) -> None:
    if answer[4] == 0xFF:
        raise SystemExit(f"{shape} answered an error: {answer[13:]!r}")


def _child(datadir: Path, n: int, mode: str, lib: str | None, user: str = "root") -> None:
    """Run in a child: warm up, then per shape one pass of ``n`` transactions counting only that shape's command
    (``mode`` "opcodes": JSON of bytecodes per command and per code object on stdout; "callgrind": collection
    toggled through ``lib`` and dumped per shape)."""
    rng = random.Random(9)
    server, handler = _login(datadir, user)
    try:
        ids = _prepare_all(handler)
        for tx in _transactions(ids, 30, rng):  # plans, privilege checks, result metadata cached
            for sequence in (_SEQUENCE, _TEXT_SEQUENCE):
                for shape in sequence:
                    _check(shape, handler.receive_data(tx[shape]))
        if mode == "callgrind":
            assert lib is not None
            cg = ctypes.CDLL(lib)
            for shape in SHAPES:
                for tx in _transactions(ids, n, rng):
                    for s in _sequence(shape):
                        if s == shape:
                            cg.gk_toggle()
                            handler.receive_data(tx[s])
                            cg.gk_toggle()
                        else:
                            handler.receive_data(tx[s])
                cg.gk_dump(shape.encode())
            return
        result: dict[str, Any] = {}
        for shape in SHAPES:
            counts: collections.Counter[Any] = collections.Counter()

            def local(frame: Any, event: str, arg: Any, counts: Any = counts) -> Any:
                if event == "opcode":
                    counts[frame.f_code] += 1
                return local

            def trace(frame: Any, event: str, arg: Any) -> Any:
                frame.f_trace_opcodes = True
                return local

            for tx in _transactions(ids, n, rng):
                for s in _sequence(shape):
                    if s == shape:
                        sys.settrace(trace)
                        answer = handler.receive_data(tx[s])
                        sys.settrace(None)
                        _check(s, answer)
                    else:
                        _check(s, handler.receive_data(tx[s]))
            per_code = {
                f"{c.co_filename.split('/src/')[-1]}:{c.co_firstlineno}:{c.co_name}": v / n
                for c, v in counts.items()
            }
            result[shape] = {"total": sum(counts.values()) / n, "code": per_code}
        print(json.dumps(result))
    finally:
        handler.close()
        server.shutdown()


def _run_child(src: Path, args: list[str], valgrind: list[str] | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [*(valgrind or []), sys.executable, __file__, "--child", *args]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"child of {src} failed:\n{proc.stderr[-3000:]}")
    return proc.stdout


def _instructions(src: Path, datadir: Path, n: int, work: Path, user: str = "root") -> dict[str, float]:
    """Instructions per command of each shape, tree ``src``, on a copy of ``datadir``."""
    run_dir = work / f"run.{os.urandom(4).hex()}"
    shutil.copytree(datadir, run_dir)
    out = work / f"cg.{run_dir.name}.out"
    valgrind = [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        f"--callgrind-out-file={out}",
    ]
    lib = _toggle_lib(work)
    _run_child(
        src,
        ["--datadir", str(run_dir), "--n", str(n), "--mode", "callgrind", "--lib", str(lib), "--user", user],
        valgrind,
    )
    counts: dict[str, float] = {}
    for dump in work.glob(f"cg.{run_dir.name}.out.*"):
        text = dump.read_text(errors="replace")
        trigger = next(
            (ln for ln in text.splitlines() if ln.startswith("desc: Trigger: Client Request: ")), ""
        )
        total = next((ln for ln in text.splitlines() if ln.startswith("totals:")), None)
        shape = trigger.split()[-1] if trigger else ""
        if total is not None and shape in SHAPES:
            counts[shape] = int(total.split()[1]) / n
    missing = [s for s in SHAPES if s not in counts]
    if missing:
        raise SystemExit(f"callgrind gave no count for {missing} ({src})")
    shutil.rmtree(run_dir, ignore_errors=True)
    return counts


def _opcodes(src: Path, datadir: Path, n: int, work: Path, user: str = "root") -> dict[str, Any]:
    run_dir = work / f"opc.{os.urandom(4).hex()}"
    shutil.copytree(datadir, run_dir)
    got = json.loads(
        _run_child(src, ["--datadir", str(run_dir), "--n", str(n), "--mode", "opcodes", "--user", user])
    )
    shutil.rmtree(run_dir, ignore_errors=True)
    return dict(got)


def _by_area(code: dict[str, float]) -> dict[str, float]:
    """Bytecodes per command grouped as protocol/, engine/, other."""
    out: dict[str, float] = collections.defaultdict(float)
    for key, v in code.items():
        if "gtidkit/protocol/server.py" in key:
            out["edge"] += v
        elif "gtidkit/protocol/" in key:
            out["protocol"] += v
        elif "gtidkit/engine/" in key:
            out["engine"] += v
        else:
            out["other"] += v
    return dict(out)


def main() -> int:
    """Count both trees' commands and print (or, without ``--no-write``, keep in RESULTS.md) the figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--baseline-src", help="an older gtidkit src/ directory: the before column")
    ap.add_argument("--src", help="the src/ directory measured as 'after' (default: this checkout's)")
    ap.add_argument("--n", type=int, default=300, help="transactions counted per shape")
    ap.add_argument("--opcodes-only", action="store_true", help="no callgrind (seconds instead of minutes)")
    ap.add_argument("--profile", type=int, default=0, help="print the top N code objects per shape")
    ap.add_argument(
        "--user", default="root", help="root, or app (SELECT, INSERT, UPDATE, DELETE ON sbtest.*)"
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--make-datadir", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--datadir", help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="opcodes", help=argparse.SUPPRESS)
    ap.add_argument("--lib", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        if args.make_datadir:
            _make_datadir(Path(args.datadir))
        else:
            _child(Path(args.datadir), args.n, args.mode, args.lib, args.user)
        return 0
    this = Path(args.src).resolve() if args.src else Path(__file__).resolve().parent.parent / "src"
    trees = {"after": this}
    if args.baseline_src:
        trees = {"before": Path(args.baseline_src).resolve(), **trees}
    started = time.monotonic()
    opc: dict[str, dict[str, Any]] = {}
    instr: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(os.environ.get("BENCH_FIXED_KEEP", tmp))  # a directory to keep the callgrind dumps in
        work.mkdir(exist_ok=True)
        for label, src in trees.items():
            datadir = work / f"datadir.{label}"
            _run_child(src, ["--make-datadir", "--datadir", str(datadir)])
            opc[label] = _opcodes(src, datadir, args.n, work, args.user)
            if not args.opcodes_only:
                instr[label] = _instructions(src, datadir, args.n, work, args.user)
    print(f"load average {os.getloadavg()}; {time.monotonic() - started:.0f} s")
    for shape in SHAPES:
        cells = []
        for label in trees:
            areas = _by_area(opc[label][shape]["code"])
            cell = f"{label}: {opc[label][shape]['total']:,.0f} bytecodes " + " ".join(
                f"{k}={v:,.0f}" for k, v in sorted(areas.items())
            )
            if label in instr:
                cell += f", {instr[label][shape]:,.0f} instructions"
            cells.append(cell)
        print(f"{shape:18s} " + " | ".join(cells))
    if args.profile:
        for shape in SHAPES:
            print(f"\n== {shape} ({trees and list(trees)[-1]})")
            code = opc[list(trees)[-1]][shape]["code"]
            for key, v in sorted(code.items(), key=lambda kv: -kv[1])[: args.profile]:
                print(f"{v:8.1f}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
