"""One process per datadir: an exclusive OS lock taken when the engine database opens, released when it closes.

Sources: InnoDB's ``os_file_lock`` (``storage/innobase/os/os0file.cc``): mysqld locks ``ibdata1`` with
``fcntl(F_SETLK)`` at start-up and, when another process holds it, logs ``[ERROR] [MY-012574] [InnoDB] Unable to
lock ./ibdata1 error: 11`` and ``Check that you do not already have another mysqld process using the same InnoDB
data or log files``, then refuses to start. Without such a lock two gtidkit processes on one datadir would each
compute the same next GTID and hand it to different transactions (the datadir then refuses to start with 1062).

We lock ``<database file>.lock`` (``gtidkit.sqlite.lock`` in a datadir) with ``flock(LOCK_EX | LOCK_NB)``:

* the kernel drops the lock when its holder dies, SIGKILL included, so a stale lock file never blocks a restart
  (a pid file alone cannot tell a live holder from a dead one);
* ``flock`` locks belong to the open file description, not to the process, so a second open of the same datadir
  inside one process is refused too (POSIX ``fcntl`` locks would silently succeed there), and SQLite's own
  ``fcntl`` locks on the database file are untouched;
* the descriptor is not inherited across ``exec`` (Python opens files non-inheritable), so a child program does
  not keep the datadir locked after the server exits;
* a supervised server (``gtidkit server --supervised``, cli/supervisor.py) takes the lock in the supervisor and
  hands the descriptor on to its worker processes on purpose (``pass_fds``, SCM_RIGHTS): they share the one open
  file description, so the lock stays held while any of them lives (no second server starts beside an orphaned
  worker), and the engine of a worker adopts it (:meth:`DatadirLock.adopt`) instead of taking a new one.

The holder writes its pid into the file once it holds the lock, so the refusal can name it.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import DATADIR_IN_USE, mysql_error

__all__ = ["DatadirInUseError", "DatadirLock"]

LOCK_SUFFIX = ".lock"


class DatadirInUseError(MySQLError):
    """The datadir is locked by another live process (or another open in this process).

    ``code`` is 1015 (ER_CANT_LOCK), as mysqld's start-up failure on a locked ``ibdata1``; the message names the
    datadir and the holder's pid (``None`` when the holder has not written it yet).

    Args:
        datadir: the data directory.
        lock_path: the lock file.
        holder_pid: the pid recorded by the holder, or None.
        os_errno: the errno of the failed ``flock`` (EAGAIN/EWOULDBLOCK = 11 on Linux).
    """

    def __init__(self, datadir: Path, lock_path: Path, holder_pid: int | None, os_errno: int) -> None:
        if holder_pid is None:
            holder = "another process (pid not recorded yet)"
        elif holder_pid == os.getpid():
            holder = f"this process (pid {holder_pid}, an earlier open not yet closed)"
        else:
            holder = f"process {holder_pid}"
        super().__init__(
            1015, DATADIR_IN_USE % (lock_path, os_errno, os.strerror(os_errno), datadir, holder), "HY000"
        )
        self.datadir = datadir
        self.lock_path = lock_path
        self.holder_pid = holder_pid


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class DatadirLock:
    """An exclusive ``flock`` on ``<database file>.lock``, held until :meth:`release`. Use :meth:`acquire`.

    Attributes:
        path: the lock file.
    """

    def __init__(self, path: Path, fd: int, *, adopted: bool = False) -> None:
        self.path = path
        self._fd: int | None = fd
        self._adopted = adopted

    @classmethod
    def acquire(cls, database: Path) -> DatadirLock:
        """Lock the datadir of ``database`` (the SQLite file path) without waiting, and record our pid.

        Args:
            database: the engine database file (``<datadir>/gtidkit.sqlite``); the lock file sits next to it.

        Returns:
            The held lock.

        Raises:
            DatadirInUseError: another process (or another open in this one) holds the lock.
            MySQLError: 1015 ER_CANT_LOCK when the lock file cannot be created or locked for another reason
                (permissions, a file system without locks).
        """
        path = database.with_name(database.name + LOCK_SUFFIX)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as err:
            raise mysql_error(1015, err.errno, f"{err.strerror}: {path}") from err
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            holder = _read_pid(fd)
            os.close(fd)
            if err.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                raise DatadirInUseError(database.parent, path, holder, err.errno) from err
            raise mysql_error(1015, err.errno, f"{err.strerror}: {path}") from err
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        except OSError:
            pass  # the pid is informational; the lock is what protects the datadir
        return cls(path, fd)

    @classmethod
    def adopt(cls, database: Path, fd: int) -> DatadirLock:
        """Take over the lock a supervisor holds and handed to this process as the open descriptor ``fd``.

        ``flock`` belongs to the open file description, so locking ``fd`` again succeeds exactly when that
        description is the holder (or nobody holds the lock). :meth:`release` then only closes this process's
        descriptor: unlocking would unlock the supervisor's (shared) description too.

        Args:
            database: the engine database file (``<datadir>/gtidkit.sqlite``).
            fd: an open descriptor of ``<database>.lock`` inherited from the supervisor.

        Returns:
            The held lock.

        Raises:
            DatadirInUseError: ``fd`` is not the holder's description (another process holds the lock).
            MySQLError: 1015 ER_CANT_LOCK when ``fd`` is not a lockable descriptor.
        """
        path = database.with_name(database.name + LOCK_SUFFIX)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            if err.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                raise DatadirInUseError(database.parent, path, _read_pid(fd), err.errno) from err
            raise mysql_error(1015, err.errno, f"{err.strerror}: {path}") from err
        return cls(path, fd, adopted=True)

    def fileno(self) -> int:
        """The lock file's open descriptor (a supervisor hands it to its workers).

        Raises:
            ValueError: the lock was released.
        """
        if self._fd is None:
            raise ValueError("the datadir lock was released")
        return self._fd

    @property
    def held(self) -> bool:
        """Whether this object still holds the lock."""
        return self._fd is not None

    def release(self) -> None:
        """Unlock and close (idempotent). The file stays: a later holder overwrites the pid. An adopted lock is
        only closed here: the supervisor's description keeps the datadir locked until its last holder exits."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if self._adopted:
            os.close(fd)
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
