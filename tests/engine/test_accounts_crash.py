"""Accounts survive a SIGKILL like any committed transaction (issue 17 section 2, test_crash.py's method).

A real process creates accounts in a loop and is SIGKILLed at a random moment; after an in-process restart
(recovery) every acknowledged account exists with its password, at most the one in flight was added unacknowledged,
each account took exactly one GTID (in mysql.gtid_executed with the binlog off), and with the binlog on each has
exactly one CREATE USER event.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import accounts_crash_driver as driver
from protocol.prefork import popen_python

from gtidkit.engine import Server
from gtidkit.engine.accounts.passwords import NATIVE, check_password
from gtidkit.engine.gtid.table import read_set

TRIALS = 2


def _trial(datadir: Path, mode: str, rng: random.Random) -> set[int]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HERE.parents[1] / "src") + os.pathsep + env.get("PYTHONPATH", "")
    proc = popen_python(
        [HERE / "accounts_crash_driver.py", str(datadir), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        bufsize=0,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.strip() == b"READY", (first, proc.stderr.read() if proc.stderr else b"")
        time.sleep(rng.uniform(0.1, 0.6))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return {int(line.split()[1]) for line in out.decode().splitlines() if line.startswith("ACK ")}


@pytest.mark.parametrize("mode", sorted(driver.MODES))
def test_sigkill_keeps_acknowledged_accounts(tmp_path: Path, mode: str) -> None:
    rng = random.Random(f"accounts-{mode}")
    datadir = tmp_path / mode
    acked: set[int] = set()
    for trial in range(1, TRIALS + 1):
        acked |= _trial(datadir, mode, rng)
        srv = Server.open(datadir, **driver.MODES[mode])
        try:
            present = {int(a.user[1:]) for a in srv.accounts.accounts()}
            assert acked <= present, sorted(acked - present)[:5]
            assert len(present - acked) <= trial  # one in flight per killed run at most
            for k in sorted(present)[:: max(1, len(present) // 5)]:
                acc = srv.accounts.get(f"u{k}", "%")
                assert acc is not None and check_password(NATIVE, acc.authentication_string, f"p{k}")
            executed = srv.gtid_state.executed()
            assert executed.count() == len(present)
            table = srv.gtid_table
            assert srv.read_txn(lambda db, table=table: read_set(db, table)) == executed
            if srv.binlog is not None:
                s = srv.session()
                creates = [
                    r
                    for f in srv.binlog.existing_files()
                    for r in s.execute(f"SHOW BINLOG EVENTS IN '{f}'")[-1].rows
                    if r[2] == "Query" and str(r[5]).startswith("CREATE USER")
                ]
                assert len(creates) == len(present)
        finally:
            srv.shutdown()
    assert acked, "the driver never acknowledged an account"
