"""The account store: the grant tables' rows as :class:`Account` values, cached for authentication and checks.

Sources: MySQL ``sql/auth/sql_auth_cache.cc`` (``acl_load``: the grant tables are read into ``acl_users`` /
``acl_dbs`` at start-up and after each account statement or FLUSH PRIVILEGES; ``acl_users`` is sorted so the most
specific host wins), manual "Account Names" (host patterns with ``%`` and ``_``; ``localhost`` matches connections
from the loopback interface), "Grant Tables".

The tables are the truth (:mod:`gtidkit.engine.accounts.tables`); the cache is replaced whole after every change
and :attr:`AccountStore.version` is bumped, so a connection that keeps its account between statements sees a
REVOKE at its next statement.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gtidkit.engine.accounts.grants import DB_COLUMNS, DYNAMIC, GRANT_OPTION, STATIC, USER_COLUMNS
from gtidkit.engine.accounts.passwords import CACHING_SHA2, stored_form
from gtidkit.engine.sql.names import physical_name

if TYPE_CHECKING:
    from gtidkit.engine.storage import Connection

__all__ = ["Account", "AccountStore", "delete_account", "read_accounts", "write_account"]

_LOOPBACK = {"127.0.0.1", "::1", "localhost"}
_USER = physical_name("mysql", "user")
_DB = physical_name("mysql", "db")
_GLOBAL = physical_name("mysql", "global_grants")


@dataclass(frozen=True, slots=True)
class Account:
    """One account (``'user'@'host'``): its mysql.user row with its mysql.db and mysql.global_grants rows.

    Args:
        user: user name (case-sensitive).
        host: host pattern (``localhost``, ``%``, ``127.0.0.1``, ``10.0.%`` ...).
        plugin: ``mysql_native_password`` or ``caching_sha2_password``.
        authentication_string: the stored hash (empty for no password).
        privileges: global privileges (``*.*``) including ``GRANT OPTION``, names as
            :mod:`gtidkit.engine.accounts.grants` spells them.
        db_privileges: ``(database, privileges)`` pairs (``db.*``).
        password_expired: the next login must change the password (``--initialize``, ALTER USER ... EXPIRE).
        account_locked: ACCOUNT LOCK (roles are created locked).
        ssl_type: mysql.user.ssl_type: ``""`` (REQUIRE NONE), ``ANY`` (REQUIRE SSL), ``X509`` (REQUIRE X509).
        password_lifetime: mysql.user.password_lifetime in days: None (PASSWORD EXPIRE DEFAULT), 0 (NEVER), N
            (INTERVAL N DAY); kept and shown, not enforced.
    """

    user: str
    host: str
    plugin: str
    authentication_string: str
    privileges: tuple[str, ...] = ()
    db_privileges: tuple[tuple[str, tuple[str, ...]], ...] = ()
    password_expired: bool = False
    account_locked: bool = False
    ssl_type: str = ""
    password_lifetime: int | None = None

    @property
    def key(self) -> tuple[str, str]:
        """``(user, host lower-cased)``: host names compare case-insensitively, user names exactly."""
        return (self.user, self.host.lower())

    def matches_host(self, client_host: str) -> bool:
        """Does a connection from ``client_host`` (an IP address) match this account's host pattern?"""
        if self.host == "localhost":
            return client_host in _LOOPBACK
        pattern = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in self.host)
        return re.fullmatch(pattern, client_host, re.IGNORECASE) is not None

    def specificity(self) -> tuple[int, int]:
        """Sort key: exact hosts before patterns, longer literal prefixes first (as MySQL sorts ``acl_users``)."""
        wild = self.host.find("%")
        return (0 if wild < 0 else 1, -(len(self.host) if wild < 0 else wild))


def read_accounts(conn: Connection) -> dict[tuple[str, str], Account]:
    """Every account in the grant tables, read on ``conn`` (inside its transaction, if one is open)."""
    cols = list(USER_COLUMNS.items())
    select = ", ".join(f'"{c}"' for _, c in cols)
    rows = conn.execute(
        f'SELECT "User", "Host", plugin, authentication_string, password_expired, account_locked, ssl_type, '
        f"password_lifetime, {select} "
        f'FROM "{_USER}"'
    ).fetchall()
    dbs: dict[tuple[str, str], list[tuple[str, tuple[str, ...]]]] = {}
    db_cols = list(DB_COLUMNS.items())
    db_select = ", ".join(f'"{c}"' for _, c in db_cols)
    for r in conn.execute(f'SELECT "User", "Host", "Db", {db_select} FROM "{_DB}" ORDER BY "Db"'):
        privs = tuple(p for (p, _), v in zip(db_cols, r[3:]) if v == "Y")
        dbs.setdefault((r[0], r[1].lower()), []).append((r[2], privs))
    dynamic: dict[tuple[str, str], list[str]] = {}
    for user, host, priv in conn.execute(f'SELECT "USER", "HOST", "PRIV" FROM "{_GLOBAL}"'):
        dynamic.setdefault((user, host.lower()), []).append(priv.upper())
    out = {}
    for r in rows:
        key = (r[0], r[1].lower())
        held = [p for (p, _), v in zip(cols, r[8:]) if v == "Y"]
        order = {p: i for i, p in enumerate((*STATIC, *DYNAMIC, GRANT_OPTION))}
        held += sorted(dynamic.get(key, ()), key=lambda p: order.get(p, 999))
        out[key] = Account(
            r[0],
            r[1],
            r[2],
            r[3] or "",
            tuple(held),
            tuple(dbs.get(key, ())),
            r[4] == "Y",
            r[5] == "Y",
            r[6] or "",
            r[7],
        )
    return out


def delete_account(conn: Connection, user: str, host: str) -> None:
    """Delete the rows of ``'user'@'host'`` from the three grant tables (inside ``conn``'s transaction)."""
    for table, ucol, hcol in ((_USER, "User", "Host"), (_DB, "User", "Host"), (_GLOBAL, "USER", "HOST")):
        conn.execute(f'DELETE FROM "{table}" WHERE "{ucol}" = ? AND "{hcol}" = ?', (user, host))


def write_account(conn: Connection, acc: Account, *, password_changed: bool = False) -> None:
    """Replace the rows of ``acc`` in the grant tables (inside ``conn``'s transaction).

    Args:
        conn: a storage connection in a write transaction.
        acc: the account as it must be stored.
        password_changed: set ``password_last_changed`` to now (else it keeps its value).
    """
    old = conn.execute(
        f'SELECT password_last_changed FROM "{_USER}" WHERE "User" = ? AND "Host" = ?', (acc.user, acc.host)
    ).fetchone()
    changed = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()) if password_changed or old is None else old[0]
    delete_account(conn, acc.user, acc.host)
    held = set(acc.privileges)
    cols = list(USER_COLUMNS.items())
    names = ", ".join(f'"{c}"' for _, c in cols)
    values: list[Any] = [acc.host, acc.user, *("Y" if p in held else "N" for p, _ in cols)]
    values += [acc.ssl_type, b"", b"", b"", acc.plugin, acc.authentication_string]
    values += ["Y" if acc.password_expired else "N", changed, acc.password_lifetime]
    values += ["Y" if acc.account_locked else "N"]
    conn.execute(
        f'INSERT INTO "{_USER}" ("Host", "User", {names}, ssl_type, ssl_cipher, x509_issuer, x509_subject, plugin, '
        f"authentication_string, password_expired, password_last_changed, password_lifetime, account_locked) "
        f"VALUES ({', '.join('?' * len(values))})",
        values,
    )
    for priv in acc.privileges:
        if priv in DYNAMIC:
            grant = "Y" if GRANT_OPTION in held else "N"
            conn.execute(f'INSERT INTO "{_GLOBAL}" VALUES (?, ?, ?, ?)', (acc.user, acc.host, priv, grant))
    db_cols = list(DB_COLUMNS.items())
    db_names = ", ".join(f'"{c}"' for _, c in db_cols)
    for db, privs in acc.db_privileges:
        if not privs:
            continue
        row = [acc.host, db, acc.user, *("Y" if p in privs else "N" for p, _ in db_cols)]
        conn.execute(
            f'INSERT INTO "{_DB}" ("Host", "Db", "User", {db_names}) VALUES ({", ".join("?" * len(row))})',
            row,
        )


class AccountStore:
    """The accounts of one server, read from the grant tables (:meth:`load`) and cached.

    Reads never touch the database: authentication and every statement's privilege check ask the cache.
    """

    def __init__(self) -> None:
        self._accounts: dict[tuple[str, str], Account] = {}
        self._lock = threading.Lock()
        #: bumped by every reload (an account statement, FLUSH PRIVILEGES, start-up): a connection keeps its
        #: account between statements while this stays the same
        self.version = 0

    def load(self, conn: Connection) -> None:
        """Re-read the grant tables on ``conn`` and replace the cache (``acl_reload``)."""
        self.replace(read_accounts(conn).values())

    def replace(self, accounts: Iterable[Account]) -> None:
        """Replace the cache with ``accounts`` (another worker process's cache after its account statement:
        engine/shared_config.py)."""
        cache = {a.key: a for a in accounts}
        with self._lock:
            self._accounts = cache
            self.version += 1

    def exists(self) -> bool:
        """True once some account exists (a datadir that was initialised, or got accounts by SQL)."""
        return bool(self._accounts)

    def has_admin(self) -> bool:
        """True when some account holds the global CREATE USER privilege (someone can manage accounts): a datadir
        without one (made by ``gtidkit sql``) gets ``root@localhost`` when a server first serves it."""
        return any("CREATE USER" in a.privileges for a in self._accounts.values())

    def accounts(self) -> list[Account]:
        """Every account."""
        return list(self._accounts.values())

    def get(self, user: str, host: str) -> Account | None:
        """The account ``'user'@'host'`` exactly (host as written in CREATE USER), or None.

        Read without the lock: the cache is replaced whole, and one dict lookup is atomic.
        """
        return self._accounts.get((user, host.lower()))

    def find(self, user: str, client_host: str) -> Account | None:
        """The account a connection of ``user`` from ``client_host`` logs in as (most specific host), or None."""
        candidates = [a for a in self._accounts.values() if a.user == user and a.matches_host(client_host)]
        return min(candidates, key=Account.specificity) if candidates else None


def root_account(password: str, *, expire: bool = False, plugin: str = CACHING_SHA2) -> Account:
    """``root@localhost`` as ``mysqld --initialize`` creates it: ``plugin`` (the release's
    ``default_authentication_plugin``), every privilege WITH GRANT OPTION; ``expire`` marks the password expired
    (a generated password must be changed first)."""
    return Account(
        "root",
        "localhost",
        plugin,
        stored_form(plugin, password),
        (*STATIC, *DYNAMIC, GRANT_OPTION),
        (),
        expire,
    )
