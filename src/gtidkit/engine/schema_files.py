"""A SQLite file per schema (``gtidkit_file_per_schema``; issue 21 step 9, docs/design/multi_worker.md §5.5).

SQLite has one writer per database file. With every schema in the one engine file, one open write transaction
(an ORM session left open, a failed test) makes every other session's INSERT into any table wait until 1205. With
``gtidkit_file_per_schema=ON`` each user schema made by CREATE DATABASE gets a file of its own,
``<datadir>/<schema>.sqlite`` (MySQL keeps a directory per database), ATTACHed to every engine connection; the
system schemas (mysql, sys, information_schema, performance_schema), the catalog (``_gk_*``), the commit log and
mysql.gtid_executed stay in the main file. A writer takes the write lock of the files it writes, so writers on
different schemas do not wait for each other; the engine write lock (main's) is taken at COMMIT only, for the
commit log, the GTID and the binary log (engine/session.py ``ensure_write_trx``).

What this module decides:

* **Which schemas have a file**: those whose ``<schema>.sqlite`` exists and that the catalog lists, whatever the
  option says now (a datadir keeps its layout: the option only decides where CREATE DATABASE puts a new schema).
  A schema created while the option is OFF, a system schema, a schema whose file name would be the main file's,
  or one created when :data:`MAX_SCHEMA_FILES` schemas already have a file stays in the main file.
* **File names**: MySQL's rule for a database directory keeps ``[A-Za-z0-9_]`` and encodes other characters
  (``@`` + 4 hex digits, ``sql/sql_table.cc`` ``build_table_filename`` / ``strings/ctype-utf8.cc``
  ``my_wc_mb_filename``); here every other character is ``@`` + its code point as 4 hex digits (5+ for astral).
* **ATTACH names**: the schema's file stem; SQLite compares them case-insensitively, so two schemas differing
  only in case cannot both have a file (the second stays in main; as the physical table names, storage.py).

Physical table names are unchanged (``"db.t"``, one quoted identifier) and live in their schema's file. SQLite
resolves an unqualified name through temp, main, then the attached files in order, so every statement the
executor generates finds its tables as before; statements that create (CREATE TABLE / INDEX / VIEW) qualify the
name with ``Storage.qualifier``. A SQLite view can name only tables of its own file: a MySQL view selecting only
from its schema's file is a view in that file; one reading another file (another schema, a system table, such a
view) is a TEMP view that every connection creates from ``_gk_cross_views`` in main (``Connection.sync_views``,
``Storage.cross_views``; SQLite lets a TEMP view name any attached file).

Consistent reads across files: a REPEATABLE READ transaction's first SELECT (or START TRANSACTION WITH CONSISTENT
SNAPSHOT), and an autocommitted SELECT reading several files, open every file's snapshot at once
(``Connection.open_read_snapshot``) under the commit gate (``gtidkit.commit.lock``, flock) taken shared, which a
COMMIT writing schema files holds exclusively: no commit is half inside a read view. The snapshot ends at the
transaction's first write (SQLite refuses a write on an older snapshot of a file).

Lock waits: the holders and waiters of the files' locks (:class:`FileWaits`, or the shared page's slots with
workers) are listed by INNODB_TRX, data_lock_waits and SHOW ENGINE INNODB STATUS (engine/lock_waits.py).

Limits: ``SQLITE_LIMIT_ATTACHED`` is 10 in this build (§3.4); :data:`MAX_SCHEMA_FILES` = 9 leaves one slot for a
tool's own ATTACH.

Crash atomicity across files (recovery argument). SQLite commits the files of one transaction one after the other,
main first (§3.4); a process killed between main's commit and a schema file's leaves main (commit log, GTID, and
after recovery the binary log) with the transaction and the file without it. So every transaction that writes a
schema file under its lock (:func:`record_redo`, called at COMMIT with the engine write lock held) also writes, in
the same SQLite transaction, a redo row into main (:data:`REDO_TABLE`: its row images, the files it names) and sets
each file's ``applied`` to that row's id. What is durable at each point:

* before main's commit: nothing of the transaction anywhere (SQLite's rollback of an unfinished commit, per file);
* after main's commit, before file F's: main has the redo row R, F's ``applied`` < R and F lacks the rows;
* after F's commit: F has the rows and ``applied`` = R.

Nothing else can be written to F between the two without F's write lock. In one process the kill took every
session with it, and the start-up (``Storage._redo_schema_files``, before any session) re-applies, for every file,
each redo row naming F whose id is above F's ``applied`` (:func:`apply_redo`: by primary key, idempotent, in id
order). With several worker processes the others go on, so taking F's lock (``Connection.lock_files``, with
``Storage.redo_at_lock``) does the same first, inside the locker's transaction. A file that missed R is therefore repaired before any later transaction reads it
under its lock or writes it, in one process (start-up) and with workers (a worker killed inside its COMMIT: the
next locker of F in any worker). Redo rows are trimmed only once every file they name has applied them.

DDL (MySQL 8.0's atomic DDL: the statement is in the data dictionary, the storage engine and the binary log, or
in none): its physical statements on a schema file (``Connection.file_execute``: CREATE / DROP TABLE, INDEX and
VIEW, the ALTER / RENAME rebuild with its rows as parameters, TRUNCATE) go into the same redo row (``ops``) and are
replayed, in order, on a file that missed the commit, before its rows (CREATE TABLE ... SELECT); the catalog is in
main, so after the replay the catalog, the file and the binary log agree. CREATE DATABASE makes its file before
the catalog row commits (a file the catalog does not list is never attached) and starts it as having applied
every redo row so far; DROP DATABASE removes the file after its commit, and a file left by a kill in between is
removed by the next CREATE DATABASE of that name, whatever the option says. Not covered: writes to schema files by
the replica applier and the server's own maintenance, which take the engine write lock first.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from gtidkit.engine.shared.file_waits import FileLock
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "FILE_TABLE",
    "MAIN_ONLY_SCHEMAS",
    "MAX_SCHEMA_FILES",
    "REDO_TABLE",
    "SCHEMA_FILE_SUFFIX",
    "FileWaits",
    "apply_redo",
    "create_file",
    "file_name",
    "record_redo",
    "remove_file",
]

#: Schemas that always live in the main file.
MAIN_ONLY_SCHEMAS = frozenset({"mysql", "sys", "information_schema", "performance_schema"})
#: Schema files at most (SQLite's SQLITE_LIMIT_ATTACHED is 10 in this build; one slot is left for tools).
MAX_SCHEMA_FILES = 9
#: Suffix of a schema file (``<datadir>/<schema>.sqlite``).
SCHEMA_FILE_SUFFIX = ".sqlite"
#: The table every schema file has (one row): ``writes`` counts the transactions that took the file's write lock
#: (each bumps it first: that takes the lock and tells a process whether another one wrote since, so its cached
#: AUTO_INCREMENT counters must restart at MAX(col)+1).
FILE_TABLE = "_gk_schema_file"


def file_name(schema: str) -> str:
    """The file name (no directory) of ``schema``'s SQLite file: ``[A-Za-z0-9_]`` kept, any other character as
    ``@`` + its code point in hex (at least 4 digits), as MySQL encodes database directory names.

    Args:
        schema: the MySQL schema name.
    """
    out = []
    for ch in schema:
        if ch.isascii() and (ch.isalnum() or ch == "_"):
            out.append(ch)
        else:
            out.append(f"@{ord(ch):04x}")
    return "".join(out) + SCHEMA_FILE_SUFFIX


def create_file(path: Path, main: Path | None = None) -> None:
    """Create an empty schema file at ``path`` in WAL mode with its :data:`FILE_TABLE` (replacing a stray
    file: one a dropped schema left behind, or a CREATE DATABASE that rolled back).

    Args:
        path: the new file.
        main: the main file; the new file starts as having applied every redo row it holds (rows naming the same
            ATTACH name belong to a dropped schema's file, never to this one).

    Raises:
        OSError / sqlite3.Error: the file cannot be created.
    """
    remove_file(path)
    applied = 0
    if main is not None:
        reader = sqlite3.connect(str(main))
        try:
            applied = int(reader.execute(f"SELECT COALESCE(MAX(id), 0) FROM {REDO_TABLE}").fetchone()[0])
        except sqlite3.OperationalError:  # no redo log yet
            pass
        finally:
            reader.close()
    db = sqlite3.connect(str(path), isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            f"CREATE TABLE {FILE_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), writes INTEGER NOT NULL, "
            "applied INTEGER NOT NULL)"
        )
        db.execute(f"INSERT INTO {FILE_TABLE} VALUES (1, 0, ?)", (applied,))
    finally:
        db.close()
    _fsync_dir(path.parent)


def remove_file(path: Path) -> None:
    """Delete a schema file with its WAL and shared-memory files (connections that still have it attached keep
    reading the unlinked file until they detach it). Missing files are ignored."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


class FileWaits:
    """The wait-for graph of the schema files' write locks in this process: which transaction holds each file's
    lock (taken by :meth:`gtidkit.engine.storage.Connection.lock_files`) and which file each waiter waits for.

    A transaction about to wait for a file whose holder waits, directly or through others, for a file this
    transaction holds would wait forever (until innodb_lock_wait_timeout): it gets 1213 ER_LOCK_DEADLOCK instead,
    and its transaction is rolled back (InnoDB's deadlock detection, ``lock0lock.cc`` ``Deadlock_checker``, which
    rolls back a victim's whole transaction; here the victim is the transaction that closes the cycle). Waits on a
    file held by another worker process are not in this graph: they end with 1205 after the timeout.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders: dict[str, object] = {}
        self._waiting: dict[object, str] = {}
        #: since when (seconds since the epoch) each file's lock is held, each waiter waits
        self._held_since: dict[str, float] = {}
        self._wait_since: dict[object, float] = {}

    def wait(self, me: object, alias: str) -> None:
        """``me`` is about to wait for file ``alias``'s lock (recorded until :meth:`done_waiting`).

        Raises:
            MySQLError: 1213 ER_LOCK_DEADLOCK when the wait would close a cycle.
        """
        with self._lock:
            holder = self._holders.get(alias)
            seen: set[int] = set()
            while holder is not None and id(holder) not in seen:
                if holder is me:
                    raise mysql_error(1213)
                seen.add(id(holder))
                waits_for = self._waiting.get(holder)
                holder = self._holders.get(waits_for) if waits_for is not None else None
            self._waiting[me] = alias
            self._wait_since[me] = time.time()

    def done_waiting(self, me: object) -> None:
        """``me``'s wait ended (lock taken or failed)."""
        with self._lock:
            self._waiting.pop(me, None)
            self._wait_since.pop(me, None)

    def acquired(self, me: object, alias: str) -> None:
        """``me`` holds file ``alias``'s lock until :meth:`release`."""
        with self._lock:
            self._holders[alias] = me
            self._held_since[alias] = time.time()

    def snapshot(self, files: dict[str, Path]) -> list[FileLock]:
        """The schema files' locks at one instant, for INNODB_TRX / data_lock_waits / SHOW ENGINE INNODB STATUS
        (engine/lock_waits.py): one entry per file held or waited for; sessions are named by their connection
        id (the ``owner_id`` of the engine connection).

        Args:
            files: ``{schema: path}`` of the schema files (``Storage.schema_files``).
        """
        schema_of = {path.stem.lower(): schema for schema, path in files.items()}
        with self._lock:
            locks: dict[str, FileLock] = {}
            for alias, me in self._holders.items():
                if alias in schema_of:
                    locks[alias] = FileLock(
                        schema_of[alias], _owner(me), self._held_since.get(alias, 0.0), {}
                    )
            for me, alias in self._waiting.items():
                if alias in schema_of:
                    lock = locks.setdefault(alias, FileLock(schema_of[alias], None, 0.0, {}))
                    lock.waiters[_owner(me) or 0] = self._wait_since.get(me, 0.0)
        return list(locks.values())

    def release(self, me: object, aliases: set[str]) -> None:
        """``me``'s transaction ended: the locks of ``aliases`` it held are free."""
        with self._lock:
            for alias in aliases:
                if self._holders.get(alias) is me:
                    del self._holders[alias]
                    self._held_since.pop(alias, None)


def _owner(me: object) -> int | None:
    """The connection id of the engine connection ``me`` (0, the server's own connection: None)."""
    return int(getattr(me, "owner_id", 0)) or None


#: The redo log of the schema files, in the main file: one row per transaction that wrote schema files under
#: their locks, with its row images (written in that transaction, before the COMMIT that writes main first).
REDO_TABLE = "_gk_file_redo"
#: redo rows kept behind the newest (older ones are complete: every file they name has applied them)
REDO_KEEP = 1000


def record_redo(
    db: Any, aliases: Iterable[str], changes: list[Any], ops: list[tuple[str, str, Any, bool]] | None = None
) -> int:
    """Inside the committing transaction (engine write lock held): store the row images ``changes`` (RowChange
    objects of schema-file tables) and the physical statements ``ops`` a DDL ran on schema files (``(ATTACH
    name, SQLite statement, parameters, executemany?)``, in order: ``Connection.file_execute``) as a redo row
    naming the files ``aliases``, mark each file as having applied it, and trim rows long complete. Returns the
    redo row's id.

    A DDL's statements are replayed as they ran: the file's state before them is exactly what the recording
    transaction saw (it held the file's write lock from its first write to its COMMIT, and a file commits its
    whole transaction or none of it), and every row they write is a parameter (an ALTER's rebuild copies the
    rows through Python), so replaying them once on a file that missed the commit gives the same file.

    Recovery argument (docs/design/multi_worker.md "Step 9 as built"): SQLite commits main first, then each
    attached file; a process killed between them leaves the redo row (main) without the file's rows, and the
    file's ``applied`` below the row's id. No other transaction can commit to that file in between unless it
    takes the file's lock, which :func:`apply_redo` (run then, and at start-up) uses to re-apply what the file
    missed before anything else is written to it.
    """
    ops = ops or []
    names = sorted(set(aliases) | {op[0] for op in ops})
    images = [(c.schema, c.table, c.kind, c.before, c.after) for c in changes]
    payload: Any = {"rows": images, "ops": ops} if ops else images
    row = (" ".join(names), pickle.dumps(payload, protocol=5))
    insert = f"INSERT INTO {REDO_TABLE} (files, changes) VALUES (?, ?)"
    try:
        cur = db.execute(insert, row)
    except sqlite3.OperationalError:  # the first schema-file transaction of this datadir
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {REDO_TABLE} "
            "(id INTEGER PRIMARY KEY AUTOINCREMENT, files TEXT NOT NULL, changes BLOB NOT NULL)"
        )
        cur = db.execute(insert, row)
    rid = int(cur.lastrowid)
    for alias in names:
        db.execute(f"UPDATE {_q(alias)}.{FILE_TABLE} SET applied = ?", (rid,))
    if rid > REDO_KEEP and rid % 64 == 0:
        _trim(db, rid - REDO_KEEP)
    return rid


def _trim(db: Any, below: int) -> None:
    """Delete the redo rows below id ``below`` that every file they name has applied (a row a file missed stays
    until that file's next lock or the next start-up re-applies it)."""
    applied: dict[str, int] = {}
    done = []
    for rid, files in db.execute(f"SELECT id, files FROM {REDO_TABLE} WHERE id < ?", (below,)).fetchall():
        complete = True
        for alias in str(files).split():
            if alias not in applied:
                try:
                    applied[alias] = int(
                        db.execute(f"SELECT applied FROM {_q(alias)}.{FILE_TABLE}").fetchone()[0]
                    )
                except sqlite3.Error:  # a dropped schema's file: nothing left to redo there
                    applied[alias] = rid
            complete = complete and applied[alias] >= rid
        if complete:
            done.append((rid,))
    db.executemany(f"DELETE FROM {REDO_TABLE} WHERE id = ?", done)


def apply_redo(
    db: Any,
    reader: Any,
    alias: str,
    schema: str,
    table_def: Callable[[str, str], Any],
) -> int:
    """Re-apply to file ``alias`` (schema ``schema``) the redo rows it missed: those naming it whose id is above
    its ``applied``. ``db`` holds the file's write lock in an open transaction; ``reader`` reads the main file's
    redo log (a connection whose snapshot is current: not ``db``, whose COMMIT must not meet a stale main
    snapshot). Returns how many redo rows were applied.

    Each image is applied by its primary key (all columns for a table without one): an UPDATE or DELETE removes
    the row matching its before image, an INSERT or UPDATE writes the after image (INSERT OR REPLACE), so applying
    a row twice changes nothing.
    """
    applied = int(db.execute(f"SELECT applied FROM {_q(alias)}.{FILE_TABLE}").fetchone()[0])
    try:
        rows = reader.execute(
            f"SELECT id, changes FROM {REDO_TABLE} WHERE id > ? AND (' ' || files || ' ') LIKE ? ORDER BY id",
            (applied, f"% {alias} %"),
        ).fetchall()
    except sqlite3.OperationalError:  # no redo log yet
        return 0
    for rid, blob in rows:
        payload = pickle.loads(blob)  # the datadir's own rows
        if isinstance(
            payload, dict
        ):  # a DDL: its statements on this file, then rows (CREATE TABLE ... SELECT)
            _replay_ops(db, alias, payload["ops"])
            payload = payload["rows"]
        for tschema, tname, kind, before, after in payload:
            if tschema != schema:
                continue
            t = table_def(tschema, tname)
            if t is None:
                continue
            _apply(db, f"{_q(alias)}.{_q(f'{tschema}.{tname}')}", t, kind, before, after)
        db.execute(f"UPDATE {_q(alias)}.{FILE_TABLE} SET applied = ?", (int(rid),))
    return len(rows)


def _replay_ops(db: Any, alias: str, ops: list[tuple[str, str, Any, bool]]) -> None:
    """Run, in order, the recorded DDL statements ``ops`` that changed file ``alias`` (:func:`record_redo`)."""
    for op_alias, sql, params, many in ops:
        if op_alias == alias:
            (db.executemany if many else db.execute)(sql, params)


def _apply(db: Any, table: str, t: Any, kind: str, before: Any, after: Any) -> None:
    """One row image of redo on ``table`` (qualified, quoted), table definition ``t``."""
    cols = [c.name for c in t.columns]
    key = list(t.primary_key) or cols
    if before is not None and kind in ("update", "delete"):
        at = [cols.index(k) for k in key]
        where = " AND ".join(f"{_q(k)} IS ?" for k in key)
        db.execute(
            f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE {where} LIMIT 1)",
            [before[i] for i in at],
        )
    if after is not None and kind in ("insert", "update"):
        names = ", ".join(_q(c) for c in cols)
        db.execute(
            f"INSERT OR REPLACE INTO {table} ({names}) VALUES ({', '.join('?' * len(cols))})", list(after)
        )


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _fsync_dir(directory: Path) -> None:
    """Make a new file's directory entry durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
