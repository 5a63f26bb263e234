"""The shared page ``gtidkit.shm``: one datadir file every process of a multi-worker server maps (issue 21, §5.2).

What SQLite's ``-shm`` file is to its WAL, this page is to the server: state that every worker must see at once and
that is cheap to rebuild, so it is **rebuilt at start-up and never trusted after a crash** (:meth:`SharedPage.create`
writes a fresh file and renames it into place: a process still mapping the old one keeps its own, dead inode).

Layout (native byte order: the page never leaves the machine that built it), each region 64-byte aligned:

====================  ==========================================================================================
region                content
====================  ==========================================================================================
header                magic ``GTIDKSHM`` | version u32 | page size u32 | 16-byte instance token (random per
                      build; names the workers' control sockets) | builder pid u64 | built at f64 | the slot
                      counts of the tables below (owners, waiters, workers, sids), u32 each
counters              :data:`COUNTERS`, one aligned 8-byte word each
write-lock owner      pid, worker id, connection id, since (f64): written by the write lock's holder
sid map               ``sid index`` -> 16-byte server UUID + tag (MySQL's ``Sid_map``; index 0 = none)
GTID owners           (gno, sid index, worker id, connection id, since) per owned GTID (:mod:`.owners`)
waiters               who blocks on what, and the datagram address that wakes it (:mod:`.waiters`)
workers               per-worker liveness: pid, incarnation, started at; prepared statements, saved transactions
                      (:mod:`.workers`)
write-lock holds      the last holds' commit-log rows, a ring written by the write lock's holder (:mod:`.holds`)
====================  ==========================================================================================

Concurrency rules:

* A counter is one naturally aligned 8-byte word: x86-64 and AArch64 load and store it in one access, so a reader
  never sees half of an update (``tests/engine/shared`` checks it across processes). Each counter has **one
  writer** (``committed``: the write lock's holder; ``synced``: the group-sync leader; ``flushed`` and
  ``binlog_synced``: the flusher), or is written only under the page lock; reads take no lock (~0.1 µs).
* Every multi-word update (a table row, a counter with several writers) is made under the page lock: an ``flock``
  on ``gtidkit.shm.lock`` (released by the kernel when its holder dies, so a SIGKILLed process never wedges it)
  plus a ``threading.Lock``, because an ``flock`` belongs to an open file and would not exclude two threads of one
  process sharing it.

Only the standard library and :mod:`gtidkit.errors` / :mod:`gtidkit.mysql_errors` are used: this package sits below
the engine's server and sessions, which will build on it.
"""

from __future__ import annotations

import fcntl
import mmap
import os
import secrets
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

from gtidkit.errors import GtidkitError
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "COUNTERS",
    "PAGE_FILE",
    "PAGE_LOCK_FILE",
    "VERSION",
    "Counter",
    "Layout",
    "PageLock",
    "SharedPage",
    "SharedPageError",
]

#: the page's file name in the datadir, and its lock's
PAGE_FILE = "gtidkit.shm"
PAGE_LOCK_FILE = "gtidkit.shm.lock"
MAGIC = b"GTIDKSHM"
#: layout version: a page of another version is refused (rebuilt by the next start-up)
VERSION = 5

#: the named counters, in page order. One writer each, or written under the page lock only (``*_waiters``).
COUNTERS: tuple[str, ...] = (
    "committed",  # seq of the last transaction committed to SQLite (the write lock's holder)
    "synced",  # seq up to which the WAL is fsynced (the group-sync leader)
    "flushed",  # seq up to which the binlog file is written (the flusher)
    "binlog_synced",  # seq up to which the binlog file is fsynced (the flusher)
    "config_generation",  # bumped by SET GLOBAL, account changes, FLUSH PRIVILEGES (each worker reloads)
    "reset_epoch",  # bumped by RESET MASTER / RESET BINARY LOGS AND GTIDS (workers rebuild gtid_executed)
    "write_lock_waiters",  # registered write-lock waiters: the releasing holder wakes them only when > 0
    "gtid_waiters",  # registered GTID-ownership waiters
    "owners_high",  # 1 + the highest GTID-owner slot in use: scans stop there (page lock)
    "waiters_high",  # 1 + the highest waiter slot in use (page lock)
    "connections",  # SHOW STATUS Connections: connection attempts, refused ones included (the supervisor)
    "threads_connected",  # SHOW STATUS Threads_connected: client connections open now (the supervisor)
    "max_used_connections",  # SHOW STATUS Max_used_connections: the most open at once (the supervisor)
    "binlog_end",  # the binary log's published end: file number << 32 | offset (page lock; engine/shared/binlog_end.py)
    "binlog_generation",  # bumped when the binlog index changes: rotation, PURGE, expiry, RESET (write lock holder)
    "binlog_waiters",  # registered binlog readers (dump threads) waiting for the end to move
    "executed_waiters",  # registered WAIT_FOR_EXECUTED_GTID_SET waiters: committers wake them only when > 0
    "catalog_generation",  # bumped by the write lock's holder when its transaction changed the catalog (DDL)
    # the workers' saved transactions (engine/shared/workers.py saved_total) when the compressor was last asked
    # for a pass by the period (page lock)
    "gtid_saved_base",
    "file_waiters",  # sessions waiting for a schema file's write lock (engine/shared/file_waits.py; page lock)
    "file_holders",  # schema-file write locks held (the deadlock detector's graph; page lock)
    "row_waiters",  # sessions waiting for a row or table lock (engine/shared/row_locks.py; page lock)
    "row_holders",  # row and table locks held (gtidkit_row_locks; page lock)
    # bumped by each write-lock holder as it takes the lock, before it writes anything (engine/shared/holds.py)
    "write_lock_holds",
)

_HEADER = struct.Struct("=8sII16sQdIIII")  # magic, version, page size, token, pid, built at, 4 slot counts
_F64 = struct.Struct("@d")
_SID = struct.Struct("=16sB32s")  # server UUID, tag length, tag (MySQL tags have at most 32 characters)
_SID_SLOT = 64
_OWNER_SLOT = 32
_WAITER_SLOT = 64
#: bytes of one worker slot (engine/shared/workers.py: pid, incarnation, started at, prepared, saved, spare)
WORKER_SLOT = 64
#: bytes of one slot of the write-lock holds' ring (engine/shared/holds.py: nine 8-byte words)
HOLD_SLOT = 72
_WRITE_OWNER = struct.Struct("@QQQd")  # pid, worker id, connection id, since
_WRITE_OWNER_TAIL = struct.Struct("@QQd")  # the same without the pid word
_ALIGN = 64


def _align(n: int, to: int = _ALIGN) -> int:
    return (n + to - 1) // to * to


class SharedPageError(GtidkitError):
    """The shared page is missing, of another layout version, or damaged (it is rebuilt by the next start-up).

    Args:
        message: what is wrong, naming the file.
    """


@dataclass(frozen=True, slots=True)
class Layout:
    """Byte offsets of the page's regions for a given table size (the header records the sizes).

    Args:
        owners: GTID-owner slots (one per session that may own a GTID: max_connections plus the applier's).
        waiters: waiter slots (one per session that may block on the write lock or on a GTID).
        workers: liveness slots (worker ids 0 .. workers - 1; 0 is the supervisor).
        sids: sid-map entries (distinct (UUID, tag) pairs owned at the same time).
    """

    owners: int = 1024
    waiters: int = 1024
    workers: int = 64
    sids: int = 256
    #: the ring of the last write-lock holds' commit-log rows (engine/shared/holds.py): slots
    holds: int = 16
    #: region offsets, computed from the sizes (plain attributes: read on every table access)
    counters: int = field(init=False, repr=False, compare=False)
    write_owner: int = field(init=False, repr=False, compare=False)
    sid_map: int = field(init=False, repr=False, compare=False)
    owner_table: int = field(init=False, repr=False, compare=False)
    waiter_table: int = field(init=False, repr=False, compare=False)
    worker_table: int = field(init=False, repr=False, compare=False)
    hold_ring: int = field(init=False, repr=False, compare=False)
    #: the page's size in bytes (whole 4 KiB pages)
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("owners", "waiters", "workers", "sids"):
            value = getattr(self, name)
            if not 1 <= value <= 1 << 20:
                raise ValueError(f"shared page: {name}={value} is outside 1..{1 << 20}")
        offsets = {"counters": _align(_HEADER.size)}
        offsets["write_owner"] = _align(offsets["counters"] + 8 * len(COUNTERS))
        offsets["sid_map"] = _align(offsets["write_owner"] + _WRITE_OWNER.size)
        offsets["owner_table"] = _align(offsets["sid_map"] + _SID_SLOT * self.sids)
        offsets["waiter_table"] = _align(offsets["owner_table"] + _OWNER_SLOT * self.owners)
        offsets["worker_table"] = _align(offsets["waiter_table"] + _WAITER_SLOT * self.waiters)
        offsets["hold_ring"] = _align(offsets["worker_table"] + WORKER_SLOT * self.workers)
        offsets["size"] = _align(offsets["hold_ring"] + HOLD_SLOT * self.holds, mmap.PAGESIZE)
        for name, value in offsets.items():
            object.__setattr__(self, name, value)


class Counter:
    """One named 8-byte counter of the page: lock-free :meth:`get`, single-writer :meth:`set` / :meth:`add`.

    Reads and writes go through a ``memoryview`` cast to ``Q``: CPython copies such an item with one 8-byte
    ``memcpy``, a single load or store. ``struct.pack_into`` would not do: it zero-fills the destination before
    writing the value, so a reader in another process can see 0 in between (the cross-process test caught it).
    """

    __slots__ = ("_index", "_words", "name")

    def __init__(self, words: memoryview, offset: int, name: str) -> None:
        self._words = words
        self._index = offset // 8
        self.name = name

    @property
    def words(self) -> memoryview:
        """The page's 8-byte words: ``words[index]`` is :meth:`get` inline, one subscript instead of a method call
        for the checks every command makes (Follower.stale, SharedConfig.stale)."""
        return self._words

    @property
    def index(self) -> int:
        """This counter's index in :attr:`words`."""
        return self._index

    def get(self) -> int:
        """The current value (one aligned 8-byte load; no lock). A ``Q`` item is already an ``int``: no
        conversion (a per-command read on every worker's path, lane h-xproc)."""
        return self._words[self._index]

    def set(self, value: int) -> None:
        """Publish ``value`` (one aligned 8-byte store). Only the counter's one writer may call it.

        Raises:
            ValueError: ``value`` is outside 0 .. 2**64 - 1 (a bug of the caller).
        """
        self._words[self._index] = value

    def add(self, delta: int = 1) -> int:
        """Add ``delta`` and return the new value. One writer only, or under :meth:`SharedPage.locked`."""
        value = self._words[self._index] + delta
        self._words[self._index] = value
        return value


class PageLock:
    """The page lock: a ``threading.Lock`` (threads of this process) plus an ``flock`` on ``gtidkit.shm.lock``
    (other processes; the kernel drops it when its holder dies). A plain class, not a generator-based context
    manager: entering it costs a fraction of a microsecond more than the two locks themselves."""

    __slots__ = ("_thread_lock", "fd")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._thread_lock = threading.Lock()

    def __enter__(self) -> None:
        self._thread_lock.acquire()
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except BaseException:
            self._thread_lock.release()
            raise

    def __exit__(self, *exc: object) -> None:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            self._thread_lock.release()


class SharedPage:
    """The mapped page of one datadir: counters, the sid map, and the raw bytes the table modules read and write.

    Open with :meth:`create` (the supervisor at start-up: a fresh page) or :meth:`attach` (a worker, a tool).
    """

    def __init__(
        self, path: Path, buf: mmap.mmap, lock_fd: int, layout: Layout, token: bytes, built_at: float = 0.0
    ) -> None:
        self.path = path
        #: when the page was built (seconds since the epoch): the server's start for the workers that attach it
        self.built_at = built_at
        self.buf = buf
        self.layout = layout
        #: random per build: names the control sockets, so a restarted server never reaches an orphan's
        self.token = token
        self._lock_fd = lock_fd
        self._page_lock = PageLock(lock_fd)
        self._bytes = memoryview(buf)
        #: the page as aligned 8-byte words (single loads and stores: see :class:`Counter`)
        self.words = self._bytes.cast("Q")
        self._counters = {
            name: Counter(self.words, layout.counters + 8 * i, name) for i, name in enumerate(COUNTERS)
        }
        self._sid_cache: dict[tuple[bytes, str], int] = {}
        self._sid_by_index: dict[int, tuple[UUID, str]] = {}

    # -- opening --------------------------------------------------------------------------------------------
    @classmethod
    def create(cls, datadir: str | os.PathLike[str], layout: Layout | None = None) -> SharedPage:
        """Build a fresh page in ``datadir`` (start-up: whatever an earlier run left is discarded).

        The new file is written beside the old one and renamed over it, so the rebuild is atomic for processes
        that attach afterwards.

        Args:
            datadir: the data directory.
            layout: the tables' sizes (default :class:`Layout`'s).

        Raises:
            SharedPageError: the file cannot be written.
        """
        layout = layout or Layout()
        directory = Path(datadir)
        path = directory / PAGE_FILE
        tmp = directory / f"{PAGE_FILE}.{os.getpid()}.tmp"
        token = secrets.token_bytes(16)
        header = _HEADER.pack(
            MAGIC, VERSION, layout.size, token, os.getpid(), time.time(),
            layout.owners, layout.waiters, layout.workers, layout.sids,
        )  # fmt: skip
        try:
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.ftruncate(fd, layout.size)
                os.pwrite(fd, header, 0)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except OSError as err:
            raise SharedPageError(f"cannot build the shared page {path}: {err.strerror}") from err
        return cls.attach(datadir)

    @classmethod
    def attach(cls, datadir: str | os.PathLike[str]) -> SharedPage:
        """Map the page that the running server built in ``datadir``.

        Raises:
            SharedPageError: no page, a page of another version, or a page whose size disagrees with its header.
        """
        path = Path(datadir) / PAGE_FILE
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError as err:
            raise SharedPageError(f"cannot open the shared page {path}: {err.strerror}") from err
        try:
            size = os.fstat(fd).st_size
            if size < _HEADER.size:
                raise SharedPageError(f"the shared page {path} is {size} bytes: too short for its header")
            magic, version, page_size, token, _pid, built_at, owners, waiters, workers, sids = _HEADER.unpack(
                os.pread(fd, _HEADER.size, 0)
            )
            if magic != MAGIC:
                raise SharedPageError(f"{path} is not a gtidkit shared page (magic {magic!r})")
            if version != VERSION:
                raise SharedPageError(
                    f"the shared page {path} has layout version {version}, this gtidkit reads {VERSION}"
                )
            try:
                layout = Layout(owners=owners, waiters=waiters, workers=workers, sids=sids)
            except ValueError as err:
                raise SharedPageError(f"the shared page {path} is damaged: {err}") from err
            if page_size != layout.size or size != layout.size:
                raise SharedPageError(
                    f"the shared page {path} is {size} bytes, its header says {page_size}, its tables need "
                    f"{layout.size}"
                )
            buf = mmap.mmap(fd, layout.size)
        finally:
            os.close(fd)
        lock_path = path.with_name(PAGE_LOCK_FILE)
        try:
            lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as err:
            buf.close()
            raise SharedPageError(f"cannot open the page lock {lock_path}: {err.strerror}") from err
        return cls(path, buf, lock_fd, layout, token, built_at)

    def close(self) -> None:
        """Unmap the page and close its lock file (the file stays for the other processes)."""
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1
            self._page_lock.fd = -1
            self.words.release()
            self._bytes.release()
            self.buf.close()

    # -- counters ---------------------------------------------------------------------------------------------
    def counter(self, name: str) -> Counter:
        """The counter called ``name`` (one of :data:`COUNTERS`).

        Raises:
            KeyError: no such counter.
        """
        return self._counters[name]

    def counters(self) -> dict[str, int]:
        """Every counter's value (each read lock-free; not one instant across counters)."""
        return {name: c.get() for name, c in self._counters.items()}

    # -- the page lock ----------------------------------------------------------------------------------------
    def locked(self) -> PageLock:
        """The page lock, for ``with page.locked():`` (threads of this process and other processes): every
        multi-word update."""
        return self._page_lock

    # -- raw words (for the table modules) -----------------------------------------------------------------------
    def word(self, offset: int) -> int:
        """The aligned 8-byte word at ``offset`` (lock-free read)."""
        return self.words[offset // 8]

    def set_word(self, offset: int, value: int) -> None:
        """Store the aligned 8-byte word at ``offset`` (its one writer, or under :meth:`locked`)."""
        self.words[offset // 8] = value

    # -- the write lock's owner record ---------------------------------------------------------------------------
    def write_owner(self) -> tuple[int, int, int, float]:
        """``(pid, worker id, connection id, since)`` of the write lock's holder; pid 0 = none recorded."""
        pid, worker, conn, since = _WRITE_OWNER.unpack_from(self.buf, self.layout.write_owner)
        return int(pid), int(worker), int(conn), float(since)

    def write_owner_pid(self) -> int:
        """The write lock holder's pid (one lock-free word; 0 = none recorded)."""
        return self.word(self.layout.write_owner)

    def set_write_owner(self, pid: int, worker_id: int, connection_id: int, since: float) -> None:
        """Record (or, with pid 0, clear) the write lock's holder. Caller holds the page lock.

        The pid word, which waiters read without the lock, changes with one store (never through a zero-fill).
        """
        base = self.layout.write_owner
        if not pid:
            self.words[base // 8] = 0
        _WRITE_OWNER_TAIL.pack_into(self.buf, base + 8, worker_id, connection_id, since)
        if pid:
            self.words[base // 8] = pid

    # -- the sid map -----------------------------------------------------------------------------------------------
    def sid_index(self, sid: UUID, tag: str = "") -> int:
        """The page's index (>= 1) of ``(sid, tag)``, adding it on first use (MySQL's ``Sid_map::add_sid``).

        Entries are never removed while the page lives, so an index stays valid in every process.

        Raises:
            MySQLError: 1041 ER_OUT_OF_RESOURCES when the map is full.
            ValueError: ``tag`` is longer than 32 characters (MySQL's limit; the caller validated it).
        """
        key = (sid.bytes, tag)
        index = self._sid_cache.get(key)
        if index is not None:
            return index
        raw_tag = tag.encode("ascii")
        if len(raw_tag) > 32:
            raise ValueError(f"GTID tag {tag!r} is longer than 32 characters")
        with self.locked():
            base = self.layout.sid_map
            for i in range(self.layout.sids):
                raw_sid, length, stored_tag = _SID.unpack_from(self.buf, base + i * _SID_SLOT)
                if length == 0 and raw_sid == bytes(16):
                    # free: the first free entry ends the used ones (entries are appended, never removed)
                    _SID.pack_into(self.buf, base + i * _SID_SLOT, sid.bytes, len(raw_tag) + 1, raw_tag)
                    index = i + 1
                    break
                if raw_sid == sid.bytes and stored_tag[: length - 1] == raw_tag:
                    index = i + 1
                    break
            else:
                raise mysql_error(1041)
        self._sid_cache[key] = index
        return index

    def sid_of(self, index: int) -> tuple[UUID, str]:
        """``(sid, tag)`` of a sid index returned by :meth:`sid_index` (in any process).

        Raises:
            KeyError: ``index`` is not in use.
        """
        found = self._sid_by_index.get(index)
        if found is not None:
            return found
        if not 1 <= index <= self.layout.sids:
            raise KeyError(index)
        raw_sid, length, stored_tag = _SID.unpack_from(
            self.buf, self.layout.sid_map + (index - 1) * _SID_SLOT
        )
        if length == 0:
            raise KeyError(index)
        found = (UUID(bytes=raw_sid), stored_tag[: length - 1].decode("ascii"))
        self._sid_by_index[index] = found
        return found
