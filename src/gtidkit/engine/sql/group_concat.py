"""MySQL's GROUP_CONCAT([DISTINCT] expr [, expr ...] [ORDER BY key [ASC | DESC], ...] [SEPARATOR str]) on SQLite.

SQLite 3.40 has ``group_concat(x, sep)`` but no ORDER BY inside an aggregate, no DISTINCT with a separator and no
length limit, so every GROUP_CONCAT becomes one call of the aggregate :data:`FUNCTION` registered here:
``_GK_GROUP_CONCAT(spec, separator, value1 .. valueN, key1 .. keyM)`` where ``spec`` (JSON) carries DISTINCT, N and
the direction of each ORDER BY key.

MySQL's rules (RM8 "Aggregate Function Descriptions", GROUP_CONCAT; ``Item_func_group_concat`` in
``sql/item_sum.cc``):

- the values of one row are concatenated without separator; a row where any value is NULL is skipped, and a
  group without such rows gives NULL;
- DISTINCT drops duplicate rows, ORDER BY sorts (NULL keys first ascending, last descending); SEPARATOR defaults
  to ``','``;
- "The result is truncated to the maximum length that is given by the group_concat_max_len system variable,
  which has a default value of 1024" (bytes, cut on a character boundary), with warning 1260
  ER_CUT_VALUE_GROUP_CONCAT "Row %u was cut by GROUP_CONCAT()" naming the row read when the cut happened.

Known difference: DISTINCT and ORDER BY compare strings case-folded (as the default utf8mb4_0900_ai_ci does for
case), not accent-insensitively; the result column's type is not TEXT as in MySQL when group_concat_max_len > 512.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sqlglot import exp

__all__ = ["FUNCTION", "make_aggregate", "rewrite_group_concat"]

#: the SQLite aggregate every GROUP_CONCAT becomes
FUNCTION = "_GK_GROUP_CONCAT"


def rewrite_group_concat(tree: exp.Expression) -> exp.Expression:
    """Replace each ``exp.GroupConcat`` of ``tree`` (in place) by a call of :data:`FUNCTION`; returns ``tree``."""
    for node in list(tree.find_all(exp.GroupConcat)):
        inner: Any = node.this
        keys: list[exp.Ordered] = []
        distinct = False
        if isinstance(inner, exp.Order):
            keys = [o if isinstance(o, exp.Ordered) else exp.Ordered(this=o) for o in inner.expressions]
            inner = inner.this
        if isinstance(inner, exp.Distinct):
            distinct = True
            exprs = list(inner.expressions)
            inner = exprs[0] if len(exprs) == 1 else exp.Concat(expressions=exprs)
        values = list(inner.expressions) if isinstance(inner, exp.Concat) else [inner]
        sep = node.args.get("separator")
        separator = (
            sep if sep is not None else exp.Literal.string(",")
        )  # a literal, or a cached plan's :gk<i>
        spec = json.dumps([distinct, len(values), [bool(k.args.get("desc")) for k in keys]])
        args = [exp.Literal.string(spec), separator, *values, *[k.this for k in keys]]
        node.replace(exp.Anonymous(this=FUNCTION, expressions=args))
    return tree


def _text(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    if isinstance(v, Decimal):
        return format(v, "f")
    return str(v)


def _sort_key(v: Any) -> tuple[int, Any]:
    if v is None:
        return (0, 0)
    if isinstance(v, (int, float, Decimal)):
        return (1, v)
    return (2, _text(v).casefold())


def _cut(text: str, max_len: int) -> str | None:
    """``text`` cut to ``max_len`` UTF-8 bytes on a character boundary, or None when it fits."""
    raw = text.encode("utf-8", "surrogateescape")
    if len(raw) <= max_len:
        return None
    return raw[:max_len].decode("utf-8", "ignore")


def make_aggregate(max_len: Callable[[], int], warn: Callable[[int], None], rows_read: list[int]) -> type:
    """The SQLite aggregate class behind :data:`FUNCTION`.

    Args:
        max_len: returns the session's group_concat_max_len (bytes).
        warn: called with the row number for warning 1260 when a result is cut.
        rows_read: a one-item list, the statement's count of rows fed to GROUP_CONCATs (reset per statement by
            the caller); the row number of the warning is read from it.
    """

    class GroupConcat:
        def __init__(self) -> None:
            self.rows: list[tuple[str, tuple[Any, ...], int]] = []
            self.spec: list[Any] | None = None
            self.separator = ","

        def step(self, spec: str, separator: Any, *args: Any) -> None:
            if self.spec is None:
                self.spec = json.loads(spec)
                self.separator = "" if separator is None else _text(separator)
            n = int(self.spec[1])
            rows_read[0] += 1
            values = args[:n]
            if any(v is None for v in values):
                return
            self.rows.append(("".join(_text(v) for v in values), tuple(args[n:]), rows_read[0]))

        def finalize(self) -> str | None:
            if self.spec is None or not self.rows:
                return None
            distinct, _, desc = self.spec
            separator = self.separator
            rows = self.rows
            if distinct:  # the first of equal values stays; equal as utf8mb4_0900_ai_ci compares case
                seen: set[str] = set()
                kept = []
                for r in rows:
                    folded = r[0].casefold()
                    if folded not in seen:
                        seen.add(folded)
                        kept.append(r)
                rows = kept
            for i in reversed(range(len(desc))):  # stable sorts, last key first
                rows.sort(key=lambda r, i=i: _sort_key(r[1][i]), reverse=bool(desc[i]))
            limit = max_len()
            out = ""
            for k, (text, _, rowno) in enumerate(rows):
                out = out + separator + text if k else text
                cut = _cut(out, limit)
                if cut is not None:
                    warn(rows_read[0] if desc else rowno)
                    return cut
            return out

    return GroupConcat
