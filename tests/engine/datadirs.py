"""New datadirs for engine tests, filled from a bootstrapped template instead of bootstrapping the catalog each time.

A first ``Server.open`` of a new datadir spends about three quarters of its CPU creating the catalog (the
``mysql.*`` tables, the accounts); the suite opens hundreds of new datadirs. :func:`bootstrapped_datadir` copies
what one first open left behind (once per process and per ``server_version``), without its ``auto.cnf`` and its
lock: opening the copy starts like a new datadir (a new server_uuid, no GTIDs, no binary log files) but skips the
bootstrap. Tests of the first open itself (the catalog a release creates, its errors) call ``Server.open``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from gtidkit.engine import Server

__all__ = ["bootstrapped_datadir", "open_new"]

#: files of a datadir that belong to one server run: its server_uuid and the process lock
_NOT_COPIED = frozenset({"auto.cnf", "gtidkit.sqlite.lock"})
#: the datadir left by one ``Server.open`` + ``shutdown`` in this process, per ``server_version`` option
_TEMPLATES: dict[str | None, Path] = {}


def bootstrapped_datadir(datadir: Path, tmp_factory: Any = None, server_version: str | None = None) -> Path:
    """Fill the new ``datadir`` with what a first ``Server.open`` leaves behind (the bootstrapped catalog), without
    its ``auto.cnf``. The template is made once per process and per ``server_version`` (a 8.3+ release gives
    mysql.gtid_executed its gtid_tag column), under ``tmp_factory`` (pytest's ``tmp_path_factory``) or the
    temporary directory (the run's, tests/conftest.py). Returns ``datadir``."""
    template = _TEMPLATES.get(server_version)
    if template is None:
        parent = tmp_factory.mktemp("bootstrapped") if tmp_factory is not None else Path(tempfile.mkdtemp())
        template = parent / "data"
        options = {} if server_version is None else {"server_version": server_version}
        Server.open(template, **options).shutdown()
        _TEMPLATES[server_version] = template
    datadir.mkdir(parents=True, exist_ok=True)
    for f in template.iterdir():
        if f.name not in _NOT_COPIED:
            shutil.copy2(f, datadir / f.name)
    return datadir


def open_new(datadir: Path, **options: Any) -> Server:
    """``Server.open(datadir, **options)``; a new ``datadir`` (absent, or an empty directory) starts from
    :func:`bootstrapped_datadir`, a datadir that holds files (a restart) is opened as it is."""
    datadir = Path(datadir)
    if not datadir.exists() or not any(datadir.iterdir()):
        bootstrapped_datadir(datadir, server_version=options.get("server_version"))
    return Server.open(datadir, **options)
