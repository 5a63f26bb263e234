"""Character set introducers, ``N'..'``, and CHARSET() / COLLATION() / COERCIBILITY().

MySQL reads a string literal's bytes in ``character_set_client`` unless an introducer names another set
(``_latin1'..'``, ``_binary'..'``, ``_utf8mb4 X'..'``): the bytes are then taken as they were sent and read in the
introduced set (manual "Character Set Introducers"; ``_binary`` makes a binary string, which PyMySQL and MySQLdb use
for ``bytes`` parameters, with bytes that need not be valid in the client's set). ``N'..'`` is a string in the
national set, utf8mb3 (manual "National Character Set").

Here a statement's text reaches the engine as Python text, so the bytes behind an introduced literal are recovered
once, where the statement enters the engine (:func:`canonical_introducers`, ``Session.lexed``): ``_cs'..'`` becomes
``_cs X'<the literal's bytes in character_set_client>'``, which says the same in MySQL's own syntax and survives any
later re-parsing or logging unchanged. After parsing, :func:`resolve_introducers` turns ``_binary X'..'`` into the
binary string ``X'..'`` and ``_cs X'..'`` into the text those bytes are in ``cs``; before that,
:func:`rewrite_charset_functions` answers CHARSET() / COLLATION() / COERCIBILITY() of literals from their syntax
(the introducer, a COLLATE clause) as MySQL's ``Item::collation`` does, and leaves other arguments to the session
functions of :func:`session_functions`, which read the value: a string is in the connection's set, a binary
string, number or temporal value is ``binary``. When the statement is planned, those of a plain column are answered
from its definition (:func:`column_charset_functions`); of an expression over a column of another set than the
connection's (``CONCAT(col, '')``) the value-reading answer stays, a documented difference.

COERCIBILITY values (manual "Collation Coercibility in Expressions"): 0 explicit COLLATE, 1 no collation, 2 implicit
(a column), 3 system constant (USER() ...), 4 coercible (a literal), 5 numeric or temporal, 6 ignorable (NULL).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine import charsets
from gtidkit.engine.sql.function_table import register, session_rows

if TYPE_CHECKING:
    from gtidkit.engine.sql.executor import Executor

__all__ = [
    "CONSTANT_FUNCTION",
    "ITEM_NAME",
    "canonical_introducers",
    "column_charset_functions",
    "resolve_introducers",
    "rewrite_charset_functions",
    "session_functions",
]

#: the call a CHARSET() / COLLATION() / COERCIBILITY() answered from the syntax becomes: its value, with the
#: call's position in the text kept (the result column is named as written)
CONSTANT_FUNCTION = "_GK_CONST"
#: meta key of a binary string's select-list name (the introduced literal's text)
ITEM_NAME = "gk_item_name"
#: an introducer followed by a quoted string: the cheap test before tokenising a statement
_INTRODUCED = re.compile(r"(?<![\w$@.])_[A-Za-z0-9]+\s*['\"]")


def canonical_introducers(
    text: str, client: str, tokens: Callable[[str], Any], unquote: Callable[[str], str]
) -> str:
    """``text`` with each ``_cs'literal'`` written ``_cs X'hex'``, hex being the literal's bytes as the client sent
    them (its text encoded in ``client``, the session's ``character_set_client``); other text unchanged.

    Args:
        text: one or more statements, in the engine's lexing (backslash escapes as the default sql_mode reads them).
        client: ``character_set_client``.
        tokens: the statement lexer (``parse._TOKEN.finditer``).
        unquote: a string token's value (``parse.unquote_string``).
    """
    if _INTRODUCED_NUMBER.search(text) is not None:
        _check_introduced_numbers(text, tokens)
    if _INTRODUCED.search(text) is None:
        return text
    out: list[str] = []
    pending: int | None = None  # index in out of an introducer waiting for its string
    for m in tokens(text):
        tok, kind = m.group(), m.lastgroup
        if kind in ("sq", "dq") and pending is not None:
            raw = charsets.encode(unquote(tok), client)
            out.append(("" if out[-1] == " " else " ") + f"X'{raw.hex().upper()}'")
            pending = None
            continue
        if kind == "word" and tok.startswith("_") and tok[1:].lower() in charsets.CHARSETS:
            prev = out[-1] if out else ""
            if not prev or not (prev[-1].isalnum() or prev[-1] in "_$@."):
                out.append(tok)
                pending = len(out) - 1
                continue
        if kind != "ws":
            pending = None
        elif pending is not None:
            tok = " "  # keep the introducer apart from the X'..' that replaces the string
        out.append(tok)
    return "".join(out)


#: an introducer of a set checked here: the cheap test before looking for an introduced hex / bit literal
_INTRODUCED_NUMBER = re.compile(r"(?<![\w$@.])_(?:utf8mb4|utf8mb3|utf8|ascii)\b", re.IGNORECASE)
#: a hexadecimal or bit-value literal token (after its introducer)
_NUMBER_LITERAL = re.compile(
    r"[xX]'(?P<x>[0-9A-Fa-f]*)'|0x(?P<x0>[0-9A-Fa-f]+)|[bB]'(?P<b>[01]*)'|0b(?P<b0>[01]+)"
)
#: the sets whose byte sequences are checked here, and the longest character each holds (utf8mb3: 3 bytes)
_CHECKED_SETS = {"utf8mb4": 4, "utf8mb3": 3, "utf8": 3, "ascii": 1}


def _invalid_at(raw: bytes, charset: str) -> int | None:
    """The offset of the first byte of ``raw`` that starts no valid character of ``charset`` (utf8mb4, utf8mb3,
    ascii), or None when every byte does or the set is not checked here."""
    longest = _CHECKED_SETS.get(charset.lower())
    if longest is None:
        return None
    if longest == 1:
        return next((i for i, b in enumerate(raw) if b >= 0x80), None)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        bad: int | None = err.start
    else:
        bad = None
    if longest == 3:  # utf8mb3 has no 4-byte characters (U+10000 and above)
        at = 0
        for ch in text if bad is None else raw[:bad].decode("utf-8"):
            if ord(ch) > 0xFFFF:
                return at
            at += len(ch.encode("utf-8"))
    return bad


def _check_introduced_numbers(text: str, tokens: Callable[[str], Any]) -> None:
    """Raise MySQL's error for an introduced hexadecimal / bit-value literal whose bytes are no string of the set
    (``Item::check_well_formed_result`` with ``send_error``: ``SELECT _utf8mb4 X'41FF42'`` is ERROR 1300 "Invalid
    utf8mb4 character string: 'FF42'", the hex of at most 3 bytes from the first invalid one). A quoted string
    after an introducer keeps its bytes (MySQL warns there). ``tokens`` is the statement lexer."""
    from gtidkit.mysql_errors import mysql_error

    significant: list[str] = []  # the statement's tokens but whitespace and comments, from the start
    for m in tokens(text):
        if m.lastgroup in ("ws", "comment"):
            continue
        significant.append(m.group())
    for i, tok in enumerate(significant):
        if not tok.startswith("_") or tok[1:].lower() not in _CHECKED_SETS or i + 1 >= len(significant):
            continue
        literal = significant[i + 1]
        if literal.upper() in ("X", "B") and i + 2 < len(significant):
            literal += significant[i + 2]
        m = _NUMBER_LITERAL.fullmatch(literal)
        if m is None:
            continue
        hexdigits, bits = m.group("x") or m.group("x0"), m.group("b") or m.group("b0")
        if hexdigits is not None:
            raw = bytes.fromhex(hexdigits if len(hexdigits) % 2 == 0 else "0" + hexdigits)
        elif bits:
            raw = int(bits, 2).to_bytes((len(bits) + 7) // 8, "big")
        else:
            continue
        cs = tok[1:].lower()
        bad = _invalid_at(raw, cs)
        if bad is not None:
            raise mysql_error(1300, "utf8mb3" if cs == "utf8" else cs, raw[bad : bad + 3].hex().upper())


def _introducer_set(node: exp.Expression) -> str:
    name = node.this if isinstance(node.this, str) else node.name
    return str(name).lstrip("_").lower()


def _bytes_of(value: exp.Expression) -> bytes | None:
    if isinstance(value, exp.BitString):
        bits = str(value.this) or "0"
        return int(bits, 2).to_bytes((len(bits) + 7) // 8, "big")
    if isinstance(value, exp.HexString):
        text = str(value.this)
        return bytes.fromhex(text if len(text) % 2 == 0 else "0" + text)
    if isinstance(value, exp.Literal) and value.is_string:
        return str(value.this).encode("utf-8", "surrogateescape")
    return None


def resolve_introducers(tree: exp.Expression) -> exp.Expression:
    """Replace ``_binary X'..'`` by the binary string ``X'..'``, ``_cs X'..'`` / ``_cs'..'`` by the string those
    bytes are in ``cs``, and ``N'..'`` by a plain string (in place; returns the tree, replaced when it is one)."""
    for node in list(tree.find_all(exp.Introducer, exp.National)):
        if isinstance(node, exp.National):
            new: exp.Expression = exp.Literal.string(str(node.this))
        else:
            raw = _bytes_of(node.expression)
            cs = _introducer_set(node)
            if raw is None or cs not in charsets.CHARSETS:
                continue
            if cs == "binary":
                new = exp.HexString(this=raw.hex().upper())
                # MySQL names the item after the string (SELECT _binary'abc' is column `abc`)
                # (as text SQLite can carry as an alias: bytes that are no UTF-8 shown as U+FFFD, NULs left out)
                new.meta[ITEM_NAME] = raw.decode("utf-8", "replace").replace("\0", "")
            else:
                new = exp.Literal.string(charsets.decode(raw, cs))
        new.meta.update(node.meta)  # its position in the text: the result column is named as written
        if node is tree:
            return new
        node.replace(new)
    return tree


#: functions whose value is a system constant (utf8mb3, coercibility 3): RM "Information Functions"
_SYSTEM_FUNCTIONS = frozenset(
    {"USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "DATABASE", "SCHEMA", "VERSION", "CURRENT_ROLE"}
)
_SYSTEM_NODES = (exp.CurrentUser, exp.CurrentSchema, exp.CurrentVersion, exp.SessionUser)


def _function_name(node: Any) -> str:
    if isinstance(node, exp.Anonymous):
        return str(node.name).upper()
    if isinstance(node, exp.Collation):
        return "COLLATION"
    return ""


def _known(arg: exp.Expression) -> tuple[str, str, int] | None:
    """(charset, collation, coercibility) of an argument its syntax decides, else None."""
    while isinstance(arg, exp.Paren):
        arg = arg.this
    if isinstance(arg, exp.Collate):
        coll = str(arg.expression.name).lower()
        cs = "binary" if coll == "binary" else coll.split("_")[0]
        return ("utf8mb3" if cs == "utf8" else cs), coll, 0
    to = arg.args.get("to") if isinstance(arg, exp.Cast) else None
    if isinstance(to, exp.DataType) and to.this == exp.DataType.Type.CHARACTER_SET:  # CONVERT(x USING cs)
        found = charsets.CHARSETS.get(str(to.args["kind"].name).lower()) if to.args.get("kind") else None
        return None if found is None else (found.name, found.default_collation, 2)
    if isinstance(arg, exp.Introducer):
        cs = _introducer_set(arg)
        found = charsets.CHARSETS.get(cs)
        if found is None:
            return None
        return found.name, found.default_collation, 4
    if isinstance(arg, exp.National):
        return "utf8mb3", "utf8mb3_general_ci", 4
    if isinstance(arg, (exp.HexString, exp.BitString)):
        return "binary", "binary", 4
    if isinstance(arg, exp.Null):
        return "binary", "binary", 6
    if isinstance(arg, (exp.Boolean,)) or (isinstance(arg, exp.Literal) and not arg.is_string):
        return "binary", "binary", 5
    if isinstance(arg, _SYSTEM_NODES) or (
        isinstance(arg, exp.Anonymous) and str(arg.name).upper() in _SYSTEM_FUNCTIONS
    ):
        return "utf8mb3", "utf8mb3_general_ci", 3
    return None


def _literal(arg: exp.Expression) -> bool:
    while isinstance(arg, exp.Paren):
        arg = arg.this
    return isinstance(arg, (exp.Placeholder, exp.Literal))


def rewrite_charset_functions(tree: exp.Expression) -> exp.Expression:
    """Answer CHARSET() / COLLATION() / COERCIBILITY() of arguments whose syntax decides them (see the module
    docstring) with literals; of a plain literal (or the ``:gk<i>`` placeholder standing for one) call the
    session functions as literals (``_GK_LITERAL_*``); anything else calls them on the value. In place."""
    for node in list(tree.find_all(exp.Anonymous, exp.Collation)):
        fname = _function_name(node)
        if fname not in ("CHARSET", "COLLATION", "COERCIBILITY"):
            continue
        args = [node.this] if isinstance(node, exp.Collation) else list(node.expressions)
        if len(args) != 1 or args[0] is None:
            continue
        known = _known(args[0])
        if known is not None:
            cs, coll, coercibility = known
            value = {"CHARSET": exp.Literal.string(cs), "COLLATION": exp.Literal.string(coll)}.get(
                fname, exp.Literal.number(coercibility)
            )
            new: exp.Expression = exp.Anonymous(this=CONSTANT_FUNCTION, expressions=[value])
        else:
            prefix = "_GK_LITERAL_" if _literal(args[0]) else "_GK_VALUE_"
            new = exp.Anonymous(this=prefix + fname, expressions=[args[0]])
        new.meta.update(node.meta)  # its position in the text: the result column is named as written
        if node is tree:
            return new
        node.replace(new)
    return tree


#: column family -> (CHARSET, COLLATION, COERCIBILITY) of a column whose type has no character set: the binary
#: string types are binary and implicit (2), numbers, temporal types, YEAR and BIT are binary and numeric (5)
#: (``Field::derivation``: DERIVATION_NUMERIC for ``Field_num`` / ``Field_temporal``); JSON is utf8mb4_bin
_UNSET_COLUMN: dict[str, tuple[str, str, int]] = {
    "binary": ("binary", "binary", 2),
    "geometry": ("binary", "binary", 2),
    "json": ("utf8mb4", "utf8mb4_bin", 2),
}
_NUMERIC_COLUMN = ("binary", "binary", 5)
#: what :func:`rewrite_charset_functions` calls a value-reading CHARSET / COLLATION / COERCIBILITY -> its index in
#: a column's (charset, collation, coercibility)
_VALUE_FUNCTIONS = {"_GK_VALUE_CHARSET": 0, "_GK_VALUE_COLLATION": 1, "_GK_VALUE_COERCIBILITY": 2}


def column_charset_functions(tree: exp.Expression, tables: list[tuple[str, Any]]) -> None:
    """Answer CHARSET() / COLLATION() / COERCIBILITY() of a column from its definition, as MySQL's ``Item_field``
    takes its collation from the field (``Item_field::set_field``): a string column's own character set and
    collation, implicit coercibility 2, whatever its value (NULL included); see :data:`_UNSET_COLUMN` for the
    others. ``tables``: (alias, TableDef) of the tables the statement reads (``resolve_tables`` named them);
    a column that names none of them, or more than one, keeps the value-reading function. In place."""
    if not tables:
        return
    for node in list(tree.find_all(exp.Anonymous)):
        which = _VALUE_FUNCTIONS.get(str(node.this).upper())
        if which is None or len(node.expressions) != 1:
            continue
        arg = node.expressions[0]
        while isinstance(arg, exp.Paren):
            arg = arg.this
        if not isinstance(arg, exp.Column) or not arg.name:
            continue
        qualifier = arg.table.lower()
        low = arg.name.lower()
        found = [
            c
            for alias, t in tables
            if not qualifier or alias.lower() == qualifier or t.name.lower() == qualifier
            for c in t.columns
            if c.name.lower() == low
        ]
        if len(found) != 1:
            continue
        col = found[0]
        if col.charset:
            answer: tuple[str, str, int] = (col.charset, col.collation or "", 2)
        else:
            answer = _UNSET_COLUMN.get(col.info.family, _NUMERIC_COLUMN)
        value = answer[which]
        literal = exp.Literal.number(value) if isinstance(value, int) else exp.Literal.string(value)
        new = exp.Anonymous(this=CONSTANT_FUNCTION, expressions=[literal])
        new.meta.update(node.meta)  # the result column keeps the name written
        node.replace(new)


def session_functions(ex: Executor) -> dict[str, Callable[..., Any]]:
    """The value-reading CHARSET / COLLATION / COERCIBILITY of ``ex``'s session: a string is in the connection's
    set and collation (``character_set_connection`` / ``collation_connection``), bytes, numbers and temporal
    values are ``binary``; a literal is coercible (4) or numeric (5), a value of a column implicit (2), NULL
    ignorable (6)."""

    def connection(name: str, default: str) -> str:
        if ex.sysvar_resolver is None:
            return default
        return str(ex.sysvar_resolver(name, None) or default)

    def charset(v: Any) -> str:
        if isinstance(v, str):
            return connection("character_set_connection", "utf8mb4")
        return "binary"

    def collation(v: Any) -> str:
        if isinstance(v, str):
            return connection("collation_connection", "utf8mb4_0900_ai_ci")
        return "binary"

    def coercibility(literal: bool) -> Callable[[Any], int]:
        def of(v: Any) -> int:
            if v is None:
                return 6
            if isinstance(v, (str, bytes)):
                return 4 if literal else 2
            return 5

        return of

    return {
        CONSTANT_FUNCTION: lambda v: v,
        "_GK_LITERAL_CHARSET": charset,
        "_GK_VALUE_CHARSET": charset,
        "_GK_LITERAL_COLLATION": collation,
        "_GK_VALUE_COLLATION": collation,
        "_GK_LITERAL_COERCIBILITY": coercibility(True),
        "_GK_VALUE_COERCIBILITY": coercibility(False),
    }


#: evaluated in Python for a SELECT without tables (CHARSET('a')), and through SQLite otherwise
register(
    *session_rows(
        session_functions,
        {
            name: (1, 1)
            for name in (
                CONSTANT_FUNCTION, "_GK_LITERAL_CHARSET", "_GK_VALUE_CHARSET", "_GK_LITERAL_COLLATION",
                "_GK_VALUE_COLLATION", "_GK_LITERAL_COERCIBILITY", "_GK_VALUE_COERCIBILITY",
            )
        },
        python_eval=True,
        deterministic=False,
    )
)  # fmt: skip
