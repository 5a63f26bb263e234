"""Accounts a datadir gets without an account statement: root@localhost at initialisation, and the accounts of
a datadir written by an older gtidkit (``gtidkit_accounts.json``) imported once into the grant tables.

Source: MySQL ``mysqld --initialize`` / ``--initialize-insecure`` (``sql/sql_initialize.cc``: root@localhost
created by the bootstrap, with the binary log off, so no GTID is consumed and nothing is logged).
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from gtidkit.engine.accounts.passwords import CACHING_SHA2
from gtidkit.engine.accounts.store import Account, root_account, write_account

if TYPE_CHECKING:
    from gtidkit.engine.server import Server

__all__ = ["LEGACY_FILE", "create_root", "import_legacy_file"]

log = logging.getLogger(__name__)

#: where gtidkit kept accounts before they moved into the grant tables
LEGACY_FILE = "gtidkit_accounts.json"


def _write(server: Server, accounts: list[Account]) -> None:
    conn = server.internal_conn
    conn.begin()
    try:
        for acc in accounts:
            write_account(conn, acc, password_changed=True)
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    server.accounts.load(conn)


def create_root(server: Server, password: str, *, expire: bool = False) -> None:
    """Create ``root@localhost`` (every privilege WITH GRANT OPTION) as the bootstrap does: in its own storage
    transaction, no GTID, nothing logged.

    Args:
        server: the open engine server.
        password: root's password ("" for ``--initialize-insecure``).
        expire: mark it expired (``--initialize`` with a generated password).
    """
    plugin = str(server.globals.values.get("default_authentication_plugin", CACHING_SHA2))
    _write(server, [root_account(password, expire=expire, plugin=plugin)])


def import_legacy_file(server: Server) -> int:
    """Import ``<datadir>/gtidkit_accounts.json`` into empty grant tables, then rename it ``*.imported``.

    Returns:
        The number of accounts imported (0 when there is no file or the tables already have accounts).
    """
    path = server.datadir / LEGACY_FILE
    if not path.exists() or server.accounts.exists():
        return 0
    rows = json.loads(path.read_text()).get("accounts", [])
    accounts = [
        Account(
            str(r["user"]),
            str(r["host"]),
            str(r["plugin"]),
            str(r["authentication_string"]),
            tuple(r.get("privileges", ()) or ()),
            tuple((str(d), tuple(p)) for d, p in r.get("db_privileges", ()) or ()),
            bool(r.get("password_expired", False)),
        )
        for r in rows
    ]
    _write(server, accounts)
    path.replace(path.with_name(LEGACY_FILE + ".imported"))
    log.warning("imported %d accounts from %s into mysql.user", len(accounts), path)
    return len(accounts)
