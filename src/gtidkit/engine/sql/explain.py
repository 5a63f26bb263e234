"""EXPLAIN / DESCRIBE / DESC of a SELECT, INSERT, REPLACE, UPDATE or DELETE in MySQL's traditional format.

The plan shown is the engine's real one: the SQLite statement the executor would run (the SELECT plan, or the
row-selecting SELECT of a single-table UPDATE / DELETE, ``dml.UpdatePlan.select_sql``) is given to SQLite's
``EXPLAIN QUERY PLAN`` and each of its lines is turned into MySQL's vocabulary:

==========================================  ===================================================================
SQLite ``EXPLAIN QUERY PLAN`` line          MySQL row
==========================================  ===================================================================
``SCAN t``                                  type ALL (``Using where`` when a condition reads ``t``)
``SCAN t USING [COVERING] INDEX i``         type index, key i (``Using index`` when covering)
``SEARCH t USING ... (a=? AND b>?)``        type const / eq_ref / ref (equalities only) or range (any other
                                            operator, or an IN list); key_len of the key parts used
``SEARCH t USING AUTOMATIC ... INDEX``      type ALL, ``Using where; Using join buffer (hash join)``
``USING INDEX i FOR IN-OPERATOR``           a row for i's table, type index (MySQL's semi-join)
``CO-ROUTINE x`` / ``MATERIALIZE x``        a DERIVED select; the outer scan reads ``<derivedN>``
``[CORRELATED] SCALAR/LIST SUBQUERY n``     a [DEPENDENT] SUBQUERY select
``COMPOUND QUERY``                          PRIMARY, UNION selects and the ``<union1,2>`` UNION RESULT row
``SCAN CONSTANT ROW`` / no table at all     ``No tables used``
``SEARCH t`` (MIN/MAX from an index end)    table NULL, ``Select tables optimized away``
``USE TEMP B-TREE FOR ORDER BY``            ``Using filesort`` on the select's first table
``USE TEMP B-TREE FOR GROUP BY/DISTINCT``   ``Using temporary`` on the select's first table
==========================================  ===================================================================

Estimates (MySQL's ``rows`` are estimates too, from index statistics): ``rows`` is 1 for const / eq_ref, the
table's row count for ALL / index, for ref / range with constant values the exact count of rows matching the
table's own constant conditions, and for a ref on another table's column the row count divided by the key
columns' distinct values. ``filtered`` is always 100.00. The note 1003 holds the statement with its tables
qualified by their database, in sqlglot's MySQL spelling (MySQL prints its own normalised, fully qualified
rewrite: the texts differ).

Single-table UPDATE / DELETE use MySQL's single-table optimiser: a unique lookup is type range, not const, and
``Using where`` is shown. INSERT / REPLACE give one row of type ALL with every other column NULL (plus the rows
of an INSERT ... SELECT's SELECT).

Sources: MySQL 8.4 Reference Manual "EXPLAIN Output Format" (columns, join types, Extra texts, key_len) and
"EXPLAIN Statement" (synonyms, FORMAT, explainable statements); sqlite.org "EXPLAIN QUERY PLAN".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine.results import (
    CHARSET_BINARY,
    CHARSET_UTF8MB3,
    NOT_FIXED_DEC,
    Column,
    ColumnFlag,
    FieldType,
)
from gtidkit.engine.sql.catalog import ColumnDef, IndexDef, TableDef
from gtidkit.engine.sql.exec_result import SQLITE, ConstPlan, ExecResult, bindable
from gtidkit.engine.sql.names import physical_name, quote_ident
from gtidkit.engine.sql.parse import parse_tree
from gtidkit.engine.sql.unsupported import syntax_error
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import message, mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.executor import Executor
    from gtidkit.engine.sql.parse import SqlStatement

__all__ = ["COLUMNS", "EXPLAINABLE", "METADATA", "explain_target", "run_explain"]

#: The traditional format's 12 columns, in order (RM 8.4 "EXPLAIN Output Format", table 15.1).
COLUMNS = (
    "id",
    "select_type",
    "table",
    "partitions",
    "type",
    "possible_keys",
    "key",
    "key_len",
    "ref",
    "rows",
    "filtered",
    "Extra",
)

#: limits the column widths are made of (``sql_const.h`` / ``my_io.h``): NAME_CHAR_LEN, MAX_KEY, MAX_REF_PARTS,
#: MAX_PARTITIONS, FN_LEN
_NAME_CHAR_LEN, _MAX_KEY, _MAX_REF_PARTS, _MAX_PARTITIONS, _FN_LEN = 64, 64, 16, 8192, 256
_UTF8MB3_MAXLEN = 3


def _text_column(name: str, chars: int, not_null: bool = False) -> Column:
    """An ``Item_empty_string(name, chars, system_charset_info)``: VAR_STRING in utf8mb3_general_ci, ``chars``
    characters of 3 bytes, decimals 31."""
    return Column(
        name,
        type=FieldType.MYSQL_TYPE_VAR_STRING,
        charset=CHARSET_UTF8MB3,
        length=chars * _UTF8MB3_MAXLEN,
        flags=int(ColumnFlag.NOT_NULL) if not_null else 0,
        decimals=NOT_FIXED_DEC,
    )


def _int_column(name: str, width: int, not_null: bool = False) -> Column:
    """An ``Item_return_int(name, width, MYSQL_TYPE_LONGLONG)``: an unsigned BIGINT of display width ``width``."""
    flags = (
        ColumnFlag.UNSIGNED | ColumnFlag.BINARY | ColumnFlag.NUM | (ColumnFlag.NOT_NULL if not_null else 0)
    )
    return Column(
        name,
        type=FieldType.MYSQL_TYPE_LONGLONG,
        charset=CHARSET_BINARY,
        length=width,
        flags=int(flags),
        decimals=0,
    )


#: The result-set metadata of the traditional format, as ``THD::send_explain_fields`` (sql_class.cc) declares
#: it: ``id`` and ``select_type`` not nullable, the others nullable; strings in the system character set.
METADATA = (
    _int_column("id", 3, not_null=True),
    _text_column("select_type", 19, not_null=True),
    _text_column("table", _NAME_CHAR_LEN),
    _text_column("partitions", _MAX_PARTITIONS * (1 + _FN_LEN)),
    _text_column("type", 10),
    _text_column("possible_keys", _NAME_CHAR_LEN * _MAX_KEY),
    _text_column("key", _NAME_CHAR_LEN),
    _text_column("key_len", _NAME_CHAR_LEN * _MAX_KEY),
    _text_column("ref", _NAME_CHAR_LEN * _MAX_REF_PARTS),
    _int_column("rows", 10),
    # Item_float("filtered", 0.1234, 2, 4): a DOUBLE shown with 2 decimals
    Column(
        "filtered",
        type=FieldType.MYSQL_TYPE_DOUBLE,
        charset=CHARSET_BINARY,
        length=4,
        flags=int(ColumnFlag.BINARY | ColumnFlag.NUM),
        decimals=2,
    ),
    _text_column("Extra", 255),
)

#: ``EXPLAIN|DESCRIBE|DESC [FORMAT = name] [ANALYZE] <explainable statement>``
EXPLAINABLE = re.compile(
    r"^\s*(?:EXPLAIN|DESCRIBE|DESC)\s+(?:FORMAT\s*=\s*(?P<format>\w+)\s+|(?P<analyze>ANALYZE)\s+)*"
    r"(?P<stmt>(?:SELECT|WITH|TABLE|INSERT|REPLACE|UPDATE|DELETE)\b.*|\(.*)$",
    re.IGNORECASE | re.DOTALL,
)
_SQL_NO_CACHE = re.compile(
    r"(SELECT\s+(?:(?:ALL|DISTINCT|DISTINCTROW|HIGH_PRIORITY|STRAIGHT_JOIN)\s+)*)SQL_NO_CACHE\s+",
    re.IGNORECASE,
)
_FORMATS = {"TRADITIONAL", "TREE", "JSON"}
_FILTERED = Decimal("100.00")

_SCAN = re.compile(r"^SCAN (\S+)(?: AS \S+)?(?: USING (COVERING )?INDEX (\S+))?$")
_SEARCH = re.compile(
    r"^SEARCH (\S+)(?: AS \S+)? USING (?:(AUTOMATIC (?:PARTIAL )?COVERING INDEX)|(COVERING )?INDEX (\S+)"
    r"|INTEGER PRIMARY KEY|PRIMARY KEY) \((.*)\)$"
)
_OPTIMIZED_AWAY = re.compile(r"^SEARCH (\S+)$")
_IN_OPERATOR = re.compile(
    r"^USING (?:ROWID SEARCH ON TABLE (\S+)|(?:COVERING )?INDEX (\S+)) FOR IN-OPERATOR$"
)
_DERIVED = re.compile(r"^(?:CO-ROUTINE|MATERIALIZE) (\S+)$")
_SUBQUERY = re.compile(r"^(CORRELATED )?(?:SCALAR|LIST) SUBQUERY(?: \d+)?$")
_UNION_PART = re.compile(
    r"^(UNION ALL|UNION USING TEMP B-TREE|INTERSECT USING TEMP B-TREE|EXCEPT USING TEMP B-TREE)$"
)
_TERM = re.compile(r"(\w+)(=|>|<|>=|<=)\?")


def explain_target(text: str) -> str | None:
    """The statement an ``EXPLAIN`` / ``DESCRIBE`` / ``DESC`` text explains, or ``None`` for another form
    (``DESCRIBE t`` = SHOW COLUMNS, ``EXPLAIN FOR CONNECTION``)."""
    m = EXPLAINABLE.match(text)
    return m.group("stmt") if m else None


@dataclass(slots=True)
class _Table:
    """One table reference of the explained statement: its alias, definition and the conditions reading it."""

    alias: str
    tdef: TableDef
    conds: list[exp.Expression] = field(default_factory=list)


@dataclass(slots=True)
class _Row:
    id: int | None
    select_type: str
    table: str | None
    type: str | None = None
    possible_keys: str | None = None
    key: str | None = None
    key_len: str | None = None
    ref: str | None = None
    rows: int | None = None
    filtered: Decimal | None = None
    extra: list[str] = field(default_factory=list)

    def values(self) -> tuple[Any, ...]:
        return (
            self.id,
            self.select_type,
            self.table,
            None,
            self.type,
            self.possible_keys,
            self.key,
            self.key_len,
            self.ref,
            self.rows,
            self.filtered,
            "; ".join(self.extra) or None,
        )


def run_explain(ex: Executor, stmt: SqlStatement, current_db: str | None) -> ExecResult:
    """Run ``EXPLAIN [FORMAT=TRADITIONAL] <statement>``: the 12-column plan rows and note 1003.

    Args:
        ex: the session's executor (its SQLite connection runs ``EXPLAIN QUERY PLAN``; nothing is executed).
        stmt: the classified EXPLAIN statement (``stmt.info["explain"]`` set by classification).
        current_db: the default database.

    Raises:
        MySQLError: 1235 for FORMAT=TREE / FORMAT=JSON / an unknown FORMAT name, EXPLAIN ANALYZE and multi-table
            UPDATE / DELETE; the explained statement's own resolution errors (1046, 1146, 1054).
    """
    m = EXPLAINABLE.match(stmt.text)
    if m is None:  # classification only marks matching texts
        raise syntax_error(stmt.text)
    fmt = (m.group("format") or "TRADITIONAL").upper()
    if fmt not in _FORMATS:
        raise mysql_error(1235, f"EXPLAIN FORMAT={m.group('format')}")
    if m.group("analyze"):
        raise mysql_error(1235, "EXPLAIN ANALYZE")
    if fmt != "TRADITIONAL":
        raise mysql_error(1235, f"EXPLAIN FORMAT={fmt}")
    inner = m.group("stmt").strip().rstrip(";")
    warnings: list[tuple[str, int, str]] = []
    no_cache = _SQL_NO_CACHE.match(inner)
    if no_cache:  # SELECT SQL_NO_CACHE: deprecated, ignored (MySQL 8 warns 1681 as for the SELECT itself)
        inner = no_cache.group(1) + inner[no_cache.end() :]
        warnings.append(("Warning", 1681, message(1681, "SQL_NO_CACHE")))
    replace = inner[:7].upper() == "REPLACE"
    shown = parse_tree(inner, replace=replace)
    tree = shown.copy()
    if isinstance(tree, (exp.Update, exp.Delete)):
        rows = _explain_dml(ex, tree, current_db)
    elif isinstance(tree, exp.Insert):
        rows = _explain_insert(ex, tree, current_db, replace, inner)
    else:
        rows = _explain_select(ex, tree, current_db, inner)
    res = ExecResult(
        columns=list(COLUMNS), rows=[r.values() for r in rows], warnings=warnings, metadata=METADATA
    )
    note = _note(shown, current_db)
    if replace:  # sqlglot spells a REPLACE tree as INSERT
        note = note.replace("*/ INSERT", "*/ REPLACE", 1)
    res.warnings.append(("Note", 1003, message(1003, note)))
    return res


def _note(tree: exp.Expression, current_db: str | None) -> str:
    """The note 1003 text: the statement with each table qualified by its database."""
    for t in tree.find_all(exp.Table):
        if t.name and not t.db and current_db and not isinstance(t.this, exp.Func):
            t.set("db", exp.to_identifier(current_db))
    return "/* select#1 */ " + tree.sql(dialect="mysql", identify=True)


# ---------------------------------------------------------------- statements
def _explain_select(
    ex: Executor, tree: exp.Expression, current_db: str | None, source: str | None
) -> list[_Row]:
    plan = ex.plan_select(tree, current_db, source)
    if isinstance(plan, ConstPlan):
        return [_Row(1, "SIMPLE", None, extra=["No tables used"])]
    binds = _binds(ex, plan.sql, plan.variables)
    return _Planner(ex, _tables(tree), "SIMPLE", single_table_dml=False).rows(plan.sql, binds)


def _explain_dml(ex: Executor, tree: exp.Update | exp.Delete, current_db: str | None) -> list[_Row]:
    from gtidkit.engine.sql.dml import DeletePlan, UpdatePlan, plan_dml

    plan = plan_dml(ex, tree, current_db, False)
    if not isinstance(plan, (UpdatePlan, DeletePlan)):
        raise mysql_error(1235, "EXPLAIN of a multi-table UPDATE or DELETE")
    kind = "UPDATE" if isinstance(tree, exp.Update) else "DELETE"
    binds = _binds(ex, plan.select_sql, plan.variables)
    return _Planner(ex, _tables(tree), kind, single_table_dml=True).rows(plan.select_sql, binds)


def _explain_insert(
    ex: Executor, tree: exp.Insert, current_db: str | None, replace: bool, source: str
) -> list[_Row]:
    target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    if not isinstance(target, exp.Table):
        raise mysql_error(1235, "EXPLAIN of this INSERT form")
    ex.require_table(target.db or current_db, target.name)
    rows = [_Row(1, "REPLACE" if replace else "INSERT", target.alias_or_name, type="ALL")]
    select = tree.expression
    if isinstance(select, (exp.Select, exp.Union)):
        inner = select.copy()
        rows += _explain_select(ex, inner, current_db, None)
    return rows


def _binds(ex: Executor, sql: str, variables: tuple[tuple[str, str, str | None], ...]) -> dict[str, Any]:
    binds: dict[str, Any] = {slot[0]: bindable(ex.variable_value(slot)) for slot in variables}
    for name in re.findall(r":(g[kp]\w*)", sql):
        binds.setdefault(name, None)
    if "gkver" in binds:
        binds["gkver"] = ex.server_version()
    binds["gkdb"] = ex.current_db
    return binds


def _tables(tree: exp.Expression) -> dict[str, _Table]:
    """alias -> :class:`_Table` for every resolved table of ``tree`` (after planning), with its conditions."""
    out: dict[str, _Table] = {}
    for t in tree.find_all(exp.Table):
        tdef = t.meta.get("gk_table")
        if isinstance(tdef, TableDef) and t.alias_or_name not in out:
            out[t.alias_or_name] = _Table(t.alias_or_name, tdef)
    for scope in [tree, *tree.find_all(exp.Select)]:
        conds: list[exp.Expression] = []
        where = scope.args.get("where")
        if where is not None:
            conds += list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
        for j in scope.args.get("joins") or []:
            on = j.args.get("on")
            if on is not None:
                conds += list(on.flatten()) if isinstance(on, exp.And) else [on]
        local = [
            t.alias_or_name
            for t in scope.find_all(exp.Table)
            if t.alias_or_name in out and t.find_ancestor(exp.Select, exp.Update, exp.Delete) in (scope, None)
        ]
        for c in conds:
            for alias in _reads(c, local, out):
                if c not in out[alias].conds:
                    out[alias].conds.append(c)
    return out


def _reads(cond: exp.Expression, local: list[str], tables: dict[str, _Table]) -> set[str]:
    found = set()
    for col in cond.find_all(exp.Column):
        if col.table and col.table in tables:
            found.add(col.table)
        elif not col.table:
            for alias in local:
                if tables[alias].tdef.column(col.name) is not None:
                    found.add(alias)
                    break
    return found


# ---------------------------------------------------------------- EXPLAIN QUERY PLAN -> rows
class _Planner:
    """Turns SQLite's ``EXPLAIN QUERY PLAN`` lines into MySQL rows (see the module docstring's table)."""

    def __init__(self, ex: Executor, tables: dict[str, _Table], top: str, *, single_table_dml: bool) -> None:
        self.ex = ex
        self.tables = tables
        self.top = top
        self.single_table_dml = single_table_dml
        self.next_id = 1
        self.derived: dict[str, int] = {}
        self.out: list[_Row] = []

    def rows(self, sql: str, binds: dict[str, Any]) -> list[_Row]:
        lines = self.ex.run_sqlite("EXPLAIN QUERY PLAN " + sql, binds).fetchall()
        children: dict[int, list[tuple[int, str]]] = {}
        for node, parent, _unused, detail in lines:
            children.setdefault(parent, []).append((node, detail))
        self.children = children
        self._select(0, self.top)
        ids = {r.id for r in self.out if r.id is not None}
        if self.top == "SIMPLE" and len(ids) > 1:
            for r in self.out:
                if r.id == 1 and r.select_type == "SIMPLE":
                    r.select_type = "PRIMARY"
        if not self.out:
            self.out.append(_Row(1, self.top, None, extra=["No tables used"]))
        return self.out

    def _new_id(self) -> int:
        sid = self.next_id
        self.next_id += 1
        return sid

    def _select(self, parent: int, select_type: str, sid: int | None = None) -> None:
        """Rows of one select: the EQP children of ``parent``."""
        sid = self._new_id() if sid is None else sid
        first: _Row | None = None
        for node, detail in self.children.get(parent, []):
            row: _Row | None = None
            if detail == "SCAN CONSTANT ROW":
                row = _Row(sid, select_type, None, extra=["No tables used"])
            elif detail == "COMPOUND QUERY":
                self._compound(node, sid, select_type)
                continue
            elif m := _DERIVED.match(detail):
                self.derived[m.group(1)] = self.next_id
                self._select(node, "DERIVED")
                continue
            elif m := _SUBQUERY.match(detail):
                self._select(node, "DEPENDENT SUBQUERY" if m.group(1) else "SUBQUERY")
                continue
            elif detail.startswith("USE TEMP B-TREE FOR"):
                word = "Using filesort" if "ORDER BY" in detail else "Using temporary"
                if first is not None and word not in first.extra:
                    first.extra.append(word)
                continue
            elif m := _IN_OPERATOR.match(detail):
                row = self._in_operator(sid, select_type, m.group(1) or m.group(2))
            else:
                row = self._access(sid, select_type, detail)
            if row is not None:
                self.out.append(row)
                first = first or row
            self._select_children(node, sid)

    def _select_children(self, node: int, sid: int) -> None:
        for child, detail in self.children.get(node, []):
            if m := _SUBQUERY.match(detail):
                self._select(child, "DEPENDENT SUBQUERY" if m.group(1) else "SUBQUERY")

    def _compound(self, node: int, sid: int, select_type: str) -> None:
        ids: list[int] = []
        distinct = False
        for child, detail in self.children.get(node, []):
            if detail == "LEFT-MOST SUBQUERY":
                ids.append(sid)
                self._select(child, "PRIMARY", sid)
            elif _UNION_PART.match(detail):
                distinct = distinct or "TEMP B-TREE" in detail
                ids.append(self.next_id)
                self._select(child, "UNION")
        if distinct:
            table = "<union" + ",".join(str(i) for i in ids) + ">"
            self.out.append(_Row(None, "UNION RESULT", table, type="ALL", extra=["Using temporary"]))

    def _table_of(self, name: str) -> _Table | None:
        return self.tables.get(name)

    def _in_operator(self, sid: int, select_type: str, name: str) -> _Row | None:
        for t in self.tables.values():
            phys = physical_name(t.tdef.schema, t.tdef.name)
            if name == phys or name.startswith(phys + "."):
                ix = _index_named(t.tdef, name)
                row = _Row(sid, select_type, t.alias, type="index", key=ix.name if ix else None)
                if ix is not None:
                    row.possible_keys = ix.name
                    row.key_len = str(sum(_key_part_len(t.tdef, c) for c in ix.columns))
                row.rows = self._count(t, [])
                row.filtered = _FILTERED
                row.extra = ["Using index"]
                return row
        return None

    def _access(self, sid: int, select_type: str, detail: str) -> _Row | None:
        if m := _SCAN.match(detail):
            name, covering, index = m.groups()
            if name in self.derived:
                return _Row(
                    sid, select_type, f"<derived{self.derived[name]}>", type="ALL", filtered=_FILTERED
                )
            t = self._table_of(name)
            if t is None:
                return None
            row = _Row(sid, select_type, t.alias, filtered=_FILTERED, rows=self._count(t, []))
            ix = _index_named(t.tdef, index) if index else None
            row.possible_keys = self._possible_keys(t, None)
            if ix is None:
                row.type = "ALL"
            else:
                row.type, row.key = "index", ix.name
                row.key_len = str(sum(_key_part_len(t.tdef, c) for c in ix.columns))
            if any(_local(c, t) for c in t.conds):  # a join condition is checked at the later table
                row.extra.append("Using where")
            if covering:
                row.extra.append("Using index")
            return row
        if m := _OPTIMIZED_AWAY.match(detail):  # MIN()/MAX() read from one end of an index
            return _Row(sid, select_type, None, extra=["Select tables optimized away"])
        m = _SEARCH.match(detail)
        if m is None:
            return None
        name, automatic, covering, index, terms = m.groups()
        t = self._table_of(name)
        if t is None:
            return None
        row = _Row(sid, select_type, t.alias, filtered=_FILTERED)
        if automatic:  # SQLite builds a transient index: MySQL's hash join over a full scan
            row.type, row.rows = "ALL", self._count(t, [])
            row.possible_keys = self._possible_keys(t, None)
            row.extra = ["Using where", "Using join buffer (hash join)"]
            return row
        ix = _index_named(t.tdef, index) if index else _primary(t.tdef)
        if ix is None:
            return None
        parts = [(_column_of(t.tdef, col), op) for col, op in _TERM.findall(terms)]
        eq = [c for c, op in parts if op == "="]
        ranged = any(op != "=" for _c, op in parts) or any(self._is_in_list(t, c) for c in eq)
        used = list(dict.fromkeys(c for c, _op in parts))  # rowid>? AND rowid<? is one key part
        row.key = ix.name
        row.possible_keys = self._possible_keys(t, ix)
        row.key_len = str(sum(_key_part_len(t.tdef, c) for c in used))
        refs = [self._ref(t, c) for c in eq]
        consumed = [self._eq_cond(t, c) for c in eq]
        if ranged:
            row.type = "range"
            row.rows = self._count(t, [c for c in t.conds if _local(c, t)])
            if ix.primary:
                row.extra.append("Using where")
            elif covering:
                row.extra += ["Using where", "Using index"]
            else:
                row.extra.append("Using index condition")
            return row
        unique = (ix.primary or ix.unique) and len(eq) == len(ix.columns)
        row.ref = ",".join(refs)
        if unique:
            row.type, row.rows = ("const" if all(r == "const" for r in refs) else "eq_ref"), 1
        else:
            row.type = "ref"
            if all(r == "const" for r in refs):
                row.rows = self._count(t, [c for c in t.conds if _local(c, t)])
            else:
                row.rows = self._per_key(t, eq)
        if self.single_table_dml and row.type in (
            "const",
            "ref",
        ):  # the range optimiser's access (sql_update.cc)
            row.type = "range"
            row.extra = ["Using where"]
            return row
        if row.type == "const":  # read once at optimisation: MySQL shows no Extra
            return row
        rest = [c for c in t.conds if c not in consumed]
        if rest:
            row.extra.append("Using where")
        if covering:
            row.extra.append("Using index")
        return row

    # ------------------------------------------------------------ conditions and estimates
    def _eq_cond(self, t: _Table, col: str) -> exp.Expression | None:
        for c in t.conds:
            if isinstance(c, exp.EQ):
                for side in (c.this, c.expression):
                    if (
                        isinstance(side, exp.Column)
                        and side.name.lower() == col.lower()
                        and (not side.table or side.table == t.alias)
                    ):
                        return c
        return None

    def _is_in_list(self, t: _Table, col: str) -> bool:
        for c in t.conds:
            if (
                isinstance(c, exp.In)
                and isinstance(c.this, exp.Column)
                and c.this.name.lower() == col.lower()
            ):
                return not c.args.get("query")
        return False

    def _ref(self, t: _Table, col: str) -> str:
        c = self._eq_cond(t, col)
        if c is None:
            return "const"
        for side in (c.this, c.expression):
            if (
                isinstance(side, exp.Column)
                and side.table
                and side.table != t.alias
                and side.table in self.tables
            ):
                other = self.tables[side.table]
                return f"{other.tdef.schema}.{other.alias}.{side.name}"
        return "const"

    def _possible_keys(self, t: _Table, chosen: IndexDef | None) -> str | None:
        sargable = set()
        for c in t.conds:
            if isinstance(c, (exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between, exp.In, exp.NullSafeEQ)):
                for side in (c.this, c.args.get("expression")):
                    if isinstance(side, exp.Column) and (not side.table or side.table == t.alias):
                        sargable.add(side.name.lower())
        names = [ix.name for ix in t.tdef.indexes if ix.columns and ix.columns[0].lower() in sargable]
        if chosen is not None and chosen.name not in names:
            names.append(chosen.name)
        return ",".join(names) or None

    def _count(self, t: _Table, conds: list[exp.Expression]) -> int:
        """Rows of ``t`` satisfying ``conds`` (all of ``t``'s own, constant-valued conditions), at least 1."""
        where = ""
        usable = [c for c in conds if not c.find(exp.Placeholder, exp.Parameter, exp.SessionParameter)]
        if usable:
            where = " WHERE " + " AND ".join(f"({c.sql(dialect=SQLITE, identify=True)})" for c in usable)
        sql = f"SELECT COUNT(*) FROM {quote_ident(physical_name(t.tdef.schema, t.tdef.name))} AS {quote_ident(t.alias)}{where}"
        try:
            n = self.ex.run_sqlite(sql).fetchone()[0]
        except MySQLError:  # a condition SQLite cannot evaluate alone: the table's size is the estimate
            n = self.ex.run_sqlite(
                f"SELECT COUNT(*) FROM {quote_ident(physical_name(t.tdef.schema, t.tdef.name))}"
            ).fetchone()[0]
        return max(int(n), 1)

    def _per_key(self, t: _Table, cols: list[str]) -> int:
        """Rows per distinct value of ``cols``: MySQL's rec_per_key estimate of a ref on a join column."""
        phys = quote_ident(physical_name(t.tdef.schema, t.tdef.name))
        keys = ", ".join(quote_ident(c) for c in cols)
        total, distinct = self.ex.run_sqlite(
            f"SELECT COUNT(*), (SELECT COUNT(*) FROM (SELECT DISTINCT {keys} FROM {phys})) FROM {phys}"
        ).fetchone()
        return max(1, math.ceil(total / distinct)) if distinct else 1


def _local(cond: exp.Expression, t: _Table) -> bool:
    """True when ``cond`` reads no other table's columns (a column qualified by another alias)."""
    return all(not c.table or c.table == t.alias for c in cond.find_all(exp.Column)) and not cond.find(
        exp.Subquery, exp.Select
    )


def _primary(tdef: TableDef) -> IndexDef | None:
    for ix in tdef.indexes:
        if ix.primary:
            return ix
    return None


def _index_named(tdef: TableDef, name: str | None) -> IndexDef | None:
    """The MySQL index behind SQLite index ``name`` (``schema.table.index`` or the primary key's autoindex)."""
    if name is None:
        return None
    if name.startswith("sqlite_autoindex_"):
        return _primary(tdef)
    prefix = physical_name(tdef.schema, tdef.name) + "."
    short = name.removeprefix(prefix)
    for ix in tdef.indexes:
        if ix.name == short:
            return ix
    return None


def _column_of(tdef: TableDef, col: str) -> str:
    if col.lower() in ("rowid", "_rowid_", "oid") and tdef.column(col) is None:
        return tdef.primary_key[0]
    return col


#: bytes per character of a character set in an index (RM 8.4 "EXPLAIN Output Format", key_len)
_CHARSET_BYTES = {
    "utf8mb4": 4,
    "utf8mb3": 3,
    "utf8": 3,
    "latin1": 1,
    "ascii": 1,
    "binary": 1,
    "ucs2": 2,
    "utf16": 4,
    "utf32": 4,
}
#: fixed key part sizes of the other types (DATETIME/TIMESTAMP/TIME add their fractional-second bytes)
_FIXED = {"float": 4, "double": 8, "date": 3, "datetime": 5, "timestamp": 4, "time": 3, "year": 1}


def _key_part_len(tdef: TableDef, name: str) -> int:
    """key_len of one key part: the column's index image size, +1 when nullable, +2 for a variable length."""
    col: ColumnDef | None = tdef.column(name)
    if col is None:
        return 0
    info = col.info
    if info.family == "int":
        n = info.int_bytes
    elif col.type in _FIXED:
        n = (
            _FIXED[col.type] + (col.scale + 1) // 2
            if col.type in ("datetime", "timestamp", "time") and col.scale
            else _FIXED[col.type]
        )
    elif col.type == "decimal":
        n = _decimal_bytes(col.precision or 10, col.scale or 0)
    else:
        chars = col.length if col.length is not None else 255  # a TEXT / BLOB prefix: MySQL needs a length
        width = 1 if info.family == "binary" else _CHARSET_BYTES.get((col.charset or tdef.charset).lower(), 4)
        n = chars * width + (2 if col.type not in ("char", "binary") else 0)
    return n + (1 if col.nullable else 0)


def _decimal_bytes(precision: int, scale: int) -> int:
    """DECIMAL(p,s)'s binary size: 4 bytes per 9 digits each side of the point, 0-4 for the rest."""
    left = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)
    ip = precision - scale
    return ip // 9 * 4 + left[ip % 9] + scale // 9 * 4 + left[scale % 9]
