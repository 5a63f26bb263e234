"""``cte_max_recursion_depth`` for recursive common table expressions (ER_CTE_MAX_RECURSION_DEPTH 3636).

SQLite runs a recursive CTE until it produces no new row, with no depth limit; MySQL stops a recursion that would
start iteration ``cte_max_recursion_depth + 1`` (RM8 "Limiting Common Table Expression Recursion": a runaway
recursion fails instead of running forever). The recursive CTE ``c(cols)`` is rewritten to carry its depth::

    WITH RECURSIVE c__gk_rec(cols, _gk_depth) AS (anchor, 0 UNION ALL recursive-on-c__gk_rec,
                                                 _GK_CTE_DEPTH(c._gk_depth + 1)),
                   c(cols) AS (SELECT cols FROM c__gk_rec) ...

``_GK_CTE_DEPTH(d)`` (the executor's) raises 3636 once a row of depth ``cte_max_recursion_depth`` appears: MySQL
would run the next iteration on it. Only the shape ``anchor UNION [ALL] recursive SELECT`` whose columns have names
(a column list or named anchor items) is rewritten; any other recursive CTE runs unlimited, as before.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["DEPTH_FUNCTION", "limit_recursion"]

#: the executor's SQLite function that checks a row's recursion depth
DEPTH_FUNCTION = "_GK_CTE_DEPTH"
_DEPTH = "_gk_depth"


def limit_recursion(tree: exp.Expression) -> None:
    """Rewrite each recursive CTE of ``tree`` (in place) to check its depth (see the module docstring)."""
    for with_ in list(tree.find_all(exp.With)):
        if not with_.args.get("recursive"):
            continue
        for cte in list(with_.expressions):
            _limit_one(with_, cte)


def _limit_one(with_: exp.With, cte: exp.CTE) -> None:
    name = cte.alias
    body = cte.this
    if not name or not isinstance(body, exp.Union) or not isinstance(body.this, exp.Select):
        return
    recursive = body.expression
    if not isinstance(recursive, exp.Select):
        return
    refs = [t for t in recursive.find_all(exp.Table) if t.name == name and not t.db]
    if len(refs) != 1:
        return
    alias = cte.args.get("alias")
    columns = [c.name for c in alias.columns] if alias is not None and alias.columns else []
    if not columns:
        columns = [p.alias_or_name for p in body.this.expressions]
        if any(not c or c == "*" for c in columns):
            return
    inner = f"{name}__gk_rec"
    ref = refs[0]
    ref_alias = ref.alias or name
    ref.replace(
        exp.Table(this=exp.to_identifier(inner), alias=exp.TableAlias(this=exp.to_identifier(ref_alias)))
    )
    body.this.append("expressions", exp.alias_(exp.Literal.number(0), _DEPTH))
    step = exp.Add(this=exp.column(_DEPTH, table=ref_alias), expression=exp.Literal.number(1))
    recursive.append(
        "expressions", exp.alias_(exp.Anonymous(this=DEPTH_FUNCTION, expressions=[step]), _DEPTH)
    )
    cte.set(
        "alias",
        exp.TableAlias(
            this=exp.to_identifier(inner), columns=[exp.to_identifier(c) for c in (*columns, _DEPTH)]
        ),
    )
    outer = exp.CTE(
        this=exp.select(*[exp.column(c) for c in columns]).from_(inner),
        alias=exp.TableAlias(this=exp.to_identifier(name), columns=[exp.to_identifier(c) for c in columns]),
    )
    ctes = list(with_.expressions)
    ctes.insert(ctes.index(cte) + 1, outer)
    with_.set("expressions", ctes)
