"""User-defined variables: ``SET @a = ...``, ``SELECT ... INTO @a``, ``@a := expr`` inside expressions.

Sources: RM8 "User-Defined Variables" (a user variable keeps the type of the value assigned: integer, DECIMAL,
double, string or NULL; names are case-insensitive; an unassigned variable reads as NULL; "Setting user variables
within expressions is deprecated" — still executed by 8.4 with warning 1287), RM8 "SELECT ... INTO Statement"
(one row at most: ER_TOO_MANY_ROWS 1172; no row: warning ER_SP_FETCH_NO_DATA 1329 and the variables keep their
values; the variable count must match the column count: ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT 1222), MySQL
``sql/item_func.cc`` (``Item_func_set_user_var``).

The SQL layer reads ``@name`` from :attr:`gtidkit.engine.sql.executor.Executor.user_variables`, which is the
session's own dict (one store, so ``SET @a`` is what ``SELECT @a`` reads, in WHERE and INSERT VALUES too).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.statements.set_parser import Assignment, Expression, Keyword, SysVarRef, UserVarRef
from gtidkit.mysql_errors import message, mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session

#: ER_WARN_DEPRECATED_SYNTAX 1287 for ``@a := expr`` outside SET (MySQL 8.0.13+ wording).
EXPRESSION_ASSIGNMENT_DEPRECATED = (
    "Warning",
    1287,
    (
        "Setting user variables within expressions is deprecated and will be removed in a future release. "
        "Consider alternatives: 'SET variable=expression, ...', or 'SELECT expression(s) INTO variables(s)'."
    ),
)
#: ER_SP_FETCH_NO_DATA 1329: SELECT ... INTO found no row.
NO_DATA = ("Warning", 1329, message(1329))


def literal_value(text: str, parsed: Any) -> Any:
    """The MySQL-typed value of a numeric literal ``text`` already parsed as ``parsed`` (int or float).

    ``1.50`` is DECIMAL (kept as ``Decimal('1.50')``, scale preserved); ``1e1`` is DOUBLE (float); integers stay int.
    """
    if isinstance(parsed, float):
        t = text.strip()
        if "e" in t.lower():
            return parsed
        try:
            return Decimal(t)
        except InvalidOperation:
            return parsed
    return parsed


def value_of(session: Session, assignment: Assignment) -> Any:
    """Evaluate the right-hand side of ``SET @name = value`` for ``session`` as MySQL types it.

    Args:
        session: the session (its variables and SQL layer evaluate references and expressions).
        assignment: a ``kind == "user"`` assignment from :func:`gtidkit.engine.statements.set_parser.parse_set`.

    Returns:
        int, Decimal, float, str, bytes or None.

    Raises:
        MySQLError: whatever evaluating the expression raises (1054 for a bare unknown word, 1193 for an unknown
            ``@@variable``...).
    """
    value = assignment.value
    if isinstance(value, SysVarRef):
        return session.resolve_sysvar(value.name, value.scope)
    if isinstance(value, UserVarRef):
        return session.user_vars.get(value.name)
    if isinstance(value, Keyword):
        # SET @a = ON: MySQL reads a bare word as a column reference, and there is no table
        raise mysql_error(1054, value.word, "field list")
    if isinstance(value, Expression):
        er = session.executor.execute_select(f"SELECT {value.text}", session.current_db)
        return er.rows[0][0] if er.rows else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return literal_value(assignment.text, value)
    return value


_QUOTED = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"|`[^`]*`", re.DOTALL)
_ASSIGN_IN_EXPR = re.compile(r"@[A-Za-z0-9_$.]+\s*:=|@`[^`]*`\s*:=|@'[^']*'\s*:=")
_INTO_VARS = re.compile(
    r"\binto\s+(?P<vars>@[A-Za-z0-9_$.`']+(?:\s*,\s*@[A-Za-z0-9_$.`']+)*)(?=\s*(?:\bfrom\b|\bfor\b|\block\b|$))",
    re.IGNORECASE | re.DOTALL,
)


def _blank_quotes(text: str) -> str:
    """``text`` with every quoted string and identifier replaced by same-length filler (positions kept)."""
    return _QUOTED.sub(lambda m: m.group(0)[0] + "x" * (len(m.group(0)) - 2) + m.group(0)[-1], text)


def expression_assignment_warnings(text: str) -> list[tuple[str, int, str]]:
    """Warning 1287 when a SELECT/DML statement assigns ``@var := expr`` inside an expression, else nothing."""
    if ":=" not in text:  # the common case, without a regex pass
        return []
    return [EXPRESSION_ASSIGNMENT_DEPRECATED] if _ASSIGN_IN_EXPR.search(_blank_quotes(text)) else []


def split_select_into(text: str) -> tuple[str, list[str]] | None:
    """Split ``SELECT ... INTO @a, @b [FROM ...]`` into the SELECT without INTO and the variable names.

    Returns None when the statement has no ``INTO @var`` list (INTO OUTFILE/DUMPFILE are left to the caller).
    """
    if "@" not in text:  # no user variable at all: not this form (the common case, without a regex pass)
        return None
    blank = _blank_quotes(text.rstrip().rstrip(";"))
    m = None
    for m in _INTO_VARS.finditer(blank):  # the last top-level INTO @... (a subquery cannot hold one)
        pass
    if m is None:
        return None
    names = [n.strip()[1:].strip("`'").lower() for n in text[m.start("vars") : m.end("vars")].split(",")]
    rest = text[: m.start()] + " " + text.rstrip().rstrip(";")[m.end() :]
    return rest.strip(), names


def select_into(session: Session, text: str) -> StatementResult | None:
    """Run ``SELECT ... INTO @vars`` for ``session``; None when ``text`` is not that form.

    Raises:
        MySQLError: 1172 more than one row; 1222 column count differs from the variable count.
    """
    split = split_select_into(text)
    if split is None:
        return None
    select, names = split
    res = session.executor.execute_select(select, session.current_db)
    if len(res.columns) != len(names):
        raise mysql_error(1222)
    if len(res.rows) > 1:
        raise mysql_error(1172)
    warnings = list(res.warnings)
    if not res.rows:
        warnings.append(NO_DATA)
    else:
        for name, v in zip(names, res.rows[0]):
            session.user_vars[name] = v
    return StatementResult(warnings=tuple(Condition(*w) for w in warnings))
