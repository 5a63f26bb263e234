"""Who may run a statement: the authorizer a session asks, and the tables a statement names.

The engine does not know accounts' passwords or connections; the wire server authenticates a client and sets an
:class:`Authorizer` on its session (``Session.authorizer``, MySQL's ``Security_context`` checked by
``check_access`` / ``check_table_access`` in ``sql/sql_parse.cc`` before a statement opens its tables). The session
asks it once per statement, on the statement it has classified already (never the text again), before the
statement's lifecycle starts; a prepared SELECT / DML is asked once per (privileges in force, default schema) and
remembered with the prepared statement.

The tables a SELECT / DML / DDL names come from :func:`tables_of` over its sqlglot tree (the SQL layer's
:mod:`gtidkit.engine.sql.table_refs`, re-exported here) and are kept in the
executor's plan cache under the statement's plan key (its literal-free template, see
:meth:`gtidkit.engine.sql.executor.Executor.named_tables`): a statement whose shape ran before is not parsed again
for its privilege check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from gtidkit.engine.sql.table_refs import tables_of

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = ["Authorizer", "tables_of"]


class Authorizer(Protocol):
    """The privilege check of one authenticated connection (set on its session at login)."""

    def check(self, session: Session, stmt: Statement) -> None:
        """Return quietly when the session's account may run ``stmt`` (classified); raise MySQL's error if not.

        Raises:
            MySQLError: 1142 / 1044 / 1227 / 1046 / 1820 ... (the access error MySQL raises for it).
        """

    def state(self) -> object:
        """What the answers of :meth:`check` depend on besides the statement and the default schema (the account's
        privileges as stored now, the expired-password sandbox): equal states give equal answers, so a caller may
        remember that a statement passed under one."""
