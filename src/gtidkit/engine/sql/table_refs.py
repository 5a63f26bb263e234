"""The tables a parsed statement names: what a privilege check and the plan cache's ``named_tables`` key need.

It belongs to the SQL layer (it reads a sqlglot tree) and is used upwards by the statement layer's authorizer
(:mod:`gtidkit.engine.statements.access` re-exports it); MySQL's equivalent is the table list the parser builds
(``LEX::query_tables``) that ``check_table_access`` walks.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["tables_of"]


def tables_of(tree: exp.Expression | None, current_db: str | None) -> tuple[tuple[str, str], ...]:
    """``(database, table)`` of every table ``tree`` names, in order (the default schema ``current_db``, else "",
    for unqualified ones); names of the statement's CTEs are not tables.

    Args:
        tree: the statement's sqlglot tree, None for a statement that has none (it names no table).
        current_db: the session's default schema, None when there is none.
    """
    if tree is None:
        return ()
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    out = []
    for t in tree.find_all(exp.Table):
        name = t.name
        if not name or (not t.db and name.lower() in ctes):
            continue
        out.append((t.db or current_db or "", name))
    return tuple(out)
