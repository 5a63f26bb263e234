"""The diagnostic SHOW statements: SHOW WARNINGS / SHOW ERRORS [LIMIT [offset,] n], SHOW COUNT(*) WARNINGS / ERRORS.

They read the session's diagnostics area (:mod:`gtidkit.engine.diagnostics`) and never clear it. Columns as
``sql/sql_error.cc`` declares them (Level varchar(7), Code int unsigned, Message varchar(512), system charset);
SHOW COUNT(*) names its column ``@@session.warning_count`` (mysql-test ``r/warnings.result``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gtidkit.engine.results import StatementResult

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = ["show_conditions", "show_count"]


def show_conditions(session: Session, stmt: Statement, *, errors_only: bool) -> StatementResult:
    """SHOW WARNINGS / SHOW ERRORS [LIMIT [offset,] n]: Level, Code, Message (``sql/sql_error.cc``)."""
    from gtidkit.engine.results import CHARSET_BINARY, CHARSET_UTF8MB3, Column, ColumnFlag, FieldType
    from gtidkit.engine.sql.metadata import result_set

    info = stmt.info
    shown = session.diagnostics.show(
        errors_only=errors_only, offset=info.get("off", 0), limit=info.get("cnt")
    )
    rows = [c.as_tuple() for c in shown]
    text, nn = FieldType.MYSQL_TYPE_VAR_STRING, int(ColumnFlag.NOT_NULL)
    cols = (
        Column("Level", type=text, charset=CHARSET_UTF8MB3, length=21, flags=nn),
        Column("Code", type=FieldType.MYSQL_TYPE_LONG, charset=CHARSET_BINARY, length=4,
               flags=int(ColumnFlag.NOT_NULL | ColumnFlag.UNSIGNED | ColumnFlag.NUM), decimals=0),
        Column("Message", type=text, charset=CHARSET_UTF8MB3, length=1536, flags=nn),
    )  # fmt: skip
    return result_set(["Level", "Code", "Message"], rows, cols)


def show_count(session: Session, name: str) -> StatementResult:
    """SHOW COUNT(*) WARNINGS / ERRORS: one row, column ``@@session.warning_count`` / ``@@session.error_count``."""
    from gtidkit.engine.sql.metadata import result_set, sysvar_column

    value = session.diagnostics.error_count if name == "error_count" else session.diagnostics.warning_count
    col = f"@@session.{name}"
    return result_set([col], [(value,)], (sysvar_column(col, value, "uint"),))
