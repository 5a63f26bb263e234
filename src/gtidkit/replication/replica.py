"""The replica controller of the default channel: START / STOP / RESET REPLICA, CHANGE REPLICATION SOURCE TO,
SHOW REPLICA STATUS, the performance_schema replication tables, and start at server start.

It owns the channel's :class:`~gtidkit.replication.channel.ChannelConfig` (stored in ``mysql.slave_master_info``),
its relay log (``relay``'s ``RelayLog``), the I/O thread (:class:`~gtidkit.replication.receiver.Receiver`) and the
SQL thread (``relay``'s ``Applier``). MySQL sources: ``sql/rpl_replica.cc`` (``start_slave``, ``stop_slave``,
``reset_slave``, ``change_master``, ``show_slave_status``, ``init_replica`` with ``--skip-replica-start``), the
manual pages "CHANGE REPLICATION SOURCE TO Statement", "START REPLICA", "RESET REPLICA" and "SHOW REPLICA STATUS
Statement" (8.4), and "Performance Schema Replication Tables".
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from gtidkit.engine.results import Condition
from gtidkit.engine.sysvars import skip_error_codes
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import message, mysql_error
from gtidkit.replication.applier import Applier
from gtidkit.replication.channel import (
    RECEIVE_OPTIONS,
    ChannelConfig,
    ConnectionMetadata,
    canonical_options,
    check_password,
)
from gtidkit.replication.receiver import Receiver
from gtidkit.replication.relay_log import RelayLog

log = logging.getLogger(__name__)

__all__ = ["REPLICA_STATUS_COLUMNS", "SLAVE_STATUS_COLUMNS", "Replica", "install"]

#: SHOW REPLICA STATUS columns, in MySQL 8.4's order (``show_slave_status_metadata`` in ``sql/rpl_replica.cc``;
#: the manual page "SHOW REPLICA STATUS Statement").
REPLICA_STATUS_COLUMNS = (
    "Replica_IO_State",
    "Source_Host",
    "Source_User",
    "Source_Port",
    "Connect_Retry",
    "Source_Log_File",
    "Read_Source_Log_Pos",
    "Relay_Log_File",
    "Relay_Log_Pos",
    "Relay_Source_Log_File",
    "Replica_IO_Running",
    "Replica_SQL_Running",
    "Replicate_Do_DB",
    "Replicate_Ignore_DB",
    "Replicate_Do_Table",
    "Replicate_Ignore_Table",
    "Replicate_Wild_Do_Table",
    "Replicate_Wild_Ignore_Table",
    "Last_Errno",
    "Last_Error",
    "Skip_Counter",
    "Exec_Source_Log_Pos",
    "Relay_Log_Space",
    "Until_Condition",
    "Until_Log_File",
    "Until_Log_Pos",
    "Source_SSL_Allowed",
    "Source_SSL_CA_File",
    "Source_SSL_CA_Path",
    "Source_SSL_Cert",
    "Source_SSL_Cipher",
    "Source_SSL_Key",
    "Seconds_Behind_Source",
    "Source_SSL_Verify_Server_Cert",
    "Last_IO_Errno",
    "Last_IO_Error",
    "Last_SQL_Errno",
    "Last_SQL_Error",
    "Replicate_Ignore_Server_Ids",
    "Source_Server_Id",
    "Source_UUID",
    "Source_Info_File",
    "SQL_Delay",
    "SQL_Remaining_Delay",
    "Replica_SQL_Running_State",
    "Source_Retry_Count",
    "Source_Bind",
    "Last_IO_Error_Timestamp",
    "Last_SQL_Error_Timestamp",
    "Source_SSL_Crl",
    "Source_SSL_Crlpath",
    "Retrieved_Gtid_Set",
    "Executed_Gtid_Set",
    "Auto_Position",
    "Replicate_Rewrite_DB",
    "Channel_Name",
    "Source_TLS_Version",
    "Source_public_key_path",
    "Get_Source_public_key",
    "Network_Namespace",
)

#: SHOW SLAVE STATUS: the same columns with the pre-8.0.22 (5.7) names.
_SLAVE_NAMES = {
    "Replica_IO_State": "Slave_IO_State",
    "Source_Host": "Master_Host",
    "Source_User": "Master_User",
    "Source_Port": "Master_Port",
    "Source_Log_File": "Master_Log_File",
    "Read_Source_Log_Pos": "Read_Master_Log_Pos",
    "Relay_Source_Log_File": "Relay_Master_Log_File",
    "Replica_IO_Running": "Slave_IO_Running",
    "Replica_SQL_Running": "Slave_SQL_Running",
    "Exec_Source_Log_Pos": "Exec_Master_Log_Pos",
    "Source_SSL_Allowed": "Master_SSL_Allowed",
    "Source_SSL_CA_File": "Master_SSL_CA_File",
    "Source_SSL_CA_Path": "Master_SSL_CA_Path",
    "Source_SSL_Cert": "Master_SSL_Cert",
    "Source_SSL_Cipher": "Master_SSL_Cipher",
    "Source_SSL_Key": "Master_SSL_Key",
    "Seconds_Behind_Source": "Seconds_Behind_Master",
    "Source_SSL_Verify_Server_Cert": "Master_SSL_Verify_Server_Cert",
    "Source_Server_Id": "Master_Server_Id",
    "Source_UUID": "Master_UUID",
    "Source_Info_File": "Master_Info_File",
    "Replica_SQL_Running_State": "Slave_SQL_Running_State",
    "Source_Retry_Count": "Master_Retry_Count",
    "Source_Bind": "Master_Bind",
    "Source_SSL_Crl": "Master_SSL_Crl",
    "Source_SSL_Crlpath": "Master_SSL_Crlpath",
    "Source_TLS_Version": "Master_TLS_Version",
    "Source_public_key_path": "Master_public_key_path",
    "Get_Source_public_key": "Get_master_public_key",
}
SLAVE_STATUS_COLUMNS = tuple(_SLAVE_NAMES.get(c, c) for c in REPLICA_STATUS_COLUMNS)

#: performance_schema's zero TIMESTAMP(6) (what MySQL shows before anything happened).
ZERO_TIMESTAMP = "0000-00-00 00:00:00.000000"


def ps_timestamp(t: float) -> str:
    """A performance_schema TIMESTAMP(6) value (local time, microseconds) for ``t`` seconds since the epoch; the zero
    timestamp for 0."""
    if not t:
        return ZERO_TIMESTAMP
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) + f".{int(t % 1 * 1e6):06d}"


def _us_timestamp(us: int) -> str:
    return ps_timestamp(us / 1e6) if us else ZERO_TIMESTAMP


#: Replica_SQL_Running_State values (``stage_*`` of ``sql/rpl_replica.cc``).
SQL_STATE_WAITING = "Replica has read all relay log; waiting for more updates"
SQL_STATE_APPLYING = "Waiting for dependent transaction to commit"


class Replica:
    """The default channel of a replica server.

    Args:
        server: the engine ``Server``.
        channel: the channel name (only ``""`` is supported).

    Attributes:
        config: the channel's current :class:`ChannelConfig` (unconfigured: ``host == ""``).
        relay: the channel's relay log (``RelayLog``), opened at construction (relay log recovery runs then).
        receiver: the I/O thread.
        applier: the SQL thread.
    """

    def __init__(self, server: Any, channel: str = "") -> None:
        self.server = server
        self.channel = channel
        self.metadata = ConnectionMetadata(server)
        self.config = self.metadata.load(channel) or ChannelConfig(channel=channel)
        #: True once CHANGE REPLICATION SOURCE TO configured the channel (its row exists): SHOW REPLICA STATUS
        #: returns a row only then (``channel_map`` holds the channel).
        self.exists = self.metadata.load(channel) is not None
        self.relay = RelayLog.open(server.datadir, channel, server=server)
        self.receiver = Receiver(
            server, self.relay, lambda: self.config, on_source_uuid=self._source_uuid_seen
        )
        self.applier = Applier(server, self.relay, channel=channel)
        self._lock = threading.RLock()
        self.closed = False
        self._applier_settings()
        if self.exists and bool(server.globals.get("relay_log_recovery")):
            self._recover_relay_log()

    def _applier_settings(self) -> None:
        """The applier options as they are when its thread starts (``relay_log_purge``,
        ``replica_parallel_workers``, ``replica_skip_errors``; MySQL reads them at START REPLICA)."""
        g = self.server.globals
        self.applier.relay_log_purge = bool(g.get("relay_log_purge"))
        self.applier.replica_parallel_workers = int(g.get("replica_parallel_workers"))
        self.applier.skip_errors = skip_error_codes(g.get("replica_skip_errors"))

    def _recover_relay_log(self) -> None:
        """``relay_log_recovery`` (RM8 "relay_log_recovery": "all unprocessed relay logs are ignored"): at start-up
        the relay log is discarded and a new one started, the applier resumes at the new relay log's head and the
        receiver fetches again from what the applier has applied (by GTIDs under auto-positioning, from the source
        position the applier reached otherwise: ``init_recovery`` in ``sql/rpl_replica.cc``)."""
        applied = self._applied_position()
        source = (applied[2], applied[3]) if applied is not None and applied[2] else None
        self.relay.reset(keep_applied=True, source_position=source)
        self._reset_applier_position()
        if applied is not None:
            log.info(
                "Recovery from source pos %d and file %s. Previous relay log pos and relay log file had been set "
                "to %d, %s respectively.",
                applied[3],
                applied[2],
                applied[1],
                applied[0],
            )

    # ------------------------------------------------------------------------------------------------ helpers
    def _source_uuid_seen(self, uuid: str) -> None:
        if uuid != self.config.uuid:
            self.config = ChannelConfig(**{**_fields(self.config), "uuid": uuid})
            try:
                self.metadata.save(self.config)
            except MySQLError:
                log.exception("could not store the source's server_uuid")

    def _reset_applier_position(self) -> None:
        """After the relay files are purged, the applier's recorded relay position means nothing: clear it (the
        applier then starts at the first relay file and skips what gtid_executed holds)."""
        storage = self.server.storage
        if storage.catalog.get_table("mysql", "slave_relay_log_info") is None:
            return
        table = storage.physical_name("mysql", "slave_relay_log_info")
        self.server.write_txn(
            lambda db: db.execute(
                f'UPDATE "{table}" SET Relay_log_name = ?, Relay_log_pos = 4 WHERE Channel_name = ?',
                ("", self.channel),
            )
        )

    # ------------------------------------------------------------------------------------------------ statements
    def change_source(self, options: dict[str, Any]) -> list[Condition]:
        """CHANGE REPLICATION SOURCE TO / CHANGE MASTER TO (``change_master()``).

        Args:
            options: the classifier's ``{lowercase option name: value}``.

        Returns:
            The notes MySQL raises (1759 plain-text password without SSL, 1760 credentials stored).

        Raises:
            MySQLError: 3021 (I/O thread running), 3085 / 3081 (SOURCE_AUTO_POSITION with the SQL thread / both
                running), 1777 (auto-position with gtid_mode OFF), 1776 (auto-position with SOURCE_LOG_FILE/POS),
                3056 (password over 32 characters), 1235 / 1064 (unsupported / unknown option).
        """
        opts = canonical_options(options)
        with self._lock:
            io, sql = self.receiver.running, self.applier.running
            receive = any(o in RECEIVE_OPTIONS for o in opts)
            needs_sql_stop = "source_auto_position" in opts
            if io and receive and sql and needs_sql_stop:
                raise mysql_error(3081, self.channel)
            if io and receive:
                raise mysql_error(3021, self.channel)
            if sql and needs_sql_stop:
                raise mysql_error(3085, self.channel)
            auto = bool(opts.get("source_auto_position", self.config.auto_position))
            if opts.get("source_auto_position") == 1:
                mode = str(self.server.globals.get("gtid_mode")).upper()
                if mode == "OFF":
                    raise mysql_error(1777)
            if auto and ("source_log_file" in opts or "source_log_pos" in opts):
                raise mysql_error(1776)
            if "source_password" in opts:
                check_password(str(opts["source_password"]))
            new = self.config.changed(opts)
            notes: list[Condition] = []
            if "source_user" in opts or "source_password" in opts:
                if not new.ssl:
                    notes.append(Condition("Note", 1759, message(1759)))
                notes.append(Condition("Note", 1760, message(1760)))
            self.metadata.save(new)
            self.config = new
            self.exists = True
            if not io and not sql and receive:
                # change_master(): with both threads stopped the relay logs are purged and a new one started
                self.relay.reset()
                self._reset_applier_position()
            return notes

    def start(self, io: bool = True, sql: bool = True) -> list[Condition]:
        """START REPLICA [IO_THREAD] [SQL_THREAD] (``start_slave()``).

        Returns:
            Note 3083 when every requested thread already runs.

        Raises:
            MySQLError: 1200 when the channel has no source configured.
        """
        with self._lock:
            if not self.config.configured:
                raise mysql_error(1200)
            if (not io or self.receiver.running) and (not sql or self.applier.running):
                return [Condition("Note", 3083, message(3083, self.channel))]
            if sql and not self.applier.running:
                self._applier_settings()
                self.applier.start()
            if io and not self.receiver.running:
                self.receiver.start()
            return []

    def stop(self, io: bool = True, sql: bool = True) -> list[Condition]:
        """STOP REPLICA [IO_THREAD] [SQL_THREAD] (``stop_slave()``): the I/O thread first, then the SQL thread
        (which finishes the transaction it applies).

        Returns:
            Note 3084 when none of the requested threads runs.
        """
        with self._lock:
            if (not io or not self.receiver.running) and (not sql or not self.applier.running):
                return [Condition("Note", 3084, message(3084, self.channel))]
            if io:
                self.receiver.stop()
            if sql:
                self.applier.stop()
            return []

    def reset(self, all_: bool = False) -> None:
        """RESET REPLICA [ALL] (``reset_slave()``): purge the relay logs (Retrieved_Gtid_Set becomes empty),
        forget the file/position coordinates and the last errors; ALL also forgets the connection settings (the
        channel no longer exists: SHOW REPLICA STATUS returns no row).

        Raises:
            MySQLError: 3081 while a replication thread runs.
        """
        with self._lock:
            if self.receiver.running or self.applier.running:
                raise mysql_error(3081, self.channel)
            self.relay.reset()
            self._reset_applier_position()
            self.receiver.last_error = None
            self.applier.reset()
            self.receiver.source_server_id = 0
            if all_:
                self.metadata.delete(self.channel)
                self.config = ChannelConfig(channel=self.channel)
                self.exists = False
            else:
                self.config = ChannelConfig(**{**_fields(self.config), "log_file": "", "log_pos": 4})
                if self.exists:
                    self.metadata.save(self.config)

    # ------------------------------------------------------------------------------------------------ status
    def seconds_behind_source(self) -> int | None:
        """Seconds_Behind_Source (``show_slave_status`` / ``Relay_log_info::last_master_timestamp``): NULL unless
        both threads run; 0 when the applier has executed everything received; else now minus the source-clock
        timestamp of the oldest received transaction not yet executed, corrected by the clock difference."""
        if not (self.receiver.running and self.applier.running):
            return None
        if not self.receiver.connected:
            return None
        retrieved = self.relay.retrieved_gtids()
        executed = self.server.gtid_state.executed()
        if retrieved <= executed:
            return 0
        ts = self.receiver.last_event_time
        if not ts:
            return 0
        return max(0, int(time.time() - self.receiver.clock_diff - ts))

    def status_row(self) -> tuple[Any, ...]:
        """The SHOW REPLICA STATUS row (column order of :data:`REPLICA_STATUS_COLUMNS`)."""
        cfg = self.config
        rcv, app = self.receiver, self.applier
        io_running = "Yes" if rcv.running and rcv.connected else ("Connecting" if rcv.running else "No")
        src_file, src_pos = self.relay.source_position()
        relay_file, relay_pos = self.relay.position()
        applied = app.last_applied
        if applied is None:
            pos = self._applied_position()
            applied = pos if pos is not None else None
        exec_file, exec_pos = (applied[2], applied[3]) if applied is not None else ("", 0)
        if applied is not None:
            relay_file, relay_pos = applied[0] or relay_file, applied[1] or relay_pos
        io_err, sql_err = rcv.last_error, app.last_error
        retrieved = self.relay.retrieved_gtids()
        executed = self.server.gtid_state.executed()
        sql_state = ""
        if app.running:
            sql_state = SQL_STATE_WAITING if retrieved <= executed else SQL_STATE_APPLYING
        return (
            rcv.state if rcv.running else "",
            cfg.host,
            cfg.user,
            cfg.port,
            cfg.connect_retry,
            src_file,
            src_pos or 4,
            relay_file,
            relay_pos,
            exec_file or src_file,
            io_running,
            "Yes" if app.running else "No",
            "",
            "",
            "",
            "",
            "",
            "",
            sql_err.errno if sql_err else 0,
            sql_err.coordinator_message if sql_err else "",
            0,
            exec_pos,
            self._relay_space(),
            "None",
            "",
            0,
            "Yes" if cfg.ssl else "No",
            cfg.ssl_ca,
            cfg.ssl_capath,
            cfg.ssl_cert,
            cfg.ssl_cipher,
            cfg.ssl_key,
            self.seconds_behind_source(),
            "Yes" if cfg.ssl_verify_server_cert else "No",
            io_err.errno if io_err else 0,
            io_err.message if io_err else "",
            sql_err.errno if sql_err else 0,
            sql_err.coordinator_message if sql_err else "",
            "",
            rcv.source_server_id,
            rcv.source_uuid or cfg.uuid,
            "mysql.slave_master_info",
            0,
            None,
            sql_state,
            cfg.retry_count,
            "",
            io_err.timestamp if io_err else "",
            sql_err.timestamp if sql_err else "",
            "",
            "",
            retrieved.to_text(),
            executed.to_text(),
            int(cfg.auto_position),
            "",
            self.channel,
            cfg.tls_version,
            cfg.public_key_path,
            int(cfg.get_public_key),
            "",
        )

    # ------------------------------------------------------------------------------------------------ p_s tables
    def connection_configuration_rows(self) -> list[tuple[Any, ...]]:
        """``performance_schema.replication_connection_configuration`` (one row per configured channel)."""
        if not self.exists:
            return []
        c = self.config
        return [
            (
                self.channel,
                c.host,
                c.port,
                c.user,
                "",
                "1" if c.auto_position else "0",
                "YES" if c.ssl else "NO",
                c.ssl_ca,
                c.ssl_capath,
                c.ssl_cert,
                c.ssl_cipher,
                c.ssl_key,
                "YES" if c.ssl_verify_server_cert else "NO",
                "",
                "",
                c.connect_retry,
                c.retry_count,
                f"{c.heartbeat_period:.3f}",
                c.tls_version,
                c.public_key_path,
                "YES" if c.get_public_key else "NO",
                "",
                "uncompressed",
                3,
                None,
                "0",
                "0",
            )
        ]

    def connection_status_rows(self) -> list[tuple[Any, ...]]:
        """``performance_schema.replication_connection_status``: SERVICE_STATE ON / CONNECTING / OFF, heartbeats,
        RECEIVED_TRANSACTION_SET (= Retrieved_Gtid_Set), the last error, LAST_QUEUED_TRANSACTION and
        QUEUEING_TRANSACTION with their timestamps."""
        if not self.exists:
            return []
        rcv = self.receiver
        err = rcv.last_error
        state = "ON" if rcv.running and rcv.connected else ("CONNECTING" if rcv.running else "OFF")
        lq, qq = rcv.last_queued_times, rcv.queueing_times
        return [
            (
                self.channel,
                "",
                rcv.source_uuid or self.config.uuid,
                None,
                state,
                rcv.heartbeats,
                ps_timestamp(rcv.last_heartbeat),
                self.relay.retrieved_gtids().to_text(),
                err.errno if err else 0,
                err.message if err else "",
                ps_timestamp(err.time) if err else ZERO_TIMESTAMP,
                rcv.last_queued,
                _us_timestamp(lq[0]),
                _us_timestamp(lq[1]),
                ps_timestamp(lq[2]),
                ps_timestamp(lq[3]),
                rcv.queueing,
                _us_timestamp(qq[0]),
                _us_timestamp(qq[1]),
                ps_timestamp(qq[2]),
            )
        ]

    def applier_status_rows(self) -> list[tuple[Any, ...]]:
        """``performance_schema.replication_applier_status``: SERVICE_STATE ON / OFF."""
        if not self.exists:
            return []
        return [(self.channel, "ON" if self.applier.running else "OFF", None, 0)]

    def applier_configuration_rows(self) -> list[tuple[Any, ...]]:
        """``performance_schema.replication_applier_configuration``: DESIRED_DELAY (SOURCE_DELAY, 0 here),
        PRIVILEGE_CHECKS_USER NULL, REQUIRE_ROW_FORMAT NO, REQUIRE_TABLE_PRIMARY_KEY_CHECK STREAM,
        ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS OFF / NULL: the defaults of a channel CHANGE REPLICATION SOURCE TO
        made (mysql-test ``rpl`` results)."""
        if not self.exists:
            return []
        return [(self.channel, 0, None, "NO", "STREAM", "OFF", None)]

    def _workers(self) -> int:
        return max(0, int(self.applier.replica_parallel_workers))

    def coordinator_status_rows(self) -> list[tuple[Any, ...]]:
        """``performance_schema.replication_applier_status_by_coordinator``: one row when the channel has a
        multi-threaded applier (``replica_parallel_workers`` > 0; none for the single-threaded one, mysql-test
        ``rpl_perfschema_applier_status_by_worker``). The coordinator's error is Last_SQL_Error's text
        (``Coordinator stopped because there were error(s) in the worker(s) ...``). The coordinator hands each
        transaction to the worker as soon as it is read, so LAST_PROCESSED_TRANSACTION is the one being applied,
        else the last applied, and PROCESSING_TRANSACTION is empty between transactions."""
        if not self.exists or not self._workers():
            return []
        app = self.applier
        err = app.last_error
        applying, started = app.applying, app.applying_started
        if applying is not None:
            gtid, orig, imm = _trx_identity(applying)
            buffered = (
                gtid,
                _us_timestamp(orig),
                _us_timestamp(imm),
                ps_timestamp(started),
                ps_timestamp(started),
            )
        elif app.last_applied_transaction is not None:
            t = app.last_applied_transaction
            start = ps_timestamp(t.start_apply_timestamp)
            buffered = (
                t.gtid,
                _us_timestamp(t.original_commit_timestamp),
                _us_timestamp(t.immediate_commit_timestamp),
                start,
                start,
            )
        else:
            buffered = ("", ZERO_TIMESTAMP, ZERO_TIMESTAMP, ZERO_TIMESTAMP, ZERO_TIMESTAMP)
        return [
            (
                self.channel,
                None,
                "ON" if app.running else "OFF",
                err.errno if err else 0,
                err.coordinator_message if err else "",
                ps_timestamp(err.time) if err else ZERO_TIMESTAMP,
                *buffered,
                "",
                ZERO_TIMESTAMP,
                ZERO_TIMESTAMP,
                ZERO_TIMESTAMP,
            )
        ]

    def worker_status_rows(self) -> list[tuple[Any, ...]]:
        """``performance_schema.replication_applier_status_by_worker``: WORKER_ID 1..replica_parallel_workers (0:
        one row, WORKER_ID 0, for the single-threaded applier), kept after STOP REPLICA with SERVICE_STATE OFF
        (mysql-test ``rpl_perfschema_applier_status_by_worker``). Transactions are applied in commit order by
        worker 1 (see :mod:`gtidkit.replication.applier`): its row carries LAST_APPLIED_TRANSACTION and
        APPLYING_TRANSACTION with their four timestamps and the error (``Worker 1 failed executing transaction
        '<gtid>' at source log ...``); the other workers' rows are idle."""
        if not self.exists:
            return []
        app = self.applier
        state = "ON" if app.running else "OFF"
        workers = self._workers()
        rows = []
        for worker in range(1, workers + 1) if workers else (0,):
            if worker > 1:
                rows.append(_idle_worker_row(self.channel, worker, state))
                continue
            err = app.last_error
            last = app.last_applied_transaction
            applying, started = app.applying, app.applying_started
            if last is not None:
                applied = (
                    last.gtid,
                    _us_timestamp(last.original_commit_timestamp),
                    _us_timestamp(last.immediate_commit_timestamp),
                    ps_timestamp(last.start_apply_timestamp),
                    ps_timestamp(last.end_apply_timestamp),
                )
            else:
                applied = ("", ZERO_TIMESTAMP, ZERO_TIMESTAMP, ZERO_TIMESTAMP, ZERO_TIMESTAMP)
            if applying is not None:
                gtid, orig, imm = _trx_identity(applying)
                current = (gtid, _us_timestamp(orig), _us_timestamp(imm), ps_timestamp(started))
            else:
                current = ("", ZERO_TIMESTAMP, ZERO_TIMESTAMP, ZERO_TIMESTAMP)
            rows.append(
                (
                    self.channel,
                    worker,
                    None,
                    state,
                    err.errno if err else 0,
                    err.message if err else "",
                    ps_timestamp(err.time) if err else ZERO_TIMESTAMP,
                    *applied,
                    *current,
                    0,
                    0,
                    "",
                    ZERO_TIMESTAMP,
                    0,
                    0,
                    "",
                    ZERO_TIMESTAMP,
                )
            )
        return rows

    def executed_source_position(self) -> tuple[str, int] | None:
        """(Relay_Source_Log_File, Exec_Source_Log_Pos): the source position the applier has executed up to."""
        applied = self.applier.last_applied
        if applied is None:
            applied = self._applied_position()
        if applied is None or not applied[2]:
            return None
        return applied[2], applied[3]

    def _applied_position(self) -> tuple[str, int, str, int] | None:
        storage = self.server.storage
        if storage.catalog.get_table("mysql", "slave_relay_log_info") is None:
            return None
        table = storage.physical_name("mysql", "slave_relay_log_info")
        row = self.server.write_txn(
            lambda db: db.execute(
                f'SELECT Relay_log_name, Relay_log_pos, Master_log_name, Master_log_pos FROM "{table}" '
                "WHERE Channel_name = ?",
                (self.channel,),
            ).fetchone()
        )
        return (str(row[0]), int(row[1]), str(row[2]), int(row[3])) if row else None

    def _relay_space(self) -> int:
        return int(self.relay.space())

    # ------------------------------------------------------------------------------------------------ lifecycle
    def start_at_boot(self) -> None:
        """``init_replica()``: start both threads when a source is configured and ``skip_replica_start`` is OFF."""
        skip = False
        try:
            skip = bool(self.server.globals.get("skip_replica_start"))
        except Exception:  # noqa: BLE001 - a build without the variable starts replication
            skip = False
        if self.config.configured and not skip:
            try:
                self.start()
            except MySQLError:
                log.exception("could not start replication")

    def shutdown(self) -> None:
        """Stop both threads (the I/O thread first) and close the relay log, before the engine shuts down."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            self.receiver.stop()
            self.applier.stop()
            self.relay.close()


def _trx_identity(trx: Any) -> tuple[str, int, int]:
    """A relay-log transaction's GTID text (``ANONYMOUS`` without one) and its original / immediate commit
    timestamps (µs since the epoch, 0 when the source wrote none)."""
    gev = trx.gtid_event
    gtid = trx.gtid
    return (
        str(gtid) if gtid is not None else "ANONYMOUS",
        int(gev.original_commit_timestamp or 0) if gev is not None else 0,
        int(gev.immediate_commit_timestamp or 0) if gev is not None else 0,
    )


def _idle_worker_row(channel: str, worker: int, state: str) -> tuple[Any, ...]:
    """A ``replication_applier_status_by_worker`` row of a worker that has applied nothing."""
    z = ZERO_TIMESTAMP
    return (channel, worker, None, state, 0, "", z, "", z, z, z, z, "", z, z, z, 0, 0, "", z, 0, 0, "", z)


def _fields(cfg: ChannelConfig) -> dict[str, Any]:
    return {f: getattr(cfg, f) for f in cfg.__dataclass_fields__}


def install(engine_server: Any, wire_server: Any, repl: Any) -> Replica:
    """Plug the replica role into a server: statement hooks, performance_schema tables, start at boot.

    Args:
        engine_server: the engine ``Server``.
        wire_server: the ``WireServer`` (unused by the replica role).
        repl: the :class:`gtidkit.replication.Replication` (its shutdown stops the threads).

    Returns:
        The :class:`Replica` (also ``repl.roles["replica"]``).
    """
    from gtidkit.replication import statements  # cycle break: statements imports this module's Replica

    replica = Replica(engine_server)
    statements.register(engine_server, replica)
    engine_server.storage.table_providers.update(
        {
            (
                "performance_schema",
                "replication_connection_configuration",
            ): replica.connection_configuration_rows,
            ("performance_schema", "replication_connection_status"): replica.connection_status_rows,
            ("performance_schema", "replication_applier_status"): replica.applier_status_rows,
            ("performance_schema", "replication_applier_configuration"): replica.applier_configuration_rows,
            (
                "performance_schema",
                "replication_applier_status_by_coordinator",
            ): replica.coordinator_status_rows,
            ("performance_schema", "replication_applier_status_by_worker"): replica.worker_status_rows,
        }
    )
    from gtidkit.replication.pos_wait import pos_wait_functions

    engine_server.function_providers.append(pos_wait_functions(replica))
    repl.roles["replica"] = replica
    repl.on_shutdown(replica.shutdown)
    replica.start_at_boot()
    return replica
