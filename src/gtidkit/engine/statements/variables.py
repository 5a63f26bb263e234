"""System variables as tables: performance_schema.global_variables / session_variables and SHOW VARIABLES.

Sources: RM8 29.12.14 "Performance Schema System Variable Tables" (``global_variables``: global values;
``session_variables``: the values in effect for the current session, a global-only variable showing its global
value; columns VARIABLE_NAME, VARIABLE_VALUE) and RM8 15.7.7.41 "SHOW VARIABLES" (``SHOW [GLOBAL | SESSION]
VARIABLES [LIKE 'pattern' | WHERE expr]``; since MySQL 8.0 it reads those Performance Schema tables, so both
agree and WHERE may use the columns ``Variable_name`` and ``Value``; rows come sorted by name).

``SHOW VARIABLES LIKE 'pattern'`` with a plain pattern (name characters and wildcards) reads only the values of
the names it matches, which are found once per pattern (:func:`names_like`); any other filter runs as a query over
the Performance Schema table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from gtidkit.engine import sysvars

if TYPE_CHECKING:
    from gtidkit.engine.results import StatementResult
    from gtidkit.engine.session import Session

SHOW_COLUMNS = ["Variable_name", "Value"]


#: every variable name, sorted (the order SHOW VARIABLES lists them in)
_NAMES = tuple(sorted(sysvars.SYSVARS))
#: a LIKE pattern whose characters are plain name characters and wildcards (no escape, no quote inside)
_PLAIN_LIKE = re.compile(r"'([A-Za-z0-9_$%]*)'")
#: LIKE pattern literal -> the names it matches, in order (the names are fixed: matched once per pattern)
_LIKE_NAMES: dict[str, tuple[str, ...]] = {}


def names_like(like: str) -> tuple[str, ...] | None:
    """The variable names ``LIKE like`` matches, sorted, or None when the pattern literal is not a plain one.

    Args:
        like: the pattern's string literal as written (quotes included), e.g. ``'gtid%'``. Plain patterns hold
            only name characters and the wildcards ``%`` / ``_`` (MySQL's LIKE over the ASCII names,
            case-insensitive as the column's collation is); others (escapes, quotes) return None and are left to
            the SQL layer's LIKE.
    """
    names = _LIKE_NAMES.get(like)
    if names is None:
        rx = plain_like(like)
        if rx is None:
            return None
        names = tuple(n for n in _NAMES if rx.fullmatch(n))
        if len(_LIKE_NAMES) >= 1024:
            _LIKE_NAMES.clear()
        _LIKE_NAMES[like] = names
    return names


def plain_like(like: str) -> re.Pattern[str] | None:
    """The regex (to ``fullmatch``) of a plain LIKE pattern literal over ASCII names (``'gtid%'``: name characters
    and the wildcards ``%`` / ``_``, case-insensitive as the name columns' collation), or None for any other
    literal (escapes, quotes: left to the SQL layer's LIKE)."""
    m = _PLAIN_LIKE.fullmatch(like)
    if m is None:
        return None
    return re.compile(
        "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in m.group(1)),
        re.IGNORECASE | re.DOTALL,
    )


def variable_rows(
    session: Session, scope: str | None, names: tuple[str, ...] | None = None
) -> list[tuple[str, str]]:
    """(name, value text) of every variable, sorted by name, as SHOW VARIABLES prints them.

    Args:
        session: whose session values to show.
        scope: ``"GLOBAL"`` for global values (variables with a global value only), else the session's view.
        names: only these (sorted) names, else all.
    """
    rows = []
    absent = session.server.globals.absent
    for name in _NAMES if names is None else names:
        var = sysvars.SYSVARS[name]
        if name in absent or scope == "GLOBAL" and var.scope == sysvars.SESSION:
            continue
        rows.append((name, session.sysvar_show_value(name, scope)))
    return rows


def providers(session: Session) -> dict[tuple[str, str], Callable[[], list[tuple]]]:
    """Row providers for the SQL layer's per-query tables (``Executor.virtual_tables``)."""
    return {
        ("performance_schema", "global_variables"): lambda: variable_rows(session, "GLOBAL"),
        ("performance_schema", "session_variables"): lambda: variable_rows(session, None),
    }


def show_variables(
    session: Session, scope: str | None, like: str | None, where: str | None
) -> StatementResult:
    """SHOW [GLOBAL|SESSION] VARIABLES [LIKE 'pattern' | WHERE expr] over the Performance Schema table.

    ``like`` is the pattern's string literal as written (quotes included), ``where`` the expression text.

    Raises:
        MySQLError: what the WHERE expression raises (1054 for an unknown column ...).
    """
    from gtidkit.engine.sql.metadata import result_set

    is_global = (scope or "").upper() == "GLOBAL"
    if like is not None:
        names = names_like(like)
        if names is not None:  # the names matched once per pattern: only their values are computed
            return result_set(
                list(SHOW_COLUMNS), variable_rows(session, "GLOBAL" if is_global else None, names)
            )
    table = "global_variables" if is_global else "session_variables"
    cond = ""
    if like is not None:
        cond = f" WHERE Variable_name LIKE {like}"
    elif where is not None:
        cond = f" WHERE {where.strip().rstrip(';')}"
    sql = (
        "SELECT Variable_name, Value FROM (SELECT VARIABLE_NAME AS Variable_name, VARIABLE_VALUE AS Value "
        f"FROM performance_schema.{table}) AS v{cond} ORDER BY Variable_name"
    )
    er = session.executor.execute_select(sql, session.current_db)
    return result_set(list(SHOW_COLUMNS), [tuple(r) for r in er.rows])
