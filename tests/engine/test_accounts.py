"""Issue 17 section 2: account statements are DDL in the engine (one GTID, MySQL's binlog form, grant tables).

Expected binlog texts come from MySQL's mysql-test ``suite/binlog/r/binlog_grant_alter_user.result`` (the rewritten
CREATE / ALTER USER with ``IDENTIFIED WITH 'plugin' AS 'hash'``, GRANT with its privileges listed and the database
quoted, REVOKE and DROP USER as written) and 8.0.45 output (SET PASSWORD logged as ALTER USER ... AS); native
hashes are MySQL's documented ``*`` + HEX(SHA1(SHA1(password))) computed here with hashlib; the SHA-256 crypt
digest is checked against glibc crypt(3)'s output for the same password, salt and rounds.
"""

from __future__ import annotations

import hashlib
import re

import pytest

from gtidkit.engine.accounts.passwords import CACHING_SHA2, NATIVE, check_password, sha256_crypt_digest
from gtidkit.errors import MySQLError

HASH = "*67092806AE91BFB6BE72DE6C7BE2B7CCA8CFA9DF"  # the hash mysql-test's binlog_grant_alter_user writes AS


def native(password: str) -> str:
    return "*" + hashlib.sha1(hashlib.sha1(password.encode()).digest()).hexdigest().upper()


def last_query(s) -> str:
    return [r[5] for r in s.execute("SHOW BINLOG EVENTS")[-1].rows if r[2] == "Query"][-1]


def executed_count(srv) -> int:
    return srv.gtid_state.executed().count()


U1 = "CREATE USER u1@localhost IDENTIFIED WITH mysql_native_password BY 'secret'"


@pytest.mark.parametrize(
    "setup,stmt,logged",
    [
        (
            (),
            U1,
            f"CREATE USER 'u1'@'localhost' IDENTIFIED WITH 'mysql_native_password' AS '{native('secret')}'",
        ),
        ((), "CREATE USER user1", "CREATE USER 'user1'@'%' IDENTIFIED WITH 'caching_sha2_password'"),
        (
            (),
            "CREATE USER u1@localhost IDENTIFIED WITH 'mysql_native_password'",
            "CREATE USER 'u1'@'localhost' IDENTIFIED WITH 'mysql_native_password'",
        ),
        (
            (),
            f"CREATE USER user8@localhost IDENTIFIED WITH 'mysql_native_password'\n   AS '{HASH}'",
            f"CREATE USER 'user8'@'localhost' IDENTIFIED WITH 'mysql_native_password' AS '{HASH}'",
        ),
        (
            (),
            f"CREATE USER u1@localhost, u2@localhost IDENTIFIED WITH 'mysql_native_password' AS '{HASH}'",
            (
                "CREATE USER 'u1'@'localhost' IDENTIFIED WITH 'caching_sha2_password',"
                f"'u2'@'localhost' IDENTIFIED WITH 'mysql_native_password' AS '{HASH}'"
            ),
        ),
        (
            (U1,),
            "GRANT SELECT,INSERT,UPDATE ON mysql.* TO u1@localhost",
            "GRANT SELECT, INSERT, UPDATE ON `mysql`.* TO 'u1'@'localhost'",
        ),
        ((U1,), "GRANT SELECT ON *.* TO u1@localhost", "GRANT SELECT ON *.* TO 'u1'@'localhost'"),
        ((U1,), "GRANT ALL ON *.* TO u1@localhost", "GRANT ALL PRIVILEGES ON *.* TO 'u1'@'localhost'"),
        (
            (U1,),
            "grant select on `d b`.* to 'u1'@'localhost' with grant option",
            "GRANT SELECT ON `d b`.* TO 'u1'@'localhost' WITH GRANT OPTION",
        ),
        (
            (U1, "GRANT SELECT, INSERT ON mysql.* TO u1@localhost"),
            "REVOKE INSERT,UPDATE ON mysql.* FROM u1@localhost",
            "REVOKE INSERT,UPDATE ON mysql.* FROM u1@localhost",
        ),
        ((U1,), "DROP USER u1@localhost", "DROP USER u1@localhost"),
        (
            (U1,),
            f"ALTER USER u1@localhost IDENTIFIED WITH 'mysql_native_password' AS '{HASH}'",
            f"ALTER USER 'u1'@'localhost' IDENTIFIED WITH 'mysql_native_password' AS '{HASH}'",
        ),
        ((U1,), "ALTER USER u1@localhost PASSWORD EXPIRE", "ALTER USER 'u1'@'localhost' PASSWORD EXPIRE"),
        (
            (U1,),
            "SET PASSWORD FOR u1@localhost = 'other'",
            f"ALTER USER 'u1'@'localhost' IDENTIFIED WITH 'mysql_native_password' AS '{native('other')}'",
        ),
        ((U1,), "RENAME USER u1@localhost TO u9@'%'", "RENAME USER u1@localhost TO u9@'%'"),
        ((), "CREATE ROLE r1, r2", "CREATE ROLE r1, r2"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_logged_as_mysql_rewrites_it(open_server, setup, stmt, logged):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    for text in setup:
        s.execute(text)
    before = executed_count(srv)
    s.execute(stmt)
    assert executed_count(srv) == before + 1  # one GTID: its own Gtid event, then the Query event
    assert last_query(s) == logged
    kinds = [r[2] for r in s.execute("SHOW BINLOG EVENTS")[-1].rows]
    assert kinds[-2:] == ["Gtid", "Query"]


def test_caching_sha2_is_logged_as_its_hash(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE USER 'app'@'%' IDENTIFIED BY 'pw'")
    text = last_query(s)
    m = re.fullmatch(r"CREATE USER 'app'@'%' IDENTIFIED WITH 'caching_sha2_password' AS '(.*)'", text)
    assert m is not None and "pw'" not in text
    stored = s.execute("SELECT authentication_string FROM mysql.user WHERE user = 'app'")[-1].rows[0][0]
    assert m.group(1) == stored and stored.startswith("$A$005$") and len(stored) == 70
    assert check_password(CACHING_SHA2, stored, "pw") and not check_password(CACHING_SHA2, stored, "pW")


@pytest.mark.parametrize(
    "password,salt,expected",
    [  # glibc crypt(3): crypt(password, "$5$rounds=5000$" + salt), digest part
        ("Hello world!", "saltstring", "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"),
        ("pw12", "abcdefghijklmnop", "gQnb7a2J/E2rllBd52ociNpJ7T1j9e.fAYSbb7kckQ5"),
        ("a" * 40, "xyz", "yt/4k1x.L7Zr0yB4SKxIN6ishRqqyfnZagkeFm/YkC9"),
    ],
    ids=["spec", "16-byte-salt", "long-password"],
)
def test_sha256_crypt_matches_glibc(password, salt, expected):
    assert sha256_crypt_digest(password.encode(), salt.encode(), 5000) == expected


def test_grant_tables_hold_the_accounts(open_server):
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    s.execute("CREATE USER 'app'@'%' IDENTIFIED WITH mysql_native_password BY 'x'")
    s.execute("GRANT SELECT, INSERT ON shop.* TO 'app'@'%'; GRANT PROCESS, BINLOG_ADMIN ON *.* TO 'app'@'%'")
    assert s.execute(
        "SELECT host, user, plugin, authentication_string, Select_priv, Process_priv FROM mysql.user"
    )[-1].rows == [("%", "app", NATIVE, native("x"), "N", "Y")]
    assert s.execute("SELECT host, db, user, Select_priv, Insert_priv, Update_priv FROM mysql.db")[
        -1
    ].rows == [("%", "shop", "app", "Y", "Y", "N")]
    assert s.execute("SELECT * FROM mysql.global_grants")[-1].rows == [("app", "%", "BINLOG_ADMIN", "N")]
    acc = srv.accounts.get("app", "%")
    assert (
        acc is not None
        and "PROCESS" in acc.privileges
        and acc.db_privileges == (("shop", ("SELECT", "INSERT")),)
    )
    s.execute("REVOKE INSERT ON shop.* FROM 'app'@'%'")
    assert srv.accounts.get("app", "%").db_privileges == (("shop", ("SELECT",)),)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "setup,stmt,code,text",
    [
        (("CREATE USER u",), "CREATE USER u", 1396, "Operation CREATE USER failed for 'u'@'%'"),
        ((), "DROP USER u, v@h", 1396, "Operation DROP USER failed for 'u'@'%','v'@'h'"),
        ((), "ALTER USER u IDENTIFIED BY 'x'", 1396, "Operation ALTER USER failed for 'u'@'%'"),
        ((), "RENAME USER u TO v", 1396, "Operation RENAME USER failed for 'u'@'%'"),
        ((), "GRANT SELECT ON *.* TO nobody", 1410, "You are not allowed to create a user with GRANT"),
        (
            (),
            "CREATE USER u IDENTIFIED WITH no_such_plugin BY 'x'",
            1524,
            "Plugin 'no_such_plugin' is not loaded",
        ),
        (
            ("CREATE USER u",),
            "GRANT SUPER ON d.* TO u",
            1221,
            "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES",
        ),
        (("CREATE USER u", "CREATE ROLE r"), "GRANT r TO u", 1235, None),
        ((), "CREATE USER 'u'@", 1064, None),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_errors_consume_no_gtid(open_server, setup, stmt, code, text):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    for t in setup:
        s.execute(t)
    before = executed_count(srv)
    with pytest.raises(MySQLError) as err:
        s.execute(stmt)
    assert err.value.code == code
    if text is not None:
        assert err.value.message == text
    assert executed_count(srv) == before


def test_if_exists_notes_and_still_logged(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE USER u")
    res = s.execute("CREATE USER IF NOT EXISTS u, v")[-1]
    assert [(w.code, w.message) for w in res.warnings] == [(3163, "Authorization ID 'u'@'%' already exists.")]
    assert srv.accounts.get("v", "%") is not None
    res = s.execute("DROP USER IF EXISTS nobody")[-1]
    assert [(w.code, w.message) for w in res.warnings] == [
        (3162, "Authorization ID 'nobody'@'%' does not exist.")
    ]
    assert last_query(s) == "DROP USER IF EXISTS nobody"


def test_implicit_commit(open_server):
    """An account statement inside BEGIN commits the open transaction first (its own GTID before the account's)."""
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY)")
    before = executed_count(srv)
    s.execute("BEGIN; INSERT INTO d.t VALUES (1); CREATE USER u; ROLLBACK")
    assert executed_count(srv) == before + 2
    assert s.execute("SELECT id FROM d.t")[-1].rows == [(1,)]


def test_binlog_ahead_of_engine_restores_accounts(open_server):
    """Recovery of a datadir written binlog-first (before the commit log) re-applies a logged account statement
    the database lost (test_recovery's fault injection)."""
    from test_recovery import as_binlog_first_datadir, crash

    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("CREATE USER keep IDENTIFIED BY 'k'")
    real_commit = s.conn.commit

    def failing_commit(**_kw: object) -> None:
        raise OSError("simulated crash before the engine commit")

    s.conn.commit = failing_commit
    applied = srv.binlog.position
    with pytest.raises(OSError):
        s.execute("CREATE USER 'late'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'")
    s.conn.commit = real_commit
    crash(srv)
    as_binlog_first_datadir(srv.datadir, applied)
    srv2 = open_server(gtid_mode="ON", log_bin=True)
    late = srv2.accounts.get("late", "%")
    assert late is not None and late.authentication_string == native("pw")
    keep = srv2.accounts.get("keep", "%")
    assert keep is not None and check_password(CACHING_SHA2, keep.authentication_string, "k")
    assert srv2.gtid_state.executed().count() == 2


def test_flush_privileges_reloads_the_grant_tables(open_server):
    """Direct DML on mysql.user takes effect at FLUSH PRIVILEGES (manual "When Privilege Changes Take Effect")."""
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    s.execute("CREATE USER u")
    s.execute("UPDATE mysql.user SET Select_priv = 'Y' WHERE user = 'u'")
    assert "SELECT" not in srv.accounts.get("u", "%").privileges  # type: ignore[union-attr]
    s.execute("FLUSH PRIVILEGES")
    assert "SELECT" in srv.accounts.get("u", "%").privileges  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "name",
    [
        "mysql-enum-string-set.000001",  # 8.0.28
        "binlog-invisible-columns.000001",  # 8.0.26
        "mysql_type_bit.000001",  # 8.0.26
        "json.binlog.000001",  # 8.0.22
    ],
)
def test_real_mysql_alter_user_round_trips(open_server, binlog_fixtures, name):
    """A real MySQL 8.0 binlog's ``ALTER USER ... AS '<hash>'`` (a hash with control bytes and an escaped
    backslash) applied here stores that hash and is logged again byte for byte as MySQL logged it."""
    from gtidkit.binlog.events.statement import QueryEvent
    from gtidkit.binlog.file import read_events
    from gtidkit.engine.accounts.bootstrap import create_root

    path = binlog_fixtures / "blackbeam__rust_mysql_common" / name
    queries = [ev.event.query for ev in read_events(path) if isinstance(ev.event, QueryEvent)]
    (text,) = [q for q in queries if q.startswith("ALTER USER")]
    srv = open_server(gtid_mode="ON", log_bin=True)
    create_root(srv, "")
    s = srv.session()
    s.execute(text)
    assert last_query(s) == text
    stored = srv.accounts.get("root", "localhost").authentication_string  # type: ignore[union-attr]
    assert stored.startswith("$A$005$") and len(stored) == 70


def test_global_read_lock_refuses_account_statements(open_server):
    """FLUSH TABLES WITH READ LOCK: the holder's CREATE USER fails with 1223, like any write."""
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute("FLUSH TABLES WITH READ LOCK")
    with pytest.raises(MySQLError) as err:
        s.execute("CREATE USER u")
    assert err.value.code == 1223
    s.execute("UNLOCK TABLES")
    s.execute("CREATE USER u")
    assert srv.accounts.get("u", "%") is not None


def test_show_grants_and_show_create_user_embedded(open_server):
    """The embedded engine answers SHOW GRANTS / SHOW CREATE USER from the grant tables (manual's output shapes:
    backtick-quoted account, USAGE row first, every clause of CREATE USER listed)."""
    srv = open_server(gtid_mode="ON", log_bin=False)
    s = srv.session()
    s.execute(
        "CREATE USER 'app'@'%' IDENTIFIED WITH mysql_native_password BY 'x'; GRANT SELECT ON d.* TO 'app'@'%'"
    )
    res = s.execute("SHOW GRANTS FOR app")[-1]
    assert res.columns[0].name == "Grants for app@%"
    assert res.rows == [("GRANT USAGE ON *.* TO `app`@`%`",), ("GRANT SELECT ON `d`.* TO `app`@`%`",)]
    res = s.execute("SHOW CREATE USER 'app'@'%'")[-1]
    assert res.columns[0].name == "CREATE USER for app@%"
    assert res.rows == [
        (
            (
                f"CREATE USER `app`@`%` IDENTIFIED WITH 'mysql_native_password' AS '{native('x')}' REQUIRE NONE "
                "PASSWORD EXPIRE DEFAULT ACCOUNT UNLOCK PASSWORD HISTORY DEFAULT PASSWORD REUSE INTERVAL DEFAULT "
                "PASSWORD REQUIRE CURRENT DEFAULT"
            ),
        )
    ]
    with pytest.raises(MySQLError) as err:
        s.execute("SHOW GRANTS FOR nobody")
    assert (err.value.code, err.value.message) == (
        1141,
        "There is no such grant defined for user 'nobody' on host '%'",
    )
    with pytest.raises(MySQLError) as err:
        s.execute("SHOW CREATE USER nobody")
    assert err.value.code == 1396


def test_revoke_all_privileges_grant_option(open_server):
    """REVOKE ALL PRIVILEGES, GRANT OPTION FROM u: every level emptied, logged as written (not rewritten)."""
    srv = open_server(gtid_mode="ON", log_bin=True)
    s = srv.session()
    s.execute(
        "CREATE USER u; GRANT SELECT ON d.* TO u; GRANT PROCESS, BINLOG_ADMIN ON *.* TO u WITH GRANT OPTION"
    )
    s.execute("REVOKE ALL PRIVILEGES, GRANT OPTION FROM u")
    acc = srv.accounts.get("u", "%")
    assert acc is not None and (acc.privileges, acc.db_privileges) == ((), ())
    assert last_query(s) == "REVOKE ALL PRIVILEGES, GRANT OPTION FROM u"
    assert s.execute("SELECT COUNT(*) FROM mysql.db")[-1].rows == [(0,)]


def test_accounts_file_of_an_older_gtidkit_is_imported(tmp_path, open_server):
    """A datadir whose accounts were in ``gtidkit_accounts.json`` (before mysql.user) keeps them: imported into
    the grant tables at start-up (no GTID), the file renamed ``.imported``; its old password hash still verifies."""
    import json

    from gtidkit.engine.accounts.passwords import sha2_stored

    datadir = tmp_path / "old"
    open_server(datadir).shutdown()
    legacy = (
        "$pbkdf2-sha256$5000$"
        + "00" * 16
        + "$"
        + hashlib.pbkdf2_hmac("sha256", b"pw", b"\0" * 16, 5000).hex()
    )
    rows = [
        {
            "user": "root",
            "host": "localhost",
            "plugin": CACHING_SHA2,
            "authentication_string": sha2_stored("r"),
            "privileges": ["SELECT", "CREATE USER", "GRANT OPTION"],
            "db_privileges": [],
            "password_expired": False,
        },
        {
            "user": "app",
            "host": "%",
            "plugin": CACHING_SHA2,
            "authentication_string": legacy,
            "privileges": [],
            "db_privileges": [["app", ["SELECT"]]],
            "password_expired": False,
        },
    ]
    (datadir / "gtidkit_accounts.json").write_text(json.dumps({"accounts": rows}))
    srv = open_server(datadir)
    app = srv.accounts.get("app", "%")
    assert app is not None and app.db_privileges == (("app", ("SELECT",)),)
    assert check_password(CACHING_SHA2, app.authentication_string, "pw")
    assert srv.accounts.has_admin() and not (datadir / "gtidkit_accounts.json").exists()
    assert srv.gtid_state.executed().count() == 0
