"""SET GLOBAL, accounts and gtid_purged across the worker processes of `gtidkit server --workers=2` (issue 21 step 6,
docs/design/multi_worker.md §5.2, engine/shared_config.py).

MySQL is one process: a global variable, an account or ``gtid_purged`` changed by one connection is what every
other connection's next statement (or login) sees (RM8 "Using System Variables": "A change to a global variable is
visible to any client that accesses that global variable"; "When Privilege Changes Take Effect": "GRANT, REVOKE,
SET PASSWORD, or RENAME USER ... take effect immediately", a new login sees CREATE USER / ALTER USER / DROP USER).
Each test changes something in one worker and checks it in the other; connections are forced into a worker by the
supervisor's round-robin placement (the i-th accepted connection goes to worker i mod 2) and checked with
``@@gtidkit_worker_id``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest
from pymysql.constants import CLIENT

from gtidkit.gtid import GtidSet
from gtidkit.protocol.client import last_gtids
from tests.protocol.server_proc import ServerProcess, running_server

GTIDS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")
OTHER = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server of two workers with the binary log on, shared by the module's tests (each changes its own
    variables and accounts)."""
    datadir = tmp_path_factory.mktemp("workers_config") / "d"
    with running_server(datadir, *GTIDS, "--log-bin", "--workers=2", base=(), supervised=True) as server:
        yield server


def query(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """Run ``sql``; its rows."""
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def worker_of(conn: pymysql.connections.Connection) -> int:
    """The worker process serving ``conn``."""
    return int(query(conn, "SELECT @@gtidkit_worker_id")[0][0])


def next_lands_in(port: int, worker: int) -> None:
    """Make the next accepted connection land in ``worker``: root connections are opened (and closed) until one
    lands in the worker before it in the round-robin."""
    for _ in range(3):
        with root(port) as c:
            if worker_of(c) == (worker - 1) % 2:
                return
    raise AssertionError("round-robin placement not seen")


def root(port: int, worker: int | None = None) -> pymysql.connections.Connection:
    """A root connection (autocommit) in ``worker`` (any worker when None)."""
    if worker is not None:
        next_lands_in(port, worker)
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    if worker is not None:
        assert worker_of(conn) == worker
    return conn


def login(port: int, worker: int, user: str, password: str) -> pymysql.connections.Connection:
    """A connection of ``user`` that lands in ``worker`` (checked)."""
    next_lands_in(port, worker)
    conn = pymysql.connect(host="127.0.0.1", port=port, user=user, password=password, autocommit=True)
    assert worker_of(conn) == worker
    return conn


def refused_login(port: int, worker: int, user: str, password: str) -> int:
    """The error code of a login of ``user`` made in ``worker`` (the next root connection lands in the other one,
    which proves where the refused one was placed)."""
    next_lands_in(port, worker)
    with pytest.raises(pymysql.err.OperationalError) as err:
        pymysql.connect(host="127.0.0.1", port=port, user=user, password=password)
    with root(port) as c:
        assert worker_of(c) == 1 - worker
    return int(err.value.args[0])


# ---------------------------------------------------------------------------------------------- SET GLOBAL
@pytest.mark.parametrize(
    ("sql", "name", "selected", "shown"),
    [
        ("SET GLOBAL sync_binlog = 7", "sync_binlog", 7, "7"),
        ("SET GLOBAL binlog_format = 'STATEMENT'", "binlog_format", "STATEMENT", "STATEMENT"),
        ("SET GLOBAL binlog_group_commit_sync_delay = 10", "binlog_group_commit_sync_delay", 10, "10"),
        ("SET GLOBAL binlog_row_image = 'MINIMAL'", "binlog_row_image", "MINIMAL", "MINIMAL"),
        ("SET GLOBAL innodb_lock_wait_timeout = 3", "innodb_lock_wait_timeout", 3, "3"),
        ("SET GLOBAL session_track_gtids = 'OWN_GTID'", "session_track_gtids", "OWN_GTID", "OWN_GTID"),
        ("SET GLOBAL gtid_executed_compression_period = 7", "gtid_executed_compression_period", 7, "7"),
        ("SET PERSIST max_execution_time = 1234", "max_execution_time", 1234, "1234"),
        ("SET @@GLOBAL.sql_mode = 'ANSI_QUOTES'", "sql_mode", "ANSI_QUOTES", "ANSI_QUOTES"),
    ],
    ids=[
        "sync_binlog",
        "binlog_format",
        "group_commit_delay",
        "binlog_row_image",
        "lock_wait_timeout",
        "session_track_gtids",
        "compression_period",
        "persist",
        "sql_mode",
    ],
)
@pytest.mark.parametrize("setter", [0, 1], ids=["set-in-0", "set-in-1"])
def test_set_global_is_seen_by_the_other_worker(
    srv: ServerProcess, setter: int, sql: str, name: str, selected: object, shown: str
) -> None:
    """@@GLOBAL.x, SHOW GLOBAL VARIABLES and a new session's @@SESSION.x in the other worker, at its next
    statement; the setter's own worker too."""
    reader = 1 - setter
    with root(srv.port, reader) as b, root(srv.port, setter) as a:
        before = query(b, f"SELECT @@GLOBAL.{name}")[0][0]
        query(a, sql)
        try:
            assert query(b, f"SELECT @@GLOBAL.{name}") == ((selected,),)
            assert query(b, f"SHOW GLOBAL VARIABLES LIKE '{name}'") == ((name, shown),)
            if name not in (
                "sync_binlog",
                "binlog_group_commit_sync_delay",
                "gtid_executed_compression_period",
            ):
                with root(srv.port, reader) as fresh:  # a session's value starts from the global one
                    assert query(fresh, f"SELECT @@SESSION.{name}") == ((selected,),)
            assert query(a, f"SELECT @@GLOBAL.{name}") == ((selected,),)
        finally:
            value = before if isinstance(before, int) else f"'{before}'"
            query(a, f"SET GLOBAL {name} = {value}")
        assert query(b, f"SELECT @@GLOBAL.{name}") == ((before,),)


@pytest.mark.parametrize(
    ("setting", "refused", "code"),
    [
        ("read_only", "root", None),  # SUPER writes under read_only
        ("read_only", "app", 1290),
        ("super_read_only", "root", 1290),
        ("super_read_only", "app", 1290),
    ],
    ids=["read_only-root-writes", "read_only-app", "super_read_only-root", "super_read_only-app"],
)
def test_read_only_set_in_one_worker_refuses_writes_in_the_other(
    srv: ServerProcess, setting: str, refused: str, code: int | None
) -> None:
    """RM8 "read_only": clients without SUPER / CONNECTION_ADMIN get 1290 ER_OPTION_PREVENTS_STATEMENT;
    super_read_only refuses SUPER clients too (and turns read_only ON; read_only OFF turns it OFF)."""
    with root(srv.port) as r:
        query(r, "CREATE DATABASE IF NOT EXISTS ro")
        query(r, "CREATE TABLE IF NOT EXISTS ro.t (id INT AUTO_INCREMENT PRIMARY KEY)")
        query(r, "CREATE USER IF NOT EXISTS app@'%' IDENTIFIED WITH mysql_native_password BY 'app'")
        query(r, "GRANT INSERT, SELECT ON ro.* TO app@'%'")
    with root(srv.port, 0) as a:
        query(a, f"SET GLOBAL {setting} = ON")
        try:
            writer = root(srv.port, 1) if refused == "root" else login(srv.port, 1, "app", "app")
            with writer:
                assert query(writer, "SELECT @@GLOBAL.read_only, @@GLOBAL.super_read_only") == (
                    (1, int(setting == "super_read_only")),
                )
                if code is None:
                    query(writer, "INSERT INTO ro.t VALUES (NULL)")
                else:
                    with pytest.raises(pymysql.err.OperationalError) as err:
                        query(writer, "INSERT INTO ro.t VALUES (NULL)")
                    # err_readonly(): the option named is --super-read-only for a SUPER client, else --read-only
                    option = "--super-read-only" if refused == "root" else "--read-only"
                    assert err.value.args == (
                        1290,
                        f"The MySQL server is running with the {option} option so it cannot execute this statement",
                    )
                query(a, "SET GLOBAL read_only = OFF")
                assert query(writer, "SELECT @@GLOBAL.read_only, @@GLOBAL.super_read_only") == ((0, 0),)
                query(writer, "INSERT INTO ro.t VALUES (NULL)")
        finally:
            query(a, "SET GLOBAL read_only = OFF")


def test_max_binlog_size_set_in_one_worker_rotates_in_the_other(srv: ServerProcess) -> None:
    """The binary log's own copy of max_binlog_size follows in every worker: commits in worker 1 after a SET in
    worker 0 rotate at the new size (RM8 "max_binlog_size")."""
    with root(srv.port, 1) as b, root(srv.port, 0) as a:
        query(a, "CREATE DATABASE IF NOT EXISTS rot")
        query(a, "CREATE TABLE IF NOT EXISTS rot.t (id INT PRIMARY KEY, v VARCHAR(200))")
        files = len(query(b, "SHOW BINARY LOGS"))
        query(a, "SET GLOBAL max_binlog_size = 4096")
        try:
            for i in range(40):
                query(b, f"INSERT INTO rot.t VALUES ({i}, REPEAT('x', 200))")
            assert len(query(b, "SHOW BINARY LOGS")) >= files + 2
        finally:
            query(a, "SET GLOBAL max_binlog_size = DEFAULT")


def test_group_commit_sync_delay_set_in_one_worker_delays_commits_in_the_other(srv: ServerProcess) -> None:
    """binlog_group_commit_sync_delay set in worker 0 (RM8: µs the sync stage waits before its fsync) makes an
    autocommitted INSERT in worker 1 take at least that long; back to 0, it does not."""
    delay_s = 0.4
    with root(srv.port, 1) as b, root(srv.port, 0) as a:
        query(a, "CREATE DATABASE IF NOT EXISTS gd")
        query(a, "CREATE TABLE IF NOT EXISTS gd.t (id INT PRIMARY KEY)")
        query(a, f"SET GLOBAL binlog_group_commit_sync_delay = {int(delay_s * 1_000_000)}")
        try:
            started = time.monotonic()
            query(b, "INSERT INTO gd.t VALUES (1)")
            assert time.monotonic() - started >= delay_s
        finally:
            query(a, "SET GLOBAL binlog_group_commit_sync_delay = 0")
        fastest = 10.0
        for i in range(2, 5):  # the quickest of a few (a loaded machine may stall one)
            started = time.monotonic()
            query(b, f"INSERT INTO gd.t VALUES ({i})")
            fastest = min(fastest, time.monotonic() - started)
        assert fastest < delay_s


def test_session_track_gtids_set_in_one_worker_is_a_new_session_default_in_the_other(
    srv: ServerProcess,
) -> None:
    """SET GLOBAL session_track_gtids = OWN_GTID in worker 0: a session opened afterwards in worker 1, which never
    sets it, gets the GTID of its commit in the OK packet (WL#6972; read with gtidkit.protocol.client)."""
    with root(srv.port, 0) as a:
        query(a, "CREATE DATABASE IF NOT EXISTS tg")
        query(a, "CREATE TABLE IF NOT EXISTS tg.t (id INT PRIMARY KEY)")
        uuid = query(a, "SELECT @@server_uuid")[0][0]
        query(a, "SET GLOBAL session_track_gtids = OWN_GTID")
        try:
            next_lands_in(srv.port, 1)
            with pymysql.connect(
                host="127.0.0.1",
                port=srv.port,
                user="root",
                autocommit=True,
                client_flag=CLIENT.SESSION_TRACK,
            ) as b:
                assert worker_of(b) == 1
                query(b, "INSERT INTO tg.t VALUES (1)")
                reported = last_gtids(b)
                assert reported is not None and str(reported).startswith(f"{uuid}:")
                assert reported <= GtidSet.parse(query(b, "SELECT @@GLOBAL.gtid_executed")[0][0])
        finally:
            query(a, "SET GLOBAL session_track_gtids = DEFAULT")


def test_innodb_lock_wait_timeout_set_in_one_worker_bounds_a_wait_in_the_other(srv: ServerProcess) -> None:
    """A new session in worker 1 takes innodb_lock_wait_timeout from the GLOBAL value worker 0 set: its wait
    behind worker 0's open transaction ends with 1205 after about that long."""
    with root(srv.port, 0) as a:
        query(a, "CREATE DATABASE IF NOT EXISTS lw")
        query(a, "CREATE TABLE IF NOT EXISTS lw.t (id INT PRIMARY KEY)")
        query(a, "SET GLOBAL innodb_lock_wait_timeout = 1")
        try:
            with root(srv.port, 1) as b:
                assert query(b, "SELECT @@SESSION.innodb_lock_wait_timeout") == ((1,),)
                query(a, "BEGIN")
                query(a, "INSERT INTO lw.t VALUES (1)")
                started = time.monotonic()
                with pytest.raises(
                    pymysql.err.OperationalError
                ) as err:  # the same key: it waits in InnoDB too
                    query(b, "INSERT INTO lw.t VALUES (1)")
                waited = time.monotonic() - started
                query(a, "ROLLBACK")
            assert err.value.args[0] == 1205
            assert 0.9 <= waited < 20
        finally:
            query(a, "SET GLOBAL innodb_lock_wait_timeout = DEFAULT")


def test_gtid_mode_steps_and_enforce_gtid_consistency_set_in_one_worker_apply_in_the_other(
    srv: ServerProcess,
) -> None:
    """gtid_mode one step down and enforce_gtid_consistency OFF in worker 0 (RM8 "gtid_mode", "Changing GTID Mode
    on Online Servers"): worker 1 may then run an anonymous transaction (1782 under ON) and a CREATE TEMPORARY
    TABLE inside a transaction in STATEMENT format (3748 ER_CLIENT_GTID_UNSAFE_CREATE_DROP_TEMP_TABLE_IN_TRX_IN_SBR
    under ENFORCE_GTID_CONSISTENCY=ON); back to ON, worker 1 refuses them again."""
    with root(srv.port, 1) as b, root(srv.port, 0) as a:
        query(a, "CREATE DATABASE IF NOT EXISTS gm")
        query(a, "CREATE TABLE IF NOT EXISTS gm.t (id INT PRIMARY KEY)")
        with pytest.raises(pymysql.err.OperationalError) as err:
            query(b, "SET gtid_next = 'ANONYMOUS'")
        assert err.value.args[0] == 1782
        query(b, "SET SESSION binlog_format = 'STATEMENT'")
        query(b, "BEGIN")
        with pytest.raises(pymysql.err.OperationalError) as err:
            query(b, "CREATE TEMPORARY TABLE gm.tmp1 (id INT)")
        assert err.value.args[0] == 3748
        query(b, "ROLLBACK")
        query(a, "SET GLOBAL gtid_mode = ON_PERMISSIVE")
        try:
            query(a, "SET GLOBAL enforce_gtid_consistency = OFF")
            assert query(b, "SELECT @@GLOBAL.gtid_mode, @@GLOBAL.enforce_gtid_consistency") == (
                ("ON_PERMISSIVE", "OFF"),
            )
            query(b, "SET gtid_next = 'ANONYMOUS'")
            query(b, "INSERT INTO gm.t VALUES (1)")
            query(b, "SET gtid_next = 'AUTOMATIC'")
            query(b, "BEGIN")
            query(b, "CREATE TEMPORARY TABLE gm.tmp2 (id INT)")
            query(b, "ROLLBACK")
        finally:
            query(a, "SET GLOBAL enforce_gtid_consistency = ON")
            query(a, "SET GLOBAL gtid_mode = ON")
        assert query(b, "SELECT @@GLOBAL.gtid_mode, @@GLOBAL.enforce_gtid_consistency") == (("ON", "ON"),)
        with pytest.raises(pymysql.err.OperationalError) as err:
            query(b, "SET gtid_next = 'ANONYMOUS'")
        assert err.value.args[0] == 1782


# ---------------------------------------------------------------------------------------------- accounts
@pytest.mark.parametrize("creator", [0, 1], ids=["made-in-0", "made-in-1"])
def test_account_statements_in_one_worker_are_seen_by_logins_and_checks_in_the_other(
    srv: ServerProcess, creator: int
) -> None:
    """CREATE USER / GRANT / REVOKE / ALTER USER / SET PASSWORD / RENAME USER / DROP USER in one worker: logins
    and privilege checks in the other worker see each at once (1045 ER_ACCESS_DENIED_ERROR, 1142
    ER_TABLEACCESS_DENIED_ERROR as MySQL words them)."""
    other = 1 - creator
    user = f"acc{creator}"
    with root(srv.port, creator) as a:
        query(a, f"CREATE DATABASE IF NOT EXISTS {user}db")
        query(a, f"CREATE TABLE IF NOT EXISTS {user}db.t (id INT PRIMARY KEY)")
        query(a, f"CREATE USER {user}@'%' IDENTIFIED WITH mysql_native_password BY 'one'")
        with login(srv.port, other, user, "one") as u:
            with pytest.raises(pymysql.err.OperationalError) as err:
                query(u, f"SELECT * FROM {user}db.t")
            assert err.value.args == (
                1142,
                f"SELECT command denied to user '{user}'@'localhost' for table 't'",
            )
            query(a, f"GRANT SELECT ON {user}db.* TO {user}@'%'")
            assert query(u, f"SELECT COUNT(*) FROM {user}db.t") == (
                (0,),
            )  # the same connection, next statement
            query(a, f"REVOKE SELECT ON {user}db.* FROM {user}@'%'")
            with pytest.raises(pymysql.err.OperationalError) as err:
                query(u, f"SELECT * FROM {user}db.t")
            assert err.value.args[0] == 1142
        query(a, f"ALTER USER {user}@'%' IDENTIFIED BY 'two'")
        assert refused_login(srv.port, other, user, "one") == 1045
        login(srv.port, other, user, "two").close()
        query(a, f"SET PASSWORD FOR {user}@'%' = 'three'")
        assert refused_login(srv.port, other, user, "two") == 1045
        login(srv.port, other, user, "three").close()
        query(a, f"RENAME USER {user}@'%' TO {user}r@'%'")
        assert refused_login(srv.port, other, user, "three") == 1045
        login(srv.port, other, f"{user}r", "three").close()
        query(a, f"DROP USER {user}r@'%'")
        assert refused_login(srv.port, other, f"{user}r", "three") == 1045


def test_caching_sha2_fast_path_cache_of_a_worker_follows_an_alter_user_in_the_other(
    srv: ServerProcess,
) -> None:
    """caching_sha2_password (8.0's default plugin): worker 1 logs the account in by full authentication (RSA key
    exchange), then from its fast-path cache; ALTER USER in worker 0 makes worker 1 refuse the old password at once
    (its cache entry was made for another stored hash) and accept the new one."""
    with root(srv.port, 0) as a:
        query(a, "CREATE USER sha@'%' IDENTIFIED WITH caching_sha2_password BY 'first'")
        for _ in range(2):  # full authentication, then the fast path
            login(srv.port, 1, "sha", "first").close()
        query(a, "ALTER USER sha@'%' IDENTIFIED BY 'second'")
        assert refused_login(srv.port, 1, "sha", "first") == 1045
        for _ in range(2):
            login(srv.port, 1, "sha", "second").close()
        query(a, "DROP USER sha@'%'")


def native_hash(password: str) -> str:
    """mysql_native_password's stored form: ``*`` + SHA1(SHA1(password)) in upper-case hex."""
    return "*" + hashlib.sha1(hashlib.sha1(password.encode()).digest()).hexdigest().upper()


def test_flush_privileges_in_one_worker_reloads_the_grant_tables_in_the_other(srv: ServerProcess) -> None:
    """A change written into mysql.user directly takes effect at FLUSH PRIVILEGES (``acl_reload``), in every
    worker: before it the other worker still logs in with the old password."""
    with root(srv.port, 0) as a:
        query(a, "CREATE USER fp@'%' IDENTIFIED WITH mysql_native_password BY 'old'")
        query(a, f"UPDATE mysql.user SET authentication_string = '{native_hash('new')}' WHERE user = 'fp'")
        login(srv.port, 1, "fp", "old").close()
        query(a, "FLUSH PRIVILEGES")
        assert refused_login(srv.port, 1, "fp", "old") == 1045
        login(srv.port, 1, "fp", "new").close()
        query(a, "DROP USER fp@'%'")


# ---------------------------------------------------------------------------------------------- gtid_purged
def text(*parts: str) -> str:
    """A GTID set's text as MySQL prints it: one UUID's intervals per line, the UUIDs in order."""
    return ",\n".join(sorted(parts))


def test_gtid_purged_set_in_one_worker(tmp_path: Path) -> None:
    """SET GLOBAL gtid_purged in worker 0, both forms (8.0: '+set' adds, a plain set must contain the old value;
    3546 ER_CANT_SET_GTID_PURGED_DUE_SETS_CONSTRAINTS otherwise): @@GLOBAL.gtid_purged and gtid_executed in worker
    1, its refusals, and worker 1's automatic GNOs never reuse a purged GNO."""
    with running_server(tmp_path / "d", *GTIDS, "--log-bin", "--workers=2", base=(), supervised=True) as s:
        with root(s.port, 1) as b, root(s.port, 0) as a:
            uuid = query(a, "SELECT @@server_uuid")[0][0]
            query(a, f"SET GLOBAL gtid_purged = '+{uuid}:1-10'")
            assert query(b, "SELECT @@GLOBAL.gtid_purged, @@GLOBAL.gtid_executed") == (
                (f"{uuid}:1-10", f"{uuid}:1-10"),
            )
            query(b, "CREATE DATABASE p")  # an automatic GNO in worker 1: after the purged ones
            assert query(b, "SELECT @@GLOBAL.gtid_executed") == ((f"{uuid}:1-11",),)
            query(a, f"SET GLOBAL gtid_purged = '{uuid}:1-10,{OTHER}:1-5'")  # the replace form
            assert query(b, "SELECT @@GLOBAL.gtid_purged, @@GLOBAL.gtid_executed") == (
                (text(f"{OTHER}:1-5", f"{uuid}:1-10"), text(f"{OTHER}:1-5", f"{uuid}:1-11")),
            )
            cases = [
                (
                    f"SET GLOBAL gtid_purged = '{OTHER}:1-5'",
                    "the new value must be a superset of the old value",
                ),
                (
                    f"SET GLOBAL gtid_purged = '+{uuid}:11'",
                    "the added gtid set must not overlap with @@GLOBAL.GTID_EXECUTED",
                ),
                (
                    f"SET GLOBAL gtid_purged = '+{OTHER}:3-7'",
                    "the added gtid set must not overlap with @@GLOBAL.GTID_EXECUTED",
                ),
            ]
            for sql, reason in cases:
                with pytest.raises(pymysql.err.OperationalError) as err:
                    query(b, sql)
                assert err.value.args == (
                    3546,
                    f"@@GLOBAL.GTID_PURGED cannot be changed: {reason}",
                ), sql
            query(b, "CREATE TABLE p.t (id INT PRIMARY KEY)")
            query(a, "INSERT INTO p.t VALUES (1)")
            assert query(a, "SELECT @@GLOBAL.gtid_executed") == ((text(f"{OTHER}:1-5", f"{uuid}:1-13"),),)
            gnos = [
                r[5]
                for name in [r[0] for r in query(a, "SHOW BINARY LOGS")]
                for r in query(a, f"SHOW BINLOG EVENTS IN '{name}'")
                if r[2] == "Gtid"
            ]
            assert [g.rsplit(":", 1)[1].rstrip("'") for g in gnos] == ["11", "12", "13"]
            # PURGE BINARY LOGS in worker 0 grows gtid_purged by the removed files' GTIDs: worker 1 sees it
            query(a, "FLUSH BINARY LOGS")
            newest = query(a, "SHOW BINARY LOGS")[-1][0]
            query(a, f"PURGE BINARY LOGS TO '{newest}'")
            everything = text(f"{OTHER}:1-5", f"{uuid}:1-13")
            assert query(b, "SELECT @@GLOBAL.gtid_purged, @@GLOBAL.gtid_executed") == (
                (everything, everything),
            )
        with root(s.port, 1) as late:  # a new session in the other worker sees the same
            assert query(late, "SELECT @@GLOBAL.gtid_purged") == ((everything,),)


# ---------------------------------------------------------------------------------------------- max_connections
def test_max_connections_set_in_a_worker_is_what_the_supervisor_counts(srv: ServerProcess) -> None:
    """SET GLOBAL max_connections in worker 1 (RM8 "max_connections"; range 1..100000): @@GLOBAL in worker 0
    shows it, and the supervisor, which accepts and counts the connections of every worker, refuses the one beyond
    it with 1040 ER_CON_COUNT_ERROR "Too many connections"; raising it in worker 0 lets the next one in."""
    limit = 3
    with root(srv.port, 0) as a, root(srv.port, 1) as b:
        held: list[pymysql.connections.Connection] = [a, b]
        query(b, f"SET GLOBAL max_connections = {limit}")
        try:
            assert query(a, "SELECT @@GLOBAL.max_connections") == ((limit,),)
            assert query(a, "SHOW GLOBAL VARIABLES LIKE 'max_connections'") == (
                ("max_connections", str(limit)),
            )
            deadline = time.monotonic() + 60
            while True:  # connections the earlier tests closed may still be counted for a moment
                try:
                    held.append(pymysql.connect(host="127.0.0.1", port=srv.port, user="root"))
                except pymysql.err.OperationalError as err:
                    assert err.args == (1040, "Too many connections")
                    if len(held) == limit:
                        break
                    assert time.monotonic() < deadline, "closed connections never left the count"
                    time.sleep(0.1)
                assert len(held) <= limit
            query(a, "SET GLOBAL max_connections = DEFAULT")
            assert query(b, "SELECT @@GLOBAL.max_connections") == ((151,),)
            held.append(pymysql.connect(host="127.0.0.1", port=srv.port, user="root"))
        finally:
            query(a, "SET GLOBAL max_connections = DEFAULT")
            for c in held[2:]:
                c.close()


def test_max_connections_set_in_a_one_process_server(tmp_path: Path) -> None:
    """The same SET GLOBAL in a server of one process: its wire server counts against the new value."""
    with (
        running_server(tmp_path / "d", *GTIDS, "--skip-log-bin", base=(), supervised=False) as s,
        root(s.port) as a,
    ):
        query(a, "SET GLOBAL max_connections = 1")
        with pytest.raises(pymysql.err.OperationalError) as err:
            pymysql.connect(host="127.0.0.1", port=s.port, user="root")
        assert err.value.args == (1040, "Too many connections")
        query(a, "SET GLOBAL max_connections = 2")
        pymysql.connect(host="127.0.0.1", port=s.port, user="root").close()
