"""The grant tables: ``mysql.user``, ``mysql.db`` and ``mysql.global_grants``, as MySQL 8.0 defines them.

Source: MySQL 8.0 ``scripts/mysql_system_tables.sql`` (column names, types, order and primary keys; the
``*_priv`` columns are ``ENUM('N','Y')``; the engine has no ENUM type yet, so they are ``CHAR(1)`` holding
``'N'`` / ``'Y'``, and ``ssl_type`` is a ``VARCHAR(9)``), manual "Grant Tables". The tables are ordinary engine tables: an account
statement changes their rows inside its own transaction, with its GTID row and binlog position, so crash recovery
and ``SELECT ... FROM mysql.user`` see accounts like any other committed data.
"""

from __future__ import annotations

from gtidkit.engine.accounts.grants import DB_COLUMNS, USER_COLUMNS

__all__ = ["DB_TABLE", "GLOBAL_GRANTS_TABLE", "GRANT_TABLE_DDL", "USER_TABLE"]

USER_TABLE = ("mysql", "user")
DB_TABLE = ("mysql", "db")
GLOBAL_GRANTS_TABLE = ("mysql", "global_grants")

_YN = "CHAR(1) CHARACTER SET utf8mb3 NOT NULL DEFAULT 'N'"
_USER_PRIVS = [c for p, c in USER_COLUMNS.items() if p not in ("CREATE ROLE", "DROP ROLE")]

_USER_DDL = (
    "CREATE TABLE IF NOT EXISTS mysql.user ("
    "Host CHAR(255) CHARACTER SET ascii NOT NULL DEFAULT '', "
    "User CHAR(32) COLLATE utf8mb3_bin NOT NULL DEFAULT '', "
    + "".join(f"{c} {_YN}, " for c in _USER_PRIVS)
    + "ssl_type VARCHAR(9) CHARACTER SET utf8mb3 NOT NULL DEFAULT '', "
    "ssl_cipher BLOB NOT NULL, x509_issuer BLOB NOT NULL, x509_subject BLOB NOT NULL, "
    "max_questions INT UNSIGNED NOT NULL DEFAULT 0, max_updates INT UNSIGNED NOT NULL DEFAULT 0, "
    "max_connections INT UNSIGNED NOT NULL DEFAULT 0, max_user_connections INT UNSIGNED NOT NULL DEFAULT 0, "
    "plugin CHAR(64) COLLATE utf8mb3_bin NOT NULL DEFAULT 'caching_sha2_password', "
    "authentication_string TEXT COLLATE utf8mb3_bin, "
    f"password_expired {_YN}, "
    "password_last_changed TIMESTAMP NULL DEFAULT NULL, "
    "password_lifetime SMALLINT UNSIGNED NULL DEFAULT NULL, "
    f"account_locked {_YN}, "
    f"Create_role_priv {_YN}, "
    f"Drop_role_priv {_YN}, "
    "Password_reuse_history SMALLINT UNSIGNED NULL DEFAULT NULL, "
    "Password_reuse_time SMALLINT UNSIGNED NULL DEFAULT NULL, "
    "Password_require_current CHAR(1) CHARACTER SET utf8mb3 NULL DEFAULT NULL, "
    "User_attributes JSON NULL DEFAULT NULL, "
    "PRIMARY KEY (Host, User)"
    ") ENGINE=InnoDB STATS_PERSISTENT=0 CHARACTER SET utf8mb3 COLLATE utf8mb3_bin "
    "COMMENT='Users and global privileges'"
)
_DB_DDL = (
    "CREATE TABLE IF NOT EXISTS mysql.db ("
    "Host CHAR(255) CHARACTER SET ascii NOT NULL DEFAULT '', "
    "Db CHAR(64) COLLATE utf8mb3_bin NOT NULL DEFAULT '', "
    "User CHAR(32) COLLATE utf8mb3_bin NOT NULL DEFAULT '', "
    + ", ".join(f"{c} {_YN}" for c in DB_COLUMNS.values())
    + ", PRIMARY KEY (Host, Db, User)"
    ") ENGINE=InnoDB STATS_PERSISTENT=0 CHARACTER SET utf8mb3 COLLATE utf8mb3_bin "
    "COMMENT='Database privileges'"
)
_GLOBAL_GRANTS_DDL = (
    "CREATE TABLE IF NOT EXISTS mysql.global_grants ("
    "USER CHAR(32) COLLATE utf8mb3_bin NOT NULL DEFAULT '', "
    "HOST CHAR(255) CHARACTER SET ascii NOT NULL DEFAULT '', "
    "PRIV CHAR(32) COLLATE utf8mb3_general_ci NOT NULL DEFAULT '', "
    "WITH_GRANT_OPTION CHAR(1) COLLATE utf8mb3_general_ci NOT NULL DEFAULT 'N', "
    "PRIMARY KEY (USER, HOST, PRIV)"
    ") ENGINE=InnoDB STATS_PERSISTENT=0 CHARACTER SET utf8mb3 COLLATE utf8mb3_bin "
    "COMMENT='Extended global grants'"
)
#: The other grant tables of MySQL 8.0 (``scripts/mysql_system_tables.sql``; RM8 "Grant Tables"), which clients and
#: tools read. gtidkit grants no table, column, routine or proxy privileges and grants no roles, so they stay
#: empty; they exist so that reading them answers as MySQL does instead of 1146.
_HOST = "CHAR(255) CHARACTER SET ascii NOT NULL DEFAULT ''"
_NAME32 = "CHAR(32) COLLATE utf8mb3_bin NOT NULL DEFAULT ''"
_NAME64 = "CHAR(64) COLLATE utf8mb3_bin NOT NULL DEFAULT ''"
_STAMP = "Timestamp TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP"
_TAIL = ") ENGINE=InnoDB STATS_PERSISTENT=0 CHARACTER SET utf8mb3 COLLATE utf8mb3_bin COMMENT="
_EMPTY_GRANT_DDL = (
    (
        f"CREATE TABLE IF NOT EXISTS mysql.tables_priv (Host {_HOST}, Db {_NAME64}, User {_NAME32}, "
        f"Table_name {_NAME64}, Grantor VARCHAR(288) COLLATE utf8mb3_bin NOT NULL DEFAULT '', {_STAMP}, "
        "Table_priv SET('Select','Insert','Update','Delete','Create','Drop','Grant','References','Index','Alter',"
        "'Create View','Show view','Trigger') CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NOT NULL DEFAULT '', "
        "Column_priv SET('Select','Insert','Update','References') CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci "
        f"NOT NULL DEFAULT '', PRIMARY KEY (Host, User, Db, Table_name){_TAIL}'Table privileges'"
    ),
    (
        f"CREATE TABLE IF NOT EXISTS mysql.columns_priv (Host {_HOST}, Db {_NAME64}, User {_NAME32}, "
        f"Table_name {_NAME64}, Column_name {_NAME64}, {_STAMP}, "
        "Column_priv SET('Select','Insert','Update','References') CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci "
        f"NOT NULL DEFAULT '', PRIMARY KEY (Host, User, Db, Table_name, Column_name){_TAIL}'Column privileges'"
    ),
    (
        f"CREATE TABLE IF NOT EXISTS mysql.procs_priv (Host {_HOST}, Db {_NAME64}, User {_NAME32}, "
        f"Routine_name CHAR(64) COLLATE utf8mb3_general_ci NOT NULL DEFAULT '', "
        "Routine_type ENUM('FUNCTION','PROCEDURE') COLLATE utf8mb3_bin NOT NULL, "
        "Grantor VARCHAR(288) COLLATE utf8mb3_bin NOT NULL DEFAULT '', "
        "Proc_priv SET('Execute','Alter Routine','Grant') CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NOT NULL "
        f"DEFAULT '', {_STAMP}, PRIMARY KEY (Host, User, Db, Routine_name, Routine_type){_TAIL}'Procedure privileges'"
    ),
    (
        f"CREATE TABLE IF NOT EXISTS mysql.proxies_priv (Host {_HOST}, User {_NAME32}, Proxied_host {_HOST}, "
        f"Proxied_user {_NAME32}, With_grant TINYINT(1) NOT NULL DEFAULT 0, "
        f"Grantor VARCHAR(288) COLLATE utf8mb3_bin NOT NULL DEFAULT '', {_STAMP}, "
        f"PRIMARY KEY (Host, User, Proxied_host, Proxied_user){_TAIL}'User proxy privileges'"
    ),
    (
        f"CREATE TABLE IF NOT EXISTS mysql.role_edges (FROM_HOST {_HOST}, FROM_USER {_NAME32}, TO_HOST {_HOST}, "
        f"TO_USER {_NAME32}, WITH_ADMIN_OPTION ENUM('N','Y') CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci "
        f"NOT NULL DEFAULT 'N', PRIMARY KEY (FROM_HOST, FROM_USER, TO_HOST, TO_USER){_TAIL}'Role hierarchy and role grants'"
    ),
    (
        f"CREATE TABLE IF NOT EXISTS mysql.default_roles (HOST {_HOST}, USER {_NAME32}, "
        f"DEFAULT_ROLE_HOST CHAR(255) CHARACTER SET ascii NOT NULL DEFAULT '%', DEFAULT_ROLE_USER {_NAME32}, "
        f"PRIMARY KEY (HOST, USER, DEFAULT_ROLE_HOST, DEFAULT_ROLE_USER){_TAIL}'Default roles'"
    ),
    (
        f"CREATE TABLE IF NOT EXISTS mysql.password_history (Host {_HOST}, User {_NAME32}, "
        "Password_timestamp TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), Password TEXT COLLATE utf8mb3_bin, "
        f"PRIMARY KEY (Host, User, Password_timestamp){_TAIL}'Password history for user accounts'"
    ),
)
#: ``CREATE TABLE`` text of each grant table by its name in ``mysql``, created at bootstrap when missing
#: (:meth:`Catalog.bootstrap`; keyed by name so that a datadir that has them opens without parsing the text)
GRANT_TABLE_DDL: dict[str, str] = {
    "user": _USER_DDL,
    "db": _DB_DDL,
    "global_grants": _GLOBAL_GRANTS_DDL,
    "tables_priv": _EMPTY_GRANT_DDL[0],
    "columns_priv": _EMPTY_GRANT_DDL[1],
    "procs_priv": _EMPTY_GRANT_DDL[2],
    "proxies_priv": _EMPTY_GRANT_DDL[3],
    "role_edges": _EMPTY_GRANT_DDL[4],
    "default_roles": _EMPTY_GRANT_DDL[5],
    "password_history": _EMPTY_GRANT_DDL[6],
}
