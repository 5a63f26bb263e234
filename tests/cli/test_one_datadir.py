"""Issue 17 section 3, "one datadir format": `gtidkit sql` and `gtidkit server` open each other's datadirs, accounts
included (they are rows of mysql.user, not a file of the wire server).

A datadir made by `gtidkit sql` has no account: `gtidkit server` gives it root@localhost with an empty password,
as ``mysqld --initialize-insecure`` would, and says so with MySQL's warning MY-010453; accounts created with
`gtidkit sql -e "CREATE USER ..."` log in over the wire. A datadir made by `gtidkit server --initialize-insecure`
shows root@localhost to `gtidkit sql`, which can add accounts to it.
"""

from __future__ import annotations

from pathlib import Path

import pymysql
import pytest
from click.testing import CliRunner
from protocol.server_proc import initialize, running_server

from gtidkit.cli.main import cli

OPTIONS = ("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--log-bin", "--server-id=1")


def sql(datadir: Path, statements: str) -> str:
    r = CliRunner().invoke(cli, ["sql", "--datadir", str(datadir), *OPTIONS, "-e", statements])
    assert r.exit_code == 0, r.output
    return r.output


def login(port: int, user: str, password: str) -> list[tuple[object, ...]]:
    with (
        pymysql.connect(host="127.0.0.1", port=port, user=user, password=password, autocommit=True) as conn,
        conn.cursor() as cur,
    ):
        cur.execute("SELECT CURRENT_USER()")
        return list(cur.fetchall())


def test_sql_datadir_served_by_server(tmp_path: Path) -> None:
    d = tmp_path / "d"
    sql(d, "CREATE USER app IDENTIFIED BY 'x'; GRANT SELECT ON *.* TO app")
    assert (
        sql(d, "SELECT user, host, plugin FROM mysql.user")
        == "user\thost\tplugin\napp\t%\tcaching_sha2_password\n"
    )
    with running_server(d, *OPTIONS, init=False) as srv:
        assert login(srv.port, "root", "") == [("root@localhost",)]
        assert login(srv.port, "app", "x") == [("app@%",)]
        log = (d / "error.log").read_text()
        assert "root@localhost is created with an empty password" in log
    # served once: root now exists, the next start says nothing
    with running_server(d, *OPTIONS, init=False) as srv:
        assert login(srv.port, "root", "") == [("root@localhost",)]
    assert (d / "error.log").read_text().count("created with an empty password") == 1


def test_server_datadir_opened_by_sql(tmp_path: Path) -> None:
    d = tmp_path / "d"
    initialize(d)
    assert sql(d, "SELECT user, host FROM mysql.user") == "user\thost\nroot\tlocalhost\n"
    sql(d, "CREATE USER 'b'@'%' IDENTIFIED WITH mysql_native_password BY 'y'")
    sql(d, "CREATE USER 'locked'@'%' IDENTIFIED BY 'z' ACCOUNT LOCK; CREATE ROLE 'r'@'%'")
    with running_server(d, *OPTIONS, init=False) as srv:
        assert login(srv.port, "b", "y") == [("b@%",)]
        for user, password in (("locked", "z"), ("r", "")):  # ACCOUNT LOCK, and roles are created locked
            with pytest.raises(pymysql.err.OperationalError) as err:
                login(srv.port, user, password)
            assert err.value.args == (
                3118,
                f"Access denied for user '{user}'@'localhost'. Account is locked.",
            )
