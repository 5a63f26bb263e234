"""mysql.gtid_executed: save GTIDs per transaction or per binlog, read them back, compress (WL#6559).

Source: MySQL ``sql/rpl_gtid_persist.cc`` (``Gtid_table_persistor::save``, ``fetch_gtids``, ``compress``,
``compress_first_consecutive_range``), ../shared/research/formats.md §5.1–5.3.

Rows are ``(source_uuid CHAR(36) lowercase, interval_start, interval_end, gtid_tag)`` with **inclusive** ends
(unlike the binary encoding); a single transaction is saved as ``(sid, gno, gno)``. A duplicate key on insert is
ignored, as MySQL ignores it with a warning. These functions take a raw ``sqlite3.Connection`` (from
``Storage.sqlite(conn)``) and the table's physical name; they run inside the caller's transaction and never
commit, so a GTID row commits atomically with the user transaction that produced it (one fsync, not two).

A datadir created as 5.7 or 8.0 has the table without ``gtid_tag`` (it came in 8.3.0, WL#15294): :class:`GtidTable`
says which layout a datadir has, and every statement here reads the tag of such a table as ``''`` (those releases
have no tagged GTIDs, so none reaches it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from uuid import UUID

from gtidkit.gtid import Gtid, GtidSet

__all__ = [
    "GtidTable",
    "clear",
    "collapse_run",
    "count_rows",
    "find_runs",
    "read_rows",
    "read_set",
    "save_gtid",
    "save_set",
]


@dataclass(frozen=True, slots=True)
class GtidTable:
    """mysql.gtid_executed as one datadir has it.

    Args:
        name: the table's physical (SQLite) name.
        tagged: it has the ``gtid_tag`` column (8.3+ layout); False for a datadir created as 5.7 / 8.0.
    """

    name: str
    tagged: bool = True
    #: the SQL expression of a row's tag: the column, or ``''`` where the table has none
    tag: str = field(init=False)
    insert_sql: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tag", "gtid_tag" if self.tagged else "''")
        cols = "source_uuid, interval_start, interval_end" + (", gtid_tag" if self.tagged else "")
        marks = "?,?,?,?" if self.tagged else "?,?,?"
        object.__setattr__(
            self, "insert_sql", f'INSERT OR IGNORE INTO "{self.name}" ({cols}) VALUES ({marks})'
        )

    def row(
        self, sid: str, start: int, end: int, tag: str
    ) -> tuple[str, int, int] | tuple[str, int, int, str]:
        """The INSERT parameters of one interval.

        Raises:
            ValueError: a tagged GTID for a table without ``gtid_tag`` (5.7/8.0 refuse tags before this point).
        """
        if self.tagged:
            return (sid, start, end, tag)
        if tag:
            raise ValueError(
                f"mysql.gtid_executed has no gtid_tag column (release < 8.3): cannot save tag {tag!r}"
            )
        return (sid, start, end)


_SID_TEXT: dict[int, str] = {}  # UUID.int -> its text: str(UUID) is slow and a server sees few source UUIDs


def save_gtid(db: sqlite3.Connection, table: GtidTable, gtid: Gtid) -> None:
    """INSERT ``(sid, gno, gno, tag)`` for one transaction (binlog off, or applier without log_replica_updates).

    Raises:
        ValueError: a tagged GTID for a table without ``gtid_tag``.
    """
    sid = gtid.sid
    text = _SID_TEXT.get(sid.int)
    if text is None:
        if len(_SID_TEXT) > 4096:
            _SID_TEXT.clear()
        text = _SID_TEXT[sid.int] = str(sid)
    db.execute(table.insert_sql, table.row(text, gtid.gno, gtid.gno, gtid.tag))


def save_set(db: sqlite3.Connection, table: GtidTable, gtids: GtidSet) -> int:
    """INSERT one row per interval of ``gtids`` (rotation, shutdown, recovery, SET gtid_purged). Returns rows.

    Raises:
        ValueError: a tagged GTID for a table without ``gtid_tag``.
    """
    rows = [table.row(str(sid), start, end, tag) for sid, tag, start, end in gtids.intervals()]
    db.executemany(table.insert_sql, rows)
    return len(rows)


def read_rows(db: sqlite3.Connection, table: GtidTable) -> list[tuple[str, int, int, str]]:
    """All rows in primary-key order: (source_uuid, interval_start, interval_end, gtid_tag)."""
    cur = db.execute(
        f'SELECT source_uuid, interval_start, interval_end, {table.tag} FROM "{table.name}" '
        f"ORDER BY source_uuid, {table.tag}, interval_start"
    )
    return [(r[0], int(r[1]), int(r[2]), r[3] or "") for r in cur.fetchall()]


def read_set(db: sqlite3.Connection, table: GtidTable) -> GtidSet:
    """The GTID set the table holds (``Gtid_table_persistor::fetch_gtids``)."""
    return GtidSet.from_intervals((UUID(u), tag, s, e) for u, s, e, tag in read_rows(db, table))


def count_rows(db: sqlite3.Connection, table: GtidTable) -> int:
    """Number of rows (what the mysql-tests count after N transactions)."""
    return int(db.execute(f'SELECT COUNT(*) FROM "{table.name}"').fetchone()[0])


def clear(db: sqlite3.Connection, table: GtidTable) -> None:
    """DELETE every row (RESET MASTER / RESET BINARY LOGS AND GTIDS)."""
    db.execute(f'DELETE FROM "{table.name}"')


def find_runs(rows: Iterable[tuple[str, int, int, str]]) -> list[list[tuple[str, int, int, str]]]:
    """Runs of consecutive rows (same uuid and tag, each start = previous end + 1) of length >= 2, in PK order.

    This is ``compress_first_consecutive_range`` generalised to every run of one scan: each run collapses into
    its first row, so one scan gives what MySQL's repeated passes give (one row per maximal interval).
    """
    runs: list[list[tuple[str, int, int, str]]] = []
    current: list[tuple[str, int, int, str]] = []
    for row in rows:
        if current and row[0] == current[-1][0] and row[3] == current[-1][3] and row[1] == current[-1][2] + 1:
            current.append(row)
            continue
        if len(current) >= 2:
            runs.append(current)
        current = [row]
    if len(current) >= 2:
        runs.append(current)
    return runs


def collapse_run(db: sqlite3.Connection, table: GtidTable, run: list[tuple[str, int, int, str]]) -> int:
    """Delete the later rows of ``run`` and extend its first row to the run's end. Returns rows deleted.

    The caller holds the engine write lock and runs this in a short transaction; it re-checks that the rows are
    still there (a concurrent RESET MASTER may have removed them) and changes nothing if not.
    """
    uuid, first_start, _, tag = run[0]
    last_end = run[-1][2]
    name, tag_col = table.name, table.tag
    present = db.execute(
        f'SELECT COUNT(*) FROM "{name}" WHERE source_uuid=? AND {tag_col}=? AND interval_start>=? '
        "AND interval_start<=?",
        (uuid, tag, first_start, last_end),
    ).fetchone()[0]
    first = db.execute(
        f'SELECT interval_end FROM "{name}" WHERE source_uuid=? AND {tag_col}=? AND interval_start=?',
        (uuid, tag, first_start),
    ).fetchone()
    if present != len(run) or first is None or int(first[0]) != run[0][2]:
        return 0  # the table changed under us (RESET MASTER, another pass): leave it for the next pass
    cur = db.execute(
        f'DELETE FROM "{name}" WHERE source_uuid=? AND {tag_col}=? AND interval_start>? AND interval_start<=? '
        "AND interval_end<=?",
        (uuid, tag, first_start, last_end, last_end),
    )
    deleted = cur.rowcount
    db.execute(
        f'UPDATE "{name}" SET interval_end=? WHERE source_uuid=? AND {tag_col}=? AND interval_start=?',
        (last_end, uuid, tag, first_start),
    )
    return deleted
