"""Every SHOW answered in one place: a parsed SHOW's command -> the one function that provides its rows.

:func:`gtidkit.engine.statements.classify.classify` parses a SHOW (and DESCRIBE / DESC / EXPLAIN <table>, which
MySQL's grammar makes SHOW COLUMNS) by its row of ``classify.SHOW_PARSERS``: ``stmt.command`` is the SHOW's name
(``variables``, ``binlog_events``, ``tables`` ...) and ``stmt.info`` its named arguments (``like``, ``where``,
``scope``, ``db``, ``table``, ``file``, ``pos``, ``off``, ``cnt`` ...). :data:`SHOWS` maps each command to its
:class:`Show`: the function that provides its rows, kept by the part of the server that owns the data. That part
reads the arguments; it never matches the statement text again:

============================  ===============================================================================
data                          provider
============================  ===============================================================================
diagnostics area              :func:`show_conditions`, :func:`show_count` (this module)
binary log                    ``Admin.show_binary_logs`` / ``show_binary_log_status`` / ``show_binlog_events``
                              (:mod:`gtidkit.engine.statements.admin`)
system / status variables     :mod:`gtidkit.engine.statements.variables`, :mod:`gtidkit.engine.statements.status`
catalog                       :mod:`gtidkit.engine.sql.show`, ``show_table_status``, ``show_objects``,
                              ``show_engines``, ``show_plugins``
accounts                      :mod:`gtidkit.engine.accounts.show`
connections (wire server)     SHOW PROCESSLIST: ``protocol/admin.py``, registered when the wire server starts
replication                   SHOW REPLICA STATUS, SHOW RELAYLOG EVENTS (``replication/statements.py``),
                              SHOW REPLICAS (``replication/source.py``), registered when replication starts
============================  ===============================================================================

The engine imports neither protocol nor replication, so their SHOWs are rows whose :attr:`Show.owner` names the
layer; that layer registers the provider on the engine server at start (:meth:`gtidkit.engine.server.Server.
provide_show`, one provider per command and server). Until it does, such a SHOW answers as a statement the engine
does not run (1235), as does a SHOW no parser row matches (1064 / 1235, :func:`gtidkit.engine.sql.unsupported.
statement_error`). EXPLAIN <statement> is answered by the SQL layer (:mod:`gtidkit.engine.sql.explain`).

What runs around a provider (privileges from the statement's spec, GTID pre-checks unless the spec is
``diagnostic``) is the dispatcher's (:mod:`gtidkit.engine.statements.dispatch`). Diagnostic SHOWs read the
diagnostics area (:mod:`gtidkit.engine.diagnostics`) and never clear it; their columns are those ``sql/sql_error.cc``
declares (Level varchar(7), Code int unsigned, Message varchar(512), system charset); SHOW COUNT(*) names its
column ``@@session.warning_count`` (mysql-test ``r/warnings.result``).

Sources: MySQL ``sql/sql_yacc.yy`` (``show_param``), ``sql/sql_parse.cc`` (the SQLCOM_SHOW_* cases), RM8 "SHOW
Statements".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.sql import show as catalog_show
from gtidkit.engine.sql import show_objects
from gtidkit.engine.sql.show_engines import show_engines
from gtidkit.engine.sql.show_plugins import show_plugins
from gtidkit.engine.sql.show_table_status import show_table_status

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.sql.exec_result import ExecResult
    from gtidkit.engine.sql.executor import Executor
    from gtidkit.engine.statements.classify import Statement

__all__ = [
    "ENGINE",
    "PROTOCOL",
    "REPLICATION",
    "SHOWS",
    "Show",
    "ShowProvider",
    "answer",
    "show_conditions",
    "show_count",
]

#: ``fn(session, stmt) -> StatementResult``: the rows of one parsed SHOW.
ShowProvider = Callable[["Session", "Statement"], StatementResult]
#: ``fn(executor, info, current_db) -> ExecResult``: a catalog SHOW's rows from the SQL layer.
CatalogProvider = Callable[["Executor", dict[str, Any], "str | None"], "ExecResult"]

#: owners of SHOW data (:attr:`Show.owner`)
ENGINE = "engine"
PROTOCOL = "protocol"
REPLICATION = "replication"


@dataclass(frozen=True, slots=True)
class Show:
    """How one SHOW command is answered (a row of :data:`SHOWS`).

    Attributes:
        owner: the layer that owns its data: :data:`ENGINE` (``provider`` is set), :data:`PROTOCOL` or
            :data:`REPLICATION` (the provider is registered on each server at start:
            :meth:`gtidkit.engine.server.Server.provide_show`).
        provider: the function giving its result, for the engine's own SHOWs.
    """

    owner: str
    provider: ShowProvider | None = None


def show_conditions(session: Session, stmt: Statement, *, errors_only: bool) -> StatementResult:
    """SHOW WARNINGS / SHOW ERRORS [LIMIT [offset,] n]: Level, Code, Message (``sql/sql_error.cc``).

    Args:
        session: whose diagnostics area is read (not cleared).
        stmt: the statement (``info``: ``off``, ``cnt`` of its LIMIT).
        errors_only: SHOW ERRORS (only the Error conditions).
    """
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
    """SHOW COUNT(*) WARNINGS / ERRORS: one row, column ``@@session.warning_count`` / ``@@session.error_count``.

    Args:
        session: whose diagnostics area is counted.
        name: ``warning_count`` or ``error_count``.
    """
    from gtidkit.engine.sql.metadata import result_set, sysvar_column

    value = session.diagnostics.error_count if name == "error_count" else session.diagnostics.warning_count
    col = f"@@session.{name}"
    return result_set([col], [(value,)], (sysvar_column(col, value, "uint"),))


def _catalog(provider: CatalogProvider) -> ShowProvider:
    """A catalog SHOW's provider (the SQL layer's rows, ``ExecResult``) as a :data:`ShowProvider`: the session's
    executor and default schema in, the result set with the SQL layer's column metadata out."""

    def provide(session: Session, stmt: Statement) -> StatementResult:
        from gtidkit.engine.sql.metadata import result_columns

        er = provider(session.executor, stmt.info, session.current_db)
        rows = [tuple(r) for r in er.rows or []]
        return StatementResult(
            columns=result_columns(er.columns, rows, er.metadata),
            rows=rows,
            warnings=tuple(Condition(*w) for w in er.warnings or ()),
        )

    return provide


def _binary_logs(session: Session, stmt: Statement) -> StatementResult:
    return session.server.admin.show_binary_logs()


def _binary_log_status(session: Session, stmt: Statement) -> StatementResult:
    admin = session.server.admin
    admin.check_status_syntax(stmt.text, master=bool(stmt.info.get("master")))
    return admin.show_binary_log_status()


def _binlog_events(session: Session, stmt: Statement) -> StatementResult:
    info = stmt.info
    return session.server.admin.show_binlog_events(
        info.get("file"), info.get("pos"), info.get("off", 0), info.get("cnt")
    )


def _variables(session: Session, stmt: Statement) -> StatementResult:
    from gtidkit.engine.statements.variables import show_variables

    info = stmt.info
    return show_variables(session, info.get("scope"), info.get("like"), info.get("where"))


def _status(session: Session, stmt: Statement) -> StatementResult:
    from gtidkit.engine.statements.status import show_status

    info = stmt.info
    return show_status(session, info.get("like"), info.get("where"), info.get("scope"))


def _engine_innodb_status(session: Session, stmt: Statement) -> StatementResult:
    from gtidkit.engine.statements.innodb_status import show_engine_innodb_status

    return show_engine_innodb_status(session, stmt.text)


def _grants(session: Session, stmt: Statement) -> StatementResult:
    from gtidkit.engine.accounts.show import show_grants_of

    return show_grants_of(stmt.text, session.server.accounts, session.executor.current_user)


def _create_user(session: Session, stmt: Statement) -> StatementResult:
    from gtidkit.engine.accounts.show import show_create_user

    return show_create_user(stmt.text, session.server.accounts, session.executor.current_user)


def _engine(provider: ShowProvider) -> Show:
    return Show(ENGINE, provider)


#: SHOW command (``classify.SHOW_PARSERS``) -> how it is answered. Every parser command has exactly one row
#: (``tests/engine/test_show_routing.py``).
SHOWS: dict[str, Show] = {
    # diagnostics area (diagnostic statements: their spec skips the GTID pre-checks and keeps the area)
    "warnings": _engine(lambda s, st: show_conditions(s, st, errors_only=False)),
    "errors": _engine(lambda s, st: show_conditions(s, st, errors_only=True)),
    "count_warnings": _engine(lambda s, st: show_count(s, "warning_count")),
    "count_errors": _engine(lambda s, st: show_count(s, "error_count")),
    # binary log
    "binary_logs": _engine(_binary_logs),
    "binary_log_status": _engine(_binary_log_status),
    "binlog_events": _engine(_binlog_events),
    # variables
    "variables": _engine(_variables),
    "status": _engine(_status),
    "engine_innodb_status": _engine(_engine_innodb_status),
    # accounts
    "grants": _engine(_grants),
    "create_user": _engine(_create_user),
    # catalog
    "databases": _engine(_catalog(catalog_show.show_databases)),
    "tables": _engine(_catalog(catalog_show.show_tables)),
    "columns": _engine(_catalog(catalog_show.show_columns)),
    "create_table": _engine(_catalog(catalog_show.show_create)),
    "index": _engine(_catalog(catalog_show.show_index)),
    "table_status": _engine(_catalog(show_table_status)),
    "engines": _engine(_catalog(lambda ex, info, db: show_engines())),
    "plugins": _engine(_catalog(lambda ex, info, db: show_plugins())),
    "create_database": _engine(_catalog(show_objects.create_database)),
    "triggers": _engine(_catalog(show_objects.triggers)),
    "events": _engine(_catalog(show_objects.events)),
    "routine_status": _engine(_catalog(show_objects.routine_status)),
    # the wire server's connections
    "processlist": Show(PROTOCOL),
    # replication
    "replica_status": Show(REPLICATION),
    "relaylog_events": Show(REPLICATION),
    "replicas": Show(REPLICATION),
}


def answer(session: Session, stmt: Statement) -> StatementResult:
    """The result of the parsed SHOW ``stmt`` from its provider (:data:`SHOWS`, or the one a higher layer
    registered on the server for its command).

    Raises:
        MySQLError: what the provider raises; 1064 / 1235 for a SHOW no parser row matched, 1235 for a SHOW whose
            layer registered no provider (no wire server, no replication).
    """
    info = stmt.info
    if info.get("explain"):  # EXPLAIN <statement>: the SQL layer (engine/sql/explain.py)
        return session.run_sql(stmt, writes=False)
    command = info.get("command") or ""
    show = SHOWS.get(command)
    provider = None if show is None else show.provider or session.server.show_providers.get(command)
    if provider is None:
        from gtidkit.engine.sql.unsupported import statement_error

        raise statement_error(stmt.text)
    return provider(session, stmt)
