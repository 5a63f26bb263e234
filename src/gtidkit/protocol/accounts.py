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
from dataclasses import asdict, dataclass
from pathlib import Path

from gtidkit.errors import MySQLError
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
    """

    user: str
    host: str
    plugin: str
    authentication_string: str

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
        if self.path.exists():
            data = json.loads(self.path.read_text())
            for row in data.get("accounts", []):
                acc = Account(**row)
                self._accounts[(acc.user, acc.host.lower())] = acc

    def exists(self) -> bool:
        """True once the datadir has an accounts file."""
        return self.path.exists()

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        payload = {"accounts": [asdict(a) for a in sorted(self._accounts.values(), key=lambda a: (a.user, a.host))]}
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

    def find(self, user: str, client_host: str) -> Account | None:
        """The account a connection of ``user`` from ``client_host`` logs in as (most specific host), or None."""
        with self._lock:
            candidates = [a for a in self._accounts.values() if a.user == user and a.matches_host(client_host)]
        return min(candidates, key=Account.specificity) if candidates else None

    def create(self, user: str, host: str, password: str, plugin: str = auth.CACHING_SHA2, *,
               if_not_exists: bool = False) -> bool:
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
                raise MySQLError(1396, f"Operation CREATE USER failed for '{user}'@'{host}'")
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
                raise MySQLError(1396, f"Operation ALTER USER failed for '{user}'@'{host}'")
            plugin = plugin or acc.plugin
            self._accounts[key] = Account(acc.user, acc.host, plugin, _stored(plugin, password))
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
                raise MySQLError(1396, f"Operation DROP USER failed for '{user}'@'{host}'")
            del self._accounts[key]
            self._save()
        return True

    def initialize(self, root_password: str) -> None:
        """Create the file with ``root@localhost`` (caching_sha2_password), as ``mysqld --initialize`` does."""
        with self._lock:
            self._accounts = {("root", "localhost"): Account("root", "localhost", auth.CACHING_SHA2,
                                                             _stored(auth.CACHING_SHA2, root_password))}
            self._save()


def _stored(plugin: str, password: str) -> str:
    if plugin == auth.NATIVE:
        return auth.native_stored(password)
    if plugin == auth.CACHING_SHA2:
        return auth.sha2_stored(password)
    raise MySQLError(1524, f"Plugin '{plugin}' is not loaded")
