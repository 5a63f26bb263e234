"""Which table a column reference of a resolved statement names: MySQL's name resolution by SELECT scope.

MySQL resolves a column of a SELECT in that SELECT's own FROM clause first, then in each enclosing SELECT's (an
outer reference), ``Item_field::fix_fields`` / ``find_field_in_tables``; so in ``INSERT INTO dst SELECT d * 3
FROM src`` the ``d`` is ``src.d`` although the target ``dst`` has a ``d`` too (manual "INSERT ... SELECT
Statement"). Tables are those :meth:`Executor.resolve_tables` marked with ``meta["gk_table"]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import ColumnDef, TableDef

__all__ = ["scoped_columns"]


def _match(ref: exp.Column, tables: list[tuple[str, TableDef]]) -> list[tuple[str, TableDef, ColumnDef]]:
    return [
        (alias, t, c)
        for alias, t in tables
        if not ref.table or ref.table == alias
        if (c := t.column(ref.name)) is not None
    ]


def scoped_columns(
    ref: exp.Column, tables: list[tuple[str, TableDef]]
) -> list[tuple[str, TableDef, ColumnDef]]:
    """The (alias, table, column) triples ``ref`` can name: those of the tables of its own SELECT when any matches,
    else of the next enclosing SELECT, and so on, else of ``tables`` (every table of the statement: an UPDATE's or
    DELETE's, or a reference outside any SELECT). One triple means the reference is resolved; more, ambiguous.

    Args:
        ref: a column reference of a resolved statement tree.
        tables: (alias, table definition) of every resolved table of the statement.
    """
    scope = ref.find_ancestor(exp.Select)
    while scope is not None:
        own = [
            (t.alias_or_name, t.meta["gk_table"])
            for t in scope.find_all(exp.Table)
            if "gk_table" in t.meta and t.find_ancestor(exp.Select) is scope
        ]
        found = _match(ref, own)
        if found:
            return found
        scope = scope.find_ancestor(exp.Select)
    return _match(ref, tables)
