"""Replica control on an in-process server: CHANGE REPLICATION SOURCE TO, START / STOP / RESET REPLICA, SHOW REPLICA
STATUS, the connection metadata table, and the receiver's connection errors.

Expected values are MySQL's: the column lists of the manual page "SHOW REPLICA STATUS Statement" (8.4) and of
SHOW SLAVE STATUS in 8.0 (its 5.7 names); messages from share/messages_to_clients.txt (8.4) and the notes a
mysql-test run prints after CHANGE REPLICATION SOURCE TO ... SOURCE_USER='root' (rpl suite .result files:
``Note ####  Sending passwords in plain text without SSL/TLS is extremely insecure.`` then ``Note ####  Storing MySQL
user name or password information in the connection metadata repository is not secure ...``); Last_IO_Error for a
refused connection as real 8.0.27+ replicas print it (``Error connecting to source 'u@h:p'. This was attempt 1/86400,
with a delay of 60 seconds between attempts. Message: ...``).
"""

from __future__ import annotations

import struct
import time

import pytest
from protocol.server_proc import free_port

from gtidkit.engine import Server
from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet
from gtidkit.protocol.options import load
from gtidkit.replication import Replication
from gtidkit.replication.receiver import dump_gtid_body, register_body
from gtidkit.replication.replica import install as install_replica

# MySQL 8.4 manual, "SHOW REPLICA STATUS Statement": the columns in order.
MYSQL_84_COLUMNS = [
    "Replica_IO_State", "Source_Host", "Source_User", "Source_Port", "Connect_Retry", "Source_Log_File",
    "Read_Source_Log_Pos", "Relay_Log_File", "Relay_Log_Pos", "Relay_Source_Log_File", "Replica_IO_Running",
    "Replica_SQL_Running", "Replicate_Do_DB", "Replicate_Ignore_DB", "Replicate_Do_Table", "Replicate_Ignore_Table",
    "Replicate_Wild_Do_Table", "Replicate_Wild_Ignore_Table", "Last_Errno", "Last_Error", "Skip_Counter",
    "Exec_Source_Log_Pos", "Relay_Log_Space", "Until_Condition", "Until_Log_File", "Until_Log_Pos",
    "Source_SSL_Allowed", "Source_SSL_CA_File", "Source_SSL_CA_Path", "Source_SSL_Cert", "Source_SSL_Cipher",
    "Source_SSL_Key", "Seconds_Behind_Source", "Source_SSL_Verify_Server_Cert", "Last_IO_Errno", "Last_IO_Error",
    "Last_SQL_Errno", "Last_SQL_Error", "Replicate_Ignore_Server_Ids", "Source_Server_Id", "Source_UUID",
    "Source_Info_File", "SQL_Delay", "SQL_Remaining_Delay", "Replica_SQL_Running_State", "Source_Retry_Count",
    "Source_Bind", "Last_IO_Error_Timestamp", "Last_SQL_Error_Timestamp", "Source_SSL_Crl", "Source_SSL_Crlpath",
    "Retrieved_Gtid_Set", "Executed_Gtid_Set", "Auto_Position", "Replicate_Rewrite_DB", "Channel_Name",
    "Source_TLS_Version", "Source_public_key_path", "Get_Source_public_key", "Network_Namespace",
]  # fmt: skip
# MySQL 8.0 SHOW SLAVE STATUS (the 5.7 names of the same columns).
MYSQL_57_COLUMNS = [
    "Slave_IO_State", "Master_Host", "Master_User", "Master_Port", "Connect_Retry", "Master_Log_File",
    "Read_Master_Log_Pos", "Relay_Log_File", "Relay_Log_Pos", "Relay_Master_Log_File", "Slave_IO_Running",
    "Slave_SQL_Running", "Replicate_Do_DB", "Replicate_Ignore_DB", "Replicate_Do_Table", "Replicate_Ignore_Table",
    "Replicate_Wild_Do_Table", "Replicate_Wild_Ignore_Table", "Last_Errno", "Last_Error", "Skip_Counter",
    "Exec_Master_Log_Pos", "Relay_Log_Space", "Until_Condition", "Until_Log_File", "Until_Log_Pos",
    "Master_SSL_Allowed", "Master_SSL_CA_File", "Master_SSL_CA_Path", "Master_SSL_Cert", "Master_SSL_Cipher",
    "Master_SSL_Key", "Seconds_Behind_Master", "Master_SSL_Verify_Server_Cert", "Last_IO_Errno", "Last_IO_Error",
    "Last_SQL_Errno", "Last_SQL_Error", "Replicate_Ignore_Server_Ids", "Master_Server_Id", "Master_UUID",
    "Master_Info_File", "SQL_Delay", "SQL_Remaining_Delay", "Slave_SQL_Running_State", "Master_Retry_Count",
    "Master_Bind", "Last_IO_Error_Timestamp", "Last_SQL_Error_Timestamp", "Master_SSL_Crl", "Master_SSL_Crlpath",
    "Retrieved_Gtid_Set", "Executed_Gtid_Set", "Auto_Position", "Replicate_Rewrite_DB", "Channel_Name",
    "Master_TLS_Version", "Master_public_key_path", "Get_master_public_key", "Network_Namespace",
]  # fmt: skip

NOTE_1759 = ("Note", 1759, "Sending passwords in plain text without SSL/TLS is extremely insecure.")
NOTE_1760 = (
    "Note",
    1760,
    (
        "Storing MySQL user name or password information in the connection metadata repository is not secure and is "
        "therefore not recommended. Please consider using the USER and PASSWORD connection options for START REPLICA; "
        "see the 'START REPLICA Syntax' in the MySQL Manual for more information."
    ),
)


@pytest.fixture
def replica(tmp_path):
    """``replica(**options)`` -> (engine server, session, Replication) on tmp_path/data; all stopped at teardown."""
    opened = []

    def _open(**options):
        srv = Server.open(tmp_path / "data", **options)
        repl = Replication()
        install_replica(srv, None, repl)  # the replica role alone: no wire server here
        sess = srv.session()
        opened.append((srv, repl))
        return srv, sess, repl

    yield _open
    for srv, repl in opened:
        repl.shutdown()
        srv.shutdown()


def closed_port() -> int:
    """A 127.0.0.1 port nothing listens on (below the ephemeral range: no other test's server is given it)."""
    return free_port()


def status(sess, stmt="SHOW REPLICA STATUS") -> dict:
    res = sess.execute(stmt)[0]
    assert len(res.rows) == 1
    return dict(zip(res.column_names, res.rows[0]))


def warnings_of(res) -> list[tuple]:
    return [(w.level, w.code, w.message) for w in res.warnings]


def err(sess, sql) -> MySQLError:
    with pytest.raises(MySQLError) as e:
        sess.execute(sql)
    return e.value


def wait(cond, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def test_no_channel_until_configured(replica):
    _, sess, _ = replica()
    assert sess.execute("SHOW REPLICA STATUS")[0].rows == []
    e = err(sess, "START REPLICA")
    assert (e.code, e.sqlstate, e.message) == (
        1200,
        "HY000",
        "The server is not configured as replica; fix in config file or with CHANGE REPLICATION SOURCE TO",
    )


def test_change_source_columns_and_notes(replica):
    _, sess, _ = replica()
    res = sess.execute(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=13000, SOURCE_USER='root', "
        "SOURCE_AUTO_POSITION=1"
    )[0]
    assert warnings_of(res) == [NOTE_1759, NOTE_1760]
    res = sess.execute("SHOW REPLICA STATUS")[0]
    assert list(res.column_names) == MYSQL_84_COLUMNS
    assert list(sess.execute("SHOW SLAVE STATUS")[0].column_names) == MYSQL_57_COLUMNS
    st = dict(zip(res.column_names, res.rows[0]))
    assert (st["Source_Host"], st["Source_User"], st["Source_Port"], st["Connect_Retry"]) == (
        "127.0.0.1",
        "root",
        13000,
        60,
    )
    assert (st["Replica_IO_Running"], st["Replica_SQL_Running"], st["Auto_Position"]) == ("No", "No", 1)
    assert st["Source_Info_File"] == "mysql.slave_master_info"
    assert st["Seconds_Behind_Source"] is None
    assert st["Source_Retry_Count"] == 10  # 8.4's default
    assert (st["Until_Condition"], st["Read_Source_Log_Pos"]) == ("None", 4)
    # a statement without credentials raises no note
    assert warnings_of(sess.execute("CHANGE REPLICATION SOURCE TO SOURCE_CONNECT_RETRY=5")[0]) == []
    assert status(sess)["Connect_Retry"] == 5


def test_change_master_aliases_and_repository_survives_restart(replica, tmp_path):
    srv, sess, repl = replica(skip_replica_start=1)
    sess.execute(
        "CHANGE MASTER TO MASTER_HOST='src.example', MASTER_PORT=3307, MASTER_USER='repl', "
        "MASTER_PASSWORD='secret', MASTER_AUTO_POSITION=1, MASTER_HEARTBEAT_PERIOD=2.5, MASTER_RETRY_COUNT=7"
    )
    # the connection metadata repository is a table, password in plain text as in MySQL
    row = sess.execute(
        "SELECT Host, Port, User_name, User_password, Enabled_auto_position, Heartbeat, Retry_count, Channel_name "
        "FROM mysql.slave_master_info"
    )[0].rows
    assert row == [("src.example", 3307, "repl", "secret", 1, 2.5, 7, "")]
    repl.shutdown()
    srv.shutdown()
    _srv2, sess2, _ = replica(skip_replica_start=1)
    st = status(sess2, "SHOW SLAVE STATUS")
    assert (st["Master_Host"], st["Master_Port"], st["Master_User"], st["Master_Retry_Count"]) == (
        "src.example",
        3307,
        "repl",
        7,
    )
    assert (st["Slave_IO_Running"], st["Slave_SQL_Running"]) == ("No", "No")  # skip_replica_start


def test_change_source_errors(replica):
    _, sess, _ = replica()
    long_pw = "x" * 33
    e = err(sess, f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PASSWORD='{long_pw}'")
    assert (e.code, e.message) == (
        3056,
        "The password provided for the replication user exceeds the maximum length of 32 characters",
    )
    e = err(sess, "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_AUTO_POSITION=1, SOURCE_LOG_POS=100")
    assert (e.code, e.message) == (
        1776,
        (
            "Parameters SOURCE_LOG_FILE, SOURCE_LOG_POS, RELAY_LOG_FILE and RELAY_LOG_POS cannot be set when "
            "SOURCE_AUTO_POSITION is active."
        ),
    )
    e = err(sess, f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='h' FOR CHANNEL '{'A123456789' * 7}'")
    assert (e.code, e.message) == (
        3076,
        "Couldn't create channel: Channel name is either invalid or too long.",
    )
    e = err(sess, "CHANGE REPLICATION SOURCE TO SOURCE_BIND='eth4n'")
    assert e.code == 1235
    assert sess.execute("SHOW REPLICA STATUS")[0].rows == []  # nothing was stored


def test_auto_position_needs_gtid_mode(replica):
    _, sess, _ = replica(gtid_mode="OFF")
    e = err(sess, "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_AUTO_POSITION=1")
    assert (e.code, e.message) == (
        1777,
        "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 1 cannot be executed because @@GLOBAL.GTID_MODE = OFF.",
    )


def test_auto_position_channel_on_a_gtid_mode_off_server_cannot_start(replica):
    """sql/rpl_replica.cc check_replica_configuration_errors: an AUTO_POSITION channel stored while GTID_MODE was
    ON, the server restarted with GTID_MODE=OFF: START REPLICA (the I/O thread) gives 3112; the SQL thread alone
    starts."""
    srv, sess, repl = replica(skip_replica_start=1)
    sess.execute(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=1, SOURCE_AUTO_POSITION=1"
    )
    repl.shutdown()
    srv.shutdown()
    _, sess, _ = replica(skip_replica_start=1, gtid_mode="OFF", enforce_gtid_consistency="OFF")
    e = err(sess, "START REPLICA")
    assert (e.code, e.message) == (
        3112,
        (
            "The replication receiver thread cannot start in AUTO_POSITION mode: this server uses "
            "@@GLOBAL.GTID_MODE = OFF."
        ),
    )
    assert warnings_of(sess.execute("START REPLICA SQL_THREAD")[0]) == []
    sess.execute("STOP REPLICA")


def test_start_stop_notes_and_connect_errors(replica):
    _, sess, _ = replica()
    port = closed_port()
    sess.execute(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={port}, SOURCE_USER='repl', "
        "SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=2"
    )
    assert warnings_of(sess.execute("START REPLICA")[0]) == []
    assert warnings_of(sess.execute("START REPLICA")[0]) == [
        ("Note", 3083, "Replication thread(s) for channel '' are already runnning.")
    ]
    assert wait(lambda: status(sess)["Last_IO_Errno"] != 0)
    st = status(sess)
    assert st["Replica_IO_Running"] == "Connecting"
    assert st["Replica_SQL_Running"] == "Yes"
    assert st["Last_IO_Errno"] == 2003  # CR_CONN_HOST_ERROR, the client library's number
    assert st["Last_IO_Error"] == (
        f"Error connecting to source 'repl@127.0.0.1:{port}'. This was attempt 1/2, with a delay of 1 seconds "
        f"between attempts. Message: Can't connect to MySQL server on '127.0.0.1:{port}' (111)"
    )
    assert len(st["Last_IO_Error_Timestamp"]) == len("260101 00:00:00")
    e = err(sess, "CHANGE REPLICATION SOURCE TO SOURCE_PORT=1")
    assert (e.code, e.message) == (
        3021,
        (
            "This operation cannot be performed with a running replica io thread; run STOP REPLICA IO_THREAD FOR "
            "CHANNEL '' first."
        ),
    )
    e = err(sess, "RESET REPLICA")
    assert (e.code, e.message) == (
        3081,
        (
            "This operation cannot be performed with running replication threads; run STOP REPLICA FOR CHANNEL '' "
            "first"
        ),
    )
    # SOURCE_RETRY_COUNT reached: the I/O thread gives up and keeps the last error
    assert wait(lambda: status(sess)["Replica_IO_Running"] == "No")
    assert "This was attempt 2/2" in status(sess)["Last_IO_Error"]
    assert status(sess)["Replica_SQL_Running"] == "Yes"
    assert warnings_of(sess.execute("STOP REPLICA SQL_THREAD")[0]) == []
    assert warnings_of(sess.execute("STOP SLAVE")[0]) == [
        # 8.0's parser warns for the 5.7 spelling first (rpl_gtid/r/rpl_apply_binlog_with_same_server_id.result)
        (
            "Warning",
            1287,
            "'STOP SLAVE' is deprecated and will be removed in a future release. Please use STOP REPLICA instead",
        ),
        ("Note", 3084, "Replication thread(s) for channel '' are already stopped."),
    ]
    # START REPLICA IO_THREAD starts only the receiver (and clears its last error)
    sess.execute("CHANGE REPLICATION SOURCE TO SOURCE_RETRY_COUNT=1000")
    sess.execute("START REPLICA IO_THREAD")
    st = status(sess)
    assert st["Replica_SQL_Running"] == "No"
    assert st["Replica_IO_Running"] in ("Connecting", "Yes")
    sess.execute("STOP REPLICA IO_THREAD")
    assert status(sess)["Replica_IO_Running"] == "No"


def test_reset_replica(replica):
    _, sess, _ = replica()
    sess.execute("CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PORT=3306, SOURCE_AUTO_POSITION=1")
    sess.execute("RESET REPLICA")
    st = status(sess)
    assert (st["Source_Host"], st["Retrieved_Gtid_Set"], st["Auto_Position"]) == ("h", "", 1)
    sess.execute("RESET SLAVE ALL")
    assert sess.execute("SHOW REPLICA STATUS")[0].rows == []
    assert sess.execute("SELECT COUNT(*) FROM mysql.slave_master_info")[0].rows == [(0,)]
    assert err(sess, "START REPLICA").code == 1200


def test_skip_replica_start_option():
    # my_getopt matches the whole name first: --skip-replica-start sets skip_replica_start, it is not --replica-start=0
    opts = load(["--skip-replica-start"])
    assert opts.engine["skip_replica_start"] is True
    opts = load(["--skip-slave-start"])
    assert opts.engine["skip_replica_start"] is True
    assert load(["--skip-replica-start=0"]).engine["skip_replica_start"] is False


def test_register_and_dump_bodies():
    # formats.md 7.1: u32 server_id, u8 len + host, u8 len + user, u8 len + password, u16 port, u32 rank, u32 master id
    assert register_body(7) == struct.pack("<I", 7) + b"\0\0\0" + struct.pack("<HII", 0, 0, 0)
    assert register_body(7, "h", "u", "p", 3307) == struct.pack("<I", 7) + b"\1h\1u\1p" + struct.pack(
        "<HII", 3307, 0, 0
    )
    # formats.md 7.3: u16 flags, u32 server_id, u32 name size (0: MySQL replicas send no name), u64 pos 4, u32 size,
    # the SID-block set
    gs = GtidSet.parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5")
    data = gs.encode()
    body = dump_gtid_body(2, gs)
    assert body == struct.pack("<HIIQI", 0, 2, 0, 4, len(data)) + data
    assert GtidSet.decode(body[22:]) == gs


# performance_schema column lists, MySQL 8.0 (RM8 29.12.11.1 / .2 / .4).
PS_COLUMNS = {
    "replication_connection_configuration": [
        "CHANNEL_NAME", "HOST", "PORT", "USER", "NETWORK_INTERFACE", "AUTO_POSITION", "SSL_ALLOWED", "SSL_CA_FILE",
        "SSL_CA_PATH", "SSL_CERTIFICATE", "SSL_CIPHER", "SSL_KEY", "SSL_VERIFY_SERVER_CERTIFICATE", "SSL_CRL_FILE",
        "SSL_CRL_PATH", "CONNECTION_RETRY_INTERVAL", "CONNECTION_RETRY_COUNT", "HEARTBEAT_INTERVAL", "TLS_VERSION",
        "PUBLIC_KEY_PATH", "GET_PUBLIC_KEY", "NETWORK_NAMESPACE", "COMPRESSION_ALGORITHM", "ZSTD_COMPRESSION_LEVEL",
        "TLS_CIPHERSUITES", "SOURCE_CONNECTION_AUTO_FAILOVER", "GTID_ONLY",
    ],
    "replication_connection_status": [
        "CHANNEL_NAME", "GROUP_NAME", "SOURCE_UUID", "THREAD_ID", "SERVICE_STATE", "COUNT_RECEIVED_HEARTBEATS",
        "LAST_HEARTBEAT_TIMESTAMP", "RECEIVED_TRANSACTION_SET", "LAST_ERROR_NUMBER", "LAST_ERROR_MESSAGE",
        "LAST_ERROR_TIMESTAMP", "LAST_QUEUED_TRANSACTION", "LAST_QUEUED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP",
        "LAST_QUEUED_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP", "LAST_QUEUED_TRANSACTION_START_QUEUE_TIMESTAMP",
        "LAST_QUEUED_TRANSACTION_END_QUEUE_TIMESTAMP", "QUEUEING_TRANSACTION",
        "QUEUEING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", "QUEUEING_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP",
        "QUEUEING_TRANSACTION_START_QUEUE_TIMESTAMP",
    ],
    "replication_applier_status": ["CHANNEL_NAME", "SERVICE_STATE", "REMAINING_DELAY", "COUNT_TRANSACTIONS_RETRIES"],
    # storage/perfschema/table_replication_applier_*.cc of MySQL 8.0.41
    "replication_applier_configuration": [
        "CHANNEL_NAME", "DESIRED_DELAY", "PRIVILEGE_CHECKS_USER", "REQUIRE_ROW_FORMAT",
        "REQUIRE_TABLE_PRIMARY_KEY_CHECK", "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_TYPE",
        "ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_VALUE",
    ],
    "replication_applier_status_by_coordinator": [
        "CHANNEL_NAME", "THREAD_ID", "SERVICE_STATE", "LAST_ERROR_NUMBER", "LAST_ERROR_MESSAGE",
        "LAST_ERROR_TIMESTAMP", "LAST_PROCESSED_TRANSACTION", "LAST_PROCESSED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP",
        "LAST_PROCESSED_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP", "LAST_PROCESSED_TRANSACTION_START_BUFFER_TIMESTAMP",
        "LAST_PROCESSED_TRANSACTION_END_BUFFER_TIMESTAMP", "PROCESSING_TRANSACTION",
        "PROCESSING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", "PROCESSING_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP",
        "PROCESSING_TRANSACTION_START_BUFFER_TIMESTAMP",
    ],
    "replication_applier_status_by_worker": [
        "CHANNEL_NAME", "WORKER_ID", "THREAD_ID", "SERVICE_STATE", "LAST_ERROR_NUMBER", "LAST_ERROR_MESSAGE",
        "LAST_ERROR_TIMESTAMP", "LAST_APPLIED_TRANSACTION", "LAST_APPLIED_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP",
        "LAST_APPLIED_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP", "LAST_APPLIED_TRANSACTION_START_APPLY_TIMESTAMP",
        "LAST_APPLIED_TRANSACTION_END_APPLY_TIMESTAMP", "APPLYING_TRANSACTION",
        "APPLYING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP", "APPLYING_TRANSACTION_IMMEDIATE_COMMIT_TIMESTAMP",
        "APPLYING_TRANSACTION_START_APPLY_TIMESTAMP", "LAST_APPLIED_TRANSACTION_RETRIES_COUNT",
        "LAST_APPLIED_TRANSACTION_LAST_TRANSIENT_ERROR_NUMBER", "LAST_APPLIED_TRANSACTION_LAST_TRANSIENT_ERROR_MESSAGE",
        "LAST_APPLIED_TRANSACTION_LAST_TRANSIENT_ERROR_TIMESTAMP", "APPLYING_TRANSACTION_RETRIES_COUNT",
        "APPLYING_TRANSACTION_LAST_TRANSIENT_ERROR_NUMBER", "APPLYING_TRANSACTION_LAST_TRANSIENT_ERROR_MESSAGE",
        "APPLYING_TRANSACTION_LAST_TRANSIENT_ERROR_TIMESTAMP",
    ],
}  # fmt: skip


def test_performance_schema_tables(replica):
    _, sess, _ = replica()
    for table, cols in PS_COLUMNS.items():
        res = sess.execute(f"SELECT * FROM performance_schema.{table}")[0]
        assert (list(res.column_names), res.rows) == (cols, [])
    port = closed_port()
    sess.execute(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={port}, SOURCE_USER='repl', "
        "SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1, SOURCE_RETRY_COUNT=100, SOURCE_HEARTBEAT_PERIOD=2"
    )
    res = sess.execute(
        "SELECT HOST, PORT, USER, AUTO_POSITION, SSL_ALLOWED, HEARTBEAT_INTERVAL, CONNECTION_RETRY_COUNT "
        "FROM performance_schema.replication_connection_configuration"
    )[0]
    assert res.rows == [("127.0.0.1", port, "repl", "1", "NO", "2.000", 100)]
    st = "SELECT SERVICE_STATE, LAST_ERROR_NUMBER, LAST_HEARTBEAT_TIMESTAMP FROM "
    assert sess.execute(st + "performance_schema.replication_connection_status")[0].rows == [
        ("OFF", 0, "0000-00-00 00:00:00.000000")
    ]
    sess.execute("START REPLICA IO_THREAD")
    assert wait(
        lambda: (
            sess.execute(st + "performance_schema.replication_connection_status")[0].rows[0][:2]
            == ("CONNECTING", 2003)
        )
    )
    assert sess.execute("SELECT SERVICE_STATE FROM performance_schema.replication_applier_status")[
        0
    ].rows == [("OFF",)]
    sess.execute("STOP REPLICA")


@pytest.mark.parametrize(
    ("workers", "worker_ids", "coordinators"),
    [
        (0, [0], 0),  # the single-threaded applier: one row, WORKER_ID 0, no coordinator
        (1, [1], 1),
        (3, [1, 2, 3], 1),
    ],
    ids=["single-threaded", "one-worker", "three-workers"],
)
def test_applier_tables_follow_replica_parallel_workers(replica, workers, worker_ids, coordinators):
    """mysql-test ``rpl_nogtid/r/rpl_perfschema_applier_status_by_worker.result``: one by_worker row per worker
    (WORKER_ID 1..N) and one coordinator row with replica_parallel_workers > 0; with 0, one by_worker row and no
    coordinator; the value read at START REPLICA."""
    _, sess, _ = replica()
    sess.execute(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={closed_port()}, SOURCE_USER='repl', "
        "SOURCE_AUTO_POSITION=1"
    )
    res = sess.execute(f"SET GLOBAL replica_parallel_workers = {workers}")[0]
    deprecated = [
        ("Warning", 1287, "'0' is deprecated and will be removed in a future release. Please use 1 instead")
    ]
    assert [(w.level, w.code, w.message) for w in res.warnings] == (deprecated if workers == 0 else [])
    sess.execute("START REPLICA SQL_THREAD")
    try:
        rows = sess.execute(
            "SELECT WORKER_ID, SERVICE_STATE FROM performance_schema.replication_applier_status_by_worker "
            "ORDER BY WORKER_ID"
        )[0].rows
        assert rows == [(w, "ON") for w in worker_ids]
        coordinator = sess.execute(
            "SELECT * FROM performance_schema.replication_applier_status_by_coordinator"
        )
        assert len(coordinator[0].rows) == coordinators
    finally:
        sess.execute("STOP REPLICA")
