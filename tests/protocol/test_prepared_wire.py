"""COM_STMT_PREPARE / COM_STMT_EXECUTE through the ClientHandler in memory over a real engine: the column
definitions PREPARE returns are the ones EXECUTE sends (byte for byte, for columns read from tables), values are
bound by the engine (never SQL), and the session tracks the GTIDs of a prepared INSERT like a text one.

Sources: DEVDOC ``page_protocol_com_stmt_prepare`` (COM_STMT_PREPARE_OK: status 0, statement id, column count,
param count, filler, warning count; then the parameter and column definitions) and
``page_protocol_com_stmt_execute`` (statement id, flags, iteration count 1, NULL bitmap, new-params-bound flag,
types, values); WL#6972 (prepared statements are tracked like text ones).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from gtidkit.engine import Server
from gtidkit.engine.accounts.bootstrap import create_root
from gtidkit.protocol.constants import Capability
from gtidkit.protocol.handler import ClientHandler, ServerContext
from gtidkit.protocol.messages import Handshake, HandshakeResponse, Ok
from gtidkit.protocol.packets import PacketReader, frame

CAPS = (
    Capability.PROTOCOL_41
    | Capability.SECURE_CONNECTION
    | Capability.PLUGIN_AUTH
    | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA
    | Capability.MULTI_RESULTS
    | Capability.SESSION_TRACK
    | Capability.DEPRECATE_EOF
)
MYSQL_TYPE_LONGLONG = 8
MYSQL_TYPE_VAR_STRING = 253


@pytest.fixture
def handler(tmp_path: Path) -> Iterator[ClientHandler]:
    engine = Server.open(tmp_path / "data", gtid_mode="ON", log_bin=True, session_track_gtids="OWN_GTID")
    create_root(engine, "")  # root@localhost, empty password
    ctx = ServerContext(engine=engine, accounts=engine.accounts)
    h = ClientHandler(ctx, "127.0.0.1")
    try:
        assert Handshake.decode(_packets(h.start())[0][1]).protocol_version == 10
        resp = HandshakeResponse(CAPS, "root", b"", None, "caching_sha2_password")
        assert _packets(h.receive_data(frame(resp.encode(), 1)[0]))[0][1][0] == 0
        yield h
    finally:
        h.close()
        engine.shutdown()


def _packets(data: bytes) -> list[tuple[int, bytes]]:
    r = PacketReader()
    r.feed(data)
    out = []
    while (p := r.next_packet()) is not None:
        out.append((p.sequence_id, p.payload))
    return out


def _command(h: ClientHandler, payload: bytes) -> list[bytes]:
    return [p for _s, p in _packets(h.receive_data(frame(payload, 0)[0]))]


def _prepare(h: ClientHandler, sql: str) -> tuple[int, int, list[bytes]]:
    out = _command(h, b"\x16" + sql.encode())
    assert out[0][0] == 0, out[0]
    stmt_id, ncols, nparams = struct.unpack_from("<IHH", out[0], 1)
    assert len(out) == 1 + nparams + ncols  # CLIENT_DEPRECATE_EOF: no EOF packets after the definitions
    return stmt_id, nparams, out[1 + nparams :]


def _execute(h: ClientHandler, stmt_id: int, params: list[tuple[int, bytes | None]]) -> list[bytes]:
    body = struct.pack("<IBI", stmt_id, 0, 1)
    if params:
        bitmap = bytearray((len(params) + 7) // 8)
        for i, (_t, v) in enumerate(params):
            if v is None:
                bitmap[i // 8] |= 1 << (i % 8)
        body += bytes(bitmap) + b"\x01" + b"".join(struct.pack("<BB", t, 0) for t, _v in params)
        body += b"".join(v for _t, v in params if v is not None)
    return _command(h, b"\x17" + body)


def _lenenc_str(b: bytes) -> bytes:
    assert len(b) < 251
    return bytes([len(b)]) + b


def test_prepare_metadata_is_what_execute_sends(handler: ClientHandler) -> None:
    for sql in (
        "CREATE DATABASE app",
        "CREATE TABLE app.t (id BIGINT PRIMARY KEY, name VARCHAR(20) NOT NULL, price DECIMAL(8,2))",
        "INSERT INTO app.t VALUES (1, 'a', 1.50), (2, 'b', NULL)",
    ):
        assert _command(handler, b"\x03" + sql.encode())[0][0] == 0
    stmt_id, nparams, prepared_defs = _prepare(handler, "SELECT id, name, price FROM app.t WHERE id = ?")
    assert nparams == 1 and len(prepared_defs) == 3
    out = _execute(handler, stmt_id, [(MYSQL_TYPE_LONGLONG, struct.pack("<q", 2))])
    assert out[0] == b"\x03"  # column count
    assert out[1:4] == prepared_defs  # the same definitions, byte for byte
    row = out[4]
    assert row[0] == 0 and row[1] == 1 << (2 + 2)  # binary row: price (column 2; bitmap offset 2) is NULL
    assert row[2:] == struct.pack("<q", 2) + _lenenc_str(b"b")
    assert Ok.decode(out[5], int(CAPS)).header == 0xFE


def test_bound_value_is_data_and_prepared_insert_is_tracked(handler: ClientHandler) -> None:
    for sql in ("CREATE DATABASE app", "CREATE TABLE app.t (id BIGINT PRIMARY KEY, v VARCHAR(40))"):
        _command(handler, b"\x03" + sql.encode())
    stmt_id, nparams, defs = _prepare(handler, "INSERT INTO app.t VALUES (?, ?)")
    assert (nparams, defs) == (2, [])
    evil = b"x'); DROP TABLE app.t; --"
    out = _execute(
        handler,
        stmt_id,
        [(MYSQL_TYPE_LONGLONG, struct.pack("<q", 7)), (MYSQL_TYPE_VAR_STRING, _lenenc_str(evil))],
    )
    ok = Ok.decode(out[0], int(CAPS))
    assert ok.affected_rows == 1
    # session_track_gtids=OWN_GTID: the OK carries the GTID this INSERT committed (type 3, encoding 0)
    assert ok.status_flags & 0x4000 and ok.session_state
    assert ok.session_state[0] == 3 and b":" in ok.session_state
    stmt2, _n, _defs = _prepare(handler, "SELECT v FROM app.t WHERE id = ?")
    out = _execute(handler, stmt2, [(MYSQL_TYPE_LONGLONG, struct.pack("<q", 7))])
    assert out[2][2:] == _lenenc_str(evil)  # the value came back as data: the table is still there


def test_prepare_errors_and_wrong_execute(handler: ClientHandler) -> None:
    out = _command(handler, b"\x16SELECT * FROM nosuch.t WHERE a = ?")
    assert out[0][0] == 0xFF and int.from_bytes(out[0][1:3], "little") == 1146
    out = _command(handler, b"\x16")
    assert int.from_bytes(out[0][1:3], "little") == 1065
    out = _execute(handler, 99, [])
    assert out[0][0] == 0xFF and int.from_bytes(out[0][1:3], "little") == 1243
