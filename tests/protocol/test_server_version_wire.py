"""`gtidkit server --server-version 5.7 | 8.4`: real clients see the release in the handshake and in VERSION().

A real PyMySQL client reads the Handshake's server version (``get_server_info``); python-mysql-replication and
mysqldump pick SHOW MASTER STATUS or SHOW BINARY LOG STATUS from it, so it must match what the server answers.
"""

from __future__ import annotations

from pathlib import Path

import pymysql
import pytest

from protocol.server_proc import initialize, running_server


# the Handshake names default_authentication_plugin (5.7: mysql_native_password; 8.4: caching_sha2_password) and
# root@localhost is created with it, as mysqld --initialize-insecure does
@pytest.mark.parametrize(
    ("flag", "shown", "plugin"),
    [("5.7", "5.7.44", "mysql_native_password"), ("8.4", "8.4.3", "caching_sha2_password")],
    ids=["5.7", "8.4"],
)
def test_handshake_and_version_follow_server_version(
    tmp_path: Path, flag: str, shown: str, plugin: str
) -> None:
    args = (
        "--log-bin",
        "--gtid-mode=ON",
        "--enforce-gtid-consistency=ON",
        "--server-id=1",
        "--server-version",
        flag,
    )
    initialize(tmp_path / "d", True, "--server-version", flag)
    with running_server(tmp_path / "d", *args) as srv:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True)
        try:
            assert conn.get_server_info() == f"{shown}-gtidkit"
            assert conn._auth_plugin_name == plugin  # what the Handshake named (PyMySQL keeps it)
            with conn.cursor() as cur:
                cur.execute("SELECT VERSION()")
                assert cur.fetchone() == (f"{shown}-gtidkit",)
                cur.execute("SHOW MASTER STATUS" if flag == "5.7" else "SHOW BINARY LOG STATUS")
                assert cur.fetchone()[0] == "binlog.000001"
                cur.execute("SELECT plugin FROM mysql.user WHERE user = 'root'")
                assert cur.fetchone() == (plugin,)
        finally:
            conn.close()


# mysqld's own defaults per release (RM 5.7: log_bin OFF, server_id 0, log_slave_updates OFF, compression period
# 1000, transaction_write_set_extraction OFF; RM 8.0: ON, 1, ON, 0 since 8.0.23, XXHASH64), with no other option
@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("5.7", (0, 0, 0, 1000, "OFF")),
        ("8.0", (1, 1, 1, 0, "XXHASH64")),
    ],
    ids=["5.7", "8.0"],
)
def test_mysqld_defaults_follow_the_release(tmp_path: Path, version, expected) -> None:
    with running_server(tmp_path / "d", "--server-version", version, base=()) as srv:
        conn = pymysql.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute(
                    "SELECT @@log_bin, @@server_id, @@log_slave_updates, @@gtid_executed_compression_period,"
                    " @@transaction_write_set_extraction"
                )
                assert cur.fetchone() == expected
        finally:
            conn.close()
