"""Server-side prepared statements of one connection (COM_STMT_*): statement ids, long data, parameter types.

Sources: MySQL ``sql/sql_prepare.cc`` (``Prepared_statement``: statement ids count from 1 per connection,
COM_STMT_SEND_LONG_DATA appends to a parameter and is never answered, COM_STMT_RESET clears long data, an unknown id
gives 1243 ER_UNKNOWN_STMT_HANDLER), DEVDOC ``page_protocol_com_stmt_execute``.

Preparing, binding and executing are the engine's (``session.prepare`` / ``session.execute_prepared``,
:mod:`gtidkit.engine.statements.prepared`): values are bound as typed parameters, never written into the text.
This module keeps what the wire adds: the id, the long data and the types a client does not resend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gtidkit.engine.api import bound_text, literal, placeholder_positions
from gtidkit.mysql_errors import mysql_error


@dataclass
class PreparedStatement:
    """One prepared statement of a connection.

    Attributes:
        statement_id: the id COM_STMT_PREPARE_OK returned.
        sql: the statement text.
        positions: placeholder offsets in ``sql``.
        long_data: parameter index -> bytes sent with COM_STMT_SEND_LONG_DATA since the last execute/reset.
        types: the parameter types last bound ((type, unsigned) pairs), reused when a client does not resend them.
        engine: the engine's prepared statement (``session.prepare``), None until prepared.
        result_meta: what the connection last built to send this statement's result set (its columns, their
            encoded definitions, types, unsigned flags): each execution returns the same columns, so it is
            rarely rebuilt.
        plain: for a statement without placeholders that is neither a SELECT nor a DML (BEGIN, COMMIT ...), whether
            it is one statement, so that executing it is ``session.execute`` of its text (which checks its
            privileges and lets the server answer its own statements) (see ``ClientHandler._fast_execute``); None until first executed.
    """

    statement_id: int
    sql: str
    positions: list[int]
    long_data: dict[int, bytearray] = field(default_factory=dict)
    types: tuple[tuple[int, bool], ...] | None = None
    engine: Any = None
    result_meta: Any = None
    plain: bool | None = None

    @property
    def param_count(self) -> int:
        """Number of ``?`` placeholders."""
        return len(self.positions)

    def bind(self, values: list[Any]) -> str:
        """The statement text with ``values`` (one per placeholder) written in as literals (the binlog's form).

        Raises:
            MySQLError: 1210 when the number of values is wrong.
        """
        if len(values) != len(self.positions):
            raise mysql_error(1210, "mysqld_stmt_execute")
        return bound_text(self.sql, self.positions, values)


__all__ = ["PreparedStatement", "literal", "placeholder_positions"]
