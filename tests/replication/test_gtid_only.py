"""CHANGE REPLICATION SOURCE TO ... GTID_ONLY / REQUIRE_ROW_FORMAT on an in-process server.

Oracle: mysql-test ``rpl_gtid/r/rpl_change_rep_source_to_gtid_only_syntax_pfs.result`` (MySQL 8.0.27+), step by
step: the values GTID_ONLY accepts, its prerequisites (GTID_MODE = ON, SOURCE_AUTO_POSITION = 1,
REQUIRE_ROW_FORMAT = 1), what cannot be disabled while it is on, GTID_MODE changes refused, the threads that must
be stopped, the stale positions after a restart (4068 / 4069 / warning 4072), RESET REPLICA [ALL], and START
REPLICA with GTID_MODE <> ON. Error numbers as MySQL 8.0's mysqld_error.h (and mysql-connector's errorcode.py)
number them; that .result file's "Warning 4073" comes from a release whose numbering was one higher. 3945 for
REQUIRE_ROW_FORMAT = 2: share/messages_to_clients.txt ER_REQUIRE_ROW_FORMAT_INVALID_VALUE.
"""

from __future__ import annotations

import pytest

from gtidkit.engine import Server
from gtidkit.errors import MySQLError
from gtidkit.replication import Replication
from gtidkit.replication.replica import install as install_replica
from tests.protocol.server_proc import free_port

NEED = "GTID_ONLY cannot be enabled for replication channel ''. You need GTID_MODE = ON, SOURCE_AUTO_POSITION = 1 and "
NEED += "REQUIRE_ROW_FORMAT = 1."
MUST_STOP = "This operation cannot be performed with running replication threads; run STOP REPLICA FOR CHANNEL '' first"
STALE = (
    "The replication positions relative to the source may be out-of-date on channel '', due to the use of "
    "GTID_ONLY=1. The out-of-date positions can still be used in some cases so, in order to update them, we suggest "
    "that you start the replication to receive and apply at least one transaction, which will set the positions to "
    "valid values."
)


@pytest.fixture
def replica(tmp_path):
    """``replica(**options)`` -> session on tmp_path/data (GTID_MODE=ON unless given, skip_replica_start);
    reopenable; stopped at teardown."""
    opened: list[tuple[Server, Replication]] = []

    def _open(**options):
        while opened:
            srv, repl = opened.pop()
            repl.shutdown()
            srv.shutdown()
        options = {"gtid_mode": "ON", "enforce_gtid_consistency": "ON", "skip_replica_start": "ON", **options}
        srv = Server.open(tmp_path / "data", **options)
        repl = Replication()
        install_replica(srv, None, repl)
        opened.append((srv, repl))
        return srv.session()

    yield _open
    for srv, repl in opened:
        repl.shutdown()
        srv.shutdown()


def err(sess, sql) -> tuple[int, str]:
    with pytest.raises(MySQLError) as e:
        sess.execute(sql)
    return e.value.code, e.value.message


def ok(sess, sql) -> list[tuple]:
    res = sess.execute(sql)[-1]
    return [(w.level, w.code, w.message) for w in res.warnings]


def one(sess, sql):
    return sess.execute(sql)[0].rows[0][0]


def gtid_only(sess) -> str:
    return one(sess, "SELECT GTID_ONLY FROM performance_schema.replication_connection_configuration")


def require_row_format(sess) -> str:
    return one(sess, "SELECT REQUIRE_ROW_FORMAT FROM performance_schema.replication_applier_configuration")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(
            "2",
            (
                1064,
                (
                    "You have an error in your CHANGE REPLICATION SOURCE syntax; GTID_ONLY only accepts values 0 or 1 "
                    "near '2' at line 1"
                ),
            ),
            id="two",
        ),
        pytest.param(
            "'1'",
            (
                1064,
                (
                    "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version "
                    "for the right syntax to use near ''1'' at line 1"
                ),
            ),
            id="quoted",
        ),
        pytest.param(
            "ON",
            (
                1064,
                (
                    "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version "
                    "for the right syntax to use near 'ON' at line 1"
                ),
            ),
            id="on",
        ),
    ],
)
def test_gtid_only_values(replica, value, expected):
    sess = replica()
    sess.execute(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={free_port()}")
    assert err(sess, f"CHANGE REPLICATION SOURCE TO GTID_ONLY = {value}") == expected
    assert gtid_only(sess) == "0"


def test_require_row_format_value(replica):
    sess = replica()
    sess.execute(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={free_port()}")
    assert err(sess, "CHANGE REPLICATION SOURCE TO REQUIRE_ROW_FORMAT = 2") == (
        3945,
        "The requested value 2 is invalid for REQUIRE_ROW_FORMAT, must be either 0 or 1.",
    )


def test_gtid_only_rules(replica):
    sess = replica()
    sess.execute(f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={free_port()}")
    sess.execute("CHANGE REPLICATION SOURCE TO REQUIRE_ROW_FORMAT=0, SOURCE_AUTO_POSITION=0, GTID_ONLY=0")
    # 2. enabling needs REQUIRE_ROW_FORMAT and SOURCE_AUTO_POSITION
    assert err(sess, "CHANGE REPLICATION SOURCE TO GTID_ONLY = 1, REQUIRE_ROW_FORMAT=1") == (4065, NEED)
    assert err(sess, "CHANGE REPLICATION SOURCE TO GTID_ONLY = 1, SOURCE_AUTO_POSITION=1") == (4065, NEED)
    assert ok(sess, "CHANGE REPLICATION SOURCE TO REQUIRE_ROW_FORMAT = 1, SOURCE_AUTO_POSITION=1") == []
    assert ok(sess, "CHANGE REPLICATION SOURCE TO GTID_ONLY = 1") == []
    assert (gtid_only(sess), require_row_format(sess)) == ("1", "YES")
    # 3. with GTID_ONLY = 1, neither REQUIRE_ROW_FORMAT nor SOURCE_AUTO_POSITION can be disabled
    assert err(sess, "CHANGE REPLICATION SOURCE TO REQUIRE_ROW_FORMAT = 0") == (
        4066,
        "REQUIRE_ROW_FORMAT cannot be disabled for replication channel '' when GTID_ONLY=1.",
    )
    assert err(sess, "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION = 0") == (
        4067,
        "SOURCE_AUTO_POSITION cannot be disabled for replication channel '' when GTID_ONLY=1.",
    )
    assert ok(sess, "CHANGE REPLICATION SOURCE TO REQUIRE_ROW_FORMAT=0, GTID_ONLY=0") == []
    assert (gtid_only(sess), require_row_format(sess)) == ("0", "NO")
    # 4. GTID_MODE must be ON to enable it, and cannot leave ON while it is on
    sess.execute("SET @@GLOBAL.GTID_MODE = ON_PERMISSIVE")
    sess.execute("CHANGE REPLICATION SOURCE TO REQUIRE_ROW_FORMAT = 1, SOURCE_AUTO_POSITION=1")
    assert err(sess, "CHANGE REPLICATION SOURCE TO GTID_ONLY = 1") == (4065, NEED)
    sess.execute("SET @@GLOBAL.GTID_MODE = ON")
    sess.execute("CHANGE REPLICATION SOURCE TO GTID_ONLY = 1")
    assert err(sess, "SET @@GLOBAL.GTID_MODE = ON_PERMISSIVE") == (
        3111,
        (
            "SET @@GLOBAL.GTID_MODE = ON_PERMISSIVE is not allowed because replication channel '' is configured with "
            "GTID_ONLY = 1. Execute CHANGE REPLICATION SOURCE TO GTID_ONLY = 0 FOR CHANNEL '' before you set "
            "@@GLOBAL.GTID_MODE = 'ON_PERMISSIVE'."
        ),
    )
    # 5. every replication thread must be stopped to change it
    sess.execute("CHANGE REPLICATION SOURCE TO GTID_ONLY = 0")
    sess.execute("START REPLICA IO_THREAD")
    assert err(sess, "CHANGE REPLICATION SOURCE TO GTID_ONLY = 1") == (3081, MUST_STOP)
    sess.execute("STOP REPLICA")
    sess.execute("START REPLICA SQL_THREAD")
    assert err(sess, "CHANGE REPLICATION SOURCE TO GTID_ONLY = 1") == (3081, MUST_STOP)
    sess.execute("STOP REPLICA")
    sess.execute("CHANGE REPLICATION SOURCE TO GTID_ONLY = 1")
    # 6. with valid positions, disabling needs no coordinates
    assert ok(sess, "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=0, GTID_ONLY=0") == []
    assert gtid_only(sess) == "0"


def test_stale_positions_after_restart(replica):
    sess = replica()
    sess.execute(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={free_port()}, SOURCE_AUTO_POSITION=1, "
        "REQUIRE_ROW_FORMAT=1, GTID_ONLY=1"
    )
    sess = replica()  # 7. the positions stored before the restart are stale
    assert (gtid_only(sess), require_row_format(sess)) == ("1", "YES")  # both kept across the restart
    assert err(sess, "CHANGE REPLICATION SOURCE TO GTID_ONLY=0, SOURCE_AUTO_POSITION=0") == (
        4068,
        (
            "When disabling GTID_ONLY and SOURCE_AUTO_POSITION FOR CHANNEL '' you must provide SOURCE_LOG_FILE and "
            "SOURCE_LOG_POS as source positions are invalid."
        ),
    )
    assert ok(sess, "CHANGE REPLICATION SOURCE TO GTID_ONLY = 0") == [("Warning", 4072, STALE)]
    assert err(sess, "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=0") == (
        4069,
        (
            "When disabling SOURCE_AUTO_POSITION FOR CHANNEL '' you must provide SOURCE_LOG_FILE and SOURCE_LOG_POS as "
            "source positions are invalid."
        ),
    )
    assert (
        ok(sess, 'CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=0, SOURCE_LOG_FILE="", SOURCE_LOG_POS=4')
        == []
    )
    sess.execute("CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=1")
    assert ok(sess, "CHANGE REPLICATION SOURCE TO SOURCE_AUTO_POSITION=0") == []  # valid again
    # 8. disabling it with a relay log position leaves the applier's source position stale: warned
    sess.execute("CHANGE REPLICATION SOURCE TO GTID_ONLY = 1, SOURCE_AUTO_POSITION=1")
    sess = replica()
    res = sess.execute("SHOW REPLICA STATUS")[0]
    relay_file = res.rows[0][[c.name for c in res.columns].index("Relay_Log_File")]
    assert ok(
        sess,
        'CHANGE REPLICATION SOURCE TO GTID_ONLY=0, SOURCE_AUTO_POSITION=0, SOURCE_LOG_FILE="", SOURCE_LOG_POS=4, '
        f"RELAY_LOG_FILE='{relay_file}', RELAY_LOG_POS=4",
    ) == [("Warning", 4072, STALE)]


def test_reset_and_start(replica):
    sess = replica()
    port = free_port()
    sess.execute(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={port}, SOURCE_AUTO_POSITION=1, "
        "REQUIRE_ROW_FORMAT=1, GTID_ONLY=1"
    )
    sess.execute("RESET REPLICA")  # 9. RESET REPLICA keeps the option
    assert (gtid_only(sess), require_row_format(sess)) == ("1", "YES")
    sess.execute("RESET REPLICA ALL")  # 10. RESET REPLICA ALL does not
    assert sess.execute("SELECT * FROM performance_schema.replication_connection_configuration")[0].rows == []
    sess.execute(
        f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={port}, SOURCE_USER='root', "
        "REQUIRE_ROW_FORMAT = 1, SOURCE_AUTO_POSITION=1, GTID_ONLY = 1"
    )
    # 11. after a restart with GTID_MODE <> ON the channel cannot start
    sess = replica(gtid_mode="ON_PERMISSIVE")
    assert err(sess, "START REPLICA") == (
        4071,
        "Replication cannot start for channel '' with GTID_ONLY = 1 as this server uses @@GLOBAL.GTID_MODE <> ON.",
    )
