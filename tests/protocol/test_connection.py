"""The sans-I/O ServerConnection: one table of exchanges, fed whole, byte by byte and with trailing bytes (h11's
test_io.py shape); local misuse and remote violations; a fuzz invariant (only protocol errors escape)."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gtidkit.errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from gtidkit.protocol.connection import NEED_DATA, PAUSED, ConnectionClosed, ServerConnection, State
from gtidkit.protocol.constants import SERVER_CAPABILITIES, Capability, FieldType, ServerStatus
from gtidkit.protocol.messages import (
    AuthData,
    AuthMoreData,
    AuthSwitchRequest,
    BinaryRow,
    ColumnCount,
    ColumnDefinition,
    ComPing,
    ComQuery,
    ComQuit,
    ComStmtClose,
    Eof,
    Err,
    Handshake,
    HandshakeResponse,
    Ok,
    SSLRequest,
    TextRow,
    text_value,
)
from gtidkit.protocol.packets import PacketReader, frame

SCRAMBLE = b"0123456789abcdefghij"
CLIENT_CAPS = (
    Capability.PROTOCOL_41
    | Capability.SECURE_CONNECTION
    | Capability.PLUGIN_AUTH
    | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA
    | Capability.MULTI_STATEMENTS
    | Capability.MULTI_RESULTS
)


def _handshake() -> Handshake:
    return Handshake("8.0.36", 5, SCRAMBLE, SERVER_CAPABILITIES)


def _events(conn: ServerConnection, data: bytes, step: int | None) -> list[object]:
    chunks = [data] if step is None else [data[i : i + step] for i in range(0, len(data), step)]
    out: list[object] = []
    for chunk in chunks:  # every byte is fed; events stop when it is the server's turn (PAUSED)
        conn.receive_data(chunk)
        while True:
            ev = conn.next_event()
            if ev is NEED_DATA or ev is PAUSED:
                break
            out.append(ev)
    return out


def _authenticated(caps: Capability = CLIENT_CAPS) -> ServerConnection:
    conn = ServerConnection()
    conn.send(_handshake())
    resp = HandshakeResponse(caps, "root", b"", None, "mysql_native_password")
    conn.receive_data(frame(resp.encode(), 1)[0])
    assert isinstance(conn.next_event(), HandshakeResponse)
    out = conn.send(Ok())
    assert out[3] == 2  # sequence id 2 after Handshake (0) and response (1)
    assert conn.state is State.COMMAND
    return conn


@pytest.mark.parametrize("step", [None, 1, 2], ids=["whole", "byte-by-byte", "two-bytes"])
def test_handshake_and_auth_switch(step: int | None) -> None:
    conn = ServerConnection()
    out = conn.send(_handshake())
    assert out[3] == 0 and conn.state is State.AWAIT_RESPONSE
    assert conn.next_event() is NEED_DATA
    resp = HandshakeResponse(CLIENT_CAPS, "bob", b"x" * 20, None, "mysql_native_password")
    events = _events(conn, frame(resp.encode(), 1)[0], step)
    assert events == [resp]
    assert conn.capabilities == SERVER_CAPABILITIES & CLIENT_CAPS
    assert conn.next_event() is PAUSED
    out = conn.send(AuthSwitchRequest("caching_sha2_password", SCRAMBLE))
    assert out[3] == 2 and conn.state is State.AWAIT_AUTH_DATA
    events = _events(conn, frame(b"y" * 32, 3)[0], step)
    assert events == [AuthData(b"y" * 32)]
    out = conn.send(AuthMoreData(b"\x03"))  # fast_auth_success: the server speaks again
    assert conn.state is State.AUTH and out[3] == 4
    out = conn.send(Ok())
    assert out[3] == 5 and conn.state is State.COMMAND


def test_full_auth_then_public_key_request() -> None:
    conn = ServerConnection()
    conn.send(_handshake())
    conn.receive_data(
        frame(HandshakeResponse(CLIENT_CAPS, "u", b"t" * 32, None, "caching_sha2_password").encode(), 1)[0]
    )
    conn.next_event()
    conn.send(AuthMoreData(b"\x04"))
    assert conn.state is State.AWAIT_AUTH_DATA
    conn.receive_data(frame(b"\x02", 3)[0])
    assert conn.next_event() == AuthData(b"\x02")
    conn.send(AuthMoreData(b"-----BEGIN PUBLIC KEY-----"))
    conn.receive_data(frame(b"z" * 256, 5)[0])
    assert conn.next_event() == AuthData(b"z" * 256)
    assert conn.send(Ok())[3] == 6


@pytest.mark.parametrize("step", [None, 1], ids=["whole", "byte-by-byte"])
def test_query_result_set_and_pipelined_bytes(step: int | None) -> None:
    conn = _authenticated()
    # two commands arrive together (pipelining): the second waits until the first is answered
    data = frame(ComQuery(b"SELECT 1").encode(0), 0)[0] + frame(ComPing().encode(0), 0)[0]
    events = _events(conn, data, step)
    assert events == [ComQuery(b"SELECT 1")]
    assert conn.next_event() is PAUSED
    out = conn.send(ColumnCount(1))
    out += conn.send(ColumnDefinition("1"))
    out += conn.send(Eof())
    out += conn.send(TextRow((b"1",)))
    out += conn.send(Eof())
    seqs = _seqs(out)
    assert seqs == [1, 2, 3, 4, 5]
    assert conn.state is State.COMMAND
    assert conn.next_event() == ComPing()
    assert _seqs(conn.send(Ok())) == [1]


def _seqs(data: bytes) -> list[int]:
    r = PacketReader()
    r.feed(data)
    out = []
    while (p := r.next_packet()) is not None:
        out.append(p.sequence_id)
    return out


def test_deprecate_eof_shapes() -> None:
    conn = _authenticated(CLIENT_CAPS | Capability.DEPRECATE_EOF)
    conn.receive_data(frame(b"\x03SELECT 1", 0)[0])
    conn.next_event()
    out = conn.send(ColumnCount(1)) + conn.send(ColumnDefinition("1"))
    assert conn.send(Eof()) == b""  # no EOF after the definitions
    out += conn.send(TextRow((b"1",)))
    end = conn.send(Eof(0, 2))
    assert end[4] == 0xFE and len(end) == 4 + 7  # an OK with header 0xFE closes the rows
    assert _seqs(out + end) == [1, 2, 3, 4]


def test_multi_results_keep_responding() -> None:
    conn = _authenticated()
    conn.receive_data(frame(b"\x03SELECT 1; SELECT 2", 0)[0])
    conn.next_event()
    conn.send(
        Ok(status_flags=ServerStatus.SERVER_STATUS_AUTOCOMMIT | ServerStatus.SERVER_MORE_RESULTS_EXISTS)
    )
    assert conn.state is State.RESPONDING
    conn.send(Ok())
    assert conn.state is State.COMMAND


def test_commands_without_answer() -> None:
    conn = _authenticated()
    conn.receive_data(frame(ComStmtClose(1).encode(0), 0)[0] + frame(b"\x0e", 0)[0])
    assert conn.next_event() == ComStmtClose(1)
    assert conn.state is State.COMMAND
    assert conn.next_event() == ComPing()  # sequence restarts at 0 for the next command
    conn.send(Ok())
    conn.receive_data(frame(ComQuit().encode(0), 0)[0])
    assert conn.next_event() == ComQuit()
    assert conn.state is State.CLOSED


def test_client_close_between_packets_and_mid_packet() -> None:
    conn = _authenticated()
    conn.receive_data(b"")
    assert isinstance(conn.next_event(), ConnectionClosed)
    conn = _authenticated()
    conn.receive_data(b"\x05\x00\x00")
    conn.receive_data(b"")
    with pytest.raises(RemoteProtocolError):
        conn.next_event()
    assert conn.state is State.ERROR


def test_ssl_request_then_response() -> None:
    conn = ServerConnection(SERVER_CAPABILITIES | Capability.SSL)
    conn.send(_handshake())
    conn.receive_data(frame(SSLRequest(CLIENT_CAPS | Capability.SSL).encode(), 1)[0])
    assert isinstance(conn.next_event(), SSLRequest) and conn.tls_requested
    resp = HandshakeResponse(CLIENT_CAPS | Capability.SSL, "u", b"", None, "caching_sha2_password")
    conn.receive_data(frame(resp.encode(), 2)[0])
    assert conn.next_event() == resp
    assert conn.send(Ok())[3] == 3


def test_ssl_request_refused_without_certificate() -> None:
    conn = ServerConnection(SERVER_CAPABILITIES)
    conn.send(_handshake())
    conn.receive_data(frame(SSLRequest(CLIENT_CAPS | Capability.SSL).encode(), 1)[0])
    with pytest.raises(RemoteProtocolError):
        conn.next_event()


def test_wrong_sequence_id_is_1156() -> None:
    conn = _authenticated()
    conn.receive_data(frame(b"\x0e", 3)[0])
    with pytest.raises(RemoteProtocolError) as exc:
        conn.next_event()
    assert exc.value.code == 1156 and conn.state is State.ERROR


def test_oversized_packet_is_1153() -> None:
    conn = ServerConnection(max_allowed_packet=1024)
    conn.send(_handshake())
    conn.receive_data((2000).to_bytes(3, "little") + b"\x01")
    with pytest.raises(RemoteProtocolError) as exc:
        conn.next_event()
    assert exc.value.code == 1153


@pytest.mark.parametrize(
    ("setup", "msg"),
    [
        ("command", TextRow((b"1",))),
        ("command", Ok()),
        ("connected", Ok()),
        ("responding", ColumnDefinition("x")),
    ],
    ids=["row-before-columns", "ok-unasked", "ok-before-handshake", "definition-before-count"],
)
def test_local_misuse(setup: str, msg: object) -> None:
    conn = ServerConnection() if setup == "connected" else _authenticated()
    if setup == "responding":
        conn.receive_data(frame(b"\x0e", 0)[0])
        conn.next_event()
    with pytest.raises(LocalProtocolError):
        conn.send(msg)
    assert conn.state is State.ERROR


def test_row_width_and_column_count_checked() -> None:
    conn = _authenticated()
    conn.receive_data(frame(b"\x03SELECT 1", 0)[0])
    conn.next_event()
    conn.send(ColumnCount(2))
    conn.send(ColumnDefinition("a"))
    with pytest.raises(LocalProtocolError):
        conn.send(Eof())


def test_send_error_closes_with_err_packet() -> None:
    conn = _authenticated()
    conn.receive_data(frame(b"\x0e", 9)[0])
    with pytest.raises(RemoteProtocolError) as exc:
        conn.next_event()
    out = conn.send_error(exc.value.code or 0, exc.value.message, exc.value.sqlstate)
    assert out[4] == 0xFF and int.from_bytes(out[5:7], "little") == 1156
    assert conn.state is State.CLOSED


def test_err_answers_command() -> None:
    conn = _authenticated()
    conn.receive_data(frame(b"\x03bad", 0)[0])
    conn.next_event()
    conn.send(Err(1064, "syntax", "42000"))
    assert conn.state is State.COMMAND


def test_fuzz_only_protocol_errors() -> None:
    """Mutated client packets never raise anything but ProtocolError (STYLE.md: the fuzz invariant)."""
    rng = random.Random(8)
    good = [
        frame(
            HandshakeResponse(
                CLIENT_CAPS | Capability.CONNECT_ATTRS | Capability.CONNECT_WITH_DB,
                "user",
                b"x" * 20,
                "db",
                "mysql_native_password",
                (("a", "b"),),
            ).encode(),
            1,
        )[0],
    ]
    commands = [
        b"\x03SELECT 1",
        b"\x02db",
        b"\x04t\0%",
        b"\x11u\0\x01x" + b"db\0\x21\x00plugin\0",
        b"\x16SELECT ?",
        b"\x17\x01\0\0\0\0\x01\0\0\0\x01\x01\x08\x00" + b"\x01" * 8,
        b"\x18\1\0\0\0\0\0ab",
        b"\x19\1\0\0\0",
        b"\x1a\1\0\0\0",
        b"\x1b\0\0",
        b"\x0c\1\0\0\0",
        b"\x1f",
        b"\x63",
    ]
    for _ in range(3000):
        conn = ServerConnection()
        conn.send(_handshake())
        data = bytearray(rng.choice(good))
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.2:
            data = data[: rng.randrange(len(data) + 1)]
        try:
            conn.receive_data(bytes(data))
            ev = conn.next_event()
            if isinstance(ev, HandshakeResponse):
                conn.send(Ok())
                cmd = bytearray(rng.choice(commands))
                for _ in range(rng.randint(0, 3)):
                    cmd[rng.randrange(len(cmd))] = rng.randrange(256)
                conn.receive_data(frame(bytes(cmd), 0)[0])
                ev = conn.next_event()
                if hasattr(ev, "parameters"):
                    ev.parameters(rng.randint(0, 3), int(conn.capabilities))
        except ProtocolError:
            pass


def _result_rows() -> list[tuple[object, ...]]:
    """Rows of every value shape a result carries, with 300-byte strings (3-byte lenenc lengths)."""
    return [
        (1, -7, "abc", None, b"\x00\xff", 1.5, Decimal("-1.25"), dt.date(2024, 2, 29)),
        (None, 2**40, "é" * 150, "x" * 300, b"", 0.1, Decimal(0), dt.datetime(2024, 1, 2, 3, 4, 5, 6)),
        (255, 0, "", "t", b"y" * 251, -2e300, None, None),
        (True, False, "9", "", b"z", 3.0, Decimal("1e-3"), dt.datetime(1999, 12, 31)),
    ]


_TYPES = (
    FieldType.MYSQL_TYPE_LONGLONG,
    FieldType.MYSQL_TYPE_LONGLONG,
    FieldType.MYSQL_TYPE_VAR_STRING,
    FieldType.MYSQL_TYPE_STRING,
    FieldType.MYSQL_TYPE_BLOB,
    FieldType.MYSQL_TYPE_DOUBLE,
    FieldType.MYSQL_TYPE_NEWDECIMAL,
    FieldType.MYSQL_TYPE_DATETIME,
)


def _rows_phase(conn: ServerConnection, width: int) -> bytes:
    conn.receive_data(frame(b"\x03SELECT 1", 0)[0])
    conn.next_event()
    out = conn.send(ColumnCount(width))
    for i in range(width):
        out += conn.send(ColumnDefinition(f"c{i}"))
    return out + conn.send(Eof())


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
@pytest.mark.parametrize(
    "column", [None, *range(len(_TYPES))], ids=["all", *(f"col{i}" for i in range(len(_TYPES)))]
)
def test_send_rows_is_send_of_each_row(binary: bool, column: int | None) -> None:
    # the bulk row encoder used for result sets gives the same bytes and sequence ids as one send() per row
    # (whole rows, and one-column results of each type, which have a fast path of their own)
    rows = _result_rows()
    types = _TYPES
    unsigned: tuple[bool, ...] = (True, False, False, False, False, False, False, False)
    if column is not None:
        rows = [(r[column],) for r in rows]
        types, unsigned = (_TYPES[column],), (unsigned[column],)
    one, bulk = _authenticated(), _authenticated()
    assert _rows_phase(one, len(types)) == _rows_phase(bulk, len(types))
    expected = b"".join(
        one.send(BinaryRow(r, types, unsigned) if binary else TextRow(tuple(text_value(v) for v in r)))
        for r in rows
    )
    assert bulk.send_rows(rows, binary=binary, types=types, unsigned=unsigned) == expected
    assert one.send(Eof()) == bulk.send(Eof()) and bulk.state is State.COMMAND


def test_send_rows_checks_state_width_and_range() -> None:
    conn = _authenticated()
    with pytest.raises(LocalProtocolError):
        conn.send_rows([(1,)])  # no result set open
    conn = _authenticated()
    _rows_phase(conn, 1)
    with pytest.raises(LocalProtocolError):
        conn.send_rows([(1, 2)])
    assert conn.state is State.ERROR
    conn = _authenticated()
    _rows_phase(conn, 1)
    with pytest.raises(LocalProtocolError):  # 300 does not fit a TINY column
        conn.send_rows([(300,)], binary=True, types=(FieldType.MYSQL_TYPE_TINY,), unsigned=(True,))
    assert conn.state is State.ERROR


def test_send_column_definitions_counts_columns() -> None:
    conn = _authenticated()
    conn.receive_data(frame(b"\x03SELECT 1", 0)[0])
    conn.next_event()
    conn.send(ColumnCount(2))
    defs = [ColumnDefinition("a").encode(), ColumnDefinition("b").encode()]
    assert _seqs(conn.send_column_definitions(defs)) == [2, 3]
    conn.send(Eof())
    assert conn.state is State.SENDING_ROWS
    conn = _authenticated()
    conn.receive_data(frame(b"\x03SELECT 1", 0)[0])
    conn.next_event()
    conn.send(ColumnCount(1))
    with pytest.raises(LocalProtocolError):
        conn.send_column_definitions(defs)


@pytest.mark.parametrize("deprecate_eof", [False, True], ids=["eof", "deprecate-eof"])
@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
@pytest.mark.parametrize(
    ("status", "state", "rows"),
    [
        (int(ServerStatus.SERVER_STATUS_AUTOCOMMIT), b"", None),
        (int(ServerStatus.SERVER_STATUS_IN_TRANS | ServerStatus.SERVER_MORE_RESULTS_EXISTS), b"", None),
        (
            int(ServerStatus.SERVER_STATUS_AUTOCOMMIT | ServerStatus.SERVER_SESSION_STATE_CHANGED),
            b"\x03\x02\x00\x00",
            [],
        ),
    ],
    ids=["last", "more-results", "state-no-rows"],
)
def test_send_result_set_is_the_sequence_of_sends(
    deprecate_eof: bool, binary: bool, status: int, state: bytes, rows: list | None
) -> None:
    # the one-call result set of the SELECT hot path gives the bytes, sequence ids and state that the message by
    # message conversation gives
    caps = CLIENT_CAPS | Capability.SESSION_TRACK | (Capability.DEPRECATE_EOF if deprecate_eof else 0)
    rows = _result_rows() if rows is None else rows
    unsigned = (True, False, False, False, False, False, False, False)
    defs = [ColumnDefinition(f"c{i}", t) for i, t in enumerate(_TYPES)]
    one, whole = _authenticated(caps), _authenticated(caps)
    for conn in (one, whole):
        conn.receive_data(frame(b"\x03SELECT 1", 0)[0])
        conn.next_event()
    expected = one.send(ColumnCount(len(defs))) + b"".join(one.send(d) for d in defs)
    expected += one.send(Eof(2, status & ~ServerStatus.SERVER_SESSION_STATE_CHANGED))
    for r in rows:
        expected += one.send(
            BinaryRow(r, _TYPES, unsigned) if binary else TextRow(tuple(text_value(v) for v in r))
        )
    expected += one.send(Eof(2, status, b"", state))
    got = whole.send_result_set(
        [d.encode() for d in defs],
        rows,
        warnings=2,
        status_flags=status,
        session_state=state,
        binary=binary,
        types=_TYPES,
        unsigned=unsigned,
    )
    assert got == expected
    assert whole.state is one.state
    assert _seqs(whole.send(Ok()) if whole.state is State.RESPONDING else b"") == _seqs(
        one.send(Ok()) if one.state is State.RESPONDING else b""
    )


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
@pytest.mark.parametrize(
    "rows",
    [
        [
            ("a" * (i % 7 * 40),) for i in range(300)
        ],  # ASCII: the one-pass path, sequence ids wrapping past 255
        [("x" * 250,), ("y" * 251,)],  # a length that needs a lenenc prefix
        [("plain",), ("naïve",)],  # not ASCII
        [("plain",), (None,), (7,)],  # not a string
        [("\udc80",)],  # a surrogate escape (bytes that were not UTF-8)
        [],
    ],
    ids=["ascii-300", "long", "non-ascii", "null-and-int", "surrogate", "empty"],
)
def test_send_result_set_one_text_column(binary: bool, rows: list) -> None:
    # a one-column result of strings (sysbench's range selects) is framed in one pass when every value is ASCII:
    # the same bytes as the message-by-message conversation, whichever path the values take
    types, unsigned = (int(FieldType.MYSQL_TYPE_STRING),), (False,)
    one, whole = _authenticated(), _authenticated()
    for conn in (one, whole):
        conn.receive_data(frame(b"\x03SELECT c", 0)[0])
        conn.next_event()
    definition = ColumnDefinition("c", FieldType.MYSQL_TYPE_STRING)
    expected = one.send(ColumnCount(1)) + one.send(definition) + one.send(Eof(0, 2))
    for r in rows:
        expected += one.send(
            BinaryRow(r, types, unsigned) if binary else TextRow(tuple(text_value(v) for v in r))
        )
    expected += one.send(Eof(0, 2))
    got = whole.send_result_set(
        [definition.encode()], rows, warnings=0, status_flags=2, binary=binary, types=types, unsigned=unsigned
    )
    assert got == expected
    assert whole.state is one.state is State.COMMAND


@pytest.mark.parametrize("deprecate_eof", [False, True], ids=["eof", "deprecate-eof"])
def test_send_result_set_again_with_other_counts(deprecate_eof: bool) -> None:
    # a prepared statement executed again passes the same list of definitions: its head (count, definitions and
    # the EOF after them) is framed once, but the EOF carries that execution's warning count and status flags, and
    # the first sequence id moves after a result with SERVER_MORE_RESULTS_EXISTS; every send must still equal the
    # message-by-message conversation
    caps = CLIENT_CAPS | Capability.SESSION_TRACK | (Capability.DEPRECATE_EOF if deprecate_eof else 0)
    types, unsigned = (int(FieldType.MYSQL_TYPE_STRING),), (False,)
    definition = ColumnDefinition("c", FieldType.MYSQL_TYPE_STRING)
    payloads = [definition.encode()]
    one, whole = _authenticated(caps), _authenticated(caps)
    more = int(ServerStatus.SERVER_MORE_RESULTS_EXISTS)
    sends = [(0, 2), (0, 2), (3, 2), (3, 2 | more), (0, 2), (1, 3), (1, 3)]  # (warnings, status flags)
    responding = False
    for warnings, status in sends:
        if not responding:
            for conn in (one, whole):
                conn.receive_data(frame(b"\x03SELECT c", 0)[0])
                conn.next_event()
        expected = one.send(ColumnCount(1)) + one.send(definition)
        expected += one.send(Eof(warnings, status))
        expected += one.send(BinaryRow(("x",), types, unsigned))
        expected += one.send(Eof(warnings, status))
        got = whole.send_result_set(
            payloads,
            [("x",)],
            warnings=warnings,
            status_flags=status,
            binary=True,
            types=types,
            unsigned=unsigned,
        )
        assert got == expected, (warnings, status)
        assert whole.state is one.state
        responding = bool(status & more)


def test_send_result_set_checks_state_and_width() -> None:
    conn = _authenticated()
    with pytest.raises(LocalProtocolError):  # not answering a command
        conn.send_result_set([ColumnDefinition("a").encode()], [], warnings=0, status_flags=2)
    conn = _authenticated()
    conn.receive_data(frame(b"\x03SELECT 1", 0)[0])
    conn.next_event()
    with pytest.raises(LocalProtocolError):
        conn.send_result_set([ColumnDefinition("a").encode()], [(1, 2)], warnings=0, status_flags=2)
    assert conn.state is State.ERROR


@settings(max_examples=300, deadline=None)
@given(
    affected=st.one_of(st.integers(0, 300), st.integers(0, 2**64 - 1)),
    last_insert_id=st.one_of(st.integers(0, 300), st.integers(0, 2**64 - 1)),
    status=st.integers(0, 0xFFFF),
    warnings=st.integers(0, 0xFFFF),
    info=st.one_of(st.just(b""), st.binary(max_size=300)),
    state=st.one_of(st.just(b""), st.binary(min_size=1, max_size=20)),
    track=st.booleans(),
)
def test_send_ok_is_send_of_ok(
    affected: int, last_insert_id: int, status: int, warnings: int, info: bytes, state: bytes, track: bool
) -> None:
    """``send_ok`` (its one-pack short form included: counts below 251, info below 251 bytes, no session state)
    gives the bytes and the state change of ``send(Ok(...))``, with and without CLIENT_SESSION_TRACK."""
    caps = CLIENT_CAPS | (Capability.SESSION_TRACK if track else 0)
    if not status & ServerStatus.SERVER_SESSION_STATE_CHANGED:
        state = b""
    got, want = _authenticated(caps), _authenticated(caps)
    for conn in (got, want):
        conn.receive_data(frame(b"\x03DO 1", 0)[0])
        conn.next_event()
    a = got.send_ok(affected, last_insert_id, status, warnings, info, state)
    b = want.send(Ok(affected, last_insert_id, status, warnings, info, state))
    assert a == b
    assert got.state is want.state
    if got.state is State.RESPONDING:  # SERVER_MORE_RESULTS_EXISTS: the next packet's sequence id follows on
        assert got.send(Ok()) == want.send(Ok())
