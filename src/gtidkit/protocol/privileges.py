"""Privileges: GRANT / REVOKE / SHOW GRANTS at global (``*.*``) and database (``db.*``) level, and the check made
before each statement runs.

Sources: MySQL manual "Privileges Provided by MySQL" (static privileges and their levels; ``ALL [PRIVILEGES]``;
dynamic privileges SYSTEM_VARIABLES_ADMIN, BINLOG_ADMIN, CONNECTION_ADMIN, REPLICATION_SLAVE_ADMIN), "GRANT
Statement" (1221 ER_WRONG_USAGE for a global privilege at database level, 1141 ER_NONEXISTING_GRANT), "SHOW
GRANTS", and ``sql/auth/sql_authorization.cc`` / ``sql/sql_parse.cc`` for which statement needs what:

=====================================  ======================================================================
statement                              needs
=====================================  ======================================================================
SELECT (tables)                        SELECT on each table's database (information_schema: always)
INSERT / REPLACE / UPDATE / DELETE     INSERT / INSERT+DELETE / UPDATE / DELETE on the target's database
LOAD DATA [LOCAL] INFILE               INSERT (REPLACE: and DELETE) on the table's database; FILE unless LOCAL (1045)
SELECT ... INTO OUTFILE / DUMPFILE     SELECT on its tables and FILE (1045)
CREATE / DROP / ALTER / TRUNCATE       CREATE / DROP / ALTER / DROP; CREATE INDEX: INDEX
USE db, COM_INIT_DB                    any privilege on db (else 1044)
SET GLOBAL                             SUPER or SYSTEM_VARIABLES_ADMIN (1227)
FLUSH LOGS, RESET BINARY LOGS          RELOAD
PURGE BINARY LOGS                      SUPER or BINLOG_ADMIN
replica statements                     SUPER or REPLICATION_SLAVE_ADMIN
SHOW BINARY LOG STATUS / REPLICAS      SUPER or REPLICATION CLIENT
SHUTDOWN                               SHUTDOWN
CREATE / ALTER / DROP USER (others)    CREATE USER
GRANT / REVOKE                         GRANT OPTION and the privileges granted
KILL another user's connection         SUPER or CONNECTION_ADMIN (1095)
SHOW PROCESSLIST (all rows)            PROCESS
COM_BINLOG_DUMP[_GTID]                 REPLICATION SLAVE (for the replication layer: :func:`has_global`)
=====================================  ======================================================================
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from gtidkit.engine.accounts import statements as account_statements
from gtidkit.engine.accounts.grants import (
    DATABASE_LEVEL,
    GRANT_OPTION,
)
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error
from gtidkit.protocol import engine_seam

if TYPE_CHECKING:
    from gtidkit.engine.accounts.store import Account

#: Schemas every account may read (MySQL filters their rows by privilege; gtidkit shows all).
_OPEN_SCHEMAS = {"information_schema", "performance_schema"}


def has_global(account: Account | None, *names: str) -> bool:
    """Does ``account`` hold at least one of ``names`` at global level?"""
    if account is None:
        return False
    held = set(account.privileges)
    return any(n in held for n in names)


def has_on_db(account: Account | None, name: str, db: str) -> bool:
    """Does ``account`` hold ``name`` on database ``db`` (globally or on ``db.*``)?"""
    if account is None:
        return False
    if name in account.privileges:
        return True
    return any(d.lower() == db.lower() and name in privs for d, privs in account.db_privileges)


def any_on_db(account: Account | None, db: str) -> bool:
    """Does ``account`` hold any privilege on ``db`` (what USE needs)?"""
    if account is None:
        return False
    if db.lower() in _OPEN_SCHEMAS:
        return True
    if any(p in DATABASE_LEVEL for p in account.privileges):
        return True
    return any(d.lower() == db.lower() and privs for d, privs in account.db_privileges)


# ------------------------------------------------------------------ the check before a statement
def _denied_specific(*names: str) -> MySQLError:
    # MySQL's texts list them as "A or B" and "A, B or C"
    return mysql_error(1227, " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 2 else names))


def _table_denied(command: str, user: str, host: str, table: str) -> MySQLError:
    return mysql_error(1142, command, user, host, table)


def _check_restricted_session(assignments: tuple[Any, ...]) -> None:
    """Refuse a SET of a restricted session variable (``SysVar.restricted_session``: binlog_row_image & co.) by an
    account without SUPER, SYSTEM_VARIABLES_ADMIN or SESSION_VARIABLES_ADMIN, with MySQL's 1227 (WL#12217,
    ``check_session_admin`` in ``sql/sys_vars.cc``).

    Raises:
        MySQLError: 1227 ER_SPECIFIC_ACCESS_DENIED_ERROR.
    """
    from gtidkit.engine import sysvars

    for a in assignments:
        if a.kind != "sys" or (a.scope or "SESSION").upper() not in ("SESSION", "LOCAL"):
            continue
        var = sysvars.SYSVARS.get(a.name.lower())
        if var is not None and var.alias_of:
            var = sysvars.SYSVARS.get(var.alias_of)
        if var is not None and var.restricted_session:
            raise mysql_error(1227, "SUPER, SYSTEM_VARIABLES_ADMIN or SESSION_VARIABLES_ADMIN")


#: SET scopes that change the server's value (SET GLOBAL / PERSIST, ``@@GLOBAL.x``): SUPER or SYSTEM_VARIABLES_ADMIN
_GLOBAL_SCOPES = frozenset({"GLOBAL", "PERSIST"})


@functools.lru_cache(maxsize=256)
def _root_like(privileges: tuple[str, ...]) -> bool:
    """SUPER and every database-level privilege (answered once per distinct privilege list)."""
    return "SUPER" in privileges and all(p in privileges for p in DATABASE_LEVEL)


class AccountAuthorizer:
    """The privilege check of one client connection, set on its engine session at login
    (:class:`gtidkit.engine.statements.access.Authorizer`): the connection's account as stored now (GRANT / REVOKE
    take effect at once), its user and host for the messages, and the expired-password sandbox.

    Args:
        handler: the connection (``current_account()``, ``user``, ``peer_host_name()``, ``sandbox``).
    """

    __slots__ = ("_account", "_exempt", "_handler", "_passed")

    def __init__(self, handler: Any) -> None:
        self._handler = handler
        #: the account object the remembered passes were made for (accounts are frozen: GRANT / REVOKE store anew)
        self._account: Account | None = None
        #: (kind, privileges needed, tables named) of SELECT / DML checks that passed for that account
        self._passed: set[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]] = set()
        #: (account, whether it has SUPER or CONNECTION_ADMIN, whether it is root-like) of the last account checked:
        #: its read_only exemption, and whether check_statement has anything to check for it
        self._exempt: tuple[Account | None, bool, bool] | None = None

    def state(self) -> object:
        """The account as stored now and the sandbox flag: what :meth:`check`'s answers depend on besides the
        statement and the default schema."""
        h = self._handler
        # h.current_account() is a function of the store's version and the logged-in account: those two stand
        # for it without the lookup
        return (h.ctx.accounts.version, h.account, h.sandbox)

    def check(self, session: Any, stmt: Any) -> None:
        """Raise MySQL's access error when the connection's account may not run ``stmt`` (classified). A SELECT /
        DML whose privileges and tables (its plan's, see ``session.named_tables``) passed before for the same
        account passes again without another look at the grants.

        Also refreshes the session's read_only exemption from the account's privileges as stored now (read_only
        lets SUPER / CONNECTION_ADMIN write: engine/statements/transaction.py ``check_read_only``).

        Raises:
            MySQLError: 1820 in the expired-password sandbox (only SET, ALTER USER and SET PASSWORD run there),
                else as :func:`check_statement` and :func:`check_account_statement`.
        """
        h = self._handler
        kind = stmt.kind
        if h.sandbox and kind != "set" and kind != "account":
            raise mysql_error(1820)
        account = h.current_account()
        exempt = self._exempt
        if (
            exempt is None or exempt[0] is not account
        ):  # accounts are frozen: the same object, the same answers
            exempt = self._exempt = (
                account,
                has_global(account, "SUPER", "CONNECTION_ADMIN"),
                account is not None and _root_like(account.privileges),
            )
        engine_seam.set_read_only_exempt(session, exempt[1])
        if exempt[2] and kind != "account":
            return  # a root-like account: check_statement passes everything but its account statements' own check
        if (
            account is None
            or exempt[2]
            or (kind != "select" and kind != "dml")
            or "into_file" in stmt.info  # FILE, beside the tables: not remembered with them
        ):
            check_statement(account, h.user, h.peer_host_name(), stmt, session)
            if kind == "account":
                check_account_statement(h, account, stmt)
            return
        if account is not self._account:
            self._account = account
            self._passed = set()
        key = (kind, _needs(stmt), session.named_tables(stmt))
        if key in self._passed:
            return
        check_statement(account, h.user, h.peer_host_name(), stmt, session)
        if len(self._passed) >= 1024:
            self._passed.clear()
        self._passed.add(key)


def check_statement(account: Account | None, user: str, host: str, stmt: Any, session: Any) -> None:
    """Raise MySQL's access error when ``account`` may not run the classified statement ``stmt`` in ``session``
    (its default schema, the tables its plan names: ``session.named_tables``); return quietly when it may.
    Account statements (CREATE USER, GRANT ...) get their own check besides (:func:`check_account_statement`).

    Raises:
        MySQLError: 1142 (table-level command denied), 1044 (database), 1227 (specific privilege), 1046 no
            database selected for an unqualified table, 1045 without an account.
    """
    if account is None:
        raise mysql_error(1045, user, host, "NO")
    if _root_like(account.privileges):
        return  # root-like accounts: no per-statement work
    kind = stmt.kind
    command = stmt.info.get("command")
    if kind == "set":
        try:
            assignments = stmt.assignments
        except MySQLError:
            return  # the statement reports its own syntax error when it runs
        if any(a.scope in _GLOBAL_SCOPES for a in assignments) and not has_global(
            account, "SUPER", "SYSTEM_VARIABLES_ADMIN"
        ):
            raise _denied_specific("SUPER", "SYSTEM_VARIABLES_ADMIN")
        if not has_global(account, "SUPER", "SYSTEM_VARIABLES_ADMIN", "SESSION_VARIABLES_ADMIN"):
            _check_restricted_session(assignments)
        return
    if kind == "admin" and command == "table_maintenance":
        _check_maintenance(account, user, host, stmt, session.current_db)
        return
    if kind == "admin" and command == "load_data":
        _check_load_data(account, user, host, stmt, session)
        return
    needs_global = stmt.spec.privileges  # FLUSH LOGS: RELOAD, PURGE: SUPER or BINLOG_ADMIN ... (engine specs)
    if needs_global:
        if not has_global(account, *needs_global):
            raise _denied_specific(*needs_global)
        return
    if kind == "use":
        db = str(stmt.info.get("db") or "")
        if db and not any_on_db(account, db):
            raise mysql_error(1044, user, host, db)
        return
    if kind == "select" and "into_file" in stmt.info and not has_global(account, "FILE"):
        # SELECT ... INTO OUTFILE / DUMPFILE needs FILE (check_access of a global privilege: 1045, as LOAD DATA)
        raise mysql_error(1045, account.user, account.host, "YES" if account.authentication_string else "NO")
    if kind in ("select", "dml", "ddl"):
        needs = _needs(stmt)
        if kind == "ddl":
            target = stmt.ddl_object
            if target.kind == "DATABASE" and target.verb in ("CREATE", "DROP"):
                if target.name is not None and not has_on_db(account, target.verb, target.name):
                    raise mysql_error(1044, user, host, target.name)
                return
        for i, (db, table) in enumerate(session.named_tables(stmt)):
            if db.lower() in _OPEN_SCHEMAS:
                continue
            privs = needs if i == 0 or kind == "select" else ("SELECT",)
            for priv in privs:
                if not has_on_db(account, priv, db):
                    raise _table_denied(priv if kind != "select" else "SELECT", user, host, table)


def check_account_statement(handler: Any, account: Any, stmt: Any) -> None:
    """The privilege an account statement needs (``sql/auth/sql_authorization.cc``: CREATE USER for another
    account's CREATE / ALTER / DROP / RENAME USER and SET PASSWORD, CREATE ROLE / DROP ROLE or CREATE USER for
    roles, GRANT OPTION plus each privilege granted or revoked); in the expired-password sandbox only ALTER USER
    and SET PASSWORD run (1820, ``sql_parse.cc``). The engine then runs it as DDL (its GTID, its binlog event, the
    grant tables).

    Args:
        handler: the connection (``sandbox``, ``user``, ``peer_host_name()``, ``live_session``).
        account: the connection's account as stored now.
        stmt: the classified account statement.

    Raises:
        MySQLError: 1820 in the sandbox, 1064 a malformed statement, 1227 / 1044 / 1045 / 1046 without the
            privilege.
    """
    if handler.sandbox and stmt.info.get("keyword") not in ("ALTER", "SET"):
        raise mysql_error(1820)
    st = account_statements.parse(stmt.text)
    verb = st.verb
    if verb in ("alter_user", "set_password"):
        me = (account.user, account.host.lower()) if account is not None else None
        others = [s for s in st.specs if not s.current and (s.user, s.host.lower()) != me]
        if others:
            _need_create_user(account)
    elif verb in ("create_role", "drop_role"):
        role_priv = "CREATE ROLE" if verb == "create_role" else "DROP ROLE"
        if not has_global(account, role_priv, "CREATE USER"):
            raise mysql_error(1227, f"{role_priv} or CREATE USER")
    elif verb in ("grant", "revoke"):
        _check_grant(handler, account, st)
    else:
        _need_create_user(account)


def _need_create_user(account: Any) -> None:
    if not has_global(account, "CREATE USER"):
        raise mysql_error(1227, "CREATE USER")


def _check_grant(handler: Any, account: Any, st: Any) -> None:
    db = st.target
    if db == "":
        db = engine_seam.current_schema(handler.live_session)
        if db is None:
            raise mysql_error(1046)
    allowed = has_global(account, GRANT_OPTION) or (db is not None and has_on_db(account, GRANT_OPTION, db))
    if not allowed or not all(
        has_global(account, n) if db is None else has_on_db(account, n, db)
        for n in st.privileges
        if n != GRANT_OPTION
    ):
        if db is None:
            raise mysql_error(1045, handler.user, handler.peer_host_name(), "YES")
        raise mysql_error(1044, handler.user, handler.peer_host_name(), db)


def _check_maintenance(account: Account, user: str, host: str, stmt: Any, current_db: str | None) -> None:
    """ANALYZE / OPTIMIZE / REPAIR TABLE need SELECT and INSERT on each table, CHECK TABLE SELECT (RM8 "ANALYZE
    TABLE Statement": "requires SELECT and INSERT privileges for the table"); a missing one fails the statement
    with 1142 naming the missing privileges, as ``check_table_access`` (sql_admin.cc, before
    ``mysql_admin_table``) does."""
    from gtidkit.engine.api import table_names

    needs = ("SELECT",) if stmt.info.get("op") == "check" else ("SELECT", "INSERT")
    for schema, table in table_names(stmt.info.get("tables", "")):
        db = schema or current_db
        if db is None:
            raise mysql_error(1046)
        if db.lower() in _OPEN_SCHEMAS:
            continue
        missing = [priv for priv in needs if not has_on_db(account, priv, db)]
        if missing:  # check_grant names the privileges still wanted, in privilege order
            raise _table_denied(", ".join(missing), user, host, table)


def _check_load_data(account: Account, user: str, host: str, stmt: Any, session: Any) -> None:
    """LOAD DATA needs INSERT on the table (INSERT and DELETE with REPLACE) and, for a server file, the global
    FILE privilege (``Sql_cmd_load_table::execute``: ``check_one_table_access`` of INSERT_ACL [| DELETE_ACL] |
    FILE_ACL): FILE missing is 1045 (``check_access`` of a global privilege), a table privilege 1142. LOCAL
    refused by ``local_infile`` (3948) is reported before, by the statement; a statement that does not parse
    reports its 1064 when it runs."""
    from gtidkit.engine.api import local_infile_error, parse_load_data

    try:
        ld = parse_load_data(stmt.text)
    except MySQLError:
        return
    if ld.local and local_infile_error(session, stmt.text) is not None:
        return
    if not ld.local and not has_global(account, "FILE"):
        # check_access names the account (priv_user @ priv_host), not the client's host
        raise mysql_error(1045, account.user, account.host, "YES" if account.authentication_string else "NO")
    db = ld.schema or session.current_db
    if db is None:
        raise mysql_error(1046)
    if db.lower() in _OPEN_SCHEMAS:
        return
    for priv in ("INSERT", "DELETE") if ld.duplicates == "replace" else ("INSERT",):
        if not has_on_db(account, priv, db):
            raise _table_denied(priv, user, host, ld.table)


def _needs(stmt: Any) -> tuple[str, ...]:
    """The privileges a SELECT / DML / DDL needs on its (first) table."""
    kind = stmt.kind
    if kind == "select":
        return ("SELECT",)
    if kind == "dml":
        text = stmt.text
        word = text.lstrip().split(None, 1)[0].upper() if text.strip() else ""
        if stmt.info.get("replace") or word == "REPLACE":
            return ("INSERT", "DELETE")
        return {"INSERT": ("INSERT",), "UPDATE": ("UPDATE",), "DELETE": ("DELETE",)}.get(word, ("SELECT",))
    target = stmt.ddl_object
    if target.verb == "CREATE":
        return ("INDEX",) if target.kind == "INDEX" else ("CREATE",)
    if target.verb in ("DROP", "TRUNCATE"):
        return ("INDEX",) if target.kind == "INDEX" else ("DROP",)
    return ("ALTER",)
