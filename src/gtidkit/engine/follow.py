"""A worker process following the server's other processes on one datadir (issue 21 step 4, secondary open).

docs/design/multi_worker.md §5.2-5.3. Several processes open the same datadir (``Server.open(role="worker")``
beside the process that ran recovery); they are one MySQL server, so each must see what the others committed:

* **Staleness check** (every statement start, :meth:`Follower.stale`): one lock-free read of the shared page's
  ``committed`` counter (~0.1 µs, :mod:`gtidkit.engine.shared.shm`), which the write lock's holder bumps when it
  releases the lock (:meth:`Follower.published`), i.e. before the committing client gets its OK.
* **Catch-up** (:meth:`Follower.catch_up`): the ``_gk_commit_log`` rows past the last ``seq`` this process saw
  (AUTOINCREMENT, so a trim never reuses a number) add their GTIDs to ``gtid_executed`` (and to the active binlog
  file's GTIDs). When rows were trimmed before this process read them (a gap in ``seq``), the GTIDs come from
  mysql.gtid_executed instead, which holds every committed GTID since 8.0.17 (the GTID persister).
* **DDL and AUTO_INCREMENT**: a catch-up that reads rows re-reads the catalog when SQLite's ``schema_version``
  moved (a CREATE / ALTER / DROP anywhere), and one under the write lock that finds the binary log moved by
  another process drops the cached AUTO_INCREMENT counters (they restart at MAX(col)+1).
* **Under the write lock** (every acquisition, :meth:`Server.acquire_write_lock`), catch-up runs before anything
  is written, so an automatic GNO is taken from a ``gtid_executed`` that includes every commit of every process
  (GNOs are never handed out twice: MySQL's ``Gtid_state::generate_automatic_gtid`` under ``global_sid_lock``),
  and the binary log continues at the last row's ``(file, end_pos)`` (:meth:`BinlogLog.follow`: a file another
  process rotated to is opened for appending) with the dependency tracker's ``sequence_number`` read from that
  row's Gtid event (its writeset history restarts there: safe, less parallelism for a replica).

Still per process (step 6 of the plan): GTID ownership of ``SET GTID_NEXT='uuid:n'`` (the shm owner table is not
wired yet), SET GLOBAL, accounts, PURGE/RESET, PROCESSLIST, KILL across processes, dump-thread wake-ups; a GTID
committed by another process without a commit-log row (``sql_log_bin=0`` with an assigned GTID) is seen only
after the next catch-up that falls back to the table.
"""

from __future__ import annotations

import struct
import threading
from typing import TYPE_CHECKING, Any
from uuid import UUID

from gtidkit.engine.binlog import commit_log
from gtidkit.engine.gtid import table as gtid_table
from gtidkit.gtid import GtidSet

if TYPE_CHECKING:
    from gtidkit.engine.server import Server
    from gtidkit.engine.shared.shm import SharedPage

__all__ = ["Follower", "gtid_event_sequence_number"]

_GTID_LOG_EVENT = 33
_ANONYMOUS_GTID_LOG_EVENT = 34
_LOGICAL_TIMESTAMP_TYPECODE = 2
#: the Gtid event body after its 19-byte header: flags 1, sid 16, gno 8, lt_type 1, last_committed 8, seq 8
_LT_TYPE_AT = 19 + 1 + 16 + 8
_SEQ = struct.Struct("<Q")

#: The catalog's schema rows (a handful): CREATE / DROP / ALTER DATABASE change them without changing SQLite's schema.
_SCHEMATA = "SELECT * FROM _gk_schemata ORDER BY SCHEMA_NAME"

_SELECT = (
    f'SELECT seq, kind, sid, tag, gno, file, end_pos, substr(payload, 1, 64) FROM "{commit_log.TABLE}" '
    "WHERE seq > ? ORDER BY seq"
)


def gtid_event_sequence_number(payload: bytes) -> int | None:
    """The ``sequence_number`` of the Gtid / Anonymous_gtid event that starts a transaction's binlog bytes, or None
    when they start with another event (a tagged GTID event of 8.3+, whose body is serialized differently).

    Source: MySQL ``libbinlogevents/src/control_events.cpp`` ``Gtid_event`` (post-header layout)."""
    if len(payload) < _LT_TYPE_AT + 17 or payload[4] not in (_GTID_LOG_EVENT, _ANONYMOUS_GTID_LOG_EVENT):
        return None
    if payload[_LT_TYPE_AT] != _LOGICAL_TIMESTAMP_TYPECODE:
        return None
    return int(_SEQ.unpack_from(payload, _LT_TYPE_AT + 9)[0])


class Follower:
    """One process's view of what the other processes on its datadir committed.

    Args:
        server: the engine of this process (its ``gtid_state``, ``binlog``, ``binlog_file_gtids``, ``storage``).
        page: the mapped shared page (the ``committed`` counter).

    Attributes:
        last_seq: the highest commit-log ``seq`` this process has read.
        catch_ups: catch-ups that read at least one row (for tests and benchmarks).
    """

    def __init__(self, server: Server, page: SharedPage) -> None:
        self.server = server
        self.page = page
        self._committed = page.counter("committed")
        self._seen = -1
        self.last_seq = 0
        self.catch_ups = 0
        self._last: tuple[Any, ...] | None = None  # the newest commit-log row read
        self._schema_version = -1
        self._schemata: list[Any] = []
        self._lock = threading.Lock()
        self._conn = server.storage.connect()
        self._db: Any = server.storage.sqlite(self._conn)

    def close(self) -> None:
        """Close the follower's read connection."""
        with self._lock:
            self._conn.close()

    def stale(self) -> bool:
        """Whether another process has released the write lock since this one last caught up (~0.1 µs)."""
        return self._committed.get() != self._seen

    def published(self) -> None:
        """This process releases the write lock after a write transaction: tell the other processes (the
        releasing holder is the counter's only writer)."""
        self._seen = self._committed.add(1)

    def start(self) -> GtidSet:
        """Start following from one read snapshot, and return the GTIDs committed in it.

        The returned set is mysql.gtid_executed ∪ the commit log's GTIDs as that snapshot holds them (every
        committed GTID since 8.0.17: the GTID persister), and :attr:`last_seq` is the last commit-log row of the
        same snapshot: a commit made by another process while this one opens is either in the set or after
        ``last_seq`` (read by the next catch-up), never lost between the two (a worker that joined a running
        server, e.g. a replacement, once gave a GNO twice that way: tests/cli/test_crash_workers.py). The
        ``committed`` counter is read before the snapshot, so such a commit also makes the process stale.
        """
        with self._lock:
            self._seen = self._committed.get()
            db = self._db
            db.execute("BEGIN")
            try:
                self._schema_version = db.execute("PRAGMA schema_version").fetchone()[0]
                self._schemata = db.execute(_SCHEMATA).fetchall()
                executed = gtid_table.read_set(db, self.server.gtid_table)
                rows = db.execute(_SELECT, (-1,)).fetchall()
            finally:
                db.execute("COMMIT")
            for _seq, kind, sid, tag, gno, *_rest in rows:
                if kind == commit_log.TRANSACTION and sid is not None:
                    executed.add_in_place(UUID(sid).bytes, tag or "", int(gno))
            self._last = rows[-1] if rows else None
            self.last_seq = int(self._last[0]) if self._last else 0
        return executed

    def catch_up(self, *, under_write_lock: bool = False) -> int:
        """Add what other processes committed since the last catch-up to this process's GTID state; with
        ``under_write_lock`` also continue the binary log after the last committed transaction.

        Returns:
            The number of commit-log rows read.
        """
        server = self.server
        with self._lock:
            seen = self._committed.get()  # before reading: a commit after this read is caught up next time
            rows = self._db.execute(_SELECT, (self.last_seq,)).fetchall()
            self._seen = seen
            if rows:
                added = self._read(rows)
                self._last = rows[-1]
                version = self._db.execute("PRAGMA schema_version").fetchone()[0]
                schemata = self._db.execute(_SCHEMATA).fetchall()
                # DDL committed (here or elsewhere): re-read the catalog. CREATE / DROP / ALTER DATABASE change only
                # the catalog's _gk_schemata rows, not SQLite's schema, so those rows are compared too
                if version != self._schema_version or schemata != self._schemata:
                    self._schema_version, self._schemata = version, schemata
                    server.storage.catalog.reload(self._conn)
            else:
                added = GtidSet()
            last = self._last
        if added:
            server.gtid_state.add_executed(added)
            if server.binlog is not None:
                server.binlog_file_gtids.union_in_place(added)
        blog = server.binlog
        if under_write_lock and blog is not None and last is not None:
            _seq, kind, _sid, _tag, _gno, file, end_pos, head = last
            number = (
                gtid_event_sequence_number(bytes(head or b"")) if kind == commit_log.TRANSACTION else None
            )
            if blog.follow(str(file), int(end_pos), number):
                # another process inserted rows: AUTO_INCREMENT counters restart from MAX(col)+1
                server.storage.catalog.forget_auto_increments()
        return len(rows)

    def _read(self, rows: list[tuple[Any, ...]]) -> GtidSet:
        """The GTIDs of commit-log ``rows`` (the table's whole set when rows were trimmed unread); advances
        :attr:`last_seq`. Caller holds the follower's lock."""
        gap = int(rows[0][0]) != self.last_seq + 1
        added = GtidSet()
        for seq, kind, sid, tag, gno, file, end_pos, head in rows:
            if kind == commit_log.TRANSACTION and sid is not None:
                added.add_in_place(UUID(sid).bytes, tag or "", int(gno))
        if gap:  # rows trimmed before this process read them: the table has every committed GTID
            added.union_in_place(gtid_table.read_set(self._db, self.server.gtid_table))
        self.last_seq = int(rows[-1][0])
        self.catch_ups += 1
        return added
