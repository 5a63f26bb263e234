"""Check / update / read hooks of the GTID system variables, referenced from the sysvar table.

Sources: MySQL ``sql/sys_vars.cc`` and ``sql/sys_vars.h``: ``Sys_var_gtid_next`` (``do_check``: NULL gives
ER_WRONG_VALUE_FOR_VAR; ``check_update_type``: a non-string gives ER_WRONG_TYPE_FOR_VAR; ``check_gtid_next``: not
in a transaction; ``session_update`` parses with ``Gtid_specification::parse`` (ER 1774) then calls
``set_gtid_next``), ``Sys_var_gtid_purged`` (``do_check`` → ``Gtid_set::is_valid``, which allows one leading
``+``: anything else gives ER_WRONG_VALUE_FOR_VAR 1231 with the text; no default: ER_NO_DEFAULT 1230;
``global_update`` → ``Gtid_state::add_lost_gtids`` with its three ER 3546 reasons), ``Sys_var_gtid_mode``
(``check_session_admin_outside_trx_outside_sf_outside_sp``: ER 1766 in a transaction, ER 3138 while owning a
GTID or ANONYMOUS; ``global_update``: one step at a time ER 1788, ON needs ENFORCE_GTID_CONSISTENCY=ON ER 3111,
then a binlog rotation), ``Sys_var_enforce_gtid_consistency::global_update`` (away from ON while gtid_mode=ON:
ER 1779), ``Sys_var_gtid_executed`` / ``Sys_var_gtid_owned`` (read-only, computed), and
``sql/rpl_gtid_execution.cc`` ``set_gtid_next``. Expected outputs: mysql-test ``suite/sys_vars/r/
gtid_next_basic.result`` and ``gtid_purged_basic.result``.

This module imports nothing from :mod:`gtidkit.engine.sysvars` (which imports it) nor the session or the server, even
for annotations: each hook gets a ``SetContext`` (session, var, and the standard error builders) and reads what
:class:`gtidkit.engine.gtid.seams.GtidVariableContext` / ``GtidVariableSession`` list of it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from uuid import UUID

from gtidkit.engine.gtid import gtid_next as gnx
from gtidkit.engine.gtid import table as gtid_table
from gtidkit.engine.gtid.state import EXECUTED
from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid, GtidSet, normalize_tag
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.gtid.seams import GtidVariableContext, GtidVariableSession

GTID_MODES = ("OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON")


# ---------------------------------------------------------------------------------------------- messages
def not_settable_in_transaction(name: str) -> MySQLError:
    """ER_VARIABLE_NOT_SETTABLE_IN_TRANSACTION 1766."""
    return mysql_error(1766, name)


def cant_set_when_owning_gtid(name: str, owned: str) -> MySQLError:
    """ER_CANT_SET_VARIABLE_WHEN_OWNING_GTID 3138 (``owned``: ``uuid:n`` or ``ANONYMOUS``)."""
    return mysql_error(3138, name, owned)


def cant_set_gtid_mode(mode: str, reason: str) -> MySQLError:
    """ER_CANT_SET_GTID_MODE 3111 "SET @@GLOBAL.GTID_MODE = %-.64s is not allowed because %-.384s."."""
    return mysql_error(3111, mode[:64], reason[:384])


def gtid_mode_one_step() -> MySQLError:
    """ER_GTID_MODE_CAN_ONLY_CHANGE_ONE_STEP_AT_A_TIME 1788."""
    return mysql_error(1788)


def gtid_mode_on_requires_enforce() -> MySQLError:
    """ER_GTID_MODE_ON_REQUIRES_ENFORCE_GTID_CONSISTENCY_ON 1779."""
    return mysql_error(1779)


def purged_error(reason: str) -> MySQLError:
    """ER_CANT_SET_GTID_PURGED_DUE_SETS_CONSTRAINTS 3546 (8.0.?+ reasons of ``Gtid_state::add_lost_gtids``)."""
    return mysql_error(3546, reason)


def malformed_gtid(text: str) -> MySQLError:
    """ER_MALFORMED_GTID_SPECIFICATION 1774."""
    return mysql_error(1774, text)


# ---------------------------------------------------------------------------------------------- guards
def check_outside_trx(ctx: GtidVariableContext, _value: Any) -> None:
    """``check_outside_trx``: ER 1766 inside a transaction, ER 3138 while owning a GTID or ANONYMOUS."""
    session = ctx.session
    if session.in_transaction():
        raise not_settable_in_transaction(ctx.var.name)
    owned = session.gtid.owned_text()
    if owned is not None:
        raise cant_set_when_owning_gtid(ctx.var.name, owned)


def _string_value(ctx: GtidVariableContext, value: Any) -> str:
    """``check_update_type`` (string only, else 1232) and NULL (1231) of the GTID string variables."""
    if value is None:
        raise ctx.wrong_value("NULL")
    if isinstance(value, (int, float)):
        raise ctx.wrong_type()
    return str(value)


# ---------------------------------------------------------------------------------------------- gtid_next
def check_gtid_next(ctx: GtidVariableContext, value: Any) -> str:
    """``Sys_var_gtid_next::do_check`` + ``check_gtid_next``: a string, outside a transaction."""
    text = _string_value(ctx, value)
    if ctx.session.in_transaction():
        raise not_settable_in_transaction(ctx.var.name)
    return text


def update_gtid_next(ctx: GtidVariableContext, text: str) -> None:
    """``Sys_var_gtid_next::session_update``: parse (1774), then ``set_gtid_next`` (1790, 1781, 1782, waits)."""
    session = ctx.session
    gn = session.gtid
    server = session.server
    mode = server.globals.values["gtid_mode"]
    spec = text.strip()
    upper = spec.upper()
    if upper == "AUTOMATIC" or upper.startswith("AUTOMATIC:"):
        tag = ""
        if ":" in spec:
            try:
                tag = normalize_tag(spec.split(":", 1)[1].strip())
            except ValueError as err:
                raise malformed_gtid(text) from err
        if tag and not server.release.tagged_gtids:
            raise malformed_gtid(text)  # before 8.3 AUTOMATIC takes no tag: Gtid_specification::parse fails
        gn.check(gnx.SET_AUTOMATIC)
        if tag and mode in ("OFF", "OFF_PERMISSIVE"):
            # 8.3+: AUTOMATIC:<tag> generates GTIDs, so it needs GTIDs (RM84 Table 19.2)
            raise mysql_error(1781)
        gn.handle(gnx.SET_AUTOMATIC, tag=tag)
        return
    if upper == "ANONYMOUS":
        gn.check(gnx.SET_ANONYMOUS)
        if mode == "ON":
            raise mysql_error(1782)
        server.gtid_state.acquire_anonymous()
        gn.handle(gnx.SET_ANONYMOUS)
        return
    gtid = _parse_gtid(spec, text)
    if gtid.tag and not server.release.tagged_gtids:
        raise malformed_gtid(text)  # before 8.3 the text after the UUID is the GNO only
    gn.check(gnx.SET_ASSIGNED)
    if mode == "OFF":
        raise mysql_error(1781)
    state = server.gtid_state.acquire_ownership(
        gtid, session.id, timeout=float(session.lock_wait_timeout()), killed=session.interrupted
    )
    gn.handle(gnx.SET_ASSIGNED_EXECUTED if state == EXECUTED else gnx.SET_ASSIGNED, gtid=gtid)


#: ``uuid:gno`` in canonical form with a plain decimal GNO (what a replica sends every transaction); anything
#: else (tags, whitespace, hex or octal GNOs, odd UUID spellings) goes through :meth:`Gtid.parse`.
_SIMPLE_GTID = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}):([1-9][0-9]{0,17})"
)
_SIDS: dict[str, UUID] = {}


def _parse_gtid(spec: str, text: str) -> Gtid:
    """``Gtid.parse(spec)`` with a fast path for the canonical form (UUIDs cached: a replica sees few sources)."""
    m = _SIMPLE_GTID.fullmatch(spec)
    if m is not None:
        sid_text = m.group(1)
        sid = _SIDS.get(sid_text)
        if sid is None:
            if len(_SIDS) > 4096:
                _SIDS.clear()
            sid = _SIDS[sid_text] = UUID(sid_text)
        return Gtid(sid, int(m.group(2)))
    try:
        return Gtid.parse(spec)
    except ValueError as err:
        raise malformed_gtid(text) from err


def read_gtid_next(session: GtidVariableSession, _scope: str | None) -> str:
    """``@@SESSION.gtid_next``."""
    return session.gtid.text()


# ---------------------------------------------------------------------------------------------- gtid_owned etc.
def read_gtid_owned(session: GtidVariableSession, scope: str | None) -> str:
    """``@@SESSION.gtid_owned`` (the GTID, ``ANONYMOUS`` or '') / ``@@GLOBAL.gtid_owned`` (``uuid:n#thread``)."""
    if scope == "GLOBAL":
        return session.server.gtid_state.owned_text()
    return session.gtid.owned_text() or ""


def read_gtid_executed(session: GtidVariableSession, _scope: str | None) -> str:
    """``@@GLOBAL.gtid_executed``."""
    return session.server.gtid_state.executed().to_text()


def read_gtid_purged(session: GtidVariableSession, _scope: str | None) -> str:
    """``@@GLOBAL.gtid_purged``."""
    return session.server.gtid_state.purged().to_text()


# ---------------------------------------------------------------------------------------------- gtid_purged
def check_gtid_purged(ctx: GtidVariableContext, value: Any) -> tuple[bool, GtidSet]:
    """``Sys_var_gtid_purged::do_check``: a string that ``Gtid_set::is_valid`` accepts (one leading ``+``).

    Returns:
        (starts with ``+``, the set).

    Raises:
        MySQLError: 1232 for a number, 1231 (42000, the text quoted) for NULL or a malformed text (a tagged set
            before 8.3 included).
    """
    text = _string_value(ctx, value)
    body = text.lstrip()
    plus = body.startswith("+")
    if plus:
        body = body[1:]
    try:
        parsed = GtidSet.parse(body.strip().lstrip(","))
    except (ValueError, MySQLError) as err:
        raise ctx.wrong_value(text) from err
    if not ctx.server.release.tagged_gtids and any(tag for _sid, tag in parsed.tsids()):
        raise ctx.wrong_value(text)  # before 8.3 a tag is not part of the set's grammar
    return plus, parsed


def update_gtid_purged(ctx: GtidVariableContext, value: tuple[bool, GtidSet]) -> None:
    """``Sys_var_gtid_purged::global_update`` → ``Gtid_state::add_lost_gtids``; saves the rows to the table.

    Allowed inside a transaction (8.0+): the added set must then not overlap ``gtid_owned`` (ER 3546).
    """
    append, new = value
    session = ctx.session
    server = session.server
    state = server.gtid_state
    own_lock = server.write_lock_owner() == session.id
    if not own_lock:
        server.acquire_write_lock(None)
    try:
        purged = state.purged()
        if append:
            added = new
        else:
            if not purged <= new:
                raise purged_error("the new value must be a superset of the old value")
            added = new - purged
        if not added.isdisjoint(state.executed()):
            raise purged_error("the added gtid set must not overlap with @@GLOBAL.GTID_EXECUTED")
        if not added.isdisjoint(state.owned()):
            raise purged_error("the added gtid set must not overlap with @@GLOBAL.GTID_OWNED")
        if not added:
            return
        if own_lock:
            # this session's SQLite transaction is the writer: save through it, and again after a rollback
            gtid_table.save_set(server.storage.sqlite(session.conn), server.gtid_table, added)
            session.purged_in_trx = session.purged_in_trx | added
        else:
            server.save_gtids_now(added)
        state.add_purged(added, also_executed=True)
        server.gtid_purged_changed()  # the other worker processes, before any of them takes a GNO
    finally:
        if not own_lock:
            server.release_write_lock(None)


# ---------------------------------------------------------------------------------------------- gtid_mode
_ONGOING_ANONYMOUS = (
    "there are ongoing, anonymous transactions. Before setting @@GLOBAL.GTID_MODE = ON, wait until "
    "SHOW STATUS LIKE 'ANONYMOUS_TRANSACTION_COUNT' shows zero on all servers. Then wait for all existing, "
    "anonymous transactions to replicate to all replicas, and then execute SET @@GLOBAL.GTID_MODE = ON on all "
    "servers. See the Manual for details"
)
_ONGOING_GTID = (
    "there are ongoing transactions that have a GTID. Before you set @@GLOBAL.GTID_MODE = OFF, wait until "
    "SELECT @@GLOBAL.GTID_OWNED is empty on all servers. Then wait for all GTID-transactions to replicate to all "
    "servers, and then execute SET @@GLOBAL.GTID_MODE = OFF on all servers. See the Manual for details"
)
_ONGOING_WAITS = (
    "there are ongoing calls to WAIT_FOR_EXECUTED_GTID_SET or WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS. Before you set "
    "@@GLOBAL.GTID_MODE = OFF, ensure that no other client is waiting for GTID-transactions to be committed"
)


def update_gtid_mode(ctx: GtidVariableContext, new: str) -> None:
    """``Sys_var_gtid_mode::global_update`` (8.x): no change is a no-op; one step at a time (1788); then 3111
    for ongoing anonymous transactions (to ON), transactions owning a GTID (to OFF), ENFORCE_GTID_CONSISTENCY not
    ON (to ON), ongoing WAIT_FOR_EXECUTED_GTID_SET calls (to OFF); store; rotate the binary log."""
    server = ctx.session.server
    old = server.globals.values["gtid_mode"]
    if new == old:
        return
    if abs(GTID_MODES.index(new) - GTID_MODES.index(old)) > 1:
        raise gtid_mode_one_step()
    state = server.gtid_state
    if new == "ON" and state.anonymous_count() > 0:
        raise cant_set_gtid_mode("ON", _ONGOING_ANONYMOUS)
    if new == "OFF" and state.owned():
        raise cant_set_gtid_mode("OFF", _ONGOING_GTID)
    if new == "ON" and server.globals.values["enforce_gtid_consistency"] != "ON":
        raise cant_set_gtid_mode("ON", "ENFORCE_GTID_CONSISTENCY is not ON")
    if new == "OFF" and state.gtid_wait_count() > 0:
        raise cant_set_gtid_mode("OFF", _ONGOING_WAITS)
    for guard in server.gtid_mode_guards:  # the replica's channels (AUTO_POSITION, ASSIGN_GTIDS...): 3111
        guard(old, new)
    server.globals.set("gtid_mode", new)
    server.rotate()  # each change rotates the binary log


def update_enforce_gtid_consistency(ctx: GtidVariableContext, new: str) -> None:
    """``Sys_var_enforce_gtid_consistency::global_update``: not away from ON while gtid_mode=ON (1779)."""
    server = ctx.session.server
    if new == server.globals.values["enforce_gtid_consistency"]:
        return
    if new != "ON" and server.globals.values["gtid_mode"] == "ON":
        raise gtid_mode_on_requires_enforce()
    server.globals.set("enforce_gtid_consistency", new)


__all__ = [
    "GTID_MODES",
    "cant_set_gtid_mode",
    "cant_set_when_owning_gtid",
    "check_gtid_next",
    "check_gtid_purged",
    "check_outside_trx",
    "gtid_mode_on_requires_enforce",
    "gtid_mode_one_step",
    "not_settable_in_transaction",
    "purged_error",
    "read_gtid_executed",
    "read_gtid_next",
    "read_gtid_owned",
    "read_gtid_purged",
    "update_enforce_gtid_consistency",
    "update_gtid_mode",
    "update_gtid_next",
    "update_gtid_purged",
]
