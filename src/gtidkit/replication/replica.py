"""The controller of one replication channel: START / STOP / RESET REPLICA, CHANGE REPLICATION SOURCE TO, SHOW
REPLICA STATUS, the performance_schema replication tables, and start at server start
(:class:`~gtidkit.replication.channel_map.ChannelMap` holds the channels and picks one for FOR CHANNEL).

It owns the channel's :class:`~gtidkit.replication.channel.ChannelConfig` (stored in ``mysql.slave_master_info``),
its relay log (``relay``'s ``RelayLog``), the I/O thread (:class:`~gtidkit.replication.receiver.Receiver`) and the
SQL thread (``relay``'s ``Applier``). MySQL sources: ``sql/rpl_replica.cc`` (``start_slave``, ``stop_slave``,
``reset_slave``, ``change_master``, ``show_slave_status``, ``init_replica`` with ``--skip-replica-start``), the
manual pages "CHANGE REPLICATION SOURCE TO Statement", "START REPLICA", "RESET REPLICA" and "SHOW REPLICA STATUS
Statement" (8.4), and "Performance Schema Replication Tables".
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
import threading
import time
import uuid as uuidlib
from collections.abc import Callable
from typing import Any

from gtidkit.engine.api import THREAD_ID_OFFSET
from gtidkit.engine.apply import RELAY_LOG_INFO_DDL, RELAY_LOG_INFO_NEW_COLUMNS
from gtidkit.engine.results import Condition
from gtidkit.engine.sysvars import skip_error_codes
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import message, mysql_error
from gtidkit.replication.applier import Applier
from gtidkit.replication.channel import (
    BOTH_OPTIONS,
    EXECUTE_OPTIONS,
    RECEIVE_OPTIONS,
    ChannelConfig,
    ConnectionMetadata,
    canonical_options,
    check_password,
    ensure_metadata_table,
)
from gtidkit.replication.filters import FILTER_NAMES, ReplicationFilter
from gtidkit.replication.receiver import Receiver
from gtidkit.replication.relay_log import RelayLog
from gtidkit.replication.row_format import RowFormatRequired
from gtidkit.replication.until import Until

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

#: ``issue_deprecation_warnings_for_channel``'s text (warning 1287 with the 1681 message).
IGNORE_SERVER_IDS_DEPRECATED = "CHANGE MASTER TO ... IGNORE_SERVER_IDS='...' (when @@GLOBAL.GTID_MODE = ON)"
#: SOURCE_DELAY's maximum, seconds (``MASTER_DELAY_MAX`` = 2^31 - 1).
MAX_SOURCE_DELAY = 2**31 - 1

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
#: ``stage_sql_delay``: the applier holds a transaction back for SOURCE_DELAY.
SQL_STATE_DELAY = "Waiting until SOURCE_DELAY seconds after source executed event"


class Replica:
    """One replication channel of a replica server.

    Args:
        server: the engine ``Server``.
        channel: the channel name (``""`` = the default channel).

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
        #: ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS: ``""`` (OFF), ``"LOCAL"`` or a UUID
        self.assign_gtids = ""
        #: REQUIRE_ROW_FORMAT: the applier refuses what is not row-based (:mod:`~gtidkit.replication.row_format`)
        self.require_row_format = False
        self._load_applier_options()
        self.applier.gtid_only = self.config.gtid_only
        #: GTID_ONLY = 1 kept no positions while the server was down: the stored ones are stale until the
        #: channel applies a transaction (``m_is_receiver_position_info_invalid`` / ``is_applier_source_position_
        #: info_invalid`` of WL#7491)
        self._positions_invalid = self.exists and self.config.gtid_only
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

    def _recover_relay_log(self) -> None:
        """``relay_log_recovery=ON`` at start-up (``Relay_log_info::init_relay_log_pos`` / ``recover_relay_log``):
        the relay log is discarded and a new one started; the receiver fetches again from what the applier has
        executed (the applier's source coordinates without auto-positioning, gtid_executed with it)."""
        applied = self._applied_position()
        delay = self.applier.delay
        log.info("relay_log_recovery: discarding the relay log of channel '%s'", self.channel)
        self.relay.reset()
        if applied is not None and applied[2]:
            if not self.config.auto_position:
                self.config = ChannelConfig(
                    **{**_fields(self.config), "log_file": applied[2], "log_pos": applied[3]}
                )
                self.metadata.save(self.config)
            # the applier keeps its source coordinates (Relay_Source_Log_File / Exec_Source_Log_Pos)
            self._save_delay(delay, source=(applied[2], applied[3]))
        elif self._has_applier_options():
            self._save_applier_options()

    def _save_applier_options(self, *, source: tuple[str, int] | None = None) -> None:
        """The applier's options into the channel's ``mysql.slave_relay_log_info`` row (the applier metadata, as
        MySQL keeps them): Sql_delay (SOURCE_DELAY), Require_row_format, Assign_gtids_to_anonymous_transactions_type
        / _value; ``source``: the applier's source coordinates for a new row (relay log recovery)."""
        self._ensure_applier_metadata()
        table = self.server.storage.physical_name("mysql", "slave_relay_log_info")
        channel = self.channel
        src_file, src_pos = source or ("", 0)
        a = self.assign_gtids
        kind = "OFF" if not a else "LOCAL" if a == "LOCAL" else "UUID"
        value = None if not a else str(self.server.server_uuid) if a == "LOCAL" else a
        options = (self.applier.delay, int(self.require_row_format), kind, value)

        def write(db: Any) -> None:
            cur = db.execute(
                f'UPDATE "{table}" SET Sql_delay = ?, Require_row_format = ?, '
                "Assign_gtids_to_anonymous_transactions_type = ?, Assign_gtids_to_anonymous_transactions_value = ? "
                "WHERE Channel_name = ?",
                (*options, channel),
            )
            if cur.rowcount == 0:
                db.execute(
                    f'INSERT INTO "{table}" (Number_of_lines, Relay_log_name, Relay_log_pos, Master_log_name, '
                    "Master_log_pos, Sql_delay, Number_of_workers, Id, Channel_name, Require_row_format, "
                    "Assign_gtids_to_anonymous_transactions_type, Assign_gtids_to_anonymous_transactions_value) "
                    "VALUES (14, '', 4, ?, ?, ?, 0, 1, ?, ?, ?, ?)",
                    (src_file, src_pos, options[0], channel, *options[1:]),
                )

        self.server.write_txn(write)

    def _save_delay(self, delay: int, *, source: tuple[str, int] | None = None) -> None:
        """SOURCE_DELAY = ``delay`` and the applier's other options into the applier metadata."""
        self.applier.delay = delay
        self._save_applier_options(source=source)

    def _has_applier_options(self) -> bool:
        return bool(self.applier.delay or self.require_row_format or self.assign_gtids)

    def _ensure_applier_metadata(self) -> None:
        ensure_metadata_table(
            self.server, "slave_relay_log_info", RELAY_LOG_INFO_DDL, RELAY_LOG_INFO_NEW_COLUMNS
        )

    def _load_applier_options(self) -> None:
        """SOURCE_DELAY, REQUIRE_ROW_FORMAT and ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS from the applier metadata
        (they survive a restart, as in MySQL)."""
        storage = self.server.storage
        self._ensure_applier_metadata()  # MySQL has the table from --initialize on: tools read it on any server
        table = storage.physical_name("mysql", "slave_relay_log_info")
        row = self.server.read_txn(  # a read: no write lock
            lambda db: db.execute(
                "SELECT Sql_delay, Require_row_format, Assign_gtids_to_anonymous_transactions_type, "
                f'Assign_gtids_to_anonymous_transactions_value FROM "{table}" WHERE Channel_name = ?',
                (self.channel,),
            ).fetchone()
        )
        if row is None:
            return
        self.applier.delay = int(row[0])
        self.require_row_format = bool(row[1])
        kind, value = str(row[2] or "OFF"), row[3]
        self.assign_gtids = "" if kind == "OFF" else "LOCAL" if kind == "LOCAL" else str(value or "")
        self._install_row_format_check()

    # ------------------------------------------------------------------------------------------------ statements
    def change_source(self, options: dict[str, Any], *, secure: bool = False) -> list[Condition]:
        """CHANGE REPLICATION SOURCE TO / CHANGE MASTER TO (``change_master()``).

        Args:
            options: the classifier's ``{lowercase option name: value}``.
            secure: the client connection issuing the statement uses TLS (``thd->get_ssl()``).

        Returns:
            The conditions MySQL raises, in its order: warning 3023 (SOURCE_LOG_FILE without SOURCE_LOG_POS), note
            1759 (user or password over a connection without TLS), note 1760 (credentials stored), warning 1287 for
            IGNORE_SERVER_IDS with GTID_MODE = ON (``issue_deprecation_warnings_for_channel``).

        Raises:
            MySQLError: 3021 (I/O thread running), 3085 / 3081 (SOURCE_AUTO_POSITION with the SQL thread / both
                running), 1777 (auto-position with gtid_mode OFF), 1776 (auto-position with SOURCE_LOG_FILE/POS),
                3056 (password over 32 characters), 1235 / 1064 (unsupported / unknown option).
        """
        opts = canonical_options(options)
        with self._lock:
            io, sql = self.receiver.running, self.applier.running
            receive = any(o in RECEIVE_OPTIONS for o in opts)
            execute = any(o in EXECUTE_OPTIONS for o in opts)
            needs_sql_stop = "source_auto_position" in opts or execute
            if (io and receive and sql and needs_sql_stop) or (
                (io or sql) and any(o in BOTH_OPTIONS for o in opts)
            ):
                raise mysql_error(3081, self.channel)
            if io and receive:
                raise mysql_error(3021, self.channel)
            if sql and needs_sql_stop:
                raise mysql_error(3085, self.channel)
            agat = opts.pop("assign_gtids_to_anonymous_transactions", None)
            if agat is not None:
                agat = _assign_gtids_value(agat)
                if agat and _gtid_mode(self.server) != "ON":
                    raise mysql_error(4015)
            assign = self.assign_gtids if agat is None else agat
            if assign and bool(opts.get("source_auto_position", self.config.auto_position)):
                raise mysql_error(4014)
            delay = opts.pop("source_delay", None)
            if delay is not None and (not isinstance(delay, int) or not 0 <= delay <= MAX_SOURCE_DELAY):
                raise mysql_error(1064, "You have an error in your SQL syntax", str(delay), 1)
            auto = bool(opts.get("source_auto_position", self.config.auto_position))
            relay_at = self._relay_log_option(opts, auto)
            gtid_only, rrf = self._gtid_only_options(opts, auto)
            if opts.get("source_auto_position") == 1:
                mode = str(self.server.globals.get("gtid_mode")).upper()
                if mode == "OFF":
                    raise mysql_error(1777)
            if auto and ("source_log_file" in opts or "source_log_pos" in opts):
                raise mysql_error(1776)
            if "source_password" in opts:
                check_password(str(opts["source_password"]))
            if not any(
                o in opts for o in ("source_host", "source_port", "source_log_file", "source_log_pos")
            ):
                # change_master(): with neither host, port nor coordinates given, replication resumes from the
                # SQL thread's coordinates (the relay log, ahead of them, is purged below) unless GTID_ONLY left
                # them stale
                executed = self.executed_source_position()
                purge = not io and not sql and relay_at is None
                if executed is not None and purge and not self._invalid_positions():
                    opts = {**opts, "source_log_file": executed[0], "source_log_pos": executed[1]}
            new = self.config.changed(opts)
            notes: list[Condition] = []
            if agat:
                notes.append(Condition("Note", 4017, message(4017)))
            file_given = "source_log_file" in options or "master_log_file" in options
            if file_given and "source_log_pos" not in options and "master_log_pos" not in options:
                notes.append(Condition("Warning", 3023, message(3023)))
            if "source_user" in opts or "source_password" in opts:
                if not secure:
                    notes.append(Condition("Note", 1759, message(1759)))
                notes.append(Condition("Note", 1760, message(1760)))
            if "ignore_server_ids" in opts and new.ignore_server_ids and _gtid_mode(self.server) == "ON":
                notes.append(Condition("Warning", 1287, message(1681, IGNORE_SERVER_IDS_DEPRECATED)))
            # SOURCE_LOG_FILE and SOURCE_LOG_POS make the positions valid again, unless the relay log is kept
            # (RELAY_LOG_FILE / RELAY_LOG_POS: the applier's source position stays unknown, step 8 of
            # rpl_change_rep_source_to_gtid_only_syntax_pfs warns then)
            coords = "source_log_file" in opts and "source_log_pos" in opts and relay_at is None
            if gtid_only == 0 and self.config.gtid_only and self._invalid_positions() and not coords:
                notes.append(Condition("Warning", 4072, message(4072, self.channel)))
            if gtid_only is not None:
                new = dataclasses.replace(new, gtid_only=bool(gtid_only))
            self.metadata.save(new)
            self.config = new
            self.exists = True
            self.applier.gtid_only = new.gtid_only
            if coords:
                self._positions_invalid = False  # the coordinates given are valid ones
            if delay is not None:
                self.applier.delay = delay
            if agat is not None:
                self.assign_gtids = agat
            if rrf is not None:
                self.require_row_format = bool(rrf)
                self._install_row_format_check()
            if relay_at is not None:
                # RELAY_LOG_FILE / RELAY_LOG_POS: the relay log is kept and the applier starts there
                self._flush_applier_position(relay=relay_at)
            elif not io and not sql:
                # change_master(): with both threads stopped (and no RELAY_LOG_FILE / RELAY_LOG_POS), whatever the
                # options, the relay logs are purged and a new one started; the applier's source position becomes
                # the receiver's (none without a file name)
                self.relay.reset(keep_applied=True)
                source = (new.log_file, new.log_pos) if new.log_file else ("", 0)
                self._flush_applier_position(relay=(self.relay.index[0], 4), source=source)
            elif not sql:  # a running applier keeps writing its own (``if ((thread_mask & SLAVE_SQL) == 0)``)
                self._flush_applier_position()
            if (
                delay is not None
                or agat is not None
                or rrf is not None
                or (not io and not sql and self._has_applier_options())
            ):
                self._save_applier_options()
            return notes

    def _relay_log_option(self, opts: dict[str, Any], auto: bool) -> tuple[str, int] | None:
        """RELAY_LOG_FILE / RELAY_LOG_POS of a CHANGE REPLICATION SOURCE TO, removed from ``opts`` and checked
        (``change_execute_options()`` and ``Relay_log_info::init_relay_log_pos``): where the applier starts next.

        Args:
            opts: the canonical options (the two are popped).
            auto: SOURCE_AUTO_POSITION once the statement applies.

        Returns:
            (relay file, position) for the applier, or None when neither option is given. A file given as a path
            keeps its last component (the relay log's directory is the datadir); RELAY_LOG_POS alone keeps the
            applier's relay file, RELAY_LOG_FILE alone its position; a position below 4 is 4 (the magic number's
            end, as the parser adjusts it).

        Raises:
            MySQLError: 1776 with SOURCE_AUTO_POSITION = 1 (ER_BAD_REPLICA_AUTO_POSITION); 1380
                ER_RELAY_LOG_INIT when the file is not in the relay log index (the message of
                ``Relay_log_info::is_group_relay_log_name_invalid``, naming the index file); 1064 for a value of the
                wrong type.
        """
        name, pos = opts.pop("relay_log_file", None), opts.pop("relay_log_pos", None)
        if name is None and pos is None:
            return None
        if auto:
            raise mysql_error(1776)
        if name is not None and not isinstance(name, str):
            raise mysql_error(1064, "You have an error in your SQL syntax", str(name), 1)
        if pos is not None and (not isinstance(pos, int) or isinstance(pos, bool) or pos < 0):
            raise mysql_error(1064, "You have an error in your SQL syntax", str(pos), 1)
        current = self.applier.last_applied or self._applied_position()
        cur_file, cur_pos = (current[0], current[1]) if current is not None else ("", 4)
        file = name.replace("\\", "/").rsplit("/", 1)[-1] if name is not None else cur_file
        if file not in self.relay.index:
            raise mysql_error(
                1380,
                "Could not find target log file mentioned in relay log info in the index file "
                f"'{self.relay.index_path}' during relay log initialization",
            )
        return file, max(4, pos if pos is not None else cur_pos)

    def _flush_applier_position(
        self, *, relay: tuple[str, int] | None = None, source: tuple[str, int] | None = None
    ) -> None:
        """Write the applier's position as it is in memory into ``mysql.slave_relay_log_info``, as
        ``change_master()`` ends with ``rli->flush_info(RLI_FLUSH_IGNORE_GTID_ONLY)``: under GTID_ONLY = 1 too, the
        table then holds the current positions (step 6 / 8 of ``rpl_change_rep_source_to_gtid_only_syntax_pfs``).
        The SQL thread is stopped; the applier then goes by the table (its in-memory position is cleared).

        Args:
            relay: a new (relay file, position) for the applier (RELAY_LOG_FILE / RELAY_LOG_POS, or ``("", 4)``
                after the relay log was purged: the first relay file); its source position is kept unless
                ``source`` is given.
            source: a new (source file, position) executed up to (after a purge: the receiver's new coordinates,
                as ``change_master()`` copies them into the applier's).
        """
        current = self.applier.last_applied or self._applied_position()
        if current is None and relay is None:
            return
        r_file, r_pos, s_file, s_pos = current if current is not None else ("", 4, "", 0)
        if relay is not None:
            r_file, r_pos = relay
        if source is not None:
            s_file, s_pos = source
        self._ensure_applier_metadata()
        table = self.server.storage.physical_name("mysql", "slave_relay_log_info")
        row = (r_file, r_pos, s_file, s_pos)
        channel = self.channel

        def write(db: Any) -> None:
            cur = db.execute(
                f'UPDATE "{table}" SET Relay_log_name = ?, Relay_log_pos = ?, Master_log_name = ?, '
                "Master_log_pos = ? WHERE Channel_name = ?",
                (*row, channel),
            )
            if cur.rowcount == 0:
                db.execute(
                    f'INSERT INTO "{table}" (Number_of_lines, Relay_log_name, Relay_log_pos, Master_log_name, '
                    "Master_log_pos, Sql_delay, Number_of_workers, Id, Channel_name) VALUES (14, ?, ?, ?, ?, ?, 0, 1, ?)",
                    (*row, self.applier.delay, channel),
                )

        self.server.write_txn(write)
        if self.applier.last_applied is not None:
            self._positions_invalid = False  # what this run applied is now what the table holds
        # the applier (and SHOW REPLICA STATUS) go by the table from now on
        self.applier.last_applied = None

    def _invalid_positions(self) -> bool:
        """The stored positions are stale (GTID_ONLY = 1 across a restart) and nothing was applied since."""
        return self._positions_invalid and self.applier.last_applied is None

    def _gtid_only_options(self, opts: dict[str, Any], auto: bool) -> tuple[int | None, int | None]:
        """GTID_ONLY and REQUIRE_ROW_FORMAT of a CHANGE REPLICATION SOURCE TO, removed from ``opts`` and checked
        (``change_master()``'s checks; mysql-test ``rpl_change_rep_source_to_gtid_only_syntax_pfs``).

        Args:
            opts: the canonical options (GTID_ONLY and REQUIRE_ROW_FORMAT are popped).
            auto: SOURCE_AUTO_POSITION once the statement applies.

        Returns:
            (GTID_ONLY, REQUIRE_ROW_FORMAT) as given (0 / 1), None for one not given.

        Raises:
            MySQLError: 1064 for a GTID_ONLY other than 0 or 1 (``GTID_ONLY only accepts values 0 or 1``) or a
                quoted value; 3945 ER_REQUIRE_ROW_FORMAT_INVALID_VALUE; 4065 enabling GTID_ONLY without GTID_MODE
                = ON, SOURCE_AUTO_POSITION = 1 and REQUIRE_ROW_FORMAT = 1; 4066 / 4067 disabling
                REQUIRE_ROW_FORMAT / SOURCE_AUTO_POSITION while GTID_ONLY = 1; 4068 / 4069 disabling
                SOURCE_AUTO_POSITION without SOURCE_LOG_FILE and SOURCE_LOG_POS while the positions are stale.
        """
        gtid_only = opts.pop("gtid_only", None)
        rrf = opts.pop("require_row_format", None)
        for value in (gtid_only, rrf):
            if value is not None and not isinstance(value, int):
                text = str(value) if re.fullmatch(r"[A-Za-z_]+", str(value)) else f"'{value}'"
                raise mysql_error(1064, message(1149), text, 1)  # yyerror: ER_SYNTAX_ERROR's text
        if gtid_only is not None and gtid_only not in (0, 1):
            raise mysql_error(
                1064,
                "You have an error in your CHANGE REPLICATION SOURCE syntax; GTID_ONLY only accepts values 0 or 1",
                gtid_only,
                1,
            )
        if rrf is not None and rrf not in (0, 1):
            raise mysql_error(3945, rrf)
        cfg = self.config
        new_rrf = bool(rrf) if rrf is not None else self.require_row_format
        if gtid_only == 1 and not (_gtid_mode(self.server) == "ON" and auto and new_rrf):
            raise mysql_error(4065, self.channel)
        if cfg.gtid_only and gtid_only != 0:
            if rrf == 0:
                raise mysql_error(4066, self.channel)
            if opts.get("source_auto_position") == 0:
                raise mysql_error(4067, self.channel)
        coords = "source_log_file" in opts and "source_log_pos" in opts
        if opts.get("source_auto_position") == 0 and self._invalid_positions() and not coords:
            raise mysql_error(4068 if gtid_only == 0 else 4069, self.channel)
        return gtid_only, rrf

    def set_filter(self, f: Any) -> None:
        """Make ``f`` (a :class:`~gtidkit.replication.filters.ReplicationFilter`) the channel's filters."""
        self.applier.filter = f
        self._install_row_format_check()

    def _install_row_format_check(self) -> None:
        """The applier's filters wrapped with the REQUIRE_ROW_FORMAT check when the option is set, unwrapped
        otherwise (:class:`~gtidkit.replication.row_format.RowFormatRequired`)."""
        f = self.applier.filter
        inner = f.inner if isinstance(f, RowFormatRequired) else f
        self.applier.filter = RowFormatRequired(inner) if self.require_row_format else inner

    def start(self, io: bool = True, sql: bool = True, *, until: Until | None = None) -> list[Condition]:
        """START REPLICA [IO_THREAD] [SQL_THREAD] [UNTIL ...] (``start_slave()``).

        Args:
            io, sql: the threads named (both when none is).
            until: the UNTIL condition (:func:`~gtidkit.replication.until.parse_until`), or None.

        Returns:
            Note 3083 when every requested thread already runs; note 1279 ER_UNTIL_COND_IGNORED when UNTIL is given
            but the SQL thread is not started; note 1278 ER_MISSING_SKIP_REPLICA for UNTIL coordinates without
            ``--skip-replica-start``.

        Raises:
            MySQLError: 1200 when the channel has no source configured; 3112 for SOURCE_AUTO_POSITION with
                GTID_MODE = OFF.
        """
        with self._lock:
            if not self.config.configured:
                raise mysql_error(1200)
            if io and self.config.auto_position and _gtid_mode(self.server) == "OFF":
                raise mysql_error(3112, _for_channel(self.channel))
            if self.config.gtid_only and _gtid_mode(self.server) != "ON":
                raise mysql_error(4071, f" for channel '{self.channel}'")
            if (not io or self.receiver.running) and (not sql or self.applier.running):
                return [Condition("Note", 3083, message(3083, self.channel))]
            notes: list[Condition] = []
            if (
                self.assign_gtids
                and until is not None
                and until.kind in ("SQL_BEFORE_GTIDS", "SQL_AFTER_GTIDS")
            ):
                raise mysql_error(4019)
            self.receiver.assign_gtids = bool(self.assign_gtids)
            sid = self.assign_gtids
            self.applier.anonymous_sid = str(self.server.server_uuid) if sid == "LOCAL" else sid or None
            if sql and not self.applier.running:
                self._applier_settings()
                self.applier.until = until
                if until is not None and until.by_position and not _skip_replica_start(self.server):
                    notes.append(Condition("Note", 1278, message(1278)))
                self.applier.start()
            elif until is not None:
                notes.append(Condition("Note", 1279, message(1279)))
            if io and not self.receiver.running:
                self.receiver.start()
            return notes

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
            self._positions_invalid = False  # RESET REPLICA stores reset positions
            if all_:
                self.metadata.delete(self.channel)
                self.config = ChannelConfig(channel=self.channel)
                self.exists = False
                self.applier.delay = 0
                self.assign_gtids = ""
                self.require_row_format = False
                self.applier.gtid_only = False
                self._install_row_format_check()
            elif self._has_applier_options():
                self._save_applier_options()  # the applier metadata row went with the relay log
            else:
                self.config = ChannelConfig(**{**_fields(self.config), "log_file": "", "log_pos": 4})
                if self.exists:
                    self.metadata.save(self.config)

    def check_gtid_mode_change(self, old: str, new: str) -> None:
        """SET GLOBAL gtid_mode's checks on the channel (``Sys_var_gtid_mode::global_update``): OFF is refused
        while it uses SOURCE_AUTO_POSITION.

        Raises:
            MySQLError: 3111.
        """
        if old == "ON" and new != "ON" and self.assign_gtids:
            ch = self.channel
            raise mysql_error(
                3111,
                new,
                f"replication channel '{ch}' is configured with ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS set to LOCAL "
                f"or to a UUID. Execute CHANGE REPLICATION SOURCE TO ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS = OFF "
                f"FOR CHANNEL '{ch}' before you set @@GLOBAL.GTID_MODE = '{new}'",
            )
        if new != "ON" and self.exists and self.config.gtid_only:
            ch = self.channel
            raise mysql_error(
                3111,
                new,
                f"replication channel '{ch}' is configured with GTID_ONLY = 1. Execute CHANGE REPLICATION SOURCE TO "
                f"GTID_ONLY = 0 FOR CHANNEL '{ch}' before you set @@GLOBAL.GTID_MODE = '{new}'",
            )
        if new == "OFF" and self.exists and self.config.auto_position:
            ch = self.channel
            raise mysql_error(
                3111,
                "OFF",
                f"replication channel '{ch}' is configured in AUTO_POSITION mode. Execute CHANGE REPLICATION "
                f"SOURCE TO SOURCE_AUTO_POSITION = 0 FOR CHANNEL '{ch}' before you set @@GLOBAL.GTID_MODE = OFF.",
            )

    # ------------------------------------------------------------------------------------------------ status
    def seconds_behind_source(self) -> int | None:
        """Seconds_Behind_Source (``show_slave_status`` / ``Relay_log_info::last_master_timestamp``): NULL unless
        both threads run; 0 when the applier has executed everything received; else now minus the source-clock
        timestamp of the transaction the applier is processing (or, between two, of the last one it applied),
        corrected by the clock difference. RM8 "SHOW REPLICA STATUS": "the difference between the current timestamp
        on the replica and the original timestamp logged on the source for the event currently being processed on
        the replica" -- not the last event received, which would show no lag while the applier falls behind a
        receiver that keeps up."""
        if not (self.receiver.running and self.applier.running):
            return None
        if not self.receiver.connected:
            return None
        retrieved = self.relay.retrieved_gtids()
        executed = self.server.gtid_state.executed()
        if retrieved <= executed:
            return 0
        ts = self.applier.source_timestamp
        if not ts:  # nothing processed yet (MySQL: a zero last_master_timestamp shows 0)
            return 0
        return max(0, int(time.time() - self.receiver.clock_diff - ts))

    def status_row(self, *, slave: bool = False) -> tuple[Any, ...]:
        """The SHOW REPLICA STATUS row (column order of :data:`REPLICA_STATUS_COLUMNS`; ``slave``: SHOW SLAVE
        STATUS, whose Until_Condition says ``Master`` for source coordinates)."""
        cfg = self.config
        rcv, app = self.receiver, self.applier
        io_running = "Yes" if rcv.running and rcv.connected else ("Connecting" if rcv.running else "No")
        src_file, src_pos = self.relay.source_position()
        if (
            not src_file
        ):  # nothing received yet: the stored coordinates (``Master_info``'s, as MySQL shows them)
            src_file, src_pos = cfg.log_file, cfg.log_pos
        relay_file, relay_pos = self.relay.position()
        applied = app.last_applied
        if applied is None:
            pos = self._applied_position()
            applied = pos if pos is not None else None
        exec_file, exec_pos = (applied[2], applied[3]) if applied is not None else ("", 0)
        if applied is not None:
            relay_file, relay_pos = applied[0] or relay_file, applied[1] or relay_pos
        io_err, sql_err = rcv.last_error, app.last_error
        until = app.until
        retrieved = self.relay.retrieved_gtids()
        executed = self.server.gtid_state.executed()
        sql_state = ""
        delay_until = app.delay_until
        remaining = None
        if app.running:
            sql_state = SQL_STATE_WAITING if retrieved <= executed else SQL_STATE_APPLYING
            if delay_until is not None:
                sql_state = SQL_STATE_DELAY
                remaining = max(0, math.ceil(delay_until - time.time()))
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
            app.filter.rule_text("REPLICATE_DO_DB"),
            app.filter.rule_text("REPLICATE_IGNORE_DB"),
            app.filter.rule_text("REPLICATE_DO_TABLE"),
            app.filter.rule_text("REPLICATE_IGNORE_TABLE"),
            app.filter.rule_text("REPLICATE_WILD_DO_TABLE"),
            app.filter.rule_text("REPLICATE_WILD_IGNORE_TABLE"),
            sql_err.errno if sql_err else 0,
            sql_err.coordinator_message if sql_err else "",
            0,
            exec_pos,
            self._relay_space(),
            until.condition(slave) if until is not None else "None",
            until.file if until is not None else "",
            until.pos if until is not None else 0,
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
            ", ".join(str(i) for i in cfg.ignore_server_ids),
            rcv.source_server_id,
            rcv.source_uuid or cfg.uuid,
            "mysql.slave_master_info",
            app.delay,
            remaining,
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
            app.filter.rule_text("REPLICATE_REWRITE_DB"),
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
                "1" if c.gtid_only else "0",
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
        io_id = self._receiver_thread_id()
        state = "ON" if rcv.running and rcv.connected else ("CONNECTING" if rcv.running else "OFF")
        lq, qq = rcv.last_queued_times, rcv.queueing_times
        return [
            (
                self.channel,
                "",
                rcv.source_uuid or self.config.uuid,
                io_id + THREAD_ID_OFFSET if io_id is not None else None,
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
        """``performance_schema.replication_applier_status``: SERVICE_STATE ON / OFF, REMAINING_DELAY (seconds
        left while a transaction is held back for SOURCE_DELAY, else NULL)."""
        if not self.exists:
            return []
        until = self.applier.delay_until
        remaining = max(0, math.ceil(until - time.time())) if until is not None else None
        return [(self.channel, "ON" if self.applier.running else "OFF", remaining, 0)]

    def applier_configuration_rows(self) -> list[tuple[Any, ...]]:
        """``performance_schema.replication_applier_configuration``: DESIRED_DELAY (SOURCE_DELAY),
        REQUIRE_ROW_FORMAT YES / NO, REQUIRE_TABLE_PRIMARY_KEY_CHECK STREAM (the default; not settable here),
        ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS_TYPE / _VALUE (OFF / NULL, LOCAL / server_uuid, UUID / the UUID)."""
        if not self.exists:
            return []
        a = self.assign_gtids
        kind = "OFF" if not a else "LOCAL" if a == "LOCAL" else "UUID"
        value = None if not a else str(self.server.server_uuid) if a == "LOCAL" else a
        rrf = "YES" if self.require_row_format else "NO"
        return [(self.channel, self.applier.delay, None, rrf, "STREAM", kind, value)]

    def applier_filters_rows(self) -> list[tuple[Any, ...]]:
        """``performance_schema.replication_applier_filters``: the channel's filters (copies of the global ones
        unless set for the channel), with COUNTER (times a rule decided)."""
        if not self.exists:
            return []
        f = self.applier.filter
        rows = []
        for name in FILTER_NAMES:
            if f.rules(name):
                by, since = f.configured_by.get(name, ("STARTUP_OPTIONS", 0.0))
                rows.append(
                    (self.channel, name, f.rule_text(name), by, ps_timestamp(since), f.counters.get(name, 0))
                )
        return rows

    def change_filter(self, rules: dict[str, tuple[Any, ...]], configured_by: str) -> None:
        """CHANGE REPLICATION FILTER on this channel (``Sql_cmd_change_repl_filter``): each named filter kind is
        replaced (``()`` clears it), the others stay.

        Args:
            rules: ``{FILTER_NAME: rules}`` (:func:`~gtidkit.replication.filters.parse_filter_statement`).
            configured_by: performance_schema's CONFIGURED_BY (``CHANGE_REPLICATION_FILTER`` for the global
                statement, ``CHANGE_REPLICATION_FILTER_FOR_CHANNEL`` with FOR CHANNEL).

        Raises:
            MySQLError: 3017 ER_REPLICA_SQL_THREAD_MUST_STOP while the SQL thread runs.
        """
        with self._lock:
            if self.applier.running:
                raise mysql_error(3017)
            f = self.applier.filter
            for name, values in rules.items():
                f = f.changed(name, values, configured_by)
            self.set_filter(f)

    def _receiver_thread_id(self) -> int | None:
        """The receiver's processlist id while it runs (reserved the first time it is asked for), else None."""
        rcv = self.receiver
        if not rcv.running:
            return None
        if rcv.thread_id is None:
            rcv.thread_id = self.server.reserve_id()
        return int(rcv.thread_id)

    def thread_rows(self) -> list[dict[str, Any]]:
        """performance_schema.threads rows of the running replication threads (8.0.26+ names): the receiver
        ``thread/sql/replica_io``, the applier's coordinator ``thread/sql/replica_sql`` and its one worker
        ``thread/sql/replica_worker``, with PROCESSLIST_USER ``system user`` as MySQL shows them, COMMAND
        ``Connect`` and the thread's state (RM8 "The threads Table", "Replication Threads")."""
        rows: list[dict[str, Any]] = []
        rcv, app = self.receiver, self.applier
        io_id = self._receiver_thread_id()
        if io_id is not None:
            rows.append(_thread_row(io_id, "replica_io", rcv.state))
        if app.running and app.session_id is not None:
            retrieved = self.relay.retrieved_gtids()
            state = (
                SQL_STATE_WAITING if retrieved <= self.server.gtid_state.executed() else SQL_STATE_APPLYING
            )
            rows.append(_thread_row(app.session_id, "replica_sql", state))
            if app.worker_id is None:
                app.worker_id = self.server.reserve_id()
            worker = (
                "Waiting for an event from Coordinator"
                if app.applying is None
                else "Applying batch of row changes"
            )
            rows.append(_thread_row(app.worker_id, "replica_worker", worker))
        return rows

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
        tid = app.session_id + THREAD_ID_OFFSET if app.running and app.session_id is not None else None
        return [
            (
                self.channel,
                tid,
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
            if workers and app.running and app.worker_id is None:
                app.worker_id = self.server.reserve_id()
            thread = app.worker_id if workers else app.session_id  # 0 workers: the SQL thread applies
            tid = thread + THREAD_ID_OFFSET if app.running and thread is not None else None
            rows.append(
                (
                    self.channel,
                    worker,
                    tid,
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
        row = self.server.read_txn(  # a read: no write lock
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
        if self.config.configured and not _skip_replica_start(self.server):
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


def _thread_row(pid: int, name: str, state: str) -> dict[str, Any]:
    return {
        "THREAD_ID": pid + THREAD_ID_OFFSET,
        "NAME": f"thread/sql/{name}",
        "TYPE": "FOREGROUND",
        "PROCESSLIST_ID": pid,
        "PROCESSLIST_USER": "system user",
        "PROCESSLIST_HOST": None,
        "PROCESSLIST_DB": None,
        "PROCESSLIST_COMMAND": "Connect",
        "PROCESSLIST_TIME": 0,
        "PROCESSLIST_STATE": state or None,
        "PROCESSLIST_INFO": None,
        "PARENT_THREAD_ID": 1,
        "INSTRUMENTED": "YES",
        "HISTORY": "YES",
        "CONNECTION_TYPE": None,
        "RESOURCE_GROUP": "SYS_default",
    }


def _assign_gtids_value(value: Any) -> str:
    """ASSIGN_GTIDS_TO_ANONYMOUS_TRANSACTIONS' value: ``""`` for OFF, ``"LOCAL"``, or the UUID (normalised).

    Raises:
        MySQLError: 1064 for something else.
    """
    text = str(value).strip()
    if text.upper() in ("OFF", "LOCAL"):
        return "" if text.upper() == "OFF" else "LOCAL"
    try:
        return str(uuidlib.UUID(text))
    except ValueError as err:
        raise mysql_error(1064, "You have an error in your SQL syntax", text, 1) from err


def _global_bool(server: Any, name: str) -> bool:
    try:
        return bool(server.globals.get(name))
    except Exception:  # noqa: BLE001 - a build without the variable: OFF
        return False


def _skip_replica_start(server: Any) -> bool:
    return _global_bool(server, "skip_replica_start")


def _gtid_mode(server: Any) -> str:
    return str(server.globals.get("gtid_mode")).upper()


def _for_channel(channel: str) -> str:
    """MySQL's ``get_for_channel_str()``: ``""`` for the default channel, else `` for channel 'name'``."""
    return f" for channel '{channel}'" if channel else ""


def _fields(cfg: ChannelConfig) -> dict[str, Any]:
    return {f: getattr(cfg, f) for f in cfg.__dataclass_fields__}


#: the performance_schema replication tables: name -> the :class:`Replica` method giving one channel's rows
#: (``replication_applier_global_filters`` is the channel map's own: ``ChannelMap.applier_global_filters_rows``)
PS_CHANNEL_TABLES = {
    "replication_connection_configuration": "connection_configuration_rows",
    "replication_connection_status": "connection_status_rows",
    "replication_applier_status": "applier_status_rows",
    "replication_applier_filters": "applier_filters_rows",
    "replication_applier_configuration": "applier_configuration_rows",
    "replication_applier_status_by_coordinator": "coordinator_status_rows",
    "replication_applier_status_by_worker": "worker_status_rows",
}
GLOBAL_FILTERS_TABLE = "replication_applier_global_filters"


def install(
    engine_server: Any, wire_server: Any, repl: Any, *, filters: dict[str, tuple[str, ...]] | None = None
) -> Any:
    """Plug the replica role into a server: its channels (:class:`~gtidkit.replication.channel_map.ChannelMap`),
    its statements in the engine's statement specs, performance_schema tables, SOURCE_POS_WAIT, start at boot.

    The channels (relay logs, metadata, threads) exist only in the process that runs the server's singletons
    (``engine_server.singletons``: a one-process server, or worker 0 of several and its replacement), which also
    answers the other workers' requests (:class:`~gtidkit.replication.forward.ReplicaService`); any other worker
    installs :class:`~gtidkit.replication.forward.RemoteReplica`, which forwards the same statements, SHOWs,
    tables and functions there (issue 21: the replication threads exist once).

    Args:
        engine_server: the engine ``Server``.
        wire_server: the ``WireServer`` (unused by the replica role).
        repl: the :class:`gtidkit.replication.Replication` (its shutdown stops the threads).
        filters: the ``replicate_*`` start-up options (``{name: values}``).

    Raises:
        ValueError: a filter rule mysqld refuses at start-up.

    Returns:
        The ``ChannelMap``, or in another worker the ``RemoteReplica`` (also ``repl.roles["replica"]``).
    """
    # cycle break: channel_map and statements import this module's Replica
    from gtidkit.replication import statements
    from gtidkit.replication.channel_map import ChannelMap, split_filter_options
    from gtidkit.replication.forward import RemoteReplica, ReplicaService
    from gtidkit.replication.pos_wait import pos_wait_functions

    global_rules, channel_rules = split_filter_options(filters or {})
    global_filter = ReplicationFilter.from_options(global_rules)  # refused rules: ValueError in every process
    per_channel = {
        ch: ReplicationFilter.from_options(rules, "STARTUP_OPTIONS_FOR_CHANNEL")
        for ch, rules in channel_rules.items()
    }
    tables = (*PS_CHANNEL_TABLES, GLOBAL_FILTERS_TABLE)
    if not engine_server.singletons:
        # another worker of a multi-worker server: the channels, their relay logs and threads live in the process
        # with the singletons; this one asks it (replication/forward.py) and never opens a relay log
        remote = RemoteReplica(engine_server)
        remote.install(tables)
        repl.roles["replica"] = remote
        return remote
    channels = ChannelMap(engine_server, global_filter, per_channel)
    statements.register(engine_server, channels)
    engine_server.gtid_mode_guards.append(channels.check_gtid_mode_change)
    engine_server.thread_providers.append(channels.rows("thread_rows"))
    providers: dict[str, Callable[[], list[Any]]] = {
        t: channels.rows(method) for t, method in PS_CHANNEL_TABLES.items()
    }
    providers[GLOBAL_FILTERS_TABLE] = channels.applier_global_filters_rows
    engine_server.storage.table_providers.update({("performance_schema", t): p for t, p in providers.items()})
    engine_server.function_providers.append(pos_wait_functions(channels))
    ReplicaService(engine_server, channels, providers).register()
    repl.roles["replica"] = channels
    repl.on_shutdown(channels.shutdown)
    channels.start_at_boot()  # the process with the singletons: the threads start as at a mysqld start
    return channels
