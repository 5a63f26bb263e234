"""The lean COM_STMT_EXECUTE path (``ClientHandler._fast_execute``) answers byte for byte what the general path
answers: two servers started from copies of one datadir (same server UUID, same state) run the same commands, one
fed each command packet whole (the fast path takes it), the other fed it in two pieces (the general path:
``PacketReader`` buffering, ``next_event``, ``_dispatch``, ``_stmt_execute``, ``_query``); every answer must be equal.

Covered: point and range SELECTs (one text column, several columns with NULLs, numbers, dates), INSERT / UPDATE /
DELETE, with session_track_gtids OFF / OWN_GTID / ALL_GTIDS, autocommitted and inside BEGIN .. COMMIT (prepared
BEGIN / COMMIT as sysbench sends them), errors (duplicate key, truncated parameters, an unknown statement id, a NULL
into a NOT NULL column), parameter types not resent, with and without CLIENT_DEPRECATE_EOF, CLIENT_SESSION_TRACK and
CLIENT_QUERY_ATTRIBUTES, and the privilege check (a REVOKE between two executions is enforced on the next one).

Sources: DEVDOC ``page_protocol_com_stmt_execute`` and ``page_protocol_binary_resultset``; MySQL ``sql/sql_prepare.cc``
(privileges are checked at every execution).
"""

from __future__ import annotations

import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gtidkit.engine import Server
from gtidkit.engine.accounts.bootstrap import create_root
from gtidkit.engine.statements import com_counters
from gtidkit.protocol.constants import Capability
from gtidkit.protocol.handler import ClientHandler, ServerContext
from gtidkit.protocol.messages import HandshakeResponse
from gtidkit.protocol.packets import PacketReader, frame

BASE = (
    Capability.PROTOCOL_41
    | Capability.SECURE_CONNECTION
    | Capability.PLUGIN_AUTH
    | Capability.PLUGIN_AUTH_LENENC_CLIENT_DATA
    | Capability.MULTI_RESULTS
    | Capability.MULTI_STATEMENTS
    | Capability.TRANSACTIONS
)
CAPS = {
    "classic": BASE,
    "track+deprecate_eof": BASE | Capability.SESSION_TRACK | Capability.DEPRECATE_EOF,
    "track": BASE | Capability.SESSION_TRACK,
    "query_attributes": BASE
    | Capability.SESSION_TRACK
    | Capability.DEPRECATE_EOF
    | Capability.QUERY_ATTRIBUTES,
}
LONGLONG, LONG, DOUBLE, DATETIME, VAR_STRING = 8, 3, 5, 12, 253


class Pair:
    """Two handlers over two engines opened on copies of one datadir: ``fast`` gets whole packets, ``slow``
    the same bytes in two pieces."""

    def __init__(self, root: Path, caps: int, user: str = "root") -> None:
        self.caps = caps
        self.engines: list[Any] = []
        self.handlers: list[ClientHandler] = []
        self.sessions: list[Any] = []
        for name in ("fast", "slow"):
            datadir = root / name
            shutil.copytree(root / "base", datadir)
            engine = Server.open(datadir, gtid_mode="ON", log_bin=True)
            h = ClientHandler(ServerContext(engine=engine, accounts=engine.accounts), "127.0.0.1")
            h.start()
            login = HandshakeResponse(caps, user, b"", None, "caching_sha2_password")
            assert _payloads(h.receive_data(frame(login.encode(), 1)[0]))[0][0] == 0
            self.engines.append(engine)
            self.handlers.append(h)
            self.sessions.append(engine.session())
        self.fast_hits = 0
        fast = self.handlers[0]
        original = fast._fast_execute

        def spy(data: bytes) -> bytes | None:
            out = original(data)
            self.fast_hits += out is not None
            return out

        fast._fast_execute = spy  # type: ignore[method-assign]

    def run(self, payload: bytes) -> list[bytes]:
        """Send one command to both; assert equal answers; return the answer's payloads."""
        data = frame(payload, 0)[0]
        fast, slow = self.handlers
        got_fast = fast.receive_data(data)
        got_slow = slow.receive_data(data[:2]) + slow.receive_data(data[2:])
        assert got_fast == got_slow, (payload, _payloads(got_fast), _payloads(got_slow))
        return _payloads(got_fast)

    def query(self, sql: str) -> list[bytes]:
        """COM_QUERY on both."""
        attributes = b"\x00\x01" if self.caps & Capability.QUERY_ATTRIBUTES else b""  # no attributes, one set
        out = self.run(b"\x03" + attributes + sql.encode())
        assert out[0][0] != 0xFF, out[0]
        return out

    def prepare(self, sql: str) -> int:
        """COM_STMT_PREPARE on both; the statement id."""
        out = self.run(b"\x16" + sql.encode())
        assert out[0][0] == 0, out[0]
        return int(struct.unpack_from("<I", out[0], 1)[0])

    def execute(
        self, stmt_id: int, params: list[tuple[int, bytes | None]], *, types: bool = True
    ) -> list[bytes]:
        """COM_STMT_EXECUTE on both (``params``: (type, binary value or None for NULL)); must take the fast path,
        except types sent with query-attribute names (left to the general path)."""
        before = self.fast_hits
        out = self.run(b"\x17" + execute_body(stmt_id, params, self.caps, types=types))
        named = bool(self.caps & Capability.QUERY_ATTRIBUTES and types and params)
        assert self.fast_hits == before + (not named), "the fast path did not take this execution"
        return out

    def close(self) -> None:
        """Close both handlers and engines."""
        for h in self.handlers:
            h.close()
        for e in self.engines:
            e.shutdown()


def execute_body(
    stmt_id: int, params: list[tuple[int, bytes | None]], caps: int, *, types: bool = True
) -> bytes:
    """The body of COM_STMT_EXECUTE after its command byte."""
    body = struct.pack("<IBI", stmt_id, 0, 1)
    if params and caps & Capability.QUERY_ATTRIBUTES:
        body += bytes((len(params),))
    if params:
        bitmap = bytearray((len(params) + 7) // 8)
        for i, (_t, v) in enumerate(params):
            if v is None:
                bitmap[i // 8] |= 1 << (i % 8)
        body += bytes(bitmap) + (b"\x01" if types else b"\x00")
        if types:
            for t, _v in params:
                body += struct.pack("<BB", t, 0)
                if caps & Capability.QUERY_ATTRIBUTES:
                    body += b"\x00"  # empty name
        body += b"".join(v for _t, v in params if v is not None)
    return body


def _payloads(data: bytes) -> list[bytes]:
    r = PacketReader()
    r.feed(data)
    out = []
    while (p := r.next_packet()) is not None:
        out.append(p.payload)
    assert not r.buffered
    return out


def _q(v: int) -> tuple[int, bytes]:
    return (LONGLONG, struct.pack("<q", v))


def _s(v: bytes) -> tuple[int, bytes]:
    return (VAR_STRING, bytes((len(v),)) + v)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A datadir with root@localhost (empty password) and app@localhost, and the app schema's tables, made once
    per module (its bootstrap is most of a test's cost); tests copy it (:func:`base`)."""
    datadir = tmp_path_factory.mktemp("fast-execute") / "base"
    engine = Server.open(datadir, gtid_mode="ON", log_bin=True)
    try:
        s = engine.session()
        s.execute(
            "CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0, "
            "c CHAR(30) NOT NULL DEFAULT '', pad VARCHAR(10), d DATETIME NULL, f DOUBLE NULL)"
        )
        rows = ",".join(
            f"({i}, {i * 7}, 'c-{i:05d}', {'NULL' if i % 3 == 0 else repr(f'p{i}')}, "
            f"{'NULL' if i % 2 else repr(f'2024-01-{i % 28 + 1:02d} 10:{i % 60:02d}:00')}, "
            f"{'NULL' if i % 5 == 0 else i / 4})"
            for i in range(1, 301)
        )
        s.execute(f"INSERT INTO app.t VALUES {rows}")
        create_root(engine, "")
        s.execute("CREATE USER app@localhost; GRANT SELECT, INSERT, UPDATE ON app.* TO app@localhost")
        s.close()
    finally:
        engine.shutdown()
    return datadir


@pytest.fixture
def base(template: Path, tmp_path: Path) -> Path:
    """A directory whose ``base`` is a copy of :func:`template`'s datadir (the root :class:`Pair` copies from)."""
    shutil.copytree(template, tmp_path / "base")
    return tmp_path


@pytest.fixture(params=sorted(CAPS))
def pair(base: Path, request: pytest.FixtureRequest) -> Iterator[Pair]:
    p = Pair(base, CAPS[request.param])
    try:
        yield p
    finally:
        p.close()


@pytest.mark.parametrize("track", ["OFF", "OWN_GTID", "ALL_GTIDS"])
def test_same_bytes_as_the_general_path(pair: Pair, track: str) -> None:
    pair.query(f"SET SESSION session_track_gtids = {track}, SESSION session_track_state_change = ON")
    pair.query("USE app")
    point = pair.prepare("SELECT c FROM t WHERE id=?")
    simple_range = pair.prepare("SELECT c FROM t WHERE id BETWEEN ? AND ?")
    wide = pair.prepare("SELECT id, k, c, pad, d, f FROM t WHERE id BETWEEN ? AND ? ORDER BY id")
    total = pair.prepare("SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?")
    insert = pair.prepare("INSERT INTO t (id, k, c, pad) VALUES (?, ?, ?, ?)")
    update = pair.prepare("UPDATE t SET k=k+1 WHERE id=?")
    set_c = pair.prepare("UPDATE t SET c=? WHERE id=?")
    delete = pair.prepare("DELETE FROM t WHERE id=?")
    begin = pair.prepare("BEGIN")
    commit = pair.prepare("COMMIT")

    out = pair.execute(point, [_q(5)])
    assert out[-2][3:] == b"c-00005"  # the row: header, bitmap, length, text
    out = pair.execute(simple_range, [_q(10), _q(109)])
    assert len(out) >= 100
    pair.execute(wide, [_q(1), _q(40)])
    pair.execute(total, [_q(1), _q(100)])
    pair.execute(point, [_q(6)], types=False)  # types as bound before
    pair.execute(simple_range, [_q(50)] * 2, types=False)
    pair.execute(point, [_q(100_000)])  # no row
    pair.execute(point, [(LONGLONG, None)])  # NULL parameter
    pair.execute(point, [_s(b"7")])  # a string parameter
    pair.execute(wide, [(LONG, struct.pack("<i", 290)), (DOUBLE, struct.pack("<d", 295.0))])
    for autocommitted in (True, False):
        if not autocommitted:
            assert pair.execute(begin, [])[0][0] == 0
        pair.execute(insert, [_q(1000 + autocommitted), _q(1), _s(b"new"), _s(b"pad")])
        pair.execute(update, [_q(3)])
        pair.execute(set_c, [_s(b"changed"), _q(4)])
        pair.execute(delete, [_q(8 + autocommitted)])
        pair.execute(point, [_q(4)])
        dup = pair.execute(insert, [_q(1), _q(1), _s(b"dup"), _s(b"pad")])
        assert dup[0][:3] == b"\xff" + (1062).to_bytes(2, "little")
        null = pair.execute(insert, [_q(2000), (LONGLONG, None), _s(b"x"), _s(b"y")])
        assert null[0][0] == 0xFF
        pair.execute(simple_range, [_q(1), _q(20)])
        if not autocommitted:
            assert pair.execute(commit, [])[0][0] == 0
    start, rollback = pair.prepare("START TRANSACTION"), pair.prepare("ROLLBACK")
    for _ in range(2):  # the second time with the privilege check remembered
        assert pair.execute(start, [])[0][0] == 0
        pair.execute(update, [_q(5)])
        assert pair.execute(rollback, [])[0][0] == 0
    pair.query("SELECT @@GLOBAL.gtid_executed")
    set_var = pair.prepare("SET @v = ?")  # neither SELECT nor DML: bound as text, run through the hook
    pair.execute(set_var, [_s(b"it's")])
    pair.query("SELECT @v")
    pair.execute(pair.prepare("SELECT ? + 1, ?"), [_q(41), _s(b"x")])
    # what the fast path leaves to the general one answers the same too
    assert pair.run(b"\x17" + execute_body(999, [_q(1)], pair.caps))[0][0] == 0xFF  # unknown statement
    truncated = pair.run(b"\x17" + execute_body(point, [_q(1)], pair.caps)[:-3])
    assert truncated[0][0] == 0xFF
    pair.execute(point, [_q(2)])


def test_privileges_are_checked_at_every_execution(base: Path) -> None:
    pair = Pair(base, CAPS["track+deprecate_eof"], user="app")
    try:
        pair.query("USE app")
        select = pair.prepare("SELECT c FROM t WHERE id=?")
        update = pair.prepare("UPDATE t SET k=k+1 WHERE id=?")
        assert pair.execute(select, [_q(1)])[0] == b"\x01"
        assert pair.execute(update, [_q(1)])[0][0] == 0
        for s in pair.sessions:  # REVOKE UPDATE ON app.* FROM app@localhost, between two executions
            s.execute("REVOKE UPDATE ON app.* FROM app@localhost")
        denied = pair.execute(update, [_q(1)])
        assert denied[0][:3] == b"\xff" + (1142).to_bytes(2, "little")
        assert b"UPDATE command denied to user 'app'@'localhost' for table" in denied[0]
        assert pair.execute(select, [_q(1)])[0] == b"\x01"
        for s in pair.sessions:  # GRANT it back: allowed again
            s.execute("GRANT UPDATE ON app.* TO app@localhost")
        assert pair.execute(update, [_q(1)])[0][0] == 0
    finally:
        pair.close()


def test_processlist_and_statement_counters_after_a_fast_execution(pair: Pair) -> None:
    pair.query("USE app")
    point = pair.prepare("SELECT c FROM t WHERE id=?")
    before = [list(h.session.status_counts) for h in pair.handlers]
    pair.execute(point, [_q(1)])
    for h, n in zip(pair.handlers, before, strict=True):
        # Questions, Com_stmt_execute and Com_select each move by one on both paths (com_counters.py)
        moved = {i: c - n[i] for i, c in enumerate(h.session.status_counts) if c != n[i]}
        assert moved == {
            com_counters.QUESTIONS: 1,
            com_counters.QUERIES: 1,
            com_counters.slot("stmt_execute"): 1,
            com_counters.slot("select"): 1,
        }
        assert (h.command, h.info) == ("Sleep", None)


def test_text_queries_same_bytes_as_the_general_path(pair: Pair) -> None:
    # ClientHandler._fast_query (a COM_QUERY of one statement alone in its packet) against the general path (the
    # same bytes in two pieces): BEGIN / COMMIT as the mysql client and PyMySQL send them, reads, writes, errors;
    # several statements, outer whitespace, comments and query attributes are the general path's on both sides
    fast = pair.handlers[0]
    original = fast._fast_query
    hits = []

    def spy(data: bytes) -> bytes | None:
        out = original(data)
        hits.append(out is not None)
        return out

    fast._fast_query = spy  # type: ignore[method-assign]
    attributes = b"\x00\x01" if pair.caps & Capability.QUERY_ATTRIBUTES else b""
    cases = [
        ("USE app", True),
        ("BEGIN", True),
        ("SELECT c FROM t WHERE id=5", True),
        ("UPDATE t SET k=k+1 WHERE id=3", True),
        ("INSERT INTO t (id, k, c, pad) VALUES (1, 1, 'x', 'y')", True),  # 1062
        ("SELECT no_such_column FROM t", True),  # 1054
        ("COMMIT", True),
        ("SELECT 1; SELECT 2", False),
        (" SELECT 1", False),
        ("SELECT 1 -- a comment", False),
        ("START TRANSACTION READ ONLY", True),
        ("SELECT c FROM t WHERE id BETWEEN 1 AND 30", True),
        ("ROLLBACK", True),
        ("SHOW SESSION STATUS LIKE 'Com_commit'", True),
    ]
    for sql, short in cases:
        before = len(hits)
        answer = pair.run(b"\x03" + attributes + sql.encode())
        assert answer
        took = hits[before:] == [True]
        assert took is (short and not attributes), sql
    assert (fast.command, fast.info) == ("Sleep", None)
