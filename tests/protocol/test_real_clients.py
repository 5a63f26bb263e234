"""Real clients against a real `gtidkit server` process on 127.0.0.1: PyMySQL, mysql-connector-python (pure),
the Debian `mariadb` CLI and libmariadb (ctypes) as the session-tracking oracle."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import mysql.connector
import pymysql
import pytest
from pymysql.constants import CLIENT

from gtidkit.protocol.client import last_gtids
from gtidkit.protocol.constants import SessionStateType
from gtidkit.protocol.session_tracker import decode_state
from gtidkit.protocol.wire import Reader

from .prefork import run_gtidkit
from .server_proc import LibMariaDB, ServerProcess, running_server

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("server_mode")]


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory, server_mode: str) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("wire") / "data"
    with running_server(datadir, "--log-bin", "--server-id=7") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE USER 'sha'@'%' IDENTIFIED BY 'sha-pw'")
            cur.execute("CREATE USER 'sha_tls'@'%' IDENTIFIED BY 'tls-pw'")
            cur.execute("CREATE USER 'nat'@'localhost' IDENTIFIED WITH mysql_native_password BY 'nat-pw'")
            for account in ("'sha'@'%'", "'sha_tls'@'%'", "'nat'@'localhost'"):
                cur.execute(f"GRANT ALL PRIVILEGES ON *.* TO {account}")
            cur.execute("CREATE DATABASE app")
            cur.execute("CREATE TABLE app.t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20))")
        conn.close()
        yield s


def _pymysql(srv: ServerProcess, **kw: object) -> pymysql.connections.Connection:
    args: dict[str, object] = {
        "host": "127.0.0.1",
        "port": srv.port,
        "user": "root",
        "password": "",
        "autocommit": True,
    }
    args.update(kw)
    return pymysql.connect(**args)  # type: ignore[arg-type]


def test_pymysql_ddl_dml_and_result_metadata(srv: ServerProcess) -> None:
    conn = _pymysql(srv, database="app")
    with conn.cursor() as cur:
        assert cur.execute("INSERT INTO t (v) VALUES (%s), (%s)", ("a", "b")) == 2
        assert cur.lastrowid == 1
        cur.execute("SELECT id, v FROM t ORDER BY id")
        assert cur.fetchall() == ((1, "a"), (2, "b"))
        assert [d[0] for d in cur.description] == ["id", "v"]
        cur.execute("SELECT @@version_comment LIMIT 1")
        assert cur.fetchone() == ("gtidkit",)
        cur.execute("SELECT DATABASE()")
        assert cur.fetchone() == ("app",)
    conn.close()


def test_pymysql_transactions_and_rollback(srv: ServerProcess) -> None:
    conn = _pymysql(srv, database="app", autocommit=False)
    with conn.cursor() as cur:
        cur.execute("INSERT INTO t (v) VALUES ('rolled-back')")
        assert conn.get_server_info().startswith("8.0.36")
        assert conn.server_status & 1  # SERVER_STATUS_IN_TRANS
        conn.rollback()
        cur.execute("SELECT COUNT(*) FROM t WHERE v = 'rolled-back'")
        assert cur.fetchone() == (0,)
        cur.execute("INSERT INTO t (v) VALUES ('kept')")
        conn.commit()
    conn.close()
    other = _pymysql(srv, database="app")
    with other.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM t WHERE v = 'kept'")
        assert cur.fetchone() == (1,)
    other.close()


def test_pymysql_errors_carry_code_and_sqlstate(srv: ServerProcess) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        with pytest.raises(pymysql.err.ProgrammingError) as exc:
            cur.execute("SELECT * FROM app.no_such_table")
        assert exc.value.args[0] == 1146
        with pytest.raises(pymysql.err.IntegrityError) as exc2:
            cur.execute("INSERT INTO app.t (id, v) VALUES (1, 'dup')")
        assert exc2.value.args[0] == 1062
        cur.execute("SELECT 1")  # the connection goes on
        assert cur.fetchone() == (1,)
    conn.close()


def test_pymysql_multi_statements(srv: ServerProcess) -> None:
    conn = _pymysql(srv, client_flag=CLIENT.MULTI_STATEMENTS)
    with conn.cursor() as cur:
        cur.execute("SELECT 1; SELECT 'two'; INSERT INTO app.t (v) VALUES ('m'); SELECT 3")
        assert cur.fetchall() == ((1,),)
        assert cur.nextset() and cur.fetchall() == (("two",),)
        assert cur.nextset() and cur.rowcount == 1
        assert cur.nextset() and cur.fetchall() == ((3,),)
        assert not cur.nextset()
        # an error in the middle: the results before it arrive, then the error
        cur.execute("SELECT 10; SELECT * FROM app.nope; SELECT 11")
        assert cur.fetchall() == ((10,),)
        with pytest.raises(pymysql.err.ProgrammingError):
            cur.nextset()
        cur.execute("SELECT 12")
        assert cur.fetchall() == ((12,),)
    conn.close()


def test_multi_statements_refused_without_capability(srv: ServerProcess) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur, pytest.raises(pymysql.err.ProgrammingError) as exc:
        cur.execute("SELECT 1; SELECT 2")
    assert exc.value.args[0] == 1064
    conn.close()


def test_pymysql_ping_select_db_and_field_list_free_commands(srv: ServerProcess) -> None:
    conn = _pymysql(srv)
    conn.ping(reconnect=False)
    conn.select_db("app")  # COM_INIT_DB
    with conn.cursor() as cur:
        cur.execute("SELECT DATABASE()")
        assert cur.fetchone() == ("app",)
    with pytest.raises(pymysql.err.OperationalError) as exc:
        conn.select_db("no_such_db")
    assert exc.value.args[0] == 1049
    conn.close()


@pytest.mark.parametrize("tls", [False, True], ids=["rsa-key-exchange", "tls"])
def test_pymysql_caching_sha2_full_then_fast_auth(srv: ServerProcess, tls: bool) -> None:
    user, pw = ("sha_tls", "tls-pw") if tls else ("sha", "sha-pw")
    ssl = {"ca": str(srv.datadir / "ca.pem"), "check_hostname": False} if tls else None
    for _ in range(2):  # first: full authentication; second: the fast path from the cache
        conn = _pymysql(srv, user=user, password=pw, ssl=ssl)
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchone() == (1,)
        if tls:
            assert conn._sock.version() is not None  # type: ignore[union-attr]
        conn.close()
    with pytest.raises(pymysql.err.OperationalError) as exc:
        _pymysql(srv, user=user, password="wrong", ssl=ssl)
    assert exc.value.args[0] == 1045


def test_pymysql_native_password(srv: ServerProcess) -> None:
    conn = _pymysql(srv, user="nat", password="nat-pw")
    conn.close()
    with pytest.raises(pymysql.err.OperationalError) as exc:
        _pymysql(srv, user="nat", password="bad")
    assert exc.value.args[0] == 1045
    assert "Access denied for user 'nat'@'localhost' (using password: YES)" in exc.value.args[1]


@pytest.mark.parametrize(
    ("user", "pw", "kw"),
    [
        ("sha_tls", "tls-pw", {}),
        ("sha", "sha-pw", {"ssl_disabled": True}),
        ("nat", "nat-pw", {"ssl_disabled": True}),
    ],
    ids=["sha2-tls", "sha2-plain", "native"],
)
def test_mysql_connector_pure(srv: ServerProcess, user: str, pw: str, kw: dict[str, object]) -> None:
    conn = mysql.connector.connect(
        host="127.0.0.1",
        port=srv.port,
        user=user,
        password=pw,
        use_pure=True,
        database="app",
        autocommit=True,
        **kw,
    )
    cur = conn.cursor()
    cur.execute("INSERT INTO t (v) VALUES (%s)", ("conn",))
    assert cur.rowcount == 1 and cur.lastrowid
    cur.execute("SELECT v FROM t WHERE id = %s", (cur.lastrowid,))
    assert cur.fetchall() == [("conn",)]
    with pytest.raises(mysql.connector.errors.ProgrammingError) as exc:
        cur.execute("SELECT * FROM nope")
    assert exc.value.errno == 1146 and exc.value.sqlstate == "42S02"
    conn.cmd_reset_connection()  # COM_RESET_CONNECTION
    conn.ping()
    cur = conn.cursor()
    cur.execute("SELECT 2")
    assert cur.fetchall() == [(2,)]
    conn.close()


def test_mysql_connector_change_user(srv: ServerProcess) -> None:
    conn = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", use_pure=True, ssl_disabled=True
    )
    conn.cmd_change_user(username="nat", password="nat-pw", database="app")
    cur = conn.cursor()
    cur.execute("SELECT DATABASE()")
    assert cur.fetchall() == [("app",)]
    conn.close()


def _mariadb_cli() -> str:
    exe = shutil.which("mariadb")
    if exe is None:
        pytest.skip("mariadb client not installed (.ci/run installs mariadb-client)")
    return exe


def test_mariadb_cli_runs_a_script(srv: ServerProcess, tmp_path: Path) -> None:
    script = tmp_path / "s.sql"
    script.write_text(
        "USE app;\nINSERT INTO t (v) VALUES ('cli');\nSELECT v FROM t WHERE v = 'cli';\n"
        "SELECT 1 AS a, NULL AS b;\n"
    )
    r = subprocess.run(
        [_mariadb_cli(), "-h127.0.0.1", f"-P{srv.port}", "-uroot", "--batch"],
        stdin=script.open(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "v\ncli\na\tb\n1\tNULL\n"


def test_mariadb_cli_error_exit_status(srv: ServerProcess) -> None:
    r = subprocess.run(
        [_mariadb_cli(), "-h127.0.0.1", f"-P{srv.port}", "-uroot", "-e", "SELECT * FROM app.x"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 1
    assert "ERROR 1146 (42S02)" in r.stderr


def test_mariadb_admin_status_ping_processlist(srv: ServerProcess) -> None:
    admin = shutil.which("mariadb-admin")
    if admin is None:
        pytest.skip("mariadb-admin not installed")
    base = [admin, "-h127.0.0.1", f"-P{srv.port}", "-uroot"]
    r = subprocess.run([*base, "ping"], capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 0 and "mysqld is alive" in r.stdout
    r = subprocess.run([*base, "status"], capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 0 and r.stdout.startswith("Uptime: ")  # COM_STATISTICS
    r = subprocess.run([*base, "processlist"], capture_output=True, text=True, timeout=60, check=False)
    assert r.returncode == 0 and "| Id" in r.stdout


def _gtid_entries(conn: pymysql.connections.Connection) -> list[str]:
    raw = conn._result.message  # type: ignore[union-attr]  # raw bytes after the warnings (tooling.md 2)
    if not raw or not conn.server_status & 0x4000:
        return []
    r = Reader(raw)
    r.lenenc_str()  # info
    entries = [
        c.value for c in decode_state(r.lenenc_str()) if c.type == SessionStateType.SESSION_TRACK_GTIDS
    ]
    helper = last_gtids(conn)  # the shipped client helper agrees with the hand decoding
    assert (helper is None) == (not entries) and (helper is None or str(helper) == ",".join(entries))
    return entries


def test_session_track_own_gtid_pymysql(srv: ServerProcess) -> None:
    conn = _pymysql(srv, client_flag=CLIENT.SESSION_TRACK)
    with conn.cursor() as cur:
        cur.execute("INSERT INTO app.t (v) VALUES ('untracked')")
        assert _gtid_entries(conn) == []  # session_track_gtids is OFF by default
        cur.execute("SET SESSION session_track_gtids = OWN_GTID")
        assert _gtid_entries(conn) == []  # the SET itself is tracked under the old value
        cur.execute("INSERT INTO app.t (v) VALUES ('tracked')")
        own = _gtid_entries(conn)
        cur.execute("SELECT @@server_uuid")
        uuid = cur.fetchone()[0]
        assert len(own) == 1 and own[0].startswith(f"{uuid}:")
        cur.execute("SELECT 1")
        assert _gtid_entries(conn) == []  # sent once
        cur.execute("BEGIN")
        cur.execute("INSERT INTO app.t (v) VALUES ('in-trx')")
        assert _gtid_entries(conn) == []  # nothing inside an open transaction
        cur.execute("COMMIT")
        assert len(_gtid_entries(conn)) == 1
    conn.close()


def test_session_track_gtids_libmariadb_oracle(srv: ServerProcess) -> None:
    try:
        client = LibMariaDB()
    except OSError:
        pytest.skip("libmariadb not installed")
    client.connect(srv.port)
    try:
        client.query("SET SESSION session_track_gtids = OWN_GTID")
        client.query("INSERT INTO app.t (v) VALUES ('oracle')")
        tracked = client.tracked(LibMariaDB.SESSION_TRACK_GTIDS)
        conn = _pymysql(srv)
        with conn.cursor() as cur:
            cur.execute("SELECT @@GLOBAL.gtid_executed, @@server_uuid")
            executed, uuid = cur.fetchone()
        conn.close()
        assert len(tracked) == 1
        sid, gno = tracked[0].decode().split(":")
        assert sid == uuid and int(gno) == int(executed.replace("\n", "").split("-")[-1].split(":")[-1])
        client.query("SET SESSION session_track_gtids = ALL_GTIDS")
        assert client.tracked(LibMariaDB.SESSION_TRACK_GTIDS) == []  # the SET is tracked under the old mode
        client.query("CREATE DATABASE oracle_all")
        conn = _pymysql(srv)
        with conn.cursor() as cur:
            cur.execute("SELECT @@GLOBAL.gtid_executed")
            executed_after = cur.fetchone()[0]
        conn.close()
        # ALL_GTIDS: the whole gtid_executed (every session's GTIDs), not only this session's
        assert [t.decode() for t in client.tracked(LibMariaDB.SESSION_TRACK_GTIDS)] == [executed_after]
        assert executed_after.count(",") == executed.count(",")  # same server UUID, one interval grown
    finally:
        client.close()


def test_client_vanishing_mid_transaction_rolls_back(srv: ServerProcess) -> None:
    conn = _pymysql(srv, autocommit=False)
    with conn.cursor() as cur:
        cur.execute("INSERT INTO app.t (v) VALUES ('vanished')")
    conn._sock.shutdown(socket.SHUT_RDWR)  # type: ignore[union-attr]  # gone: no COM_QUIT
    deadline = time.monotonic() + 30
    other = _pymysql(srv)
    with other.cursor() as cur:
        while True:  # the server notices the closed socket and rolls back, releasing the write lock
            try:
                cur.execute("INSERT INTO app.t (v) VALUES ('after')")
                break
            except pymysql.err.OperationalError:
                assert time.monotonic() < deadline
        cur.execute("SELECT COUNT(*) FROM app.t WHERE v = 'vanished'")
        assert cur.fetchone() == (0,)
    other.close()


def test_garbage_bytes_get_an_error_and_others_go_on(srv: ServerProcess) -> None:
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    hs = s.recv(4096)
    assert hs[4] == 10  # protocol version 10
    s.sendall(b"\x05\x00\x00\x07hello")  # wrong sequence id
    reply = s.recv(4096)
    assert reply[4] == 0xFF and int.from_bytes(reply[5:7], "little") == 1156
    assert s.recv(4096) == b""  # then the server closes
    s.close()
    conn = _pymysql(srv)
    conn.ping(reconnect=False)
    conn.close()


def test_show_processlist_and_kill(srv: ServerProcess) -> None:
    victim = _pymysql(srv)
    killer = _pymysql(srv)
    with killer.cursor() as cur:
        cur.execute("SHOW PROCESSLIST")
        rows = cur.fetchall()
        assert [d[0] for d in cur.description] == [
            "Id",
            "User",
            "Host",
            "db",
            "Command",
            "Time",
            "State",
            "Info",
        ]
        assert victim.thread_id() in [r[0] for r in rows]
        cur.execute(f"KILL {victim.thread_id()}")
        with pytest.raises(pymysql.err.OperationalError) as exc:
            cur.execute("KILL 999999")
        assert exc.value.args[0] == 1094
    with pytest.raises(pymysql.err.OperationalError), victim.cursor() as vcur:
        vcur.execute("SELECT 1")
    killer.close()


def test_max_allowed_packet_enforced(tmp_path: Path) -> None:
    with running_server(tmp_path / "d", "--max-allowed-packet=1M") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="")
        with conn.cursor() as cur, pytest.raises(pymysql.err.OperationalError) as exc:
            cur.execute("SELECT '" + "x" * (2 << 20) + "'")
        # the server answers 1153 and closes while the client is still writing: the client may see either
        assert exc.value.args[0] in (1153, 2006, 2013)
        ok = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="")
        with ok.cursor() as cur:
            cur.execute("SELECT LENGTH('" + "y" * 500_000 + "')")
            assert cur.fetchone() == (500_000,)
        ok.close()


def test_max_connections_wait_timeout_and_sigterm(tmp_path: Path) -> None:
    datadir = tmp_path / "d"
    with running_server(datadir, "--max-connections=2", "--wait-timeout=2", "--log-bin") as s:
        a = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        b = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="")
        with pytest.raises(pymysql.err.OperationalError) as exc:
            pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="")
        assert exc.value.args[0] == 1040
        sent = time.monotonic()  # a's idle time starts after the server answers this statement
        with a.cursor() as cur:
            cur.execute("CREATE DATABASE kept")
        # both idle longer than wait_timeout: the server says why before closing each, ERR 4031
        # ER_CLIENT_INTERACTION_TIMEOUT (sequence id 0), then EOF
        for idle in (b, a):
            idle._sock.settimeout(10)
            data = b""
            while chunk := idle._sock.recv(4096):
                data += chunk
            assert data[3:7] == b"\x00\xff" + (4031).to_bytes(2, "little"), data
            assert b"disconnected by the server because of inactivity" in data
        assert time.monotonic() - sent >= 1.95  # a, the last one active, was idle for wait_timeout
        with pytest.raises(pymysql.err.OperationalError), b.cursor() as cur:
            cur.execute("SELECT 1")
        c = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="")
        c.close()
        pid_files = list(datadir.glob("*.pid"))
        assert len(pid_files) == 1 and int(pid_files[0].read_text()) == s.proc.pid
        assert s.stop() == 0
        assert not pid_files[0].exists()
        assert "Shutdown complete" in (datadir / "error.log").read_text()
    from gtidkit.engine import Server

    with Server.open(datadir, log_bin=True) as engine:  # clean shutdown kept what was committed
        assert engine.gtid_state.executed()


def test_shutdown_statement(tmp_path: Path) -> None:
    with running_server(tmp_path / "d") as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="")
        with conn.cursor() as cur:
            cur.execute("SHUTDOWN")
        assert s.proc.wait(60) == 0


def test_initialize_prints_password_and_refuses_nonempty(tmp_path: Path) -> None:
    from .server_proc import initialize

    datadir = tmp_path / "secure"
    err = initialize(datadir, insecure=False)
    password = err.split("A temporary password is generated for root@localhost: ", 1)[1].strip()
    with running_server(datadir, init=False) as s:
        with pytest.raises(pymysql.err.OperationalError):
            pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="")
        # the generated password is expired: PyMySQL cannot handle that and is refused (1862)
        with pytest.raises(pymysql.err.OperationalError) as exc:
            pymysql.connect(host="127.0.0.1", port=s.port, user="root", password=password)
        assert exc.value.args[0] == 1862
        # a client that can (CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS) lands in the sandbox: ALTER USER only
        sandboxed = pymysql.connect(
            host="127.0.0.1", port=s.port, user="root", password=password, client_flag=1 << 22
        )  # CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS
        with sandboxed.cursor() as cur:
            with pytest.raises(pymysql.err.OperationalError) as exc:
                cur.execute("SELECT 1")
            assert exc.value.args[0] == 1820
            cur.execute("ALTER USER USER() IDENTIFIED BY 'new-root-pw'")
            cur.execute("SELECT 1")
        sandboxed.close()
        if shutil.which("mariadb"):
            r = subprocess.run(
                [
                    "mariadb",
                    "-h127.0.0.1",
                    f"-P{s.port}",
                    "-uroot",
                    "-pnew-root-pw",
                    "--connect-expired-password",
                    "-e",
                    "SELECT 1",
                ],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert r.returncode == 0, r.stderr
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="new-root-pw")
        conn.close()
    r = run_gtidkit(
        ["server", "--initialize", "--datadir", str(datadir)], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 1 and "MY-010457" in r.stderr


def test_defaults_file(tmp_path: Path) -> None:
    cnf = tmp_path / "my.cnf"
    cnf.write_text(
        "[client]\nport=1\n[mysqld]\nmax-connections = 1\nskip-log-bin\nsession_track_gtids = OWN_GTID\n"
    )
    with running_server(tmp_path / "d", f"--defaults-file={cnf}") as s:
        a = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="")
        with pytest.raises(pymysql.err.OperationalError) as exc:
            pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="")
        assert exc.value.args[0] == 1040
        with a.cursor() as cur:
            cur.execute("SELECT @@log_bin, @@GLOBAL.session_track_gtids, @@SESSION.session_track_gtids")
            assert cur.fetchone() == (0, "OWN_GTID", "OWN_GTID")
        a.close()


def test_mysql_connector_prepared_statements(srv: ServerProcess) -> None:
    import datetime as dt
    import io
    from decimal import Decimal

    conn = mysql.connector.connect(
        host="127.0.0.1",
        port=srv.port,
        user="root",
        password="",
        use_pure=True,
        autocommit=True,
        ssl_disabled=True,
    )
    cur = conn.cursor(prepared=True)
    cur.execute("SELECT ?, ?, ?, ?, ?", (1, "it's \\ x", None, 2.5, b"\x00\xff"))
    assert cur.fetchall() == [(1, "it's \\ x", None, 2.5, b"\x00\xff")]
    cur.execute(
        "CREATE TABLE app.p (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20), n DECIMAL(6,2), b BLOB)"
    )
    cur.execute(
        "INSERT INTO app.p (v, n, b) VALUES (?, ?, ?)", ("a", Decimal("1.25"), io.BytesIO(b"long" * 1000))
    )
    assert cur.rowcount == 1 and cur.lastrowid == 1
    cur.execute("SELECT id, v, n, LENGTH(b) FROM app.p WHERE id = ?", (1,))
    assert cur.fetchall() == [(1, "a", Decimal("1.25"), 4000)]
    cur.execute("BEGIN")  # sysbench prepares BEGIN and COMMIT
    cur.execute("INSERT INTO app.p (v) VALUES (?)", (dt.date(2020, 1, 2),))
    cur.execute("COMMIT")
    cur.execute("SELECT v FROM app.p WHERE id = ?", (2,))
    assert cur.fetchall() == [("2020-01-02",)]
    conn.close()


def test_sqlalchemy_core_and_orm(srv: ServerProcess) -> None:
    sa = pytest.importorskip("sqlalchemy")
    from sqlalchemy.orm import DeclarativeBase, Session

    engine = sa.create_engine(f"mysql+pymysql://root:@127.0.0.1:{srv.port}/app")

    class Base(DeclarativeBase):
        pass

    class User(Base):
        __tablename__ = "users"
        id = sa.Column(sa.Integer, primary_key=True)  # classic columns: annotations are strings here
        name = sa.Column(sa.String(30), nullable=False)

    Base.metadata.create_all(engine)
    with Session(engine) as s:
        s.add_all([User(name="a"), User(name="b")])
        s.commit()
        assert [u.name for u in s.scalars(sa.select(User).order_by(User.id))] == ["a", "b"]
        s.add(User(name="c"))
        s.flush()
        s.rollback()
        assert s.scalar(sa.select(sa.func.count()).select_from(User)) == 2
    inspector = sa.inspect(engine)
    assert "users" in inspector.get_table_names()
    assert [c["name"] for c in inspector.get_columns("users")] == ["id", "name"]
    engine.dispose()


def test_sysbench_oltp_read_write_prepared(srv: ServerProcess) -> None:
    exe = shutil.which("sysbench")
    if exe is None:
        pytest.skip("sysbench not installed (.ci/run installs it)")
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE sbtest")
    conn.close()
    base = [
        exe,
        "oltp_read_write",
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        f"--mysql-port={srv.port}",
        "--mysql-user=root",
        "--mysql-password=",
        "--tables=1",
        "--table-size=100",
    ]
    r = subprocess.run([*base, "prepare"], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    # unmodified oltp_read_write: server-side prepared statements (BEGIN and COMMIT too), 4 threads
    r = subprocess.run(
        [*base, "--threads=4", "--events=20", "--time=0", "run"],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "FATAL" not in r.stdout + r.stderr
    assert "transactions:                        20 " in r.stdout


def test_privileges_grant_revoke_and_enforcement(srv: ServerProcess) -> None:
    root = _pymysql(srv)
    with root.cursor() as cur:
        cur.execute("CREATE USER 'ro'@'%' IDENTIFIED BY 'ro-pw'")
        cur.execute("GRANT SELECT ON app.* TO 'ro'@'%'")
        cur.execute("SHOW GRANTS FOR 'ro'@'%'")
        assert cur.fetchall() == (
            ("GRANT USAGE ON *.* TO `ro`@`%`",),
            ("GRANT SELECT ON `app`.* TO `ro`@`%`",),
        )
    ro = _pymysql(srv, user="ro", password="ro-pw", database="app")
    with ro.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM t")
        with pytest.raises(pymysql.err.OperationalError) as exc:
            cur.execute("INSERT INTO t (v) VALUES ('no')")
        assert exc.value.args == (1142, "INSERT command denied to user 'ro'@'localhost' for table 't'")
        with pytest.raises(pymysql.err.OperationalError) as exc:
            cur.execute("USE mysql")
        assert exc.value.args[0] == 1044
        with pytest.raises(pymysql.err.OperationalError) as exc:
            cur.execute("SET GLOBAL gtid_executed_compression_period = 5")
        assert exc.value.args[0] == 1227 and "SYSTEM_VARIABLES_ADMIN" in exc.value.args[1]
        with pytest.raises(pymysql.err.OperationalError) as exc:
            cur.execute("SHUTDOWN")
        assert exc.value.args[0] == 1227
        with pytest.raises(pymysql.err.OperationalError) as exc:
            cur.execute(f"KILL {root.thread_id()}")
        assert exc.value.args[0] == 1095
        cur.execute("SHOW PROCESSLIST")
        assert {r[1] for r in cur.fetchall()} == {"ro"}
        with pytest.raises(pymysql.err.OperationalError) as exc:
            cur.execute("CREATE USER 'x'@'%'")
        assert exc.value.args[0] == 1227
        cur.execute("ALTER USER 'ro'@'%' IDENTIFIED BY 'ro-pw1'")  # one's own password: no privilege needed
        cur.execute("SET PASSWORD = 'ro-pw2'")
    with root.cursor() as cur:
        cur.execute("REVOKE SELECT ON app.* FROM 'ro'@'%'")
    with ro.cursor() as cur, pytest.raises(pymysql.err.OperationalError) as exc:
        cur.execute("SELECT COUNT(*) FROM t")  # takes effect at once
    assert exc.value.args[0] == 1142
    ro.close()
    with pytest.raises(pymysql.err.OperationalError) as exc:
        _pymysql(srv, user="ro", password="ro-pw2", database="app")
    assert exc.value.args[0] == 1044
    with root.cursor() as cur:
        cur.execute("SHOW GRANTS")
        assert cur.fetchone()[0].endswith("ON *.* TO `root`@`localhost` WITH GRANT OPTION")
        cur.execute("DROP USER 'ro'@'%'")
    root.close()


# packet framing is the connection's own (no worker crosses): one process is enough
@pytest.mark.parametrize("server_mode", ["plain"], indirect=True)
def test_packets_above_16_mib_both_directions(srv: ServerProcess) -> None:
    conn = _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("SELECT REPEAT('x', 17000000)")  # the row goes out as two physical packets
        assert len(cur.fetchone()[0]) == 17_000_000
        cur.execute(
            "SELECT LENGTH('" + "y" * 17_000_000 + "')"
        )  # PyMySQL splits the query; the server joins it
        assert cur.fetchone() == (17_000_000,)
    conn.close()


def _in_thread(conn: pymysql.connections.Connection, sql: str, out: list) -> threading.Thread:
    def run() -> None:
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
                out.append(cur.fetchall())
        except pymysql.err.MySQLError as err:
            out.append(err.args)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _wait_running(killer: pymysql.connections.Connection, victim_id: int, needle: str) -> None:
    with killer.cursor() as cur:
        for _ in range(200):
            cur.execute(f"SELECT INFO FROM information_schema.PROCESSLIST WHERE ID = {victim_id}")
            row = cur.fetchone()
            if row and row[0] and needle in row[0]:
                return
            time.sleep(0.02)
    raise AssertionError(f"{needle!r} never showed up in the process list")


def test_kill_query_over_the_wire(srv: ServerProcess) -> None:
    # RM8 "KILL Statement": KILL QUERY ends the statement, the connection stays; SLEEP() then returns 1
    # ("Miscellaneous Functions"); other statements fail with 1317 ER_QUERY_INTERRUPTED
    victim, killer = _pymysql(srv), _pymysql(srv)
    vid = victim.thread_id()
    out: list = []
    t = _in_thread(victim, "SELECT SLEEP(60)", out)
    _wait_running(killer, vid, "SLEEP(60)")
    with killer.cursor() as cur:
        cur.execute(f"KILL QUERY {vid}")
    t.join(10)
    assert out == [((1,),)]
    long_query = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000) SELECT COUNT(*) FROM c"
    with victim.cursor() as vcur:  # a recursion this deep needs more than cte_max_recursion_depth's 1000
        vcur.execute("SET SESSION cte_max_recursion_depth = 4294967295")
    out.clear()
    t = _in_thread(victim, long_query, out)
    _wait_running(killer, vid, "WITH RECURSIVE")
    with killer.cursor() as cur:
        cur.execute(f"KILL QUERY {vid}")
    t.join(10)
    assert out == [(1317, "Query execution was interrupted")]
    with victim.cursor() as vcur:  # the connection is still usable
        vcur.execute("SELECT 2")
        assert vcur.fetchone() == (2,)
    # KILL CONNECTION during a statement: the victim loses the connection
    out.clear()
    t = _in_thread(victim, "SELECT SLEEP(60)", out)
    _wait_running(killer, vid, "SLEEP(60)")
    with killer.cursor() as cur:
        cur.execute(f"KILL CONNECTION {vid}")
    t.join(10)
    assert not t.is_alive()
    assert out and out[0][0] == 2013  # CR_SERVER_LOST: the server closed the connection mid-statement
    with pytest.raises(pymysql.err.MySQLError), victim.cursor() as vcur:
        vcur.execute("SELECT 1")
    killer.close()


def test_kill_needs_ownership_or_connection_admin(srv: ServerProcess) -> None:
    root, other = _pymysql(srv), _pymysql(srv)
    with root.cursor() as cur:
        cur.execute("CREATE USER 'plain'@'%' IDENTIFIED BY 'plain-pw'")
    plain = _pymysql(srv, user="plain", password="plain-pw")
    try:
        with plain.cursor() as cur:
            with pytest.raises(pymysql.err.OperationalError) as exc:
                cur.execute(f"KILL QUERY {other.thread_id()}")
            assert exc.value.args == (1095, f"You are not owner of thread {other.thread_id()}")
            with pytest.raises(pymysql.err.OperationalError) as exc:
                cur.execute("KILL QUERY 4000000")
            assert exc.value.args == (1094, "Unknown thread id: 4000000")
            cur.execute(f"KILL QUERY {plain.thread_id()}")  # its own connection: allowed, nothing running
            cur.execute("SELECT ID, USER FROM information_schema.PROCESSLIST")
            assert cur.fetchall() == ((plain.thread_id(), "plain"),)  # no PROCESS: own threads only
    finally:
        plain.close()
        other.close()
        with root.cursor() as cur:
            cur.execute("DROP USER 'plain'@'%'")
        root.close()


def test_processlist_tables_match_show_processlist(srv: ServerProcess) -> None:
    conn, other = _pymysql(srv, database="app"), _pymysql(srv)
    with conn.cursor() as cur:
        cur.execute("SHOW FULL PROCESSLIST")
        shown = {r[0]: r for r in cur.fetchall()}
        cur.execute(
            "SELECT ID, USER, HOST, DB, COMMAND, TIME, STATE, INFO FROM information_schema.PROCESSLIST"
        )
        assert [d[0] for d in cur.description] == [
            "ID",
            "USER",
            "HOST",
            "DB",
            "COMMAND",
            "TIME",
            "STATE",
            "INFO",
        ]
        # MySQL's types: ID bigint unsigned, TIME int, the rest strings
        assert [d[1] for d in cur.description][:6] == [
            pymysql.constants.FIELD_TYPE.LONGLONG,
            pymysql.constants.FIELD_TYPE.VAR_STRING,
            pymysql.constants.FIELD_TYPE.VAR_STRING,
            pymysql.constants.FIELD_TYPE.VAR_STRING,
            pymysql.constants.FIELD_TYPE.VAR_STRING,
            pymysql.constants.FIELD_TYPE.LONG,
        ]
        rows = {r[0]: r for r in cur.fetchall()}
        assert set(rows) == set(shown)
        mine = rows[conn.thread_id()]
        assert mine[1:5] == ("root", shown[conn.thread_id()][2], "app", "Query")
        assert mine[7].startswith("SELECT ID, USER")
        assert rows[other.thread_id()][4] == "Sleep" and rows[other.thread_id()][7] is None
        cur.execute(
            "SELECT ID, COMMAND FROM performance_schema.processlist WHERE ID = %s", (other.thread_id(),)
        )
        assert cur.fetchall() == ((other.thread_id(), "Sleep"),)
        cur.execute("SELECT COUNT(*) FROM performance_schema.processlist WHERE EXECUTION_ENGINE = 'PRIMARY'")
        assert cur.fetchone() == (len(shown),)
    conn.close()
    other.close()
