"""The replica's metadata tables across restarts and upgrades, on an in-process server.

MySQL keeps the applier's options with its metadata (``mysql.slave_relay_log_info``: Sql_delay, Require_row_format,
Assign_gtids_to_anonymous_transactions_type / _value; 8.0.27 added ``Gtid_only`` to ``mysql.slave_master_info``) and
they survive a restart (manual "Relay Log and Replication Metadata Repositories"); a datadir written before a column
existed gets it on upgrade with the rows kept.
"""

from __future__ import annotations

import pytest

from gtidkit.engine import Server
from gtidkit.replication import Replication
from gtidkit.replication.replica import install as install_replica
from tests.protocol.server_proc import free_port, initialize

#: mysql.slave_master_info as gtidkit created it before Gtid_only (the upgrade adds the column)
OLD_MASTER_INFO_DDL = (
    "CREATE TABLE mysql.slave_master_info (Number_of_lines INT UNSIGNED NOT NULL, Master_log_name TEXT NOT NULL, "
    "Master_log_pos BIGINT UNSIGNED NOT NULL, Host VARCHAR(255), User_name TEXT, User_password TEXT, "
    "Port INT UNSIGNED NOT NULL, Connect_retry INT UNSIGNED NOT NULL, Enabled_ssl TINYINT NOT NULL, Ssl_ca TEXT, "
    "Ssl_capath TEXT, Ssl_cert TEXT, Ssl_cipher TEXT, Ssl_key TEXT, Ssl_verify_server_cert TINYINT NOT NULL, "
    "Heartbeat DOUBLE NOT NULL, Bind TEXT, Ignored_server_ids TEXT, Uuid TEXT, Retry_count BIGINT UNSIGNED NOT NULL, "
    "Ssl_crl TEXT, Ssl_crlpath TEXT, Enabled_auto_position TINYINT NOT NULL, Channel_name CHAR(64) NOT NULL, "
    "Tls_version TEXT, Public_key_path TEXT, Get_public_key TINYINT NOT NULL, PRIMARY KEY (Channel_name))"
)


@pytest.fixture
def open_server(tmp_path):
    """``open_server(replica=True)`` -> session on tmp_path/data (GTID_MODE=ON, skip_replica_start), the replica role
    installed unless ``replica=False``; reopenable; stopped at teardown."""
    opened: list[tuple[Server, Replication | None]] = []

    def _open(replica: bool = True):
        while opened:
            srv, repl = opened.pop()
            if repl is not None:
                repl.shutdown()
            srv.shutdown()
        srv = Server.open(
            tmp_path / "data", gtid_mode="ON", enforce_gtid_consistency="ON", skip_replica_start="ON"
        )
        repl = Replication() if replica else None
        if repl is not None:
            install_replica(srv, None, repl)
        opened.append((srv, repl))
        return srv.session()

    yield _open
    for srv, repl in opened:
        if repl is not None:
            repl.shutdown()
        srv.shutdown()


def test_applier_options_survive_restart(open_server):
    sess = open_server()
    sess.execute(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={free_port()}, SOURCE_DELAY=30, "
        "REQUIRE_ROW_FORMAT=1, ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS=LOCAL"
    )
    uuid = sess.execute("SELECT @@GLOBAL.server_uuid")[0].rows[0][0]
    q = (
        "SELECT DESIRED_DELAY, REQUIRE_ROW_FORMAT, ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_TYPE, "
        "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_VALUE FROM performance_schema.replication_applier_configuration"
    )
    assert sess.execute(q)[0].rows == [(30, "YES", "LOCAL", uuid)]
    stored = (
        "SELECT Sql_delay, Require_row_format, Assign_gtids_to_anonymous_transactions_type FROM "
        "mysql.slave_relay_log_info"
    )
    assert sess.execute(stored)[0].rows == [(30, 1, "LOCAL")]
    sess = open_server()
    assert sess.execute(q)[0].rows == [(30, "YES", "LOCAL", uuid)]
    sess.execute("RESET REPLICA")  # kept by RESET REPLICA
    assert sess.execute(q)[0].rows == [(30, "YES", "LOCAL", uuid)]
    sess = open_server()
    assert sess.execute(q)[0].rows == [(30, "YES", "LOCAL", uuid)]


def test_old_master_info_table_upgraded_rows_kept(open_server):
    sess = open_server(replica=False)
    sess.execute(OLD_MASTER_INFO_DDL)
    sess.execute(
        "INSERT INTO mysql.slave_master_info VALUES (31, 'binlog.000002', 157, '127.0.0.1', 'repl', '', 3307, 60, 0, "
        "'', '', '', '', '', 0, 30, '', '0', '', 10, '', '', 0, 'old', '', '', 0)"
    )
    sess = open_server()  # the replica role upgrades the table: Gtid_only added, the channel kept
    rows = sess.execute("SELECT Channel_name, Port, Master_log_pos, Gtid_only FROM mysql.slave_master_info")[
        0
    ].rows
    assert rows == [("old", 3307, 157, 0)]
    status = sess.execute("SHOW REPLICA STATUS FOR CHANNEL 'old'")[0]
    row = dict(zip(status.column_names, status.rows[0]))
    assert (row["Source_Port"], row["Source_User"], row["Read_Source_Log_Pos"]) == (3307, "repl", 157)


def test_initialize_creates_the_replica_metadata_tables(tmp_path) -> None:
    """``mysqld --initialize`` creates mysql.slave_master_info and mysql.slave_relay_log_info
    (``scripts/mysql_system_tables.sql``): a datadir fresh from `gtidkit server --initialize-insecure` has both
    before any server started replication on it, empty, with the columns of 8.0.27+."""
    initialize(tmp_path / "d")
    with Server.open(tmp_path / "d", skip_replica_start=True) as srv:
        s = srv.session()
        tables = s.execute("SHOW TABLES FROM mysql LIKE 'slave%'")[0].rows
        assert [t[0] for t in tables] == ["slave_master_info", "slave_relay_log_info"]
        assert s.execute("SELECT COUNT(*) FROM mysql.slave_master_info")[0].rows == [(0,)]
        columns = s.execute("SHOW COLUMNS FROM mysql.slave_master_info LIKE 'Gtid_only'")[0].rows
        assert len(columns) == 1
        s.close()
