"""Wire-server latency: autocommit INSERT and point SELECT with session_track_gtids OWN_GTID vs OFF (issue 8 target:
<= 5% apart), and sysbench oltp_point_select / oltp_read_write against gtidkit when sysbench is installed.

One `gtidkit server` process on a fresh datadir (binlog on, 127.0.0.1, free port); one PyMySQL connection per mode;
the two modes alternate in blocks so drift on a shared machine hits both alike. Writes its section of
bench/RESULTS.md with the command used.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pymysql
from _results import update_section
from pymysql.constants import CLIENT

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from protocol.server_proc import running_server


def _block(cur: pymysql.cursors.Cursor, kind: str, n: int, start_id: int) -> list[float]:
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        if kind == "insert":
            cur.execute(f"INSERT INTO b.t (id, v) VALUES ({start_id + i}, 'x')")
        else:
            cur.execute(f"SELECT v FROM b.t WHERE id = {1 + (start_id + i) % 1000}")
            cur.fetchall()
        out.append(time.perf_counter() - t0)
    return out


def _sysbench(port: int, test: str, threads: int, seconds: int) -> dict[str, float] | None:
    exe = shutil.which("sysbench")
    if exe is None:
        return None
    base = [
        exe,
        test,
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        f"--mysql-port={port}",
        "--mysql-user=root",
        "--mysql-password=",
        "--tables=1",
        "--table-size=10000",
    ]
    r = subprocess.run(
        [*base, f"--threads={threads}", f"--time={seconds}", "run"],
        capture_output=True,
        text=True,
        check=False,
    )
    figures: dict[str, float] = {}
    for line in r.stdout.splitlines():
        line = line.strip()
        if line.startswith("transactions:"):
            figures["tps"] = float(line.split("(")[1].split()[0])
        elif line.startswith("avg:"):
            figures["avg_ms"] = float(line.split()[1])
        elif line.startswith("95th percentile:"):
            figures["p95_ms"] = float(line.split()[2])
    return figures or None


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _mariadb_sysbench(tmp: Path, tests: list[tuple[str, int]], seconds: int) -> dict[tuple[str, int], dict]:
    """The same sysbench runs against Debian's MariaDB server on a private datadir and port (bench only)."""
    mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
    install = shutil.which("mariadb-install-db")
    if not Path(mariadbd).exists() or install is None or shutil.which("sysbench") is None:
        return {}
    datadir = tmp / "mariadb"
    subprocess.run(
        [
            install,
            "--no-defaults",
            f"--datadir={datadir}",
            "--auth-root-authentication-method=normal",
            "--user=root",
            "--skip-test-db",
        ],
        capture_output=True,
        check=True,
    )
    port = _free_port()
    proc = subprocess.Popen(
        [
            mariadbd,
            "--no-defaults",
            f"--datadir={datadir}",
            f"--port={port}",
            f"--socket={datadir}/mysqld.sock",
            "--bind-address=127.0.0.1",
            "--user=root",
            f"--log-bin={datadir}/binlog",
            "--sync-binlog=1",
            "--server-id=1",
            f"--pid-file={datadir}/mariadbd.pid",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(120):
            try:
                pymysql.connect(host="127.0.0.1", port=port, user="root", password="").close()
                break
            except pymysql.err.OperationalError:
                time.sleep(0.5)
        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
        conn.cursor().execute("CREATE DATABASE sbtest")
        conn.close()
        exe = shutil.which("sysbench")
        subprocess.run(
            [
                exe,
                "oltp_read_write",
                "--db-driver=mysql",
                "--mysql-host=127.0.0.1",  # type: ignore[list-item]
                f"--mysql-port={port}",
                "--mysql-user=root",
                "--mysql-password=",
                "--tables=1",
                "--table-size=10000",
                "prepare",
            ],
            capture_output=True,
            check=True,
        )
        return {(t, n): f for t, n in tests if (f := _sysbench(port, t, n, seconds))}
    finally:
        proc.terminate()
        proc.wait(60)


def main() -> int:
    """Run the benchmark and write bench/RESULTS.md's ``server`` section."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=300, help="statements per block")
    ap.add_argument("--blocks", type=int, default=6, help="statements per mode = n * blocks")
    ap.add_argument("--sysbench-seconds", type=int, default=20)
    ap.add_argument("--no-mariadb", action="store_true", help="skip the MariaDB comparison")
    args = ap.parse_args()
    tests = [("oltp_point_select", 1), ("oltp_point_select", 4), ("oltp_read_write", 4)]
    maria: dict[tuple[str, int], dict] = {}
    with tempfile.TemporaryDirectory() as tmp, running_server(Path(tmp) / "d", "--log-bin") as srv:
        conns = {}
        for mode in ("OFF", "OWN_GTID"):
            c = pymysql.connect(
                host="127.0.0.1",
                port=srv.port,
                user="root",
                password="",
                autocommit=True,
                client_flag=CLIENT.SESSION_TRACK,
            )
            c.cursor().execute(f"SET SESSION session_track_gtids = {mode}")
            conns[mode] = c
        cur = conns["OFF"].cursor()
        cur.execute("CREATE DATABASE b")
        cur.execute("CREATE TABLE b.t (id INT PRIMARY KEY, v VARCHAR(10))")
        cur.execute("INSERT INTO b.t (id, v) VALUES " + ",".join(f"({i}, 'v')" for i in range(1, 1001)))
        times: dict[tuple[str, str], list[float]] = {}
        next_id = 10_000
        cursors = {mode: conns[mode].cursor() for mode in conns}
        for kind in ("insert", "select"):
            for i in range(args.n * args.blocks):
                # ABBA order: neither mode always runs first (WAL checkpoints, fsync bursts hit both alike)
                order = ("OFF", "OWN_GTID") if i % 2 == 0 else ("OWN_GTID", "OFF")
                for mode in order:
                    times.setdefault((mode, kind), []).extend(_block(cursors[mode], kind, 1, next_id))
                    next_id += 1
        med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
        sb = {}
        if shutil.which("sysbench") and args.sysbench_seconds > 0:
            cur.execute("CREATE DATABASE sbtest")
            exe = shutil.which("sysbench")
            subprocess.run(
                [
                    exe,
                    "oltp_read_write",
                    "--db-driver=mysql",
                    "--mysql-host=127.0.0.1",  # type: ignore[list-item]
                    f"--mysql-port={srv.port}",
                    "--mysql-user=root",
                    "--mysql-password=",
                    "--tables=1",
                    "--table-size=10000",
                    "prepare",
                ],
                capture_output=True,
                check=True,
            )
            for test, threads in tests:
                sb[(test, threads)] = _sysbench(srv.port, test, threads, args.sysbench_seconds)
        for c in conns.values():
            c.close()
    if sb and not args.no_mariadb:
        with tempfile.TemporaryDirectory() as tmp:
            maria = _mariadb_sysbench(Path(tmp), tests, args.sysbench_seconds)
    lines = [
        (
            f"Command: `.venv/bin/python bench/bench_server.py --n {args.n} --blocks {args.blocks} "
            f"--sysbench-seconds {args.sysbench_seconds}` (one `gtidkit server --log-bin` on 127.0.0.1, PyMySQL, "
            "median latency per statement, the two modes interleaved statement by statement)"
        ),
        "",
        "| statement | session_track_gtids=OFF (µs) | OWN_GTID (µs) | OWN_GTID / OFF | target |",
        "|---|---|---|---|---|",
    ]
    for kind, label in (("insert", "autocommit INSERT"), ("select", "point SELECT")):
        off, own = med[("OFF", kind)], med[("OWN_GTID", kind)]
        lines.append(f"| {label} | {off:.0f} | {own:.0f} | {own / off:.3f} | <= 1.05 |")
    if sb:
        lines += [
            "",
            (
                "sysbench 1.0.20 (Debian), 1 table of 10000 rows, prepared statements (unmodified scripts), "
                f"{args.sysbench_seconds} s each, same machine, one after the other; MariaDB 10.11 (Debian "
                "mariadb-server, private datadir and port, binlog on with sync_binlog=1, InnoDB defaults); gtidkit "
                "with its binlog on (sync_binlog=1) and SQLite synchronous=FULL:"
            ),
            "",
            (
                "| test | threads | gtidkit TPS | gtidkit p95 ms | MariaDB TPS | MariaDB p95 ms | gtidkit / MariaDB |"
                " target |"
            ),
            "|---|---|---|---|---|---|---|---|",
        ]
        for (test, threads), fig in sb.items():
            if not fig:
                continue
            other = maria.get((test, threads))
            ratio = f"{fig['tps'] / other['tps']:.3f}" if other else "n/a"
            target = ">= 0.5" if (test, threads) in (("oltp_point_select", 1), ("oltp_read_write", 4)) else ""
            lines.append(
                f"| {test} | {threads} | {fig.get('tps', 0):.1f} | {fig.get('p95_ms', 0):.2f} | "
                f"{other['tps'] if other else 0:.1f} | {other.get('p95_ms', 0) if other else 0:.2f} | "
                f"{ratio} | {target} |"
            )
    text = "\n".join(["## Wire server (`gtidkit server`)", "", *lines, ""])
    update_section("server", text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
