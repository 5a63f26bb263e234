"""Single-row primary-key DML under row locks, written at COMMIT (``gtidkit_row_locks``; multi_worker.md §5.7).

SQLite has one writer, so a transaction holding the engine write lock from its first DML to its COMMIT keeps
every other writer waiting through its client round trips. InnoDB locks rows. With ``--gtidkit-row-locks=ON``
(the default; OFF keeps every writer on the write lock from its first write) a statement of an explicit
transaction that provably changes at most one row by its full PRIMARY KEY (see :func:`target`) runs without the
write lock:

1. it takes an exclusive lock on the row (engine/shared/row_locks.py: 1205 after innodb_lock_wait_timeout, 1213
   on a cycle, 1317 on KILL), as InnoDB's locking read of the clustered index record;
2. it runs through its normal handler (the planner, the conversion code, strict mode, 1062, warnings, affected
   rows, LAST_INSERT_ID, the row images for the binary log: nothing re-implemented) against a *shadow*: the
   session's private in-memory SQLite database (:meth:`Storage.shadow_connection`, the session's functions
   registered on it: :meth:`Executor.run_on`) holding a table of the same name and SQLite definition, constraints
   included, with the rows this transaction's deferred statements loaded: a row is loaded once, at the first
   statement on its key, from the latest committed state (the session's connection has no snapshot open, so the
   read is current), and keeps its latest state in the shadow from then on;
   A DELETE by the key alone (``DELETE FROM t WHERE pk = v``) of a row not loaded yet copies nothing: the row
   read from the main file is given to the DELETE as what its WHERE selects (``Executor.preselected``: its before
   image) and the row's absence in the shadow is its state from then on;
3. a statement that changed its row queues the key; the shadow's transaction (one per engine transaction) is
   rolled back when the queue is applied or the transaction ends (:meth:`ShadowConnection.end`).

The queue is applied (:func:`flush`: the write lock, then each queued row's final state read from the shadow and
written by one ``INSERT OR REPLACE`` / ``DELETE`` by its rowid, which is the key) before any other statement of
the transaction that may read or write a queued table, and at COMMIT, which then runs as today (its binary log
events come from the row images computed at statement time: the locked row cannot have changed). ROLLBACK drops
the queue; row locks go when the transaction ends.

Every other writer respects the locks (:func:`lock_for_immediate`): an eligible statement on the immediate path
(autocommit, or after the queue was applied) takes its row lock, any other writing statement (but CREATE / ALTER
VIEW) a table lock on each table it names, before the write lock; a session already holding the main write lock
gets 1213 instead of waiting (the holders need that lock to commit).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine import storage as _db
from gtidkit.engine.shared.row_locks import row_key, table_key
from gtidkit.engine.sql.catalog import TableDef
from gtidkit.engine.sql.names import physical_name, quote_ident
from gtidkit.engine.sql.parse import parse_tree

if TYPE_CHECKING:
    from gtidkit.engine.results import StatementResult
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement
    from gtidkit.engine.statements.specs import Handler

__all__ = [
    "flush",
    "flush_before",
    "is_locking_select",
    "lock_for_immediate",
    "lock_for_select",
    "takes_row_locks",
    "target",
    "try_deferred",
]

#: the schemas whose tables are never deferred (system tables, MySQL's dictionaries)
_SYSTEM = frozenset({"mysql", "sys", "information_schema", "performance_schema"})
#: row locks one transaction takes before its further statements lock whole tables instead (slots are shared)
MAX_ROW_LOCKS = 64
#: statement kinds that neither read nor write a table with queued rows: no flush before them
_NO_FLUSH = frozenset({"commit", "rollback", "dml"})


class _Caches:
    """One catalog's analysis caches (each server's catalog has its own: two servers of one process may have the
    same catalog version with different tables)."""

    __slots__ = ("ddl", "selects", "shapes")

    def __init__(self) -> None:
        #: (template, current db, catalog version) -> (schema, table, value source, form) or None; source
        #: ("p", name) or ("c", v), form "insert" / "update" / "delete" / "delete_key" (:func:`_key_only`)
        self.shapes: dict[tuple[Any, ...], tuple[str, str, tuple[str, Any], str] | None] = {}
        #: the same for locking reads: (template, current db, catalog version) -> :func:`_select_shape`'s answer
        self.selects: dict[tuple[Any, ...], tuple[str, Any] | None] = {}
        #: (physical table name, catalog version) -> its SQLite definition (CREATE TABLE text)
        self.ddl: dict[tuple[str, Any], str] = {}


#: catalog -> its caches
_CACHES: weakref.WeakKeyDictionary[Any, _Caches] = weakref.WeakKeyDictionary()


#: (a weak reference to the catalog asked for last, its caches): one catalog per process but in tests and tools,
#: so its caches are found without the WeakKeyDictionary's Python-level lookup (three per deferred statement)
_LAST: tuple[weakref.ref[Any], _Caches] | None = None


def _caches(catalog: Any) -> _Caches:
    """``catalog``'s :class:`_Caches`."""
    global _LAST
    last = _LAST
    if last is not None and last[0]() is catalog:
        return last[1]
    found = _CACHES.get(catalog)
    if found is None:
        found = _CACHES[catalog] = _Caches()
    _LAST = (weakref.ref(catalog), found)
    return found


#: id(table definition) -> (the definition, its :class:`_Texts`): definitions are immutable (a DDL makes a new
#: one), so the SQLite texts a deferred statement runs are built once per table
_TEXTS: dict[int, tuple[TableDef, _Texts]] = {}


class _Texts:
    """The SQLite statements of one table's deferred rows (physical names, every column in table order)."""

    __slots__ = ("delete", "insert", "key", "phys", "replace", "select", "shadow_all")

    def __init__(self, tdef: TableDef) -> None:
        self.phys = quote_ident(physical_name(tdef.schema, tdef.name))
        key = quote_ident(tdef.primary_key[0])
        cols = ", ".join(quote_ident(c.name) for c in tdef.columns)
        marks = ", ".join("?" * len(tdef.columns))
        #: the latest committed row, on the session's connection
        self.select = f"SELECT {cols} FROM {self.phys} WHERE {key} = ?"
        #: the row into the shadow, and its final state out of it
        self.insert = f"INSERT INTO {self.phys} ({cols}) VALUES ({marks})"
        #: every row the shadow holds (the transaction's loaded rows, in their final state), read by :func:`flush`
        self.shadow_all = f"SELECT {cols} FROM {self.phys}"
        #: the key column's position in a row
        self.key = next(
            i for i, c in enumerate(tdef.columns) if c.name.lower() == tdef.primary_key[0].lower()
        )
        #: a queued row applied (:func:`flush`)
        self.delete = f"DELETE FROM main.{self.phys} WHERE {key} = ?"
        self.replace = f"INSERT OR REPLACE INTO main.{self.phys} ({cols}) VALUES ({marks})"


def _texts(tdef: TableDef) -> _Texts:
    """The (cached) :class:`_Texts` of ``tdef``."""
    hit = _TEXTS.get(id(tdef))
    if hit is not None and hit[0] is tdef:
        return hit[1]
    texts = _Texts(tdef)
    if len(_TEXTS) >= 1024:
        _TEXTS.clear()
    _TEXTS[id(tdef)] = (tdef, texts)
    return texts


def _pk_source(node: exp.Expression | None) -> tuple[str, Any] | None:
    """A key value's source in the template: a placeholder's name, or an integer literal."""
    if isinstance(node, exp.Placeholder) and node.name:
        return ("p", node.name)
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return ("c", int(node.this))
        except ValueError:
            return None
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        src = _pk_source(node.this)
        return ("c", -src[1]) if src is not None and src[0] == "c" else None
    return None


def _where_pk(where: exp.Expression | None, pk: str) -> tuple[str, Any] | None:
    """``pk = value`` among the top-level conjuncts of a WHERE clause."""
    if where is None:
        return None
    cond = where.this if isinstance(where, exp.Where) else where
    todo = [cond]
    while todo:
        node = todo.pop()
        while isinstance(node, exp.Paren):
            node = node.this
        if isinstance(node, exp.And):
            todo.extend((node.this, node.expression))
        elif isinstance(node, exp.EQ):
            for col, val in ((node.this, node.expression), (node.expression, node.this)):
                if isinstance(col, exp.Column) and col.name.lower() == pk:
                    src = _pk_source(val)
                    if src is not None:
                        return src
    return None


def _eligible_table(session: Session, db: str | None, name: str) -> TableDef | None:
    """The table's definition when its rows may be locked one by one (docs/design/multi_worker.md §5.7)."""
    if not db or not name:
        return None
    catalog = session.executor.storage.catalog
    tdef = catalog.get_table(db, name)
    if (
        tdef is None
        or tdef.schema.lower() in _SYSTEM
        or tdef.view_definition
        or not tdef.rowid_pk
        or len(tdef.unique_keys) != 1
        or session.executor.storage.has_file(tdef.schema)
    ):
        return None
    return tdef


def _shape(
    session: Session, tree: exp.Expression, current_db: str | None
) -> tuple[str, str, tuple[str, Any], str] | None:
    """The target table's names, key source and form (``insert`` / ``update`` / ``delete``) of an eligible
    statement tree, else None."""
    if isinstance(tree, exp.Insert):
        schema_node = tree.this
        source = tree.expression
        table = schema_node.this if isinstance(schema_node, exp.Schema) else schema_node
        if (
            not isinstance(table, exp.Table)
            or not isinstance(source, exp.Values)
            or len(source.expressions) != 1
            or tree.args.get("conflict") is not None
            or tree.args.get("alias") is not None
            or source.find(exp.Select) is not None
        ):
            return None
        tdef = _eligible_table(session, table.db or current_db, table.name)
        if tdef is None:
            return None
        pk = tdef.primary_key[0].lower()
        if isinstance(schema_node, exp.Schema) and schema_node.expressions:
            names = [c.name.lower() for c in schema_node.expressions]
        else:  # no column list: the visible columns in order (RM8 13.2.7)
            names = [c.name.lower() for c in tdef.columns if not c.invisible]
        row = source.expressions[0]
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        if pk not in names or len(items) != len(names):
            return None
        src = _pk_source(items[names.index(pk)])
        return None if src is None else (tdef.schema, tdef.name, src, "insert")
    if isinstance(tree, (exp.Update, exp.Delete)):
        table = tree.this
        if (
            not isinstance(table, exp.Table)
            or table.args.get("joins")
            or tree.args.get("from_")
            or tree.args.get("tables")
            or tree.args.get("using")
            or tree.find(exp.Select) is not None
        ):
            return None
        tdef = _eligible_table(session, table.db or current_db, table.name)
        if tdef is None:
            return None
        pk = tdef.primary_key[0].lower()
        if isinstance(tree, exp.Update):
            for a in tree.expressions:
                if (
                    not isinstance(a, exp.EQ)
                    or not isinstance(a.this, exp.Column)
                    or a.this.name.lower() == pk
                ):
                    return None
        src = _where_pk(tree.args.get("where"), pk)
        form = "update" if isinstance(tree, exp.Update) else "delete"
        if isinstance(tree, exp.Delete) and _key_only(tree, pk):
            form = "delete_key"
        return None if src is None else (tdef.schema, tdef.name, src, form)
    return None


def _key_only(tree: exp.Delete, pk: str) -> bool:
    """A DELETE whose WHERE is ``pk = value`` alone, with nothing else (no ORDER BY / LIMIT / modifier): the rows
    it selects are the key's row, when present, and nothing else."""
    if any(v for k, v in tree.args.items() if k not in ("this", "where")):
        return False
    where = tree.args.get("where")
    node = where.this if isinstance(where, exp.Where) else where
    while isinstance(node, exp.Paren):
        node = node.this
    if not isinstance(node, exp.EQ):
        return False
    return any(
        isinstance(col, exp.Column) and col.name.lower() == pk and _pk_source(val) is not None
        for col, val in ((node.this, node.expression), (node.expression, node.this))
    )


def is_locking_select(tree: exp.Expression) -> bool:
    """A SELECT with a locking clause (``FOR UPDATE``, ``FOR SHARE``, ``LOCK IN SHARE MODE``) at its top level."""
    return isinstance(tree, exp.Select) and bool(tree.args.get("locks"))


def _select_shape(session: Session, tree: exp.Expression, current_db: str | None) -> tuple[str, Any] | None:
    """What a locking read locks: ``("row", (schema, table, key source))`` for one base table read by
    ``pk = value`` (no join, no subquery), ``("tables", None)`` for any other locking SELECT (each named table
    locked), None for a SELECT without a locking clause."""
    if not is_locking_select(tree):
        return None
    table = tree.args.get("from_") or tree.args.get("from")
    node = table.this if table is not None else None
    if (
        isinstance(node, exp.Table)
        and not tree.args.get("joins")
        and not any(s is not tree for s in tree.find_all(exp.Select))
    ):
        tdef = _eligible_table(session, node.db or current_db, node.name)
        if tdef is not None:
            src = _where_pk(tree.args.get("where"), tdef.primary_key[0].lower())
            if src is not None:
                return ("row", (tdef.schema, tdef.name, src))
    return ("tables", None)


def lock_for_select(session: Session, stmt: Statement) -> None:
    """A locking read (``SELECT ... FOR UPDATE`` / ``FOR SHARE`` / ``LOCK IN SHARE MODE``) of an explicit
    transaction takes its row lock (one base table read by its full primary key, as :func:`target` decides for
    DML) or a table lock on each table it names, held to the transaction's end, before it reads: InnoDB's
    locking read sets record locks on what it reads (RM8 "Locking Reads"), so another transaction's write of that
    row waits for this one. A shared lock is taken as exclusive (the lock table has one mode: more waits than
    InnoDB, never a missed conflict). A session holding the write lock does not wait (1213), as
    :func:`lock_for_immediate`. Autocommitted locking reads lock nothing (their locks would end with them).

    Raises:
        MySQLError: 1205 / 1213 / 1317 / 1041 from the lock table.
    """
    if not session.explicit_trx or not takes_row_locks(session):
        return
    tpl = stmt.template or (stmt.text, [])
    catalog = session.executor.storage.catalog
    key = (tpl[0], session.current_db, catalog.version)
    cache = _caches(catalog).selects
    if key in cache:
        shape = cache[key]
    else:
        upper = tpl[0].upper()
        tree = None
        if "FOR" in upper or "SHARE" in upper:  # else no locking clause is possible: no parse
            try:
                tree = parse_tree(tpl[0])
            except Exception:  # noqa: BLE001 - the statement itself reports its syntax error
                tree = None
        shape = _select_shape(session, tree, session.current_db) if tree is not None else None
        if len(cache) >= 4096:
            cache.clear()
        cache[key] = shape
    if shape is None:
        return
    how, what = shape
    may_wait = not session.holds_main_lock  # its holders need the main write lock to commit
    if how == "row":
        schema, name, (source, value) = what
        if source == "p":
            value = _param_value(stmt, tpl, value)
        tdef = catalog.get_table(schema, name)
        if (
            type(value) is int
            and tdef is not None
            and (tdef.schema, tdef.name) not in session.executor.temp_tables
        ):
            tkey = table_key(tdef.schema, tdef.name)
            _lock(session, tkey, row_key(tdef.schema, tdef.name, value), may_wait=may_wait)
            return
    temp = session.executor.temp_tables
    for db, name in session.named_tables(stmt):
        schema = catalog.canonical_schema(db)
        if (schema, name) in temp or schema.lower() in _SYSTEM or catalog.get_table(schema, name) is None:
            continue
        _lock(session, table_key(schema, name), 0, may_wait=may_wait)


def _param_value(stmt: Statement, tpl: tuple[str, list[Any]], name: str) -> Any:
    """The value of a key placeholder: one of the template's literals (``:gk<i>``) or a prepared statement's
    parameter."""
    if name.startswith("gk") and name[2:].isdigit() and int(name[2:]) < len(tpl[1]):
        return tpl[1][int(name[2:])]
    return (stmt.params or {}).get(name)


def takes_row_locks(session: Session) -> bool:
    """Client sessions take row locks; the replica applier's session (a class of its own whose ``applier`` is a
    property) does not: its row events never did (docs/design/multi_worker.md §5.7, "not covered")."""
    return type(session).applier is None


def target(session: Session, stmt: Statement) -> tuple[TableDef, int] | None:
    """The table and primary-key value of a DML statement that provably changes at most that one row (an UPDATE
    or DELETE whose WHERE has ``pk = value`` among its top-level conjuncts and which does not assign the key, or a
    single-row INSERT / INSERT IGNORE giving the key; no subquery; a base table of the main file whose key is one
    integer column and which has no other UNIQUE key), else None. The analysis is cached per statement shape."""
    found = _target(session, stmt)
    return None if found is None else (found[0], found[1])


def _target(session: Session, stmt: Statement) -> tuple[TableDef, int, str] | None:
    """:func:`target` with the statement's form (``insert`` / ``update`` / ``delete``)."""
    if stmt.kind != "dml":
        return None
    info = stmt.info
    if info and (info.get("replace") or info.get("plan") is not None):
        return None
    tpl = stmt.template
    if tpl is None:  # no literal to take out (a prepared statement's text with its parameters only)
        tpl = (stmt.text, [])
    ex = session.executor
    catalog = ex.storage.catalog
    key = (tpl[0], session.current_db, catalog.version)
    cache = _caches(catalog).shapes
    if key in cache:
        shape = cache[key]
    else:
        try:
            tree = parse_tree(tpl[0])
        except Exception:  # noqa: BLE001 - unparsable here: the statement takes the immediate path
            tree = None
        shape = _shape(session, tree, session.current_db) if tree is not None else None
        if len(cache) >= 4096:
            cache.clear()
        cache[key] = shape
    if shape is None:
        return None
    schema, name, (how, value), form = shape
    if how == "p":
        value = _param_value(stmt, tpl, value)
    if type(value) is not int or value == 0:  # 0 or NULL may mean "generate" (AUTO_INCREMENT)
        return None
    tdef = catalog.get_table(schema, name)
    if tdef is None:
        return None
    temp = ex.temp_tables
    if temp and (tdef.schema, tdef.name) in temp:  # a temporary table of that name hides the base table
        return None
    return tdef, value, form


def _lock(session: Session, table: int, row: int, *, may_wait: bool) -> None:
    """Take the row (``row`` != 0) or table lock for the session's transaction: at once when nobody conflicts,
    else through :meth:`RowLocks.lock`'s wait (1205 / 1213 / 1317)."""
    locks = session.server.row_locks
    assert locks is not None
    if locks.try_lock(session.id, table, row):
        return
    locks.lock(
        session.id,
        table,
        row,
        timeout=float(session.lock_wait_timeout()),
        killed=lambda: session.killed or session.executor.interrupt.is_set(),
        may_wait=may_wait,
    )


def _shadow_ddl(session: Session, tdef: TableDef) -> str:
    """The table's SQLite definition (``CREATE TABLE "db.t" ...``, constraints included), cached per catalog
    version."""
    phys = physical_name(tdef.schema, tdef.name)
    key = (phys, session.executor.storage.catalog.version)
    cache = _caches(session.executor.storage.catalog).ddl
    ddl = cache.get(key)
    if ddl is None:
        row = session.conn.raw.execute(
            "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?", (phys,)
        ).fetchone()
        ddl = str(row[0])
        if len(cache) >= 1024:
            cache.clear()
        cache[key] = ddl
    return ddl


def _shadow(session: Session, tdef: TableDef) -> Any:
    """The session's shadow connection (:meth:`Storage.shadow_connection`) holding a table of ``tdef``'s name and
    definition (made once per session and table definition; a table first made inside the shadow's open
    transaction is forgotten when that transaction rolls back, :meth:`ShadowConnection.end`)."""
    raw = session.shadow
    if raw is None:
        raw = session.shadow = session.executor.storage.shadow_connection()
        raw.gk_tables = {}
        raw.gk_loaded = set()
        raw.gk_pending = set()
    ddl = _shadow_ddl(session, tdef)
    phys = _texts(tdef).phys
    if raw.gk_tables.get(phys) != ddl:
        raw.execute(f"DROP TABLE IF EXISTS {phys}")
        raw.execute(ddl)
        raw.gk_tables[phys] = ddl
        if raw.in_transaction:
            raw.gk_pending.add(phys)
    return raw


def try_deferred(session: Session, stmt: Statement, handler: Handler) -> StatementResult | None:
    """Run ``stmt`` deferred when it is eligible (module docstring), else return None (the caller runs it on the
    immediate path, after :func:`lock_for_immediate`).

    Raises:
        MySQLError: the row lock's 1205 / 1213 / 1317 / 1041, or whatever the statement itself fails with.
    """
    if not session.explicit_trx or session.holds_write_lock or session.conn.raw.in_transaction:
        return None
    locks = session.server.row_locks
    assert locks is not None
    if locks.held_count(session.id) >= MAX_ROW_LOCKS or locks.crowded():
        return None
    found = _target(session, stmt)
    if found is None:
        return None
    tdef, pk, form = found
    tkey = table_key(tdef.schema, tdef.name)
    _lock(session, tkey, row_key(tdef.schema, tdef.name, pk), may_wait=True)
    conn = session.conn
    ex = session.executor
    if ex.storage.catalog.get_table(tdef.schema, tdef.name) is not tdef:
        return None  # a DDL committed while it waited: the immediate path plans it again
    ai = tdef.auto_increment_column
    if ai is not None and (
        form == "insert" or (form == "update" and ai.name.lower() != tdef.primary_key[0].lower())
    ):
        # the counter starts from the real table's MAX(col), never from the shadow's rows (a DELETE never moves
        # it, an UPDATE moves it only through a column it may assign: not the key)
        ex.storage.catalog.next_auto_increment(conn, tdef, explicit=0)
    texts = _texts(tdef)
    try:
        shadow = _shadow(session, tdef)
        if not shadow.in_transaction:  # one shadow transaction per engine transaction (ShadowConnection.end)
            shadow.execute("BEGIN")
        loaded = shadow.gk_loaded
        preselected = None
        if (tkey, pk) not in loaded:  # else the shadow holds its latest state (or its absence) already
            # the latest committed row (locked now, so it stays so until COMMIT)
            current = conn.raw.execute(texts.select, (pk,)).fetchone()
            if form == "delete_key":
                # a DELETE by the key alone selects that row: it is given to the DELETE (its before image) and
                # never copied into the shadow, where its absence is then the row's state (the DELETE's own
                # write on the shadow finds nothing)
                preselected = [] if current is None else [(pk, *current)]
            else:
                if current is not None:
                    shadow.execute(texts.insert, current)
                loaded.add((tkey, pk))
    except _db.Error:  # a definition the shadow cannot hold: the immediate path (the row stays locked)
        return None
    before = len(session.row_changes)
    # a failure undoes its own changes (the executor's statement savepoint, on the shadow)
    ex.preselected = preselected
    try:
        res = ex.run_on(shadow, lambda: handler(session, stmt))
    finally:
        ex.preselected = None  # not taken when the statement failed before its DELETE ran
    if preselected is not None:  # it ran: the row's state is its absence (a failed one left the row unloaded)
        loaded.add((tkey, pk))
    if len(session.row_changes) != before:
        session.deferred[(tkey, pk)] = tdef
    return res


def flush(session: Session) -> None:
    """Apply the transaction's queued rows: take the write lock (``ensure_write_trx``), then write each row's final
    state by its key. The transaction continues on the immediate path.

    Raises:
        MySQLError: 1205 / 1317 waiting for the write lock (the queue is kept: the caller decides).
    """
    queue = session.deferred
    if not queue:
        return
    session.ensure_write_trx()
    raw = session.conn.raw
    shadow = session.shadow
    tables: dict[int, tuple[TableDef, list[int]]] = {}
    for (tkey, pk), tdef in queue.items():
        tables.setdefault(tkey, (tdef, []))[1].append(pk)
    for tdef, pks in tables.values():
        texts = _texts(tdef)
        at = texts.key
        # the final state of every row the transaction loaded into the shadow (a queued key absent: deleted)
        final = {row[at]: row for row in shadow.execute(texts.shadow_all)}
        for pk in pks:
            row = final.get(pk)
            sql, values = (texts.delete, (pk,)) if row is None else (texts.replace, row)
            try:
                raw.execute(sql, values)
            except (
                _db.Error
            ) as err:  # a full disk, an I/O error: MySQL's error, as the immediate path reports it
                raise session.executor.translate_error(err, sql) from err
    queue.clear()
    shadow.end()


def flush_before(session: Session, stmt: Statement) -> None:
    """Before a statement other than DML / COMMIT / ROLLBACK in a transaction with queued rows: apply the queue
    unless the statement is a SELECT naming none of the queued tables and no view.

    Raises:
        MySQLError: as :func:`flush`.
    """
    kind = stmt.kind
    if kind in _NO_FLUSH:
        return
    if kind == "select":
        catalog = session.executor.storage.catalog
        named = {(catalog.canonical_schema(db), name) for db, name in session.named_tables(stmt)}
        queued = {physical_name(t.schema, t.name).lower() for t in session.deferred.values()}
        views = any((t := catalog.get_table(*n)) is not None and t.view_definition for n in named)
        if not views and not {physical_name(*n).lower() for n in named} & queued:
            return  # names neither a queued table nor a view (which may read one)
    flush(session)


def lock_for_immediate(session: Session, stmt: Statement) -> None:
    """A writing statement on the immediate path respects other transactions' row locks: an eligible one takes
    its row lock, any other a table lock on each table it names; then the transaction's queued rows are applied.
    A session holding the write lock does not wait (1213 on a conflict).

    Raises:
        MySQLError: 1205 / 1213 / 1317 / 1041 from the lock table; what :func:`flush` raises.
    """
    locks = session.server.row_locks
    assert locks is not None
    may_wait = not session.holds_main_lock  # its holders need the main write lock to commit
    few = locks.held_count(session.id) < MAX_ROW_LOCKS and not locks.crowded()
    found = target(session, stmt) if few else None
    if found is not None:
        tdef, pk = found
        _lock(
            session, table_key(tdef.schema, tdef.name), row_key(tdef.schema, tdef.name, pk), may_wait=may_wait
        )
    else:
        catalog = session.executor.storage.catalog
        temp = session.executor.temp_tables
        # CREATE / ALTER VIEW writes no row of the tables it reads: no table lock on them (MySQL's CREATE VIEW
        # holds shared metadata locks on them: it does not wait for their writers)
        named = (
            [] if stmt.kind == "ddl" and stmt.ddl_object.kind == "VIEW" else list(session.named_tables(stmt))
        )
        if stmt.kind == "ddl" and stmt.ddl_object.kind == "DATABASE" and stmt.ddl_object.name:
            # DROP / ALTER DATABASE names no table: every table of the schema
            schema = catalog.canonical_schema(stmt.ddl_object.name)
            named += [(schema, t.name) for t in catalog.tables(schema)] if catalog.has_schema(schema) else []
        for db, name in named:
            schema = catalog.canonical_schema(db)
            if (schema, name) in temp or schema.lower() in _SYSTEM:
                continue
            _lock(session, table_key(schema, name), 0, may_wait=may_wait)
    flush(session)
