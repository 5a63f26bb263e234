"""The one table of SQL built-in functions: name -> arity, implementation, result type, determinism.

Theory of operation. Every function a statement can call — a MySQL built-in (``FIELD``, ``NOW``,
``GTID_SUBSET``) or a private helper the rewrites call (``_GK_DATE_ADD``, ``_GK_DOUBLE``) — is one
:class:`SqlFunction` row of :data:`FUNCTIONS`, keyed by its upper-case name. The function families keep their
implementations in their own modules (``functions_string``, ``functions_numeric``, ``functions_datetime``,
``temporal``, ``json_functions``, ``encoding_functions``, ``spatial``, ``engine/gtid/functions`` ...) and register
their rows here with :func:`register` when imported; :mod:`gtidkit.engine.sql.function_families` imports them all.
Every consumer reads the table:

- :func:`install` registers the rows on a session's SQLite connection (the only ``create_function`` /
  ``create_aggregate`` calls of the package; a test keeps it so);
- :func:`check_calls` checks a statement's plain calls when it is planned: a name the table lacks is MySQL's 1305
  ER_SP_DOES_NOT_EXIST (``FUNCTION <db>.<name as written> does not exist``; 1046 when no database is selected, as
  MySQL resolves an unqualified call in the current database), a wrong argument count 1582
  ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT (``sql/item_create.cc``: the count is checked as the name is resolved, so it
  fails even when no row is evaluated); sqlglot's builders of typed calls check the count as they parse
  (:func:`gtidkit.engine.sql.functions.install_plain_calls`; the counts are MySQL's,
  :mod:`~gtidkit.engine.sql.function_arities`);
- the executor evaluates :attr:`SqlFunction.python_eval` rows in Python when a SELECT has no table (``SELECT
  GTID_SUBSET(...)``) and binds the :data:`Kind.BOUND` / :data:`Kind.ROLE` rows to a session;
- result metadata (:func:`gtidkit.engine.sql.metadata.function_column`) takes :attr:`SqlFunction.result`.

Kinds of implementation (:class:`Kind`): a SQLite scalar or aggregate UDF (a callable / class); the same made per
session from the session's executor (``SESSION_*``: the implementation is a factory ``executor -> {name:
callable}`` shared by a family); bound to the engine session through a narrow interface (``BOUND``: a factory
``binding -> {name: callable}``, GTID functions), or supplied by a server role (``ROLE``: SOURCE_POS_WAIT from the replica
role's provider; the row's implementation, a NULL, when no role supplies it); or rewritten (``REWRITE``: the sqlglot expression classes that stand for the call are turned
into SQLite's own functions or other rows by the tree rewrites; the implementation is the rewrite).

Sources: MySQL 8.4 Reference Manual "Function Name Parsing and Resolution", "Built-In Function and Operator
Reference"; ``sql/item_create.cc`` (native functions and their argument counts).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sqlglot import exp

from gtidkit.engine.results import ColumnFlag, FieldType
from gtidkit.engine.sql.function_arities import MANY, NATIVE_ARITIES, ODD_ARGUMENT_COUNTS
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "FIXED_RESULTS",
    "FOLLOWS_ARGUMENTS",
    "FUNCTIONS",
    "GRAMMAR_ARITIES",
    "MANY",
    "Kind",
    "ResultType",
    "SqlFunction",
    "as_written",
    "check_call",
    "check_calls",
    "install",
    "lookup",
    "made_for",
    "mysql_arity",
    "name_of_node",
    "register",
    "register_nodes",
    "rows_from",
    "session_rows",
    "unknown_function",
]


class Kind(Enum):
    """How a row's function is implemented (see the module docstring)."""

    UDF = "udf"
    AGGREGATE = "aggregate"
    SESSION_UDF = "session_udf"
    SESSION_AGGREGATE = "session_aggregate"
    BOUND = "bound"
    ROLE = "role"
    REWRITE = "rewrite"


@dataclass(frozen=True, slots=True)
class ResultType:
    """The result column's MySQL type as result metadata reports it (``Item::data_type`` / ``max_length``).

    Attributes:
        field_type: the column type; None when it follows the arguments or values (``CONCAT`` is a string,
            ``IFNULL`` its arguments' type: :func:`gtidkit.engine.sql.metadata.expression_column` derives it).
        length: the column length in bytes.
        flags: :class:`~gtidkit.engine.results.ColumnFlag` bits.
    """

    field_type: FieldType | None
    length: int = 0
    flags: int = 0


#: the result type follows the arguments or the values
FOLLOWS_ARGUMENTS = ResultType(None)
_LONGLONG = ResultType(FieldType.MYSQL_TYPE_LONGLONG, 21, int(ColumnFlag.BINARY | ColumnFlag.NUM))
_ULONGLONG = ResultType(
    FieldType.MYSQL_TYPE_LONGLONG, 21, int(ColumnFlag.BINARY | ColumnFlag.NUM | ColumnFlag.UNSIGNED)
)
_DATE = ResultType(FieldType.MYSQL_TYPE_DATE, 10, int(ColumnFlag.BINARY))

#: built-ins whose result type does not depend on their arguments. Integer functions are LONGLONG
#: (``Item_int_func``), DATE functions DATE, so a client converts their values as it would MySQL's (PyMySQL: int,
#: datetime.date); the bit aggregates are BIGINT UNSIGNED. Source: RM 8.4 "String Functions and Operators",
#: "Date and Time Functions", "Bit Functions and Operators", "Aggregate Functions" (each function's return type).
FIXED_RESULTS: dict[str, ResultType] = {
    **{
        name: _LONGLONG
        for name in (
            "LENGTH", "OCTET_LENGTH", "CHAR_LENGTH", "BIT_LENGTH", "STRCMP", "FIELD", "FIND_IN_SET", "LOCATE",
            "INSTR", "ASCII", "ORD", "CRC32", "BIT_COUNT", "INTERVAL", "DATEDIFF", "TIMESTAMPDIFF", "TO_DAYS",
            "TO_SECONDS", "TIME_TO_SEC", "DAYOFWEEK", "DAYOFMONTH", "DAYOFYEAR", "WEEKDAY", "WEEK", "WEEKOFYEAR",
            "YEARWEEK", "QUARTER", "YEAR", "MONTH", "HOUR", "MINUTE", "SECOND", "MICROSECOND", "PERIOD_ADD",
            "PERIOD_DIFF", "EXTRACT",
        )
    },
    **{name: _DATE for name in ("LAST_DAY", "MAKEDATE", "FROM_DAYS", "DATE")},
    **{name: _ULONGLONG for name in ("BIT_AND", "BIT_OR", "BIT_XOR")},
}  # fmt: skip


#: argument counts of the built-ins of MySQL's grammar that sqlglot reads as plain calls (their wrong counts are
#: syntax errors in MySQL; 1582 here) and of the ones :data:`NATIVE_ARITIES` lacks
GRAMMAR_ARITIES: dict[str, tuple[int, int]] = {
    "WEEK": (1, 2),
    "TIMESTAMP": (1, 2),
    "FORMAT": (2, 3),
    "GET_FORMAT": (2, 2),
    "INTERVAL": (2, MANY),
}


def mysql_arity(name: str) -> tuple[int, int] | None:
    """MySQL's (fewest, most) arguments of the built-in ``name``, when known."""
    return NATIVE_ARITIES.get(name) or GRAMMAR_ARITIES.get(name)


@dataclass(frozen=True, slots=True)
class SqlFunction:
    """One SQL function: MySQL's name and argument counts, its implementation, its result type.

    Attributes:
        name: the upper-case name (MySQL's, or a private ``_GK_*`` helper's).
        min_args, max_args: the argument counts accepted (``max_args`` = :data:`MANY`: variadic); another count
            is 1582 ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT.
        kind: how it is implemented (:class:`Kind`).
        impl: the callable (UDF), class (AGGREGATE), factory (SESSION_*, BOUND, ROLE) or rewrite (REWRITE).
        sqlite_args: the argument count SQLite registers the implementation with (-1: any), which may be narrower
            than MySQL's (a count MySQL takes but the implementation does not is 1582 from SQLite or the wrapper).
        result: the result column's type (:data:`FOLLOWS_ARGUMENTS` when it depends on the arguments).
        deterministic: same arguments, same result within a statement (SQLite may then evaluate a constant call
            once); false for UUID(), RAND(), SLEEP() and the session's clock.
        reports_errors: registered through the executor's wrapper, which hands a raised MySQLError (and a wrong
            argument count) to the statement instead of SQLite's generic error.
        python_eval: evaluated in Python, without SQLite, when every argument of a table-less SELECT is a
            constant (the session-bound functions: GTID_SUBSET, CHARSET ...).
        internal: a private helper the rewrites call (its name is none of MySQL's).
    """

    name: str
    min_args: int
    max_args: int
    kind: Kind
    impl: Any
    sqlite_args: int = -1
    result: ResultType = FOLLOWS_ARGUMENTS
    deterministic: bool = True
    reports_errors: bool = True
    python_eval: bool = False
    internal: bool = False

    def __post_init__(self) -> None:
        if self.name != self.name.upper() or not self.name:
            raise ValueError(f"function name {self.name!r} must be upper case")
        if not 0 <= self.min_args <= self.max_args <= MANY:
            raise ValueError(f"{self.name}: bad argument counts {self.min_args}..{self.max_args}")
        if self.impl is None:
            raise ValueError(f"{self.name}: no implementation")

    def check_arity(self, count: int, written: str | None = None) -> None:
        """Raise 1582 when ``count`` arguments do not fit (``written``: the name as the statement spells it).

        Raises:
            MySQLError: 1582 ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT "Incorrect parameter count in the call to native
                function '<name>'" (``Create_native_func`` checks the count as the call is resolved).
        """
        if not self.min_args <= count <= self.max_args or (
            self.name in ODD_ARGUMENT_COUNTS and count % 2 == 0
        ):
            raise mysql_error(1582, written or self.name)


#: the one table: upper-case name -> row (filled by the families' :func:`register` calls)
FUNCTIONS: dict[str, SqlFunction] = {}
_NODE_NAMES: dict[type[exp.Expression], str] = {}


def register(*rows: SqlFunction) -> None:
    """Add ``rows`` to :data:`FUNCTIONS` (a family module calls this once, when imported).

    Raises:
        ValueError: a name already has another row (two families claiming one function).
    """
    for row in rows:
        known = FUNCTIONS.get(row.name)
        if known is not None and known != row:
            raise ValueError(f"function {row.name} registered twice")
        FUNCTIONS[row.name] = row


def register_nodes(nodes: Mapping[type[exp.Expression], str]) -> None:
    """Name the rows that sqlglot expression classes stand for (``exp.Year`` -> ``YEAR``: sqlglot parses some
    calls into expressions of their own; metadata then finds the call's row)."""
    _NODE_NAMES.update(nodes)


def lookup(name: str) -> SqlFunction | None:
    """The row of the function ``name`` (any case), or None."""
    return FUNCTIONS.get(name.upper())


def name_of_node(node: exp.Expression) -> str | None:
    """The function name a sqlglot expression stands for (``exp.Year`` -> ``YEAR``; a plain call its name)."""
    if isinstance(node, exp.Anonymous):
        return str(node.name).upper()
    return _NODE_NAMES.get(type(node))


def _arity(name: str, nargs: int, fn: Any) -> tuple[int, int]:
    """(min, max) argument counts of a family entry: MySQL's (:func:`mysql_arity`), else SQLite's fixed count,
    else what ``fn``'s signature takes."""
    known = mysql_arity(name)
    if known is not None:
        return known
    if nargs >= 0:
        return nargs, nargs
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin or class without a signature: any count
        return 0, MANY
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    low = sum(1 for p in positional if p.default is p.empty)
    high = MANY if any(p.kind == p.VAR_POSITIONAL for p in params) else len(positional)
    return low, high


def rows_from(
    entries: Mapping[str, tuple[int, Any]],
    kind: Kind = Kind.UDF,
    *,
    deterministic: bool = True,
    reports_errors: bool = True,
    nondeterministic: Iterable[str] = (),
) -> list[SqlFunction]:
    """Rows for a family's ``{name: (SQLite argument count or -1, implementation)}`` (UDF / AGGREGATE).

    The arity of a ``-1`` entry is what its implementation's signature takes; the result type comes from
    :data:`FIXED_RESULTS`; names starting ``_GK_`` are internal.
    """
    odd = set(nondeterministic)
    return [
        SqlFunction(
            name,
            *_arity(name, nargs, impl),
            kind=kind,
            impl=impl,
            sqlite_args=nargs,
            result=FIXED_RESULTS.get(name, FOLLOWS_ARGUMENTS),
            deterministic=deterministic and name not in odd,
            reports_errors=reports_errors,
            internal=name.startswith("_GK_"),
        )
        for name, (nargs, impl) in entries.items()
    ]


def session_rows(
    factory: Callable[[Any], Mapping[str, Any]],
    arities: Mapping[str, tuple[int, int]],
    kind: Kind = Kind.SESSION_UDF,
    *,
    deterministic: bool = True,
    reports_errors: bool = True,
    python_eval: bool = False,
    nondeterministic: Iterable[str] = (),
    results: Mapping[str, ResultType] | None = None,
) -> list[SqlFunction]:
    """Rows for the functions ``factory`` makes per session (``factory(context) -> {name: callable or (nargs,
    callable)}``), with their argument counts ``{name: (min, max)}``."""
    odd = set(nondeterministic)
    return [
        SqlFunction(
            name,
            *(mysql_arity(name) or (low, high)),
            kind=kind,
            impl=factory,
            sqlite_args=low if low == high else -1,
            result=(results or {}).get(name, FIXED_RESULTS.get(name, FOLLOWS_ARGUMENTS)),
            deterministic=deterministic and name not in odd,
            reports_errors=reports_errors,
            python_eval=python_eval,
            internal=name.startswith("_GK_"),
        )
        for name, (low, high) in arities.items()
    ]


def made_for(row: SqlFunction, made: dict[Any, Mapping[str, Any]], context: Any) -> Callable[..., Any]:
    """The callable of the per-session ``row`` for ``context`` (``made`` caches each factory's result)."""
    family = made.get(row.impl)
    if family is None:
        family = made[row.impl] = row.impl(context)
    fn = family[row.name]
    return fn[1] if isinstance(fn, tuple) else fn


def install(
    raw: Any,
    executor: Any,
    wrap: Callable[[Callable[..., Any], str], Callable[..., Any]],
    wrap_aggregate: Callable[[type], type],
    *,
    session_only: bool = False,
) -> dict[str, Callable[..., Any]]:
    """Register every UDF / aggregate row on the SQLite connection ``raw`` (the only place the engine does).

    Args:
        raw: the session's ``sqlite3.Connection``.
        executor: the session's executor, for the ``SESSION_*`` rows' factories.
        wrap: the executor's error-keeping wrapper of a scalar (``wrap(fn, name)``).
        wrap_aggregate: the same for an aggregate class.
        session_only: register only the ``SESSION_*`` rows (``raw`` is a pooled connection that has the others,
            whose wrappers report to the connection's owner cell: Executor._register_builtins).

    Returns:
        The python-evaluated session functions made (``{name: callable}``; the executor's ``functions``).
    """
    made: dict[Any, Mapping[str, Any]] = {}
    python: dict[str, Callable[..., Any]] = {}
    for row in _session_rows() if session_only else FUNCTIONS.values():
        kind = row.kind
        if kind in (Kind.REWRITE, Kind.BOUND, Kind.ROLE):
            continue
        impl: Any
        if kind in (Kind.SESSION_UDF, Kind.SESSION_AGGREGATE):
            impl = made_for(row, made, executor)
            if row.python_eval:
                python[row.name] = impl
                continue  # registered with the bound functions (Executor._sync_functions)
        elif session_only:
            continue
        else:
            impl = row.impl
        if kind in (Kind.AGGREGATE, Kind.SESSION_AGGREGATE):
            raw.create_aggregate(
                row.name, row.sqlite_args, wrap_aggregate(impl) if row.reports_errors else impl
            )
        else:
            fn = wrap(impl, row.name) if row.reports_errors else impl
            raw.create_function(row.name, row.sqlite_args, fn, deterministic=row.deterministic)
    return python


_SESSION_ROWS: tuple[int, tuple[SqlFunction, ...]] = (-1, ())


def _session_rows() -> tuple[SqlFunction, ...]:
    """The ``SESSION_*`` rows of :data:`FUNCTIONS` (remade when a family registered more rows)."""
    global _SESSION_ROWS
    n, rows = _SESSION_ROWS
    if n != len(FUNCTIONS):
        session = (Kind.SESSION_UDF, Kind.SESSION_AGGREGATE)
        rows = tuple(row for row in FUNCTIONS.values() if row.kind in session)
        _SESSION_ROWS = (len(FUNCTIONS), rows)
    return rows


def row_count() -> int:
    """How many rows :data:`FUNCTIONS` has (a pooled connection installed with fewer needs a full install)."""
    return len(FUNCTIONS)


def register_bound(raw: Any, name: str, fn: Callable[..., Any]) -> None:
    """Register the session-bound function ``name`` (a BOUND / ROLE / python-evaluated row, already wrapped) on
    ``raw``, taking any argument count (its row's arity is checked when the statement is planned)."""
    raw.create_function(name, -1, fn)


def as_written(err: MySQLError, text: str) -> MySQLError:
    """``err``, a 1582 naming a function by its row's upper-case name, naming it as ``text`` spells the call
    (MySQL reports the name as written: ``native function 'tan'``); any other error as it is."""
    m = re.fullmatch(r"Incorrect parameter count in the call to native function '(\w+)'", err.message)
    if err.code != 1582 or m is None:
        return err
    call = re.search(rf"\b({m.group(1)})\s*\(", text, re.IGNORECASE)
    return mysql_error(1582, call.group(1)) if call is not None else err


def unknown_function(written: str, current_db: str | None) -> MySQLError:
    """MySQL's error for a call of a function no row names: the call is resolved as a stored function of the
    current database (mysql-test ``sp-error.result``: ``SELECT inexistent();`` without a database).

    Returns:
        1305 ER_SP_DOES_NOT_EXIST "FUNCTION <db>.<name as written> does not exist", or 1046 ER_NO_DB_ERROR when
        no database is selected.
    """
    if not current_db:
        return mysql_error(1046)
    return mysql_error(1305, "FUNCTION", f"{current_db}.{written}")


def check_call(node: exp.Anonymous, current_db: str | None) -> None:
    """Check one plain call against the table.

    Raises:
        MySQLError: 1305 / 1046 (:func:`unknown_function`) for a name the table lacks; 1582 for a wrong count.
    """
    written = str(node.name)
    row = FUNCTIONS.get(written.upper())
    if row is None:
        raise unknown_function(written, current_db)
    row.check_arity(len(node.expressions), written)  # the name as written, as MySQL's Create_func reports it


def check_calls(tree: exp.Expression, current_db: str | None) -> None:
    """Check every plain call of ``tree`` (a statement being planned) against the table (:func:`check_call`).

    Raises:
        MySQLError: 1305 / 1046 for a name the table lacks; 1582 for a wrong count.
    """
    for node in tree.find_all(exp.Anonymous):
        check_call(node, current_db)
