"""The embedded server: options, datadir, sessions, the commit path (the WL#6559 write matrix), shutdown.

Sources: MySQL ``sql/mysqld.cc`` (startup: server_uuid in ``auto.cnf``, ``init_server_components``),
``sql/binlog.cc`` (``MYSQL_BIN_LOG::ordered_commit``: flush → sync → commit; ``new_file_impl`` saves the closed
file's GTIDs to the table), ``sql/handler.cc`` (``commit_owned_gtids``: binlog off, or replica applier without
log_replica_updates → the GTID row is inserted into mysql.gtid_executed inside the transaction),
``sql/rpl_gtid_persist.cc``, WL#6559, WL#7592, ../shared/research/formats.md §5 and §8.

The write matrix (what goes where when a transaction commits) is :mod:`gtidkit.engine.gtid.commit`: a pure
``decide(CommitContext)`` and the commit sequence; log_replica_updates concerns the replica applier session only
(``server.applier_session()``), a client session's explicit GTID is binlogged like any other.

Durability with the binary log on (see :mod:`gtidkit.engine.recovery` for the full argument): the engine commits
first. The transaction's binlog bytes are framed and handed to the OS under the write lock, stored in the commit
log (``_gk_commit_log``, :mod:`gtidkit.engine.binlog.commit_log`) inside the same SQLite transaction, and the WAL
fsync after the COMMIT makes them durable; the binlog file is fsynced in batches. After a crash, recovery cuts
binlog bytes no commit-log row accounts for and writes back the rows the files lack.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid as uuidlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typing_extensions import Self

from gtidkit.engine import lock_waits, sysvar_versions, sysvars
from gtidkit.engine.binlog import commit_log
from gtidkit.engine.binlog.error_action import BinlogStageError, binlog_failed
from gtidkit.engine.binlog.group_sync import GroupSync
from gtidkit.engine.binlog.log import BASENAME, BinlogLog
from gtidkit.engine.follow import Follower
from gtidkit.engine.gtid import table as gtid_table
from gtidkit.engine.gtid.compressor import Compressor
from gtidkit.engine.gtid.cross_process import SharedGtids
from gtidkit.engine.gtid.state import GtidState
from gtidkit.engine.server_version import Release, resolve
from gtidkit.engine.session import Session, now_us
from gtidkit.engine.shared import waiters, workers
from gtidkit.engine.shared.binlog_end import BinlogEnd
from gtidkit.engine.shared.control import OP_COMPRESS, OP_FLUSH_STATUS, OP_THREADS, ControlMessage
from gtidkit.engine.shared.file_waits import FileLock, SharedFileWaits
from gtidkit.engine.shared.row_locks import RowLocks, private_page
from gtidkit.engine.shared.service import PEER_TIMEOUT, ControlService
from gtidkit.engine.shared.shm import SharedPage
from gtidkit.engine.shared.wal_sync import SharedWalSync
from gtidkit.engine.shared.write_lock import SharedWriteLock
from gtidkit.engine.shared_config import SharedConfig
from gtidkit.engine.statements import com_counters, innodb_status, prepared
from gtidkit.engine.statements.specs import SPECS
from gtidkit.engine.storage import Storage
from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.mysql_errors import AUTO_CNF_DAMAGED, mysql_error, unknown_error
from gtidkit.version import MYSQL_VERSION
from gtidkit.version import SERVER_VERSION as GK_SERVER_VERSION

if TYPE_CHECKING:
    from gtidkit.engine.results import StatementResult
    from gtidkit.engine.statements.classify import Statement

log = logging.getLogger(__name__)

GTID_TABLE = ("mysql", "gtid_executed")
#: Internal system table of datadirs written before the commit log: the binlog end position the engine had applied
#: (one row, id = 1); recovery re-applies past it once, then the commit log (engine/binlog/commit_log.py) takes over.
POSITION_TABLE = "_gk_binlog_applied"
SERVER_VERSION = MYSQL_VERSION  # gtidkit.version: the one server-version constant

CommitObserver = Callable[[Session, "Gtid | None"], None]
FlushObserver = Callable[[str, int], None]
#: ``fn(session, stmt) -> StatementResult``: a SHOW provider a higher layer registers (:meth:`Server.provide_show`).
StatementHook = Callable[[Session, "Statement"], "StatementResult"]

#: seconds a worker open waits for the write lock to continue the binary log (busy: its first write does it)
OPEN_LOCK_WAIT = 1.0
#: Server.open options → mysqld variable names (aliases accepted as mysqld accepts them).
_OPTION_ALIASES = {"log_slave_updates": "log_replica_updates", "skip_log_bin": None}


def _read_or_create_uuid(datadir: Path) -> uuidlib.UUID:
    """server_uuid from ``auto.cnf`` (``[auto]`` / ``server-uuid=...``), generated once like mysqld does.

    Raises:
        MySQLError: 1105 :data:`~gtidkit.mysql_errors.AUTO_CNF_DAMAGED` when the file has no valid server-uuid.
    """
    path = datadir / "auto.cnf"
    if path.exists():
        for line in path.read_text(errors="replace").splitlines():
            if line.strip().lower().startswith("server-uuid"):
                text = line.split("=", 1)[1].strip() if "=" in line else ""
                try:
                    return uuidlib.UUID(text)
                except ValueError:
                    raise unknown_error(AUTO_CNF_DAMAGED % (path, f"'{text}' is not a valid UUID")) from None
        raise unknown_error(AUTO_CNF_DAMAGED % (path, "it has no server-uuid line"))
    value = uuidlib.uuid1()
    tmp = path.with_suffix(".tmp")
    tmp.write_text(f"[auto]\nserver-uuid={value}\n")
    tmp.replace(path)
    return value


def _binlog_paths(datadir: Path, opts: dict[str, Any]) -> dict[str, str | None]:
    """``@@log_bin_basename`` and ``@@log_bin_index`` from the ``log_bin_basename`` (``--log-bin=NAME``) and
    ``log_bin_index`` options: absolute paths, relative names taken in the datadir, an extension of the base name
    dropped (RM8 "Binary Logging Options and Variables": ``--log-bin=base_name.extension`` ignores the
    extension); both NULL when the binary log is off, as in mysqld."""
    if not opts["log_bin"]:
        return {"log_bin_basename": None, "log_bin_index": None}
    name = str(opts.get("log_bin_basename") or BASENAME)
    base = (datadir / name).absolute()
    if base.suffix:
        base = base.with_suffix("")
    index = opts.get("log_bin_index")
    index_path = (datadir / str(index)).absolute() if index else base.with_name(base.name + ".index")
    return {"log_bin_basename": str(base), "log_bin_index": str(index_path)}


class Server:
    """An embedded MySQL-style server over one datadir. Use :meth:`open`.

    Attributes:
        datadir: the data directory.
        server_uuid: this server's UUID (``auto.cnf``).
        globals: global system variables (:class:`~gtidkit.engine.sysvars.GlobalVariables`).
        gtid_state: executed / purged / owned GTIDs.
        binlog: the binary log manager, or None when ``log_bin`` is off.
        storage: the SQLite storage.
        compressor: the gtid_executed compression thread.
    """

    def __init__(self, datadir: Path, options: dict[str, Any]) -> None:
        self.datadir = datadir
        self.options = options
        # first: the storage takes the datadir's lock, so nothing (auto.cnf included) is touched while another
        # process runs on it (engine/datadir_lock.py)
        # a new datadir's release decides the layout of mysql.gtid_executed (gtid_tag is 8.3+)
        release: Release = options.get("server_version") or resolve(None)
        self.storage = Storage.open(
            datadir,
            synchronous=options.get("synchronous", "FULL"),
            gtid_tag_column=release.gtid_tag_column,
            lock_fd=options.get("datadir_lock_fd"),
            take_lock=options.get("role") != "worker",
        )
        try:
            self._init_state(datadir, options)
        except BaseException:
            self.storage.close()
            raise

    def _init_state(self, datadir: Path, options: dict[str, Any]) -> None:
        self.server_uuid = _read_or_create_uuid(datadir)
        #: start-up time (``time.time()``), for the Uptime status variable (statements/status.py)
        self.started_at = time.time()
        overrides = {
            k: v
            for k, v in options.items()
            if k not in ("synchronous", "server_version", "datadir_lock_fd", "role")
        }
        overrides["server_uuid"] = str(self.server_uuid)
        overrides["datadir"] = str(datadir) + "/"
        #: the MySQL release this server presents as (``--server-version``) and what it decides (server_version.py)
        self.release: Release = options.get("server_version") or resolve(None)
        self.globals = sysvars.GlobalVariables.with_defaults(overrides, self.release)
        if self.release.version != MYSQL_VERSION:  # VERSION(), @@version, @@innodb_version follow the release
            self.globals.values["version"] = GK_SERVER_VERSION.replace(MYSQL_VERSION, self.release.version)
            self.globals.values["innodb_version"] = self.release.version
        self.storage.file_per_schema = bool(self.globals.get("gtidkit_file_per_schema"))
        #: ``gtidkit_row_locks``: the row/table lock table (engine/shared/row_locks.py; a private page in one
        #: process, the shared page's once attached), else None
        self.row_locks: RowLocks | None = (
            RowLocks(private_page(), 0) if self.globals.get("gtidkit_row_locks") else None
        )
        self.gtid_state = GtidState(self.server_uuid)
        gtid_def = self.storage.catalog.get_table(*GTID_TABLE)
        #: mysql.gtid_executed: its SQLite name and whether it has gtid_tag (the layout the datadir was created with)
        self.gtid_table = gtid_table.GtidTable(
            self.storage.physical_name(*GTID_TABLE),
            tagged=gtid_def is not None and any(c.name == "gtid_tag" for c in gtid_def.columns),
        )
        self._write_lock = threading.Lock()
        #: ``"primary"`` (recovery, singletons) or ``"worker"`` (a secondary open of a datadir another process of
        #: the same server recovered: :meth:`open`'s ``role``)
        self.role: str = options.get("role", "primary")
        #: whether this process runs the server's singletons: the gtid_executed compressor, the replication
        #: threads (replication/replica.py ``install``) and the final shutdown (the binary log's Stop event). The
        #: primary open does; a worker open does not, unless it takes them over (:meth:`take_over_singletons`: the
        #: replacement of a multi-worker server's worker 0, docs/design/multi_worker.md §5.6)
        self.singletons = self.role != "worker"
        #: the shared page of a server of several processes (:mod:`gtidkit.engine.shared`), else None
        self.shared_page: SharedPage | None = None
        self.shared_binlog: BinlogEnd | None = None
        self._shared_lock: SharedWriteLock | None = None
        self._wal_sync: SharedWalSync | None = None
        #: what the other processes committed (engine/follow.py), with a shared page only
        self.follower: Follower | None = None
        #: SET GLOBAL, accounts and gtid_purged across the processes (engine/shared_config.py), with a shared page
        self.shared_config: SharedConfig | None = None
        #: the sync stage's leader/follower state (engine/binlog/group_sync.py)
        self.group_sync = GroupSync()
        self._write_owner: int | None = None
        #: the write lock's owner and waiters, for INNODB_TRX / data_lock_waits (engine/lock_waits.py)
        self.lock_waits = lock_waits.WriteLockWaits()
        self._sessions: dict[int, Session] = {}
        self._sessions_lock = threading.Lock()
        self._next_session_id = 10
        #: where connection ids come from when not from ``_next_session_id``: a supervised worker's engine asks
        #: its supervisor (cli/supervisor.py), which numbers every connection of the server in one sequence
        self.id_source: Callable[[], int] | None = None
        #: ``@@gtidkit_worker_id``: the worker process this engine serves in (0 when the server is one process)
        self.worker_id = 0
        # the threads of this process that count saved transactions in its word of the shared page
        self._saved_lock = threading.Lock()
        self._commit_observers: list[CommitObserver] = []
        #: ``fn(file, position)`` callbacks run after each binlog flush (commit.py); register via add_binlog_flush_observer.
        self.flush_observers: list[FlushObserver] = []
        #: This server's statement specs (:mod:`gtidkit.engine.statements.specs`): the engine's rows, into which the
        #: layers above register the statements they answer (``statements.register("replica_thread", fn)``,
        #: ``fn(session, stmt) -> StatementResult``); a statement nobody answers keeps its refusal (1235).
        self.statements = SPECS.child()
        #: The providers of the SHOWs a higher layer owns (SHOW PROCESSLIST, SHOW REPLICA STATUS ...), by SHOW
        #: command: registered with :meth:`provide_show`, read by :mod:`gtidkit.engine.statements.show`.
        self.show_providers: dict[str, StatementHook] = {}
        #: SQL functions a higher layer provides (replication: SOURCE_POS_WAIT): ``fn(session) -> {NAME: callable}``
        #: called for each new session, merged into its executor's functions (:meth:`sql_functions`).
        self.function_providers: list[Callable[[Session], dict[str, Callable[..., Any]]]] = []
        self._xid = 0
        self._table_ids: dict[tuple[str, str], int] = {}
        self.binlog: BinlogLog | None = None
        self.binlog_file_gtids = GtidSet()  # GTIDs written into the active binlog file
        self.closed = False
        self.aborted: MySQLError | None = None
        self.crashed = False  # binlog_error_action=ABORT_SERVER stopped it
        #: the server's own storage connection (recovery, RESET MASTER, write_txn); use under the write lock.
        self.internal_conn = self.storage.connect()
        self.internal_conn.execute(
            f'CREATE TABLE IF NOT EXISTS "{POSITION_TABLE}" '
            "(id INTEGER PRIMARY KEY CHECK (id = 1), log_name TEXT NOT NULL, log_pos INTEGER NOT NULL)"
        )
        self.compressor = Compressor(
            self.write_txn,
            self.read_txn,
            self.gtid_table,
            period=lambda: int(self.globals.values["gtid_executed_compression_period"]),
        )
        #: more ``performance_schema.threads`` rows, each provider called per query (the wire server's
        #: connections, the replica's receiver and applier); the GTID table compressor's row comes first
        self.thread_providers: list[Callable[[], list[dict[str, Any]]]] = []
        self.storage.threads_provider = self._thread_rows
        #: this worker's control service (engine/shared/service.py): a registry of ops any layer answers
        #: (``server.control.register(OP_X, fn)``), started by a multi-worker server's worker process only
        #: (cli/worker.py); unstarted, :meth:`ControlService.ask_peers` answers ``{}``
        self.control = ControlService()
        #: SHOW STATUS values a higher layer answers (the wire server's connection counts): each ``fn() -> {name:
        #: value}`` is called per SHOW STATUS and its values replace or join the engine's
        self.status_providers: list[Callable[[], dict[str, str]]] = []
        #: the statement counters (Com_xxx, Questions, Queries) of this process's closed sessions and of what
        #: FLUSH STATUS moved out of the open ones (MySQL's ``global_status_var``): :meth:`statement_counts`
        self.ended_status = com_counters.new_counters()
        self._status_lock = threading.Lock()
        self.control.register(OP_THREADS, self._answer_threads)
        self.control.register(OP_COMPRESS, self._answer_compress)
        self.control.register(OP_FLUSH_STATUS, self._answer_flush_status)
        innodb_status.serve(self)  # SHOW ENGINE INNODB STATUS's sessions and row counts for the other workers
        #: checks run by SET GLOBAL gtid_mode before the change, called ``(old, new)``; each may raise (the
        #: replica role refuses OFF while a channel uses SOURCE_AUTO_POSITION: 3111)
        self.gtid_mode_guards: list[Callable[[str, str], None]] = []
        self.storage.table_providers[("information_schema", "INNODB_TRX")] = lambda: (
            lock_waits.innodb_trx_rows(self.lock_view(), self._isolation_of, self.other_locks())
        )
        self.storage.table_providers[("performance_schema", "data_lock_waits")] = lambda: (
            lock_waits.data_lock_waits_rows(self.lock_view(), self.other_locks())
        )
        from gtidkit.engine.statements.admin import Admin
        from gtidkit.engine.statements.locks import LockManager

        self.admin = Admin(self)
        self.table_locks = LockManager()
        from gtidkit.engine.accounts.store import AccountStore

        #: the accounts (mysql.user / mysql.db / mysql.global_grants), loaded after recovery
        self.accounts = AccountStore()

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, datadir: str | Path, **options: Any) -> Server:
        """Open (creating if needed) ``datadir`` like starting mysqld with ``options``; runs recovery.

        Args:
            datadir: the data directory (auto.cnf, gtidkit.sqlite, binlog.NNNNNN, binlog.index).
            **options: mysqld variable names with underscores: ``gtid_mode`` (default ``"ON"``),
                ``enforce_gtid_consistency`` (default ON when gtid_mode is ON), ``log_bin`` (default False),
                ``log_replica_updates`` / ``log_slave_updates`` (default True), ``gtid_executed_compression_period``
                (default 1000), ``server_id`` (default 1), ``binlog_format`` (``ROW`` or ``STATEMENT``),
                ``max_binlog_size`` (bytes), ``sync_binlog`` (default 1), ``binlog_checksum`` (``CRC32``/``NONE``),
                ``log_bin_basename`` (``--log-bin=NAME``: the files' name or path without extension, default
                ``binlog`` in the datadir), ``log_bin_index`` (``--log-bin-index``); ``synchronous`` (SQLite:
                FULL default); ``datadir_lock_fd`` (the datadir lock's descriptor inherited from a supervisor,
                adopted instead of locking again: :meth:`~gtidkit.engine.datadir_lock.DatadirLock.adopt`);
                ``shared`` (True: build the shared page ``gtidkit.shm`` after recovery and take the write lock
                across processes, so worker-role opens can join; docs/design/multi_worker.md §5.2);
                ``role`` (``"primary"``, the default: today's open; ``"worker"``: a secondary open of a datadir
                that a running ``shared`` primary or supervisor recovered: no recovery, no datadir lock, no
                compressor or binlog expiry, GTID state from mysql.gtid_executed and the commit log, then kept
                current from the commit log (:mod:`gtidkit.engine.follow`)); ``worker_id`` (the worker's
                number, recorded with its lock waits and its liveness slot in the shared page; default 1 for a
                worker); ``singletons`` (with ``role="worker"``: :meth:`take_over_singletons` once open, what the
                replacement of worker 0 does).

        Returns:
            The running server (also a context manager: ``with Server.open(d) as s`` shuts down at exit).

        Raises:
            MySQLError: 1193 for an unknown option, 1231/1232 for a bad value, 3111 for gtid_mode=ON without
                enforce_gtid_consistency=ON; 1015 (:class:`~gtidkit.engine.datadir_lock.DatadirInUseError`) when
                another process (or another open Server in this one) runs on ``datadir``: one server per datadir,
                the lock is released by :meth:`shutdown` or by the process's death.
            SharedPageError: ``role="worker"`` and no running primary built the shared page.
            ValueError: an unknown ``role``.
        """
        role = options.pop("role", "primary")
        shared = bool(options.pop("shared", False))
        take_singletons = bool(options.pop("singletons", False))
        worker_id = int(options.pop("worker_id", 1 if role == "worker" else 0))
        if role not in ("primary", "worker"):
            raise ValueError(f"role must be 'primary' or 'worker', not {role!r}")
        datadir = Path(datadir)
        datadir.mkdir(parents=True, exist_ok=True)
        opts: dict[str, Any] = {
            "gtid_mode": "ON",
            "log_bin": False,
            "log_replica_updates": True,
            "gtid_executed_compression_period": 1000,
            "server_id": 1,
            "binlog_format": "ROW",
            "sync_binlog": 1,
        }
        synchronous = options.pop("synchronous", "FULL")
        lock_fd = options.pop("datadir_lock_fd", None)
        requested = options.pop("server_version", None)
        try:
            release = resolve(requested)
        except ValueError as err:
            raise mysql_error(1231, "server_version", str(requested)) from err
        absent = sysvar_versions.absent_names(release)
        for name, value in options.items():
            if name == "skip_log_bin":
                opts["log_bin"] = not value
                continue
            canon, coerced = sysvars.parse_startup_option(name, value, absent)
            opts[canon] = coerced
        opts = {k: sysvars.parse_startup_option(k, v)[1] for k, v in opts.items()}
        if "enforce_gtid_consistency" not in opts:
            opts["enforce_gtid_consistency"] = "ON" if opts["gtid_mode"] == "ON" else "OFF"
        if opts["gtid_mode"] == "ON" and opts["enforce_gtid_consistency"] != "ON":
            raise mysql_error(3111, "ON", "ENFORCE_GTID_CONSISTENCY is not ON")
        if opts.get("super_read_only"):  # RM8 "super_read_only": enabling it implicitly enables read_only
            opts["read_only"] = True
        opts.update(_binlog_paths(datadir, opts))
        opts["synchronous"] = synchronous
        if lock_fd is not None:
            opts["datadir_lock_fd"] = int(lock_fd)
        opts["server_version"] = release
        opts["role"] = role
        server = cls(datadir, opts)
        if role == "worker":
            try:
                server._open_worker(worker_id)
                if take_singletons:
                    server.take_over_singletons()
            except BaseException:
                server._abort()
                raise
            return server
        try:
            from gtidkit.engine.recovery import start_up

            start_up(server)
            server.accounts.load(server.internal_conn)
            from gtidkit.engine.accounts.bootstrap import import_legacy_file

            import_legacy_file(server)
            server.admin.expire_logs()  # binlog_expire_logs_seconds: files expired while the server was down
            server.compressor.start(launch_pass=server.release.compress_at_start)
            if shared:
                server.worker_id = worker_id
                server.acquire_write_lock(None)
                try:
                    commit_log.ensure_autoincrement(server.storage.sqlite(server.internal_conn))
                finally:
                    server.release_write_lock(None)
                server._attach_shared(SharedPage.create(datadir), fresh=True)
        except BaseException:
            server._abort()
            raise
        return server

    def take_over_singletons(self) -> None:
        """Run the server's singletons in this worker-role process: the replacement of a multi-worker server's
        worker 0 (the process that opened as the primary died; the server did not stop, so there is no start-up
        recovery to run: the other workers kept serving and the binary log continues at the commit log's last row).

        Starts the gtid_executed compressor (its launch pass, as at start-up) and makes :attr:`singletons` true, so
        that the replication threads start (replication/replica.py ``install``: ``start_at_boot``, as a mysqld
        start runs ``init_replica``) and this process's shutdown is the server's last one (the Stop event). Binary
        log expiry needs no owner: every rotation runs it, in whichever process rotates.
        """
        if self.singletons:
            return
        self.singletons = True
        self.compressor.start(launch_pass=True)

    def _attach_shared(self, page: SharedPage, *, fresh: bool) -> tuple[GtidSet, GtidSet]:
        """Take the write lock across processes through ``page``, register this process in the page's liveness
        slot of its worker id (the supervisor clears it when the process dies: :func:`~gtidkit.engine.shared.
        workers.clear_worker`), follow the other processes' commits and their configuration changes (``fresh``:
        the server's first process, which empties the published ones).

        Returns:
            The GTIDs committed in the snapshot the follower starts from, and those of them committed without the
            binary log (:meth:`Follower.start`).
        """
        self.shared_page = page
        if self.role == "worker" and page.built_at:
            self.started_at = page.built_at  # Uptime is the server's, not this worker's (a replacement's too)
        # a replacement leaves nothing of its dead predecessor in the page (GTIDs its sessions owned, waiter
        # slots): the supervisor cleared them when it reaped it; clearing again here is harmless
        workers.clear_worker(page, self.worker_id)
        workers.register_worker(page, self.worker_id)
        self._shared_lock = SharedWriteLock(page, self.datadir, self.worker_id)
        # the sync stage's WAL fsyncs are shared with every process's committers (engine/shared/wal_sync.py)
        self.group_sync.shared = self._wal_sync = SharedWalSync(page, self.datadir)
        # the schema files' wait-for graph spans the workers (1213 across processes; engine/schema_files.py)
        self.storage.file_waits = SharedFileWaits(page, self.worker_id)
        if self.row_locks is not None:  # row locks across the workers (docs/design/multi_worker.md §5.7)
            self.row_locks.page.close()
            self.row_locks = RowLocks(page, self.worker_id)
        self.storage.redo_at_lock = (
            True  # a worker killed inside its COMMIT: the next locker of the file redoes it
        )
        #: the binary log's end, index generation and RESET epoch as every process sees them
        self.shared_binlog = BinlogEnd(page, self.worker_id)
        if self.binlog is not None:
            self.binlog.attach_shared(self.shared_binlog, publish=self.role != "worker")
        follower = self.follower = Follower(self, page)
        started = follower.start()
        # GTID ownership and WAIT_FOR_EXECUTED_GTID_SET across processes; reads of GTID state catch up first
        self.gtid_state.shared = SharedGtids(page, self.worker_id)
        self.gtid_state.refresh = self._refresh_gtid_state
        self.shared_config = SharedConfig(self, page, fresh=fresh)
        return started

    def _refresh_gtid_state(self, force: bool) -> None:
        """``GtidState.refresh``: catch up with the other processes' commits before a read of GTID state; ``force``
        (a WAIT_FOR_EXECUTED_GTID_SET or GTID_NEXT claim re-checking after a wake-up, maybe in the middle of a
        statement) also reads the commit log whatever the counter says and takes a ``SET GLOBAL gtid_purged`` another
        process published (``Gtid_state::wait_for_gtid_set`` returns once gtid_purged covers the set, BUG#19579811)."""
        follower = self.follower
        if follower is not None:
            follower.refresh(force)
        if force:
            self.refresh_shared()

    # ------------------------------------------------------------------ the gtid_executed compressor
    def request_compression(self) -> None:
        """Wake the gtid_executed compressor for a pass (a rotation saved the closed file's GTIDs, or the period's
        transactions were saved): here when this process runs it, else worker 0's (control op OP_COMPRESS; lost
        only while worker 0 is being replaced, whose successor runs a launch pass)."""
        if self.singletons:
            self.compressor.request()
        else:
            self.control.notify(0, OP_COMPRESS)

    def _answer_compress(self, _message: ControlMessage) -> None:
        """OP_COMPRESS from another worker: a pass of the compressor when this process runs it (never forwarded:
        a replacement of worker 0 that has not taken the singletons over yet drops it; its launch pass follows)."""
        if self.singletons:
            self.compressor.request()

    def transactions_saved(self, n: int = 1) -> None:
        """``n`` transactions were saved to mysql.gtid_executed (binary log off; ``n`` 0: the period changed).

        One process: the compressor counts them (``Compressor.transactions_saved``). Several: MySQL's compressor
        wakes every ``gtid_executed_compression_period`` transactions of the whole server
        (``Gtid_state::update_gtids_impl`` counts every THD's commit), so every process adds to its own word of
        the shared page (engine/shared/workers.py ``add_saved``: one writer, no page lock), and the one that
        sees the sum complete a period asks for a pass (:meth:`request_compression`), after checking again under
        the page lock, which moves ``gtid_saved_base`` (two processes completing the same period ask once).
        """
        page = self.shared_page
        if page is None:
            self.compressor.transactions_saved(n)
            return
        if n:
            with self._saved_lock:  # the threads of this process: the word's one writer
                workers.add_saved(page, self.worker_id, n)
        period = int(self.globals.values["gtid_executed_compression_period"])
        if period <= 0:
            return
        base = page.counter("gtid_saved_base")
        if workers.saved_total(page) - base.get() < period:
            return
        with page.locked():  # the base has several writers: every committing process
            total = workers.saved_total(page)
            due = total - base.get() >= period
            if due:
                base.set(total)
        if due:
            self.request_compression()

    @property
    def commit_log_followed(self) -> bool:
        """Other worker processes follow the commit log (a GTID committed without the binary log gets a row)."""
        return self.follower is not None

    def commit_log_row_committed(
        self, seq: int, kind: str, gtid: Any, file: str, end_pos: int, head: bytes
    ) -> None:
        """The write lock's holder committed commit-log row ``seq`` (:meth:`Follower.committed_row`: what this
        hold tells the next holder); nothing without other processes."""
        if self.follower is not None:
            self.follower.committed_row(seq, kind, gtid, file, end_pos, head)

    def publish_commit(self) -> None:
        """The calling thread holds the write lock and committed a transaction (a commit without a sync stage,
        or one that keeps the lock to rotate): move the shared page's ``committed`` counter now, before the
        transaction's GTID is released in the owner table, so that whoever wins that GTID or wakes for it sees the
        counter moved and catches up (engine/gtid/cross_process.py). Nothing without other processes. Only the
        lock's holding thread may call it: the counter has one writer."""
        if (
            self.follower is not None
            and self._shared_lock is not None
            and self._shared_lock.holder is not None
        ):
            self.follower.published()

    def _open_worker(self, worker_id: int) -> None:
        """The secondary open (issue 21 step 4): GTID state as start-up computes it, without recovery.

        ``gtid_executed`` = mysql.gtid_executed ∪ the commit log's GTIDs (every committed GTID is in the table
        since 8.0.17: the GTID persister); ``gtid_purged`` = the first binary log's Previous_gtids (the GTIDs no
        binary log holds; the primary's exact value also counts GTIDs committed without the binary log, which a
        worker learns only through the table). The binary log continues after the commit log's last row at the
        first write-lock acquisition, made here once.
        """
        from gtidkit.binlog.file import read_previous_gtids
        from gtidkit.engine.recovery import make_binlog_log

        self.worker_id = worker_id
        page = SharedPage.attach(self.datadir)
        purged = GtidSet()
        if self.log_bin:
            blog = make_binlog_log(self)
            files = blog.existing_files()
            if files:
                purged = read_previous_gtids(blog.path(files[0])) or GtidSet()
            self.binlog = blog
        # the table and the commit log in one snapshot, with the follower starting after its last row
        executed, lost = self._attach_shared(page, fresh=False)
        purged.union_in_place(lost)
        if not self.log_bin:
            purged = GtidSet() | executed
        self.gtid_state.load(executed, purged)
        self.accounts.load(self.internal_conn)
        assert self.shared_config is not None
        self.shared_config.reload()  # what SET GLOBAL / gtid_purged changed since the server started
        # continue the binary log where the commit log says it ends, if the write lock is free: a worker joining a
        # running server (a replacement) must not wait for a session's open transaction (an idle one would hold
        # the start for innodb_lock_wait_timeout, then fail it); the first write-lock acquisition continues it
        try:
            self.acquire_write_lock(None, timeout=OPEN_LOCK_WAIT)
        except MySQLError as err:
            if err.code != 1205:
                raise
            log.info(
                "worker %d: the write lock is busy; the binary log is continued at its first write", worker_id
            )
        else:
            self.release_write_lock(None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    # ------------------------------------------------------------------ options
    @property
    def log_bin(self) -> bool:
        """``@@GLOBAL.log_bin``: whether the binary log is on (fixed at start-up, as in mysqld)."""
        return bool(self.globals.get("log_bin"))

    @property
    def log_replica_updates(self) -> bool:
        """``@@GLOBAL.log_replica_updates`` (alias log_slave_updates): binlog what the applier executes."""
        return bool(self.globals.values["log_replica_updates"])

    @property
    def gtid_mode(self) -> str:
        """``@@GLOBAL.gtid_mode``: OFF, OFF_PERMISSIVE, ON_PERMISSIVE or ON."""
        return str(self.globals.get("gtid_mode"))

    # ------------------------------------------------------------------ sessions
    def _thread_rows(self) -> list[dict[str, Any]]:
        """performance_schema.threads: this process's rows, then (in a multi-worker server) every other worker's,
        asked over the control service (a worker that does not answer in time is left out)."""
        rows = self._local_thread_rows()
        if not self.control.active:
            return rows
        for worker, answer in sorted(self.control.ask_peers(OP_THREADS, timeout=PEER_TIMEOUT).items()):
            if answer is None:
                log.warning("worker %d did not answer for performance_schema.threads", worker)
                continue
            rows.extend(json.loads(answer))
        rows.sort(key=lambda r: int(r.get("THREAD_ID") or 0))
        return rows

    def _local_thread_rows(self) -> list[dict[str, Any]]:
        """The threads of this process: the GTID table compressor (where it runs: the process with the singletons),
        then every provider's (the wire server's connections, the replica's threads)."""
        rows = [self.compressor.thread_row()] if self.singletons else []
        for provider in list(self.thread_providers):
            rows.extend(provider())
        return rows

    def _answer_threads(self, _message: ControlMessage) -> bytes:
        """OP_THREADS from another worker: this process's performance_schema.threads rows (JSON)."""
        return json.dumps(self._local_thread_rows()).encode()

    def reserve_id(self) -> int:
        """A new connection id (PROCESSLIST_ID) for a server thread that has no session (the replica's receiver),
        from the sessions' sequence (the supervisor's, through :attr:`id_source`, in a supervised worker)."""
        source = self.id_source
        if source is not None:
            return source()
        with self._sessions_lock:
            sid = self._next_session_id
            self._next_session_id += 1
        return sid

    def provide_show(self, command: str, provider: StatementHook) -> None:
        """Register the provider of a SHOW whose data a higher layer owns (the wire server's SHOW PROCESSLIST,
        replication's SHOW REPLICA STATUS / RELAYLOG EVENTS / REPLICAS): one per command, a later registration
        replacing an earlier one (a restarted layer).

        Args:
            command: the SHOW's command (``classify.SHOW_PARSERS``), a row of
                :data:`gtidkit.engine.statements.show.SHOWS` that the engine does not provide itself.
            provider: ``fn(session, stmt) -> StatementResult``.

        Raises:
            ValueError: ``command`` is no SHOW command, or the engine answers it itself.
        """
        from gtidkit.engine.statements.show import SHOWS

        row = SHOWS.get(command)
        if row is None or row.provider is not None:
            raise ValueError(f"{command!r} is not a SHOW a higher layer provides")
        self.show_providers[command] = provider

    def session(self, connection_id: int | None = None) -> Session:
        """A new session (its own SQLite connection). Close it with ``session.close()`` or ``with``.

        Args:
            connection_id: the session's CONNECTION_ID(), when a supervisor allocated it with the connection it
                handed over; None takes the next one (:meth:`reserve_id`).

        Raises:
            MySQLError: 2006 when the server is shut down.
        """
        if self.closed:
            raise mysql_error(2006)
        sid = self.reserve_id() if connection_id is None else connection_id
        s = Session(self, sid)
        with self._sessions_lock:
            self._sessions[sid] = s
        return s

    def applier_session(self, channel: str = "") -> Session:
        """MySQL's replica applier thread context for ``channel`` (:class:`gtidkit.engine.apply.ApplierSession`):
        ``applier.apply(transaction)`` applies one decoded binlog transaction. ``log_replica_updates`` applies to
        this session alone.
        """
        from gtidkit.engine.apply import ApplierSession

        if self.closed:
            raise mysql_error(2006)
        sid = self.reserve_id()
        s = ApplierSession(self, sid, channel)
        with self._sessions_lock:
            self._sessions[sid] = s
        return s

    def forget_session(self, s: Session) -> None:
        """Drop ``s`` from the session table (called by :meth:`Session.close`)."""
        with self._sessions_lock:
            gone = self._sessions.pop(s.id, None)
        if gone is not None:  # its counters stay in the server's (``add_to_status`` at disconnect)
            with self._status_lock:
                com_counters.add_into(self.ended_status, s.status_counts)
        if self.shared_page is not None:
            prepared.publish_prepared(self)  # its statements no longer count (Prepared_stmt_count)
        if self.binlog is not None:
            with self.binlog.lock:
                self.binlog.tracker.forget_session(s.id)

    def statement_counts(self) -> list[int]:
        """This process's statement counters summed (SHOW GLOBAL STATUS Com_xxx, Questions, Queries): its closed
        sessions' and its open ones' (``calc_sum_of_all_status``; a multi-worker server adds the other workers')."""
        with self._status_lock:
            total = list(self.ended_status)
        for session in self.sessions():
            com_counters.add_into(total, session.status_counts)
        return total

    def flush_status(self) -> None:
        """FLUSH STATUS: every open session's statement counters move into the server's (the global sums do not
        change) and start again from 0 (``refresh_status``: ``add_to_status(&global_status_var, &thd->status_var,
        true)`` for every THD), in this process and, with several workers, in the others (``OP_FLUSH_STATUS``,
        answered before the statement ends)."""
        self._flush_local_status()
        for worker, answer in self.control.ask_peers(OP_FLUSH_STATUS, timeout=PEER_TIMEOUT).items():
            if answer is None:
                log.warning("worker %d did not answer FLUSH STATUS within %s s", worker, PEER_TIMEOUT)

    def _answer_flush_status(self, message: ControlMessage) -> bytes:
        """OP_FLUSH_STATUS from another worker's FLUSH STATUS."""
        self._flush_local_status()
        return b"flushed"

    def _flush_local_status(self) -> None:
        for session in self.sessions():
            counts = session.status_counts
            session.status_counts = com_counters.new_counters()
            with self._status_lock:
                com_counters.add_into(self.ended_status, counts)

    def sessions(self) -> list[Session]:
        """The open sessions."""
        with self._sessions_lock:
            return list(self._sessions.values())

    # ------------------------------------------------------------------ the write lock
    def acquire_write_lock(self, session: Session | None, timeout: float | None = None) -> None:
        """Take the engine write lock (one writing transaction at a time, as SQLite allows).

        Raises:
            MySQLError: 1205 ER_LOCK_WAIT_TIMEOUT after ``innodb_lock_wait_timeout`` seconds.
        """
        if timeout is None:
            timeout = float(self.globals.get("innodb_lock_wait_timeout"))
        started = time.monotonic()
        if session is not None and not self._write_lock.acquire(blocking=False):
            # a real wait: seen in information_schema.INNODB_TRX / performance_schema.data_lock_waits meanwhile
            self.lock_waits.waiting(session.id)
            try:
                if not self._write_lock.acquire(timeout=timeout):
                    raise mysql_error(1205)
            finally:
                self.lock_waits.done_waiting(session.id)
        elif session is None and not self._write_lock.acquire(timeout=timeout):
            raise mysql_error(1205)
        if self._shared_lock is not None:
            self._acquire_shared(session, max(0.0, timeout - (time.monotonic() - started)))
        if session is None:
            # the server's own work (rotation, RESET, PURGE, shutdown, the compressor) sees every committed
            # transaction whole: wait for those still in their sync stage (outside the lock) to finish it
            self.group_sync.drain()
        self._write_owner = session.id if session is not None else 0
        self.lock_waits.acquired(session.id if session is not None else None)

    def _acquire_shared(self, session: Session | None, timeout: float) -> None:
        """The cross-process half of the write lock (the in-process lock is held): the shared flock, then catch
        up with what other processes committed (GTIDs, the binary log's end) before anything is written.

        Raises:
            MySQLError: 1205 after ``timeout`` seconds, 1317 when the waiting session is killed; the in-process
                lock is released first.
        """
        shared, follower = self._shared_lock, self.follower
        assert shared is not None and follower is not None
        killed = None
        if session is not None:
            s = session
            killed = lambda: s.killed or s.executor.interrupt.is_set()
        try:
            if session is not None:
                self.lock_waits.waiting(session.id)
            try:
                shared.acquire(session.id if session is not None else 0, timeout, killed)
            finally:
                if session is not None:
                    self.lock_waits.done_waiting(session.id)
            try:
                follower.catch_up(under_write_lock=True)
                config = self.shared_config
                if config is not None and config.stale():  # gtid_purged before an automatic GNO is taken
                    config.reload()
            except BaseException:
                shared.release()
                raise
        except BaseException:
            self._write_lock.release()
            raise

    def catch_up(self) -> None:
        """Bring this process's GTID state and binary-log view up to what every process of the server committed
        (a dump thread before it locates its start file); nothing in a one-process server."""
        follower = self.follower
        if follower is not None and follower.stale():
            follower.catch_up()

    def lock_view(self) -> lock_waits.LockSnapshot:
        """The write lock's owner and waiters for INNODB_TRX / data_lock_waits / SHOW ENGINE INNODB STATUS: this
        process's, or with a shared page every process's (its owner record and waiter table) plus this process's
        in-process waiters."""
        shared = self._shared_lock
        return self.lock_waits if shared is None else _MergedLockView(self.lock_waits, shared)

    def other_locks(self) -> list[FileLock]:
        """The locks besides the engine write lock for INNODB_TRX / data_lock_waits / SHOW ENGINE INNODB STATUS: the
        schema files' and, with ``gtidkit_row_locks``, the row and table locks (every worker's)."""
        files = self.storage.file_lock_view()
        return files if self.row_locks is None else [*files, *self.row_locks.snapshot()]

    def wake_shared_waiter(self, session_id: int) -> None:
        """KILL [QUERY] of session ``session_id``: wake it if it waits for the write lock across processes (it
        then ends with 1317, as InnoDB's ``trx_is_interrupted``); nothing without a shared page."""
        if self.shared_page is not None:
            waiters.wake_connection(self.shared_page, session_id)
        elif self.row_locks is not None:  # a row-lock wait in a one-process server (its private page)
            waiters.wake_connection(self.row_locks.page, session_id)

    def _isolation_of(self, session_id: int) -> str:
        """A session's transaction isolation level as INNODB_TRX spells it (``REPEATABLE READ``)."""
        with self._sessions_lock:
            s = self._sessions.get(session_id)
        value = s.sysvar_show_value("transaction_isolation", None) if s is not None else "REPEATABLE-READ"
        return str(value).replace("-", " ")

    def write_lock_owner(self) -> int | None:
        """Id of the session holding the write lock (0 = the server itself), or None."""
        return self._write_owner

    def release_write_lock(self, session: Session | None) -> None:
        """Release the engine write lock."""
        self._write_owner = None
        self.lock_waits.acquired(None)
        shared = self._shared_lock
        if shared is not None and shared.holder is not None:
            assert self.follower is not None
            self.follower.published()
            shared.release()
        self._write_lock.release()

    def write_txn(self, work: Callable[[Any], Any]) -> Any:
        """Run ``work(sqlite3_connection)`` in one short write transaction on the internal connection."""
        self.acquire_write_lock(None)
        try:
            conn = self.internal_conn
            conn.begin()
            try:
                out = work(self.storage.sqlite(conn))
                conn.commit()
                return out
            except BaseException:
                conn.rollback()
                raise
        finally:
            self.release_write_lock(None)

    def read_txn(self, work: Callable[[Any], Any]) -> Any:
        """Run ``work(sqlite3_connection)`` on a fresh read connection (WAL snapshot, no write lock)."""
        conn = self.storage.connect()
        try:
            return work(self.storage.sqlite(conn))
        finally:
            conn.close()

    # ------------------------------------------------------------------ observers
    def add_commit_observer(self, fn: CommitObserver) -> None:
        """Call ``fn(session, gtid_or_None)`` after every commit (outside the write lock)."""
        self._commit_observers.append(fn)

    def add_binlog_flush_observer(self, fn: FlushObserver) -> None:
        """Call ``fn(file, position)`` after every binlog flush (under the write lock; keep it short)."""
        self.flush_observers.append(fn)

    def notify_commit(self, session: Session, gtid: Gtid | None) -> None:
        """Call every commit observer with the committing session and its GTID (``None`` = anonymous)."""
        for fn in list(self._commit_observers):
            fn(session, gtid)

    # ------------------------------------------------------------------ the commit path
    def next_xid(self) -> int:
        """The next XID for an Xid_log_event (a counter per server run; mysqld also numbers xids per run)."""
        self._xid += 1
        return self._xid

    def table_id(self, schema: str, table: str) -> int:
        """A stable table id for Table_map events (MySQL numbers table shares from 1 upward per run)."""
        key = (schema, table)
        tid = self._table_ids.get(key)
        if tid is None:
            tid = self._table_ids[key] = len(self._table_ids) + 100
        return tid

    def commit_transaction(self, session: Session, *, ddl_text: str | None) -> Gtid | None:
        """Commit ``session``'s open storage transaction through the write matrix (:mod:`gtidkit.engine.gtid.commit`).

        Raises:
            MySQLError: as :func:`gtidkit.engine.gtid.commit.commit`.
        """
        from gtidkit.engine.gtid.commit import commit

        return commit(self, session, ddl_text=ddl_text)

    @staticmethod
    def now_us() -> int:
        """Microseconds since the epoch (commit timestamps)."""
        return now_us()

    def record_position(self, db: Any, file: str, pos: int) -> None:
        """Upsert the applied binlog (``file``, end ``pos`` in bytes) into the position table on sqlite3 ``db``
        (re-applying a datadir written before the commit log, :func:`gtidkit.engine.recovery.reapply_binlogs`)."""
        db.execute(
            f'INSERT INTO "{POSITION_TABLE}" (id, log_name, log_pos) VALUES (1, ?, ?) '
            "ON CONFLICT(id) DO UPDATE SET log_name=excluded.log_name, log_pos=excluded.log_pos",
            (file, pos),
        )

    def applied_position(self, db: Any) -> tuple[str, int] | None:
        """The binlog (file, end position) whose transactions the engine holds, or None."""
        row = db.execute(f'SELECT log_name, log_pos FROM "{POSITION_TABLE}" WHERE id = 1').fetchone()
        return (row[0], int(row[1])) if row else None

    # ------------------------------------------------------------------ rotation
    def rotate(self) -> None:
        """FLUSH [BINARY] LOGS: close the active binlog, save its GTIDs to the table, open the next one."""
        if self.binlog is None:
            return
        self.acquire_write_lock(None)
        try:
            self.rotate_locked()
        finally:
            self.release_write_lock(None)

    def rotate_locked(self, *, report: bool = True) -> None:
        """Rotate (caller holds the write lock), then purge expired files (binlog_expire_logs_seconds).

        Raises:
            MySQLError: the rotation failed: 1598 under binlog_error_action=ABORT_SERVER; under IGNORE_ERROR the OS
                error when ``report`` (FLUSH LOGS), nothing for a size rotation after a commit.
        """
        assert self.binlog is not None
        # transactions committed by other sessions and still in their sync stage enter gtid_executed first: the
        # next file's Previous_gtids must hold every transaction of the closed one (a commit that holds the lock
        # without draining, as the replica applier's, rotates too)
        self.group_sync.drain()
        executed = self.gtid_state.executed()
        closed_gtids = self.binlog_file_gtids
        try:
            with self.binlog.lock:
                self.binlog.rotate(executed)
        except BinlogStageError as failure:
            failed = binlog_failed(self, failure)
            if failed is not None and (report or failed.code == 1598):
                raise failed from failure
            return
        self.binlog_file_gtids = GtidSet()
        self.save_binlog_gtids_locked(closed_gtids, record_start=True)
        self.request_compression()
        self.admin.expire_logs_locked()

    def disable_binlog(self, db: Any = None) -> None:
        """binlog_error_action=IGNORE_ERROR: stop binary logging for the rest of this run (write lock held).

        The GTIDs of the file being closed go to mysql.gtid_executed, as at a rotation (inside the committing
        transaction ``db`` when there is one); from now on the server keeps GTIDs as a server without a binary log
        does. ``@@log_bin`` still reads ON, as in MySQL.
        """
        blog = self.binlog
        if blog is None:
            return
        try:
            blog.close()
        except OSError:
            blog.abandon()
        self.binlog = None
        gtids, self.binlog_file_gtids = self.binlog_file_gtids, GtidSet()
        if db is None:
            self.save_binlog_gtids_locked(gtids)
        elif gtids:
            missing = gtids - gtid_table.read_set(db, self.gtid_table)
            if missing:
                gtid_table.save_set(db, self.gtid_table, missing)

    def abort_by_binlog_error(self, err: MySQLError) -> None:
        """binlog_error_action=ABORT_SERVER: the server stops as a crash would (no Stop event, nothing saved).

        Every later statement of any session fails with CR_SERVER_LOST 2013; the next :meth:`open` of the
        datadir recovers from the binary log and the engine.
        """
        self.aborted = err
        self.crashed = True
        if self.binlog is not None:
            try:
                self.binlog.abandon()
            except OSError:
                pass
            self.binlog = None

    def save_binlog_gtids_locked(self, gtids: GtidSet, *, record_start: bool = False) -> None:
        """Save ``gtids`` minus what the table already has (rotation, shutdown); write lock held.

        With ``record_start`` the same SQLite transaction marks the new active file's first offset in the commit
        log (every earlier transaction is in an fsynced file), so recovery never needs older rows.
        A rotation whose closed file holds no GTIDs inserts no row (mysql-test
        binlog_simulate_crash_and_error_on_compress_gtid_table).
        """
        if not gtids and not record_start:
            return
        conn = self.internal_conn
        conn.begin()
        try:
            db = self.storage.sqlite(conn)
            if gtids:
                missing = gtids - gtid_table.read_set(db, self.gtid_table)
                if missing:
                    gtid_table.save_set(db, self.gtid_table, missing)
            if record_start and self.binlog is not None:
                pos = self.binlog.position
                commit_log.mark_file(db, pos.file, pos.pos)
                if self.follower is not None:
                    self.follower.hold_undescribed()  # the other processes read this row (engine/follow.py)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise

    # ------------------------------------------------------------------ variables
    def refresh_shared(self) -> None:
        """Load what another worker process of this server changed (SET GLOBAL, accounts, gtid_purged) when it
        changed something since this process last looked (one counter read); nothing without a shared page. The
        wire server calls it before each client command and authentication step (engine/shared_config.py)."""
        config = self.shared_config
        if config is not None and config.stale():
            config.reload()

    def accounts_changed(self, conn: Any) -> None:
        """An account statement or FLUSH PRIVILEGES: re-read the grant tables on storage connection ``conn``
        (``acl_reload``) and have every other worker process re-read them before its next statement or login."""
        self.accounts.load(conn)
        if self.shared_config is not None:
            self.shared_config.publish_accounts(self.accounts.accounts())

    def gtid_purged_changed(self) -> None:
        """SET GLOBAL gtid_purged added to gtid_purged (write lock held): publish the new value to the other worker
        processes (engine/shared_config.py), which add it before their next statement or GNO."""
        if self.shared_config is not None:
            self.shared_config.publish_purged(self.gtid_state.purged())
            shared = self.gtid_state.shared
            if shared is not None:  # the waiters of other processes woke at add_purged, maybe before this row
                shared.wake_executed()

    def set_global(self, session: Session, name: str, value: Any) -> None:
        """``SET GLOBAL name = value`` from ``session``, through the sysvar table's hooks.

        Raises:
            MySQLError: as :func:`gtidkit.engine.sysvars.set_variable`.
        """
        sysvars.set_variable(session, name, "GLOBAL", value, is_default=False, warnings=[])

    def save_gtids_now(self, gtids: GtidSet, *, lock: bool = False) -> None:
        """Insert ``gtids`` into mysql.gtid_executed in a transaction of its own (caller holds the write lock
        unless ``lock``)."""
        if lock:
            self.write_txn(lambda db: gtid_table.save_set(db, self.gtid_table, gtids))
            return
        conn = self.internal_conn
        conn.begin()
        try:
            gtid_table.save_set(self.storage.sqlite(conn), self.gtid_table, gtids)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise

    def sql_functions(self, session: Session) -> dict[str, Callable[..., Any]]:
        """The session-bound rows of the SQL function table for ``session``: GTID_SUBSET, GTID_SUBTRACT,
        WAIT_FOR_EXECUTED_GTID_SET (BOUND, through the narrow
        :class:`~gtidkit.engine.gtid.functions.GtidFunctionSession`; formats.md §8.1), and the ROLE rows as
        :attr:`function_providers` supply them (else the row's own implementation).

        Raises:
            ValueError: a provider supplies a function that is no ROLE row of the table.
        """
        from gtidkit.engine.sql.function_table import FUNCTIONS, Kind, lookup, made_for

        made: dict[Any, Any] = {}
        binding = _GtidFunctionBinding(self, session)
        functions = {
            row.name: made_for(row, made, binding) for row in FUNCTIONS.values() if row.kind is Kind.BOUND
        }
        for provider in self.function_providers:
            provided = provider(session)
            for name in provided:
                row = lookup(name)
                if row is None or row.kind is not Kind.ROLE:
                    raise ValueError(f"function {name} is not a ROLE row of the function table")
            functions.update(provided)
        for row in FUNCTIONS.values():
            if row.kind is Kind.ROLE and row.name not in functions:  # no role supplies it: the row's own
                functions[row.name] = made_for(row, made, session)
        return functions

    # ------------------------------------------------------------------ shutdown
    def shutdown(self) -> None:
        """Clean shutdown: stop the compressor, save the active binlog's GTIDs, Stop event, close everything."""
        if self.closed:
            return
        self.control.stop()
        for s in self.sessions():
            try:
                s.close()
            except Exception as err:  # noqa: BLE001 - shutting down regardless, but say so
                log.warning("closing session %d at shutdown failed: %s", s.id, err)
        if not self.singletons:
            self._shutdown_worker()
            return
        self.compressor.stop()
        self.acquire_write_lock(None, timeout=60)
        try:
            if self.binlog is not None:
                self.save_binlog_gtids_locked(self.binlog_file_gtids)
                self.binlog.close()
            self.closed = True
        finally:
            self.release_write_lock(None)
        self._close_shared()
        self.internal_conn.close()
        self.storage.checkpoint()
        self.storage.close()

    def _shutdown_worker(self) -> None:
        """A worker leaves the datadir to the other processes: no Stop event, no GTID save, the binlog file left
        open (in use) for whoever writes next."""
        self.acquire_write_lock(None, timeout=60)
        try:
            if self.binlog is not None and self.binlog.writer is not None:
                self.binlog.writer.close(stop=False, in_use=True, fsync=True)
                self.binlog.writer = None
            self.closed = True
        finally:
            self.release_write_lock(None)
        self._close_shared()
        self.internal_conn.close()
        self.storage.close()

    def _close_shared(self) -> None:
        if self.shared_config is not None:
            self.shared_config.close()
        self.gtid_state.shared = None
        self.gtid_state.refresh = None
        if self.follower is not None:
            self.follower.close()
        if self._shared_lock is not None:
            self._shared_lock.close()
        self.group_sync.shared = None
        if self._wal_sync is not None:
            self._wal_sync.close()
        if self.shared_page is not None:
            self.shared_page.close()

    def _abort(self) -> None:
        """Release files after a failed start (no saves)."""
        self.closed = True
        try:
            self.compressor.stop()
        finally:
            if self.binlog is not None:
                self.binlog.abandon()
            self._close_shared()
            self.storage.close()


class _MergedLockView:
    """The write lock across processes (the shared page) merged with this process's in-process waiters."""

    __slots__ = ("_local", "_shared")

    def __init__(self, local: lock_waits.WriteLockWaits, shared: SharedWriteLock) -> None:
        self._local = local
        self._shared = shared

    def snapshot(self) -> tuple[int | None, float, dict[int, float]]:
        """``(owner, since, {waiter: since})``: the owner from the shared page (a server-internal holder, id 0,
        shows as no owner, as in one process), waiters of every process."""
        owner, since, waiting = self._shared.snapshot()
        local_owner, local_since, local_waiting = self._local.snapshot()
        if not owner and local_owner:
            owner, since = local_owner, local_since
        return owner or None, since, {**local_waiting, **waiting}


class _GtidFunctionBinding:
    """:class:`~gtidkit.engine.gtid.functions.GtidFunctionSession` of one session of this server."""

    __slots__ = ("_server", "_session")

    def __init__(self, server: Server, session: Session) -> None:
        self._server = server
        self._session = session

    def gtid_mode(self) -> str:
        """The server's gtid_mode."""
        return str(self._server.gtid_mode)

    def is_replication_applier(self) -> bool:
        """True in a replication applier's session."""
        return self._session.applier is not None

    def owned_gtid(self) -> Gtid | None:
        """The GTID the session owns."""
        return self._session.owned_gtid

    def wait_for_executed(self, gtids: GtidSet, timeout: float | None) -> bool | None:
        """Wait on the server's executed set, as the session's stage "Waiting for GTID to be committed"
        (``Gtid_state::wait_for_gtid_set``), until KILL QUERY interrupts the session's statement."""
        session = self._session
        session.stage = "Waiting for GTID to be committed"
        interrupted = session.executor.interrupt.is_set
        try:
            # with other worker processes: a registered waiter woken by their commits (GtidState.shared)
            return self._server.gtid_state.wait_for_executed(
                gtids, timeout, interrupted=interrupted, session_id=session.id
            )
        finally:
            session.stage = ""
