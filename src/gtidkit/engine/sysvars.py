"""System variables with MySQL's names, scopes, ranges, defaults and SET errors.

Sources: MySQL ``sql/sys_vars.cc`` (declarations of the GTID and binlog variables), RM8 "Server System Variables",
"Replication and Binary Logging Options and Variables", and the mysql-test result
``suite/sys_vars/r/gtid_executed_compression_period_basic.result`` for the exact SET behaviour of integer
variables (out of range → clamped with warning 1292; a decimal, float or string → ER_WRONG_TYPE_FOR_VAR 1232).

The table :data:`SYSVARS` is data, one :class:`SysVar` per variable; the engine keeps the global values in a
:class:`GlobalVariables` and each session its session values. Variables whose value is computed (``gtid_executed``,
``gtid_owned``, ...) are declared with ``dynamic_value=True`` and a ``read`` hook.

SET goes through one pipeline, :func:`set_variable`, shaped like MySQL's ``set_var::check`` / ``sys_var::update``
(``sql/set_var.cc``): scope checks (1238 read-only, 1229 GLOBAL-only set without GLOBAL, 1228 SESSION-only set with
GLOBAL), DEFAULT (1230 when the variable has none), then the variable's hooks, each optional:

* ``check(ctx, value) -> value``: converts the right-hand side (``Sys_var_*::do_check``); default :func:`coerce`;
* ``on_check(ctx, value)``: refuses the change by raising (MySQL's ``ON_CHECK``, e.g. :func:`check_outside_trx`);
* ``update(ctx, value)``: stores it (``global_update`` / ``session_update``); default: the global table or the
  session's values;
* ``on_update(ctx, old, new)``: reacts after the store (MySQL's ``ON_UPDATE``, e.g. waking the compressor);
* ``read(session, scope) -> value``: computes the value of a ``dynamic_value`` variable (MySQL's ``ON_READ``);
* ``follow(server, old, new)``: the part of a GLOBAL change that lives in one process's objects (the binary log's
  copy of ``sync_binlog``, the compressor's period ...), run by ``on_update`` in the process of the SET and by
  every other worker process of a multi-process server when it loads the new value (:func:`apply_global`,
  :mod:`gtidkit.engine.shared_config`).

Add a variable by adding a row to :data:`SYSVARS`; put its hooks in the module that owns the behaviour (GTID
variables: :mod:`gtidkit.engine.gtid.variables`) and never branch on the variable's name elsewhere.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gtidkit.engine import charsets, optimizer_switch
from gtidkit.engine import time_zone as tz
from gtidkit.engine.gtid import variables as gv
from gtidkit.engine.sql import type_conversion
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import message, mysql_error
from gtidkit.version import MYSQL_VERSION, SERVER_VERSION

if TYPE_CHECKING:
    from gtidkit.engine.server_version import Release
    from gtidkit.engine.session import Session

GLOBAL = "GLOBAL"
SESSION = "SESSION"
BOTH = "BOTH"

INT = "int"
BOOL = "bool"
ENUM = "enum"
STR = "str"

UINT32_MAX = 4294967295
UINT64_MAX = 18446744073709551615

GTID_MODES = gv.GTID_MODES

CheckHook = Callable[["SetContext", Any], Any]
OnCheckHook = Callable[["SetContext", Any], None]
UpdateHook = Callable[["SetContext", Any], None]
OnUpdateHook = Callable[["SetContext", Any, Any], None]
ReadHook = Callable[["Session", "str | None"], Any]
FollowHook = Callable[[Any, Any, Any], None]


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
        no_default: ``SET ... = DEFAULT`` gives ER_NO_DEFAULT 1230 (``gtid_purged``).
        check, on_check, update, on_update, read, follow: the hooks (module docstring).
        parse: ``fn(value) -> value`` converting a value that needs no session (``time_zone``): used by SET
            before ``check`` and by start-up options (:func:`parse_startup_option`), so both refuse the same values.
        restricted_session: setting the SESSION value is a restricted operation (WL#12217): it needs SUPER,
            SYSTEM_VARIABLES_ADMIN or SESSION_VARIABLES_ADMIN (checked by ``protocol/privileges.py``).
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
    no_default: bool = False
    check: CheckHook | None = None
    on_check: OnCheckHook | None = None
    update: UpdateHook | None = None
    on_update: OnUpdateHook | None = None
    read: ReadHook | None = None
    follow: FollowHook | None = None
    parse: Callable[[Any], Any] | None = None
    restricted_session: bool = False


def _v(*args: Any, **kw: Any) -> SysVar:
    return SysVar(*args, **kw)


def _binlog_attribute(name: str) -> FollowHook:
    """max_binlog_size / sync_binlog: the binlog manager reads its own copy (``follow`` hook)."""

    def follow(server: Any, _old: Any, new: Any) -> None:
        if server.binlog is not None:
            setattr(server.binlog, name, int(new))

    return follow


def _follows(ctx: SetContext, old: Any, new: Any) -> None:
    """``on_update`` of a variable with a ``follow`` hook: run it in the SET's own process."""
    assert ctx.var.follow is not None
    ctx.var.follow(ctx.server, old, new)


def _compression_period_changed(server: Any, _old: Any, _new: Any) -> None:
    """gtid_executed_compression_period: re-check the transactions saved against the new period (the process
    that completes a period wakes the compressor, wherever it runs: ``Server.transactions_saved``)."""
    server.transactions_saved(0)


def _read_only_changed(ctx: SetContext, _old: Any, new: Any) -> None:
    """SET GLOBAL read_only = OFF also turns super_read_only OFF (``fix_read_only``)."""
    if not new:
        ctx.server.globals.set("super_read_only", False)


def _super_read_only_changed(ctx: SetContext, _old: Any, new: Any) -> None:
    """SET GLOBAL super_read_only = ON also turns read_only ON (``fix_super_read_only``)."""
    if new:
        ctx.server.globals.set("read_only", True)


def _warn_zero_workers(ctx: SetContext, value: Any) -> None:
    """SET GLOBAL replica_parallel_workers = 0: warning 1287 ``'0' is deprecated ... Please use 1 instead`` (8.0.27+;
    mysql-test ``rpl_nogtid/r/rpl_perfschema_applier_status_by_worker.result``)."""
    if int(value) == 0:
        ctx.warnings.append(Warning_("Warning", 1287, message(1287, "0", "1")))


def _skip_errors(value: Any) -> str:
    """``replica_skip_errors``: ``OFF``, ``all``, ``ddl_exist_errors`` or a comma-separated list of error codes,
    shown as mysqld shows it (``OFF`` / ``ALL`` / the codes in ascending order, RM8 "replica_skip_errors").

    Raises:
        MySQLError: 1231 for a value that is none of those.
    """
    text = str(value).strip()
    upper = text.upper()
    if upper in ("", "OFF"):
        return "OFF"
    if upper == "ALL":
        return "ALL"
    codes: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if part.lower() == "ddl_exist_errors":
            codes.update((1007, 1008, 1050, 1051, 1054, 1060, 1061, 1068, 1094, 1146))
        elif part.isdigit():
            codes.add(int(part))
        else:
            raise mysql_error(1231, "replica_skip_errors", text)
    return ",".join(str(c) for c in sorted(codes))


def skip_error_codes(value: Any) -> frozenset[int] | None:
    """The error codes a ``replica_skip_errors`` value skips; None for ``ALL``, empty for ``OFF``."""
    text = str(value or "OFF")
    if text.upper() == "ALL":
        return None
    if text.upper() == "OFF":
        return frozenset()
    return frozenset(int(c) for c in text.split(",") if c)


def _autocommit_changed(ctx: SetContext, old: Any, new: Any) -> None:
    """SET autocommit=1 from 0 commits the open transaction (``fix_autocommit``)."""
    if ctx.scope == SESSION and new and not old:
        ctx.session.implicit_commit()


def _div_precision_changed(ctx: SetContext, old: Any, new: Any) -> None:
    """SET div_precision_increment: sessions re-read it before their next statement (plans and result types of
    ``/`` and AVG follow it; gtidkit.engine.sql.numeric_types)."""
    if ctx.scope == SESSION:
        ctx.session.executor.div_precision_increment = None
    else:
        _div_precision_followed(ctx.server, old, new)


def _div_precision_followed(server: Any, _old: Any, _new: Any) -> None:
    """A new GLOBAL div_precision_increment: every session of this process re-reads it."""
    for s in server.sessions():
        s.executor.div_precision_increment = None


def _update_last_insert_id(ctx: SetContext, new: Any) -> None:
    """SET last_insert_id = N: what LAST_INSERT_ID() returns next."""
    ctx.session.executor.last_insert_id = new


def _update_rand_seed(index: int) -> UpdateHook:
    """SET rand_seed1 / rand_seed2 = N: one seed of the session's RAND() generator (``update_rand_seed1/2``:
    ``thd->rand.seed1 = N``), what mysqlbinlog prints for a Rand event (``SET @@RAND_SEED1=A, @@RAND_SEED2=B``) so
    the next statement's RAND() draws the source's values."""
    attr = f"seed{index}"

    def update(ctx: SetContext, new: Any) -> None:
        setattr(ctx.session.executor.rand, attr, int(new))

    return update


def _update_timestamp(ctx: SetContext, new: Any) -> None:
    """SET timestamp = N: the statement time of NOW() & co. until set to 0 / DEFAULT (RM8 "timestamp")."""
    ctx.session.executor.timestamp = float(new) if new else None


def _check_timestamp(ctx: SetContext, value: Any) -> Any:
    """timestamp (``Sys_var_session_special_double``): seconds with a fraction (mysqlbinlog prints ``SET
    TIMESTAMP=1647193191.636194`` for a Query event with Q_MICROSECONDS); 0 restores the clock.

    Raises:
        MySQLError: 1232 for a string or NULL, 1231 for a value out of range.
    """
    from decimal import Decimal

    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ctx.wrong_type()
    if value < 0 or value > 2**31 - 1:
        raise ctx.wrong_value(str(value))
    return int(value) if value == int(value) else float(value)


def _check_session_outside_trx(ctx: SetContext, _value: Any) -> None:
    """``check_session_admin_outside_trx_outside_sf``'s transaction part: the SESSION value cannot change inside a
    transaction (binlog_transaction_compression and its level: the transaction is compressed as a whole).

    Raises:
        MySQLError: 1766 ER_VARIABLE_NOT_SETTABLE_IN_TRANSACTION.
    """
    if ctx.scope == SESSION and ctx.session.in_transaction():
        raise gv.not_settable_in_transaction(ctx.var.name)


def _check_charset(ctx: SetContext, value: Any) -> Any:
    """character_set_client / _connection / _results (``Sys_var_charptr``-like ``check_cs_client``): a set's name
    (any case, ``utf8`` = utf8mb3) or a collation id, stored as the canonical name; NULL only for _results (no
    conversion of results).

    Raises:
        MySQLError: 1115 an unknown set; 1231 NULL elsewhere, or ucs2 / utf16 / utf16le / utf32 as the client's set.
    """
    name = ctx.var.name
    if value is None:
        if name == "character_set_results":
            return None
        raise _value_error(name, "NULL")
    if isinstance(value, int) and not isinstance(value, bool):
        cs = charsets.for_collation_id(value)
        if cs is None:
            raise mysql_error(1115, str(value))
    else:
        cs = charsets.lookup(str(value))
    if name == "character_set_client" and not cs.client_ok:
        raise _value_error(name, cs.name)
    return cs.name


def _check_sql_mode(ctx: SetContext, value: Any) -> Any:
    """sql_mode (``Sys_var_set``): a number is the bit set (what mysqlbinlog prints from a Query event's
    Q_SQL_MODE_CODE: ``SET @@session.sql_mode=1168113696``), shown as the mode names in bit order; text is kept.

    Raises:
        MySQLError: 1231 for NULL or a number with bits no mode has.
    """
    if value is None:
        raise ctx.wrong_value("NULL")
    if isinstance(value, int) and not isinstance(value, bool):
        from gtidkit.engine.binlog.transaction_events import SQL_MODE_BITS

        if value < 0 or value >= 1 << 33:  # past MODE_LAST
            raise ctx.wrong_value(str(value))
        # the bits of modes 8.0 removed (NO_AUTO_CREATE_USER 1<<28, POSTGRESQL ... MYSQL40: a 5.7 source's
        # default 1436549152 has one) are MODE_IGNORED_MASK: accepted, dropped
        names = [n for n, bit in sorted(SQL_MODE_BITS.items(), key=lambda kv: kv[1]) if value & bit]
        return ",".join(n for n in names if n not in ("ANSI", "TRADITIONAL"))
    if isinstance(value, float):
        raise ctx.wrong_type()
    return str(value)


def _check_collation(ctx: SetContext, value: Any) -> Any:
    """collation_connection / collation_server / default_collation_for_utf8mb4 (``check_collation_not_null``): a
    collation name or id (mysqlbinlog prints ids: ``SET @@session.collation_connection=255``).

    Raises:
        MySQLError: 1231 for NULL, 1232 for a decimal, 1273 ER_UNKNOWN_COLLATION for an unknown id or name.
    """
    if value is None:
        raise ctx.wrong_value("NULL")
    if isinstance(value, int) and not isinstance(value, bool):
        for name, cid in charsets.collation_ids().items():
            if cid == value:
                return name
        raise mysql_error(1273, str(value))
    if isinstance(value, float):
        raise ctx.wrong_type()
    name = str(value).lower()
    if name.startswith("utf8_"):
        name = "utf8mb3_" + name[5:]
    if name not in charsets.collation_ids() and name.split("_")[0] not in charsets.CHARSETS:
        raise mysql_error(1273, str(value))
    return name


#: ``lc_time_names`` locales by number (``my_locale_by_number``: ``SET @@session.lc_time_names=0`` in mysqlbinlog's
#: output is en_US) for the locales gtidkit formats (DATE_FORMAT month and day names are en_US only).
_LOCALES = {0: "en_US"}


def _check_locale(ctx: SetContext, value: Any) -> Any:
    """lc_time_names (``check_locale``): a locale number or name.

    Raises:
        MySQLError: 1649 ER_UNKNOWN_LOCALE.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in _LOCALES:
            raise mysql_error(1649, str(value))
        return _LOCALES[value]
    if value is None or str(value).lower() not in {n.lower() for n in _LOCALES.values()}:
        raise mysql_error(1649, "NULL" if value is None else str(value))
    return next(n for n in _LOCALES.values() if n.lower() == str(value).lower())


def _check_pseudo_replica_mode(ctx: SetContext, value: Any) -> None:
    """``check_pseudo_replica_mode``: outside a transaction only (1766 / 3138); the BINLOG statement's session
    state follows it (engine/statements/binlog_statement.py), with MySQL's warnings."""
    from gtidkit.engine.statements.binlog_statement import pseudo_replica_mode_changed

    gv.check_outside_trx(ctx, value)
    message = pseudo_replica_mode_changed(ctx.session, bool(value))
    if message is not None:
        ctx.warnings.append(Warning_("Warning", 1231, message))


def _update_auto_increment_increment(ctx: SetContext, _old: Any, new: Any) -> None:
    if ctx.scope == SESSION:
        ctx.session.executor.auto_increment_increment = int(new)


def _update_auto_increment_offset(ctx: SetContext, _old: Any, new: Any) -> None:
    """SET SESSION auto_increment_offset: the start of the session's AUTO_INCREMENT series."""
    if ctx.scope == SESSION:
        ctx.session.executor.auto_increment_offset = int(new)


#: The variables gtidkit knows. Defaults follow the issue's options (gtid_executed_compression_period 1000 as in
#: 5.7/8.0 <= 8.0.22, the mysql-test result we mirror); MySQL's own defaults are noted where they differ.
SYSVARS: dict[str, SysVar] = {
    v.name: v
    for v in [
        _v(
            "gtid_mode",
            GLOBAL,
            ENUM,
            "OFF",
            choices=GTID_MODES,
            on_check=gv.check_outside_trx,
            update=gv.update_gtid_mode,
        ),
        _v(
            "enforce_gtid_consistency",
            GLOBAL,
            ENUM,
            "OFF",
            choices=("OFF", "ON", "WARN"),
            on_check=gv.check_outside_trx,
            update=gv.update_enforce_gtid_consistency,
        ),
        _v(
            "gtid_executed_compression_period",
            GLOBAL,
            INT,
            1000,
            0,
            UINT32_MAX,
            on_update=_follows,
            follow=_compression_period_changed,
        ),
        _v("gtid_executed", GLOBAL, STR, "", read_only=True, dynamic_value=True, read=gv.read_gtid_executed),
        _v(
            "gtid_purged",
            GLOBAL,
            STR,
            "",
            dynamic_value=True,
            no_default=True,
            check=gv.check_gtid_purged,
            update=gv.update_gtid_purged,
            read=gv.read_gtid_purged,
        ),
        _v("gtid_owned", BOTH, STR, "", read_only=True, dynamic_value=True, read=gv.read_gtid_owned),
        _v(
            "gtid_next",
            SESSION,
            STR,
            "AUTOMATIC",
            dynamic_value=True,
            check=gv.check_gtid_next,
            update=gv.update_gtid_next,
            read=gv.read_gtid_next,
        ),
        _v("log_bin", GLOBAL, BOOL, True, read_only=True),
        _v("log_bin_basename", GLOBAL, STR, "", read_only=True),
        _v("log_bin_index", GLOBAL, STR, "", read_only=True),
        _v("log_replica_updates", GLOBAL, BOOL, True, read_only=True),
        _v("log_slave_updates", GLOBAL, BOOL, True, read_only=True, alias_of="log_replica_updates"),
        _v("server_id", GLOBAL, INT, 1, 0, UINT32_MAX),
        _v("server_uuid", GLOBAL, STR, "", read_only=True),
        # replica start-up and receiver (gtidkit.replication; sql/sys_vars.cc)
        _v("skip_replica_start", GLOBAL, BOOL, False, read_only=True),
        _v("skip_slave_start", GLOBAL, BOOL, False, read_only=True, alias_of="skip_replica_start"),
        _v("replica_net_timeout", GLOBAL, INT, 60, 1, 31536000),
        # what the replica reports to its source (COM_REGISTER_SLAVE -> SHOW REPLICAS); report_port 0 = the port
        # the server listens on (RM8 "Replica Server Options and Variables")
        _v("report_host", GLOBAL, STR, None, read_only=True),
        _v("report_port", GLOBAL, INT, 0, 0, 65535, read_only=True),
        _v("report_user", GLOBAL, STR, "", read_only=True),
        _v("report_password", GLOBAL, STR, "", read_only=True),
        _v("slave_net_timeout", GLOBAL, INT, 60, 1, 31536000, alias_of="replica_net_timeout"),
        # replica options (RM8 "Replication Replica Options and Variables"; gtidkit.replication.replica reads them
        # when the threads start): relay log purging and recovery, the applier's workers (transactions are applied
        # in commit order by one worker whatever the number: gtidkit.replication.applier), errors to skip, what the
        # replica reports to its source for SHOW REPLICAS (report_port 0: the port it listens on)
        # the replication metadata repositories: TABLE is the only choice since 8.0.23 (mysql.slave_master_info /
        # mysql.slave_relay_log_info, gtidkit.replication.channel), the variables deprecated, removed in 8.4.0;
        # orchestrator reads @@global.master_info_repository
        _v("master_info_repository", GLOBAL, ENUM, "TABLE", choices=("FILE", "TABLE"), read_only=True),
        _v("relay_log_info_repository", GLOBAL, ENUM, "TABLE", choices=("FILE", "TABLE"), read_only=True),
        _v("relay_log_purge", GLOBAL, BOOL, True),
        _v("relay_log_recovery", GLOBAL, BOOL, False, read_only=True),
        _v("relay_log_space_limit", GLOBAL, INT, 0, 0, UINT64_MAX, read_only=True),
        _v("replica_parallel_workers", GLOBAL, INT, 4, 0, 1024, on_check=_warn_zero_workers),
        _v("slave_parallel_workers", GLOBAL, INT, 4, 0, 1024, alias_of="replica_parallel_workers"),
        _v("replica_parallel_type", GLOBAL, ENUM, "LOGICAL_CLOCK", choices=("DATABASE", "LOGICAL_CLOCK")),
        _v(
            "slave_parallel_type",
            GLOBAL,
            ENUM,
            "LOGICAL_CLOCK",
            choices=("DATABASE", "LOGICAL_CLOCK"),
            alias_of="replica_parallel_type",
        ),
        _v("replica_preserve_commit_order", GLOBAL, BOOL, True),
        _v("slave_preserve_commit_order", GLOBAL, BOOL, True, alias_of="replica_preserve_commit_order"),
        _v("replica_skip_errors", GLOBAL, STR, "OFF", read_only=True, parse=_skip_errors),
        _v("slave_skip_errors", GLOBAL, STR, "OFF", read_only=True, alias_of="replica_skip_errors"),
        # RM8 "read_only" / "super_read_only": writes by clients without SUPER / CONNECTION_ADMIN (read_only), by
        # every client (super_read_only) fail with 1290; the replication applier is exempt
        # (gtidkit.engine.statements.transaction.check_read_only); super_read_only ON turns read_only ON, read_only
        # OFF turns super_read_only OFF
        _v("read_only", GLOBAL, BOOL, False, on_update=_read_only_changed),
        _v("super_read_only", GLOBAL, BOOL, False, on_update=_super_read_only_changed),
        _v("binlog_format", BOTH, ENUM, "ROW", choices=("MIXED", "STATEMENT", "ROW")),
        _v(
            "max_binlog_size",
            GLOBAL,
            INT,
            1073741824,
            4096,
            1073741824,
            on_update=_follows,
            follow=_binlog_attribute("max_binlog_size"),
        ),
        _v(
            "sync_binlog",
            GLOBAL,
            INT,
            1,
            0,
            UINT32_MAX,
            on_update=_follows,
            follow=_binlog_attribute("sync_binlog"),
        ),
        # RM8 "binlog_group_commit_sync_delay" (µs the sync stage's leader waits before its fsync) and
        # "binlog_group_commit_sync_no_delay_count" (a group this large ends the wait; no effect with no delay):
        # engine/binlog/group_sync.py
        _v("binlog_group_commit_sync_delay", GLOBAL, INT, 0, 0, 1000000),
        _v("binlog_group_commit_sync_no_delay_count", GLOBAL, INT, 0, 0, 100000),
        _v("binlog_checksum", GLOBAL, ENUM, "CRC32", choices=("NONE", "CRC32")),
        # which Table_map optional metadata is written (engine/sql/rowimage.py _optional_metadata): MySQL's default
        # MINIMAL has no column names; python-mysql-replication needs FULL to name the columns
        _v("binlog_row_metadata", GLOBAL, ENUM, "MINIMAL", choices=("MINIMAL", "FULL")),
        # row-based logging (RM8 "Binary Logging Options and Variables"): which columns the row images carry
        # (engine/sql/rowimage.py); choices in sys_vars.cc's order, so SET binlog_row_image = 0 is MINIMAL
        _v(
            "binlog_row_image",
            BOTH,
            ENUM,
            "FULL",
            choices=("MINIMAL", "NOBLOB", "FULL"),
            restricted_session=True,
        ),
        # a Rows_query event with the statement's text before its first Table_map (engine/binlog/transaction_events)
        _v("binlog_rows_query_log_events", BOTH, BOOL, False, restricted_session=True),
        # JSON partial updates as PARTIAL_UPDATE_ROWS events ('' or PARTIAL_JSON; a SET variable: 0 / 1 accepted)
        _v(
            "binlog_row_value_options",
            BOTH,
            ENUM,
            "",
            choices=("", "PARTIAL_JSON"),
            restricted_session=True,
        ),
        # ROW-format DML transactions as one zstd Transaction_payload (engine/binlog/transaction_events.py)
        _v(
            "binlog_transaction_compression",
            BOTH,
            BOOL,
            False,
            on_check=_check_session_outside_trx,
            restricted_session=True,
        ),
        _v(
            "binlog_transaction_compression_level_zstd",
            BOTH,
            INT,
            3,
            1,
            22,
            on_check=_check_session_outside_trx,
            restricted_session=True,
        ),
        # the dump thread checks each event's CRC32 before sending it (replication/dump.py)
        _v("source_verify_checksum", GLOBAL, BOOL, False),
        _v("master_verify_checksum", GLOBAL, BOOL, False, alias_of="source_verify_checksum"),
        _v("binlog_gtid_simple_recovery", GLOBAL, BOOL, True, read_only=True),
        # which column types the applier converts (engine/sql/type_conversion.py): a SET of ALL_LOSSY,
        # ALL_NON_LOSSY, ALL_UNSIGNED, ALL_SIGNED; '' (the default) = the types must match
        _v("replica_type_conversions", GLOBAL, STR, "", parse=type_conversion.normalise_flags),
        _v("slave_type_conversions", GLOBAL, STR, "", alias_of="replica_type_conversions"),
        # 8.4 removed the variable and always tracks WRITESET, hence WRITESET here; 5.7 and 8.0 start with
        # their COMMIT_ORDER default (engine/sysvar_versions.py). See gtidkit.engine.binlog.dependency.
        _v(
            "binlog_transaction_dependency_tracking",
            GLOBAL,
            ENUM,
            "WRITESET",
            choices=("COMMIT_ORDER", "WRITESET", "WRITESET_SESSION"),
        ),
        _v("binlog_transaction_dependency_history_size", GLOBAL, INT, 25000, 1, 1000000),
        # the plugin of CREATE USER without IDENTIFIED WITH, of the Handshake and of root at --initialize
        # (5.7: mysql_native_password; removed in 8.4: engine/sysvar_versions.py)
        _v(
            "default_authentication_plugin",
            GLOBAL,
            ENUM,
            "caching_sha2_password",
            choices=("mysql_native_password", "caching_sha2_password"),
            read_only=True,
        ),
        # the writeset hash (8.0: XXHASH64; 5.7: OFF; removed in 8.3.0): gtidkit's writesets are always XXHASH64
        # row hashes, the value is shown and kept (engine/sysvar_versions.py)
        _v(
            "transaction_write_set_extraction",
            BOTH,
            ENUM,
            "XXHASH64",
            choices=("OFF", "MURMUR32", "XXHASH64"),
            restricted_session=True,
        ),
        _v("autocommit", BOTH, BOOL, True, on_update=_autocommit_changed),
        # how a plain COMMIT / ROLLBACK ends (RM8 "START TRANSACTION, COMMIT, and ROLLBACK Statements"; mysql-test
        # suite/sys_vars/r/completion_type_basic.result: 0/1/2 or the names, TRUE = CHAIN, 10 / -1 / OFF -> 1231,
        # 2.4 -> 1232); read by gtidkit.engine.statements.transaction.completion
        _v("completion_type", BOTH, ENUM, "NO_CHAIN", choices=("NO_CHAIN", "CHAIN", "RELEASE")),
        # the session's default access mode (SET SESSION TRANSACTION READ ONLY sets it; 1792 on writes)
        _v("transaction_read_only", BOTH, BOOL, False),
        _v(
            "session_track_gtids",
            BOTH,
            ENUM,
            "OFF",
            choices=("OFF", "OWN_GTID", "ALL_GTIDS"),
            on_check=gv.check_outside_trx,
        ),
        _v("sql_log_bin", SESSION, BOOL, True),
        # what mysqlbinlog prints for Intvar events (SET INSERT_ID=n / SET LAST_INSERT_ID=n); insert_id applies to
        # the next statement only
        _v("insert_id", SESSION, INT, 0),
        _v("last_insert_id", SESSION, INT, 0, update=_update_last_insert_id),
        # mysqlbinlog's Rand event (Sys_rand_seed1/2: ULONG range, no DEFAULT, read as 0)
        *(
            _v(
                f"rand_seed{i}",
                SESSION,
                INT,
                0,
                no_default=True,
                dynamic_value=True,
                update=_update_rand_seed(i),
                read=lambda _session, _scope: 0,
            )
            for i in (1, 2)
        ),
        _v(
            "timestamp",
            SESSION,
            INT,
            0,
            1,
            2**31 - 1,
            dynamic_value=True,
            check=_check_timestamp,
            update=_update_timestamp,
            read=lambda session, _scope: int(session.executor.statement_time()),
        ),
        _v("version", GLOBAL, STR, SERVER_VERSION, read_only=True),
        _v("version_comment", GLOBAL, STR, "gtidkit", read_only=True),
        _v("datadir", GLOBAL, STR, "", read_only=True),
        # the host name and the TCP port the server listens on (RM 8.4 "Server System Variables": hostname, port);
        # the wire server stores the bound port at start-up (protocol/server.py)
        # InnoDB's version is the server's number since 8.0 (RM 8.4 "InnoDB System Variables": innodb_version)
        _v("innodb_version", GLOBAL, STR, MYSQL_VERSION, read_only=True),
        _v("hostname", GLOBAL, STR, socket.gethostname(), read_only=True),
        _v("port", GLOBAL, INT, 3306, 0, 65535, read_only=True),
        _v("innodb_lock_wait_timeout", BOTH, INT, 50, 1, 1073741824),
        # manual "Server System Variables": digits "/" adds to the dividend's scale, 0..30, default 4
        _v(
            "div_precision_increment",
            BOTH,
            INT,
            4,
            0,
            30,
            on_update=_div_precision_changed,
            follow=_div_precision_followed,
        ),
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
            check=_check_sql_mode,
        ),
        _v("character_set_client", BOTH, STR, "utf8mb4", check=_check_charset),
        _v("character_set_connection", BOTH, STR, "utf8mb4", check=_check_charset),
        _v("character_set_results", BOTH, STR, "utf8mb4", check=_check_charset),
        _v("collation_connection", BOTH, STR, "utf8mb4_0900_ai_ci", check=_check_collation),
        # '+HH:MM' offsets and SYSTEM; named zones need time zone tables a fresh MySQL lacks (engine/time_zone.py)
        _v("time_zone", BOTH, STR, tz.SYSTEM, parse=lambda value: tz.parse_time_zone(value).name),
        _v("system_time_zone", GLOBAL, STR, tz.system_time_zone_name(), read_only=True),
        _v("max_allowed_packet", BOTH, INT, 67108864, 1024, 1073741824),
        # RM8 "max_connections": client connections accepted at once (1040 "Too many connections" beyond); the
        # wire server, or the supervisor of a multi-process server, counts them (on_change callbacks they register)
        _v("max_connections", GLOBAL, INT, 151, 1, 100000),
        _v(
            "group_concat_max_len", BOTH, INT, 1024, 4, 18446744073709551615
        ),  # RM8: GROUP_CONCAT result bytes
        _v("wait_timeout", BOTH, INT, 28800, 1, 31536000),
        # issue 19 §3 (RM8 "Server System Variables"): what drivers read or set around their statements.
        # interactive_timeout becomes a CLIENT_INTERACTIVE session's wait_timeout at connect (protocol/handler.py)
        _v("interactive_timeout", BOTH, INT, 28800, 1, 31536000),
        # LOAD DATA LOCAL is refused with 3948 while OFF (8.0's default)
        _v("local_infile", GLOBAL, BOOL, False),
        # where LOAD DATA INFILE / SELECT ... INTO OUTFILE may read and write (1290 elsewhere): a directory, "" for
        # anywhere, NULL (a generic build's default, cmake/install_layout.cmake STANDALONE) for nowhere
        _v("secure_file_priv", GLOBAL, STR, None, read_only=True),
        # prepared statements of every session together (SQL PREPARE and COM_STMT_PREPARE): 1461 past it
        _v("max_prepared_stmt_count", GLOBAL, INT, 16382, 0, 4194304),
        # recursive CTE rows per iteration level: 3636 past it
        _v("cte_max_recursion_depth", BOTH, INT, 1000, 0, UINT32_MAX),
        # milliseconds a read-only SELECT may run (0: no limit): 3024 past it
        _v("max_execution_time", BOTH, INT, 0, 0, UINT32_MAX),
        _v("net_write_timeout", BOTH, INT, 60, 1, 31536000),
        _v("lower_case_table_names", GLOBAL, INT, 0, 0, 2, read_only=True),
        # diagnostics area (engine/diagnostics.py): counts of the last statement that raised conditions
        _v("max_error_count", BOTH, INT, 1024, 0, 65535),
        _v(
            "warning_count",
            SESSION,
            INT,
            0,
            read_only=True,
            dynamic_value=True,
            read=lambda session, _scope: session.diagnostics.warning_count,
        ),
        _v(
            "error_count",
            SESSION,
            INT,
            0,
            read_only=True,
            dynamic_value=True,
            read=lambda session, _scope: session.diagnostics.error_count,
        ),
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
        # metadata-lock waits (LOCK TABLES, FLUSH TABLES WITH READ LOCK): RM8 default one year
        _v("lock_wait_timeout", BOTH, INT, 31536000, 1, 31536000),
        # binary log expiry and error policy (RM8 "Binary Logging Options and Variables"; 8.4 removed
        # expire_logs_days, so setting it is ER_UNKNOWN_SYSTEM_VARIABLE 1193)
        _v("binlog_expire_logs_seconds", GLOBAL, INT, 2592000, 0, UINT32_MAX),
        _v("binlog_expire_logs_auto_purge", GLOBAL, BOOL, True),
        _v("binlog_error_action", GLOBAL, ENUM, "ABORT_SERVER", choices=("IGNORE_ERROR", "ABORT_SERVER")),
        # gtidkit's own (issue 21, docs/design/multi_worker.md): the worker processes of `gtidkit server
        # --workers=N` (a start-up option, as mysqld's thread-pool sizes are; the server's default is the CPUs the
        # process may use, protocol/cpus.py, and the server stores the value in effect; 1 here for an engine
        # opened in one process, `gtidkit sql` or Python) and the worker this connection lives in (0..N-1, placed
        # round-robin in accept order; 0 in a server that is one process)
        _v("gtidkit_workers", GLOBAL, INT, 1, 1, 1024, read_only=True),
        # a SQLite file per schema made by CREATE DATABASE (engine/schema_files.py; step 9): writers of different
        # schemas do not wait for each other. A start-up option, OFF until crash atomicity across files is built
        _v("gtidkit_file_per_schema", GLOBAL, BOOL, False, read_only=True),
        # InnoDB-style row locks for single-row primary-key DML (engine/statements/deferred.py,
        # docs/design/multi_worker.md §5.7): the write lock is taken at COMMIT only. A start-up option, ON by default
        # (--gtidkit-row-locks=OFF: every writer takes the write lock at its first write, as before h-rowlocks)
        _v("gtidkit_row_locks", GLOBAL, BOOL, True, read_only=True),
        _v(
            "gtidkit_worker_id",
            SESSION,
            INT,
            0,
            read_only=True,
            dynamic_value=True,
            read=lambda session, _scope: session.server.worker_id,
        ),
    ]
}


def _check_optimizer_switch(ctx: SetContext, value: Any) -> str:
    """SET optimizer_switch: merge the commands into the current flags (:func:`optimizer_switch.merge`)."""
    text = coerce(ctx.var, value, ctx.warnings)
    return optimizer_switch.merge(str(_current(ctx.session, ctx.var, ctx.scope)), text)


def _update_deprecated(ctx: SetContext, _value: Any) -> None:
    """``update_deprecated``: SET of character_set_database / collation_database warns (1681, MySQL's
    ER_WARN_DEPRECATED_SYSVAR_UPDATE text); the value stays the default database's."""
    ctx.warnings.append(
        Warning_(
            "Warning",
            1681,
            f"Updating '{ctx.var.name}' is deprecated. It will be made read-only in a future release.",
        )
    )


def _database_charset(index: int) -> ReadHook:
    """``@@character_set_database`` (index 0) / ``@@collation_database`` (1): the default database's, else the
    server's (RM8.4 "Server System Variables": "the database used by the default database ... If there is no
    default database, the variable has the same value as character_set_server")."""

    def read(session: Session, _scope: str | None) -> str:
        db = session.current_db
        cat = session.executor.storage.catalog
        if db is not None and cat.has_schema(db):
            return cat.schema_charset(db)[index]
        name = ("character_set_server", "collation_server")[index]
        return str(session.server.globals.values[name])

    return read


#: Session options that dump tools and their dumps set (mariadb-dump / mysqldump headers:
#: ``SET SQL_QUOTE_SHOW_CREATE=1``, ``/*!40014 SET UNIQUE_CHECKS=0, FOREIGN_KEY_CHECKS=0 */``,
#: ``/*!40111 SET SQL_NOTES=0 */``, ``SET optimizer_switch='semijoin=off'``, ``select @@collation_database``). Scopes and defaults from RM8.4
#: "Server System Variables". ``sql_notes`` = OFF keeps notes out of the diagnostics area (engine/session.py);
#: ``unique_checks`` / ``foreign_key_checks`` are accepted and shown but change nothing (no InnoDB change buffer,
#: no foreign keys); ``sql_quote_show_create`` = OFF is kept but SHOW CREATE always quotes.
_CLIENT_OPTION_VARS = (
    _v("sql_quote_show_create", BOTH, BOOL, True),
    _v("sql_notes", BOTH, BOOL, True),
    _v("sql_warnings", BOTH, BOOL, False),
    _v("unique_checks", BOTH, BOOL, True),
    _v("foreign_key_checks", BOTH, BOOL, True),
    _v("optimizer_switch", BOTH, STR, optimizer_switch.DEFAULT, check=_check_optimizer_switch),
    _v("character_set_server", BOTH, STR, "utf8mb4"),
    _v("collation_server", BOTH, STR, "utf8mb4_0900_ai_ci", check=_check_collation),
    # MySQL lets a client SET these (deprecated, warning 1681: mysqlbinlog prints ``SET
    # @@session.collation_database=DEFAULT``); gtidkit computes them from the default database, so SET changes nothing
    _v(
        "character_set_database",
        BOTH,
        STR,
        "utf8mb4",
        dynamic_value=True,
        read=_database_charset(0),
        update=_update_deprecated,
    ),
    _v(
        "collation_database",
        BOTH,
        STR,
        "utf8mb4_0900_ai_ci",
        dynamic_value=True,
        read=_database_charset(1),
        update=_update_deprecated,
    ),
)
SYSVARS.update((v.name, v) for v in _CLIENT_OPTION_VARS)


#: The session context mysqlbinlog prints before each Query event and each transaction (RM8 "mysqlbinlog";
#: ``Query_log_event::print_query_header``, ``Gtid_log_event::print``), so its output replays: declarations from
#: ``sql/sys_vars.cc``. ``pseudo_thread_id``, ``sql_auto_is_null``, ``lc_time_names``, ``sql_require_primary_key``
#: and ``default_table_encryption`` are kept and shown; ``original_*`` / ``immediate_server_version`` are kept for
#: the session's next transaction.
_REPLAY_VARS = (
    _v("pseudo_replica_mode", SESSION, BOOL, False, on_check=_check_pseudo_replica_mode),
    _v("pseudo_slave_mode", SESSION, BOOL, False, alias_of="pseudo_replica_mode"),
    _v("pseudo_thread_id", SESSION, INT, 0, 0, UINT32_MAX),
    _v("original_commit_timestamp", SESSION, INT, 1 << 55, 0, 1 << 55),
    _v("original_server_version", SESSION, INT, 999999, 0, 999999),
    _v("immediate_server_version", SESSION, INT, 999999, 0, 999999),
    _v("sql_auto_is_null", BOTH, BOOL, False),
    _v("auto_increment_increment", BOTH, INT, 1, 1, 65535, on_update=_update_auto_increment_increment),
    _v("auto_increment_offset", BOTH, INT, 1, 1, 65535, on_update=_update_auto_increment_offset),
    _v("lc_time_names", BOTH, STR, "en_US", check=_check_locale),
    _v("default_collation_for_utf8mb4", BOTH, STR, "utf8mb4_0900_ai_ci", check=_check_collation),
    _v("sql_require_primary_key", BOTH, BOOL, False),
    _v("default_table_encryption", BOTH, BOOL, False),
)
SYSVARS.update((v.name, v) for v in _REPLAY_VARS)


def lookup(name: str, absent: frozenset[str] = frozenset()) -> SysVar:
    """The variable called ``name`` (case-insensitive), following aliases.

    Args:
        name: the name as written.
        absent: names the server's release does not have (:attr:`GlobalVariables.absent`).

    Raises:
        MySQLError: 1193 ER_UNKNOWN_SYSTEM_VARIABLE "Unknown system variable '%s'".
    """
    var = SYSVARS.get(name.lower())
    if var is None or name.lower() in absent:
        raise mysql_error(1193, name)
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
    return mysql_error(1232, name)


def _value_error(name: str, shown: str) -> MySQLError:
    return mysql_error(1231, name, shown)


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


@dataclass(slots=True)
class SetContext:
    """One ``SET`` assignment being checked and applied (MySQL's ``set_var`` with its ``THD``).

    Args:
        session: the session running the SET (``session.server`` is the server).
        var: the variable (aliases resolved).
        scope: ``GLOBAL`` or ``SESSION``.
        warnings: receives warnings (e.g. 1292 when an integer is clamped).
    """

    session: Session
    var: SysVar
    scope: str
    warnings: list[Warning_]

    @property
    def server(self) -> Any:
        """The session's server."""
        return self.session.server

    def wrong_value(self, shown: str) -> MySQLError:
        """ER_WRONG_VALUE_FOR_VAR 1231 (42000) for this variable."""
        return _value_error(self.var.name, shown)

    def wrong_type(self) -> MySQLError:
        """ER_WRONG_TYPE_FOR_VAR 1232 (42000) for this variable."""
        return _type_error(self.var.name)


def read_only_error(name: str) -> MySQLError:
    """ER_INCORRECT_GLOBAL_LOCAL_VAR 1238 for a SET of a read-only variable."""
    return mysql_error(1238, name, "read only")


def set_variable(
    session: Session, name: str, scope: str | None, value: Any, *, is_default: bool, warnings: list[Warning_]
) -> None:
    """``SET [GLOBAL|SESSION|PERSIST] name = value``: scope checks, then the variable's hooks (module docstring).

    Args:
        session: the session running the SET.
        name: the variable name as written.
        scope: ``GLOBAL``, ``SESSION``, ``PERSIST`` (treated as GLOBAL) or None (no modifier: SESSION, as MySQL).
        value: the evaluated right-hand side (ignored when ``is_default``).
        is_default: ``= DEFAULT`` was written.
        warnings: receives the statement's warnings.

    Raises:
        MySQLError: 1193 unknown variable, 1238 read-only, 1229 GLOBAL variable without GLOBAL, 1228 SESSION
            variable with GLOBAL, 1230 no default, and whatever the hooks raise.
    """
    var = lookup(name, session.server.globals.absent)
    if var.read_only:
        raise read_only_error(var.name)
    if scope == "PERSIST":
        scope = GLOBAL
    if scope is None or scope == "LOCAL":
        scope = SESSION
    if scope == SESSION and var.scope == GLOBAL:
        raise mysql_error(1229, var.name)
    if scope == GLOBAL and var.scope == SESSION:
        raise mysql_error(1228, var.name)
    if is_default:
        if var.no_default:
            raise mysql_error(1230, var.name)
        value = var.default
        if scope == SESSION and var.scope == BOTH and var.update is None:
            value = session.server.globals.values[var.name]  # SET SESSION x = DEFAULT: the global value
    shared = getattr(session.server, "shared_config", None) if scope == GLOBAL else None
    before = dict(session.server.globals.values) if shared is not None else None
    ctx = SetContext(session, var, scope, warnings)
    if var.name != name.lower():
        # Sys_var_deprecated_alias (pseudo_slave_mode, slave_net_timeout ...): 1287, with the full stop that
        # mysql-test's variables.result shows for these ("... Please use pseudo_replica_mode instead.")
        text = mysql_error(1287, "@@" + name.lower(), var.name).message + "."
        warnings.append(Warning_("Warning", 1287, text))
    if var.parse is not None and not is_default:
        if value is None:
            raise _value_error(var.name, "NULL")
        value = var.parse(value)
    new = var.check(ctx, value) if var.check is not None else coerce(var, value, warnings)
    if var.on_check is not None:
        var.on_check(ctx, new)
    old = _current(session, var, scope) if var.on_update is not None else None
    try:
        if var.update is not None:
            var.update(ctx, new)
        elif scope == GLOBAL:
            session.server.globals.set(var.name, new)
        else:
            session.session_vars[var.name] = new
        if var.on_update is not None:
            var.on_update(ctx, old, new)
    finally:
        # a server of several processes: the others load what changed here, also when a later step failed
        # (SET GLOBAL gtid_mode stores the mode, then rotates the binary log)
        if shared is not None and before is not None:
            after = session.server.globals.values
            shared.publish_globals({k: v for k, v in after.items() if k not in before or before[k] != v})


def apply_global(globals_: GlobalVariables, name: str, value: Any, server: Any) -> None:
    """Store a GLOBAL value another worker process set and published (:mod:`gtidkit.engine.shared_config`), then
    run what the change does in this process: ``globals_.on_change`` callbacks and the variable's ``follow`` hook.
    No check runs: the SET that published it checked it.

    Args:
        globals_: this process's global values.
        name: the variable's canonical name.
        value: its new value, as :func:`coerce` made it.
        server: this process's engine, for the ``follow`` hook.

    Raises:
        MySQLError: 1193 for a name this release does not know (a datadir shared by processes of one release
            never has one).
    """
    var = lookup(name)
    with globals_.lock:
        old = globals_.values.get(var.name)
        if old == value and var.name in globals_.values:
            return
        globals_.values[var.name] = value
    for fn in globals_.on_change.get(var.name, []):
        fn(old, value)
    if var.follow is not None:
        var.follow(server, old, value)


def _current(session: Session, var: SysVar, scope: str) -> Any:
    if scope == SESSION and var.name in session.session_vars:
        return session.session_vars[var.name]
    return session.server.globals.values.get(var.name)


@dataclass
class GlobalVariables:
    """The global values of all static variables, guarded by a lock; SET GLOBAL hooks run under it.

    ``on_change[name]`` callables are invoked as ``fn(old, new)`` after a successful SET GLOBAL, outside any
    engine transaction (used to wake the compressor when ``gtid_executed_compression_period`` changes).
    ``absent`` holds the names the server's release does not have (engine/sysvar_versions.py): 1193 for them.
    """

    values: dict[str, Any] = field(default_factory=dict)
    absent: frozenset[str] = frozenset()
    on_change: dict[str, list[Callable[[Any, Any], None]]] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)

    @classmethod
    def with_defaults(
        cls, overrides: dict[str, Any] | None = None, release: Release | None = None
    ) -> GlobalVariables:
        """Defaults of :data:`SYSVARS` (those of ``release`` where releases differ, and its missing names), with
        startup ``overrides`` already coerced (name → value)."""
        gv = cls()
        for var in SYSVARS.values():
            if var.alias_of is None:
                gv.values[var.name] = var.default
        if release is not None:
            from gtidkit.engine import sysvar_versions

            gv.values.update(sysvar_versions.defaults(release))
            gv.absent = sysvar_versions.absent_names(release)
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


def parse_startup_option(name: str, value: Any, absent: frozenset[str] = frozenset()) -> tuple[str, Any]:
    """Validate one ``Server.open`` option the way mysqld validates its command line.

    Args:
        name: the option, mysqld's name with underscores (``log_slave_updates`` is accepted as an alias, and
            the options of :data:`STARTUP_OPTIONS` for their variables: ``default_time_zone`` sets ``time_zone``).
        value: Python value (bool, int or str such as ``"ON"``).

        absent: names the release does not have (1193 for them).

    Returns:
        (canonical name, coerced value).

    Raises:
        MySQLError: 1193 for an unknown option, 1231/1232 for a bad value, 1298 for an unknown time zone
            (mysqld would refuse to start).
    """
    var = lookup(STARTUP_OPTIONS.get(name.lower(), name), absent)
    if var.parse is not None:
        value = var.parse(value)
    return var.name, coerce(var, value, warnings=None)


#: mysqld options whose name is not their variable's (RM8 "Server Command Options": ``--default-time-zone``
#: sets the global ``time_zone``)
STARTUP_OPTIONS = {"default_time_zone": "time_zone"}
