"""Prepared statements in the engine: ``session.prepare(sql)`` / ``session.execute_prepared(stmt, params)`` and
SQL's PREPARE / EXECUTE / DEALLOCATE PREPARE.

Sources: MySQL ``sql/sql_prepare.cc`` (``Prepared_statement``: ``?`` placeholders outside quotes and comments; a
statement is checked when prepared (unknown tables and columns fail then); its parameters are bound as typed
values at execute; 1210 ER_WRONG_ARGUMENTS "Incorrect arguments to EXECUTE" for a wrong parameter count; the
binary log gets the statement with the values written in (``insert_params_with_log``); 1243
ER_UNKNOWN_STMT_HANDLER for an unknown name), RM8 "Prepared Statements" (PREPARE answers "Statement prepared";
PREPARE of a name in use deallocates the old statement first; EXECUTE ... USING takes user variables).

Binding: a SELECT or DML statement's placeholders become named SQLite parameters (``:gp0`` ...) of the template
the SQL layer plans once and caches like any statement shape, and the values are bound as typed values (no text
substitution: a value can never become SQL). Other statement kinds (SET, SHOW, CALL, DO ...) rarely take
parameters; for them the values are written into the text as exact MySQL literals, as MySQL's own binlog text is.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gtidkit.engine.results import Column, StatementResult
from gtidkit.engine.shared import workers
from gtidkit.engine.sql.exec_result import bindable
from gtidkit.engine.sql.hints import max_execution_time_hint
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = [
    "PreparedStatement",
    "bind_value",
    "bound_statement",
    "bound_text",
    "check_prepared_limit",
    "deallocate",
    "literal",
    "placeholder_positions",
    "prepare",
    "prepared_count",
    "publish_prepared",
    "sql_execute",
    "sql_prepare",
]

_ESCAPES = {"\\": "\\\\", "'": "\\'", "\0": "\\0", "\x1a": "\\Z"}
_ESCAPE_TABLE = str.maketrans(_ESCAPES)
#: kinds whose placeholders are bound as SQLite parameters (the SQL layer plans them)
_BOUND_KINDS = frozenset({"select", "dml"})
#: errors that mean the statement itself is wrong (MySQL reports them at PREPARE)
_PREPARE_ERRORS = frozenset({1044, 1046, 1049, 1052, 1054, 1064, 1109, 1142, 1146, 1235, 1305, 1351})
_GP = re.compile(r":gp(\d+)")


def placeholder_positions(sql: str) -> list[int]:
    """Offsets of the ``?`` placeholders of ``sql`` (not inside quotes, backticks or comments)."""
    out: list[int] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`":
            i += 1
            while i < n and sql[i] != c:
                if sql[i] == "\\" and c != "`":
                    i += 1
                i += 1
        elif c == "#" or (c == "-" and sql.startswith("-- ", i)):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif c == "/" and sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 1
        elif c == "?":
            out.append(i)
        i += 1
    return out


def literal(value: Any, *, text: bool = True) -> str:
    """``value`` as a MySQL literal. ``bytes`` are character data (decoded as UTF-8) when ``text`` is true and
    they decode, else a hexadecimal literal.

    Raises:
        MySQLError: 1210 for a value that has no literal form.
    """
    if text:
        of_type = _LITERAL_OF_TYPE.get(type(value))  # the common types, one dict lookup
        if of_type is not None:
            return of_type(value)
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray)):
        if not text:
            return "X'" + bytes(value).hex() + "'" if value else "''"
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return "X'" + bytes(value).hex() + "'"
    if isinstance(value, dt.datetime):
        fmt = "%Y-%m-%d %H:%M:%S.%f" if value.microsecond else "%Y-%m-%d %H:%M:%S"
        return "'" + value.strftime(fmt) + "'"
    if isinstance(value, dt.date):
        return "'" + value.isoformat() + "'"
    if isinstance(value, dt.timedelta):
        return "'" + _time_text(value) + "'"
    if isinstance(value, str):
        return "'" + _escaped(value) + "'"
    raise mysql_error(1210, "mysqld_stmt_execute")


def _str_literal(value: str) -> str:
    return "'" + _escaped(value) + "'"


def _bytes_literal(value: bytes) -> str:
    try:
        return "'" + _escaped(value.decode("utf-8")) + "'"
    except UnicodeDecodeError:
        return "X'" + value.hex() + "'"


#: exact type -> :func:`literal` (``text=True``) of a value of it: what the type tests below return for them
_LITERAL_OF_TYPE: dict[type, Callable[[Any], str]] = {
    int: str,
    str: _str_literal,
    bytes: _bytes_literal,
    type(None): lambda _value: "NULL",
    float: repr,
}


def _escaped(value: str) -> str:
    """``value`` with MySQL's string-literal escapes (``str.translate`` only when there is something to escape:
    it maps character by character through a dict, the four ``in`` tests scan at C speed)."""
    if "'" in value or "\\" in value or "\0" in value or "\x1a" in value:
        return value.translate(_ESCAPE_TABLE)
    return value


def _time_text(value: dt.timedelta) -> str:
    secs = int(abs(value).total_seconds())
    sign = "-" if value < dt.timedelta(0) else ""
    return f"{sign}{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"


def bind_value(value: Any) -> Any:
    """A parameter value as the SQL layer binds it: what its literal would have parsed to (bytes that are UTF-8 are
    character data, other bytes stay binary; dates and times as MySQL's text; bool as 0/1).

    Raises:
        MySQLError: 1210 for a value of no SQL type.
    """
    if value is None or isinstance(value, (int, float, Decimal, str)):
        return int(value) if isinstance(value, bool) else value
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f" if value.microsecond else "%Y-%m-%d %H:%M:%S")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return _time_text(value)
    raise mysql_error(1210, "mysqld_stmt_execute")


def bound_text(text: str, positions: tuple[int, ...] | list[int], values: list[Any] | tuple[Any, ...]) -> str:
    """``text`` with each ``?`` at ``positions`` replaced by the literal of its value (the binlog's form).

    Raises:
        MySQLError: 1210 for a value with no literal.
    """
    if type(positions) is tuple and len(values) == len(positions) and len(text) <= _KEPT_TEXT:
        hit = _TEMPLATES.get(text)
        if hit is None or hit[0] != positions:
            hit = _TEMPLATES[text] = (positions, _percent_template(text, positions))
            if len(_TEMPLATES) >= 4096:
                _TEMPLATES.clear()
                _TEMPLATES[text] = hit
        return hit[1] % tuple(map(literal, values))  # a prepared statement's text: one C-speed format
    out = []
    last = 0
    for pos, value in zip(positions, values):
        out.append(text[last:pos])
        out.append(literal(value))
        last = pos + 1
    out.append(text[last:])
    return "".join(out)


#: text -> (placeholder positions, :func:`_percent_template` of them): a prepared statement's text comes back with
#: every execution (texts up to :data:`_KEPT_TEXT` characters; longer ones take the literal-by-literal path)
_TEMPLATES: dict[str, tuple[tuple[int, ...], str]] = {}
_KEPT_TEXT = 4096


def _percent_template(text: str, positions: tuple[int, ...]) -> str:
    """``text`` as a ``%`` format with a ``%s`` at each of ``positions`` (its own ``%`` doubled)."""
    out = []
    last = 0
    for pos in positions:
        out.append(text[last:pos].replace("%", "%%"))
        out.append("%s")
        last = pos + 1
    out.append(text[last:].replace("%", "%%"))
    return "".join(out)


@dataclass(frozen=True, slots=True)
class PreparedStatement:
    """One prepared statement (``session.prepare``).

    Attributes:
        text: the statement as given, with its ``?`` placeholders.
        param_count: number of placeholders.
        columns: the result-set metadata EXECUTE returns (None: the statement answers with an OK packet); for a
            SELECT, computed by running it once with every parameter NULL, so columns read from tables carry
            their table's metadata exactly as EXECUTE sends it.
        kind: the statement's kind (:class:`~gtidkit.engine.statements.classify.StatementKind` value).
        positions: offsets of the placeholders in ``text``.
        template: ``text`` with placeholder i written ``:gp<i>`` (the SQL layer's named parameter).
    """

    text: str
    param_count: int
    columns: tuple[Column, ...] | None
    kind: str
    positions: tuple[int, ...]
    template: str
    #: what executions re-use (the classified template, the plan): :class:`Shape`
    shape: Shape = dataclasses.field(default_factory=lambda: Shape(), compare=False, repr=False)


#: :attr:`Shape.templated` before the first execution made it
_NOT_TEMPLATED = object()


class Shape:
    """What every execution of one prepared SELECT / DML statement shares, filled by the first one: nothing in it
    depends on the parameter values.

    Attributes:
        classified: ``(kind, text, info)`` of ``classify(template)`` when it was classified without a tree (None:
            not yet, or classified by its tree, which is the statement's own and is made at every execution).
        names: the template's parameter names (``gp0`` ...).
        fast_select: a SELECT the session may run on its short path (no ``INTO @var``, no SQL_CALC_FOUND_ROWS,
            no ``@var := expr``, no SQL_NO_CACHE): None until known.
        uses_tables: the statement names tables (the diagnostics area is cleared when it starts).
        plan: the executor's :class:`~gtidkit.engine.sql.executor.PreparedPlan`.
        single_text: ``split_statements(text)`` is ``[text]`` (a statement without parameters runs without
            splitting it again).
        authorized: ``(Authorizer.state(), default schema)`` under which its privilege check last passed, else
            None (``Session._authorize_prepared``).
        hint_ms: the statement's ``/*+ MAX_EXECUTION_TIME(ms) */`` hint (read once from its text, which keeps
            its comments), else None: the session's ``max_execution_time`` applies at each execution.
        templated: ``templatize`` of the classified text (its literals as ``:gk<i>``: ``Statement.template``),
            made once and given to every execution's statement (read by row locks' :func:`deferred.target`
            at each execution: 5 µs of regex work per statement before), else the unset marker.
    """

    __slots__ = (
        "authorized",
        "classified",
        "fast_select",
        "hint_ms",
        "names",
        "plan",
        "single_text",
        "templated",
        "uses_tables",
    )

    def __init__(self, single_text: bool = False, hint_ms: int | None = None) -> None:
        self.single_text = single_text
        self.hint_ms = hint_ms
        self.classified: tuple[Any, str, dict[str, Any]] | None = None
        self.names: tuple[str, ...] = ()
        self.fast_select: bool | None = None
        self.uses_tables = False
        self.plan: Any = None
        self.authorized: tuple[object, str | None] | None = None
        self.templated: Any = _NOT_TEMPLATED


def _template(text: str, positions: list[int]) -> str:
    out = []
    last = 0
    for i, pos in enumerate(positions):
        out.append(text[last:pos])
        out.append(f":gp{i}")
        last = pos + 1
    out.append(text[last:])
    return "".join(out)


def _local_count(server: Any) -> int:
    """Statements prepared now in the sessions of this process (SQL PREPARE and COM_STMT_PREPARE alike)."""
    return sum(len(s.sql_prepared) + s.wire_prepared for s in server.sessions())


def prepared_count(session: Session) -> int:
    """Statements prepared now in every session of ``session``'s server (Prepared_stmt_count): this process's,
    plus what the other workers of a multi-worker server published in the shared page (MySQL counts the whole
    server: ``Prepared_statement_map``'s global ``prepared_stmt_count``)."""
    server = session.server
    local = _local_count(server)
    page = server.shared_page
    if page is None:
        return local
    return local + workers.prepared_total(page, exclude=server.worker_id)


def publish_prepared(server: Any) -> None:
    """This process's sessions prepared or dropped statements: publish their count for the other workers
    (nothing without a shared page)."""
    page = server.shared_page
    if page is not None:
        with page.locked():  # against a reservation of another thread of this process (check_prepared_limit)
            workers.set_prepared(page, server.worker_id, _local_count(server))


def check_prepared_limit(session: Session) -> None:
    """Refuse one more prepared statement past ``max_prepared_stmt_count`` (``Prepared_statement_map::insert``,
    which checks and counts under ``LOCK_prepared_stmt_count``). With other workers the check and a reservation of
    the new statement (this process's count + 1, published) are made under the page lock, so two workers cannot
    both take the last place; the caller publishes the true count once the statement is kept or refused
    (:func:`publish_prepared`).

    Raises:
        MySQLError: 1461 ER_MAX_PREPARED_STMT_COUNT_REACHED.
    """
    server = session.server
    limit = int(server.globals.values["max_prepared_stmt_count"])
    page = server.shared_page
    if page is None:
        if _local_count(server) >= limit:
            raise mysql_error(1461, limit)
        return
    with page.locked():
        local = _local_count(server)
        if local + workers.prepared_total(page, exclude=server.worker_id) >= limit:
            raise mysql_error(1461, limit)
        workers.set_prepared(page, server.worker_id, local + 1)


def prepare(session: Session, sql: str) -> PreparedStatement:
    """Check and describe one statement (``mysql_stmt_prepare``).

    Raises:
        MySQLError: 1065 empty text; 1064 for more than one statement or bad syntax; 1146 / 1054 ... for a
            SELECT or DML statement naming unknown tables or columns (MySQL checks them at PREPARE too).
    """
    from gtidkit.engine.sql.metadata import result_columns
    from gtidkit.engine.sql.parse import lexical_error, split_statements
    from gtidkit.engine.statements.classify import classify

    texts = [t for t in split_statements(sql) if t.strip()]
    if not texts:
        raise mysql_error(1065)
    follower = session.server.follower
    if follower is not None and follower.catalog_moved():
        # another worker process ran DDL (engine/follow.py): its tables are named by this PREPARE (sysbench's
        # threads prepare right after connecting, in a worker that has run nothing since the other's CREATE TABLE)
        follower.catch_up()
    check_prepared_limit(session)
    if len(texts) > 1:
        raise mysql_error(
            1064,
            "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version "
            "for the right syntax to use",
            texts[1][:80],
            1,
        )
    text = texts[0]
    bad = lexical_error(
        text, prepared=True
    )  # `:name`, 1e309, LIMIT 'x': MySQL's lexer rejects them at PREPARE
    if bad is not None:
        raise bad
    positions = placeholder_positions(text)
    template = _template(text, positions)
    classified = classify(text)
    if classified.command == "load_data" or "into_file" in classified.info:
        # LOAD DATA is not in RM8 "Prepared Statements"' permitted list; INTO OUTFILE / DUMPFILE is, but is not
        # run prepared here (README known differences)
        raise mysql_error(1295)
    kind = str(classified.kind)
    columns: tuple[Column, ...] | None = None
    if kind in _BOUND_KINDS:
        stmt = _bound(template, kind, {f"gp{i}": None for i in range(len(positions))}, None)
        ex = session.executor
        try:
            if kind == "select":
                # planned and described, not run: MySQL's PREPARE reads no row (a prepared SELECT of a big
                # join would otherwise run once more, past any max_execution_time, at each PREPARE)
                ex.describe_only = True
                try:
                    er = ex.execute(stmt, session.current_db)
                finally:
                    ex.describe_only = False
                if er.columns:
                    rows = [tuple(r) for r in er.rows or []]
                    columns = _named(result_columns(er.columns, rows, er.metadata))
            else:
                ex.check(stmt, session.current_db)
        except MySQLError as err:
            if err.code in _PREPARE_ERRORS:
                raise
    elif kind == "show":
        # its columns from one run with NULL parameters, as the engine answers it: privileges are checked and the
        # wire server answers its own SHOWs when the statement is executed, not here
        authorizer, client = session.authorizer, session.client
        session.authorizer = session.client = None
        try:
            res = session.execute(bound_text(text, positions, [None] * len(positions)), lexed=True)
        finally:
            session.authorizer, session.client = authorizer, client
        columns = res[-1].columns if res else None
    shape = Shape(single_text=split_statements(text) == [text], hint_ms=max_execution_time_hint(text))
    return PreparedStatement(text, len(positions), columns, kind, tuple(positions), template, shape)


def _bound(template: str, kind: str, params: dict[str, Any], text: str | None) -> Statement:
    from gtidkit.engine.statements.classify import Statement, classify

    shape = _CLASSIFIED.get(template)
    if shape is None:
        first = classify(template)
        if first.parsed:  # classified by its tree: no shortcut (the tree is the statement's own)
            first.params = params
            if text is not None:
                first.info["bound_text"] = text
            return first
        if len(_CLASSIFIED) >= 1024:
            _CLASSIFIED.clear()
        shape = _CLASSIFIED[template] = (first.kind, first.text, dict(first.info))
    # what classify(template) returns, without classifying the same text at every execution
    stmt = Statement(shape[0], shape[1], dict(shape[2]))
    stmt.params = params
    if text is not None:
        stmt.info["bound_text"] = text
    return stmt


#: template -> (kind, text, info) of ``classify(template)`` for templates classified without a tree
_CLASSIFIED: dict[str, tuple[Any, str, dict[str, Any]]] = {}


def _named(columns: tuple[Column, ...]) -> tuple[Column, ...]:
    """Result columns named after a placeholder are called ``?``, as MySQL names them."""
    if not any(":gp" in c.name for c in columns):
        return columns
    return tuple(dataclasses.replace(c, name=_GP.sub("?", c.name)) for c in columns)


def bound_statement(stmt: PreparedStatement, params: list[Any] | tuple[Any, ...]) -> Statement | str:
    """The classified statement to run for ``stmt`` with ``params``: the template with typed parameters for SELECT
    and DML, else the text with the values written in as literals.

    Raises:
        MySQLError: 1210 "Incorrect arguments to mysqld_stmt_execute" for a wrong number of values or a value
            of no SQL type.
    """
    if len(params) != stmt.param_count:
        raise mysql_error(1210, "mysqld_stmt_execute")
    if stmt.kind not in _BOUND_KINDS or not stmt.param_count:
        return bound_text(stmt.text, stmt.positions, params) if stmt.param_count else stmt.text
    shape = stmt.shape
    values = dict(zip(shape.names or _names(stmt), map(bind_value, params)))
    text = bound_text(stmt.text, stmt.positions, params) if stmt.kind == "dml" else None
    classified = shape.classified
    if classified is None:
        bound = _bound(stmt.template, stmt.kind, values, text)
        if not bound.parsed:
            shape.classified = (bound.kind, bound.text, dict(bound.info))
        return bound
    from gtidkit.engine.statements.classify import Statement

    # what classify(template) returns, without classifying the same text at every execution
    bound = Statement(classified[0], classified[1], dict(classified[2]))
    bound.params = values
    templated = shape.templated
    if templated is _NOT_TEMPLATED:
        templated = shape.templated = (
            bound.template
        )  # a function of the text alone (its readers do not mutate it)
    else:
        bound._template = templated
    if text is not None:
        bound.info["bound_text"] = text
        plan = shape.plan
        if plan is None:
            from gtidkit.engine.sql.executor import PreparedPlan

            plan = shape.plan = PreparedPlan()
        bound.info["prepared_plan"] = plan  # the executor plans the template once (Executor.prepared_plan)
    return bound


def _names(stmt: PreparedStatement) -> tuple[str, ...]:
    names = stmt.shape.names = tuple(f"gp{i}" for i in range(stmt.param_count))
    return names


def fast_select_values(stmt: PreparedStatement, params: list[Any] | tuple[Any, ...]) -> dict[str, Any] | None:
    """The bound values (``gp<i>`` -> value as sqlite3 binds it) of a prepared SELECT the session may run on its
    short path (:attr:`Shape.fast_select`), else None (the statement takes :func:`bound_statement`'s path).

    Raises:
        MySQLError: 1210 "Incorrect arguments to mysqld_stmt_execute" for a wrong number of values or a value
            of no SQL type.
    """
    shape = stmt.shape
    if not shape.fast_select:
        return None
    if len(params) != stmt.param_count:
        raise mysql_error(1210, "mysqld_stmt_execute")
    for v in params:
        t = type(v)
        if not ((t is int and -(2**63) <= v < 2**63) or t is str):  # _sqlite_value would convert it
            return {name: _sqlite_value(v) for name, v in zip(shape.names, params)}
    return dict(zip(shape.names, params))  # sysbench's: integers and strings, bound as they are


def _sqlite_value(value: Any) -> Any:
    """``bindable(bind_value(value))`` (what the SQL layer binds for a parameter), ints and str without calls."""
    t = type(value)
    if (t is int and -(2**63) <= value < 2**63) or t is str:
        return value
    return bindable(bind_value(value))


def classify_fast_select(stmt: PreparedStatement, bound: Statement) -> None:
    """Decide :attr:`Shape.fast_select` of ``stmt`` once, from its first bound statement ``bound``."""
    from gtidkit.engine.statements.found_rows import strip_calc_found_rows

    shape = stmt.shape
    text = bound.text
    shape.fast_select = (
        stmt.kind == "select"
        and bound.kind == "select"
        and shape.classified is not None
        and "@" not in text  # SELECT ... INTO @var, @var := expr, @@var
        and not bound.info.get("sql_no_cache")
        and strip_calc_found_rows(text) is None
        and not _locking_read(bound)  # FOR UPDATE / FOR SHARE: dispatch takes its row locks (deferred.py)
    )


def _locking_read(bound: Statement) -> bool:
    """A SELECT with a locking clause (parsed once per prepared statement, by :func:`classify_fast_select`)."""
    from gtidkit.engine.statements.deferred import is_locking_select

    try:
        tree = bound.tree
    except MySQLError:
        return False
    return tree is not None and is_locking_select(tree)


def named_columns(columns: tuple[Column, ...]) -> tuple[Column, ...]:
    """``columns`` with those named after a placeholder renamed ``?`` (as :func:`named_result` renames them)."""
    return _named(columns)


def named_result(res: StatementResult) -> StatementResult:
    """``res`` with result columns named after a placeholder renamed ``?``."""
    if res.columns is None:
        return res
    cols = _named(res.columns)
    return res if cols is res.columns else dataclasses.replace(res, columns=cols)


# ---------------------------------------------------------------- SQL PREPARE / EXECUTE / DEALLOCATE PREPARE
def sql_prepare(session: Session, stmt: Statement) -> StatementResult:
    """``PREPARE name FROM 'text' | @var``: replaces a statement of that name ("Statement prepared").

    Raises:
        MySQLError: what :func:`prepare` raises (the old statement of that name is gone then too, as in MySQL).
    """
    name = stmt.info["name"].lower()
    if "var" in stmt.info:
        value = session.user_vars.get(stmt.info["var"].lower())
        text = (
            value.decode("utf-8", "replace")
            if isinstance(value, bytes)
            else "NULL"
            if value is None
            else str(value)
        )
    else:
        text = stmt.info["text"]
    session.sql_prepared.pop(name, None)
    try:
        session.sql_prepared[name] = prepare(session, text)
    finally:
        publish_prepared(session.server)
    return StatementResult(info="Statement prepared")


def sql_execute(session: Session, stmt: Statement) -> Statement | str:
    """``EXECUTE name [USING @a, ...]``: the statement to run in its place (see :func:`bound_statement`).

    Raises:
        MySQLError: 1243 unknown name; 1210 "Incorrect arguments to EXECUTE" for a wrong number of variables.
    """
    name = stmt.info["name"]
    prepared = session.sql_prepared.get(name.lower())
    if prepared is None:
        raise mysql_error(1243, name, "EXECUTE")
    values = [session.user_vars.get(v.lower()) for v in stmt.info.get("using", ())]
    if len(values) != prepared.param_count:
        raise mysql_error(1210, "EXECUTE")
    return bound_statement(prepared, values)


def deallocate(session: Session, stmt: Statement) -> StatementResult:
    """``{DEALLOCATE | DROP} PREPARE name``.

    Raises:
        MySQLError: 1243 unknown name.
    """
    name = stmt.info["name"]
    if session.sql_prepared.pop(name.lower(), None) is None:
        raise mysql_error(1243, name, "DEALLOCATE PREPARE")
    publish_prepared(session.server)
    return StatementResult()
