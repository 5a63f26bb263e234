"""Fixtures for engine tests: a server on a new datadir, always shut down."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gtidkit.engine import Server
from tests.engine.datadirs import bootstrapped_datadir

__all__ = ["bootstrapped_datadir", "open_server"]


@pytest.fixture
def open_server(tmp_path, tmp_path_factory):
    """``open_server(**options)`` → a running Server on ``tmp_path / "data"``; shut down at teardown.

    A datadir that does not exist yet starts from :func:`bootstrapped_datadir` (what a first open of a new datadir
    would write); tests of a new datadir's first open call ``Server.open`` themselves.
    """
    servers: list[Server] = []

    def _open(datadir=None, **options):
        if (
            os.environ.get("GTIDKIT_TEST_FILE_PER_SCHEMA") == "1"
        ):  # tests/protocol/server_proc.py FILE_PER_SCHEMA_ENV
            options.setdefault("gtidkit_file_per_schema", True)
        path = Path(datadir or (tmp_path / "data"))
        if not path.exists() and path.suffix == "":
            bootstrapped_datadir(path, tmp_path_factory, options.get("server_version"))
        srv = Server.open(path, **options)
        servers.append(srv)
        return srv

    yield _open
    for srv in servers:
        srv.shutdown()
