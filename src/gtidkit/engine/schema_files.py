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
name with :func:`qualifier`. A SQLite view can name only tables of its own file: a MySQL view lives in its schema's
file and can select only from that schema's tables (and temporary tables) — a documented limitation.

Limits: ``SQLITE_LIMIT_ATTACHED`` is 10 in this build (§3.4); :data:`MAX_SCHEMA_FILES` = 9 leaves one slot for a
tool's own ATTACH. Crash atomicity across files is *not* built yet (§3.4: SQLite commits main first, then each
attached file; a process killed between the two leaves main's commit-log row without the schema file's rows):
the option is OFF by default for that reason (the redo of §5.4 is the missing piece).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from gtidkit.mysql_errors import mysql_error

__all__ = [
    "FILE_TABLE",
    "MAIN_ONLY_SCHEMAS",
    "MAX_SCHEMA_FILES",
    "SCHEMA_FILE_SUFFIX",
    "FileWaits",
    "create_file",
    "file_name",
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


def create_file(path: Path) -> None:
    """Create an empty schema file at ``path`` in WAL mode with its :data:`FILE_TABLE` (replacing a stray
    file: one a dropped schema left behind, or a CREATE DATABASE that rolled back).

    Raises:
        OSError / sqlite3.Error: the file cannot be created.
    """
    remove_file(path)
    db = sqlite3.connect(str(path), isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            f"CREATE TABLE {FILE_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), writes INTEGER NOT NULL)"
        )
        db.execute(f"INSERT INTO {FILE_TABLE} VALUES (1, 0)")
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

    def done_waiting(self, me: object) -> None:
        """``me``'s wait ended (lock taken or failed)."""
        with self._lock:
            self._waiting.pop(me, None)

    def acquired(self, me: object, alias: str) -> None:
        """``me`` holds file ``alias``'s lock until :meth:`release`."""
        with self._lock:
            self._holders[alias] = me

    def release(self, me: object, aliases: set[str]) -> None:
        """``me``'s transaction ended: the locks of ``aliases`` it held are free."""
        with self._lock:
            for alias in aliases:
                if self._holders.get(alias) is me:
                    del self._holders[alias]


def _fsync_dir(directory: Path) -> None:
    """Make a new file's directory entry durable."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
