"""A server process for crash tests: opens a datadir, commits in a loop, prints each acknowledged commit.

Run: ``python tests/engine/crash_driver.py DATADIR MODE`` (MODE one of :data:`MODES`). Output lines, flushed one
by one: ``READY``, then ``ACK <k> <gtid or ->`` after each COMMIT returned. The parent SIGKILLs the process at a
random moment, then calls :func:`check` (in its own process) to verify the durability invariant of issue 3:

* every acknowledged row is in the engine, and (binlog on) its transaction is in the binlog;
* nothing is in one and not the other (rows == binlog DML transactions), no GTID twice in the binlog;
* ``@@gtid_executed`` equals the GTIDs whose data is present (and mysql.gtid_executed agrees after start-up).

The bench script ``bench/stress_crash.py`` imports this file by path and runs many trials.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

SRC = "3e11fa47-71ca-11e1-9e33-c80aa9429562"

#: mode → (Server.open options, explicit GTID_NEXT per transaction?)
MODES: dict[str, tuple[dict[str, Any], bool]] = {
    "binlog_off": ({"gtid_mode": "ON", "log_bin": False, "gtid_executed_compression_period": 7}, True),
    "binlog_row": (
        {"gtid_mode": "ON", "log_bin": True, "binlog_format": "ROW", "max_binlog_size": 8192},
        False,
    ),
    "binlog_statement": (
        {"gtid_mode": "ON", "log_bin": True, "binlog_format": "STATEMENT", "max_binlog_size": 8192},
        False,
    ),
    "binlog_applier": (
        {"gtid_mode": "ON", "log_bin": True, "log_replica_updates": False, "max_binlog_size": 8192},
        True,
    ),
    "gtid_off": (
        {"gtid_mode": "OFF", "log_bin": True, "binlog_format": "STATEMENT", "max_binlog_size": 8192},
        False,
    ),
}

#: modes whose transactions write two schemas, each in its own SQLite file (gtidkit_file_per_schema, issue 21 step
#: 9; ``schema_files_ddl`` adds a DDL after each): kept out of :data:`MODES` (tests/engine/test_crash.py, the
#: suite's time) while the option is OFF by default; ``bench/stress_crash.py --modes schema_files,schema_files_ddl``
#: runs them (docs/design/multi_worker.md "Step 9 as built")
SCHEMA_FILE_MODES: dict[str, tuple[dict[str, Any], bool]] = {
    "schema_files": (
        {
            "gtid_mode": "ON",
            "log_bin": True,
            "binlog_format": "ROW",
            "max_binlog_size": 8192,
            "gtidkit_file_per_schema": True,
        },
        False,
    ),
    # the same, and after each transaction k a DDL of :func:`ddl_of` (MySQL 8.0's atomic DDL across the files)
    "schema_files_ddl": (
        {
            "gtid_mode": "ON",
            "log_bin": True,
            "binlog_format": "ROW",
            "max_binlog_size": 8192,
            "gtidkit_file_per_schema": True,
        },
        False,
    ),
}
#: ``gtidkit_row_locks`` (docs/design/multi_worker.md §5.7): each transaction's INSERT by primary key is deferred to
#: its COMMIT; ``bench/stress_crash.py --modes row_locks`` runs it
ROW_LOCK_MODES: dict[str, tuple[dict[str, Any], bool]] = {
    "row_locks": (
        {
            "gtid_mode": "ON",
            "log_bin": True,
            "binlog_format": "ROW",
            "max_binlog_size": 8192,
            "gtidkit_row_locks": True,
        },
        False,
    ),
}
#: every mode :func:`run` and :func:`check` know
ALL_MODES = {**MODES, **SCHEMA_FILE_MODES, **ROW_LOCK_MODES}


def ddl_of(k: int) -> str:
    """The DDL the ``schema_files_ddl`` mode runs after transaction ``k``: a cycle of CREATE TABLE, CREATE TABLE
    ... SELECT (rows 1..k of crash.t), ALTER (a rebuild), RENAME across the two files, TRUNCATE, DROP TABLE,
    CREATE DATABASE with a table, DROP DATABASE. A statement whose table a kill left missing fails (1146...),
    which the driver ignores."""
    step = k % 8
    return {
        0: f"CREATE TABLE crash2.d{k} (a INT PRIMARY KEY, b INT)",
        1: f"CREATE TABLE crash2.c{k} AS SELECT k FROM crash.t",
        2: f"ALTER TABLE crash2.d{k - 2} ADD COLUMN c INT DEFAULT 5, ADD INDEX ib (b)",
        3: f"RENAME TABLE crash2.d{k - 3} TO crash.r{k - 3}",
        4: f"TRUNCATE TABLE crash2.c{k - 3}",
        5: f"DROP TABLE IF EXISTS crash.r{k - 5}",
        6: "CREATE DATABASE IF NOT EXISTS crash3",
        7: "DROP DATABASE IF EXISTS crash3",
    }[step]


SETUP = "CREATE DATABASE IF NOT EXISTS crash; CREATE TABLE IF NOT EXISTS crash.t (k INT PRIMARY KEY, g VARCHAR(80))"
#: the second schema of the :data:`SCHEMA_FILE_MODES` (each transaction writes the same k into both)
SETUP2 = "CREATE DATABASE IF NOT EXISTS crash2; CREATE TABLE IF NOT EXISTS crash2.t (k INT PRIMARY KEY)"


def run(datadir: str, mode: str) -> None:
    """The child: open, set up, commit forever (until killed)."""
    from gtidkit.engine import Server
    from gtidkit.errors import MySQLError

    options, explicit = ALL_MODES[mode]
    two = mode in SCHEMA_FILE_MODES
    srv = Server.open(datadir, **options)
    s = srv.session()
    if not options.get("log_replica_updates", True):
        # the replica applier's session (log_replica_updates applies to it alone): a commit origin marks it
        s.applier = SimpleNamespace(original_commit_timestamp=None, server_id=None)
    last: list[Any] = [None]
    srv.add_commit_observer(lambda sess, g: last.__setitem__(0, g) if sess is s else None)
    if _has_table(s):
        pass
    elif explicit:
        for stmt in SETUP.split("; "):
            gno = srv.gtid_state.executed().last_gno(SRC) + 1  # type: ignore[arg-type]
            s.execute(f"SET gtid_next='{SRC}:{gno}'")
            s.execute(stmt)
        s.execute("SET gtid_next=AUTOMATIC")
    else:
        s.execute(SETUP)
        if two:
            s.execute(SETUP2)
    k = int(s.execute("SELECT COALESCE(MAX(k), 0) FROM crash.t")[-1].rows[0][0]) + 1
    out = sys.stdout
    out.write("READY\n")
    out.flush()
    while True:
        if explicit:
            gno = srv.gtid_state.executed().last_gno(SRC) + 1  # type: ignore[arg-type]
            s.execute(f"SET gtid_next='{SRC}:{gno}'")
            gtext = f"{SRC}:{gno}"
        else:
            gtext = ""
        s.execute("BEGIN")
        s.execute(f"INSERT INTO crash.t VALUES ({k}, '{gtext}')")
        if two:
            s.execute(f"INSERT INTO crash2.t VALUES ({k})")
        s.execute("COMMIT")
        if explicit:
            s.execute("SET gtid_next=AUTOMATIC")
        g = last[0]
        out.write(f"ACK {k} {g if g is not None else '-'}\n")
        out.flush()
        if mode == "schema_files_ddl":
            try:
                s.execute(ddl_of(k))
                if k % 8 == 6:
                    s.execute("CREATE TABLE IF NOT EXISTS crash3.t (a INT PRIMARY KEY)")
                    s.execute(f"INSERT INTO crash3.t VALUES ({k})")
            except MySQLError:
                pass  # its table was the DDL a kill cut short (not committed): nothing to do
        k += 1


def parse_acks(text: str) -> list[tuple[int, str | None]]:
    """(k, gtid or None) of every complete ACK line."""
    acks = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "ACK":
            acks.append((int(parts[1]), None if parts[2] == "-" else parts[2]))
    return acks


def check(datadir: str, mode: str, acks: list[tuple[int, str | None]], trials: int = 1) -> list[str]:
    """Restart the server on ``datadir`` (recovery), verify the invariant; return the violations found.

    ``acks`` are all acknowledgements of the ``trials`` killed runs so far; each run may leave at most one
    unacknowledged transaction (the one in flight when it was killed) committed.
    """
    from gtidkit.binlog.file import read_previous_gtids, read_transactions
    from gtidkit.engine import Server
    from gtidkit.engine.gtid.table import read_set
    from gtidkit.gtid import Gtid, GtidSet

    options, explicit = ALL_MODES[mode]
    two = mode in SCHEMA_FILE_MODES
    problems: list[str] = []
    srv = Server.open(datadir, **options)
    try:
        s = srv.session()
        rows = s.execute("SELECT k, g FROM crash.t ORDER BY k")[-1].rows if _has_table(s) else []
        present = {int(r[0]) for r in rows}
        if two:  # one transaction wrote k into both schema files: both or neither
            other = (
                {int(r[0]) for r in s.execute("SELECT k FROM crash2.t")[-1].rows}
                if _has_table(s, "crash2")
                else set()
            )
            if other != present:
                problems.append(
                    f"not atomic across schema files: only in crash.t {sorted(present - other)[:5]}, "
                    f"only in crash2.t {sorted(other - present)[:5]}"
                )
        executed = srv.gtid_state.executed()
        table = srv.read_txn(lambda db: read_set(db, srv.gtid_table))
        acked = {k for k, _ in acks}
        if not acked <= present:
            problems.append(f"acknowledged rows lost: {sorted(acked - present)[:5]}")
        extra = present - acked
        if len(extra) > trials:
            problems.append(f"rows never attempted or duplicated: {sorted(extra)[:5]}")
        for _k, g in acks:
            if g is not None and Gtid.parse(g) not in executed:
                problems.append(f"acknowledged GTID {g} not in gtid_executed")
                break
        if mode == "schema_files_ddl":
            problems += files_agree_with_the_catalog(lambda sql: s.execute(sql)[-1].rows, Path(datadir))
        n_setup = 4 if two else 2
        if mode == "schema_files_ddl":
            pass  # the DDLs take GTIDs too: gtid_executed is compared with the binary log's below
        elif options["gtid_mode"] == "OFF":
            if executed:
                problems.append("gtid_mode=OFF but gtid_executed is not empty")
        else:
            if len(executed) != len(present) + n_setup:
                problems.append(
                    f"gtid_executed has {len(executed)} GTIDs for {len(present)} rows (+{n_setup})"
                )
            if explicit:
                data_gtids = GtidSet.from_gtids(Gtid.parse(r[1]) for r in rows)
                if not data_gtids <= executed:
                    problems.append("a row's GTID is missing from gtid_executed")
            if table != executed:
                problems.append(f"mysql.gtid_executed {table} != @@gtid_executed {executed}")
        if options["log_bin"] and srv.binlog is not None:
            files = srv.binlog.existing_files()
            seen: list[Gtid] = []
            dml = 0
            for name in files:
                summ = read_transactions(srv.binlog.path(name), keep_events_from=0)
                for tx in summ.transactions:
                    if tx.gtid is not None:
                        seen.append(tx.gtid)
                    if any(type(e.event).__name__ == "XidEvent" for e in summ.events[tx.begin_pos]):
                        dml += 1
            if len(seen) != len(set(seen)):
                problems.append("a GTID appears twice in the binlog")
            binlogged_rows = (
                len(present) if not (explicit and not options.get("log_replica_updates", True)) else 0
            )
            if dml != binlogged_rows and mode != "schema_files_ddl":  # CREATE TABLE ... SELECT is one too
                problems.append(f"binlog has {dml} row transactions, engine has {binlogged_rows}")
            if options["gtid_mode"] != "OFF" and not (
                explicit and not options.get("log_replica_updates", True)
            ):
                in_binlogs = (
                    read_previous_gtids(srv.binlog.path(files[0])) or GtidSet()
                ) | GtidSet.from_gtids(seen)
                if in_binlogs != executed:
                    problems.append(f"binlog GTIDs {in_binlogs} != gtid_executed {executed}")
        s.close()
    finally:
        srv.shutdown()
    return problems


def files_agree_with_the_catalog(
    rows: Callable[[str], Any], datadir: Path, *, ctas_rows: bool = True
) -> list[str]:
    """After recovery: each schema file holds exactly the tables the catalog lists for its schema, with the
    catalog's columns in order, and (``ctas_rows``) every table made by :func:`ddl_of`'s CREATE TABLE crash2.cK
    AS SELECT holds rows 1..K (or none, once truncated): the catalog, the file and (the catalog and the binary
    log commit together) the binary log agree on every DDL. ``rows(sql)`` runs a query on the server."""
    import sqlite3

    problems: list[str] = []
    schemas = [r[0] for r in rows("SHOW DATABASES") if str(r[0]).startswith("crash")]
    for schema in schemas:
        path = datadir / f"{schema}.sqlite"
        if not path.exists():
            problems.append(f"schema {schema} has no file")
            continue
        catalog = {}
        for (table,) in rows(
            f"SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{schema}'"
        ):
            catalog[str(table)] = [
                c[0]
                for c in rows(
                    f"SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{schema}' "
                    f"AND TABLE_NAME = '{table}' ORDER BY ORDINAL_POSITION"
                )
            ]
        raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            physical = {
                str(name)[len(schema) + 1 :]: [c[1] for c in raw.execute(f'PRAGMA table_info("{name}")')]
                for (name,) in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                if str(name).startswith(f"{schema}.")
            }
        finally:
            raw.close()
        if physical != catalog:
            problems.append(f"{schema}: file {sorted(physical.items())} != catalog {sorted(catalog.items())}")
    if not ctas_rows:
        return problems
    for (name,) in rows(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'crash2' AND TABLE_NAME LIKE 'c%'"
    ):
        j = int(str(name)[1:])
        got = sorted(int(r[0]) for r in rows(f"SELECT k FROM crash2.{name}"))
        if got and got != list(range(1, j + 1)):
            problems.append(f"crash2.{name} has rows {got[:5]}... (expected 1..{j} or none)")
    return problems


def _has_table(s: Any, schema: str = "crash") -> bool:
    rows = s.execute(
        f"SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='{schema}' AND TABLE_NAME='t'"
    )[-1].rows
    return bool(rows[0][0])


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    run(sys.argv[1], sys.argv[2])
    Path(sys.argv[1])  # unreachable; the loop runs until killed
