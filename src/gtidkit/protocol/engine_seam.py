"""The one place where the protocol meets the engine's Session API (STYLE.md section 5).

Everything the wire server needs from a session goes through the functions here: run a statement text and get
one :class:`StatementResult` per statement, the session's idle status flags, its CONNECTION_ID(), its current
schema. The rest of :mod:`gtidkit.protocol` only reads the attributes of these results, so moving from the
engine's interim ``Result`` (column names only, one statement) to its ``StatementResult`` (full column metadata,
status flags and the session-state changes the engine decides) changes this file alone.

Until the engine reports column metadata, :func:`_infer_column` derives a column's MySQL type from its values
(what a client needs to decode them); until it decides the session-state changes, :func:`_state_changes`
reports committed GTIDs for ``session_track_gtids`` (OWN_GTID: this session's, ALL_GTIDS: ``gtid_executed`` after
a statement that leaves no transaction open) and the schema for ``session_track_schema``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from gtidkit.engine.sql.parse import split_statements
from gtidkit.errors import MySQLError
from gtidkit.protocol.constants import (
    BINARY_COLLATION,
    UTF8MB4_0900_AI_CI,
    ColumnFlag,
    FieldType,
    ServerStatus,
    SessionStateType,
)
from gtidkit.protocol.session_tracker import TrackedChange


@dataclass(frozen=True, slots=True)
class Column:
    """Column metadata as a column-definition packet needs it (the engine's ``Column`` shape).

    ``type`` is a :class:`~gtidkit.protocol.constants.FieldType`, ``charset`` a collation id, ``length`` the
    display length, ``flags`` :class:`~gtidkit.protocol.constants.ColumnFlag` bits.
    """

    name: str
    org_name: str = ""
    table: str = ""
    org_table: str = ""
    schema: str = ""
    type: int = FieldType.VAR_STRING
    charset: int = UTF8MB4_0900_AI_CI
    length: int = 0
    flags: int = 0
    decimals: int = 0


@dataclass(frozen=True, slots=True)
class StatementResult:
    """One statement's outcome (the engine's ``StatementResult`` shape).

    ``columns`` is None for statements without a result set; ``rows`` are tuples of Python values;
    ``state_changes`` the session-state entries to report in this statement's OK packet.
    """

    columns: tuple[Column, ...] | None
    rows: tuple[tuple[Any, ...], ...] = ()
    affected_rows: int = 0
    matched_rows: int = 0
    last_insert_id: int = 0
    warning_count: int = 0
    info: str = ""
    status_flags: int = ServerStatus.AUTOCOMMIT
    state_changes: tuple[TrackedChange, ...] = ()


#: A hook that answers a statement itself (server-level statements: SHUTDOWN, KILL, accounts) or returns None.
Interceptor = Callable[[str], "StatementResult | None"]


def open_session(server: Any) -> Any:
    """A new engine session of ``server`` (one per client connection)."""
    return server.session()


def connection_id(session: Any) -> int:
    """The session's CONNECTION_ID() (what the Handshake and SHOW PROCESSLIST show)."""
    return int(session.id) & 0xFFFFFFFF


def current_schema(session: Any) -> str | None:
    """The session's default database, or None."""
    return session.current_db


def status_flags(session: Any) -> int:
    """SERVER_STATUS_* of the session between statements: AUTOCOMMIT and IN_TRANS."""
    flags = 0
    if _autocommit(session):
        flags |= ServerStatus.AUTOCOMMIT
    if session.in_transaction():
        flags |= ServerStatus.IN_TRANS
    return flags


def _autocommit(session: Any) -> bool:
    value = session.resolve_sysvar("autocommit")
    return str(value).upper() in ("1", "ON", "TRUE")


def sysvar(session: Any, name: str) -> Any:
    """``@@SESSION.name`` (or the global value for global-only variables).

    Raises:
        MySQLError: 1193 unknown variable.
    """
    try:
        return session.resolve_sysvar(name, "SESSION")
    except MySQLError as err:
        if err.code != 1238:
            raise
        return session.resolve_sysvar(name, "GLOBAL")


def split(sql: str) -> list[str]:
    """The statements of a multi-statement text (MySQL's splitting rules: quotes, comments, ``;``)."""
    return [s for s in split_statements(sql) if s.strip()]


def execute(session: Any, sql: str, intercept: Interceptor | None = None) -> Iterator[StatementResult]:
    """Run ``sql`` (one or more statements); yield one result per statement, in order.

    ``intercept`` sees each statement first and may answer it (returning a result) instead of the engine.

    Raises:
        MySQLError: from the failing statement (results of the statements before it were yielded first).
    """
    statements = split(sql)
    if not statements:
        raise MySQLError(1065, "Query was empty", "42000")
    for text in statements:
        res = intercept(text) if intercept is not None else None
        if res is not None:
            yield res
            continue
        before_db = session.current_db
        result = session.execute_one(text)
        yield _convert(session, result, before_db)


def _convert(session: Any, result: Any, before_db: str | None) -> StatementResult:
    columns = None
    rows = tuple(tuple(r) for r in result.rows)
    if result.columns:
        columns = tuple(_infer_column(name, [r[i] for r in rows]) for i, name in enumerate(result.columns))
    changes = _state_changes(session, before_db)
    return StatementResult(
        columns=columns,
        rows=rows,
        affected_rows=int(result.affected_rows),
        matched_rows=int(result.affected_rows),
        last_insert_id=int(result.last_insert_id),
        warning_count=len(result.warnings),
        info="",
        status_flags=status_flags(session),
        state_changes=changes,
    )


def _state_changes(session: Any, before_db: str | None) -> tuple[TrackedChange, ...]:
    out: list[TrackedChange] = []
    mode = str(sysvar(session, "session_track_gtids")).upper()
    committed = session.take_committed_gtids()
    in_trx = session.in_transaction()
    if mode == "OWN_GTID" and committed:
        from gtidkit.gtid import GtidSet

        out.append(TrackedChange(SessionStateType.SESSION_TRACK_GTIDS, GtidSet.from_gtids(committed).to_text()))
    elif mode == "ALL_GTIDS" and not in_trx:
        executed = session.server.gtid_state.executed()
        if executed:
            out.append(TrackedChange(SessionStateType.SESSION_TRACK_GTIDS, executed.to_text()))
    if session.current_db != before_db and _tracking(session, "session_track_schema"):
        out.append(TrackedChange(SessionStateType.SESSION_TRACK_SCHEMA, session.current_db or ""))
    return tuple(out)


def _tracking(session: Any, name: str) -> bool:
    try:
        return str(sysvar(session, name)).upper() in ("1", "ON")
    except MySQLError:
        return False


def reset_session(session: Any) -> None:
    """COM_RESET_CONNECTION / COM_CHANGE_USER: roll back, forget user variables and session values.

    Raises:
        MySQLError: from the rollback.
    """
    session.execute_one("ROLLBACK")
    session.user_vars.clear()
    session.session_vars.clear()
    session.take_committed_gtids()


#: SHOW COLUMNS type prefix -> (FieldType, collation, display length, flags) for COM_FIELD_LIST.
_SQL_TYPES: dict[str, tuple[int, int, int, int]] = {
    "tinyint": (FieldType.TINY, BINARY_COLLATION, 4, ColumnFlag.NUM),
    "smallint": (FieldType.SHORT, BINARY_COLLATION, 6, ColumnFlag.NUM),
    "mediumint": (FieldType.INT24, BINARY_COLLATION, 9, ColumnFlag.NUM),
    "int": (FieldType.LONG, BINARY_COLLATION, 11, ColumnFlag.NUM),
    "integer": (FieldType.LONG, BINARY_COLLATION, 11, ColumnFlag.NUM),
    "bigint": (FieldType.LONGLONG, BINARY_COLLATION, 20, ColumnFlag.NUM),
    "double": (FieldType.DOUBLE, BINARY_COLLATION, 22, ColumnFlag.NUM),
    "float": (FieldType.FLOAT, BINARY_COLLATION, 12, ColumnFlag.NUM),
    "decimal": (FieldType.NEWDECIMAL, BINARY_COLLATION, 11, ColumnFlag.NUM),
    "datetime": (FieldType.DATETIME, BINARY_COLLATION, 19, ColumnFlag.BINARY),
    "timestamp": (FieldType.TIMESTAMP, BINARY_COLLATION, 19, ColumnFlag.BINARY),
    "date": (FieldType.DATE, BINARY_COLLATION, 10, ColumnFlag.BINARY),
    "time": (FieldType.TIME, BINARY_COLLATION, 10, ColumnFlag.BINARY),
    "blob": (FieldType.BLOB, BINARY_COLLATION, 65535, ColumnFlag.BLOB | ColumnFlag.BINARY),
    "varbinary": (FieldType.VAR_STRING, BINARY_COLLATION, 255, ColumnFlag.BINARY),
    "text": (FieldType.BLOB, UTF8MB4_0900_AI_CI, 262140, ColumnFlag.BLOB),
    "char": (FieldType.STRING, UTF8MB4_0900_AI_CI, 4, 0),
    "varchar": (FieldType.VAR_STRING, UTF8MB4_0900_AI_CI, 1020, 0),
}


def field_list(session: Any, table: str, wildcard: str = "") -> list[Column]:
    """COM_FIELD_LIST: the columns of ``table`` in the current schema (names matching ``wildcard``).

    Raises:
        MySQLError: 1046 no database selected, 1146 unknown table.
    """
    import re

    db = session.current_db
    if not db:
        raise MySQLError(1046, "No database selected", "3D000")
    quoted = table.replace("`", "``")
    res = session.execute_one(f"SHOW COLUMNS FROM `{quoted}`")
    pattern = None
    if wildcard:
        pattern = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in wildcard)
    out = []
    for row in res.rows:
        name, sql_type, nullable, key = str(row[0]), str(row[1]).lower(), str(row[2]), str(row[3] or "")
        if pattern and not re.fullmatch(pattern, name, re.IGNORECASE):
            continue
        base = re.match(r"[a-z]+", sql_type)
        ftype, charset, length, flags = _SQL_TYPES.get(base.group(0) if base else "", _SQL_TYPES["varchar"])
        m = re.search(r"\((\d+)", sql_type)
        if m and ftype in (FieldType.VAR_STRING, FieldType.STRING) and charset != BINARY_COLLATION:
            length = int(m.group(1)) * 4
        if nullable.upper() == "NO":
            flags |= ColumnFlag.NOT_NULL
        if key == "PRI":
            flags |= ColumnFlag.PRI_KEY
        if "unsigned" in sql_type:
            flags |= ColumnFlag.UNSIGNED
        out.append(Column(name=name, org_name=name, table=table, org_table=table, schema=db, type=ftype,
                          charset=charset, length=length, flags=flags))
    return out


#: (Python type) -> (FieldType, collation, display length, flags, decimals) for columns without metadata.
_INFERRED: list[tuple[type, tuple[int, int, int, int, int]]] = [
    (bool, (FieldType.LONGLONG, BINARY_COLLATION, 1, ColumnFlag.BINARY | ColumnFlag.NUM, 0)),
    (int, (FieldType.LONGLONG, BINARY_COLLATION, 21, ColumnFlag.BINARY | ColumnFlag.NUM, 0)),
    (float, (FieldType.DOUBLE, BINARY_COLLATION, 22, ColumnFlag.BINARY | ColumnFlag.NUM, 31)),
    (Decimal, (FieldType.NEWDECIMAL, BINARY_COLLATION, 67, ColumnFlag.BINARY | ColumnFlag.NUM, 30)),
    (dt.datetime, (FieldType.DATETIME, BINARY_COLLATION, 26, ColumnFlag.BINARY, 6)),
    (dt.date, (FieldType.DATE, BINARY_COLLATION, 10, ColumnFlag.BINARY, 0)),
    (dt.timedelta, (FieldType.TIME, BINARY_COLLATION, 17, ColumnFlag.BINARY, 6)),
    (bytes, (FieldType.BLOB, BINARY_COLLATION, 65535, ColumnFlag.BLOB | ColumnFlag.BINARY, 0)),
]


def _infer_column(name: str, values: list[Any]) -> Column:
    sample = next((v for v in values if v is not None), None)
    if sample is None:
        return Column(name=name, type=FieldType.VAR_STRING, length=0, decimals=31)
    for cls, (ftype, charset, length, flags, decimals) in _INFERRED:
        if isinstance(sample, cls):
            if not all(v is None or isinstance(v, cls) for v in values):
                break  # SQLite's dynamic typing: a column of mixed values is sent as strings
            if cls is Decimal:
                decimals = max((-v.as_tuple().exponent for v in values if isinstance(v, Decimal)), default=0)
                decimals = max(0, min(int(decimals), 30))
            return Column(name=name, type=ftype, charset=charset, length=length, flags=flags, decimals=decimals)
    longest = max((len(str(v)) for v in values if v is not None), default=0)
    return Column(name=name, type=FieldType.VAR_STRING, length=max(longest, 1) * 4, decimals=31)
