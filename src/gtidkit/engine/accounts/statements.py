"""The account statements: parsed, run against the grant tables, and written to the binlog as MySQL writes them.

Sources: MySQL manual "CREATE USER", "ALTER USER", "DROP USER", "RENAME USER", "GRANT", "REVOKE", "SET PASSWORD",
"CREATE ROLE", "DROP ROLE"; ``sql/sql_rewrite.cc`` (what the binary log gets: CREATE / ALTER USER are re-synthesised
with each password as its hash, ``IDENTIFIED WITH 'plugin' AS 'hash'``, so the clear password never reaches a log;
GRANT is re-synthesised with its privileges in canonical order and the target quoted; REVOKE, DROP USER, RENAME
USER and the role statements are logged as written), mysql-test ``suite/binlog/r/binlog_grant_alter_user.result``
(the rewritten forms, e.g. ``CREATE USER 'u1'@'localhost' IDENTIFIED WITH 'mysql_native_password' AS '*0D3C...'``,
``GRANT SELECT, INSERT, UPDATE ON `mysql`.* TO 'user1'@'localhost'``, and SET PASSWORD logged as ``ALTER USER ...
IDENTIFIED WITH ... AS``), ``sql/auth/sql_user.cc`` (1396 ER_CANNOT_USER naming every account that failed; IF [NOT]
EXISTS turns it into notes 3162 / 3163 and the statement is still logged).

The statement runs on the session's storage connection inside the DDL transaction the dispatcher opened
(:mod:`gtidkit.engine.statements.dispatch`), so its rows, its GTID and its binlog event commit together. A replica
(or crash recovery) applies the logged text: ``AS 'hash'`` stores the hash as given, so the same password logs in.

REQUIRE NONE / SSL / X509 set mysql.user.ssl_type, which the server checks at login (a TLS connection). Not kept:
REQUIRE ISSUER / SUBJECT / CIPHER, WITH resource limits and password policy clauses are accepted and logged back;
roles can be created and dropped, not granted (1235).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gtidkit.engine.accounts.grants import (
    DATABASE_LEVEL,
    DYNAMIC,
    GRANT_OPTION,
    STATIC,
    normalize_privileges,
    sorted_privileges,
)
from gtidkit.engine.accounts.passwords import CACHING_SHA2, PLUGINS, stored_form
from gtidkit.engine.accounts.store import Account, delete_account, read_accounts, write_account
from gtidkit.mysql_errors import message, mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.storage import Connection

__all__ = [
    "AccountParser",
    "AccountStatement",
    "Outcome",
    "is_account_statement",
    "parse",
    "quote_account",
    "run",
    "sql_string",
]

#: first words (after collapsing whitespace) of the statements handled here
_HEAD = re.compile(
    r"\s*(?:CREATE\s+(?:USER|ROLE)|ALTER\s+USER|DROP\s+(?:USER|ROLE)|RENAME\s+USER|GRANT|REVOKE|SET\s+PASSWORD)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(
    r"\s*(?:(?P<s>'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")|(?P<q>`(?:[^`]|``)*`)"
    r"|(?P<w>[A-Za-z0-9_$%.:*\-]+)|(?P<p>[@,()=;]))",
    re.DOTALL,
)
_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}


def is_account_statement(text: str) -> bool:
    """Is ``text`` one of the account statements (CREATE / ALTER / DROP / RENAME USER, GRANT, REVOKE, SET
    PASSWORD, CREATE / DROP ROLE)?"""
    return _HEAD.match(text) is not None


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str  # "s" string, "q" quoted identifier, "w" word, "p" punctuation
    text: str  # unquoted value
    start: int


def _unquote(raw: str) -> str:
    q = raw[0]
    body = raw[1:-1]
    if q == "`":
        return body.replace("``", "`")
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
            continue
        if c == q and i + 1 < len(body) and body[i + 1] == q:
            out.append(q)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _tokens(text: str) -> list[_Tok]:
    out = []
    pos = 0
    text = text.rstrip().rstrip(";")
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            raise _syntax(text, pos)
        kind = m.lastgroup or "p"
        raw = m.group(kind)
        value = _unquote(raw) if kind in ("s", "q") else raw
        out.append(_Tok(kind, value, m.start(kind)))
        pos = m.end()
    return out


def _syntax(text: str, pos: int) -> Exception:
    near = text[pos:].strip()[:80]
    return mysql_error(1064, message(1149), near, 1)


def quote_account(user: str, host: str) -> str:
    """``'user'@'host'`` as MySQL's rewritten statements name an account (quotes and backslashes escaped)."""
    return f"{sql_string(user)}@{sql_string(host)}"


#: what MySQL's ``escape_string_for_mysql`` escapes in a string literal it writes (a hash may hold any byte)
_LITERAL_ESCAPES = str.maketrans(
    {"\\": "\\\\", "'": "\\'", "\0": "\\0", "\n": "\\n", "\r": "\\r", "\x1a": "\\Z"}
)


def sql_string(value: str) -> str:
    """``value`` as a single-quoted SQL string literal, escaped as MySQL writes one (``escape_string_for_mysql``)."""
    return "'" + value.translate(_LITERAL_ESCAPES) + "'"


@dataclass
class _Spec:
    """One account of a CREATE / ALTER USER list with its authentication clause."""

    user: str
    host: str
    current: bool = False  # USER() / CURRENT_USER
    plugin: str | None = None
    password: str | None = None  # IDENTIFIED [WITH p] BY 'password'
    hashed: str | None = None  # IDENTIFIED WITH p AS 'hash'


@dataclass
class AccountStatement:
    """A parsed account statement.

    Attributes:
        verb: ``create_user``, ``alter_user``, ``drop_user``, ``rename_user``, ``grant``, ``revoke``,
            ``revoke_all`` (REVOKE ALL PRIVILEGES, GRANT OPTION FROM ...), ``set_password``, ``create_role``,
            ``drop_role``.
        text: the statement as written.
        specs: the accounts named (with their authentication clause for CREATE / ALTER USER / SET PASSWORD).
        if_flag: IF [NOT] EXISTS was written.
        options: the trailing clauses (REQUIRE, WITH, PASSWORD, ACCOUNT) as written, whitespace collapsed.
        privileges: GRANT / REVOKE privilege names (canonical); ``all_privileges`` when ALL was written.
        target: GRANT / REVOKE level: None for ``*.*``, else the database of ``db.*`` ("" = the default database).
        renames: RENAME USER pairs.
    """

    verb: str
    text: str
    specs: list[_Spec] = field(default_factory=list)
    if_flag: bool = False
    options: str = ""
    privileges: tuple[str, ...] = ()
    all_privileges: bool = False
    grant_option: bool = False
    target: str | None = None
    renames: list[tuple[_Spec, _Spec]] = field(default_factory=list)


class AccountParser:
    """A cursor over the tokens of an account statement (quoted strings, identifiers, words, punctuation).

    Args:
        text: the statement.

    Raises:
        MySQLError: 1064 when the text does not tokenize.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, n: int = 0) -> _Tok | None:
        """The token ``n`` places ahead, or None past the end."""
        j = self.i + n
        return self.toks[j] if j < len(self.toks) else None

    def word(self, *words: str) -> bool:
        """Consume the keywords ``words`` if they come next."""
        for n, w in enumerate(words):
            t = self.peek(n)
            if t is None or t.kind != "w" or t.text.upper() != w:
                return False
        self.i += len(words)
        return True

    def expect(self, *words: str) -> None:
        """Consume the keywords ``words``.

        Raises:
            MySQLError: 1064 when they do not come next.
        """
        if not self.word(*words):
            raise self.error()

    def punct(self, p: str) -> bool:
        """Consume the punctuation ``p`` if it comes next."""
        t = self.peek()
        if t is not None and t.kind == "p" and t.text == p:
            self.i += 1
            return True
        return False

    def error(self) -> Exception:
        """1064 ER_PARSE_ERROR near the current token."""
        t = self.peek()
        return _syntax(self.text, t.start if t else len(self.text))

    def done(self) -> bool:
        """True when every token was consumed."""
        return self.i >= len(self.toks)

    def string(self) -> str:
        """Consume a quoted string and return its value.

        Raises:
            MySQLError: 1064 when no string comes next.
        """
        t = self.peek()
        if t is None or t.kind != "s":
            raise self.error()
        self.i += 1
        return t.text

    def name(self) -> str:
        """Consume a name (word, quoted identifier or string) and return it.

        Raises:
            MySQLError: 1064 at punctuation or the end.
        """
        t = self.peek()
        if t is None or t.kind == "p":
            raise self.error()
        self.i += 1
        return t.text

    def account(self, *, allow_current: bool = False) -> _Spec:
        """Consume an account name (``user[@host]``, host ``%`` when omitted; ``allow_current``: also USER() /
        CURRENT_USER[()]).

        Raises:
            MySQLError: 1064 for a malformed name.
        """
        t = self.peek()
        if allow_current and t is not None and t.kind == "w" and t.text.upper() in ("USER", "CURRENT_USER"):
            nxt = self.peek(1)
            if t.text.upper() == "CURRENT_USER" or (nxt is not None and nxt.text == "("):
                self.i += 1
                if self.punct("(") and not self.punct(")"):
                    raise self.error()
                return _Spec("", "", current=True)
        user = self.name()
        host = self.name() if self.punct("@") else "%"
        return _Spec(user, host)

    def rest(self) -> str:
        """The remaining text, whitespace collapsed (the trailing options)."""
        t = self.peek()
        if t is None:
            return ""
        self.i = len(self.toks)
        return " ".join(self.text[t.start :].rstrip().rstrip(";").split())


def _auth(p: AccountParser, spec: _Spec) -> None:
    if not p.word("IDENTIFIED"):
        return
    if p.word("WITH"):
        spec.plugin = p.name().lower()
        if p.word("BY"):
            spec.password = p.string()
        elif p.word("AS"):
            t = p.peek()
            if t is not None and t.kind == "w" and t.text[:2].lower() == "0x":  # print_identified_with_as_hex
                p.i += 1
                try:
                    spec.hashed = bytes.fromhex(t.text[2:]).decode("latin-1")
                except ValueError:
                    raise p.error() from None
            else:
                spec.hashed = p.string()
        return
    p.expect("BY")
    if p.word("RANDOM", "PASSWORD"):
        raise mysql_error(1235, "IDENTIFIED BY RANDOM PASSWORD")
    spec.password = p.string()


def _account_list(p: AccountParser, *, auth: bool, allow_current: bool = False) -> list[_Spec]:
    specs = []
    while True:
        spec = p.account(allow_current=allow_current)
        if auth:
            _auth(p, spec)
        specs.append(spec)
        if not p.punct(","):
            return specs


def parse(text: str) -> AccountStatement:
    """Parse one account statement.

    Raises:
        MySQLError: 1064 for a syntax error; 1235 for forms gtidkit does not run (granting roles, column or table
            level privileges, RANDOM PASSWORD).
    """
    p = AccountParser(text)
    if p.word("CREATE", "USER") or p.word("ALTER", "USER"):
        verb = "create_user" if p.toks[0].text.upper() == "CREATE" else "alter_user"
        st = AccountStatement(verb, text)
        st.if_flag = p.word("IF", "NOT", "EXISTS") if verb == "create_user" else p.word("IF", "EXISTS")
        st.specs = _account_list(p, auth=True, allow_current=verb == "alter_user")
        st.options = p.rest()
        return st
    for verb, words in (
        ("drop_user", ("DROP", "USER")),
        ("create_role", ("CREATE", "ROLE")),
        ("drop_role", ("DROP", "ROLE")),
    ):
        if p.word(*words):
            st = AccountStatement(verb, text)
            st.if_flag = p.word("IF", "NOT", "EXISTS") if verb == "create_role" else p.word("IF", "EXISTS")
            st.specs = _account_list(p, auth=False)
            if not p.done():
                raise p.error()
            return st
    if p.word("RENAME", "USER"):
        st = AccountStatement("rename_user", text)
        while True:
            old = p.account()
            p.expect("TO")
            st.renames.append((old, p.account()))
            if not p.punct(","):
                break
        if not p.done():
            raise p.error()
        return st
    if p.word("SET", "PASSWORD"):
        st = AccountStatement("set_password", text)
        spec = p.account(allow_current=True) if p.word("FOR") else _Spec("", "", current=True)
        if not p.punct("="):
            raise p.error()
        spec.password = p.string()
        st.specs = [spec]
        st.options = p.rest()
        return st
    if p.word("GRANT") or p.word("REVOKE"):
        return _parse_grant(p, text)
    raise p.error()


def _parse_grant(p: AccountParser, text: str) -> AccountStatement:
    verb = p.toks[0].text.lower()
    st = AccountStatement(verb, text)
    names: list[str] = []
    current: list[str] = []
    while True:
        t = p.peek()
        if t is None:
            raise p.error()
        if t.kind == "w" and t.text.upper() == "ON" and current:
            break
        if t.kind == "w" and t.text.upper() in ("TO", "FROM"):
            listed = [" ".join(n.upper().split()) for n in [*names, " ".join(current)]]
            if verb == "revoke" and listed in (["ALL", "GRANT OPTION"], ["ALL PRIVILEGES", "GRANT OPTION"]):
                # REVOKE ALL [PRIVILEGES], GRANT OPTION FROM user: every privilege at every level
                p.i += 1
                st.verb = "revoke_all"
                st.specs = _account_list(p, auth=False)
                if not p.done():
                    raise p.error()
                return st
            raise mysql_error(1235, "granting roles")
        if t.kind == "p" and t.text == "(":
            raise mysql_error(1235, "column-level privileges")
        if t.kind == "p" and t.text == ",":
            names.append(" ".join(current))
            current = []
        else:
            current.append(t.text)
        p.i += 1
    names.append(" ".join(current))
    p.expect("ON")
    p.word("TABLE")
    target_toks: list[_Tok] = []
    while (t := p.peek()) is not None and not (t.kind == "w" and t.text.upper() in ("TO", "FROM")):
        target_toks.append(t)
        p.i += 1
    target = "".join(t.text for t in target_toks)
    if target == "*.*":
        st.target = None
    elif target == "*":
        st.target = ""
    elif len(target_toks) == 2 and target_toks[1].text == ".*":  # `db`.* (a quoted name may hold dots)
        st.target = target_toks[0].text
    elif target.endswith(".*") and target.count(".") == 1:
        st.target = target[:-2]
    else:
        raise mysql_error(1235, "table-level privileges")
    if verb == "grant":
        p.expect("TO")
    else:
        p.expect("FROM")
    st.specs = _account_list(p, auth=False)
    if verb == "grant" and p.word("WITH", "GRANT", "OPTION"):
        st.grant_option = True
    if not p.done():
        raise p.error()
    level = "global" if st.target is None else "db"
    upper = [" ".join(n.upper().split()) for n in names]
    st.all_privileges = any(n in ("ALL", "ALL PRIVILEGES") for n in upper)
    privs = list(normalize_privileges(",".join(names), level))
    if st.grant_option and GRANT_OPTION not in privs:
        privs.append(GRANT_OPTION)
    st.privileges = tuple(privs)
    return st


@dataclass
class Outcome:
    """What running an account statement did.

    Attributes:
        binlog_text: the statement as the binary log gets it (MySQL's rewritten form).
        notes: ``(level, code, message)`` conditions (3162 / 3163 under IF [NOT] EXISTS).
        changed: the accounts whose password changed (the wire server forgets their fast-auth cache entry).
        own_password: the statement set the current account's own password (ends the expired-password sandbox).
    """

    binlog_text: str
    notes: list[tuple[str, int, str]] = field(default_factory=list)
    changed: list[tuple[str, str]] = field(default_factory=list)
    own_password: bool = False


def _current(current_user: str) -> tuple[str, str]:
    user, _, host = current_user.rpartition("@")
    return user, host


def _plugin(name: str) -> str:
    if name not in PLUGINS:
        raise mysql_error(1524, name)
    return name


def _stored(spec: _Spec, plugin: str) -> str:
    """The authentication_string a clause gives: the hash of ``AS``, a new hash of ``BY``, else none."""
    if spec.hashed is not None:
        return spec.hashed
    if spec.password is None:
        return ""
    return stored_form(plugin, spec.password)


def _identified(plugin: str, stored: str) -> str:
    return f" IDENTIFIED WITH {sql_string(plugin)}" + (f" AS {sql_string(stored)}" if stored else "")


def run(
    conn: Connection,
    st: AccountStatement,
    *,
    current_user: str = "root@localhost",
    current_db: str | None = None,
    default_plugin: str = CACHING_SHA2,
) -> Outcome:
    """Run ``st`` against the grant tables on ``conn`` (which must be in a write transaction).

    Args:
        conn: the session's storage connection, inside the statement's transaction.
        st: the parsed statement.
        current_user: ``CURRENT_USER()`` of the session (``user@host``): USER() / CURRENT_USER and SET PASSWORD
            without FOR name it.
        current_db: the default database (``GRANT ... ON *``).
        default_plugin: the plugin of CREATE USER without ``IDENTIFIED WITH`` (``default_authentication_plugin``:
            5.7 mysql_native_password, 8.0 / 8.4 caching_sha2_password).

    Returns:
        The :class:`Outcome`; the caller commits (logging ``binlog_text``) and reloads the account cache.

    Raises:
        MySQLError: 1396 for accounts that exist / do not exist as the statement needs (all named), 1410 GRANT to
            an unknown account, 1141 REVOKE from one, 1524 unknown plugin, 1046 ``ON *`` without a database.
    """
    accounts = read_accounts(conn)
    verb = st.verb
    out = Outcome(st.text.strip().rstrip(";").strip())
    me = _current(current_user)
    for spec in st.specs:
        if spec.current:
            spec.user, spec.host = me
    if verb in ("create_user", "create_role"):
        return _create(conn, st, accounts, out, default_plugin)
    if verb in ("alter_user", "set_password"):
        return _alter(conn, st, accounts, out, me)
    if verb in ("drop_user", "drop_role"):
        failed = [s for s in st.specs if (s.user, s.host.lower()) not in accounts]
        _fail_or_note(st, failed, "DROP ROLE" if verb == "drop_role" else "DROP USER", 3162, out)
        for s in st.specs:
            if (s.user, s.host.lower()) in accounts:
                delete_account(conn, s.user, s.host)
                out.changed.append((s.user, s.host))
        return out
    if verb == "rename_user":
        failed = [
            o
            for o, n in st.renames
            if (o.user, o.host.lower()) not in accounts or (n.user, n.host.lower()) in accounts
        ]
        _fail_or_note(st, failed, "RENAME USER", 0, out)
        for o, n in st.renames:
            acc = accounts.pop((o.user, o.host.lower()))
            delete_account(conn, acc.user, acc.host)
            new = replace(acc, user=n.user, host=n.host)
            accounts[new.key] = new
            write_account(conn, new)
            out.changed.append((o.user, o.host))
        return out
    if verb == "revoke_all":
        missing = [s for s in st.specs if (s.user, s.host.lower()) not in accounts]
        if missing:
            raise mysql_error(1141, missing[0].user, missing[0].host)
        for s in st.specs:
            acc = replace(accounts[(s.user, s.host.lower())], privileges=(), db_privileges=())
            accounts[acc.key] = acc
            write_account(conn, acc)
        return out
    return _grant(conn, st, accounts, out, current_db)


def _fail_or_note(st: AccountStatement, failed: list[_Spec], op: str, note: int, out: Outcome) -> None:
    if not failed:
        return
    names = ",".join(quote_account(s.user, s.host) for s in failed)
    if st.if_flag and note:
        for s in failed:
            out.notes.append(("Note", note, message(note, quote_account(s.user, s.host))))
        return
    raise mysql_error(1396, op, names)


#: REQUIRE clause -> mysql.user.ssl_type (manual "CREATE USER Statement", "SSL/TLS Options")
_REQUIRE = re.compile(r"\bREQUIRE (NONE|SSL|X509)\b")
_SSL_TYPES = {"NONE": "", "SSL": "ANY", "X509": "X509"}


def _ssl_type(opts: str) -> str | None:
    """The ssl_type a statement's upper-cased trailing clauses set, or None when they have no REQUIRE NONE / SSL /
    X509 (REQUIRE ISSUER / SUBJECT / CIPHER are accepted and not kept)."""
    m = _REQUIRE.search(opts)
    return _SSL_TYPES[m.group(1)] if m else None


_LIFETIME = re.compile(r"\bPASSWORD EXPIRE (DEFAULT|NEVER|INTERVAL (\d+) DAY)\b")


def _lifetime(opts: str, current: int | None) -> int | None:
    """mysql.user.password_lifetime after the upper-cased trailing clauses ``opts``: DEFAULT None, NEVER 0,
    INTERVAL N DAY N; ``current`` when they have no such clause."""
    m = _LIFETIME.search(opts)
    if m is None:
        return current
    return None if m.group(1) == "DEFAULT" else 0 if m.group(1) == "NEVER" else int(m.group(2))


def _create(
    conn: Connection, st: AccountStatement, accounts: dict, out: Outcome, default_plugin: str = CACHING_SHA2
) -> Outcome:
    role = st.verb == "create_role"
    exists = [s for s in st.specs if (s.user, s.host.lower()) in accounts]
    _fail_or_note(st, exists, "CREATE ROLE" if role else "CREATE USER", 3163, out)
    parts = []
    for s in st.specs:
        plugin = _plugin(s.plugin or default_plugin)
        stored = _stored(s, plugin)
        parts.append(quote_account(s.user, s.host) + _identified(plugin, stored))
        if (s.user, s.host.lower()) in accounts:
            continue
        opts = st.options.upper()
        acc = Account(
            s.user,
            s.host,
            plugin,
            stored,
            password_expired=role
            or bool(re.search(r"\bPASSWORD EXPIRE\b(?! (?:DEFAULT|NEVER|INTERVAL))", opts)),
            account_locked=role or "ACCOUNT LOCK" in opts,
            ssl_type=_ssl_type(opts) or "",
            password_lifetime=_lifetime(opts, None),
        )
        accounts[acc.key] = acc
        write_account(conn, acc, password_changed=True)
    if not role:
        head = "CREATE USER IF NOT EXISTS " if st.if_flag else "CREATE USER "
        out.binlog_text = head + ",".join(parts) + (" " + st.options if st.options else "")
    return out


def _alter(
    conn: Connection, st: AccountStatement, accounts: dict, out: Outcome, me: tuple[str, str]
) -> Outcome:
    missing = [s for s in st.specs if (s.user, s.host.lower()) not in accounts]
    op = "SET PASSWORD" if st.verb == "set_password" else "ALTER USER"
    _fail_or_note(st, missing, op, 3162, out)
    parts = []
    opts = st.options.upper()
    for s in st.specs:
        acc = accounts.get((s.user, s.host.lower()))
        if acc is None:
            parts.append(quote_account(s.user, s.host))
            continue
        text = quote_account(acc.user, acc.host)
        changed = s.password is not None or s.hashed is not None or s.plugin is not None
        if changed:
            plugin = _plugin(s.plugin or acc.plugin)
            stored = _stored(s, plugin)
            acc = replace(acc, plugin=plugin, authentication_string=stored, password_expired=False)
            text += _identified(plugin, stored)
            out.changed.append((acc.user, acc.host))
            if (acc.user, acc.host.lower()) == (me[0], me[1].lower()):
                out.own_password = True
        if re.search(r"\bPASSWORD EXPIRE\b(?! (?:DEFAULT|NEVER|INTERVAL))", opts):
            acc = replace(acc, password_expired=True)
        ssl_type = _ssl_type(opts)
        if ssl_type is not None:
            acc = replace(acc, ssl_type=ssl_type)
        acc = replace(acc, password_lifetime=_lifetime(opts, acc.password_lifetime))
        if "ACCOUNT LOCK" in opts:
            acc = replace(acc, account_locked=True)
        elif "ACCOUNT UNLOCK" in opts:
            acc = replace(acc, account_locked=False)
        accounts[acc.key] = acc
        write_account(conn, acc, password_changed=changed)
        parts.append(text)
    head = "ALTER USER IF EXISTS " if st.if_flag else "ALTER USER "
    trailing = "" if st.verb == "set_password" else st.options
    out.binlog_text = head + ",".join(parts) + (" " + trailing if trailing else "")
    return out


def _grant(
    conn: Connection, st: AccountStatement, accounts: dict, out: Outcome, current_db: str | None
) -> Outcome:
    revoke = st.verb == "revoke"
    db = st.target
    if db == "":
        if not current_db:
            raise mysql_error(1046)
        db = current_db
    missing = [s for s in st.specs if (s.user, s.host.lower()) not in accounts]
    if missing:
        s = missing[0]
        raise mysql_error(1141, s.user, s.host) if revoke else mysql_error(1410)
    names = st.privileges
    for s in st.specs:
        acc = accounts[(s.user, s.host.lower())]
        if db is None:
            held = [p for p in acc.privileges if not (revoke and p in names)]
            if not revoke:
                held += [p for p in names if p not in held]
            acc = replace(acc, privileges=tuple(held))
        else:
            dbs = dict(acc.db_privileges)
            cur = [p for p in dbs.get(db, ()) if not (revoke and p in names)]
            if not revoke:
                cur += [p for p in names if p not in cur]
            dbs[db] = tuple(cur)
            acc = replace(acc, db_privileges=tuple((d, p) for d, p in sorted(dbs.items()) if p))
        accounts[acc.key] = acc
        write_account(conn, acc)
    if not revoke:
        if st.all_privileges:
            listed = "ALL PRIVILEGES"
        else:
            plain = sorted_privileges(tuple(names))
            listed = ", ".join(p for p in plain if p in STATIC or p in DATABASE_LEVEL)
            dyn = [p for p in plain if p in DYNAMIC]
            listed = ", ".join([x for x in (listed, ",".join(dyn)) if x]) or "USAGE"
        target = "*.*" if db is None else "`" + db.replace("`", "``") + "`.*"
        who = ",".join(quote_account(s.user, s.host) for s in st.specs)
        grant = " WITH GRANT OPTION" if st.grant_option else ""
        out.binlog_text = f"GRANT {listed} ON {target} TO {who}{grant}"
    return out
