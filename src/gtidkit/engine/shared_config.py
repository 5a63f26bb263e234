"""Server-wide configuration across the worker processes of one server: SET GLOBAL, accounts, gtid_purged.

docs/design/multi_worker.md §5.2 (the row "SET GLOBAL, CREATE USER/GRANT, FLUSH PRIVILEGES"). In mysqld a global
system variable, the ACL cache (``acl_users``, reloaded by every account statement and FLUSH PRIVILEGES:
``sql/auth/sql_auth_cache.cc`` ``acl_reload``) and ``gtid_purged`` (``Gtid_state::lost_gtids``) live once, in the
one process; a statement's change is seen by every other connection's next statement. Here each worker process
keeps its own copy, so a change made in one process is published and every other process reloads it:

* **Publish** (the process that ran the statement, before its OK): the changed values are written to the table
  ``_gk_global_variables`` (``name`` -> JSON ``value``), then the shared page's ``config_generation`` counter is
  bumped under the page lock. Rows: a global variable's new value (every variable the SET changed, side effects
  included: ``read_only = OFF`` also turns ``super_read_only`` OFF); ``@accounts`` (the account cache as an account
  statement or FLUSH PRIVILEGES left it in its process: MySQL's in-memory ``acl_users``, not the grant tables, which
  a direct UPDATE of mysql.user changes before FLUSH PRIVILEGES makes it count);
  ``gtid_purged`` (``[reset_epoch, the whole purged set]``).
* **Reload** (:meth:`SharedConfig.reload`, when :meth:`SharedConfig.stale` sees the counter moved; one lock-free
  8-byte read per check): at every statement start (``dispatch``), at every client command and authentication step
  of the wire server (so a login and the privilege check of the next statement see a CREATE USER / GRANT made in
  another process), and under the write lock before anything is written (so an automatic GNO never reuses a
  GTID another process added to ``gtid_purged``). Only rows whose text changed since this process last applied them
  are applied: a variable's value is stored and its process-local effect run (the variable's ``on_change``
  callbacks and :data:`gtidkit.engine.sysvars.SysVar.follow`), the account cache replaced, the purged GTIDs added to
  ``gtid_purged`` and ``gtid_executed``.

The table lives in a database file of its own, ``gtidkit.globals.sqlite`` in the datadir, not in
``gtidkit.sqlite``: a global variable is no transactional data (MySQL's SET GLOBAL takes effect at once, whatever
transaction is open, and is not rolled back), so publishing must not wait for the engine's write lock, which an
open transaction of any process holds until it ends. The server's first process (the ``shared`` open) empties it at
start-up: a SET GLOBAL does not survive a restart (SET PERSIST, which gtidkit treats as SET GLOBAL, has no file).

A process without a shared page (the one-process server) never creates or reads the file.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gtidkit.engine import sysvars
from gtidkit.engine.accounts.store import Account
from gtidkit.gtid import GtidSet
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.server import Server
    from gtidkit.engine.shared.shm import SharedPage

__all__ = ["ACCOUNTS", "FILE", "PURGED", "TABLE", "SharedConfig"]

#: the database file and its table
FILE = "gtidkit.globals.sqlite"
TABLE = "_gk_global_variables"
#: the row bumped by account statements and FLUSH PRIVILEGES
ACCOUNTS = "@accounts"
#: the row holding ``[reset_epoch, gtid_purged]``
PURGED = "gtid_purged"
#: seconds a writer waits for another process's write to the file (each write is one short transaction)
_BUSY_TIMEOUT = 30.0


class SharedConfig:
    """This process's end of the server-wide configuration (module docstring).

    Args:
        server: the engine of this process (its ``globals``, ``accounts``, ``gtid_state``).
        page: the shared page (``config_generation``, ``reset_epoch``, the page lock).
        fresh: empty the table first (the server's first process, at start-up).

    Attributes:
        reloads: reloads that applied at least one row (tests and benchmarks).
    """

    def __init__(self, server: Server, page: SharedPage, *, fresh: bool) -> None:
        self.server = server
        self.page = page
        self._generation = page.counter("config_generation")
        # the page's words and ``config_generation``'s index: :meth:`stale` / :meth:`refresh`, run before every
        # client command, read the word inline (one subscript, no method call)
        self._words = self._generation.words
        self._at = self._generation.index
        self._reset_epoch = page.counter("reset_epoch")
        self._seen = -1
        self._lock = threading.RLock()
        #: row text this process applied or published, by name: a reload applies only rows that differ
        self._applied: dict[str, str] = {}
        self.reloads = 0
        path = Path(server.datadir) / FILE
        self._path = str(path)
        if fresh:
            for suffix in ("", "-wal", "-shm", "-journal"):
                Path(str(path) + suffix).unlink(missing_ok=True)
        self._db = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, timeout=_BUSY_TIMEOUT
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=OFF")  # emptied at every start: nothing to make durable
        self._db.execute(f'CREATE TABLE IF NOT EXISTS "{TABLE}" (name TEXT PRIMARY KEY, value TEXT NOT NULL)')

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------------ checks
    def stale(self) -> bool:
        """Whether some process published a change this process has not reloaded (~0.1 µs: one counter read)."""
        return self._words[self._at] != self._seen

    def refresh(self) -> None:
        """:meth:`reload` when :meth:`stale`."""
        if self._words[self._at] != self._seen:
            self.reload()

    # ------------------------------------------------------------------ publishing
    def publish_globals(self, values: dict[str, Any]) -> None:
        """Publish new global values (canonical name -> value: int, bool, str or None) set in this process.

        Raises:
            MySQLError: 1026 when the file cannot be written (:meth:`_write`).
        """
        if not values:
            return
        server = self.server
        with self._lock:
            self._publish({name: json.dumps(value) for name, value in values.items()})
            # a reload by another thread of this process may have applied another process's value between this
            # SET's store and its publication: the row now says this SET's value, so this process holds it too
            # (the last publication wins in every process)
            for name, value in values.items():
                if server.globals.values.get(name) != value:
                    sysvars.apply_global(server.globals, name, value, server)

    def publish_purged(self, purged: GtidSet) -> None:
        """Publish this process's whole ``gtid_purged`` after a SET GLOBAL gtid_purged added to it.

        Raises:
            MySQLError: 1026 when the file cannot be written.
        """
        self._publish({PURGED: json.dumps([self._reset_epoch.get(), str(purged)])})

    def publish_accounts(self, accounts: list[Account]) -> None:
        """Publish this process's account cache as an account statement or FLUSH PRIVILEGES (committed) left it:
        every process takes the same cache (MySQL's ``acl_users`` as ``acl_reload`` read it; a later direct change
        of the grant tables waits for the next FLUSH PRIVILEGES in every process alike).

        Raises:
            MySQLError: 1026 when the file cannot be written.
        """
        self._publish({ACCOUNTS: json.dumps([dataclasses.astuple(a) for a in accounts])})

    def _publish(self, rows: dict[str, str]) -> None:
        with self._lock:
            self._write(
                f'INSERT INTO "{TABLE}" (name, value) VALUES (?, ?) '
                "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                list(rows.items()),
            )
            self._applied.update(rows)
            self._bump()

    def _write(self, sql: str, params: list[tuple[Any, ...]]) -> None:
        """Run ``sql`` for each of ``params`` in one write transaction of the file.

        Raises:
            MySQLError: 1026 ER_ERROR_ON_WRITE naming the file and SQLite's error (busy past the timeout, disk
                full ...); nothing was published.
        """
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(sql, params)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except sqlite3.Error as err:
            raise mysql_error(1026, self._path, getattr(err, "sqlite_errorcode", 0), str(err)) from err

    def _bump(self) -> None:
        # config_generation has a writer in every process: bumped under the page lock (shm.py's rule)
        with self.page.locked():
            self._generation.add(1)

    # ------------------------------------------------------------------ reloading
    def reload(self) -> int:
        """Apply what other processes published since this process's last reload.

        Returns:
            The number of rows applied.
        """
        with self._lock:
            seen = (
                self._generation.get()
            )  # before reading: a change published after this is reloaded next time
            rows = self._db.execute(f'SELECT name, value FROM "{TABLE}"').fetchall()
            changed = [(name, text) for name, text in rows if self._applied.get(name) != text]
            for name, text in changed:
                self._applied[name] = text
                self._apply(name, text)
            # only once applied: another thread's lock-free stale() must not skip a reload still running here
            self._seen = seen
            if changed:
                self.reloads += 1
            return len(changed)

    def _apply(self, name: str, text: str) -> None:
        server = self.server
        value = json.loads(text)
        if name == ACCOUNTS:
            server.accounts.replace(_account(row) for row in value)
            return
        if name == PURGED:
            epoch, purged = value
            if int(epoch) != self._reset_epoch.get():
                return  # published before a RESET emptied gtid_purged: no longer true
            state = server.gtid_state
            added = GtidSet.parse(purged) - state.purged()
            if added:
                state.add_purged(added, also_executed=True)  # in no binary log file: not the file's GTIDs
            return
        sysvars.apply_global(server.globals, name, value, server)


def _account(row: list[Any]) -> Account:
    """An :class:`Account` from its published fields (JSON made its tuples lists)."""
    fields = list(row)
    fields[4] = tuple(fields[4])  # privileges
    fields[5] = tuple((db, tuple(privs)) for db, privs in fields[5])  # db_privileges
    return Account(*fields)
