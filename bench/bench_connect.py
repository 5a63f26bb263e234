"""The server's CPU per new client connection (h-conn): PyMySQL connect + ``SELECT 1`` + close in a loop.

Starts one server per configuration at once (fresh datadirs, ``--log-bin --gtid-mode=ON
--enforce-gtid-consistency=ON`` plus the configuration's options, 127.0.0.1, free ports), then for ``--rounds``
rounds runs ``--connects`` connections one after the other against each server in turn (the order rotating), reading
the utime + stime ticks of every thread of every process of the server's process group around each batch
(bench_mw_cost.snapshot). Reports server CPU µs per connection (median of the rounds) per configuration and per
process: load-independent, unlike connections per second. MySQL 8.0's own figure is ~100-300 µs.

Usage: PYTHONPATH=src .venv/bin/python bench/bench_connect.py [--config 'label=--workers=1[|/other/src]' ...]
           [--connects 200] [--rounds 3] [--no-tls]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_mw_cost import _comm, _free_port, _stat_fields

TICK = os.sysconf("SC_CLK_TCK")


def process_ticks(pgid: int) -> dict[int, tuple[str, int]]:
    """pid -> (process name, utime + stime ticks) of every live process of process group ``pgid``: the process
    figure, which keeps the CPU of its threads that ended (a session thread ends with its connection)."""
    out: dict[int, tuple[str, int]] = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        f = _stat_fields(Path(f"/proc/{p}/stat"))
        if f is None or int(f[2]) != pgid:
            continue
        out[int(p)] = (_comm(Path(f"/proc/{p}/comm")), int(f[11]) + int(f[12]))
    return out


def start(label: str, opts: list[str], src: str, tmp: Path) -> tuple[subprocess.Popen, int]:
    """A server with options ``opts`` (code from ``src``) on a fresh datadir under ``tmp``; returns (process,
    port) once it accepts connections."""
    import pymysql

    port = _free_port()
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
        env=dict(os.environ, PYTHONPATH=src),
        start_new_session=True,
    )
    for _ in range(480):
        try:
            pymysql.connect(host="127.0.0.1", port=port, user="root", password="").close()
            return proc, port
        except pymysql.err.OperationalError:
            time.sleep(0.25)
    raise SystemExit(f"{label}: server did not start")


def connects(port: int, n: int, tls: bool = True) -> None:
    """``n`` connections one after the other: connect (TLS as PyMySQL does by default, or plain), ``SELECT 1``,
    close."""
    import pymysql

    for _ in range(n):
        c = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", ssl_disabled=not tls)
        cur = c.cursor()
        cur.execute("SELECT 1")
        cur.fetchall()
        c.close()


def main() -> None:
    """Run the configurations interleaved; print server CPU µs per connection."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", action="append", default=[])
    ap.add_argument("--connects", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-tls", action="store_true", help="plain connections (PyMySQL ssl_disabled=True)")
    args = ap.parse_args()
    src = os.environ.get("PYTHONPATH", str(HERE.parent / "src"))
    configs: list[tuple[str, list[str], str]] = []
    for spec in args.config or ["w1=--workers=1", "w2=--workers=2"]:
        label, _, rest = spec.partition("=")
        opts, _, csrc = rest.partition("|")
        configs.append((label, opts.split(), csrc or src))
    results: dict[str, list[float]] = {c[0]: [] for c in configs}
    per_proc: dict[str, dict[str, list[float]]] = {c[0]: {} for c in configs}
    with tempfile.TemporaryDirectory() as t:
        servers = {label: start(label, opts, s, Path(t)) for label, opts, s in configs}
        try:
            for label, (_proc, port) in servers.items():
                connects(port, 20)  # warm-up
            for r in range(args.rounds):
                order = list(servers.items())
                order = order[r % len(order) :] + order[: r % len(order)]
                for label, (proc, port) in order:
                    a = process_ticks(proc.pid)
                    connects(port, args.connects, tls=not args.no_tls)
                    time.sleep(0.3)  # threads finishing a closed session
                    b = process_ticks(proc.pid)
                    total = 0
                    for pid, (name, ticks) in b.items():
                        d = ticks - a.get(pid, (name, 0))[1]
                        total += d
                        per_proc[label].setdefault(name, []).append(d / TICK * 1e6 / args.connects)
                    results[label].append(total / TICK * 1e6 / args.connects)
        finally:
            for proc, _port in servers.values():
                os.killpg(proc.pid, 15)
                proc.wait(60)
    print(f"uptime: {os.getloadavg()}")
    for label, vals in results.items():
        rounds = ", ".join(f"{v:.0f}" for v in vals)
        print(f"{label}: server CPU per connection median {statistics.median(vals):.0f} us (rounds {rounds})")
        for pname, pv in sorted(per_proc[label].items()):
            print(f"    {pname}: {statistics.median(pv):.0f} us")


if __name__ == "__main__":
    main()
