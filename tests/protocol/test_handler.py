"""ClientHandler in memory over a real engine (no sockets): the auth exchanges byte for byte, and a fuzz run
showing that mutated client packets only ever produce ERR packets or a closed connection, never an exception."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pymysql._auth as client_auth
import pytest

from gtidkit.engine import Server
from gtidkit.engine.accounts.bootstrap import create_root
from gtidkit.protocol import auth
from gtidkit.protocol.constants import Capability
from gtidkit.protocol.handler import ClientHandler, ServerContext
from gtidkit.protocol.messages import Handshake, HandshakeResponse, Ok
from gtidkit.protocol.packets import PacketReader, frame
from gtidkit.protocol.tls import generate_certs, rsa_keys

CAPS = (
    Capability.PROTOCOL_41
    | Capability.SECURE_CONNECTION
    | Capability.PLUGIN_AUTH
    | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA
    | Capability.MULTI_STATEMENTS
    | Capability.MULTI_RESULTS
    | Capability.SESSION_TRACK
    | Capability.DEPRECATE_EOF
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerContext]:
    datadir: Path = tmp_path_factory.mktemp("handler")
    engine = Server.open(datadir)
    create_root(engine, "")
    engine.session().execute(
        "CREATE USER nat@localhost IDENTIFIED WITH mysql_native_password BY 'pw';"
        "CREATE USER sha@localhost IDENTIFIED WITH caching_sha2_password BY 'pw2'"
    )
    accounts = engine.accounts
    try:
        generate_certs(datadir, "test")
        yield ServerContext(engine=engine, accounts=accounts, rsa_keys=rsa_keys(datadir))
    finally:
        engine.shutdown()


def _packets(data: bytes) -> list[tuple[int, bytes]]:
    r = PacketReader()
    r.feed(data)
    out = []
    while (p := r.next_packet()) is not None:
        out.append((p.sequence_id, p.payload))
    return out


def _login(ctx: ServerContext, user: str, token_for: object, plugin: str) -> tuple[ClientHandler, list]:
    h = ClientHandler(ctx, "127.0.0.1")
    hs = Handshake.decode(_packets(h.start())[0][1])
    token = token_for(hs.scramble) if callable(token_for) else b""
    out = h.receive_data(frame(HandshakeResponse(CAPS, user, token, None, plugin).encode(), 1)[0])
    return h, _packets(out)


def test_native_login_and_query(ctx: ServerContext) -> None:
    h, pk = _login(ctx, "nat", lambda s: auth.native_token("pw", s), "mysql_native_password")
    assert pk[0][0] == 2 and pk[0][1][0] == 0  # OK with sequence id 2
    out = _packets(h.receive_data(frame(b"\x03SELECT 1; SELECT 2", 0)[0]))
    # two result sets, each: count, definition, row, OK(0xFE); the first with MORE_RESULTS_EXISTS
    assert [p[0] for p in out] == list(range(1, 9))
    first_end = Ok.decode(out[3][1], int(CAPS))
    assert first_end.header == 0xFE and first_end.status_flags & 0x08
    assert not Ok.decode(out[7][1], int(CAPS)).status_flags & 0x08
    h.close()


def test_caching_sha2_switch_full_then_fast(ctx: ServerContext) -> None:
    # a native-password client meets a caching_sha2 account: auth switch (0xFE), then full auth over RSA
    h, pk = _login(ctx, "sha", lambda s: auth.native_token("pw2", s), "mysql_native_password")
    assert pk[0][1][0] == 0xFE and pk[0][1][1:].startswith(b"caching_sha2_password\0")
    scramble = pk[0][1][len(b"\xfecaching_sha2_password\0") : -1]
    out = _packets(h.receive_data(frame(client_auth.scramble_caching_sha2(b"pw2", scramble), 3)[0]))
    assert out == [(4, b"\x01\x04")]  # perform_full_authentication
    out = _packets(h.receive_data(frame(b"\x02", 5)[0]))  # request the public key
    assert out[0][1].startswith(b"\x01-----BEGIN PUBLIC KEY-----")
    cipher = client_auth.sha2_rsa_encrypt(b"pw2", scramble, out[0][1][1:])
    out = _packets(h.receive_data(frame(cipher, 7)[0]))
    assert out[0][0] == 8 and out[0][1][0] == 0
    h.close()
    # the cache now holds the account: the fast path answers 0x01 0x03 then OK
    h, pk = _login(
        ctx, "sha", lambda s: client_auth.scramble_caching_sha2(b"pw2", s), "caching_sha2_password"
    )
    assert pk[0] == (2, b"\x01\x03") and pk[1][0] == 3 and pk[1][1][0] == 0
    h.close()


def test_unknown_user_and_bad_password(ctx: ServerContext) -> None:
    h, pk = _login(ctx, "ghost", None, "mysql_native_password")
    assert pk[0][1][0] == 0xFF and int.from_bytes(pk[0][1][1:3], "little") == 1045 and h.closed
    h.close()
    h, pk = _login(ctx, "nat", lambda s: auth.native_token("nope", s), "mysql_native_password")
    assert int.from_bytes(pk[0][1][1:3], "little") == 1045
    h.close()


def test_fuzzed_commands_never_raise(ctx: ServerContext) -> None:
    rng = random.Random(86)
    seeds = [
        b"\x03SELECT 1",
        b"\x03SELECT 'a';SELECT 2",
        b"\x02mysql",
        b"\x04gtid_executed\0",
        b"\x09",
        b"\x0e",
        b"\x16SELECT ?, ?",
        b"\x17\x01\0\0\0\0\x01\0\0\0\x03\0\x01\x08\0\x08\0\x08\0" + b"\x01" * 24,
        b"\x18\x01\0\0\0\0\0data",
        b"\x1a\x01\0\0\0",
        b"\x19\x01\0\0\0",
        b"\x1b\x01\0",
        b"\x1f",
        b"\x11root\0\0\0",
        b"\x0c\xff\xff\0\0",
        b"\x63abc",
    ]
    h, pk = _login(ctx, "root", None, "caching_sha2_password")
    assert pk[-1][1][0] == 0
    for i in range(400):
        if h.closed:
            h.close()
            h, _ = _login(ctx, "root", None, "caching_sha2_password")
        cmd = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(0, 3)):
            cmd[rng.randrange(len(cmd))] = rng.randrange(256)
        if rng.random() < 0.1:
            cmd = cmd[: rng.randrange(1, len(cmd) + 1)]
        out = h.receive_data(frame(bytes(cmd), 0 if rng.random() > 0.05 else 3)[0])
        for _, payload in _packets(out):
            assert payload  # every answer is a well-formed packet
    h.close()
