"""tests/protocol/client_tls.py: the drivers' preferred-mode TLS contexts are shared, configured as the driver's own,
and every connection still negotiates TLS with a real `gtidkit server` (``Ssl_cipher``, MySQL's status variable of
the session's cipher: empty without TLS)."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from typing import Any

import mysql.connector
import mysql.connector.network
import pymysql
import pymysql.connections
import pytest

from protocol import client_tls
from protocol.server_proc import ServerProcess, running_server

#: the SSLContext attributes that decide what a client sends and accepts in the handshake
CONTEXT_ATTRIBUTES = (
    "verify_mode",
    "check_hostname",
    "options",
    "verify_flags",
    "minimum_version",
    "maximum_version",
    "protocol",
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server (its TLS certificate generated at start, as mysqld's auto_generate_certs)."""
    with running_server(tmp_path_factory.mktemp("tls") / "d") as srv:
        yield srv


def _cipher(cur: Any) -> str:
    cur.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
    return str(cur.fetchall()[0][1])


def _pymysql(srv: ServerProcess, **kwargs: Any) -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True, **kwargs)


def _connector(srv: ServerProcess, **kwargs: Any) -> Any:
    return mysql.connector.connect(host="127.0.0.1", port=srv.port, user="root", use_pure=True, **kwargs)


@pytest.mark.parametrize(
    ("cls", "name"),
    [
        pytest.param(pymysql.connections.Connection, "_create_ssl_ctx", id="pymysql"),
        pytest.param(mysql.connector.network.MySQLSocket, "build_ssl_context", id="mysql-connector"),
    ],
)
def test_the_drivers_functions_are_wrapped(cls: type, name: str) -> None:
    """The suite's helpers installed the sharing (tests/protocol/server_proc.py at import); a driver version that
    renamed the function fails here instead of silently costing a CA-bundle read per connection."""
    client_tls.share_preferred_contexts()
    assert getattr(getattr(cls, name), "_gtidkit_shared_preferred_context", False)


@pytest.mark.parametrize("attribute", CONTEXT_ATTRIBUTES)
def test_pymysql_shared_context_is_configured_as_its_own(server: ServerProcess, attribute: str) -> None:
    original = pymysql.connections.Connection._create_ssl_ctx.__wrapped__  # type: ignore[attr-defined]
    with _pymysql(server) as conn:
        own = original(conn, {})
        assert isinstance(conn.ctx, ssl.SSLContext)
        assert getattr(conn.ctx, attribute) == getattr(own, attribute)


def test_pymysql_connections_share_one_context_and_negotiate_tls(server: ServerProcess) -> None:
    with _pymysql(server) as a, _pymysql(server) as b, _pymysql(server, ssl_disabled=True) as plain:
        assert a.ctx is b.ctx
        assert _cipher(a.cursor()) and _cipher(b.cursor())
        assert _cipher(plain.cursor()) == ""


def test_pymysql_caller_context_is_kept(server: ServerProcess) -> None:
    """A context (or options) of the caller's is used as given, not the shared one."""
    mine = ssl.create_default_context()
    mine.check_hostname = False
    mine.verify_mode = ssl.CERT_NONE
    with _pymysql(server, ssl=mine) as conn:
        assert conn.ctx is mine
        assert _cipher(conn.cursor())


def test_connector_connections_share_one_context_and_negotiate_tls(server: ServerProcess) -> None:
    seen: list[Any] = []
    wrapped = mysql.connector.network.MySQLSocket.switch_to_ssl

    def spy(self: Any, ctx: Any, host: str) -> None:
        seen.append(ctx)
        wrapped(self, ctx, host)

    mp = pytest.MonkeyPatch()
    mp.setattr(mysql.connector.network.MySQLSocket, "switch_to_ssl", spy)
    try:
        a, b = _connector(server), _connector(server)
        plain = _connector(server, ssl_disabled=True)
    finally:
        mp.undo()
    try:
        assert len(seen) == 2 and seen[0] is seen[1]
        assert _cipher(a.cursor()) and _cipher(b.cursor())
        assert _cipher(plain.cursor()) == ""
    finally:
        for c in (a, b, plain):
            c.close()


@pytest.mark.parametrize("attribute", CONTEXT_ATTRIBUTES)
def test_connector_shared_context_is_configured_as_its_own(server: ServerProcess, attribute: str) -> None:
    original = mysql.connector.network.MySQLSocket.build_ssl_context.__wrapped__  # type: ignore[attr-defined]
    seen: list[Any] = []
    wrapped = mysql.connector.network.MySQLSocket.switch_to_ssl

    def spy(self: Any, ctx: Any, host: str) -> None:
        seen.append((ctx, original(self, ssl_verify_cert=False, ssl_verify_identity=False)))
        wrapped(self, ctx, host)

    mp = pytest.MonkeyPatch()
    mp.setattr(mysql.connector.network.MySQLSocket, "switch_to_ssl", spy)
    try:
        _connector(server).close()
    finally:
        mp.undo()
    shared, own = seen[0]
    assert getattr(shared, attribute) == getattr(own, attribute)


def test_connector_files_build_their_own_context(server: ServerProcess) -> None:
    """A CA file is the caller's: its context is built for the connection (here: the server's own certificate as
    the CA, verified)."""
    ca = server.datadir / "ca.pem"
    contexts: list[Any] = []
    wrapped = mysql.connector.network.MySQLSocket.switch_to_ssl

    def spy(self: Any, ctx: Any, host: str) -> None:
        contexts.append(ctx)
        wrapped(self, ctx, host)

    mp = pytest.MonkeyPatch()
    mp.setattr(mysql.connector.network.MySQLSocket, "switch_to_ssl", spy)
    try:
        a = _connector(server, ssl_ca=str(ca))
        b = _connector(server, ssl_ca=str(ca))
    finally:
        mp.undo()
    a.close()
    b.close()
    assert len(contexts) == 2 and contexts[0] is not contexts[1]
