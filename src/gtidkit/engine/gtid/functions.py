"""The GTID SQL functions (GTID_SUBSET, GTID_SUBTRACT, WAIT_FOR_EXECUTED_GTID_SET) and the replica's position wait.

They are rows of the SQL function table (:mod:`gtidkit.engine.sql.function_table`, kind ``BOUND``): each session
binds them through :class:`GtidFunctionSession`, the narrow interface of what they need of the calling session
(the server's gtid_mode, whether the caller is a replication applier, the GTID it owns, the wait on the server's
executed set), so this module depends on neither ``Session`` nor ``Server``. A SELECT without tables evaluates them
in Python (``SELECT GTID_SUBSET(...)``), any other through SQLite.

SOURCE_POS_WAIT / MASTER_POS_WAIT are ``ROLE`` rows: the replica role binds them (``gtidkit.replication.pos_wait``);
a server without that role answers NULL. WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS was removed in MySQL 8.0.18 and is not a row: calling it is 1305, as in 8.0.36.

Sources: MySQL 8.4 Reference Manual "Functions Used with Global Transaction Identifiers"; formats.md §8.1;
``Item_func_gtid_subset``, ``Item_func_gtid_subtract``, ``Item_wait_for_executed_gtid_set`` (``sql/item_func.cc``);
mysql-test ``rpl_gtid/rpl_wait_for_executed_gtid_set.result`` (the order of WAIT_FOR_EXECUTED_GTID_SET's checks).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from gtidkit.engine.sql.function_table import Kind, register, session_rows
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.mysql_errors import mysql_error

__all__ = ["GtidFunctionSession", "gtid_functions", "sql_real"]


class GtidFunctionSession(Protocol):
    """What the GTID functions need of the session that calls them."""

    def gtid_mode(self) -> str:
        """The server's ``@@GLOBAL.gtid_mode`` (``OFF``, ``OFF_PERMISSIVE``, ``ON_PERMISSIVE``, ``ON``)."""
        ...

    def is_replication_applier(self) -> bool:
        """True when the caller is a replication applier thread (WAIT_FOR_EXECUTED_GTID_SET is then NULL)."""
        ...

    def owned_gtid(self) -> Gtid | None:
        """The GTID the session owns now (``SET gtid_next`` in a transaction), else None."""
        ...

    def wait_for_executed(self, gtids: GtidSet, timeout: float | None) -> bool | None:
        """Block until ``gtids`` are executed (True), ``timeout`` seconds pass (False; None: no limit) or the
        statement is killed (None), showing the wait as the session's stage."""
        ...


def sql_real(value: Any) -> float:
    """A SQL argument as MySQL's ``val_real()``: numbers as they are, strings by their numeric prefix (0 if none)."""
    if isinstance(value, (bytes, bytearray)):
        value = value.decode(errors="replace")
    if isinstance(value, str):
        m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", value)
        return float(m.group(0)) if m else 0.0
    return float(value)


def _set(arg: Any) -> GtidSet:
    return GtidSet.parse(arg.decode() if isinstance(arg, (bytes, bytearray)) else str(arg))


def gtid_subset(a: Any, b: Any) -> int | None:
    """``GTID_SUBSET(set1, set2)``: 1 when every GTID of ``set1`` is in ``set2``, else 0; NULL for a NULL argument.

    Raises:
        MySQLError: 1772 ER_MALFORMED_GTID_SET_SPECIFICATION for a malformed set.
    """
    if a is None or b is None:
        return None
    return 1 if _set(a) <= _set(b) else 0


def gtid_subtract(a: Any, b: Any) -> str | None:
    """``GTID_SUBTRACT(set1, set2)``: the GTIDs of ``set1`` not in ``set2``; NULL for a NULL argument.

    Raises:
        MySQLError: 1772 for a malformed set.
    """
    if a is None or b is None:
        return None
    return (_set(a) - _set(b)).to_text()


def gtid_functions(session: GtidFunctionSession) -> dict[str, Callable[..., Any]]:
    """GTID_SUBSET, GTID_SUBTRACT and WAIT_FOR_EXECUTED_GTID_SET bound to ``session``.

    Each takes already-evaluated SQL arguments (str, bytes, numbers or None) and returns the SQL value; their
    argument counts are checked against the function table before they are called.
    """

    def wait_for_executed_gtid_set(gtids: Any, timeout: Any = 0) -> int | None:
        # Item_wait_for_executed_gtid_set::val_int's order: NULL set (1772 'NULL'), NULL or negative timeout
        # (1210), replica applier (NULL), GTID_MODE=OFF (3062), malformed set (1772), owned GTID (3173), wait
        if gtids is None:
            raise mysql_error(1772, "NULL")
        if timeout is None or sql_real(timeout) < 0:
            raise mysql_error(1210, "WAIT_FOR_EXECUTED_GTID_SET.")
        t = sql_real(timeout)
        if session.is_replication_applier():
            return None  # "could cause the slave to hang/deadlock": NULL in a replication thread
        if session.gtid_mode() == "OFF":
            raise mysql_error(3062, "use WAIT_FOR_EXECUTED_GTID_SET")
        wanted = _set(gtids)
        owned = session.owned_gtid()
        if owned is not None and owned in wanted:
            raise mysql_error(3173, owned)
        reached = session.wait_for_executed(wanted, None if t == 0 else t)
        if reached is None:  # KILL QUERY (Gtid_state::wait_for_gtid_set sees thd->killed)
            raise mysql_error(1317)
        return 0 if reached else 1

    return {
        "GTID_SUBSET": gtid_subset,
        "GTID_SUBTRACT": gtid_subtract,
        "WAIT_FOR_EXECUTED_GTID_SET": wait_for_executed_gtid_set,
    }


#: result types follow the values (as before the table; MySQL's Item_int_func would be LONGLONG(21): a follow-up)
register(
    *session_rows(
        gtid_functions,
        {"GTID_SUBSET": (2, 2), "GTID_SUBTRACT": (2, 2), "WAIT_FOR_EXECUTED_GTID_SET": (1, 2)},
        Kind.BOUND,
        python_eval=True,
        deterministic=False,
    )
)


def _no_replica(_session: Any) -> dict[str, Callable[..., Any]]:
    """SOURCE_POS_WAIT / MASTER_POS_WAIT on a server without the replica role: NULL (RM 8.4 "Miscellaneous
    Functions": NULL "if the replica SQL thread is not started", as on a server that is no replica)."""

    def wait(log_name: Any, log_pos: Any, timeout: Any = None, channel: Any = None) -> None:
        return None

    return {"SOURCE_POS_WAIT": wait, "MASTER_POS_WAIT": wait}


#: the replica role supplies these (``gtidkit.replication.pos_wait``) through ``Server.function_providers``
register(
    *session_rows(
        _no_replica,
        {"SOURCE_POS_WAIT": (2, 4), "MASTER_POS_WAIT": (2, 4)},
        Kind.ROLE,
        python_eval=True,
        deterministic=False,
    )
)
