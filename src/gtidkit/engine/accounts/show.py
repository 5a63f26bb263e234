"""SHOW GRANTS [FOR account] and SHOW CREATE USER account, answered from the account cache.

Sources: MySQL manual "SHOW GRANTS Statement" (one ``GRANT ... TO `user`@`host``` row per level; the column is
named ``Grants for user@host``; without FOR, or FOR CURRENT_USER / CURRENT_USER(), the current account), "SHOW CREATE
USER Statement" (the column ``CREATE USER for user@host``; the statement names the account with backticks and
lists every clause: ``IDENTIFIED WITH 'plugin' [AS 'hash'] REQUIRE NONE PASSWORD EXPIRE [DEFAULT] ACCOUNT
LOCK|UNLOCK PASSWORD HISTORY DEFAULT PASSWORD REUSE INTERVAL DEFAULT PASSWORD REQUIRE CURRENT DEFAULT``);
``sql/auth/sql_user.cc`` (1141 ER_NONEXISTING_GRANT for SHOW GRANTS of an unknown account, 1396 for SHOW CREATE
USER).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gtidkit.engine.accounts.grants import show_grants
from gtidkit.engine.accounts.statements import AccountParser, sql_string
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.accounts.store import Account, AccountStore
    from gtidkit.engine.results import StatementResult

__all__ = ["show_create_user", "show_grants_of"]


def _target(text: str, store: AccountStore, current_user: str, *, create: bool) -> Account:
    p = AccountParser(text)
    p.i = 3 if create else 2  # SHOW CREATE USER | SHOW GRANTS
    spec = None
    if create or p.word("FOR"):
        spec = p.account(allow_current=True)
        if p.word("USING"):
            raise mysql_error(1235, "SHOW GRANTS ... USING")
    if not p.done():
        raise p.error()
    if spec is None or spec.current:
        user, _, host = current_user.rpartition("@")
    else:
        user, host = spec.user, spec.host
    acc = store.get(user, host)
    if acc is None:
        raise (
            mysql_error(1396, "SHOW CREATE USER", sql_string(user) + "@" + sql_string(host))
            if create
            else mysql_error(1141, user, host)
        )
    return acc


#: mysql.user.ssl_type -> SHOW CREATE USER's REQUIRE clause
_REQUIRE = {"": "NONE", "ANY": "SSL", "X509": "X509", "SPECIFIED": "SSL"}


def _create_user(acc: Account) -> str:
    auth = f" IDENTIFIED WITH {sql_string(acc.plugin)}" + (
        f" AS {sql_string(acc.authentication_string)}" if acc.authentication_string else ""
    )
    if acc.password_expired:
        expire = "PASSWORD EXPIRE"
    elif acc.password_lifetime is None:
        expire = "PASSWORD EXPIRE DEFAULT"
    elif acc.password_lifetime == 0:
        expire = "PASSWORD EXPIRE NEVER"
    else:
        expire = f"PASSWORD EXPIRE INTERVAL {acc.password_lifetime} DAY"
    lock = "ACCOUNT LOCK" if acc.account_locked else "ACCOUNT UNLOCK"
    return (
        f"CREATE USER `{acc.user}`@`{acc.host}`{auth} REQUIRE {_REQUIRE[acc.ssl_type]} {expire} {lock} "
        "PASSWORD HISTORY DEFAULT "
        "PASSWORD REUSE INTERVAL DEFAULT PASSWORD REQUIRE CURRENT DEFAULT"
    )


def show_grants_of(text: str, store: AccountStore, current_user: str) -> StatementResult:
    """SHOW GRANTS [FOR account]: one ``GRANT ...`` row per level, column ``Grants for user@host``.

    Args:
        text: the statement (classified as SHOW GRANTS; its account name is read here).
        store: the server's account cache.
        current_user: the session's CURRENT_USER() (``user@host``).

    Raises:
        MySQLError: 1141 SHOW GRANTS of an unknown account; 1235 ``FOR ... USING``; 1064 bad syntax.
    """
    from gtidkit.engine.sql.metadata import result_set

    acc = _target(text, store, current_user, create=False)
    return result_set([f"Grants for {acc.user}@{acc.host}"], [(g,) for g in show_grants(acc)])


def show_create_user(text: str, store: AccountStore, current_user: str) -> StatementResult:
    """SHOW CREATE USER account: one row, column ``CREATE USER for user@host``.

    Args:
        text: the statement (classified as SHOW CREATE USER; its account name is read here).
        store: the server's account cache.
        current_user: the session's CURRENT_USER() (``user@host``).

    Raises:
        MySQLError: 1396 SHOW CREATE USER of an unknown account; 1064 bad syntax.
    """
    from gtidkit.engine.sql.metadata import result_set

    acc = _target(text, store, current_user, create=True)
    return result_set([f"CREATE USER for {acc.user}@{acc.host}"], [(_create_user(acc),)])
