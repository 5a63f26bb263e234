"""GTID ownership under contention across the workers of `gtidkit server --workers=2` (issue 21 step 6).

Four sessions, two per worker, each replay the same N GTIDs (``SET GTID_NEXT='uuid:g'``; ``INSERT``; ``SET
GTID_NEXT=AUTOMATIC``), as several mysqlbinlog replays of one binary log would. MySQL runs each GTID's transaction
once and skips it in every other session; the script prints the GTIDs whose row was inserted more than once (must
be none), the errors, and the row count (must be N).

Usage: PYTHONPATH=src .venv/bin/python bench/stress_gtid_ownership.py [--n 300] [--log-bin | --skip-log-bin] ...
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path

import pymysql

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.protocol.server_proc import running_server

SOURCE = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
GTIDS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")


def _q(conn: pymysql.connections.Connection, sql: str) -> tuple:
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def run(log_bin: str, n: int) -> int:
    """One server, one replay race; returns the number of GTIDs run more than once."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        running_server(Path(tmp) / "d", *GTIDS, log_bin, "--workers=2", base=(), supervised=True) as srv,
    ):
        conns = [
            pymysql.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True) for _ in range(4)
        ]
        assert [_q(c, "SELECT @@gtidkit_worker_id")[0][0] for c in conns] == [0, 1, 0, 1]
        _q(conns[0], "CREATE DATABASE app")
        _q(conns[0], "CREATE TABLE app.log (id INT AUTO_INCREMENT PRIMARY KEY, g INT, who INT)")
        errors: list[str] = []

        def replay(i: int) -> None:
            try:
                for g in range(1, n + 1):
                    _q(conns[i], f"SET GTID_NEXT = '{SOURCE}:{g}'")
                    _q(conns[i], f"INSERT INTO app.log (g, who) VALUES ({g}, {i})")
                    _q(conns[i], "SET GTID_NEXT = AUTOMATIC")
            except pymysql.MySQLError as err:
                errors.append(repr(err))

        threads = [threading.Thread(target=replay, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        twice = _q(conns[1], "SELECT g FROM app.log GROUP BY g HAVING COUNT(*) > 1")
        count = _q(conns[1], "SELECT COUNT(*) FROM app.log")[0][0]
        print(f"{log_bin}: {n} GTIDs, rows {count}, run twice {[r[0] for r in twice]}, errors {errors}")
        return len(twice)


def main() -> None:
    """Run each requested variant once; exit 1 when a GTID ran twice."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("variants", nargs="*", default=["--log-bin", "--skip-log-bin"])
    args = ap.parse_args()
    bad = sum(run(v, args.n) for v in args.variants)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
