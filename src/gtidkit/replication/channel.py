"""A replication channel's connection settings: what CHANGE REPLICATION SOURCE TO sets, kept in the datadir.

MySQL keeps them in the *connection metadata repository*, ``mysql.slave_master_info`` (``Master_info`` in
``sql/rpl_mi.cc``, stored by ``rpl_info_table.cc``; ``master_info_repository=TABLE`` is the only choice since 8.0.23),
one row per channel. So do we: the row lives in the engine's SQLite file (``SELECT * FROM mysql.slave_master_info``
reads it) and survives restarts. As in MySQL, ``User_password`` is stored in plain text in that table (MySQL warns
with note 1760 ER_INSECURE_CHANGE_SOURCE and recommends START REPLICA USER/PASSWORD instead; the table is readable
by accounts with privileges on ``mysql.*`` only).

Option names follow the manual page "CHANGE REPLICATION SOURCE TO Statement" (8.4); ``CHANGE MASTER TO`` spells them
``MASTER_*`` (:data:`MASTER_ALIASES`). Defaults: SOURCE_CONNECT_RETRY 60 s, SOURCE_RETRY_COUNT 10 (8.4; 8.0 had
86400), SOURCE_HEARTBEAT_PERIOD half of ``replica_net_timeout`` (30 s), SOURCE_PORT 3306, SOURCE_USER empty.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from gtidkit.mysql_errors import mysql_error

__all__ = [
    "BOTH_OPTIONS",
    "CONNECTION_METADATA_DDL",
    "CONNECTION_METADATA_NEW_COLUMNS",
    "DEFAULT_HEARTBEAT_PERIOD",
    "DEFAULT_RETRY_COUNT",
    "EXECUTE_OPTIONS",
    "MASTER_ALIASES",
    "MAX_HEARTBEAT_PERIOD",
    "RECEIVE_OPTIONS",
    "ChannelConfig",
    "ConnectionMetadata",
    "canonical_options",
    "check_password",
    "create_metadata_tables",
    "ensure_metadata_table",
    "server_id_list",
]

#: ``MASTER_*`` (CHANGE MASTER TO) -> ``SOURCE_*`` option names (lowercase, as the classifier gives them).
MASTER_ALIASES = {
    "master_host": "source_host",
    "master_port": "source_port",
    "master_user": "source_user",
    "master_password": "source_password",
    "master_auto_position": "source_auto_position",
    "master_ssl": "source_ssl",
    "master_ssl_ca": "source_ssl_ca",
    "master_ssl_capath": "source_ssl_capath",
    "master_ssl_cert": "source_ssl_cert",
    "master_ssl_key": "source_ssl_key",
    "master_ssl_cipher": "source_ssl_cipher",
    "master_ssl_verify_server_cert": "source_ssl_verify_server_cert",
    "master_connect_retry": "source_connect_retry",
    "master_heartbeat_period": "source_heartbeat_period",
    "master_retry_count": "source_retry_count",
    "master_log_file": "source_log_file",
    "master_log_pos": "source_log_pos",
    "master_delay": "source_delay",
    "master_compression_algorithms": "source_compression_algorithms",
    "master_zstd_compression_level": "source_zstd_compression_level",
    "master_tls_ciphersuites": "source_tls_ciphersuites",
    "master_ssl_crl": "source_ssl_crl",
    "master_ssl_crlpath": "source_ssl_crlpath",
    "master_bind": "source_bind",
    "master_tls_version": "source_tls_version",
    "master_public_key_path": "source_public_key_path",
    "get_master_public_key": "get_source_public_key",
}

#: ChannelConfig field of each option the receiver (I/O thread) uses: MySQL's "receiver options", which need the
#: I/O thread stopped (3021) — ``have_receive_option`` in ``change_receive_options()`` of ``sql/rpl_replica.cc``.
RECEIVE_OPTIONS = {
    "source_host": "host",
    "source_port": "port",
    "source_user": "user",
    "source_password": "password",
    "source_auto_position": "auto_position",
    "source_ssl": "ssl",
    "source_ssl_ca": "ssl_ca",
    "source_ssl_capath": "ssl_capath",
    "source_ssl_cert": "ssl_cert",
    "source_ssl_key": "ssl_key",
    "source_ssl_cipher": "ssl_cipher",
    "source_ssl_verify_server_cert": "ssl_verify_server_cert",
    "source_connect_retry": "connect_retry",
    "source_heartbeat_period": "heartbeat_period",
    "source_retry_count": "retry_count",
    "source_log_file": "log_file",
    "source_log_pos": "log_pos",
    "source_tls_version": "tls_version",
    "source_public_key_path": "public_key_path",
    "get_source_public_key": "get_public_key",
    "ignore_server_ids": "ignore_server_ids",
}

#: The applier's options (``have_execute_option`` in ``change_execute_options()``): they need the SQL thread
#: stopped (3085) and are kept with the applier's metadata (``mysql.slave_relay_log_info``'s Sql_delay,
#: Relay_log_name / Relay_log_pos for RELAY_LOG_FILE / RELAY_LOG_POS).
EXECUTE_OPTIONS = {
    "source_delay",
    "assign_gtids_to_anonymous_transactions",
    "require_row_format",
    "gtid_only",
    "relay_log_file",
    "relay_log_pos",
}
#: Options that are both (``have_both_receive_execute_option``): every thread must be stopped (3081).
BOTH_OPTIONS = {"assign_gtids_to_anonymous_transactions", "gtid_only"}

#: Options MySQL accepts that gtidkit does not implement (1235 "This version of MySQL doesn't yet support").
_UNSUPPORTED = {
    "source_bind",
    "privilege_checks_user",
    "require_table_primary_key_check",
    "source_compression_algorithms",
    "source_zstd_compression_level",
    "source_tls_ciphersuites",
    "source_connection_auto_failover",
    "network_namespace",
    "source_ssl_crl",
    "source_ssl_crlpath",
}

#: ``mysql.slave_master_info`` with MySQL 8.0's column names and order (``Master_info`` fields as
#: ``rpl_info_table`` stores them); ``Channel_name`` is the key.
CONNECTION_METADATA_DDL = (
    "CREATE TABLE IF NOT EXISTS mysql.slave_master_info ("
    "Number_of_lines INT UNSIGNED NOT NULL, "
    "Master_log_name TEXT NOT NULL, "
    "Master_log_pos BIGINT UNSIGNED NOT NULL, "
    "Host VARCHAR(255), "
    "User_name TEXT, "
    "User_password TEXT, "
    "Port INT UNSIGNED NOT NULL, "
    "Connect_retry INT UNSIGNED NOT NULL, "
    "Enabled_ssl TINYINT NOT NULL, "
    "Ssl_ca TEXT, "
    "Ssl_capath TEXT, "
    "Ssl_cert TEXT, "
    "Ssl_cipher TEXT, "
    "Ssl_key TEXT, "
    "Ssl_verify_server_cert TINYINT NOT NULL, "
    "Heartbeat DOUBLE NOT NULL, "
    "Bind TEXT, "
    "Ignored_server_ids TEXT, "
    "Uuid TEXT, "
    "Retry_count BIGINT UNSIGNED NOT NULL, "
    "Ssl_crl TEXT, "
    "Ssl_crlpath TEXT, "
    "Enabled_auto_position TINYINT NOT NULL, "
    "Channel_name CHAR(64) NOT NULL, "
    "Tls_version TEXT, "
    "Public_key_path TEXT, "
    "Get_public_key TINYINT NOT NULL, "
    "Gtid_only TINYINT NOT NULL DEFAULT 0, "
    "PRIMARY KEY (Channel_name)) ENGINE=InnoDB"
)
#: Columns a datadir written before they existed lacks (added by :func:`ensure_metadata_table`).
CONNECTION_METADATA_NEW_COLUMNS = ("Gtid_only",)
#: ``Number_of_lines`` of the row (the count of fields MySQL 8.0 writes).
_LINES = 33

#: Default heartbeat: half of replica_net_timeout's default (60 s), as ``Master_info::init_info`` sets it.
DEFAULT_HEARTBEAT_PERIOD = 30.0
#: 8.4's default SOURCE_RETRY_COUNT (8.0: 86400).
DEFAULT_RETRY_COUNT = 10
#: SOURCE_HEARTBEAT_PERIOD's upper bound in seconds (``SLAVE_MAX_HEARTBEAT_PERIOD`` = ULONG_MAX / 1000).
MAX_HEARTBEAT_PERIOD = 4294967.0


def create_metadata_tables(server: Any) -> None:
    """Create the replica metadata tables ``mysql.slave_master_info`` (the connection metadata) and
    ``mysql.slave_relay_log_info`` (the applier metadata), as ``mysqld --initialize`` does
    (``scripts/mysql_system_tables.sql``): `gtidkit server --initialize` calls it, so a server's first start
    finds them (an older datadir gets them from :func:`ensure_metadata_table` at its first start).

    Args:
        server: the engine ``Server`` of the datadir being initialized.
    """
    from gtidkit.engine.apply import RELAY_LOG_INFO_DDL, RELAY_LOG_INFO_NEW_COLUMNS

    ensure_metadata_table(
        server, "slave_master_info", CONNECTION_METADATA_DDL, CONNECTION_METADATA_NEW_COLUMNS
    )
    ensure_metadata_table(server, "slave_relay_log_info", RELAY_LOG_INFO_DDL, RELAY_LOG_INFO_NEW_COLUMNS)


def ensure_metadata_table(server: Any, name: str, ddl: str, columns: tuple[str, ...] = ()) -> None:
    """Create the replica metadata table ``mysql.<name>`` from ``ddl`` when the datadir lacks it (an older
    datadir), in its own transaction under the server's write lock (MySQL creates them at --initialize:
    ``scripts/mysql_system_tables.sql``). A table that lacks one of ``columns`` (written by an older gtidkit) is
    re-created from ``ddl`` with its rows kept, the new columns at their defaults, as MySQL's upgrade adds
    columns to these tables (8.0.27 added ``Gtid_only``).

    Args:
        server: the engine ``Server``.
        name: the table in the ``mysql`` schema (``slave_master_info``, ``slave_relay_log_info``).
        ddl: its CREATE TABLE statement.
        columns: columns the table must have.
    """
    catalog = server.storage.catalog
    table = catalog.get_table("mysql", name)
    if table is not None and all(c in table.column_names for c in columns):
        return
    server.acquire_write_lock(None)
    try:
        conn = server.internal_conn
        conn.begin()
        try:
            table = catalog.get_table("mysql", name)
            rows: list[Any] = []
            if table is not None:
                kept = ", ".join(f'"{c}"' for c in table.column_names)
                physical = server.storage.physical_name("mysql", name)
                rows = [tuple(r) for r in conn.execute(f'SELECT {kept} FROM "{physical}"').fetchall()]
                catalog.drop_table(conn, "mysql", name)
            catalog.ensure_table(conn, ddl)
            if rows and table is not None:
                physical = server.storage.physical_name("mysql", name)
                marks = ", ".join("?" * len(table.column_names))
                conn.executemany(f'INSERT INTO "{physical}" ({kept}) VALUES ({marks})', rows)
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
    finally:
        server.release_write_lock(None)


@dataclass(frozen=True, slots=True)
class ChannelConfig:
    """The connection settings of one channel (a ``mysql.slave_master_info`` row). Immutable: CHANGE REPLICATION
    SOURCE TO builds a new one with :meth:`changed`.

    Attributes:
        channel: channel name (``""`` = the default channel).
        host: SOURCE_HOST (``""`` = not configured: START REPLICA gives 1200).
        port: SOURCE_PORT.
        user, password: SOURCE_USER / SOURCE_PASSWORD (the password kept in plain text, as MySQL does).
        auto_position: SOURCE_AUTO_POSITION (GTID auto-positioning).
        ssl, ssl_ca, ssl_capath, ssl_cert, ssl_key, ssl_cipher, ssl_verify_server_cert, tls_version: SOURCE_SSL*.
        connect_retry: SOURCE_CONNECT_RETRY, seconds between reconnection attempts.
        heartbeat_period: SOURCE_HEARTBEAT_PERIOD in seconds (0 = no heartbeats).
        retry_count: SOURCE_RETRY_COUNT, reconnection attempts before the I/O thread gives up.
        log_file, log_pos: SOURCE_LOG_FILE / SOURCE_LOG_POS (file/position replication; unused with
            auto-position).
        uuid: the source's server_uuid, as last seen by the receiver (Source_UUID).
        public_key_path, get_public_key: SOURCE_PUBLIC_KEY_PATH / GET_SOURCE_PUBLIC_KEY.
        ignore_server_ids: IGNORE_SERVER_IDS.
        gtid_only: GTID_ONLY (8.0.27+): the channel does not persist file names and positions.
    """

    channel: str = ""
    host: str = ""
    port: int = 3306
    user: str = ""
    password: str = ""
    auto_position: bool = False
    ssl: bool = False
    ssl_ca: str = ""
    ssl_capath: str = ""
    ssl_cert: str = ""
    ssl_key: str = ""
    ssl_cipher: str = ""
    ssl_verify_server_cert: bool = False
    tls_version: str = ""
    connect_retry: int = 60
    heartbeat_period: float = DEFAULT_HEARTBEAT_PERIOD
    retry_count: int = DEFAULT_RETRY_COUNT
    log_file: str = ""
    log_pos: int = 4
    uuid: str = ""
    public_key_path: str = ""
    get_public_key: bool = False
    ignore_server_ids: tuple[int, ...] = ()
    gtid_only: bool = False

    @property
    def configured(self) -> bool:
        """True once SOURCE_HOST is set (``Master_info::host[0] != 0``)."""
        return bool(self.host)

    def changed(self, options: dict[str, Any]) -> ChannelConfig:
        """A copy with ``options`` (canonical names, see :func:`canonical_options`) applied.

        Changing SOURCE_HOST or SOURCE_PORT without SOURCE_LOG_FILE/POS resets the file/position coordinates, as
        ``change_receive_options()`` does.

        Raises:
            MySQLError: 1232 for a value of the wrong type, 1703-style range errors as 1231.
        """
        new: dict[str, Any] = {}
        for name, value in options.items():
            field = RECEIVE_OPTIONS[name]
            new[field] = _coerce(name, field, value)
        if ("host" in new or "port" in new) and "log_file" not in new and "log_pos" not in new:
            new["log_file"], new["log_pos"] = "", 4
        return dataclasses.replace(self, **new)


def _coerce(name: str, field: str, value: Any) -> Any:
    if field == "ignore_server_ids":
        return server_id_list(value)
    kind = type(getattr(ChannelConfig(), field))
    if kind is str:
        if not isinstance(value, str):
            raise mysql_error(1064, "You have an error in your SQL syntax", f"{value}", 1)
        return value
    if kind is bool:
        if value not in (0, 1):
            raise mysql_error(1064, "You have an error in your SQL syntax", f"{value}", 1)
        return bool(value)
    if kind is float:
        if isinstance(value, str):
            raise mysql_error(1064, "You have an error in your SQL syntax", f"'{value}'", 1)
        v = float(value)
        if v < 0 or v > MAX_HEARTBEAT_PERIOD:
            raise mysql_error(1231, name.upper(), value)
        return v
    if isinstance(value, (str, float)):
        raise mysql_error(1064, "You have an error in your SQL syntax", f"{value}", 1)
    if name == "source_port" and not 0 <= value <= 65535:
        raise mysql_error(1231, name.upper(), value)
    return int(value)


def server_id_list(value: Any) -> tuple[int, ...]:
    """IGNORE_SERVER_IDS = (id, ...): the ids, sorted and without duplicates (``Master_info::ignore_server_ids``
    is a sorted dynamic array); ``()`` clears the list.

    Raises:
        MySQLError: 1064 for something else than a parenthesised list of integers.
    """
    text = str(value).strip()
    if not (text.startswith("(") and text.endswith(")")):
        raise mysql_error(1064, "You have an error in your SQL syntax", text, 1)
    parts = [p.strip() for p in text[1:-1].split(",") if p.strip()]
    if not all(p.isdigit() for p in parts):
        raise mysql_error(1064, "You have an error in your SQL syntax", text, 1)
    return tuple(sorted({int(p) for p in parts}))


def canonical_options(options: dict[str, Any]) -> dict[str, Any]:
    """The classifier's ``{lowercase name: value}`` with ``MASTER_*`` names turned into ``SOURCE_*`` ones.

    Raises:
        MySQLError: 1235 for an option gtidkit does not implement (SOURCE_BIND, PRIVILEGE_CHECKS_USER, ...); 1064 for a
            name MySQL does not know.
    """
    out: dict[str, Any] = {}
    for name, value in options.items():
        canon = MASTER_ALIASES.get(name, name)
        if canon in _UNSUPPORTED:
            raise mysql_error(1235, f"CHANGE REPLICATION SOURCE TO {canon.upper()}")
        if canon not in RECEIVE_OPTIONS and canon not in EXECUTE_OPTIONS:
            raise mysql_error(1064, "You have an error in your SQL syntax", name.upper(), 1)
        out[canon] = value
    return out


class ConnectionMetadata:
    """The connection metadata repository: ``mysql.slave_master_info`` rows in the engine's storage.

    Args:
        server: the engine ``Server`` (its storage, catalog and write lock are used).
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self._table = server.storage.physical_name("mysql", "slave_master_info")

    def _ensure(self) -> None:
        ensure_metadata_table(
            self.server, "slave_master_info", CONNECTION_METADATA_DDL, CONNECTION_METADATA_NEW_COLUMNS
        )

    def load(self, channel: str = "") -> ChannelConfig | None:
        """The stored settings of ``channel``, or None when it was never configured (or RESET REPLICA ALL)."""
        self._ensure()
        q = (
            "SELECT Host, Port, User_name, User_password, Enabled_auto_position, Enabled_ssl, Ssl_ca, Ssl_capath, "
            "Ssl_cert, Ssl_key, Ssl_cipher, Ssl_verify_server_cert, Tls_version, Connect_retry, Heartbeat, "
            "Retry_count, Master_log_name, Master_log_pos, Uuid, Public_key_path, Get_public_key, Ignored_server_ids, "
            "Gtid_only "
            f'FROM "{self._table}" WHERE Channel_name = ?'
        )
        row = self.server.read_txn(
            lambda db: db.execute(q, (channel,)).fetchone()
        )  # a read: no write lock (a worker starts beside open transactions)
        if row is None:
            return None
        (host, port, user, pw, auto, ssl, ca, capath, cert, key, cipher, verify, tls, retry, hb, count, lf, lp,
         uuid, pkp, gpk, ignored, gtid_only) = row  # fmt: skip
        return ChannelConfig(
            channel=channel,
            host=host or "",
            port=int(port),
            user=user or "",
            password=pw or "",
            auto_position=bool(auto),
            ssl=bool(ssl),
            ssl_ca=ca or "",
            ssl_capath=capath or "",
            ssl_cert=cert or "",
            ssl_key=key or "",
            ssl_cipher=cipher or "",
            ssl_verify_server_cert=bool(verify),
            tls_version=tls or "",
            connect_retry=int(retry),
            heartbeat_period=float(hb),
            retry_count=int(count),
            log_file=lf or "",
            log_pos=int(lp),
            uuid=uuid or "",
            public_key_path=pkp or "",
            get_public_key=bool(gpk),
            ignore_server_ids=tuple(int(x) for x in str(ignored or "0").split()[1:]),
            gtid_only=bool(gtid_only),
        )

    def save(self, cfg: ChannelConfig) -> None:
        """Store ``cfg`` as its channel's row (insert or replace), durably (one SQLite transaction)."""
        self._ensure()
        values = (
            _LINES,
            cfg.log_file,
            cfg.log_pos,
            cfg.host,
            cfg.user,
            cfg.password,
            cfg.port,
            cfg.connect_retry,
            int(cfg.ssl),
            cfg.ssl_ca,
            cfg.ssl_capath,
            cfg.ssl_cert,
            cfg.ssl_cipher,
            cfg.ssl_key,
            int(cfg.ssl_verify_server_cert),
            cfg.heartbeat_period,
            "",
            " ".join(str(x) for x in (len(cfg.ignore_server_ids), *cfg.ignore_server_ids)),
            cfg.uuid,
            cfg.retry_count,
            "",
            "",
            int(cfg.auto_position),
            cfg.channel,
            cfg.tls_version,
            cfg.public_key_path,
            int(cfg.get_public_key),
            int(cfg.gtid_only),
        )
        cols = (
            "Number_of_lines, Master_log_name, Master_log_pos, Host, User_name, User_password, Port, Connect_retry, "
            "Enabled_ssl, Ssl_ca, Ssl_capath, Ssl_cert, Ssl_cipher, Ssl_key, Ssl_verify_server_cert, Heartbeat, Bind, "
            "Ignored_server_ids, Uuid, Retry_count, Ssl_crl, Ssl_crlpath, Enabled_auto_position, Channel_name, "
            "Tls_version, Public_key_path, Get_public_key, Gtid_only"
        )
        q = f'INSERT OR REPLACE INTO "{self._table}" ({cols}) VALUES ({", ".join("?" * len(values))})'
        self.server.write_txn(lambda db: db.execute(q, values))

    def channels(self) -> list[str]:
        """The names of the channels with a row (the channels a restart re-creates: ``create_slave_info_objects``
        reads one ``Master_info`` per row of the repository), sorted."""
        self._ensure()
        q = f'SELECT Channel_name FROM "{self._table}" ORDER BY Channel_name'
        rows = self.server.read_txn(
            lambda db: db.execute(q).fetchall()
        )  # a read: no write lock (a worker starts beside open transactions)
        return [str(r[0]) for r in rows]

    def delete(self, channel: str = "") -> None:
        """Remove the channel's row (RESET REPLICA ALL)."""
        self._ensure()
        q = f'DELETE FROM "{self._table}" WHERE Channel_name = ?'
        self.server.write_txn(lambda db: db.execute(q, (channel,)))


def check_password(password: str) -> None:
    """SOURCE_PASSWORD longer than 32 characters is refused (3056 ER_CHANGE_SOURCE_PASSWORD_LENGTH).

    Raises:
        MySQLError: 3056.
    """
    if len(password) > 32:
        raise mysql_error(3056)
