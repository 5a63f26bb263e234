"""Guards on explicit changes to the server's own tables: warning 3129 for writes to mysql.gtid_executed.

``SELECT ... FOR UPDATE`` on the table warns too: it opens it with a write lock (mysql-test
``rpl_gtid/r/rpl_explicit_modify_gtid_table.result``: "Verify that explicit select from mysql.gtid_executed with
'FOR UPDATE' is causing a warning"; a plain SELECT or ``FOR SHARE`` does not).

Source: MySQL ``sql/rpl_gtid_persist.h`` (``Gtid_table_persistor::warn_or_err_on_explicit_modification``: when a
statement that is not the server's own GTID bookkeeping opens ``mysql.gtid_executed`` with a write lock, a non-XA
transaction gets warning ER_WARN_ON_MODIFYING_GTID_EXECUTED_TABLE 3129 naming the table, once per statement; the
statement still runs). ``@@GLOBAL.gtid_executed`` does not follow such a change: that is what the warning is about.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gtidkit.mysql_errors import message

if TYPE_CHECKING:
    from gtidkit.engine.session import Session

GTID_TABLE = ("mysql", "gtid_executed")

#: Tables whose row changes never reach the binary log (``TABLE::no_replicate``, set in ``open_table_from_share``
#: of ``sql/table.cc`` for TABLE_CATEGORY_GTID, _RPL_INFO and _LOG): a statement changing only these is not
#: binlogged and, with GTID_MODE=ON, gets no GTID of its own (what a DBA restoring mysql.gtid_executed by hand
#: relies on).
NO_REPLICATE_TABLES = frozenset(
    {
        GTID_TABLE,
        ("mysql", "slave_master_info"),
        ("mysql", "slave_relay_log_info"),
        ("mysql", "slave_worker_info"),
        ("mysql", "general_log"),
        ("mysql", "slow_log"),
    }
)


def replicated_changes(changes: list[Any]) -> list[Any]:
    """``changes`` (RowChanges with ``schema`` / ``table``) without those on :data:`NO_REPLICATE_TABLES`."""
    return [ch for ch in changes if (ch.schema.lower(), ch.table.lower()) not in NO_REPLICATE_TABLES]


def gtid_table_warnings(session: Session, text: str) -> list[tuple[str, int, str]]:
    """Warning 3129 when the DML statement ``text`` writes mysql.gtid_executed, else nothing.

    Cheap for every other statement: the tree is only looked at when the text names the table.
    """
    if "gtid_executed" not in text.lower():
        return []
    from gtidkit.engine.sql.parse import parse_tree
    from gtidkit.engine.statements.locks import statement_tables

    try:
        tree = parse_tree(text)
    except Exception:  # noqa: BLE001 - the SQL layer reports the statement's own error
        return []
    _, writes = statement_tables(session, tree)
    if any((schema, name) == GTID_TABLE for schema, name, _ in writes):
        return [("Warning", 3129, message(3129, GTID_TABLE[1]))]
    return []


def select_for_update_warnings(session: Session, text: str) -> list[tuple[str, int, str]]:
    """Warning 3129 when the SELECT ``text`` reads mysql.gtid_executed ``FOR UPDATE``, else nothing.

    Cheap for every other SELECT: the tree is only looked at when the text names the table and says UPDATE.
    """
    low = text.lower()
    if "gtid_executed" not in low or "update" not in low:
        return []
    from gtidkit.engine.sql.parse import parse_tree
    from gtidkit.engine.statements.locks import statement_tables

    try:
        tree = parse_tree(text)
    except Exception:  # noqa: BLE001 - the SQL layer reports the statement's own error
        return []
    if not any(lock.args.get("update") for lock in tree.args.get("locks") or ()):
        return []
    refs, _ = statement_tables(session, tree)
    if any((schema.lower(), name.lower()) == GTID_TABLE for schema, name, _ in refs):
        return [("Warning", 3129, message(3129, GTID_TABLE[1]))]
    return []
