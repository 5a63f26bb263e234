"""SELECT SQL_CALC_FOUND_ROWS: the row count FOUND_ROWS() reports, as if the SELECT had no LIMIT.

MySQL (RM8 "Information Functions", FOUND_ROWS): "A SELECT statement may include a LIMIT clause to restrict the
number of rows the server returns to the client. [...] To obtain this row count, include an SQL_CALC_FOUND_ROWS
option in the SELECT statement, and then invoke FOUND_ROWS() afterward". Without the option FOUND_ROWS() is the
number of rows the previous SELECT returned (``THD::current_found_rows``; set by the session after each SELECT).
Both are deprecated in MySQL 8.0.17 but still sent by tools and older ORMs.

SQLite has no such modifier and sqlglot reads ``SQL_CALC_FOUND_ROWS * FROM t`` as a product, so the modifier is
taken off the text here, and the total is counted by running the same SELECT without its top-level LIMIT.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot import exp

from gtidkit.engine.sql.parse import parse_tree

if TYPE_CHECKING:
    from gtidkit.engine.session import Session

__all__ = ["count_without_limit", "strip_calc_found_rows"]

#: SELECT, then select options in any order (sql_yacc.yy ``select_option``), one of them SQL_CALC_FOUND_ROWS
_CALC = re.compile(
    r"^(\s*\(*\s*SELECT\s+(?:(?:ALL|DISTINCT|DISTINCTROW|HIGH_PRIORITY|STRAIGHT_JOIN|SQL_SMALL_RESULT|"
    r"SQL_BIG_RESULT|SQL_BUFFER_RESULT|SQL_NO_CACHE)\s+)*)SQL_CALC_FOUND_ROWS\b",
    re.IGNORECASE,
)


def strip_calc_found_rows(text: str) -> str | None:
    """``text`` without its SQL_CALC_FOUND_ROWS select option, or None when the SELECT has none.

    Args:
        text: one SELECT statement (comments stripped).
    """
    if "CALC_FOUND_ROWS" not in text.upper():  # the common case: no regex pass over the select options
        return None
    m = _CALC.match(text)
    if m is None:
        return None
    return text[: m.start(0)] + m.group(1) + text[m.end(0) :].lstrip()


def count_without_limit(session: Session, text: str) -> int:
    """The number of rows the SELECT ``text`` returns without its outermost LIMIT / OFFSET.

    Args:
        session: the session that ran ``text`` (same default schema, same temporary tables).
        text: the SELECT without SQL_CALC_FOUND_ROWS.

    Raises:
        MySQLError: what running the query fails with (it just ran with the LIMIT, so in practice nothing).
    """
    from gtidkit.engine.statements.classify import classify

    tree = parse_tree(text)
    if isinstance(tree, (exp.Select, exp.SetOperation)):
        tree.set("limit", None)
        tree.set("offset", None)
    stmt = classify(tree.sql(dialect="mysql"))
    return len(session.executor.execute(stmt, session.current_db).rows or [])
