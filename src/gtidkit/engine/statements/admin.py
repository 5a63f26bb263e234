"""Administrative statements and GTID/binlog SHOW statements; the GTID SQL functions.

Sources: MySQL ``sql/rpl_source.cc`` / ``sql/binlog.cc`` (SHOW BINARY LOGS, SHOW BINARY LOG STATUS, SHOW BINLOG
EVENTS, PURGE BINARY LOGS, RESET MASTER / RESET BINARY LOGS AND GTIDS, FLUSH LOGS), ``sql/item_gtid_func.cc``
(GTID_SUBSET, GTID_SUBTRACT, WAIT_FOR_EXECUTED_GTID_SET), ``sql/log_event.cc`` (``*::pack_info``: the Info column), formats.md §5.4–5.5, §8.1 and §8.4.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gtidkit.binlog.constants import EVENT_TYPE_NAMES
from gtidkit.binlog.file import read_events, read_previous_gtids
from gtidkit.binlog.text import event_info
from gtidkit.engine.gtid import table as gtid_table
from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.sql.metadata import result_set
from gtidkit.engine.sql.unsupported import statement_error
from gtidkit.engine.statements import locks, variables
from gtidkit.engine.statements.status import show_status
from gtidkit.errors import BinlogDecodeError
from gtidkit.gtid import GtidSet
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.server import Server
    from gtidkit.engine.session import Session


_SHOW_BINARY_LOGS = re.compile(r"^\s*show\s+(?:binary|master)\s+logs\s*;?\s*$", re.IGNORECASE)
_SHOW_STATUS = re.compile(r"^\s*show\s+(?:master\s+status|binary\s+log\s+status)\s*;?\s*$", re.IGNORECASE)
_SHOW_EVENTS = re.compile(
    r"^\s*show\s+binlog\s+events"
    r"(?:\s+in\s+(?P<file>'[^']*'|\"[^\"]*\"))?"
    r"(?:\s+from\s+(?P<pos>\d+))?"
    r"(?:\s+limit\s+(?P<a>\d+)(?:\s*,\s*(?P<b>\d+))?)?\s*;?\s*$",
    re.IGNORECASE,
)
_SHOW_VARS = re.compile(
    r"^\s*show\s+(?:(?P<scope>global|session|local)\s+)?variables"
    r"(?:\s+like\s+(?P<like>'[^']*'|\"[^\"]*\")|\s+where\s+(?P<where>.*))?\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_FLUSH_LOGS = re.compile(
    r"^\s*flush\s+(?:(?:local|no_write_to_binlog)\s+)?(?:(?:binary|engine|error|general|relay|slow)\s+)?logs\b",
    re.IGNORECASE,
)
_FLUSH_ANY = re.compile(r"^\s*flush\b", re.IGNORECASE)
_KILL = re.compile(r"^\s*kill\s+(?:(?P<what>connection|query)\s+)?(?P<id>\d+)\s*;?\s*$", re.IGNORECASE)
_LOCK_TABLES = re.compile(r"^\s*lock\s+tables?\b", re.IGNORECASE)
_UNLOCK_TABLES = re.compile(r"^\s*unlock\s+tables?\s*;?\s*$", re.IGNORECASE)
_FTWRL = re.compile(
    r"^\s*flush\s+(?:(?:local|no_write_to_binlog)\s+)?tables?"
    r"(?P<tables>\s+(?!with\b).+?)?\s+with\s+read\s+lock\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)
_RESET = re.compile(
    r"^\s*reset\s+(?:master|binary\s+logs\s+and\s+gtids)(?:\s+to\s+(?P<n>\d+))?\s*;?\s*$", re.IGNORECASE
)
_PURGE = re.compile(
    r"^\s*purge\s+(?:binary|master)\s+logs\s+(?:to\s+(?P<to>'[^']*'|\"[^\"]*\")|before\s+(?P<before>.+?))\s*;?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def _conditions(warnings: list[tuple[str, int, str]]) -> tuple[Condition, ...]:
    return tuple(Condition(*w) for w in warnings)


def limit_reached(rows: int, offset: int, limit: int | None) -> bool:
    """True once ``rows`` rows cover ``LIMIT offset, limit`` (the listing can stop reading)."""
    return limit is not None and rows >= offset + limit


def _unq(s: str) -> str:
    return s[1:-1]


class Admin:
    """Statement handlers bound to one server."""

    def __init__(self, server: Server) -> None:
        self.server = server

    # ------------------------------------------------------------------ SHOW
    def show(self, session: Session, text: str) -> StatementResult | None:
        """Handle a SHOW statement about binlogs, GTIDs or variables; None when the SQL layer should run it."""
        if _SHOW_BINARY_LOGS.match(text):
            return self.show_binary_logs()
        if _SHOW_STATUS.match(text):
            self._check_status_syntax(text)
            return self.show_binary_log_status()
        m = _SHOW_EVENTS.match(text)
        if m:
            limit = None
            offset = 0
            if m.group("a") is not None:
                if m.group("b") is not None:
                    offset, limit = int(m.group("a")), int(m.group("b"))
                else:
                    limit = int(m.group("a"))
            return self.show_binlog_events(
                _unq(m.group("file")) if m.group("file") else None,
                int(m.group("pos")) if m.group("pos") else None,
                offset,
                limit,
            )
        status = show_status(session, text)
        if status is not None:
            return status
        from gtidkit.engine.accounts.show import show_account

        account = show_account(text, self.server.accounts, session.executor.current_user)
        if account is not None:
            return account
        m = _SHOW_VARS.match(text)
        if m:
            return self.show_variables(
                session,
                m.group("scope"),
                m.group("like"),
                m.group("where"),
            )
        return None

    def show_binary_logs(self) -> StatementResult:
        """SHOW BINARY LOGS: Log_name, File_size, Encrypted. Raises 1381 when the binlog is off."""
        blog = self.server.binlog
        if blog is None:
            raise mysql_error(1381)
        return result_set(
            ["Log_name", "File_size", "Encrypted"], [(n, size, "No") for n, size in blog.sizes()]
        )

    def _check_status_syntax(self, text: str) -> None:
        """SHOW BINARY LOG STATUS exists from 8.2.0, SHOW MASTER STATUS until 8.3 (removed in 8.4.0): the other
        one is a syntax error in the release the server presents (engine/server_version.py).

        Raises:
            MySQLError: 1064 near ``LOG STATUS`` (before 8.2: the grammar wants ``SHOW BINARY LOGS``) or near
                ``MASTER STATUS`` (8.4).
        """
        from gtidkit.engine.sql.unsupported import parse_error_at

        release = self.server.release
        words = text.split()
        if words[1].upper() == "MASTER" and not release.show_master_status:
            raise parse_error_at(text, text.upper().index("MASTER"))
        if words[1].upper() == "BINARY" and not release.show_binary_log_status:
            raise parse_error_at(text, text.upper().index("LOG", text.upper().index("BINARY") + 6))

    def show_binary_log_status(self) -> StatementResult:
        """SHOW BINARY LOG STATUS / SHOW MASTER STATUS (no row when the binlog is off)."""
        cols = ["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set"]
        blog = self.server.binlog
        if blog is None:
            return result_set(cols, [])
        with blog.lock:
            pos = blog.position
            executed = self.server.gtid_state.executed().to_text()
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

    def show_variables(
        self, session: Session, scope: str | None, like: str | None, where: str | None
    ) -> StatementResult:
        """SHOW [GLOBAL|SESSION] VARIABLES [LIKE 'pattern' | WHERE expr]: Variable_name, Value (sorted by name).

        ``like`` is the quoted pattern literal as written. See :func:`gtidkit.engine.statements.variables.show_variables`.
        """
        return variables.show_variables(session, scope, like, where)

    # ------------------------------------------------------------------ FLUSH / RESET / PURGE
    def commits_implicitly(self, session: Session, text: str) -> bool:
        """Whether this administrative statement commits the open transaction before it runs.

        RM8 "Statements That Cause an Implicit Commit": LOCK TABLES, FLUSH, RESET, PURGE do; UNLOCK TABLES only when
        the session holds LOCK TABLES locks (not after FLUSH TABLES WITH READ LOCK).
        """
        if _UNLOCK_TABLES.match(text):
            return locks.unlock_tables_commits(session)
        return True

    def run(self, session: Session, text: str) -> StatementResult:
        """Run FLUSH, RESET MASTER / RESET BINARY LOGS AND GTIDS, PURGE BINARY LOGS.

        Raises:
            MySQLError: 1064 for an admin statement we do not know, 1373 for PURGE TO an unknown file.
        """
        if _FLUSH_LOGS.match(text):
            self.server.rotate()
            return StatementResult()
        if _LOCK_TABLES.match(text):
            return StatementResult(warnings=_conditions(locks.lock_tables(session, text)))
        m = _KILL.match(text)
        if m:
            self.kill(session, int(m.group("id")), query_only=(m.group("what") or "").upper() == "QUERY")
            return StatementResult()
        if _UNLOCK_TABLES.match(text):
            self.server.table_locks.unlock(session.id)
            return StatementResult()
        m = _FTWRL.match(text)
        if m:
            if m.group("tables"):  # FLUSH TABLES t1, t2 WITH READ LOCK: READ locks on those tables
                names = ", ".join(f"{t.strip()} READ" for t in m.group("tables").split(","))
                locks.lock_tables(session, f"LOCK TABLES {names}")
            else:
                locks.flush_tables_with_read_lock(session)
            return StatementResult()
        m = _RESET.match(text)
        if m:
            self.reset_master(int(m.group("n")) if m.group("n") else None)
            return StatementResult()
        m = _PURGE.match(text)
        if m:
            if m.group("to"):
                self.purge(to=_unq(m.group("to")))
            else:
                self.purge(before=_parse_datetime(m.group("before")))
            return StatementResult()
        if _FLUSH_ANY.match(text):
            if re.search(r"\bPRIVILEGES\s*;?\s*$", text, re.IGNORECASE):
                # acl_reload: the grant tables as they are now (after direct DML on mysql.user, say)
                self.server.accounts.load(session.conn)
            return StatementResult()  # FLUSH TABLES / STATUS: nothing to do for this engine
        if re.match(r"^\s*(reset\s+(replica|slave)|start\s|stop\s|change\s)", text, re.IGNORECASE):
            raise mysql_error(1235, text.strip()[:40])
        raise statement_error(text)

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
        """RESET MASTER [TO n]: empty the table, delete every binlog, start file n (default 1), clear GTID state."""
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
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
            server.gtid_state.load(GtidSet(), GtidSet())
            server.binlog_file_gtids = GtidSet()
            if server.binlog is not None:
                server.binlog.delete_all()
                server.binlog.open_new(GtidSet(), number=number or 1)
                server.save_binlog_gtids_locked(GtidSet(), record_start=True)
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


def _real(value: Any) -> float:
    """A SQL argument as MySQL's ``val_real()``: numbers as they are, strings by their numeric prefix (0 if none)."""
    if isinstance(value, (bytes, bytearray)):
        value = value.decode(errors="replace")
    if isinstance(value, str):
        m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", value)
        return float(m.group(0)) if m else 0.0
    return float(value)


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


# ---------------------------------------------------------------------- SQL functions
def gtid_functions(server: Server, session: Session) -> dict[str, Callable[..., Any]]:
    """GTID_SUBSET, GTID_SUBTRACT, WAIT_FOR_EXECUTED_GTID_SET for ``session`` (formats.md §8.1).

    Each takes already-evaluated SQL arguments (str, numbers or None) and returns the SQL value.
    """

    def _set(arg: Any) -> GtidSet:
        return GtidSet.parse(arg.decode() if isinstance(arg, (bytes, bytearray)) else str(arg))

    def gtid_subset(a: Any, b: Any) -> int | None:
        if a is None or b is None:
            return None
        return 1 if _set(a) <= _set(b) else 0

    def gtid_subtract(a: Any, b: Any) -> str | None:
        if a is None or b is None:
            return None
        return (_set(a) - _set(b)).to_text()

    def wait_for_executed_gtid_set(*args: Any) -> int | None:
        # Item_wait_for_executed_gtid_set::val_int's order: NULL set (1772 'NULL'), NULL or negative timeout
        # (1210), replica applier (NULL), GTID_MODE=OFF (3062), malformed set (1772), owned GTID (3173), wait;
        # mysql-test rpl_gtid/rpl_wait_for_executed_gtid_set.result section 1 checks each.
        if not 1 <= len(args) <= 2:
            raise mysql_error(1582, "WAIT_FOR_EXECUTED_GTID_SET")
        gtids = args[0]
        if gtids is None:
            raise mysql_error(1772, "NULL")
        t = 0.0
        if len(args) > 1:
            timeout = args[1]
            if timeout is None or _real(timeout) < 0:
                raise mysql_error(1210, "WAIT_FOR_EXECUTED_GTID_SET.")
            t = _real(timeout)
        if session.applier is not None:
            return None  # "could cause the slave to hang/deadlock": NULL in a replication thread
        if server.gtid_mode == "OFF":
            raise mysql_error(3062, "use WAIT_FOR_EXECUTED_GTID_SET")
        wanted = _set(gtids)
        if session.owned_gtid is not None and session.owned_gtid in wanted:
            raise mysql_error(3173, session.owned_gtid)
        session.stage = "Waiting for GTID to be committed"  # Gtid_state::wait_for_gtid_set's stage
        try:
            reached = server.gtid_state.wait_for_executed(
                wanted, None if t == 0 else t, interrupted=session.executor.interrupt.is_set
            )
        finally:
            session.stage = ""
        if reached is None:  # KILL QUERY (Gtid_state::wait_for_gtid_set sees thd->killed)
            raise mysql_error(1317)
        return 0 if reached else 1

    return {
        "GTID_SUBSET": gtid_subset,
        "GTID_SUBTRACT": gtid_subtract,
        "WAIT_FOR_EXECUTED_GTID_SET": wait_for_executed_gtid_set,
    }
