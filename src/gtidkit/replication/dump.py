"""The binlog sender: what a source's dump thread streams after COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID.

MySQL source: ``sql/rpl_binlog_sender.cc`` (``Binlog_sender``: ``init``, ``check_start_file``, ``run``,
``send_binlog``, ``send_events``, ``skip_event``, ``fake_rotate_event``, ``send_format_description_event``,
``wait_new_events``, ``send_heartbeat_event_v1/v2``), ``sql/rpl_source.cc`` (``com_binlog_dump``,
``com_binlog_dump_gtid``: the request layouts), ``sql/binlog.cc`` (``report_missing_purged_gtids``,
``report_missing_gtids``); ../shared/research/formats.md section 7.

The stream, as MySQL 8.0.26+/8.4 sends it (every event is one packet ``00`` + the raw event):

1. Before each file, a *fake* Rotate: timestamp 0, the source's server_id, log_pos 0, flags
   ``LOG_EVENT_ARTIFICIAL_F`` (0x20), body = u64 start position + file name. It carries a CRC32 only while the
   current checksum algorithm is CRC32: for the first file that is the replica's declared
   ``@source_binlog_checksum`` / ``@master_binlog_checksum`` (undeclared = none), afterwards the previous file's
   FDE algorithm (``m_event_checksum_alg`` is only updated by the FDE).
2. The file's Format_description_event with the IN_USE flag cleared. File/position protocol starting past 4: its
   log_pos and create_timestamp are zeroed (so the replica does not advance its position nor drop temporary
   tables) and its CRC recomputed; GTID protocol: only create_timestamp is zeroed, when the first transaction of
   the start file is one the replica already has (and then for every later file too, as MySQL's member flag).
   A replica that declared no checksum while the binlog has CRC32 gets the fatal "Replica can not handle
   replication events with the checksum that source is configured to log".
3. The events. With the GTID protocol a transaction whose GTID the replica has is skipped whole (from its Gtid
   event up to the next Gtid event); a Rotate is never skipped. A Heartbeat whose log_pos is the end of the skipped
   group goes out before the next event sent and at the end of the readable data, or at once while skipping when a
   heartbeat period has passed since the last packet.
4. At the end of a file (a real Rotate was sent), the next file from the index, again from step 1.
5. At the end of the active file: EOF packet in non-blocking mode (flag ``BINLOG_DUMP_NON_BLOCK`` or replica
   server_id 0), else wait on the binlog's update condition (``BinlogLog.wait_for_update``, never polling),
   sending a Heartbeat (log_pos = read position) each ``@source_heartbeat_period`` / ``@master_heartbeat_period``
   nanoseconds of silence. A stop request (KILL, a newer dump of the same replica, shutdown) wakes that wait.

The sender reports MySQL's thread stages (PROCESSLIST State, ``STAGE_*``): "Sending binlog event to replica" from
the opening of each file, "Source has sent all binlog to replica; waiting for more updates" while waiting (then
back), "Finished reading one binlog; switching to next binlog" between files, "Waiting to finalize termination" at
the end. Only the 8.0.26+ names: ``terminology_use_previous`` is not supported.

Fatal errors are ERR 1236 (ER_SOURCE_FATAL_ERROR_READING_BINLOG) with the sender's message; once a file is open
the message gets MySQL's suffix ``; the first event '<start file>' at <start pos>, the last event read from
'./<file>' at <pos>, the last byte read from './<file>' at <pos>.``
"""

from __future__ import annotations

import logging
import struct
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gtidkit.binlog import EventType, read_events
from gtidkit.binlog.codec import decode_event
from gtidkit.binlog.cursor import Writer
from gtidkit.binlog.events.control import HeartbeatV2Event
from gtidkit.binlog.file import read_previous_gtids
from gtidkit.binlog.header import EventHeader
from gtidkit.errors import BinlogDecodeError, MySQLError
from gtidkit.gtid import GtidSet
from gtidkit.mysql_errors import message, mysql_error

log = logging.getLogger("gtidkit.server")

#: COM_BINLOG_DUMP flag: send EOF at the end of the binlog instead of waiting (``rpl_constants.h``).
BINLOG_DUMP_NON_BLOCK = 0x01
#: COM_BINLOG_DUMP_GTID flag (8.0.26+): heartbeats as HEARTBEAT_LOG_EVENT_V2 (64-bit position).
USE_HEARTBEAT_EVENT_V2 = 0x02
#: The command bytes served by the source role.
COM_BINLOG_DUMP = 0x12
COM_REGISTER_SLAVE = 0x15
COM_BINLOG_DUMP_GTID = 0x1E

BIN_LOG_HEADER_SIZE = 4
LOG_EVENT_HEADER_LEN = 19
BINLOG_CHECKSUM_LEN = 4
LOG_EVENT_BINLOG_IN_USE_F = 0x0001
LOG_EVENT_ARTIFICIAL_F = 0x0020
#: header field offsets (``binlog_event.h``)
EVENT_TYPE_OFFSET = 4
EVENT_LEN_OFFSET = 9
LOG_POS_OFFSET = 13
FLAGS_OFFSET = 17
#: FDE body: binlog_version (2) + server_version (50), then create_timestamp (``ST_CREATED_OFFSET``)
FDE_CREATED_OFFSET = LOG_EVENT_HEADER_LEN + 2 + 50
#: checksum algorithms as ``binlog_checksum_typelib`` orders them (``enum_binlog_checksum_alg``)
CHECKSUM_OFF, CHECKSUM_CRC32, CHECKSUM_UNDEF = 0, 1, 255
_CHECKSUM_NAMES = {"NONE": CHECKSUM_OFF, "CRC32": CHECKSUM_CRC32}
#: The dump thread's stages (PROCESSLIST State), 8.0.26+ wording (manual "Replication Source Thread States";
#: ``Binlog_sender::run`` / ``wait_new_events``): sending a file, idle at the end of the binlog, between two
#: files, stopping.
STAGE_SENDING = "Sending binlog event to replica"
STAGE_WAITING = "Source has sent all binlog to replica; waiting for more updates"
STAGE_SWITCHING = "Finished reading one binlog; switching to next binlog"
STAGE_FINALIZING = "Waiting to finalize termination"
_READ_CHUNK = 1 << 16
#: MYSQL_ERRMSG_SIZE: longer 1236 texts for purged GTIDs use the "too long to print" wording
MYSQL_ERRMSG_SIZE = 512


class DumpError(Exception):
    """A fatal dump error: ``message`` goes to the replica as ERR 1236 (``Binlog_sender::set_fatal_error``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class DumpStopped(Exception):
    """The sender was told to stop (KILL, a newer dump from the same replica, server shutdown, closed socket)."""


# --------------------------------------------------------------------------------------------- the request
@dataclass(frozen=True, slots=True)
class DumpRequest:
    """One COM_BINLOG_DUMP (0x12) or COM_BINLOG_DUMP_GTID (0x1e) request (``rpl_source.cc``).

    COM_BINLOG_DUMP: ``pos u32, flags u16, server_id u32, file name (rest of packet)``.
    COM_BINLOG_DUMP_GTID: ``flags u16, server_id u32, name_size u32, name, pos u64, data_size u32, data`` where data
    is the replica's GTID set in the Previous_gtids encoding.

    Attributes:
        command: 0x12 or 0x1e.
        flags: ``BINLOG_DUMP_NON_BLOCK`` (1), ``USE_HEARTBEAT_EVENT_V2`` (2); other bits ignored.
        server_id: the replica's server_id (0 = mysqlbinlog-style non-blocking dump).
        file: start file as sent ("" = none; a name whose first byte is NUL counts as none, as MySQL's
            ``m_start_file[0] != '\\0'`` test: python-mysql-replication sends ``\\0\\0\\0``).
        pos: start position.
        gtids: the replica's GTID set (GTID protocol), else None.
    """

    command: int
    flags: int
    server_id: int
    file: str
    pos: int
    gtids: GtidSet | None

    @property
    def non_blocking(self) -> bool:
        """MySQL's ``!m_wait_new_events``: the NON_BLOCK flag or server_id 0 (mysqlbinlog's old convention)."""
        return self.server_id == 0 or bool(self.flags & BINLOG_DUMP_NON_BLOCK)

    @classmethod
    def decode(cls, command: int, body: bytes) -> DumpRequest:
        """Parse the body after the command byte.

        Raises:
            MySQLError: 1835 ER_MALFORMED_PACKET (too short, name too long), 1773 (bad GTID set encoding).
        """
        b = bytes(body)
        try:
            if command == COM_BINLOG_DUMP:
                pos, flags, server_id = struct.unpack_from("<IHI", b, 0)
                name = b[10:]
                return cls(command, flags, server_id, _name(name), pos, None)
            flags, server_id, name_size = struct.unpack_from("<HII", b, 0)
            p = 10
            if name_size >= 512 or p + name_size > len(b):  # FN_REFLEN + 1 buffer
                raise mysql_error(1835)
            name = b[p : p + name_size]
            p += name_size
            (pos,) = struct.unpack_from("<Q", b, p)
            (data_size,) = struct.unpack_from("<I", b, p + 8)
            p += 12
            if p + data_size > len(b):
                raise mysql_error(1835)
            gtids = GtidSet.decode(b[p : p + data_size])
            return cls(command, flags, server_id, _name(name), pos, gtids)
        except struct.error as err:
            raise mysql_error(1835) from err

    def encode(self) -> bytes:
        """The body after the command byte (mirror of :meth:`decode`): what a client such as mysqlbinlog's
        ``--read-from-remote-source`` sends. A GTID request carries its file name and position too (the sender
        starts at that file when one is named, else at the first file holding a GTID the set lacks)."""
        name = self.file.encode("utf-8", "surrogateescape")
        if self.command == COM_BINLOG_DUMP:
            return struct.pack("<IHI", self.pos & 0xFFFFFFFF, self.flags, self.server_id) + name
        data = (self.gtids if self.gtids is not None else GtidSet()).encode()
        return (
            struct.pack("<HII", self.flags, self.server_id, len(name))
            + name
            + struct.pack("<QI", self.pos, len(data))
            + data
        )


def _name(raw: bytes) -> str:
    raw = raw.split(b"\0", 1)[0]  # C string: MySQL reads up to the first NUL
    return raw.decode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------------------------- artificial events
def _checksum(event: bytearray) -> None:
    """Write the CRC32 of ``event[:-4]`` into its last 4 bytes (``calc_event_checksum``)."""
    struct.pack_into(
        "<I", event, len(event) - BINLOG_CHECKSUM_LEN, zlib.crc32(bytes(event[:-BINLOG_CHECKSUM_LEN]))
    )


def artificial_event(
    type_code: int, body: bytes, *, server_id: int, log_pos: int, flags: int, crc: bool
) -> bytes:
    """An event the sender makes up (fake Rotate, Heartbeat): header timestamp 0, optional CRC32 footer.

    Args:
        type_code: event type (4 Rotate, 27 Heartbeat, 41 Heartbeat v2).
        body: the event body.
        server_id: the source's server_id.
        log_pos: header log_pos (0 for the fake Rotate; the read position for heartbeats, truncated to 32 bits).
        flags: header flags (0x20 ARTIFICIAL for the fake Rotate, 0 for heartbeats).
        crc: append a CRC32 footer.
    """
    size = LOG_EVENT_HEADER_LEN + len(body) + (BINLOG_CHECKSUM_LEN if crc else 0)
    header = EventHeader(0, type_code, server_id, size, log_pos & 0xFFFFFFFF, flags).encode()
    event = bytearray(header + body + (b"\0" * BINLOG_CHECKSUM_LEN if crc else b""))
    if crc:
        _checksum(event)
    return bytes(event)


def fake_rotate_event(file: str, pos: int, *, server_id: int, crc: bool) -> bytes:
    """The fake Rotate sent before each file (``Binlog_sender::fake_rotate_event``)."""
    body = struct.pack("<Q", pos) + file.encode("utf-8", "surrogateescape")
    return artificial_event(
        EventType.ROTATE_EVENT, body, server_id=server_id, log_pos=0, flags=LOG_EVENT_ARTIFICIAL_F, crc=crc
    )


def heartbeat_event(file: str, pos: int, *, server_id: int, crc: bool, v2: bool) -> bytes:
    """A Heartbeat: v1 (27) body = file name, log_pos = ``pos``; v2 (41) TLV body with a 64-bit position."""
    if v2:
        w = Writer()
        HeartbeatV2Event(file, pos).encode(w, None)  # type: ignore[arg-type]  # the TLV body needs no FDE
        return artificial_event(
            EventType.HEARTBEAT_LOG_EVENT_V2, w.getvalue(), server_id=server_id, log_pos=pos, flags=0, crc=crc
        )
    return artificial_event(
        EventType.HEARTBEAT_LOG_EVENT,
        file.encode("utf-8", "surrogateescape"),
        server_id=server_id,
        log_pos=pos,
        flags=0,
        crc=crc,
    )


# --------------------------------------------------------------------------------------------- file reading
class _Reader:
    """Reads whole events of one binlog file up to a limit (never caches bytes past it: the active file grows)."""

    def __init__(self, path: Path, verify_checksum: bool) -> None:
        self.fh = open(path, "rb")  # noqa: SIM115 - closed by close()
        self.verify_checksum = verify_checksum
        self.checksum_alg = CHECKSUM_OFF
        self.position = BIN_LOG_HEADER_SIZE
        #: end of the last bytes read (MySQL's ``reader.position()`` in the error suffix)
        self.read_to = BIN_LOG_HEADER_SIZE
        self._buf = b""
        self._buf_at = 0

    def close(self) -> None:
        self.fh.close()

    def size(self) -> int:
        self.fh.seek(0, 2)
        return self.fh.tell()

    def _bytes(self, pos: int, n: int, limit: int) -> bytes | None:
        end = pos + n
        if end > limit:
            return None
        if not (self._buf_at <= pos and end <= self._buf_at + len(self._buf)):
            self.fh.seek(pos)
            self._buf = self.fh.read(max(n, min(_READ_CHUNK, limit - pos)))
            self._buf_at = pos
            if len(self._buf) < n:
                return None
        return self._buf[pos - self._buf_at : end - self._buf_at]

    def read_event(self, limit: int) -> bytes | None:
        """The event at ``self.position`` (None at ``limit``); advances the position.

        Raises:
            DumpError: a truncated event or a CRC mismatch (``log_read_error_msg`` texts).
        """
        pos = self.position
        if pos >= limit:
            return None
        header = self._bytes(pos, LOG_EVENT_HEADER_LEN, limit)
        if header is None:
            raise DumpError("binlog truncated in the middle of event; consider out of disk space on source")
        size = int.from_bytes(header[EVENT_LEN_OFFSET : EVENT_LEN_OFFSET + 4], "little")
        if size < LOG_EVENT_HEADER_LEN:
            raise DumpError("bogus data in log event")
        raw = self._bytes(pos, size, limit)
        if raw is None:
            raise DumpError("binlog truncated in the middle of event; consider out of disk space on source")
        if raw[EVENT_TYPE_OFFSET] == EventType.FORMAT_DESCRIPTION_EVENT:
            self.checksum_alg = fde_checksum_alg(raw)
        self.read_to = pos + size  # the bytes were read even when the check below fails (reader.position())
        if self.verify_checksum and self.checksum_alg == CHECKSUM_CRC32 and not _crc_ok(raw):
            raise DumpError("event read from binlog did not pass crc check")
        self.position = pos + size
        return raw


def _crc_ok(raw: bytes) -> bool:
    if raw[EVENT_TYPE_OFFSET] == EventType.FORMAT_DESCRIPTION_EVENT:  # CRC computed with IN_USE cleared
        b = bytearray(raw)
        b[FLAGS_OFFSET] &= ~LOG_EVENT_BINLOG_IN_USE_F & 0xFF
        raw = bytes(b)
    return zlib.crc32(raw[:-BINLOG_CHECKSUM_LEN]) == int.from_bytes(raw[-BINLOG_CHECKSUM_LEN:], "little")


def fde_checksum_alg(raw: bytes) -> int:
    """The checksum algorithm byte of a Format_description_event (5.6.1+ layout: just before the CRC, or last).

    MySQL's ``Log_event_footer::get_checksum_alg``; returns 0 (OFF), 1 (CRC32) or 255 (UNDEF: no such byte).
    """
    # the FDE's own post-header length (entry FORMAT_DESCRIPTION_EVENT - 1 of the table) is its body up to the
    # algorithm byte: binlog_version 2 + server_version 50 + create_timestamp 4 + header_length 1 + the table
    table = LOG_EVENT_HEADER_LEN + 2 + 50 + 4 + 1
    at = table + EventType.FORMAT_DESCRIPTION_EVENT - 1
    if len(raw) <= at:
        return CHECKSUM_UNDEF
    alg_at = LOG_EVENT_HEADER_LEN + raw[at]
    if alg_at >= len(raw):
        return CHECKSUM_UNDEF  # pre-5.6.1: no algorithm byte
    alg = raw[alg_at]
    return alg if alg in (CHECKSUM_OFF, CHECKSUM_CRC32) else CHECKSUM_UNDEF


# --------------------------------------------------------------------------------------------- the sender
class BinlogSender:
    """One dump thread's sender (MySQL's ``Binlog_sender``), run in the connection's thread.

    Args:
        server: the engine ``Server`` (``.binlog`` is the dump seam, ``.gtid_state``, ``.globals``,
            ``.server_uuid``).
        request: the parsed :class:`DumpRequest`.
        send: ``send(payload)`` writes one packet (the protocol's ``StreamIO.send``); OSError = replica gone.
        replica_checksum: the value of ``@source_binlog_checksum`` (else ``@master_binlog_checksum``) in the dump
            connection's session ("CRC32" / "NONE"), None when unset.
        heartbeat_period_ns: ``@source_heartbeat_period`` (else ``@master_heartbeat_period``), nanoseconds; 0 = none.
        should_stop: checked between events and at each wake-up while waiting: True = stop quietly (KILL,
            shutdown), a text = stop with that fatal error (a newer dump of the same replica), False = go on.
            Whoever makes it answer non-False while the sender may wait calls ``server.binlog.wake_readers()``
            (the sender does not poll: MySQL's ``THD::awake`` signalling ``update_cond``).
        verify_checksum: ``source_verify_checksum``: check each event's CRC32 before sending it.
        on_stage: called with each new stage (``STAGE_*``, what SHOW PROCESSLIST shows in State), from the
            sender's thread.
    """

    def __init__(
        self,
        server: Any,
        request: DumpRequest,
        *,
        send: Callable[[bytes], None],
        replica_checksum: str | None = None,
        heartbeat_period_ns: int = 0,
        should_stop: Callable[[], bool | str] = lambda: False,
        verify_checksum: bool = False,
        on_stage: Callable[[str], None] | None = None,
    ) -> None:
        self.server = server
        self._on_stage = on_stage
        #: the current stage (``STAGE_*``), "" before :meth:`run`
        self.stage = ""
        self.request = request
        self._send = send
        self.should_stop = should_stop
        self.verify_checksum = verify_checksum
        self.heartbeat_period = max(0, int(heartbeat_period_ns)) / 1e9
        if replica_checksum is None:
            self.replica_alg = CHECKSUM_UNDEF
        else:
            self.replica_alg = _CHECKSUM_NAMES.get(str(replica_checksum).upper(), CHECKSUM_UNDEF)
        #: ``m_event_checksum_alg``: the replica's until the first FDE, then the current file's
        self.event_alg = self.replica_alg
        self.gtid_protocol = request.gtids is not None
        self.exclude = request.gtids
        self.check_previous_gtids = self.gtid_protocol
        self.clear_fd_created = not self.gtid_protocol
        self.source_server_id = 0
        self.file = ""  # the file being sent (m_linfo.log_file_name, base name)
        self.last_file: str | None = None
        self.last_pos = 0
        self._reader: _Reader | None = None
        self._fde: Any = None  # the current file's decoded FDE (to decode its Gtid events)
        self._last_sent = time.monotonic()
        #: events and heartbeats sent, for tests and SHOW PROCESSLIST-like reporting
        self.events_sent = 0
        self.heartbeats_sent = 0
        self.started = threading.Event()

    # -- sending -------------------------------------------------------------------------------------------
    @property
    def checksum_on(self) -> bool:
        """``event_checksum_on()``: the current algorithm is CRC32."""
        return self.event_alg == CHECKSUM_CRC32

    def _packet(self, event: bytes) -> None:
        self._send(b"\x00" + event)
        self._last_sent = time.monotonic()
        self.events_sent += 1

    def _heartbeat(self, pos: int) -> None:
        self._packet(
            heartbeat_event(
                self.file,
                pos,
                server_id=self.source_server_id,
                crc=self.checksum_on,
                v2=bool(self.request.flags & USE_HEARTBEAT_EVENT_V2),
            )
        )
        self.heartbeats_sent += 1

    def _set_stage(self, stage: str) -> None:
        """``THD_STAGE_INFO``: record ``stage`` and report it."""
        self.stage = stage
        if self._on_stage is not None:
            self._on_stage(stage)

    def _stopping(self) -> bool:
        return bool(self.should_stop())

    # -- start ---------------------------------------------------------------------------------------------
    def _init(self) -> tuple[str, int]:
        """``Binlog_sender::init`` + ``check_start_file``: the start (file, pos) or a DumpError."""
        server = self.server
        binlog = server.binlog
        if binlog is None:
            raise DumpError("Binary log is not open")
        self.source_server_id = int(server.globals.get("server_id") or 0)
        if self.source_server_id == 0:
            raise DumpError("Misconfigured source - source server_id is 0")
        if self.gtid_protocol:
            mode = str(server.globals.get("gtid_mode"))
            if mode.upper() != "ON":
                raise DumpError(
                    "The replication sender thread cannot start in AUTO_POSITION mode: this server has "
                    f"GTID_MODE = {mode.upper()} instead of ON."
                )
        req = self.request
        server.catch_up()  # a server of several processes: what the other workers committed, purged or reset
        names = binlog.existing_files()
        name = req.file
        if not name and self.gtid_protocol:
            assert self.exclude is not None
            executed = server.gtid_state.executed()
            start = binlog.locate(
                self.exclude,
                gtid_purged=server.gtid_state.purged(),
                gtid_executed=executed,
                server_uuid=server.server_uuid,
            )
            if start.replica_has_more:
                raise DumpError(message(1885))
            if start.purged_missing:
                raise DumpError(_missing_gtids_text(self.exclude, start.purged_missing))
            if start.first_file is None:
                # report_missing_gtids: "missing" is the replica's set minus the oldest file's Previous_gtids
                oldest = names[0] if names else None
                previous = _previous_gtids(binlog, oldest) if oldest else GtidSet()
                raise DumpError(_missing_gtids_text(self.exclude, self.exclude - previous))
            name = start.first_file
            self.check_previous_gtids = False
            first = _first_gtid(binlog.path(name))
            self.clear_fd_created = first is not None and first in self.exclude
        if name:
            name = name.rsplit("/", 1)[-1]
            if name not in names:
                raise DumpError("Could not find first log file name in binary log index file")
        elif names:
            name = names[0]
        else:
            raise DumpError("Could not find first log file name in binary log index file")
        if req.pos < BIN_LOG_HEADER_SIZE:
            raise DumpError("Client requested source to start replication from position < 4")
        try:
            size = binlog.path(name).stat().st_size
        except OSError as err:
            raise DumpError("Could not open log file") from err
        if req.pos > size:
            raise DumpError("Client requested source to start replication from position > file size")
        return name, req.pos

    # -- the loop ------------------------------------------------------------------------------------------
    def run(self) -> None:
        """Stream until the end (non-blocking), a stop request or an error.

        Raises:
            DumpError: a fatal error (the caller sends ERR 1236 with ``err.message``).
            DumpStopped: told to stop; nothing more may be sent.
            OSError: the replica's socket failed.
        """
        file, pos = self._init()
        self.started.set()
        binlog = self.server.binlog
        try:
            while True:
                self._check_stop()
                self.file = file
                self._packet(
                    fake_rotate_event(file, pos, server_id=self.source_server_id, crc=self.checksum_on)
                )
                self._fde = None
                try:
                    self._reader = _Reader(binlog.path(file), self.verify_checksum)
                except OSError as err:
                    raise DumpError("Could not open log file") from err
                self._set_stage(STAGE_SENDING)
                if not self._send_binlog(pos):
                    return  # non-blocking end
                self._reader.close()
                self._reader = None
                self._set_stage(STAGE_SWITCHING)
                names = binlog.existing_files()
                if file not in names or names.index(file) + 1 >= len(names):
                    raise DumpError("could not find next log")
                file = names[names.index(file) + 1]
                pos = BIN_LOG_HEADER_SIZE
        except DumpError as err:
            raise DumpError(self.with_suffix(err.message)) from None
        finally:
            if self._reader is not None:
                self._reader.close()
                self._reader = None
            self._set_stage(STAGE_FINALIZING)

    def with_suffix(self, text: str) -> str:
        """``text`` with MySQL's "; the first event ..." suffix when a file is open (``Binlog_sender::run``)."""
        if self._reader is None:
            return text
        last_file = f"./{self.last_file}" if self.last_file is not None else "(null)"
        return (
            f"{text}; the first event '{self.request.file}' at {self.request.pos}, the last event read from "
            f"'{last_file}' at {self.last_pos}, the last byte read from './{self.file}' at "
            f"{max(self._reader.position, self._reader.read_to)}."
        )

    def _check_stop(self) -> None:
        why = self.should_stop()
        if isinstance(why, str):
            raise DumpError(why)
        if why:
            raise DumpStopped()

    def _read(self, limit: int) -> bytes | None:
        assert self._reader is not None
        raw = self._reader.read_event(limit)
        if raw is not None:
            self.last_file, self.last_pos = self.file, self._reader.position
        return raw

    def _send_binlog(self, start_pos: int) -> bool:
        """``send_binlog``: FDE, optional Previous_gtids check, then events. False = non-blocking end reached."""
        reader = self._reader
        assert reader is not None
        size_now = reader.size()
        fde = self._read(size_now)
        if fde is None or fde[EVENT_TYPE_OFFSET] != EventType.FORMAT_DESCRIPTION_EVENT:
            raise DumpError("Could not find format_description_event in binlog file")
        self.event_alg = reader.checksum_alg
        if self.replica_alg == CHECKSUM_UNDEF and self.checksum_on:
            log.warning(
                "Source is configured to log replication events with checksum, but will not send such events "
                "to replicas that cannot process them"
            )
            raise DumpError(
                "Replica can not handle replication events with the checksum that source is configured to log"
            )
        event = bytearray(fde)
        event[FLAGS_OFFSET] &= ~LOG_EVENT_BINLOG_IN_USE_F & 0xFF
        updated = False
        if self.gtid_protocol:
            if self.clear_fd_created:
                struct.pack_into("<I", event, FDE_CREATED_OFFSET, 0)
                updated = True
        elif start_pos > BIN_LOG_HEADER_SIZE:
            struct.pack_into("<I", event, LOG_POS_OFFSET, 0)
            struct.pack_into("<I", event, FDE_CREATED_OFFSET, 0)
            updated = True
        if self.checksum_on and updated:
            _checksum(event)
        self._packet(bytes(event))
        if start_pos == BIN_LOG_HEADER_SIZE:
            start_pos = reader.position
        if self.check_previous_gtids:
            nxt = self._read(reader.size())
            if nxt is None or nxt[EVENT_TYPE_OFFSET] != EventType.PREVIOUS_GTIDS_LOG_EVENT:
                return True  # a file without Previous_gtids is skipped under the GTID protocol
        reader.position = start_pos
        while True:
            end = self._end_pos(reader.position)
            if end is None:
                return False
            self._send_events(end if end >= 0 else reader.size(), inactive=end < 0)
            if end < 0:
                return True

    def _end_pos(self, read_pos: int) -> int | None:
        """``get_binlog_end_pos``: the readable end of the file being sent; -1 = not the active file any more
        (read to its end); None = non-blocking dump at the end of the data."""
        binlog = self.server.binlog
        while True:
            self._check_stop()
            end = binlog.end_position() if binlog is not None else None
            if end is None or end.file != self.file:
                return -1
            if read_pos < end.pos:
                return end.pos
            if self.request.non_blocking:
                return None
            self._wait(read_pos)

    def _wait(self, read_pos: int) -> None:
        """``wait_new_events``: block on the binlog's update condition (stage :data:`STAGE_WAITING`), with
        heartbeats when a period is set; no polling: a stop request wakes it (see ``should_stop``)."""
        binlog = self.server.binlog
        hb = self.heartbeat_period
        deadline = time.monotonic() + hb if hb > 0 else None
        before = self.stage
        self._set_stage(STAGE_WAITING)  # ENTER_COND
        try:
            while True:
                self._check_stop()
                if binlog is None:
                    raise DumpStopped()
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                moved = binlog.wait_for_update(self.file, read_pos, timeout, interrupted=self._stopping)
                if moved is not None:
                    self._check_stop()
                    if moved.file != self.file or moved.pos > read_pos:
                        return
                    # woken without progress: the log was closed (server shutdown), the dump ends with it
                    raise DumpStopped()
                if deadline is not None and time.monotonic() >= deadline:
                    self._heartbeat(read_pos)
                    deadline = time.monotonic() + hb
        finally:
            self._set_stage(before)  # EXIT_COND

    def _send_events(self, end: int, *, inactive: bool) -> None:
        """``send_events``: events up to ``end``, skipping the replica's GTIDs with heartbeats after skips."""
        reader = self._reader
        assert reader is not None
        exclude_group_end = 0
        in_exclude = False
        while reader.position < end:
            self._check_stop()
            raw = self._read(end)
            if raw is None:
                break
            log_pos = reader.position
            etype = raw[EVENT_TYPE_OFFSET]
            if self.exclude is not None:
                if etype in (EventType.GTID_LOG_EVENT, EventType.GTID_TAGGED_LOG_EVENT):
                    if self._fde is None:
                        self._fde = self._file_fde()
                    in_exclude = _gtid_of(raw, self._fde) in self.exclude
                elif etype == EventType.ROTATE_EVENT:
                    in_exclude = False
            if in_exclude:
                if self.heartbeat_period > 0 and time.monotonic() - self._last_sent >= self.heartbeat_period:
                    self._heartbeat(log_pos)
                    exclude_group_end = 0
                else:
                    exclude_group_end = log_pos
                continue
            if exclude_group_end:
                self._heartbeat(exclude_group_end)
                exclude_group_end = 0
            self._packet(raw)
        if in_exclude:
            self._heartbeat(reader.position)

    def _file_fde(self) -> Any:
        """The current file's FDE, decoded (to decode Gtid events, whose layout it describes)."""
        with open(self.server.binlog.path(self.file), "rb") as fh:
            fh.seek(BIN_LOG_HEADER_SIZE)
            head = fh.read(LOG_EVENT_HEADER_LEN)
            size = int.from_bytes(head[EVENT_LEN_OFFSET : EVENT_LEN_OFFSET + 4], "little")
            raw = head + fh.read(size - LOG_EVENT_HEADER_LEN)
        try:
            return decode_event(raw, None, verify_checksum=False).event
        except BinlogDecodeError as err:
            raise DumpError("bogus data in log event") from err


def _gtid_of(raw: bytes, fde: Any) -> Any:
    try:
        return decode_event(raw, fde, verify_checksum=False).event.gtid
    except (BinlogDecodeError, MySQLError) as err:
        raise DumpError("bogus data in log event") from err


def _first_gtid(path: Path) -> Any:
    """The GTID of the first Gtid event of a file (None when there is none yet)."""
    try:
        for pe in read_events(path, expand_payloads=False, stop_at_torn_tail=True):
            t = pe.header.type_code
            if t in (EventType.GTID_LOG_EVENT, EventType.GTID_TAGGED_LOG_EVENT):
                return pe.event.gtid
            if t == EventType.ANONYMOUS_GTID_LOG_EVENT:
                return None
    except (OSError, BinlogDecodeError):
        return None
    return None


def _previous_gtids(binlog: Any, name: str) -> GtidSet:
    try:
        return read_previous_gtids(binlog.path(name)) or GtidSet()
    except (OSError, BinlogDecodeError):
        return GtidSet()


def _missing_gtids_text(replica: GtidSet, missing: GtidSet) -> str:
    """ER_SOURCE_HAS_PURGED_REQUIRED_GTIDS as ``report_missing_purged_gtids`` words it (8.0.26+): the two sets
    in MySQL's multi-line text, or the "too long to print" sentence when the message would exceed 512 bytes."""
    info = (
        f"The GTID set sent by the replica is '{replica.to_text()}', and the missing transactions are "
        f"'{missing.to_text()}'"
    )
    text = message(1789, info)
    if len(text) > MYSQL_ERRMSG_SIZE:
        log.warning(
            "The missing transactions are '%s'", missing.to_text()
        )  # ER_FOUND_MISSING_GTIDS goes to the error log
        text = message(
            1789,
            "The GTID sets and the missing purged transactions are too long to print in this message. For more "
            "information, please see the source's error log or the manual for GTID_SUBTRACT",
        )
    return text


__all__ = [
    "BINLOG_DUMP_NON_BLOCK",
    "COM_BINLOG_DUMP",
    "COM_BINLOG_DUMP_GTID",
    "COM_REGISTER_SLAVE",
    "USE_HEARTBEAT_EVENT_V2",
    "BinlogSender",
    "DumpError",
    "DumpRequest",
    "DumpStopped",
    "artificial_event",
    "fake_rotate_event",
    "fde_checksum_alg",
    "heartbeat_event",
]
