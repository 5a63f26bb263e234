"""FLUSH [NO_WRITE_TO_BINLOG | LOCAL] flush_option [, flush_option] ...: what it does here, and whether it is logged.

RM8 "FLUSH Statement": "By default, the server writes FLUSH statements to the binary log so that they replicate to
replicas. To suppress logging, specify the optional NO_WRITE_TO_BINLOG keyword or its alias LOCAL", except
``FLUSH LOGS``, ``FLUSH BINARY LOGS``, ``FLUSH TABLES WITH READ LOCK`` and ``FLUSH TABLES ... FOR EXPORT``, which
are never logged (``handle_reload_request`` clears ``write_to_binlog``). A logged FLUSH is written by
``write_bin_log`` after it ran, as a Query event with its text, under a GTID of its own: mysql-test
``rpl_gtid/r/rpl_gtid_while_super_read_only.result`` §6 counts one GTID each for FLUSH TABLES, TABLES t1, ENGINE
LOGS, ERROR LOGS, GENERAL LOGS, HOSTS, PRIVILEGES, OPTIMIZER_COSTS, RELAY LOGS, SLOW LOGS, STATUS and
USER_RESOURCES, none for FLUSH LOGS / BINARY LOGS, and none for any of them with NO_WRITE_TO_BINLOG / LOCAL. Like
every FLUSH it commits the open transaction first (RM8 "Statements That Cause an Implicit Commit").

What each option does to this engine: LOGS and BINARY LOGS rotate the binary log (``FLUSH LOGS`` itself keeps its
own path in :mod:`gtidkit.engine.statements.admin`); PRIVILEGES reloads the account cache from the grant tables; STATUS
resets every session's statement counters (``Server.flush_status``); the others have nothing to flush in SQLite or are served
elsewhere (the error log is a plain append-only file), so only their logging is observable.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gtidkit.engine.results import StatementResult

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = ["FLUSH_OPTIONS", "logged_text", "run_flush"]

#: the flush options the grammar knows (``opt_flush_option`` in ``sql_yacc.yy``); TABLES takes a table list
FLUSH_OPTIONS = (
    "BINARY LOGS",
    "ENGINE LOGS",
    "ERROR LOGS",
    "GENERAL LOGS",
    "RELAY LOGS",
    "SLOW LOGS",
    "LOGS",
    "HOSTS",
    "PRIVILEGES",
    "OPTIMIZER_COSTS",
    "STATUS",
    "USER_RESOURCES",
)
#: options whose FLUSH is never written to the binary log
_NOT_LOGGED = frozenset({"LOGS", "BINARY LOGS"})
_ROTATES = frozenset({"LOGS", "BINARY LOGS"})
_FOR_EXPORT = re.compile(r"\bFOR\s+EXPORT\s*;?\s*$", re.IGNORECASE)
_CHANNEL = re.compile(r"\s+FOR\s+CHANNEL\s+\S+", re.IGNORECASE)


def flush_options(options_text: str) -> tuple[set[str], bool]:
    """The options of a FLUSH (upper case) and whether it is ``FLUSH TABLES ... FOR EXPORT``.

    ``options_text`` is what follows FLUSH [LOCAL]; the classifier has already checked its grammar.
    """
    text = _CHANNEL.sub("", options_text.strip().rstrip(";").upper())
    if text.startswith("TABLE"):
        return {"TABLES"}, bool(_FOR_EXPORT.search(text))
    return {" ".join(part.split()) for part in text.split(",")}, False


def run_flush(session: Session, stmt: Statement) -> StatementResult:
    """Run one FLUSH statement classified as admin ``flush`` (``info``: ``local`` and the ``options`` text): the
    statement's own work only (its implicit commit, GTID and logging are the lifecycle's,
    :func:`gtidkit.engine.statements.dispatch.dispatch`; :func:`logged_text` says what is logged).

    Raises:
        MySQLError: a failed binary log rotation.
    """
    options, _ = flush_options(stmt.info["options"])
    if options & _ROTATES:
        session.server.rotate()
    if "RELAY LOGS" in options:  # the replica's channels (replication/statements.py registers the row)
        relay = session.server.statements.spec("flush_relay_logs").handler
        if relay is not None:
            relay(session, stmt)
    if (
        "PRIVILEGES" in options
    ):  # acl_reload: the grant tables as they are now (after direct DML on mysql.user)
        session.server.accounts_changed(session.conn)
    if "STATUS" in options:  # every session's Com_xxx / Questions start again from 0 (engine/server.py)
        session.server.flush_status()
    return StatementResult()


def logged_text(session: Session, stmt: Statement) -> str | None:
    """The text a FLUSH statement is logged with (a Query event under its own GTID), or None when it is not logged
    (LOCAL / NO_WRITE_TO_BINLOG, LOGS / BINARY LOGS, TABLES ... FOR EXPORT)."""
    options, for_export = flush_options(stmt.info["options"])
    logged = not stmt.info.get("local") and not for_export and not (options & _NOT_LOGGED)
    return stmt.text if logged else None
