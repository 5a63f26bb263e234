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

* **FLUSH / PURGE / RESET of another process** (step 6): the binary log's readers (SHOW BINARY LOGS, SHOW BINARY LOG
  STATUS, dump threads) read the end and the index from the shared page (:mod:`gtidkit.engine.shared.binlog_end`); a
  catch-up that finds the index generation moved adds the first remaining file's Previous_gtids to ``gtid_purged``
  (what the purging process computed), and one that finds the page's ``reset_epoch`` moved rebuilds the GTID state
  as the secondary open does (empty after a RESET) and forgets the binary log's writer, whose file is gone
  (:meth:`Follower.reset_done` is the RESET's own side).

* **Catch-up without SQLite under the write lock**: every holder bumps the page's ``write_lock_holds`` as it
  takes the lock, before it writes anything, and at its release describes its hold in the page's ring
  (:mod:`gtidkit.engine.shared.holds`) when it knows the commit-log rows it committed exactly: none, or one
  row-format transaction (with or without a GTID) or GTID without the binary log (:meth:`Follower.committed_row`:
  the row's ``seq`` follows the last one it knew, and the binary log ends where the row says; anything else, a
  rotation's ``file`` row, a RESET, a second transaction, a DDL, a tagged GTID, leaves the hold undescribed). The
  next holder then needs no SQLite read when no other process held the lock since its own last hold (its state is
  whole already) or when every hold since is described (their rows are applied from the ring); otherwise it reads
  the commit log as below. The first case is an early return that reads no ring slot (:attr:`Follower.own_holds`):
  the release that described this process's hold also advanced its own view (``last_seq``, the binary log's end,
  kept for the next hold) without building GtidSets, so a process serving one client pays a counter bump and a
  comparison per hold. A holder killed between its COMMIT and its description leaves its slot undescribed (or
  describing an older hold), so its successor reads the commit log: the bump comes before any write, the
  description after the COMMIT. CPU of the catch-up under the write lock: bench/RESULTS.md ``dml_cpu``.
* **GTIDs without the binary log** (binlog off, ``sql_log_bin=0``): the committer writes a ``gtid`` row
  (:func:`commit_log.record_gtid`), which a catch-up adds to gtid_executed and gtid_purged (a lost GTID).
* **When to catch up** (step 6, :meth:`Follower.refresh`): a read of GTID state catches up when the counter
  moved (``GtidState.refresh``: a SELECT of ``@@GLOBAL.gtid_executed``, SHOW, a tracker, a dump thread); a
  statement start does only for statements that are not innocent (they write, or take a GTID) or when another
  process changed the catalog (the ``catalog_generation`` counter, bumped by a holder whose transaction changed it),
  so a point SELECT after a foreign commit pays one counter read more, not a commit-log read.
* **Seen only when done**: :meth:`Follower.stale` and :meth:`Follower.catalog_moved` are lock-free reads that
  other threads of the process trust, so a catch-up stores the counter values it read at its start only at its
  end, once the catalog, the GTIDs and the binary log's end are this process's; a thread finding the process stale
  meanwhile calls the catch-up, which waits on the follower's lock (a PREPARE in a second thread otherwise planned
  against the old catalog: 1146, tests/engine/multi/test_follow_sibling_threads.py).
"""

from __future__ import annotations

import struct
import threading
from typing import TYPE_CHECKING, Any
from uuid import UUID

from gtidkit.binlog.file import read_previous_gtids
from gtidkit.engine.binlog import commit_log
from gtidkit.engine.binlog.log import file_name, file_number
from gtidkit.engine.gtid import table as gtid_table
from gtidkit.engine.shared import holds
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


#: a UUID as the two big-endian 8-byte words of a described hold (engine/shared/holds.py)
_SID_WORDS = struct.Struct(">QQ")
#: no GTIDs (never modified: the catch-up only reads the sets it gets)
_NOTHING = GtidSet()


def _end_of(row: tuple[Any, ...]) -> tuple[str, int, int | None]:
    """Where a commit-log row as the catch-up reads it ends in the binary log: (file, end_pos, the
    sequence_number of its Gtid event for a transaction, else None)."""
    _seq, kind, _sid, _tag, _gno, file, end_pos, head = row
    number = gtid_event_sequence_number(bytes(head or b"")) if kind == commit_log.TRANSACTION else None
    return str(file), int(end_pos), number


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
        if kind != commit_log.TRANSACTION or head is None or not _row_format_dml(bytes(head)):
            return True
    return False


def _row_format_dml(head: bytes) -> bool:
    """Whether a binlogged transaction whose payload starts with ``head`` is row-format DML (its Gtid /
    Anonymous_gtid event has ``FLAG_MAY_HAVE_SBR`` clear), which never changes the catalog; a tagged Gtid event
    (another body layout) or anything unexpected is not (:func:`may_change_catalog`)."""
    if len(head) <= _GTID_FLAGS_AT or head[4] not in (_GTID_LOG_EVENT, _ANONYMOUS_GTID_LOG_EVENT):
        return False
    return not head[_GTID_FLAGS_AT] & _MAY_HAVE_SBR


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
        # the page's words and the indexes of ``committed`` / ``catalog_generation``: the per-command checks
        # read them inline (one subscript, no method call)
        self._words = self._committed.words
        self._committed_at = self._committed.index
        self._reset_epoch = page.counter("reset_epoch")
        self._binlog_generation = page.counter("binlog_generation")
        self._epoch = 0
        self._generation = 0
        self._catalog_generation = page.counter("catalog_generation")
        self._catalog_at = self._catalog_generation.index
        self._catalog_seen = -1
        self._held_catalog = -1  # the catalog's version when this process took the write lock
        self._released = -1  # the ``committed`` value this process's last write-lock release published
        self._seen = -1
        self.last_seq = 0
        self.catch_ups = 0
        #: catch-ups under the write lock that read no SQLite (for tests and benchmarks)
        self.fast_catch_ups = 0
        #: of those, the ones whose previous hold was this process's own (the early return: no ring read, no
        #: binary-log end recomputed; for tests and benchmarks)
        self.own_holds = 0
        self._numbers = ("", 0)  # the last binlog file name whose number was parsed, and that number
        self._hold_file = ""  # the binlog file of the row noted in the present hold
        # where the newest commit-log row that moved the binary log ends: (file, end_pos, the sequence_number of
        # its Gtid event or None)
        self._last: tuple[str, int, int | None] | None = None
        self._holds = page.counter("write_lock_holds")
        self._current = (
            -1
        )  # the hold through which this process's state holds every commit-log row (-1: unknown)
        self._hold = 0  # this process's present (or last) hold
        # the commit-log rows this process committed in its present hold, as the page describes them (None: one
        # it cannot describe)
        self._hold_rows: list[tuple[int, ...]] | None = None
        self._hold_end: tuple[int, int] | None = (
            None  # where the binary log ended when the present hold began
        )
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
        return self._words[self._committed_at] != self._seen

    def catalog_moved(self) -> bool:
        """Whether another process changed the catalog (DDL) since this one last caught up (~0.1 µs)."""
        return self._words[self._catalog_at] != self._catalog_seen

    def refresh(self, force: bool = False) -> None:
        """Catch up when another process committed since the last catch-up (``force``: whatever the counter says;
        a process whose wake-up came before the committer released the write lock). A no-op inside a catch-up of
        the same thread (``GtidState.refresh``, which this is, may be reached from one)."""
        if getattr(self._inside, "active", False):
            return
        if force or self._words[self._committed_at] != self._seen:
            self.catch_up()

    def published(self) -> None:
        """This process releases the write lock after a write transaction: tell the other processes (the
        releasing holder is the counters' only writer): ``catalog_generation`` first when the transaction
        changed the catalog, then ``committed``."""
        version = self.server.storage.catalog.version
        if version != self._held_catalog:
            self._catalog_seen = self._catalog_generation.add(1)
            self._held_catalog = version
            self._hold_rows = None  # DDL: the next holder compares the catalog (the full catch-up)
        self._describe_hold()
        self._seen = self._released = self._committed.add(1)

    def committed_row(self, seq: int, kind: str, gtid: Any, file: str, end_pos: int, head: bytes) -> None:
        """This process's write-lock holder committed commit-log row ``seq`` (the SQLite COMMIT succeeded): note
        it for the hold's description (module docstring). A row whose ``seq`` does not follow the last one this
        process knows (a row written some other way), a second row, a tagged GTID or a transaction that may
        change the catalog leave the hold undescribed.

        Args:
            seq: the row's ``seq``; kind: :data:`commit_log.TRANSACTION` or :data:`commit_log.GTID`.
            gtid: its GTID (None: anonymous); file, end_pos: where it ends in the binary log (a TRANSACTION).
            head: the first bytes of its binlog payload (its Gtid event), empty for a GTID row.
        """
        with self._lock:
            self._note_row(seq, kind, gtid, file, end_pos, head)

    def _note_row(self, seq: int, kind: str, gtid: Any, file: str, end_pos: int, head: bytes) -> None:
        """:meth:`committed_row`'s work; the follower's lock held."""
        rows = self._hold_rows
        if rows is None:
            return
        if rows or seq != self.last_seq + 1 or (gtid is not None and gtid.tag):
            self._hold_rows = None
            return
        if kind == commit_log.TRANSACTION:
            if not _row_format_dml(head):
                self._hold_rows = None
                return
            number = gtid_event_sequence_number(head)
            code = holds.ANONYMOUS_TRX if gtid is None else holds.GTID_TRX
            where = (self._number(file), end_pos, 0 if number is None else number + 1)
            self._hold_file = file
        elif kind == commit_log.GTID and gtid is not None:
            code, where = holds.LOST_GTID, (0, 0, 0)
        else:
            self._hold_rows = None
            return
        sid = gtid.sid.bytes if gtid is not None else bytes(16)
        rows.append((code, seq, *_SID_WORDS.unpack(sid), gtid.gno if gtid is not None else 0, *where))

    def hold_undescribed(self) -> None:
        """This process's holder wrote the commit log some other way (a rotation's ``file`` row, RESET): the hold
        is not described, and this process reads the commit log at its next hold."""
        self._hold_rows = None

    def _describe_hold(self) -> None:
        """At the release of this process's hold: describe its commit-log row in the page's ring (its hold
        number last, so a holder killed in between leaves no description of its hold), and take the row into this process's
        own view (``last_seq``, the binary log's end), or mark that view incomplete. Called again in the same hold
        (a commit that publishes before it rotates, then releases), it describes the hold as it is then."""
        with self._lock:
            self._describe_hold_locked()

    def _describe_hold_locked(self) -> None:
        """:meth:`_describe_hold`'s work; the follower's lock held."""
        rows = self._hold_rows
        hold = self._hold
        end = self._binlog_end()
        # belt and braces: the binary log moved exactly as the noted row says (a rotation, a RESET, a row this
        # process wrote some other way show there too)
        expected = self._hold_end if not rows or rows[0][0] == holds.LOST_GTID else (rows[0][5], rows[0][6])
        if not hold:
            return
        if rows is None or self._current not in (hold - 1, hold) or end != expected:
            holds.forget(self.page, hold)
            self._current = -1
            return
        holds.describe(self.page, hold, rows[0] if rows else None)
        self._current = hold
        self._hold_end = end  # where the next hold begins when it is this process's own (the early return)
        if rows:
            # this process's own row: its view advances without GtidSets (the GTID is in gtid_executed already)
            _code, seq, _hi, _lo, _gno, _file, end_pos, seqno = rows[0]
            self.last_seq = seq
            if _code != holds.LOST_GTID:
                self._last = (self._hold_file, end_pos, seqno - 1 if seqno else None)

    def _number(self, name: str) -> int:
        """The number of binlog file ``name`` (parsed once per file: the holder asks at every release)."""
        numbers = self._numbers
        if numbers[0] != name:
            numbers = self._numbers = (name, file_number(name))
        return numbers[1]

    def _binlog_end(self) -> tuple[int, int] | None:
        """(file number, offset) where this process's binary log writer appends now (None without one)."""
        blog = self.server.binlog
        if blog is None or blog.writer is None or blog.active is None:
            return None
        return self._number(blog.active), int(blog.writer.position)

    def _take_row(self, words: tuple[int, ...], added: GtidSet, lost: GtidSet) -> bool:
        """Advance this process's view past a described row: add its GTID in place to ``added`` (binlogged) or
        ``lost`` (committed without the binary log); returns whether it moved the binary log."""
        code, seq, hi, lo, gno, file, end, seqno = words
        self.last_seq = seq
        if code == holds.LOST_GTID:
            lost.add_in_place(_SID_WORDS.pack(hi, lo), "", gno)
            return False
        if code == holds.GTID_TRX:
            added.add_in_place(_SID_WORDS.pack(hi, lo), "", gno)
        blog = self.server.binlog
        name = file_name(file, blog.basename.name) if blog is not None else file_name(file)
        self._last = (name, end, seqno - 1 if seqno else None)
        return True

    def _described(self, previous: int) -> tuple[GtidSet, GtidSet, bool] | None:
        """Under the write lock, hold ``previous`` being the last one before this process's: what the holds since
        this process's view was whole committed, as the page's ring describes them (nothing when this process
        held ``previous``: its view is whole already), as (binlogged GTIDs, lost GTIDs, whether the binary log
        moved); None when one of them is not described, so the commit log must be read."""
        current = self._current
        if current < 0:  # unknown (a fresh process, a RESET, a rotation elsewhere, an undescribed hold)
            return None
        if previous == current:
            return _NOTHING, _NOTHING, False
        if not 0 < previous - current <= holds.slots(self.page):
            return None
        rows = []
        for hold in range(current + 1, previous + 1):
            words = holds.described(self.page, hold)
            if words is None:
                return None
            if words[0] != holds.NO_ROW:
                rows.append(words)
        added, lost, moved = GtidSet(), GtidSet(), False
        for words in rows:  # each GTID added in place: no set per row, no union
            moved = self._take_row(words, added, lost) or moved
        return added, lost, moved

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
            self._current = -1
            for row in rows:
                _seq, kind, sid, tag, gno = row[:5]
                if kind != commit_log.GTID:
                    self._last = _end_of(row)  # the newest row that moved the binary log
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
            hold = self._holds.add(1)  # before anything is written in this hold (module docstring)
            if (
                hold - 1 == self._current
                and seen == self._released
                and catalog_seen == self._catalog_seen
                and epoch == self._epoch
                and self._binlog_generation.get() == self._generation
            ):
                # the early return: the last hold was this process's own, described at its release (which set
                # ``_current`` to it and ``_hold_end`` to where the binary log ended), and nothing was published
                # since: this process's state is whole, the ring is not read
                self._hold, self._hold_rows, self._current = hold, [], hold - 1
                self._held_catalog = server.storage.catalog.version
                self._seen = seen
                self.fast_catch_ups += 1
                self.own_holds += 1
                return 0
        if epoch != self._epoch:
            self._rebuild(epoch)
        generation = self._binlog_generation.get()
        if generation != self._generation:
            self._generation = generation
            self._purged_from_first_file()
            self._current = -1  # another process rotated or purged: read the commit log (its ``file`` row)
        moved = catalog_seen != self._catalog_seen
        described = None
        if under_write_lock:
            self._hold, self._hold_rows = hold, None
            if not moved:
                described = self._described(hold - 1)
        else:
            hold = 0
        follow = True  # the binary log's end may have moved: continue after the last row
        if described is not None:
            rows: list[tuple[Any, ...]] = []
            added, lost, follow = described
            self.fast_catch_ups += 1
        else:
            rows = self._db.execute(_SELECT, (self.last_seq,)).fetchall()
            lost = GtidSet()
            if rows:
                added, lost = self._read(rows)
                for row in reversed(rows):
                    if row[1] != commit_log.GTID:
                        self._last = _end_of(row)
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
            if blog is not None and last is not None and follow:
                file, end_pos, number = last
                foreign = blog.follow(file, end_pos, number) or foreign
            if foreign:
                server.storage.catalog.forget_auto_increments()
            self._held_catalog = server.storage.catalog.version
            self._current, self._hold_rows = hold - 1, []  # whole up to this hold: its own rows are noted
            self._hold_end = self._binlog_end()
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
            self._hold_rows = None

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
        self._current = -1
        for row in self._db.execute(_SELECT, (0,)).fetchall():
            self.last_seq = int(row[0])
            if row[1] != commit_log.GTID:
                self._last = _end_of(row)
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
