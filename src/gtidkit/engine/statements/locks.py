"""LOCK TABLES / UNLOCK TABLES / FLUSH TABLES WITH READ LOCK: table locks and the global read lock.

Sources: RM8 15.3.6 "LOCK TABLES and UNLOCK TABLES Statements" (a session may hold READ or WRITE locks; LOCK
TABLES releases the locks it held before and implicitly commits the active transaction; while it holds locks the
session may access only the locked tables, under the names (or aliases) it locked them with — otherwise
ER_TABLE_NOT_LOCKED 1100 — and may not write a READ-locked table — ER_TABLE_NOT_LOCKED_FOR_WRITE 1099; a READ
lock lets other sessions read but not write, a WRITE lock keeps them out entirely; UNLOCK TABLES commits the active
transaction only when LOCK TABLES had been used; START TRANSACTION releases table locks; a disconnect releases
them), RM8 15.7.8.3 "FLUSH Statement" (FLUSH TABLES WITH READ LOCK: the global read lock; other sessions' writes
wait; the holder's own writes fail with ER_CANT_UPDATE_WITH_READLOCK 1223; with LOCK TABLES active it fails with
ER_LOCK_OR_ACTIVE_TRANSACTION 1192; UNLOCK TABLES releases it and does not commit), RM8 "Statements That Cause an
Implicit Commit", and MySQL ``sql/lock.cc`` / ``sql/sql_parse.cc`` (waits give ER_LOCK_WAIT_TIMEOUT 1205 after
``lock_wait_timeout`` seconds).

Neither statement is written to the binary log and neither consumes a GTID: the only transaction they can end is
the one already open (its implicit commit goes through the normal commit path).

Which tables a statement reads and writes comes from its sqlglot tree (:func:`statement_tables`); the check runs
only while some session holds a table lock or the global read lock (:attr:`LockManager.active`), so statements pay
nothing otherwise.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot import exp

from gtidkit.mysql_errors import message, mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session

#: Schemas whose tables a session under LOCK TABLES may read without locking them (RM8: INFORMATION_SCHEMA and
#: performance_schema tables are exempt).
UNLOCKED_SCHEMAS = frozenset({"information_schema", "performance_schema"})

_LOCK_ITEM = re.compile(
    r"""\s*(?P<table>(?:`[^`]+`|[\w$]+)(?:\s*\.\s*(?:`[^`]+`|[\w$]+))?)
        (?:\s+(?:AS\s+)?(?P<alias>(?!READ\b|WRITE\b|LOW_PRIORITY\b)(?:`[^`]+`|[\w$]+)))?
        \s+(?P<mode>READ(?:\s+LOCAL)?|(?:LOW_PRIORITY\s+)?WRITE)\s*(?:,|$)""",
    re.IGNORECASE | re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class TableLock:
    """One item of LOCK TABLES: table ``schema.name`` locked under ``alias`` (the name itself when none)."""

    schema: str
    name: str
    alias: str
    write: bool


def _unq(ident: str) -> str:
    return ident.strip()[1:-1] if ident.strip().startswith("`") else ident.strip()


def parse_lock_tables(text: str, current_db: str | None) -> list[TableLock]:
    """Parse ``LOCK TABLE[S] t [[AS] a] {READ [LOCAL] | [LOW_PRIORITY] WRITE} [, ...]``.

    Raises:
        MySQLError: 1064 for text MySQL would not parse; 1046 for an unqualified table without a current database.
    """
    m = re.match(r"\s*LOCK\s+TABLES?\s+(?P<rest>.+?)\s*;?\s*$", text, re.IGNORECASE | re.DOTALL)
    if not m:
        raise _parse_error(text, 0)
    rest = m.group("rest")
    out: list[TableLock] = []
    pos = 0
    while pos < len(rest):
        item = _LOCK_ITEM.match(rest, pos)
        if not item:
            raise _parse_error(rest, pos)
        parts = [_unq(p) for p in re.split(r"\s*\.\s*", item.group("table"), maxsplit=1)]
        if len(parts) == 2:
            schema, name = parts
        elif current_db is None:
            raise mysql_error(1046)
        else:
            schema, name = current_db, parts[0]
        alias = _unq(item.group("alias")) if item.group("alias") else name
        out.append(TableLock(schema, name, alias, item.group("mode").upper().endswith("WRITE")))
        pos = item.end()
    return out


def _parse_error(text: str, pos: int) -> Exception:
    from gtidkit.engine.statements.set_parser import parse_error

    return parse_error(text, pos)


class LockManager:
    """The server's table locks (LOCK TABLES) and global read lock (FLUSH TABLES WITH READ LOCK).

    One condition guards all of it; waiters are woken whenever a lock is released. Thread-safe.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._tables: dict[int, list[TableLock]] = {}
        self._global_read: set[int] = set()
        self.active = False

    # -- queries ------------------------------------------------------------------------------------------
    def held(self, session_id: int) -> list[TableLock]:
        """The table locks ``session_id`` holds (empty when it is not in LOCK TABLES mode)."""
        with self._cond:
            return list(self._tables.get(session_id, ()))

    def holds_global_read_lock(self, session_id: int) -> bool:
        """True when ``session_id`` ran FLUSH TABLES WITH READ LOCK and has not unlocked."""
        with self._cond:
            return session_id in self._global_read

    def _conflict(self, session_id: int, reads: set[tuple[str, str]], writes: set[tuple[str, str]]) -> bool:
        if writes and any(s != session_id for s in self._global_read):
            return True
        for other, locks in self._tables.items():
            if other == session_id:
                continue
            for lk in locks:
                key = (lk.schema.lower(), lk.name.lower())
                if key in writes or (lk.write and key in reads):
                    return True
        return False

    def _wait(self, ready: object, timeout: float) -> None:
        if not self._cond.wait_for(ready, timeout):  # type: ignore[arg-type]
            raise mysql_error(1205)

    def _refresh(self) -> None:
        self.active = bool(self._tables or self._global_read)
        self._cond.notify_all()

    # -- changes ------------------------------------------------------------------------------------------
    def lock_tables(self, session_id: int, locks: list[TableLock], timeout: float) -> None:
        """Take ``locks`` for ``session_id`` (its previous table locks are released first), waiting for others.

        Raises:
            MySQLError: 1205 after ``timeout`` seconds of waiting.
        """
        reads = {(lk.schema.lower(), lk.name.lower()) for lk in locks if not lk.write}
        writes = {(lk.schema.lower(), lk.name.lower()) for lk in locks if lk.write}
        with self._cond:
            self._tables.pop(session_id, None)
            self._refresh()
            self._wait(lambda: not self._conflict(session_id, reads, writes), timeout)
            self._tables[session_id] = list(locks)
            self._refresh()

    def global_read_lock(self, session_id: int, timeout: float) -> None:
        """FLUSH TABLES WITH READ LOCK: wait until no other session holds a WRITE table lock, then take it.

        Raises:
            MySQLError: 1205 after ``timeout`` seconds of waiting.
        """
        with self._cond:

            def free() -> bool:
                return not any(
                    lk.write for s, locks in self._tables.items() if s != session_id for lk in locks
                )

            self._wait(free, timeout)
            self._global_read.add(session_id)
            self._refresh()

    def unlock(self, session_id: int, *, global_read: bool = True) -> bool:
        """UNLOCK TABLES (and disconnect): release the locks of ``session_id``; True if it held table locks.

        ``global_read=False`` keeps the global read lock (START TRANSACTION releases table locks only).
        """
        if session_id not in self._tables and (not global_read or session_id not in self._global_read):
            # holds nothing (every BEGIN asks): no lock round trip. Only this session's own thread adds its entries.
            return False
        with self._cond:
            had_tables = self._tables.pop(session_id, None) is not None
            if global_read:
                self._global_read.discard(session_id)
            self._refresh()
            return had_tables

    def wait_for_access(
        self, session_id: int, reads: set[tuple[str, str]], writes: set[tuple[str, str]], timeout: float
    ) -> None:
        """Block until no other session's lock forbids reading ``reads`` and writing ``writes`` (lowercase keys).

        Raises:
            MySQLError: 1205 after ``timeout`` seconds of waiting.
        """
        with self._cond:
            self._wait(lambda: not self._conflict(session_id, reads, writes), timeout)


# ---------------------------------------------------------------------- statements
def _table_of(node: exp.Expression | None) -> exp.Table | None:
    if isinstance(node, exp.Schema):
        node = node.this
    return node if isinstance(node, exp.Table) else None


def statement_tables(
    session: Session, tree: exp.Expression
) -> tuple[list[tuple[str, str, str]], set[tuple[str, str, str]]]:
    """Tables a statement references and the ones it writes (DML targets, DDL on tables).

    Returns:
        (references as (schema, table, name-or-alias used), written references as lowercase (schema, table,
        name-or-alias used)).
    """
    db = session.current_db or ""
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    tables: list[exp.Table] = []
    for t in tree.find_all(exp.Table):
        if not t.name or isinstance(t.this, (exp.Func, exp.Unnest)):
            continue
        if not t.db and t.name.lower() in ctes:
            continue
        tables.append(t)
    refs = [(t.db or db, t.name, t.alias or t.name) for t in tables]

    def key(t: exp.Table) -> tuple[str, str]:
        return ((t.db or db).lower(), t.name.lower())

    by_used = {(t.alias or t.name).lower(): t for t in tables}
    targets: list[exp.Table | None] = []
    if isinstance(tree, exp.Insert):
        targets = [_table_of(tree.this)]
    elif isinstance(tree, exp.Update):
        # multi-table UPDATE writes only the tables whose columns are SET (RM8: others need only READ locks)
        for eq in tree.expressions:
            col = eq.this if isinstance(eq, exp.EQ) else None
            qual = col.table.lower() if isinstance(col, exp.Column) and col.table else ""
            targets.append(by_used.get(qual) if qual else _table_of(tree.this))
    elif isinstance(tree, exp.Delete):
        named = tree.args.get("tables") or [tree.this]
        targets = [by_used.get(t.name.lower(), t) if isinstance(t, exp.Table) else None for t in named]
    elif isinstance(tree, exp.Drop) and str(tree.args.get("kind")).upper() == "TABLE":
        if not tree.args.get("temporary"):
            targets = list(tables)
    elif isinstance(tree, exp.Create) and str(tree.args.get("kind")).upper() in ("TABLE", "INDEX"):
        temporary = any(isinstance(p, exp.TemporaryProperty) for p in tree.find_all(exp.TemporaryProperty))
        if not temporary:
            targets = [tables[0]] if tables else []
    elif isinstance(tree, (exp.Alter, exp.TruncateTable)):
        targets = list(tables) if isinstance(tree, exp.TruncateTable) else [_table_of(tree.this)]
    writes = {(*key(t), (t.alias or t.name).lower()) for t in targets if t is not None}
    return refs, writes


def check_statement(session: Session, kind: str, text: str) -> None:
    """Enforce table locks for one statement of ``session`` before it runs (only when any lock is held).

    Raises:
        MySQLError: 1100 a table not locked by this LOCK TABLES session (also a second reference under the same
            name, e.g. ``INSERT INTO t1 SELECT ... FROM t1``: each needs its own lock, under an alias); 1099 a
            write to a READ-locked table; 1223 a write while this session holds the global read lock; 1205 waiting
            for another session's lock timed out.
    """
    from gtidkit.engine.sql.parse import parse_tree

    manager = session.server.table_locks
    if kind == "account" and manager.active:
        # an account statement writes the grant tables: refused under this session's global read lock, and it
        # waits for another session's (FLUSH TABLES WITH READ LOCK blocks every write)
        if manager.holds_global_read_lock(session.id):
            raise mysql_error(1223)
        grant_tables = {("mysql", "user"), ("mysql", "db"), ("mysql", "global_grants")}
        manager.wait_for_access(session.id, set(), grant_tables, lock_wait_timeout(session))
        return
    if kind not in ("select", "dml", "ddl") or not manager.active:
        return
    try:
        tree = parse_tree(text)
    except Exception:  # noqa: BLE001 - the SQL layer reports the syntax error with MySQL's text
        tree = None
    refs, writes = statement_tables(session, tree) if tree is not None else ([], set())
    if (writes or kind == "ddl") and manager.holds_global_read_lock(session.id):
        raise mysql_error(1223)
    own = manager.held(session.id)
    if own:
        locked = {(lk.schema.lower(), lk.name.lower(), lk.alias.lower()): lk for lk in own}
        seen: set[tuple[str, str, str]] = set()
        for schema, name, used in refs:
            if schema.lower() in UNLOCKED_SCHEMAS:
                continue
            ref = (schema.lower(), name.lower(), used.lower())
            lk = locked.get(ref)
            if lk is None or (ref in seen and isinstance(tree, exp.Insert)):
                raise mysql_error(1100, used)
            seen.add(ref)
            if not lk.write and ref in writes:
                raise mysql_error(1099, used)
        return  # everything it touches it has locked itself: no other session can hold a conflicting lock
    reads = {(s.lower(), n.lower()) for s, n, _ in refs if s.lower() not in UNLOCKED_SCHEMAS}
    written = {(s, n) for s, n, _ in writes}
    manager.wait_for_access(session.id, reads, written, lock_wait_timeout(session))


def lock_wait_timeout(session: Session) -> float:
    """``@@SESSION.lock_wait_timeout`` in seconds (metadata-lock waits, RM8 default 31536000)."""
    return float(session.resolve_sysvar("lock_wait_timeout"))


def lock_tables(session: Session, text: str) -> list[tuple[str, int, str]]:
    """LOCK TABLES: implicit commit (done by the caller), release old locks, take the new ones.

    Returns:
        The statement's warnings: 3129 when it write-locks mysql.gtid_executed (MySQL warns when the table is
        opened for writing by anything but the server's own GTID bookkeeping).

    Raises:
        MySQLError: 1146 unknown table; 1064 syntax; 1205 lock wait timeout.
    """
    locks = parse_lock_tables(text, session.current_db)
    catalog = session.server.storage.catalog
    for lk in locks:
        catalog.require_table(lk.schema, lk.name)  # 1146 Table 'db.t' doesn't exist
    session.server.table_locks.lock_tables(session.id, locks, lock_wait_timeout(session))
    if any(lk.write and (lk.schema.lower(), lk.name.lower()) == ("mysql", "gtid_executed") for lk in locks):
        return [("Warning", 3129, message(3129, "gtid_executed"))]
    return []


def flush_tables_with_read_lock(session: Session) -> None:
    """FLUSH TABLES WITH READ LOCK.

    Raises:
        MySQLError: 1192 when the session is in LOCK TABLES mode; 1205 lock wait timeout.
    """
    manager = session.server.table_locks
    if manager.held(session.id):
        raise mysql_error(1192)
    manager.global_read_lock(session.id, lock_wait_timeout(session))


def unlock_tables_commits(session: Session) -> bool:
    """Whether UNLOCK TABLES must implicitly commit: only when the session holds LOCK TABLES locks."""
    return bool(session.server.table_locks.held(session.id))
