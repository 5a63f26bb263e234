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
  moved (a CREATE / ALTER / DROP anywhere), and one under the write lock that finds that another process held the
  lock since this one's last release (the ``committed`` counter past the value it published; or the binary log
  moved) drops the cached AUTO_INCREMENT counters (they restart at MAX(col)+1): with the binary log off too.
* **Under the write lock** (every acquisition, :meth:`Server.acquire_write_lock`), catch-up runs before anything
  is written, so an automatic GNO is taken from a ``gtid_executed`` that includes every commit of every process
  (GNOs are never handed out twice: MySQL's ``Gtid_state::generate_automatic_gtid`` under ``global_sid_lock``),
  and the binary log continues at the last row's ``(file, end_pos)`` (:meth:`BinlogLog.follow`: a file another
  process rotated to is opened for appending) with the dependency tracker's ``sequence_number`` read from that
  row's Gtid event (its writeset history restarts there: safe, less parallelism for a replica).
* **Only this process wrote since its last hold** (the usual case of one busy worker): every taker of the write
  lock bumps the shared page's ``write_holds`` counter right after it takes the ``flock`` and before it writes
  anything (it is the counter's one writer). A catch-up under the write lock that finds the counter where this
  process's own previous acquisition left it (and ``committed`` where its own release left it) knows that no other
  process has written since: every commit-log row past :attr:`Follower.last_seq` is this process's own, already in
  its GTID state, its binary-log writer and its catalog, so the commit-log read is skipped (~1000 Python bytecodes
  and a read on a connection whose page cache this process's own commit invalidated). A process killed while
  holding the lock, after its COMMIT but before its release moved ``committed``, had bumped ``write_holds`` first,
  so the next holder reads the commit log as before; one killed between the ``flock`` and the bump wrote nothing.
  :attr:`Follower.last_seq` then trails this process's own rows until the next full catch-up reads them again
  (idempotent), or finds them trimmed and reads mysql.gtid_executed (the gap path below).

* **FLUSH / PURGE / RESET of another process** (step 6): the binary log's readers (SHOW BINARY LOGS, SHOW BINARY LOG
  STATUS, dump threads) read the end and the index from the shared page (:mod:`gtidkit.engine.shared.binlog_end`); a
  catch-up that finds the index generation moved adds the first remaining file's Previous_gtids to ``gtid_purged``
  (what the purging process computed), and one that finds the page's ``reset_epoch`` moved rebuilds the GTID state
  as the secondary open does (empty after a RESET) and forgets the binary log's writer, whose file is gone
  (:meth:`Follower.reset_done` is the RESET's own side).

* **GTIDs without the binary log** (binlog off, ``sql_log_bin=0``): the committer writes a ``gtid`` row
  (:func:`commit_log.record_gtid`), which a catch-up adds to gtid_executed and gtid_purged (a lost GTID).
* **When to catch up** (step 6, :meth:`Follower.refresh`): a read of GTID state catches up when the counter
  moved (``GtidState.refresh``: a SELECT of ``@@GLOBAL.gtid_executed``, SHOW, a tracker, a dump thread); a
  statement start does only for statements that are not innocent (they write, or take a GTID) or when another
  process changed the catalog (the ``catalog_generation`` counter, bumped by a holder whose transaction changed it),
  so a point SELECT after a foreign commit pays one counter read more, not a commit-log read.
"""

from __future__ import annotations

import struct
import threading
from typing import TYPE_CHECKING, Any
from uuid import UUID

from gtidkit.binlog.file import read_previous_gtids
from gtidkit.engine.binlog import commit_log
from gtidkit.engine.gtid import table as gtid_table
from gtidkit.errors import BinlogDecodeError
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
#: catalog rows a DDL may change without changing SQLite's schema: the schemas, and the views that read another
#: schema's file (TEMP views of every connection: engine/schema_files.py)
_SCHEMATA = (
    "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM _gk_schemata "
    "UNION ALL SELECT NAME, DDL, NULL FROM _gk_cross_views ORDER BY 1, 3"
)

_SELECT = (
    f'SELECT seq, kind, sid, tag, gno, file, end_pos, substr(payload, 1, 64) FROM "{commit_log.TABLE}" '
    "WHERE seq > ? ORDER BY seq"
)


#: Gtid_event's flags byte (first of the body) and FLAG_MAY_HAVE_SBR: set when the transaction holds a Query event
#: other than BEGIN / COMMIT (every DDL; statement-format DML), never for a row-format DML transaction
_GTID_FLAGS_AT = 19
_MAY_HAVE_SBR = 1


def may_change_catalog(rows: list[tuple[Any, ...]]) -> bool:
    """Whether commit-log ``rows`` (as the catch-up reads them) may hold a catalog change, so the catalog must be
    compared: any row but a binlogged transaction whose Gtid / Anonymous_gtid event has ``FLAG_MAY_HAVE_SBR``
    clear (a row-format DML transaction, which never changes the catalog). A committing process announces its DDL
    by ``catalog_generation`` too; this covers one killed between its COMMIT and that announcement. Row-format
    DML, sysbench's whole write load, then skips the two catalog reads (~50 µs inside the write lock).

    Source: MySQL ``libbinlogevents/src/control_events.cpp`` ``Gtid_event`` (the flags byte, ``FLAG_MAY_HAVE_SBR``),
    ``Gtid_log_event::Gtid_log_event`` (``sql/log_event.cc``: set when the transaction may hold statements)."""
    for row in rows:
        kind, head = row[1], row[7]
        if kind != commit_log.TRANSACTION or head is None:
            return True
        head = bytes(head)
        if len(head) <= _GTID_FLAGS_AT or head[4] not in (_GTID_LOG_EVENT, _ANONYMOUS_GTID_LOG_EVENT):
            return True  # a tagged Gtid event (another body layout) or something unexpected: compare
        if head[_GTID_FLAGS_AT] & _MAY_HAVE_SBR:
            return True
    return False


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
        own_holds: catch-ups under the write lock that skipped the commit-log read because no other process had
            taken the lock since this one's previous hold (module docstring; for tests and benchmarks).
    """

    def __init__(self, server: Server, page: SharedPage) -> None:
        self.server = server
        self.page = page
        self._committed = page.counter("committed")
        self._reset_epoch = page.counter("reset_epoch")
        self._binlog_generation = page.counter("binlog_generation")
        self._epoch = 0
        self._generation = 0
        self._catalog_generation = page.counter("catalog_generation")
        self._catalog_seen = -1
        self._write_holds = page.counter("write_holds")
        self._held = -1  # the ``write_holds`` value this process's last write-lock acquisition set
        self._held_catalog = -1  # the catalog's version when this process took the write lock
        self._released = -1  # the ``committed`` value this process's last write-lock release published
        self._seen = -1
        self.last_seq = 0
        self.catch_ups = 0
        self.own_holds = 0
        self._last: tuple[Any, ...] | None = None  # the newest commit-log row read
        self._schema_version: tuple[tuple[str, int, int], ...] = ()
        self._schemata: list[Any] = []
        self._lock = threading.Lock()
        self._inside = threading.local()  # a catch-up running in this thread (refresh never re-enters it)
        self._conn = server.storage.connect()
        self._db: Any = server.storage.sqlite(self._conn)

    def close(self) -> None:
        """Close the follower's read connection."""
        with self._lock:
            self._conn.close()

    def stale(self) -> bool:
        """Whether another process has released the write lock since this one last caught up (~0.1 µs)."""
        return self._committed.get() != self._seen

    def catalog_moved(self) -> bool:
        """Whether another process changed the catalog (DDL) since this one last caught up (~0.1 µs)."""
        return self._catalog_generation.get() != self._catalog_seen

    def refresh(self, force: bool = False) -> None:
        """Catch up when another process committed since the last catch-up (``force``: whatever the counter says;
        a process whose wake-up came before the committer released the write lock). A no-op inside a catch-up of
        the same thread (``GtidState.refresh``, which this is, may be reached from one)."""
        if getattr(self._inside, "active", False):
            return
        if force or self._committed.get() != self._seen:
            self.catch_up()

    def published(self) -> None:
        """This process releases the write lock after a write transaction: tell the other processes (the
        releasing holder is the counters' only writer): ``catalog_generation`` first when the transaction
        changed the catalog, then ``committed``."""
        version = self.server.storage.catalog.version
        if version != self._held_catalog:
            self._catalog_seen = self._catalog_generation.add(1)
            self._held_catalog = version
        self._seen = self._released = self._committed.add(1)

    def start(self) -> tuple[GtidSet, GtidSet]:
        """Start following from one read snapshot, and return the GTIDs committed in it: (all of them, those
        committed without the binary log: the commit log's ``gtid`` rows, which belong in ``gtid_purged`` too).

        The returned set is mysql.gtid_executed ∪ the commit log's GTIDs as that snapshot holds them (every
        committed GTID since 8.0.17: the GTID persister), and :attr:`last_seq` is the last commit-log row of the
        same snapshot: a commit made by another process while this one opens is either in the set or after
        ``last_seq`` (read by the next catch-up), never lost between the two (a worker that joined a running
        server, e.g. a replacement, once gave a GNO twice that way: tests/cli/test_crash_workers.py). The
        ``committed`` counter is read before the snapshot, so such a commit also makes the process stale.
        """
        with self._lock:
            self._seen = self._committed.get()
            self._epoch = self._reset_epoch.get()
            self._generation = self._binlog_generation.get()
            self._catalog_seen = self._catalog_generation.get()
            db = self._db
            self._conn.sync_attachments()  # schema files (engine/schema_files.py): their DDL moves their version
            db.execute("BEGIN")
            try:
                self._schema_version = self._conn.schema_versions()
                self._schemata = db.execute(_SCHEMATA).fetchall()
                executed = gtid_table.read_set(db, self.server.gtid_table)
                rows = db.execute(_SELECT, (-1,)).fetchall()
            finally:
                db.execute("COMMIT")
            lost = GtidSet()
            self._last = None
            for row in rows:
                _seq, kind, sid, tag, gno = row[:5]
                if kind != commit_log.GTID:
                    self._last = row  # the newest row that moved the binary log
                if sid is not None and kind in (commit_log.TRANSACTION, commit_log.GTID):
                    executed.add_in_place(UUID(sid).bytes, tag or "", int(gno))
                    if kind == commit_log.GTID:
                        lost.add_in_place(UUID(sid).bytes, tag or "", int(gno))
            self.last_seq = int(rows[-1][0]) if rows else 0
        return executed, lost

    def catch_up(self, *, under_write_lock: bool = False) -> int:
        """Add what other processes committed since the last catch-up to this process's GTID state; with
        ``under_write_lock`` also continue the binary log after the last committed transaction.

        Returns:
            The number of commit-log rows read.
        """
        with self._lock:
            self._inside.active = True
            try:
                return self._catch_up_locked(under_write_lock)
            finally:
                self._inside.active = False

    def _catch_up_locked(self, under_write_lock: bool) -> int:
        """:meth:`catch_up`'s work; the follower's lock held."""
        server = self.server
        seen = self._committed.get()  # before reading: a commit after this read is caught up next time
        catalog_seen = self._catalog_generation.get()
        epoch = self._reset_epoch.get()  # moved before the RESET released the lock, so before `committed`
        if under_write_lock:
            # this process holds the flock: it is the counter's one writer until its release (module docstring)
            holds = self._write_holds.get()
            only_ours = holds == self._held and seen == self._released
            self._held = holds + 1
            self._write_holds.set(self._held)
            if (
                only_ours
                and catalog_seen == self._catalog_seen
                and epoch == self._epoch
                and self._binlog_generation.get() == self._generation
            ):
                self._seen = seen
                self.own_holds += 1
                return 0
        if epoch != self._epoch:
            self._rebuild(epoch)
        generation = self._binlog_generation.get()
        if generation != self._generation:
            self._generation = generation
            self._purged_from_first_file()
        rows = self._db.execute(_SELECT, (self.last_seq,)).fetchall()
        moved = catalog_seen != self._catalog_seen
        lost = GtidSet()
        if rows:
            added, lost = self._read(rows)
            for row in reversed(rows):
                if row[1] != commit_log.GTID:
                    self._last = row
                    break
        else:
            added = GtidSet()
        if moved or may_change_catalog(rows):
            self._conn.sync_attachments()
            version = self._conn.schema_versions()  # main's and each schema file's (engine/schema_files.py)
            schemata = self._db.execute(_SCHEMATA).fetchall()
            # DDL committed (here or elsewhere): re-read the catalog. CREATE / DROP / ALTER DATABASE change only
            # the catalog's _gk_schemata rows, not SQLite's schema, so those rows are compared too; a DDL another
            # process announced (``moved``) is re-read whatever they say (a view reading another schema's file
            # changes neither SQLite's schema nor rows this process compared before its own DDL)
            if moved or version != self._schema_version or schemata != self._schemata:
                self._schema_version, self._schemata = version, schemata
                server.storage.catalog.reload(self._conn)
        last = self._last
        if added:
            server.gtid_state.add_executed(added)
            if server.binlog is not None:
                server.binlog_file_gtids.union_in_place(added)
        if lost:
            server.gtid_state.add_purged(lost, also_executed=True)
        blog = server.binlog
        if under_write_lock:
            # another process held the write lock since this one last did (it moved the counter past our last
            # release): it may have inserted rows, with or without the binary log, so AUTO_INCREMENT counters
            # restart from MAX(col)+1
            foreign = seen != self._released
            if blog is not None and last is not None:
                _seq, kind, _sid, _tag, _gno, file, end_pos, head = last
                number = (
                    gtid_event_sequence_number(bytes(head or b"")) if kind == commit_log.TRANSACTION else None
                )
                foreign = blog.follow(str(file), int(end_pos), number) or foreign
            if foreign:
                server.storage.catalog.forget_auto_increments()
            self._held_catalog = server.storage.catalog.version
        # only now is this process caught up: another thread's lock-free stale() / catalog_moved() must not say so
        # while the catalog or the GTIDs are still being read (it would plan against the old catalog: 1146)
        self._seen, self._catalog_seen = seen, catalog_seen
        return len(rows)

    def reset_done(self, epoch: int) -> None:
        """This process ran RESET MASTER / RESET BINARY LOGS AND GTIDS, which moved the page's ``reset_epoch`` to
        ``epoch`` after emptying the commit log: its own state is already the new one (write lock held)."""
        with self._lock:
            self._epoch = epoch
            self._generation = self._binlog_generation.get()
            self._last = None

    def _rebuild(self, epoch: int) -> None:
        """Another process ran RESET MASTER / RESET BINARY LOGS AND GTIDS: the GTID state as the secondary open
        computes it (mysql.gtid_executed ∪ the commit log; gtid_purged = the first file's Previous_gtids), the
        binary log's writer forgotten (its file was deleted; the next write-lock catch-up opens the new one).
        Caller holds the follower's lock."""
        server = self.server
        self._epoch = epoch
        self._generation = self._binlog_generation.get()
        executed = gtid_table.read_set(self._db, server.gtid_table)
        self._last = None
        self.last_seq = 0
        lost = GtidSet()  # committed without the binary log: in gtid_purged too
        for row in self._db.execute(_SELECT, (0,)).fetchall():
            self.last_seq = int(row[0])
            if row[1] != commit_log.GTID:
                self._last = row
            if row[1] in (commit_log.TRANSACTION, commit_log.GTID) and row[2] is not None:
                executed.add_in_place(UUID(row[2]).bytes, row[3] or "", int(row[4]))
                if row[1] == commit_log.GTID:
                    lost.add_in_place(UUID(row[2]).bytes, row[3] or "", int(row[4]))
        blog = server.binlog
        purged = GtidSet()
        if blog is not None:
            blog.reset_view(epoch)
            purged = self._first_file_previous() | lost
            server.binlog_file_gtids = GtidSet()
        else:
            purged = GtidSet() | executed
        server.gtid_state.load(executed, purged)

    def _first_file_previous(self) -> GtidSet:
        """Previous_gtids of the oldest binlog file (what no binary log holds: ``gtid_purged``)."""
        blog = self.server.binlog
        if blog is None:
            return GtidSet()
        for name in blog.existing_files():
            try:
                return read_previous_gtids(blog.path(name)) or GtidSet()
            except (OSError, BinlogDecodeError):
                continue  # purged meanwhile: the next one is the oldest
        return GtidSet()

    def _purged_from_first_file(self) -> None:
        """The index changed (a PURGE or an expiry in any process): ``gtid_purged`` grows by the oldest remaining
        file's Previous_gtids, as in the purging process (:meth:`Admin.purge_locked`)."""
        if self.server.binlog is None:
            return
        previous = self._first_file_previous()
        if previous and not previous <= self.server.gtid_state.purged():
            self.server.gtid_state.add_purged(previous, also_executed=False)

    def _read(self, rows: list[tuple[Any, ...]]) -> tuple[GtidSet, GtidSet]:
        """The GTIDs of commit-log ``rows`` (the table's whole set when rows were trimmed unread): (binlogged or
        read from the table, lost: committed without the binary log); advances :attr:`last_seq`. Caller holds the
        follower's lock."""
        gap = int(rows[0][0]) != self.last_seq + 1
        added = GtidSet()
        lost = GtidSet()
        for _seq, kind, sid, tag, gno, _file, _end_pos, _head in rows:
            if sid is None:
                continue
            if kind == commit_log.TRANSACTION:
                added.add_in_place(UUID(sid).bytes, tag or "", int(gno))
            elif kind == commit_log.GTID:
                lost.add_in_place(UUID(sid).bytes, tag or "", int(gno))
        if gap:  # rows trimmed before this process read them: the table has every committed GTID
            table = gtid_table.read_set(self._db, self.server.gtid_table)
            if self.server.binlog is None:
                lost.union_in_place(table)  # binlog off: every GTID is lost (gtid_purged = gtid_executed)
            else:
                added.union_in_place(table)
        self.last_seq = int(rows[-1][0])
        self.catch_ups += 1
        return added, lost
