"""Command hooks: a registered command (as the replication layer will register COM_BINLOG_DUMP_GTID) takes the
raw stream over, writes its own packets with the right sequence ids, and hands the connection back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from gtidkit.engine import Server
from gtidkit.engine.accounts.bootstrap import create_root
from gtidkit.protocol.handler import StreamIO
from gtidkit.protocol.messages import Eof, Ok
from gtidkit.protocol.privileges import has_global
from gtidkit.protocol.server import WireServer


@pytest.fixture
def wire(tmp_path: Path) -> Iterator[WireServer]:
    engine = Server.open(tmp_path / "d")
    create_root(engine, "")
    server = WireServer(engine, str(tmp_path / "d"), port=0)
    try:
        yield server
    finally:
        server.shutdown()
        engine.shutdown()


def test_hooks_write_their_own_packets_and_resume(wire: WireServer) -> None:
    seen = []

    def register(io: StreamIO, cmd: object) -> bool:
        seen.append(("register", bytes(cmd.body)))  # type: ignore[attr-defined]
        io.send(Ok().encode(int(io.handler.conn.capabilities)))
        return True

    def dump(io: StreamIO, cmd: object) -> bool:
        assert has_global(io.handler.current_account(), "REPLICATION SLAVE")
        for i in range(3):
            io.send(b"\x00event%d" % i)
        io.send(Eof().encode(int(io.handler.conn.capabilities)))
        return True

    wire.ctx.command_hooks[0x15] = register
    wire.ctx.command_hooks[0x1E] = dump
    wire.start()
    conn = pymysql.connect(host="127.0.0.1", port=wire.port, user="root", password="")
    conn._execute_command(0x15, b"\x07\x00\x00\x00")  # type: ignore[attr-defined]
    assert conn._read_packet().is_ok_packet()  # type: ignore[attr-defined]  # PyMySQL checks sequence ids
    conn._execute_command(0x1E, b"gtid-set")  # type: ignore[attr-defined]
    for i in range(3):
        assert conn._read_packet().get_all_data() == b"\x00event%d" % i  # type: ignore[attr-defined]
    assert conn._read_packet().is_eof_packet()  # type: ignore[attr-defined]
    with conn.cursor() as cur:  # the connection is back in the command phase
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    assert seen == [("register", b"\x07\x00\x00\x00")]
    conn.close()


def test_unregistered_command_is_1047(wire: WireServer) -> None:
    wire.start()
    conn = pymysql.connect(host="127.0.0.1", port=wire.port, user="root", password="")
    conn._execute_command(0x1E, b"")  # type: ignore[attr-defined]
    with pytest.raises(pymysql.err.OperationalError) as exc:
        conn._read_packet()  # type: ignore[attr-defined]
    assert exc.value.args[0] == 1047
    conn.close()
