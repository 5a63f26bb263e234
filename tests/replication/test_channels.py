"""Multi-source replication channels on an in-process server: FOR CHANNEL on every replica statement, the errors
of statements that need one channel, channel names, the per-channel relay logs and metadata rows, restart.

Expected values are MySQL's: mysql-test ``rpl/r/rpl_multi_source_cmd_errors.result`` (topology 1->2,3->2: channels
``channel_1`` and ``channel_3``; 8.0.26+ texts say "replica" where that 8.0 file says "slave"), the manual pages
"Compatibility with Previous Replication Statements" (which statements act on all channels, which need FOR
CHANNEL), "Replication Channel Naming Conventions" (64 characters, case-insensitive, relay log files
``<relay_log>-<channel>.NNNNNN``) and "Replication Channel Based Filters" (CONFIGURED_BY values).
"""

from __future__ import annotations

import pytest

from gtidkit.engine import Server
from gtidkit.errors import MySQLError
from gtidkit.replication import Replication
from gtidkit.replication.relay_log import default_basename
from gtidkit.replication.replica import install as install_replica
from tests.protocol.server_proc import free_port

MULTIPLE = (3079, "Multiple channels exist on the replica. Please provide channel name as an argument.")
BAD_NAME = (3076, "Couldn't create channel: Channel name is either invalid or too long.")


@pytest.fixture
def replica(tmp_path):
    """``replica(filters=None)`` -> (engine server, session) on tmp_path/data with GTID_MODE=ON (``filters``: the
    replicate_* start-up options); reopenable (the previous instance is shut down first); stopped at teardown."""
    opened: list[tuple[Server, Replication]] = []

    def _open(filters=None):
        while opened:
            srv, repl = opened.pop()
            repl.shutdown()
            srv.shutdown()
        srv = Server.open(tmp_path / "data", gtid_mode="ON", enforce_gtid_consistency="ON")
        repl = Replication()
        install_replica(srv, None, repl, filters=filters)
        opened.append((srv, repl))
        return srv, srv.session()

    yield _open
    for srv, repl in opened:
        repl.shutdown()
        srv.shutdown()


def err(sess, sql) -> tuple[int, str]:
    with pytest.raises(MySQLError) as e:
        sess.execute(sql)
    return e.value.code, e.value.message


def rows(sess, sql) -> list[dict]:
    res = sess.execute(sql)[0]
    return [dict(zip(res.column_names, r)) for r in res.rows]


def two_channels(sess, port: int) -> None:
    for ch in ("channel_1", "channel_3"):
        sess.execute(
            f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={port}, SOURCE_USER='root', "
            f"SOURCE_AUTO_POSITION=1 FOR CHANNEL '{ch}'"
        )


# rpl_multi_source_cmd_errors.result, part 1: statements that act on one channel, without FOR CHANNEL
NEED_ONE_CHANNEL = [
    pytest.param('CHANGE REPLICATION SOURCE TO SOURCE_USER = "root"', id="change-source"),
    pytest.param("SHOW RELAYLOG EVENTS", id="relaylog-events"),
    pytest.param('SELECT SOURCE_POS_WAIT("dummy-bin.000001", 4)', id="source-pos-wait"),
    pytest.param(
        'START REPLICA UNTIL SOURCE_LOG_FILE = "dummy-bin.000001", SOURCE_LOG_POS = 4', id="start-until"
    ),
    pytest.param('SELECT MASTER_POS_WAIT("dummy-bin.000001", 4)', id="master-pos-wait"),
]

# part 2: commands on a channel that does not exist
UNKNOWN_CHANNEL = [
    pytest.param('START REPLICA FOR CHANNEL "non_existent"', id="start"),
    pytest.param('STOP REPLICA FOR CHANNEL "non_existent"', id="stop"),
    pytest.param('SHOW RELAYLOG EVENTS FOR CHANNEL "non_existent"', id="relaylog-events"),
    pytest.param('RESET REPLICA FOR CHANNEL "non_existent"', id="reset"),
    pytest.param('SHOW REPLICA STATUS FOR CHANNEL "non_existent"', id="show-status"),
    pytest.param('CHANGE REPLICATION FILTER REPLICATE_DO_DB = (d) FOR CHANNEL "non_existent"', id="filter"),
    pytest.param('FLUSH RELAY LOGS FOR CHANNEL "non_existent"', id="flush-relay-logs"),
]

# part 3: names CHANGE REPLICATION SOURCE refuses to create
GR_REFUSED = "CHANGE REPLICATION SOURCE with the given parameters cannot be performed on channel '{}'."
BAD_NAMES = [
    pytest.param("A123456789" * 7, BAD_NAME, id="70-characters"),
    pytest.param("         ", BAD_NAME, id="blank"),
    pytest.param(
        "group_replication_applier",
        (3139, GR_REFUSED.format("group_replication_applier")),
        id="gr-applier",
    ),
    pytest.param(
        "group_replication_recovery",
        (3139, GR_REFUSED.format("group_replication_recovery")),
        id="gr-recovery",
    ),
]  # fmt: skip


@pytest.mark.parametrize("sql", NEED_ONE_CHANNEL)
def test_statement_needs_for_channel(replica, sql):
    _, sess = replica()
    two_channels(sess, free_port())
    assert err(sess, sql) == MULTIPLE


@pytest.mark.parametrize("sql", UNKNOWN_CHANNEL)
def test_unknown_channel(replica, sql):
    _, sess = replica()
    two_channels(sess, free_port())
    assert err(sess, sql) == (3074, "Replica channel 'non_existent' does not exist.")


@pytest.mark.parametrize(("name", "expected"), BAD_NAMES)
def test_channel_name_refused(replica, name, expected):
    _, sess = replica()
    two_channels(sess, free_port())
    sql = f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=10 FOR CHANNEL '{name}'"
    assert err(sess, sql) == expected
    # "Assert that channels are not created for failed CHANGE MASTER command."
    channels = rows(sess, "SELECT Channel_name FROM mysql.slave_master_info ORDER BY Channel_name")
    assert [r["Channel_name"] for r in channels] == ["channel_1", "channel_3"]


def test_pos_wait_unknown_channel_is_null(replica):
    _, sess = replica()
    two_channels(sess, free_port())
    res = sess.execute("SELECT SOURCE_POS_WAIT('dummy-bin.00001', 4, 3, 'non_existtent')")[0]
    assert res.rows == [(None,)]


def test_single_channel_statements_keep_working(replica):
    """One channel (the default one) only: no FOR CHANNEL needed, FOR CHANNEL '' names it."""
    _, sess = replica()
    port = free_port()
    sess.execute(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={port}")
    assert [r["Channel_Name"] for r in rows(sess, "SHOW REPLICA STATUS FOR CHANNEL ''")] == [""]
    sess.execute("SHOW RELAYLOG EVENTS")
    sess.execute("CHANGE REPLICATION SOURCE TO SOURCE_CONNECT_RETRY = 7 FOR CHANNEL ''")
    assert rows(sess, "SHOW REPLICA STATUS")[0]["Connect_Retry"] == 7


def test_channels_listed_stored_and_named(replica, tmp_path):
    _, sess = replica()
    port = free_port()
    two_channels(sess, port)
    # one row per configured channel, by name; the unconfigured default channel has none
    status = rows(sess, "SHOW REPLICA STATUS")
    assert [(r["Channel_Name"], r["Source_Port"], r["Auto_Position"]) for r in status] == [
        ("channel_1", port, 1),
        ("channel_3", port, 1),
    ]
    # names are case-insensitive: the parser lowercases them
    one = rows(sess, "SHOW REPLICA STATUS FOR CHANNEL 'CHANNEL_3'")
    assert [r["Channel_Name"] for r in one] == ["channel_3"]
    assert rows(sess, "SHOW REPLICA STATUS FOR CHANNEL ''") == []
    # each channel has its relay log <relay_log>-<channel>.000001 and its metadata rows
    datadir = tmp_path / "data"
    for ch in ("channel_1", "channel_3"):
        assert (datadir / f"{default_basename()}-{ch}.000001").exists()
        assert (datadir / f"{default_basename()}-{ch}.index").exists()
    assert one[0]["Relay_Log_File"] == f"{default_basename()}-channel_3.000001"
    master_info = rows(sess, "SELECT Channel_name, Port FROM mysql.slave_master_info ORDER BY Channel_name")
    assert master_info == [
        {"Channel_name": "channel_1", "Port": port},
        {"Channel_name": "channel_3", "Port": port},
    ]
    # performance_schema: one row per channel
    for table in ("replication_connection_configuration", "replication_connection_status",
                  "replication_applier_status", "replication_applier_configuration",
                  "replication_applier_status_by_worker"):  # fmt: skip
        names = rows(
            sess, f"SELECT DISTINCT CHANNEL_NAME FROM performance_schema.{table} ORDER BY CHANNEL_NAME"
        )
        assert [r["CHANNEL_NAME"] for r in names] == ["channel_1", "channel_3"], table

    # a restart re-creates both channels from their rows
    _, sess = replica()
    assert [r["Channel_Name"] for r in rows(sess, "SHOW REPLICA STATUS")] == ["channel_1", "channel_3"]
    assert err(sess, "SHOW RELAYLOG EVENTS") == MULTIPLE
    # ... and starts both (skip_replica_start is OFF); STOP REPLICA without FOR CHANNEL stops every channel
    running = [(r["Replica_IO_Running"], r["Replica_SQL_Running"]) for r in rows(sess, "SHOW REPLICA STATUS")]
    assert running == [("Connecting", "Yes"), ("Connecting", "Yes")]
    sess.execute("STOP REPLICA")
    running = [(r["Replica_IO_Running"], r["Replica_SQL_Running"]) for r in rows(sess, "SHOW REPLICA STATUS")]
    assert running == [("No", "No"), ("No", "No")]

    # RESET REPLICA ALL FOR CHANNEL deletes the channel: row, relay log files and index
    sess.execute("RESET REPLICA ALL FOR CHANNEL 'channel_3'")
    assert [r["Channel_Name"] for r in rows(sess, "SHOW REPLICA STATUS")] == ["channel_1"]
    assert not list(datadir.glob(f"{default_basename()}-channel_3.*"))
    assert err(sess, "START REPLICA FOR CHANNEL 'channel_3'") == (
        3074,
        "Replica channel 'channel_3' does not exist.",
    )
    # two channels remain (the default one and channel_1): still 3079 without FOR CHANNEL
    assert err(sess, "SHOW RELAYLOG EVENTS") == MULTIPLE
    # RESET REPLICA ALL without FOR CHANNEL: every named channel goes, the default channel alone remains
    sess.execute("RESET REPLICA ALL")
    assert rows(sess, "SHOW REPLICA STATUS") == []
    assert rows(sess, "SELECT Channel_name FROM mysql.slave_master_info") == []
    sess.execute("SHOW RELAYLOG EVENTS")  # one channel again: no FOR CHANNEL needed
    _, sess = replica()
    assert rows(sess, "SHOW REPLICA STATUS") == []


def test_filters_per_channel(replica):
    """CHANGE REPLICATION FILTER ... FOR CHANNEL sets one channel's filters; without FOR CHANNEL, the global ones
    and every channel's."""
    _, sess = replica()
    two_channels(sess, free_port())
    sess.execute("CHANGE REPLICATION FILTER REPLICATE_DO_DB = (db1) FOR CHANNEL 'channel_1'")
    q = (
        "SELECT CHANNEL_NAME, FILTER_NAME, FILTER_RULE, CONFIGURED_BY FROM performance_schema.replication_applier_filters"
        " ORDER BY CHANNEL_NAME, FILTER_NAME"
    )
    assert [tuple(r.values()) for r in rows(sess, q)] == [
        ("channel_1", "REPLICATE_DO_DB", "db1", "CHANGE_REPLICATION_FILTER_FOR_CHANNEL")
    ]
    status = {r["Channel_Name"]: r["Replicate_Do_DB"] for r in rows(sess, "SHOW REPLICA STATUS")}
    assert status == {"channel_1": "db1", "channel_3": ""}
    sess.execute("CHANGE REPLICATION FILTER REPLICATE_IGNORE_DB = (db9)")
    assert [tuple(r.values()) for r in rows(sess, q)] == [
        ("channel_1", "REPLICATE_DO_DB", "db1", "CHANGE_REPLICATION_FILTER_FOR_CHANNEL"),
        ("channel_1", "REPLICATE_IGNORE_DB", "db9", "CHANGE_REPLICATION_FILTER"),
        ("channel_3", "REPLICATE_IGNORE_DB", "db9", "CHANGE_REPLICATION_FILTER"),
    ]
    g = "SELECT FILTER_NAME, FILTER_RULE, CONFIGURED_BY FROM performance_schema.replication_applier_global_filters"
    assert [tuple(r.values()) for r in rows(sess, g)] == [
        ("REPLICATE_IGNORE_DB", "db9", "CHANGE_REPLICATION_FILTER")
    ]


def test_startup_filters_per_channel(replica):
    """``--replicate-do-db=channel_1:db1`` is channel_1's alone (STARTUP_OPTIONS_FOR_CHANNEL) and replaces that kind
    of global rule for it; a rule without a channel is global and every channel's."""
    _, sess = replica(filters={"replicate_do_db": ("CHANNEL_1:db1",), "replicate_ignore_db": ("x",)})
    two_channels(sess, free_port())
    q = (
        "SELECT CHANNEL_NAME, FILTER_NAME, FILTER_RULE, CONFIGURED_BY FROM performance_schema.replication_applier_filters"
        " ORDER BY CHANNEL_NAME, FILTER_NAME"
    )
    assert [tuple(r.values()) for r in rows(sess, q)] == [
        ("channel_1", "REPLICATE_DO_DB", "db1", "STARTUP_OPTIONS_FOR_CHANNEL"),
        ("channel_1", "REPLICATE_IGNORE_DB", "x", "STARTUP_OPTIONS"),
        ("channel_3", "REPLICATE_IGNORE_DB", "x", "STARTUP_OPTIONS"),
    ]
    g = "SELECT FILTER_NAME, FILTER_RULE, CONFIGURED_BY FROM performance_schema.replication_applier_global_filters"
    assert [tuple(r.values()) for r in rows(sess, g)] == [("REPLICATE_IGNORE_DB", "x", "STARTUP_OPTIONS")]


def test_flush_relay_logs(replica, tmp_path):
    """FLUSH RELAY LOGS FOR CHANNEL starts a new relay file for that channel; without FOR CHANNEL, for every one."""
    _, sess = replica()
    two_channels(sess, free_port())
    datadir = tmp_path / "data"

    def files(ch: str) -> list[str]:
        return sorted(p.name for p in datadir.glob(f"{default_basename()}-{ch}.0*"))

    sess.execute("FLUSH RELAY LOGS FOR CHANNEL 'channel_1'")
    assert files("channel_1") == [f"{default_basename()}-channel_1.00000{i}" for i in (1, 2)]
    assert files("channel_3") == [f"{default_basename()}-channel_3.000001"]
    # Relay_Log_File is the applier's relay file (``Relay_log_info::get_group_relay_log_name``), which the
    # stopped applier has not left: the first one, where CHANGE REPLICATION SOURCE put it
    relay_file = {r["Channel_Name"]: r["Relay_Log_File"] for r in rows(sess, "SHOW REPLICA STATUS")}
    assert relay_file == {
        "channel_1": f"{default_basename()}-channel_1.000001",
        "channel_3": f"{default_basename()}-channel_3.000001",
    }
    sess.execute("FLUSH RELAY LOGS")
    assert len(files("channel_1")) == 3 and len(files("channel_3")) == 2
