"""BINLOG statements over the wire: MySQL's privilege check (``sql_binlog.cc``: SUPER, BINLOG_ADMIN or
REPLICATION_APPLIER, else 1227) with PyMySQL, and a mysqlbinlog-shaped script (DELIMITER, pseudo-replica mode,
GTID_NEXT, BINLOG blocks printed by mariadb-binlog) piped into the real ``mariadb`` client, twice (idempotent).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pymysql
import pytest

from gtidkit.engine import Server
from tests.protocol.server_proc import running_server

#: mysql-test mysqlbinlog_base64_flag.result: a 5.1.23 Format_description, then Table_map + Write_rows_v1 of t1 (3)
FD_5123 = (
    "ODdYRw8BAAAAZgAAAGoAAAABAAQANS4xLjIzLXJjLWRlYnVnLWxvZwAAAAAAAAAAAAAAAAAAAAAA\n"
    "AAAAAAAAAAAAAAAAAAA4N1hHEzgNAAgAEgAEBAQEEgAAUwAEGggAAAAICAgC"
)
TM_WR_3 = "TFtYRxMBAAAAKQAAAH8BAAAAABAAAAAAAAAABHRlc3QAAnQxAAEDAAE=\nTFtYRxcBAAAAIgAAAKEBAAAQABAAAAAAAAEAAf/+AwAAAA=="


def _connect(port: int, user: str = "root", password: str = "") -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=port, user=user, password=password, autocommit=True)


@pytest.mark.parametrize(
    ("grant", "code"),
    [
        pytest.param(None, 1227, id="no-privilege"),
        pytest.param("BINLOG_ADMIN", None, id="binlog-admin"),
        pytest.param("REPLICATION_APPLIER", None, id="replication-applier"),
        pytest.param("SUPER", None, id="super"),
    ],
)
def test_binlog_statement_privilege(tmp_path: Path, grant: str | None, code: int | None) -> None:
    with running_server(tmp_path / "d") as srv:
        root = _connect(srv.port)
        with root.cursor() as cur:
            cur.execute("CREATE DATABASE test")
            cur.execute("CREATE TABLE test.t1 (a INT)")
            cur.execute("CREATE USER 'u'@'%' IDENTIFIED BY 'pw'")
            cur.execute("GRANT INSERT, SELECT ON test.* TO 'u'@'%'")
            if grant:
                cur.execute(f"GRANT {grant} ON *.* TO 'u'@'%'")
        u = _connect(srv.port, "u", "pw")
        with u.cursor() as cur:
            if code is not None:
                with pytest.raises(pymysql.err.OperationalError) as exc:
                    cur.execute(f"BINLOG '\n{FD_5123}\n'")
                assert exc.value.args == (
                    1227,
                    (
                        "Access denied; you need (at least one of) the SUPER, BINLOG_ADMIN or REPLICATION_APPLIER "
                        "privilege(s) for this operation"
                    ),
                )
                return
            cur.execute(f"BINLOG '\n{FD_5123}\n'")
            cur.execute(f"BINLOG '\n{TM_WR_3}\n'")
            cur.execute("SELECT a FROM test.t1")
            assert cur.fetchall() == ((3,),)


@pytest.mark.skipif(not (shutil.which("mariadb") and shutil.which("mariadb-binlog")), reason="mariadb tools")
def test_mysqlbinlog_shaped_script_through_mariadb_client_twice(tmp_path: Path) -> None:
    """The source's row transactions as mysqlbinlog 8.0 prints them (preamble with DELIMITER /*!*/, the
    Format_description block, per transaction GTID_NEXT + original_commit_timestamp + BEGIN + BINLOG + COMMIT, the
    closing statements), with the blocks mariadb-binlog printed, piped into ``mariadb``: tables equal, the
    source's GTIDs executed; the same script again is skipped by GTID."""
    with Server.open(tmp_path / "src", log_bin=True, server_id=7) as src, src.session() as s:
        s.execute("CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(10))")
        s.execute("INSERT INTO app.t VALUES (1,'a'),(2,'b')")
        s.execute("UPDATE app.t SET v='c' WHERE id=2")
        s.execute("DELETE FROM app.t WHERE id=1")
        uuid = s.execute("SELECT @@server_uuid")[-1].rows[0][0]
    out = subprocess.run(
        ["mariadb-binlog", str(tmp_path / "src" / "binlog.000001")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    blocks = re.findall(r"^BINLOG '\n(.*?)\n'", out, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 4
    lines = [
        "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;",
        "/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;",
        "DELIMITER /*!*/;",
        "ROLLBACK/*!*/;",
        f"BINLOG '\n{blocks[0]}\n'/*!*/;",
    ]
    for gno, block in enumerate(blocks[1:], start=3):
        lines += [
            f"SET @@SESSION.GTID_NEXT= '{uuid}:{gno}'/*!*/;",
            "/*!80001 SET @@session.original_commit_timestamp=1795887180000000*//*!*/;",
            "/*!80014 SET @@session.original_server_version=80036*//*!*/;",
            "SET TIMESTAMP=1795887180/*!*/;",
            "SET @@session.pseudo_thread_id=10/*!*/;",
            "SET @@session.sql_mode=1168113696/*!*/;",
            (
                "SET @@session.character_set_client=255,@@session.collation_connection=255,"
                "@@session.collation_server=255/*!*/;"
            ),
            "BEGIN\n/*!*/;",
            f"BINLOG '\n{block}\n'/*!*/;",
            "COMMIT/*!*/;",
        ]
    lines += [
        "SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;",
        "DELIMITER ;",
        "/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;",
        "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;",
    ]
    script = tmp_path / "replay.sql"
    script.write_text("\n".join(lines) + "\n")
    with running_server(
        tmp_path / "dst", base=("--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--log-bin")
    ) as dst:
        root = _connect(dst.port)
        with root.cursor() as cur:
            cur.execute("CREATE DATABASE app")
            cur.execute("CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(10))")
        for _ in range(2):
            r = subprocess.run(
                ["mariadb", "-h127.0.0.1", f"-P{dst.port}", "-uroot"],
                stdin=script.open(),
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert r.returncode == 0, r.stderr
            with root.cursor() as cur:
                cur.execute("SELECT id, v FROM app.t ORDER BY id")
                assert cur.fetchall() == ((2, "c"),)
                cur.execute(f"SELECT GTID_SUBSET('{uuid}:3-5', @@GLOBAL.gtid_executed)")
                assert cur.fetchall() == ((1,),)
