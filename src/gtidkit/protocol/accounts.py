"""User accounts of the wire server, stored hashed in the datadir (``<datadir>/gtidkit_accounts.json``, mode 0600).

Source: MySQL's ``mysql.user`` (``User``, ``Host``, ``plugin``, ``authentication_string``) and the manual's
"Account Names" (host patterns with ``%`` and ``_``; ``localhost`` matches connections from the loopback
interface; the most specific host wins). Passwords are never stored in clear
(:func:`gtidkit.protocol.auth.native_stored`, :func:`gtidkit.protocol.auth.sha2_stored`).

The file is rewritten atomically (temporary file + rename) on every change.
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from gtidkit.mysql_errors import mysql_error
from gtidkit.protocol import auth

ACCOUNTS_FILE = "gtidkit_accounts.json"
_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@dataclass(frozen=True, slots=True)
class Account:
    """One account (``'user'@'host'``), as a row of mysql.user.

    Args:
        user: user name.
        host: host pattern (``localhost``, ``%``, ``127.0.0.1``, ``10.0.%`` ...).
        plugin: ``mysql_native_password`` or ``caching_sha2_password``.
        authentication_string: the stored hash (empty for no password).
        privileges: global privileges (``*.*``), names as :mod:`gtidkit.protocol.privileges` spells them.
        db_privileges: ``(database, privileges)`` pairs (``db.*``).
    """

    user: str
    host: str
    plugin: str
    authentication_string: str
    privileges: tuple[str, ...] = ()
    db_privileges: tuple[tuple[str, tuple[str, ...]], ...] = ()
    password_expired: bool = False

    @classmethod
    def from_json(cls, row: dict[str, object]) -> Account:
        """An account from its JSON row (lists become tuples)."""
        privs = tuple(row.get("privileges", ()) or ())  # type: ignore[call-overload]
        dbs = tuple((str(d), tuple(p)) for d, p in row.get("db_privileges", ()) or ())  # type: ignore[union-attr]
        return cls(
            str(row["user"]),
            str(row["host"]),
            str(row["plugin"]),
            str(row["authentication_string"]),
            privs,
            dbs,
            bool(row.get("password_expired", False)),
        )

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


class AccountStore:
    """The accounts of one datadir.

    Args:
        datadir: the server's data directory (the file is created by :meth:`initialize`).
    """

    def __init__(self, datadir: str | Path) -> None:
        self.path = Path(datadir) / ACCOUNTS_FILE
        self._lock = threading.Lock()
        self._accounts: dict[tuple[str, str], Account] = {}
        #: bumped by every change (CREATE / ALTER / DROP USER, GRANT, REVOKE, initialize): a connection keeps its
        #: account between statements while this stays the same (see ``ClientHandler.current_account``)
        self.version = 0
        if self.path.exists():
            data = json.loads(self.path.read_text())
            for row in data.get("accounts", []):
                acc = Account.from_json(row)
                self._accounts[(acc.user, acc.host.lower())] = acc

    def exists(self) -> bool:
        """True once the datadir has an accounts file."""
        return self.path.exists()

    def _save(self) -> None:
        """Write the accounts after a change to them (made under the lock), first counting the change in
        :attr:`version` (so a failed write still invalidates what connections cached)."""
        self.version += 1
        tmp = self.path.with_suffix(".tmp")
        payload = {
            "accounts": [asdict(a) for a in sorted(self._accounts.values(), key=lambda a: (a.user, a.host))]
        }
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(payload, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(self.path)

    def accounts(self) -> list[Account]:
        """Every account."""
        with self._lock:
            return list(self._accounts.values())

    def get(self, user: str, host: str) -> Account | None:
        """The account ``'user'@'host'`` exactly (host as written in CREATE USER), or None.

        Read without the lock (every statement asks): writers replace whole entries under it, and one dict lookup
        is atomic, so a reader sees the account before or after a change, never half of one.
        """
        return self._accounts.get((user, host.lower()))

    def find(self, user: str, client_host: str) -> Account | None:
        """The account a connection of ``user`` from ``client_host`` logs in as (most specific host), or None."""
        with self._lock:
            candidates = [
                a for a in self._accounts.values() if a.user == user and a.matches_host(client_host)
            ]
        return min(candidates, key=Account.specificity) if candidates else None

    def create(
        self,
        user: str,
        host: str,
        password: str,
        plugin: str = auth.CACHING_SHA2,
        *,
        if_not_exists: bool = False,
    ) -> bool:
        """CREATE USER: add ``'user'@'host'`` with ``password`` hashed for ``plugin``.

        Returns:
            True when created, False when it existed and ``if_not_exists`` was given.

        Raises:
            MySQLError: 1396 ER_CANNOT_USER when the account exists; 1524 for an unknown plugin.
        """
        stored = _stored(plugin, password)
        key = (user, host.lower())
        with self._lock:
            if key in self._accounts:
                if if_not_exists:
                    return False
                raise mysql_error(1396, "CREATE USER", "'" + str(user) + "'@'" + str(host) + "'")
            self._accounts[key] = Account(user, host, plugin, stored)
            self._save()
        return True

    def alter(self, user: str, host: str, password: str, plugin: str | None = None) -> None:
        """ALTER USER ... IDENTIFIED [WITH plugin] BY: change the password (and plugin).

        Raises:
            MySQLError: 1396 when the account does not exist; 1524 for an unknown plugin.
        """
        key = (user, host.lower())
        with self._lock:
            acc = self._accounts.get(key)
            if acc is None:
                raise mysql_error(1396, "ALTER USER", "'" + str(user) + "'@'" + str(host) + "'")
            plugin = plugin or acc.plugin
            self._accounts[key] = replace(
                acc, plugin=plugin, authentication_string=_stored(plugin, password), password_expired=False
            )
            self._save()

    def grant(
        self, user: str, host: str, privileges: tuple[str, ...], db: str | None, *, revoke: bool = False
    ) -> None:
        """GRANT (or REVOKE) ``privileges`` on ``*.*`` (``db`` None) or ``db.*``.

        Raises:
            MySQLError: 1133 ER_PASSWORD_NO_MATCH for an unknown account (GRANT), 1141 ER_NONEXISTING_GRANT
                (REVOKE of an unknown account).
        """
        key = (user, host.lower())
        with self._lock:
            acc = self._accounts.get(key)
            if acc is None:
                if revoke:
                    raise mysql_error(1141, user, host)
                raise mysql_error(1133, sqlstate="28000")
            if db is None:
                held = [p for p in acc.privileges if not (revoke and p in privileges)]
                if not revoke:
                    held += [p for p in privileges if p not in held]
                acc = replace(acc, privileges=tuple(held))
            else:
                dbs = dict(acc.db_privileges)
                current = [p for p in dbs.get(db, ()) if not (revoke and p in privileges)]
                if not revoke:
                    current += [p for p in privileges if p not in current]
                dbs[db] = tuple(current)
                acc = replace(acc, db_privileges=tuple((d, p) for d, p in sorted(dbs.items()) if p))
            self._accounts[key] = acc
            self._save()

    def drop(self, user: str, host: str, *, if_exists: bool = False) -> bool:
        """DROP USER. Returns False when absent and ``if_exists``.

        Raises:
            MySQLError: 1396 when the account does not exist.
        """
        key = (user, host.lower())
        with self._lock:
            if key not in self._accounts:
                if if_exists:
                    return False
                raise mysql_error(1396, "DROP USER", "'" + str(user) + "'@'" + str(host) + "'")
            del self._accounts[key]
            self._save()
        return True

    def initialize(self, root_password: str, *, expire: bool = False) -> None:
        """Create the file with ``root@localhost`` (caching_sha2_password, ALL PRIVILEGES WITH GRANT OPTION), as
        ``mysqld --initialize`` does; ``expire`` marks the password expired (``--initialize`` with a generated
        password: the first login must ALTER USER)."""
        with self._lock:
            from gtidkit.protocol.privileges import DYNAMIC, GRANT_OPTION, STATIC

            self._accounts = {
                ("root", "localhost"): Account(
                    "root",
                    "localhost",
                    auth.CACHING_SHA2,
                    _stored(auth.CACHING_SHA2, root_password),
                    (*STATIC, *DYNAMIC, GRANT_OPTION),
                    (),
                    expire,
                )
            }
            self._save()


def _stored(plugin: str, password: str) -> str:
    if plugin == auth.NATIVE:
        return auth.native_stored(password)
    if plugin == auth.CACHING_SHA2:
        return auth.sha2_stored(password)
    raise mysql_error(1524, plugin)
