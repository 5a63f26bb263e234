"""Fixtures for engine tests: a server on a new datadir, always shut down."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gtidkit.engine import Server

#: files of a datadir that belong to one server run: its server_uuid and the process lock
_NOT_COPIED = frozenset({"auto.cnf", "gtidkit.sqlite.lock"})
#: the datadir left by one ``Server.open`` + ``shutdown`` in this process, per ``server_version`` option
_TEMPLATES: dict[str | None, Path] = {}


def bootstrapped_datadir(datadir: Path, tmp_factory: pytest.TempPathFactory, server_version=None) -> Path:
    """Fill the new ``datadir`` with what a first ``Server.open`` leaves behind (the bootstrapped catalog), without
    its ``auto.cnf``: opening it then starts like a new datadir (a new server_uuid, no GTIDs, no binlog files) but
    skips the catalog bootstrap, about 75% of a new datadir's open. The template is made once per process and per
    ``server_version`` (a 8.3+ release gives mysql.gtid_executed its gtid_tag column). Returns ``datadir``."""
    template = _TEMPLATES.get(server_version)
    if template is None:
        template = tmp_factory.mktemp("bootstrapped") / "data"
        options = {} if server_version is None else {"server_version": server_version}
        Server.open(template, **options).shutdown()
        _TEMPLATES[server_version] = template
    datadir.mkdir(parents=True, exist_ok=True)
    for f in template.iterdir():
        if f.name not in _NOT_COPIED:
            shutil.copy2(f, datadir / f.name)
    return datadir


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
