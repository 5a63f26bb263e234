"""REQUIRE_ROW_FORMAT = 1 on a replication channel: the applier accepts row-based transactions only.

MySQL (WL#12968, manual "CHANGE REPLICATION SOURCE TO Statement", REQUIRE_ROW_FORMAT; mysql-test
``rpl_channel_require_row_format``): with the option set, the channel's applier stops with an error on

- a DML statement logged in statement format (a Query event other than transaction control and DDL),
- a LOAD DATA event, or an INTVAR, RAND or USER_VAR event (the context of a statement-format statement),
- CREATE / DROP TEMPORARY TABLE,

and the check runs after the replication filters: a filtered-out statement does not stop the applier. The error
is 3944 ER_CLIENT_QUERY_FAILURE_INVALID_NON_ROW_FORMAT ("The query does not comply with variable
require_row_format restrictions."), the error of the session variable ``require_row_format`` the applier runs
with.
"""

from __future__ import annotations

from typing import Any

from sqlglot import expressions as exp

from gtidkit.binlog.constants import EventType
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.engine.api import StatementKind, classify
from gtidkit.mysql_errors import mysql_error

__all__ = ["RowFormatRequired", "check_row_format"]

#: Event types that only statement-format logging writes (the context of the next statement, LOAD DATA's file).
_STATEMENT_CONTEXT = frozenset(
    {
        EventType.INTVAR_EVENT,
        EventType.RAND_EVENT,
        EventType.USER_VAR_EVENT,
        EventType.APPEND_BLOCK_EVENT,
        EventType.DELETE_FILE_EVENT,
        EventType.BEGIN_LOAD_QUERY_EVENT,
        EventType.EXECUTE_LOAD_QUERY_EVENT,
    }
)
#: Statement kinds only statement-format logging writes in a Query event (row-based logging writes transaction
#: control, DDL, account and administrative statements as Query events too: those pass)
_STATEMENT_FORMAT_KINDS = frozenset({StatementKind.DML, StatementKind.SELECT, StatementKind.SET})


def _temporary_table(tree: Any) -> bool:
    """The parsed statement creates or drops a TEMPORARY table."""
    return tree is not None and (
        bool(tree.args.get("temporary")) or tree.find(exp.TemporaryProperty) is not None
    )


def check_row_format(trx: Any) -> None:
    """Raise 3944 when the relay-log transaction ``trx`` (its ``events``, each with ``header`` and ``event``)
    holds something only statement-format logging writes (see the module docstring); else nothing.

    Raises:
        MySQLError: 3944 ER_CLIENT_QUERY_FAILURE_INVALID_NON_ROW_FORMAT.
    """
    for item in trx.events:
        if item.header.type_code in _STATEMENT_CONTEXT:
            raise mysql_error(3944)
        ev = item.event
        if isinstance(ev, QueryEvent):
            stmt = classify(ev.query)
            if stmt.kind in _STATEMENT_FORMAT_KINDS or _temporary_table(stmt.tree):
                raise mysql_error(3944)


class RowFormatRequired:
    """A channel's replication filters with the REQUIRE_ROW_FORMAT check after them: what the applier calls
    ``filter_transaction`` on. Everything else (the rules, counters, CONFIGURED_BY) is the wrapped filter's.

    Args:
        inner: the channel's :class:`~gtidkit.replication.filters.ReplicationFilter`.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def filter_transaction(self, trx: Any) -> tuple[Any, bool]:
        """The wrapped filter's result, checked by :func:`check_row_format`.

        Raises:
            MySQLError: 3944 for a transaction that is not row-based.
        """
        kept, removed = self.inner.filter_transaction(trx)
        check_row_format(kept)
        return kept, removed

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
