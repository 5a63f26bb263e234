"""Administrative statements and GTID/binlog SHOW statements (the GTID SQL functions are in
:mod:`gtidkit.engine.gtid.functions`).

Sources: MySQL ``sql/rpl_source.cc`` / ``sql/binlog.cc`` (SHOW BINARY LOGS, SHOW BINARY LOG STATUS, SHOW BINLOG
EVENTS, PURGE BINARY LOGS, RESET MASTER / RESET BINARY LOGS AND GTIDS, FLUSH LOGS), ``sql/log_event.cc`` (``*::pack_info``: the Info column), formats.md §5.4–5.5, §8.1 and §8.4.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from gtidkit.binlog.constants import EVENT_TYPE_NAMES
from gtidkit.binlog.file import read_events, read_previous_gtids
from gtidkit.binlog.text import event_info
from gtidkit.engine.binlog import commit_log
from gtidkit.engine.gtid import table as gtid_table
from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.sql.metadata import result_set
from gtidkit.engine.statements import locks
from gtidkit.errors import BinlogDecodeError
from gtidkit.gtid import GtidSet
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.server import Server
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement


def _conditions(warnings: list[tuple[str, int, str]]) -> tuple[Condition, ...]:
    return tuple(Condition(*w) for w in warnings)


def limit_reached(rows: int, offset: int, limit: int | None) -> bool:
    """True once ``rows`` rows cover ``LIMIT offset, limit`` (the listing can stop reading)."""
    return limit is not None and rows >= offset + limit


class Admin:
    """Statement handlers bound to one server."""

    def __init__(self, server: Server) -> None:
        self.server = server

    # ------------------------------------------------------------------ SHOW (rows; engine/statements/show.py maps)
    def show_binary_logs(self) -> StatementResult:
        """SHOW BINARY LOGS: Log_name, File_size, Encrypted. Raises 1381 when the binlog is off."""
        blog = self.server.binlog
        if blog is None:
            raise mysql_error(1381)
        return result_set(
            ["Log_name", "File_size", "Encrypted"], [(n, size, "No") for n, size in blog.sizes()]
        )

    def check_status_syntax(self, text: str, *, master: bool) -> None:
        """SHOW BINARY LOG STATUS exists from 8.2.0, SHOW MASTER STATUS until 8.3 (removed in 8.4.0): the other
        one is a syntax error in the release the server presents (engine/server_version.py). ``master``: the
        statement is SHOW MASTER STATUS.

        Raises:
            MySQLError: 1064 near ``LOG STATUS`` (before 8.2: the grammar wants ``SHOW BINARY LOGS``) or near
                ``MASTER STATUS`` (8.4).
        """
        from gtidkit.engine.sql.unsupported import parse_error_at

        release = self.server.release
        if master and not release.show_master_status:
            raise parse_error_at(text, text.upper().index("MASTER"))
        if not master and not release.show_binary_log_status:
            raise parse_error_at(text, text.upper().index("LOG", text.upper().index("BINARY") + 6))

    def show_binary_log_status(self) -> StatementResult:
        """SHOW BINARY LOG STATUS / SHOW MASTER STATUS (no row when the binlog is off)."""
        cols = ["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set"]
        blog = self.server.binlog
        if blog is None:
            return result_set(cols, [])
        with blog.lock:
            pos = blog.status_position()
            executed = self.server.gtid_state.executed().to_text()
        if pos is None:
            return result_set(cols, [])
        return result_set(cols, [(pos.file, pos.pos, "", "", executed)])

    def show_binlog_events(
        self, file: str | None, pos: int | None, offset: int, limit: int | None
    ) -> StatementResult:
        """SHOW BINLOG EVENTS [IN file] [FROM pos] [LIMIT [offset,] n] with MySQL's columns and Info texts.

        ``FROM pos`` with ``pos`` inside an event lists from the next event on, with each event's real Pos (MySQL
        8.0's fix of Bug#29039732 "SHOW BINLOG EVENTS FROM <bad offset>", whose test checks exactly that); a
        position past the end lists nothing.

        Raises:
            MySQLError: 1220 ER_ERROR_WHEN_EXECUTING_COMMAND for an unknown file or an unreadable one.
        """
        limit_rows = limit
        cols = ["Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info"]
        blog = self.server.binlog
        if blog is None:
            return result_set(cols, [])
        names = blog.existing_files()
        name = file if file is not None else (names[0] if names else None)
        if name is None or name not in names:
            raise mysql_error(1220, "SHOW BINLOG EVENTS", "Could not find target log")
        rows: list[tuple] = []
        # Read without the writer's lock: every byte before the end position is flushed (the dump seam).
        end = blog.end_position()
        limit = end.pos if end is not None and end.file == name else None
        start = pos or 0
        try:
            for pe in read_events(blog.path(name), expand_payloads=False, stop_at_torn_tail=True):
                if limit is not None and pe.end_pos > limit:
                    break  # a transaction being written right now
                if pe.pos < start:
                    continue  # FROM a position inside an event: listing starts at the next event
                h = pe.header
                type_name = EVENT_TYPE_NAMES.get(h.type_code, "Unknown")
                rows.append((name, pe.pos, type_name, h.server_id, pe.end_pos, event_info(pe.event)))
                if limit_reached(len(rows), offset, limit_rows):
                    break
        except BinlogDecodeError as err:
            raise mysql_error(
                1220, "SHOW BINLOG EVENTS", "Wrong offset or I/O error (" + str(err) + ")"
            ) from err
        rows = rows[offset:]
        if limit is not None:
            rows = rows[:limit]
        return result_set(cols, rows)

    # ------------------------------------------------------------------ FLUSH / RESET / PURGE
    def flush_tables_with_read_lock(self, session: Session, tables: str | None) -> StatementResult:
        """FLUSH TABLES [t1, t2] WITH READ LOCK: the global read lock, or READ locks on the tables named."""
        if tables:
            names = ", ".join(f"{t.strip()} READ" for t in tables.split(","))
            locks.lock_tables(session, f"LOCK TABLES {names}")
        else:
            locks.flush_tables_with_read_lock(session)
        return StatementResult()

    def kill(self, session: Session, target_id: int, *, query_only: bool) -> None:
        """KILL [CONNECTION | QUERY] id (RM8 15.7.8.4).

        KILL QUERY interrupts the statement the target runs (a SLEEP() returns 1; the hook is
        :attr:`gtidkit.engine.sql.executor.Executor.interrupt`). KILL CONNECTION also marks the session killed:
        its next statement closes it and fails with CR_SERVER_LOST 2013, as a client sees a killed connection.

        Raises:
            MySQLError: 1094 ER_NO_SUCH_THREAD for an unknown id; 1317 ER_QUERY_INTERRUPTED when a session kills its
                own connection.
        """
        target = next((s for s in self.server.sessions() if s.id == target_id), None)
        if target is None:
            raise mysql_error(1094, target_id)
        target.interrupt()
        if not query_only:
            target.killed = True
            if target is session:
                raise mysql_error(1317)

    def reset_master(self, number: int | None = None) -> None:
        """RESET MASTER [TO n]: empty the table, delete every binlog, start file n (default 1), clear GTID state.

        In a server of several processes the first new file starts a new RESET epoch in the shared page: every
        other process rebuilds its GTID state and binary-log view at its next statement or commit
        (:mod:`gtidkit.engine.follow`). Like every write, RESET waits for the write lock, i.e. for another
        session's open write transaction to end (1205 after ``innodb_lock_wait_timeout``); MySQL's RESET takes
        the global read lock instead, which an idle open transaction does not hold.
        """
        server = self.server
        if number is not None and not 1 <= number <= 2_000_000_000:
            raise mysql_error(1210, "RESET MASTER")
        server.acquire_write_lock(None)
        try:
            conn = server.internal_conn
            conn.begin()
            try:
                db = server.storage.sqlite(conn)
                gtid_table.clear(db, server.gtid_table)
                db.execute('DELETE FROM "_gk_binlog_applied"')
                # the files go next: no row may describe them (a crash before the new file's mark leaves none)
                db.execute(f'DELETE FROM "{commit_log.TABLE}"')
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
            server.gtid_state.load(GtidSet(), GtidSet())
            server.gtid_purged_changed()  # the published gtid_purged is empty now (engine/shared_config.py)
            server.binlog_file_gtids = GtidSet()
            shared = server.shared_binlog
            if server.binlog is not None:
                server.binlog.delete_all()
                server.binlog.open_new(GtidSet(), number=number or 1, reset=True)
                server.save_binlog_gtids_locked(GtidSet(), record_start=True)
            if shared is not None and server.follower is not None:
                blog = server.binlog
                server.follower.reset_done(blog.epoch if blog is not None else shared.new_epoch())
        finally:
            server.release_write_lock(None)

    def purge(self, *, to: str | None = None, before: float | None = None) -> list[str]:
        """PURGE BINARY LOGS TO 'file' | BEFORE datetime; gtid_purged grows by the removed files' GTIDs."""
        server = self.server
        if server.binlog is None:
            return []
        server.acquire_write_lock(None)
        try:
            return self.purge_locked(to=to, before=before)
        finally:
            server.release_write_lock(None)

    def purge_locked(self, *, to: str | None = None, before: float | None = None) -> list[str]:
        """:meth:`purge` with the write lock already held (rotation, start-up expiry).

        gtid_purged becomes what MySQL computes: everything executed before the oldest remaining file, i.e. its
        Previous_gtids (plus what was already purged); the removed files' GTIDs stay in gtid_executed.
        """
        blog = self.server.binlog
        if blog is None:
            return []
        removed = blog.purge_to(to) if to is not None else blog.purge_before(before or 0.0)
        files = blog.existing_files()
        if removed and files:
            self.server.gtid_state.add_purged(
                read_previous_gtids(blog.path(files[0])) or GtidSet(), also_executed=False
            )
            self.server.gtid_purged_changed()  # the other worker processes' @@GLOBAL.gtid_purged
        return removed

    def expire_logs_locked(self) -> list[str]:
        """Purge the files older than ``binlog_expire_logs_seconds`` (write lock held); the names removed.

        RM8 "binlog_expire_logs_seconds" (default 2592000, 30 days; 0 = never) and
        "binlog_expire_logs_auto_purge" (ON by default; OFF = never automatically): the check runs at start-up and
        whenever the binary log is rotated (FLUSH LOGS, max_binlog_size); the active file is never removed. MySQL
        compares each file's modification time, as PURGE BINARY LOGS BEFORE does (mysql-test
        ``binlog_expire_logs_seconds``: purged on FLUSH LOGS, on a size rotation and at a restart).
        """
        server = self.server
        seconds = int(server.globals.get("binlog_expire_logs_seconds"))
        if server.binlog is None or seconds == 0 or not server.globals.get("binlog_expire_logs_auto_purge"):
            return []
        return self.purge_locked(before=time.time() - seconds)

    def expire_logs(self) -> list[str]:
        """:meth:`expire_logs_locked`, taking the write lock (start-up)."""
        self.server.acquire_write_lock(None)
        try:
            return self.expire_logs_locked()
        finally:
            self.server.release_write_lock(None)


def _rotate(session: Session, stmt: Statement) -> StatementResult:
    session.server.rotate()
    return StatementResult()


def _flush_tables_with_read_lock(session: Session, stmt: Statement) -> StatementResult:
    return session.server.admin.flush_tables_with_read_lock(session, stmt.info.get("tables"))


def _lock_tables(session: Session, stmt: Statement) -> StatementResult:
    return StatementResult(warnings=_conditions(locks.lock_tables(session, stmt.text)))


def _unlock_tables(session: Session, stmt: Statement) -> StatementResult:
    session.server.table_locks.unlock(session.id)
    return StatementResult()


def _kill(session: Session, stmt: Statement) -> StatementResult:
    session.server.admin.kill(session, stmt.info["id"], query_only=stmt.info["query_only"])
    return StatementResult()


def _reset_binary_logs(session: Session, stmt: Statement) -> StatementResult:
    session.server.admin.reset_master(stmt.info.get("to"))
    return StatementResult()


def _purge_to(session: Session, stmt: Statement) -> StatementResult:
    session.server.admin.purge(to=stmt.info["to"])
    return StatementResult()


def _purge_before(session: Session, stmt: Statement) -> StatementResult:
    session.server.admin.purge(before=_parse_datetime(stmt.info["before"]))
    return StatementResult()


#: admin command (classify.py) -> its handler, registered in the statement specs by
#: :mod:`gtidkit.engine.statements.dispatch`: FLUSH [BINARY] LOGS, FLUSH TABLES WITH READ LOCK, LOCK / UNLOCK TABLES,
#: KILL, RESET MASTER / RESET BINARY LOGS AND GTIDS, PURGE BINARY LOGS (XA and the replica statements without a
#: replication layer are refusals: their rows in :mod:`gtidkit.engine.statements.specs`)
HANDLERS: dict[str, Callable[[Session, Statement], StatementResult]] = {
    "flush_logs": _rotate,
    "flush_tables_with_read_lock": _flush_tables_with_read_lock,
    "lock_tables": _lock_tables,
    "unlock_tables": _unlock_tables,
    "kill": _kill,
    "reset_binary_logs": _reset_binary_logs,
    "purge_binary_logs_to": _purge_to,
    "purge_binary_logs_before": _purge_before,
}


def _parse_datetime(text: str) -> float:
    t = text.strip().rstrip(";").strip()
    if t.upper() in ("NOW()", "CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP()"):
        return dt.datetime.now().timestamp()
    if t[:1] in "'\"":
        t = t[1:-1]
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(t, fmt).timestamp()
        except ValueError:
            continue
    raise mysql_error(1210, "PURGE BINARY LOGS BEFORE")
