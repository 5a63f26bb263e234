"""System variables with MySQL's names, scopes, ranges, defaults and SET errors.

Sources: MySQL ``sql/sys_vars.cc`` (declarations of the GTID and binlog variables), RM8 "Server System Variables",
"Replication and Binary Logging Options and Variables", and the mysql-test result
``suite/sys_vars/r/gtid_executed_compression_period_basic.result`` for the exact SET behaviour of integer
variables (out of range → clamped with warning 1292; a decimal, float or string → ER_WRONG_TYPE_FOR_VAR 1232).

The table :data:`SYSVARS` is data, one :class:`SysVar` per variable; the engine keeps the global values in a
:class:`GlobalVariables` and each session its session values. Variables whose value is computed (``gtid_executed``,
``gtid_owned``, ...) are declared here with ``dynamic_value=True`` and resolved by the server.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gtidkit.errors import MySQLError
from gtidkit.version import SERVER_VERSION

GLOBAL = "GLOBAL"
SESSION = "SESSION"
BOTH = "BOTH"

INT = "int"
BOOL = "bool"
ENUM = "enum"
STR = "str"

UINT32_MAX = 4294967295
UINT64_MAX = 18446744073709551615

GTID_MODES = ("OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON")


@dataclass(frozen=True, slots=True)
class SysVar:
    """One system variable as ``sql/sys_vars.cc`` declares it.

    Args:
        name: MySQL's name, lowercase.
        scope: ``GLOBAL``, ``SESSION`` (session-only, e.g. ``gtid_next``) or ``BOTH``.
        kind: ``int`` (range ``minimum..maximum`` inclusive), ``bool`` (ON/OFF shown as 1/0 in SELECT),
            ``enum`` (``choices`` in order; the index is accepted too) or ``str``.
        default: default value (already normalised: int, bool, enum choice name or str).
        read_only: startup option only; SET gives ER_INCORRECT_GLOBAL_LOCAL_VAR 1238.
        dynamic_value: the value is computed by the server (e.g. ``gtid_executed``); SET goes to the server.
        alias_of: the variable this name is an alias of (``log_slave_updates`` → ``log_replica_updates``).
    """

    name: str
    scope: str
    kind: str
    default: Any
    minimum: int = 0
    maximum: int = UINT64_MAX
    choices: tuple[str, ...] = ()
    read_only: bool = False
    dynamic_value: bool = False
    alias_of: str | None = None


def _v(*args: Any, **kw: Any) -> SysVar:
    return SysVar(*args, **kw)


#: The variables gtidkit knows. Defaults follow the issue's options (gtid_executed_compression_period 1000 as in
#: 5.7/8.0 <= 8.0.22, the mysql-test result we mirror); MySQL's own defaults are noted where they differ.
SYSVARS: dict[str, SysVar] = {
    v.name: v
    for v in [
        _v("gtid_mode", GLOBAL, ENUM, "OFF", choices=GTID_MODES),
        _v("enforce_gtid_consistency", GLOBAL, ENUM, "OFF", choices=("OFF", "ON", "WARN")),
        _v("gtid_executed_compression_period", GLOBAL, INT, 1000, 0, UINT32_MAX),
        _v("gtid_executed", GLOBAL, STR, "", read_only=True, dynamic_value=True),
        _v("gtid_purged", GLOBAL, STR, "", dynamic_value=True),
        _v("gtid_owned", BOTH, STR, "", read_only=True, dynamic_value=True),
        _v("gtid_next", SESSION, STR, "AUTOMATIC", dynamic_value=True),
        _v("log_bin", GLOBAL, BOOL, True, read_only=True),
        _v("log_bin_basename", GLOBAL, STR, "", read_only=True),
        _v("log_bin_index", GLOBAL, STR, "", read_only=True),
        _v("log_replica_updates", GLOBAL, BOOL, True, read_only=True),
        _v("log_slave_updates", GLOBAL, BOOL, True, read_only=True, alias_of="log_replica_updates"),
        _v("server_id", GLOBAL, INT, 1, 0, UINT32_MAX),
        _v("server_uuid", GLOBAL, STR, "", read_only=True),
        _v("binlog_format", BOTH, ENUM, "ROW", choices=("MIXED", "STATEMENT", "ROW")),
        _v("max_binlog_size", GLOBAL, INT, 1073741824, 4096, 1073741824),
        _v("sync_binlog", GLOBAL, INT, 1, 0, UINT32_MAX),
        _v("binlog_checksum", GLOBAL, ENUM, "CRC32", choices=("NONE", "CRC32")),
        _v("binlog_gtid_simple_recovery", GLOBAL, BOOL, True, read_only=True),
        # 8.0 names; 8.4 removed the variable and always tracks WRITESET, hence WRITESET as our default (8.0's
        # own default was COMMIT_ORDER). See gtidkit.engine.binlog.dependency.
        _v(
            "binlog_transaction_dependency_tracking",
            GLOBAL,
            ENUM,
            "WRITESET",
            choices=("COMMIT_ORDER", "WRITESET", "WRITESET_SESSION"),
        ),
        _v("binlog_transaction_dependency_history_size", GLOBAL, INT, 25000, 1, 1000000),
        _v("autocommit", BOTH, BOOL, True),
        _v("session_track_gtids", BOTH, ENUM, "OFF", choices=("OFF", "OWN_GTID", "ALL_GTIDS")),
        _v("sql_log_bin", SESSION, BOOL, True),
        # what mysqlbinlog prints for Intvar events (SET INSERT_ID=n / SET LAST_INSERT_ID=n); insert_id applies to
        # the next statement only
        _v("insert_id", SESSION, INT, 0),
        _v("last_insert_id", SESSION, INT, 0),
        _v("version", GLOBAL, STR, SERVER_VERSION, read_only=True),
        _v("version_comment", GLOBAL, STR, "gtidkit", read_only=True),
        _v("datadir", GLOBAL, STR, "", read_only=True),
        _v("innodb_lock_wait_timeout", BOTH, INT, 50, 1, 1073741824),
        _v(
            "transaction_isolation",
            BOTH,
            ENUM,
            "REPEATABLE-READ",
            choices=("READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"),
        ),
        _v(
            "sql_mode",
            BOTH,
            STR,
            "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
            "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
        ),
        _v("character_set_client", BOTH, STR, "utf8mb4"),
        _v("character_set_connection", BOTH, STR, "utf8mb4"),
        _v("character_set_results", BOTH, STR, "utf8mb4"),
        _v("collation_connection", BOTH, STR, "utf8mb4_0900_ai_ci"),
        _v("time_zone", BOTH, STR, "SYSTEM"),
        _v("max_allowed_packet", BOTH, INT, 67108864, 1024, 1073741824),
        _v("wait_timeout", BOTH, INT, 28800, 1, 31536000),
        _v("net_write_timeout", BOTH, INT, 60, 1, 31536000),
        _v("lower_case_table_names", GLOBAL, INT, 0, 0, 2, read_only=True),
        # diagnostics area (engine/diagnostics.py): counts of the last statement that raised conditions
        _v("max_error_count", BOTH, INT, 1024, 0, 65535),
        _v("warning_count", SESSION, INT, 0, read_only=True, dynamic_value=True),
        _v("error_count", SESSION, INT, 0, read_only=True, dynamic_value=True),
        # session-state trackers (engine/tracking.py; WL#6885, WL#6972, WL#6631): what the OK packet reports
        _v("session_track_schema", BOTH, BOOL, True),
        _v("session_track_state_change", BOTH, BOOL, False),
        _v(
            "session_track_system_variables",
            BOTH,
            STR,
            "time_zone,autocommit,character_set_client,character_set_results,character_set_connection",
        ),
        _v("session_track_transaction_info", BOTH, ENUM, "OFF", choices=("OFF", "STATE", "CHARACTERISTICS")),
    ]
}


def lookup(name: str) -> SysVar:
    """The variable called ``name`` (case-insensitive), following aliases.

    Raises:
        MySQLError: 1193 ER_UNKNOWN_SYSTEM_VARIABLE "Unknown system variable '%s'".
    """
    var = SYSVARS.get(name.lower())
    if var is None:
        raise MySQLError(1193, f"Unknown system variable '{name}'")
    if var.alias_of:
        return SYSVARS[var.alias_of]
    return var


@dataclass(slots=True)
class Warning_:
    """A warning as SHOW WARNINGS lists it: (level, code, message)."""

    level: str
    code: int
    message: str

    def as_tuple(self) -> tuple[str, int, str]:
        """``(Level, Code, Message)`` as SHOW WARNINGS lists it."""
        return (self.level, self.code, self.message)


def _type_error(name: str) -> MySQLError:
    return MySQLError(1232, f"Incorrect argument type to variable '{name}'", "42000")


def _value_error(name: str, shown: str) -> MySQLError:
    return MySQLError(1231, f"Variable '{name}' can't be set to the value of '{shown}'", "42000")


def _shown(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "ON" if value else "OFF"
    return str(value)


def coerce(var: SysVar, value: Any, warnings: list[Warning_] | None = None) -> Any:
    """Convert a SET right-hand side to the variable's type, as ``Sys_var_*::do_check`` does.

    Args:
        var: the variable.
        value: ``int``, ``float`` (a decimal or float literal), ``str`` (quoted string or bare keyword such as
            ``ON``) or ``None`` (NULL).
        warnings: list receiving warning 1292 when an integer is clamped into range.

    Returns:
        int for ``int`` variables, bool for ``bool``, the canonical choice name for ``enum``, str for ``str``.

    Raises:
        MySQLError: 1232 ER_WRONG_TYPE_FOR_VAR (42000) for a float/decimal/string given to an integer variable;
            1231 ER_WRONG_VALUE_FOR_VAR (42000) for an unknown enum/bool value or NULL.
    """
    name = var.name
    if var.kind == INT:
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int):
            if value is None:
                raise _value_error(name, "NULL")
            raise _type_error(name)
        clamped = min(max(value, var.minimum), var.maximum)
        if clamped != value and warnings is not None:
            warnings.append(Warning_("Warning", 1292, f"Truncated incorrect {name} value: '{value}'"))
        return clamped
    if var.kind == BOOL:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.upper() in ("ON", "TRUE", "OFF", "FALSE"):
            return value.upper() in ("ON", "TRUE")
        if isinstance(value, float):
            raise _type_error(name)
        raise _value_error(name, _shown(value))
    if var.kind == ENUM:
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value < len(var.choices):
                return var.choices[value]
            raise _value_error(name, str(value))
        if isinstance(value, str):
            for choice in var.choices:
                if choice.upper() == value.upper():
                    return choice
            raise _value_error(name, value)
        if isinstance(value, float):
            raise _type_error(name)
        raise _value_error(name, _shown(value))
    if value is None:
        raise _value_error(name, "NULL")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise _type_error(name)
    return str(value)


def display(var: SysVar, value: Any) -> Any:
    """The value as ``SELECT @@name`` shows it: booleans as 1/0, everything else unchanged."""
    if var.kind == BOOL:
        return 1 if value else 0
    return value


def show_text(var: SysVar, value: Any) -> str:
    """The value as ``SHOW VARIABLES`` shows it: booleans as ON/OFF, numbers as decimal text."""
    if var.kind == BOOL:
        return "ON" if value else "OFF"
    return "" if value is None else str(value)


@dataclass
class GlobalVariables:
    """The global values of all static variables, guarded by a lock; SET GLOBAL hooks run under it.

    ``on_change[name]`` callables are invoked as ``fn(old, new)`` after a successful SET GLOBAL, outside any
    engine transaction (used to wake the compressor when ``gtid_executed_compression_period`` changes).
    """

    values: dict[str, Any] = field(default_factory=dict)
    on_change: dict[str, list[Callable[[Any, Any], None]]] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)

    @classmethod
    def with_defaults(cls, overrides: dict[str, Any] | None = None) -> GlobalVariables:
        """Defaults of :data:`SYSVARS`, with startup ``overrides`` already coerced (name → value)."""
        gv = cls()
        for var in SYSVARS.values():
            if var.alias_of is None:
                gv.values[var.name] = var.default
        for name, value in (overrides or {}).items():
            gv.values[lookup(name).name] = value
        return gv

    def get(self, name: str) -> Any:
        """Current global value of ``name`` (aliases followed)."""
        return self.values[lookup(name).name]

    def set(self, name: str, value: Any) -> None:
        """Store an already-validated global value and run the change hooks."""
        var = lookup(name)
        with self.lock:
            old = self.values.get(var.name)
            self.values[var.name] = value
        for fn in self.on_change.get(var.name, []):
            fn(old, value)


def parse_startup_option(name: str, value: Any) -> tuple[str, Any]:
    """Validate one ``Server.open`` option the way mysqld validates its command line.

    Args:
        name: the option, mysqld's name with underscores (``log_slave_updates`` is accepted as an alias).
        value: Python value (bool, int or str such as ``"ON"``).

    Returns:
        (canonical name, coerced value).

    Raises:
        MySQLError: 1193 for an unknown option, 1231/1232 for a bad value (mysqld would refuse to start).
    """
    var = lookup(name)
    return var.name, coerce(var, value, warnings=None)
