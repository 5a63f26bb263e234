"""The binary log manager: binlog.NNNNNN files, binlog.index, rotation, purge, reset (WL#7592).

Source: MySQL ``sql/binlog.cc`` (``MYSQL_BIN_LOG::open_binlog``, ``new_file_impl``, ``purge_logs``,
``reset_logs``, ``ordered_commit``'s flush and sync stages, ``sync_binlog`` counting), RM8 "The Binary Log",
../shared/research/formats.md §1–3. Files are written through :class:`gtidkit.binlog.writer.BinlogWriter`.

Names follow MySQL 8.0: ``binlog.000001`` ... and ``binlog.index`` listing ``./binlog.000001`` one per line; another
base name (``--log-bin=mysql-bin``: ``mysql-bin.000001``), directory (``--log-bin=/logs/mysql-bin``) or index file
(``--log-bin-index``) is given to :class:`BinlogLog` (RM8 "Binary Logging Options and Variables": log_bin_basename,
log_bin_index; an index entry is ``./<name>`` for a file in the datadir, else its full path). The
logical clock (``last_committed`` / ``sequence_number``) restarts in each file (0/1 for the first transaction)
and comes from :class:`gtidkit.engine.binlog.dependency.DependencyTracker`: commits are serialised by the engine's write
lock, so COMMIT_ORDER (the 5.7 / 8.0 default) gives ``sequence_number - 1``; WRITESET / WRITESET_SESSION (MySQL 8.4 always)
lower it to the last transaction that changed the same rows, forming commit groups a parallel applier can use.

Not thread-safe by itself: the server calls it under its engine write lock (all writers) and ``self.lock`` (for
readers such as SHOW BINARY LOG STATUS).

The dump seam (what a COM_BINLOG_DUMP_GTID thread needs, MySQL ``sql/rpl_binlog_sender.cc`` and
``MYSQL_BIN_LOG::find_first_log_not_in_gtid_set``): :meth:`BinlogLog.locate` names the first file a replica with a
given GTID set needs and checks the set against gtid_purged (a structured :class:`DumpStart`, the 1236 texts are
the dump thread's); :meth:`BinlogLog.end_position` is the end of the last transaction written, committed in the
engine and durable (a reader may read any file up to there without a lock; bytes past it may still be cut by
recovery, :mod:`gtidkit.engine.recovery`); :meth:`BinlogLog.wait_for_update` blocks on a condition the writer
signals after each publish, rotation and close (MySQL's ``update_cond`` /
``wait_for_update``), so readers never poll and never make the writer flush for them.

Several processes of one server (issue 21, ``gtidkit server --workers=N``) append to the same files, each through its
own :class:`BinlogLog`: :meth:`BinlogLog.attach_shared` makes the readers' view (the published end, the index, the
wait for an update) the shared page's (:mod:`gtidkit.engine.shared.binlog_end`) instead of this object's writer, so
SHOW BINARY LOGS, SHOW BINARY LOG STATUS, SHOW BINLOG EVENTS and dump threads of every process see every process's
commits, rotations, purges and RESETs; the writer continues after another process's rows under the write lock
(:meth:`BinlogLog.follow`, :mod:`gtidkit.engine.follow`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from uuid import UUID

from gtidkit.binlog.file import read_previous_gtids
from gtidkit.binlog.writer import BinlogWriter
from gtidkit.engine.binlog.commit_log import TRIM_INTERVAL
from gtidkit.engine.binlog.dependency import NO_WRITESET, WRITESET, DependencyTracker, Writeset
from gtidkit.engine.binlog.error_action import BinlogStageError
from gtidkit.errors import BinlogDecodeError
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.mysql_errors import mysql_error
from gtidkit.version import MYSQL_VERSION

if TYPE_CHECKING:
    from gtidkit.engine.shared.binlog_end import BinlogEnd

BASENAME = "binlog"
INDEX_NAME = f"{BASENAME}.index"
FIRST_EVENT_POS = 4


def file_name(number: int, basename: str = BASENAME) -> str:
    """``binlog.000001`` for 1 (six digits, as MySQL; more digits past 999999); ``basename`` is the file's name
    without extension (``mysql-bin`` for ``--log-bin=mysql-bin``)."""
    return f"{basename}.{number:06d}"


def file_number(name: str) -> int:
    """The number of ``binlog.000042`` (42)."""
    return int(name.rsplit(".", 1)[1])


@dataclass(frozen=True, slots=True)
class LogPosition:
    """A position in the binary log: file base name and byte offset (exclusive end of what it covers)."""

    file: str
    pos: int


@dataclass(frozen=True, slots=True)
class DumpStart:
    """Where a replica asking with GTID set ``requested`` must start, and why it cannot (MySQL's checks in order).

    Attributes:
        first_file: the newest file whose Previous_gtids is a subset of ``requested`` (every GTID the replica lacks
            is in it or later), or None when even the oldest file's Previous_gtids holds GTIDs the replica lacks.
        purged_missing: ``gtid_purged - requested``: GTIDs the replica lacks that no binlog holds any more
            (non-empty: MySQL's ER_SOURCE_HAS_PURGED_REQUIRED_GTIDS, sent as 1236).
        replica_has_more: GTIDs of this server's UUID that the replica has and this server never executed
            (non-empty: ER_REPLICA_HAS_MORE_GTIDS_THAN_SOURCE, sent as 1236).
    """

    first_file: str | None
    purged_missing: GtidSet
    replica_has_more: GtidSet

    @property
    def ok(self) -> bool:
        """True when the dump can start at :attr:`first_file`."""
        return self.first_file is not None and not self.purged_missing and not self.replica_has_more


@dataclass(frozen=True, slots=True)
class WrittenTransaction:
    """A transaction :meth:`BinlogLog.write_transaction` appended.

    Attributes:
        file: the binlog file's base name.
        begin, end: its offsets in the file (bytes; ``end`` is where the next transaction starts).
        data: the bytes written (what the commit log stores).
        synced: the file was fsynced right after them (every earlier byte of the binary log is on disk).
        epoch: the shared page's RESET epoch the transaction was written in (0 in a one-process server); its
            publication is dropped when a RESET came in between (:meth:`BinlogLog.publish_to`).
    """

    file: str
    begin: int
    end: int
    data: bytes
    synced: bool
    epoch: int = 0


class BinlogLog:
    """The set of binlog files of one datadir and the open (active) one.

    Args:
        datadir: the data directory; the files and the index are there unless ``basename`` / ``index_file`` say
            otherwise.
        server_id: header server_id of the events this server writes.
        server_version: FDE server version.
        checksum: ``binlog_checksum=CRC32`` (True) or NONE.
        max_binlog_size: rotate after a transaction that makes the file exceed this many bytes.
        sync_binlog: the file is fsynced every N commits for N > 1, every
            :data:`~gtidkit.engine.binlog.commit_log.TRIM_INTERVAL` commits for 0 and 1: the engine's commit log
            makes every committed transaction durable in the binary log (:mod:`gtidkit.engine.recovery`).
        basename: ``@@log_bin_basename``: the files' path without extension, absolute or relative to ``datadir``
            (default ``binlog``).
        index_file: ``@@log_bin_index``: the index's path, absolute or relative to ``datadir`` (default
            ``<basename>.index``).
    """

    def __init__(
        self,
        datadir: Path,
        *,
        server_id: int,
        basename: str | Path = BASENAME,
        index_file: str | Path | None = None,
        server_version: str = MYSQL_VERSION,
        checksum: bool = True,
        max_binlog_size: int = 1 << 30,
        sync_binlog: int = 1,
    ) -> None:
        self.datadir = Path(datadir)
        base = self.datadir / basename
        #: ``@@log_bin_basename``: directory and name of the files without the ``.NNNNNN`` extension
        self.basename = base
        self.file_dir = base.parent
        self._index_path = self.datadir / index_file if index_file else base.with_name(base.name + ".index")
        self.server_id = server_id
        self.server_version = server_version
        self.checksum = checksum
        self.max_binlog_size = max_binlog_size
        self.sync_binlog = sync_binlog
        self.lock = threading.RLock()
        self.writer: BinlogWriter | None = None
        self.active: str | None = None
        self.tracker = DependencyTracker()
        self._unsynced = 0
        self.index: list[str] = self._read_index()
        # the dump seam: end of the last transaction flushed to the OS, and the condition readers wait on
        self._update = threading.Condition(threading.Lock())
        self._end: LogPosition | None = None
        self._closed = False
        #: the shared page's view of the log when other processes write it too (:meth:`attach_shared`)
        self.shared: BinlogEnd | None = None
        #: the RESET epoch this object's writer belongs to (:meth:`reset_view`)
        self.epoch = 0
        self._generation = 0

    @property
    def sequence_number(self) -> int:
        """sequence_number of the last transaction written to the active file (0 = none yet)."""
        return self.tracker.sequence_number

    # -- index -------------------------------------------------------------------------------------------
    @property
    def index_path(self) -> Path:
        """Path of the index (``binlog.index`` in the datadir by default; one binlog file per line, as mysqld
        writes it)."""
        return self._index_path

    def _read_index(self) -> list[str]:
        return read_index_file(self.index_path)

    def _write_index(self) -> None:
        # mysqld lists a file by the name it built it with: ./name in the datadir, else its full path
        prefix = "./" if self.file_dir.resolve() == self.datadir.resolve() else f"{self.file_dir}/"
        write_index_file(self.index_path, self.index, prefix=prefix)

    def path(self, name: str) -> Path:
        """Full path of binlog ``name``."""
        return self.file_dir / name

    def existing_files(self) -> list[str]:
        """Names in the index whose file exists, oldest first."""
        self._refresh()
        return [n for n in self.index if self.path(n).exists()]

    # -- opening and closing -----------------------------------------------------------------------------
    def open_new(
        self,
        previous_gtids: GtidSet,
        *,
        at_startup: bool = False,
        number: int | None = None,
        reset: bool = False,
    ) -> str:
        """Create the next file (FDE + Previous_gtids), add it to the index and make it active.

        Args:
            previous_gtids: ``gtid_executed`` at this moment (Previous_gtids body).
            at_startup: set the FDE ``create_timestamp`` (only the first file after start-up has it).
            number: file number to use (RESET MASTER TO n); default = last number + 1.
            reset: the first file after RESET MASTER / RESET BINARY LOGS AND GTIDS: with a shared page, publishing
                it starts a new RESET epoch (:attr:`epoch`; every other process rebuilds its view).

        Returns:
            The new file's base name.
        """
        with self.lock:
            self._refresh()  # another process may have purged: never write its files back into the index
            if number is None:
                number = file_number(self.index[-1]) + 1 if self.index else 1
            name = file_name(number, self.basename.name)
            orphan = self.path(name)
            if orphan.exists() and name not in self.index:
                # A crash between creating the file and adding it to the index (MySQL's crash-safe index
                # procedure has the same window). No transaction is written before the index names the file,
                # so the orphan holds at most FDE + Previous_gtids: recreate it.
                orphan.unlink()
            self.writer = BinlogWriter.create(
                self.path(name),
                server_id=self.server_id,
                server_version=self.server_version,
                checksum=self.checksum,
                previous_gtids=previous_gtids,
                create_timestamp=int(time.time()) if at_startup else None,
            )
            self.writer.flush(fsync=True)
            self.index.append(name)
            self._write_index()
            self.active = name
            self.tracker.rotate()
            self._unsynced = 0
            self._closed = False
            self._publish()
            if self.shared is not None:  # every process reads the new file from now on
                self.epoch = self.shared.set(number, self.writer.position, new_epoch=reset)
                self._generation = self.shared.generation()
            return name

    def rotate(self, previous_gtids: GtidSet) -> tuple[str, str]:
        """Close the active file with a Rotate event and open the next one. Returns (closed, new) names.

        Raises:
            BinlogStageError: (stage ``"rotate"``) the OS refused closing, creating or indexing a file.
        """
        with self.lock:
            assert self.writer is not None and self.active is not None
            closed = self.active
            next_name = file_name(file_number(closed) + 1, self.basename.name)
            try:
                self.writer.rotate(next_name, fsync=True)
                self.writer = None
                new = self.open_new(previous_gtids)
            except OSError as err:
                raise BinlogStageError("rotate", err) from err
            return closed, new

    def close(self) -> None:
        """Clean shutdown: Stop event, IN_USE flag cleared, fsync."""
        with self.lock:
            if self.writer is not None:
                self.writer.close(stop=True, fsync=True)
                self.writer = None
            self._publish(closed=True)

    def abandon(self) -> None:
        """Close the file handle without a Stop event (leaves IN_USE set, as a crash would)."""
        with self.lock:
            if self.writer is not None:
                self.writer.close(stop=False, in_use=True, fsync=False)
                self.writer = None
            self._publish(closed=True)

    # -- writing -----------------------------------------------------------------------------------------
    @property
    def position(self) -> LogPosition:
        """End of the active file (where the next transaction starts)."""
        assert self.writer is not None and self.active is not None
        return LogPosition(self.active, self.writer.position)

    def write_transaction(
        self,
        gtid: Gtid | None,
        events: Sequence[object],
        *,
        immediate_commit_timestamp: int,
        original_commit_timestamp: int | None = None,
        server_id: int | None = None,
        timestamp: int | None = None,
        original_server_version: int | None = None,
        writeset: Writeset = NO_WRITESET,
        dependency_tracking: str = WRITESET,
        history_size: int = 25000,
        session_id: int | None = None,
        compression_level: int | None = None,
    ) -> WrittenTransaction:
        """Append one transaction and hand it to the OS (MySQL's flush stage); fsync the file when the
        :attr:`sync_interval` is reached. Readers do not see it until :meth:`publish` (after the engine commit).

        Args:
            gtid: the transaction's GTID (None = Anonymous_gtid event).
            events: body events (after the Gtid event).
            immediate_commit_timestamp, original_commit_timestamp: µs since the epoch.
            server_id: header server_id (default: this server's).
            timestamp: header timestamp in seconds (default: the immediate commit time).
            original_server_version: the source's version for a re-logged transaction (default: this server's).
            writeset, dependency_tracking, history_size, session_id: logical-clock inputs, see
                :meth:`gtidkit.engine.binlog.dependency.DependencyTracker.assign` (:data:`NO_WRITESET` = the transaction
                depends on the previous one).
            compression_level: zstd level when the events go into a Transaction_payload
                (``binlog_transaction_compression``), None to write them as they are.

        Returns:
            The :class:`WrittenTransaction` (file, offsets, bytes, whether the file was fsynced through it).

        Raises:
            BinlogStageError: the OS refused the write (stage ``"flush"``) or the fsync (stage ``"sync"``); the
                server applies ``binlog_error_action`` (:mod:`gtidkit.engine.binlog.error_action`).
        """
        with self.lock:
            assert self.writer is not None and self.active is not None
            last_committed, sequence_number = self.tracker.assign(
                writeset, mode=dependency_tracking, history_size=history_size, session_id=session_id
            )
            data = self.writer.encode_transaction(
                gtid,
                list(events),
                last_committed=last_committed,
                sequence_number=sequence_number,
                immediate_commit_timestamp=immediate_commit_timestamp,
                original_commit_timestamp=original_commit_timestamp,
                server_id=server_id,
                timestamp=timestamp,
                original_server_version=original_server_version,
                compression_level=compression_level,
            )
            try:  # MySQL's flush stage: the transaction's bytes handed to the OS
                begin = self.writer.write_raw(data)
                self.writer.flush(fsync=False)
            except OSError as err:
                raise BinlogStageError("flush", err) from err
            self._unsynced += 1
            synced = False
            if self._unsynced >= self.sync_interval:
                try:  # the file's own fsync: every sync_interval transactions (the rows before go, commit_log.py)
                    self.writer.flush(fsync=True)
                except OSError as err:
                    raise BinlogStageError("sync", err) from err
                self._unsynced = 0
                synced = True
            return WrittenTransaction(self.active, begin, begin + len(data), data, synced, self.epoch)

    def follow(self, file: str, pos: int, sequence_number: int | None) -> bool:
        """Continue the binary log where another process of the same server left it: its last committed
        transaction ends at ``(file, pos)`` with ``sequence_number`` (None: unknown). A new ``file`` (the other
        process rotated) is opened for appending after re-reading the index; the caller holds the engine write
        lock (:mod:`gtidkit.engine.follow`). Returns whether another process had written (the position moved).

        Raises:
            OSError, BinlogDecodeError: ``file`` cannot be opened as a binlog file.
        """
        with self.lock:
            moved = file != self.active or self.writer is None
            if moved:
                if self.writer is not None:
                    self.writer.close(stop=False, in_use=True, fsync=False)  # the file is not ours to close
                    self.writer = None
                self.index = self._read_index()
                self.writer = BinlogWriter.open_append(self.path(file))
                self.active = file
                self.tracker.rotate()
                self._unsynced = 0
                self._closed = False
            assert self.writer is not None
            if self.writer.position != pos:
                self.writer.reposition(pos)
                moved = True
            if moved:
                self.tracker.follow(sequence_number)
        self.publish_to(file, pos)
        return moved

    @property
    def sync_interval(self) -> int:
        """Transactions between two fsyncs of the binlog file: ``sync_binlog`` when above 1, else
        :data:`~gtidkit.engine.binlog.commit_log.TRIM_INTERVAL`. A transaction is durable once its engine
        COMMIT is (its commit-log row restores it into the file, :mod:`gtidkit.engine.recovery`), so the file's
        fsync only bounds the commit log; ``sync_binlog=N`` keeps MySQL's every-N fsync."""
        return self.sync_binlog if self.sync_binlog > 1 else TRIM_INTERVAL

    def publish_to(self, file: str, pos: int, epoch: int | None = None) -> None:
        """Make the active file visible to readers up to ``pos`` (:meth:`end_position`, :meth:`wait_for_update`):
        called once the transactions before it are committed in the engine and durable. Committers finishing out
        of order cannot move the end backwards: an older or stale position is ignored.

        Args:
            file, pos: the end of the committed transaction (file base name, byte offset).
            epoch: the :attr:`WrittenTransaction.epoch` of a committing transaction: with a shared page it is
                published to every process, unless a RESET came after it was written. None (a catch-up that
                continues after another process's rows) updates this process's view only.
        """
        shared = self.shared
        if shared is not None:
            if epoch is not None and epoch == self.epoch:
                shared.publish(file_number(file), pos, epoch)
            self._refresh()
            return
        with self._update:
            end = self._end
            if file != self.active or (end is not None and end.file == file and end.pos >= pos):
                return
            self._end = LogPosition(file, pos)
            self._update.notify_all()

    # -- several processes -------------------------------------------------------------------------------
    def attach_shared(self, shared: BinlogEnd, *, publish: bool) -> None:
        """Read the log's end and index from the shared page from now on (a server of several processes).

        Args:
            shared: this process's :class:`~gtidkit.engine.shared.binlog_end.BinlogEnd`.
            publish: this process opened the log (the primary, after recovery): publish its end as the first.
        """
        self.shared = shared
        self.epoch = shared.epoch()
        if publish and self.writer is not None and self.active is not None:
            shared.set(file_number(self.active), self.writer.position)
        self._generation = -1
        self._refresh()

    def _refresh(self) -> None:
        """Bring the readers' view up to the shared page: re-read the index when it changed, take the published
        end (no-op without a shared page)."""
        shared = self.shared
        if shared is None:
            return
        end = shared.get()  # before the generation, which a new file bumps first (BinlogEnd.set)
        generation = shared.generation()
        if generation != self._generation:
            with self.lock:
                self._generation = generation
                self.index = self._read_index()
        if end is None:
            return
        position = LogPosition(file_name(end[0], self.basename.name), end[1])
        with self._update:
            if position != self._end:
                self._end = position
                self._update.notify_all()

    def reset_view(self, epoch: int) -> None:
        """Another process ran RESET MASTER / RESET BINARY LOGS AND GTIDS: forget the writer (its file is gone;
        :meth:`follow` opens the new one under the write lock) and re-read the index. Write lock held or not: the
        writer is only used under the write lock, which catches up (and calls this) before any write."""
        with self.lock:
            if self.writer is not None:
                self.writer.close(stop=False, in_use=True, fsync=False)  # the old inode: nothing to keep
                self.writer = None
            self.active = None
            self.epoch = epoch
            self.tracker.rotate()
            self._unsynced = 0
        with self._update:
            self._end = None
        self._generation = -1
        self._refresh()

    def status_position(self) -> LogPosition | None:
        """The File / Position of SHOW BINARY LOG STATUS: the writer's end in a one-process server; the published
        end of the log every process writes otherwise (None before any file)."""
        if self.shared is None:
            return self.position if self.writer is not None else self._end
        return self.end_position()

    # -- the dump seam -----------------------------------------------------------------------------------
    def _publish(self, *, closed: bool = False) -> None:
        """Record the flushed end of the active file and wake every reader (called after each flush)."""
        end = LogPosition(self.active, self.writer.position) if self.writer and self.active else self._end
        with self._update:
            self._end = end
            self._closed = closed
            self._update.notify_all()
        if closed and self.shared is not None:
            self.shared.wake()  # this process's dump threads sleep on the shared page, not on the condition

    def end_position(self) -> LogPosition | None:
        """(file, pos) just past the last transaction written, committed and durable (:meth:`publish`); None
        before any file.

        Bytes before it may be read from the file without any lock (MySQL ``get_binlog_end_pos``).
        """
        self._refresh()
        with self._update:
            return self._end

    def wait_for_update(
        self, file: str, pos: int, timeout: float | None, *, interrupted: Callable[[], bool] | None = None
    ) -> LogPosition | None:
        """Block until the log has grown past ``(file, pos)``, rotated away from ``file``, or was closed.

        A reader that has sent everything up to ``(file, pos)`` calls this instead of polling; the writer signals
        after each flush (MySQL's ``MYSQL_BIN_LOG::wait_for_update`` on ``update_cond``).

        Args:
            file: the file the reader is at.
            pos: the offset the reader has read up to in ``file``.
            timeout: seconds to wait at most (None = no limit); a dump thread uses its heartbeat period.
            interrupted: checked under the condition's lock at each wake-up; True ends the wait. Whoever makes it
                True calls :meth:`wake_readers` afterwards (MySQL's ``THD::awake`` signalling the condition a
                killed dump thread waits on), so the wake-up cannot be lost.

        Returns:
            The new end position, or None on timeout (nothing new: time for a heartbeat). After :meth:`close` /
            :meth:`abandon`, or once ``interrupted()`` is True, it returns the last end position at once (the caller
            tells these apart from progress by comparing it with ``(file, pos)``).
        """

        def moved() -> bool:
            end = self._end
            if self._closed or (end is not None and (end.file != file or end.pos > pos)):
                return True
            return interrupted is not None and interrupted()

        shared = self.shared
        if (
            shared is not None
        ):  # other processes commit too: sleep on the shared page (their publications wake it)

            def shared_moved() -> bool:
                self._refresh()
                with self._update:
                    return moved()

            if not shared.wait(shared_moved, timeout):
                return None
            with self._update:
                return self._end
        with self._update:
            if not self._update.wait_for(moved, timeout):
                return None
            return self._end

    def wake_readers(self) -> None:
        """Wake every reader blocked in :meth:`wait_for_update` so it re-checks its condition (a KILLed dump)."""
        with self._update:
            self._update.notify_all()
        if self.shared is not None:
            self.shared.wake()

    def locate(
        self, requested: GtidSet, *, gtid_purged: GtidSet, gtid_executed: GtidSet, server_uuid: UUID | str
    ) -> DumpStart:
        """Where a replica that has executed ``requested`` must start (COM_BINLOG_DUMP_GTID auto-positioning).

        MySQL's order (``Binlog_sender::init`` / ``check_start_file``): the replica must not have GTIDs of this
        server's UUID that this server never executed; it must have every purged GTID; then the start file is
        found by walking the index from the newest file backwards until one's Previous_gtids is a subset of
        ``requested`` (``find_first_log_not_in_gtid_set``).

        Args:
            requested: the replica's gtid_executed (the set sent in COM_BINLOG_DUMP_GTID).
            gtid_purged: this server's ``@@GLOBAL.gtid_purged``.
            gtid_executed: this server's ``@@GLOBAL.gtid_executed``.
            server_uuid: this server's UUID (``uuid.UUID`` or text), for the "replica has more" check.

        Returns:
            A :class:`DumpStart` (never raises for a set the replica cannot use; the caller words the 1236 error).
        """
        replica_has_more = requested.restrict(server_uuid) - gtid_executed
        purged_missing = gtid_purged - requested
        first = None
        self._refresh()
        with self.lock:
            names = list(self.index)
        for name in reversed(names):
            try:
                previous = read_previous_gtids(self.path(name)) or GtidSet()
            except (OSError, BinlogDecodeError):
                break  # purged or unreadable: nothing older can be used either
            if previous <= requested:
                first = name
                break
        return DumpStart(first, purged_missing, replica_has_more)

    def needs_rotation(self) -> bool:
        """True when the active file has grown past ``max_binlog_size``."""
        return self.writer is not None and self.writer.position >= self.max_binlog_size

    # -- purge and reset ---------------------------------------------------------------------------------
    def purge_to(self, name: str) -> list[str]:
        """Delete every file before ``name`` (PURGE BINARY LOGS TO). Returns the names removed.

        Raises:
            MySQLError: 1373 ER_UNKNOWN_TARGET_BINLOG when ``name`` is not in the index.
        """
        with self.lock:
            self._refresh()
            if name not in self.index:
                raise mysql_error(1373)
            cut = self.index.index(name)
            return self._remove(self.index[:cut])

    def purge_before(self, timestamp: float) -> list[str]:
        """Delete files last modified before ``timestamp`` (s), never the active one (PURGE ... BEFORE)."""
        with self.lock:
            self._refresh()
            victims: list[str] = []
            for name in self.index:
                if name == self.active:
                    break
                try:
                    mtime = self.path(name).stat().st_mtime
                except FileNotFoundError:
                    victims.append(name)
                    continue
                if mtime >= timestamp:
                    break
                victims.append(name)
            return self._remove(victims)

    def _remove(self, names: list[str]) -> list[str]:
        names = [n for n in names if n != self.active]
        if not names:
            return []
        self.index = [n for n in self.index if n not in names]
        self._write_index()  # index first: a crash leaves at worst an orphan file, never a dangling entry
        if self.shared is not None:
            self.shared.index_changed()  # the other processes re-read the index
            self._generation = self.shared.generation()
        for n in names:
            try:
                self.path(n).unlink()
            except FileNotFoundError:
                pass
        return names

    def delete_all(self) -> None:
        """Remove every file and the index (RESET MASTER); the caller opens a new first file afterwards."""
        with self.lock:
            if self.writer is not None:
                self.writer.close(stop=False, fsync=False)
                self.writer = None
            names, self.index = self.index, []
            self.active = None
            self._write_index()  # index first (as _remove): a crash leaves orphan files, never dangling entries
            for n in names:
                try:
                    self.path(n).unlink()
                except FileNotFoundError:
                    pass

    def sizes(self) -> list[tuple[str, int]]:
        """(name, size in bytes) per file in the index, for SHOW BINARY LOGS (the active file up to its published
        end when other processes write the log too)."""
        self._refresh()
        with self.lock:
            out = []
            shared_end = self._end if self.shared is not None else None
            for n in self.index:
                if shared_end is not None and n == shared_end.file:
                    out.append((n, shared_end.pos))
                elif shared_end is None and n == self.active and self.writer is not None:
                    out.append((n, self.writer.position))
                else:
                    try:
                        out.append((n, self.path(n).stat().st_size))
                    except FileNotFoundError:
                        continue
            return out


def read_index_file(index_path: Path) -> list[str]:
    """The file names an index lists (``binlog.index``, ``relay-bin.index``: one ``./<name>`` per line), without
    their directory; [] when the index does not exist."""
    if not index_path.exists():
        return []
    names = [os.path.basename(line.strip()) for line in index_path.read_text().splitlines()]
    return [n for n in names if n]


def write_index_file(index_path: Path, names: Sequence[str], prefix: str = "./") -> None:
    """Replace an index crash-safely, as mysqld does: write ``<index>_crash_safe`` (one ``<prefix><name>`` per
    line: ``./`` for files in the datadir, else their directory), fsync it, rename it over the index, fsync the
    directory.

    Raises:
        OSError: writing, syncing or renaming failed (the old index is intact).
    """
    tmp = index_path.with_name(index_path.name + "_crash_safe")
    with open(tmp, "w") as fh:
        fh.write("".join(f"{prefix}{n}\n" for n in names))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, index_path)
    _fsync_dir(index_path.parent)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(str(path), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
