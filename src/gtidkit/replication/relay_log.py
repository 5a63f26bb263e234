"""The replica's relay log: ``<basename>.NNNNNN`` files + ``<basename>.index`` in the datadir (the I/O thread's output,
the SQL thread's input).

MySQL sources: ``sql/rpl_replica.cc`` (``queue_event``: what the I/O thread does with each event it receives,
``process_io_rotate``, ``heartbeat_queue_event``, ``write_rotate_to_master_pos_into_relay_log``), ``sql/binlog.cc``
(``MYSQL_BIN_LOG::write_buffer`` / ``after_write_to_relay_log``: flush, sync every ``sync_relay_log`` events, add
the GTID to Retrieved_Gtid_Set once the last event of its transaction is queued, rotate on ``max_relay_log_size``
only outside a transaction; ``truncate_relaylog_file``), ``sql/rpl_rli.cc`` (``Relay_log_info::purge_relay_logs``,
the relay log's own Format_description and Previous_gtids, WL#7592) and the manual's ``relay_log_recovery``.

Theory of operation
-------------------
Each relay file starts with ``\\xfebin``, this replica's Format_description (flag ``LOG_EVENT_RELAY_LOG_F``) and a
Previous_gtids event holding Retrieved_Gtid_Set at the time the file was created (WL#7592). Then come the events
:meth:`RelayLog.append` is given, written byte for byte as received, with ``queue_event``'s rules:

==================  =========================================================================================
event               what the relay log does (``queue_event``)
==================  =========================================================================================
Stop                not written (the source shut down; nothing to apply)
Heartbeat (v1, v2)  not written; with a position past Read_Master_Log_Pos (skipped transactions) the position
                    moves there and a Rotate carrying it is written (``heartbeat_queue_event``)
Previous_gtids      not written; the position moves past it and a Rotate carrying it is written instead
Rotate              starts a new relay file (``process_io_rotate`` -> ``rotate_relay_log``), sets
                    Master_Log_File / Read_Master_Log_Pos from its body, and is written into the new file; a
                    fake Rotate (timestamp 0) gets or loses its CRC to match the relay file (RSC_1 / RSC_2)
Format_description  written; becomes the source's format (rewritten at the head of files the relay log rotates
                    on its own) and the checksum algorithm of the next relay files
anything else       written; the source position becomes its header ``log_pos``
==================  =========================================================================================

Events whose server_id is this replica's own are not written (``replicate_same_server_id=OFF``). Every event is
fed to the one :class:`~gtidkit.binlog.transactions.TransactionParser` (MySQL's ``mi->transaction_parser``): a
transaction's GTID joins Retrieved_Gtid_Set only when its last event is written, readers only see bytes up to the
end of the last whole transaction, the file is synced (every ``sync_relay_log`` events, always at a transaction
boundary) and rotated (``max_relay_log_size``) only there. A transaction cut short by the next one (a source that
crashed mid-transaction, a reconnection) is cut out of the file (``truncate_relaylog_file``).

Events this replica writes itself carry ``LOG_EVENT_RELAY_LOG_F`` (its FDE, Previous_gtids and the Rotate that
ends a relay file by naming the next); the Rotates that carry the source's coordinates do not, so a reader tells
them apart by that flag.

Crash safety: :meth:`RelayLog.open` runs recovery. Files the index does not list are removed, a last file whose
header is torn is removed, and the last file is truncated to its last whole transaction (a partial event or a
partial transaction: MySQL's relay log recovery would discard it and fetch it again). Retrieved_Gtid_Set is that
file's Previous_gtids plus its transactions, so the receiver, which requests ``gtid_executed`` united with it, never
asks for a transaction again and never misses one. The applier's position lives in the engine's
``mysql.slave_relay_log_info``, committed with the data, so a transaction is never applied twice either.

Naming: MySQL's default ``relay_log`` is ``<host_name>-relay-bin`` (``-<channel>`` appended for a named
channel); :meth:`RelayLog.open` takes ``basename=`` (the ``relay_log`` option) for a fixed name such as
``relay-bin`` that survives a change of host name. Durations are seconds, sizes bytes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gtidkit.binlog.codec import decode_event, encode_event
from gtidkit.binlog.constants import (
    BINLOG_MAGIC,
    CHECKSUM_LEN,
    EVENT_HEADER_LEN,
    FIRST_EVENT_POS,
    LOG_EVENT_ARTIFICIAL_F,
    LOG_EVENT_RELAY_LOG_F,
    ChecksumAlg,
    EventType,
)
from gtidkit.binlog.events.control import (
    FormatDescriptionEvent,
    GtidEvent,
    HeartbeatV2Event,
    PreviousGtidsEvent,
    RotateEvent,
    TransactionPayloadEvent,
)
from gtidkit.binlog.events.statement import QueryEvent, query_kind
from gtidkit.binlog.file import PositionedEvent, read_events, read_transactions
from gtidkit.binlog.header import EventHeader, event_crc32
from gtidkit.binlog.stream import NEED_DATA, BinlogStream, iter_payload_events
from gtidkit.binlog.transactions import A_RESTART, S_NONE, TRANSITIONS, TransactionParser, kind_of
from gtidkit.engine.apply import BinlogTransaction
from gtidkit.engine.binlog.log import read_index_file, write_index_file
from gtidkit.errors import BinlogDecodeError
from gtidkit.gtid import GtidSet
from gtidkit.version import MYSQL_VERSION

log = logging.getLogger(__name__)

__all__ = ["RelayLog", "RelayReader", "default_basename"]

_HEADER = struct.Struct("<IBIIIH")
_T = EventType
#: MySQL's ``sync_relay_log`` default (events between two fsyncs; 0 = leave it to the OS).
SYNC_RELAY_LOG_DEFAULT = 10000
#: MySQL's ``max_binlog_size`` default, which ``max_relay_log_size=0`` falls back to.
MAX_RELAY_LOG_SIZE_DEFAULT = 1 << 30
#: Bytes a reader reads per ``read()``.
_READ_CHUNK = 1 << 20


def default_basename(channel: str = "") -> str:
    """MySQL's default ``relay_log``: ``<host_name>-relay-bin``, ``-<channel>`` appended for a named channel."""
    host = socket.gethostname().split(".", 1)[0] or "localhost"
    return f"{host}-relay-bin" + (f"-{channel}" if channel else "")


class _File:
    """The relay file being written: name, handle, size, and where its header ends."""

    __slots__ = ("appended", "fde", "fh", "header_end", "name", "path", "pos")

    def __init__(self, path: Path, fh: Any, pos: int, header_end: int, fde: FormatDescriptionEvent) -> None:
        self.path = path
        #: the Format_description in force at the end of the file (ours, then the source's once written)
        self.fde = fde
        self.name = path.name
        self.fh = fh
        self.pos = pos
        self.header_end = header_end
        #: True once an event from the source was written (an empty file is not rotated again)
        self.appended = False


class RelayLog:
    """One channel's relay log (``Relay_log_info`` + its ``MYSQL_BIN_LOG`` in relay mode). Thread-safe: the
    receiver appends from its thread while the applier reads through :meth:`reader` from another.

    Open it with :meth:`open`; the constructor is internal.
    """

    def __init__(
        self,
        datadir: Path,
        channel: str,
        basename: str,
        server_id: int,
        checksum: bool,
        sync_relay_log: int,
        max_relay_log_size: int,
        replicate_same_server_id: bool,
    ) -> None:
        self.datadir = datadir
        self.channel = channel
        self.basename = basename
        self.server_id = server_id
        self.sync_relay_log = sync_relay_log
        self.max_relay_log_size = max_relay_log_size or MAX_RELAY_LOG_SIZE_DEFAULT
        self.replicate_same_server_id = replicate_same_server_id
        #: IGNORE_SERVER_IDS: events of these servers are not queued, as this replica's own are not
        self.ignore_server_ids: frozenset[int] = frozenset()
        self._checksum_alg = ChecksumAlg.CRC32 if checksum else ChecksumAlg.OFF
        self._lock = threading.RLock()
        #: signalled after each whole transaction (or event outside one) becomes readable, each rotation,
        #: purge, reset and close: readers wait on it instead of polling
        self.changed = threading.Condition(self._lock)
        self._version = 0
        self.index: list[str] = []
        self._active: _File | None = None
        self._published = 0  # readable end of the active file (after the last whole transaction)
        #: FLUSH RELAY LOGS arrived while a transaction was being received: rotate at its end
        self._rotate_pending = False
        self._parser = TransactionParser("")
        self._retrieved = GtidSet()
        self._source_fde: FormatDescriptionEvent | None = None
        self._source_fde_raw: bytes | None = None
        self._source_file = ""
        self._source_pos = 0
        #: the source coordinates at the end of the last whole transaction written (what a partial one cut out
        #: falls back to, so a position-based reconnection asks for that transaction again)
        self._boundary_source = ("", 0)
        self._unsynced_events = 0
        self._queueing: GtidEvent | None = None
        self._last_queued: GtidEvent | None = None
        self.closed = False
        #: the engine Server given to :meth:`open` (its applied position is reset with the relay log), or None
        self.server: Any = None
        #: fsyncs done and seconds spent in them (for SHOW-style status and the benchmark)
        self.fsyncs = 0
        self.fsync_seconds = 0.0

    # ------------------------------------------------------------------------------------------------ opening
    @classmethod
    def open(
        cls,
        datadir: str | os.PathLike[str],
        channel: str = "",
        *,
        server: Any = None,
        basename: str | None = None,
        server_id: int | None = None,
        checksum: bool | None = None,
        sync_relay_log: int = SYNC_RELAY_LOG_DEFAULT,
        max_relay_log_size: int = 0,
        replicate_same_server_id: bool = False,
    ) -> RelayLog:
        """Open (creating if needed) the relay log of ``channel`` in ``datadir`` and run relay log recovery.

        Recovery removes files the index does not list and a last file whose header is torn, truncates the last
        file to its last whole transaction, rebuilds Retrieved_Gtid_Set and the source coordinates from the
        files, then starts a new relay file (MySQL opens a new relay log at every start).

        Args:
            datadir: the replica's data directory.
            channel: replication channel (``""`` = the default channel).
            server: the engine ``Server`` (its ``server_id`` and ``binlog_checksum`` are used unless given).
            basename: the ``relay_log`` option (``None`` = :func:`default_basename`).
            server_id: this replica's server_id (events carrying it are not queued).
            checksum: CRC32 on this replica's own relay-log events until the source's FDE says otherwise.
            sync_relay_log: fsync after this many events, at the next transaction boundary (0 = never; MySQL's
                default 10000).
            max_relay_log_size: rotate after a transaction that makes the file this big (0 = 1 GiB, MySQL's
                ``max_binlog_size`` default).
            replicate_same_server_id: queue events carrying this replica's own server_id too.

        Raises:
            BinlogDecodeError: a relay file holds a corrupt whole event (not a torn tail).
            OSError: the files cannot be read or written.
        """
        if server is not None:
            if server_id is None:
                server_id = int(server.globals.get("server_id"))
            if checksum is None:
                checksum = str(server.globals.get("binlog_checksum")).upper() != "NONE"
        relay = cls(
            Path(datadir),
            channel,
            basename or default_basename(channel),
            int(server_id or 0),
            True if checksum is None else checksum,
            sync_relay_log,
            max_relay_log_size,
            replicate_same_server_id,
        )
        relay.server = server
        with relay._lock:
            relay._recover()
            relay._open_new_file()
        return relay

    @property
    def index_path(self) -> Path:
        """``<basename>.index``: one ``./<file>`` per line, as mysqld writes it."""
        return self.datadir / f"{self.basename}.index"

    def path(self, name: str) -> Path:
        """Full path of relay file ``name``."""
        return self.datadir / name

    def _read_index(self) -> list[str]:
        return read_index_file(self.index_path)

    def _write_index(self) -> None:
        write_index_file(self.index_path, self.index)

    def _number(self, name: str) -> int:
        return int(name.rsplit(".", 1)[1])

    def _recover(self) -> None:
        """relay_log_recovery: see :meth:`open`."""
        self.datadir.mkdir(parents=True, exist_ok=True)
        listed = self._read_index()
        self.index = [n for n in listed if self.path(n).exists()]
        prefix = self.basename + "."
        for entry in os.listdir(self.datadir):
            if entry.startswith(prefix) and entry[len(prefix) :].isdigit() and entry not in self.index:
                log.warning("relay log recovery: removing %s (not in %s)", entry, self.index_path.name)
                os.unlink(self.path(entry))
        while self.index:
            last = self.index[-1]
            p = self.path(last)
            try:
                res = read_transactions(p)
            except BinlogDecodeError as err:
                if err.offset is not None and err.offset <= FIRST_EVENT_POS:
                    res = None  # a header that never got written whole
                else:
                    raise
            if res is None or res.previous_gtids is None:
                log.warning("relay log recovery: removing %s (its header is incomplete)", last)
                os.unlink(p)
                self.index.pop()
                continue
            if res.complete_end < res.size:
                log.warning(
                    "relay log recovery: truncating %s from %d to %d (partial transaction)",
                    last,
                    res.size,
                    res.complete_end,
                )
                with open(p, "r+b") as fh:
                    fh.truncate(res.complete_end)
                    fh.flush()
                    os.fsync(fh.fileno())
            retrieved = res.previous_gtids
            for trx in res.transactions:
                if trx.gtid is not None:
                    retrieved = retrieved.add(trx.gtid)
            self._retrieved = retrieved
            break
        if self.index != listed:
            self._write_index()
        self._recover_source()
        self._boundary_source = (self._source_file, self._source_pos)

    def _recover_source(self) -> None:
        """Source coordinates and format from the newest files: the last source Rotate, the ``log_pos`` of the
        last event after it, the last source FDE (raw, to rewrite at the head of new files)."""
        for name in reversed(self.index):
            found_rotate = False
            for pe in read_events(self.path(name), stop_at_torn_tail=True):
                h = pe.header
                if h.flags & LOG_EVENT_RELAY_LOG_F or pe.in_payload:
                    continue
                if h.type_code == _T.ROTATE_EVENT:
                    self._source_file = pe.event.next_file
                    self._source_pos = pe.event.position
                    found_rotate = True
                elif h.type_code == _T.FORMAT_DESCRIPTION_EVENT:
                    self._source_fde = pe.event
                    with open(self.path(name), "rb") as fh:
                        fh.seek(pe.pos)
                        self._source_fde_raw = fh.read(pe.end_pos - pe.pos)
                    self._checksum_alg = pe.event.checksum_alg
                elif h.log_pos:
                    self._source_pos = h.log_pos
            if found_rotate:
                return

    # ------------------------------------------------------------------------------------------------ files
    def _open_new_file(self, log_source: bool = True) -> None:
        """Create the next relay file: magic, FDE, Previous_gtids = Retrieved_Gtid_Set; then, with ``log_source``
        and when known, the source's coordinates (a Rotate) and format (its FDE), so the file can be read on its
        own (``rotate_relay_log(mi, log_master_fd=true)``; a source Rotate passes false: its FDE follows)."""
        number = self._number(self.index[-1]) + 1 if self.index else 1
        name = f"{self.basename}.{number:06d}"
        path = self.path(name)
        fde = FormatDescriptionEvent.for_server(MYSQL_VERSION, checksum_alg=self._checksum_alg)
        fh = open(path, "xb")  # noqa: SIM115 - owned by the relay log until rotation or close
        try:
            fh.write(BINLOG_MAGIC)
            pos = FIRST_EVENT_POS
            for ev in (fde, PreviousGtidsEvent(gtids=self._retrieved_copy())):
                data = encode_event(
                    ev,
                    fde,
                    timestamp=_now(),
                    server_id=self.server_id,
                    position=pos,
                    flags=LOG_EVENT_RELAY_LOG_F | (0x80 if isinstance(ev, PreviousGtidsEvent) else 0),
                )
                fh.write(data)
                pos += len(data)
            f = _File(path, fh, pos, pos, fde)
            if log_source and self._source_file:
                f.pos += self._write_source_rotate(f)
            if log_source and self._source_fde_raw is not None and self._source_fde is not None:
                fh.write(self._source_fde_raw)
                f.pos += len(self._source_fde_raw)
                f.fde = self._source_fde
            fh.flush()
            os.fsync(fh.fileno())
        except BaseException:
            fh.close()
            raise
        self.index.append(name)
        self._write_index()
        self._active = f
        self._published = f.pos
        self._parser = TransactionParser(name)
        self._bump()

    def _write_source_rotate(self, f: _File) -> int:
        """A Rotate naming the source's file and position (``write_rotate_to_master_pos_into_relay_log``)."""
        data = encode_event(
            RotateEvent(position=self._source_pos, next_file=self._source_file),
            f.fde,
            timestamp=0,
            server_id=self.server_id,
            log_pos=0,
            flags=LOG_EVENT_ARTIFICIAL_F,
        )
        f.fh.write(data)
        return len(data)

    def _rotate_file(self, log_source: bool = True) -> None:
        """End the active file with a Rotate naming the next relay file, then open that file."""
        f = self._active
        assert f is not None
        self._cut_partial()
        next_name = f"{self.basename}.{self._number(f.name) + 1:06d}"
        data = encode_event(
            RotateEvent(position=FIRST_EVENT_POS, next_file=next_name),
            f.fde,
            timestamp=_now(),
            server_id=self.server_id,
            position=f.pos,
            flags=LOG_EVENT_RELAY_LOG_F,
        )
        f.fh.write(data)
        f.pos += len(data)
        self._close_file(f)
        self._open_new_file(log_source)

    def _close_file(self, f: _File) -> None:
        f.fh.flush()
        self._sync(f)
        f.fh.close()
        self._active = None

    def _sync(self, f: _File) -> None:
        t0 = time.perf_counter()
        os.fsync(f.fh.fileno())
        self.fsync_seconds += time.perf_counter() - t0
        self.fsyncs += 1
        self._unsynced_events = 0

    def _cut_partial(self) -> None:
        """Drop a transaction still open in the active file (``truncate_relaylog_file``): readers never saw it."""
        f = self._active
        if f is None or f.pos == self._published:
            return
        f.fh.flush()
        f.fh.truncate(self._published)
        f.fh.seek(self._published)
        f.pos = self._published
        self._source_file, self._source_pos = self._boundary_source
        self._parser = TransactionParser(f.name)
        self._queueing = None

    def _bump(self) -> None:
        self._version += 1
        self.changed.notify_all()

    # ------------------------------------------------------------------------------------------------ writing
    def begin_source(self, source_fde: bytes | None = None) -> None:
        """A (re)connection to the source: a transaction left open by the previous connection is cut out and a
        new relay file is started (unless the active one holds nothing from the source yet).

        Args:
            source_fde: the source's Format_description event (raw bytes) when the caller already has it; it is
                remembered as the source's format (rewritten at the head of files the relay log opens itself).
                The receiver still appends the FDE the source sends.
        """
        with self._lock:
            self._check_open()
            if source_fde is not None:
                ev = decode_event(source_fde, None)
                self._source_fde = ev.event
                self._source_fde_raw = bytes(source_fde)
            self._cut_partial()
            if self._active is not None and self._active.appended:
                self._rotate_file()
            else:
                self._bump()

    def append(self, event: bytes) -> None:
        """Queue one event exactly as received from the source (``queue_event``; see the module docstring).

        Args:
            event: the whole event (header, body, CRC32 footer when the source sends one), without the
                network's leading OK byte.

        Raises:
            BinlogDecodeError: ``event`` is shorter than its header says, or its CRC32 does not match
                (MySQL's ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE), or a body the relay log must read is corrupt.
            OSError: the relay log cannot be written.
            ValueError: the relay log is closed.
        """
        data = bytes(event)
        if len(data) < EVENT_HEADER_LEN:
            raise BinlogDecodeError(f"truncated event header ({len(data)} bytes)", offset=None)
        ts, t, server_id, size, log_pos, flags = _HEADER.unpack_from(data, 0)
        if size != len(data):
            raise BinlogDecodeError(
                f"event_size {size} but {len(data)} bytes received", event_type=t, offset=None
            )
        with self._lock:
            self._check_open()
            f = self._active
            assert f is not None
            if t == _T.FORMAT_DESCRIPTION_EVENT:
                dec = decode_event(data, None)
            else:
                data = self._checked(data, t, ts, f.fde)
                dec = None
            if t == _T.STOP_EVENT:
                return
            if t in (_T.HEARTBEAT_LOG_EVENT, _T.HEARTBEAT_LOG_EVENT_V2):
                self._heartbeat(data, t, log_pos)
                return
            if (
                server_id == self.server_id and not self.replicate_same_server_id
            ) or server_id in self.ignore_server_ids:
                # not queued; the coordinates and format still follow it (queue_event's switch runs first)
                if t == _T.ROTATE_EVENT:
                    rev = decode_event(data, self._source_fde or f.fde, verify_checksum=False).event
                    self._source_file, self._source_pos = rev.next_file, rev.position
                elif dec is not None:
                    self._source_fde, self._source_fde_raw = dec.event, data
                else:
                    self._source_pos = log_pos or self._source_pos + size
                    if t in (_T.XID_EVENT, _T.QUERY_EVENT) and self._parser.state == S_NONE:
                        # the end of an ignored transaction (or a DDL): a Rotate carrying the new position lets
                        # the applier's executed position move past it (queue_event's ign_master_log_pos_end)
                        f.pos += self._write_source_rotate(f)
                        self._publish(f)
                return
            if t == _T.PREVIOUS_GTIDS_LOG_EVENT:
                self._source_pos = log_pos or self._source_pos + size
                if self._parser.state == S_NONE:
                    f.pos += self._write_source_rotate(f)
                    self._publish(f)
                return
            if t == _T.ROTATE_EVENT:
                rev = decode_event(data, self._source_fde or f.fde, verify_checksum=False).event
                if self._parser.state == S_NONE and f.appended:
                    self._rotate_file(log_source=False)
                    f = self._active
                    assert f is not None
                self._source_file = rev.next_file
                self._source_pos = rev.position
                f.fh.write(data)
                f.pos += len(data)
                f.appended = True
                if self._parser.state == S_NONE:
                    self._publish(f)
                return
            if dec is not None:  # the source's FDE
                self._source_fde = dec.event
                self._source_fde_raw = data
                self._checksum_alg = dec.event.checksum_alg
                if log_pos:
                    self._source_pos = log_pos
                f.fde = dec.event
                f.fh.write(data)
                f.pos += len(data)
                f.appended = True
                if self._parser.state == S_NONE:
                    self._publish(f)
                return
            self._queue(f, data, t, ts, server_id, flags, log_pos)

    def _checked(self, data: bytes, t: int, ts: int, file_fde: FormatDescriptionEvent) -> bytes:
        """Verify the CRC (the source's algorithm) and fit a fake Rotate's footer to the relay file's."""
        fde = self._source_fde
        if t == _T.ROTATE_EVENT and ts == 0:
            # a fake Rotate comes before the source's FDE: its footer is what the replica declared, and it must
            # match the format in force in the relay file (RSC_1 / RSC_2 of queue_event)
            has_crc = len(data) > EVENT_HEADER_LEN + CHECKSUM_LEN and _crc_ok(data)
            want = file_fde.checksum_alg == ChecksumAlg.CRC32
            if has_crc and not want:
                data = _resize(data[:-CHECKSUM_LEN])
            elif want and not has_crc:
                body = _resize(data, CHECKSUM_LEN)[:-CHECKSUM_LEN]
                data = body + zlib.crc32(body).to_bytes(CHECKSUM_LEN, "little")
            return data
        if fde is not None and fde.checksum_alg == ChecksumAlg.CRC32 and not _crc_ok(data):
            raise BinlogDecodeError(  # ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE (1743)'s text
                "Replication event checksum verification failed while reading from network.",
                event_type=t,
                offset=None,
            )
        return data

    def _heartbeat(self, data: bytes, t: int, log_pos: int) -> None:
        pos = log_pos
        if t == _T.HEARTBEAT_LOG_EVENT_V2 and self._source_fde is not None:
            hb = decode_event(data, self._source_fde, verify_checksum=False).event
            if isinstance(hb, HeartbeatV2Event) and hb.log_pos:
                pos = hb.log_pos
        if self._source_file and pos > self._source_pos:
            self._source_pos = pos
            f = self._active
            if f is not None and self._parser.state == S_NONE:
                f.pos += self._write_source_rotate(f)
                self._publish(f)

    def _queue(
        self, f: _File, data: bytes, t: int, ts: int, server_id: int, flags: int, log_pos: int
    ) -> None:
        fde = f.fde
        gtid_event = None
        qk = None
        if t in (_T.GTID_LOG_EVENT, _T.ANONYMOUS_GTID_LOG_EVENT, _T.GTID_TAGGED_LOG_EVENT):
            gtid_event = decode_event(data, fde, verify_checksum=False).event
            self._queueing = gtid_event
        elif t == _T.QUERY_EVENT:
            qk = query_kind(decode_event(data, fde, verify_checksum=False).event.query)
        kind = kind_of(t, flags, qk)
        parser = self._parser
        if TRANSITIONS[(parser.state, kind)][0] == A_RESTART:
            self._cut_partial()  # the open transaction will never finish: out of the file
            parser = self._parser
        begin = f.pos
        parser.feed(kind, begin, begin + len(data), ts, server_id, gtid_event)
        f.fh.write(data)
        f.pos += len(data)
        f.appended = True
        self._unsynced_events += 1
        if log_pos:
            self._source_pos = log_pos
        elif t != _T.FORMAT_DESCRIPTION_EVENT:
            self._source_pos += len(data)
        if parser.state != S_NONE:
            return
        for trx in parser.finished:
            if trx.complete and trx.gtid is not None:
                g = trx.gtid
                self._retrieved.add_in_place(g.sid, g.tag, g.gno)
            if trx.complete and self._queueing is not None:
                self._last_queued = self._queueing
        self._queueing = None
        parser.finished.clear()
        self._publish(f)
        if f.pos >= self.max_relay_log_size or self._rotate_pending:
            self._rotate_pending = False
            self._rotate_file()

    def _publish(self, f: _File) -> None:
        """A whole transaction (or an event outside one) is in the file: flush, sync per ``sync_relay_log``,
        make it readable."""
        f.fh.flush()
        if self.sync_relay_log and self._unsynced_events >= self.sync_relay_log:
            self._sync(f)
        self._published = f.pos
        self._boundary_source = (self._source_file, self._source_pos)
        self._bump()

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError(f"relay log {self.basename} is closed")

    # ------------------------------------------------------------------------------------------------ state
    def _retrieved_copy(self) -> GtidSet:
        return self._retrieved | GtidSet()

    def retrieved_gtids(self) -> GtidSet:
        """Retrieved_Gtid_Set: the GTIDs of every whole transaction received (and not reset)."""
        with self._lock:
            return self._retrieved_copy()

    def source_position(self) -> tuple[str, int]:
        """``(Master_Log_File, Read_Master_Log_Pos)``: where in the source's binlog the receiver has read to."""
        with self._lock:
            return self._source_file, self._source_pos

    def queue_status(self) -> tuple[GtidEvent | None, GtidEvent | None]:
        """``(last queued, queueing)``: the Gtid events of the last whole transaction written and of the one being
        written (``None`` when none), for performance_schema.replication_connection_status'
        LAST_QUEUED_TRANSACTION* / QUEUEING_TRANSACTION* columns (``gtid``, ``original_commit_timestamp``,
        ``immediate_commit_timestamp`` in µs). Boundaries come from the relay log's TransactionParser."""
        with self._lock:
            return self._last_queued, self._queueing

    def position(self) -> tuple[str, int]:
        """``(Relay_Log_File, Relay_Log_Pos)`` of the last write (end of the active file)."""
        with self._lock:
            f = self._active
            return (f.name, f.pos) if f is not None else (self.index[-1] if self.index else "", 0)

    def readable_end(self, name: str) -> tuple[int, bool]:
        """How far a reader may read relay file ``name``, and whether the file is finished (not the active one).

        Returns:
            ``(end offset, finished)``; for a file that no longer exists ``(0, True)``.
        """
        with self._lock:
            f = self._active
            if f is not None and f.name == name:
                return self._published, False
            p = self.path(name)
            return (p.stat().st_size if p.exists() else 0), True

    def space(self) -> int:
        """Bytes the relay files take on disk (Relay_Log_Space; ``relay_log_space_limit`` bounds it)."""
        with self._lock:
            names = list(self.index)
        total = 0
        for name in names:
            try:
                total += self.path(name).stat().st_size
            except OSError:
                pass
        return total

    def next_file(self, name: str) -> str | None:
        """The relay file after ``name`` in the index (``None`` if it is the last)."""
        with self._lock:
            if name in self.index:
                i = self.index.index(name)
                return self.index[i + 1] if i + 1 < len(self.index) else None
            later = [n for n in self.index if self._number(n) > self._number(name)]
            return later[0] if later else None

    def reader(self, start: tuple[str, int] | None = None) -> RelayReader:
        """A reader of whole transactions from ``start`` (``(relay file, offset)``: transactions ending at or
        before it are skipped; ``None`` or a file no longer there = the oldest relay file).

        Raises:
            ValueError: the relay log is closed.
        """
        with self._lock:
            self._check_open()
            if start is not None and start[0] in self.index:
                return RelayReader(self, start[0], start[1])
            return RelayReader(self, self.index[0], 0)

    # ------------------------------------------------------------------------------------------------ purge
    def purge_applied(self, upto_file: str) -> list[str]:
        """Delete the relay files before ``upto_file`` (the applier has applied all of them: ``relay_log_purge``).
        The active file is never deleted.

        Returns:
            The names deleted.
        """
        with self._lock:
            if upto_file not in self.index:
                return []
            cut = self.index.index(upto_file)
            victims = self.index[:cut]
            if not victims:
                return []
            self.index = self.index[cut:]
            self._write_index()
            for name in victims:
                try:
                    os.unlink(self.path(name))
                except FileNotFoundError:
                    pass
            self._bump()
            return victims

    def reset(self, *, keep_applied: bool = False, source_position: tuple[str, int] | None = None) -> None:
        """RESET REPLICA: delete every relay file and the index, forget Retrieved_Gtid_Set and the source
        coordinates, start a new relay file (``Relay_log_info::purge_relay_logs``), and, with a server, delete the
        channel's applied position from ``mysql.slave_relay_log_info`` (``reset_info``: the new relay files reuse
        the old names, so a stale position would skip their transactions). The threads must be stopped.

        Args:
            keep_applied: keep the applied position's row (``relay_log_recovery``: the caller clears its relay
                coordinates and keeps the source's).
            source_position: the source (file, position) to receive from next (``relay_log_recovery``: where the
                applier got to), instead of none.
        """
        with self._lock:
            self._check_open()
            if self.server is not None and not keep_applied:
                self._forget_applied_position()
            if self._active is not None:
                self._active.fh.close()
                self._active = None
            for name in self.index:
                try:
                    os.unlink(self.path(name))
                except FileNotFoundError:
                    pass
            self.index = []
            self._retrieved = GtidSet()
            self._source_file, self._source_pos = source_position or ("", 0)
            self._boundary_source = (self._source_file, self._source_pos)
            self._source_fde = None
            self._source_fde_raw = None
            self._parser = TransactionParser("")
            self._open_new_file()

    def _forget_applied_position(self) -> None:
        storage = self.server.storage
        if storage.catalog.get_table("mysql", "slave_relay_log_info") is None:
            return
        table = storage.physical_name("mysql", "slave_relay_log_info")
        channel = self.channel
        self.server.write_txn(
            lambda db: db.execute(f'DELETE FROM "{table}" WHERE Channel_name = ?', (channel,))
        )

    def flush(self) -> None:
        """FLUSH RELAY LOGS (``rotate_relay_log``): the active relay file ends with a Rotate and a new one starts;
        while a transaction is being received, at its end (a transaction is never split across relay files,
        manual "FLUSH Statement": "the request is performed after the transaction ends").

        Raises:
            ValueError: the relay log is closed.
        """
        with self._lock:
            self._check_open()
            f = self._active
            if f is None:
                return
            if f.pos == self._published:
                self._rotate_file()
                self._bump()
            else:
                self._rotate_pending = True

    def delete(self) -> None:
        """RESET REPLICA ALL of a named channel (the channel goes away): every relay file, the index and the
        applied position deleted, the relay log closed (``Relay_log_info::purge_relay_logs`` then
        ``channel_map.delete_mi``)."""
        with self._lock:
            self.reset()
            if self._active is not None:
                self._active.fh.close()
                self._active = None
            for name in self.index:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.path(name))
            self.index = []
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.index_path)
            self.closed = True
            self._bump()

    def close(self) -> None:
        """Cut an unfinished transaction out, sync and close the active file, wake every reader (their
        :meth:`RelayReader.next` returns ``None``)."""
        with self._lock:
            if self.closed:
                return
            if self._active is not None:
                self._cut_partial()
                self._close_file(self._active)
            self.closed = True
            self._bump()

    def __enter__(self) -> RelayLog:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _now() -> int:
    return int(time.time())


def _crc_ok(data: bytes) -> bool:
    return event_crc32(data[:-CHECKSUM_LEN]) == int.from_bytes(data[-CHECKSUM_LEN:], "little")


def _resize(data: bytes, extra: int = 0) -> bytes:
    """``data`` with its header event_size set to ``len(data) + extra`` (``extra`` zero bytes appended)."""
    out = bytearray(data) + bytes(extra)
    struct.pack_into("<I", out, 9, len(out))
    return bytes(out)


class RelayReader:
    """The applier's view of the relay log: whole transactions in order, across files, blocking for more.

    Made by :meth:`RelayLog.reader`. Each :class:`~gtidkit.engine.apply.BinlogTransaction` it returns carries
    ``file``/``end_pos`` in the relay log and ``source_file``/``source_end_pos`` (Relay_Master_Log_File /
    Exec_Master_Log_Pos once applied) from the source's Rotate events and the events' ``log_pos``. Not
    thread-safe: one applier thread reads it; :meth:`close` may be called from any thread to wake it.
    """

    def __init__(self, relay: RelayLog, name: str, skip_until: int) -> None:
        self.relay = relay
        self._skip_until = skip_until
        self._closed = False
        self._pending: list[BinlogTransaction] = []
        self._fh: Any = None
        #: called with the new file's name when the reader moves on to the next relay file (every transaction
        #: of the previous one has been returned): the applier purges there (``relay_log_purge``)
        self.on_next_file: Callable[[str], object] | None = None
        #: called ``(relay file, offset, source file, source position)`` each time the reader has returned every
        #: transaction written and is about to wait: the events read after the last transaction (the source's
        #: Rotates after a rotation or restart, its Format_description, heartbeats' positions) moved the source
        #: position on, as MySQL's SQL thread moves Exec_Source_Log_Pos with events outside transactions
        #: (``Log_event::do_update_pos`` / ``Rotate_log_event::do_update_pos``)
        self.on_caught_up: Callable[[str, int, str, int], object] | None = None
        self._open(name)
        if skip_until > FIRST_EVENT_POS:
            self._seek(skip_until)

    def _open(self, name: str) -> None:
        if self._fh is not None:
            self._fh.close()
        self.file = name
        self._fh = open(self.relay.path(name), "rb")  # noqa: SIM115 - closed by _open/close
        self._read_pos = 0
        self._stream = BinlogStream(magic=True, file=name)
        self._parser = TransactionParser(name, keep_events=True)
        self.source_file = ""
        self.source_pos = 0

    def _seek(self, target: int) -> None:
        """Start at ``target`` (the end of a transaction already applied) without decoding the events before it:
        only their headers are framed, and their Format_description and Rotate events read (the format in force,
        the source's coordinates), as ``Relay_log_info::init_relay_log_pos`` seeks. A ``target`` that is not an
        event boundary leaves the reader at the file's start (its transactions up to ``target`` are skipped)."""
        fh = self._fh
        fh.seek(0)
        buf = fh.read(_READ_CHUNK)
        if buf[:FIRST_EVENT_POS] != BINLOG_MAGIC:
            return
        base, at = 0, FIRST_EVENT_POS  # buf holds the file from offset `base`
        fde: FormatDescriptionEvent | None = None
        src_file, src_pos = self.source_file, self.source_pos
        while base + at < target:
            if len(buf) - at < EVENT_HEADER_LEN:
                buf, base, at = buf[at:] + fh.read(_READ_CHUNK), base + at, 0
                if len(buf) < EVENT_HEADER_LEN:
                    return
            _ts, t, _sid, size, log_pos, flags = _HEADER.unpack_from(buf, at)
            if size < EVENT_HEADER_LEN:
                return
            if t == _T.FORMAT_DESCRIPTION_EVENT or (
                t == _T.ROTATE_EVENT and not flags & LOG_EVENT_RELAY_LOG_F
            ):
                if len(buf) - at < size:
                    buf, base, at = buf[at:] + fh.read(max(size, _READ_CHUNK)), base + at, 0
                    if len(buf) < size:
                        return
                ev = decode_event(buf[at : at + size], fde, offset=base + at, file=self.file).event
                if isinstance(ev, FormatDescriptionEvent):
                    fde = ev
                else:
                    src_file, src_pos = ev.next_file, ev.position
            elif log_pos and not flags & LOG_EVENT_RELAY_LOG_F:
                src_pos = log_pos
            at += size
        if base + at != target or fde is None:
            return
        self._stream = BinlogStream(magic=False, fde=fde, file=self.file, offset=target)
        self._read_pos = target
        self.source_file, self.source_pos = src_file, src_pos

    def close(self) -> None:
        """Stop reading: a blocked :meth:`next` returns ``None`` (STOP REPLICA SQL_THREAD). (When the relay log
        itself closes, readers first read what was written, then get ``None``.)"""
        with self.relay._lock:
            self._closed = True
            self.relay.changed.notify_all()

    def __iter__(self) -> Iterator[BinlogTransaction]:
        """Transactions until :meth:`close` (or the relay log closes)."""
        while True:
            trx = self.next()
            if trx is None:
                return
            yield trx

    def next(self, timeout: float | None = None) -> BinlogTransaction | None:
        """The next whole transaction; blocks on the relay log's condition until one is written.

        Args:
            timeout: seconds to wait at most (``None`` = until one comes or the reader/relay log is closed).

        Returns:
            The transaction, or ``None`` on timeout or once closed.

        Raises:
            BinlogDecodeError: a corrupt event in a relay file.
            OSError: a relay file cannot be read.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        relay = self.relay
        while True:
            if self._pending:
                return self._pending.pop(0)
            with relay._lock:
                if self._closed:
                    self._close_file()
                    return None
                end, finished = relay.readable_end(self.file)
                version = relay._version
                relay_closed = relay.closed
            if self._read_pos < end:
                self._read(end)
                continue
            if finished:
                nxt = relay.next_file(self.file)
                if nxt is not None:
                    self._open(nxt)
                    self._skip_until = 0
                    if self.on_next_file is not None:
                        self.on_next_file(nxt)
                    continue
            if relay_closed:  # everything written has been read
                self._close_file()
                return None
            if self.on_caught_up is not None and self.source_file and not self._pending:
                self.on_caught_up(self.file, self._read_pos, self.source_file, self.source_pos)
            with relay._lock:
                if relay._version != version or self._closed or relay.closed:
                    continue
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                relay.changed.wait(remaining)

    def _close_file(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def _read(self, end: int) -> None:
        fh = self._fh
        fh.seek(self._read_pos)
        data = fh.read(min(end - self._read_pos, _READ_CHUNK))
        self._read_pos += len(data)
        stream = self._stream
        stream.feed(data)
        while True:
            ev = stream.next_event()
            if ev is NEED_DATA:
                return
            self._event(ev, stream.last_pos, stream.offset)

    def _event(self, ev: Any, pos: int, end_pos: int) -> None:
        h: EventHeader = ev.header
        t = h.type_code
        body = ev.event
        if not h.flags & LOG_EVENT_RELAY_LOG_F:
            if t == _T.ROTATE_EVENT:
                self.source_file = body.next_file
                self.source_pos = body.position
            elif h.log_pos and t != _T.FORMAT_DESCRIPTION_EVENT:
                self.source_pos = h.log_pos
        pe = PositionedEvent(self.file, pos, end_pos, h, body)
        if isinstance(body, TransactionPayloadEvent):
            fde = self._stream.fde
            assert fde is not None
            for inner in iter_payload_events(body, fde, file=self.file, offset=pos):
                self._feed(PositionedEvent(self.file, pos, end_pos, inner.header, inner.event, True))
        else:
            self._feed(pe)

    def _feed(self, pe: PositionedEvent) -> None:
        ev = pe.event
        qk = query_kind(ev.query) if isinstance(ev, QueryEvent) else None
        parser = self._parser
        parser.feed(
            kind_of(pe.header.type_code, pe.header.flags, qk),
            pe.pos,
            pe.end_pos,
            pe.header.timestamp,
            pe.header.server_id,
            ev if isinstance(ev, GtidEvent) else None,
            None,
            pe,
        )
        if not parser.finished:
            return
        for trx, evs in zip(parser.finished, parser.finished_events):
            if trx.complete and trx.end_pos > self._skip_until:
                self._pending.append(
                    BinlogTransaction(
                        tuple(evs),
                        file=self.file,
                        end_pos=trx.end_pos,
                        source_file=self.source_file,
                        source_end_pos=self.source_pos,
                    )
                )
        parser.finished.clear()
        parser.finished_events.clear()
