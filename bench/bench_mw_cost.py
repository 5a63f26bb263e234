"""Why a transaction costs more server CPU with `gtidkit server --workers=2` than with `--workers=1` (issue 21,
h-mw): the server's CPU per transaction split per process and per thread, A/B interleaved in one run.

Starts one server per configuration at once (fresh datadirs, ``--log-bin --gtid-mode=ON
--enforce-gtid-consistency=ON`` plus the configuration's options, 127.0.0.1, free ports), prepares sysbench's
1 table of 10000 rows in each, then for ``--rounds`` rounds runs sysbench ``--test`` with ``--threads`` for
``--seconds`` against each server in turn (the order rotating). Around each run it reads the utime + stime ticks of
every thread of every process of the server's process group (/proc/PID/task/TID/stat) and the voluntary context
switches, and reports CPU µs per transaction per process role (``gtidkit-worker0`` ...), per thread name, and in
total; the idle CPU of each server over ``--idle`` seconds before the runs (its pollers) is measured the same way.
Load-independent: CPU per transaction does not depend on how long the run queue made the client wait, though it
does grow with cache misses on a loaded machine, hence the interleaving.

``--opcodes N`` counts instead the Python bytecodes each configuration's server runs per transaction (N transactions
on one connection; bench/opcode_probe): a figure the machine's load does not move, blind to C code.

Usage: PYTHONPATH=src .venv/bin/python bench/bench_mw_cost.py [--config 'label=--workers=2[|/tmp/base/src]' ...]
           [--test oltp_read_write] [--threads 1] [--seconds 8] [--rounds 3] [--idle 5] [--src path] [--opcodes N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TICK = os.sysconf("SC_CLK_TCK")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stat_fields(path: Path) -> list[str] | None:
    try:
        return path.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _comm(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return "?"


def snapshot(pgid: int) -> dict[tuple[int, int], tuple[str, str, int, int, int, int]]:
    """(pid, tid) -> (process name, thread name, utime, stime, voluntary and involuntary context switches) of every
    thread of every live process of process group ``pgid``."""
    out: dict[tuple[int, int], tuple[str, str, int, int, int, int]] = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        f = _stat_fields(Path(f"/proc/{p}/stat"))
        if f is None or int(f[2]) != pgid:
            continue
        pname = _comm(Path(f"/proc/{p}/comm"))
        for task in Path(f"/proc/{p}/task").glob("*"):
            tf = _stat_fields(task / "stat")
            if tf is None:
                continue
            vcs = ncs = 0
            try:
                for line in (task / "status").read_text().splitlines():
                    if line.startswith("voluntary_ctxt_switches"):
                        vcs = int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches"):
                        ncs = int(line.split()[1])
            except OSError:
                pass
            out[(int(p), int(task.name))] = (pname, _comm(task / "comm"), int(tf[11]), int(tf[12]), vcs, ncs)
    return out


def delta(a: dict, b: dict) -> dict[str, dict[str, float]]:
    """Per process name and per 'process/thread' name: user, system ticks and voluntary / involuntary context
    switches between two :func:`snapshot` calls (threads that ended in between are lost: none do during a run)."""
    per: dict[str, dict[str, float]] = {}
    for key, (pname, tname, u, s, v, n) in b.items():
        u0, s0, v0, n0 = a.get(key, (pname, tname, 0, 0, 0, 0))[2:]
        for name in (f"P {pname}", f"T {pname}/{tname}"):
            d = per.setdefault(name, {"user": 0.0, "sys": 0.0, "vcs": 0.0, "ics": 0.0})
            d["user"] += u - u0
            d["sys"] += s - s0
            d["vcs"] += v - v0
            d["ics"] += n - n0
    return per


def _sysbench(port: int) -> list[str]:
    exe = shutil.which("sysbench")
    if exe is None:
        raise SystemExit("sysbench is not installed")
    return [
        exe,
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        f"--mysql-port={port}",
        "--mysql-user=root",
        "--mysql-password=",
        "--tables=1",
        "--table-size=10000",
    ]


def start(label: str, opts: list[str], src: str, tmp: Path) -> tuple[subprocess.Popen, int]:
    """A server with options ``opts`` on a fresh datadir under ``tmp``, sbtest prepared; returns (process, port)."""
    import pymysql

    port = _free_port()
    env = dict(os.environ, PYTHONPATH=src)
    d = tmp / label.replace(" ", "_")
    d.mkdir()
    log = open(d / "server.log", "w")  # noqa: SIM115 - kept open for the server's life
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gtidkit",
            "server",
            f"--datadir={d / 'data'}",
            f"--port={port}",
            "--bind-address=127.0.0.1",
            "--log-bin",
            "--gtid-mode=ON",
            "--enforce-gtid-consistency=ON",
            *opts,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    for _ in range(480):
        try:
            pymysql.connect(host="127.0.0.1", port=port, user="root", password="").close()
            break
        except pymysql.err.OperationalError:
            time.sleep(0.25)
    c = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
    c.cursor().execute("CREATE DATABASE sbtest")
    c.close()
    sb = _sysbench(port)
    subprocess.run([sb[0], "oltp_read_write", *sb[1:], "prepare"], capture_output=True, check=True)
    return proc, port


def run(port: int, pgid: int, test: str, threads: int, seconds: int) -> dict[str, object]:
    """One sysbench run with 1-second reports; the thread snapshots are taken when the 2nd report and the
    second-to-last report are printed (every connection thread alive in between), the transactions in that
    window are the sum of the reports' TPS in it. Returns TPS, transactions, and the per-process/thread deltas."""
    sb = _sysbench(port)
    p = subprocess.Popen(
        [sb[0], test, *sb[1:], f"--threads={threads}", f"--time={seconds}", "--report-interval=1", "run"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert p.stdout is not None
    s0 = s1 = None
    trx = counted = 0.0
    first, last, at = 2, seconds - 1, 0
    for line in p.stdout:
        m = re.match(r"\[ *(\d+)s \] thds: \d+ tps: ([\d.]+)", line.strip())
        if not m:
            continue
        sec, tps = int(m.group(1)), float(m.group(2))
        if s0 is None and sec >= first:
            s0, at = snapshot(pgid), sec
        elif s0 is not None and sec <= last:
            trx += tps * (sec - at)  # a report may cover more than 1 s on a loaded machine
            counted += sec - at
            at = sec
            s1 = snapshot(pgid)
    p.wait()
    assert s0 is not None and s1 is not None, "sysbench printed too few reports"
    return {"tps": trx / max(counted, 1.0), "trx": trx, "per": delta(s0, s1), "load": os.getloadavg()[0]}


def opcodes(
    label: str, opts: list[str], src: str, test: str, n: int, tmp: Path, threads: int = 1
) -> dict[str, float]:
    """Python bytecodes per transaction (per ``file:line:function``) that the server with options ``opts`` runs
    for ``n`` sysbench ``test`` transactions on ``threads`` connections, after two warm-up runs (round-robin
    placement: each worker of a 2-worker server prepares the statements once first), counted by
    bench/opcode_probe. With several threads the count includes what concurrency adds (lock waits, catch-ups)."""
    import glob

    probe = tmp / f"{label.replace(' ', '_')}.probe"
    probe.mkdir()
    os.environ["GK_OPC_DIR"] = str(probe)
    try:
        proc, port = start(label, opts, f"{HERE / 'opcode_probe'}:{src}", tmp)
    finally:
        del os.environ["GK_OPC_DIR"]
    sb = _sysbench(port)
    try:
        for _ in range(2):
            subprocess.run(
                [sb[0], test, *sb[1:], "--events=100", "--time=0", f"--threads={threads}", "run"],
                capture_output=True,
                check=True,
            )
        (probe / "start").touch()
        time.sleep(0.5)
        subprocess.run(
            [sb[0], test, *sb[1:], f"--events={n}", "--time=0", f"--threads={threads}", "run"],
            capture_output=True,
            check=True,
        )
        (probe / "dump").touch()
        for _ in range(3):  # the first traced call after `dump` writes the counts: reach every worker
            subprocess.run(
                [sb[0], test, *sb[1:], "--events=5", "--time=0", "run"], capture_output=True, check=False
            )
        time.sleep(2)
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(60)
    total: dict[str, float] = {}
    for f in glob.glob(str(probe / "opc.*.json")):
        for k, v in json.loads(Path(f).read_text()).items():
            total[k] = total.get(k, 0.0) + v / n
    return total


def main() -> None:
    """Run the configurations interleaved and print the per-process / per-thread CPU per transaction."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--config",
        action="append",
        default=[],
        help="label=options (space separated)[|src dir of another tree]",
    )
    ap.add_argument("--test", default="oltp_read_write")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--idle", type=float, default=5.0, help="seconds of idle CPU measured before the runs")
    ap.add_argument("--src", default=str(HERE.parent / "src"))
    ap.add_argument("--json", help="write the raw results here")
    ap.add_argument(
        "--opcodes", type=int, default=0, help="count Python bytecodes per transaction over this many instead"
    )
    args = ap.parse_args()
    configs: list[tuple[str, list[str], str]] = []
    for c in args.config:
        label, rest = c.split("=", 1)
        opts, _, src = rest.partition("|")
        configs.append((label, opts.split(), src or args.src))
    configs = configs or [("1 worker", ["--workers=1"], args.src), ("2 workers", ["--workers=2"], args.src)]
    tmp = Path(tempfile.mkdtemp(prefix="mwcost"))
    if args.opcodes:
        counts = {
            label: opcodes(label, opts, src, args.test, args.opcodes, tmp, args.threads)
            for label, opts, src in configs
        }
        shutil.rmtree(tmp, ignore_errors=True)
        first = configs[0][0]
        for label, c in counts.items():
            print(f"{label}: {sum(c.values()):.0f} bytecodes per transaction")
        for label, c in list(counts.items())[1:]:
            a = counts[first]
            rows = sorted(((c.get(f, 0) - a.get(f, 0), f) for f in set(a) | set(c)), key=lambda r: -abs(r[0]))
            print(f"\n{label} - {first}: {sum(c.values()) - sum(a.values()):+.0f}; largest differences:")
            for d, f in rows[:30]:
                print(f"  {a.get(f, 0):9.1f} {c.get(f, 0):9.1f} {d:+9.1f}  {f}")
        if args.json:
            Path(args.json).write_text(json.dumps(counts))
        return
    servers: dict[str, tuple[subprocess.Popen, int]] = {}
    results: dict[str, list[dict[str, object]]] = {label: [] for label, _, _ in configs}
    idle: dict[str, dict[str, dict[str, float]]] = {}
    print(f"uptime: {os.getloadavg()}")
    try:
        for label, opts, src in configs:
            servers[label] = start(label, opts, src, tmp)
        time.sleep(1.0)
        for label, (proc, _port) in servers.items():
            a = snapshot(proc.pid)
            time.sleep(args.idle)
            idle[label] = delta(a, snapshot(proc.pid))
        for rnd in range(args.rounds):
            order = list(servers.items())
            order = order[rnd % len(order) :] + order[: rnd % len(order)]
            for label, (proc, port) in order:
                res = run(port, proc.pid, args.test, args.threads, args.seconds)
                results[label].append(res)
                total = sum(v["user"] + v["sys"] for k, v in res["per"].items() if k.startswith("P "))  # type: ignore[union-attr]
                print(
                    f"round {rnd} {label}: tps {res['tps']:.0f} cpu/trx "
                    f"{total / TICK / max(float(res['trx']), 1.0) * 1e6:.0f} µs load {res['load']:.2f}",
                    flush=True,
                )
    finally:
        for proc, _port in servers.values():
            try:
                os.killpg(proc.pid, 15)
            except ProcessLookupError:
                pass
            proc.wait(60)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"uptime: {os.getloadavg()}")
    for label, rs in results.items():
        print(f"\n== {label}: tps {[round(float(r['tps'])) for r in rs]}")
        idle_s = {k: (v["user"] + v["sys"]) / TICK / args.idle * 1e3 for k, v in idle[label].items()}
        names = sorted({k for r in rs for k in r["per"]})  # type: ignore[union-attr]
        for name in names:
            vals = []
            for r in rs:
                v = r["per"].get(name, {"user": 0, "sys": 0, "vcs": 0, "ics": 0})  # type: ignore[union-attr]
                n = max(float(r["trx"]), 1.0)
                vals.append(
                    ((v["user"]) / TICK / n * 1e6, v["sys"] / TICK / n * 1e6, v["vcs"] / n, v["ics"] / n)
                )
            tot = statistics.median(u + s for u, s, _, _ in vals)
            if tot < 1 and not name.startswith("P "):
                continue
            print(
                f"  {name:45s} µs/trx {tot:7.0f} (user {statistics.median(u for u, _, _, _ in vals):6.0f}"
                f" sys {statistics.median(s for _, s, _, _ in vals):6.0f}) vcs/trx "
                f"{statistics.median(c for _, _, c, _ in vals):6.1f} ics/trx "
                f"{statistics.median(c for _, _, _, c in vals):6.1f}  idle ms/s {idle_s.get(name, 0.0):6.1f}"
            )
        tot_all = [
            sum(v["user"] + v["sys"] for k, v in r["per"].items() if k.startswith("P "))
            / TICK
            / float(r["trx"])
            * 1e6  # type: ignore[union-attr]
            for r in rs
        ]
        print(f"  TOTAL µs/trx median {statistics.median(tot_all):.0f} {[round(x) for x in tot_all]}")
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "idle": idle}, default=str))


if __name__ == "__main__":
    main()
