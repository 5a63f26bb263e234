"""The binary log manager: binlog.NNNNNN files, binlog.index, rotation, purge, reset (WL#7592).

Source: MySQL ``sql/binlog.cc`` (``MYSQL_BIN_LOG::open_binlog``, ``new_file_impl``, ``purge_logs``,
``reset_logs``, ``ordered_commit``'s flush and sync stages, ``sync_binlog`` counting), RM8 "The Binary Log",
../shared/research/formats.md §1–3. Files are written through :class:`gtidkit.binlog.writer.BinlogWriter`.

Names follow MySQL 8.0: ``binlog.000001`` ... and ``binlog.index`` listing ``./binlog.000001`` one per line. The
logical clock (``last_committed`` / ``sequence_number``) restarts in each file (0/1 for the first transaction)
and comes from :class:`gtidkit.engine.binlog.dependency.DependencyTracker`: commits are serialised by the engine's write
lock, so COMMIT_ORDER gives ``sequence_number - 1``; WRITESET / WRITESET_SESSION (the default, as MySQL 8.4)
lower it to the last transaction that changed the same rows, forming commit groups a parallel applier can use.

Not thread-safe by itself: the server calls it under its engine write lock (all writers) and ``self.lock`` (for
readers such as SHOW BINARY LOG STATUS).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gtidkit.binlog.writer import BinlogWriter
from gtidkit.engine.binlog.dependency import NO_WRITESET, WRITESET, DependencyTracker, Writeset
from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.version import MYSQL_VERSION

BASENAME = "binlog"
INDEX_NAME = f"{BASENAME}.index"
FIRST_EVENT_POS = 4


def file_name(number: int) -> str:
    """``binlog.000001`` for 1 (six digits, as MySQL; more digits past 999999)."""
    return f"{BASENAME}.{number:06d}"


def file_number(name: str) -> int:
    """The number of ``binlog.000042`` (42)."""
    return int(name.rsplit(".", 1)[1])


@dataclass(frozen=True, slots=True)
class LogPosition:
    """A position in the binary log: file base name and byte offset (exclusive end of what it covers)."""

    file: str
    pos: int


class BinlogLog:
    """The set of binlog files of one datadir and the open (active) one.

    Args:
        datadir: directory holding the files and the index.
        server_id: header server_id of the events this server writes.
        server_version: FDE server version.
        checksum: ``binlog_checksum=CRC32`` (True) or NONE.
        max_binlog_size: rotate after a transaction that makes the file exceed this many bytes.
        sync_binlog: 0 = never fsync (the OS decides), 1 = fsync at every commit, N = every N commits.
    """

    def __init__(
        self,
        datadir: Path,
        *,
        server_id: int,
        server_version: str = MYSQL_VERSION,
        checksum: bool = True,
        max_binlog_size: int = 1 << 30,
        sync_binlog: int = 1,
    ) -> None:
        self.datadir = Path(datadir)
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

    @property
    def sequence_number(self) -> int:
        """sequence_number of the last transaction written to the active file (0 = none yet)."""
        return self.tracker.sequence_number

    # -- index -------------------------------------------------------------------------------------------
    @property
    def index_path(self) -> Path:
        """Path of ``binlog.index`` in the datadir (one binlog file name per line, as mysqld writes it)."""
        return self.datadir / INDEX_NAME

    def _read_index(self) -> list[str]:
        if not self.index_path.exists():
            return []
        names = []
        for line in self.index_path.read_text().splitlines():
            line = line.strip()
            if line:
                names.append(os.path.basename(line))
        return names

    def _write_index(self) -> None:
        tmp = self.index_path.with_suffix(".index_crash_safe")
        with open(tmp, "w") as fh:
            fh.write("".join(f"./{n}\n" for n in self.index))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.index_path)
        _fsync_dir(self.datadir)

    def path(self, name: str) -> Path:
        """Full path of binlog ``name``."""
        return self.datadir / name

    def existing_files(self) -> list[str]:
        """Names in the index whose file exists, oldest first."""
        return [n for n in self.index if self.path(n).exists()]

    # -- opening and closing -----------------------------------------------------------------------------
    def open_new(
        self, previous_gtids: GtidSet, *, at_startup: bool = False, number: int | None = None
    ) -> str:
        """Create the next file (FDE + Previous_gtids), add it to the index and make it active.

        Args:
            previous_gtids: ``gtid_executed`` at this moment (Previous_gtids body).
            at_startup: set the FDE ``create_timestamp`` (only the first file after start-up has it).
            number: file number to use (RESET MASTER TO n); default = last number + 1.

        Returns:
            The new file's base name.
        """
        with self.lock:
            if number is None:
                number = file_number(self.index[-1]) + 1 if self.index else 1
            name = file_name(number)
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
            return name

    def rotate(self, previous_gtids: GtidSet) -> tuple[str, str]:
        """Close the active file with a Rotate event and open the next one. Returns (closed, new) names."""
        with self.lock:
            assert self.writer is not None and self.active is not None
            closed = self.active
            next_name = file_name(file_number(closed) + 1)
            self.writer.rotate(next_name, fsync=True)
            self.writer = None
            new = self.open_new(previous_gtids)
            return closed, new

    def close(self) -> None:
        """Clean shutdown: Stop event, IN_USE flag cleared, fsync."""
        with self.lock:
            if self.writer is not None:
                self.writer.close(stop=True, fsync=True)
                self.writer = None

    def abandon(self) -> None:
        """Close the file handle without a Stop event (leaves IN_USE set, as a crash would)."""
        with self.lock:
            if self.writer is not None:
                self.writer.close(stop=False, in_use=True, fsync=False)
                self.writer = None

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
    ) -> tuple[str, int, int]:
        """Append one transaction, flush it to the OS and fsync per ``sync_binlog``.

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

        Returns:
            (file, begin, end) of the transaction; ``end`` is the position the engine records as applied.
        """
        with self.lock:
            assert self.writer is not None and self.active is not None
            last_committed, sequence_number = self.tracker.assign(
                writeset, mode=dependency_tracking, history_size=history_size, session_id=session_id
            )
            begin, end = self.writer.write_transaction(
                gtid,
                list(events),
                last_committed=last_committed,
                sequence_number=sequence_number,
                immediate_commit_timestamp=immediate_commit_timestamp,
                original_commit_timestamp=original_commit_timestamp,
                server_id=server_id,
                timestamp=timestamp,
                original_server_version=original_server_version,
            )
            self._unsynced += 1
            fsync = self.sync_binlog > 0 and self._unsynced >= self.sync_binlog
            self.writer.flush(fsync=fsync)
            if fsync:
                self._unsynced = 0
            return self.active, begin, end

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
            if name not in self.index:
                raise MySQLError(1373, "Target log not found in binlog index")
            cut = self.index.index(name)
            return self._remove(self.index[:cut])

    def purge_before(self, timestamp: float) -> list[str]:
        """Delete files last modified before ``timestamp`` (s), never the active one (PURGE ... BEFORE)."""
        with self.lock:
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
            for n in self.index:
                try:
                    self.path(n).unlink()
                except FileNotFoundError:
                    pass
            self.index = []
            self.active = None
            self._write_index()

    def sizes(self) -> list[tuple[str, int]]:
        """(name, size in bytes) per file in the index, for SHOW BINARY LOGS."""
        with self.lock:
            out = []
            for n in self.index:
                if n == self.active and self.writer is not None:
                    out.append((n, self.writer.position))
                else:
                    try:
                        out.append((n, self.path(n).stat().st_size))
                    except FileNotFoundError:
                        continue
            return out


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(str(path), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
