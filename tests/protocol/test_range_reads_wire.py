"""sysbench's four range reads (oltp_common.lua: simple, SUM, ORDER BY, DISTINCT ... ORDER BY) on its CHAR(120)
column holding trailing spaces and case variants, as COM_STMT_EXECUTE through the wire layer in memory: the rows
MySQL returns, and the same bytes with the compiled paths (the row reader ``_rowsfast.c``, the row framer
``_framefast.c``) as with ``GTIDKIT_PURE_PYTHON=1``.

MySQL's rules (8.0 reference manual): a CHAR value's trailing spaces are removed on retrieval (11.3.2, "The CHAR
and VARCHAR Types", PAD_CHAR_TO_FULL_LENGTH off); utf8mb4_0900_ai_ci, sysbench's table collation, compares
case-insensitively, so 'a' and 'A' are one DISTINCT value and sort together, and a leading space sorts before
letters (10.8.1). Ties of ORDER BY come back in no defined order, so they are compared as sets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

#: (id, k, c as inserted) of sbtest1; c is CHAR(120)
ROWS = [(1, 10, "x  "), (2, 20, "a  "), (3, 30, "A"), (4, 40, " a"), (5, 50, "b"), (6, 60, "a"), (7, 70, "z")]

SCRIPT = textwrap.dedent(
    """
    import json, struct, sys, tempfile
    from pathlib import Path
    from gtidkit.engine import Server
    from gtidkit.engine.accounts.bootstrap import create_root
    from gtidkit.protocol.constants import Capability
    from gtidkit.protocol.handler import ClientHandler, ServerContext
    from gtidkit.protocol.messages import HandshakeResponse
    from gtidkit.protocol.packets import frame

    rows = json.loads(sys.argv[1])
    shapes = json.loads(sys.argv[2])
    server = Server.open(Path(tempfile.mkdtemp()), log_bin=False)
    create_root(server, "")
    s = server.session()
    s.execute("CREATE DATABASE sbtest; USE sbtest")
    s.execute(
        "CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
        "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) "
        "DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci"
    )
    values = ",".join(f"({i}, {k}, '{c}', 'p')" for i, k, c in rows)
    s.execute(f"INSERT INTO sbtest1 (id, k, c, pad) VALUES {values}")
    s.close()
    caps = (
        Capability.PROTOCOL_41 | Capability.SECURE_CONNECTION | Capability.PLUGIN_AUTH
        | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA | Capability.TRANSACTIONS | Capability.CONNECT_WITH_DB
    )
    h = ClientHandler(ServerContext(engine=server, accounts=server.accounts))
    h.start()
    login = HandshakeResponse(caps, "root", b"", "sbtest", "caching_sha2_password")
    assert h.receive_data(frame(login.encode(), 1)[0])[4] == 0
    out = {}
    for name, sql, lo, hi in shapes:
        prepared = h.receive_data(frame(b"\\x16" + sql.encode(), 0)[0])
        assert prepared[4] == 0, prepared
        sid = struct.unpack("<I", prepared[5:9])[0]
        head = b"\\x17" + struct.pack("<IBI", sid, 0, 1) + b"\\0\\x01\\x08\\x00\\x08\\x00"
        out[name] = h.receive_data(frame(head + struct.pack("<qq", lo, hi), 0)[0]).hex()
    text = h.receive_data(frame(b"\\x03SELECT c FROM sbtest1 WHERE id BETWEEN 1 AND 7 ORDER BY id", 0)[0])
    out["text_protocol"] = text.hex()
    h.close()
    server.shutdown()
    print(json.dumps(out))
    """
)

SHAPES = [
    ("simple_range", "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?", 1, 6),
    ("sum_range", "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?", 1, 6),
    ("order_range", "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c", 1, 7),
    ("distinct_range", "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c", 1, 7),
]


def _answers(pure: bool) -> dict[str, bytes]:
    env = {**os.environ, "GTIDKIT_PURE_PYTHON": "1" if pure else "0"}
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(ROWS), json.dumps(SHAPES)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return {k: bytes.fromhex(v) for k, v in json.loads(proc.stdout).items()}


def _packets(data: bytes) -> list[bytes]:
    out = []
    while data:
        n = int.from_bytes(data[:3], "little")
        out.append(data[4 : 4 + n])
        data = data[4 + n :]
    return out


def _binary_rows(data: bytes) -> list[bytes]:
    """The one-column values of a binary result set (column count, one definition, EOF, rows, EOF)."""
    rows = []
    for p in _packets(data)[3:]:
        if p[0] == 0xFE and len(p) < 9:
            break
        assert p[:2] == b"\0\0"  # row header, empty NULL bitmap
        n = p[2]
        rows.append(p[3 : 3 + n])
    return rows


@pytest.fixture(scope="module")
def answers() -> tuple[dict[str, bytes], dict[str, bytes]]:
    return _answers(pure=False), _answers(pure=True)


@pytest.mark.parametrize("name", [*(s[0] for s in SHAPES), "text_protocol"])
def test_compiled_and_pure_python_send_the_same_bytes(answers: tuple, name: str) -> None:
    compiled, pure = answers
    assert compiled[name] == pure[name]


def test_char_trailing_spaces_and_case(answers: tuple) -> None:
    got = answers[0]
    assert _binary_rows(got["simple_range"]) == [
        b"x",
        b"a",
        b"A",
        b" a",
        b"b",
        b"a",
    ]  # trailing spaces removed
    assert _binary_rows(got["sum_range"]) == [b"210"]  # SUM of INT: DECIMAL, sent as text
    order = _binary_rows(got["order_range"])
    assert [v.lower() for v in order] == [b" a", b"a", b"a", b"a", b"b", b"x", b"z"]
    assert sorted(order[1:4]) == [b"A", b"a", b"a"]  # ties: any order
    distinct = _binary_rows(got["distinct_range"])
    assert [v.lower() for v in distinct] == [b" a", b"a", b"b", b"x", b"z"]  # 'a' and 'A': one value
