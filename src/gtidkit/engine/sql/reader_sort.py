"""A SELECT's ORDER BY (and DISTINCT ... ORDER BY) left to the compiled reader (``Reader.run_sorted``,
engine/sql/_rowsfast.c) when the rows come out exactly as SQLite's own sort gives them.

SQLite sorts a result of a hundred rows through its general sorter (records built, unpacked and compared per
step: about 2,700 instructions a row for sysbench's ``ORDER BY c``, as much again for ``DISTINCT``); the reader
sorts the rows it built with SQLite's comparison rules (see ``_rowsfast.c``) in a tenth of that. It answers the
same rows in the same order only when SQLite would have read them in the same order and then sorted them with its
stable sorter, so :func:`reader_sort` plans it only for a SELECT that

- reads result columns that are plain column references (no function runs, so reading the rows again when the
  reader declines at run time changes nothing), from one table, without GROUP BY, HAVING, LIMIT, windows or CTEs;
- orders by result columns only (by name or position), with SQLite's default NULL placement; with DISTINCT, by
  every result column;
- and whose SQLite plan (``EXPLAIN QUERY PLAN``) is the plan of the same SELECT without ORDER BY / DISTINCT plus
  only SQLite's temporary B-tree for them: the scan order is the same, and no index delivers the order instead
  (which would order ties differently).

Plans depend on the schema only (this SQLite has no STAT4), and a plan is kept per catalog version, so the check
holds for every execution of the plan. The reader reads each term's collation from SQLite and declines (SQLite's
ORDER BY then runs) for any but BINARY, NOCASE and RTRIM. Without the reader (``GTIDKIT_PURE_PYTHON=1``) SQLite's
ORDER BY runs: that path is the reference, tests/engine/test_fast_sort.py holds the reader to it.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from sqlglot import exp

from gtidkit.engine.sql.exec_result import SQLITE

__all__ = ["ReaderSort", "reader_sort"]

#: SELECT clauses with which the reader does not sort (the order would not be the sorted scan's, or rows change)
_REFUSED = (
    "limit",
    "offset",
    "group",
    "having",
    "windows",
    "qualify",
    "with",
    "joins",
    "laterals",
    "pivots",
    "into",
    "locks",
    "sample",
    "connect",
    "kind",
    "operation_modifiers",
)
#: SQLite's plan lines of the sort and the DISTINCT the reader then does itself
_SORT_LINES = {"USE TEMP B-TREE FOR ORDER BY", "USE TEMP B-TREE FOR DISTINCT"}
_PARAM = re.compile(r":(\w+)")


@dataclass(frozen=True, slots=True)
class ReaderSort:
    """What ``Reader.run_sorted`` needs: the SELECT without ORDER BY / DISTINCT, the sort keys (result column
    index, descending), and whether to keep the first of equal rows only (DISTINCT)."""

    sql: str
    keys: tuple[tuple[int, bool], ...]
    distinct: bool


def reader_sort(tree: exp.Expression, sql: str, raw: sqlite3.Connection) -> ReaderSort | None:
    """The reader's sort of the planned SELECT ``tree`` (whose SQLite text is ``sql``), or None (SQLite sorts).

    Args:
        tree: the SELECT as planned (the tree ``sql`` was generated from; not changed).
        sql: its SQLite text.
        raw: the session's SQLite connection (``EXPLAIN QUERY PLAN`` of both texts runs on it).
    """
    if not isinstance(tree, exp.Select) or " NULLS " in sql.upper():
        return None
    order = tree.args.get("order")
    if order is None or any(tree.args.get(k) for k in _REFUSED):
        return None
    distinct = tree.args.get("distinct")
    if distinct is not None and distinct.args.get("on") is not None:
        return None
    frm = tree.args.get("from_")
    if frm is None or not isinstance(frm.this, exp.Table):
        return None
    projections = tree.expressions
    if not projections or any(not _plain_column(p) for p in projections):
        return None
    keys = []
    for term in order.expressions:
        if not isinstance(term, exp.Ordered):
            return None
        index = _result_index(term.this, projections)
        if index is None:
            return None
        keys.append((index, bool(term.args.get("desc"))))
    if distinct is not None and sorted(i for i, _ in keys) != list(range(len(projections))):
        return None
    if (
        tree.find(exp.Subquery, exp.Func) is not None
    ):  # no function runs, no subquery: reading again is harmless
        return None
    bare = tree.copy()
    bare.set("order", None)
    bare.set("distinct", None)
    unsorted = bare.sql(dialect=SQLITE, identify=True)
    try:
        sorted_plan = _plan(raw, sql)
        unsorted_plan = _plan(raw, unsorted)
    except sqlite3.Error:
        return None
    extra = [line for line in sorted_plan if line not in unsorted_plan]
    scan = [line for line in sorted_plan if line not in _SORT_LINES]
    if scan != unsorted_plan or not extra or any(line not in _SORT_LINES for line in extra):
        return None
    return ReaderSort(unsorted, tuple(keys), distinct is not None)


def _plain_column(node: exp.Expression) -> bool:
    return isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier)


def _result_index(ref: exp.Expression, projections: list[exp.Expression]) -> int | None:
    """The result column an ORDER BY term names: a position (1-based) or a column reference equal to one result
    column (same name, same table qualifier or none); None otherwise."""
    if isinstance(ref, exp.Literal) and ref.is_int:
        n = int(ref.this)
        return n - 1 if 1 <= n <= len(projections) else None
    if not _plain_column(ref):
        return None
    assert isinstance(ref, exp.Column)
    found = [
        i
        for i, p in enumerate(projections)
        if isinstance(p, exp.Column)
        and p.name.lower() == ref.name.lower()
        and (not ref.table or not p.table or p.table.lower() == ref.table.lower())
    ]
    return found[0] if len(found) == 1 else None


def _plan(raw: sqlite3.Connection, sql: str) -> list[str]:
    """SQLite's query plan lines of ``sql`` (parameters unbound: the plan does not depend on their values)."""
    binds = {name: None for name in _PARAM.findall(sql)}
    return [row[3] for row in raw.execute("EXPLAIN QUERY PLAN " + sql, binds)]
