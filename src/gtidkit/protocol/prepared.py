"""Server-side prepared statements (COM_STMT_*): placeholders, long data, binding values as SQL literals.

Sources: MySQL ``sql/sql_prepare.cc`` (``Prepared_statement``: statement ids count from 1 per connection,
``?`` placeholders outside quotes and comments, COM_STMT_SEND_LONG_DATA appends to a parameter and is never
answered, COM_STMT_RESET clears long data, an unknown id gives 1243 ER_UNKNOWN_STMT_HANDLER), DEVDOC
``page_protocol_com_stmt_execute``.

The engine has no parameter-binding API yet, so execution binds by writing each value as a MySQL literal
(numbers as digits, strings quoted with MySQL's backslash escapes, NULL, dates quoted) into the statement text
at its placeholder positions; the engine then parses the result like any statement. Quoting is exact, so a
bound value can never become SQL.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from gtidkit.mysql_errors import mysql_error

_ESCAPES = {"\\": "\\\\", "'": "\\'", "\0": "\\0", "\x1a": "\\Z"}


def placeholder_positions(sql: str) -> list[int]:
    """Offsets of the ``?`` placeholders of ``sql`` (not inside quotes, backticks or comments)."""
    out: list[int] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`":
            i += 1
            while i < n and sql[i] != c:
                if sql[i] == "\\" and c != "`":
                    i += 1
                i += 1
        elif c == "#" or (c == "-" and sql.startswith("-- ", i)):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif c == "/" and sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 1
        elif c == "?":
            out.append(i)
        i += 1
    return out


def literal(value: Any, *, text: bool = True) -> str:
    """``value`` as a MySQL literal. ``bytes`` from the client are character data (decoded as UTF-8) when
    ``text`` is true, else a hexadecimal literal.

    Raises:
        MySQLError: 1210 for a value that has no literal form.
    """
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray)):
        if not text:
            return "X'" + bytes(value).hex() + "'" if value else "''"
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return "X'" + bytes(value).hex() + "'"
    if isinstance(value, dt.datetime):
        fmt = "%Y-%m-%d %H:%M:%S.%f" if value.microsecond else "%Y-%m-%d %H:%M:%S"
        return "'" + value.strftime(fmt) + "'"
    if isinstance(value, dt.date):
        return "'" + value.isoformat() + "'"
    if isinstance(value, dt.timedelta):
        secs = int(abs(value).total_seconds())
        sign = "-" if value < dt.timedelta(0) else ""
        return f"'{sign}{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}'"
    if isinstance(value, str):
        return "'" + "".join(_ESCAPES.get(ch, ch) for ch in value) + "'"
    raise mysql_error(1210, "mysqld_stmt_execute")


@dataclass
class PreparedStatement:
    """One prepared statement of a connection.

    Attributes:
        statement_id: the id COM_STMT_PREPARE_OK returned.
        sql: the statement text.
        positions: placeholder offsets in ``sql``.
        long_data: parameter index -> bytes sent with COM_STMT_SEND_LONG_DATA since the last execute/reset.
        types: the parameter types last bound ((type, unsigned) pairs), reused when a client does not resend them.
    """

    statement_id: int
    sql: str
    positions: list[int]
    long_data: dict[int, bytearray] = field(default_factory=dict)
    types: tuple[tuple[int, bool], ...] | None = None

    @property
    def param_count(self) -> int:
        """Number of ``?`` placeholders."""
        return len(self.positions)

    def bind(self, values: list[Any]) -> str:
        """The statement text with ``values`` (one per placeholder) written in as literals.

        Raises:
            MySQLError: 1210 when the number of values is wrong.
        """
        if len(values) != len(self.positions):
            raise mysql_error(1210, "mysqld_stmt_execute")
        out = []
        last = 0
        for pos, value in zip(self.positions, values):
            out.append(self.sql[last:pos])
            out.append(literal(value))
            last = pos + 1
        out.append(self.sql[last:])
        return "".join(out)
