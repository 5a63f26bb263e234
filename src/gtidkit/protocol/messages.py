"""One frozen class per message of the MySQL client/server protocol, each with mirror ``encode`` / ``decode``.

Sources: MySQL DEVDOC (``page_protocol_connection_phase_packets_protocol_handshake_v10``,
``..._protocol_handshake_response``, ``page_protocol_basic_ok_packet``, ``..._err_packet``, ``..._eof_packet``,
``page_protocol_com_query_response_text_resultset_column_definition``, ``..._binary_resultset``,
``page_protocol_com_*``) and ``sql/protocol_classic.cc`` / ``sql/auth/sql_authentication.cc``.

A message is the payload of one logical packet (framing is :mod:`gtidkit.protocol.packets`). Layouts that depend
on the negotiated capabilities (OK, ERR, EOF, HandshakeResponse41) take them as an argument, as
libbinlogevents' decoders take the FDE: capabilities are never global. Every ``decode`` reads through a bounded
:class:`~gtidkit.protocol.wire.Reader`, so a truncated or malformed payload raises
:class:`~gtidkit.errors.RemoteProtocolError` and nothing else.
"""

from __future__ import annotations

import datetime as dt
import re
import struct
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from gtidkit.errors import LocalProtocolError, RemoteProtocolError
from gtidkit.protocol.constants import (
    AUTH_MORE_DATA_HEADER,
    AUTH_SWITCH_HEADER,
    CAP_PROTOCOL_41,
    CAP_SESSION_TRACK,
    CAP_TRANSACTIONS,
    EOF_HEADER,
    ERR_HEADER,
    OK_HEADER,
    PARAMETER_COUNT_AVAILABLE,
    STATUS_SESSION_STATE_CHANGED,
    UNSIGNED_PARAM_FLAG,
    UTF8MB4_0900_AI_CI,
    Capability,
    Command,
    FieldType,
    ServerStatus,
)
from gtidkit.protocol.wire import NULL_MARKER, Reader, lenenc_int, lenenc_str

#: Bytes of the scramble (auth-plugin data) the server sends: 8 in part 1, 12 in part 2.
SCRAMBLE_LENGTH = 20
SCRAMBLE_PART1 = 8
#: Zero bytes reserved in Handshake v10 and in HandshakeResponse41.
HANDSHAKE_RESERVED = 10
RESPONSE_FILLER = 23
#: Length of the fixed part of HandshakeResponse41 (and of a whole SSLRequest).
RESPONSE_FIXED = 4 + 4 + 1 + RESPONSE_FILLER
#: Length of the fixed-length block inside a column definition (0x0c).
COLUMN_FIXED = 0x0C


def _caps(value: int) -> Capability:
    return Capability(value & 0xFFFFFFFF)


# ------------------------------------------------------------------------------------------------ connection phase
@dataclass(frozen=True, slots=True)
class Handshake:
    """Initial handshake packet, protocol version 10 (server → client, sequence id 0).

    ========================  ==========  ====================================================
    protocol_version          1           always 10
    server_version            NUL str     e.g. ``8.0.36-gtidkit``
    connection_id             4           the session's CONNECTION_ID()
    auth_plugin_data_part_1   8           first 8 bytes of the scramble
    filler                    1           0x00
    capability_flags_1        2           lower 16 bits
    character_set             1           server default collation id (low byte)
    status_flags              2           SERVER_STATUS_*
    capability_flags_2        2           upper 16 bits
    auth_plugin_data_len      1           21 (scramble + NUL) with PLUGIN_AUTH, else 0
    reserved                  10          zeros
    auth_plugin_data_part_2   max(13,n-8) rest of the scramble, NUL-terminated
    auth_plugin_name          NUL str     with PLUGIN_AUTH
    ========================  ==========  ====================================================
    """

    server_version: str
    connection_id: int
    scramble: bytes
    capabilities: Capability
    character_set: int = UTF8MB4_0900_AI_CI
    status_flags: int = ServerStatus.SERVER_STATUS_AUTOCOMMIT
    auth_plugin_name: str = "caching_sha2_password"
    protocol_version: int = 10

    def __post_init__(self) -> None:
        if len(self.scramble) != SCRAMBLE_LENGTH:
            raise LocalProtocolError(f"scramble must be {SCRAMBLE_LENGTH} bytes, got {len(self.scramble)}")
        if b"\0" in self.scramble:
            raise LocalProtocolError("scramble must not contain NUL bytes")

    def encode(self) -> bytes:
        """The payload."""
        caps = int(self.capabilities)
        out = bytearray((self.protocol_version,))
        out += self.server_version.encode() + b"\0"
        out += self.connection_id.to_bytes(4, "little")
        out += self.scramble[:SCRAMBLE_PART1] + b"\0"
        out += (caps & 0xFFFF).to_bytes(2, "little")
        out.append(self.character_set & 0xFF)
        out += int(self.status_flags).to_bytes(2, "little")
        out += (caps >> 16).to_bytes(2, "little")
        out.append(SCRAMBLE_LENGTH + 1 if caps & Capability.PLUGIN_AUTH else 0)
        out += bytes(HANDSHAKE_RESERVED)
        out += self.scramble[SCRAMBLE_PART1:] + b"\0"
        if caps & Capability.PLUGIN_AUTH:
            out += self.auth_plugin_name.encode() + b"\0"
        return bytes(out)

    @classmethod
    def decode(cls, payload: bytes) -> Handshake:
        """Parse a Handshake v10 payload.

        Raises:
            RemoteProtocolError: not protocol version 10, or truncated.
        """
        r = Reader(payload)
        version = r.u8()
        if version != 10:
            raise RemoteProtocolError(f"unsupported handshake protocol version {version}")
        server_version = r.nul_str().decode()
        connection_id = r.uint(4)
        part1 = r.bytes(SCRAMBLE_PART1)
        r.u8()
        caps = r.uint(2)
        charset = r.u8()
        status = r.uint(2)
        caps |= r.uint(2) << 16
        data_len = r.u8()
        r.bytes(HANDSHAKE_RESERVED)
        part2 = r.bytes(max(13, data_len - SCRAMBLE_PART1))
        plugin = r.nul_str().decode() if caps & Capability.PLUGIN_AUTH and r.remaining() else ""
        return cls(
            server_version=server_version,
            connection_id=connection_id,
            scramble=part1 + part2.rstrip(b"\0"),
            capabilities=_caps(caps),
            character_set=charset,
            status_flags=status,
            auth_plugin_name=plugin,
            protocol_version=version,
        )


@dataclass(frozen=True, slots=True)
class SSLRequest:
    """The 32-byte prefix of HandshakeResponse41 with CLIENT_SSL set, sent before the TLS handshake.

    ``capabilities`` (4) | ``max_packet_size`` (4) | ``character_set`` (1) | 23 zero bytes.
    """

    capabilities: Capability
    max_packet_size: int = 1 << 24
    character_set: int = UTF8MB4_0900_AI_CI

    def encode(self) -> bytes:
        """The payload."""
        return (
            int(self.capabilities).to_bytes(4, "little")
            + self.max_packet_size.to_bytes(4, "little")
            + bytes((self.character_set,))
            + bytes(RESPONSE_FILLER)
        )


@dataclass(frozen=True, slots=True)
class HandshakeResponse:
    """HandshakeResponse41 (client → server, sequence id 1, or 2 after an SSLRequest).

    ======================  =========  ==========================================================
    client_flag             4          capabilities the client wants
    max_packet_size         4
    character_set           1          collation id
    filler                  23         zeros
    username                NUL str
    auth_response           lenenc     with PLUGIN_AUTH_LENENC_CLIENT_DATA; else u8 length +
                                       bytes (SECURE_CONNECTION); else NUL-terminated
    database                NUL str    with CONNECT_WITH_DB
    client_plugin_name      NUL str    with PLUGIN_AUTH
    attributes              lenenc     with CONNECT_ATTRS: total length, then key/value lenenc pairs
    zstd_compression_level  1          with ZSTD_COMPRESSION_ALGORITHM
    ======================  =========  ==========================================================
    """

    capabilities: Capability
    username: str
    auth_response: bytes = b""
    database: str | None = None
    auth_plugin_name: str = ""
    attributes: tuple[tuple[str, str], ...] = ()
    max_packet_size: int = 1 << 24
    character_set: int = UTF8MB4_0900_AI_CI
    zstd_compression_level: int | None = None

    def encode(self) -> bytes:
        """The payload (what a client sends; used by tests and the in-memory client)."""
        caps = int(self.capabilities)
        out = bytearray(SSLRequest(self.capabilities, self.max_packet_size, self.character_set).encode())
        out += self.username.encode() + b"\0"
        if caps & Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA:
            out += lenenc_str(self.auth_response)
        elif caps & Capability.SECURE_CONNECTION:
            out.append(len(self.auth_response))
            out += self.auth_response
        else:
            out += self.auth_response + b"\0"
        if caps & Capability.CONNECT_WITH_DB:
            out += (self.database or "").encode() + b"\0"
        if caps & Capability.PLUGIN_AUTH:
            out += self.auth_plugin_name.encode() + b"\0"
        if caps & Capability.CONNECT_ATTRS:
            attrs = b"".join(lenenc_str(k.encode()) + lenenc_str(v.encode()) for k, v in self.attributes)
            out += lenenc_str(attrs)
        if caps & Capability.ZSTD_COMPRESSION_ALGORITHM:
            out.append(self.zstd_compression_level or 3)
        return bytes(out)

    @classmethod
    def decode(cls, payload: bytes) -> HandshakeResponse | SSLRequest:
        """Parse the client's answer to the Handshake: an :class:`SSLRequest` when it is exactly the 32-byte
        prefix with CLIENT_SSL, else a HandshakeResponse41.

        Raises:
            RemoteProtocolError: truncated or malformed, or a pre-4.1 client (code 1251,
                ER_NOT_SUPPORTED_AUTH_MODE).
        """
        r = Reader(payload)
        caps = r.uint(4)
        if not caps & Capability.PROTOCOL_41:
            raise RemoteProtocolError(
                "Client does not support authentication protocol requested by server; consider upgrading MySQL "
                "client",
                code=1251,
                sqlstate="08004",
            )
        max_packet = r.uint(4)
        charset = r.u8()
        r.bytes(RESPONSE_FILLER)
        if r.remaining() == 0 and caps & Capability.SSL:
            return SSLRequest(_caps(caps), max_packet, charset)
        username = r.nul_str().decode("utf-8", "surrogateescape")
        if caps & Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA:
            auth = r.lenenc_str()
        elif caps & Capability.SECURE_CONNECTION:
            auth = r.bytes(r.u8())
        else:
            auth = r.nul_str()
        database = None
        if caps & Capability.CONNECT_WITH_DB and r.remaining():
            database = r.nul_str().decode("utf-8", "surrogateescape")
        plugin = ""
        if caps & Capability.PLUGIN_AUTH and r.remaining():
            plugin = r.nul_str().decode("ascii", "replace")
        attributes: list[tuple[str, str]] = []
        if caps & Capability.CONNECT_ATTRS and r.remaining():
            ar = Reader(r.lenenc_str())
            while ar.remaining():
                key = ar.lenenc_str().decode("utf-8", "replace")
                attributes.append((key, ar.lenenc_str().decode("utf-8", "replace")))
        zstd = r.u8() if caps & Capability.ZSTD_COMPRESSION_ALGORITHM and r.remaining() else None
        return cls(
            capabilities=_caps(caps),
            username=username,
            auth_response=auth,
            database=database,
            auth_plugin_name=plugin,
            attributes=tuple(attributes),
            max_packet_size=max_packet,
            character_set=charset,
            zstd_compression_level=zstd,
        )


@dataclass(frozen=True, slots=True)
class AuthSwitchRequest:
    """Auth switch request (server → client): ``0xFE`` | plugin name NUL | plugin data (scramble + NUL)."""

    plugin_name: str
    plugin_data: bytes

    def encode(self) -> bytes:
        """The payload."""
        return bytes((AUTH_SWITCH_HEADER,)) + self.plugin_name.encode() + b"\0" + self.plugin_data + b"\0"


@dataclass(frozen=True, slots=True)
class AuthMoreData:
    """Extra authentication data (server → client): ``0x01`` | data.

    caching_sha2_password sends ``0x03`` (fast_auth_success), ``0x04`` (perform_full_authentication) or the PEM
    public key this way.
    """

    data: bytes

    def encode(self) -> bytes:
        """The payload."""
        return bytes((AUTH_MORE_DATA_HEADER,)) + self.data


@dataclass(frozen=True, slots=True)
class AuthData:
    """Any client packet of the authentication exchange after HandshakeResponse (raw plugin data)."""

    data: bytes

    def encode(self) -> bytes:
        """The payload."""
        return self.data


# ------------------------------------------------------------------------------------------------ LOCAL INFILE
#: first byte of the LOCAL INFILE request (``NULL_LENGTH``, 251: where a result set's column count would be)
LOCAL_INFILE_HEADER = 0xFB


@dataclass(frozen=True, slots=True)
class LocalInfileRequest:
    """LOCAL INFILE request (server → client), MySQL DEVDOC ``page_protocol_com_query_response_local_infile_request``:
    the answer to a COM_QUERY running LOAD DATA LOCAL INFILE, in place of a result set.

    ===========  ======  ===========================================
    header       1       0xFB
    filename     EOF     the file name as the statement wrote it
    ===========  ======  ===========================================

    The client then sends the file's bytes in packets (any split) and an empty packet at its end (also what it
    sends, alone, when it cannot or may not send the file); the server answers OK or ERR.
    """

    filename: bytes

    def encode(self) -> bytes:
        """The payload."""
        return bytes((LOCAL_INFILE_HEADER,)) + self.filename


@dataclass(frozen=True, slots=True)
class LocalInfileData:
    """One packet of a LOCAL INFILE file (client → server); an empty one ends the file."""

    data: bytes

    def encode(self) -> bytes:
        """The payload."""
        return self.data


# ------------------------------------------------------------------------------------------------ generic responses
@dataclass(frozen=True, slots=True)
class Ok:
    """OK packet (server → client).

    =================  ========  ============================================================
    header             1         0x00 (0xFE when it ends a result set under DEPRECATE_EOF)
    affected_rows      lenenc
    last_insert_id     lenenc
    status_flags       2         with PROTOCOL_41 or TRANSACTIONS
    warnings           2         with PROTOCOL_41
    info               lenenc    with SESSION_TRACK (always, possibly empty); else the rest
                                 of the packet, only when non-empty
    session_state      lenenc    with SESSION_TRACK and SESSION_STATE_CHANGED in status_flags
    =================  ========  ============================================================

    ``session_state`` is the already-encoded entries (:mod:`gtidkit.protocol.session_tracker`). The caller sets
    SERVER_SESSION_STATE_CHANGED; the encoder writes the block only when that flag is set and the client
    negotiated SESSION_TRACK, and clears the flag when the client did not.
    """

    affected_rows: int = 0
    last_insert_id: int = 0
    status_flags: int = ServerStatus.SERVER_STATUS_AUTOCOMMIT
    warnings: int = 0
    info: bytes = b""
    session_state: bytes = b""
    header: int = OK_HEADER

    def encode(self, capabilities: int) -> bytes:
        """The payload for a client with ``capabilities``."""
        return ok_payload(
            int(capabilities),
            self.affected_rows,
            self.last_insert_id,
            int(self.status_flags),
            self.warnings,
            self.info,
            self.session_state,
            self.header,
        )

    @classmethod
    def decode(cls, payload: bytes, capabilities: int) -> Ok:
        """Parse an OK payload (either header) as a client with ``capabilities`` would."""
        r = Reader(payload)
        header = r.u8()
        if header not in (OK_HEADER, EOF_HEADER):
            raise RemoteProtocolError(f"not an OK packet (header 0x{header:02x})")
        affected = r.lenenc_int()
        insert_id = r.lenenc_int()
        status = warnings = 0
        if capabilities & Capability.PROTOCOL_41:
            status, warnings = r.uint(2), r.uint(2)
        elif capabilities & Capability.TRANSACTIONS:
            status = r.uint(2)
        info = state = b""
        if capabilities & Capability.SESSION_TRACK:
            if r.remaining():
                info = r.lenenc_str()
            if status & ServerStatus.SERVER_SESSION_STATE_CHANGED and r.remaining():
                state = r.lenenc_str()
        else:
            info = r.rest()
        return cls(affected, insert_id, status, warnings, info, state, header)


_OK_FIXED = struct.Struct("<BBBHH")
_STATUS_WARNINGS = struct.Struct("<HH")


def ok_payload(
    capabilities: int,
    affected_rows: int,
    last_insert_id: int,
    status: int,
    warnings: int,
    info: bytes = b"",
    session_state: bytes = b"",
    header: int = OK_HEADER,
) -> bytes:
    """The payload of an OK packet (the layout in :class:`Ok`) from plain values: what ``Ok(...).encode`` gives,
    without building the message (the hot path of every statement answered with an OK).

    Raises:
        ValueError: a negative or too large count (as :func:`~gtidkit.protocol.wire.lenenc_int`).
    """
    track = capabilities & CAP_SESSION_TRACK
    if not track:
        status &= ~STATUS_SESSION_STATE_CHANGED
    if (
        0 <= affected_rows < 0xFB
        and 0 <= last_insert_id < 0xFB
        and capabilities & CAP_PROTOCOL_41
        and 0 <= status <= 0xFFFF
        and 0 <= warnings <= 0xFFFF
    ):
        out = _OK_FIXED.pack(header, affected_rows, last_insert_id, status, warnings)
    else:
        out = bytes((header,)) + lenenc_int(affected_rows) + lenenc_int(last_insert_id)
        if capabilities & CAP_PROTOCOL_41:
            out += status.to_bytes(2, "little") + warnings.to_bytes(2, "little")
        elif capabilities & CAP_TRANSACTIONS:
            out += status.to_bytes(2, "little")
    if track:
        changed = status & STATUS_SESSION_STATE_CHANGED
        if changed or info:
            out += lenenc_str(info)
        if changed:
            out += lenenc_str(session_state)
    elif info:
        out += info
    return out


@dataclass(frozen=True, slots=True)
class Err:
    """ERR packet: ``0xFF`` | code (2) | ``#`` + SQLSTATE (5, with PROTOCOL_41) | message (rest of packet)."""

    code: int
    message: str
    sqlstate: str = "HY000"

    def __post_init__(self) -> None:
        if len(self.sqlstate) != 5:
            raise LocalProtocolError(f"SQLSTATE must have 5 characters, got {self.sqlstate!r}")

    def encode(self, capabilities: int) -> bytes:
        """The payload for a client with ``capabilities``."""
        out = bytes((ERR_HEADER,)) + self.code.to_bytes(2, "little")
        if capabilities & Capability.PROTOCOL_41:
            out += b"#" + self.sqlstate.encode()
        return out + self.message.encode("utf-8", "replace")

    @classmethod
    def decode(cls, payload: bytes, capabilities: int) -> Err:
        """Parse an ERR payload."""
        r = Reader(payload)
        if r.u8() != ERR_HEADER:
            raise RemoteProtocolError("not an ERR packet")
        code = r.uint(2)
        sqlstate = "HY000"
        if capabilities & Capability.PROTOCOL_41 and r.remaining() and payload[r.pos] == ord("#"):
            r.u8()
            sqlstate = r.bytes(5).decode()
        return cls(code, r.rest().decode("utf-8", "replace"), sqlstate)


@dataclass(frozen=True, slots=True)
class Eof:
    """EOF packet: ``0xFE`` | warnings (2) | status_flags (2) (with PROTOCOL_41); under 9 bytes long.

    Under CLIENT_DEPRECATE_EOF the connection does not send the EOF after column definitions and sends the one
    closing the rows as an :class:`Ok` with header 0xFE (then ``info`` and ``session_state`` apply).
    """

    warnings: int = 0
    status_flags: int = ServerStatus.SERVER_STATUS_AUTOCOMMIT
    info: bytes = b""
    session_state: bytes = b""

    def encode(self, capabilities: int) -> bytes:
        """The payload as a classic EOF packet."""
        out = bytes((EOF_HEADER,))
        if int(capabilities) & CAP_PROTOCOL_41:
            status = int(self.status_flags) & ~STATUS_SESSION_STATE_CHANGED
            out += self.warnings.to_bytes(2, "little") + status.to_bytes(2, "little")
        return out

    def as_ok(self) -> Ok:
        """The OK (header 0xFE) that replaces this EOF under CLIENT_DEPRECATE_EOF."""
        return Ok(0, 0, self.status_flags, self.warnings, self.info, self.session_state, EOF_HEADER)

    @classmethod
    def decode(cls, payload: bytes, capabilities: int) -> Eof:
        """Parse a classic EOF payload."""
        r = Reader(payload)
        if r.u8() != EOF_HEADER:
            raise RemoteProtocolError("not an EOF packet")
        if capabilities & Capability.PROTOCOL_41:
            return cls(r.uint(2), r.uint(2))
        return cls(0, 0)


# ------------------------------------------------------------------------------------------------ result sets
@dataclass(frozen=True, slots=True)
class ColumnCount:
    """First packet of a result set: lenenc column count (> 0)."""

    count: int

    def __post_init__(self) -> None:
        if self.count <= 0:
            raise LocalProtocolError("a result set has at least one column")

    def encode(self) -> bytes:
        """The payload."""
        return lenenc_int(self.count)


@dataclass(frozen=True, slots=True)
class ColumnDefinition:
    """Column definition 41.

    ===============  =======  ==================================================
    catalog          lenenc   always ``def``
    schema           lenenc
    table            lenenc   alias
    org_table        lenenc   physical table name
    name             lenenc   alias
    org_name         lenenc   physical column name
    fixed length     lenenc   0x0c
    character_set    2        collation id (63 = binary)
    column_length    4        maximum display length
    type             1        :class:`~gtidkit.protocol.constants.FieldType`
    flags            2        :class:`~gtidkit.protocol.constants.ColumnFlag`
    decimals         1        0x00 integers/static strings, 0x1f dynamic strings, double, float; 0-0x51 decimals
    filler           2        zeros
    default          lenenc   only in answers to COM_FIELD_LIST (0xFB = NULL)
    ===============  =======  ==================================================
    """

    name: str
    type: int = FieldType.MYSQL_TYPE_VAR_STRING
    schema: str = ""
    table: str = ""
    org_table: str = ""
    org_name: str = ""
    character_set: int = UTF8MB4_0900_AI_CI
    column_length: int = 0
    flags: int = 0
    decimals: int = 0
    catalog: str = "def"
    field_list_default: bytes | None = None
    for_field_list: bool = False

    def encode(self) -> bytes:
        """The payload."""
        out = bytearray()
        for text in (self.catalog, self.schema, self.table, self.org_table, self.name, self.org_name):
            out += lenenc_str(text.encode("utf-8", "surrogateescape"))
        out += lenenc_int(COLUMN_FIXED)
        out += self.character_set.to_bytes(2, "little") + (self.column_length & 0xFFFFFFFF).to_bytes(
            4, "little"
        )
        out.append(int(self.type))
        out += int(self.flags).to_bytes(2, "little")
        out.append(self.decimals)
        out += b"\0\0"
        if self.for_field_list:
            out += (
                bytes((NULL_MARKER,))
                if self.field_list_default is None
                else lenenc_str(self.field_list_default)
            )
        return bytes(out)

    @classmethod
    def decode(cls, payload: bytes) -> ColumnDefinition:
        """Parse a column definition payload."""
        r = Reader(payload)
        texts = [r.lenenc_str().decode("utf-8", "surrogateescape") for _ in range(6)]
        if r.lenenc_int() != COLUMN_FIXED:
            raise RemoteProtocolError("column definition: bad fixed-length field")
        charset, length, ftype, flags, decimals = r.uint(2), r.uint(4), r.u8(), r.uint(2), r.u8()
        r.bytes(2)
        return cls(
            name=texts[4],
            type=ftype,
            schema=texts[1],
            table=texts[2],
            org_table=texts[3],
            org_name=texts[5],
            character_set=charset,
            column_length=length,
            flags=flags,
            decimals=decimals,
            catalog=texts[0],
        )


@dataclass(frozen=True, slots=True)
class TextRow:
    """A row of the text protocol: each value a lenenc string, NULL as the single byte 0xFB.

    ``values`` are already text-encoded (``bytes``) or ``None``; :func:`text_value` turns Python values into
    MySQL's text forms.
    """

    values: tuple[bytes | None, ...]

    def encode(self) -> bytes:
        """The payload."""
        out = bytearray()
        null = bytes((NULL_MARKER,))
        for v in self.values:
            out += null if v is None else lenenc_str(v)
        return bytes(out)

    @classmethod
    def decode(cls, payload: bytes, column_count: int) -> TextRow:
        """Parse a text row of ``column_count`` values."""
        r = Reader(payload)
        values: list[bytes | None] = []
        for _ in range(column_count):
            if r.remaining() and payload[r.pos] == NULL_MARKER:
                r.u8()
                values.append(None)
            else:
                values.append(r.lenenc_str())
        return cls(tuple(values))


@dataclass(frozen=True, slots=True)
class BinaryRow:
    """A row of the binary protocol (prepared statements).

    ``0x00`` | NULL bitmap of ``(column_count + 7 + 2) // 8`` bytes, bit offset 2 | the non-NULL values, each
    in the binary form of its column's type (:func:`binary_value`).
    """

    values: tuple[Any, ...]
    types: tuple[int, ...]
    unsigned: tuple[bool, ...] = ()

    def encode(self) -> bytes:
        """The payload."""
        n = len(self.values)
        bitmap = bytearray((n + 7 + 2) // 8)
        body = bytearray()
        for i, v in enumerate(self.values):
            if v is None:
                bitmap[(i + 2) // 8] |= 1 << ((i + 2) % 8)
            else:
                uns = bool(self.unsigned[i]) if i < len(self.unsigned) else False
                body += binary_value(v, self.types[i], uns)
        return b"\0" + bytes(bitmap) + bytes(body)


@dataclass(frozen=True, slots=True)
class StmtPrepareOk:
    """COM_STMT_PREPARE_OK and the definitions that follow it (several packets, encoded together).

    ``0x00`` | statement_id (4) | num_columns (2) | num_params (2) | filler (1) | warning_count (2), then
    ``num_params`` column definitions (+ EOF unless DEPRECATE_EOF), then ``num_columns`` column definitions (+ EOF
    unless DEPRECATE_EOF).
    """

    statement_id: int
    params: tuple[ColumnDefinition, ...]
    columns: tuple[ColumnDefinition, ...]
    warnings: int = 0
    status_flags: int = ServerStatus.SERVER_STATUS_AUTOCOMMIT

    def encode_packets(self, capabilities: int) -> list[bytes]:
        """The payloads, one per packet."""
        head = (
            b"\0"
            + self.statement_id.to_bytes(4, "little")
            + len(self.columns).to_bytes(2, "little")
            + len(self.params).to_bytes(2, "little")
            + b"\0"
            + self.warnings.to_bytes(2, "little")
        )
        out = [head]
        eof = Eof(0, self.status_flags).encode(capabilities)
        for group in (self.params, self.columns):
            if group:
                out.extend(c.encode() for c in group)
                if not capabilities & Capability.DEPRECATE_EOF:
                    out.append(eof)
        return out


# ------------------------------------------------------------------------------------------------ value forms
def text_value(value: Any) -> bytes | None:
    """MySQL's text-protocol form of a Python value (``None`` → NULL).

    ints and Decimals print in full, floats in the shortest round-trip form MySQL 8 uses (``%.17g`` trimmed:
    Python's ``repr`` gives the same digits), ``bytes`` pass through, dates as ``YYYY-MM-DD[ hh:mm:ss[.ffffff]]``,
    booleans as 1/0.
    """
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, bool):
        return b"1" if value else b"0"
    if isinstance(value, int):
        return str(value).encode()
    if isinstance(value, float):
        if value == int(value) and abs(value) < 1e15:
            return str(int(value)).encode()
        return repr(value).encode()
    if isinstance(value, Decimal):
        return format(value, "f").encode()
    if isinstance(value, dt.datetime):
        fmt = "%Y-%m-%d %H:%M:%S.%f" if value.microsecond else "%Y-%m-%d %H:%M:%S"
        return value.strftime(fmt).encode()
    if isinstance(value, dt.date):
        return value.isoformat().encode()
    if isinstance(value, dt.timedelta):
        return _time_text(value).encode()
    return str(value).encode("utf-8", "surrogateescape")


def _time_text(value: dt.timedelta) -> str:
    neg = value < dt.timedelta(0)
    value = -value if neg else value
    secs = value.days * 86400 + value.seconds
    text = f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"
    if value.microseconds:
        text += f".{value.microseconds:06d}"
    return ("-" if neg else "") + text


_INT_WIDTHS: dict[int, int] = {
    FieldType.MYSQL_TYPE_TINY: 1,
    FieldType.MYSQL_TYPE_SHORT: 2,
    FieldType.MYSQL_TYPE_YEAR: 2,
    FieldType.MYSQL_TYPE_LONG: 4,
    FieldType.MYSQL_TYPE_INT24: 4,
    FieldType.MYSQL_TYPE_LONGLONG: 8,
}


#: column types whose binary form is not a lenenc string of the value's text (numbers, temporal types).
NON_TEXT_TYPES = frozenset(
    {
        *_INT_WIDTHS,
        FieldType.MYSQL_TYPE_DOUBLE,
        FieldType.MYSQL_TYPE_FLOAT,
        FieldType.MYSQL_TYPE_DATE,
        FieldType.MYSQL_TYPE_DATETIME,
        FieldType.MYSQL_TYPE_TIMESTAMP,
        FieldType.MYSQL_TYPE_TIME,
    }
)


def binary_value(value: Any, ftype: int, unsigned: bool = False) -> bytes:
    """The binary-protocol form of a non-NULL value of column type ``ftype``.

    Integers are little-endian of the type's width, FLOAT/DOUBLE IEEE-754, DATE/DATETIME/TIMESTAMP a length byte
    (0, 4, 7 or 11) then year (2) month day hour minute second (1 each) microsecond (4), TIME a length byte (0, 8
    or 12) then is_negative days (4) hour minute second microsecond (4); everything else a lenenc string of its
    text form.

    Raises:
        LocalProtocolError: the value cannot be represented in that type.
    """
    try:
        if ftype in _INT_WIDTHS:
            return int(value).to_bytes(_INT_WIDTHS[ftype], "little", signed=not unsigned and int(value) < 0)
        if ftype == FieldType.MYSQL_TYPE_DOUBLE:
            return struct.pack("<d", float(value))
        if ftype == FieldType.MYSQL_TYPE_FLOAT:
            return struct.pack("<f", float(value))
    except (OverflowError, ValueError, TypeError) as err:
        raise LocalProtocolError(f"value {value!r} does not fit column type {ftype}") from err
    if ftype in (
        FieldType.MYSQL_TYPE_DATE,
        FieldType.MYSQL_TYPE_DATETIME,
        FieldType.MYSQL_TYPE_TIMESTAMP,
    ) and isinstance(value, dt.date):
        return _binary_datetime(value)
    if ftype == FieldType.MYSQL_TYPE_TIME and isinstance(value, dt.timedelta):
        return _binary_time(value)
    if isinstance(value, str) and ftype in _TEMPORAL_TYPES:
        packed = _binary_temporal_text(value, ftype)
        if packed is not None:
            return packed
    text = text_value(value)
    assert text is not None
    return lenenc_str(text)


_SHORT_LENGTHS = tuple(bytes((i,)) for i in range(0xFB))
_NULL = bytes((NULL_MARKER,))


def encode_text_rows(rows: Any) -> list[bytes]:
    """The payloads of text-protocol rows (what :meth:`TextRow.encode` gives for each row's :func:`text_value`
    forms), encoded in one pass: the hot path of every result set."""
    out: list[bytes] = []
    append = out.append
    for row in rows:
        if len(row) == 1:  # one column: no per-row list
            v = row[0]
            if type(v) is str:
                b = v.encode("utf-8", "surrogateescape")
                m = len(b)
                append((_SHORT_LENGTHS[m] if m < 0xFB else lenenc_int(m)) + b)
                continue
        parts: list[bytes] = []
        add = parts.append
        for v in row:
            t = type(v)
            if t is str:
                b = v.encode("utf-8", "surrogateescape")
            elif t is int:
                b = str(v).encode()
            elif v is None:
                add(_NULL)
                continue
            elif t is bytes:
                b = v
            else:
                b = text_value(v)  # type: ignore[assignment]
            n = len(b)
            add(_SHORT_LENGTHS[n] if n < 0xFB else lenenc_int(n))
            add(b)
        append(b"".join(parts))
    return out


def encode_binary_rows(rows: Any, types: tuple[int, ...], unsigned: tuple[bool, ...]) -> list[bytes]:
    """The payloads of binary-protocol rows of columns ``types`` (byte for byte :meth:`BinaryRow.encode`),
    encoded in one pass with each column's encoder chosen once.

    Raises:
        LocalProtocolError: a value that does not fit its column type (as :func:`binary_value`).
    """
    n = len(types)
    width = (n + 7 + 2) // 8
    ints = tuple(_INT_WIDTHS.get(t, 0) for t in types)
    # strings go out as lenenc text unless the column type has a binary form of its own
    text_ok = tuple(t not in NON_TEXT_TYPES for t in types)
    uns = tuple(bool(unsigned[i]) if i < len(unsigned) else False for i in range(n))
    out: list[bytes] = []
    append = out.append
    if (
        n == 1 and text_ok[0]
    ):  # one string column (sysbench's SELECT c): header 0x00, empty bitmap, lenenc text
        for (v,) in rows:
            if type(v) is str:
                b = v.encode("utf-8", "surrogateescape")
                m = len(b)
                append(b"\0\0" + (_SHORT_LENGTHS[m] if m < 0xFB else lenenc_int(m)) + b)
            else:
                append(b"\0\x04" if v is None else b"\0\0" + binary_value(v, types[0], uns[0]))
        return out
    for row in rows:
        bitmap = bytearray(width)
        parts: list[bytes] = [b"\0", b""]
        add = parts.append
        for i, v in enumerate(row):
            if v is None:
                bitmap[(i + 2) >> 3] |= 1 << ((i + 2) & 7)
                continue
            t = type(v)
            w = ints[i]
            if w and t is int:
                try:
                    add(v.to_bytes(w, "little", signed=not uns[i] and v < 0))
                except OverflowError:
                    add(binary_value(v, types[i], uns[i]))  # raises LocalProtocolError
                continue
            if t is str and text_ok[i]:
                b = v.encode("utf-8", "surrogateescape")
                m = len(b)
                add(_SHORT_LENGTHS[m] if m < 0xFB else lenenc_int(m))
                add(b)
                continue
            add(binary_value(v, types[i], uns[i]))
        parts[1] = bytes(bitmap)
        append(b"".join(parts))
    return out


def _binary_datetime(value: dt.date) -> bytes:
    if isinstance(value, dt.datetime):
        if value.microsecond:
            return bytes((11,)) + struct.pack(
                "<HBBBBBI",
                value.year,
                value.month,
                value.day,
                value.hour,
                value.minute,
                value.second,
                value.microsecond,
            )
        if value.hour or value.minute or value.second:
            return bytes((7,)) + struct.pack(
                "<HBBBBB", value.year, value.month, value.day, value.hour, value.minute, value.second
            )
    return bytes((4,)) + struct.pack("<HBB", value.year, value.month, value.day)


_TEMPORAL_TYPES = frozenset(
    {
        FieldType.MYSQL_TYPE_DATE,
        FieldType.MYSQL_TYPE_DATETIME,
        FieldType.MYSQL_TYPE_TIMESTAMP,
        FieldType.MYSQL_TYPE_TIME,
    }
)
_TEMPORAL_TEXT = re.compile(
    r"(?:(?P<date>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2}))?\s*"
    r"(?:(?P<neg>-)?(?P<h>\d{1,3}):(?P<mi>\d{2}):(?P<s>\d{2})(?:\.(?P<f>\d{1,6}))?)?"
)


def _binary_temporal_text(text: str, ftype: int) -> bytes | None:
    """The binary-protocol form of a temporal value held as MySQL's text (``-838:59:59.5``, ``2024-00-15``, the zero
    date), which no Python ``datetime`` / ``timedelta`` can hold: libmysql's ``net_store_datetime`` /
    ``net_store_time`` layouts with the shortest length that keeps every non-zero field. None: not such a text."""
    m = _TEMPORAL_TEXT.fullmatch(text.strip())
    if m is None:
        return None
    h, mi, s = int(m["h"] or 0), int(m["mi"] or 0), int(m["s"] or 0)
    us = int((m["f"] or "0").ljust(6, "0"))
    if ftype == FieldType.MYSQL_TYPE_TIME:
        if not (h or mi or s or us):
            return b"\0"
        body = struct.pack("<BIBBB", 1 if m["neg"] else 0, h // 24, h % 24, mi, s)
        return bytes((12,)) + body + struct.pack("<I", us) if us else bytes((8,)) + body
    if m["date"] is None or m["neg"]:
        return None
    y, mo, d = int(m["date"]), int(m["mo"]), int(m["d"])
    if us:
        return bytes((11,)) + struct.pack("<HBBBBBI", y, mo, d, h, mi, s, us)
    if h or mi or s:
        return bytes((7,)) + struct.pack("<HBBBBB", y, mo, d, h, mi, s)
    if y or mo or d:
        return bytes((4,)) + struct.pack("<HBB", y, mo, d)
    return b"\0"


def _binary_time(value: dt.timedelta) -> bytes:
    neg = value < dt.timedelta(0)
    value = -value if neg else value
    if not value:
        return b"\0"
    days, secs = value.days, value.seconds
    body = struct.pack("<BIBBB", int(neg), days, secs // 3600, secs % 3600 // 60, secs % 60)
    if value.microseconds:
        return bytes((12,)) + body + struct.pack("<I", value.microseconds)
    return bytes((8,)) + body


def decode_binary_param(r: Reader, ftype: int, unsigned: bool) -> Any:
    """Read one non-NULL parameter value of COM_STMT_EXECUTE in its binary form.

    Returns ints, floats, ``bytes`` (strings, decimals, blobs: the client's bytes), ``datetime.datetime`` /
    ``datetime.date`` and ``datetime.timedelta``.

    Raises:
        RemoteProtocolError: truncated value or a type the client may not send (code 1210,
            ER_WRONG_ARGUMENTS for unknown type codes).
    """
    if ftype in _INT_WIDTHS:
        width = 8 if ftype == FieldType.MYSQL_TYPE_LONGLONG else _INT_WIDTHS[ftype]
        return r.uint(width) if unsigned else r.sint(width)
    if ftype == FieldType.MYSQL_TYPE_DOUBLE:
        return struct.unpack("<d", r.bytes(8))[0]
    if ftype == FieldType.MYSQL_TYPE_FLOAT:
        return struct.unpack("<f", r.bytes(4))[0]
    if ftype in (FieldType.MYSQL_TYPE_DATE, FieldType.MYSQL_TYPE_DATETIME, FieldType.MYSQL_TYPE_TIMESTAMP):
        n = r.u8()
        if n == 0:
            return dt.datetime(1, 1, 1) if ftype != FieldType.MYSQL_TYPE_DATE else dt.date(1, 1, 1)
        y, mo, d = r.uint(2), r.u8(), r.u8()
        h = mi = s = us = 0
        if n >= 7:
            h, mi, s = r.u8(), r.u8(), r.u8()
        if n >= 11:
            us = r.uint(4)
        try:
            if ftype == FieldType.MYSQL_TYPE_DATE:
                return dt.date(y, mo, d)
            return dt.datetime(y, mo, d, h, mi, s, us)
        except (ValueError, OverflowError):  # a field past its range (microseconds up to 2**32 - 1)
            return f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}".encode()
    if ftype == FieldType.MYSQL_TYPE_TIME:
        n = r.u8()
        if n == 0:
            return dt.timedelta(0)
        neg, days, h, mi, s = r.u8(), r.uint(4), r.u8(), r.u8(), r.u8()
        us = r.uint(4) if n >= 12 else 0
        # sql_prepare.cc set_param_time: hours = hour + days * 24 in a 32-bit uint, and beyond TIME's 838 hours
        # the value is 838:59:59 (no error)
        hours = (h + days * 24) & 0xFFFFFFFF
        if hours > 838:
            hours, mi, s = 838, 59, 59
        value = dt.timedelta(hours=hours, minutes=mi, seconds=s, microseconds=us)
        return -value if neg else value
    if ftype == FieldType.MYSQL_TYPE_NULL:
        return None
    if ftype in _STRING_PARAM_TYPES:
        return r.lenenc_str()
    raise RemoteProtocolError(
        f"Incorrect arguments to mysqld_stmt_execute (type {ftype})", code=1210, sqlstate="HY000"
    )


_STRING_PARAM_TYPES = frozenset(
    {
        FieldType.MYSQL_TYPE_DECIMAL,
        FieldType.MYSQL_TYPE_NEWDECIMAL,
        FieldType.MYSQL_TYPE_VARCHAR,
        FieldType.MYSQL_TYPE_BIT,
        FieldType.MYSQL_TYPE_JSON,
        FieldType.MYSQL_TYPE_ENUM,
        FieldType.MYSQL_TYPE_SET,
        FieldType.MYSQL_TYPE_TINY_BLOB,
        FieldType.MYSQL_TYPE_MEDIUM_BLOB,
        FieldType.MYSQL_TYPE_LONG_BLOB,
        FieldType.MYSQL_TYPE_BLOB,
        FieldType.MYSQL_TYPE_VAR_STRING,
        FieldType.MYSQL_TYPE_STRING,
        FieldType.MYSQL_TYPE_GEOMETRY,
        FieldType.MYSQL_TYPE_NEWDATE,
        FieldType.MYSQL_TYPE_VECTOR,
    }
)


# ------------------------------------------------------------------------------------------------ commands
@dataclass(frozen=True, slots=True)
class QueryAttribute:
    """One query attribute or bound parameter: name (empty for positional parameters), type, value."""

    name: str
    type: int
    value: Any
    unsigned: bool = False


def _read_bound_values(
    r: Reader,
    count: int,
    *,
    with_names: bool,
    previous_types: tuple[tuple[int, bool], ...] | None = None,
    long_data: frozenset[int] = frozenset(),
) -> tuple[tuple[QueryAttribute, ...], tuple[tuple[int, bool], ...]]:
    """NULL bitmap | new_params_bound_flag | types (and names) | values: shared by COM_QUERY attributes and
    COM_STMT_EXECUTE parameters. Returns the values and the types in force (for the next execution).
    Parameters in ``long_data`` were sent with COM_STMT_SEND_LONG_DATA: their value is not in the packet
    (returned as ``None``; the caller substitutes the long data)."""
    if count == 0:
        return (), previous_types or ()
    nulls = r.bytes((count + 7) // 8)
    bound = r.u8()
    names: list[str] = [""] * count
    if bound:
        types = []
        for i in range(count):
            t, flag = r.u8(), r.u8()
            types.append((t, bool(flag & UNSIGNED_PARAM_FLAG)))
            if with_names:
                names[i] = r.lenenc_str().decode("utf-8", "replace")
        typed = tuple(types)
    elif previous_types is not None and len(previous_types) == count:
        typed = previous_types
    else:
        raise RemoteProtocolError("Incorrect arguments to mysqld_stmt_execute", code=1210, sqlstate="HY000")
    out = []
    for i, (t, uns) in enumerate(typed):
        if nulls[i // 8] & (1 << (i % 8)) or i in long_data:
            out.append(QueryAttribute(names[i], t, None, uns))
        else:
            out.append(QueryAttribute(names[i], t, decode_binary_param(r, t, uns), uns))
    return tuple(out), typed


#: (type, unsigned) -> struct of the fixed-width binary parameter forms (what decode_binary_param reads for them)
_FIXED_PARAMS: dict[tuple[int, bool], struct.Struct] = {
    **{
        (int(t), uns): struct.Struct(
            "<"
            + ({1: "b", 2: "h", 4: "i", 8: "q"}[w].upper() if uns else {1: "b", 2: "h", 4: "i", 8: "q"}[w])
        )
        for t, w in _INT_WIDTHS.items()
        for uns in (False, True)
    },
    **{(int(FieldType.MYSQL_TYPE_DOUBLE), u): struct.Struct("<d") for u in (False, True)},
    **{(int(FieldType.MYSQL_TYPE_FLOAT), u): struct.Struct("<f") for u in (False, True)},
}


#: the raw type block of COM_STMT_EXECUTE (type, flags per parameter) -> its (type, unsigned) pairs, for the blocks
#: seen first (a server sees few distinct ones: one per statement shape)
_PARAM_TYPES: dict[bytes, tuple[tuple[int, bool], ...]] = {}
_PARAM_TYPES_KEPT = 4096


def execute_parameters(
    payload: bytes,
    num_params: int,
    query_attributes: bool,
    previous_types: tuple[tuple[int, bool], ...] | None,
) -> tuple[list[Any], tuple[tuple[int, bool], ...]] | None:
    """The bound values of a whole COM_STMT_EXECUTE ``payload`` (command byte included) in one pass: the common
    layouts only, with the values :meth:`ComStmtExecute.parameters` gives for them (``[v.value ...]`` of its
    first ``num_params``) and the types then in force.

    Returns None for anything else: query attributes with names or a count other than ``num_params``, no types
    bound yet, a truncated or malformed block, a type the client may not send. The caller then takes the general
    path, which answers those exactly (errors included). Nothing is raised.
    """
    if num_params == 0:
        if query_attributes and payload[5] & PARAMETER_COUNT_AVAILABLE:
            return None
        return [], previous_types or ()
    pos = 10
    end = len(payload)
    if query_attributes:  # lenenc parameter count first; named attributes beyond it take the general path
        if pos >= end or payload[pos] != num_params or num_params >= 0xFB:
            return None
        pos += 1
    nulls = payload[pos : pos + (num_params + 7) // 8]
    pos += (num_params + 7) // 8
    if pos >= end:
        return None
    if payload[pos]:
        if query_attributes:
            return None  # new types come with a name each
        pos += 1
        raw = bytes(payload[pos : pos + 2 * num_params])  # a dict key (the same object when payload is bytes)
        if len(raw) < 2 * num_params:
            return None
        types = _PARAM_TYPES.get(raw)  # a client sends the same types with every execution
        if types is None:
            types = tuple(
                (raw[i], bool(raw[i + 1] & UNSIGNED_PARAM_FLAG)) for i in range(0, 2 * num_params, 2)
            )
            if len(_PARAM_TYPES) < _PARAM_TYPES_KEPT:
                _PARAM_TYPES[raw] = types
        pos += 2 * num_params
    else:
        pos += 1
        if previous_types is None or len(previous_types) != num_params:
            return None
        types = previous_types
    values: list[Any] = []
    add = values.append
    fixed = _FIXED_PARAMS
    try:
        for i, key in enumerate(types):
            if nulls[i >> 3] & (1 << (i & 7)):
                add(None)
                continue
            st = fixed.get(key)
            if st is not None:
                add(st.unpack_from(payload, pos)[0])
                pos += st.size
            elif key[0] in _STRING_PARAM_TYPES and pos < end and payload[pos] < 0xFB:
                n = payload[pos] + 1  # a string of fewer than 251 bytes: its one-byte length, then the bytes
                if pos + n > end:
                    return None
                add(bytes(payload[pos + 1 : pos + n]))
                pos += n
            else:
                r = Reader(payload, pos)
                add(decode_binary_param(r, key[0], key[1]))
                pos = r.pos
    except (struct.error, RemoteProtocolError):
        return None
    return values, types


#: the tables above as :mod:`gtidkit.protocol.wire_fast` reads them for the compiled loops (the same objects: the
#: type-block cache is shared by both decoders)
INT_WIDTHS = _INT_WIDTHS
STRING_PARAM_TYPES = _STRING_PARAM_TYPES
PARAM_TYPE_CACHE = _PARAM_TYPES


@dataclass(frozen=True, slots=True)
class ComQuery:
    """COM_QUERY: ``0x03`` | [with QUERY_ATTRIBUTES: lenenc parameter_count, lenenc parameter_set_count (1),
    NULL bitmap, new_params_bind_flag, types + names, values] | query text (rest of packet)."""

    code: ClassVar[int] = Command.COM_QUERY
    query: bytes
    attributes: tuple[QueryAttribute, ...] = ()

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComQuery:
        """Parse the body after the command byte."""
        attrs: tuple[QueryAttribute, ...] = ()
        if capabilities & Capability.QUERY_ATTRIBUTES:
            count = r.lenenc_int()
            r.lenenc_int()  # parameter_set_count: always 1
            attrs, _ = _read_bound_values(r, count, with_names=True)
        return cls(r.rest(), attrs)

    def encode(self, capabilities: int) -> bytes:
        """The payload (client side; attributes are sent as strings)."""
        out = bytearray((self.code,))
        if capabilities & Capability.QUERY_ATTRIBUTES:
            out += lenenc_int(len(self.attributes)) + lenenc_int(1)
            if self.attributes:
                out += bytes((len(self.attributes) + 7) // 8)
                out.append(1)
                for a in self.attributes:
                    out += bytes((FieldType.MYSQL_TYPE_VAR_STRING, 0)) + lenenc_str(a.name.encode())
                for a in self.attributes:
                    out += lenenc_str(text_value(a.value) or b"")
        return bytes(out) + self.query


@dataclass(frozen=True, slots=True)
class ComInitDb:
    """COM_INIT_DB: ``0x02`` | schema name (rest of packet)."""

    code: ClassVar[int] = Command.COM_INIT_DB
    schema: str

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComInitDb:
        """Parse the body after the command byte."""
        return cls(r.rest().decode("utf-8", "surrogateescape"))

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        return bytes((self.code,)) + self.schema.encode()


@dataclass(frozen=True, slots=True)
class ComFieldList:
    """COM_FIELD_LIST (deprecated, still answered): ``0x04`` | table NUL | wildcard (rest)."""

    code: ClassVar[int] = Command.COM_FIELD_LIST
    table: str
    wildcard: str = ""

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComFieldList:
        """Parse the body after the command byte."""
        table = r.nul_str().decode("utf-8", "surrogateescape")
        return cls(table, r.rest().decode("utf-8", "surrogateescape"))

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        return bytes((self.code,)) + self.table.encode() + b"\0" + self.wildcard.encode()


@dataclass(frozen=True, slots=True)
class ComQuit:
    """COM_QUIT: ``0x01``; the server closes the connection without answering."""

    code: ClassVar[int] = Command.COM_QUIT

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComQuit:
        """Parse the body after the command byte (none expected; extra bytes are ignored)."""
        r.rest()
        return cls()

    def encode(self, capabilities: int) -> bytes:
        """The payload (the command byte)."""
        return bytes((self.code,))


@dataclass(frozen=True, slots=True)
class ComPing:
    """COM_PING: ``0x0e``; answered with OK."""

    code: ClassVar[int] = Command.COM_PING

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComPing:
        """Parse the body after the command byte (none expected; extra bytes are ignored)."""
        r.rest()
        return cls()

    def encode(self, capabilities: int) -> bytes:
        """The payload (the command byte)."""
        return bytes((self.code,))


@dataclass(frozen=True, slots=True)
class ComStatistics:
    """COM_STATISTICS: ``0x09``; answered with a bare status string (no header)."""

    code: ClassVar[int] = Command.COM_STATISTICS

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComStatistics:
        """Parse the body after the command byte (none expected; extra bytes are ignored)."""
        r.rest()
        return cls()

    def encode(self, capabilities: int) -> bytes:
        """The payload (the command byte)."""
        return bytes((self.code,))


@dataclass(frozen=True, slots=True)
class ComResetConnection:
    """COM_RESET_CONNECTION: ``0x1f``; resets the session, answered with OK."""

    code: ClassVar[int] = Command.COM_RESET_CONNECTION

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComResetConnection:
        """Parse the body after the command byte (none expected; extra bytes are ignored)."""
        r.rest()
        return cls()

    def encode(self, capabilities: int) -> bytes:
        """The payload (the command byte)."""
        return bytes((self.code,))


@dataclass(frozen=True, slots=True)
class ComDebug:
    """COM_DEBUG: ``0x0d``; answered with OK (MySQL dumps debug info to its error log)."""

    code: ClassVar[int] = Command.COM_DEBUG

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComDebug:
        """Parse the body after the command byte (none expected; extra bytes are ignored)."""
        r.rest()
        return cls()

    def encode(self, capabilities: int) -> bytes:
        """The payload (the command byte)."""
        return bytes((self.code,))


@dataclass(frozen=True, slots=True)
class ComSetOption:
    """COM_SET_OPTION: ``0x1b`` | option (2): 0 MULTI_STATEMENTS_ON, 1 MULTI_STATEMENTS_OFF; answered with EOF."""

    code: ClassVar[int] = Command.COM_SET_OPTION
    option: int

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComSetOption:
        """Parse the body after the command byte."""
        return cls(r.uint(2))

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        return bytes((self.code,)) + self.option.to_bytes(2, "little")


@dataclass(frozen=True, slots=True)
class ComProcessKill:
    """COM_PROCESS_KILL (deprecated): ``0x0c`` | connection id (4)."""

    code: ClassVar[int] = Command.COM_PROCESS_KILL
    connection_id: int

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComProcessKill:
        """Parse the body after the command byte."""
        return cls(r.uint(4))

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        return bytes((self.code,)) + self.connection_id.to_bytes(4, "little")


@dataclass(frozen=True, slots=True)
class ComChangeUser:
    """COM_CHANGE_USER: ``0x11`` | user NUL | auth (u8 length + bytes with SECURE_CONNECTION, else NUL str) |
    schema NUL | [character_set (2) | plugin NUL with PLUGIN_AUTH | attributes with CONNECT_ATTRS]."""

    code: ClassVar[int] = Command.COM_CHANGE_USER
    username: str
    auth_response: bytes
    database: str
    character_set: int = UTF8MB4_0900_AI_CI
    auth_plugin_name: str = ""

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComChangeUser:
        """Parse the body after the command byte."""
        user = r.nul_str().decode("utf-8", "surrogateescape")
        if capabilities & Capability.SECURE_CONNECTION:
            auth = r.bytes(r.u8())
        else:
            auth = r.nul_str()
        db = r.nul_str().decode("utf-8", "surrogateescape") if r.remaining() else ""
        charset = r.uint(2) if r.remaining() >= 2 else UTF8MB4_0900_AI_CI
        plugin = ""
        if capabilities & Capability.PLUGIN_AUTH and r.remaining():
            plugin = r.nul_str().decode("ascii", "replace")
        r.rest()  # connection attributes: not kept
        return cls(user, auth, db, charset, plugin)

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        out = bytearray((self.code,)) + self.username.encode() + b"\0"
        out += bytes((len(self.auth_response),)) + self.auth_response
        out += self.database.encode() + b"\0" + self.character_set.to_bytes(2, "little")
        if capabilities & Capability.PLUGIN_AUTH:
            out += self.auth_plugin_name.encode() + b"\0"
        return bytes(out)


@dataclass(frozen=True, slots=True)
class ComStmtPrepare:
    """COM_STMT_PREPARE: ``0x16`` | query text (rest)."""

    code: ClassVar[int] = Command.COM_STMT_PREPARE
    query: bytes

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComStmtPrepare:
        """Parse the body after the command byte."""
        return cls(r.rest())

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        return bytes((self.code,)) + self.query


@dataclass(frozen=True, slots=True)
class ComStmtExecute:
    """COM_STMT_EXECUTE: ``0x17`` | statement_id (4) | flags (1) | iteration_count (4) | parameters.

    The parameter block needs the statement's parameter count, which only the server knows, so it is kept raw in
    ``body`` and read with :meth:`parameters`.
    """

    code: ClassVar[int] = Command.COM_STMT_EXECUTE
    statement_id: int
    flags: int
    iteration_count: int
    body: bytes

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComStmtExecute:
        """Parse the body after the command byte."""
        return cls(r.uint(4), r.u8(), r.uint(4), r.rest())

    def parameters(
        self,
        num_params: int,
        capabilities: int,
        previous_types: tuple[tuple[int, bool], ...] | None = None,
        long_data: frozenset[int] = frozenset(),
    ) -> tuple[tuple[QueryAttribute, ...], tuple[tuple[int, bool], ...]]:
        """Decode the bound values for a statement of ``num_params`` placeholders.

        With CLIENT_QUERY_ATTRIBUTES the block starts with a lenenc parameter count (which may exceed
        ``num_params``: the extra ones are named query attributes). Returns ``(values, types in force)``.

        Raises:
            RemoteProtocolError: malformed or truncated block (1835), or no types bound yet (1210).
        """
        r = Reader(self.body)
        count = num_params
        with_names = False
        if capabilities & Capability.QUERY_ATTRIBUTES and (
            num_params > 0 or self.flags & PARAMETER_COUNT_AVAILABLE
        ):
            count = r.lenenc_int() if r.remaining() else 0
            with_names = True
        if count < num_params:
            raise RemoteProtocolError(
                "Incorrect arguments to mysqld_stmt_execute", code=1210, sqlstate="HY000"
            )
        return _read_bound_values(
            r, count, with_names=with_names, previous_types=previous_types, long_data=long_data
        )

    def encode(self, capabilities: int) -> bytes:
        """The payload (with the raw parameter block)."""
        return (
            bytes((self.code,))
            + self.statement_id.to_bytes(4, "little")
            + bytes((self.flags,))
            + self.iteration_count.to_bytes(4, "little")
            + self.body
        )


@dataclass(frozen=True, slots=True)
class ComStmtSendLongData:
    """COM_STMT_SEND_LONG_DATA: ``0x18`` | statement_id (4) | param_id (2) | data (rest); never answered."""

    code: ClassVar[int] = Command.COM_STMT_SEND_LONG_DATA
    statement_id: int
    param_id: int
    data: bytes

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComStmtSendLongData:
        """Parse the body after the command byte."""
        return cls(r.uint(4), r.uint(2), r.rest())

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        return (
            bytes((self.code,))
            + self.statement_id.to_bytes(4, "little")
            + self.param_id.to_bytes(2, "little")
            + self.data
        )


@dataclass(frozen=True, slots=True)
class ComStmtClose:
    """COM_STMT_CLOSE: ``0x19`` | statement_id (4); never answered."""

    code: ClassVar[int] = Command.COM_STMT_CLOSE
    statement_id: int

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComStmtClose:
        """Parse the body after the command byte."""
        return cls(r.uint(4))

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        return bytes((self.code,)) + self.statement_id.to_bytes(4, "little")


@dataclass(frozen=True, slots=True)
class ComStmtReset:
    """COM_STMT_RESET: ``0x1a`` | statement_id (4); answered with OK."""

    code: ClassVar[int] = Command.COM_STMT_RESET
    statement_id: int

    @classmethod
    def decode(cls, r: Reader, capabilities: int) -> ComStmtReset:
        """Parse the body after the command byte."""
        return cls(r.uint(4))

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        return bytes((self.code,)) + self.statement_id.to_bytes(4, "little")


@dataclass(frozen=True, slots=True)
class UnknownCommand:
    """A command gtidkit does not implement (kept whole, answered with ER_UNKNOWN_COM_ERROR 1047)."""

    command: int
    body: bytes = field(default=b"")

    def encode(self, capabilities: int) -> bytes:
        """The payload."""
        return bytes((self.command,)) + self.body


#: command byte -> message class (the single dispatch table of the command phase).
COMMANDS: dict[int, Any] = {
    c.code: c
    for c in (
        ComQuit,
        ComInitDb,
        ComQuery,
        ComFieldList,
        ComStatistics,
        ComDebug,
        ComPing,
        ComProcessKill,
        ComChangeUser,
        ComStmtPrepare,
        ComStmtExecute,
        ComStmtSendLongData,
        ComStmtClose,
        ComStmtReset,
        ComSetOption,
        ComResetConnection,
    )
}


def decode_command(payload: bytes, capabilities: int) -> Any:
    """Parse one command-phase packet into its message class (``UnknownCommand`` for the others).

    Raises:
        RemoteProtocolError: empty or malformed packet.
    """
    if not payload:
        raise RemoteProtocolError("Malformed communication packet.", code=1835, sqlstate="HY000")
    cls = COMMANDS.get(payload[0])
    if cls is None:
        return UnknownCommand(payload[0], bytes(payload[1:]))
    return cls.decode(Reader(payload, 1), capabilities)
