"""Paths of the shared fixtures for engine tests (the same values as tests/conftest.py, importable by name)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MYSQL_TEST = (ROOT / ".." / "shared" / "research" / "fixtures" / "mysql-test").resolve()
