"""Privileges on the parsed statement (issue 20): the engine session checks each statement's privileges on the
statement it classified, through the authorizer the wire server sets at login; the tables come from the statement's
plan-cache entry, so a COM_QUERY of a shape seen before is split once, classified once and never parsed again for
its privilege check, for root and for any other account alike. What the check answers is MySQL's: RM8
"Privileges Provided by MySQL", ``sql/sql_parse.cc`` ``check_access`` / ``check_table_access`` (1142
ER_TABLEACCESS_DENIED_ERROR, 1227 ER_SPECIFIC_ACCESS_DENIED_ERROR).

One engine server and in-memory ``ClientHandler`` connections fed real packets (no sockets).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlglot.parser

import gtidkit.engine.session as session_module
import gtidkit.engine.sql.parse as parse_module
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
    | Capability.CONNECT_WITH_DB
    | Capability.MULTI_STATEMENTS
    | Capability.MULTI_RESULTS
)


def _payloads(data: bytes) -> list[bytes]:
    reader = PacketReader()
    reader.feed(data)
    out = []
    while (p := reader.next_packet()) is not None:
        out.append(p.payload)
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    engine = Server.open(Path(tmp_path_factory.mktemp("priv")), log_bin=False)
    try:
        create_root(engine, "")
        s = engine.session()
        s.execute("CREATE DATABASE app; CREATE DATABASE other")
        s.execute("CREATE TABLE app.t (id INT PRIMARY KEY, c VARCHAR(10))")
        s.execute("CREATE TABLE other.secret (id INT PRIMARY KEY)")
        s.execute("INSERT INTO app.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        s.execute("CREATE USER app@'%' IDENTIFIED BY ''")
        s.execute("GRANT SELECT, INSERT ON app.* TO app@'%'")
        s.close()
        yield engine
    finally:
        engine.shutdown()


def _connect(server: Server, user: str) -> ClientHandler:
    h = ClientHandler(ServerContext(engine=server, accounts=server.accounts), "127.0.0.1")
    h.start()
    login = HandshakeResponse(CAPS, user, b"", "app", "caching_sha2_password")
    assert _payloads(h.receive_data(frame(login.encode(), 1)[0]))[0][0] == 0
    return h


def _query(h: ClientHandler, sql: str) -> tuple[int, str]:
    """(error code or 0, error message) of a COM_QUERY."""
    first = _payloads(h.receive_data(frame(b"\x03" + sql.encode(), 0)[0]))[0]
    if first[0] == 0xFF:
        return struct.unpack("<H", first[1:3])[0], first[9:].decode()
    return 0, ""


class _Counts:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.classify = self.split = self.parse = 0
        classify, split, parse = (
            session_module.classify,
            parse_module.split_statements,
            sqlglot.parser.Parser.parse,
        )

        def counting_classify(text: str) -> Any:
            self.classify += 1
            return classify(text)

        def counting_split(text: str, *args: Any, **kwargs: Any) -> list[str]:
            self.split += 1
            return split(text, *args, **kwargs)

        def counting_parse(parser: Any, *args: Any, **kwargs: Any) -> Any:
            self.parse += 1
            return parse(parser, *args, **kwargs)

        monkeypatch.setattr(session_module, "classify", counting_classify)
        monkeypatch.setattr(session_module, "split_statements", counting_split)
        import gtidkit.protocol.engine_seam as seam

        monkeypatch.setattr(seam, "split_statements", counting_split)
        monkeypatch.setattr(sqlglot.parser.Parser, "parse", counting_parse)


@pytest.mark.parametrize("user", ["root", "app"])
def test_point_select_is_split_and_classified_once_and_never_parsed_again(
    server: Server, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = _connect(server, user)
    try:
        assert _query(h, "SELECT c FROM t WHERE id=1") == (0, "")  # the shape's first run plans it
        counts = _Counts(monkeypatch)
        for i in (2, 3, 1):
            assert _query(h, f"SELECT c FROM t WHERE id={i}") == (0, "")
        # not split at all: a text without ``;`` or a comment marker is one statement as it stands (the handler's
        # COM_QUERY short path, engine_seam.one_statement)
        assert (counts.split, counts.classify, counts.parse) == (0, 3, 0)
        assert _query(h, "SELECT c FROM t WHERE id=1;") == (0, "")  # a `;`: the general path splits it
        assert (counts.split, counts.classify, counts.parse) == (1, 4, 0)
    finally:
        h.close()


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("SELECT c FROM t WHERE id=1", (0, "")),
        ("INSERT IGNORE INTO t VALUES (9, 'z')", (0, "")),
        (
            "UPDATE t SET c='x' WHERE id=1",
            (1142, "UPDATE command denied to user 'app'@'localhost' for table 't'"),
        ),
        ("DELETE FROM t WHERE id=2", (1142, "DELETE command denied to user 'app'@'localhost' for table 't'")),
        (
            "SELECT * FROM other.secret WHERE id=1",
            (1142, "SELECT command denied to user 'app'@'localhost' for table 'secret'"),
        ),
        (
            "WITH x AS (SELECT id FROM t) SELECT * FROM x, other.secret",
            (1142, "SELECT command denied to user 'app'@'localhost' for table 'secret'"),
        ),
        ("WITH secret AS (SELECT id FROM t) SELECT * FROM secret", (0, "")),
        (
            "SET GLOBAL max_error_count = 10",
            (
                1227,
                "Access denied; you need (at least one of) the SUPER or SYSTEM_VARIABLES_ADMIN privilege(s) for this operation",
            ),
        ),
        (
            "SET @@global.max_error_count = 10",
            (
                1227,
                "Access denied; you need (at least one of) the SUPER or SYSTEM_VARIABLES_ADMIN privilege(s) for this operation",
            ),
        ),
        # reading a global value needs no privilege (RM8 "Using System Variables"); only setting one does
        ("SET @a = @@global.gtid_executed", (0, "")),
        (
            "SET SESSION binlog_row_image = 'MINIMAL'",
            (
                1227,
                (
                    "Access denied; you need (at least one of) the SUPER, SYSTEM_VARIABLES_ADMIN or "
                    "SESSION_VARIABLES_ADMIN privilege(s) for this operation"
                ),
            ),
        ),
        ("USE other", (1044, "Access denied for user 'app'@'localhost' to database 'other'")),
        (
            "FLUSH LOGS",
            (1227, "Access denied; you need (at least one of) the RELOAD privilege(s) for this operation"),
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_application_account_answers(server: Server, sql: str, error: tuple[int, str]) -> None:
    h = _connect(server, "app")
    try:
        assert _query(h, sql) == error
        assert _query(h, sql) == error  # the second time from the cached tables
    finally:
        h.close()


def test_grant_takes_effect_for_a_cached_shape_and_a_prepared_statement(server: Server) -> None:
    h = _connect(server, "app")
    root = server.session()
    try:
        assert _query(h, "UPDATE t SET c='u' WHERE id=3")[0] == 1142
        assert _query(h, "SELECT c FROM t WHERE id=2") == (0, "")  # passes, remembered for this shape
        prepared = _payloads(h.receive_data(frame(b"\x16SELECT c FROM t WHERE id=?", 0)[0]))[0]
        assert prepared[0] == 0
        sid = struct.unpack("<I", prepared[1:5])[0]
        execute = frame(
            b"\x17" + struct.pack("<IBI", sid, 0, 1) + b"\0\x01\x08\x00" + struct.pack("<q", 1), 0
        )[0]
        assert _payloads(h.receive_data(execute))[0][0] != 0xFF
        root.execute("GRANT UPDATE ON app.* TO app@'%'")
        root.execute("REVOKE SELECT ON app.* FROM app@'%'")
        assert _query(h, "UPDATE t SET c='u' WHERE id=3") == (0, "")
        assert _query(h, "SELECT c FROM t WHERE id=2")[0] == 1142  # the REVOKE is seen at once
        denied = _payloads(h.receive_data(execute))[0]
        assert denied[0] == 0xFF and struct.unpack("<H", denied[1:3])[0] == 1142
    finally:
        root.execute("REVOKE UPDATE ON app.* FROM app@'%'")
        root.execute("GRANT SELECT ON app.* TO app@'%'")
        root.close()
        h.close()
