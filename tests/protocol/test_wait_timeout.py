"""The idle limit the socket edge applies between commands (``ClientHandler.wait_timeout``) is the session's
``@@SESSION.wait_timeout`` as ``SELECT`` shows it, whatever set it: the global default, ``SET GLOBAL`` before the
login, ``SET SESSION`` after it, and a CLIENT_INTERACTIVE client's ``interactive_timeout``.

Sources: MySQL ``sql/sql_connect.cc`` (an interactive client's session wait_timeout starts as the global
interactive_timeout), RM 8.4 "Server System Variables" (wait_timeout: session and global, 1..31536000 seconds).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gtidkit.engine import Server
from gtidkit.engine.accounts.bootstrap import create_root
from gtidkit.protocol.constants import Capability
from gtidkit.protocol.handler import ClientHandler, ServerContext
from gtidkit.protocol.messages import HandshakeResponse
from gtidkit.protocol.packets import PacketReader, frame

CAPS = (
    Capability.PROTOCOL_41
    | Capability.SECURE_CONNECTION
    | Capability.PLUGIN_AUTH
    | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA
    | Capability.TRANSACTIONS
)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Server]:
    server = Server.open(tmp_path / "d", log_bin=False)
    create_root(server, "")
    try:
        yield server
    finally:
        server.shutdown()


def _login(engine: Server, caps: int) -> ClientHandler:
    h = ClientHandler(ServerContext(engine=engine, accounts=engine.accounts))
    h.start()
    ok = h.receive_data(
        frame(HandshakeResponse(caps, "root", b"", None, "caching_sha2_password").encode(), 1)[0]
    )
    assert ok[4] == 0, ok
    return h


def _select(h: ClientHandler, sql: str) -> bytes:
    """The one value of a one-row text result (COM_QUERY)."""
    r = PacketReader()
    r.feed(h.receive_data(frame(b"\x03" + sql.encode(), 0)[0]))
    payloads = []
    while (p := r.next_packet()) is not None:
        payloads.append(p.payload)
    assert payloads[0][0] not in (0x00, 0xFF), payloads[0]
    row = payloads[3]  # column count, definition, EOF, the row
    return row[1 : 1 + row[0]]


@pytest.mark.parametrize(
    ("before", "interactive", "after", "expected"),
    [
        ((), False, (), 28800),
        (("SET GLOBAL wait_timeout = 600",), False, (), 600),
        ((), False, ("SET SESSION wait_timeout = 5",), 5),
        ((), False, ("SET @@wait_timeout = 31536000",), 31536000),
        (("SET GLOBAL interactive_timeout = 77",), True, (), 77),
        (("SET GLOBAL interactive_timeout = 77",), True, ("SET SESSION wait_timeout = 9",), 9),
        (("SET GLOBAL wait_timeout = 600",), False, ("SET SESSION wait_timeout = DEFAULT",), 600),
    ],
    ids=["default", "global", "session", "session-max", "interactive", "interactive-then-set", "set-default"],
)
def test_idle_limit_is_the_session_value(
    engine: Server, before: tuple[str, ...], interactive: bool, after: tuple[str, ...], expected: int
) -> None:
    admin = _login(engine, CAPS)
    for sql in before:
        assert admin.receive_data(frame(b"\x03" + sql.encode(), 0)[0])[4] == 0
    h = _login(engine, CAPS | (Capability.INTERACTIVE if interactive else 0))
    for sql in after:
        assert h.receive_data(frame(b"\x03" + sql.encode(), 0)[0])[4] == 0
    assert _select(h, "SELECT @@SESSION.wait_timeout") == str(expected).encode()
    assert h.wait_timeout() == float(expected)
    assert type(h.wait_timeout()) is float
    h.close()
    admin.close()
