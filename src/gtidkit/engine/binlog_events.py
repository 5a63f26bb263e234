"""The events of one transaction as MySQL logs it (after its Gtid/Anonymous_gtid event).

Source: MySQL ``sql/binlog.cc`` / ``sql/log_event.cc`` (``binlog_cache_data``: ``Query(BEGIN)`` opens a DML
transaction, ``Xid`` ends it; a DDL is a single ``Query`` with the default database; an empty transaction with an
explicit GTID is ``Query(BEGIN)`` + ``Query(COMMIT)``), RM8 "Binary Logging Formats", formats.md §1.7 and §8.2.

* ROW: ``Query(BEGIN)``, then per statement a ``Table_map`` for each table and its
  ``Write/Update/Delete_rows_v2`` events (built by the SQL layer's :mod:`gtidkit.engine.rowimage`), ``Xid``.
* STATEMENT: ``Query(BEGIN)``, per DML statement its ``Intvar`` events then its ``Query`` (with its default
  database), ``Xid``. As ``MYSQL_BIN_LOG::write_event``: ``LAST_INSERT_ID`` (1) first when the statement calls
  ``LAST_INSERT_ID()`` (value = what it returned, the previous statement's first generated id), then
  ``INSERT_ID`` (2) = the first AUTO_INCREMENT value the statement generated; a replica or recovery sets them
  before running the statement so it produces the same ids.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from gtidkit.binlog.events.control import XidEvent
from gtidkit.binlog.constants import IntvarType
from gtidkit.binlog.events.statement import IntvarEvent, QueryEvent
from gtidkit.engine.trx_tracking import NO_WRITESET, Writeset, extract_writeset

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
        for db, text, intvars in session.statements:
            events.extend(intvars)
            events.append(query_event(session, db, text.strip().rstrip(";")))
    else:
        events.extend(row_events(server, session.row_statements))
    events.append(XidEvent(xid=server.next_xid()))
    return events


_LAST_INSERT_ID_CALL = re.compile(r"\bLAST_INSERT_ID\s*\(\s*\)", re.IGNORECASE)


def statement_intvars(text: str, last_insert_id_before: int, insert_id: int) -> tuple[IntvarEvent, ...]:
    """The Intvar events logged before a STATEMENT-format DML (``MYSQL_BIN_LOG::write_event``).

    Args:
        text: the statement text (a ``LAST_INSERT_ID()`` call in it makes the LAST_INSERT_ID event; the
            one-argument form ``LAST_INSERT_ID(expr)`` sets the value instead and needs none).
        last_insert_id_before: ``LAST_INSERT_ID()`` when the statement started
            (``first_successful_insert_id_in_prev_stmt``).
        insert_id: first AUTO_INCREMENT value the statement generated, 0 when none.

    Returns:
        ``(LAST_INSERT_ID event?, INSERT_ID event?)`` in that order, empty when neither applies.
    """
    out: list[IntvarEvent] = []
    if _LAST_INSERT_ID_CALL.search(text):
        out.append(IntvarEvent(type=int(IntvarType.LAST_INSERT_ID_EVENT), value=last_insert_id_before))
    if insert_id:
        out.append(IntvarEvent(type=int(IntvarType.INSERT_ID_EVENT), value=insert_id))
    return tuple(out)


def session_binlog_format(server: Server, session: Session) -> str:
    """``@@SESSION.binlog_format`` (ROW, STATEMENT or MIXED; MIXED is logged as STATEMENT here)."""
    return str(session.session_vars.get("binlog_format", server.globals.get("binlog_format")))


def transaction_writeset(server: Server, session: Session, ddl_text: str | None) -> Writeset:
    """The write set of the transaction being committed, for WRITESET dependency tracking.

    DDL and STATEMENT-format transactions have none (:data:`NO_WRITESET`: they depend on the previous transaction
    and reset the history, as in ``Writeset_trx_dependency_tracker::get_dependency``); an empty transaction
    (explicit GTID, ``BEGIN; COMMIT``) is marked so it may run in parallel; ROW-format DML hashes the unique keys
    of every before/after image (:func:`gtidkit.engine.trx_tracking.extract_writeset`).
    """
    if ddl_text is not None:
        return NO_WRITESET
    if not session.row_changes and not session.trx_dirty:
        return Writeset(empty_transaction=True)
    if session_binlog_format(server, session) != "ROW":
        return NO_WRITESET
    return extract_writeset(session.row_changes, server.storage.catalog)


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
