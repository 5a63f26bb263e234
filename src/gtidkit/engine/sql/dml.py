"""INSERT / REPLACE / UPDATE / DELETE with MySQL semantics and full before/after row images.

Each statement is planned once per shape (see :mod:`gtidkit.engine.sql.executor`) and executed row by row against the
physical table, so every changed row's before and after image is known (ROW-format binlog events need both):

* INSERT builds the full row in Python (defaults, coercion under the session's sql_mode, AUTO_INCREMENT),
  inserts it, and resolves duplicate keys as MySQL does: error 1062, ``IGNORE`` (warning 1062, row skipped), ``REPLACE``
  (delete the conflicting rows, insert; affected rows counts both) or ``ON DUPLICATE KEY UPDATE`` (update the
  conflicting row; affected rows 2 when it changed, 0 when not). ``VALUES(col)`` in the update list reads the
  row that would have been inserted, as does ``alias.col`` with 8.0.19's ``VALUES (...) AS alias[(cols)]``.
  Source: manual "INSERT ... ON DUPLICATE KEY UPDATE", ``sql/sql_insert.cc``
  (``write_record``).
* UPDATE selects the matching rows (WHERE/ORDER BY/LIMIT) and updates each by rowid with ``RETURNING``.
  MySQL evaluates single-table assignments left to right, a later one seeing the earlier ones' new values
  (manual "UPDATE Statement"); assignments that read a column assigned before them go in a later stage. Rows
  left unchanged are neither counted in affected rows nor logged (``HA_ERR_RECORD_IS_THE_SAME``).
* DELETE selects the matching rows (WHERE/ORDER BY/LIMIT) then deletes them by rowid.

* Multi-table UPDATE (``UPDATE t1 JOIN t2 ON ... SET``, ``UPDATE t1, t2 SET ... WHERE``) and DELETE (``DELETE t1
  [, t2] FROM t1 JOIN t2 ...``, ``DELETE FROM t1 USING t1, t2 WHERE ...``) select the joined rows once (each target
  table's rowid and full image, and the assigned values computed from the joined row), then change every target
  row at most once, in join order: MySQL's ``Query_result_update`` / ``Query_result_delete`` (a row reached
  through several join rows is updated or deleted once; "Rows matched" counts distinct target rows). Their row
  changes are grouped per table, so a ROW-format binlog gets one Table_map per table and a rows event run per
  table, as ``multi_update::do_updates`` / ``multi_delete::do_deletes`` write them.

sql_mode: values are converted under the statement's :class:`~gtidkit.engine.sql.values.FieldStore`
(:meth:`Executor.field_store`): strict mode keeps conversion problems errors (the statement is rolled back);
without it, or with INSERT IGNORE, they are warnings and the adjusted value is stored. A strict UPDATE lets
SQLite compute and CHECK the new values in one statement; a non-strict one computes them first, converts them in
Python, then stores them. Divisors in stored values go through ``_GK_DIVISOR`` (ERROR_FOR_DIVISION_BY_ZERO).

Differences from MySQL (documented, not silent): REPLACE's row images are delete + insert even where InnoDB
would log an Update_rows event; INSERT ... VALUES ROW() raises 1235; UPDATE IGNORE is not parsed; in a
multi-table UPDATE every assignment reads the joined row as it was before the statement (MySQL gives no order
guarantee for multi-table assignments either); an UPDATE's "at row N" counts the rows it matched, where MySQL
counts the rows its scan read (strict.result: ``UPDATE ... WHERE col2 > 0`` fails "at row 3" for the first
matching row); INSERT's division-by-zero warnings of all rows come before the rows' conversion warnings.
"""

from __future__ import annotations

import datetime as _dt
import functools
import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine import storage as _db
from gtidkit.engine.sql import temporal
from gtidkit.engine.sql.catalog import ColumnDef, IndexDef, TableDef
from gtidkit.engine.sql.ddl import not_supported
from gtidkit.engine.sql.enum_set import ENUM_SET_TYPES, numeric_rewrite
from gtidkit.engine.sql.exec_result import NEG_FUNCTION, neg_udf
from gtidkit.engine.sql.function_table import Kind, SqlFunction, register, rows_from, session_rows
from gtidkit.engine.sql.json_functions import partial_update_ops
from gtidkit.engine.sql.values import (
    U64_BLOB_MIN,
    FieldStore,
    coerce,
    column_coercer,
    from_sqlite,
    holds_u64_blobs,
    implicit_default,
    store_null,
    to_float32,
    to_sqlite,
    u64_to_sqlite,
)
from gtidkit.engine.storage import physical_name, quote_ident
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error, unknown_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.exec_result import ExecResult
    from gtidkit.engine.sql.executor import Executor

__all__ = [
    "DeletePlan",
    "InsertPlan",
    "MultiPlan",
    "UpdatePlan",
    "check_target",
    "constant_insert_plan",
    "dup_entry_error",
    "failed_index",
    "integrity_error",
    "plan_dml",
    "run_dml",
    "to_int_udf",
]

_MISSING = object()
#: mask of a C ``ulonglong`` (an OK packet's last-insert-id)
_ULONGLONG = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class Stage:
    """One UPDATE pass: SQLite UPDATE text (by ``:gkrowid``, RETURNING rowid + all columns), the columns it
    assigns, a SELECT computing their new values (duplicate-key messages; the non-strict path) and the UPDATE
    that stores values computed in Python (bound as ``:gkv0``, ``:gkv1`` ...: the non-strict path, where each
    new value goes through :func:`coerce` so conversion problems become warnings)."""

    sql: str
    columns: tuple[int, ...]
    eval_sql: str
    bound_sql: str = ""
    #: per JSON column this stage may log as a partial update: (column index, its JSON_SET / JSON_REPLACE /
    #: JSON_REMOVE changes) (:func:`gtidkit.engine.sql.json_functions.partial_update_ops`)
    json_ops: tuple[tuple[int, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class InsertPlan:
    """Planned INSERT/REPLACE. ``rows`` holds per-row sources: ("p", name) bound literal, ("c", value) constant,
    ("d", None) DEFAULT, ("e", i) i-th item of the row's expression SELECT ``row_exprs[r]``, ("n", (name, i)) a
    negated literal: minus the exact value when it is a number (``-9223372036854775808``, BIGINT's minimum, whose
    digits do not fit a 64-bit bind), else the i-th expression item."""

    table: TableDef
    target: tuple[int, ...]
    rows: tuple[tuple[tuple[str, Any], ...], ...]
    row_exprs: tuple[str | None, ...]
    select_sql: str | None
    mode: str  # "insert" | "ignore" | "replace"
    odku: tuple[Stage, ...] | None
    variables: tuple[tuple[str, str, str | None], ...]
    insert_sql: str


@dataclass(frozen=True, slots=True)
class UpdatePlan:
    """Planned single-table UPDATE."""

    table: TableDef
    select_sql: str
    stages: tuple[Stage, ...]
    variables: tuple[tuple[str, str, str | None], ...]


@dataclass(frozen=True, slots=True)
class DeletePlan:
    """Planned single-table DELETE."""

    table: TableDef
    select_sql: str
    delete_sql: str
    variables: tuple[tuple[str, str, str | None], ...]


@dataclass(frozen=True, slots=True)
class MultiPlan:
    """Planned multi-table UPDATE or DELETE.

    ``select_sql`` returns, per joined row, for each target in ``targets`` its rowid and full image (in that
    order), then (UPDATE) the new value of each assignment; ``assignments[i]`` lists (target index, column
    index) for the value columns of target ``i``.
    """

    kind: str  # "update" | "delete"
    targets: tuple[TableDef, ...]
    select_sql: str
    assignments: tuple[tuple[int, ...], ...]
    variables: tuple[tuple[str, str, str | None], ...]


DmlPlan = InsertPlan | UpdatePlan | DeletePlan | MultiPlan


def to_int_udf(v: Any) -> Any:
    """SQLite UDF wrapped around values assigned to integer columns: MySQL rounds non-integers half away from
    zero and converts numeric strings; anything else is returned unchanged (the CHECK then reports 1366)."""
    if isinstance(v, float):
        if not math.isfinite(v):
            return v
        return _sqlite_int(Decimal(v), v)  # exact: -2**63 stays in range
    if isinstance(v, str):
        s = v.strip()
        if re.fullmatch(r"[+-]?\d+", s):
            return _sqlite_int(Decimal(s), v)
        if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", s):
            return _sqlite_int(Decimal(s), v)
    return v


def _sqlite_int(d: Decimal, original: Any) -> Any:
    """``d`` rounded half away from zero in its SQLite form (2**63 .. 2**64-1 as :func:`u64_to_sqlite`'s blob);
    ``original`` when no integer column holds it (the column's range check then reports it)."""
    n = int(d.to_integral_value(rounding=ROUND_HALF_UP))
    if -(1 << 63) <= n < (1 << 63):
        return n
    return u64_to_sqlite(n) if 0 < n < (1 << 64) else original


#: calls whose second argument is a divisor: MOD (functions.rewrite_for_sqlite) and the exact DECIMAL division and
#: modulo of decimal_math
_DIVIDING_CALLS = frozenset({"MOD", "_GK_DEC_DIV", "_GK_DEC_MOD"})


def _guard_division(node: exp.Expression) -> exp.Expression:
    """Wrap every divisor of ``/``, DIV, ``%`` / MOD in ``node`` in ``_GK_DIVISOR`` (see
    :meth:`Executor._divisor`), so division by zero in a stored value follows ERROR_FOR_DIVISION_BY_ZERO."""
    for div in list(node.find_all(exp.Div, exp.IntDiv, exp.Mod, exp.Anonymous)):
        if isinstance(
            div, exp.Anonymous
        ):  # MOD(a, b) as rewrite_for_sqlite leaves % and MOD; exact DECIMAL / and %
            if div.name.upper() in _DIVIDING_CALLS and len(div.expressions) >= 2:
                b = div.expressions[1]
                if not (isinstance(b, exp.Anonymous) and b.name.upper() == "_GK_DIVISOR"):
                    b.replace(exp.Anonymous(this="_GK_DIVISOR", expressions=[b.copy()]))
            continue
        divisor = div.expression
        if isinstance(divisor, exp.Anonymous) and divisor.name.upper() == "_GK_DIVISOR":
            continue
        div.set("expression", exp.Anonymous(this="_GK_DIVISOR", expressions=[divisor.copy()]))
    return node


def _sql(node: exp.Expression) -> str:
    from gtidkit.engine.sql.exec_result import SQLITE

    return node.sql(dialect=SQLITE, identify=True)


def _target_table(ex: Executor, node: exp.Expression, current_db: str | None) -> tuple[TableDef, str]:
    if isinstance(node, exp.Schema):
        node = node.this
    if not isinstance(node, exp.Table):
        raise not_supported("multi-table UPDATE/DELETE")
    tdef = ex.require_table(node.db or current_db, node.name)
    check_target(tdef)
    return tdef, node.alias or tdef.name


def check_target(tdef: TableDef) -> None:
    """A DML target must be a base table: system views give 1044, views 1235 (no updatable views here).

    Raises:
        MySQLError: 1235 for a view, 1044 for a system view.
    """
    if tdef.table_type == "VIEW":
        raise not_supported("INSERT/UPDATE/DELETE through a view")
    if tdef.table_type != "BASE TABLE":
        raise mysql_error(1044, "root", "localhost", tdef.schema)


def _col_index(tdef: TableDef, name: str, clause: str = "field list") -> int:
    i = tdef.column_index(name)
    if i < 0:
        raise mysql_error(1054, name, clause)
    return i


def _select_rows_sql(tdef: TableDef, alias: str, tree: exp.Expression) -> str:
    cols = ", ".join(f"{quote_ident(alias)}.{quote_ident(c.name)}" for c in tdef.columns)
    sql = (
        f"SELECT {quote_ident(alias)}.{tdef.rowid_alias}, {cols} "
        f"FROM {quote_ident(physical_name(tdef.schema, tdef.name))} "
        f"AS {quote_ident(alias)}"
    )
    for key in ("where", "order", "limit"):
        part = tree.args.get(key)
        if part is not None:
            # TIMESTAMP columns compare in the session time zone; the images keep the stored values
            sql += " " + _sql(temporal.localize_columns(part, tdef, alias))
    return sql


def _stages(ex: Executor, tdef: TableDef, alias: str, assignments: list[exp.Expression]) -> tuple[Stage, ...]:
    """Group ``col = expr`` assignments into left-to-right stages (see module docstring)."""
    phys = quote_ident(physical_name(tdef.schema, tdef.name))
    rid = tdef.rowid_alias
    returning = f"{rid}, " + ", ".join(quote_ident(c.name) for c in tdef.columns)
    groups: list[list[tuple[int, exp.Expression]]] = [[]]
    assigned: set[int] = set()
    for a in assignments:
        if not isinstance(a, exp.EQ) or not isinstance(a.this, exp.Column):
            raise not_supported(a.sql(dialect="mysql"))
        if a.this.table and a.this.table not in (alias, tdef.name):
            raise mysql_error(1054, a.this.sql(dialect="mysql"), "field list")
        idx = _col_index(tdef, a.this.name)
        expr = a.expression
        reads = {tdef.column_index(c.name) for c in expr.find_all(exp.Column)}
        if reads & assigned or idx in {i for i, _ in groups[-1]}:
            groups.append([])
            assigned = set()
        groups[-1].append((idx, temporal.localize_columns(expr, tdef, alias)))
        assigned.add(idx)
    stages = []
    for g in groups:
        sets = []
        evals = []
        for idx, expr in g:
            col = tdef.columns[idx]
            e = _sql(_guard_division(expr))
            if col.info.family in ("int", "year"):
                e = f"_GK_TO_INT({e})"
            elif col.type == "float":
                e = f"_GK_TO_FLOAT32({e})"
            elif col.type == "timestamp":
                e = f"{temporal.TS_IN_FUNCTION}({e})"  # the session-zone value is stored in UTC
            sets.append(f"{quote_ident(col.name)} = {e}")
            evals.append(e)
        sql = (
            f"UPDATE {phys} AS {quote_ident(alias)} SET {', '.join(sets)} WHERE {rid} = :gkrowid "
            f"RETURNING {returning}"
        )
        eval_sql = f"SELECT {', '.join(evals)} FROM {phys} AS {quote_ident(alias)} WHERE {rid} = :gkrowid"
        bound_sets = ", ".join(
            f"{quote_ident(tdef.columns[idx].name)} = :gkv{k}" for k, (idx, _e) in enumerate(g)
        )
        bound_sql = f"UPDATE {phys} SET {bound_sets} WHERE {rid} = :gkrowid RETURNING {returning}"
        json_ops = tuple(
            (idx, ops)
            for idx, expr in g
            if tdef.columns[idx].type == "json"
            and (ops := partial_update_ops(expr, tdef.columns[idx].name)) is not None
        )
        stages.append(
            Stage(
                sql=sql,
                columns=tuple(i for i, _ in g),
                eval_sql=eval_sql,
                bound_sql=bound_sql,
                json_ops=json_ops,
            )
        )
    return tuple(stages)


def plan_dml(ex: Executor, tree: exp.Expression, current_db: str | None, replace: bool) -> DmlPlan:
    """Plan an INSERT/REPLACE/UPDATE/DELETE tree (mutated in place).

    Raises:
        MySQLError: 1046/1146/1054 resolution errors; 1235 for unsupported forms.
    """
    if isinstance(tree, exp.Insert):
        return _plan_insert(ex, tree, current_db, replace)
    if isinstance(tree, exp.Update):
        if tree.args.get("from_") or isinstance(tree.this, exp.Join):
            raise not_supported("UPDATE ... FROM")
        if isinstance(tree.this, exp.Table) and tree.this.args.get("joins"):
            return _plan_multi(ex, tree, current_db)
        tdef, alias = _target_table(ex, tree.this, current_db)
        ex.resolve_tables(tree, current_db)
        if any(c.type in ENUM_SET_TYPES for c in tdef.columns):
            numeric_rewrite(tree, ex.literal_value)
        ex.fix_functions(tree, current_db)
        variables = ex.bind_variables(tree)
        stages = _stages(ex, tdef, alias, list(tree.expressions))
        return UpdatePlan(tdef, _select_rows_sql(tdef, alias, tree), stages, tuple(variables))
    if isinstance(tree, exp.Delete):
        if (
            tree.args.get("tables")
            or tree.args.get("using")
            or (isinstance(tree.this, exp.Table) and tree.this.args.get("joins"))
        ):
            return _plan_multi(ex, tree, current_db)
        tdef, alias = _target_table(ex, tree.this, current_db)
        ex.resolve_tables(tree, current_db)
        if any(c.type in ENUM_SET_TYPES for c in tdef.columns):
            numeric_rewrite(tree, ex.literal_value)
        ex.fix_functions(tree, current_db)
        variables = ex.bind_variables(tree)
        delete_sql = (
            f"DELETE FROM {quote_ident(physical_name(tdef.schema, tdef.name))} WHERE {tdef.rowid_alias} = ?"
        )
        return DeletePlan(tdef, _select_rows_sql(tdef, alias, tree), delete_sql, tuple(variables))
    raise not_supported(tree.key.upper())


def _sources(source: exp.Table) -> list[exp.Table]:
    """The tables a multi-table statement joins (the first table and each joined one), in join order."""
    if not isinstance(source, exp.Table):
        raise not_supported("multi-table UPDATE/DELETE of this form")
    out = [source]
    for j in source.args.get("joins") or []:
        if not isinstance(j.this, exp.Table):
            raise not_supported("a derived table in a multi-table UPDATE/DELETE")
        out.append(j.this)
    return out


def _plan_multi(ex: Executor, tree: exp.Update | exp.Delete, current_db: str | None) -> MultiPlan:
    """Plan a multi-table UPDATE / DELETE (see the module docstring).

    Raises:
        MySQLError: 1109 a DELETE target that is not in the FROM list; 1054 / 1052 unknown or ambiguous assigned
            column; 1046 / 1146 resolution errors; 1235 for derived tables.
    """
    is_update = isinstance(tree, exp.Update)
    if is_update:
        source = tree.this
        target_nodes: list[exp.Table] = []
    elif tree.args.get("using"):
        (source,) = tree.args["using"]
        target_nodes = _sources(tree.this)  # DELETE FROM t1, t2 USING ...: the targets parse as joins
    else:
        source = tree.this
        target_nodes = list(tree.args.get("tables") or [])
    sources = _sources(source)
    # alias (or name) -> (table definition, node) of every joined table, before resolve_tables renames them
    by_alias: dict[str, TableDef] = {}
    for t in sources:
        tdef = ex.require_table(t.db or current_db, t.name)
        by_alias[(t.alias or t.name).lower()] = tdef
    if is_update:
        assigned: dict[str, list[tuple[int, exp.Expression]]] = {}
        for a in tree.expressions:
            if not isinstance(a, exp.EQ) or not isinstance(a.this, exp.Column):
                raise not_supported(a.sql(dialect="mysql"))
            col = a.this
            if col.table:
                alias = col.table.lower()
                if alias not in by_alias:
                    raise mysql_error(1054, col.sql(dialect="mysql"), "field list")
            else:
                owners = [al for al, td in by_alias.items() if td.column_index(col.name) >= 0]
                if not owners:
                    raise mysql_error(1054, col.name, "field list")
                if len(owners) > 1:
                    raise mysql_error(1052, col.name, "field list")
                alias = owners[0]
            idx = _col_index(by_alias[alias], col.name)
            assigned.setdefault(alias, []).append((idx, a.expression))
        target_aliases = list(assigned)
    else:
        target_aliases = []
        for t in target_nodes:
            alias = t.name.lower()
            if alias not in by_alias:
                raise mysql_error(1109, t.name, "MULTI DELETE")
            target_aliases.append(alias)
    targets = []
    for alias in dict.fromkeys(target_aliases):
        tdef = by_alias[alias]
        check_target(tdef)
        targets.append((alias, tdef))
    # the select runs over the joined tables with MySQL's names resolved
    sel = exp.Select()
    base = source.copy()
    joins = base.args.pop("joins", None) or []
    sel = sel.from_(base)
    for j in joins:
        sel = sel.join(j)
    where = tree.args.get("where")
    if where is not None:
        sel = sel.where(where.this.copy())
    items: list[str] = []
    value_slots: list[tuple[int, ...]] = []
    exprs: list[tuple[TableDef, int, exp.Expression]] = []
    for alias, tdef in targets:
        q = quote_ident(alias)
        items.append(f"{q}.{tdef.rowid_alias}")
        items.extend(f"{q}.{quote_ident(c.name)}" for c in tdef.columns)
    for ti, (alias, tdef) in enumerate(targets):
        slots = []
        for idx, e in assigned.get(alias, []) if is_update else []:
            slots.append(idx)
            exprs.append((tdef, idx, e.copy()))
        value_slots.append(tuple(slots))
    holder = exp.Tuple(expressions=[e for _t, _i, e in exprs]) if exprs else None
    if holder is not None:
        sel = sel.select(holder, append=False)
    sel.meta["gk_dml"] = True  # its conversions report to the UPDATE / DELETE (comparison.py)
    ex.resolve_tables(sel, current_db)
    ex.fix_functions(sel, current_db)
    variables = ex.bind_variables(sel)
    holder = sel.expressions[0] if exprs else None
    resolved = holder.expressions if holder is not None else []
    for (tdef, idx, _orig), e in zip(exprs, resolved):
        col = tdef.columns[idx]
        text = _sql(_guard_division(e))
        if col.info.family in ("int", "year"):
            text = f"_GK_TO_INT({text})"
        elif col.type == "float":
            text = f"_GK_TO_FLOAT32({text})"
        items.append(text)
    sel.set("expressions", [])
    body = _sql(sel)
    assert body.startswith("SELECT ")
    select_sql = "SELECT " + ", ".join(items) + " " + body[len("SELECT ") :].lstrip()
    return MultiPlan(
        "update" if is_update else "delete",
        tuple(t for _a, t in targets),
        select_sql,
        tuple(value_slots),
        tuple(variables),
    )


def _run_multi(ex: Executor, plan: MultiPlan, binds: dict[str, Any]) -> ExecResult:
    """Execute a :class:`MultiPlan`: each target row changed once, changes grouped per table."""
    from gtidkit.engine.sql.exec_result import ExecResult, RowChange

    store = ex.field_store()  # before the select: its WHERE's conversions report to it (comparison.py)
    rows = ex.run_sqlite(plan.select_sql, binds).fetchall()
    raw = ex.conn.raw
    seen: list[set[Any]] = [set() for _ in plan.targets]
    per_table: list[list[RowChange]] = [[] for _ in plan.targets]
    matched = 0
    offsets = []
    pos = 0
    for t in plan.targets:
        offsets.append(pos)
        pos += 1 + len(t.columns)
    value_pos = pos
    for n, r in enumerate(rows, 1):
        vp = value_pos
        for ti, t in enumerate(plan.targets):
            start = offsets[ti]
            rowid = r[start]
            slots = plan.assignments[ti] if plan.kind == "update" else ()
            values = r[vp : vp + len(slots)]
            vp += len(slots)
            if rowid is None or rowid in seen[ti]:
                continue  # a LEFT JOIN's missing row, or a row already reached through another join row
            seen[ti].add(rowid)
            current = tuple(r[start + 1 : start + 1 + len(t.columns)])
            phys = quote_ident(physical_name(t.schema, t.name))
            if plan.kind == "delete":
                raw.execute(f"DELETE FROM {phys} WHERE {t.rowid_alias} = ?", (rowid,))
                per_table[ti].append(RowChange(t.schema, t.name, "delete", _image(t, current), None))
                continue
            if not slots:
                continue
            matched += 1
            if not store.strict:
                values = tuple(_converted(t.columns[i], v, n, store, t.name) for i, v in zip(slots, values))
            elif any(
                t.columns[i].type == "json" for i in slots
            ):  # JSON text is parsed and normalized in Python
                values = tuple(
                    _converted(t.columns[i], v, n, store, t.name) if t.columns[i].type == "json" else v
                    for i, v in zip(slots, values)
                )
            sets = ", ".join(f"{quote_ident(t.columns[i].name)} = ?" for i in slots)
            returning = f"{t.rowid_alias}, " + ", ".join(quote_ident(c.name) for c in t.columns)
            sql = f"UPDATE {phys} SET {sets} WHERE {t.rowid_alias} = ? RETURNING {returning}"
            try:
                out = raw.execute(sql, (*values, rowid)).fetchone()
            except _db.IntegrityError as err:
                new = list(current)
                for i, v in zip(slots, values):
                    new[i] = v
                raise integrity_error(err, t, new, n) from err
            except _db.Error as err:
                raise ex.translate_error(err, sql) from err
            after_raw = tuple(out[1:])
            if after_raw != current:
                after_raw = _touch_on_update(ex, t, (Stage("", tuple(slots), ""),), out[0], after_raw)
            before, after = _image(t, current), _image(t, after_raw)
            if after != before:
                written = _written(t, slots, None, "update")
                per_table[ti].append(RowChange(t.schema, t.name, "update", before, after, written))
    changes = [c for group in per_table for c in group]
    if plan.kind == "delete":
        return ExecResult(affected_rows=len(changes), row_changes=changes)
    info = f"Rows matched: {matched}  Changed: {len(changes)}  Warnings: {len(store.warnings)}"
    return ExecResult(
        affected_rows=len(changes),
        row_changes=changes,
        info=info,
        matched_rows=matched,
        warnings=store.warnings,
    )


def _converted(col: Any, v: Any, row_no: int, store: FieldStore, table: str) -> Any:
    """A multi-table UPDATE's new value for ``col`` (of ``table``) converted under a non-strict ``store``, bindable."""
    v = coerce(col, v, row_no, store, table)
    if v is None and not col.nullable:
        v = store_null(col, row_no, store)
    return to_sqlite(v)


def _plan_insert(ex: Executor, tree: exp.Insert, current_db: str | None, replace: bool) -> InsertPlan:
    target_node = tree.this
    tdef, _alias = _target_table(ex, target_node, current_db)
    if tree.args.get("alias") is not None:
        raise not_supported("INSERT ... AS row_alias")
    if isinstance(target_node, exp.Schema) and target_node.expressions:
        target = tuple(_col_index(tdef, c.name) for c in target_node.expressions)
        if len(set(target)) != len(target):
            dup = next(c.name for c in target_node.expressions if target.count(tdef.column_index(c.name)) > 1)
            raise mysql_error(1110, dup)
    else:  # no column list: the visible columns (RM8 13.1.20.10, invisible columns take their defaults)
        target = tuple(i for i, c in enumerate(tdef.columns) if not c.invisible)
    ex.resolve_tables(tree, current_db)
    ex.fix_functions(tree, current_db)
    source = tree.expression
    rows: list[tuple[tuple[str, Any], ...]] = []
    row_exprs: list[str | None] = []
    select_sql = None
    if isinstance(source, exp.Values):
        variables = ex.bind_variables(source)
        for tup in source.expressions:
            items = tup.expressions if isinstance(tup, exp.Tuple) else [tup]
            if len(items) != len(target):
                raise mysql_error(1136, len(rows) + 1)
            srcs: list[tuple[str, Any]] = []
            exprs: list[str] = []
            for it in items:
                if isinstance(it, exp.Placeholder):
                    srcs.append(("p", it.name))
                elif isinstance(it, exp.Neg) and isinstance(it.this, exp.Placeholder):
                    srcs.append(("n", (it.this.name, len(exprs))))
                    exprs.append(_sql(it))
                elif isinstance(it, exp.Null):
                    srcs.append(("c", None))
                elif isinstance(it, exp.Literal):
                    t = it.this
                    srcs.append(
                        ("c", t if it.is_string else int(t) if re.fullmatch(r"\d+", t) else Decimal(t))
                    )
                elif isinstance(it, exp.Boolean):
                    srcs.append(("c", int(it.this)))
                elif (
                    isinstance(it, (exp.Var, exp.Column))
                    and it.name.upper() == "DEFAULT"
                    and not (isinstance(it, exp.Column) and it.table)
                ):
                    srcs.append(("d", None))
                else:
                    srcs.append(("e", len(exprs)))
                    exprs.append(_sql(_guard_division(it)))
            rows.append(tuple(srcs))
            row_exprs.append("SELECT " + ", ".join(exprs) if exprs else None)
    elif isinstance(source, (exp.Select, exp.Union, exp.Subquery)):
        temporal.localize_tables(source)  # INSERT ... SELECT reads TIMESTAMP columns in the session zone
        variables = ex.bind_variables(source)
        select_sql = _sql(source)
    elif source is None and tree.args.get("default"):
        rows.append(())
        row_exprs.append(None)
        target = ()
        variables = []
    else:
        raise not_supported("this INSERT form")
    mode = "replace" if replace else ("ignore" if tree.args.get("ignore") else "insert")
    odku = None
    conflict = tree.args.get("conflict")
    if conflict is not None:
        if not conflict.args.get("duplicate"):
            raise not_supported("ON CONFLICT")
        assigns = list(conflict.expressions)
        row_alias = source.args.get("alias") if isinstance(source, exp.Values) else None
        alias_cols: dict[str, int] = {}
        if row_alias is not None:
            # INSERT ... VALUES (...) AS new[(c1, c2...)] ON DUPLICATE KEY UPDATE b = new.b (MySQL 8.0.19+)
            names = [c.name for c in row_alias.columns] or [tdef.columns[i].name for i in target]
            if len(names) != len(target):
                raise mysql_error(1136, "1")
            alias_cols = {n.lower(): target[k] for k, n in enumerate(names)}
        for a in assigns:
            if row_alias is not None:
                for col in list(a.expression.find_all(exp.Column)):
                    if col.table and col.table == row_alias.name:
                        idx = alias_cols.get(col.name.lower())
                        if idx is None:
                            raise mysql_error(1054, col.sql(dialect="mysql"), "field list")
                        col.replace(exp.Placeholder(this=f"gknew{idx}"))
            for fn in list(a.expression.find_all(exp.Anonymous)):
                if fn.name.upper() == "VALUES":
                    arg = fn.expressions[0]
                    fn.replace(exp.Placeholder(this=f"gknew{_col_index(tdef, arg.name)}"))
            for node in list(a.expression.find_all(exp.Values)):
                raise not_supported(node.sql(dialect="mysql"))
        variables = list(variables) + ex.bind_variables(conflict)
        odku = _stages(ex, tdef, tdef.name, assigns)
    cols = ", ".join(quote_ident(c.name) for c in tdef.columns)
    insert_sql = (
        f"INSERT INTO {quote_ident(physical_name(tdef.schema, tdef.name))} ({cols}) "
        f"VALUES ({', '.join('?' * len(tdef.columns))})"
    )
    return InsertPlan(
        tdef, target, tuple(rows), tuple(row_exprs), select_sql, mode, odku, tuple(variables), insert_sql
    )


def constant_insert_plan(
    tdef: TableDef, target: tuple[int, ...], rows: list[tuple[Any, ...]], mode: str
) -> InsertPlan:
    """The plan of an INSERT of already computed values: each of ``rows`` holds one value per ``target`` column
    (indexes into ``tdef.columns``), stored as an INSERT's literal would be (:func:`coerce`: conversion warnings
    or strict-mode errors, 1062 / IGNORE / REPLACE as ``mode`` says: ``insert``, ``ignore`` or ``replace``).
    LOAD DATA's rows take this path (engine/statements/load_data.py), so they are written, logged and counted
    as an INSERT's are (``sql_load.cc`` writes each line through ``write_record`` as ``mysql_insert`` does)."""
    cols = ", ".join(quote_ident(c.name) for c in tdef.columns)
    insert_sql = (
        f"INSERT INTO {quote_ident(physical_name(tdef.schema, tdef.name))} ({cols}) "
        f"VALUES ({', '.join('?' * len(tdef.columns))})"
    )
    sources = tuple(tuple(("c", v) for v in row) for row in rows)
    return InsertPlan(tdef, target, sources, (None,) * len(rows), None, mode, None, (), insert_sql)


# ---------------------------------------------------------------- execution ------------------------------------
def run_dml(
    ex: Executor,
    plan: DmlPlan,
    params: dict[str, Any],
    current_db: str | None,
    binds: dict[str, Any] | None = None,
    *,
    reused: bool = True,
) -> ExecResult:
    """Execute a DML plan with literal values ``params`` inside the caller's transaction.

    Args:
        ex: the session's executor.
        plan: the statement's plan (:func:`plan_dml`); what its executions share is derived once per plan
            (:func:`_facts`).
        params: ``gk<i>`` / ``gp<i>`` -> the statement's literal and parameter values.
        current_db: the default database (``:gkdb``).
        binds: ``params`` as sqlite3 binds them (:func:`bindable`) when the caller has them (a prepared
            statement's literals are converted once per plan), else None. A dict given becomes this execution's
            own (names are added to it): the caller passes a fresh one.
        reused: the plan comes from the executor's plan cache or a prepared statement and runs again; False for a
            plan its caller built for one execution (LOAD DATA's rows, :func:`constant_insert_plan`), whose facts
            are not kept (keeping them would keep its rows alive).

    Raises:
        MySQLError: what the statement fails with (MySQL's code and message).
    """
    from gtidkit.engine.sql.exec_result import bindable

    facts = _facts(plan) if reused else _Facts(plan)
    if binds is None:
        binds = {k: bindable(v) for k, v in params.items()}
    for slot in plan.variables:
        binds[slot[0]] = bindable(ex.variable_value(slot))
    binds["gkdb"] = current_db
    if facts.needs_version:  # VERSION(): a system variable read, only for a plan whose SQL reads it
        binds["gkver"] = ex.server_version()
    if not facts.may_write_once:
        ex.statement_savepoint()  # several writes, or a check after the write: undone together when one fails
    if isinstance(plan, InsertPlan):
        return _run_insert(ex, plan, params, binds, facts)
    if isinstance(plan, UpdatePlan):
        return _run_update(ex, plan, binds, facts)
    if isinstance(plan, MultiPlan):
        return _run_multi(ex, plan, binds)
    return _run_delete(ex, plan, binds, facts)


class _Facts:
    """What every execution of one DML plan derives from the plan and its table alone, derived once per plan
    (:func:`_facts`): a plan is immutable and the executor keeps it while the catalog version it was made for is
    current, so these stay true for as long as the plan is run.

    Attributes:
        may_write_once: :func:`_may_write_once` (no statement savepoint).
        needs_version: some SQL text of the plan binds ``:gkver`` (VERSION()).
        written: the columns the statement writes (:func:`_written`; UPDATE, INSERT), else None.
        odku_written: INSERT ... ON DUPLICATE KEY UPDATE's write set (inserted and updated columns), else None.
        python_stages: per UPDATE stage, whether its new values go through :func:`coerce` in strict mode too
            (:func:`_converted_in_python`).
        touched: per UPDATE, the ON UPDATE CURRENT_TIMESTAMP columns its stages do not assign
            (:func:`_touch_on_update`).
        auto_increment: the table's AUTO_INCREMENT column index, else None.
        stamps: the TIMESTAMP columns (stored in UTC).
        missing: INSERT: the columns the statement leaves out (not the AUTO_INCREMENT one).
        missing_no_default: those of ``missing`` without a default, in column order (1364 once per statement).
        coercers: per column, :func:`gtidkit.engine.sql.values.column_coercer` (``coerce`` with its common
            cases decided once).
        defaults: INSERT: :func:`_default_template` of the table.
        filled: INSERT: ``(index, column)`` of every column but the AUTO_INCREMENT one.
        param_rows: INSERT: per VALUES row, the bind names of its values when every one is a literal or parameter
            (``("p", name)`` sources, no expression SELECT), else None.
        image: :func:`_image_plan` of the table's columns (single-table statements), else None.
    """

    __slots__ = (
        "auto_increment",
        "coercers",
        "defaults",
        "filled",
        "image",
        "may_write_once",
        "missing",
        "missing_no_default",
        "needs_version",
        "odku_written",
        "param_rows",
        "python_stages",
        "stamps",
        "touched",
        "written",
    )

    def __init__(self, plan: DmlPlan) -> None:
        self.may_write_once = _may_write_once(plan)
        self.needs_version = any(":gkver" in sql for sql in _plan_sql(plan))
        self.written: frozenset[int] | None = None
        self.odku_written: frozenset[int] | None = None
        self.python_stages: tuple[bool, ...] = ()
        self.touched: tuple[int, ...] = ()
        self.auto_increment: int | None = None
        self.stamps: tuple[int, ...] = ()
        self.missing: frozenset[int] = frozenset()
        self.missing_no_default: tuple[ColumnDef, ...] = ()
        self.coercers: tuple[Callable[..., Any], ...] = ()
        self.filled: tuple[tuple[int, ColumnDef], ...] = ()
        self.param_rows: tuple[tuple[str, ...] | None, ...] = ()
        self.defaults: tuple[tuple[Any, ...], tuple[int, ...]] | None = None
        self.image: _ImagePlan | None = (
            _image_plan(plan.table.columns)
            if isinstance(plan, (UpdatePlan, DeletePlan, InsertPlan))
            else None
        )
        if isinstance(plan, UpdatePlan):
            t = plan.table
            assigned = [i for st in plan.stages for i in st.columns]
            self.written = _written(t, assigned, None, "update")
            self.python_stages = tuple(
                any(_converted_in_python(t.columns[i]) for i in st.columns) for st in plan.stages
            )
            self.touched = _on_update_columns(t, plan.stages)
        elif isinstance(plan, InsertPlan):
            t = plan.table
            ai = next((i for i, c in enumerate(t.columns) if c.auto_increment), None)
            self.auto_increment = ai
            self.stamps = tuple(i for i, c in enumerate(t.columns) if c.type == "timestamp")
            self.written = _written(t, plan.target, ai, "insert")
            if plan.odku:
                self.odku_written = self.written | _written(
                    t, [i for st in plan.odku for i in st.columns], None, "update"
                )
            self.missing = frozenset(set(range(len(t.columns))) - set(plan.target) - {ai})
            self.missing_no_default = tuple(
                c
                for i, c in enumerate(t.columns)
                if i in self.missing and not c.has_default and c.default_expr != "CURRENT_TIMESTAMP"
            )
            self.coercers = tuple(column_coercer(c, t.name) for c in t.columns)
            self.defaults = _default_template(t)
            self.filled = tuple((i, c) for i, c in enumerate(t.columns) if i != ai)
            self.param_rows = tuple(
                tuple(v for _kind, v in sources)
                if expr_sql is None and all(kind == "p" for kind, _v in sources)
                else None
                for sources, expr_sql in zip(plan.rows, plan.row_exprs)
            )


def _plan_sql(plan: DmlPlan) -> list[str]:
    """Every SQLite text ``plan`` runs (where its ``:gk...`` binds appear)."""
    stages: tuple[Stage, ...] = ()
    if isinstance(plan, InsertPlan):
        out = [plan.insert_sql, plan.select_sql or "", *(e or "" for e in plan.row_exprs)]
        stages = plan.odku or ()
    elif isinstance(plan, UpdatePlan):
        out = [plan.select_sql]
        stages = plan.stages
    elif isinstance(plan, DeletePlan):
        out = [plan.select_sql, plan.delete_sql]
    else:
        out = [plan.select_sql]
    for st in stages:
        out += [st.sql, st.eval_sql, st.bound_sql]
    return out


#: id(plan) -> (plan, its facts): the plan is kept so its id cannot be reused while the entry exists
_FACTS: dict[int, tuple[DmlPlan, _Facts]] = {}


def _facts(plan: DmlPlan) -> _Facts:
    """The :class:`_Facts` of ``plan``, derived at its first execution."""
    hit = _FACTS.get(id(plan))
    if hit is not None and hit[0] is plan:
        return hit[1]
    facts = _Facts(plan)
    if len(_FACTS) >= 4096:
        _FACTS.clear()
    _FACTS[id(plan)] = (plan, facts)
    return facts


def _may_write_once(plan: DmlPlan) -> bool:
    """Whether ``plan`` may make exactly one SQLite write with nothing after it that can fail, so its statement
    needs no savepoint of its own when that is so (:meth:`Executor.statement_savepoint`): a single-row INSERT
    (no IGNORE / REPLACE / ON DUPLICATE KEY UPDATE, no SELECT), a single-table UPDATE of one stage on a table
    without ON UPDATE columns, a single-table DELETE. UPDATE and DELETE open the savepoint before writing when
    their SELECT found more than one row. SQLite undoes a failed statement itself (its ABORT conflict resolution
    and the statement journal), so one write is atomic; the statements written here can fail only before it."""
    if isinstance(plan, InsertPlan):
        return plan.select_sql is None and plan.mode == "insert" and plan.odku is None and len(plan.rows) == 1
    if isinstance(plan, UpdatePlan):
        return len(plan.stages) == 1 and not any(c.on_update for c in plan.table.columns)
    return isinstance(plan, DeletePlan)


def _written(t: TableDef, assigned: Any, auto_increment: int | None, op: str) -> frozenset[int]:
    """The columns a statement writes (:attr:`RowChange.written`, MySQL's ``write_set``): ``assigned`` plus, for an
    INSERT, the AUTO_INCREMENT column (``mark_auto_increment_column``) and the DEFAULT CURRENT_TIMESTAMP columns,
    for an UPDATE the ON UPDATE CURRENT_TIMESTAMP columns (``COPY_INFO::add_function_default_columns``)."""
    out = set(assigned)
    if auto_increment is not None:
        out.add(auto_increment)
    for i, c in enumerate(t.columns):
        if (c.default_expr == "CURRENT_TIMESTAMP") if op == "insert" else bool(c.on_update):
            out.add(i)
    return frozenset(out)


def _image(tdef: TableDef, values: Any, plan: _ImagePlan | None = None) -> tuple:
    """The row image (storage form) of a row read from SQLite: :func:`from_sqlite` per column, with the columns it
    leaves unchanged (integers, temporal values, ...) passed through and a ``str`` in a string column kept;
    ``plan``: :func:`_image_plan` of the table's columns when the caller has it."""
    cols = tdef.columns
    strings, others = plan or _image_plan(cols)
    row = tuple(values)
    if not others:
        for i in strings:
            if type(row[i]) is not str:
                break
        else:
            return row  # the common row: nothing to convert (one type test per string column)
    out = list(row)
    for i in strings:
        v = out[i]
        if type(v) is not str:
            out[i] = from_sqlite(cols[i], v)
    for i, f in others:
        out[i] = f(out[i])
    return tuple(out)


#: (the string columns, the (index, converter) of the columns always converted): :func:`_image_plan`
_ImagePlan = tuple[tuple[int, ...], tuple[tuple[int, Callable[[Any], Any]], ...]]
#: id(columns) -> (columns, their :data:`_ImagePlan`): a table definition's columns are immutable and come back
#: with every statement (the tuple is kept so its id cannot be reused while the entry exists)
_IMAGE_PLANS: dict[int, tuple[tuple[ColumnDef, ...], _ImagePlan]] = {}


def _image_plan(cols: tuple[ColumnDef, ...]) -> _ImagePlan:
    """What :func:`_image` converts in a row of ``cols``: the string columns (``from_sqlite`` for a value that is
    not a ``str``) and the columns whose every value goes through ``from_sqlite`` (DECIMAL, FLOAT, binary, BIT,
    BIGINT UNSIGNED held as blobs); the others' values are their images."""
    hit = _IMAGE_PLANS.get(id(cols))
    if hit is not None and hit[0] is cols:
        return hit[1]
    strings = tuple(i for i, c in enumerate(cols) if c.info.family == "string")
    others = tuple(
        (i, functools.partial(from_sqlite, c))
        for i, c in enumerate(cols)
        if c.info.family != "string"
        and (c.info.family in ("decimal", "float", "binary", "bit") or holds_u64_blobs(c))
    )
    plan = (strings, others)
    if len(_IMAGE_PLANS) >= 4096:
        _IMAGE_PLANS.clear()
    _IMAGE_PLANS[id(cols)] = (cols, plan)
    return plan


def _select_binds(sql: str, binds: dict[str, Any]) -> dict[str, Any]:
    """The binds for running ``sql``: a copy of the statement's ``binds`` (sqlite3 reads only the names the SQL
    holds from a dict, so no filtering is needed; the copy is the caller's to add ``gkrowid`` to)."""
    return binds.copy()


def _run_delete(ex: Executor, plan: DeletePlan, binds: dict[str, Any], facts: _Facts) -> ExecResult:
    from gtidkit.engine.sql.exec_result import ExecResult, RowChange

    rows = ex.preselected
    if rows is None:
        rows = ex.run_sqlite(plan.select_sql, binds).fetchall()
    else:  # the caller read them (deferred.py: a DELETE by its whole primary key, the locked row)
        ex.preselected = None
    t = plan.table
    image = facts.image
    changes = [
        RowChange(t.schema, t.name, "delete", _image(t, r[1:], image), None) for r in rows
    ]  # before the write
    if len(rows) > 1:
        ex.statement_savepoint()
        ex.conn.raw.executemany(plan.delete_sql, [(r[0],) for r in rows])
    elif rows:
        ex.conn.raw.execute(plan.delete_sql, (rows[0][0],))  # one row by key (sysbench's DELETE)
    warnings: list[tuple[str, int, str]] = []
    if ex.udf_warnings:  # the WHERE's conversion warnings without strict mode (comparison.py)
        warnings, ex.udf_warnings = ex.udf_warnings, []
    return ExecResult(affected_rows=len(rows), row_changes=changes, warnings=warnings)


def _run_update(ex: Executor, plan: UpdatePlan, binds: dict[str, Any], facts: _Facts) -> ExecResult:
    from gtidkit.engine.sql.exec_result import ExecResult, RowChange

    t = plan.table
    store = ex.field_store()
    rows = ex.run_sqlite(plan.select_sql, binds).fetchall()
    if len(rows) > 1:
        ex.statement_savepoint()
    changes = []
    written = facts.written
    # one stage per statement for a partial JSON update (a column assigned twice is not one)
    json_ops = plan.stages[0].json_ops if len(plan.stages) == 1 and plan.stages[0].json_ops else None
    image = facts.image
    for n, r in enumerate(rows, 1):
        before = _image(t, r[1:], image)
        _rowid, after_raw = _apply_stages(
            ex, t, plan.stages, r[0], r[1:], binds, n, store, facts.python_stages, facts.touched
        )
        after = _image(t, after_raw, image)
        if after != before:
            changes.append(RowChange(t.schema, t.name, "update", before, after, written, json_ops))
    info = f"Rows matched: {len(rows)}  Changed: {len(changes)}  Warnings: {len(store.warnings)}"
    return ExecResult(
        affected_rows=len(changes),
        row_changes=changes,
        info=info,
        matched_rows=len(rows),
        warnings=store.warnings,
    )


def _apply_stages(
    ex: Executor,
    t: TableDef,
    stages: tuple[Stage, ...],
    rowid: int,
    current: tuple,
    binds: dict[str, Any],
    row_no: int,
    store: FieldStore,
    python_stages: tuple[bool, ...] | None = None,
    touched: tuple[int, ...] | None = None,
) -> tuple[int, tuple]:
    """Run the UPDATE ``stages`` on row ``rowid`` (full image ``current``); returns its rowid and new image.

    In strict mode each stage is one SQLite UPDATE whose CHECK constraints reject bad values (mapped to MySQL's
    errors); otherwise the new values are computed first and stored through :func:`coerce` with ``store``, so a
    bad value is adjusted with a warning as MySQL does without strict mode. ``python_stages`` and ``touched``:
    the plan's :attr:`_Facts.python_stages` and :attr:`_Facts.touched` when the caller has them, else derived here.
    """
    raw = ex.conn.raw
    values = tuple(current)
    if python_stages is None:
        python_stages = tuple(any(_converted_in_python(t.columns[i]) for i in st.columns) for st in stages)
    for st, in_python in zip(stages, python_stages):
        if not store.strict or in_python:
            # a JSON column's new value is parsed and normalized in Python (no CHECK constraint can do that), as
            # are ENUM / SET members, geometries and characters of a non-UTF-8 character set
            rowid, values = _apply_stage_converted(ex, t, st, rowid, values, binds, row_no, store)
            continue
        b = _select_binds(st.sql, binds)
        b["gkrowid"] = rowid
        ex.clear_udf_error()
        try:
            out = raw.execute(st.sql, b).fetchone()
        except _db.IntegrityError as err:
            new = list(values)
            try:
                evald = raw.execute(st.eval_sql, b).fetchone()
                for i, v in zip(st.columns, evald):
                    new[i] = v
            except _db.Error:
                pass
            raise integrity_error(err, t, new, row_no) from err
        except _db.Error as err:
            raise ex.translate_error(err, st.sql) from err
        rowid, values = out[0], tuple(out[1:])
    if touched is None:
        touched = _on_update_columns(t, stages)
    if touched and values != tuple(current):
        values = _touch_on_update(ex, t, stages, rowid, values, touched)
    return rowid, values


def _converted_in_python(col: ColumnDef) -> bool:
    """A column whose UPDATE values go through :func:`coerce` even in strict mode (no CHECK can validate them)."""
    return (
        col.type in ("json", "enum", "set")
        or col.info.family == "geometry"
        or (col.info.family == "string" and col.charset not in (None, "utf8mb4"))
    )


def _apply_stage_converted(
    ex: Executor,
    t: TableDef,
    st: Stage,
    rowid: int,
    values: tuple,
    binds: dict[str, Any],
    row_no: int,
    store: FieldStore,
) -> tuple[int, tuple]:
    """One UPDATE stage with its new values computed by SQLite, then converted by :func:`coerce` under
    ``store`` (a NOT NULL column given NULL takes its implicit default with warning 1048) and bound."""
    raw = ex.conn.raw
    b = _select_binds(st.eval_sql, binds)
    b["gkrowid"] = rowid
    ex.clear_udf_error()
    try:
        evald = raw.execute(st.eval_sql, b).fetchone()
    except _db.Error as err:
        raise ex.translate_error(err, st.eval_sql) from err
    bound: dict[str, Any] = {"gkrowid": rowid}
    new = list(values)
    for k, (i, v) in enumerate(zip(st.columns, evald)):
        col = t.columns[i]
        v = coerce(col, v, row_no, store, t.name)
        if v is None and not col.nullable:
            v = store_null(col, row_no, store)
        new[i] = v
        bound[f"gkv{k}"] = to_sqlite(v)
    try:
        out = raw.execute(st.bound_sql, bound).fetchone()
    except _db.IntegrityError as err:
        raise integrity_error(err, t, new, row_no) from err
    except _db.Error as err:
        raise ex.translate_error(err, st.bound_sql) from err
    return out[0], tuple(out[1:])


def _on_update_columns(t: TableDef, stages: tuple[Stage, ...]) -> tuple[int, ...]:
    """The ON UPDATE CURRENT_TIMESTAMP columns of ``t`` that ``stages`` do not assign."""
    assigned = {i for st in stages for i in st.columns}
    return tuple(i for i, c in enumerate(t.columns) if c.on_update and i not in assigned)


def _touch_on_update(
    ex: Executor,
    t: TableDef,
    stages: tuple[Stage, ...],
    rowid: int,
    values: tuple,
    cols: tuple[int, ...] | None = None,
) -> tuple:
    """Set ON UPDATE CURRENT_TIMESTAMP columns the statement did not assign (the row changed); ``cols``: those
    columns (:func:`_on_update_columns`) when the caller has them."""
    if cols is None:
        cols = _on_update_columns(t, stages)
    if not cols:
        return values
    now = ex.now()
    new = list(values)
    tz = ex.time_zone()
    for i in cols:
        new[i] = coerce(t.columns[i], now)
        if t.columns[i].type == "timestamp":
            new[i] = temporal.timestamp_to_storage(tz, new[i])
    sets = ", ".join(f"{quote_ident(t.columns[i].name)} = ?" for i in cols)
    ex.conn.raw.execute(
        f"UPDATE {quote_ident(physical_name(t.schema, t.name))} SET {sets} WHERE {t.rowid_alias} = ?",
        [new[i] for i in cols] + [rowid],
    )
    return tuple(new)


_UNIQUE_RE = re.compile(r"UNIQUE constraint failed: (.+)")
_NOTNULL_RE = re.compile(r"NOT NULL constraint failed: (.+)")
_CHECK_RE = re.compile(r"CHECK constraint failed: gk:(\w+):(.+)")


def _key_text(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def failed_index(err: _db.IntegrityError, t: TableDef) -> IndexDef | None:
    """The unique key of ``t`` that SQLite's UNIQUE constraint failure ``err`` names (None when not a UNIQUE failure)."""
    m = _UNIQUE_RE.match(str(err))
    if not m:
        return None
    prefix = physical_name(t.schema, t.name) + "."
    cols = [
        c.strip()[len(prefix) :] if c.strip().startswith(prefix) else c.strip().split(".")[-1]
        for c in m.group(1).split(",")
    ]
    for ix in t.unique_keys:
        if [c.lower() for c in ix.columns] == [c.lower() for c in cols]:
            return ix
    return t.unique_keys[0] if t.unique_keys else None


def dup_entry_error(t: TableDef, ix: IndexDef, row: list | tuple) -> MySQLError:
    """ER_DUP_ENTRY 1062 (23000): ``Duplicate entry 'v1-v2' for key 't.idx'`` (MySQL 8.0.19+ form)."""
    vals = "-".join(_key_text(row[t.column_index(c)]) for c in ix.columns)
    return mysql_error(1062, vals, str(t.name) + "." + str(ix.name))


def duplicate_in_rows(conn: Any, t: TableDef, ix: IndexDef) -> MySQLError:
    """The 1062 of a UNIQUE index added over rows that already hold a duplicate (CREATE UNIQUE INDEX, ALTER TABLE
    ... ADD UNIQUE): ``Duplicate entry '<the first duplicated key>' for key 't.ix'``, as InnoDB reports the key it
    met twice while building the index; rows with a NULL key part are never duplicates.

    Args:
        conn: the storage connection (``execute`` over the physical table).
        t: the table's definition; ``ix``: the unique index that could not be built.
    """
    cols = ", ".join(quote_ident(c) for c in ix.columns)
    not_null = " AND ".join(f"{quote_ident(c)} IS NOT NULL" for c in ix.columns)
    found = conn.execute(
        f"SELECT {cols} FROM {conn.storage.qualifier(t.schema)}{quote_ident(physical_name(t.schema, t.name))} "
        f"WHERE {not_null} "
        f"GROUP BY {cols} HAVING COUNT(*) > 1 LIMIT 1"
    ).fetchone()
    row: list[Any] = [None] * len(t.columns)
    for c, v in zip(ix.columns, found or (), strict=False):
        i = t.column_index(c)
        row[i] = from_sqlite(t.columns[i], v)
    return dup_entry_error(t, ix, row)


def integrity_error(err: _db.IntegrityError, t: TableDef, row: list | tuple, row_no: int) -> MySQLError:
    """Translate SQLite's IntegrityError for ``row`` (1-based ``row_no``) of ``t`` into MySQL's error (1062, 1048 ...)."""
    text = str(err)
    ix = failed_index(err, t)
    if ix is not None:
        return dup_entry_error(t, ix, row)
    m = _NOTNULL_RE.match(text)
    if m:
        col = m.group(1).split(".")[-1]
        return mysql_error(1048, col)
    if text == "datatype mismatch" and len(t.primary_key) == 1:
        # SQLite's INTEGER PRIMARY KEY (the rowid) given a value that is no integer: NULL is 1048, as MySQL's
        # NOT NULL primary key column refuses it in strict mode; anything else MySQL's 1366 for an integer column
        col = t.primary_key[0]
        i = t.column_index(col)
        v = row[i] if 0 <= i < len(row) else None
        if v is None:
            return mysql_error(1048, col)
        return mysql_error(1366, "integer", _key_text(v), col, max(row_no, 1))
    m = _CHECK_RE.match(text)
    if m:
        kind, col = m.group(1), m.group(2)
        i = t.column_index(col)
        v = row[i] if 0 <= i < len(row) else ""
        if kind == "len":
            return mysql_error(1406, col, row_no)
        if kind == "range":
            return mysql_error(1264, col, row_no)
        return mysql_error(1366, "integer", _key_text(v), col, row_no)
    return unknown_error(f"Unknown error: {text}")


def _defaults(
    t: TableDef,
    now: Callable[[], _dt.datetime],
    template_of_t: tuple[tuple[Any, ...], tuple[int, ...]] | None = None,
) -> list[Any]:
    """Each column's default for a new row (``now()`` for CURRENT_TIMESTAMP, read only when a column has it),
    :data:`_MISSING` where the column has none; ``template_of_t``: :func:`_default_template` of ``t`` when the
    caller has it."""
    template, now_columns = template_of_t or _default_template(t)
    out = list(template)
    if now_columns:
        at = now()
        for i in now_columns:
            out[i] = at
    return out


#: id(TableDef) -> (TableDef, (defaults with None at CURRENT_TIMESTAMP columns, those columns)): per table, not
#: per row (a definition is immutable; it is kept so its id cannot be reused while the entry exists)
_DEFAULT_TEMPLATES: dict[int, tuple[TableDef, tuple[tuple[Any, ...], tuple[int, ...]]]] = {}


def _default_template(t: TableDef) -> tuple[tuple[Any, ...], tuple[int, ...]]:
    hit = _DEFAULT_TEMPLATES.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    out: list[Any] = []
    now_columns = []
    for i, c in enumerate(t.columns):
        if c.default_expr == "CURRENT_TIMESTAMP":
            out.append(None)
            now_columns.append(i)
        elif c.has_default:
            out.append(c.default)
        else:
            out.append(_MISSING)
    value = (tuple(out), tuple(now_columns))
    if len(_DEFAULT_TEMPLATES) >= 4096:
        _DEFAULT_TEMPLATES.clear()
    _DEFAULT_TEMPLATES[id(t)] = (t, value)
    return value


def _run_insert(
    ex: Executor, plan: InsertPlan, params: dict[str, Any], binds: dict[str, Any], facts: _Facts
) -> ExecResult:
    from gtidkit.engine.sql.exec_result import ExecResult, RowChange

    t = plan.table
    raw = ex.conn.raw
    ai = facts.auto_increment
    forced, ex.forced_insert_id = ex.forced_insert_id, None  # SET INSERT_ID / Intvar: one statement only
    store = ex.field_store(ignore=plan.mode == "ignore")
    if plan.select_sql is not None:
        src_rows: list[list[Any]] = [list(r) for r in ex.run_sqlite(plan.select_sql, binds).fetchall()]
        for r in src_rows:
            if len(r) != len(plan.target):
                raise mysql_error(1136, "1")
    else:
        src_rows = []
        for sources, expr_sql, names in zip(plan.rows, plan.row_exprs, facts.param_rows):
            if names is not None:  # VALUES of literals and parameters only (sysbench's INSERT)
                src_rows.append([binds[name] for name in names])
                continue
            evald = ex.run_sqlite(expr_sql, binds).fetchone() if expr_sql else ()
            vals: list[Any] = []
            for kind, v in sources:
                if kind == "p":
                    vals.append(binds[v])  # literals and @user variables
                elif kind == "c":
                    vals.append(v)
                elif kind == "d":
                    vals.append(_MISSING)
                elif kind == "n":
                    raw_value = params.get(v[0])
                    numeric = isinstance(raw_value, (int, Decimal)) and not isinstance(raw_value, bool)
                    # copy_negate: exact at any width (unary minus would round a DECIMAL(65,30) literal to 28 digits)
                    neg = raw_value.copy_negate() if isinstance(raw_value, Decimal) else -raw_value
                    vals.append(neg if numeric else evald[v[1]])
                else:
                    vals.append(evald[v])
            src_rows.append(vals)
    changes: list[RowChange] = []
    warnings = store.warnings  # conversion warnings and duplicate-key warnings, in the order they happen
    # MySQL's check_that_all_fields_are_given_values / CHECK_FIELD_WARN: without strict mode a missing value
    # takes the implicit default (warning 1364), and NULL into NOT NULL does too (warning 1048) except in a
    # single-row INSERT without IGNORE, which stays error 1048 (manual "Constraints on Invalid Data").
    null_is_error = store.strict or (plan.select_sql is None and len(src_rows) == 1 and plan.mode != "ignore")
    # a column the statement leaves out that has no default: checked once per statement, before any row
    # (check_that_all_fields_are_given_values; strict.result "INSERT IGNORE INTO t1 (col1) values (3)")
    missing = facts.missing
    if src_rows:
        for c in facts.missing_no_default:
            store.adjust(mysql_error(1364, c.name), None)
    affected = 0
    duplicates = 0
    first_generated = 0
    last_explicit = 0
    stamps = facts.stamps
    tz = ex.time_zone() if stamps else None  # for TIMESTAMP columns only
    # the MINIMAL after image: the listed columns, AUTO_INCREMENT and function defaults (COPY_INFO)
    written = facts.written
    # ON DUPLICATE KEY UPDATE: the one write_set holds the inserted and the updated columns
    odku_written = facts.odku_written
    coercers = facts.coercers
    for n, vals in enumerate(src_rows, 1):
        full = _defaults(t, ex.now, facts.defaults)
        given = [False] * len(t.columns)
        for idx, v in zip(plan.target, vals):
            if v is _MISSING:
                continue
            c = t.columns[idx]
            full[idx] = coercers[idx](v, n, store)
            given[idx] = True
            if full[idx] is None and not c.nullable and idx != ai:
                # fill_record: NULL into NOT NULL is reported as the field is filled, in column-list order
                if null_is_error:
                    raise mysql_error(1048, c.name)
                full[idx] = store_null(c, n, store)
        for i, c in facts.filled:  # every column but AUTO_INCREMENT
            v = full[i]
            if v is _MISSING:
                if i in missing:
                    v = full[i] = implicit_default(c)  # warned once above
                else:  # VALUES (..., DEFAULT, ...) for a column without a default
                    v = full[i] = store.adjust(mysql_error(1364, c.name), implicit_default(c))
            if v is None and not c.nullable:
                if null_is_error:
                    raise mysql_error(1048, c.name)
                v = full[i] = store_null(c, n, store)
            if isinstance(v, _dt.datetime) and not given[i]:
                full[i] = coerce(c, v, n, store, t.name)
        for i in stamps:  # TIMESTAMP: the session-zone value is stored in UTC
            full[i] = temporal.timestamp_to_storage(tz, full[i])
        # AUTO_INCREMENT is allocated when the row is written (handler::update_auto_increment), after the
        # field checks above, so a row rejected by them does not consume a value.
        if ai is not None:
            v = full[ai]
            if (v is None or v is _MISSING or v == 0) and forced is not None:
                full[ai] = ex.next_auto_increment(t, explicit=forced)
                forced += ex.auto_increment_increment  # the source's auto_increment_increment
                if not first_generated:
                    first_generated = full[ai]
            elif v is None or v is _MISSING or v == 0:
                full[ai] = ex.next_auto_increment(t)
                if not first_generated:
                    first_generated = full[ai]
            else:
                ex.next_auto_increment(t, explicit=int(v))
                # the OK packet's id is a ulonglong holding the field's val_int() (sql_insert.cc), so an explicit
                # negative value (-5) is reported as 2**64 - 5, as mysql_insert_id() shows it
                last_explicit = int(v) & _ULONGLONG
        row = tuple(full)
        # to_sqlite, its common values (text, NULL, an integer below 2**63) passed without a call
        bound = [
            v if v is None or (tv := type(v)) is str or (tv is int and v < U64_BLOB_MIN) else to_sqlite(v)
            for v in row
        ]
        for attempt in itertools.count():
            # REPLACE retries once per unique key at most (the count is only needed when it retries)
            if attempt > 1 and attempt >= len(t.unique_keys) + 2:
                break
            try:
                raw.execute(plan.insert_sql, bound)
            except _db.IntegrityError as err:
                ix = failed_index(err, t)
                if ix is None or plan.mode == "insert" and plan.odku is None:
                    raise integrity_error(err, t, row, n) from err
                if plan.mode == "ignore" and plan.odku is None:
                    warnings.append(("Warning", 1062, dup_entry_error(t, ix, row).message))
                    store.duplicate_rows.append(n)
                    break
                old = _find_conflict(ex, t, ix, row)
                if old is None:
                    raise integrity_error(err, t, row, n) from err
                if plan.odku is not None:
                    b = dict(binds)
                    for i, v in enumerate(bound):
                        b[f"gknew{i}"] = v
                    before = _image(t, old[1:])
                    _, after_raw = _apply_stages(ex, t, plan.odku, old[0], old[1:], b, n, store)
                    after = _image(t, after_raw)
                    if after != before:
                        affected += 2
                        changes.append(RowChange(t.schema, t.name, "update", before, after, odku_written))
                    duplicates += 1
                    break
                # REPLACE: delete the conflicting row, then try the insert again
                raw.execute(
                    f"DELETE FROM {quote_ident(physical_name(t.schema, t.name))} WHERE {t.rowid_alias} = ?",
                    (old[0],),
                )
                changes.append(RowChange(t.schema, t.name, "delete", _image(t, old[1:]), None))
                affected += 1
                duplicates += 1
                continue
            except _db.Error as err:
                raise ex.translate_error(err, plan.insert_sql) from err
            changes.append(
                RowChange(t.schema, t.name, "insert", None, _image(t, bound, facts.image), written)
            )
            affected += 1
            break
    if first_generated:
        ex.last_insert_id = first_generated
    info = ""
    if len(src_rows) > 1 or plan.select_sql is not None:
        info = f"Records: {len(src_rows)}  Duplicates: {duplicates}  Warnings: {len(warnings)}"
    return ExecResult(
        affected_rows=affected,
        last_insert_id=first_generated or last_explicit,
        warnings=warnings,
        row_changes=changes,
        info=info,
        insert_id=first_generated,
    )


def _find_conflict(ex: Executor, t: TableDef, ix: IndexDef, row: tuple) -> tuple | None:
    where = " AND ".join(f"{quote_ident(c)} = ?" for c in ix.columns)
    cols = ", ".join(quote_ident(c.name) for c in t.columns)
    sql = f"SELECT {t.rowid_alias}, {cols} FROM {quote_ident(physical_name(t.schema, t.name))} WHERE {where}"
    return ex.conn.raw.execute(sql, [to_sqlite(row[t.column_index(c)]) for c in ix.columns]).fetchone()


def _float32_udf(v: Any) -> Any:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            return to_float32(float(v))
        except OverflowError:
            return v  # out of FLOAT's range: stored as is, the row image encoder reports it
    return v


def _session_udfs(ex: Any) -> dict[str, Callable[..., Any]]:
    """``_GK_RAND`` of ``ex``'s session (RAND()'s optional seed argument: :meth:`Executor.rand_value`)."""
    return {"_GK_RAND": ex.rand_value}


#: the helper UDFs DML plans use (``_GK_TO_INT``, ``_GK_TO_FLOAT32``, ``_GK_RAND``) and the SQLite dialect's
#: ``_GK_NEG`` (:func:`gtidkit.engine.sql.exec_result.neg_udf`)
register(
    *rows_from(
        {"_GK_TO_INT": (1, to_int_udf), "_GK_TO_FLOAT32": (1, _float32_udf), NEG_FUNCTION: (1, neg_udf)},
        reports_errors=False,
    )
)
register(*session_rows(_session_udfs, {"_GK_RAND": (0, 2)}, deterministic=False, reports_errors=False))
#: ``VALUES(col)`` in ON DUPLICATE KEY UPDATE: the value the row would have inserted (``Item_insert_value``),
#: replaced by the planned INSERT's placeholder (:func:`_plan_insert`)
register(SqlFunction("VALUES", 1, 1, Kind.REWRITE, _plan_insert))
