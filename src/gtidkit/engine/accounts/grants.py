"""Privilege names and levels, and the SHOW GRANTS / binlog text of a grant (the engine's view of privileges).

Sources: MySQL manual "Privileges Provided by MySQL" (static privileges and their levels; ``ALL [PRIVILEGES]``;
dynamic privileges), "GRANT Statement" (1221 ER_WRONG_USAGE for a global privilege at database level), "SHOW
GRANTS"; ``scripts/mysql_system_tables.sql`` (the ``*_priv`` columns of mysql.user and mysql.db, in order).
The check made before each statement is the wire server's (:mod:`gtidkit.protocol.privileges`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gtidkit.mysql_errors import message, mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.accounts.store import Account

__all__ = [
    "DATABASE_LEVEL",
    "DB_COLUMNS",
    "DYNAMIC",
    "GRANT_OPTION",
    "STATIC",
    "USER_COLUMNS",
    "normalize_privileges",
    "show_grants",
    "sorted_privileges",
]

#: Static privileges in the order SHOW GRANTS lists them.
STATIC = (
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "RELOAD",
    "SHUTDOWN",
    "PROCESS",
    "FILE",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "SHOW DATABASES",
    "SUPER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "REPLICATION SLAVE",
    "REPLICATION CLIENT",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "CREATE USER",
    "EVENT",
    "TRIGGER",
    "CREATE TABLESPACE",
    "CREATE ROLE",
    "DROP ROLE",
)
#: Dynamic privileges gtidkit knows (granted by ALL at global level).
DYNAMIC = (
    "BINLOG_ADMIN",
    "CONNECTION_ADMIN",
    "REPLICATION_APPLIER",
    "REPLICATION_SLAVE_ADMIN",
    "SESSION_VARIABLES_ADMIN",
    "SYSTEM_VARIABLES_ADMIN",
)
#: Privileges that exist at database level.
DATABASE_LEVEL = (
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "EVENT",
    "TRIGGER",
)
GRANT_OPTION = "GRANT OPTION"
_ALIASES = {"REPLICATION REPLICA": "REPLICATION SLAVE"}


def normalize_privileges(text: str, level: str) -> tuple[str, ...]:
    """``"select, insert"`` / ``"ALL PRIVILEGES"`` → canonical names for ``level`` (``"global"`` or ``"db"``).

    Raises:
        MySQLError: 1064 for an unknown privilege name, 1221 for a global-only privilege at database level.
    """
    out: list[str] = []
    for raw in text.split(","):
        name = " ".join(raw.upper().split())
        name = _ALIASES.get(name, name)
        if name in ("ALL", "ALL PRIVILEGES"):
            out.extend(STATIC + DYNAMIC if level == "global" else DATABASE_LEVEL)
            continue
        if name == "USAGE":
            continue
        if name not in STATIC and name not in DYNAMIC and name != GRANT_OPTION:
            raise mysql_error(1064, message(1149), raw.strip(), 1)
        if level == "db" and name not in DATABASE_LEVEL and name != GRANT_OPTION:
            raise mysql_error(1221, "DB GRANT", "GLOBAL PRIVILEGES")
        out.append(name)
    return tuple(dict.fromkeys(out))


def sorted_privileges(privs: set[str] | tuple[str, ...]) -> list[str]:
    """``privs`` without GRANT OPTION, in SHOW GRANTS order (static as listed, then dynamic)."""
    order = {p: i for i, p in enumerate(STATIC + DYNAMIC)}
    return sorted((p for p in privs if p != GRANT_OPTION), key=lambda p: order.get(p, 999))


def show_grants(account: Account) -> list[str]:
    """SHOW GRANTS rows for ``account`` (MySQL 8's shape: static privileges, then dynamic ones, then databases)."""
    who = f"`{account.user}`@`{account.host}`"
    with_grant = " WITH GRANT OPTION" if GRANT_OPTION in account.privileges else ""
    static = [p for p in sorted_privileges(tuple(account.privileges)) if p in STATIC]
    rows = [f"GRANT {', '.join(static) if static else 'USAGE'} ON *.* TO {who}{with_grant}"]
    dynamic = [p for p in sorted_privileges(tuple(account.privileges)) if p in DYNAMIC]
    if dynamic:
        rows.append(f"GRANT {','.join(dynamic)} ON *.* TO {who}{with_grant}")
    for db, privs in sorted(account.db_privileges):
        if privs:
            grant = " WITH GRANT OPTION" if GRANT_OPTION in privs else ""
            rows.append(f"GRANT {', '.join(sorted_privileges(privs))} ON `{db}`.* TO {who}{grant}")
    return rows


#: static privilege -> its column in mysql.user (``Grant_priv`` is GRANT OPTION), in the table's column order
USER_COLUMNS = {
    "SELECT": "Select_priv",
    "INSERT": "Insert_priv",
    "UPDATE": "Update_priv",
    "DELETE": "Delete_priv",
    "CREATE": "Create_priv",
    "DROP": "Drop_priv",
    "RELOAD": "Reload_priv",
    "SHUTDOWN": "Shutdown_priv",
    "PROCESS": "Process_priv",
    "FILE": "File_priv",
    "GRANT OPTION": "Grant_priv",
    "REFERENCES": "References_priv",
    "INDEX": "Index_priv",
    "ALTER": "Alter_priv",
    "SHOW DATABASES": "Show_db_priv",
    "SUPER": "Super_priv",
    "CREATE TEMPORARY TABLES": "Create_tmp_table_priv",
    "LOCK TABLES": "Lock_tables_priv",
    "EXECUTE": "Execute_priv",
    "REPLICATION SLAVE": "Repl_slave_priv",
    "REPLICATION CLIENT": "Repl_client_priv",
    "CREATE VIEW": "Create_view_priv",
    "SHOW VIEW": "Show_view_priv",
    "CREATE ROUTINE": "Create_routine_priv",
    "ALTER ROUTINE": "Alter_routine_priv",
    "CREATE USER": "Create_user_priv",
    "EVENT": "Event_priv",
    "TRIGGER": "Trigger_priv",
    "CREATE TABLESPACE": "Create_tablespace_priv",
    "CREATE ROLE": "Create_role_priv",
    "DROP ROLE": "Drop_role_priv",
}
#: database-level privilege -> its column in mysql.db, in the table's column order
DB_COLUMNS = {
    p: USER_COLUMNS[p]
    for p in (
        "SELECT",
        "INSERT",
        "UPDATE",
        "DELETE",
        "CREATE",
        "DROP",
        "GRANT OPTION",
        "REFERENCES",
        "INDEX",
        "ALTER",
        "CREATE TEMPORARY TABLES",
        "LOCK TABLES",
        "CREATE VIEW",
        "SHOW VIEW",
        "CREATE ROUTINE",
        "ALTER ROUTINE",
        "EXECUTE",
        "EVENT",
        "TRIGGER",
    )
}
