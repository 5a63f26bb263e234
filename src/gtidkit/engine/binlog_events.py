"""The events of one transaction as MySQL logs it (after its Gtid/Anonymous_gtid event).

Source: MySQL ``sql/binlog.cc`` / ``sql/log_event.cc`` (``binlog_cache_data``: ``Query(BEGIN)`` opens a DML
transaction, ``Xid`` ends it; a DDL is a single ``Query`` with the default database; an empty transaction with an
explicit GTID is ``Query(BEGIN)`` + ``Query(COMMIT)``), RM8 "Binary Logging Formats", formats.md §1.7 and §8.2.

* ROW: ``Query(BEGIN)``, then per statement a ``Table_map`` for each table and its
  ``Write/Update/Delete_rows_v2`` events (built by the SQL layer's :mod:`gtidkit.engine.rowimage`), ``Xid``.
* STATEMENT: ``Query(BEGIN)``, one ``Query`` per DML statement (with its default database), ``Xid``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gtidkit.binlog.events.control import XidEvent
from gtidkit.binlog.events.statement import QueryEvent

if TYPE_CHECKING:
    from gtidkit.engine.server import Server
    from gtidkit.engine.session import Session


def query_event(session: Session, database: str, text: str) -> QueryEvent:
    """A Query event as the session's statement (thread id = session id, exec_time 0, no error)."""
    return QueryEvent(
        thread_id=session.id, exec_time=0, error_code=0, status_vars=b"", database=database or "", query=text
    )


def transaction_events(server: Server, session: Session, ddl_text: str | None) -> list[Any]:
    """The body events of the session's transaction being committed (the Gtid event is added by the writer)."""
    if ddl_text is not None:
        return [query_event(session, session.current_db or "", ddl_text.strip().rstrip(";"))]
    if not session.row_changes and not session.trx_dirty:
        return [query_event(session, "", "BEGIN"), query_event(session, "", "COMMIT")]
    events: list[Any] = [query_event(session, "", "BEGIN")]
    fmt = str(session.session_vars.get("binlog_format", server.globals.get("binlog_format")))
    if fmt == "STATEMENT":
        for db, text in session.statements:
            events.append(query_event(session, db, text.strip().rstrip(";")))
    else:
        events.extend(row_events(server, session.row_statements))
    events.append(XidEvent(xid=server.next_xid()))
    return events


def row_events(server: Server, statements: list[list[Any]]) -> list[Any]:
    """Table_map + rows events per statement (``statements`` = the RowChange list of each DML statement).

    As MySQL's ``THD::binlog_write_table_map`` / ``binlog_prepare_pending_rows_event``: each statement first
    maps every table it touches, then its rows events follow; the statement's last rows event has STMT_END_F.
    """
    from gtidkit.engine import rowimage

    catalog = server.storage.catalog
    events: list[Any] = []
    for changes in statements:
        if not changes:
            continue
        table_ids: dict[tuple[str, str], int] = {}
        for ch in changes:
            key = (ch.schema, ch.table)
            if key not in table_ids:
                table_ids[key] = server.table_id(*key)
                table_def = catalog.get_table(*key)
                events.append(rowimage.table_map_event(table_def, table_ids[key]))
        events.extend(rowimage.rows_events(changes, table_ids, catalog=catalog))
    return events
