"""ORDER BY a bare column name that names a select-list column: resolved to that column, as MySQL does.

MySQL (``find_order_in_list`` in ``sql/sql_resolver.cc``) looks an ORDER BY identifier up in the select list first:
``SELECT a.n FROM a JOIN b USING ... ORDER BY n`` sorts by ``a.n`` even though ``b`` has a column ``n`` too. SQLite
only looks at ``AS`` aliases and answers "ambiguous column name" (1052 here). MySQL Shell's AdminAPI sends such a
query (``SELECT c.channel_name, ... FROM performance_schema.replication_connection_configuration c JOIN
...replication_connection_status s ... ORDER BY channel_name``, ``mysqlshdk/libs/mysql/replication.cc``).
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["qualify_order_by"]


def qualify_order_by(tree: exp.Expression) -> None:
    """In place: in each SELECT of ``tree``, an unqualified ORDER BY column whose name is the name of exactly one
    qualified, unaliased column of the select list becomes that column (``ORDER BY n`` -> ``ORDER BY a.n``)."""
    for select in tree.find_all(exp.Select):
        order = select.args.get("order")
        if order is None:
            continue
        for term in order.expressions:
            col = term.this if isinstance(term, exp.Ordered) else term
            if not isinstance(col, exp.Column) or col.table or not col.name:
                continue
            name = col.name.lower()
            if any(isinstance(e, exp.Alias) and e.alias.lower() == name for e in select.expressions):
                continue  # an alias: SQLite resolves it itself
            matches = {
                e.sql(): e
                for e in select.expressions
                if isinstance(e, exp.Column) and e.table and e.name.lower() == name
            }
            if len(matches) == 1:
                col.replace(next(iter(matches.values())).copy())
