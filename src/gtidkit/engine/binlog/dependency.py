"""Logical-clock dependency tracking: ``last_committed`` / ``sequence_number`` of each binlogged transaction.

Source: MySQL ``sql/rpl_trx_tracking.cc`` (``Commit_order_trx_dependency_tracker``,
``Writeset_trx_dependency_tracker::get_dependency``, ``Writeset_session_trx_dependency_tracker``,
``Transaction_dependency_tracker::rotate``), ``sql/rpl_write_set_handler.cc`` (``add_pke``: one hash per unique
key of every changed row image), WL#9556, RM8 ``binlog_transaction_dependency_tracking`` (8.0; removed in 8.4,
where WRITESET is always used) and ``binlog_transaction_dependency_history_size``.

Theory of operation
-------------------
Every transaction gets ``sequence_number`` = 1, 2, ... within a binlog file (the counters restart in each file).

* COMMIT_ORDER: ``last_committed`` = the last transaction committed when this one took its locks. The engine runs
  one writing transaction at a time (the write lock is held from the first write to the commit), so that is always
  the previous transaction: ``sequence_number - 1``.
* WRITESET: start from the COMMIT_ORDER value and lower it to the newest earlier transaction that changed one of
  the same rows, as identified by the *write set* (one hash per (schema, table, unique key, key values) of every
  before/after row image). The history map ``hash -> sequence_number of the last writer`` holds at most
  ``binlog_transaction_dependency_history_size`` hashes; ``history_start`` is the floor:

  ========================================  =====================================================================
  transaction                               effect
  ========================================  =====================================================================
  write set, all tables keyed               ``last_committed = min(seq - 1, max(history_start, writers' seqs))``
  a table without PK / NOT NULL unique key  hashes recorded, ``last_committed = seq - 1`` (has_missing_keys)
  empty (BEGIN/COMMIT, explicit GTID)       ``last_committed = min(seq - 1, history_start)``, history kept
  DDL, STATEMENT format (no write set)      ``last_committed = seq - 1``; history cleared, ``history_start = seq``
  history would exceed its size             value computed first, then history cleared, ``history_start = seq``
  ========================================  =====================================================================

* WRITESET_SESSION: WRITESET, then never below the same session's previous transaction in this file.
* Changing the mode (SET GLOBAL) clears the history and moves its start to the last committed transaction
  (``tracking_mode_changed``): COMMIT_ORDER keeps no history, so nothing older may be trusted.

The write set itself never reaches the binlog; only the two numbers do (Gtid/Anonymous_gtid event).
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import Catalog, TableDef

COMMIT_ORDER = "COMMIT_ORDER"
WRITESET = "WRITESET"
WRITESET_SESSION = "WRITESET_SESSION"
TRACKING_MODES = (COMMIT_ORDER, WRITESET, WRITESET_SESSION)

#: A write-set element: (schema, table, index name, normalised key values). Kept as a tuple rather than MySQL's
#: 64-bit XXH64 hash: no collisions, the same equality.
WritesetKey = tuple[str, str, str, tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class Writeset:
    """What one transaction contributes to dependency tracking (``Rpl_transaction_write_set_ctx``).

    Args:
        keys: the write set (duplicates removed, order of first appearance).
        has_missing_keys: a changed table has no primary key nor NOT NULL unique key.
        usable: False when write sets cannot describe the transaction (DDL, STATEMENT format): COMMIT_ORDER value
            and the history is cleared.
        empty_transaction: an explicit-GTID ``BEGIN; COMMIT`` (may run in parallel with anything).
    """

    keys: tuple[WritesetKey, ...] = ()
    has_missing_keys: bool = False
    usable: bool = True
    empty_transaction: bool = False

    @property
    def can_use(self) -> bool:
        """MySQL's ``can_use_writesets`` (without the FK and hash-algorithm conditions, which cannot arise here)."""
        return self.usable and (bool(self.keys) or self.has_missing_keys or self.empty_transaction)


#: The write set of a transaction that cannot use write sets (DDL, STATEMENT format, no row images).
NO_WRITESET = Writeset(usable=False)


def _norm(value: Any, text_ci: bool) -> Any:
    """Key value as the index compares it: ``_ci`` strings case-folded, numbers by value, bytes as bytes."""
    if type(value) is int:  # the common key (an integer primary key), before the isinstance chain
        return ("n", value)
    if isinstance(value, str):
        return ("s", value.casefold().rstrip(" ") if text_ci else value.rstrip(" "))
    if isinstance(value, bool):
        return ("n", int(value))
    if isinstance(value, (int, float, decimal.Decimal)):
        return ("n", value)  # 5 == 5.0 == Decimal("5.00") with equal hashes: compared by value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ("b", bytes(value))
    if isinstance(value, (dt.date, dt.datetime, dt.time, dt.timedelta)):
        return ("t", value.isoformat() if hasattr(value, "isoformat") else str(value))
    return ("o", str(value))


def _key_plan(t: TableDef) -> tuple[list[tuple[str, list[int], list[bool]]], bool]:
    """Unique indexes of ``t`` as (name, column positions, case-insensitive flags), and whether ``t`` is keyed.

    A table is keyed (MySQL: ``table->s->primary_key < MAX_KEY``) when it has a PRIMARY KEY or a unique index whose
    columns are all NOT NULL (InnoDB promotes the first such index to primary key).
    """
    plan = []
    keyed = False
    for ix in t.indexes:
        if not (ix.unique or ix.primary):
            continue
        pos = [t.column_index(c) for c in ix.columns]
        if any(p < 0 for p in pos):
            continue
        cols = [t.columns[p] for p in pos]
        plan.append((ix.name, pos, [c.is_text_ci() for c in cols]))
        if ix.primary or all(not c.nullable for c in cols):
            keyed = True
    return plan, keyed


def extract_writeset(changes: Iterable[Any], catalog: Catalog) -> Writeset:
    """The write set of a transaction's row changes (``add_pke`` for every before and after image).

    Args:
        changes: :class:`gtidkit.engine.sql.executor.RowChange` objects (``schema``, ``table``, ``before``, ``after`` =
            full rows in column order or None).
        catalog: the catalog giving each table's unique keys.

    Returns:
        A :class:`Writeset`; one key per (unique index, image) whose key columns are all non-NULL (MySQL skips
        keys holding a NULL: NULLs never conflict in a unique index).
    """
    keys: dict[WritesetKey, None] = {}
    missing = False
    plans: dict[tuple[str, str], tuple[list[tuple[str, list[int], list[bool]]], bool, str, str] | None] = {}
    for ch in changes:
        ident = (ch.schema, ch.table)
        plan = plans.get(ident, _UNSEEN)
        if plan is _UNSEEN:
            t = catalog.get_table(*ident)
            plan = plans[ident] = (
                (*_table_key_plan(t), ch.schema.lower(), ch.table.lower()) if t is not None else None
            )
        if plan is None:
            missing = True
            continue
        indexes, keyed, db, table = plan
        if not keyed:
            missing = True
        for image in (ch.before, ch.after):
            if image is None:
                continue
            for name, pos, ci in indexes:
                if len(pos) == 1:  # a one-column key: no intermediate lists; an integer normalised here
                    v = image[pos[0]]
                    if v is not None:
                        keys[(db, table, name, (("n", v) if type(v) is int else _norm(v, ci[0]),))] = None
                    continue
                vals = [image[p] for p in pos]
                if any(v is None for v in vals):
                    continue
                keys[(db, table, name, tuple(_norm(v, c) for v, c in zip(vals, ci)))] = None
    return Writeset(keys=tuple(keys), has_missing_keys=missing)


_UNSEEN: Any = object()
#: id(TableDef) -> (TableDef, its key plan): table definitions are immutable (DDL makes a new one) and the same
#: ones come back at every commit; the definition is kept so its id cannot be reused while the entry exists
_KEY_PLANS: dict[int, tuple[Any, tuple[list[tuple[str, list[int], list[bool]]], bool]]] = {}


def _table_key_plan(t: TableDef) -> tuple[list[tuple[str, list[int], list[bool]]], bool]:
    """:func:`_key_plan` of ``t``, computed once per table definition."""
    hit = _KEY_PLANS.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    plan = _key_plan(t)
    if len(_KEY_PLANS) >= 1024:
        _KEY_PLANS.clear()
    _KEY_PLANS[id(t)] = (t, plan)
    return plan


class DependencyTracker:
    """``Transaction_dependency_tracker`` for one binlog file at a time (see the module docstring).

    The mode and ``binlog_transaction_dependency_history_size`` are passed to every :meth:`assign` call, so a
    SET GLOBAL takes effect with the next transaction. Not thread-safe: the binlog manager calls it under its lock, in commit order.
    """

    def __init__(self) -> None:
        self.sequence_number = 0
        self.history: dict[WritesetKey, int] = {}
        self.history_start = 0
        self._session_last: dict[int, int] = {}
        self._mode: str | None = None

    def rotate(self) -> None:
        """A new binlog file: both counters restart, the history and the per-session values are dropped."""
        self.sequence_number = 0
        self.history.clear()
        self.history_start = 0
        self._session_last.clear()

    def follow(self, sequence_number: int | None) -> None:
        """Another process wrote the transactions up to ``sequence_number`` of the active file (a worker of a
        multi-worker server, :mod:`gtidkit.engine.follow`): continue after it. Their writesets are unknown here,
        so the history restarts there (the next transaction's ``last_committed`` is at least that number: always
        safe for a parallel applier). None: the number could not be read; only the history restarts."""
        if sequence_number is not None:
            self.sequence_number = sequence_number
        self.history.clear()
        self.history_start = self.sequence_number

    def forget_session(self, session_id: int) -> None:
        """Drop a closed session's WRITESET_SESSION state."""
        self._session_last.pop(session_id, None)

    def assign(
        self,
        writeset: Writeset,
        *,
        mode: str = WRITESET,
        history_size: int = 25000,
        session_id: int | None = None,
    ) -> tuple[int, int]:
        """Number the next transaction and compute its commit parent.

        Args:
            writeset: the transaction's :class:`Writeset` (:data:`NO_WRITESET` for DDL / STATEMENT format).
            mode: ``COMMIT_ORDER``, ``WRITESET`` or ``WRITESET_SESSION``.
            history_size: maximum number of hashes the history keeps (>= 1).
            session_id: the committing session (WRITESET_SESSION); None = no session bound.

        Returns:
            ``(last_committed, sequence_number)`` for the Gtid event.

        Raises:
            ValueError: unknown ``mode``.
        """
        if mode not in TRACKING_MODES:
            raise ValueError(f"unknown binlog_transaction_dependency_tracking {mode!r}")
        if self._mode is not None and mode != self._mode:
            # Transaction_dependency_tracker::tracking_mode_changed: the history was not kept under the old mode,
            # so nothing may go below the last transaction committed before the change
            self.history.clear()
            self.history_start = self.sequence_number
        self._mode = mode
        self.sequence_number += 1
        seq = self.sequence_number
        parent = seq - 1  # Commit_order_trx_dependency_tracker with one writer at a time
        if mode != COMMIT_ORDER:
            parent = self._writeset_parent(writeset, seq, parent, history_size)
        if mode == WRITESET_SESSION and session_id is not None:
            last = self._session_last.get(session_id, 0)
            if last != 0 and last < seq:
                parent = max(parent, last)
        if session_id is not None:
            self._session_last[session_id] = seq
        return parent, seq

    def _writeset_parent(self, ws: Writeset, seq: int, parent: int, history_size: int) -> int:
        can_use = ws.can_use
        exceeds = False
        if can_use:
            exceeds = len(self.history) + len(ws.keys) > history_size
            last_parent = self.history_start
            for key in ws.keys:
                prev = self.history.get(key)
                if prev is not None:
                    if last_parent < prev < seq:
                        last_parent = prev
                    self.history[key] = seq
                elif not exceeds:
                    self.history[key] = seq
            if not ws.has_missing_keys:
                parent = min(last_parent, parent)
        if exceeds or not can_use:
            self.history_start = seq
            self.history.clear()
        return parent
