"""Start-up defaults and existence of the system variables that differ between 5.7, 8.0 and 8.4
(``--server-version``; engine/sysvar_versions.py).

Expected values come from the manuals, not from gtidkit: RM 5.7 / 8.0 / 8.4 "Server System Variable Reference" and
"Replication and Binary Logging Options and Variables" (5.7: log_bin OFF, server_id 0, log_slave_updates OFF,
gtid_executed_compression_period 1000, transaction_write_set_extraction OFF, binlog_transaction_dependency_tracking
COMMIT_ORDER; 8.0: log_bin ON, server_id 1, log_replica_updates ON, gtid_executed_compression_period 0 since 8.0.23,
transaction_write_set_extraction XXHASH64), MySQL Server Version Reference "Option and Variable Changes for MySQL
8.0 / 8.4" (introduced in 8.0: binlog_row_metadata 8.0.1, binlog_row_value_options 8.0.3,
binlog_transaction_compression 8.0.20, binlog_expire_logs_seconds 8.0.1, the replica_* / source_* names 8.0.26;
removed in 8.4.0: binlog_transaction_dependency_tracking, default_authentication_plugin; transaction_write_set_extraction
removed in 8.3.0). 8.0's binlog_transaction_dependency_tracking default is COMMIT_ORDER (8.0.41 sys_vars.cc
``DEFAULT(DEPENDENCY_TRACKING_COMMIT_ORDER)``); default_authentication_plugin is mysql_native_password in 5.7 and
caching_sha2_password from 8.0.4 (RM 8.0 "Caching SHA-2 Pluggable Authentication").
A name the release lacks is ER_UNKNOWN_SYSTEM_VARIABLE 1193 ("Unknown system variable '%s'").
"""

from __future__ import annotations

import pytest

from gtidkit.errors import MySQLError

UNKNOWN = "1193"

# (variable, 5.7, 8.0, 8.4) as SELECT @@GLOBAL.<variable> shows it; UNKNOWN = 1193 in that release. log_bin,
# server_id, log_replica_updates and gtid_executed_compression_period have embedded defaults in Server.open (the
# issue's); mysqld's per-release ones are checked through `gtidkit server` below.
TABLE = [
    ("transaction_write_set_extraction", "OFF", "XXHASH64", UNKNOWN),
    ("binlog_transaction_dependency_tracking", "COMMIT_ORDER", "COMMIT_ORDER", UNKNOWN),
    ("default_authentication_plugin", "mysql_native_password", "caching_sha2_password", UNKNOWN),
    ("binlog_row_metadata", UNKNOWN, "MINIMAL", "MINIMAL"),
    ("binlog_row_value_options", UNKNOWN, "", ""),
    ("binlog_transaction_compression", UNKNOWN, 0, 0),
    ("binlog_transaction_compression_level_zstd", UNKNOWN, 3, 3),
    ("binlog_expire_logs_seconds", UNKNOWN, 2592000, 2592000),
    ("binlog_expire_logs_auto_purge", UNKNOWN, 1, 1),
    ("replica_net_timeout", UNKNOWN, 60, 60),
    ("slave_net_timeout", 60, 60, 60),
    ("skip_replica_start", UNKNOWN, 0, 0),
    ("source_verify_checksum", UNKNOWN, 0, 0),
    ("master_verify_checksum", 0, 0, 0),
    ("replica_type_conversions", UNKNOWN, "", ""),
    ("slave_type_conversions", "", "", ""),
    ("binlog_format", "ROW", "ROW", "ROW"),
    # 8.0.27 made the multi-threaded applier the default (4 workers, LOGICAL_CLOCK, commit order); 8.4.0 removed
    # replica_parallel_type / slave_parallel_type
    ("replica_parallel_workers", UNKNOWN, 4, 4),
    ("slave_parallel_workers", 0, 4, 4),
    ("replica_parallel_type", UNKNOWN, "LOGICAL_CLOCK", UNKNOWN),
    ("slave_parallel_type", "DATABASE", "LOGICAL_CLOCK", UNKNOWN),
    ("replica_preserve_commit_order", UNKNOWN, 1, 1),
    ("slave_preserve_commit_order", 0, 1, 1),
    ("replica_skip_errors", UNKNOWN, "OFF", "OFF"),
    ("slave_skip_errors", "OFF", "OFF", "OFF"),
    ("read_only", 0, 0, 0),
    ("super_read_only", 0, 0, 0),
    ("report_host", None, None, None),
]
VERSIONS = ("5.7", "8.0", "8.4")
CASES = [(v, row[0], row[1 + i]) for row in TABLE for i, v in enumerate(VERSIONS)]


@pytest.mark.parametrize(("version", "name", "expected"), CASES, ids=[f"{v}-{n}" for v, n, _ in CASES])
def test_variable_per_release(open_server, version, name, expected) -> None:
    srv = open_server(gtid_mode="OFF", enforce_gtid_consistency="OFF", server_version=version)
    s = srv.session()
    if expected == UNKNOWN:
        for sql in (f"SELECT @@GLOBAL.{name}", f"SET GLOBAL {name} = DEFAULT"):
            with pytest.raises(MySQLError) as err:
                s.execute(sql)
            assert (err.value.code, err.value.message) == (1193, f"Unknown system variable '{name}'")
        assert s.execute(f"SHOW GLOBAL VARIABLES LIKE '{name}'")[-1].rows == []
    else:
        assert s.execute(f"SELECT @@GLOBAL.{name}")[-1].rows == [(expected,)]
        assert [r[0] for r in s.execute(f"SHOW GLOBAL VARIABLES LIKE '{name}'")[-1].rows] == [name]


@pytest.mark.parametrize(
    ("version", "option"),
    [
        ("5.7", "log_replica_updates"),
        ("5.7", "binlog_row_metadata"),
        ("8.4", "binlog_transaction_dependency_tracking"),
        ("8.4", "default_authentication_plugin"),
    ],
    ids=["5.7-replica-name", "5.7-8.0-variable", "8.4-removed", "8.4-removed-auth-plugin"],
)
def test_a_start_up_option_the_release_lacks_is_refused(open_server, version, option) -> None:
    with pytest.raises(MySQLError) as err:
        open_server(gtid_mode="OFF", enforce_gtid_consistency="OFF", server_version=version, **{option: "ON"})
    assert err.value.code == 1193


# CREATE USER without IDENTIFIED WITH takes default_authentication_plugin (RM 5.7 "CREATE USER Statement": "the
# default plugin"; 5.7 mysql_native_password, 8.0.4+ caching_sha2_password, 8.4 authentication_policy's *)
@pytest.mark.parametrize(
    ("version", "plugin"),
    [("5.7", "mysql_native_password"), ("8.0", "caching_sha2_password"), ("8.4", "caching_sha2_password")],
    ids=["5.7", "8.0", "8.4"],
)
def test_create_user_takes_the_release_default_plugin(open_server, version, plugin) -> None:
    srv = open_server(gtid_mode="OFF", enforce_gtid_consistency="OFF", server_version=version)
    s = srv.session()
    s.execute("CREATE USER 'app'@'%' IDENTIFIED BY 'pw'")
    assert s.execute("SELECT plugin FROM mysql.user WHERE user = 'app'")[-1].rows == [(plugin,)]


# Tagged GTIDs came with 8.3.0 (WL#15294): before, the text after the UUID is a GNO only, so a tag is a malformed
# GTID for SET gtid_next (1774 "Malformed GTID specification '%s'.") and a malformed set for SET gtid_purged (1231).
UUID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
TAGGED = [
    ("SET gtid_next = 'AUTOMATIC:blue'", 1774, "Malformed GTID specification 'AUTOMATIC:blue'."),
    (f"SET gtid_next = '{UUID}:blue:1'", 1774, f"Malformed GTID specification '{UUID}:blue:1'."),
    (
        f"SET GLOBAL gtid_purged = '{UUID}:blue:1-2'",
        1231,
        f"Variable 'gtid_purged' can't be set to the value of '{UUID}:blue:1-2'",
    ),
]


@pytest.mark.parametrize("version", ["5.7", "8.0"])
@pytest.mark.parametrize(("sql", "code", "message"), TAGGED, ids=["automatic", "assigned", "purged"])
def test_tagged_gtids_refused_before_8_3(open_server, version, sql, code, message) -> None:
    s = open_server(gtid_mode="ON", log_bin=True, server_version=version).session()
    with pytest.raises(MySQLError) as err:
        s.execute(sql)
    assert (err.value.code, err.value.message) == (code, message)


@pytest.mark.parametrize(("sql", "_code", "_message"), TAGGED, ids=["automatic", "assigned", "purged"])
def test_tagged_gtids_accepted_by_8_4(open_server, sql, _code, _message) -> None:
    s = open_server(gtid_mode="ON", log_bin=True, server_version="8.4").session()
    s.execute(sql)


def test_default_authentication_plugin_option_sets_create_users_plugin(open_server) -> None:
    """``--default-authentication-plugin=mysql_native_password`` (the my.cnf line of many 8.0 installs) gives
    CREATE USER without IDENTIFIED WITH that plugin; the variable is read-only (1238)."""
    srv = open_server(
        gtid_mode="OFF", enforce_gtid_consistency="OFF", default_authentication_plugin="mysql_native_password"
    )
    s = srv.session()
    s.execute("CREATE USER 'app'@'%' IDENTIFIED BY 'pw'")
    assert s.execute("SELECT plugin FROM mysql.user WHERE user = 'app'")[-1].rows == [
        ("mysql_native_password",)
    ]
    with pytest.raises(MySQLError) as err:
        s.execute("SET GLOBAL default_authentication_plugin = 'caching_sha2_password'")
    assert err.value.code == 1238
