"""Eight sessions commit at once: gtid_executed, mysql.gtid_executed and the binlog must agree."""

from __future__ import annotations

import threading

import pytest

from gtidkit.binlog.file import read_transactions
from gtidkit.gtid import GtidSet

THREADS = 8
PER_THREAD = 25


@pytest.mark.parametrize("binlog_format", ["ROW", "STATEMENT"])
def test_eight_threads_binlog_on(open_server, binlog_format):
    srv = open_server(gtid_mode="ON", log_bin=True, binlog_format=binlog_format, max_binlog_size=4096)
    setup = srv.session()
    setup.execute("CREATE DATABASE c; CREATE TABLE c.t (id INT PRIMARY KEY, th INT, n INT)")
    committed: list[str] = []
    lock = threading.Lock()
    srv.add_commit_observer(lambda s, g: (lock.acquire(), committed.append(str(g)), lock.release()))
    errors: list[BaseException] = []

    def worker(th: int) -> None:
        try:
            s = srv.session()
            for n in range(PER_THREAD):
                if n % 2:
                    s.execute(f"INSERT INTO c.t VALUES ({th * 1000 + n}, {th}, {n})")
                else:
                    s.execute("BEGIN")
                    s.execute(f"INSERT INTO c.t VALUES ({th * 1000 + n}, {th}, {n})")
                    s.execute(f"UPDATE c.t SET n = n + 1 WHERE id = {th * 1000 + n}")
                    s.execute("COMMIT")
            s.close()
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    total = THREADS * PER_THREAD
    assert setup.execute("SELECT COUNT(*) FROM c.t")[-1].rows == [(total,)]
    executed = srv.gtid_state.executed()
    u = srv.server_uuid
    assert str(executed) == f"{u}:1-{total + 2}"
    # the binlog holds every GTID exactly once, in a logical clock that restarts per file
    gtids = []
    for name in srv.binlog.existing_files():
        for i, tx in enumerate(read_transactions(srv.binlog.path(name)).transactions):
            gtids.append(tx.gtid)
    assert len(gtids) == len(set(gtids)) == total + 2
    assert GtidSet.from_gtids(gtids) == executed
    # the table, after rotations and a FLUSH, equals gtid_executed
    setup.execute("FLUSH LOGS")
    srv.compressor.wait_idle()
    table = setup.execute("SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed")[
        -1
    ].rows
    assert GtidSet.from_intervals((r[0], "", r[1], r[2]) for r in table) == executed
    assert len(set(committed)) == total  # the observer was added after the two setup DDLs


def test_eight_threads_binlog_off_explicit(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False, gtid_executed_compression_period=10)
    setup = srv.session()
    src = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    setup.execute(f"SET gtid_next='{src}:1'")
    setup.execute("CREATE DATABASE c")
    setup.execute(f"SET gtid_next='{src}:2'")
    setup.execute("CREATE TABLE c.t (id INT PRIMARY KEY)")
    setup.execute("SET gtid_next=AUTOMATIC")
    errors: list[BaseException] = []

    def worker(th: int) -> None:
        try:
            s = srv.session()
            for n in range(PER_THREAD):
                gno = 3 + th * PER_THREAD + n
                s.execute(f"SET gtid_next='{src}:{gno}'")
                s.execute(f"INSERT INTO c.t VALUES ({gno})")
            s.close()
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    last = 2 + THREADS * PER_THREAD
    assert str(srv.gtid_state.executed()) == f"{src}:1-{last}"
    srv.compressor.wait_idle()
    srv.compressor.compress()
    assert setup.execute("SELECT interval_start, interval_end FROM mysql.gtid_executed")[-1].rows == [
        (1, last)
    ]
