"""The replication test workload and the crash-driver plumbing, shared by tests/engine and tests/replication.

One source workload (:func:`workload`: DDL, ROW and STATEMENT DML, a multi-statement transaction, a table without
a primary key, in the ``r`` database), one digest of its data (:func:`checksum`), the replica configurations the
crash drivers run (:data:`REPLICA_MODES`: binary log off, WL#6559's position + data + GTID row in one SQLite
transaction; log_replica_updates on), and :func:`run_driver`, which runs a crash driver in its own interpreter
(``READY`` first, ``DONE`` once everything is applied) and SIGKILLs it after a delay, as a mysqld can be killed.

This module sits beside the test packages so that both ``tests/engine`` and ``tests/replication`` import it (the
engine's tests never import the replication tests', as the engine never imports replication); scripts add
``tests/`` to ``sys.path``.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"

#: mode -> replica ``Server.open`` options of the crash drivers
REPLICA_MODES: dict[str, dict[str, Any]] = {
    "binlog_off": {"log_bin": False, "server_id": 2, "gtid_executed_compression_period": 5},
    "log_replica_updates": {
        "log_bin": True,
        "log_replica_updates": True,
        "server_id": 2,
        "max_binlog_size": 16384,
    },
}


def workload(s: Any, n: int = 40, start: int = 0) -> None:
    """Run ``n`` transactions on session ``s`` (numbered from ``start``; at 0 the schema is created first): DDL,
    ROW and STATEMENT DML, a multi-statement transaction, a table without a primary key."""
    if start == 0:
        s.execute("CREATE DATABASE r")
        s.execute("CREATE TABLE r.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(30), n INT)")
        s.execute("CREATE TABLE r.nopk (a INT, b VARCHAR(10))")
    for i in range(start, start + n):
        if i % 10 == 5:
            s.execute("SET SESSION binlog_format = 'STATEMENT'")
            s.execute(f"INSERT INTO r.t (v, n) VALUES ('stmt{i}', {i})")
            s.execute("SET SESSION binlog_format = 'ROW'")
        elif i % 7 == 3:
            s.execute("BEGIN")
            s.execute(f"UPDATE r.t SET n = n + 1 WHERE id % 5 = {i % 5}")
            s.execute(f"INSERT INTO r.nopk VALUES ({i}, 'x'), ({i}, 'x')")
            s.execute("COMMIT")
        elif i % 13 == 0:
            s.execute(f"DELETE FROM r.t WHERE id = {i // 2}")
        else:
            s.execute(f"INSERT INTO r.t (v, n) VALUES ('v{i}', {i}), ('w{i}', NULL)")


def checksum(server: Any) -> str:
    """sha256 over the sorted rows of the workload's tables r.t and r.nopk of an engine ``Server`` (a table that
    does not exist yet counts as empty)."""
    h = hashlib.sha256()
    with server.session() as s:
        for t in ("t", "nopk"):
            n = s.execute(
                f"SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='r' AND TABLE_NAME='{t}'"
            )[-1].rows[0][0]
            rows = s.execute(f"SELECT * FROM r.{t}")[-1].rows if n else []
            h.update(f"{t}:{sorted(map(repr, rows))}".encode())
    return h.hexdigest()


def run_driver(script: Path, args: list[str], delay: float | None) -> tuple[str, bool]:
    """Run a crash driver (``python script *args``, gtidkit from this checkout's src/) and return (its output,
    whether it printed DONE).

    The driver prints ``READY`` once it starts working, ``DONE`` once everything is applied, then waits. With
    ``delay`` it is SIGKILLed ``delay`` seconds after READY (DONE may or may not have come); with None it runs to
    DONE and is killed then.

    Raises:
        AssertionError: the driver did not start (no READY) or exited on its own before DONE.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    from protocol.prefork import popen_python  # the driver forked from an interpreter that imported gtidkit

    proc = popen_python(
        [script, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        bufsize=0,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        if first.strip() != b"READY":
            proc.kill()
            raise AssertionError(f"driver did not start: {first!r} {proc.stderr.read().decode()[-2000:]}")
        if delay is not None:
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            out, _ = proc.communicate(timeout=60)
            text = out.decode()
            return text, "DONE" in text.split()
        lines = []
        while True:
            line = proc.stdout.readline()
            if not line:
                raise AssertionError(f"driver exited: {proc.stderr.read().decode()[-2000:]}")
            lines.append(line.decode())
            if line.strip() == b"DONE":
                return "".join(lines), True
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=60)
