"""Point-in-time recovery by GTID, end to end (issue 22 section 4), as RM8.4 "Point-in-Time (Incremental) Recovery"
and "Using mysqlbinlog to Back Up Binary Log Files" tell a DBA to do it:

1. a source with gtid_mode=ON written to by two concurrent clients; a backup = a copy of its stopped datadir, with
   its GTID_EXECUTED recorded;
2. more writes (across a binlog rotation), then a bad ``DROP TABLE``;
3. the backup restored on a fresh server (new server_uuid, ``RESET BINARY LOGS AND GTIDS``, ``SET GLOBAL
   gtid_purged`` = the backup's set);
4. the source's binlogs replayed with ``gtidkit binlog show --exclude-gtids=<backup set> --stop-datetime=<time of
   the DROP>`` (or ``--exclude-gtids`` of the backup set and the bad GTID) piped into the real ``mariadb`` client;
5. every table equals the source's just before the DROP (plus, for the exclude-the-bad-GTID variant, what came
   after it), and GTID_EXECUTED equals the source's minus the bad GTID.

The third variant replays from a ``--raw --stop-never`` copy of the binlogs taken while the source ran, after the
source's own binlogs were purged. Nothing here reads gtidkit's expectations from gtidkit: the truth is the source
server's tables and GTID_EXECUTED as a client sees them.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pymysql
import pytest

from gtidkit.binlog.file import read_transactions
from gtidkit.gtid import GtidSet
from tests.protocol.prefork import popen_gtidkit, run_gtidkit
from tests.protocol.server_proc import free_port, initialize, running_server

SOURCE = ("--log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")
TABLES = ("shop.orders", "shop.customers", "shop.audit")


def _free_port() -> int:
    return free_port()  # the restart finds the same port: one from below the ephemeral range


def _sql(port: int, *stmts: str) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
    out: list[tuple] = []
    try:
        with conn.cursor() as cur:
            for st in stmts:
                cur.execute(st)
                out = list(cur.fetchall())
    finally:
        conn.close()
    return out


def _snapshot(port: int) -> dict[str, list[tuple]]:
    """Every row of every workload table that exists, sorted (what the comparison is made on)."""
    have = {f"shop.{r[0]}" for r in _sql(port, "SHOW TABLES FROM shop")}
    return {t: sorted(map(repr, _sql(port, f"SELECT * FROM {t}"))) for t in TABLES if t in have}  # type: ignore[misc]


def _executed(port: int) -> GtidSet:
    return GtidSet.parse(_sql(port, "SELECT @@GLOBAL.gtid_executed")[0][0])


def _writer(port: int, worker: int, n: int) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
    try:
        with conn.cursor() as cur:
            for i in range(n):
                cur.execute(
                    "INSERT INTO shop.orders (customer, item, qty, price) VALUES (%s, %s, %s, %s)",
                    (worker, f"item-{worker}-{i}", i % 7 + 1, f"{i}.{worker}5"),
                )
                if i % 5 == 4:
                    cur.execute("BEGIN")
                    cur.execute("UPDATE shop.customers SET visits = visits + 1 WHERE id = %s", (worker,))
                    cur.execute("INSERT INTO shop.audit VALUES (%s, %s)", (worker, f"batch {i}"))
                    cur.execute("COMMIT")
    finally:
        conn.close()


def _load(port: int, n: int) -> None:
    """Two clients writing at once (the source "under load")."""
    threads = [threading.Thread(target=_writer, args=(port, w, n)) for w in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _replay(binlogs: list[Path], port: int, *options: str) -> None:
    """``gtidkit binlog show OPTIONS BINLOGS | mariadb`` (no --force: any error fails the test)."""
    mariadb = shutil.which("mariadb")
    if mariadb is None:
        pytest.skip("mariadb client not installed (.ci/run installs mariadb-client)")
    show = run_gtidkit(
        ["binlog", "show", *options, *map(str, binlogs)],
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert show.returncode == 0, show.stderr.decode()
    r = subprocess.run(
        [mariadb, "-h127.0.0.1", f"-P{port}", "-uroot"],
        input=show.stdout,
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0, r.stderr.decode()


@pytest.mark.parametrize("variant", ["stop-datetime", "exclude-bad-gtid", "raw-copy-after-purge"])
def test_point_in_time_recovery(tmp_path: Path, variant: str) -> None:
    port = _free_port()
    src_dir, backup_dir, restore_dir, copy_dir = (tmp_path / n for n in ("src", "backup", "restore", "copy"))
    args = (*SOURCE, f"--port={port}")
    # 1. the source under load, then the backup: a copy of its stopped datadir and its GTID_EXECUTED
    with running_server(src_dir, *args) as src:
        _sql(
            port,
            "CREATE DATABASE shop",
            "CREATE TABLE shop.orders (id INT AUTO_INCREMENT PRIMARY KEY, customer INT, item VARCHAR(40), qty INT, "
            "price DECIMAL(8,2), note JSON)",
            "CREATE TABLE shop.customers (id INT PRIMARY KEY, name VARCHAR(40), visits INT NOT NULL DEFAULT 0)",
            "CREATE TABLE shop.audit (who INT, what TEXT)",  # no primary key: rows found by full image
            "INSERT INTO shop.customers (id, name) VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Cy')",
        )
        _load(port, 10)
        backup_set = _executed(port)
        src.stop()
    shutil.copytree(src_dir, backup_dir)
    copier = None
    with running_server(src_dir, *args, init=False) as src:
        if variant == "raw-copy-after-purge":
            first = _sql(port, "SHOW BINARY LOGS")[0][0]
            copier = popen_gtidkit(
                [
                    "binlog", "show",
                    "--read-from-remote-source=BINLOG-DUMP-GTIDS", "-h127.0.0.1", f"-P{port}", "-uroot",
                    "--raw", "--stop-never", "-r", f"{copy_dir}/", first,
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
        # 2. more writes, a rotation, then the bad DROP TABLE
        _load(port, 10)
        _sql(
            port,
            "UPDATE shop.orders SET note = JSON_OBJECT('gift', TRUE) WHERE qty > 5",
            "DELETE FROM shop.audit WHERE what = 'batch 4'",
            "FLUSH BINARY LOGS",
            "INSERT INTO shop.orders (customer, item, qty, price) VALUES (3, 'last good', 1, 9.99)",
        )
        before_bad = _snapshot(port)
        time.sleep(1.2)  # the DROP's events get a later second than every good event
        bad_time = _sql(port, "SELECT DATE_FORMAT(NOW(), '%Y-%m-%d %H:%i:%s')")[0][0]
        executed_before_bad = _executed(port)
        _sql(port, "DROP TABLE shop.orders")
        bad = _executed(port) - executed_before_bad
        assert bad.count() == 1
        expected = before_bad
        if variant == "exclude-bad-gtid":  # good writes after the bad one are replayed too
            _sql(
                port,
                "INSERT INTO shop.customers (id, name) VALUES (4, 'Di')",
                "UPDATE shop.audit SET who = 9",
            )
            expected = {**_snapshot(port), "shop.orders": before_bad["shop.orders"]}
        final = _executed(port)
        if copier is not None:  # wait for the copy to hold every transaction, then purge the source's binlogs

            def copied() -> GtidSet:
                out = GtidSet()
                for p in sorted(copy_dir.iterdir()) if copy_dir.exists() else []:
                    for t in read_transactions(p).transactions:
                        if t.gtid is not None:
                            out = out.add(t.gtid)
                return out

            deadline = time.monotonic() + 60
            while not (final - backup_set).issubset(copied()):
                assert time.monotonic() < deadline, "the --stop-never copy did not catch up"
                time.sleep(0.3)
            _sql(port, "FLUSH BINARY LOGS")
            newest = _sql(port, "SHOW BINARY LOGS")[-1][0]
            _sql(port, f"PURGE BINARY LOGS TO '{newest}'")
        src.stop()
    if copier is not None:
        copier.send_signal(signal.SIGTERM)
        copier.wait(30)
        binlogs = sorted(copy_dir.iterdir())
        assert all(not (src_dir / p.name).exists() for p in binlogs[:-1]), (
            "the source's binlogs were not purged"
        )
    else:
        binlogs = sorted(p for p in src_dir.iterdir() if p.name.startswith("binlog.0"))
    assert len(binlogs) >= 2
    # 3. restore the backup on a fresh server: its own server_uuid, no binlogs, gtid_purged = the backup's set
    shutil.copytree(backup_dir, restore_dir)
    (restore_dir / "auto.cnf").unlink()
    with running_server(restore_dir, *SOURCE[:3], "--server-id=2", init=False) as dst:
        _sql(dst.port, "RESET BINARY LOGS AND GTIDS", f"SET GLOBAL gtid_purged = '{backup_set}'")
        assert _executed(dst.port) == backup_set
        # 4. replay the binlogs past the backup, stopping before the bad transaction
        if variant == "exclude-bad-gtid":
            _replay(binlogs, dst.port, f"--exclude-gtids={backup_set | bad}")
        else:
            _replay(binlogs, dst.port, f"--exclude-gtids={backup_set}", f"--stop-datetime={bad_time}")
        # 5. the tables as they were just before the DROP; every GTID of the source but the bad one
        assert _snapshot(dst.port) == expected
        assert _executed(dst.port) == final - bad
        assert _sql(dst.port, "SELECT @@server_uuid")[0][0] not in str(final)


# ------------------------------------------------------------------------------------------------ cross-check
#: Real MySQL binlogs (../shared/research/fixtures/binlogs, INDEX.md) that create their own tables.
REAL_BINLOGS = [
    pytest.param(("blackbeam__rust_mysql_common/mysql-enum-string-set.000001",), id="8.0.28-enum-set"),
    pytest.param(("blackbeam__rust_mysql_common/binlog-invisible-columns.000001",), id="8.0.26-invisible"),
    pytest.param(("blackbeam__rust_mysql_common/mysql_type_bit.000001",), id="8.0.26-bit"),
    pytest.param(
        (
            "percona__percona-server-mysql-operator/binlog.000002",
            "percona__percona-server-mysql-operator/binlog.000003",
        ),
        id="8.4.10-two-files",
    ),
]


def _engine_rows(datadir: Path, skip: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """Every table's rows (sorted reprs) but ``skip`` (db.table) and the schemas MySQL's own tables live in
    (their ``mysql`` tables count: the fixtures write their test tables into ``mysql``), and GTID_EXECUTED."""
    from gtidkit.engine import Server

    out: dict[str, list[str]] = {}
    with Server.open(datadir, log_bin=False) as srv, srv.session() as s:
        for (db,) in s.execute("SHOW DATABASES")[-1].rows:
            if db in ("information_schema", "performance_schema", "sys"):
                continue
            for (t,) in s.execute(f"SHOW TABLES FROM `{db}`")[-1].rows:
                if f"{db}.{t}" not in skip and not (
                    db == "mysql" and t.startswith("slave_")
                ):  # replica metadata
                    out[f"{db}.{t}"] = sorted(map(repr, s.execute(f"SELECT * FROM `{db}`.`{t}`")[-1].rows))
        out["@@gtid_executed"] = [str(srv.gtid_state.executed())]
    return out


@pytest.mark.parametrize("names", REAL_BINLOGS)
def test_real_binlogs_replayed_equal_replica_apply(
    tmp_path: Path, binlog_fixtures: Path, names: tuple[str, ...]
) -> None:
    """The same real MySQL binlogs (A) applied by gtidkit's replica applier and (B) printed by ``gtidkit binlog
    show`` and piped into ``mariadb`` against a gtidkit server: equal tables and GTID_EXECUTED. Both datadirs are
    initialized alike; the script is replayed with ``--force`` and its errors must be exactly A's (none today)."""
    from gtidkit.engine import Server
    from gtidkit.engine.apply import read_transactions as applier_transactions
    from gtidkit.errors import MySQLError

    mariadb = shutil.which("mariadb")
    if mariadb is None:
        pytest.skip("mariadb client not installed (.ci/run installs mariadb-client)")
    paths = [binlog_fixtures / n for n in names]
    a_codes: list[int] = []
    initialize(tmp_path / "a")  # the same accounts as B's (the fixtures ALTER USER root@localhost)
    system = frozenset(k for k in _engine_rows(tmp_path / "a") if k.startswith("mysql."))
    with Server.open(tmp_path / "a", log_bin=False) as a, a.applier_session() as ap:
        for p in paths:
            for trx in applier_transactions(p):
                try:
                    ap.apply(trx)
                except MySQLError as err:
                    a_codes.append(err.code)
    script = run_gtidkit(
        ["binlog", "show", *map(str, paths)],
        capture_output=True,
        timeout=120,
        check=True,
    ).stdout
    with running_server(
        tmp_path / "b", "--skip-log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON"
    ) as b:
        r = subprocess.run(
            [mariadb, "--force", "-h127.0.0.1", f"-P{b.port}", "-uroot"],
            input=script,
            capture_output=True,
            timeout=120,
            check=False,
        )
    b_codes = [int(line.split()[1]) for line in r.stderr.decode().splitlines() if line.startswith("ERROR ")]
    assert sorted(b_codes) == sorted(a_codes), r.stderr.decode()
    rows_a, rows_b = _engine_rows(tmp_path / "a", system), _engine_rows(tmp_path / "b", system)
    assert any(not k.startswith("@@") for k in rows_a), "no table created"  # enum-set ends empty: ins/upd/del
    assert rows_b == rows_a
