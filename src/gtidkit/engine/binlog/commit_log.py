"""The commit log: ``_gk_commit_log``, one row per binlogged transaction, committed inside that transaction.

Design: docs/design/multi_worker.md §5.2-5.4 (issue 21); the recovery argument is in :mod:`gtidkit.engine.recovery`.
MySQL makes its binary log and InnoDB agree with two-phase commit (``MYSQL_BIN_LOG::ordered_commit``: InnoDB
prepares, the binlog is flushed and synced, InnoDB commits; ``binlog::Binlog_recovery`` commits at start-up every
prepared transaction whose Xid the binlog holds). SQLite has no prepare, so the engine carries the binlog instead:
each binlogged transaction stores its framed binlog bytes in this table, in the same SQLite transaction as its
rows and its mysql.gtid_executed row. Once that COMMIT is durable (the WAL fsync), the transaction is durable in
the binary log too: start-up recovery writes every row the binlog file lacks back into it and cuts binlog bytes
that no row accounts for (:func:`gtidkit.engine.recovery.complete_binlogs`).

Rows (``seq`` = commit order):

=========  ===================================================================================================
column     meaning
=========  ===================================================================================================
seq        commit order (AUTOINCREMENT: never reused after a trim, so a worker process catches up from the rows
           past the last seq it saw, :mod:`gtidkit.engine.follow`)
kind       ``transaction`` (a binlogged transaction), ``file`` (a binlog file was opened: start-up, rotation,
           RESET MASTER; ``start_pos = end_pos`` = where its first transaction goes, no payload) or ``gtid`` (a
           GTID committed without the binary log while several worker processes follow the table: binlog off,
           ``sql_log_bin=0``; ``file`` empty, no payload; the GTID is "lost": in gtid_executed and gtid_purged)
sid, tag,  the transaction's GTID (NULL for an anonymous one): what a second worker process needs to learn
gno        gtid_executed from the table (issue 21 §8 step 4)
file       the binlog file's base name (``binlog.000042``)
start_pos  offset of the transaction's first byte in ``file``
end_pos    offset just past its last byte
payload    the bytes written at ``start_pos`` (Gtid event .. Xid / COMMIT, ``log_pos`` and CRC32 final)
=========  ===================================================================================================

Trimming: rows are only needed for binlog bytes that may not be on disk yet, and the last row marks where the
committed part of the binlog ends. A committing transaction that has just fsynced the binlog (every
:data:`TRIM_INTERVAL` transactions, or every ``sync_binlog`` when that is larger than 1) deletes every earlier
row in its own SQLite transaction, so the table holds at most that many rows plus the new one. ``gtid`` rows
older than :data:`TRIM_INTERVAL` rows go every :data:`TRIM_INTERVAL` of them (:func:`record_gtid`): a process
that fell further behind reads mysql.gtid_executed instead, which holds them too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from gtidkit.gtid import Gtid

__all__ = [
    "FILE",
    "GTID",
    "TABLE",
    "TRANSACTION",
    "TRIM_INTERVAL",
    "CommitLogRow",
    "create_table",
    "ensure_autoincrement",
    "exists",
    "mark_file",
    "record",
    "record_gtid",
    "rows",
]

#: The SQLite table (internal, ``_gk_`` prefix: never visible as a MySQL table).
TABLE = "_gk_commit_log"
TRANSACTION = "transaction"
FILE = "file"
GTID = "gtid"
#: Binlog fsync and commit-log trim interval (transactions) when ``sync_binlog`` is 0 or 1: the binlog file's
#: own fsync no longer makes a transaction durable (the WAL's does), it only lets the rows before it go.
TRIM_INTERVAL = 256

_CREATE = (
    f'CREATE TABLE IF NOT EXISTS "{TABLE}" (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, sid TEXT, tag TEXT, '
    "gno INTEGER, file TEXT NOT NULL, start_pos INTEGER NOT NULL, end_pos INTEGER NOT NULL, payload BLOB)"
)
_INSERT = f'INSERT INTO "{TABLE}" (kind, sid, tag, gno, file, start_pos, end_pos, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'


@dataclass(frozen=True, slots=True)
class CommitLogRow:
    """One row of the commit log (see the module docstring for the columns)."""

    seq: int
    kind: str
    gtid: Gtid | None
    file: str
    start_pos: int
    end_pos: int
    payload: bytes


def exists(db: Any) -> bool:
    """Whether sqlite3 connection ``db``'s database has the commit log (a datadir written by the engine-first
    commit order; one written before it has none)."""
    return (
        db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)).fetchone()
        is not None
    )


def create_table(db: Any) -> None:
    """Create the commit log on sqlite3 connection ``db`` if it does not exist."""
    db.execute(_CREATE)


def ensure_autoincrement(db: Any) -> bool:
    """Rebuild a commit log created without AUTOINCREMENT (before worker processes followed it): after a trim its
    ``seq`` restarted at 1, which a worker catching up past its last ``seq`` would never read. Run by the
    primary before any worker opens (no other writer); rows and their ``seq`` are kept. Returns whether it
    rebuilt the table."""
    row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)).fetchone()
    if row is None or "AUTOINCREMENT" in str(row[0]).upper():
        return False
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(f'ALTER TABLE "{TABLE}" RENAME TO "{TABLE}_old"')
        db.execute(_CREATE)
        db.execute(f'INSERT INTO "{TABLE}" SELECT * FROM "{TABLE}_old"')
        db.execute(f'DROP TABLE "{TABLE}_old"')
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return True


def record(
    db: Any, gtid: Gtid | None, file: str, start_pos: int, end_pos: int, payload: bytes, *, trim: bool
) -> int:
    """Insert a transaction's row inside the committing SQLite transaction on ``db``.

    Args:
        db: the committing session's sqlite3 connection (a write transaction is open).
        gtid: the transaction's GTID, None for an anonymous one.
        file: the binlog file's base name.
        start_pos, end_pos: the transaction's offsets in ``file`` (bytes).
        payload: its framed bytes (``end_pos - start_pos`` of them).
        trim: the binlog was fsynced up to ``start_pos`` just now: every earlier row is deleted first.

    Returns:
        The row's ``seq``.
    """
    if trim:
        db.execute(f'DELETE FROM "{TABLE}"')
    if gtid is None:
        cur = db.execute(_INSERT, (TRANSACTION, None, None, None, file, start_pos, end_pos, payload))
    else:
        cur = db.execute(
            _INSERT,
            (TRANSACTION, _sid_text(gtid.sid), gtid.tag or None, gtid.gno, file, start_pos, end_pos, payload),
        )
    return int(cur.lastrowid or 0)


def _sid_text(sid: UUID) -> str:
    """``str(sid)``, kept for the last UUID object seen (every automatic GTID carries the server's own object:
    ``uuid.UUID.__str__`` is Python code, at every commit otherwise). One tuple, read and replaced whole, so
    threads committing GTIDs of other UUIDs at once never pair a UUID with another's text."""
    global _LAST_SID
    last = _LAST_SID
    if last[0] is sid:
        return last[1]
    text = str(sid)
    _LAST_SID = (sid, text)
    return text


#: (the last UUID object :func:`_sid_text` formatted, its text)
_LAST_SID: tuple[UUID | None, str] = (None, "")


def record_gtid(db: Any, gtid: Gtid) -> int:
    """Insert the row of a GTID committed without the binary log, inside the committing SQLite transaction on
    ``db`` (only while several worker processes follow the table: they learn gtid_executed from it); returns its
    ``seq``.

    Every :data:`TRIM_INTERVAL` such rows the ``gtid`` rows older than the last :data:`TRIM_INTERVAL` are deleted.
    """
    cur = db.execute(_INSERT, (GTID, _sid_text(gtid.sid), gtid.tag or None, gtid.gno, "", 0, 0, None))
    seq = int(cur.lastrowid or 0)
    if seq and seq % TRIM_INTERVAL == 0:
        db.execute(f'DELETE FROM "{TABLE}" WHERE kind = ? AND seq <= ?', (GTID, seq - TRIM_INTERVAL))
    return seq


def mark_file(db: Any, file: str, pos: int) -> None:
    """Record that binlog ``file`` was opened with its first transaction at ``pos``; the files before it are
    fsynced whole (rotation, start-up) or gone (RESET MASTER), so every earlier row is deleted."""
    db.execute(f'DELETE FROM "{TABLE}"')
    db.execute(_INSERT, (FILE, None, None, None, file, pos, pos, None))


def rows(db: Any) -> Iterator[CommitLogRow]:
    """Every row in commit order."""
    for seq, kind, sid, tag, gno, file, start, end, payload in db.execute(
        f'SELECT seq, kind, sid, tag, gno, file, start_pos, end_pos, payload FROM "{TABLE}" ORDER BY seq'
    ):
        gtid = None if sid is None else Gtid(UUID(sid), int(gno), tag or "")
        yield CommitLogRow(int(seq), str(kind), gtid, str(file), int(start), int(end), bytes(payload or b""))
