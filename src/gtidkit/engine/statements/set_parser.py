"""Parse MySQL ``SET`` statements into assignments (system variables, user variables, NAMES, TRANSACTION).

Source: MySQL ``sql/sql_yacc.yy`` (``set``, ``option_value_list``, ``internal_variable_name``,
``option_type``), RM8 "SET Syntax for Variable Assignment". sqlglot does not model ``SET @@GLOBAL.x`` scopes
faithfully (../shared/research/tooling.md), so SET is parsed here by hand.

A value is a literal (int, float, str), ``NULL``, ``DEFAULT``, a bare keyword (``ON``), ``@@[scope.]name``,
``@name``, or any other expression, which is returned as its text for the caller to evaluate with a SELECT.
Numbers with a decimal point or exponent are floats (MySQL types ``1.1`` as DECIMAL and ``1e1`` as DOUBLE; both
are refused by integer variables with ER_WRONG_TYPE_FOR_VAR).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error


@dataclass(frozen=True, slots=True)
class Keyword:
    """A bare word on the right-hand side (``ON``, ``OFF``, ``AUTOMATIC``, ``ROW``)."""

    word: str


@dataclass(frozen=True, slots=True)
class Default:
    """``DEFAULT``: reset the variable to its default."""


@dataclass(frozen=True, slots=True)
class SysVarRef:
    """``@@[GLOBAL.|SESSION.]name`` read on the right-hand side."""

    name: str
    scope: str | None


@dataclass(frozen=True, slots=True)
class UserVarRef:
    """``@name`` read on the right-hand side."""

    name: str


@dataclass(frozen=True, slots=True)
class Expression:
    """Anything else; ``text`` is evaluated by the caller (``SELECT text``)."""

    text: str


@dataclass(frozen=True, slots=True)
class Assignment:
    """One ``target = value``.

    ``kind`` is ``"sys"`` (system variable; ``scope`` GLOBAL, SESSION, PERSIST or None for the default),
    ``"user"`` (``@name``), ``"names"`` (SET NAMES; ``value`` the charset) or ``"transaction"`` (SET TRANSACTION
    ...; ``value`` the rest of the text).
    """

    kind: str
    name: str
    scope: str | None
    value: Any
    #: the value's source text as written (MySQL types a user variable after it: ``1.50`` is DECIMAL(3,2))
    text: str = field(default="", compare=False)


_TOKEN = re.compile(
    r"""\s*(?:
        (?P<str>'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")
      | (?P<num>[+-]?(?:\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|0x[0-9a-fA-F]+|\d+))
      | (?P<sysvar>@@(?:(?:global|session|local|persist|persist_only)\.)?`?[A-Za-z_][A-Za-z0-9_$]*`?)
      | (?P<uservar>@`?[A-Za-z_0-9$.]+`?|@'[^']*')
      | (?P<word>`[^`]+`|[A-Za-z_][A-Za-z0-9_$.]*)
      | (?P<op>:=|=|,|\(|\)|[-+*/%<>!|&^~])
    )""",
    re.VERBOSE | re.DOTALL | re.IGNORECASE,
)


def _unquote(s: str) -> str:
    q = s[0]
    body = s[1:-1]
    body = body.replace(q * 2, q)
    return re.sub(
        r"\\(.)", lambda m: {"n": "\n", "t": "\t", "0": "\0", "r": "\r"}.get(m.group(1), m.group(1)), body
    )


def _tokens(text: str) -> list[tuple[str, str, int, int]]:
    out = []
    pos = 0
    text = text.rstrip().rstrip(";")
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise parse_error(text, pos)
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind), m.start(kind), m.end(kind)))
        pos = m.end()
    return out


def parse_error(text: str, pos: int) -> MySQLError:
    """ER_PARSE_ERROR 1064 near ``text[pos:]``, worded as MySQL."""
    near = text[pos : pos + 80]
    return mysql_error(
        1064,
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use",
        near,
        "1",
    )


_SCOPES = {
    "GLOBAL": "GLOBAL",
    "SESSION": "SESSION",
    "LOCAL": "SESSION",
    "PERSIST": "PERSIST",
    "PERSIST_ONLY": "PERSIST",
}


def _value(text: str, toks: list[tuple[str, str, int, int]]) -> Any:
    if len(toks) == 1:
        kind, val, _, _ = toks[0]
        if kind == "str":
            return _unquote(val)
        if kind == "num":
            if val.lower().startswith(("0x", "+0x", "-0x")):
                return int(val, 16)
            if re.fullmatch(r"[+-]?\d+", val):
                return int(val)
            return float(val)
        if kind == "sysvar":
            body = val[2:]
            scope = None
            if "." in body:
                s, body = body.split(".", 1)
                scope = _SCOPES[s.upper()]
            return SysVarRef(body.strip("`").lower(), scope)
        if kind == "uservar":
            return UserVarRef(val[1:].strip("`'").lower())
        if kind == "word":
            up = val.upper()
            if up == "NULL":
                return None
            if up == "DEFAULT":
                return Default()
            if up in ("TRUE", "FALSE"):
                return 1 if up == "TRUE" else 0
            return Keyword(val.strip("`"))
    if len(toks) == 2 and toks[0][1] == "-" and toks[1][0] == "num":
        inner = _value(text, toks[1:])
        if isinstance(inner, (int, float)):
            return -inner
    return Expression(text[toks[0][2] : toks[-1][3]])


_SET_STATEMENTS = re.compile(
    r"^\s*SET\s+(?:PASSWORD\b(?!\s*\.)|(?:DEFAULT\s+)?ROLE\s|RESOURCE\s+GROUP\s|PERSIST_ONLY\s)",
    re.IGNORECASE,
)


def parse_set(text: str) -> list[Assignment]:
    """Parse a whole ``SET ...`` statement.

    Raises:
        MySQLError: 1064 ER_PARSE_ERROR for text that is not a SET statement MySQL would accept.
    """
    if _SET_STATEMENTS.match(text):  # SET PASSWORD / ROLE / RESOURCE GROUP: statements, not assignments
        from gtidkit.engine.sql.unsupported import statement_error

        raise statement_error(text)
    toks = _tokens(text)
    if not toks or toks[0][1].upper() != "SET":
        raise parse_error(text, 0)
    if len(toks) == 1:
        raise parse_error(text, len(text))
    i = 1
    if i < len(toks) and toks[i][0] == "word" and toks[i][1].upper() == "TRANSACTION":
        return [Assignment("transaction", "transaction", None, text[toks[i][3] :].strip())]
    if i + 1 < len(toks) and toks[i][1].upper() in _SCOPES and toks[i + 1][1].upper() == "TRANSACTION":
        return [
            Assignment(
                "transaction", "transaction", _SCOPES[toks[i][1].upper()], text[toks[i + 1][3] :].strip()
            )
        ]
    out: list[Assignment] = []
    default_scope: str | None = None
    while i < len(toks):
        scope = default_scope
        kind, val, start, _ = toks[i]
        if (
            kind == "word"
            and val.upper() in _SCOPES
            and i + 1 < len(toks)
            and toks[i + 1][1] not in ("=", ":=")
        ):
            scope = _SCOPES[val.upper()]
            default_scope = scope
            i += 1
            kind, val, start, _ = toks[i]
        if kind == "word" and val.upper() == "NAMES":
            j = i + 1
            while j < len(toks) and toks[j][1] != ",":
                j += 1
            charset = toks[i + 1][1] if i + 1 < len(toks) else ""
            # text: the clause as written, "cs [COLLATE coll]" (the session reads the collation from it)
            clause = " ".join(t[1] for t in toks[i + 1 : j])
            out.append(Assignment("names", "names", None, charset.strip("'\"`"), clause))
            i = j + 1
            continue
        if (
            kind == "word"
            and val.upper() == "CHARACTER"
            and i + 1 < len(toks)
            and toks[i + 1][1].upper() == "SET"
        ):
            out.append(
                Assignment(
                    "names", "character set", None, toks[i + 2][1].strip("'\"`") if i + 2 < len(toks) else ""
                )
            )
            i += 3
            continue
        if kind == "sysvar":
            body = val[2:]
            if "." in body:
                s, body = body.split(".", 1)
                scope = _SCOPES[s.upper()]
            target = ("sys", body.strip("`").lower())
        elif kind == "uservar":
            if scope is not None and i > 0 and toks[i - 1][1].upper() in _SCOPES:
                raise parse_error(text, start)  # SET SESSION @v = 1: a user variable has no scope
            target = ("user", val[1:].strip("`'").lower())
        elif kind == "word":
            target = ("sys", val.strip("`").lower())
        else:
            raise parse_error(text, start)
        i += 1
        if i >= len(toks) or toks[i][1] not in ("=", ":="):
            raise parse_error(text, toks[i][2] if i < len(toks) else len(text))
        i += 1
        # the value runs to the next top-level comma
        depth = 0
        j = i
        while j < len(toks):
            if toks[j][1] == "(":
                depth += 1
            elif toks[j][1] == ")":
                depth -= 1
            elif toks[j][1] == "," and depth == 0:
                break
            j += 1
        if j == i:
            raise parse_error(text, toks[i - 1][3])
        value = _value(text, toks[i:j])
        source = text[toks[i][2] : toks[j - 1][3]]
        out.append(Assignment(target[0], target[1], scope if target[0] == "sys" else None, value, source))
        i = j + 1
    return out
