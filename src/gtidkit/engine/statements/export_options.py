"""The words LOAD DATA and SELECT ... INTO OUTFILE share: a token cursor over a statement's text, and the
``[CHARACTER SET cs]`` and ``[{FIELDS | COLUMNS} ...] [LINES ...]`` export options (RM8 15.2.9 "LOAD DATA Statement",
15.2.13.1 "SELECT ... INTO Statement": "The syntax for the export_options part of the statement consists of the
same FIELDS and LINES clauses that are used with the LOAD DATA statement").

Both statements are classified by :mod:`gtidkit.engine.statements.classify` first; this module reads their
arguments. Option values go into a dict under :class:`gtidkit.engine.statements.load_data.LoadData`'s field names
(``charset``, ``field_term``, ``enclosed``, ``optionally``, ``escaped``, ``escaped_given``, ``line_start``,
``line_term``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gtidkit.engine.sql.parse import unquote_string
from gtidkit.engine.sql.unsupported import parse_error_at
from gtidkit.errors import MySQLError

__all__ = ["Parser", "Tok", "parse_charset", "parse_export_options", "tokens"]


#: one token of the statement: a quoted string, a backquoted name, a user variable, a word, a number, a symbol
_TOKEN = re.compile(
    r"""\s*(?:
      (?P<str>'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")
    | (?P<qid>`(?:[^`]|``)+`)
    | (?P<var>@(?:`(?:[^`]|``)+`|'(?:[^'\\]|\\.|'')*'|[A-Za-z0-9_$.]+))
    | (?P<word>[A-Za-z0-9_$]+)
    | (?P<sym>[^\sA-Za-z0-9_$])
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Tok:
    """One token: its kind (``str``, ``qid``, ``var``, ``word``, ``sym``), text and offset."""

    kind: str
    text: str
    start: int

    @property
    def upper(self) -> str:
        """The word in upper case ("" for any other token)."""
        return self.text.upper() if self.kind == "word" else ""


def tokens(text: str) -> list[Tok]:
    """The tokens of ``text`` (stops at the first character no token starts with)."""
    out: list[Tok] = []
    pos = 0
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        kind = m.lastgroup or "sym"
        out.append(Tok(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    return out


class Parser:
    """A cursor over the tokens; ``fail()`` is MySQL's 1064 near the current token."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = tokens(text)
        self.i = 0

    def peek(self, k: int = 0) -> Tok | None:
        """The token ``k`` ahead (None past the end)."""
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def word(self, *words: str) -> str | None:
        """Take the next token when it is one of ``words`` (upper case); return it, else None."""
        t = self.peek()
        if t is not None and t.upper in words:
            self.i += 1
            return t.upper
        return None

    def expect(self, *words: str) -> str:
        """Take one of ``words``.

        Raises:
            MySQLError: 1064 when the next token is none of them.
        """
        w = self.word(*words)
        if w is None:
            raise self.fail()
        return w

    def sym(self, s: str) -> bool:
        """Take the symbol ``s`` when it comes next."""
        t = self.peek()
        if t is not None and t.kind == "sym" and t.text == s:
            self.i += 1
            return True
        return False

    def string(self) -> str:
        """Take a quoted string; its value.

        Raises:
            MySQLError: 1064 when the next token is not one.
        """
        t = self.peek()
        if t is None or t.kind != "str":
            raise self.fail()
        self.i += 1
        return unquote_string(t.text)

    def name(self) -> str:
        """Take a name (word, backquoted or quoted); its value.

        Raises:
            MySQLError: 1064 when the next token is not one.
        """
        t = self.peek()
        if t is None or t.kind not in ("word", "qid", "str"):
            raise self.fail()
        self.i += 1
        if t.kind == "qid":
            return t.text[1:-1].replace("``", "`")
        if t.kind == "str":
            return unquote_string(t.text)
        return t.text

    def fail(self) -> MySQLError:
        """MySQL's 1064 near the next token (not raised)."""
        t = self.peek()
        return parse_error_at(self.text, t.start if t is not None else len(self.text))


def parse_charset(p: Parser, fields: dict[str, Any]) -> None:
    """``[CHARACTER SET | CHARSET cs]`` into ``fields["charset"]`` (lower case; ``binary`` for BINARY).

    Raises:
        MySQLError: 1064 for CHARACTER without SET or without a name.
    """
    if p.word("CHARACTER", "CHARSET"):
        if p.toks[p.i - 1].upper == "CHARACTER":
            p.expect("SET")
        t = p.peek()
        fields["charset"] = p.name().lower() if t is not None and t.upper != "BINARY" else "binary"
        if t is not None and t.upper == "BINARY":
            p.i += 1


def parse_export_options(p: Parser, fields: dict[str, Any]) -> None:
    """``[{FIELDS | COLUMNS} [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c'] [ESCAPED BY 'c']] [LINES [STARTING
    BY 's'] [TERMINATED BY 's']]``, the options in any order within their clause, into ``fields``.

    Raises:
        MySQLError: 1064 for FIELDS / LINES without an option or a value that is not a string.
    """
    if p.word("FIELDS", "COLUMNS"):
        seen = False
        while True:
            if p.word("TERMINATED"):
                p.expect("BY")
                fields["field_term"] = p.string()
            elif p.word("OPTIONALLY"):
                p.expect("ENCLOSED")
                p.expect("BY")
                fields["enclosed"] = p.string()
                fields["optionally"] = True
            elif p.word("ENCLOSED"):
                p.expect("BY")
                fields["enclosed"] = p.string()
            elif p.word("ESCAPED"):
                p.expect("BY")
                fields["escaped"] = p.string()
                fields["escaped_given"] = True
            else:
                break
            seen = True
        if not seen:
            raise p.fail()
    if p.word("LINES"):
        seen = False
        while True:
            if p.word("STARTING"):
                p.expect("BY")
                fields["line_start"] = p.string()
            elif p.word("TERMINATED"):
                p.expect("BY")
                fields["line_term"] = p.string()
            else:
                break
            seen = True
        if not seen:
            raise p.fail()


#: words that end an INTO OUTFILE / DUMPFILE clause (the SELECT goes on after it)
_AFTER_INTO = frozenset(
    [
        "FROM",
        "WHERE",
        "GROUP",
        "HAVING",
        "WINDOW",
        "ORDER",
        "LIMIT",
        "FOR",
        "LOCK",
        "UNION",
        "INTERSECT",
        "EXCEPT",
    ]
)


def split_into_file(text: str) -> tuple[str, str] | None:
    """A SELECT's ``INTO OUTFILE ...`` / ``INTO DUMPFILE ...`` clause (outside parentheses, before FROM or at the
    end, RM8 15.2.13.1): (the SELECT without it, the clause's text), or None when it has none."""
    toks = tokens(text)
    depth = 0
    start = -1
    for k, t in enumerate(toks):
        if t.kind == "sym" and t.text == "(":
            depth += 1
        elif t.kind == "sym" and t.text == ")":
            depth -= 1
        elif depth == 0 and start < 0 and t.upper == "INTO" and k + 1 < len(toks):
            if toks[k + 1].upper in ("OUTFILE", "DUMPFILE"):
                start = t.start
        elif depth == 0 and start >= 0 and t.upper in _AFTER_INTO:
            return text[:start].rstrip() + " " + text[t.start :], text[start : t.start].strip()
    if start < 0:
        return None
    return text[:start].rstrip(), text[start:].strip()
