"""MySQL's LIKE as SQLite runs it: the default escape character.

MySQL's ``expr LIKE pat`` without an ESCAPE clause escapes with a backslash (``'a\\_c'`` matches only ``a_c``),
and with none at all under sql_mode NO_BACKSLASH_ESCAPES (RM8 14.8.1 "String Comparison Functions and
Operators": "If you do not specify the ESCAPE character, \\ is assumed, unless the NO_BACKSLASH_ESCAPES SQL mode
is enabled. In that case, no escape character is used."). SQLite's LIKE has no default escape, so the
translation writes MySQL's default out as ``ESCAPE '\\'``.

A pattern literal ending in a lone escape character matches that character itself in MySQL (``my_wildcmp``
reads a trailing escape as an ordinary character: ``'a\\' LIKE 'a\\'`` is 1), where SQLite's escape must be
followed by a character: such a literal gets the escape doubled.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["default_like_escape"]

_BACKSLASH = "\\"


def default_like_escape(tree: exp.Expression, backslash_escapes: bool) -> exp.Expression:
    """``tree`` (changed in place) with each LIKE that has no ESCAPE clause given MySQL's default one.

    Args:
        tree: a parsed statement about to be written for SQLite.
        backslash_escapes: False under sql_mode NO_BACKSLASH_ESCAPES (then a LIKE keeps no escape character).

    Returns:
        ``tree``.
    """
    if not backslash_escapes:
        return tree
    for like in list(tree.find_all(exp.Like)):
        if isinstance(like.parent, exp.Escape) and like.arg_key == "this":
            continue
        pattern = like.expression
        if isinstance(pattern, exp.Literal) and pattern.is_string:
            text = pattern.this
            trailing = len(text) - len(text.rstrip(_BACKSLASH))
            if trailing % 2:
                like.set("expression", exp.Literal.string(text + _BACKSLASH))
        like.replace(exp.Escape(this=like.copy(), expression=exp.Literal.string(_BACKSLASH)))
    return tree
