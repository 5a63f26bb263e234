"""``gtidkit binlog show`` reading from a server: mysqlbinlog's ``--read-from-remote-server`` /
``--read-from-remote-source``, ``--raw`` and ``--stop-never``.

MySQL sources: RM8.4 "mysqlbinlog" and "Using mysqlbinlog to Back Up Binary Log Files", ``client/mysqlbinlog.cc``
(``dump_remote_log_entries``: the client sets ``@master_binlog_checksum`` / ``@source_binlog_checksum`` before
asking, sends COM_BINLOG_DUMP (file, position) or COM_BINLOG_DUMP_GTID (with ``--exclude-gtids`` as the GTID set),
non-blocking unless ``--stop-never``; ``--raw`` writes each event unchanged into a file named as on the source,
prefixed by ``--result-file``; artificial events (the fake Rotate before each file, a Format_description re-sent
with log_pos 0 when the dump starts inside a file) and heartbeats are not written).

The dump request and the stream are the replication package's (:class:`gtidkit.replication.dump.DumpRequest`,
the same packets its sender serves and its receiver reads). What this module adds, beyond mysqlbinlog:

* ``--stop-never`` survives the source going away: it reconnects (every ``RECONNECT_DELAY`` seconds) and resumes
  from what is saved, never asking twice for a transaction: the last file is cut back to the end of its last
  complete transaction, and the new request asks for that file from its saved size, with the GTID protocol also
  excluding ``--exclude-gtids`` ∪ the first saved file's Previous_gtids ∪ every GTID saved (the source skips
  those; when the file was purged meanwhile, the request names no file and the source starts at the first file
  holding a GTID the copy lacks). An event already saved (it starts before the end of the copy) is not written again, so the
  copy stays byte-identical to the source's file;
* the source's heartbeat (``@source_heartbeat_period``) keeps an idle connection alive, and silence for three
  periods counts as a lost source;
* a run started again on the same ``--result-file`` resumes the same way (``--raw`` only);
* ``--result-file`` may be an object-store URI (``s3://bucket/dir/``, any scheme of
  :mod:`gtidkit.pipeline.storage`, options from ``--fs-option``): the copy is staged in a local directory and each
  file is uploaded whole when it ends, when the run ends, and with ``--stop-never`` every ``UPLOAD_INTERVAL``
  seconds while it grows (a file on the store is always a prefix of the source's file cut at an event boundary); a
  run started again downloads what the store holds and resumes from it.

Without ``--raw`` the events are copied into a temporary directory and printed from there as local files; with
``--stop-never`` each event is printed as it arrives (:class:`gtidkit.cli.binlog_script.LiveScript`), and a file
that ended is removed from the temporary directory once its GTIDs are noted (disk use stays one binlog file).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import struct
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gtidkit.binlog.constants import EventType
from gtidkit.binlog.file import read_transactions
from gtidkit.gtid import GtidSet
from gtidkit.pipeline.storage import StorageError, is_remote
from gtidkit.replication.dump import (
    BINLOG_DUMP_NON_BLOCK,
    COM_BINLOG_DUMP,
    COM_BINLOG_DUMP_GTID,
    LOG_EVENT_ARTIFICIAL_F,
    DumpRequest,
)
from gtidkit.replication.receiver import RemoteDumpError, dump_events

if TYPE_CHECKING:
    from typing import Self

__all__ = [
    "PROTOCOLS",
    "UPLOAD_INTERVAL",
    "FollowStopped",
    "RawCopy",
    "RemoteSource",
    "StoreCopy",
    "copy_remote",
    "open_store_output",
    "remote_options",
    "remote_requested",
    "run_remote",
]

#: ``--read-from-remote-source`` values (mysqlbinlog 8.4) -> dump command.
PROTOCOLS = {"BINLOG-DUMP-NON-GTIDS": COM_BINLOG_DUMP, "BINLOG-DUMP-GTIDS": COM_BINLOG_DUMP_GTID}
BINLOG_MAGIC = b"\xfebin"
#: seconds between reconnection attempts with --stop-never
RECONNECT_DELAY = 1.0
#: heartbeat period asked of the source (seconds); three silent periods = the source is gone
HEARTBEAT_PERIOD = 2.0
#: seconds between uploads of a growing file to an object store (--raw --stop-never)
UPLOAD_INTERVAL = 5.0
_HEADER = struct.Struct("<IBIIIH")  # timestamp, type, server_id, event_size, log_pos, flags
#: a binlog file name: base name, a dot, the sequence number (binlog.000001)
_BINLOG_NAME = re.compile(r"^[^/]+\.[0-9]{6,}$")


@dataclass(frozen=True, slots=True)
class RemoteSource:
    """How to reach the source: the mysql client's connection options.

    Attributes:
        host, port, user, password, socket: as ``mysql`` takes them (``socket`` wins over host/port when set).
        server_id: the server_id this client presents (``--connection-server-id``); 0 makes MySQL's sender
            non-blocking, so a blocking dump uses 1 when none is given, as mysqlbinlog does for ``--stop-never``.
    """

    host: str = "127.0.0.1"
    port: int = 3306
    user: str = "root"
    password: str = ""
    socket: str | None = None
    server_id: int = 1

    def connect(self, heartbeat: float) -> Any:
        """Open a client connection ready for a dump: checksum declared, heartbeat period set.

        Args:
            heartbeat: seconds between the source's heartbeats while idle (the read timeout is three of them).

        Raises:
            pymysql.err.MySQLError / OSError: the connection failed.
        """
        import pymysql

        conn = pymysql.connections.Connection(
            host=self.host,
            port=self.port,
            user=self.user,
            password=self.password,
            unix_socket=self.socket,
            connect_timeout=10,
            read_timeout=max(3 * heartbeat, 5.0),
            autocommit=True,
            charset="utf8mb4",
        )
        with conn.cursor() as cur:
            period_ns = round(heartbeat * 1e9)
            cur.execute(f"SET @master_heartbeat_period = {period_ns}, @source_heartbeat_period = {period_ns}")
            cur.execute(
                "SET @master_binlog_checksum = @@global.binlog_checksum, "
                "@source_binlog_checksum = @@global.binlog_checksum"
            )
        return conn


# ------------------------------------------------------------------------------------------------ the raw copy
@dataclass
class RawCopy:
    """Byte-identical copies of the source's binlog files, named as on the source under ``prefix``
    (mysqlbinlog's ``--result-file`` for ``--raw``: a directory ends with ``/``, or a name prefix).

    Attributes:
        prefix: prepended to each source file name.
        files: the source names written so far, in order.
        gaps: events written past the end of the copy (transactions the request excluded): the copy is then not
            identical to the source's file.
        on_saved: called with ``(file name, offset, event bytes)`` for each event written to the copy (the live
            listing of ``--stop-never`` without ``--raw``).
        discard_done: remove a file once the next one starts (its GTIDs are kept for :meth:`resume_point`).
    """

    prefix: str
    files: list[str] = field(default_factory=list)
    gaps: int = 0
    on_saved: Callable[[str, int, bytes], None] | None = None
    discard_done: bool = False
    _out: Any = None
    _name: str = ""
    _size: int = 0
    _rotated: bool = False
    _discarded: dict[str, GtidSet] = field(default_factory=dict)

    def path(self, name: str) -> Path:
        """Where the copy of source file ``name`` goes."""
        return Path(self.prefix + name)

    def close(self) -> None:
        """Close the open file."""
        if self._out is not None:
            self._out.close()
            self._out = None

    def _open(self, name: str) -> None:
        self.close()
        if self.discard_done:
            for old in self.files:
                if old != name and old not in self._discarded:
                    self._discard(old)
        p = self.path(name)
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.exists() and p.stat().st_size >= len(BINLOG_MAGIC) and name in self.files:
            self._out = p.open("r+b")
            self._out.seek(0, os.SEEK_END)
        else:
            self._out = p.open("wb")
            self._out.write(BINLOG_MAGIC)
        self._size = self._out.tell()
        self._name = name
        self._rotated = False
        if name not in self.files:
            self.files.append(name)

    def write(self, event: bytes) -> str | None:
        """Take one event of the stream.

        Returns:
            The name of a file that ended (a real Rotate was written), else None.
        """
        if len(event) < _HEADER.size:
            return None
        _ts, type_code, _sid, size, log_pos, flags = _HEADER.unpack_from(event, 0)
        if type_code in (EventType.HEARTBEAT_LOG_EVENT, EventType.HEARTBEAT_LOG_EVENT_V2):
            return None
        if type_code == EventType.ROTATE_EVENT and flags & LOG_EVENT_ARTIFICIAL_F:
            body_end = len(event) - (4 if _rotate_has_crc(event) else 0)
            name = event[_HEADER.size + 8 : body_end].decode("utf-8", "surrogateescape")
            if name != self._name or self._out is None:
                self._open(name)
            return None
        if self._out is None or log_pos == 0:
            return (
                None  # an FDE re-sent at the start of a dump inside a file (log_pos 0): already in the copy
            )
        start = log_pos - size
        if start < self._size:
            return None  # already saved
        if start > self._size:
            self.gaps += 1
        self._out.write(event)
        self._out.flush()
        self._size += len(event)
        if self.on_saved is not None:
            self.on_saved(self._name, start, event)
        if type_code == EventType.ROTATE_EVENT:
            ended = self._name
            self.close()
            return ended
        return None

    def resume_point(self) -> tuple[str, int, GtidSet] | None:
        """Cut the last saved file back to its last complete transaction; return ``(file, size, gtids)``: where a
        file/position request resumes and what a GTID request must exclude (the first file's Previous_gtids and
        every GTID in the copies). None when nothing is saved yet."""
        self.close()
        if not self.files:
            return None
        saved = GtidSet()
        for i, name in enumerate(self.files):
            if name in self._discarded:
                saved = saved | self._discarded[name]
                continue
            res = read_transactions(self.path(name), verify_checksum=False)
            if i == 0 and res.previous_gtids is not None:
                saved = saved | res.previous_gtids
            for trx in res.transactions:
                if trx.gtid is not None:
                    saved = saved.add(trx.gtid)
            if i == len(self.files) - 1 and res.complete_end < res.size:
                with self.path(name).open("r+b") as f:
                    f.truncate(res.complete_end)
        last = self.files[-1]
        return last, self.path(last).stat().st_size, saved

    def _discard(self, name: str) -> None:
        """Note the GTIDs of a finished file (with its Previous_gtids when it is the first), then delete it."""
        res = read_transactions(self.path(name), verify_checksum=False)
        gtids = GtidSet()
        if name == self.files[0] and res.previous_gtids is not None:
            gtids = gtids | res.previous_gtids
        for trx in res.transactions:
            if trx.gtid is not None:
                gtids = gtids.add(trx.gtid)
        self._discarded[name] = gtids
        self.path(name).unlink(missing_ok=True)


@dataclass
class StoreCopy(RawCopy):
    """A :class:`RawCopy` whose files live on an object store: staged under a local directory (:attr:`prefix`),
    each file uploaded whole to ``uri_prefix + name`` when it ends, when the copy is closed, and every
    ``interval`` seconds while it grows.

    Attributes:
        uri_prefix: the destination prefix (``s3://bucket/dir/`` or ``s3://bucket/dir/name-prefix``).
        options: storage options (:func:`gtidkit.pipeline.storage.storage_options` names).
        interval: seconds between uploads of a growing file (``None``: only when it ends or the copy closes).
    """

    uri_prefix: str = ""
    options: dict[str, str] = field(default_factory=dict)
    interval: float | None = None
    _uploaded: dict[str, int] = field(default_factory=dict)
    _last_upload: float = 0.0

    def uri(self, name: str) -> str:
        """Where the copy of source file ``name`` goes on the store."""
        return self.uri_prefix + name

    def close(self) -> None:
        """Close the open file and upload it if it changed since its last upload."""
        name = self._name if self._out is not None else None
        super().close()
        if name is not None:
            self.upload(name)

    def write(self, event: bytes) -> str | None:
        """:meth:`RawCopy.write`, then the periodic upload of the file being written."""
        ended = super().write(event)
        if (
            self.interval is not None
            and self._out is not None
            and self._uploaded.get(self._name) != self._size
            and time.monotonic() - self._last_upload >= self.interval
        ):
            self.upload(self._name)
        return ended

    def upload(self, name: str) -> None:
        """Upload the staged copy of ``name`` (whole) when its size changed since the last upload.

        Raises:
            StorageError: the store refused the write (names the URI).
        """
        local = self.path(name)
        size = local.stat().st_size
        if self._uploaded.get(name) == size:
            return
        with local.open("rb") as src, open_store_output(self.uri(name), self.options) as out:
            while chunk := src.read(8 << 20):
                out.write(chunk)
        self._uploaded[name] = size
        self._last_upload = time.monotonic()

    def download_saved(self, files: tuple[str, ...]) -> None:
        """Fetch the copies an earlier run left on the store (the first requested file and the ones after it) into
        the staging directory, so the copy resumes from them.

        Raises:
            StorageError: the store cannot be listed or read.
        """
        import pyarrow.fs as pafs

        from gtidkit.pipeline.storage import open_input_stream, resolve

        if not files:
            return
        directory, _, stem = self.uri_prefix.rpartition("/")
        loc = resolve(directory, self.options)
        try:
            infos = loc.fs.get_file_info(pafs.FileSelector(loc.path, allow_not_found=True))
        except Exception as err:
            raise StorageError(f"{directory}: {err}") from err
        for fi in sorted(infos, key=lambda f: f.base_name):
            name = fi.base_name[len(stem) :]
            if (
                fi.type == pafs.FileType.File
                and fi.base_name.startswith(stem)
                and _BINLOG_NAME.match(name)
                and name >= files[0]
                and (fi.size or 0) >= len(BINLOG_MAGIC)
            ):
                local = self.path(name)
                local.parent.mkdir(parents=True, exist_ok=True)
                with open_input_stream(self.uri(name), self.options) as src, local.open("wb") as out:
                    while chunk := src.read(8 << 20):
                        out.write(chunk)
                self._uploaded[name] = int(fi.size or 0)
                self.files.append(name)


def open_store_output(uri: str, options: dict[str, str] | None) -> Any:
    """A binary stream writing the object ``uri`` (pyarrow's output stream: multipart upload to S3, so memory
    stays flat; the object appears when the stream is closed).

    Raises:
        StorageError: the filesystem cannot be set up, or the store refused (names the URI).
    """
    from gtidkit.pipeline.storage import StorageError, resolve

    loc = resolve(uri, options)
    try:
        return _StoreStream(uri, loc.fs.open_output_stream(loc.path))
    except Exception as err:
        raise StorageError(f"{uri}: {err}") from err


class _StoreStream:
    """pyarrow's output stream with the errors of writing and closing raised as StorageError naming the URI."""

    def __init__(self, uri: str, raw: Any) -> None:
        self.uri = uri
        self.raw = raw

    def write(self, data: bytes) -> int:
        try:
            return int(self.raw.write(data))
        except Exception as err:
            raise self._error(err) from err

    def flush(self) -> None:
        try:
            self.raw.flush()
        except Exception as err:
            raise self._error(err) from err

    def close(self) -> None:
        try:
            self.raw.close()
        except Exception as err:
            raise self._error(err) from err

    def _error(self, err: Exception) -> OSError:
        from gtidkit.pipeline.storage import StorageError

        return StorageError(f"{self.uri}: {err}")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _rotate_has_crc(event: bytes) -> bool:
    # a fake Rotate carries a CRC32 only when checksums are on; its name never contains NUL, and a CRC that
    # happens to be printable is told apart by checking it
    import zlib

    return len(event) > _HEADER.size + 12 and zlib.crc32(event[:-4]) == struct.unpack("<I", event[-4:])[0]


def copy_remote(
    source: RemoteSource,
    command: int,
    files: list[str],
    copy: RawCopy,
    *,
    exclude: GtidSet | None,
    start_position: int,
    to_last_log: bool,
    stop_never: bool,
    heartbeat: float = HEARTBEAT_PERIOD,
    on_lost: Callable[[Exception], None] | None = None,
) -> None:
    """Copy the source's binlogs into ``copy`` (see the module docstring).

    Args:
        source: connection options.
        command: COM_BINLOG_DUMP (file/position) or COM_BINLOG_DUMP_GTID.
        files: the source file names asked for (the first is where the dump starts).
        copy: the destination.
        exclude: ``--exclude-gtids`` (GTID protocol: sent as the request's set).
        start_position: offset in the first file (file/position protocol).
        to_last_log: go on past the first file to the end of the binlog (implied by ``stop_never``).
        stop_never: wait for new events, reconnect when the source goes away, never return.
        heartbeat: seconds between heartbeats asked of the source.
        on_lost: called with the error each time the connection is lost (``stop_never``).

    Raises:
        RemoteDumpError: the source refused the dump (e.g. 1236 for purged GTIDs or an unknown file).
        pymysql.err.MySQLError / OSError: the connection failed (without ``stop_never``).
    """
    flags = 0 if stop_never else BINLOG_DUMP_NON_BLOCK
    server_id = source.server_id or 1
    pending = list(files)
    resumed = copy.resume_point() if copy.files else None
    lost_file = False
    while pending:
        first = pending[0]
        if resumed is None:
            request = DumpRequest(
                command,
                flags,
                server_id,
                first,
                start_position if first == files[0] and command == COM_BINLOG_DUMP else 4,
                (exclude or GtidSet()) if command == COM_BINLOG_DUMP_GTID else None,
            )
        elif command == COM_BINLOG_DUMP:
            request = DumpRequest(command, flags, server_id, resumed[0], resumed[1], None)
        else:  # the rest of the last saved file, then what follows; the source skips every GTID already saved
            name, pos = (resumed[0], resumed[1]) if not lost_file else ("", 4)
            request = DumpRequest(command, flags, server_id, name, pos, (exclude or GtidSet()) | resumed[2])
        try:
            conn = source.connect(heartbeat)
            try:
                for event in dump_events(conn, request):
                    ended = copy.write(event)
                    if ended is not None and not (to_last_log or stop_never):
                        pending.pop(0)  # the file asked for ended: the next one is asked for on its own
                        break
                else:
                    if not stop_never:  # the source's EOF: the end of its binlog
                        copy.close()
                        return
                if not (to_last_log or stop_never):
                    resumed = None
                    continue
            finally:
                with contextlib.suppress(Exception):
                    conn.close()
        except RemoteDumpError as err:
            copy.close()
            if (
                resumed is None
                or lost_file
                or command != COM_BINLOG_DUMP_GTID
                or "first log file" not in err.message
            ):
                raise
            lost_file = True  # the last saved file was purged on the source: ask by GTIDs only
            continue
        except Exception as err:
            if not stop_never:
                copy.close()
                raise
            if on_lost is not None:
                on_lost(err)
            time.sleep(RECONNECT_DELAY)
        resumed = copy.resume_point() if copy.files else None
    copy.close()


# ------------------------------------------------------------------------------------------------ the CLI hook
def remote_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The connection and remote options of mysqlbinlog 8.4, added to ``binlog show`` (they arrive in its
    ``**remote`` keyword arguments)."""
    options = [
        click.option(
            "-R",
            "--read-from-remote-server",
            "read_from_remote_server",
            is_flag=True,
            help="Read FILEs from the server (COM_BINLOG_DUMP by file and position).",
        ),
        click.option(
            "--read-from-remote-source",
            "read_from_remote_source",
            type=click.Choice(sorted(PROTOCOLS), case_sensitive=False),
            help="Read from the server with this dump protocol (BINLOG-DUMP-GTIDS sends --exclude-gtids).",
        ),
        click.option(
            "-h", "--host", "remote_host", default="127.0.0.1", show_default=True, help="Server host."
        ),
        click.option(
            "-P", "--port", "remote_port", type=int, default=3306, show_default=True, help="Server port."
        ),
        click.option("-u", "--user", "remote_user", default="root", show_default=True, help="User name."),
        click.option("-p", "--password", "remote_password", default="", help="Password."),
        click.option("-S", "--socket", "remote_socket", help="Unix socket file."),
        click.option(
            "--connection-server-id",
            "connection_server_id",
            type=click.IntRange(0, 4294967295),
            default=1,
            show_default=True,
            help="server_id presented to the source.",
        ),
        click.option(
            "--raw", "raw", is_flag=True, help="Write the events unchanged, one file per source file."
        ),
        click.option(
            "--stop-never",
            "stop_never",
            is_flag=True,
            help="With a remote read: stay connected, follow new files, reconnect after the source restarts.",
        ),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def remote_requested(remote: dict[str, Any]) -> bool:
    """True when ``binlog show`` must read from a server (``-R`` or ``--read-from-remote-source``)."""
    return bool(remote.get("read_from_remote_server") or remote.get("read_from_remote_source"))


class FollowStopped(BaseException):
    """Raised through :func:`copy_remote` (which retries every ``Exception`` under ``--stop-never``) to end a
    live listing: at ``--stop-datetime`` (``error`` None) or because an event could not be printed (``error``)."""

    def __init__(self, error: Exception | None = None) -> None:
        super().__init__(error)
        self.error = error


def run_remote(
    remote: dict[str, Any],
    files: tuple[str, ...],
    *,
    exclude: GtidSet | None,
    start_position: int,
    to_last_log: bool,
    result_file: str | None,
    fs_options: dict[str, str] | None = None,
    on_event: Callable[[str, int, bytes], None] | None = None,
) -> list[str] | None:
    """``binlog show``'s remote read.

    With ``--raw``: copy the files under ``--result-file`` (a prefix, or an object-store URI prefix; default the
    current directory) and return None (nothing left to print). Without: copy into a temporary directory and
    return the local paths for the text printer; with ``--stop-never`` (and then ``on_event``) hand each event
    to ``on_event`` as it arrives and never return.

    Args:
        remote: the remote options (:func:`remote_options`).
        files: the source file names asked for.
        exclude: ``--exclude-gtids``.
        start_position: ``--start-position`` (file/position protocol).
        to_last_log: ``--to-last-log``.
        result_file: ``--result-file`` (with ``--raw``: the prefix of the copies).
        fs_options: storage options for an object-store ``--result-file``.
        on_event: the live listing's printer: ``(source file name, offset, event bytes)``; it raises
            :class:`FollowStopped` to end the listing (which then propagates from here).

    Raises:
        click.UsageError: options that do not go together.
        FollowStopped: from ``on_event`` (an error it raised is carried in it).
        SystemExit: 1 when the source refused the dump, could not be reached, or the store refused a write
            (message on stderr).
    """
    proto = str(remote.get("read_from_remote_source") or "BINLOG-DUMP-NON-GTIDS").upper()
    command = PROTOCOLS[proto]
    raw, stop_never = bool(remote.get("raw")), bool(remote.get("stop_never"))
    if (raw or stop_never) and not remote_requested(remote):
        raise click.UsageError(
            "--raw and --stop-never need --read-from-remote-server or --read-from-remote-source"
        )
    if stop_never and not raw and on_event is None:
        raise click.UsageError(
            "--stop-never without --raw prints the script: not with --json or --per-transaction"
        )
    if exclude is not None and command != COM_BINLOG_DUMP_GTID and raw:
        raise click.UsageError("--exclude-gtids with --raw needs --read-from-remote-source=BINLOG-DUMP-GTIDS")
    source = RemoteSource(
        host=str(remote.get("remote_host") or "127.0.0.1"),
        port=int(remote.get("remote_port") or 3306),
        user=str(remote.get("remote_user") or "root"),
        password=str(remote.get("remote_password") or ""),
        socket=remote.get("remote_socket") or None,
        server_id=int(remote.get("connection_server_id") or 1),
    )
    to_store = raw and result_file is not None and is_remote(result_file)
    tmp = None if raw and not to_store else tempfile.mkdtemp(prefix="gtidkit-remote-")
    if tmp is not None:
        atexit.register(shutil.rmtree, tmp, True)  # printed (or uploaded) from there, then removed
    copy: RawCopy
    try:
        if to_store:
            store = StoreCopy(
                str(tmp) + os.sep,
                uri_prefix=str(result_file),
                options=dict(fs_options or {}),
                interval=UPLOAD_INTERVAL if stop_never else None,
            )
            store.download_saved(files)  # a copy started before: resume it
            copy = store
        elif raw:
            copy = RawCopy(result_file or "")
            copy.files = _saved_files(result_file or "", files)  # a copy started before: resume it
        else:
            copy = RawCopy(str(tmp) + os.sep, discard_done=on_event is not None and stop_never)
            if stop_never:
                copy.on_saved = _guarded(on_event)
    except (StorageError, ImportError) as err:
        click.echo(f"gtidkit binlog show: {_store_error(err)}", err=True)
        raise SystemExit(1) from None

    def lost(err: Exception) -> None:
        click.echo(f"gtidkit binlog show: lost the source ({err}); reconnecting", err=True)

    try:
        copy_remote(
            source,
            command,
            list(files),
            copy,
            exclude=exclude if command == COM_BINLOG_DUMP_GTID else None,
            start_position=start_position,
            to_last_log=to_last_log,
            stop_never=stop_never,
            on_lost=lost,
        )
    except RemoteDumpError as err:
        click.echo(f"ERROR: Got error reading packet from server: {err.message}", err=True)
        raise SystemExit(1) from None
    except (StorageError, ImportError) as err:
        click.echo(f"gtidkit binlog show: {_store_error(err)}", err=True)
        raise SystemExit(1) from None
    except Exception as err:  # noqa: BLE001 - any client failure is reported as mysqlbinlog does
        click.echo(f"ERROR: Failed on connect: {err}", err=True)
        raise SystemExit(1) from None
    if raw:
        return None
    return [str(copy.path(n)) for n in copy.files]


def _guarded(on_event: Callable[[str, int, bytes], None] | None) -> Callable[[str, int, bytes], None]:
    """``on_event`` with its errors carried in :class:`FollowStopped` (``copy_remote`` would take them for a lost
    connection and retry)."""
    assert on_event is not None

    def call(name: str, pos: int, event: bytes) -> None:
        try:
            on_event(name, pos, event)
        except FollowStopped:
            raise
        except Exception as err:
            raise FollowStopped(err) from err

    return call


def _store_error(err: Exception) -> str:
    """The message for an object-store failure (pyarrow missing: how to install it)."""
    if isinstance(err, ImportError):
        return f"object-store URIs need pyarrow (pip install 'gtidkit[spark]'): {err}"
    return str(err)


def _saved_files(prefix: str, files: tuple[str, ...]) -> list[str]:
    """Source file names already copied under ``prefix`` from an earlier run: the first requested file and the
    ones after it in name order (binlog names sort by their number)."""
    base = Path(prefix + "x").parent
    stem = Path(prefix + "x").name[:-1]
    if not files or not base.is_dir():
        return []
    names = sorted(p.name[len(stem) :] for p in base.iterdir() if p.name.startswith(stem) and p.is_file())
    return [
        n for n in names if _BINLOG_NAME.match(n) and n >= files[0] and Path(prefix + n).stat().st_size >= 4
    ]
