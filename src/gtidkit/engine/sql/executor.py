"""SQL dispatch: MySQL statements on the SQLite storage, with MySQL's results, row images and error codes.

Entry point (docs/INTERFACES.md "engine"): :class:`Executor`, which runs statements classified by
:func:`gtidkit.engine.statements.classify.classify` (SELECT, DML, DDL, USE, EXPLAIN and
savepoints for one session's connection and returns an :class:`ExecResult` with MySQL's ``affected_rows``,
``last_insert_id``, warnings and, for DML, the :class:`RowChange` images that ROW-format binlog events need.

How a SELECT runs: the sqlglot tree (MySQL dialect) gets its table references rewritten to physical SQLite names
(``db.t`` -> ``"db.t" AS t``), ``@@sysvar``/``@uservar`` replaced by bound parameters (resolved through
:attr:`Executor.sysvar_resolver`), MySQL-only functions fixed (``DATABASE()``, ``VERSION()``, ``NOW()``,
``CONCAT``...), each computed column aliased with its MySQL text (MySQL names result columns after the
expression as written), then it is generated for SQLite. A SELECT without FROM whose items are literals,
variables or registered functions (``GTID_SUBSET``...) is evaluated in Python without touching SQLite.

Plans are cached per statement *shape*: literals are replaced by placeholders (:func:`sql_parse.templatize`) and
the plan (SQLite text, table definitions) is reused with new values, keyed by (shape, current database, catalog
version). Shapes whose literals sit where a placeholder would change the meaning (``ORDER BY 1``, the select
list, type lengths) are detected and planned from the literal text instead.

Errors are MySQL's: 1064 parse, 1046 no database, 1049 unknown database, 1146 no such table, 1054 unknown
column, 1062 duplicate entry, 1048 column cannot be null, 1364 no default, 1264/1265/1366/1406/1292 strict-mode
data errors, 1050/1051 DDL, 1235 for statements this engine does not support (never silently ignored).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import itertools
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace
from decimal import Decimal
from inspect import signature
from typing import Any, Self

import sqlglot
import sqlglot.errors
from sqlglot import exp

from gtidkit.engine import storage as _db
from gtidkit.engine.results import Column, ColumnFlag, FieldType
from gtidkit.engine.sql import charset_literals, comparison, decimal_math, function_table, recursion, temporal
from gtidkit.engine.sql.catalog import (
    LOCK_WAIT_TABLES,
    PROCESSLIST_TABLES,
    REPLICATION_TABLES,
    THREADS_COLUMNS,
    VARIABLES_TABLES,
    ColumnDef,
    TableDef,
)
from gtidkit.engine.sql.checksum_functions import rewrite_checksum
from gtidkit.engine.sql.ddl import not_supported, parse_create_index, parse_create_table
from gtidkit.engine.sql.enum_set import ENUM_SET_TYPES, numeric_rewrite
from gtidkit.engine.sql.exec_result import SQLITE, ConstPlan, ExecResult, RowChange, bindable
from gtidkit.engine.sql.function_families import load_families
from gtidkit.engine.sql.function_table import MANY, Kind, register, rows_from, session_rows
from gtidkit.engine.sql.functions import rewrite_for_sqlite
from gtidkit.engine.sql.group_concat import FUNCTION as GROUP_CONCAT_FUNCTION
from gtidkit.engine.sql.group_concat import make_aggregate as make_group_concat
from gtidkit.engine.sql.group_concat import rewrite_group_concat
from gtidkit.engine.sql.hints import max_execution_time_hint
from gtidkit.engine.sql.json_functions import COLUMN_KINDS as JSON_COLUMN_KINDS
from gtidkit.engine.sql.json_functions import json_result_column, printed_text, rewrite_json
from gtidkit.engine.sql.like import default_like_escape
from gtidkit.engine.sql.metadata import (
    column_for_def,
    derived_column,
    expression_column,
    string_union_column,
    sysvar_column,
    user_variable_column,
)
from gtidkit.engine.sql.mysql_random import MySQLRandom, connection_random
from gtidkit.engine.sql.numeric_types import (
    DIV_PRECISION_INCREMENT,
    UNSIGNED_SUBTRACTION,
    NumType,
    column_of_type,
    type_of_column,
    union_type,
)
from gtidkit.engine.sql.order_names import qualify_order_by
from gtidkit.engine.sql.parse import SqlStatement, parse_error, parse_tree, templatize
from gtidkit.engine.sql.reader_sort import ReaderSort, reader_sort
from gtidkit.engine.sql.scopes import scoped_columns
from gtidkit.engine.sql.sql_mode import DEFAULT_SQL_MODE, SqlMode, parse_sql_mode
from gtidkit.engine.sql.temporal_types import temporal_converter
from gtidkit.engine.sql.unsupported import statement_error
from gtidkit.engine.sql.values import FieldStore, converts_on_read, result_value
from gtidkit.engine.storage import Connection, Storage, physical_name, quote_ident
from gtidkit.engine.time_zone import SYSTEM, TimeZone, parse_time_zone
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import message, mysql_error, unknown_error
from gtidkit.version import MYSQL_VERSION

__all__ = ["ExecResult", "Executor", "RowChange", "bindable"]

SERVER_VERSION = MYSQL_VERSION  # VERSION(); gtidkit.version is the one server-version constant
#: SQLite virtual-machine steps between two checks of :attr:`Executor.interrupt` (KILL QUERY latency vs cost).
_PROGRESS_OPS = 20_000

#: Tables filled per query from :attr:`Executor.virtual_tables` (the session's system variables, the process list).
VIRTUAL_TABLES = frozenset(
    {("performance_schema", n) for n in VARIABLES_TABLES}
    | set(PROCESSLIST_TABLES)
    | set(REPLICATION_TABLES)
    | set(LOCK_WAIT_TABLES)
)
#: SQLite function that ``@name := expr`` inside a SELECT/DML expression is rewritten to.
SET_USER_VAR_FUNCTION = "_GK_SET_USER_VAR"
#: SQLite function reading ``@name`` in a statement that also assigns user variables.
GET_USER_VAR_FUNCTION = "_GK_GET_USER_VAR"


class _Unsafe:
    """Cache marker: this statement shape must be planned from its literal text."""


_UNSAFE = _Unsafe()


@dataclass(frozen=True, slots=True)
class _ByShape:
    """Cache marker: this template's plan depends on the kinds and widths of the literals at ``positions``
    (operands of arithmetic, whose MySQL result type follows them: ``salary * 2`` is DECIMAL(11,2),
    ``salary * 2.5`` is DECIMAL(12,3)); plans are cached under the template plus :func:`_literal_shape`."""

    positions: tuple[int, ...]


#: nodes whose result type follows a literal operand's type
_TYPED_PARENTS = (
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.Mod,
    exp.Neg,
    exp.Round,
    exp.IntDiv,
    exp.Abs,
    exp.BitwiseNot,
    exp.BitwiseOr,
    exp.BitwiseAnd,
    exp.BitwiseXor,
    exp.BitwiseLeftShift,
    exp.BitwiseRightShift,
)


def _literal_shape(values: list[Any], positions: tuple[int, ...]) -> tuple[tuple[type, int], ...]:
    """What of a template's literal values its plan's types depend on: the type and printed width of each value
    at ``positions`` (a string's width never matters: a string operand is a DOUBLE, a compared one a string)."""
    if len(positions) == 1:  # the common case (k = k + 1): no generator on the per-statement path
        v = values[positions[0]]
        return ((type(v), 0 if type(v) is str else len(str(v))),)
    return tuple((type(v), 0 if type(v) is str else len(str(v))) for v in (values[i] for i in positions))


@dataclass(frozen=True, slots=True)
class _SelectText:
    """A SELECT known by its text only (:class:`~gtidkit.engine.sql.parse.SqlStatement` for ``execute_select``)."""

    text: str
    kind: str = "select"
    info: dict[str, Any] = field(default_factory=dict)
    tree: exp.Expression | None = None

    @property
    def template(self) -> tuple[str, list[Any]] | None:
        """``templatize(text)`` (the plan-cache key)."""
        return templatize(self.text)


_DO = re.compile(r"^\s*DO\s+(.+?)\s*;?\s*$", re.IGNORECASE | re.DOTALL)
#: a DML statement's savepoint in an open transaction: opened on demand (:meth:`Executor.statement_savepoint`), open
_DEFERRED, _OPEN = object(), object()
_PLAN_CACHE_MAX = 20000
_ALLOWED_PLACEHOLDER_PARENTS = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.NullSafeEQ,
    exp.Between,
    exp.In,
    exp.Like,
    exp.ILike,
    exp.Tuple,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Neg,
    exp.Paren,
    exp.Limit,
    exp.Offset,
    exp.And,
    exp.Or,
    exp.Not,
    exp.Values,
)


@dataclass(frozen=True, slots=True)
class SelectPlan:
    """A planned SELECT: SQLite text, result column names (None = take from the cursor), variable slots."""

    sql: str
    columns: tuple[str, ...] | None
    variables: tuple[tuple[str, str, str | None], ...]  # (param name, "sys"|"user", scope)
    needs_threads: bool
    #: Per result column, the DECIMAL column it reads directly (values are returned as ``Decimal`` with the
    #: column's scale, as MySQL does); ``None`` when no result column is a plain DECIMAL column.
    decimals: tuple[ColumnDef | None, ...] | None = None
    #: Per result column, the conversion of the value SQLite returns to the value of the column's MySQL type
    #: (a DECIMAL expression's ``Decimal`` with its scale; :func:`decimal_math.result_converter`); ``None`` when
    #: no computed column needs one.
    convert: tuple[Callable[[Any], Any] | None, ...] | None = None
    #: Per result column, the metadata known at planning time (None entries are inferred from the values; a str
    #: is an ``@@variable`` name whose metadata follows the variable's type).
    metadata: tuple[Column | str | None, ...] | None = None
    #: (schema, table) of the tables read that :attr:`Executor.virtual_tables` fills per query
    virtual: tuple[tuple[str, str], ...] = ()
    #: the statement reads a table with a JSON column or calls a JSON function: any string cell may be a stored
    #: document with typed scalars (through UNION or a subquery too), shown as MySQL's text (:func:`printed_text`)
    reads_json: bool = False
    #: the ORDER BY (and DISTINCT) the compiled reader does on the rows read (engine/sql/reader_sort.py); None:
    #: SQLite's, in :attr:`sql`
    reader_sort: ReaderSort | None = None
    #: derived from :attr:`metadata` once, not per execution: it names an ``@@variable`` (whose metadata follows
    #: the value read)
    variable_metadata: bool = field(init=False, compare=False, repr=False)
    #: derived from :attr:`metadata` once: the positions of its JSON columns (values shown as MySQL's text)
    json_columns: tuple[int, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        meta = self.metadata or ()
        object.__setattr__(self, "variable_metadata", any(type(m) is str for m in meta))
        json_at = tuple(
            i for i, m in enumerate(meta) if isinstance(m, Column) and m.type == FieldType.MYSQL_TYPE_JSON
        )
        object.__setattr__(self, "json_columns", json_at)


class FunctionTable(dict[str, Callable[..., Any]]):
    """A session's SQL functions (upper-case name -> callable; :attr:`Executor.functions`) with a ``version`` that
    every change bumps, so a statement tells whether the connection's registered functions are still these by one
    comparison (:meth:`Executor._functions_synced`) instead of comparing the two dictionaries."""

    __slots__ = ("version",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.version = 0

    def __setitem__(self, key: str, value: Callable[..., Any]) -> None:
        super().__setitem__(key, value)
        self.version += 1

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.version += 1

    def __ior__(self, other: Any) -> Self:  # type: ignore[override,misc]
        super().__ior__(other)
        self.version += 1
        return self

    def update(self, *args: Any, **kwargs: Any) -> None:
        """``dict.update``, then a new version."""
        super().update(*args, **kwargs)
        self.version += 1

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``dict.setdefault``, then a new version."""
        self.version += 1
        return super().setdefault(key, default)

    def pop(self, key: str, *default: Any) -> Any:
        """``dict.pop``, then a new version."""
        self.version += 1
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Callable[..., Any]]:
        """``dict.popitem``, then a new version."""
        self.version += 1
        return super().popitem()

    def clear(self) -> None:
        """``dict.clear``, then a new version."""
        super().clear()
        self.version += 1


class PreparedPlan:
    """A prepared statement's plan, kept with the statement (:meth:`Executor.prepared_plan` fills it): valid for
    ``key`` = (default database, catalog version, temporary-table key, div_precision_increment).

    Attributes:
        key: what the plan was made for (None: not planned yet).
        plan: the :class:`SelectPlan` / :class:`ConstPlan` / DML plan of the template.
        params: the template's literal values (``gk<i>`` -> value), as ``_plan_key`` returns them.
        binds: ``params`` as sqlite3 binds them.
        simple: a :class:`SelectPlan` that :meth:`Executor.run_prepared_select` can run.
        columns: the session's result columns for this plan when they do not depend on the values (None: not
            known yet or value-dependent).
        plain: a ``simple`` plan whose rows go out as the reader reads them (its columns and metadata known at
            planning time, no DECIMAL / JSON conversion, no ``@@variable`` metadata): :meth:`Executor._run_plain`
            runs it.
    """

    __slots__ = ("binds", "columns", "key", "params", "plain", "plan", "simple")

    def __init__(self) -> None:
        self.key: tuple[Any, ...] | None = None
        self.plan: Any = None
        self.params: dict[str, Any] = {}
        self.binds: dict[str, Any] = {}
        self.simple = False
        self.plain = False
        self.columns: Any = None


def _concat(*args: Any) -> Any:
    if any(a is None for a in args):
        return None
    return "".join(_text(a) for a in args)


def _concat_ws(sep: Any, *args: Any) -> Any:
    if sep is None:
        return None
    return _text(sep).join(_text(a) for a in args if a is not None)


def _text(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, float) and v.is_integer():
        return str(v)
    return str(v)


def _pad(s: Any, n: Any, p: Any, left: bool) -> Any:
    if s is None or n is None or p is None:
        return None
    s, n, p = _text(s), int(n), _text(p)
    if n <= len(s):
        return s[:n]
    if not p:
        return None
    fill = (p * (n // len(p) + 1))[: n - len(s)]
    return fill + s if left else s + fill


#: MySQL functions SQLite lacks (name -> (argument count, implementation)); NULL in -> NULL out as in MySQL.
_BUILTINS: dict[str, tuple[int, Callable[..., Any]]] = {
    "REPEAT": (2, lambda s, n: None if s is None or n is None else _text(s) * max(0, int(n))),
    "SPACE": (1, lambda n: None if n is None else " " * max(0, int(n))),
    "REVERSE": (1, lambda s: None if s is None else _text(s)[::-1]),
    "LPAD": (3, lambda s, n, p: _pad(s, n, p, True)),
    "RPAD": (3, lambda s, n, p: _pad(s, n, p, False)),
    "MD5": (
        1,
        lambda s: (
            None if s is None else hashlib.md5(s if isinstance(s, bytes) else _text(s).encode()).hexdigest()
        ),
    ),
    "UUID": (0, lambda: str(uuid.uuid1())),
    "CONVERT_TZ": (3, temporal.convert_tz),
}


def _session_functions(ex: Executor) -> dict[str, Callable[..., Any]]:
    """The functions reading ``ex``'s session state (RM8 "Information Functions": USER() = SESSION_USER() =
    SYSTEM_USER() is the client's user@host, CURRENT_USER() the authenticated account; ``Item_func_user`` /
    ``Item_func_current_user``), and the helpers the rewrites call with it."""
    return {
        "LAST_INSERT_ID": lambda: ex.last_insert_id,
        "CONNECTION_ID": lambda: ex.connection_id,
        "USER": lambda: ex.user,
        "SESSION_USER": lambda: ex.user,
        "SYSTEM_USER": lambda: ex.user,
        "CURRENT_USER": lambda: ex.current_user,
        "ROW_COUNT": lambda: ex.row_count,
        "FOUND_ROWS": lambda: ex.found_rows,
        SET_USER_VAR_FUNCTION: ex._assign_user_variable,
        GET_USER_VAR_FUNCTION: lambda name: bindable(ex.user_variables.get(str(name).lower())),
    }


def _reporting_session_functions(ex: Executor) -> dict[str, Callable[..., Any]]:
    """The session functions that raise MySQL errors (SLEEP's 1210, the CTE depth's 3636, a zero divisor)."""
    return {"SLEEP": ex.sleep, "_GK_DIVISOR": ex._divisor, recursion.DEPTH_FUNCTION: ex._cte_depth}


class FunctionOwner:
    """The executor a SQLite connection's function wrappers report errors to (:meth:`Executor._wrap_udf`): kept
    with a pooled connection, so the rows registered once serve each session that uses it next."""

    __slots__ = ("executor", "rows")

    def __init__(self) -> None:
        self.executor: Any = None
        #: the function table's row count when all its rows were registered (function_table.row_count)
        self.rows = -1


def _gone(name: str) -> Callable[..., Any]:
    """What a pooled SQLite connection runs for session-bound function ``name`` that its previous session
    registered and the running one did not: MySQL's error for a function that does not exist (1305)."""

    def gone(*_args: Any) -> Any:
        raise mysql_error(1305, "FUNCTION", name)

    return gone


def _group_concat(ex: Executor) -> dict[str, type]:
    """GROUP_CONCAT's aggregate for ``ex``'s session (its group_concat_max_len, its 1260 warnings)."""
    return {
        GROUP_CONCAT_FUNCTION: make_group_concat(
            ex._group_concat_max_len, ex._group_concat_cut, ex.group_concat_rows
        )
    }


register(*rows_from(_BUILTINS, nondeterministic=("UUID",)))
register(*rows_from({"CONCAT": (-1, _concat), "CONCAT_WS": (-1, _concat_ws)}, reports_errors=False))
register(
    *session_rows(
        _session_functions,
        {
            **dict.fromkeys(
                ("LAST_INSERT_ID", "CONNECTION_ID", "USER", "SESSION_USER", "SYSTEM_USER", "CURRENT_USER",
                 "ROW_COUNT", "FOUND_ROWS"),
                (0, 0),
            ),
            SET_USER_VAR_FUNCTION: (2, 2),
            GET_USER_VAR_FUNCTION: (1, 1),
        },
        deterministic=False,
        reports_errors=False,
    )
)  # fmt: skip
register(
    *session_rows(
        _reporting_session_functions, {"SLEEP": (1, 1), "_GK_DIVISOR": (1, 1), recursion.DEPTH_FUNCTION: (1, 1)},
        deterministic=False,
    )
)  # fmt: skip
register(
    *session_rows(_group_concat, {GROUP_CONCAT_FUNCTION: (0, MANY)}, Kind.SESSION_AGGREGATE, reports_errors=False,
                  deterministic=False)
)  # fmt: skip
load_families()


class Executor:
    """Runs statements for one session connection.

    Attributes:
        storage: the :class:`Storage`.
        conn: this session's :class:`Connection`.
        sysvar_resolver: ``fn(name: str, scope: "GLOBAL"|"SESSION"|None) -> value`` for ``@@name`` reads;
            raises MySQLError 1193 for unknown variables. ``None`` -> every ``@@x`` is error 1193.
        functions: ``{UPPER_NAME: callable}`` the session-bound, python-evaluated rows of the SQL function table
            (:mod:`~gtidkit.engine.sql.function_table`: CHARSET ..., and GTID_SUBSET, GTID_SUBTRACT,
            WAIT_FOR_EXECUTED_GTID_SET, SOURCE_POS_WAIT as ``Server.sql_functions`` binds them); available in every
            SELECT, evaluated in Python when a SELECT has no table.
        user_variables: ``{lower name: value}`` session user variables read by ``@x`` (the session may replace
            this dict with its own).
        last_insert_id: value of ``LAST_INSERT_ID()`` (first AUTO_INCREMENT value generated by the last INSERT
            that generated one).
        forced_insert_id: MySQL's ``SET INSERT_ID`` / INSERT_ID Intvar event: when not None, the next INSERT takes
            its generated AUTO_INCREMENT values from here (this value, then +1 per row) instead of the table's
            counter, which is advanced past them; reset to None after that INSERT (``THD::force_one_auto_inc_interval``).
        auto_increment_increment, auto_increment_offset: the session's ``auto_increment_increment`` /
            ``_offset``: generated values are the series ``offset + k * increment`` (the smallest one above the
            table's counter, :meth:`next_auto_increment`), and the values of one statement that takes them from
            ``forced_insert_id`` step by the increment (a replica applying an INSERT_ID event under the source's
            settings: ids n, n+k, n+2k ...).
        timestamp: MySQL's ``@@timestamp``: when set (seconds since the epoch), NOW(), CURRENT_TIMESTAMP,
            CURDATE(), UNIX_TIMESTAMP() and CURRENT_TIMESTAMP defaults use it instead of the clock, as a replica
            uses the source's statement time (the Query event's header timestamp); SYSDATE() keeps the clock.
        rand: the session's ``RAND()`` generator (:class:`~gtidkit.engine.sql.mysql_random.MySQLRandom`, seeded
            per connection as ``THD::init`` does; the replica applier reseeds it from a Rand event, as
            ``Rand_log_event::do_apply_event`` seeds ``thd->rand``). ``RAND(N)`` uses a generator of its own seeded
            from N, restarted with each statement (``Item_func_rand::seed_random``).
        virtual_tables: ``{(schema, table): fn() -> rows}`` for tables whose rows the session computes per query
            (``performance_schema.global_variables`` / ``session_variables``); see :data:`VIRTUAL_TABLES`.
        interrupt: set by KILL QUERY (the hook for it): a running ``SLEEP()`` wakes and returns 1; any other running
            SQLite statement stops at its next progress check and fails with 1317 ER_QUERY_INTERRUPTED; cleared before
            each statement.
    """

    def __init__(self, storage: Storage, conn: Connection) -> None:
        self.storage = storage
        self.conn = conn
        self.sysvar_resolver: Callable[[str, str | None], Any] | None = None
        #: ``name -> kind`` of a system variable (``bool``, ``int``, ``uint``, ``enum``, ``str``) for metadata
        self.sysvar_kind: Callable[[str], str | None] | None = None
        self.functions: FunctionTable = FunctionTable()
        self.user_variables: dict[str, Any] = {}
        self.last_insert_id = 0
        self.forced_insert_id: int | None = None
        #: the rows (``(rowid, *columns)``) the next single-table DELETE's WHERE selects, given by its caller
        #: instead of running the plan's SELECT (row locks' deferred DELETE by key: the locked row, read already;
        #: engine/statements/deferred.py), else None; taken by that DELETE
        self.preselected: list[tuple[Any, ...]] | None = None
        #: the session's RAND() sequence (its seeds are what a STATEMENT-format Rand event logs)
        self.rand: MySQLRandom = connection_random()
        #: RAND(N) generators of the running statement by seed (reset before each statement)
        self.seeded_rand: dict[int, MySQLRandom] = {}
        self.auto_increment_increment = 1
        self.auto_increment_offset = 1
        self.timestamp: float | None = None
        #: ``fn() -> str``: the session's ``@@time_zone`` value (the session wires its variables in; the one place
        #: the SQL layer learns the zone, see :meth:`time_zone`)
        self.time_zone_source: Callable[[], str] = lambda: SYSTEM
        #: ``@@sql_mode`` of the session (its value, else the global one) without the general variable resolver
        self.sql_mode_source: Callable[[], Any] | None = None
        self.current_db: str | None = None
        #: what CONNECTION_ID() returns: the owning session's id (MySQL's thread id)
        self.connection_id = 0
        #: what USER() / SESSION_USER() / SYSTEM_USER() return: the client's ``user@host`` as it connected
        self.user = "root@localhost"
        #: what CURRENT_USER() returns: the account the server matched (``app@%``), see Session.set_account
        self.current_user = "root@localhost"
        #: what ROW_COUNT() returns: the previous statement's affected rows, -1 after a result set (Session sets it)
        self.row_count = -1
        #: what FOUND_ROWS() returns: rows of the previous SELECT (its count before LIMIT with SQL_CALC_FOUND_ROWS)
        self.found_rows = 0
        #: rows fed to GROUP_CONCAT in the running statement, and the 1260 warnings it raised (group_concat.py)
        self.group_concat_rows = [0]
        self.udf_warnings: list[tuple[str, int, str]] = []
        #: the running statement's savepoint: None (none), deferred or open (:meth:`_atomic`)
        self._savepoint: object | None = None
        self.interrupt = threading.Event()
        self.virtual_tables: dict[tuple[str, str], Callable[[], list[tuple]]] = {}
        self._registered: dict[str, Callable[..., Any]] = {}
        #: ``functions.version`` when ``_registered`` was last made equal to ``functions`` (-1: never)
        self._registered_version = -1
        self._udf_error: BaseException | None = None
        #: the FieldStore of the DML statement running now (division by zero reports to it)
        self.dml_store: FieldStore | None = None
        self._register_builtins()
        # KILL QUERY: SQLite calls this every _PROGRESS_OPS virtual-machine steps; non-zero aborts the statement
        #: True only while a SELECT or a DML statement runs (never during COMMIT or the GTID bookkeeping)
        self._interruptible = False
        #: when the running top-level SELECT must stop (max_execution_time), ``time.monotonic()``; 0: never
        self.deadline = 0.0
        #: the progress handler stopped the statement at its deadline
        self.timed_out = False
        #: the running statement's MAX_EXECUTION_TIME hint (ms), else None (:meth:`note_hints`)
        self.hint_ms: int | None = None
        #: PREPARE's run of a SELECT: its result's columns without reading a row (:meth:`_run_plan`)
        self.describe_only = False
        #: the session's cte_max_recursion_depth for the running statement (:meth:`note_hints`)
        self.cte_limit = 1000
        self.conn.raw.set_progress_handler(self._progress, _PROGRESS_OPS)
        self._plans: dict[Any, Any] = storage.plan_cache
        #: this session's temporary tables (CREATE TEMPORARY TABLE): ``(schema, name) -> TableDef``. They shadow
        #: base tables of the same name (SQLite's ``temp`` schema is searched first), are seen by no other
        #: session and vanish with the connection (gtidkit.engine.sql.temporary).
        self.temp_tables: dict[tuple[str, str], TableDef] = {}
        #: plan-cache key part while temporary tables exist (plans then depend on this session's tables)
        self.temp_key: object | None = None
        #: set once this session created a temporary table (rollbacks then re-sync SQLite's temp schema)
        self.temp_used = False
        #: the literal values of the template being planned (``gk<i>`` -> value), for result types
        self._literals: dict[str, Any] = {}
        #: the session's ``div_precision_increment``, read when first needed (None: read it again; SET resets it)
        self.div_precision_increment: int | None = None

    # ---------------------------------------------------------------- tables
    def get_table(self, schema: str, name: str) -> TableDef | None:
        """The table ``schema.name`` as this session sees it: its temporary table of that name, else the
        catalog's, else None."""
        if self.temp_tables:
            t = self.temp_tables.get((self.storage.catalog.canonical_schema(schema), name))
            if t is not None:
                return t
        return self.storage.catalog.get_table(schema, name)

    def require_table(self, schema: str | None, name: str) -> TableDef:
        """:meth:`get_table`, raising MySQL's errors.

        Raises:
            MySQLError: 1046 no database selected; 1146 no such table.
        """
        if schema is not None and self.temp_tables:
            t = self.get_table(schema, name)
            if t is not None:
                return t
        return self.storage.catalog.require_table(schema, name)

    def next_auto_increment(self, t: TableDef, explicit: int | None = None) -> int:
        """The next AUTO_INCREMENT value of ``t`` (see :meth:`Catalog.next_auto_increment`; a temporary table
        counts on its own), in the session's ``auto_increment_increment`` / ``_offset`` series."""
        if self.temp_tables and self.temp_tables.get((t.schema, t.name)) is t:
            from gtidkit.engine.sql import temporary

            return temporary.next_auto_increment(self, t, explicit)
        return self.storage.catalog.next_auto_increment(
            self.conn, t, explicit=explicit, step=(self.auto_increment_increment, self.auto_increment_offset)
        )

    def after_rollback(self) -> None:
        """Call after the SQLite transaction (or a savepoint) rolled back: temporary tables created or dropped in
        it keep their state, as MySQL does not roll back CREATE / DROP TEMPORARY TABLE."""
        if self.temp_used:
            from gtidkit.engine.sql import temporary

            temporary.resync(self)

    # ---------------------------------------------------------------- functions
    def _register_builtins(self) -> None:
        """Register the function table's rows on this session's connection (its python-evaluated session
        functions become :attr:`functions`). A pooled connection (Storage.connect) keeps the rows that are the
        same for every session: their error wrappers report to the connection's owner cell, which now names this
        executor; only the session rows are registered again."""
        owner = self.conn.function_owner
        rows = function_table.row_count()
        again = owner is not None and owner.rows == rows
        if owner is None:
            owner = self.conn.function_owner = FunctionOwner()
        owner.executor = self
        owner.rows = rows
        self._owner = owner
        self.functions.update(
            function_table.install(
                self.conn.raw, self, self._wrap_udf, self._wrap_aggregate, session_only=again
            )
        )

    def rand_value(self, *seed: Any) -> float:
        """``RAND()`` (no argument: the session's sequence) or ``RAND(N)`` as ``_GK_RAND(N, site)``: a sequence
        seeded from N for each call site of the statement, restarted with each statement (NULL seeds as 0, as
        MySQL's ``val_int`` of NULL)."""
        if not seed:
            return self.rand()
        try:
            n = int(seed[0] or 0)
        except (TypeError, ValueError):
            n = 0
        site = seed[1] if len(seed) > 1 else 0
        gen = self.seeded_rand.get(site)
        if gen is None:
            gen = self.seeded_rand[site] = MySQLRandom.from_seed(n)
        return gen()

    def _group_concat_max_len(self) -> int:
        if self.sysvar_resolver is None:
            return 1024
        return int(self.sysvar_resolver("group_concat_max_len", None))

    def _group_concat_cut(self, row: int) -> None:
        self.udf_warnings.append(("Warning", 1260, mysql_error(1260, row).message))

    def now(self) -> _dt.datetime:
        """The statement time in the session time zone (naive): ``@@timestamp`` when set (see :attr:`timestamp`),
        else the clock."""
        return self.time_zone().from_epoch(self.statement_time())

    def statement_time(self) -> float:
        """Seconds since the epoch of the statement time: ``@@timestamp`` when set, else the clock."""
        return time.time() if self.timestamp is None else self.timestamp

    def time_zone(self) -> TimeZone:
        """The session time zone (``@@session.time_zone``, read through :attr:`time_zone_source`).

        Raises:
            MySQLError: 1298 when the stored value names no zone (a value set before it was validated).
        """
        return parse_time_zone(self.time_zone_source())

    def registered_names(self) -> list[str]:
        """The upper-case names of the session-bound functions registered on the session's SQLite connection."""
        return [name.upper() for name in self._registered]

    def _functions_synced(self) -> bool:
        """``functions`` are the ones registered on the connection (:meth:`_sync_functions` has nothing to do): one
        comparison of versions per statement, not of the two dictionaries."""
        functions = self.functions
        return (
            self._registered_version == functions.version
            if type(functions) is FunctionTable
            else self._registered == functions
        )

    def _sync_functions(self) -> None:
        functions = self.functions
        version = functions.version if type(functions) is FunctionTable else -1
        if self._registered == functions:  # functions compare by identity: same names, same objects
            self._registered_version = version
            return
        for name, fn in functions.items():
            if self._registered.get(name) is not fn:
                function_table.register_bound(self.conn.raw, name.upper(), self._wrap_udf(fn, name.upper()))
        self._registered = dict(functions)
        self._registered_version = version
        stale = self.conn.stale_bound
        if stale:  # a pooled connection: what its previous session bound and this one does not must not run
            self.conn.stale_bound = frozenset()
            for name in stale.difference(self.registered_names()):
                function_table.register_bound(self.conn.raw, name, self._wrap_udf(_gone(name), name))

    def run_on(self, raw: Any, fn: Callable[[], Any]) -> Any:
        """``fn()`` with this session's statements running on another SQLite connection ``raw`` (``gtidkit_row_locks``'
        shadow connection, engine/statements/deferred.py): its functions are registered there first (once per
        connection and set of functions), then the session's connection object points at ``raw`` until ``fn``
        returns or raises."""
        self._sync_functions()
        if getattr(raw, "gk_functions", None) is not self._registered:
            function_table.install(raw, self, self._wrap_udf, self._wrap_aggregate)
            for name, f in self._registered.items():
                function_table.register_bound(raw, name.upper(), self._wrap_udf(f, name.upper()))
            raw.gk_functions = self._registered
        conn = self.conn
        own = conn.raw
        conn.raw = raw
        try:
            return fn()
        finally:
            conn.raw = own

    def _assign_user_variable(self, name: str, value: Any) -> Any:
        """``@name := value`` inside an expression (``Item_func_set_user_var``): store and return the value."""
        self.user_variables[str(name).lower()] = value
        return value

    def _progress(self) -> int:
        if not self._interruptible:
            return 0
        if self.interrupt.is_set():
            return 1
        if self.deadline and time.monotonic() > self.deadline:
            self.timed_out = True  # max_execution_time: 3024, not KILL QUERY's 1317 (translate_error)
            return 1
        return 0

    def _cte_depth(self, depth: int) -> int:
        """A recursive CTE's row of iteration ``depth``: MySQL would start iteration ``depth + 1`` on it, which
        ``cte_max_recursion_depth`` forbids at ``depth`` = the limit (engine/sql/recursion.py).

        Raises:
            MySQLError: 3636 ER_CTE_MAX_RECURSION_DEPTH.
        """
        if depth >= self.cte_limit:
            raise mysql_error(3636, self.cte_limit + 1)
        return depth

    def note_hints(self, text: str, max_execution_time: int = 0, cte_max_recursion_depth: int = 1000) -> None:
        """Before a top-level SELECT: its optimizer hints, read from its text as sent (classification strips
        comments), and the session's ``max_execution_time`` (ms, 0: none).

        Args:
            text: the statement as the client sent it (``/*+ MAX_EXECUTION_TIME(ms) */``).
            max_execution_time: the session's variable, which the hint overrides.
            cte_max_recursion_depth: the session's variable (recursive CTEs stop with 3636 past it).
        """
        self.cte_limit = cte_max_recursion_depth
        hint = max_execution_time_hint(text)
        self.hint_ms = hint if hint is not None else (max_execution_time or None)

    def select_deadline(self) -> float:
        """When a top-level SELECT must stop (``time.monotonic()`` seconds; 0: never): its
        ``/*+ MAX_EXECUTION_TIME(ms) */`` hint, else the session's ``max_execution_time`` (RM8 "Optimizer Hints",
        "max_execution_time": read-only SELECT statements only; 0 means no limit), as :meth:`note_hints` noted."""
        ms = self.hint_ms
        return time.monotonic() + ms / 1000 if ms else 0.0

    def sleep(self, seconds: Any) -> int:
        """MySQL ``SLEEP(n)``: pause ``n`` seconds (fractions allowed); 0, or 1 when interrupted by KILL QUERY.

        Source: RM8 "Miscellaneous Functions" (SLEEP returns 0; "When SLEEP() is the only thing invoked by a
        query that is interrupted, it returns 1"); ``Item_func_sleep::val_int``.

        Raises:
            MySQLError: 1210 ER_WRONG_ARGUMENTS "Incorrect arguments to sleep." for NULL or a negative duration
                (MySQL 8.0+ in strict mode).
        """
        if seconds is None or float(seconds) < 0:
            raise mysql_error(1210, "sleep.")
        wait = float(seconds)
        if self.deadline and self.deadline - time.monotonic() < wait:
            # max_execution_time ends the sleep as KILL QUERY does: SLEEP() returns 1
            self.interrupt.wait(max(0.0, self.deadline - time.monotonic()))
            self.interrupt.clear()
            return 1
        if self.interrupt.wait(wait):
            self.interrupt.clear()  # the kill is consumed: the statement completes with SLEEP() = 1
            return 1
        return 0

    def _wrap_udf(self, fn: Callable[..., Any], name: str = "") -> Callable[..., Any]:
        owner = self._owner

        def call(*args: Any) -> Any:
            try:
                v = fn(*args)
            except BaseException as err:
                arity = _arity_error(fn, args, name) if isinstance(err, TypeError) else None
                owner.executor._udf_error = arity or err
                raise
            return str(v) if isinstance(v, Decimal) else v

        return call

    def _wrap_aggregate(self, cls: type) -> type:
        """``cls`` whose ``step`` errors (a MySQLError such as JSON_OBJECTAGG's 3158) reach the statement as
        :meth:`_wrap_udf`'s do."""
        owner = self._owner

        class Reporting(cls):  # type: ignore[valid-type, misc]
            def step(self, *args: Any) -> None:
                try:
                    super().step(*args)
                except BaseException as err:
                    owner.executor._udf_error = err
                    raise

        return Reporting

    # ---------------------------------------------------------------- dispatch
    def execute(self, stmt: SqlStatement, current_db: str | None = None) -> ExecResult:
        """Run one classified statement (:func:`gtidkit.engine.statements.classify.classify`) with ``current_db``
        as the default database.

        Statements that write run atomically: inside an open transaction under a private savepoint (a failing
        statement is undone alone, as MySQL's statement rollback), otherwise in their own transaction.

        Raises:
            MySQLError: MySQL's code/SQLSTATE/message for the failure (see the module docstring).
        """
        self.current_db = current_db
        if self.interrupt.is_set():  # an attribute read: Event.clear() takes the Event's lock every statement
            self.interrupt.clear()
        if self.seeded_rand:
            self.seeded_rand.clear()
        kind = stmt.kind
        if kind == "select":
            self._interruptible = True  # no closure per statement: _interruptibly, written out
            self.deadline = self.select_deadline()
            try:
                res = self._select(stmt, current_db)
            finally:
                self._interruptible = False
                self.deadline = 0.0
                self.hint_ms = None
            if stmt.info.get("sql_no_cache"):  # classify removed the modifier; MySQL 8 warns (sql_yacc.yy)
                res.warnings.insert(0, ("Warning", 1681, message(1681, "SQL_NO_CACHE")))
            return res
        if kind == "dml":
            return self._atomic(self._interruptible_dml, stmt, current_db)
        if kind == "ddl":
            return self._atomic(self._ddl, stmt, current_db)
        if kind == "use":
            db = stmt.info.get("db")
            if db is None or not self.storage.catalog.has_schema(db):
                raise mysql_error(1049, db)
            return ExecResult(new_db=self.storage.catalog.canonical_schema(db))
        if kind == "savepoint":
            if self.conn.in_transaction:
                self.conn.savepoint(stmt.info["name"])
            return ExecResult()
        if kind == "release_savepoint":
            if not self.conn.in_transaction:
                raise mysql_error(1305, "SAVEPOINT", stmt.info["name"])
            self.conn.release_savepoint(stmt.info["name"])
            return ExecResult()
        if kind == "rollback_to_savepoint":
            if not self.conn.in_transaction:
                raise mysql_error(1305, "SAVEPOINT", stmt.info["name"])
            self.conn.rollback_to_savepoint(stmt.info["name"])
            self.after_rollback()
            return ExecResult()
        if kind == "begin":
            self.conn.commit()
            self.conn.begin()
            return ExecResult()
        if kind == "commit":
            self.conn.commit()
            return ExecResult()
        if kind == "rollback":
            self.conn.rollback()
            return ExecResult()
        if kind == "show" and stmt.info.get("explain"):  # the SHOWs themselves: engine/statements/show.py
            from gtidkit.engine.sql.explain import run_explain

            return self._interruptibly(lambda: run_explain(self, stmt, current_db))
        m = _DO.match(stmt.text)
        if m:  # DO expr [, expr ...]: evaluate, discard the result (RM8 15.2.3)
            self.execute_select(f"SELECT {m.group(1)}", current_db)
            return ExecResult()
        raise statement_error(stmt.text)

    def _interruptibly(self, fn: Callable[[], ExecResult]) -> ExecResult:
        self._interruptible = True
        try:
            return fn()
        finally:
            self._interruptible = False

    def execute_select(self, text: str, current_db: str | None = None) -> ExecResult:
        """Run the SELECT ``text`` (no classification needed: SET @a = expr, SELECT ... INTO, DO, SHOW VARIABLES).

        Raises:
            MySQLError: as :meth:`execute`.
        """
        self.current_db = current_db
        self.interrupt.clear()
        if self.seeded_rand:
            self.seeded_rand.clear()
        return self._select(_SelectText(text), current_db)

    def _refuse_temporary_ddl(self, tree: exp.Expression | None, current_db: str | None) -> None:
        """ALTER TABLE / CREATE INDEX / DROP INDEX / TRUNCATE naming one of this session's temporary tables: 1235
        (they would change the base table of that name; the catalog holds base tables only)."""
        target = None
        if isinstance(tree, (exp.Alter, exp.TruncateTable)):
            target = tree.this if isinstance(tree, exp.Alter) else (tree.expressions or [None])[0]
        elif isinstance(tree, exp.Create) and str(tree.args.get("kind") or "").upper() == "INDEX":
            target = tree.this.args.get("table") if isinstance(tree.this, exp.Index) else None
        elif isinstance(tree, exp.Drop) and str(tree.args.get("kind") or "").upper() == "INDEX":
            on = tree.args.get("cluster")
            target = on.this if isinstance(on, exp.OnProperty) else None
        if isinstance(target, exp.Table) and target.name:
            db = target.db or current_db
            if (
                db is not None
                and (self.storage.catalog.canonical_schema(db), target.name) in self.temp_tables
            ):
                raise not_supported("ALTER TABLE, TRUNCATE or an index change of a temporary table")

    def execute_dml(self, text: str, current_db: str | None = None) -> ExecResult:
        """Run the INSERT / UPDATE / DELETE ``text`` in the caller's open transaction (no classification, no
        savepoint of its own: CREATE TABLE ... SELECT inserts its rows with it).

        Raises:
            MySQLError: as :meth:`execute`.
        """
        self.current_db = current_db
        return self._dml(_SelectText(text, kind="dml"), current_db)

    def _interruptible_dml(self, stmt: SqlStatement, current_db: str | None) -> ExecResult:
        self._interruptible = True
        try:
            return self._dml(stmt, current_db)
        finally:
            self._interruptible = False

    def _atomic(
        self, fn: Callable[[SqlStatement, str | None], ExecResult], stmt: SqlStatement, current_db: str | None
    ) -> ExecResult:
        """``fn(stmt, current_db)`` as one statement: under a savepoint inside an open transaction (undone alone
        when it fails), else in a transaction of its own.

        A DML statement's savepoint is deferred (:meth:`statement_savepoint`): the DML code opens it before its
        first write unless that write is the statement's only one and nothing after it can fail (one row by key:
        SQLite undoes a failed statement itself, "ON CONFLICT" ABORT), which saves the SAVEPOINT / RELEASE pair of
        sysbench's point UPDATE, DELETE and INSERT. MySQL's statement atomicity (a statement that fails is undone
        alone, the transaction's earlier statements stay: ``THD::is_error`` -> ``trans_rollback_stmt``) holds
        either way."""
        conn = self.conn
        if conn.in_transaction:
            if stmt.kind == "dml" and not conn.ddl_in_transaction:
                self._savepoint = _DEFERRED
            else:
                conn.raw.execute('SAVEPOINT "_gk_stmt"')
                self._savepoint = _OPEN
            mark = conn.file_ops_mark()
            try:
                res = fn(stmt, current_db)
            except BaseException:
                if self._savepoint is _OPEN:
                    conn.raw.execute('ROLLBACK TO SAVEPOINT "_gk_stmt"')
                    conn.raw.execute('RELEASE SAVEPOINT "_gk_stmt"')
                    conn.forget_views()
                self._savepoint = None
                conn.drop_file_ops(mark)
                self.after_rollback()
                if conn.ddl_in_transaction:
                    self.storage.catalog.reload(conn)
                raise
            if self._savepoint is _OPEN:
                conn.raw.execute('RELEASE SAVEPOINT "_gk_stmt"')
            self._savepoint = None
            return res
        conn.begin()
        try:
            res = fn(stmt, current_db)
        except BaseException:
            conn.rollback()
            self.after_rollback()
            raise
        conn.commit()
        return res

    def statement_savepoint(self) -> None:
        """Open the running DML statement's deferred savepoint (:meth:`_atomic`) now, before a write that is not
        its only one or after which something may still fail; a no-op when it is open or the statement has none
        (autocommit: it runs in a transaction of its own; ``execute_dml``: its caller's)."""
        if self._savepoint is _DEFERRED:
            self.conn.raw.execute('SAVEPOINT "_gk_stmt"')
            self._savepoint = _OPEN

    # ---------------------------------------------------------------- planning helpers
    def _plan_key(self, stmt: SqlStatement, current_db: str | None) -> tuple[Any, dict[str, Any]]:
        """Return (plan or None, binding) using the shape cache; binding maps placeholder names to values."""
        tpl = stmt.template
        version: Any = self.storage.catalog.version
        if self.temp_key is not None:
            version = (version, self.temp_key)
        replace = bool(stmt.info.get("replace"))
        increment = self.div_precision_increment
        if increment is None:
            increment = self.div_increment()
        if increment != DIV_PRECISION_INCREMENT:
            version = (version, "div_precision_increment", increment)  # result types and values follow it
        mode_names = self.sql_mode().names  # read once for the two modes the plan follows
        unsigned_subtraction = "NO_UNSIGNED_SUBTRACTION" not in mode_names
        UNSIGNED_SUBTRACTION.set(unsigned_subtraction)  # for the typing of this statement's plan
        if not unsigned_subtraction:
            version = (version, "NO_UNSIGNED_SUBTRACTION")
        if "NO_BACKSLASH_ESCAPES" in mode_names:  # LIKE's default escape (engine/sql/like.py)
            version = (version, "NO_BACKSLASH_ESCAPES")
        if tpl is not None:
            key: tuple[Any, ...] = (tpl[0], current_db, version, replace)
            plan = self._plans.get(key)
            if type(plan) is _ByShape:
                key = (*key, _literal_shape(tpl[1], plan.positions))
                plan = self._plans.get(key)
            if plan is not _UNSAFE:
                params = {f"gk{i}": v for i, v in enumerate(tpl[1])}
                if plan is not None:
                    return plan, params
                try:
                    tree = parse_tree(tpl[0], replace=replace)
                except MySQLError as err:
                    if err.code not in (1064, 1582):
                        raise
                    # word the error after the text as written, not the template; a text that parses only with
                    # its literals (JSON_OBJECT('a', 1): sqlglot wants literal keys, and misreads placeholder keys
                    # into a wrong argument count of the call around them) is planned without the cache
                    parse_tree(stmt.text, replace=replace)
                    tree = None
                if tree is not None and _placeholders_safe(tree):
                    typed = _typed_literals(tree) if len(key) == 4 else ()
                    if len(key) == 4:  # and the literals compared with a string operand: a plan per kind
                        typed = tuple(sorted({*typed, *comparison.compared_literals(self, tree, current_db)}))
                    if typed:
                        self._remember(key, _ByShape(typed))
                        key = (*key, _literal_shape(tpl[1], typed))
                    self._literals = params
                    try:
                        plan = self._build(stmt.kind, tree, current_db, replace, tpl[0])
                    finally:
                        self._literals = {}
                    self._remember(key, plan)
                    return plan, params
                self._remember(key, _UNSAFE)
        key = (stmt.text, current_db, version, replace)
        plan = self._plans.get(key)
        if plan is None:
            tree = parse_tree(stmt.text, replace=replace)
            plan = self._build(stmt.kind, tree, current_db, replace, stmt.text)
            self._remember(key, plan)
        return plan, {}

    def named_tables(self, stmt: SqlStatement, current_db: str | None) -> tuple[tuple[str, str], ...]:
        """``(database, table)`` of every table ``stmt`` names (:func:`gtidkit.engine.sql.table_refs.tables_of`:
        the default schema for unqualified names, CTEs excluded), kept in the plan cache under the statement's
        plan key (its literal-free template and ``current_db``): a statement of a shape seen before is not parsed
        for it. A text sqlglot cannot parse names no table (the statement reports its own error when it runs)."""
        from gtidkit.engine.sql.table_refs import tables_of

        tpl = stmt.template
        key = ("named_tables", tpl[0] if tpl is not None else stmt.text, current_db)
        found = self._plans.get(key)
        if found is None:
            try:
                tree = stmt.tree
            except Exception:  # noqa: BLE001 - unparsable: the engine reports its own error when it runs it
                tree = None
            found = tables_of(tree, current_db)
            self._remember(key, found)
        return found  # type: ignore[no-any-return]

    def div_increment(self) -> int:
        """The session's ``div_precision_increment`` (cached in :attr:`div_precision_increment`)."""
        if self.div_precision_increment is None:
            value = DIV_PRECISION_INCREMENT
            if self.sysvar_resolver is not None:
                try:
                    value = int(self.sysvar_resolver("div_precision_increment", None))
                except (MySQLError, TypeError, ValueError):
                    value = DIV_PRECISION_INCREMENT
            self.div_precision_increment = value
        return self.div_precision_increment

    def _remember(self, key: Any, plan: Any) -> None:
        if len(self._plans) > _PLAN_CACHE_MAX:
            self._plans.clear()
        self._plans[key] = plan

    def _build(
        self, kind: str, tree: exp.Expression, current_db: str | None, replace: bool, source: str
    ) -> Any:
        if kind == "select":
            if not isinstance(tree, (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery)):
                raise not_supported(tree.key.upper())
            return self.plan_select(tree, current_db, source)
        from gtidkit.engine.sql.dml import plan_dml

        return plan_dml(self, tree, current_db, replace)

    # ---------------------------------------------------------------- table and variable rewriting
    def resolve_tables(self, tree: exp.Expression, current_db: str | None) -> tuple[list[TableDef], bool]:
        """Rewrite every table reference in ``tree`` to its physical SQLite name (in place).

        Returns (table definitions referenced, whether performance_schema.threads is read).

        Raises:
            MySQLError: 1046 no database selected; 1146 no such table.
        """
        catalog = self.storage.catalog
        ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
        found: list[TableDef] = []
        threads = False
        for t in list(tree.find_all(exp.Table)):
            if not t.name or isinstance(t.this, (exp.Func, exp.Unnest)):
                continue
            if not t.db and t.name.lower() in ctes:
                continue
            db = t.db or current_db
            tdef = self.require_table(db, t.name) if db else catalog.require_table(None, t.name)
            found.append(tdef)
            if tdef.schema == "performance_schema" and tdef.name == "threads":
                threads = True
            alias = t.alias
            t.meta["gk_table"] = tdef
            t.set("this", exp.to_identifier(physical_name(tdef.schema, tdef.name), quoted=True))
            t.set("db", None)
            t.set("catalog", None)
            if not alias:
                t.set("alias", exp.TableAlias(this=exp.to_identifier(t_name_for_alias(t, tdef), quoted=True)))
        for c in tree.find_all(exp.Column):
            if c.args.get("db") is not None:
                c.set("db", None)
            if c.args.get("catalog") is not None:
                c.set("catalog", None)
        return found, threads

    def bind_variables(self, tree: exp.Expression) -> list[tuple[str, str, str | None]]:
        """Replace ``@@x`` / ``@x`` nodes by placeholders; returns their (param, kind, scope) slots."""
        slots: list[tuple[str, str, str | None]] = []
        for node in list(tree.find_all(exp.SessionParameter, exp.Parameter)):
            i = len(slots)
            pname = f"gkv{i}"
            if isinstance(node, exp.SessionParameter):
                kind = node.args.get("kind")
                slots.append((pname, "sys:" + node.name.lower(), str(kind).upper() if kind else None))
            else:
                slots.append((pname, "user:" + node.name.lower(), None))
            node.replace(exp.Placeholder(this=pname))
        return slots

    def variable_value(self, slot: tuple[str, str, str | None]) -> Any:
        """Current value of one variable slot from :meth:`bind_variables`."""
        _, what, scope = slot
        kind, name = what.split(":", 1)
        if kind == "user":
            return self.user_variables.get(name)
        if self.sysvar_resolver is None:
            raise mysql_error(1193, name)
        return self.sysvar_resolver(name, scope)

    def sql_mode(self) -> SqlMode:
        """The session's ``@@sql_mode`` (MySQL 8's default when no session resolves variables, e.g. recovery, or
        the resolver does not know the variable)."""
        if self.sql_mode_source is not None:
            return parse_sql_mode(self.sql_mode_source())
        if self.sysvar_resolver is None:
            return parse_sql_mode(DEFAULT_SQL_MODE)
        try:
            return parse_sql_mode(self.sysvar_resolver("sql_mode", None))
        except MySQLError:
            return parse_sql_mode(DEFAULT_SQL_MODE)

    def field_store(self, *, ignore: bool = False) -> FieldStore:
        """A fresh :class:`FieldStore` for one DML statement: strict when ``@@sql_mode`` is strict and the
        statement has no IGNORE (manual "Server SQL Modes": "The IGNORE keyword ... converts errors to warnings").
        This is the one place the SQL layer reads the session's strictness."""
        mode = self.sql_mode()
        store = FieldStore(
            strict=mode.strict and not ignore,
            error_for_division_by_zero=mode.error_for_division_by_zero,
            no_zero_date="NO_ZERO_DATE" in mode.names,
            no_zero_in_date="NO_ZERO_IN_DATE" in mode.names,
        )
        self.dml_store = store
        return store

    def _divisor(self, v: Any) -> Any:
        """``_GK_DIVISOR(x)``, wrapped around the divisor of ``/``, DIV, ``%`` and MOD in the values a DML statement
        stores: a zero divisor is reported to the statement's :class:`FieldStore` and becomes NULL (so the
        quotient is NULL, as MySQL's)."""
        try:
            zero = v is not None and float(v) == 0
        except (TypeError, ValueError):
            zero = False
        if not zero:
            return v
        if self.dml_store is not None:
            self.dml_store.division_by_zero()
        return None

    def _json_columns(self, tree: exp.Expression, current_db: str | None) -> frozenset[str]:
        """Lowercase names of the JSON columns of the tables ``tree`` reads (for :func:`rewrite_json`)."""
        names: set[str] = set()
        for table in tree.find_all(exp.Table):
            t = table.meta.get("gk_table")  # set by resolve_tables
            if t is None and (table.db or current_db) and table.name:
                t = self.get_table(table.db or current_db, table.name)  # type: ignore[arg-type]
            if t is not None:
                names.update(c.name.lower() for c in t.columns if c.type == "json")
        return frozenset(names)

    def _typed_columns(
        self, tree: exp.Expression, current_db: str | None
    ) -> dict[str, tuple[str, int | None]]:
        """Lowercase names of the DATE / TIME / DATETIME / TIMESTAMP / DECIMAL columns of the tables ``tree``
        reads -> (kind letter, DECIMAL scale), for :func:`rewrite_json` (such values are typed JSON scalars)."""
        out: dict[str, tuple[str, int | None]] = {}
        for table in tree.find_all(exp.Table):
            t = table.meta.get("gk_table")
            if t is None and (table.db or current_db) and table.name:
                t = self.get_table(table.db or current_db, table.name)  # type: ignore[arg-type]
            if t is not None:
                for c in t.columns:
                    kind = JSON_COLUMN_KINDS.get(c.type)
                    if kind is not None:
                        out[c.name.lower()] = (kind, (c.scale or 0) if c.type == "decimal" else None)
        return out

    def no_backslash_escapes(self) -> bool:
        """The session's ``@@sql_mode`` has NO_BACKSLASH_ESCAPES (a LIKE then has no default escape)."""
        return "NO_BACKSLASH_ESCAPES" in self.sql_mode().names

    def fix_functions(self, tree: exp.Expression, current_db: str | None) -> exp.Expression:
        """Replace MySQL functions sqlglot maps wrongly for SQLite (DATABASE(), VERSION(), RAND(), and the
        rewrites of :func:`gtidkit.engine.sql.functions.rewrite_for_sqlite`)."""
        # first: it reads the operands as MySQL wrote them
        comparison.rewrite_comparisons(tree, self._literals.get)
        recursion.limit_recursion(tree)
        # checks each plain call against the function table: an unknown name is 1305 / 1046, a wrong count 1582
        rewrite_for_sqlite(tree, current_db)
        default_like_escape(tree, not self.no_backslash_escapes())
        rewrite_checksum(tree)
        rewrite_group_concat(tree)
        qualify_order_by(tree)
        rewrite_json(tree, self._json_columns(tree, current_db), self._typed_columns(tree, current_db))
        decimal_math.rewrite_exact(tree, _type_resolver(tree), self._literals.get, self.div_increment())
        assignments = [n for n in tree.find_all(exp.PropertyEQ) if isinstance(n.this, exp.Parameter)]
        for node in assignments:
            # SELECT @a := expr (deprecated in 8.0.13+, still run by 8.4): a function that stores the value
            node.replace(
                exp.Anonymous(
                    this=SET_USER_VAR_FUNCTION,
                    expressions=[exp.Literal.string(node.this.name.lower()), node.expression],
                )
            )
        if assignments:
            # reads of @x in a statement that also assigns must see the assignments made so far (MySQL
            # evaluates left to right per row), so they are function calls rather than values bound once
            for node in list(tree.find_all(exp.Parameter)):
                node.replace(
                    exp.Anonymous(
                        this=GET_USER_VAR_FUNCTION, expressions=[exp.Literal.string(node.name.lower())]
                    )
                )
        sites = 0  # each RAND(N) of a statement draws from a sequence of its own (its own Item_func_rand)
        for node in list(tree.find_all(exp.CurrentSchema, exp.CurrentVersion, exp.Rand, exp.SessionUser)):
            if isinstance(node, exp.SessionUser):  # sqlglot writes SESSION_USER bare: a column to SQLite
                node.replace(exp.Anonymous(this="SESSION_USER"))
            elif isinstance(node, exp.CurrentSchema):
                node.replace(exp.Placeholder(this="gkdb"))
            elif isinstance(node, exp.CurrentVersion):
                node.replace(exp.Placeholder(this="gkver"))
            else:  # RAND(N) keeps its seed and names its call site: MySQL's sequence seeded from N
                seed = node.args.get("this")
                args = [] if seed is None else [seed, exp.Literal.number(sites)]
                sites += seed is not None
                node.replace(exp.Anonymous(this="_GK_RAND", expressions=args))
        return tree

    # ---------------------------------------------------------------- SELECT
    def plan_select(
        self, tree: exp.Expression, current_db: str | None, source: str | None = None
    ) -> SelectPlan | ConstPlan:
        """Plan a SELECT tree (mutated in place); ``source`` is the text it was parsed from (result column names
        are taken from it, as MySQL names a computed column after the expression as written)."""
        if isinstance(tree, exp.Select):
            frm = tree.args.get("from_")
            if (
                frm is not None
                and isinstance(frm.this, exp.Table)
                and not frm.this.db
                and frm.this.name.upper() == "DUAL"
                and not tree.args.get("joins")
            ):
                tree.set("from_", None)  # SELECT ... FROM DUAL: MySQL's dummy table
        if isinstance(tree, exp.Select) and tree.args.get("from_") is None and not tree.args.get("joins"):
            const = self._const_plan(tree, source)
            if const is not None:
                return const
        if isinstance(tree, exp.Select) and tree.args.get("locks"):
            tree.set("locks", None)  # FOR UPDATE / LOCK IN SHARE MODE: writers are serialised anyway
        found, threads = self.resolve_tables(tree, current_db)
        if found:  # CHARSET() / COLLATION() / COERCIBILITY() of a column: its definition's
            charset_literals.column_charset_functions(
                tree,
                [
                    (str(t.alias_or_name), t.meta["gk_table"])
                    for t in tree.find_all(exp.Table)
                    if "gk_table" in t.meta
                ],
            )
        if isinstance(tree, exp.Select) and any(c.invisible for t in found for c in t.columns):
            _expand_visible_star(tree)
        if any(c.type in ENUM_SET_TYPES for t in found for c in t.columns):
            numeric_rewrite(
                tree, self._literals.get
            )  # ENUM / SET in arithmetic, numeric comparisons and ORDER BY: index / bits
        virtual = tuple(sorted({(t.schema, t.name) for t in found if (t.schema, t.name) in VIRTUAL_TABLES}))
        columns = None
        metadata = (
            _projection_metadata(tree, source, self._literals.get, self.div_increment())
            if isinstance(tree, exp.Select)
            else None
        )
        if isinstance(tree, exp.Select):
            names = []
            star = False
            for i, proj in enumerate(tree.expressions):
                if isinstance(proj, exp.Alias):
                    names.append(proj.alias)
                elif isinstance(proj, exp.Column) and not isinstance(proj.this, exp.Star):
                    names.append(proj.name)
                elif isinstance(proj, exp.Star) or (
                    isinstance(proj, exp.Column) and isinstance(proj.this, exp.Star)
                ):
                    star = True
                    names.append("*")
                else:
                    name = _item_name(proj, source)
                    names.append(name)
                    proj.replace(exp.alias_(proj.copy(), name, quoted=True))
            columns = None if star else tuple(names)
        elif isinstance(tree, exp.SetOperation):
            # a UNION's columns are named after its first SELECT's items as written (the exact-arithmetic
            # rewrite below must not show through the names SQLite reports)
            first = tree
            while isinstance(first, exp.SetOperation):
                first = first.this
            if isinstance(first, exp.Select):
                for proj in list(first.expressions):
                    if not isinstance(proj, (exp.Alias, exp.Column, exp.Star)):
                        proj.replace(exp.alias_(proj.copy(), _item_name(proj, source), quoted=True))
                metadata = _union_metadata(tree, first, self._literals.get, self.div_increment())
        decimals = _decimal_columns(tree) if isinstance(tree, exp.Select) else None
        temporal.localize_tables(tree)  # TIMESTAMP columns read in the session time zone (after the metadata)
        convert = _converters(metadata, decimals)
        if isinstance(tree, exp.Select):
            _exact_literals(tree)
        reads_json = bool(self._json_columns(tree, current_db))
        self.fix_functions(tree, current_db)
        slots = self.bind_variables(tree)
        sql = tree.sql(dialect=SQLITE, identify=True)
        sort = reader_sort(tree, sql, self.conn.raw) if self.conn.rows_reader() is not None else None
        return SelectPlan(
            sql=sql,
            reader_sort=sort,
            columns=columns,
            variables=tuple(slots),
            needs_threads=threads,
            decimals=decimals,
            convert=convert,
            metadata=metadata,
            virtual=virtual,
            reads_json=reads_json or "_GK_JSON_" in sql or "_GK_CAST_JSON" in sql,
        )

    def _const_plan(self, tree: exp.Select, source: str | None = None) -> ConstPlan | None:
        simple = (
            exp.Literal,
            exp.Null,
            exp.Boolean,
            exp.Placeholder,
            exp.SessionParameter,
            exp.Parameter,
            exp.Neg,
            exp.Paren,
            exp.Alias,
            exp.Anonymous,
            exp.Var,
            exp.Identifier,
            exp.Column,
        )
        for key in tree.args:
            if (
                key not in ("expressions", "kind", "hint", "distinct", "operation_modifiers")
                and tree.args[key]
            ):
                return None
        names = []
        for proj in tree.expressions:
            for n in proj.walk():
                if not isinstance(n, simple):
                    return None
                if isinstance(n, exp.Anonymous) and n.name.upper() not in self.functions:
                    return None
                if isinstance(n, exp.Column) and not isinstance(n.parent, (exp.SessionParameter,)):
                    return None
            names.append(_item_name(proj, source))
        function_table.check_calls(tree, self.current_db)  # GTID_SUBSET('x'): 1582
        return ConstPlan(
            items=tuple(p.this if isinstance(p, exp.Alias) else p for p in tree.expressions),
            columns=tuple(names),
        )

    def _const_eval(self, node: exp.Expression, params: dict[str, Any]) -> Any:
        if isinstance(node, exp.Null):
            return None
        if isinstance(node, exp.Boolean):
            return int(node.this)
        if isinstance(node, exp.Literal):
            if node.is_string:
                return node.this
            t = node.this
            return int(t) if re.fullmatch(r"\d+", t) else Decimal(t)
        if isinstance(node, exp.Placeholder):
            return params[node.name]
        if isinstance(node, exp.Paren):
            return self._const_eval(node.this, params)
        if isinstance(node, exp.Neg):
            v = self._const_eval(node.this, params)
            if isinstance(v, Decimal):
                return (
                    v.copy_negate()
                )  # exact: a 65-digit DECIMAL literal keeps its digits (no context rounding)
            return None if v is None else -v
        if isinstance(node, exp.SessionParameter):
            kind = node.args.get("kind")
            return self.variable_value(("", "sys:" + node.name.lower(), str(kind).upper() if kind else None))
        if isinstance(node, exp.Parameter):
            return self.user_variables.get(node.name.lower())
        if isinstance(node, exp.Anonymous):
            fn = self.functions[node.name.upper()]
            args = [self._const_eval(a, params) for a in node.expressions]
            return fn(*args)  # the count was checked against the function table as the statement was planned
        raise not_supported(node.sql(dialect="mysql"))

    def _select(self, stmt: SqlStatement, current_db: str | None) -> ExecResult:
        plan, params = self._plan_key(stmt, current_db)
        bound = getattr(stmt, "params", None)  # a prepared statement's parameters (:gp<i>)
        if bound:
            params = {**params, **bound}
        if isinstance(plan, ConstPlan):
            row = tuple(self._const_eval(i, params) for i in plan.items)
            _check_finite((row,), plan.columns)
            meta = tuple(self._const_metadata(n, i, v) for n, i, v in zip(plan.columns, plan.items, row))
            convert = _converters(meta, None)
            if convert is not None:
                row = tuple(v if f is None else f(v) for f, v in zip(convert, row))
            return ExecResult(columns=list(plan.columns), rows=[row], metadata=meta)
        return self.run_select_plan(plan, params, current_db)

    def prepared_plan(self, stmt: SqlStatement, slot: PreparedPlan, current_db: str | None) -> PreparedPlan:
        """``slot`` holding the plan of the prepared statement ``stmt`` (its template's statement) for
        ``current_db``: planned (through the shared plan cache, as :meth:`execute` plans) only when the slot was
        made for another default database, catalog version, temporary-table set or div_precision_increment (what
        the shared cache keys plans on besides the text, which a prepared statement never changes).

        Raises:
            MySQLError: the planning errors of :meth:`execute`.
        """
        key = self._prepared_key(current_db)
        if slot.key != key:
            plan, params = self._plan_key(stmt, current_db)
            slot.key = None  # stays unusable if binding the literals fails
            slot.plan = plan
            slot.binds = {k: bindable(v) for k, v in params.items()}
            slot.params = params
            slot.simple = (
                type(plan) is SelectPlan
                and not plan.variables
                and not plan.needs_threads
                and not plan.virtual
                and ":gkdb" not in plan.sql
                and ":gkver" not in plan.sql
            )
            slot.plain = slot.simple and _plain_rows(plan)
            slot.columns = None
            slot.key = key
        return slot

    def _prepared_key(self, current_db: str | None) -> tuple[Any, ...]:
        increment = self.div_precision_increment
        if increment is None:
            increment = self.div_increment()
        return (current_db, self.storage.catalog.version, self.temp_key, increment)

    def plan_is_current(self, slot: PreparedPlan, current_db: str | None) -> bool:
        """True when ``slot`` holds a plan :meth:`prepared_plan` would keep for ``current_db`` now (False too while
        div_precision_increment is to be read again after a SET: :meth:`prepared_plan` decides then)."""
        key = slot.key
        return (
            key is not None
            and key[0] == current_db
            and key[1] == self.storage.catalog.version
            and key[2] == self.temp_key
            and key[3] == self.div_precision_increment
        )

    def run_prepared_select(
        self,
        slot: PreparedPlan,
        values: Any,
        current_db: str | None,
        timeout_ms: int = 0,
        cte_limit: int = 1000,
    ) -> (
        tuple[list[str], list[tuple[Any, ...]], tuple[Column | None, ...] | None, list[tuple[str, int, str]]]
        | None
    ):
        """Run a prepared SELECT whose :meth:`prepared_plan` slot is ``simple`` (a :class:`SelectPlan` reading no
        variable, virtual table or ``:gkdb`` / ``:gkver``), with its parameters ``values`` (``gp<i>`` -> value
        as :func:`bindable` returns it): what :meth:`execute` does for it, without an :class:`ExecResult`. None,
        with nothing run, when the slot's plan is not current (:meth:`plan_is_current`: :meth:`prepared_plan`
        plans it again first).

        Args:
            slot: the statement's plan slot (:meth:`prepared_plan`).
            values: the parameters' binds.
            current_db: the default schema.
            timeout_ms: when the SELECT must stop with 3024, in milliseconds from now: its
                ``/*+ MAX_EXECUTION_TIME(ms) */`` hint, else the session's ``max_execution_time``; 0: never (what
                :meth:`note_hints` and :meth:`select_deadline` work out for a text SELECT, given directly: the
                prepared statement read its hint once).
            cte_limit: the session's ``cte_max_recursion_depth`` (3636 past it).

        Returns:
            (column names, rows, metadata, warnings) as :meth:`run_select_plan` puts them in its result, or None.

        Raises:
            MySQLError: as :meth:`execute`.
        """
        key = slot.key  # plan_is_current(slot, current_db), inline
        if (
            key is None
            or key[0] != current_db
            or key[1] != self.storage.catalog.version
            or key[2] != self.temp_key
            or key[3] != self.div_precision_increment
        ):
            return None
        self.current_db = current_db
        if self.interrupt.is_set():
            self.interrupt.clear()
        if self.seeded_rand:
            self.seeded_rand.clear()
        binds = slot.binds.copy()
        binds.update(values)
        self.cte_limit = cte_limit
        self._interruptible = True
        if timeout_ms:  # max_execution_time / the hint, as :meth:`execute` sets it
            self.deadline = time.monotonic() + timeout_ms / 1000
        try:
            if slot.plain:
                return self._run_plain(slot.plan, binds)
            return self._run_plan(slot.plan, binds)
        finally:
            self._interruptible = False
            self.deadline = 0.0

    def _run_plain(
        self, plan: SelectPlan, binds: dict[str, Any]
    ) -> tuple[list[str], list[tuple[Any, ...]], Any, list[tuple[str, int, str]]]:
        """:meth:`_run_plan` of a plan :func:`_plain_rows` accepts: the same steps without the conversions such a
        plan cannot need (DECIMAL / JSON values, ``@@variable`` metadata), read by the compiled reader; what the
        reader leaves to the sqlite3 module (text that is no UTF-8), and everything without the reader, goes to
        :meth:`_run_plan`, which reads the rows again."""
        reader = self.conn.rows_reader()
        if reader is None or not self._functions_synced():
            return self._run_plan(plan, binds)
        self.group_concat_rows[0] = 0
        if self.udf_warnings:
            self.udf_warnings = []
        self._udf_error = None
        sort = plan.reader_sort
        try:
            if sort is None:
                rows = reader.run(plan.sql, binds)
            else:  # ORDER BY / DISTINCT done on the rows read (reader_sort.py); None: SQLite's
                rows = reader.run_sorted(sort.sql, binds, sort.keys, sort.distinct)
        except _db.Error as err:
            raise self.translate_error(err, plan.sql) from err
        if rows is None:
            return self._run_plan(plan, binds, use_reader=False)
        if rows and reader.floats != 0:  # the reader counted the floats, the only values that can be infinite
            _check_finite(rows, plan.columns)  # type: ignore[arg-type]  # _plain_rows: columns are known
        warnings = self.udf_warnings
        if warnings:
            self.udf_warnings = []
        else:
            warnings = []
        return list(plan.columns), rows, plan.metadata, warnings  # type: ignore[arg-type]

    def run_select_plan(self, plan: SelectPlan, params: dict[str, Any], current_db: str | None) -> ExecResult:
        """Execute a :class:`SelectPlan` with placeholder values ``params``."""
        binds = {k: bindable(v) for k, v in params.items()}
        for slot in plan.variables:
            binds[slot[0]] = bindable(self.variable_value(slot))
        if ":gkdb" in plan.sql:
            binds["gkdb"] = current_db
        if ":gkver" in plan.sql:
            binds["gkver"] = self.server_version()
        if plan.needs_threads:
            self._fill_threads()
        for schema, name in plan.virtual:
            self._fill_virtual(schema, name)
        sql = None
        if self.describe_only:  # PREPARE: the columns only, SQLite stops before the first row (LIMIT 0)
            sql = f"SELECT * FROM ({plan.sql}) LIMIT 0"
        cols, rows, meta, warnings = self._run_plan(plan, binds, sql)
        return ExecResult(columns=cols, rows=rows, metadata=meta, warnings=warnings)

    def _rerun_keeping_bytes(self, sql: str, binds: Any) -> tuple[Any, list[Any]]:
        """Run a SELECT again whose text result held bytes that are no UTF-8 (a string function over a literal
        the client sent with bytes invalid in its character set): its text values read with surrogate escapes
        for those bytes, which the wire sends back as the bytes they were (MySQL returns a literal's bytes
        unchecked). Only then, as a per-value Python decoder slows every text column."""
        self.group_concat_rows[0] = 0
        if self.udf_warnings:
            self.udf_warnings = []
        raw = self.conn.raw
        before = raw.text_factory
        raw.text_factory = _surrogate_text
        try:
            cur = self.run_sqlite(sql, binds)
            return cur, cur.fetchall()
        except _db.Error as err:
            raise self.translate_error(err, sql) from err
        finally:
            raw.text_factory = before

    def _run_plan(
        self, plan: SelectPlan, binds: dict[str, Any], sql: str | None = None, *, use_reader: bool = True
    ) -> tuple[
        list[str], list[tuple[Any, ...]], tuple[Column | None, ...] | None, list[tuple[str, int, str]]
    ]:
        """Run ``plan.sql`` (or ``sql``, the text SQLite runs in its place: PREPARE's ``LIMIT 0``) with ``binds``
        (every placeholder's value, as sqlite3 binds it): (column names, rows converted to the columns' MySQL
        types, metadata, warnings). ``use_reader=False``: the compiled reader declined these rows already."""
        if not self._functions_synced():
            self._sync_functions()
        self.group_concat_rows[0] = 0
        if self.udf_warnings:
            self.udf_warnings = []
        rows = None
        floats = None  # FLOAT values in rows, when the reader read them
        # the compiled reader (engine/sql/fast_rows.py): the same rows and errors as the sqlite3 module's fetchall,
        # without a GIL hand-over per row; None: the module's way answers (text that is no UTF-8, for one)
        reader = self.conn.rows_reader() if use_reader and sql is None and plan.columns else None
        if reader is not None:
            self._udf_error = None
            sort = plan.reader_sort
            try:
                if sort is None:
                    rows = reader.run(plan.sql, binds)
                else:  # ORDER BY / DISTINCT done on the rows read (reader_sort.py); None: SQLite's below
                    rows = reader.run_sorted(sort.sql, binds, sort.keys, sort.distinct)
            except _db.Error as err:
                raise self.translate_error(err, plan.sql) from err
            if rows is not None:
                floats = reader.floats
        if rows is None:
            cur = self.run_sqlite(sql or plan.sql, binds)
            try:
                rows = cur.fetchall()
            except _db.Error as err:  # a UDF (or KILL QUERY) stopping the statement after its first rows
                if not str(err).startswith(_NOT_UTF8):
                    raise self.translate_error(err, plan.sql) from err
                cur, rows = self._rerun_keeping_bytes(plan.sql, binds)
        if rows:
            if floats != 0:  # the reader counted the floats, the only values that can be infinite
                _check_finite(rows, plan.columns or [d[0] for d in cur.description or ()])
            if plan.decimals is not None and len(plan.decimals) == len(rows[0]):
                conv = plan.decimals
                rows = [tuple(v if c is None else result_value(c, v) for c, v in zip(conv, r)) for r in rows]
            if plan.convert is not None and len(plan.convert) == len(rows[0]):
                fns = plan.convert
                rows = [tuple(v if f is None else f(v) for f, v in zip(fns, r)) for r in rows]
        cols = list(plan.columns) if plan.columns is not None else [d[0] for d in cur.description or ()]
        meta = None
        json_at: Any = ()
        if plan.metadata is not None and len(plan.metadata) == len(cols):
            meta = plan.metadata
            json_at = plan.json_columns
            if plan.variable_metadata:  # an @@variable's metadata follows its value
                meta = tuple(
                    self._sysvar_metadata(cols[i], m, rows[0][i] if rows else None) if type(m) is str else m
                    for i, m in enumerate(meta)
                )
                json_at = [
                    i
                    for i, m in enumerate(meta)
                    if isinstance(m, Column) and m.type == FieldType.MYSQL_TYPE_JSON
                ]
        if rows and plan.reads_json:
            # a JSON value holding DATE / TIME / DECIMAL scalars is stored marked: the client sees MySQL's text
            rows = [tuple(printed_text(v) if type(v) is str else v for v in r) for r in rows]
        elif rows and json_at:  # JSON columns (json_at is empty without metadata)
            rows = [tuple(printed_text(v) if i in json_at else v for i, v in enumerate(r)) for r in rows]
        warnings = self.udf_warnings
        if warnings:
            self.udf_warnings = []
        else:
            warnings = []
        return cols, rows, meta, warnings

    def _sysvar_metadata(self, name: str, var: str, value: Any) -> Column:
        kind = self.sysvar_kind(var) if self.sysvar_kind is not None else None
        return sysvar_column(name, value, kind)

    def _const_metadata(self, name: str, node: exp.Expression, value: Any) -> Column | None:
        """Metadata of one item of a SELECT without tables (literal, ``@@var``, ``@var``), else None."""
        if isinstance(node, exp.SessionParameter):
            kind = self.sysvar_kind(node.name) if self.sysvar_kind is not None else None
            return sysvar_column(name, value, kind)
        if isinstance(node, exp.Parameter):
            return user_variable_column(name, value)
        return expression_column(name, node, self._literals.get)

    def server_version(self) -> str:
        """The ``version`` system variable (VERSION()), falling back to :data:`SERVER_VERSION`."""
        if self.sysvar_resolver is not None:
            try:
                return str(self.sysvar_resolver("version", None))
            except MySQLError:
                pass
        return SERVER_VERSION

    def _fill_virtual(self, schema: str, name: str) -> None:
        """Fill the temporary table standing for ``schema.name`` from :attr:`virtual_tables` (read per query)."""
        provider = self.virtual_tables.get((schema, name)) or self.storage.table_providers.get((schema, name))
        rows = provider() if provider is not None else []
        tdef = self.storage.catalog.require_table(schema, name)
        cols = [c.name for c in tdef.columns]
        phys = quote_ident(physical_name(schema, name))
        raw = self.conn.raw
        raw.execute(f"CREATE TEMP TABLE IF NOT EXISTS {phys} ({', '.join(quote_ident(c) for c in cols)})")
        raw.execute(f"DELETE FROM temp.{phys}")
        raw.executemany(
            f"INSERT INTO temp.{phys} VALUES ({', '.join('?' * len(cols))})",
            [tuple(bindable(v) for v in r) for r in rows],
        )

    def _fill_threads(self) -> None:
        raw = self.conn.raw
        name = quote_ident(physical_name("performance_schema", "threads"))
        cols = ", ".join(quote_ident(c) for c in THREADS_COLUMNS)
        raw.execute(f"CREATE TEMP TABLE IF NOT EXISTS {name} ({cols})")
        raw.execute(f"DELETE FROM temp.{name}")
        provider = self.storage.threads_provider
        rows = provider() if provider is not None else []
        raw.executemany(
            f"INSERT INTO temp.{name} VALUES ({', '.join('?' * len(THREADS_COLUMNS))})",
            [tuple(bindable(r.get(c)) for c in THREADS_COLUMNS) for r in rows],
        )

    def clear_udf_error(self) -> None:
        """Forget a UDF error left over from an earlier statement (call before running SQLite text directly)."""
        self._udf_error = None

    def run_sqlite(self, sql: str, params: dict[str, Any] | tuple = ()) -> _db.Cursor:
        """Execute SQLite text, translating driver errors into MySQL errors (1054, 1052, 1305 ...)."""
        self._udf_error = None
        try:
            return self.conn.raw.execute(sql, params)
        except _db.Error as err:
            raise self.translate_error(err, sql) from err

    def translate_error(self, err: _db.Error, sql: str = "") -> Exception:
        """Map a sqlite3 error to MySQL's (a UDF's own MySQLError wins)."""
        if self._udf_error is not None:
            e, self._udf_error = self._udf_error, None
            return e
        text = str(err)
        if text == "interrupted":  # the progress handler saw KILL QUERY or the SELECT's deadline
            if self.timed_out:
                self.timed_out = False
                return mysql_error(3024)
            return mysql_error(1317)
        m = re.match(r"no such column: (.+)", text)
        if m:
            return mysql_error(1054, m.group(1), _clause_of(sql, m.group(1)))
        m = re.match(r"no such table: (?:main\.|temp\.)?(.+)", text)
        if m:
            # the catalog (shared) already shows a table another session created but has not committed yet
            return MySQLError(1146, f"Table '{m.group(1)}' doesn't exist", "42S02")
        m = re.match(r"ambiguous column name: (.+)", text)
        if m:
            return mysql_error(1052, m.group(1), "field list")
        m = re.match(r"no such function: (.+)", text)
        if m:
            return function_table.unknown_function(m.group(1), self.current_db)
        m = re.match(r"wrong number of arguments to function (\w+)", text)
        if m:
            return mysql_error(1582, m.group(1))
        if "locked" in text or "busy" in text:
            return mysql_error(1205)
        if text == "row value misused":  # `SELECT (1, 2)`: a row where a scalar is needed
            return mysql_error(1241, 1)
        if text == "no tables specified":  # `SELECT *` without FROM
            return mysql_error(1096)
        if text.startswith(
            "misuse of aggregate"
        ):  # an aggregate where none may be (an outer column's AVG in a
            return mysql_error(1111)  # subquery without FROM): ER_INVALID_GROUP_FUNC_USE
        m = re.match(r'unrecognized token: "(.*)"', text, re.DOTALL)
        if m:  # a character SQLite's lexer refuses where the statement held no valid token (`$1(...)`)
            return parse_error(m.group(1), 0)
        if (
            text == "the query contains a null character"
        ):  # a NUL where no literal may hold it (a quoted alias)
            return parse_error("", None)
        m = re.match(r"cannot join using column (.+) - column not present in both tables", text)
        if m:
            return mysql_error(1054, m.group(1), "from clause")
        m = re.match(r"(\d+)(?:st|nd|rd|th) (ORDER|GROUP) BY term out of range", text)
        if m:  # ORDER BY 9 with fewer select items: MySQL resolves the position as a column and fails
            return mysql_error(
                1054,
                _by_term(sql, m.group(2), int(m.group(1))),
                "order clause" if m.group(2) == "ORDER" else "group statement",
            )
        if (
            text == "incomplete input"
        ):  # a statement cut short (`INSERT INTO t SELECT`): MySQL's near '' at line 1
            return parse_error("", None)
        if isinstance(err, _db.OperationalError) and "syntax error" in text:
            return not_supported(f"SQL construct ({text})")
        return unknown_error(f"Unknown error: {text}")

    # ---------------------------------------------------------------- DML / DDL
    def _dml(self, stmt: SqlStatement, current_db: str | None) -> ExecResult:
        from gtidkit.engine.sql.dml import run_dml

        slot = stmt.info.get(
            "prepared_plan"
        )  # a prepared statement's: planned once per schema / catalog version
        planned = stmt.info.get("plan")  # planned by its caller (LOAD DATA's rows: dml.constant_insert_plan)
        if planned is not None:
            return run_dml(self, planned, {}, current_db, reused=False)  # one execution: its facts not kept
        binds = None
        if slot is not None:
            self.prepared_plan(stmt, slot, current_db)
            plan, params = slot.plan, slot.params
            binds = slot.binds.copy()  # its literals converted once per plan; the copy is this execution's
        else:
            plan, params = self._plan_key(stmt, current_db)
        bound = getattr(stmt, "params", None)  # a prepared statement's parameters (:gp<i>)
        if bound:
            params = {**params, **bound}
            if binds is not None:
                for k, v in bound.items():
                    binds[k] = bindable(v)
        self._sync_functions()
        return run_dml(self, plan, params, current_db, binds)

    def check(self, stmt: SqlStatement, current_db: str | None) -> None:
        """Plan a DML statement without running it (PREPARE): unknown tables and columns fail now.

        Raises:
            MySQLError: the planning errors of :meth:`execute` (1046, 1146, 1054 ...).
        """
        self.current_db = current_db
        self._plan_key(stmt, current_db)

    def literal_value(self, name: str) -> Any:
        """The value of a statement template's ``:gk<i>`` literal while its plan is built (None otherwise)."""
        return self._literals.get(name)

    def schema_charset(self, db: str) -> tuple[str, str] | None:
        """Default ``(character set, collation)`` of database ``db`` (None when it does not exist), which a
        CREATE TABLE without its own takes."""
        catalog = self.storage.catalog
        return catalog.schema_charset(db) if catalog.has_schema(db) else None

    def _create_like(self, tree: exp.Create, src: exp.Table, current_db: str | None) -> ExecResult:
        """``CREATE TABLE t LIKE src``: same columns, keys and options, no rows (MySQL copies the definition)."""
        from dataclasses import replace as dc_replace

        catalog = self.storage.catalog
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        db = target.db or current_db
        if db is None:
            raise mysql_error(1046)
        source = self.require_table(src.db or current_db, src.name)
        if source.table_type != "BASE TABLE":
            raise not_supported("CREATE TABLE ... LIKE a system view")
        if not catalog.has_schema(db):
            raise mysql_error(1049, db)
        tdef = dc_replace(source, schema=catalog.canonical_schema(db), name=target.name)
        if _is_temporary(tree):
            from gtidkit.engine.sql import temporary as temp

            self.temp_used = True
            return temp.create(self, tdef, if_not_exists=bool(tree.args.get("exists")))
        if not catalog.create_table(self.conn, tdef, if_not_exists=bool(tree.args.get("exists"))):
            return ExecResult(warnings=[("Note", 1050, f"Table '{tdef.name}' already exists")])
        return ExecResult()

    def _ddl(self, stmt: SqlStatement, current_db: str | None) -> ExecResult:
        first = stmt.text.split(None, 1)[0].upper() if stmt.text.strip() else ""
        if first == "RENAME":
            from gtidkit.engine.sql.alter import run_rename

            return run_rename(self, stmt.text, current_db)
        m = _ALTER_DB.match(stmt.text)
        if m:
            self.storage.catalog.alter_schema(self.conn, _unquote_id(m.group(1)), m.group(2), m.group(3))
            return ExecResult(affected_rows=1)
        if first == "ALTER" and "KEYS" in stmt.text.upper():
            from gtidkit.engine.sql.alter import KEYS_ONOFF, run_keys_onoff

            m = KEYS_ONOFF.match(stmt.text)
            if m:
                return run_keys_onoff(self, m.group(1), current_db)
        tree = stmt.tree
        if self.temp_tables:
            self._refuse_temporary_ddl(tree, current_db)
        if isinstance(tree, exp.Alter):
            from gtidkit.engine.sql.alter import run_alter

            return run_alter(self, tree, current_db)
        catalog = self.storage.catalog
        conn = self.conn
        warnings: list[tuple[str, int, str]] = []
        if isinstance(tree, exp.Create):
            kind = str(tree.args.get("kind") or "").upper()
            temporary = kind == "TABLE" and _is_temporary(tree)
            if kind == "TABLE" and isinstance(tree.args.get("expression"), (exp.Select, exp.SetOperation)):
                from gtidkit.engine.sql import create_select

                return create_select.run(self, tree, stmt.text, current_db, temporary=temporary)
            if kind == "TABLE" and _like_source(tree) is not None:
                return self._create_like(tree, _like_source(tree), current_db)  # type: ignore[arg-type]
            if temporary:
                from gtidkit.engine.sql import temporary as temp

                tdef, if_not_exists = parse_create_table(
                    tree, current_db, temporary=True, schema_charset=self.schema_charset
                )
                self.temp_used = True
                return temp.create(self, tdef, if_not_exists=if_not_exists)
            if kind == "TABLE":
                tdef, if_not_exists = parse_create_table(tree, current_db, schema_charset=self.schema_charset)
                if not catalog.has_schema(tdef.schema):
                    raise mysql_error(1049, tdef.schema)
                if not catalog.create_table(conn, tdef, if_not_exists=if_not_exists):
                    warnings.append(("Note", 1050, f"Table '{tdef.name}' already exists"))
                return ExecResult(warnings=warnings)
            if kind in ("DATABASE", "SCHEMA"):
                name = tree.this.name
                cs = coll = None
                for p in (tree.args.get("properties") or exp.Properties()).expressions:
                    if isinstance(p, exp.CharacterSetProperty):
                        cs = p.this.name
                    elif isinstance(p, exp.CollateProperty):
                        coll = p.this.name
                if not catalog.create_schema(
                    conn, name, if_not_exists=bool(tree.args.get("exists")), charset=cs, collation=coll
                ):
                    warnings.append(("Note", 1007, f"Can't create database '{name}'; database exists"))
                    return ExecResult(warnings=warnings)
                return ExecResult(affected_rows=1)
            if kind == "VIEW":
                from gtidkit.engine.sql import views

                return views.create_view(self, tree, stmt.text, current_db)
            if kind == "INDEX":
                db, table, ix = parse_create_index(tree, current_db)
                try:
                    catalog.create_index(conn, db, table, ix)
                except _db.IntegrityError as err:  # the rows already hold a duplicate of the new unique key
                    from gtidkit.engine.sql.dml import duplicate_in_rows

                    raise duplicate_in_rows(conn, self.require_table(db, table), ix) from err
                return ExecResult()
            raise statement_error(stmt.text)
        if isinstance(tree, exp.Drop):
            kind = str(tree.args.get("kind") or "").upper()
            if_exists = bool(tree.args.get("exists"))
            if kind == "TABLE":
                from gtidkit.engine.sql import temporary as temp

                names = list(tree.args.get("tables") or [tree.this])
                if tree.args.get("temporary"):
                    return temp.drop(self, names, current_db, if_exists=if_exists)
                missing = []
                targets = []
                dropped_temp = []
                for t in tree.args.get("tables") or [tree.this]:
                    db = t.db or current_db
                    if db is None:
                        raise mysql_error(1046)
                    key = (catalog.canonical_schema(db), t.name)
                    if key in self.temp_tables:  # DROP TABLE drops a temporary table of that name first
                        dropped_temp.append(key)
                        continue
                    tdef = catalog.get_table(db, t.name)
                    if tdef is None or tdef.table_type == "VIEW":  # DROP TABLE of a view: 1051 (RM8 15.1.32)
                        missing.append(f"{db}.{t.name}")
                    else:
                        targets.append(tdef)
                if missing and not if_exists:
                    raise mysql_error(1051, ",".join(missing))
                for key in dropped_temp:
                    temp.drop_one(self, key)
                for tdef in targets:
                    catalog.drop_table(conn, tdef.schema, tdef.name)
                warnings += [("Note", 1051, f"Unknown table '{m}'") for m in missing]
                return ExecResult(warnings=warnings)
            if kind == "VIEW":
                from gtidkit.engine.sql import views

                names = list(tree.args.get("tables") or [tree.this])
                return views.drop_views(self, names, current_db, if_exists=if_exists)
            if kind in ("DATABASE", "SCHEMA"):
                name = (tree.this or tree.args["tables"][0]).name
                dropped = catalog.drop_schema(conn, name, if_exists=if_exists)
                if dropped is None:
                    warnings.append(("Note", 1008, f"Can't drop database '{name}'; database doesn't exist"))
                    return ExecResult(warnings=warnings)
                res = ExecResult(affected_rows=len(dropped))
                if current_db is not None and catalog.canonical_schema(name) == current_db:
                    res.new_db = ""
                return res
            if kind == "INDEX":
                on = tree.args.get("cluster")
                table = on.this if isinstance(on, exp.OnProperty) else None
                if table is None:
                    raise not_supported("DROP INDEX without ON")
                db = table.db or current_db
                catalog.drop_index(conn, db, table.name, (tree.this or tree.args["tables"][0]).name)
                return ExecResult()
            raise statement_error(stmt.text)
        if isinstance(tree, exp.TruncateTable):
            for t in tree.expressions:
                tdef = catalog.require_table(t.db or current_db, t.name)
                if tdef.table_type != "BASE TABLE":
                    raise mysql_error(1044, "root", "localhost", tdef.schema)
                conn.file_execute(  # kept for the schema file's redo (engine/schema_files.py)
                    tdef.schema,
                    f"DELETE FROM {self.storage.qualifier(tdef.schema)}"
                    f"{quote_ident(physical_name(tdef.schema, tdef.name))}",
                )
                catalog.forget_auto_increment(tdef.schema, tdef.name)
            return ExecResult()
        raise statement_error(stmt.text)


_ALTER_DB = re.compile(
    r"^\s*ALTER\s+(?:DATABASE|SCHEMA)\s+(`(?:[^`]|``)+`|[\w$]+)(?:\s+DEFAULT)?"
    r"(?:\s+(?:CHARACTER\s+SET|CHARSET)\s*=?\s*(\w+))?(?:\s+(?:DEFAULT\s+)?COLLATE\s*=?\s*(\w+))?\s*$",
    re.IGNORECASE,
)


def _by_term(sql: str, clause: str, n: int) -> str:
    """The text of the ``n``-th (1-based) ORDER BY / GROUP BY term of the SQLite statement ``sql`` (``str(n)``
    when it cannot be found)."""
    try:
        tree = sqlglot.parse_one(sql, read=SQLITE)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
        return str(n)
    node = tree.find(exp.Order if clause == "ORDER" else exp.Group)
    terms = node.expressions if node is not None else []
    if not 0 < n <= len(terms):
        return str(n)
    term = terms[n - 1]
    return (term.this if isinstance(term, exp.Ordered) else term).sql(dialect="mysql")


def _arity_error(fn: Callable[..., Any], args: Sequence[Any], name: str) -> MySQLError | None:
    """1582 ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT when the function ``name`` cannot take ``args``, else None: outside the
    function table's counts (MySQL's), or more than the implementation ``fn`` takes (MySQL checks a native
    function's argument count as it resolves the call, ``sql/item_create.cc``)."""
    row = function_table.lookup(name) if name else None
    if row is not None and not row.min_args <= len(args) <= row.max_args:
        return mysql_error(1582, name)
    try:
        signature(fn).bind(*args)
    except TypeError:
        return mysql_error(1582, name or getattr(fn, "__name__", "?").upper())
    except ValueError:  # a builtin without a signature
        return None
    return None


_INFINITIES = (float("inf"), float("-inf"))


def _plain_rows(plan: SelectPlan) -> bool:
    """``plan``'s rows need nothing after the reader: its column names and metadata known at planning time, no
    DECIMAL column or expression to convert, no JSON value to print, no ``@@variable`` metadata (the steps of
    :meth:`Executor._run_plan` after the read)."""
    return (
        bool(plan.columns)
        and plan.decimals is None
        and plan.convert is None
        and plan.metadata is not None
        and len(plan.metadata) == len(plan.columns or ())
        and not plan.variable_metadata
        and not plan.json_columns
        and not plan.reads_json
    )


def _check_finite(rows: Sequence[Sequence[Any]], names: Sequence[str]) -> None:
    """MySQL checks every DOUBLE result for overflow (``Item_func::check_float_overflow``); SQLite's arithmetic
    gives infinity instead.

    Raises:
        MySQLError: 1690 ER_DATA_OUT_OF_RANGE naming the column's expression.
    """
    kinds = map(type, rows[0]) if len(rows) == 1 else set(map(type, itertools.chain.from_iterable(rows)))
    if float not in kinds:
        return  # only a float can be infinite (sqlite3 gives int, float, str, bytes, None): one cheap pass
    for inf in _INFINITIES:
        if inf in itertools.chain.from_iterable(rows):  # a C-speed scan; the rare hit is located below
            at = next(i for r in rows for i, v in enumerate(r) if v == inf)
            raise mysql_error(1690, "DOUBLE", names[at] if at < len(names) else "?")


def _unquote_id(s: str) -> str:
    return s[1:-1].replace("``", "`") if s.startswith("`") else s


def _expand_visible_star(tree: exp.Select) -> None:
    """Replace ``*`` / ``t.*`` by the visible columns of the tables it covers: INVISIBLE columns are left out of
    ``SELECT *`` (RM8 13.1.20.10 "Invisible Columns") but can be named."""
    tables: list[tuple[str, TableDef]] = []
    frm = tree.args.get("from_")
    for node in ([frm.this] if frm is not None else []) + [j.this for j in tree.args.get("joins") or []]:
        if isinstance(node, exp.Table) and "gk_table" in node.meta:
            tables.append((node.alias_or_name, node.meta["gk_table"]))
    out: list[exp.Expression] = []
    for proj in tree.expressions:
        if isinstance(proj, exp.Star) or (isinstance(proj, exp.Column) and isinstance(proj.this, exp.Star)):
            q = proj.table if isinstance(proj, exp.Column) else ""
            for alias, t in tables:
                if not q or q == alias:
                    out.extend(
                        exp.column(c.name, table=alias, quoted=True) for c in t.columns if not c.invisible
                    )
            continue
        out.append(proj)
    tree.set("expressions", out)


def _decimal_columns(tree: exp.Select) -> tuple[ColumnDef | None, ...] | None:
    """For each result column of ``tree`` (already resolved), the catalog column it reads directly when that
    column's values need :func:`values.result_value` (DECIMAL, BIT, ZEROFILL, BIGINT UNSIGNED)."""
    tables: list[tuple[str, TableDef]] = []
    frm = tree.args.get("from_")
    for node in ([frm.this] if frm is not None else []) + [j.this for j in tree.args.get("joins") or []]:
        if isinstance(node, exp.Table) and "gk_table" in node.meta:
            tables.append((node.alias_or_name, node.meta["gk_table"]))
    if not tables:
        return None
    out: list[ColumnDef | None] = []
    for proj in tree.expressions:
        target = proj.this if isinstance(proj, exp.Alias) else proj
        if isinstance(target, exp.Star) or (
            isinstance(target, exp.Column) and isinstance(target.this, exp.Star)
        ):
            q = target.table if isinstance(target, exp.Column) else ""
            for alias, t in tables:
                if not q or q == alias:
                    out.extend(t.columns)
            continue
        col = None
        if isinstance(target, exp.Column):
            cands = [t for alias, t in tables if not target.table or target.table == alias]
            found = [c for t in cands if (c := t.column(target.name)) is not None]
            col = found[0] if len(found) == 1 else None
        out.append(col)
    conv = tuple(c if c is not None and converts_on_read(c) else None for c in out)
    return conv if any(c is not None for c in conv) else None


def _tables_of(tree: exp.Expression) -> list[tuple[str, TableDef]]:
    """(alias, table) of every resolved table reference in ``tree``."""
    return [(t.alias_or_name, t.meta["gk_table"]) for t in tree.find_all(exp.Table) if "gk_table" in t.meta]


def _derived_columns(
    tree: exp.Expression,
    literal_of: Callable[[str], Any] | None = None,
    increment: int = DIV_PRECISION_INCREMENT,
) -> list[tuple[str, dict[str, Column]]]:
    """(alias, lowercase name -> metadata) of the DECIMAL columns of each derived table (``FROM (SELECT ...) AS
    d``) of ``tree``: what an outer reference to them is typed as (MySQL types a derived table's columns as its
    select list's items)."""
    out: list[tuple[str, dict[str, Column]]] = []
    for sub in tree.find_all(exp.Subquery):
        inner = sub.this
        if not sub.alias or not isinstance(inner, exp.Select) or sub.find_ancestor(exp.Subquery) is not None:
            continue
        metadata = _projection_metadata(inner, None, literal_of, increment)
        if metadata is None or len(metadata) != len(inner.expressions):
            continue
        cols = {}
        for proj, m in zip(inner.expressions, metadata):
            if isinstance(m, Column) and m.type == FieldType.MYSQL_TYPE_NEWDECIMAL:
                cols[(proj.alias or proj.name or _item_name(proj)).lower()] = m
        out.append((sub.alias, cols))
    return out


def _derived_column(derived: list[tuple[str, dict[str, Column]]], ref: exp.Column) -> Column | None:
    hits = [
        c
        for alias, cols in derived
        if (not ref.table or ref.table == alias)
        if (c := cols.get(ref.name.lower()))
    ]
    return hits[0] if len(hits) == 1 else None


def _type_resolver(tree: exp.Expression) -> Callable[[exp.Column], NumType | None]:
    """The numeric type of a column reference of ``tree``: the one resolved table column it names (by qualifier
    and name), or the DECIMAL column of a derived table it names, else None (unknown, ambiguous or not
    numeric)."""
    tables = _tables_of(tree)
    derived: list[tuple[str, dict[str, Column]]] | None = None

    def column_type(ref: exp.Column) -> NumType | None:
        nonlocal derived
        found = scoped_columns(ref, tables)
        if len(found) == 1:
            _, t, c = found[0]
            return type_of_column(column_for_def(c, t))
        if found:
            return None
        if derived is None:
            derived = _derived_columns(tree)
        col = _derived_column(derived, ref)
        return None if col is None else type_of_column(col)

    return column_type


def _typed_literals(tree: exp.Expression) -> tuple[int, ...]:
    """The positions ``i`` of the ``:gk<i>`` literals of ``tree`` that are operands of arithmetic (its plan
    depends on their kinds and widths)."""
    return tuple(
        sorted(
            int(p.name[2:])
            for p in tree.find_all(exp.Placeholder)
            if isinstance(p.parent, _TYPED_PARENTS) and re.fullmatch(r"gk\d+", str(p.name))
        )
    )


def _exact_literals(tree: exp.Select) -> None:
    """A select-list item that is a DECIMAL literal of more digits than a double keeps is sent to SQLite as its text
    (in place): SQLite would read the number as a REAL; the item's NEWDECIMAL converter reads the text exactly, so
    ``SELECT 12345678901234567890123456789012345678901234567890.5 FROM t`` returns all 51 digits, as MySQL does."""
    for proj in tree.expressions:
        target = proj.this if isinstance(proj, exp.Alias) else proj
        neg = isinstance(target, exp.Neg)
        lit = target.this if neg else target
        if not isinstance(lit, exp.Literal) or lit.is_string:
            continue
        text = str(lit.this)
        if (
            "e" in text.lower()
            or sum(c.isdigit() for c in text) <= 15
            or ("." not in text and int(text) < 2**64)
        ):
            continue  # a double, a short decimal or an integer of 64 bits: as SQLite reads it
        target.replace(exp.Literal.string(("-" if neg else "") + text))


def _converters(
    metadata: tuple[Column | str | None, ...] | None, decimals: tuple[ColumnDef | None, ...] | None
) -> tuple[Callable[[Any], Any] | None, ...] | None:
    """Per result column, the value conversion its computed (not table-column) metadata asks for."""
    if metadata is None:
        return None
    out = []
    for i, m in enumerate(metadata):
        direct = decimals is not None and i < len(decimals) and decimals[i] is not None
        out.append(
            (decimal_math.result_converter(m) or temporal_converter(m))
            if isinstance(m, Column) and not m.org_table and not direct
            else None
        )
    return tuple(out) if any(f is not None for f in out) else None


#: the start of sqlite3's error for a text value that is no UTF-8
_NOT_UTF8 = "Could not decode to UTF-8"


def _surrogate_text(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


def _union_metadata(
    tree: exp.SetOperation, first: exp.Select, literal_of: Callable[[str], Any], increment: int
) -> tuple[Column | str | None, ...] | None:
    """A UNION's column metadata where a column mixes exact values of which one is DECIMAL (or approximate
    ones): :func:`numeric_types.union_type` of its SELECTs' types; where one SELECT gives a string (and every
    SELECT's metadata is known): the string type :func:`metadata.string_union_column` aggregates, whatever rows
    come back; both named after the first SELECT's items; other columns None (inferred from the values)."""
    branches: list[exp.Select] = []
    stack: list[exp.Expression] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, exp.SetOperation):
            stack += [node.expression, node.this]
        elif isinstance(node, exp.Select):
            branches.append(node)
        else:
            return None
    metas = [_projection_metadata(b, None, literal_of, increment) for b in branches]
    if any(m is None or len(m) != len(first.expressions) for m in metas):
        return None
    out: list[Column | str | None] = []
    for i, proj in enumerate(first.expressions):
        cols = [m[i] for m in metas if m is not None]
        known_cols = [c for c in cols if isinstance(c, Column)]
        string = string_union_column(proj.alias_or_name, known_cols) if len(known_cols) == len(cols) else None
        if string is not None:
            out.append(string)
            continue
        types = [
            type_of_column(c) if isinstance(c, Column) and c.flags & ColumnFlag.NUM else None for c in cols
        ]
        known = [t for t in types if t is not None]
        if len(known) != len(types) or all(t.kind == "int" for t in known):
            out.append(None)
            continue
        out.append(column_of_type(proj.alias_or_name, union_type(known)))
    return tuple(out) if any(c is not None for c in out) else None


def _projection_metadata(
    tree: exp.Select,
    source: str | None,
    literal_of: Callable[[str], Any] | None = None,
    increment: int = DIV_PRECISION_INCREMENT,
) -> tuple[Column | str | None, ...] | None:
    """For each result column of ``tree`` (tables already resolved): its metadata when a table column is read
    directly or the item is a literal / COUNT, else None (inferred later from the values)."""
    tables: list[tuple[str, TableDef]] = []
    frm = tree.args.get("from_")
    for node in ([frm.this] if frm is not None else []) + [j.this for j in tree.args.get("joins") or []]:
        if isinstance(node, exp.Table) and "gk_table" in node.meta:
            tables.append((node.alias_or_name, node.meta["gk_table"]))
    derived = _derived_columns(tree, literal_of, increment) if any(tree.find_all(exp.Subquery)) else []
    out: list[Column | str | None] = []
    for proj in tree.expressions:
        target = proj.this if isinstance(proj, exp.Alias) else proj
        if isinstance(target, exp.SessionParameter):
            out.append(target.name)
            continue
        if isinstance(target, exp.Star) or (
            isinstance(target, exp.Column) and isinstance(target.this, exp.Star)
        ):
            q = target.table if isinstance(target, exp.Column) else ""
            if not tables:
                return None
            for alias, t in tables:
                if not q or q == alias:
                    out.extend(column_for_def(c, t, table_alias=alias) for c in t.columns)
            continue
        name = _item_name(proj, source)

        def column_of(ref: exp.Column, name: str = name) -> Column | None:
            cands = [(alias, t) for alias, t in tables if not ref.table or ref.table == alias]
            found = [(alias, t, c) for alias, t in cands if (c := t.column(ref.name)) is not None]
            if not found:
                inner = _derived_column(derived, ref)
                return None if inner is None else dc_replace(inner, name=name)
            if len(found) != 1:
                return None
            alias, t, c = found[0]
            return column_for_def(c, t, name=name, table_alias=alias)

        if isinstance(target, exp.Column):
            col = column_of(target)
        else:
            col = (
                json_result_column(name, target)
                or expression_column(name, target, literal_of)
                or derived_column(name, target, column_of, literal_of, increment)
            )
        out.append(col)
    return tuple(out)


def _assignment_bounds(node: exp.PropertyEQ, source: str) -> tuple[int, int] | None:
    """Bounds of ``@a := expr`` as written (sqlglot keeps no position for the ``@a :=`` part)."""
    value = _source_bounds(node.expression, source)
    inner = node.expression
    while value and isinstance(inner, exp.Paren):  # re-attach the parentheses sqlglot keeps no position for
        a, b = value
        a = len(source[:a].rstrip())
        b = b + len(source[b:]) - len(source[b:].lstrip())
        value = (a - 1, b + 1) if source[a - 1 : a] == "(" and source[b : b + 1] == ")" else None
        inner = inner.this
    if value is None:
        return None
    name = re.escape(node.this.name)
    targets = list(re.finditer(rf"@(?:`{name}`|'{name}'|{name})\s*:=", source[: value[0]], re.IGNORECASE))
    return (targets[-1].start(), value[1]) if targets else None


def _source_span(node: exp.Expression, source: str) -> str | None:
    """The text of ``node`` in ``source`` from sqlglot's token positions (closing parentheses re-attached)."""
    if isinstance(node, exp.Paren):
        inner = _source_bounds(node.this, source)
        if inner is None:
            return None
        a, b = inner
        while a > 0 and source[a - 1].isspace():
            a -= 1
        while b < len(source) and source[b].isspace():
            b += 1
        if a > 0 and source[a - 1] == "(" and b < len(source) and source[b] == ")":
            return source[a - 1 : b + 1]
        return None
    bounds = _source_bounds(node, source)
    return source[bounds[0] : bounds[1]] if bounds else None


_CAST_HEAD = re.compile(r"\b(?:CAST|CONVERT)\s*\(\s*\Z", re.IGNORECASE)
_IS_TAIL = re.compile(r"(?:\s*\(\s*\)|\s*\))*\s+IS\s+(?:NOT\s+)?(?:NULL|TRUE|FALSE|UNKNOWN)\b", re.IGNORECASE)


_JSON_ARROW_TAIL = re.compile(r"\s*->>?\s*(?:'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")")
#: sqlglot node -> the text before its first positioned token (up to the span's start)
_UNPOSITIONED_HEADS: dict[type[exp.Expression], re.Pattern[str]] = {
    exp.GroupConcat: re.compile(r"GROUP_CONCAT\s*\(\s*(?:DISTINCT\s+)?\Z", re.IGNORECASE),
    exp.JSONObject: re.compile(r"JSON_OBJECT\s*\(\s*\Z", re.IGNORECASE),
    exp.Cast: re.compile(r"CAST\s*\(\s*\Z", re.IGNORECASE),
}


#: one step of a parenthesis scan: a quoted run ('...', "...", `...`; closed by the next same quote, or unterminated
#: to the end), a parenthesis, or a run of anything else -- so that a long literal is skipped in one match
_PAREN_SCAN = re.compile(r"'[^']*(?:'|\Z)|\"[^\"]*(?:\"|\Z)|`[^`]*(?:`|\Z)|[()]|[^'\"`()]+")
_OPEN_PAREN = re.compile(r"\s*\(")


def _paren_depths(text: str, pos: int = 0) -> Iterator[tuple[int, int]]:
    """The parentheses of ``text`` from ``pos`` outside quotes: ``(index, +1 or -1)`` in order."""
    for m in _PAREN_SCAN.finditer(text, pos):
        ch = text[m.start()]
        if ch == "(":
            yield m.start(), 1
        elif ch == ")":
            yield m.start(), -1


def _matching_paren(source: str, pos: int) -> int | None:
    """Index of the ``)`` closing the ``(`` that follows ``pos`` (after blanks), quotes respected; else None."""
    m = _OPEN_PAREN.match(source, pos)
    if not m:
        return None
    depth = 1
    for i, step in _paren_depths(source, m.end()):
        depth += step
        if depth == 0:
            return i
    return None


def _source_bounds(node: exp.Expression, source: str) -> tuple[int, int] | None:
    if isinstance(node, exp.PropertyEQ) and isinstance(node.this, exp.Parameter):
        return _assignment_bounds(node, source)
    starts, ends = [], []
    for n in node.walk():
        meta = n.meta if n._meta is not None else None
        if meta and "start" in meta:
            starts.append(meta["start"])
            ends.append(meta["end"])
        elif isinstance(n, exp.Placeholder) and str(n.name).startswith("gp"):
            # a prepared statement's parameter (:gp<i>, unique in its text) has no token position in the tree
            m = re.search(rf":{n.name}(?!\d)", source)
            if m:
                starts.append(m.start())
                ends.append(m.end() - 1)
    if not starts:
        return None
    a, b = min(starts), max(ends) + 1
    for n in node.walk():
        if isinstance(n, exp.Func) and n._meta is not None and "end" in n.meta:
            # a call's argument list: arguments without token positions (@user_var) must not cut the span short
            close = _matching_paren(source, n.meta["end"] + 1)
            if close is not None:
                b = max(b, close + 1)
    if isinstance(node, (exp.JSONExtract, exp.JSONExtractScalar)) and not isinstance(
        node.this, exp.Anonymous
    ):
        # col->'$.path' / col->>'$.path': the operator and its path carry no token positions
        m = _JSON_ARROW_TAIL.match(source, b)
        if m:
            b = m.end()
    head = _UNPOSITIONED_HEADS.get(type(node))
    if head is not None:
        # GROUP_CONCAT / JSON_OBJECT / CAST: the name (and DISTINCT, ORDER BY, SEPARATOR, AS type) carry no token
        # positions in sqlglot's tree: widen the span to the whole call
        m = head.search(source, 0, a)
        if m:
            close = _matching_paren(source, source.index("(", m.start()))
            if close is not None:
                a, b = m.start(), close + 1
    if isinstance(node, exp.Is) or (isinstance(node, exp.Not) and isinstance(node.this, exp.Is)):
        # "x IS [NOT] NULL": the IS / NOT / NULL keywords carry no token positions in sqlglot's tree
        m = _IS_TAIL.match(source, b)
        if m:
            b = m.end()
    if (
        isinstance(node, exp.Func)
        and not node.expressions
        and not node.args.get("this")
        or (isinstance(node, exp.Anonymous) and not node.expressions)
    ):
        # a call without arguments (CONNECTION_ID(), NOW()): sqlglot's positions stop at the name
        m = re.match(r"\s*\(\s*\)", source[b:])
        if m:
            b += m.end()
    while a > 0 and (
        source[a - 1] == "@"
        or (source[a - 1] in "-+~!" and isinstance(node, (exp.Neg, exp.Not, exp.BitwiseNot)))
    ):
        a -= 1  # @@var / @var sigils and a leading unary operator are not part of the first token
    if isinstance(node, exp.Cast):
        # "CAST(" / "CONVERT(" carry no token position: the span starts at the operand
        m = _CAST_HEAD.search(source, 0, a)
        if m:
            a = m.start()
    text = source[a:b]
    depth = lowest = 0
    for _i, step in _paren_depths(text):
        depth += step
        lowest = min(lowest, depth)
    # "(a) / (b)": the first token is inside a parenthesis the span must open with, even when it balances
    missing = -lowest
    while missing > 0 and a > 0:
        ch = source[a - 1]
        if ch == "(":
            depth += 1
            missing -= 1
        elif not ch.isspace():
            return None
        a -= 1
    if missing:
        return None
    while depth > 0 and b < len(source):
        ch = source[b]
        if ch == ")":
            depth -= 1
        elif not ch.isspace():
            return None
        b += 1
    return (a, b) if depth == 0 else None


def _item_name(proj: exp.Expression, source: str | None = None) -> str:
    """MySQL's name of a select-list item: alias, column name, a string literal's value, else its text as written
    (from ``source`` when positions are known, else sqlglot's rendering)."""
    if isinstance(proj, exp.Alias):
        return proj.alias
    if isinstance(proj, exp.Literal) and proj.is_string:
        return proj.this
    if isinstance(proj, exp.HexString) and charset_literals.ITEM_NAME in proj.meta:
        return str(proj.meta[charset_literals.ITEM_NAME])
    if source is not None:
        span = _source_span(proj, source)
        if span and isinstance(proj, exp.JSONObjectAgg):
            # sqlglot's positions cover the arguments only: the call as written around them
            m = re.search(r"\bJSON_OBJECTAGG\s*\(\s*" + re.escape(span) + r"\s*\)", source, re.IGNORECASE)
            return m.group(0) if m else span
        if span:
            return span
    if isinstance(proj, exp.CurrentSchema):
        return "DATABASE()"
    keyword = _UNPOSITIONED_CALLS.get(type(proj))
    if source is not None and keyword is not None:
        # CURRENT_USER / SESSION_USER() / JSON_OBJECT(): no token positions at all; named as written when the
        # statement spells it once
        found = keyword.findall(source)
        if len(found) == 1:
            return str(found[0])
    return proj.sql(dialect="mysql")


#: calls sqlglot keeps no position for: how they may be written
_UNPOSITIONED_CALLS: dict[type[exp.Expression], re.Pattern[str]] = {
    exp.CurrentUser: re.compile(r"\bCURRENT_USER\b(?:\s*\(\s*\))?", re.IGNORECASE),
    exp.SessionUser: re.compile(r"\bSESSION_USER\s*\(\s*\)", re.IGNORECASE),
    exp.JSONObject: re.compile(r"\bJSON_OBJECT\s*\(\s*\)", re.IGNORECASE),
}


def _is_temporary(tree: exp.Create) -> bool:
    props = tree.args.get("properties")
    return props is not None and any(isinstance(p, exp.TemporaryProperty) for p in props.expressions)


def _like_source(tree: exp.Create) -> exp.Table | None:
    """The source table of ``CREATE TABLE t LIKE src`` / ``CREATE TABLE t (LIKE src)``, else None."""
    props = (tree.args.get("properties") or exp.Properties()).expressions
    if isinstance(tree.this, exp.Schema):
        props = list(props) + list(tree.this.expressions)
    likes = [p for p in props if isinstance(p, exp.LikeProperty)]
    return likes[0].this if likes else None


def t_name_for_alias(t: exp.Table, tdef: TableDef) -> str:
    """Alias given to an unaliased table reference: its MySQL name (so ``t.c`` and ``db.t.c`` still resolve)."""
    return tdef.name


def _placeholders_safe(tree: exp.Expression) -> bool:
    """True when every ``:gkN`` placeholder sits where a bound value means the same as the literal."""
    for ph in tree.find_all(exp.Placeholder):
        parent = ph.parent
        if not isinstance(parent, _ALLOWED_PLACEHOLDER_PARENTS):
            return False
        node: exp.Expression | None = ph
        while node is not None and node.parent is not None:
            p = node.parent
            if isinstance(p, exp.Select) and node.arg_key == "expressions":
                return False
            if isinstance(p, (exp.Order, exp.Group, exp.DataType, exp.Interval)):
                return False
            node = p
    return True


_CLAUSES = [
    ("WHERE", "where clause"),
    ("ORDER BY", "order clause"),
    ("GROUP BY", "group statement"),
    ("HAVING", "having clause"),
    (" ON ", "on clause"),
    ("SET", "field list"),
]


def _clause_of(sql: str, column: str) -> str:
    """MySQL's clause name for an unknown column (``field list``, ``where clause``, ...), best effort."""
    col = column.split(".")[-1]
    pos = sql.find(f'"{col}"')
    if pos < 0:
        pos = sql.find(col)
    best = "field list"
    best_at = -1
    upper = sql.upper()
    for kw, name in _CLAUSES:
        at = upper.rfind(kw, 0, pos if pos >= 0 else len(sql))
        if at > best_at:
            best, best_at = name, at
    return best
