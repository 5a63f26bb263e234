"""What drivers and their CI scripts use around the SQL (issue 19 section 3), through real drivers on a real
server process. Expected values are MySQL 8.0's (manual pages cited per test)."""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterator

import mysql.connector
import pymysql
import pytest
from pymysql.constants import CLIENT

from .server_proc import ServerProcess, running_server


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    datadir = tmp_path_factory.mktemp("driverci") / "data"
    # row locks OFF: test_blocking_session_is_reported_where_mysql_reports_it lists the one-writer wait (issue 19
    # §4) with the holder's and waiter's rows only; with ON the holder's table lock adds its own lock rows
    with running_server(
        datadir, "--skip-log-bin", "--gtid-mode=OFF", "--server-id=19", "--gtidkit-row-locks=OFF"
    ) as s:
        conn = pymysql.connect(host="127.0.0.1", port=s.port, user="root", password="", autocommit=True)
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE ci")  # each test runs alone too (-k)
        conn.close()
        yield s


def _conn(srv: ServerProcess, **kw: object) -> pymysql.connections.Connection:
    args: dict[str, object] = {
        "host": "127.0.0.1",
        "port": srv.port,
        "user": "root",
        "password": "",
        "autocommit": True,
        **kw,
    }
    return pymysql.connect(**args)  # type: ignore[arg-type]


def _error(conn: pymysql.connections.Connection, sql: str) -> int:
    with pytest.raises(pymysql.err.MySQLError) as exc, conn.cursor() as cur:
        cur.execute(sql)
    return int(exc.value.args[0])


def test_negative_auto_increment_is_inserted(srv: ServerProcess) -> None:
    """An explicit negative AUTO_INCREMENT value is stored as given; the OK packet's insert id is the value as a
    ulonglong (sql_insert.cc: ``id = next_number_field->val_int()`` into a ulonglong), and it does not move the
    counter (InnoDB's counter is unsigned)."""
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE ci.neg (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
        cur.execute("INSERT INTO ci.neg VALUES (-5, 1)")
        assert cur.lastrowid == 2**64 - 5
        cur.execute("INSERT INTO ci.neg (v) VALUES (2)")
        assert cur.lastrowid == 1
        cur.execute("SELECT id, v FROM ci.neg ORDER BY id")
        assert cur.fetchall() == ((-5, 1), (1, 2))
    other = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", autocommit=True
    )
    cur2 = other.cursor()
    cur2.execute("INSERT INTO ci.neg VALUES (-7, 3)")
    assert cur2.lastrowid == 2**64 - 7
    other.close()
    conn.close()


@pytest.mark.parametrize(
    "sql",
    [
        pytest.param("SELECT ?", id="question-mark"),
        pytest.param("SELECT * FROM ci.neg WHERE id = ?", id="question-mark-in-where"),
        pytest.param("SELECT * FROM ci.neg WHERE id = :id", id="named"),
    ],
)
def test_parameter_markers_in_a_text_query_are_1064(srv: ServerProcess, sql: str) -> None:
    """MySQL's grammar takes `?` only in a prepared statement; `:name` is no token at all: ER_PARSE_ERROR near
    the marker."""
    conn = _conn(srv)
    with pytest.raises(pymysql.err.ProgrammingError) as exc, conn.cursor() as cur:
        cur.execute(sql)
    code, message = exc.value.args
    assert code == 1064
    marker = "?" if "?" in sql else ":id"
    assert message.endswith(f"near '{marker}' at line 1")
    with conn.cursor() as cur:  # the session goes on
        cur.execute("SHOW WARNINGS")
        assert cur.fetchall()[0][1] == 1064
    conn.close()


def test_alter_table_under_a_view(srv: ServerProcess) -> None:
    """ALTER TABLE of a table a view reads keeps the view working (the fuzz found an internal error here)."""
    conn = _conn(srv, database="ci")
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE base (a INT, b INT)")
        cur.execute("INSERT INTO base VALUES (1, 2)")
        cur.execute("CREATE VIEW vb AS SELECT a, b FROM base")
        cur.execute("ALTER TABLE base ADD COLUMN c INT")
        cur.execute("SELECT * FROM vb")
        assert cur.fetchall() == ((1, 2),)
    conn.close()


def _tls() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


#: (statement, user, SHOW CREATE USER must contain): the account forms driver CI scripts run (manual "CREATE USER
#: Statement"; SHOW CREATE USER's clause order: IDENTIFIED WITH ... REQUIRE ... PASSWORD EXPIRE ... ACCOUNT ...)
ACCOUNT_FORMS = [
    pytest.param(
        "CREATE USER 'dq'@'%' IDENTIFIED WITH \"mysql_native_password\" BY \"pw-dq\"",
        "dq",
        "IDENTIFIED WITH 'mysql_native_password' AS '*",
        id="double-quoted-plugin-and-password",
    ),
    pytest.param(
        "CREATE USER 'nopw'@'%' IDENTIFIED WITH caching_sha2_password",
        "nopw",
        "IDENTIFIED WITH 'caching_sha2_password' REQUIRE NONE",
        id="plugin-without-password",
    ),
    pytest.param(
        "CREATE USER 'never'@'%' IDENTIFIED BY 'pw-never' PASSWORD EXPIRE NEVER",
        "never",
        "REQUIRE NONE PASSWORD EXPIRE NEVER ACCOUNT UNLOCK",
        id="password-expire-never",
    ),
    pytest.param(
        "CREATE USER 'tlsonly'@'%' IDENTIFIED BY 'pw-tls' REQUIRE SSL",
        "tlsonly",
        "REQUIRE SSL PASSWORD EXPIRE DEFAULT",
        id="require-ssl",
    ),
    pytest.param(
        "CREATE USER 'sha'@'%' IDENTIFIED WITH sha256_password BY 'pw-sha'",
        "sha",
        "IDENTIFIED WITH 'sha256_password' AS '$5$",
        id="sha256-password",
    ),
]


@pytest.mark.parametrize(("sql", "user", "shown"), ACCOUNT_FORMS)
def test_account_forms(srv: ServerProcess, sql: str, user: str, shown: str) -> None:
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute(sql)
        cur.execute(f"SHOW CREATE USER '{user}'@'%'")
        (text,) = cur.fetchone()
        assert shown in text
    conn.close()


def test_several_users_in_one_create_user(srv: ServerProcess) -> None:
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute("CREATE USER 'm1'@'%' IDENTIFIED BY 'a1', 'm2'@'localhost' IDENTIFIED BY 'a2', 'm3'")
        cur.execute("SELECT User, Host FROM mysql.user WHERE User LIKE 'm_' ORDER BY User")
        assert cur.fetchall() == (("m1", "%"), ("m2", "localhost"), ("m3", "%"))
    for user, pw in (("m1", "a1"), ("m2", "a2"), ("m3", "")):
        _conn(srv, user=user, password=pw).close()
    conn.close()


@pytest.mark.parametrize(
    ("user", "password"),
    [pytest.param("dq", "pw-dq", id="double-quoted"), pytest.param("never", "pw-never", id="expire-never")],
)
def test_created_accounts_log_in(srv: ServerProcess, user: str, password: str) -> None:
    conn = _conn(srv, user=user, password=password)
    with conn.cursor() as cur:
        cur.execute("SELECT CURRENT_USER()")
        assert cur.fetchone() == (f"{user}@%",)
    conn.close()


def test_require_ssl_is_enforced(srv: ServerProcess) -> None:
    """REQUIRE SSL (mysql.user.ssl_type 'ANY'): a plain connection is refused with 1045, a TLS one logs in."""
    with pytest.raises(pymysql.err.OperationalError) as exc:
        _conn(srv, user="tlsonly", password="pw-tls", ssl_disabled=True)
    assert exc.value.args[0] == 1045
    conn = _conn(srv, user="tlsonly", password="pw-tls", ssl=_tls())
    with conn.cursor() as cur:
        cur.execute("SELECT CURRENT_USER()")
        assert cur.fetchone() == ("tlsonly@%",)
    conn.close()


@pytest.mark.parametrize(
    ("how", "kwargs"),
    [
        pytest.param("pymysql-rsa", {"ssl_disabled": True}, id="pymysql-rsa-key-exchange"),
        pytest.param("pymysql-tls", {"ssl": "tls"}, id="pymysql-tls-clear"),
        pytest.param("connector-tls", {}, id="connector-tls"),
    ],
)
def test_sha256_password_login(srv: ServerProcess, how: str, kwargs: dict[str, object]) -> None:
    """sha256_password beside caching_sha2's RSA path: the RSA public key on request (0x01), or the clear password
    over TLS; a wrong password is 1045."""
    if how.startswith("pymysql"):
        args = {k: (_tls() if v == "tls" else v) for k, v in kwargs.items()}
        conn = _conn(srv, user="sha", password="pw-sha", **args)
        with conn.cursor() as cur:
            cur.execute("SELECT CURRENT_USER()")
            assert cur.fetchone() == ("sha@%",)
        conn.close()
        with pytest.raises(pymysql.err.OperationalError) as exc:
            _conn(srv, user="sha", password="wrong", **args)
        assert exc.value.args[0] == 1045
    else:
        cc = mysql.connector.connect(
            host="127.0.0.1", port=srv.port, user="sha", password="pw-sha", auth_plugin="sha256_password"
        )
        assert cc.is_connected()
        cc.close()


def test_show_plugins(srv: ServerProcess) -> None:
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute("SHOW PLUGINS")
        assert [d[0] for d in cur.description] == ["Name", "Status", "Type", "Library", "License"]
        rows = {r[0]: r for r in cur.fetchall()}
    for name in ("mysql_native_password", "sha256_password", "caching_sha2_password"):
        assert rows[name] == (name, "ACTIVE", "AUTHENTICATION", None, "GPL")
    assert rows["InnoDB"][2] == "STORAGE ENGINE"
    conn.close()


def test_ssl_status_under_tls(srv: ServerProcess) -> None:
    """Ssl_cipher / Ssl_version: the connection's TLS cipher and protocol; empty on a plain connection (RM8
    "Server Status Variables")."""
    conn = _conn(srv, ssl=_tls())
    with conn.cursor() as cur:
        cur.execute("SHOW SESSION STATUS LIKE 'Ssl_%'")
        status = dict(cur.fetchall())
    assert status["Ssl_version"] in ("TLSv1.2", "TLSv1.3")
    assert status["Ssl_cipher"] == conn._sock.cipher()[0]
    conn.close()
    plain = _conn(srv, ssl_disabled=True)
    with plain.cursor() as cur:
        cur.execute("SHOW STATUS WHERE Variable_name IN ('Ssl_cipher', 'Ssl_version')")
        assert cur.fetchall() == (("Ssl_cipher", ""), ("Ssl_version", ""))
    plain.close()


@pytest.mark.parametrize(
    ("variable", "default"),
    [
        pytest.param("local_infile", 0, id="local_infile-off"),
        pytest.param("max_prepared_stmt_count", 16382, id="max_prepared_stmt_count"),
        pytest.param("cte_max_recursion_depth", 1000, id="cte_max_recursion_depth"),
        pytest.param("max_execution_time", 0, id="max_execution_time"),
        pytest.param("interactive_timeout", 28800, id="interactive_timeout"),
    ],
)
def test_variables_drivers_read(srv: ServerProcess, variable: str, default: int) -> None:
    """MySQL 8.0's defaults (RM8 "Server System Variables")."""
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute(f"SELECT @@GLOBAL.{variable}")
        assert cur.fetchone() == (default,)
    conn.close()


def test_load_data_local_refused_while_local_infile_off(srv: ServerProcess) -> None:
    """local_infile OFF (8.0's default): LOAD DATA LOCAL is ER_CLIENT_LOCAL_FILES_DISABLED (3948) before any file
    request."""
    conn = _conn(srv, database="ci", local_infile=True)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS ld (a INT)")
    assert _error(conn, "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE ld") == 3948
    conn.close()


def test_max_prepared_stmt_count(srv: ServerProcess) -> None:
    """Prepared_stmt_count counts SQL PREPARE and COM_STMT_PREPARE statements of every session; one more past
    max_prepared_stmt_count is 1461 (ER_MAX_PREPARED_STMT_COUNT_REACHED)."""
    admin = _conn(srv)
    with admin.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'")
        base = int(cur.fetchone()[1])
        cur.execute(f"SET GLOBAL max_prepared_stmt_count = {base + 2}")
        try:
            cur.execute("PREPARE p1 FROM 'SELECT 1'")
            binary = mysql.connector.connect(host="127.0.0.1", port=srv.port, user="root", password="")
            pc = binary.cursor(prepared=True)
            pc.execute("SELECT ? + 1", (1,))
            assert pc.fetchall() == [(2,)]
            cur.execute("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'")
            assert int(cur.fetchone()[1]) == base + 2
            with pytest.raises(pymysql.err.MySQLError) as exc:
                cur.execute("PREPARE p2 FROM 'SELECT 2'")
            assert exc.value.args == (
                1461,
                f"Can't create more than max_prepared_stmt_count statements (current value: {base + 2})",
            )
            with pytest.raises(mysql.connector.Error) as exc2:
                binary.cursor(prepared=True).execute("SELECT ? + 2", (1,))
            assert exc2.value.errno == 1461
            cur.execute("DEALLOCATE PREPARE p1")
            cur.execute("PREPARE p2 FROM 'SELECT 2'")  # room again
            binary.close()
        finally:
            cur.execute("SET GLOBAL max_prepared_stmt_count = DEFAULT")
    admin.close()


def test_reset_connection_drops_temporary_tables_and_prepared_statements(srv: ServerProcess) -> None:
    """COM_RESET_CONNECTION (mysql_reset_connection): temporary tables dropped, prepared statements deallocated,
    user variables cleared (RM8 "mysql_reset_connection()")."""
    conn = mysql.connector.connect(
        host="127.0.0.1", port=srv.port, user="root", password="", database="ci", autocommit=True
    )
    cur = conn.cursor()
    cur.execute("CREATE TEMPORARY TABLE tmp_r (a INT)")
    cur.execute("PREPARE pr FROM 'SELECT 1'")
    cur.execute("SET @kept = 1")
    pc = conn.cursor(prepared=True)
    pc.execute("SELECT ?", (5,))
    pc.fetchall()
    conn.cmd_reset_connection()
    cur = conn.cursor()
    with pytest.raises(mysql.connector.Error) as exc:
        cur.execute("SELECT * FROM tmp_r")
    assert exc.value.errno == 1146
    with pytest.raises(mysql.connector.Error) as exc:
        cur.execute("EXECUTE pr")
    assert exc.value.errno == 1243
    cur.execute("SELECT @kept")
    assert cur.fetchall() == [(None,)]
    cur.execute("SHOW SESSION STATUS LIKE 'Prepared_stmt_count'")
    conn.close()


def test_wait_timeout_per_session(srv: ServerProcess) -> None:
    """SET SESSION wait_timeout applies to the next wait: 8.0.24+ sends ER_CLIENT_INTERACTION_TIMEOUT (4031), then
    closes; an interactive client's wait_timeout starts as interactive_timeout."""
    conn = _conn(srv)
    sent = time.monotonic()  # the server's idle second starts after it answers this statement
    with conn.cursor() as cur:
        cur.execute("SET SESSION wait_timeout = 1")
    conn._sock.settimeout(10)  # the server said why before closing: ERR 4031 (sequence id 0), then EOF
    data = b""
    while chunk := conn._sock.recv(4096):
        data += chunk
    assert time.monotonic() - sent >= 0.95  # closed for the idle second, not before
    assert data[3:7] == b"\x00\xff" + (4031).to_bytes(2, "little"), data
    admin = _conn(srv)
    with admin.cursor() as cur:
        cur.execute("SET GLOBAL interactive_timeout = 1234")
        try:
            inter = _conn(srv, client_flag=CLIENT.INTERACTIVE)
            with inter.cursor() as icur:
                icur.execute("SELECT @@SESSION.wait_timeout, @@GLOBAL.wait_timeout")
                assert icur.fetchone() == (1234, 28800)
            inter.close()
        finally:
            cur.execute("SET GLOBAL interactive_timeout = DEFAULT")
    admin.close()


@pytest.mark.parametrize(
    ("setup", "sql"),
    [
        pytest.param(
            None, "SELECT /*+ MAX_EXECUTION_TIME(200) */ COUNT(*) FROM big a, big b, big c", id="hint"
        ),
        pytest.param(
            "SET SESSION max_execution_time = 200", "SELECT COUNT(*) FROM big a, big b, big c", id="variable"
        ),
    ],
)
def test_max_execution_time_stops_a_select(srv: ServerProcess, setup: str | None, sql: str) -> None:
    """A SELECT past its MAX_EXECUTION_TIME hint or max_execution_time (ms) stops with ER_QUERY_TIMEOUT (3024)
    (RM8 "Optimizer Hints"); the session goes on."""
    conn = _conn(srv, database="ci")
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS big (a INT)")
        cur.execute("SELECT COUNT(*) FROM big")
        if cur.fetchone() == (0,):
            cur.execute("INSERT INTO big VALUES " + ",".join(f"({i})" for i in range(1000)))
        if setup:
            cur.execute(setup)
    started = time.monotonic()
    assert _error(conn, sql) == 3024
    assert time.monotonic() - started < 5
    with conn.cursor() as cur:
        cur.execute("SELECT /*+ MAX_EXECUTION_TIME(200) */ SLEEP(3)")  # a sleep is cut short and returns 1
        assert cur.fetchone() == (1,)
        cur.execute("SELECT COUNT(*) FROM big")
        assert cur.fetchone() == (1000,)
    conn.close()


def test_ssl_cert_and_key_options(tmp_path_factory: pytest.TempPathFactory) -> None:
    """--ssl-cert / --ssl-key / --ssl-ca name the server's TLS files (RM8 "Command Options for Encrypted
    Connections"); a file that cannot be read stops the start-up."""
    datadir = tmp_path_factory.mktemp("sslopts") / "data"
    with running_server(datadir, "--skip-log-bin"):  # generates the datadir's certificates
        pass
    certs = datadir.parent / "certs"
    certs.mkdir()
    for src, dst in (("server-cert.pem", "c.pem"), ("server-key.pem", "k.pem"), ("ca.pem", "ca.pem")):
        (certs / dst).write_bytes((datadir / src).read_bytes())
        if dst != "ca.pem":
            (datadir / src).unlink()
    opts = (f"--ssl-cert={certs / 'c.pem'}", f"--ssl-key={certs / 'k.pem'}", f"--ssl-ca={certs / 'ca.pem'}")
    with running_server(datadir, "--skip-log-bin", "--auto-generate-certs=OFF", *opts) as s:
        conn = _conn(s, ssl=_tls())
        with conn.cursor() as cur:
            cur.execute("SHOW STATUS LIKE 'Ssl_version'")
            assert cur.fetchone()[1].startswith("TLSv1.")
        conn.close()
    missing = f"--ssl-cert={certs / 'missing.pem'}"
    with pytest.raises(AssertionError, match="Failed to set up SSL"), running_server(datadir, missing):
        pass


def test_blocking_session_is_reported_where_mysql_reports_it(srv: ServerProcess) -> None:
    """One writer (issue 19 §4): a session holding a write transaction makes another session's INSERT into another
    table wait, then fail with 1205; meanwhile information_schema.INNODB_TRX shows the holder RUNNING and the waiter
    LOCK WAIT, and performance_schema.data_lock_waits pairs them (RM8 "Using InnoDB Transaction and Locking
    Information")."""
    holder = _conn(srv, database="ci")
    waiter = _conn(srv, database="ci")
    observer = _conn(srv)
    with holder.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS lw1 (a INT)")
        cur.execute("CREATE TABLE IF NOT EXISTS lw2 (a INT)")
        cur.execute("BEGIN")
        cur.execute("INSERT INTO lw1 VALUES (1)")
    outcome: dict[str, BaseException] = {}

    def blocked_insert() -> None:
        try:
            with waiter.cursor() as wcur:
                wcur.execute("SET SESSION innodb_lock_wait_timeout = 3")
                wcur.execute("INSERT INTO lw2 VALUES (2)")
        except pymysql.err.MySQLError as err:
            outcome["err"] = err

    thread = threading.Thread(target=blocked_insert)
    thread.start()
    try:
        deadline = time.monotonic() + 2.5
        waits: tuple = ()
        with observer.cursor() as cur:
            while time.monotonic() < deadline and not waits:
                cur.execute(
                    "SELECT REQUESTING_THREAD_ID, BLOCKING_THREAD_ID FROM performance_schema.data_lock_waits"
                )
                waits = cur.fetchall()
            assert waits == ((waiter.thread_id(), holder.thread_id()),)
            cur.execute(
                "SELECT trx_mysql_thread_id, trx_state FROM information_schema.INNODB_TRX ORDER BY trx_state"
            )
            assert cur.fetchall() == ((waiter.thread_id(), "LOCK WAIT"), (holder.thread_id(), "RUNNING"))
    finally:
        thread.join()
    assert outcome["err"].args == (1205, "Lock wait timeout exceeded; try restarting transaction")
    with holder.cursor() as cur:
        cur.execute("COMMIT")
    with observer.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM information_schema.INNODB_TRX")
        assert cur.fetchone() == (0,)
        cur.execute("SELECT COUNT(*) FROM performance_schema.data_lock_waits")
        assert cur.fetchone() == (0,)
    for c in (holder, waiter, observer):
        c.close()


@pytest.mark.parametrize(
    ("expr", "value", "warned"),
    [
        pytest.param("CAST('abc' AS SIGNED)", 0, "abc", id="no-digits"),
        pytest.param("CAST('12x' AS SIGNED)", 12, "12x", id="digits-then-junk"),
        pytest.param("CAST(' 12 ' AS SIGNED)", 12, None, id="spaces-are-clean"),
        pytest.param("CAST(s AS SIGNED)", 7, "7up", id="string-column"),
    ],
)
def test_cast_string_as_signed_warns_1292(
    srv: ServerProcess, expr: str, value: int, warned: str | None
) -> None:
    """CAST of a string that is not an integer reads its integer prefix and warns 1292 "Truncated incorrect
    INTEGER value" (RM8 "Cast Functions and Operators"; Item_func_signed::val_int)."""
    conn = _conn(srv, database="ci")
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE IF NOT EXISTS casts (s VARCHAR(10))")
        cur.execute("DELETE FROM casts")
        cur.execute("INSERT INTO casts VALUES ('7up')")
        cur.execute(f"SELECT {expr} FROM casts")
        assert cur.fetchone() == (value,)
        cur.execute("SHOW WARNINGS")
        expected = (
            () if warned is None else (("Warning", 1292, f"Truncated incorrect INTEGER value: '{warned}'"),)
        )
        assert cur.fetchall() == expected
    conn.close()


@pytest.mark.parametrize(
    "table",
    [
        "user",
        "db",
        "global_grants",
        "tables_priv",
        "columns_priv",
        "procs_priv",
        "proxies_priv",
        "role_edges",
        "default_roles",
        "password_history",
    ],
)
def test_grant_tables_readable(srv: ServerProcess, table: str) -> None:
    """MySQL 8.0's grant tables answer a SELECT (RM8 "Grant Tables"); the ones gtidkit never fills are empty."""
    conn = _conn(srv)
    with conn.cursor() as cur:
        cur.execute(f"SELECT COUNT(*) FROM mysql.{table}")
        (count,) = cur.fetchone()
        assert count >= (1 if table in ("user", "global_grants") else 0)
        cur.execute("SELECT User, Host, plugin FROM mysql.user WHERE User = 'root'")
        assert cur.fetchone() == ("root", "localhost", "caching_sha2_password")
    conn.close()


@pytest.mark.parametrize(
    ("limit", "sql", "expected"),
    [
        pytest.param(None, "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT * FROM c",
                     1001, id="manual-runaway"),
        pytest.param(None, "WITH RECURSIVE c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000) "
                     "SELECT COUNT(*) FROM c", (1000,), id="within-default"),
        pytest.param(10, "WITH RECURSIVE c AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM c WHERE n < 100) "
                     "SELECT COUNT(*) FROM c", 11, id="session-limit"),
    ],
)  # fmt: skip
def test_cte_max_recursion_depth(srv: ServerProcess, limit: int | None, sql: str, expected: object) -> None:
    """A recursion that would start iteration cte_max_recursion_depth + 1 stops with 3636 (RM8 "Limiting Common
    Table Expression Recursion": "Recursive query aborted after 1001 iterations")."""
    conn = _conn(srv)
    with conn.cursor() as cur:
        if limit is not None:
            cur.execute(f"SET SESSION cte_max_recursion_depth = {limit}")
        if isinstance(expected, int):
            with pytest.raises(pymysql.err.MySQLError) as exc:
                cur.execute(sql)
            text = f"Recursive query aborted after {expected} iterations. Try increasing @@cte_max_recursion_depth"
            assert exc.value.args == (3636, text + " to a larger value.")
        else:
            cur.execute(sql)
            assert cur.fetchone() == expected
    conn.close()
