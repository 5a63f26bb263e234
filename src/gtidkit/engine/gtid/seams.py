"""What the GTID core needs of a session and of the server: small Protocols instead of the whole context objects.

:func:`gtidkit.engine.gtid.commit.commit` is annotated with :class:`CommitServer` and :class:`CommittingSession`, not
with :class:`~gtidkit.engine.server.Server` / :class:`~gtidkit.engine.session.Session`, so it can be read (and type
checked) knowing only the members listed here; the two classes satisfy them structurally (mypy checks it at every
call). A member the core starts to use is added here first. The hooks of the GTID system variables (:mod:`gtidkit.engine.gtid.variables`) take
:class:`GtidVariableContext` / :class:`GtidVariableSession` the same way. The Protocols of the event builder and of
``binlog_error_action`` they extend live beside those modules
(:class:`gtidkit.engine.binlog.transaction_events.LoggingServer` / ``LoggingSession``,
:class:`gtidkit.engine.binlog.error_action.BinlogErrorServer`).

Nothing here imports the session, the server or the statement layer, even for annotations: the GTID core stays out of
the engine's type-level import loop (``tests/engine/test_gtid_seams.py`` measures it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from gtidkit.engine.binlog.error_action import BinlogErrorServer, ServerGlobals
from gtidkit.engine.binlog.transaction_events import LoggingServer, LoggingSession

if TYPE_CHECKING:
    from gtidkit.engine.binlog.group_sync import GroupSync
    from gtidkit.engine.binlog.log import BinlogLog
    from gtidkit.engine.gtid.gtid_next import GtidNext
    from gtidkit.engine.gtid.state import GtidState
    from gtidkit.engine.gtid.table import GtidTable
    from gtidkit.engine.server_version import Release
    from gtidkit.engine.storage import Connection, Storage
    from gtidkit.errors import MySQLError
    from gtidkit.gtid import GtidSet

__all__ = [
    "CommitOrigin",
    "CommitServer",
    "CommittingSession",
    "GtidVariableContext",
    "GtidVariableServer",
    "GtidVariableSession",
    "SettableGlobals",
]


class CommitOrigin(Protocol):
    """What the replica applier's commit keeps from the source (:class:`gtidkit.engine.apply.CommitOrigin`)."""

    @property
    def original_commit_timestamp(self) -> int:
        """µs since the epoch; 0 when the source wrote none."""
        ...

    @property
    def original_server_version(self) -> int:
        """The source's version number (999999 when unknown)."""
        ...

    @property
    def server_id(self) -> int:
        """The source event's server id, kept by every re-logged event."""
        ...

    @property
    def timestamp(self) -> int:
        """The re-logged events' header timestamp (s)."""
        ...


class CommittingSession(LoggingSession, Protocol):
    """The session whose transaction :func:`gtidkit.engine.gtid.commit.commit` commits: what the event builder
    reads (:class:`~gtidkit.engine.binlog.transaction_events.LoggingSession`) plus its GTID_NEXT state, storage
    connection, applier origin and the two ends of its transaction."""

    @property
    def gtid(self) -> GtidNext:
        """gtid_next and what the session owns (decides the transaction's GTID)."""
        ...

    @property
    def applier(self) -> CommitOrigin | None:
        """The origin of the transaction the replica applier is committing; None for a client session."""
        ...

    @property
    def conn(self) -> Connection:
        """The storage connection holding the open transaction."""
        ...

    def before_storage_commit(self, db: Any) -> None:
        """Called right before the SQLite COMMIT (the applier stores its relay-log position through ``db``)."""
        ...

    def release_after_commit(self) -> None:
        """The storage transaction committed: forget its changes, drop the engine write lock."""
        ...

    def release_after_rollback(self) -> None:
        """Roll the storage transaction back, forget its changes, drop the engine write lock."""
        ...


class CommitServer(LoggingServer, BinlogErrorServer, Protocol):
    """The server as the commit sequence uses it (:class:`gtidkit.engine.server.Server` is one): the binary log
    and its GTIDs, the GTID state and table, the compressor, the flush observers and the release's rules."""

    #: set when the server must refuse writes (a binlog written without its engine commit, GNO exhausted)
    aborted: MySQLError | None

    @property
    def binlog(self) -> BinlogLog | None:
        """The binary log, None when it is off."""
        ...

    @property
    def binlog_file_gtids(self) -> GtidSet:
        """The GTIDs written into the active binlog file."""
        ...

    @property
    def gtid_state(self) -> GtidState:
        """gtid_executed / gtid_purged / owned GTIDs."""
        ...

    @property
    def gtid_table(self) -> GtidTable:
        """mysql.gtid_executed."""
        ...

    def transactions_saved(self, n: int = 1) -> None:
        """Count ``n`` transactions saved to mysql.gtid_executed (the compressor's period, server-wide)."""
        ...

    @property
    def flush_observers(self) -> Sequence[Callable[[str, int], None]]:
        """Called with (file, end position) after each transaction flushed to the binary log."""
        ...

    @property
    def log_replica_updates(self) -> bool:
        """``@@GLOBAL.log_replica_updates``."""
        ...

    @property
    def release(self) -> Release:
        """The MySQL release presented (``gtid_table_on_commit``)."""
        ...

    def now_us(self) -> int:
        """Microseconds since the epoch (immediate_commit_timestamp)."""
        ...

    @property
    def group_sync(self) -> GroupSync:
        """The sync stage's leader/follower state (one WAL fsync per group of commits)."""
        ...

    @property
    def commit_log_followed(self) -> bool:
        """Other worker processes follow the commit log (a GTID committed without the binary log gets a row)."""
        ...

    def publish_commit(self) -> None:
        """The write lock's holder committed: tell the other worker processes before the GTID is released."""
        ...

    def commit_log_row_committed(
        self, seq: int, kind: str, gtid: Any, file: str, end_pos: int, head: bytes
    ) -> None:
        """The write lock's holder committed commit-log row ``seq`` (kind, GTID, binlog end, payload head)."""
        ...

    def acquire_write_lock(self, session: Any, timeout: float | None = None) -> None:
        """Take the engine write lock (``session`` None: the server itself).

        Raises:
            MySQLError: 1205 after ``timeout`` seconds.
        """
        ...

    def release_write_lock(self, session: Any) -> None:
        """Release the engine write lock."""
        ...

    def rotate_locked(self, *, report: bool = True) -> None:
        """Rotate the binary log (max_binlog_size reached), the write lock held."""
        ...


# ---------------------------------------------------------------------------------------------------- variables
class SettableGlobals(ServerGlobals, Protocol):
    """The global system variables, also written (``SET GLOBAL gtid_mode``)."""

    def set(self, name: str, value: Any) -> None:
        """Store the global value of ``name`` (already checked)."""
        ...


class GtidVariableServer(Protocol):
    """The server as the GTID variables' hooks use it (:class:`gtidkit.engine.server.Server` is one)."""

    @property
    def globals(self) -> SettableGlobals:
        """The global system variables (gtid_mode, enforce_gtid_consistency)."""
        ...

    @property
    def release(self) -> Release:
        """The MySQL release presented (``tagged_gtids``: 8.3+)."""
        ...

    @property
    def gtid_state(self) -> GtidState:
        """gtid_executed / gtid_purged / owned GTIDs."""
        ...

    @property
    def gtid_table(self) -> GtidTable:
        """mysql.gtid_executed."""
        ...

    @property
    def storage(self) -> Storage:
        """The storage (the session's SQLite connection for gtid_purged rows)."""
        ...

    @property
    def gtid_mode_guards(self) -> Sequence[Callable[[str, str], None]]:
        """Called with (old, new) before gtid_mode changes; raise to refuse (the replica's channels)."""
        ...

    def write_lock_owner(self) -> int | None:
        """The id of the session holding the engine write lock, None when free."""
        ...

    def acquire_write_lock(self, session: None, timeout: float | None = None) -> None:
        """Take the engine write lock for the server itself (``session`` None)."""
        ...

    def release_write_lock(self, session: None) -> None:
        """Release what :meth:`acquire_write_lock` took."""
        ...

    def gtid_purged_changed(self) -> None:
        """SET GLOBAL gtid_purged added to gtid_purged (write lock held): the server's other worker processes
        take the new value before their next GNO (engine/shared_config.py; nothing in a one-process server)."""
        ...

    def save_gtids_now(self, gtids: GtidSet, *, lock: bool = False) -> None:
        """Save ``gtids`` into mysql.gtid_executed in a transaction of their own."""
        ...

    def rotate(self) -> None:
        """Rotate the binary log (a gtid_mode change)."""
        ...


class GtidVariableSession(Protocol):
    """The session as the GTID variables' hooks use it (:class:`gtidkit.engine.session.Session` is one)."""

    #: gtid_purged rows saved through the session's open transaction (saved again if it rolls back)
    purged_in_trx: GtidSet

    @property
    def id(self) -> int:
        """CONNECTION_ID() (the owner of a GTID it takes)."""
        ...

    @property
    def gtid(self) -> GtidNext:
        """gtid_next and what the session owns."""
        ...

    @property
    def server(self) -> GtidVariableServer:
        """The session's server."""
        ...

    @property
    def conn(self) -> Connection:
        """The storage connection (its open transaction saves gtid_purged rows)."""
        ...

    def in_transaction(self) -> bool:
        """Inside BEGIN ... COMMIT, or autocommit=0 after a write."""
        ...

    def lock_wait_timeout(self) -> int:
        """``@@SESSION.innodb_lock_wait_timeout`` in seconds (waiting for a GTID another session owns)."""
        ...

    def interrupted(self) -> bool:
        """Whether KILL [QUERY] reached the session (a wait for a GTID another session owns ends with 1317)."""
        ...


class _Named(Protocol):
    @property
    def name(self) -> str:
        """The variable's canonical name."""
        ...


class GtidVariableContext(Protocol):
    """One SET of a GTID variable as its hooks see it (:class:`gtidkit.engine.sysvars.SetContext` is one)."""

    @property
    def session(self) -> GtidVariableSession:
        """The session running the SET."""
        ...

    @property
    def var(self) -> _Named:
        """The variable being set."""
        ...

    @property
    def server(self) -> GtidVariableServer:
        """The session's server."""
        ...

    def wrong_value(self, shown: str) -> MySQLError:
        """ER_WRONG_VALUE_FOR_VAR 1231 for this variable."""
        ...

    def wrong_type(self) -> MySQLError:
        """ER_WRONG_TYPE_FOR_VAR 1232 for this variable."""
        ...
