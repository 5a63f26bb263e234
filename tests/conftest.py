"""Shared pytest fixtures: paths to ../shared (read in place, never copied) and one Spark session per run."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest


def _bytecode_cache_for_subprocesses() -> None:
    """Let the Python processes the tests start (servers, CLI runs, drivers) reuse compiled bytecode.

    With ``PYTHONDONTWRITEBYTECODE`` set (as on the CI machines), every ``python -m gtidkit`` the suite starts
    compiled all of gtidkit again (~0.3 s of CPU each, hundreds of times). The children get a bytecode cache
    outside the source tree instead (``PYTHONPYCACHEPREFIX`` in the temporary directory, one per user; Python
    checks each entry against its source's mtime and size), so the tree still gets no ``__pycache__``.
    """
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and "PYTHONPYCACHEPREFIX" not in os.environ:
        os.environ["PYTHONPYCACHEPREFIX"] = str(
            Path(tempfile.gettempdir()) / f"gtidkit-pycache-{os.getuid()}"
        )
        del os.environ["PYTHONDONTWRITEBYTECODE"]


_bytecode_cache_for_subprocesses()

ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
RESEARCH = SHARED / "research"
FIXTURES = RESEARCH / "fixtures"
BINLOG_FIXTURES = FIXTURES / "binlogs"
GTID_VECTORS = FIXTURES / "gtid_vectors.jsonl"
MYSQL_TEST = FIXTURES / "mysql-test"


def need_shared(path: Path) -> Path:
    """Return ``path`` or fail loudly: the shared fixtures are part of the test contract."""
    if not path.exists():
        pytest.fail(f"shared fixture missing: {path} (CI clones shared/ beside the repo)")
    return path


@pytest.fixture(scope="session")
def binlog_fixtures() -> Path:
    """Directory of the real MySQL binlogs (../shared/research/fixtures/binlogs)."""
    return need_shared(BINLOG_FIXTURES)


@pytest.fixture(scope="session")
def gtid_vectors_path() -> Path:
    """Path of ../shared/research/fixtures/gtid_vectors.jsonl."""
    return need_shared(GTID_VECTORS)


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the whole run (local[2], UI off), stopped at the end."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from gtidkit.pipeline.session import build_session

    session = build_session(master="local[2]", app_name="gtidkit-tests")
    yield session
    session.stop()
