"""Fixtures for engine tests: a server on a fresh datadir, always shut down."""

from __future__ import annotations

import pytest

from gtidkit.engine import Server


@pytest.fixture
def open_server(tmp_path):
    """``open_server(**options)`` → a running Server on ``tmp_path / "data"``; shut down at teardown."""
    servers: list[Server] = []

    def _open(datadir=None, **options):
        srv = Server.open(datadir or (tmp_path / "data"), **options)
        servers.append(srv)
        return srv

    yield _open
    for srv in servers:
        srv.shutdown()
