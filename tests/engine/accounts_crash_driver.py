"""A server process that creates accounts in a loop, for the account crash test (``test_accounts_crash.py``).

Run: ``python tests/engine/accounts_crash_driver.py DATADIR MODE``; prints ``READY``, then ``ACK <k>`` after each
``CREATE USER 'u<k>'@'%' IDENTIFIED BY 'p<k>'`` returned. The parent SIGKILLs it at a random moment. With the
binlog off a client statement gets a GTID only from an explicit ``GTID_NEXT`` (as on a replica), so that mode sets
``<SRC>:<k>`` first.
"""

from __future__ import annotations

import os
import sys
from typing import Any

SRC = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

#: mode -> Server.open options
MODES: dict[str, dict[str, Any]] = {
    "binlog_on": {"gtid_mode": "ON", "log_bin": True, "max_binlog_size": 8192},
    "binlog_off": {"gtid_mode": "ON", "log_bin": False, "gtid_executed_compression_period": 5},
}


def run(datadir: str, mode: str) -> None:
    """The child: open, create accounts forever (until killed)."""
    from gtidkit.engine import Server

    srv = Server.open(datadir, **MODES[mode])
    s = srv.session()
    k = len(srv.accounts.accounts()) + 1
    sys.stdout.write("READY\n")
    sys.stdout.flush()
    explicit = not MODES[mode]["log_bin"]
    while True:
        if explicit:
            s.execute(f"SET gtid_next = '{SRC}:{k}'")
        s.execute(f"CREATE USER 'u{k}'@'%' IDENTIFIED WITH mysql_native_password BY 'p{k}'")
        sys.stdout.write(f"ACK {k}\n")
        sys.stdout.flush()
        k += 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    run(sys.argv[1], sys.argv[2])
