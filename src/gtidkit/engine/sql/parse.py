"""MySQL statement text: lexing, splitting, the hand-written recogniser, classification and parse errors.

sqlglot (MySQL dialect) parses SELECT/DML/DDL/SET/SHOW well, but silently mis-parses or rejects several admin
and replication statements (``../shared/research/tooling.md`` §5: ``FLUSH LOGS`` becomes an alias, ``START
REPLICA`` becomes BEGIN, ``RESET BINARY LOGS AND GTIDS`` fails). So a small table-driven recogniser runs BEFORE
sqlglot on the comment-stripped, whitespace-collapsed text and returns those statements with a parsed ``info``
dict for the GTID core to execute. Transaction-control statements (BEGIN, SAVEPOINT, RELEASE SAVEPOINT,
ROLLBACK TO) and USE are recognised here too (sqlglot does not parse SAVEPOINT).

For the hot path, :func:`templatize` replaces number and string literals by named placeholders (``:gk0`` ...)
so a statement's plan can be cached by its *shape* and re-bound with new literals (sysbench sends the same
shapes with different literals).
Sources: MySQL ``sql/sql_yacc.yy`` (grammar), ``sql/sql_lex.cc`` (string escapes, comments), manual "Comments".
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from gtidkit.errors import MySQLError

__all__ = ["KINDS", "Statement", "classify", "parse_error", "parse_tree", "split_statements", "templatize"]

logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its Command fallback warning is handled as an error

KINDS = frozenset(
    {
        "select",
        "dml",
        "ddl",
        "begin",
        "commit",
        "rollback",
        "savepoint",
        "release_savepoint",
        "rollback_to_savepoint",
        "set",
        "show",
        "use",
        "admin",
        "other",
    }
)

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>--(?:[ \t][^\n]*)?(?:\n|$)|\#[^\n]*(?:\n|$)|/\*(?!!)[\s\S]*?\*/)
  | (?P<vcomment>/\*![0-9]{0,6}|\*/)
  | (?P<bq>`[^`]*(?:``[^`]*)*`)
  | (?P<sq>'[^'\\]*(?:(?:\\[\s\S]|'')[^'\\]*)*')
  | (?P<dq>"[^"\\]*(?:(?:\\[\s\S]|"")[^"\\]*)*")
  | (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?(?![A-Za-z0-9_$]))
  | (?P<word>[A-Za-z0-9_$\x80-\U0010ffff]+)
  | (?P<var>@@?[A-Za-z0-9_$.]*|:[A-Za-z_]\w*)
  | (?P<semi>;)
  | (?P<op>[\s\S])
    """,
    re.VERBOSE,
)
_ESCAPES = {
    "0": "\0",
    "'": "'",
    '"': '"',
    "b": "\b",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "Z": "\x1a",
    "\\": "\\",
    "%": "\\%",
    "_": "\\_",
}
_ESC_RE = re.compile(r"\\([\s\S])")


def unquote_string(tok: str) -> str:
    """Value of a MySQL string literal token (``'it''s'``, ``'a\\nb'``) with MySQL's backslash escapes."""
    q = tok[0]
    body = tok[1:-1].replace(q + q, q)
    if "\\" in body:
        body = _ESC_RE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
    return body


def split_statements(text: str) -> list[str]:
    """Split multi-statement text on ``;`` outside quotes and comments; empty statements are dropped.

    Each statement keeps its own text (comments included, trailing ``;`` removed, outer whitespace stripped).
    ``DELIMITER`` is a mysql-client command, not SQL, and is not supported (it would be sent to the server as a
    statement and fail there with 1064, as with a real server).
    """
    if ";" not in text and not _has_comment_marker(text):
        s = text.strip()
        return [s] if s else []
    out: list[str] = []
    start = 0
    for m in _TOKEN.finditer(text):
        if m.lastgroup == "semi":
            s = text[start : m.start()].strip()
            if _has_code(s):
                out.append(s)
            start = m.end()
    s = text[start:].strip()
    if _has_code(s):
        out.append(s)
    return out


def _has_comment_marker(text: str) -> bool:
    return "--" in text or "#" in text or "/*" in text


def _has_code(s: str) -> bool:
    return any(m.lastgroup not in ("ws", "comment") for m in _TOKEN.finditer(s))


def normalize(text: str) -> str:
    """Comments removed (``/*! ... */`` bodies kept, as mysqld executes them), whitespace collapsed. Used for
    recognising statement shapes (the recogniser's patterns ignore case)."""
    parts = []
    for m in _TOKEN.finditer(text):
        g = m.lastgroup
        if g in ("ws", "comment", "vcomment"):
            if parts and parts[-1] != " ":
                parts.append(" ")
        elif g in ("sq", "dq", "bq"):
            parts.append(m.group())
        else:
            parts.append(m.group())
    return "".join(parts).strip()


def strip_comments(text: str) -> str:
    """``text`` with comments removed (``/*! ... */`` bodies kept), other characters unchanged."""
    if not _has_comment_marker(text):
        return text.strip()
    parts = []
    for m in _TOKEN.finditer(text):
        g = m.lastgroup
        if g in ("comment", "vcomment"):
            parts.append(" ")
        else:
            parts.append(m.group())
    return "".join(parts).strip()


@dataclass(slots=True)
class Statement:
    """One classified statement.

    Attributes:
        kind: one of :data:`KINDS`.
        text: the statement text as given (comments stripped).
        info: parsed structure for recogniser statements, e.g. ``{"command": "purge_binary_logs", "to":
            "binlog.000003"}``; ``{"name": "sp1"}`` for savepoints; ``{"db": "x"}`` for USE; ``{"replace":
            True}`` for REPLACE.
    """

    kind: str
    text: str
    info: dict[str, Any] = field(default_factory=dict)
    _tree: exp.Expression | None = None

    @property
    def tree(self) -> exp.Expression | None:
        """The sqlglot tree (parsed on first access; ``None`` for recogniser-only statements).

        Raises:
            MySQLError: 1064 when sqlglot cannot parse the text.
        """
        if self._tree is None and self.kind not in _NO_TREE and "command" not in self.info:
            self._tree = parse_tree(self.text, replace=bool(self.info.get("replace")))
        return self._tree


_NO_TREE = {
    "begin",
    "commit",
    "rollback",
    "savepoint",
    "release_savepoint",
    "rollback_to_savepoint",
    "use",
    "admin",
}


def parse_error(text: str, near_offset: int | None) -> MySQLError:
    """ER_PARSE_ERROR 1064 (42000) with MySQL's message shape (``near '<80 chars>' at line N``)."""
    if near_offset is None or near_offset >= len(text):
        near, line = "", text.count("\n") + 1
    else:
        near, line = text[near_offset : near_offset + 80], text.count("\n", 0, near_offset) + 1
    return MySQLError(
        1064,
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version "
        f"for the right syntax to use near '{near}' at line {line}",
        "42000",
    )


def parse_tree(text: str, replace: bool = False) -> exp.Expression:
    """Parse one MySQL statement with sqlglot; ``replace`` parses ``REPLACE ...`` as INSERT (flag kept by caller).

    Raises:
        MySQLError: 1064 with MySQL's message shape for text sqlglot rejects or only parses as a raw Command.
    """
    src = text
    if replace:
        src = re.sub(r"^\s*REPLACE\b", "INSERT", text, count=1, flags=re.IGNORECASE)
    try:
        trees = sqlglot.parse(src, read="mysql")
    except (ParseError, TokenError) as err:
        off = None
        errs = getattr(err, "errors", None) or []
        if errs:
            e = errs[0]
            line, col = e.get("line") or 1, e.get("col") or 1
            hl = e.get("highlight") or ""
            lines = src.split("\n")
            off = sum(len(x) + 1 for x in lines[: line - 1]) + max(0, col - len(hl))
        raise parse_error(text, off) from err
    trees = [t for t in trees if t is not None]
    if len(trees) != 1:
        raise parse_error(text, None)
    tree = trees[0]
    if isinstance(tree, exp.Command):
        # sqlglot's fallback for statements it does not model: valid MySQL we do not execute -> 1235
        words = " ".join(text.split()[:2]).upper()
        raise MySQLError(1235, f"This version of MySQL doesn't yet support '{words}'", "42000")
    return tree


# ---------------------------------------------------------------- the recogniser ----------------------------
_STR = r"('(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")"
_ID = r"(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)"


def _unid(s: str) -> str:
    return s[1:-1].replace("``", "`") if s.startswith("`") else s


#: (regex over normalized text, kind, command name, group-name -> info key). First match wins.
_RECOGNISER_SRC: list[tuple[str, str, str]] = [
    (
        re.compile(
            r"^(?:BEGIN(?: WORK)?|START TRANSACTION(?: (?:READ WRITE|READ ONLY|WITH CONSISTENT SNAPSHOT)"
            r"(?: ?, ?(?:READ WRITE|READ ONLY|WITH CONSISTENT SNAPSHOT))*)?)$"
        ),
        "begin",
        "begin",
    ),
    (re.compile(r"^COMMIT(?: WORK)?(?: AND (?:NO )?CHAIN)?(?: (?:NO )?RELEASE)?$"), "commit", "commit"),
    (
        re.compile(rf"^ROLLBACK(?: WORK)? TO(?: SAVEPOINT)? (?P<name>{_ID})$"),
        "rollback_to_savepoint",
        "rollback_to_savepoint",
    ),
    (re.compile(r"^ROLLBACK(?: WORK)?(?: AND (?:NO )?CHAIN)?(?: (?:NO )?RELEASE)?$"), "rollback", "rollback"),
    (re.compile(rf"^SAVEPOINT (?P<name>{_ID})$"), "savepoint", "savepoint"),
    (re.compile(rf"^RELEASE SAVEPOINT (?P<name>{_ID})$"), "release_savepoint", "release_savepoint"),
    (re.compile(rf"^USE (?P<db>{_ID})$"), "use", "use"),
    (re.compile(r"^FLUSH(?: NO_WRITE_TO_BINLOG| LOCAL)? (?:BINARY )?LOGS$"), "admin", "flush_logs"),
    (
        re.compile(r"^FLUSH(?: NO_WRITE_TO_BINLOG| LOCAL)? (?P<what>TABLES|PRIVILEGES|STATUS|HOSTS)$"),
        "admin",
        "flush_other",
    ),
    (
        re.compile(r"^RESET (?:MASTER|BINARY LOGS AND GTIDS)(?: TO (?P<to>\d+))?$"),
        "admin",
        "reset_binary_logs",
    ),
    (re.compile(r"^RESET (?:REPLICA|SLAVE)(?P<all> ALL)?$"), "admin", "reset_replica"),
    (re.compile(rf"^PURGE (?:BINARY|MASTER) LOGS TO {_STR}$"), "admin", "purge_binary_logs_to"),
    (re.compile(r"^PURGE (?:BINARY|MASTER) LOGS BEFORE (?P<expr>.+)$"), "admin", "purge_binary_logs_before"),
    (
        re.compile(
            r"^(?P<verb>START|STOP) (?:REPLICA|SLAVE)(?: (?P<threads>IO_THREAD|SQL_THREAD|RELAY_THREAD)"
            r"(?: ?, ?(?:IO_THREAD|SQL_THREAD|RELAY_THREAD))*)?(?: (?P<rest>UNTIL .+|FOR CHANNEL .+))?$"
        ),
        "admin",
        "replica_thread",
    ),
    (
        re.compile(r"^CHANGE (?:REPLICATION SOURCE|MASTER) TO (?P<opts>.+)$"),
        "admin",
        "change_replication_source",
    ),
    (re.compile(r"^SHOW (?:BINARY LOG|MASTER) STATUS$"), "show", "binary_log_status"),
    (re.compile(r"^SHOW (?:BINARY|MASTER) LOGS$"), "show", "binary_logs"),
    (
        re.compile(
            rf"^SHOW BINLOG EVENTS(?: IN {_STR})?(?: FROM (?P<pos>\d+))?"
            r"(?: LIMIT (?:(?P<off>\d+) ?, ?)?(?P<cnt>\d+))?$"
        ),
        "show",
        "binlog_events",
    ),
    (re.compile(r"^SHOW (?:REPLICA|SLAVE) STATUS(?: FOR CHANNEL .+)?$"), "show", "replica_status"),
    (re.compile(r"^SHOW (?:REPLICAS|SLAVE HOSTS)$"), "show", "replicas"),
    (re.compile(r"^SHOW WARNINGS(?: LIMIT (?:(?P<off>\d+) ?, ?)?(?P<cnt>\d+))?$"), "show", "warnings"),
    (re.compile(r"^SHOW ERRORS(?: LIMIT (?:(?P<off>\d+) ?, ?)?(?P<cnt>\d+))?$"), "show", "errors"),
    (re.compile(r"^SHOW COUNT ?\( ?\* ?\) WARNINGS$"), "show", "count_warnings"),
    (re.compile(r"^SHOW COUNT ?\( ?\* ?\) ERRORS$"), "show", "count_errors"),
    (re.compile(r"^XA .+$"), "admin", "xa"),
    (re.compile(r"^LOCK TABLES? .+$|^UNLOCK TABLES?$"), "admin", "lock_tables"),
    (re.compile(r"^KILL(?: CONNECTION| QUERY)? (?P<id>\d+)$"), "admin", "kill"),
]


_RECOGNISER = [
    (re.compile(rx.pattern if isinstance(rx, re.Pattern) else rx, re.IGNORECASE), kind, cmd)
    for rx, kind, cmd in _RECOGNISER_SRC
]


def _recognise(norm: str) -> Statement | None:
    for rx, kind, command in _RECOGNISER:
        m = rx.match(norm)
        if not m:
            continue
        info: dict[str, Any] = {"command": command}
        for k, v in m.groupdict().items():
            if v is None:
                continue
            if k in ("name", "db"):
                v = _unid(v)
            info[k] = v
        if m.re.groups and command in ("purge_binary_logs_to", "binlog_events"):
            strs = [g for g in m.groups() if g and g[0] in "'\""]
            if strs:
                info["to" if command == "purge_binary_logs_to" else "file"] = unquote_string(strs[0])
        if command == "purge_binary_logs_before":
            e = info.pop("expr").strip()
            info["before"] = unquote_string(e) if e[:1] in "'\"" else e
        if command in ("binlog_events", "warnings", "errors"):
            for k in ("pos", "off", "cnt"):
                if k in info:
                    info[k] = int(info[k])
        if command == "replica_thread":
            info["start"] = info.pop("verb").upper() == "START"
        if command == "reset_binary_logs" and "to" in info:
            info["to"] = int(info["to"])
        if command == "change_replication_source":
            info["options"] = _parse_change_source(info.pop("opts"))
        if command == "reset_replica":
            info["all"] = "all" in info
        for k in ("threads", "what"):
            if k in info:
                info[k] = info[k].upper()
        return Statement(kind, "", info)
    return None


def _parse_change_source(opts: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for m in re.finditer(rf"([A-Z_]+) ?= ?({_STR}|[0-9.]+|[A-Z_]+|\( ?\))", opts):
        v = m.group(2)
        if v[:1] in "'\"":
            val: Any = unquote_string(v)
        elif re.fullmatch(r"\d+", v):
            val = int(v)
        elif re.fullmatch(r"[0-9.]+", v):
            val = float(v)
        else:
            val = v
        out[m.group(1).lower()] = val
    return out


_FIRST_WORD = re.compile(r"\s*([A-Za-z]+)")
#: First words of the statements the recogniser knows; other statements skip it (hot path).
_RECOGNISER_WORDS = frozenset(
    [
        "BEGIN",
        "START",
        "COMMIT",
        "ROLLBACK",
        "SAVEPOINT",
        "RELEASE",
        "USE",
        "FLUSH",
        "RESET",
        "PURGE",
        "STOP",
        "CHANGE",
        "SHOW",
        "XA",
        "LOCK",
        "UNLOCK",
        "KILL",
    ]
)
_FIRST_WORD_KIND = {
    "SELECT": "select",
    "WITH": "select",
    "(": "select",
    "VALUES": "select",
    "TABLE": "select",
    "INSERT": "dml",
    "UPDATE": "dml",
    "DELETE": "dml",
    "REPLACE": "dml",
    "CREATE": "ddl",
    "DROP": "ddl",
    "ALTER": "ddl",
    "TRUNCATE": "ddl",
    "RENAME": "ddl",
    "SET": "set",
    "SHOW": "show",
    "DESCRIBE": "show",
    "DESC": "show",
    "EXPLAIN": "other",
}


def classify(stmt_text: str) -> Statement:
    """Classify one statement (see :data:`KINDS`); recogniser first, then the first keyword.

    The sqlglot tree is parsed lazily (``Statement.tree``), so classification itself is cheap (a regex pass).
    """
    text = strip_comments(stmt_text)
    m = _FIRST_WORD.match(text)
    first = m.group(1).upper() if m else text[:1]
    if first in _RECOGNISER_WORDS:
        norm = normalize(text)
        st = _recognise(norm)
        if st is not None:
            st.text = text
            return st
    if first.startswith("("):
        first = "("
    kind = _FIRST_WORD_KIND.get(first, "other")
    info: dict[str, Any] = {}
    if first == "REPLACE":
        info["replace"] = True
    if kind == "show":
        info["show"] = normalize(text)
    return Statement(kind, text, info)


# ---------------------------------------------------------------- literal templating -------------------------
# Every branch starts with a fixed character class, so the regex engine can skip uninteresting text quickly;
# the "is this literal glued to an identifier?" checks happen in the callback instead of in lookbehinds.
_LITERAL = re.compile(
    r"""`[^`]*(?:``[^`]*)*`|--(?:[ \t][^\n]*)?(?:\n|$)|\#[^\n]*|/\*[\s\S]*?\*/
      | (?P<str>'[^'\\]*(?:(?:\\[\s\S]|'')[^'\\]*)*'|"[^"\\]*(?:(?:\\[\s\S]|"")[^"\\]*)*")
      | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)""",
    re.VERBOSE,
)


def _ident_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_$"


def templatize(text: str) -> tuple[str, list[Any]] | None:
    """Replace number and string literals by ``:gk<i>`` placeholders.

    Returns (template, values) or ``None`` when the statement has no literals. Values are ``int``, ``Decimal``
    (decimal or exponent literals) or ``str`` (quoted strings with MySQL escapes applied). Literals glued to a
    charset introducer (``_utf8mb4'x'``) or the X/B/N prefixes are left in place, as are literals inside
    comments and backquoted identifiers.
    """
    values: list[Any] = []

    def sub(m: re.Match[str]) -> str:
        g = m.lastgroup
        tok = m.group()
        if g is None:
            return tok  # comment or backquoted identifier
        p = m.start()
        if p and (_ident_char(text[p - 1]) or text[p - 1] in ".@:"):
            return tok  # X'..', _utf8mb4'..', the digits of t1, @v1, :p1
        if g == "num":
            e = m.end()
            if e < len(text) and _ident_char(text[e]):
                return tok  # 0x1F, 1abc (identifiers may start with digits)
            values.append(Decimal(tok) if ("." in tok or "e" in tok or "E" in tok) else int(tok))
        else:
            values.append(unquote_string(tok))
        return f":gk{len(values) - 1}"

    out = _LITERAL.sub(sub, text)
    if not values:
        return None
    return out, values
