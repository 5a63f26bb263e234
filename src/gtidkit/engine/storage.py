"""Storage: the engine's one SQLite database, its connections and transactions (the only sqlite3 user).

Design (why it looks like this)
-------------------------------
* **One database file per datadir** (``<datadir>/gtidkit.sqlite`` when given a directory). User tables, the
  catalog (``_gk_*`` tables), ``mysql.gtid_executed`` and whatever the GTID core keeps (applied binlog position)
  all live in it. WL#6559's point is that a transaction's rows and its GTID row commit together with one fsync;
  ATTACHed databases in WAL mode are *not* committed atomically, so by default there is exactly one file. With
  ``gtidkit_file_per_schema`` (:mod:`gtidkit.engine.schema_files`, issue 21 step 9) each new user schema gets a
  file of its own, ATTACHed to every connection (:meth:`Connection.sync_attachments`), whose write lock a
  transaction takes at its first write there (:meth:`Connection.lock_files`), so writers of different schemas do
  not wait for each other; a redo log in the main file makes transactions and DDL atomic across the files (the
  module's docstring says how).
* **WAL mode, ``synchronous=FULL`` by default**: every COMMIT fsyncs the WAL (about one fsync per commit, see
  ``../shared/research/tooling.md`` §6). ``synchronous`` is configurable (``OFF``/``NORMAL``/``FULL``/``EXTRA``).
  A binlogged transaction commits with ``NORMAL`` and its committer fsyncs the WAL right after
  (:meth:`Connection.begin` ``defer_sync``, :meth:`Connection.sync_deferred`): the same one fsync, in a stage of
  its own (the commit path's sync stage, whose failure ``binlog_error_action`` handles).
* **One sqlite3 connection per engine session** (:meth:`Storage.connect`; a closed session's connection is kept
  for the next one when the session left nothing on it: :meth:`Storage._pool_put`, tests/engine/
  test_connection_pool.py). Connections run in SQLite autocommit
  mode (``isolation_level=None``); transactions are explicit. :meth:`Connection.begin` issues ``BEGIN
  IMMEDIATE``, which takes the database write lock at BEGIN time. Two sessions that both read then write can
  therefore never hit ``SQLITE_BUSY_SNAPSHOT`` (a deferred reader upgraded to writer after another commit); the
  second writer simply waits in ``BEGIN IMMEDIATE`` up to ``busy_timeout`` ms. This is the moral equivalent of
  InnoDB's row locks for a single-writer store: writers serialize, readers never block (WAL snapshots).
* **Savepoints** map 1:1 to SQLite savepoints (MySQL ``SAVEPOINT``/``ROLLBACK TO``/``RELEASE``); the executor also
  wraps each statement inside a transaction in a private savepoint so a failing statement is undone alone, as
  MySQL's statement rollback does.
* **One process per database** (:mod:`gtidkit.engine.datadir_lock`): :meth:`Storage.open` takes an exclusive
  ``flock`` on ``<database>.lock`` and :meth:`Storage.close` releases it (the kernel does when the process dies),
  so a second server on the same datadir is refused at start-up as mysqld is on a locked ``ibdata1``.
* Physical names: MySQL ``db.table`` is stored as the SQLite table ``"db.table"`` (one quoted identifier).
  SQLite table names are case-insensitive, so two MySQL tables differing only in case cannot coexist (as with
  ``lower_case_table_names=1``; documented limitation).

MySQL sources followed: WL#6559 (GTID table in the same engine transaction), ``innodb_flush_log_at_trx_commit=1``
semantics (durable at commit).
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from gtidkit.engine import schema_files
from gtidkit.engine.datadir_lock import DatadirLock
from gtidkit.engine.shared.file_waits import FileLock
from gtidkit.engine.sql.catalog import Catalog
from gtidkit.engine.sql.ddl import parse_create_table_text
from gtidkit.engine.sql.names import physical_name, quote_ident
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "DB_FILE_NAME",
    "DECIMAL_COLLATION",
    "SYNCHRONOUS_MODES",
    "TIME_COLLATION",
    "Connection",
    "IntegrityError",
    "OperationalError",
    "ShadowConnection",
    "Storage",
    "decimal_collation",
    "time_collation",
]

#: File name of the engine database inside a datadir.
DB_FILE_NAME = "gtidkit.sqlite"
#: The commit gate in the datadir (``Connection.open_read_snapshot``): a flock a transaction committing to several
#: files holds exclusively during its COMMIT, and a read view holds shared while it opens its snapshot of each file.
COMMIT_GATE = "gtidkit.commit.lock"
#: a main-file table every datadir has, read to open main's snapshot (``Connection.open_read_snapshot``)
_GATE_PROBE = "_gk_schemata"
#: Accepted values of the ``synchronous`` option (SQLite PRAGMA synchronous).
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")

# Re-exported so higher modules can catch driver errors without importing sqlite3 themselves.
IntegrityError = sqlite3.IntegrityError
OperationalError = sqlite3.OperationalError
DatabaseError = sqlite3.DatabaseError
#: Base of every driver error (``sqlite3.Error``).
Error = sqlite3.Error
#: Cursor type returned by ``Connection.execute``.
Cursor = sqlite3.Cursor
#: Raw driver connection type (what :meth:`Storage.sqlite` returns).
RawConnection = sqlite3.Connection


@dataclass(eq=False)
class Connection:
    """One engine session's SQLite connection with explicit transaction control.

    Not thread-safe: one session (thread) at a time uses a connection, as in MySQL's THD.
    """

    storage: Storage
    raw: sqlite3.Connection
    #: Savepoint names currently open, outermost first.
    savepoints: list[str]
    #: True when the open transaction ran DDL (the shared catalog cache must be reloaded on rollback).
    ddl_in_transaction: bool = False
    _sqlite_savepoints: list[str] = field(default_factory=list)
    _savepoint_seq: int = 0
    #: PRAGMA synchronous set on this connection when it differs from the storage's mode ("" = the storage's)
    _sync_mode: str = ""
    #: the last COMMIT's WAL fsync is left to :meth:`sync_deferred`
    _sync_pending: bool = False
    #: schema files attached: ATTACH name -> (path, inode) (:meth:`sync_attachments`)
    _attached: dict[str, tuple[Path, int]] = field(default_factory=dict)
    #: the storage's schema-file generation the attachments match (-1: never synced)
    _attach_version: int = -1
    #: work to do once the open transaction has committed (a dropped schema's file removed)
    _on_commit: list[Callable[[], None]] = field(default_factory=list)
    #: PRAGMA busy_timeout in force (ms): how long a write waits for another writer of the same file
    _busy_ms: int = -1
    #: ATTACH names of the schema files whose write lock the open transaction holds (:meth:`lock_files`)
    _locked: set[str] = field(default_factory=set)
    #: the connection id of the session using this connection (the schema files' wait-for graph names it)
    owner_id: int = 0
    _reader: sqlite3.Connection | None = None
    #: the compiled row reader of ``raw`` (:meth:`rows_reader`): None until asked for, False when there is none
    _rows_reader: Any = None
    #: a read-only snapshot across the files is open (:meth:`open_read_snapshot`)
    _read_snapshot: bool = False
    #: this connection's descriptor of the commit gate (:data:`COMMIT_GATE`), opened at first use
    _gate_fd: int = -1
    #: the TEMP views made by :meth:`sync_views`: physical name -> its statement; the key they match
    _temp_views: dict[str, str] = field(default_factory=dict)
    _views_key: tuple[int, int] = (-1, -1)
    #: :meth:`sync_views` changed TEMP views inside the open transaction
    _views_dirty: bool = False
    #: the physical statements the open transaction ran on schema files, for their redo (:meth:`file_execute`)
    _file_ops: list[tuple[str, str, Any, bool]] = field(default_factory=list)
    #: the session-bound function names a previous session of a pooled connection left registered on ``raw``
    #: (the executor registers its own over them: Executor._sync_functions)
    stale_bound: frozenset[str] = frozenset()
    #: what the SQL layer left on ``raw`` for its next session (the functions' owner cell, Executor); kept with a
    #: pooled connection
    function_owner: Any = None

    @property
    def attached(self) -> dict[str, tuple[Path, int]]:
        """The schema files attached to this connection: ATTACH name -> (path, inode)."""
        return self._attached

    def sync_attachments(self) -> None:
        """ATTACH the schema files this connection lacks and DETACH those of dropped schemas
        (:mod:`gtidkit.engine.schema_files`). Only between transactions (SQLite refuses ATTACH inside one); a
        no-op (one integer compare) while the catalog has not changed since the last call.

        Raises:
            MySQLError: 1030 when a schema file cannot be attached.
        """
        storage = self.storage
        files = storage.schema_files()
        if self._attach_version == storage.files_version or self.raw.in_transaction:
            return
        wanted: dict[str, tuple[Path, int]] = {}
        for path in files.values():
            try:
                wanted[path.stem.lower()] = (path, os.stat(path).st_ino)
            except FileNotFoundError:
                continue  # dropped meanwhile
        for alias, known in list(self._attached.items()):
            if wanted.get(alias) != known:
                self.raw.execute(f"DETACH DATABASE {quote_ident(alias)}")
                del self._attached[alias]
        for alias, (path, ino) in wanted.items():
            if alias in self._attached:
                continue
            try:
                self.raw.execute(f"ATTACH DATABASE ? AS {quote_ident(alias)}", (str(path),))
                self.raw.execute(
                    f"PRAGMA {quote_ident(alias)}.synchronous={self._sync_mode or storage.synchronous}"
                )
            except sqlite3.Error as err:
                raise mysql_error(1030, f"{err} ({path})") from err
            self._attached[alias] = (path, ino)
        self._attach_version = storage.files_version

    def sync_views(self) -> None:
        """Make this connection's TEMP views the storage's views that read another file's tables
        (:meth:`Storage.cross_views`; SQLite lets only a TEMP view name tables of several files). A no-op (one
        tuple compare) while the catalog has not changed since the last call. A view that a temporary table of
        the same name shadows is left out (MySQL's temporary table hides it too)."""
        if not self._attached and not self._temp_views:
            return  # no schema file: no view can read several files
        storage = self.storage
        key = (storage.catalog.version, storage.cross_views_generation)
        if key == self._views_key:
            return
        wanted = storage.cross_views()
        # the TEMP views present (one Catalog.create_view made on this connection is not in the dict)
        for (name,) in self.raw.execute("SELECT name FROM temp.sqlite_master WHERE type = 'view'").fetchall():
            if name not in wanted or self._temp_views.get(name) != wanted[name]:
                self.raw.execute(f"DROP VIEW temp.{quote_ident(name)}")
                self._temp_views.pop(name, None)
        for name, ddl in wanted.items():
            if self._temp_views.get(name) == ddl:
                continue
            try:
                self.raw.execute(ddl)
            except sqlite3.Error:
                continue  # shadowed by a temporary table of that name
            self._temp_views[name] = ddl
        if self.raw.in_transaction:
            self._views_dirty = True  # a rollback undoes what was made here (forget_views)
        self._views_key = key

    def schema_versions(self) -> tuple[tuple[str, int, int], ...]:
        """``(ATTACH name, inode, SQLite schema_version)`` of the main file (``("main", 0, v)``) and of each
        attached schema file: any DDL moves one, a schema dropped and made again changes its inode."""
        versions = [("main", 0, int(self.raw.execute("PRAGMA schema_version").fetchone()[0]))]
        for alias, (_path, ino) in sorted(self._attached.items()):
            v = self.raw.execute(f"PRAGMA {quote_ident(alias)}.schema_version").fetchone()[0]
            versions.append((alias, ino, int(v)))
        return tuple(versions)

    def lock_files(
        self,
        schemas: Iterable[str],
        *,
        timeout: float | None = None,
        killed: Callable[[], bool] | None = None,
        repair: bool | None = None,
    ) -> bool:
        """Take the write lock of each schema's file now, in name order (inside a transaction begun with
        :meth:`begin`; schemas in the main file are skipped). Each file's ``writes`` counter is bumped, which takes
        the lock and opens the transaction's snapshot of the file at that point, so reads that follow see every
        committed write of the file. A held lock is retried with a growing sleep (0.5 to 10 ms: SQLite's own busy
        wait polls the same way) until ``timeout`` seconds (default ``busy_timeout``) or ``killed()``.

        Args:
            schemas: the schemas the statement names.
            timeout: seconds to wait for another writer of a file (the session's innodb_lock_wait_timeout).
            killed: returns True once KILL [QUERY] reached the waiting session.
            repair: re-apply what each file missed (schema_files.apply_redo) once its lock is taken; None: when
                :attr:`Storage.redo_at_lock` says (several processes: a worker killed inside its COMMIT leaves a
                file behind while the others go on; one process repairs at start-up only).

        Returns:
            True when another process wrote one of the files since this process last did (its cached
            AUTO_INCREMENT counters are stale).

        Raises:
            MySQLError: 1412 ER_TABLE_DEF_CHANGED when a file is not the one this connection attached (its
                schema was created, or dropped and made again, by another process after this transaction
                began); 1205 ER_LOCK_WAIT_TIMEOUT after ``timeout`` waiting for another writer; 1213
                ER_LOCK_DEADLOCK when waiting would close a cycle with transactions of this process
                (:class:`schema_files.FileWaits`), or when this transaction read the file before another one
                committed to it (SQLite's SQLITE_BUSY_SNAPSHOT: it can never write it); 1317 ER_QUERY_INTERRUPTED
                when ``killed()``.
        """
        files = self.storage.schema_files()
        foreign = False
        for schema in sorted(set(schemas)):
            path = files.get(schema)
            if path is None:
                continue
            alias = path.stem.lower()
            if alias in self._locked:
                continue
            known = self._attached.get(alias)
            try:
                current = os.stat(path).st_ino
            except FileNotFoundError:
                current = -1
            if known is None or known[1] != current:
                # the schema was created, or dropped and made again, after this transaction attached its files
                # (another worker's DDL): writing would miss the file or reach the dropped one
                raise mysql_error(1412)
            waits = self.storage.file_waits
            waits.wait(self, alias)  # 1213 when waiting would close a cycle
            try:
                row = self._bump(alias, timeout, killed)
            finally:
                waits.done_waiting(self)
            waits.acquired(self, alias)
            self._locked.add(alias)
            # what this file missed (a process killed between main's commit and this file's): redo it first
            if (self.storage.redo_at_lock if repair is None else repair) and schema_files.apply_redo(
                self.raw, self._redo_reader(), alias, schema, self.storage.catalog.get_table
            ):
                foreign = True
            writes = int(row[0]) if row is not None else 0
            if self.storage.file_writes.get(alias) != writes - 1:
                foreign = True
            self.storage.file_writes[alias] = writes
        return foreign

    def _redo_reader(self) -> sqlite3.Connection:
        """A connection reading the main file's redo log with a current snapshot (this connection's own snapshot
        of main must not start before its COMMIT: schema_files.apply_redo)."""
        reader = self._reader
        if reader is None:
            reader = self._reader = sqlite3.connect(
                str(self.storage.path), isolation_level=None, check_same_thread=False
            )
        return reader

    @property
    def locked_files(self) -> set[str]:
        """ATTACH names of the schema files whose write lock the open transaction holds."""
        return self._locked

    def record_redo(self, changes: list[Any]) -> None:
        """At COMMIT (engine write lock held, transaction open): the redo row of the schema files this
        transaction locked, with ``changes`` (its RowChanges of schema-file tables) and the physical statements a
        DDL ran on them (:meth:`file_execute`): schema_files.record_redo."""
        if self._locked or self._file_ops:
            schema_files.record_redo(self.raw, self._locked, changes, self._file_ops)

    def file_execute(self, schema: str, sql: str, params: Any = (), *, many: bool = False) -> sqlite3.Cursor:
        """Run a DDL's physical statement ``sql`` on the file holding ``schema``'s tables (``executemany`` with
        ``many``) and, when that is a schema file, keep it for the transaction's redo row: a process killed
        between main's commit (catalog, commit log, binary log) and the file's replays it at the file's next lock
        or the start-up (engine/schema_files.py: MySQL 8.0's atomic DDL, the statement is in the binary log and
        applied, or neither). Every statement that changes a schema file in a DDL must come through here; the
        rows it writes must be parameters (a replay must not read another file).

        Args:
            schema: the MySQL schema whose file ``sql`` writes (qualified with :meth:`Storage.qualifier`).
            sql: one SQLite statement.
            params: its parameters (a sequence of them with ``many``).

        Raises:
            MySQLError: 1205 / 1213 / 1317 when the file's write lock cannot be taken (it is normally held
                already: the DDL took its schemas' files before the engine write lock).
        """
        path = self.storage.schema_files().get(schema)
        if path is None:
            return self.raw.executemany(sql, params) if many else self.raw.execute(sql, params)
        alias = path.stem.lower()
        if alias not in self._locked and self.raw.in_transaction:
            self.lock_files([schema])
        if many:
            params = [tuple(p) for p in params]
        cur = self.raw.executemany(sql, params) if many else self.raw.execute(sql, params)
        self._file_ops.append((alias, sql, params if many else tuple(params), many))
        return cur

    def _gate(self, mode: int) -> None:
        """Take (LOCK_SH / LOCK_EX) or release (LOCK_UN) the commit gate on this connection's own descriptor
        (flock locks belong to an open file description, so each connection has one: two sessions of one
        process exclude each other as two processes do)."""
        if self._gate_fd < 0:
            self._gate_fd = os.open(self.storage.path.parent / COMMIT_GATE, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self._gate_fd, mode)

    def open_read_snapshot(self) -> None:
        """Open one read snapshot of the main file and every attached schema file now, at a single commit point
        (REPEATABLE READ's consistent read view, which InnoDB opens at a transaction's first read or at START
        TRANSACTION WITH CONSISTENT SNAPSHOT). SQLite opens a file's snapshot at the first read of it; a
        transaction that commits to several files commits them one after the other (main first), so the
        snapshots are opened under the commit gate shared, which such a commit holds exclusively (:meth:`commit`):
        no commit is half inside the view. A no-op without schema files (one file is consistent by itself),
        inside a transaction, or when a snapshot is open. Ended by :meth:`end_read_snapshot`, :meth:`rollback`, or
        :meth:`begin` (a write transaction sees the latest commits: see there)."""
        if not self._attached or self.raw.in_transaction:
            return
        self.raw.execute("BEGIN")
        self._gate(fcntl.LOCK_SH)
        try:
            self.raw.execute(f"SELECT 1 FROM main.{_GATE_PROBE} LIMIT 1").fetchall()
            for alias in self._attached:
                self.raw.execute(
                    f"SELECT writes FROM {quote_ident(alias)}.{schema_files.FILE_TABLE}"
                ).fetchall()
        except BaseException:
            self.raw.execute("ROLLBACK")
            raise
        finally:
            self._gate(fcntl.LOCK_UN)
        self._read_snapshot = True

    @property
    def read_snapshot(self) -> bool:
        """A read-only snapshot across the files is open (:meth:`open_read_snapshot`)."""
        return self._read_snapshot

    def end_read_snapshot(self) -> None:
        """End the read snapshot (commits what the transaction wrote to temporary tables, nothing else)."""
        if self._read_snapshot:
            self._read_snapshot = False
            if self.raw.in_transaction:
                self.raw.execute("COMMIT")

    def forget_views(self) -> None:
        """A rollback may have undone TEMP views made inside the transaction (by :meth:`sync_views` or a DDL):
        the next :meth:`sync_views` compares them with the storage's again."""
        if self._views_dirty or self.ddl_in_transaction:
            self._views_dirty = False
            self._views_key = (-1, -1)
            self._temp_views.clear()

    def file_ops_mark(self) -> int:
        """A mark of the DDL statements recorded so far (:meth:`drop_file_ops` after a statement rollback)."""
        return len(self._file_ops)

    def drop_file_ops(self, mark: int) -> None:
        """A statement rolled back to its savepoint: forget the statements it recorded after ``mark``."""
        del self._file_ops[mark:]

    def _bump(self, alias: str, timeout: float | None, killed: Callable[[], bool] | None) -> Any:
        """:meth:`lock_files`' counter bump of one file, retried while another writer holds the file."""
        sql = (
            f"UPDATE {quote_ident(alias)}.{schema_files.FILE_TABLE} SET writes = writes + 1 RETURNING writes"
        )
        wait = self.storage.busy_timeout_ms / 1000 if timeout is None else timeout
        deadline = time.monotonic() + wait
        busy = self._busy_ms
        self.set_busy_timeout(0)
        try:
            delay = 0.0005
            while True:
                try:
                    return self.raw.execute(sql).fetchone()
                except sqlite3.OperationalError as err:
                    if getattr(err, "sqlite_errorcode", 0) == _SQLITE_BUSY_SNAPSHOT:
                        raise mysql_error(1213) from err
                    if "locked" not in str(err) and "busy" not in str(err):
                        raise _lock_error(err) from err
                    if killed is not None and killed():
                        raise mysql_error(1317) from err
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise mysql_error(1205) from err
                    time.sleep(min(delay, left))
                    delay = min(delay * 2, 0.01)
        finally:
            self.set_busy_timeout(busy if busy >= 0 else self.storage.busy_timeout_ms)

    def set_busy_timeout(self, ms: int) -> None:
        """How long a write waits for another transaction's write lock on the same file (``PRAGMA busy_timeout``,
        ms): a session sets its innodb_lock_wait_timeout before a transaction on schema files."""
        if ms != self._busy_ms:
            self.raw.execute(f"PRAGMA busy_timeout={int(ms)}")
            self._busy_ms = ms

    def after_commit(self, work: Callable[[], None]) -> None:
        """Run ``work`` once the open transaction commits (dropped on rollback)."""
        self._on_commit.append(work)

    def _set_synchronous(self, mode: str) -> None:
        """PRAGMA synchronous on the main file and every attached schema file (it is per file)."""
        self.raw.execute(f"PRAGMA synchronous={mode}")
        for alias in self._attached:
            self.raw.execute(f"PRAGMA {quote_ident(alias)}.synchronous={mode}")

    @property
    def in_transaction(self) -> bool:
        """True between :meth:`begin` and :meth:`commit`/:meth:`rollback`."""
        return self.raw.in_transaction

    def begin(self, *, defer_sync: bool = False) -> None:
        """Start a write transaction (``BEGIN IMMEDIATE``: takes the write lock now, waits up to busy_timeout).

        Args:
            defer_sync: the committer fsyncs the WAL itself after the COMMIT (:meth:`sync_deferred`: the binlog
                commit path's sync stage, :mod:`gtidkit.engine.gtid.commit`). With ``synchronous=FULL`` the
                transaction then commits with ``synchronous=NORMAL`` (no fsync inside COMMIT) and is as durable as
                with FULL once :meth:`sync_deferred` returns; :meth:`commit` still fsyncs right away unless told
                ``sync=False``.

        Raises:
            MySQLError: 1205 (ER_LOCK_WAIT_TIMEOUT) when the lock is not obtained in time; 1399-like misuse if a
                transaction is already open (programming error → ``RuntimeError``).
        """
        # a read snapshot (open_read_snapshot) ends here: SQLite refuses a write on a snapshot older than the
        # file's last commit, so a transaction that writes reads the latest commits from its first write on (InnoDB
        # keeps the read view for plain SELECTs; its writes, like these, see the latest rows)
        self.end_read_snapshot()
        if self.raw.in_transaction:
            raise RuntimeError("begin() inside an open transaction")
        self.sync_attachments()
        want = "NORMAL" if defer_sync and self.storage.synchronous == "FULL" else ""
        if want != self._sync_mode:  # PRAGMA synchronous cannot change inside a transaction
            self._set_synchronous(want or self.storage.synchronous)
            self._sync_mode = want
        try:
            # with schema files attached BEGIN IMMEDIATE would take every file's write lock: the transaction
            # takes each file's lock at its first write instead (schema_files.py)
            self.raw.execute("BEGIN" if self._attached else "BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            raise _lock_error(err) from err
        self._on_commit.clear()
        self._locked.clear()
        self._file_ops.clear()
        self.savepoints = []
        self._sqlite_savepoints = []
        self.ddl_in_transaction = False
        self._sync_pending = False

    def commit(self, *, sync: bool = True) -> None:
        """Commit the open transaction (one WAL fsync with ``synchronous=FULL``). No-op when none is open.

        Args:
            sync: for a transaction begun with ``defer_sync``, fsync the WAL right after the COMMIT; with
                ``sync=False`` the caller does it with :meth:`sync_deferred` (until then a power loss may lose
                this transaction and every later one, never an earlier one: SQLite's WAL is ordered).
        """
        if self.raw.in_transaction:
            gate = bool(
                self._locked
            )  # several files commit one after the other: not inside a read view's opening
            if gate:
                self._gate(fcntl.LOCK_EX)
            try:
                self.raw.execute("COMMIT")
            except sqlite3.OperationalError as err:
                raise _lock_error(err) from err
            finally:
                if gate:
                    self._gate(fcntl.LOCK_UN)
            if self._sync_mode:
                self._sync_pending = True
                if sync:
                    self.sync_deferred()
        self._read_snapshot = False
        self._views_dirty = False
        self.savepoints = []
        self._sqlite_savepoints = []
        self.ddl_in_transaction = False
        work, self._on_commit = self._on_commit, []
        self._file_ops.clear()
        if self._locked:
            self.storage.file_waits.release(self, self._locked)
            self._locked.clear()
        for w in work:
            w()

    @property
    def sync_pending(self) -> bool:
        """The last COMMIT left its WAL fsync to the caller (:meth:`commit` with ``sync=False``)."""
        return self._sync_pending

    def sync_deferred(self) -> None:
        """fsync the WAL if the last COMMIT left it to the caller (:meth:`commit` with ``sync=False``).

        Raises:
            OSError: the fsync failed (the transaction is committed but may not be on disk).
        """
        if self._sync_pending:
            self._sync_pending = False
            self.sync_wal()

    def sync_wal(self) -> None:
        """fsync the database's write-ahead log (what ``synchronous=FULL`` does at each COMMIT), and those of the
        attached schema files that changed since their last fsync (a transaction may have written any of them)."""
        _fsync_wal(self.storage.path)
        for path, _ino in self._attached.values():
            self.storage.fsync_schema_wal(path)

    def rollback(self) -> None:
        """Roll back the open transaction (no-op when none is open); reloads the catalog if DDL was undone."""
        if self.raw.in_transaction:
            self.raw.execute("ROLLBACK")
        self._read_snapshot = False
        self.savepoints = []
        self._sqlite_savepoints = []
        self._on_commit.clear()
        self._file_ops.clear()
        self.forget_views()
        if self._locked:
            for alias in self._locked:  # its counter bump is undone: the next lock cannot tell, so it forgets
                self.storage.file_writes.pop(alias, None)
            self.storage.file_waits.release(self, self._locked)
            self._locked.clear()
        if self.ddl_in_transaction:
            self.ddl_in_transaction = False
            self.storage.catalog.reload(self)

    def savepoint(self, name: str) -> None:
        """``SAVEPOINT name``. Names are case-insensitive; an existing savepoint of the same name is deleted and a
        new one set (later savepoints stay), as MySQL documents.

        Raises:
            RuntimeError: when no transaction is open (the session must begin one first).
        """
        if not self.raw.in_transaction:
            raise RuntimeError("savepoint() outside a transaction")
        i = self._find_savepoint(name)
        if i >= 0:
            # The old SQLite savepoint stays underneath, unnamed for MySQL: harmless, and releasing it would
            # also release the savepoints set after it.
            del self.savepoints[i]
            del self._sqlite_savepoints[i]
        self._savepoint_seq += 1
        internal = f"sp{self._savepoint_seq}"
        self.raw.execute(f"SAVEPOINT {quote_ident(internal)}")
        self.savepoints.append(name)
        self._sqlite_savepoints.append(internal)

    def release_savepoint(self, name: str) -> None:
        """``RELEASE SAVEPOINT name``; also releases every later savepoint (InnoDB's behaviour).

        Raises:
            MySQLError: 1305 (ER_SP_DOES_NOT_EXIST) "SAVEPOINT name does not exist" (42000).
        """
        i = self._check_savepoint(name)
        self.raw.execute(f"RELEASE SAVEPOINT {quote_ident(self._sqlite_savepoints[i])}")
        del self.savepoints[i:]
        del self._sqlite_savepoints[i:]

    def rollback_to_savepoint(self, name: str) -> None:
        """``ROLLBACK TO SAVEPOINT name``: undo work after it; it and earlier savepoints stay, later ones go.

        Raises:
            MySQLError: 1305 when the savepoint does not exist.
        """
        i = self._check_savepoint(name)
        self.raw.execute(f"ROLLBACK TO SAVEPOINT {quote_ident(self._sqlite_savepoints[i])}")
        del self.savepoints[i + 1 :]
        del self._sqlite_savepoints[i + 1 :]
        if self.ddl_in_transaction:
            self.storage.catalog.reload(self)

    def _find_savepoint(self, name: str) -> int:
        low = name.lower()
        for i, n in enumerate(self.savepoints):
            if n.lower() == low:
                return i
        return -1

    def _check_savepoint(self, name: str) -> int:
        i = self._find_savepoint(name)
        if i < 0:
            raise mysql_error(1305, "SAVEPOINT", name)
        return i

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        """Run one SQLite statement on this connection (SQLite dialect, physical names)."""
        return self.raw.execute(sql, params)

    def executemany(self, sql: str, seq: Iterable[Sequence[Any]]) -> sqlite3.Cursor:
        """Run one SQLite statement for each parameter tuple."""
        return self.raw.executemany(sql, seq)

    def rows_reader(self) -> Any:
        """The compiled reader of this connection's SELECT rows (:func:`gtidkit.engine.sql.fast_rows.reader_for`),
        made on first use; None when there is none (then the sqlite3 module reads them)."""
        reader = self._rows_reader
        if reader is None:
            from gtidkit.engine.sql.fast_rows import reader_for

            reader = self._rows_reader = reader_for(self.raw) or False
        return reader or None

    def close(self, *, bound: frozenset[str] = frozenset()) -> None:
        """Roll back anything open and give the SQLite connection back: to the storage's pool of idle connections
        when nothing of the session is left on it (:meth:`Storage.connect` reuses it), else closed.

        Args:
            bound: the names of the session-bound functions the session registered on it (the next session
                registers the same names over them: :meth:`Storage.connect`).
        """
        clean = False
        try:
            self.rollback()
            clean = True
        finally:
            if self._rows_reader:  # its prepared statements before the connection they belong to
                self._rows_reader.close()
            self._rows_reader = False
            if not (clean and self.storage._pool_put(self, bound)):
                self.raw.close()
            if self._reader is not None:
                self._reader.close()
            if self._gate_fd >= 0:
                os.close(self._gate_fd)
                self._gate_fd = -1
            self.storage._forget(self)


#: Idle SQLite connections a storage keeps for the next sessions (:meth:`Storage.connect`): enough for clients
#: that connect one after the other, or a few at once; more idle ones would only hold memory (schema, page cache).
POOL_SIZE = 4


#: SQLite's extended result code for a write on a snapshot older than the file's last commit.
_SQLITE_BUSY_SNAPSHOT = 517


def _fsync_wal(path: Path) -> None:
    """fsync ``<path>-wal`` if it exists (no WAL: every commit is already checkpointed into the file)."""
    try:
        fd = os.open(f"{path}-wal", os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _lock_error(err: sqlite3.OperationalError) -> Exception:
    text = str(err)
    if "locked" in text or "busy" in text:
        return mysql_error(1205)
    return mysql_error(1030, text)


#: Collation of the TEXT columns that hold DECIMAL(M,D) with M > 15 (``catalog.physical_ddl``): the values compare
#: as the exact numbers they are, so equality, ORDER BY, MIN/MAX, GROUP BY and indexes follow MySQL's DECIMAL order.
DECIMAL_COLLATION = "GK_DECIMAL"


@functools.lru_cache(maxsize=65536)
def _decimal_key(text: str) -> Decimal | None:
    """The value of a DECIMAL text, None when it is no number (cached: an index seek compares the same keys)."""
    try:
        d = Decimal(text)
    except InvalidOperation:
        return None
    return d if d.is_finite() else None


def decimal_collation(a: str, b: str) -> int:
    """Compare two DECIMAL texts by value (-1, 0, 1); a text that is no number sorts after every number, by its
    characters (it cannot be stored, but a comparison may bring one along)."""
    x, y = _decimal_key(a), _decimal_key(b)
    if x is None or y is None:
        if x is not None:
            return -1
        if y is not None:
            return 1
        return (a > b) - (a < b)
    return (x > y) - (x < y)


#: Collation of TIME columns (``catalog.physical_ddl``): their text ``[-]h:mm:ss[.f]`` compares as the signed
#: duration it is, so '-01:00:00' < '-00:30:00' < '09:00:00' < '100:00:00' in ORDER BY, ranges and indexes.
TIME_COLLATION = "GK_TIME"
_TIME_TEXT = re.compile(r"\s*(-)?(\d+):(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,6}))?)?\s*")
_TIME_DIGITS = re.compile(r"\s*(-)?(\d+)(?:\.(\d{0,6}))?\s*")


@functools.lru_cache(maxsize=65536)
def _time_key(text: str) -> int | None:
    """Signed microseconds of a TIME text (``[-]h:mm[:ss[.f]]`` or MySQL's ``[-]HHMMSS[.f]`` number form)."""
    m = _TIME_TEXT.fullmatch(text)
    if m is not None:
        sign, h, mi, sec, frac = m.groups()
        seconds = int(h) * 3600 + int(mi) * 60 + int(sec or 0)
    else:
        m = _TIME_DIGITS.fullmatch(text)
        if m is None:
            return None
        sign, digits, frac = m.groups()
        n = int(digits)
        seconds = n // 10000 * 3600 + n // 100 % 100 * 60 + n % 100
    us = seconds * 1_000_000 + int((frac or "").ljust(6, "0"))
    return -us if sign else us


def time_collation(a: str, b: str) -> int:
    """Compare two TIME texts by duration (-1, 0, 1); a text that is no time sorts after every time, by its
    characters."""
    x, y = _time_key(a), _time_key(b)
    if x is None or y is None:
        if x is not None:
            return -1
        if y is not None:
            return 1
        return (a > b) - (a < b)
    return (x > y) - (x < y)


class ShadowConnection(sqlite3.Connection):
    """A shadow connection (:meth:`Storage.shadow_connection`): remembers which functions were registered on it,
    which tables it holds, and which rows the open transaction's deferred statements loaded into them (the rows
    stay, in their latest state, until :meth:`end` rolls the shadow's transaction back)."""

    gk_functions: Any = None
    #: its tables: quoted physical name -> the definition it was made with
    gk_tables: dict[str, str]
    #: (table lock key, primary key) of the rows loaded in the open transaction
    gk_loaded: set[tuple[int, int]]
    #: tables created or re-created inside the open transaction (its ROLLBACK undoes the DDL too)
    gk_pending: set[str]

    def end(self) -> None:
        """The engine transaction ended (or its queue was applied): roll the shadow's transaction back, which
        empties its tables, and forget the loaded rows and the tables the rollback undid."""
        if self.in_transaction:
            self.execute("ROLLBACK")
        self.gk_loaded.clear()
        if self.gk_pending:
            for name in self.gk_pending:
                self.gk_tables.pop(name, None)
            self.gk_pending.clear()


class Storage:
    """The engine database of one datadir. Create with :meth:`open`; share one instance per process.

    Attributes:
        path: the SQLite database file.
        synchronous: the PRAGMA synchronous mode in force.
        catalog: the MySQL catalog (:class:`gtidkit.engine.sql.catalog.Catalog`), shared by all connections.
        threads_provider: callback ``() -> list[dict]`` returning ``performance_schema.threads`` rows (keys are
            the table's column names, missing keys read as NULL); set by the GTID core.
        table_providers: ``{(schema, table): () -> rows}`` for server-wide per-query tables a higher layer fills
            (the replica's ``performance_schema.replication_*``, see ``gtidkit.engine.sql.catalog.REPLICATION_TABLES``);
            a session's own ``Executor.virtual_tables`` entry wins.
    """

    def __init__(self, path: Path, synchronous: str, busy_timeout_ms: int) -> None:
        self.path = path
        self.synchronous = synchronous
        self.busy_timeout_ms = busy_timeout_ms
        self.threads_provider: Callable[[], list[dict[str, Any]]] | None = None
        self.table_providers: dict[tuple[str, str], Callable[[], list[tuple[Any, ...]]]] = {}
        self._lock = threading.Lock()
        self._connections: list[Connection] = []
        #: idle SQLite connections for :meth:`connect`: (connection, session-bound function names on it, the
        #: functions' owner cell, pid)
        self._idle: list[tuple[sqlite3.Connection, frozenset[str], Any, int]] = []
        self._closed = False
        #: SQL plans shared by all sessions, keyed by (statement shape, current db, catalog version, flags).
        self.plan_cache: dict[Any, Any] = {}
        self.catalog = Catalog(self, parse_ddl=parse_create_table_text)
        #: the exclusive lock on the database (:meth:`open` takes it, :meth:`close` releases it)
        self.lock: DatadirLock | None = None
        #: ``gtidkit_file_per_schema``: CREATE DATABASE gives the new schema a file of its own (schema_files.py)
        self.file_per_schema = False
        self._files: dict[str, Path] = {}
        self._files_catalog_version = -1
        self._any_file_on_disk: bool | None = None
        #: bumped whenever the set of schema files may have changed (connections re-sync their attachments)
        self.files_version = 0
        #: ATTACH name -> the schema file's ``writes`` counter as this process last set it (Connection.lock_files)
        self.file_writes: dict[str, int] = {}
        #: a file's lock re-applies what the file missed (schema_files.apply_redo): set with several processes
        self.redo_at_lock = False
        #: the schema files' lock holders and waiters (deadlock detection: 1213): this process's, or the shared
        #: page's with workers (engine/shared/file_waits.py, set by the server)
        self.file_waits: Any = schema_files.FileWaits()
        #: schema WAL path -> (inode, size, mtime_ns) at its last fsync by this process (fsync_schema_wal)
        self._wal_synced: dict[str, tuple[int, int, int]] = {}
        #: bumped when a view reading another file's tables is created or dropped here (:meth:`cross_views`)
        self.cross_views_generation = 0
        self._cross_views: dict[str, str] = {}
        self._cross_views_key: tuple[int, int] = (-1, -1)

    @classmethod
    def open(
        cls,
        path: Path | str,
        *,
        synchronous: str = "FULL",
        busy_timeout_ms: int = 50_000,
        gtid_tag_column: bool = True,
        lock_fd: int | None = None,
        take_lock: bool = True,
    ) -> Storage:
        """Open (creating if needed) the engine database and bootstrap the built-in schemas.

        Args:
            path: a datadir directory (the file is then ``<dir>/gtidkit.sqlite``; a missing path without a
                suffix is created as a directory) or a database file path such as ``x.sqlite``.
            synchronous: ``OFF``, ``NORMAL``, ``FULL`` (default, fsync per commit) or ``EXTRA``.
            busy_timeout_ms: how long ``BEGIN IMMEDIATE`` waits for another writer (ms), like
                ``innodb_lock_wait_timeout`` (default 50 s as in MySQL).
            gtid_tag_column: a new database's mysql.gtid_executed gets the 8.3+ ``gtid_tag`` column (False: the
                5.7/8.0 shape); an existing database keeps its layout, except that True upgrades a 5.7/8.0 table.
            lock_fd: the datadir lock's descriptor inherited from a supervisor (:meth:`DatadirLock.adopt`); None
                takes the lock here.
            take_lock: False opens without the datadir lock and reads the catalog its primary bootstrapped
                (no write): a worker process of a supervised server whose supervisor holds the lock
                (docs/design/multi_worker.md §5.1, ``Server.open(role="worker")``).

        Raises:
            ValueError: unknown synchronous mode.
            DatadirInUseError: another process (or another open ``Storage`` in this one) has the database open
                (1015 ER_CANT_LOCK, naming the datadir and the holder's pid).
            MySQLError: 1030 when the file is not a usable SQLite database.
        """
        synchronous = synchronous.upper()
        if synchronous not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS_MODES}, not {synchronous!r}")
        p = Path(path)
        if p.is_dir() or (not p.exists() and p.suffix == ""):
            p.mkdir(parents=True, exist_ok=True)
            p = p / DB_FILE_NAME
        p.parent.mkdir(parents=True, exist_ok=True)
        storage = cls(p, synchronous, busy_timeout_ms)
        if take_lock:
            storage.lock = DatadirLock.acquire(p) if lock_fd is None else DatadirLock.adopt(p, lock_fd)
        try:
            try:
                conn = storage.connect()
                mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            except sqlite3.DatabaseError as err:
                raise mysql_error(
                    1030,
                    f"{err} ({p}): the engine database is damaged or is not a gtidkit database; restore the data "
                    "directory from a backup",
                ) from err
            try:
                if str(mode).lower() != "wal":
                    raise mysql_error(1030, f"cannot enable WAL on {p}")
                if take_lock:
                    storage.catalog.bootstrap(conn, gtid_tag_column=gtid_tag_column)
                    storage._redo_schema_files(conn)
                else:
                    # a secondary open of a datadir its primary bootstrapped: read the catalog only. Bootstrap's
                    # BEGIN IMMEDIATE would wait for any open write transaction of the running server (a worker
                    # replaced while a session holds one would not start: tests/cli/test_worker_death.py)
                    storage.catalog.reload(conn)
            finally:
                conn.close()
        except BaseException:
            storage.close()
            raise
        return storage

    def shadow_connection(self) -> ShadowConnection:
        """A private in-memory SQLite database with a session connection's collations (``gtidkit_row_locks``: the
        shadow a deferred statement runs on, engine/statements/deferred.py). It holds copies of table definitions
        and of the rows one statement changes, never data of the datadir."""
        raw = sqlite3.connect(
            ":memory:", isolation_level=None, check_same_thread=False, factory=ShadowConnection
        )
        raw.create_collation(DECIMAL_COLLATION, decimal_collation)
        raw.create_collation(TIME_COLLATION, time_collation)
        return raw

    def connect(self) -> Connection:
        """Return a per-session connection (autocommit at SQLite level; use ``begin()`` for transactions): an idle
        one of the pool (:meth:`_pool_put`) when there is one, else a new SQLite connection. A new one costs
        about 1 ms of CPU, most of it SQLite reading the schema at its first statement; a pooled one has read it.
        """
        raw = None
        bound: frozenset[str] = frozenset()
        owner = None
        if self._idle:
            with self._lock:
                if self._idle:
                    raw, bound, owner, pid = self._idle.pop()
                    if pid != os.getpid():  # made before a fork: the parent's, never used here (nor closed)
                        self._idle.clear()
                        raw = owner = None
        if raw is None:
            raw = sqlite3.connect(
                str(self.path),
                isolation_level=None,
                check_same_thread=False,
                timeout=self.busy_timeout_ms / 1000,
            )
            raw.execute(f"PRAGMA synchronous={self.synchronous}")
            raw.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            raw.execute("PRAGMA foreign_keys=OFF")
            raw.create_collation(DECIMAL_COLLATION, decimal_collation)
            raw.create_collation(TIME_COLLATION, time_collation)
        # Plain LIKE is case-insensitive in SQLite and MySQL's default collation alike.
        conn = Connection(self, raw, [])
        conn.stale_bound = bound
        conn.function_owner = owner
        with self._lock:
            self._connections.append(conn)
        conn.sync_attachments()
        return conn

    # ------------------------------------------------------------------ schema files (schema_files.py)
    def schema_files(self) -> dict[str, Path]:
        """``{schema: path}`` of the schemas that have a SQLite file of their own (the catalog's schemas whose
        file exists; recomputed when the catalog changed)."""
        if not self.file_per_schema and not self._files_on_disk():
            return self._files  # the option OFF and no schema file in the datadir: none can appear (no stat)
        version = self.catalog.version
        if version != self._files_catalog_version:
            files: dict[str, Path] = {}
            for name in self.catalog.schemas():
                path = self._file_path(name)
                if path is not None and path.exists():
                    files[name] = path
                    if len(files) >= schema_files.MAX_SCHEMA_FILES:
                        break
            # bumped even when the names are the same: a schema dropped and made again has a new file, which the
            # connections' attachments (compared by inode) must follow
            self._files = files
            self.files_version += 1
            self._files_catalog_version = version
        return self._files

    def _redo_schema_files(self, conn: Connection) -> None:
        """Start-up: each schema file re-applies the redo rows it missed (schema_files.apply_redo; the lock
        taken by :meth:`Connection.lock_files` does it)."""
        files = self.schema_files()
        if not files:
            return
        conn.sync_attachments()
        conn.begin()
        try:
            conn.lock_files(files, repair=True)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise

    def _files_on_disk(self) -> bool:
        """Whether the datadir held a schema file when first asked (a glob, once per process)."""
        found = self._any_file_on_disk
        if found is None:
            suffix = schema_files.SCHEMA_FILE_SUFFIX
            found = self._any_file_on_disk = any(
                p != self.path for p in self.path.parent.glob(f"*{suffix}") if p.name.endswith(suffix)
            )
        return found

    def _file_path(self, schema: str) -> Path | None:
        """Where ``schema``'s file would be, None when the schema must live in the main file."""
        if schema.lower() in schema_files.MAIN_ONLY_SCHEMAS:
            return None
        path = self.path.parent / schema_files.file_name(schema)
        if path == self.path or path.stem.lower() in ("main", "temp"):
            return None
        return path

    def fsync_schema_wal(self, path: Path) -> None:
        """fsync a schema file's WAL when it changed (size or mtime) since this process last fsynced it: a commit
        pays one fsync per schema file it wrote, not one per attached file."""
        wal = f"{path}-wal"
        try:
            st = os.stat(wal)
        except FileNotFoundError:
            return
        mark = (st.st_ino, st.st_size, st.st_mtime_ns)
        if self._wal_synced.get(wal) == mark:
            return
        _fsync_wal(path)
        self._wal_synced[wal] = mark

    def file_lock_view(self) -> list[FileLock]:
        """The schema files' write locks at one instant (holders and waiters of every process with workers), for
        INNODB_TRX / data_lock_waits / SHOW ENGINE INNODB STATUS (engine/lock_waits.py); empty without files."""
        files = self.schema_files()
        return self.file_waits.snapshot(files) if files else []

    def cross_views(self) -> dict[str, str]:
        """The views that read tables of another SQLite file than their schema's (gtidkit_file_per_schema):
        physical name -> the ``CREATE TEMP VIEW`` statement each connection runs (:meth:`Connection.sync_views`).
        Re-read (committed rows, on a connection of its own: a transaction writing only schema files must not open
        a snapshot of main) when the catalog changed; empty, with no read, when the datadir has no schema file."""
        if not self.schema_files():
            return {}
        key = (self.catalog.version, self.cross_views_generation)
        if key != self._cross_views_key:
            from gtidkit.engine.sql.catalog import CROSS_VIEWS_TABLE

            reader = sqlite3.connect(str(self.path), isolation_level=None)
            try:
                rows = reader.execute(f"SELECT NAME, DDL FROM {CROSS_VIEWS_TABLE}").fetchall()
            except sqlite3.OperationalError:  # a datadir made before the table
                rows = []
            finally:
                reader.close()
            self._cross_views = {str(n): str(d) for n, d in rows}
            self._cross_views_key = key
        return self._cross_views

    def cross_views_changed(self) -> None:
        """A view reading another file was created or dropped (its transaction committed): re-read them."""
        self.cross_views_generation += 1

    def has_file(self, schema: str) -> bool:
        """True when MySQL schema ``schema`` lives in a file of its own."""
        return schema in self.schema_files()

    def qualifier(self, schema: str) -> str:
        """The SQLite schema prefix (``"alias".`` or ``main.``) of the file holding ``schema``'s tables."""
        path = self.schema_files().get(schema)
        return "main." if path is None else quote_ident(path.stem.lower()) + "."

    def create_schema_file(self, schema: str) -> bool:
        """CREATE DATABASE with ``gtidkit_file_per_schema`` ON: make ``schema``'s file (before the catalog row
        commits; a file whose schema the catalog does not list is never attached, and is replaced by the next
        CREATE DATABASE of that name). Returns False when the schema stays in the main file (option OFF, a
        system schema, a reserved or case-clashing name, :data:`schema_files.MAX_SCHEMA_FILES` reached).

        Raises:
            MySQLError: 1006 ER_CANT_CREATE_DB when the file cannot be created.
        """
        path = self._file_path(schema)
        files = self.schema_files()
        if path is None or any(p.stem.lower() == path.stem.lower() for p in files.values()):
            return False
        if not self.file_per_schema or len(files) >= schema_files.MAX_SCHEMA_FILES:
            # a file a dropped schema of this name left behind (a kill after the DROP DATABASE committed, before
            # its file was removed) must not become this schema's
            if path.exists():
                schema_files.remove_file(path)
            return False
        try:
            schema_files.create_file(path, self.path)
        except (OSError, sqlite3.Error) as err:
            raise mysql_error(1006, schema, getattr(err, "errno", 0) or 0, str(err)) from err
        return True

    def drop_schema_file(self, conn: Connection, schema: str) -> None:
        """DROP DATABASE: remove ``schema``'s file once ``conn``'s transaction commits (its tables were dropped in
        that transaction)."""
        path = self.schema_files().get(schema)
        if path is not None:
            conn.after_commit(lambda: schema_files.remove_file(path))

    def _pool_put(self, conn: Connection, bound: frozenset[str]) -> bool:
        """Keep ``conn``'s rolled-back SQLite connection for the next :meth:`connect` when the session left nothing
        on it: no transaction, no TEMP object (temporary tables, the views of :meth:`Connection.sync_views`), no
        schema file attached; the storage's PRAGMA synchronous / busy_timeout and no progress handler are put
        back. Returns False (the caller closes it) otherwise, or when :data:`POOL_SIZE` connections are idle."""
        raw = conn.raw
        if len(self._idle) >= POOL_SIZE or raw.in_transaction or conn._attached or conn._temp_views:
            return False
        try:
            if raw.execute("SELECT 1 FROM temp.sqlite_master LIMIT 1").fetchone() is not None:
                return False
            if conn._sync_mode:  # a deferred-sync commit's NORMAL (Connection.begin)
                raw.execute(f"PRAGMA synchronous={self.synchronous}")
            if conn._busy_ms not in (-1, self.busy_timeout_ms):
                raw.execute(f"PRAGMA busy_timeout={int(self.busy_timeout_ms)}")
            raw.set_progress_handler(None, 0)
        except sqlite3.Error:
            return False
        with self._lock:
            if len(self._idle) >= POOL_SIZE or self._closed:
                return False
            self._idle.append((raw, bound, conn.function_owner, os.getpid()))
        return True

    def _forget(self, conn: Connection) -> None:
        with self._lock:
            if conn in self._connections:
                self._connections.remove(conn)

    def physical_name(self, schema: str, table: str) -> str:
        """SQLite table name (unquoted) that stores MySQL table ``schema.table``."""
        return physical_name(schema, table)

    def sqlite(self, conn: Connection) -> sqlite3.Connection:
        """The raw sqlite3 connection behind ``conn`` (for the GTID core's system-table SQL)."""
        return conn.raw

    def checkpoint(self) -> None:
        """Run a WAL checkpoint (TRUNCATE) so the main file holds everything; used at clean shutdown."""
        conn = self.connect()
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()

    def disk_bytes(self) -> int:
        """Bytes on disk of the database file plus its WAL (for the benchmarks)."""
        total = 0
        for suffix in ("", "-wal"):
            try:
                total += os.path.getsize(str(self.path) + suffix)
            except OSError:
                pass
        return total

    def close(self) -> None:
        """Close every connection this storage handed out (rolling back open transactions), then release the
        database lock so another process may open it."""
        with self._lock:
            conns, self._connections = self._connections, []
            idle, self._idle = self._idle, []
            self._closed = True
        for raw, _bound, _owner, pid in idle:
            if pid == os.getpid():
                raw.close()
        try:
            for c in conns:
                try:
                    c.close()
                except sqlite3.ProgrammingError:
                    pass  # already closed by its session (closing twice is harmless)
        finally:
            if self.lock is not None:
                self.lock.release()
