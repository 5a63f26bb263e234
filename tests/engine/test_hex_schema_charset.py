"""HEX() and a database's default collation, against MySQL 8.4's manual.

- RM 8.4 "String Functions and Operators", HEX(): ``SELECT X'616263', HEX('abc'), UNHEX(HEX('abc'))`` ->
  ``'abc', 616263, 'abc'``; ``SELECT HEX(255), CONV(HEX(255),16,10)`` -> ``'FF', 255``; NULL for NULL; for a
  number, HEX(N) is CONV(N,10,16), which treats a negative N as unsigned 64-bit (CONV's description).
- RM 8.4 "Database Character Set and Collation": ``CHARACTER SET`` without ``COLLATE`` takes the set's default
  collation (latin1 -> latin1_swedish_ci, ``SHOW CHARACTER SET``); ``COLLATE`` alone names the set.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gtidkit.engine import Server


@pytest.fixture()
def session(tmp_path: Path):  # type: ignore[no-untyped-def]
    server = Server.open(tmp_path / "d")
    try:
        yield server.session()
    finally:
        server.shutdown()


def _row(session, sql: str) -> tuple:  # type: ignore[no-untyped-def]
    (res,) = session.execute(sql)
    return tuple(res.rows[0])


def test_hex_manual_examples(session) -> None:  # type: ignore[no-untyped-def]
    assert _row(session, "SELECT HEX('abc'), HEX(255), HEX(NULL), HEX(-1), HEX(0)") == (
        "616263",
        "FF",
        None,
        "FFFFFFFFFFFFFFFF",
        "0",
    )
    assert _row(session, "SELECT UNHEX(HEX('abc'))") == (b"abc",)


@pytest.mark.parametrize(
    ("clause", "charset", "collation"),
    [
        ("CHARACTER SET latin1", "latin1", "latin1_swedish_ci"),
        ("CHARACTER SET utf8mb4", "utf8mb4", "utf8mb4_0900_ai_ci"),
        ("COLLATE latin1_bin", "latin1", "latin1_bin"),
        ("", "utf8mb4", "utf8mb4_0900_ai_ci"),
    ],
)
def test_database_default_collation(session, clause: str, charset: str, collation: str) -> None:  # type: ignore[no-untyped-def]
    list(session.execute(f"CREATE DATABASE d1 {clause}"))
    assert _row(
        session,
        "SELECT DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA "
        "WHERE SCHEMA_NAME = 'd1'",
    ) == (charset, collation)
