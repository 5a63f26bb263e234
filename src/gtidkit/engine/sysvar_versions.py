"""System variables whose default or existence differs between the releases a server presents as
(``--server-version 5.7 | 8.0 | 8.4``; :mod:`gtidkit.engine.server_version`), as one table (STYLE.md: differences
are data).

Sources: RM 5.7 / 8.0 / 8.4 "Server System Variable Reference" and "Replication and Binary Logging Options and
Variables"; MySQL Server Version Reference "Option and Variable Changes for MySQL 8.0 / 8.2 / 8.4"; RM 8.4 "What Is
New in MySQL 8.4" (removed: ``binlog_transaction_dependency_tracking``, ``default_authentication_plugin``;
``expire_logs_days`` went in 8.2.0, ``transaction_write_set_extraction`` in 8.3.0).

A name the release does not have is ER_UNKNOWN_SYSTEM_VARIABLE 1193 for SELECT @@name, SET and start-up options, and
SHOW VARIABLES leaves it out. The value itself stays in the server's table where the engine still reads it
(under 8.4 the dependency tracker is WRITESET with no variable to name it; under 5.7 ``log_slave_updates`` is the
name of what 8.0.26+ calls ``log_replica_updates``).

========================================  ==============  ===============  ===============  ====================
variable                                  5.7             8.0              8.4              source
========================================  ==============  ===============  ===============  ====================
log_bin                                   OFF             ON               ON               8.0.3 binlog on
server_id                                 0               1                1                8.0.3
log_replica_updates (log_slave_updates)   OFF             ON               ON               8.0.3
gtid_executed_compression_period          1000            0                0                8.0.23
transaction_write_set_extraction          OFF             XXHASH64         (removed)        8.0.2 / 8.3.0
binlog_transaction_dependency_tracking    COMMIT_ORDER    COMMIT_ORDER     (removed) [*]    5.7.22 / 8.4.0
default_authentication_plugin             native [**]     caching_sha2     (removed)        8.0.4 / 8.4.0
binlog_expire_logs_seconds                (none)          2592000          2592000          8.0.1
binlog_expire_logs_auto_purge             (none)          ON               ON               8.0.29
binlog_row_metadata                       (none)          MINIMAL          MINIMAL          8.0.1
binlog_row_value_options                  (none)          ''               ''               8.0.3
binlog_transaction_compression (+zstd)    (none)          OFF (3)          OFF (3)          8.0.20
replica_parallel_workers                  0               4                4                8.0.27
replica_parallel_type                     DATABASE        LOGICAL_CLOCK    (removed)        8.0.27 / 8.4.0
replica_preserve_commit_order             OFF             ON               ON               8.0.27
master_info_repository (relay_log_info_)  FILE            TABLE            (removed)        8.0.2 / 8.4.0
replica_* / source_* names                (none)          yes              yes              8.0.26 (5.7: slave_*)
========================================  ==============  ===============  ===============  ====================

[*] 8.4 always tracks WRITESET (:mod:`gtidkit.engine.binlog.dependency`): the engine keeps ``WRITESET`` as the
value it reads. 8.0.41's ``sys_vars.cc`` declares ``DEFAULT(DEPENDENCY_TRACKING_COMMIT_ORDER)``.

[**] ``mysql_native_password``; 8.0.4 made ``caching_sha2_password`` the default (``sys_vars.cc``
``Sys_default_authentication_plugin``); 8.4 removed the variable (``authentication_policy`` names the default, still
caching_sha2_password). CREATE USER without ``IDENTIFIED WITH``, the Handshake's plugin and ``root@localhost`` at
``--initialize`` use it.
"""

from __future__ import annotations

from typing import Any

from gtidkit.engine.server_version import Release

__all__ = [
    "ABSENT",
    "ALIASES_OF_VERSIONED",
    "RENAMED_IN_8_0_26",
    "VERSIONED",
    "absent_names",
    "default_of",
    "defaults",
]


class _Absent:
    """The variable does not exist in that release."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()

#: variable -> (5.7, 8.0, 8.4) default, or :data:`ABSENT` (module table)
VERSIONED: dict[str, tuple[Any, Any, Any]] = {
    "log_bin": (False, True, True),
    "server_id": (0, 1, 1),
    "log_replica_updates": (False, True, True),
    "gtid_executed_compression_period": (1000, 0, 0),
    "transaction_write_set_extraction": ("OFF", "XXHASH64", ABSENT),
    "binlog_transaction_dependency_tracking": ("COMMIT_ORDER", "COMMIT_ORDER", ABSENT),
    "default_authentication_plugin": ("mysql_native_password", "caching_sha2_password", ABSENT),
    "binlog_expire_logs_seconds": (ABSENT, 2592000, 2592000),
    "binlog_expire_logs_auto_purge": (ABSENT, True, True),
    "binlog_row_metadata": (ABSENT, "MINIMAL", "MINIMAL"),
    "binlog_row_value_options": (ABSENT, "", ""),
    "binlog_transaction_compression": (ABSENT, False, False),
    "binlog_transaction_compression_level_zstd": (ABSENT, 3, 3),
    # 8.0.27 made the multi-threaded applier the default; 8.4.0 removed replica_parallel_type
    "replica_parallel_workers": (0, 4, 4),
    "replica_parallel_type": ("DATABASE", "LOGICAL_CLOCK", ABSENT),
    "replica_preserve_commit_order": (False, True, True),
    # 8.0.2 made TABLE the default; 8.4.0 removed both
    "master_info_repository": ("FILE", "TABLE", ABSENT),
    "relay_log_info_repository": ("FILE", "TABLE", ABSENT),
}

#: names 8.0.26 gave the slave / master variables: 5.7 knows only the old ones (their aliases in
#: :data:`gtidkit.engine.sysvars.SYSVARS`), which keep working under every release
RENAMED_IN_8_0_26 = frozenset(
    {
        "log_replica_updates",
        "skip_replica_start",
        "replica_net_timeout",
        "source_verify_checksum",
        "replica_type_conversions",
        "replica_parallel_workers",
        "replica_parallel_type",
        "replica_preserve_commit_order",
        "replica_skip_errors",
    }
)


#: old names that disappear with their variable where a release removed it (8.4.0 removed both spellings)
ALIASES_OF_VERSIONED = {"slave_parallel_type": "replica_parallel_type"}


def _column(release: Release) -> int:
    major, minor, _patch = release.number
    if (major, minor) < (8, 0):
        return 0
    return 1 if (major, minor) < (8, 4) else 2


def defaults(release: Release) -> dict[str, Any]:
    """The defaults ``release`` gives the variables of :data:`VERSIONED` it has (variable name -> value)."""
    col = _column(release)
    return {name: row[col] for name, row in VERSIONED.items() if row[col] is not ABSENT}


def absent_names(release: Release) -> frozenset[str]:
    """The variable names ``release`` does not have (1193 for them)."""
    col = _column(release)
    gone = {name for name, row in VERSIONED.items() if row[col] is ABSENT}
    gone |= {alias for alias, name in ALIASES_OF_VERSIONED.items() if name in gone}
    return frozenset(gone | (RENAMED_IN_8_0_26 if col == 0 else set()))


def default_of(name: str, release: Release) -> Any:
    """``name``'s default under ``release`` (:data:`ABSENT` when it has no such variable), or None when the
    variable's default is the same in every release."""
    row = VERSIONED.get(name)
    return None if row is None else row[_column(release)]
