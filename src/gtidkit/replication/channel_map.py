"""Multi-source replication: the replica's channels, one :class:`~gtidkit.replication.replica.Replica` each.

A replica has the default channel ``''`` (it always exists, configured or not) and any number of named channels,
created by ``CHANGE REPLICATION SOURCE TO ... FOR CHANNEL 'name'`` and removed by ``RESET REPLICA ALL FOR CHANNEL
'name'``. Each channel has its own receiver (I/O thread), applier (SQL thread), relay log
(``<relay_log>-<channel>.NNNNNN``), connection metadata row (``mysql.slave_master_info``) and applier metadata row
(``mysql.slave_relay_log_info``), both keyed by ``Channel_name``; a restart re-creates every channel with a row. All
channels commit into the one ``gtid_executed``.

Which channel a statement acts on (MySQL manual "Compatibility with Previous Replication Statements", and
``start_slave_cmd`` / ``stop_slave_cmd`` / ``reset_slave_cmd`` / ``change_master_cmd`` / ``show_slave_status_cmd``
of ``sql/rpl_replica.cc``):

====================================  =========================================  ==================================
statement                             without FOR CHANNEL                        FOR CHANNEL 'x', x unknown
====================================  =========================================  ==================================
CHANGE REPLICATION SOURCE TO          the default channel; 3079 with several     creates x (3076 bad name, 3080
                                                                                 over 256 channels, 3139 for the
                                                                                 group replication names)
START / STOP REPLICA                  every configured channel (UNTIL: 3079      3074
                                      with several)
RESET REPLICA [ALL]                   every channel (ALL: all named channels     3074
                                      deleted, the default one emptied)
SHOW REPLICA STATUS                   one row per configured channel, by name    3074
SHOW RELAYLOG EVENTS                  the default channel; 3079 with several     3074
CHANGE REPLICATION FILTER             every channel and the global filters       3074
SOURCE_POS_WAIT(f, p[, t])            the default channel; 3079 with several     NULL
====================================  =========================================  ==================================

Channel names are case-insensitive (the parser lowercases them), at most 64 characters, not blank
(``ER_REPLICA_CHANNEL_NAME_INVALID_OR_TOO_LONG``); ``group_replication_applier`` and ``group_replication_recovery``
are reserved for Group Replication, which gtidkit does not have. Counting channels, the default one counts too
(``channel_map.get_num_instances()``): once a named channel exists, statements without FOR CHANNEL that need one
channel give 3079.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

from gtidkit.engine.results import Condition
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error
from gtidkit.replication.channel import ConnectionMetadata
from gtidkit.replication.filters import FILTER_NAMES, ReplicationFilter
from gtidkit.replication.replica import Replica, ps_timestamp
from gtidkit.replication.until import Until

log = logging.getLogger(__name__)

__all__ = [
    "CHANNEL_NAME_LENGTH",
    "GROUP_REPLICATION_CHANNELS",
    "MAX_CHANNELS",
    "ChannelMap",
    "split_filter_options",
]

#: MySQL's ``CHANNEL_NAME_LENGTH``: the longest channel name, characters (manual "Replication Channel Naming
#: Conventions").
CHANNEL_NAME_LENGTH = 64
#: ``Multisource_info::MAX_CHANNELS``: channels a replica may have, the default one included.
MAX_CHANNELS = 256
#: Names reserved for Group Replication's own channels (``Multisource_info::is_group_replication_channel_name``).
GROUP_REPLICATION_CHANNELS = ("group_replication_applier", "group_replication_recovery")


def split_filter_options(
    options: dict[str, tuple[str, ...]],
) -> tuple[dict[str, tuple[str, ...]], dict[str, dict[str, tuple[str, ...]]]]:
    """The ``replicate_*`` start-up options split into the global rules and each channel's: a rule written
    ``channel:rule`` (``--replicate-do-db=channel_1:db1``) belongs to that channel (lowercased, as channel names
    are; ``:rule`` names the default channel), any other to every channel (``Rpl_channel_filters``, manual
    "Replication Channel Based Filters").

    Returns:
        (global ``{option: rules}``, ``{channel: {option: rules}}``).
    """
    global_rules: dict[str, list[str]] = {}
    per_channel: dict[str, dict[str, list[str]]] = {}
    for option, values in options.items():
        for value in values:
            channel, sep, rule = value.partition(":")
            if sep:
                per_channel.setdefault(channel.lower(), {}).setdefault(option, []).append(rule)
            else:
                global_rules.setdefault(option, []).append(value)
    return (
        {k: tuple(v) for k, v in global_rules.items()},
        {ch: {k: tuple(v) for k, v in opts.items()} for ch, opts in per_channel.items()},
    )


class ChannelMap:
    """The channels of one replica server (MySQL's ``Multisource_info channel_map``).

    Args:
        server: the engine ``Server``.
        global_filter: the filters of the ``replicate_*`` start-up options; each channel starts with a copy.

    Attributes:
        channels: channel name -> :class:`Replica`; the default channel ``''`` is always present.
        global_filter: the global filters (performance_schema.replication_applier_global_filters).
    """

    def __init__(
        self,
        server: Any,
        global_filter: ReplicationFilter | None = None,
        channel_filters: dict[str, ReplicationFilter] | None = None,
    ) -> None:
        self.server = server
        self.global_filter = global_filter or ReplicationFilter()
        #: the start-up filters given for one channel (``--replicate-do-db=channel_1:db1``), by channel
        self.channel_filters = dict(channel_filters or {})
        self._lock = threading.RLock()
        self.channels: dict[str, Replica] = {}
        for name in sorted({"", *ConnectionMetadata(server).channels()}):
            self.channels[name] = self._open(name)

    def _open(self, name: str) -> Replica:
        replica = Replica(self.server, name)
        replica.set_filter(self._startup_filter(name))
        return replica

    def _startup_filter(self, name: str) -> ReplicationFilter:
        """A channel's filters at creation: the global ones, each kind replaced by the channel's own start-up
        rules when it has some (CONFIGURED_BY ``STARTUP_OPTIONS_FOR_CHANNEL``; manual "Replication Channel Based
        Filters")."""
        g = self.global_filter
        # the channel's own copy: COUNTER (rules applied) is per channel
        f = dataclasses.replace(g, configured_by=dict(g.configured_by), counters={})
        own = self.channel_filters.get(name)
        if own is not None:
            for kind in FILTER_NAMES:
                if own.rules(kind):
                    f = f.changed(kind, own.rules(kind), "STARTUP_OPTIONS_FOR_CHANNEL")
        return f

    def __iter__(self) -> Iterator[Replica]:
        """The channels, ordered by name (the default channel first), as SHOW REPLICA STATUS lists them."""
        with self._lock:
            return iter([self.channels[n] for n in sorted(self.channels)])

    @property
    def default(self) -> Replica:
        """The default channel ``''``."""
        return self.channels[""]

    def several(self) -> bool:
        """More than one channel exists (``channel_map.get_num_instances() > 1``)."""
        return len(self.channels) > 1

    def get(self, channel: str) -> Replica:
        """The channel named ``channel`` (FOR CHANNEL given).

        Raises:
            MySQLError: 3074 ER_REPLICA_CHANNEL_DOES_NOT_EXIST.
        """
        replica = self.channels.get(channel)
        if replica is None:
            raise mysql_error(3074, channel)
        return replica

    def one(self, channel: str | None) -> Replica:
        """The channel a statement that acts on one channel names, or the default one without FOR CHANNEL.

        Raises:
            MySQLError: 3079 ER_REPLICA_MULTIPLE_CHANNELS_CMD without FOR CHANNEL when several channels exist;
                3074 for an unknown channel.
        """
        if channel is None:
            if self.several():
                raise mysql_error(3079)
            return self.default
        return self.get(channel)

    def _configured(self) -> list[Replica]:
        """The channels START / STOP REPLICA without FOR CHANNEL act on (``Master_info::is_configured``)."""
        return [r for r in self if r.config.configured]

    # ------------------------------------------------------------------------------------------------ statements
    def change_source(
        self, options: dict[str, Any], channel: str | None, *, secure: bool = False
    ) -> list[Condition]:
        """CHANGE REPLICATION SOURCE TO ... [FOR CHANNEL 'x'] (``change_master_cmd``): an unknown named channel is
        created first, and removed again when the statement fails.

        Raises:
            MySQLError: 3079 without FOR CHANNEL when several channels exist; 3139 for a Group Replication channel
                name; 3080 beyond :data:`MAX_CHANNELS`; 3076 for a name over 64 characters or blank; whatever
                :meth:`Replica.change_source` raises.
        """
        with self._lock:
            if channel is None and self.several():
                raise mysql_error(3079)
            name = channel or ""
            if name in GROUP_REPLICATION_CHANNELS:
                raise mysql_error(3139, "CHANGE REPLICATION SOURCE with the given parameters", name)
            replica = self.channels.get(name)
            created = replica is None
            if replica is None:
                if len(self.channels) >= MAX_CHANNELS:
                    raise mysql_error(3080)
                if len(name) > CHANNEL_NAME_LENGTH or not name.strip():
                    raise mysql_error(3076)
                replica = self.channels[name] = self._open(name)
            try:
                return replica.change_source(options, secure=secure)
            except BaseException:
                if created:
                    self._remove(name)
                raise

    def start(self, io: bool, sql: bool, until: Until | None, channel: str | None) -> list[Condition]:
        """START REPLICA [threads] [UNTIL ...] [FOR CHANNEL] (``start_slave_cmd``). Without FOR CHANNEL and several
        channels, every configured channel is started; a channel that fails is logged and the others still start,
        then the first error is raised (``start_slave(THD*)``).

        Raises:
            MySQLError: 3079 for UNTIL without FOR CHANNEL when several channels exist; 3074; what
                :meth:`Replica.start` raises.
        """
        with self._lock:
            if channel is not None:
                return self.get(channel).start(io, sql, until=until)
            if not self.several():
                return self.default.start(io, sql, until=until)
            if until is not None:
                raise mysql_error(3079)
            return self._each(self._configured(), lambda r: r.start(io, sql), "start")

    def stop(self, io: bool, sql: bool, channel: str | None) -> list[Condition]:
        """STOP REPLICA [threads] [FOR CHANNEL] (``stop_slave_cmd``): without FOR CHANNEL every configured channel.

        Raises:
            MySQLError: 3074.
        """
        with self._lock:
            if channel is not None:
                return self.get(channel).stop(io, sql)
            if not self.several():
                return self.default.stop(io, sql)
            return self._each(self._configured(), lambda r: r.stop(io, sql), "stop")

    @staticmethod
    def _each(
        replicas: list[Replica], act: Callable[[Replica], list[Condition]], what: str
    ) -> list[Condition]:
        notes: list[Condition] = []
        first: MySQLError | None = None
        for r in replicas:
            try:
                notes += act(r)
            except MySQLError as err:
                log.error("Replica: could not %s replica for channel '%s': %s", what, r.channel, err)
                first = first or err
        if first is not None:
            raise first
        return notes

    def reset(self, all_: bool, channel: str | None) -> None:
        """RESET REPLICA [ALL] [FOR CHANNEL] (``reset_slave_cmd``). ALL deletes a named channel (its relay log
        files, index and metadata rows); the default channel is emptied instead (it always exists). Without FOR
        CHANNEL every channel is reset in name order, stopping at the first that fails.

        Raises:
            MySQLError: 3074; 3081 for a channel whose threads run.
        """
        with self._lock:
            targets = [self.get(channel)] if channel is not None else list(self)
            for r in targets:
                r.reset(all_)
                if all_ and r.channel:
                    self._remove(r.channel)

    def flush_relay_logs(self, channel: str | None) -> None:
        """FLUSH RELAY LOGS [FOR CHANNEL] (``flush_relay_logs_cmd``): a new relay file for the named channel, or
        for every channel.

        Raises:
            MySQLError: 3074 for an unknown channel.
        """
        with self._lock:
            for r in [self.get(channel)] if channel is not None else list(self):
                r.relay.flush()

    def _remove(self, name: str) -> None:
        replica = self.channels.pop(name)
        replica.receiver.stop()
        replica.applier.stop()
        replica.metadata.delete(name)
        replica.relay.delete()
        replica.shutdown()

    def status_rows(self, channel: str | None, *, slave: bool) -> list[tuple[Any, ...]]:
        """SHOW REPLICA STATUS [FOR CHANNEL] rows: one per configured channel (by name), or the named one.

        Raises:
            MySQLError: 3074.
        """
        with self._lock:
            targets = [self.get(channel)] if channel is not None else list(self)
            return [r.status_row(slave=slave) for r in targets if r.exists]

    def errant_gtids(self, channel: str | None) -> list[str]:
        """The receivers' errant-GTID reports (SHOW REPLICA STATUS's warning), of the channels it shows."""
        targets = [self.channels[channel]] if channel in self.channels else list(self)
        return [r.receiver.errant_gtids for r in targets if r.exists and r.receiver.errant_gtids]

    def change_filter(self, rules: dict[str, tuple[Any, ...]], channel: str | None) -> None:
        """CHANGE REPLICATION FILTER ... [FOR CHANNEL] (``Sql_cmd_change_repl_filter``): with FOR CHANNEL the
        channel's own filters (CONFIGURED_BY ``CHANGE_REPLICATION_FILTER_FOR_CHANNEL``); without, the global
        filters and every channel's (``CHANGE_REPLICATION_FILTER``), refused while any SQL thread runs.

        Raises:
            MySQLError: 3074; 3017 ER_REPLICA_SQL_THREAD_MUST_STOP.
        """
        with self._lock:
            if channel is not None:
                self.get(channel).change_filter(rules, "CHANGE_REPLICATION_FILTER_FOR_CHANNEL")
                return
            if any(r.applier.running for r in self):
                raise mysql_error(3017)
            f = self.global_filter
            for name, values in rules.items():
                f = f.changed(name, values, "CHANGE_REPLICATION_FILTER")
            self.global_filter = f
            for r in self:
                r.change_filter(rules, "CHANGE_REPLICATION_FILTER")

    def check_gtid_mode_change(self, old: str, new: str) -> None:
        """SET GLOBAL gtid_mode's checks on every channel (:meth:`Replica.check_gtid_mode_change`)."""
        for r in self:
            r.check_gtid_mode_change(old, new)

    # ------------------------------------------------------------------------------------------------ p_s tables
    def rows(self, table: str) -> Callable[[], list[Any]]:
        """A table provider returning every channel's rows of ``table`` (a :class:`Replica` method name such as
        ``connection_status_rows``), channels in name order."""

        def provide() -> list[Any]:
            out: list[Any] = []
            for r in self:
                out.extend(getattr(r, table)())
            return out

        return provide

    def applier_global_filters_rows(self) -> list[tuple[Any, ...]]:
        """``performance_schema.replication_applier_global_filters``: FILTER_NAME, FILTER_RULE, CONFIGURED_BY
        (STARTUP_OPTIONS / CHANGE_REPLICATION_FILTER), ACTIVE_SINCE, one row per kind with rules."""
        f = self.global_filter
        rows = []
        for name in FILTER_NAMES:
            if f.rules(name):
                by, since = f.configured_by.get(name, ("STARTUP_OPTIONS", 0.0))
                rows.append((name, f.rule_text(name), by, ps_timestamp(since)))
        return rows

    # ------------------------------------------------------------------------------------------------ lifecycle
    def start_at_boot(self) -> None:
        """``ReplicaInitializer::start_threads``: every configured channel starts unless skip_replica_start."""
        for r in self:
            r.start_at_boot()

    def shutdown(self) -> None:
        """Stop every channel's threads and close its relay log."""
        for r in self:
            r.shutdown()
