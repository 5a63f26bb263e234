"""``mysql.general_log`` and ``mysql.slow_log``: the log tables every MySQL 8 server has.

gtidkit writes no general or slow query log (``log_output`` is FILE-less here), so the tables stay empty, as they
do on a MySQL server with ``general_log`` / ``slow_query_log`` OFF (the default). They exist because dump tools
expect them in the ``mysql`` schema: mariadb-dump ``--all-databases`` sends ``SHOW CREATE TABLE general_log`` /
``slow_log`` there and writes ``CREATE TABLE IF NOT EXISTS`` for them, without data.

Definitions: MySQL 8.4 ``scripts/mysql_system_tables.sql`` (``SHOW CREATE TABLE mysql.general_log`` /
``mysql.slow_log``), columns, types and comments as there; MySQL's ENGINE=CSV and utf8mb3 charset are kept.
"""

from __future__ import annotations

__all__ = ["LOG_TABLE_DDL"]

#: ``CREATE TABLE`` text of each log table by its name in ``mysql``, in ``mysql_system_tables.sql`` order (keyed by
#: name so that a datadir that has them opens without parsing the text).
LOG_TABLE_DDL: dict[str, str] = {
    "general_log": (
        "CREATE TABLE IF NOT EXISTS mysql.general_log ("
        "event_time TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), "
        "user_host MEDIUMTEXT NOT NULL, thread_id BIGINT UNSIGNED NOT NULL, server_id INT UNSIGNED NOT NULL, "
        "command_type VARCHAR(64) NOT NULL, argument MEDIUMBLOB NOT NULL"
        ") ENGINE=CSV CHARACTER SET utf8mb3 COMMENT='General log'"
    ),
    "slow_log": (
        "CREATE TABLE IF NOT EXISTS mysql.slow_log ("
        "start_time TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), "
        "user_host MEDIUMTEXT NOT NULL, query_time TIME(6) NOT NULL, lock_time TIME(6) NOT NULL, "
        "rows_sent INT NOT NULL, rows_examined INT NOT NULL, db VARCHAR(512) NOT NULL, last_insert_id INT NOT NULL, "
        "insert_id INT NOT NULL, server_id INT UNSIGNED NOT NULL, sql_text MEDIUMBLOB NOT NULL, "
        "thread_id BIGINT UNSIGNED NOT NULL"
        ") ENGINE=CSV CHARACTER SET utf8mb3 COMMENT='Slow log'"
    ),
}
