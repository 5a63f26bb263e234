"""Sans-I/O server side of one MySQL client/server connection (h11's ``Connection``, for MySQL).

Sources: MySQL DEVDOC ``page_protocol_connection_lifecycle``, ``page_protocol_connection_phase``,
``page_protocol_command_phase``, ``page_protocol_com_query_response``; ``sql/protocol_classic.cc``.

Theory of operation
-------------------
Bytes from the client go in with :meth:`ServerConnection.receive_data`; :meth:`ServerConnection.next_event`
hands out one client message at a time (:data:`NEED_DATA` when a packet has not fully arrived, :data:`PAUSED`
when it is the server's turn to speak). Server messages go out through :meth:`ServerConnection.send`, which
returns the bytes to write. No socket, thread or clock is touched here.

The conversation alternates, so the state says whose turn it is:

* the server speaks in ``CONNECTED`` (Handshake), ``AUTH`` (auth switch, more data, OK, ERR),
  ``RESPONDING`` / ``SENDING_COLUMNS`` / ``SENDING_ROWS`` / ``FIELD_LIST`` (answers to a command);
* the client speaks in ``AWAIT_RESPONSE`` (HandshakeResponse41 or SSLRequest), ``AWAIT_AUTH_DATA``,
  ``COMMAND`` and ``LOCAL_INFILE`` (a file's packets after the server's LOCAL INFILE request, up to the empty
  packet that ends it and gives the turn back to the server in ``RESPONDING``).

Transitions are two tables, one per direction, keyed by (state, message class); a message that has no entry in
the current state is a protocol violation: :class:`~gtidkit.errors.RemoteProtocolError` for the client's,
:class:`~gtidkit.errors.LocalProtocolError` for ours. Either moves the connection to ``ERROR``. A few
transitions depend on the message's contents as well (an OK or EOF with SERVER_MORE_RESULTS_EXISTS keeps the
server responding; caching_sha2_password's fast_auth_success marker keeps it in ``AUTH``); they are the
functions in :data:`_SERVER_RULES`.

Sequence ids: every packet carries the next id; each command resets it to 0. A client packet with the wrong id
raises RemoteProtocolError 1156 (ER_NET_PACKETS_OUT_OF_ORDER), a client packet longer than
``max_allowed_packet`` RemoteProtocolError 1153 (ER_NET_PACKET_TOO_LARGE).

CLIENT_DEPRECATE_EOF is applied here: with it, the EOF after column definitions is not sent and the EOF that
closes the rows goes out as an OK packet with header 0xFE, so callers always send :class:`Eof`.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Callable
from typing import Any

from gtidkit.errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from gtidkit.protocol.constants import (
    CAP_DEPRECATE_EOF,
    CAP_PROTOCOL_41,
    CAP_SESSION_TRACK,
    EOF_HEADER,
    OK_HEADER,
    SERVER_CAPABILITIES,
    STATUS_MORE_RESULTS_EXISTS,
    STATUS_SESSION_STATE_CHANGED,
    Capability,
)
from gtidkit.protocol.messages import (
    NON_TEXT_TYPES,
    AuthData,
    AuthMoreData,
    AuthSwitchRequest,
    BinaryRow,
    ColumnCount,
    ColumnDefinition,
    ComChangeUser,
    ComFieldList,
    ComQuit,
    ComStmtClose,
    ComStmtSendLongData,
    Eof,
    Err,
    Handshake,
    HandshakeResponse,
    LocalInfileData,
    LocalInfileRequest,
    Ok,
    SSLRequest,
    StmtPrepareOk,
    TextRow,
    binary_value,
    decode_command,
    encode_binary_rows,
    encode_text_rows,
    ok_payload,
)
from gtidkit.protocol.packets import HEADER_LENGTH, MAX_PAYLOAD, PacketReader, frame
from gtidkit.protocol.row_frames import frame_rows
from gtidkit.protocol.wire import lenenc_int
from gtidkit.protocol.wire_fast import binary_rows


class State(enum.Enum):
    """Connection states (see the module docstring)."""

    CONNECTED = "CONNECTED"
    AWAIT_RESPONSE = "AWAIT_RESPONSE"
    AUTH = "AUTH"
    AWAIT_AUTH_DATA = "AWAIT_AUTH_DATA"
    COMMAND = "COMMAND"
    RESPONDING = "RESPONDING"
    SENDING_COLUMNS = "SENDING_COLUMNS"
    SENDING_ROWS = "SENDING_ROWS"
    FIELD_LIST = "FIELD_LIST"
    LOCAL_INFILE = "LOCAL_INFILE"
    CLOSED = "CLOSED"
    ERROR = "ERROR"


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: next_event(): a packet has not fully arrived yet.
NEED_DATA: Any = _Sentinel("NEED_DATA")
#: next_event(): it is the server's turn (the client's pipelined bytes wait in the buffer).
PAUSED: Any = _Sentinel("PAUSED")


class ConnectionClosed:
    """Event: the client closed its end (``receive_data(b"")``) at a packet boundary."""

    def __repr__(self) -> str:
        return "ConnectionClosed()"


class Statistics:
    """The answer to COM_STATISTICS: a bare string packet (no header byte)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def encode(self) -> bytes:
        """The payload."""
        return self.text.encode()


_CLIENT_TURN = {State.AWAIT_RESPONSE, State.AWAIT_AUTH_DATA, State.COMMAND, State.LOCAL_INFILE}

#: (state, client message class) -> next state. Commands not listed answer in RESPONDING.
_CLIENT_TRANSITIONS: dict[tuple[State, type], State] = {
    (State.AWAIT_RESPONSE, SSLRequest): State.AWAIT_RESPONSE,
    (State.AWAIT_RESPONSE, HandshakeResponse): State.AUTH,
    (State.AWAIT_AUTH_DATA, AuthData): State.AUTH,
    (State.COMMAND, ComQuit): State.CLOSED,
    (State.COMMAND, ComStmtClose): State.COMMAND,
    (State.COMMAND, ComStmtSendLongData): State.COMMAND,
    (State.COMMAND, ComFieldList): State.FIELD_LIST,
    (State.COMMAND, ComChangeUser): State.AUTH,
    # the file of a LOCAL INFILE request: its empty last packet gives the turn back (RESPONDING, in next_event)
    (State.LOCAL_INFILE, LocalInfileData): State.LOCAL_INFILE,
}

#: (state, server message class) -> next state.
_SERVER_TRANSITIONS: dict[tuple[State, type], State] = {
    (State.CONNECTED, Handshake): State.AWAIT_RESPONSE,
    (State.CONNECTED, Err): State.CLOSED,
    (State.AUTH, AuthSwitchRequest): State.AWAIT_AUTH_DATA,
    (State.AUTH, AuthMoreData): State.AWAIT_AUTH_DATA,
    (State.AUTH, Ok): State.COMMAND,
    (State.AUTH, Err): State.CLOSED,
    (State.RESPONDING, Ok): State.COMMAND,
    (State.RESPONDING, Err): State.COMMAND,
    (State.RESPONDING, Eof): State.COMMAND,
    (State.RESPONDING, Statistics): State.COMMAND,
    (State.RESPONDING, StmtPrepareOk): State.COMMAND,
    (State.RESPONDING, ColumnCount): State.SENDING_COLUMNS,
    (State.RESPONDING, LocalInfileRequest): State.LOCAL_INFILE,
    (State.SENDING_COLUMNS, ColumnDefinition): State.SENDING_COLUMNS,
    (State.SENDING_COLUMNS, Eof): State.SENDING_ROWS,
    (State.SENDING_COLUMNS, Err): State.COMMAND,
    (State.SENDING_ROWS, TextRow): State.SENDING_ROWS,
    (State.SENDING_ROWS, BinaryRow): State.SENDING_ROWS,
    (State.SENDING_ROWS, Eof): State.COMMAND,
    (State.SENDING_ROWS, Err): State.COMMAND,
    (State.FIELD_LIST, ColumnDefinition): State.FIELD_LIST,
    (State.FIELD_LIST, Eof): State.COMMAND,
    (State.FIELD_LIST, Err): State.COMMAND,
}


def _more_results(msg: Any, new: State) -> State:
    """An OK/EOF with SERVER_MORE_RESULTS_EXISTS ends one result of a multi-result answer, not the answer."""
    if new is State.COMMAND and int(msg.status_flags) & STATUS_MORE_RESULTS_EXISTS:
        return State.RESPONDING
    return new


def _fast_auth(msg: AuthMoreData, new: State) -> State:
    """caching_sha2_password's fast_auth_success (0x03) is followed by the server's OK, not by client data."""
    return State.AUTH if msg.data == b"\x03" else new


_SERVER_RULES: dict[type, Callable[[Any, State], State]] = {
    Ok: _more_results,
    Eof: _more_results,
    AuthMoreData: _fast_auth,
}

#: 3-byte little-endian length fields of short payloads
_HEADERS = tuple(n.to_bytes(3, "little") for n in range(256))

#: MySQL's default max_allowed_packet (64 MiB) and the largest value it accepts (1 GiB).
DEFAULT_MAX_ALLOWED_PACKET = 64 * 1024 * 1024


#: a packet header as one little-endian word: length (3 bytes) | sequence id << 24
_HEADER = struct.Struct("<I")
_SHORT_LENGTHS = tuple(bytes((i,)) for i in range(0xFB))
_NOT_STATE_CHANGED = ~STATUS_SESSION_STATE_CHANGED & 0xFFFF


def _peek_limit(max_allowed_packet: int | None) -> int:
    """What a command's length must stay below for :meth:`ServerConnection.peek_command`: one physical packet
    (below 16 MiB - 1) no longer than ``max_allowed_packet`` (None: no limit)."""
    if max_allowed_packet is None:
        return MAX_PAYLOAD
    return min(MAX_PAYLOAD, max_allowed_packet + 1)


def _add_packet(add: Callable[[bytes], None], payload: bytes, seq: int) -> int:
    """Append one framed payload (split when 16 MiB or longer) to a list's ``append``; returns the next id."""
    n = len(payload)
    if n < MAX_PAYLOAD:
        add(_HEADER.pack(n | seq << 24))
        add(payload)
        return (seq + 1) & 0xFF
    data, seq = frame(payload, seq)
    add(data)
    return seq


def _eof_packet(seq: int, protocol_41: int, warnings: int, status_flags: int) -> bytes:
    """A framed classic EOF packet: what ``Eof(warnings, status_flags).encode(caps)`` frames to."""
    if protocol_41:
        return _EOF_41.pack(5 | seq << 24, EOF_HEADER, warnings, status_flags & _NOT_STATE_CHANGED)
    return _HEADER.pack(1 | seq << 24) + _EOF_ONLY


_EOF_41 = struct.Struct("<IBHH")
#: a framed OK packet without info or session state, counts below 251 (CLIENT_PROTOCOL_41): header word, OK header,
#: affected rows, last insert id, status flags, warnings
_OK_SHORT = struct.Struct("<IBBBHH")
_MORE_OR_STATE_CHANGED = STATUS_MORE_RESULTS_EXISTS | STATUS_SESSION_STATE_CHANGED
_EOF_ONLY = bytes((EOF_HEADER,))


def _frame_binary_text_column(
    rows: Any, seq: int, add: Callable[[bytes], None], ftype: int, unsigned: bool
) -> int:
    """Frame binary-protocol rows of one column whose strings go out as lenenc text (sysbench's ``SELECT c``):
    byte for byte :func:`encode_binary_rows` then framing, in one pass. Returns the next sequence id.

    Raises:
        LocalProtocolError: a row that is not one value wide, or a value its type cannot carry.
    """
    if type(rows) is not list or len(rows) >= _ONE_PASS_ROWS:  # a short list: the loop below (a point select)
        framed = _frame_ascii_column(rows, seq, _BINARY_ROW_HEADERS)
        if framed is not None:
            add(framed[0])
            return framed[1]
    pack = _SHORT_ROW.pack
    for row in rows:
        if len(row) != 1:
            raise LocalProtocolError(f"row of {len(row)} values in a result of 1 columns")
        v = row[0]
        if type(v) is str:
            b = v.encode("utf-8", "surrogateescape")
            m = len(b)
            if m < 0xFB:
                add(pack((m + 3) | seq << 24, 0, m))  # header, row header 0x00, empty bitmap, length byte
                add(b)
                seq = (seq + 1) & 0xFF
                continue
            payload = _ROW_PREFIX + lenenc_int(m) + b
        elif v is None:
            payload = b"\0\x04"
        else:
            payload = _ROW_PREFIX + binary_value(v, ftype, unsigned)
        seq = _add_packet(add, payload, seq)
    return seq


def _frame_ascii_column(rows: Any, seq: int, headers: list[list[str] | None]) -> tuple[bytes, int] | None:
    """Framed rows of one column whose values are all ASCII strings shorter than 251 characters (sysbench's ``c``
    column), or None for anything else (then the caller's general loop frames them, and raises what it raises).

    The common case of a range select, in a few C-level passes instead of a Python loop of calls per row: an ASCII
    ``str`` is its own UTF-8, so each row is a cached header string (packet header, row prefix and the one-byte
    length, all below 256: one latin-1 character per byte) then the value, and one ``join`` + ``encode`` gives the
    bytes. Lists and tuples of at least :data:`_ONE_PASS_ROWS` rows only. ``headers`` is
    :data:`_BINARY_ROW_HEADERS` or :data:`_TEXT_ROW_HEADERS`. Returns (bytes, next sequence id).
    """
    if (type(rows) is not list and type(rows) is not tuple) or len(rows) < _ONE_PASS_ROWS:
        return None  # an iterator is read once, by the general loop; a row or two is faster there
    try:
        values = [v for (v,) in rows]  # ValueError: a row that is not one value wide
        if not "".join(values).isascii():  # TypeError: a value that is not a string
            return None
    except (ValueError, TypeError):
        return None
    parts: list[str] = []
    add = parts.append
    for v in values:
        if type(v) is not str:
            return None  # a str subclass: the general loop's business
        m = len(v)
        if m >= 0xFB:
            return None
        row_headers = headers[m]
        if row_headers is None:
            row_headers = headers[m] = _row_headers(m, headers is _BINARY_ROW_HEADERS)
        add(row_headers[seq])
        add(v)
        seq = (seq + 1) & 0xFF
    return "".join(parts).encode("latin-1"), seq


def _row_headers(m: int, binary: bool) -> list[str]:
    """The 256 header strings (one per sequence id) of a one-column row holding a string of ``m`` bytes: packet
    header (length, sequence id), for a binary row its header byte and empty NULL bitmap, and the length byte."""
    if binary:
        return [_SHORT_ROW.pack((m + 3) | s << 24, 0, m).decode("latin-1") for s in range(256)]
    return [_SHORT_TEXT_ROW.pack((m + 1) | s << 24, m).decode("latin-1") for s in range(256)]


#: framed column definitions kept per connection (see ``ServerConnection._framed_columns``)
_FRAMED_COLUMNS_KEPT = 64
#: fewer rows than this are framed by the plain loop (the one-pass path's set-up costs more for them)
_ONE_PASS_ROWS = 4
#: row-header strings by string length (see :func:`_frame_ascii_column`), filled as lengths are met
_BINARY_ROW_HEADERS: list[list[str] | None] = [None] * 0xFB
_TEXT_ROW_HEADERS: list[list[str] | None] = [None] * 0xFB
#: packet header | row header and NULL bitmap (two zero bytes) | one-byte length of a short string
_SHORT_ROW = struct.Struct("<IHB")
#: packet header | one-byte length of a short string (a one-column text row)
_SHORT_TEXT_ROW = struct.Struct("<IB")
#: a binary row's header byte and the empty NULL bitmap of a one-column row
_ROW_PREFIX = b"\0\0"


class ServerConnection:
    """The server side of one connection, as a state machine over bytes.

    Args:
        capabilities: the capability flags the server offers (``SERVER_CAPABILITIES``; add
            ``Capability.SSL`` when TLS is available).
        max_allowed_packet: largest client payload accepted (bytes).

    Attributes:
        state: the current :class:`State`.
        client_capabilities: what the client asked for (after its HandshakeResponse/SSLRequest).
        capabilities: the negotiated set (offered & asked) that shapes every later packet.
        tls_requested: the client sent an SSLRequest (the caller must switch the stream to TLS now).
    """

    def __init__(
        self,
        capabilities: int = SERVER_CAPABILITIES,
        max_allowed_packet: int = DEFAULT_MAX_ALLOWED_PACKET,
    ) -> None:
        self.server_capabilities = Capability(capabilities)
        self.client_capabilities = Capability(0)
        self.capabilities = Capability(capabilities)
        self._caps = int(capabilities)
        self.state = State.CONNECTED
        self.tls_requested = False
        self._reader = PacketReader(max_allowed_packet)
        #: the length a command :meth:`peek_command` takes must stay below: one physical packet, at most
        #: ``max_allowed_packet``
        self._peek_limit = _peek_limit(max_allowed_packet)
        self._seq = 0
        self._peer_closed = False
        self._columns_left = 0
        self._row_width = 0
        #: id(column payloads) -> (those payloads, first sequence id, warning count, status flags, the framed column
        #: count, definitions and EOF, next sequence id): a caller that keeps one payload list per statement
        #: (``ClientHandler``) gets its result set's head framed once
        self._framed_columns: dict[int, tuple[list[bytes], int, int, int, bytes, int]] = {}

    # ------------------------------------------------------------------ options
    @property
    def max_allowed_packet(self) -> int:
        """The largest client payload accepted, in bytes."""
        return self._reader.max_payload or 0

    @max_allowed_packet.setter
    def max_allowed_packet(self, value: int) -> None:
        """Change the limit (SET GLOBAL max_allowed_packet applies to new reads)."""
        self._reader.max_payload = value
        self._peek_limit = _peek_limit(value)

    @property
    def capability_bits(self) -> int:
        """The negotiated capabilities as a plain int (cheaper to test than the ``capabilities`` flag)."""
        return self._caps

    @property
    def deprecate_eof(self) -> bool:
        """True when the client negotiated CLIENT_DEPRECATE_EOF."""
        return bool(self._caps & CAP_DEPRECATE_EOF)

    # ------------------------------------------------------------------ input
    def receive_data(self, data: bytes) -> None:
        """Feed bytes read from the client; ``b""`` means the client closed its end."""
        if data:
            self._reader.feed(data)
        else:
            self._peer_closed = True

    def take_buffered(self) -> bytes:
        """Remove and return unread bytes (what arrived after an SSLRequest belongs to the TLS layer)."""
        return self._reader.take_buffered()

    def next_event(self) -> Any:
        """The next client message, :data:`NEED_DATA`, :data:`PAUSED`, or :class:`ConnectionClosed`.

        Raises:
            RemoteProtocolError: the client broke the protocol (bad sequence id, oversized or malformed packet,
                a message not allowed in this state); the state becomes ``ERROR``.
            LocalProtocolError: called after the connection was closed or failed.
        """
        if self.state in (State.CLOSED, State.ERROR):
            raise LocalProtocolError(f"next_event() on a connection in state {self.state.name}")
        if self.state not in _CLIENT_TURN:
            return PAUSED
        try:
            packet = self._reader.next_packet()
            if packet is None:
                if self._peer_closed:
                    if self._reader.buffered:
                        raise RemoteProtocolError("Got an error reading communication packets", code=1158)
                    self.state = State.CLOSED
                    return ConnectionClosed()
                return NEED_DATA
            if self.state is State.COMMAND:
                self._seq = 0
            if packet.sequence_id != self._seq:
                raise RemoteProtocolError("Got packets out of order", code=1156)
            self._seq = packet.next_sequence_id
            event = self._decode(packet.payload)
            new = _CLIENT_TRANSITIONS.get((self.state, type(event)))
            if new is State.LOCAL_INFILE and not event.data:
                new = State.RESPONDING  # the empty packet ends the file: the server answers OK / ERR
            if new is None:
                if self.state is not State.COMMAND:
                    raise RemoteProtocolError(
                        f"unexpected {type(event).__name__} in state {self.state.name}",
                        code=1835,
                        sqlstate="HY000",
                    )
                new = State.RESPONDING
        except RemoteProtocolError:
            self.state = State.ERROR
            raise
        if isinstance(event, SSLRequest):
            if self.tls_requested or not self.server_capabilities & Capability.SSL:
                self.state = State.ERROR
                raise RemoteProtocolError("SSL connection error: unexpected SSLRequest", code=2026)
            self.tls_requested = True
            self._negotiate(event.capabilities)
        elif isinstance(event, HandshakeResponse):
            if (
                self.server_capabilities & Capability.SSL
                and event.capabilities & Capability.SSL
                and not self.tls_requested
            ):
                self.state = State.ERROR
                raise RemoteProtocolError("SSL connection error: CLIENT_SSL without SSLRequest", code=2026)
            self._negotiate(event.capabilities)
        if new is State.COMMAND:
            self._seq = 0
        self.state = new
        return event

    def peek_command(self, data: bytes) -> bytes | None:
        """The payload of ``data`` when it is exactly one whole command packet that :meth:`receive_data` +
        :meth:`next_event` would accept as it is: in ``COMMAND`` with nothing buffered, sequence id 0, one physical
        packet no longer than ``max_allowed_packet``. None otherwise. Nothing changes either way: a caller that
        answers the command itself calls :meth:`begin_response` first, else it feeds ``data`` as usual.
        """
        n = len(data) - HEADER_LENGTH
        if (
            not 0 < n < self._peek_limit
            or self.state is not State.COMMAND
            or _HEADER.unpack_from(data)[0] != n  # its length, and sequence id 0 (the header's high byte)
            or self._peer_closed
            or self._reader.buffered
        ):
            return None
        return data[HEADER_LENGTH:]

    def begin_response(self) -> None:
        """The command :meth:`peek_command` returned was taken: the server answers now (``RESPONDING``, next
        sequence id 1), as after :meth:`next_event` returned a command answered with a response."""
        self.state = State.RESPONDING
        self._seq = 1

    def _negotiate(self, client: int) -> None:
        self.client_capabilities = Capability(client & 0xFFFFFFFF)
        self.capabilities = self.server_capabilities & self.client_capabilities
        self._caps = int(self.capabilities)

    def _decode(self, payload: bytes) -> Any:
        if self.state is State.AWAIT_RESPONSE:
            return HandshakeResponse.decode(payload)
        if self.state is State.AWAIT_AUTH_DATA:
            return AuthData(payload)
        if self.state is State.LOCAL_INFILE:
            return LocalInfileData(payload)
        return decode_command(payload, self.capabilities)

    # ------------------------------------------------------------------ output
    def send(self, msg: Any) -> bytes:
        """Encode ``msg`` (a server message) and advance the state; returns the bytes to write.

        Raises:
            LocalProtocolError: the message is not allowed in the current state (e.g. a row before the column
                definitions, a result set while the client is still authenticating); the state becomes ``ERROR``.
        """
        new = _SERVER_TRANSITIONS.get((self.state, type(msg)))
        if new is None:
            state, self.state = self.state, State.ERROR
            raise LocalProtocolError(f"cannot send {type(msg).__name__} in state {state.name}")
        rule = _SERVER_RULES.get(type(msg))
        if rule is not None:
            new = rule(msg, new)
        try:
            payloads = self._payloads(msg)
        except ProtocolError:
            self.state = State.ERROR
            raise
        out = bytearray()
        for payload in payloads:
            data, self._seq = frame(payload, self._seq)
            out += data
        self.state = new
        if new is State.COMMAND:
            self._seq = 0
        return bytes(out)

    def send_ok(
        self,
        affected_rows: int,
        last_insert_id: int,
        status_flags: int,
        warnings: int,
        info: bytes = b"",
        session_state: bytes = b"",
    ) -> bytes:
        """:meth:`send` of ``Ok(affected_rows, last_insert_id, status_flags, warnings, info, session_state)``, byte
        for byte and with the same state change, without building the message when answering a command.

        Raises:
            LocalProtocolError: as :meth:`send` (an OK where none may go).
        """
        if self.state is not State.RESPONDING:
            return self.send(Ok(affected_rows, last_insert_id, status_flags, warnings, info, session_state))
        caps = self._caps
        if (
            not status_flags & _MORE_OR_STATE_CHANGED
            and 0 <= affected_rows < 0xFB
            and 0 <= last_insert_id < 0xFB
            and 0 <= status_flags <= 0xFFFF
            and 0 <= warnings <= 0xFFFF
            and caps & CAP_PROTOCOL_41
            and len(info) < 0xFB
        ):  # the common OK (a BEGIN's, a one-row DML's): ok_payload's bytes, framed in one pack
            seq = self._seq
            self.state = State.COMMAND
            self._seq = 0
            if not info:
                return _OK_SHORT.pack(
                    7 | seq << 24, OK_HEADER, affected_rows, last_insert_id, status_flags, warnings
                )
            n = len(info)
            if caps & CAP_SESSION_TRACK:  # the info as a length-encoded string
                head = _OK_SHORT.pack(
                    8 + n | seq << 24, OK_HEADER, affected_rows, last_insert_id, status_flags, warnings
                )
                return head + _SHORT_LENGTHS[n] + info
            head = _OK_SHORT.pack(
                7 + n | seq << 24, OK_HEADER, affected_rows, last_insert_id, status_flags, warnings
            )
            return head + info
        payload = ok_payload(
            self._caps, affected_rows, last_insert_id, status_flags, warnings, info, session_state
        )
        parts: list[bytes] = []
        seq = _add_packet(parts.append, payload, self._seq)
        if status_flags & STATUS_MORE_RESULTS_EXISTS:
            self._seq = seq
        else:
            self.state = State.COMMAND
            self._seq = 0
        return parts[0] + parts[1] if len(parts) == 2 else parts[0]

    def send_rows(
        self,
        rows: Any,
        *,
        binary: bool = False,
        types: tuple[int, ...] = (),
        unsigned: tuple[bool, ...] = (),
    ) -> bytes:
        """Encode many rows at once (as :meth:`send` of one :class:`TextRow` / :class:`BinaryRow` each, byte for
        byte, in a single pass); ``rows`` are tuples of Python values (text forms per
        :func:`~gtidkit.protocol.messages.text_value`, binary per the column ``types``).

        Raises:
            LocalProtocolError: not sending rows, a row of the wrong width, or a value its type cannot carry; the
                state becomes ``ERROR``.
        """
        if self.state is not State.SENDING_ROWS:
            state, self.state = self.state, State.ERROR
            raise LocalProtocolError(f"cannot send rows in state {state.name}")
        width = self._row_width
        for r in rows:
            if len(r) != width:
                self.state = State.ERROR
                raise LocalProtocolError(f"row of {len(r)} values in a result of {width} columns")
        try:
            payloads = encode_binary_rows(rows, types, unsigned) if binary else encode_text_rows(rows)
        except ProtocolError:
            self.state = State.ERROR
            raise
        return self._frame_all(payloads)

    def send_result_set(
        self,
        column_payloads: list[bytes],
        rows: Any,
        *,
        warnings: int,
        status_flags: int,
        info: bytes = b"",
        session_state: bytes = b"",
        binary: bool = False,
        types: tuple[int, ...] = (),
        unsigned: tuple[bool, ...] = (),
    ) -> bytes:
        """A whole result set in one call, byte for byte what :meth:`send` of ``ColumnCount``, each
        ``ColumnDefinition`` (``column_payloads``: their encoded payloads), ``Eof(warnings, status_flags without
        SESSION_STATE_CHANGED)``, the rows (:meth:`send_rows`) and ``Eof(warnings, status_flags, info,
        session_state)`` gives: the answer to one statement of a query, the hot path of every SELECT.

        The state ends in ``COMMAND``, or stays ``RESPONDING`` when ``status_flags`` has
        SERVER_MORE_RESULTS_EXISTS (another result follows). ``column_payloads`` is framed once per list object
        and sequence id, so a caller must not change a list it passed before (build a new one instead).

        Raises:
            LocalProtocolError: not answering a command, no columns, a row of the wrong width or a value its type
                cannot carry; the state becomes ``ERROR``.
        """
        width = len(column_payloads)
        if self.state is not State.RESPONDING or width == 0:
            state, self.state = self.state, State.ERROR
            raise LocalProtocolError(f"cannot send a result set of {width} columns in state {state.name}")
        if binary and len(types) == width:
            again = self.send_binary_rows_again(
                column_payloads, rows, warnings, status_flags, types, unsigned, info, session_state
            )
            if again is not None:
                return again
        caps = self._caps
        seq = self._seq
        # the column count, the definitions and (without CLIENT_DEPRECATE_EOF) the EOF after them, framed once per
        # list of definitions, first sequence id, warning count and status flags: an execution of a prepared
        # statement sends the same head again (send_binary_rows_again)
        head = self._framed_columns.get(id(column_payloads))
        parts: list[bytes] = []
        add = parts.append
        deprecate_eof = caps & CAP_DEPRECATE_EOF
        protocol_41 = caps & CAP_PROTOCOL_41
        if (
            head is None
            or head[0] is not column_payloads
            or head[1] != seq
            or head[2] != warnings
            or head[3] != status_flags
        ):
            first = seq
            columns: list[bytes] = []
            # the column count is a length-encoded integer: 1 byte below 251, 3, 4 or 9 bytes from there
            count = _SHORT_LENGTHS[width] if width < 0xFB else lenenc_int(width)
            columns.append(_HEADER.pack(len(count) | seq << 24) + count)
            seq = (seq + 1) & 0xFF
            for payload in column_payloads:
                seq = _add_packet(columns.append, payload, seq)
            if not deprecate_eof:
                columns.append(_eof_packet(seq, protocol_41, warnings, status_flags))
                seq = (seq + 1) & 0xFF
            head = (column_payloads, first, warnings, status_flags, b"".join(columns), seq)
            if len(self._framed_columns) >= _FRAMED_COLUMNS_KEPT:
                self._framed_columns.clear()
            self._framed_columns[id(column_payloads)] = head
        add(head[4])
        seq = head[5]
        try:
            if binary and len(types) == width and (framed := binary_rows(rows, seq, types, unsigned)):
                add(framed[0])  # the compiled loop (wire_fast); None: the rows are the loops' below
                seq = framed[1]
            elif frame_rows is not None and not binary and (framed := frame_rows(rows, seq, width)):
                add(framed[0])  # the compiled text framer (row_frames); None: the loops below
                seq = framed[1]
            elif width == 1 and binary and types[0] not in NON_TEXT_TYPES:
                seq = _frame_binary_text_column(rows, seq, add, types[0], bool(unsigned and unsigned[0]))
            elif width == 1 and not binary and (framed := _frame_ascii_column(rows, seq, _TEXT_ROW_HEADERS)):
                add(framed[0])
                seq = framed[1]
            else:
                for r in rows:
                    if len(r) != width:
                        self.state = State.ERROR
                        raise LocalProtocolError(f"row of {len(r)} values in a result of {width} columns")
                encoded = encode_binary_rows(rows, types, unsigned) if binary else encode_text_rows(rows)
                self._seq = seq
                add(self._frame_all(encoded))
                seq = self._seq
        except ProtocolError:
            self.state = State.ERROR
            raise
        if deprecate_eof:
            seq = _add_packet(
                add, ok_payload(caps, 0, 0, int(status_flags), warnings, info, session_state, EOF_HEADER), seq
            )
        elif protocol_41:
            add(_EOF_41.pack(5 | seq << 24, EOF_HEADER, warnings, status_flags & _NOT_STATE_CHANGED))
            seq = (seq + 1) & 0xFF
        else:
            add(_eof_packet(seq, protocol_41, warnings, status_flags))
            seq = (seq + 1) & 0xFF
        if status_flags & STATUS_MORE_RESULTS_EXISTS:
            self.state = State.RESPONDING
            self._seq = seq
        else:
            self.state = State.COMMAND
            self._seq = 0
        return b"".join(parts)

    def send_binary_rows_again(
        self,
        column_payloads: list[bytes],
        rows: Any,
        warnings: int,
        status_flags: int,
        types: tuple[int, ...],
        unsigned: tuple[bool, ...],
        info: bytes = b"",
        session_state: bytes = b"",
    ) -> bytes | None:
        """:meth:`send_result_set` (``binary=True``) of a result whose head (column count, definitions, EOF) this
        connection framed before for the same ``column_payloads`` list, first sequence id, warning count and
        status flags: a prepared SELECT executed again. The kept head, the rows framed by the compiled loop
        (:func:`~gtidkit.protocol.wire_fast.binary_rows`) and the closing EOF (or OK under CLIENT_DEPRECATE_EOF),
        with :meth:`send_result_set`'s state change. None, with nothing changed, when no such head is kept, the
        connection is not answering a command, ``types`` is not one type per column, or the compiled loop leaves
        the rows to the Python ones: :meth:`send_result_set` answers then."""
        head = self._framed_columns.get(id(column_payloads))
        seq = self._seq
        caps = self._caps
        if (
            head is None
            or head[0] is not column_payloads
            or head[1] != seq
            or head[2] != warnings
            or head[3] != status_flags
            or self.state is not State.RESPONDING
            or not caps & CAP_PROTOCOL_41
            or len(types) != len(column_payloads)
        ):
            return None
        if caps & CAP_DEPRECATE_EOF:
            framed = binary_rows(rows, head[5], types, unsigned)
            if framed is None:
                return None
            parts = [head[4], framed[0]]
            ok = ok_payload(caps, 0, 0, int(status_flags), warnings, info, session_state, EOF_HEADER)
            seq = _add_packet(parts.append, ok, framed[1])
            out = b"".join(parts)
        else:  # the head, the rows and the EOF (its status without SESSION_STATE_CHANGED) in one compiled pass
            framed = binary_rows(
                rows, head[5], types, unsigned, head[4], warnings, status_flags & _NOT_STATE_CHANGED
            )
            if framed is None:
                return None
            out, seq = framed
        if status_flags & STATUS_MORE_RESULTS_EXISTS:
            self._seq = seq
        else:
            self.state = State.COMMAND
            self._seq = 0
        return out

    def send_column_definitions(self, payloads: list[bytes]) -> bytes:
        """Send already-encoded column-definition payloads (:meth:`ColumnDefinition.encode`, cached by the
        caller) as :meth:`send` of each definition would.

        Raises:
            LocalProtocolError: not sending column definitions, or more than the column count announced.
        """
        if self.state is not State.SENDING_COLUMNS or len(payloads) > self._columns_left:
            state, self.state = self.state, State.ERROR
            raise LocalProtocolError(f"cannot send {len(payloads)} column definitions in state {state.name}")
        self._columns_left -= len(payloads)
        return self._frame_all(payloads)

    def _frame_all(self, payloads: list[bytes]) -> bytes:
        """Frame payloads one after the other with consecutive sequence ids (no state change)."""
        seq = self._seq
        parts: list[bytes] = []
        add = parts.append
        for payload in payloads:
            n = len(payload)
            if n < MAX_PAYLOAD:
                add(_HEADERS[n] + bytes((seq,)) if n < 256 else n.to_bytes(3, "little") + bytes((seq,)))
                add(payload)
                seq = (seq + 1) & 0xFF
            else:
                data, seq = frame(payload, seq)
                add(data)
        self._seq = seq
        return b"".join(parts)

    def _payloads(self, msg: Any) -> list[bytes]:
        caps = self._caps
        state = self.state
        if isinstance(msg, ColumnCount):
            self._columns_left = self._row_width = msg.count
            return [msg.encode()]
        if isinstance(msg, ColumnDefinition):
            if state is State.SENDING_COLUMNS:
                if self._columns_left <= 0:
                    raise LocalProtocolError("more column definitions than the column count announced")
                self._columns_left -= 1
            return [msg.encode()]
        if isinstance(msg, (TextRow, BinaryRow)):
            if len(msg.values) != self._row_width:
                raise LocalProtocolError(
                    f"row of {len(msg.values)} values in a result of {self._row_width} columns"
                )
            return [msg.encode()]
        if isinstance(msg, Eof):
            if state is State.SENDING_COLUMNS:
                if self._columns_left:
                    raise LocalProtocolError(f"{self._columns_left} column definitions still to send")
                return [] if self.deprecate_eof else [msg.encode(caps)]
            if self.deprecate_eof:
                return [msg.as_ok().encode(caps)]
            return [msg.encode(caps)]
        if isinstance(msg, (Ok, Err)):
            return [msg.encode(caps)]
        if isinstance(msg, Handshake):
            return [msg.encode()]
        if isinstance(msg, StmtPrepareOk):
            return msg.encode_packets(caps)
        return [msg.encode()]

    def send_error(self, code: int, message: str, sqlstate: str = "HY000") -> bytes:
        """An ERR packet with the next sequence id in any state (for fatal errors); the connection is then closed.

        MySQL answers a broken client this way (e.g. 1156 Got packets out of order, 1153 for an oversized packet)
        before it drops the connection.
        """
        data, self._seq = frame(
            Err(code, message, sqlstate).encode(self.capabilities | Capability.PROTOCOL_41), self._seq
        )
        self.state = State.CLOSED
        return data

    def resume_commands(self) -> None:
        """Back to the command phase after a command served outside this state machine (a takeover hook that
        wrote its own packets, e.g. a binlog dump); the next command starts at sequence id 0.

        Raises:
            LocalProtocolError: not in the middle of answering a command.
        """
        if self.state is not State.RESPONDING:
            raise LocalProtocolError(f"resume_commands() in state {self.state.name}")
        self.state = State.COMMAND
        self._seq = 0

    def reset_sequence(self) -> None:
        """Start a new command exchange (sequence id 0): used after a command the server does not answer."""
        self._seq = 0
