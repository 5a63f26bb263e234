"""MySQL statement text: lexing, splitting, comment stripping, sqlglot parsing and MySQL's parse errors.

Classification (which statement is this?) is not done here but once, in :mod:`gtidkit.engine.statements.classify`;
the SQL layer reads classified statements through :class:`SqlStatement`.

For the hot path, :func:`templatize` replaces number and string literals by named placeholders (``:gk0`` ...)
so a statement's plan can be cached by its *shape* and re-bound with new literals (sysbench sends the same
shapes with different literals).
Sources: MySQL ``sql/sql_yacc.yy`` (grammar), ``sql/sql_lex.cc`` (string escapes, comments), manual "Comments".
"""

from __future__ import annotations

import logging
import re
from decimal import Decimal
from typing import Any, Protocol

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "SqlStatement",
    "ddl_spelling",
    "escape_backslashes",
    "lexed_introducers",
    "lexical_error",
    "normalize",
    "parse_error",
    "parse_tree",
    "split_partitioning",
    "split_statements",
    "strip_comments",
    "strip_newer_version_comments",
    "templatize",
    "type_synonyms",
    "unquote_string",
]

logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its Command fallback warning is handled as an error

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>--(?:[ \t][^\n]*)?(?:\n|$)|\#[^\n]*(?:\n|$)|/\*(?!!)[\s\S]*?\*/)
  | (?P<vcomment>/\*!(?:[0-9]{5}[0-9]*)?|\*/)
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
#: :data:`_TOKEN` under sql_mode NO_BACKSLASH_ESCAPES (``sql_lex.cc``: a backslash is an ordinary character in a
#: string, which ends at the first quote that is not doubled).
_TOKEN_NO_BACKSLASH = re.compile(
    _TOKEN.pattern.replace(
        r"""(?P<sq>'[^'\\]*(?:(?:\\[\s\S]|'')[^'\\]*)*')""", r"""(?P<sq>'[^']*(?:''[^']*)*')"""
    ).replace(r"""(?P<dq>"[^"\\]*(?:(?:\\[\s\S]|"")[^"\\]*)*")""", r"""(?P<dq>"[^"]*(?:""[^"]*)*")"""),
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


def escape_backslashes(text: str, ansi_quotes: bool = False) -> str:
    """A statement lexed as under sql_mode NO_BACKSLASH_ESCAPES, written for the default lexing: every backslash
    inside a quoted string doubled, so the default lexer (and every reader of statement text here) reads the same
    values (``'a\\'`` becomes ``'a\\\\'``: the string ``a\\`` both times). Text outside strings is unchanged;
    with ``ansi_quotes`` (sql_mode ANSI_QUOTES) a double-quoted token is an identifier and stays as it is.

    MySQL's lexer reads the mode itself (``sql_lex.cc``, ``MODE_NO_BACKSLASH_ESCAPES``); here a statement is
    brought into the one form the rest of the engine parses, once, where it enters the engine.
    """
    if "\\" not in text:
        return text
    parts = []
    for m in _TOKEN_NO_BACKSLASH.finditer(text):
        tok = m.group()
        quoted = m.lastgroup == "sq" or (m.lastgroup == "dq" and not ansi_quotes)
        parts.append(tok.replace("\\", "\\\\") if quoted else tok)
    return "".join(parts)


def lexed_introducers(text: str, client: str) -> str:
    """``text`` with each string after a character set introducer written as the bytes the client sent
    (``_binary'..'`` -> ``_binary X'..'``, ``client`` being ``character_set_client``):
    :func:`gtidkit.engine.sql.charset_literals.canonical_introducers` with this module's lexer."""
    from gtidkit.engine.sql.charset_literals import canonical_introducers

    return canonical_introducers(text, client, _TOKEN.finditer, unquote_string)


def split_statements(text: str, backslash_escapes: bool = True) -> list[str]:
    """Split multi-statement text on ``;`` outside quotes and comments; empty statements are dropped.

    Each statement keeps its own text (comments included, trailing ``;`` removed, outer whitespace stripped).
    ``DELIMITER`` is a mysql-client command, not SQL, and is not supported (it would be sent to the server as a
    statement and fail there with 1064, as with a real server). ``backslash_escapes`` False: strings are lexed
    as under sql_mode NO_BACKSLASH_ESCAPES.
    """
    if ";" not in text and not _has_comment_marker(text):
        s = text.strip()
        return [s] if s else []
    out: list[str] = []
    start = 0
    for m in (_TOKEN if backslash_escapes else _TOKEN_NO_BACKSLASH).finditer(text):
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


def strip_newer_version_comments(text: str, version: int) -> str:
    """``text`` with each ``/*!NNNNN ... */`` whose version number is above ``version`` removed, body and all
    (a space in its place); the others unchanged (their bodies are code, as everywhere in this module).

    MySQL's lexer (``sql_lex.cc``, MY_LEX_COMMENT): after ``/*!`` five digits start a version number (the digits
    that follow belong to it too: MariaDB's ``/*!100001 ...*/`` is 100001); the body runs when that number is at most
    the server's ``MYSQL_VERSION_ID`` (80036 for 8.0.36), else the comment is skipped to its first ``*/``, quotes
    inside included. Fewer than five digits are no version: they belong to the body. Manual "Comments":
    "the syntax within the comment is executed only if the MySQL version is greater than or equal to the
    specified version number".

    Args:
        text: statement text.
        version: the server's version as ``major * 10000 + minor * 100 + patch``.
    """
    if "/*!" not in text:
        return text
    parts = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m is not None  # the op alternative matches any character
        tok = m.group()
        if m.lastgroup == "vcomment" and len(tok) > 3 and int(tok[3:]) > version:
            end = text.find("*/", m.end())
            pos = len(text) if end < 0 else end + 2
            parts.append(" ")
            continue
        parts.append(tok)
        pos = m.end()
    return "".join(parts)


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


#: cheap gate for :func:`lexical_error`: text without ``?``, a ``:`` that is not ``:=`` or a 3-digit exponent needs
#: no tokenizing
_MAYBE_LEXICAL = re.compile(r"\?|:(?!=)|\d[eE][+-]?\d{3}|(?i:limit)|,\s*[,)]|\(\s*,")


def lexical_error(text: str, *, prepared: bool = False) -> MySQLError | None:
    """The error MySQL's lexer gives a COM_QUERY statement that sqlglot would read otherwise, else None.

    - ``?`` is PARAM_MARKER, which the grammar accepts only in a prepared statement's text, and there is no
      ``:name`` token (a ``:`` outside ``:=`` starts nothing): ER_PARSE_ERROR 1064 near the marker
      (``sql/sql_lex.cc``, ``sql/sql_yacc.yy``).
    - A floating-point literal beyond DOUBLE's range (``1e309``): ER_ILLEGAL_VALUE_FOR_TYPE 1367, "Illegal double
      '1e309' value found during parsing" (``Item_float``).
    - LIMIT / OFFSET take integer literals only (``limit_option``: NUM, LONG_NUM, ULONGLONG_NUM, a parameter
      marker or a stored-program variable): ``LIMIT 0.5`` / ``LIMIT '1'`` are 1064 near the value.
    - An empty list item: ``,`` followed by ``,`` or ``)``, or ``(`` followed by ``,`` (``CONCAT(1, , 2)``), which
      sqlglot's parser skips and no rule of MySQL's grammar accepts: 1064 near the second token.

    Quotes, backquotes and comments do not count (``/*!...*/`` bodies are code). ``prepared``: the text of a
    statement being prepared, where ``?`` is a parameter (``:name`` is still an error).
    """
    if _MAYBE_LEXICAL.search(text) is None:
        return None
    limit = 0  # 1: a LIMIT / OFFSET count comes next; 2: after LIMIT's first count (a `,` starts the second)
    prev = ""  # the previous token when it was `(` or `,`
    for m in _TOKEN.finditer(text):
        g = m.lastgroup
        if g == "ws" or g == "comment" or g == "vcomment":
            continue
        tok = m.group()
        if prev and (tok == "," or (tok == ")" and prev == ",")):
            return parse_error(text, m.start())
        prev = tok if g == "op" and tok in "(," else ""
        if limit == 1:
            if g != "word" and not (g == "num" and tok.isdigit()) and not (prepared and tok == "?"):
                return parse_error(text, m.start())
            limit = 2
            continue
        if limit == 2 and (tok == "," or (g == "word" and tok.upper() == "OFFSET")):
            limit = 1  # OFFSET is a keyword only here (it may name a column elsewhere)
            continue
        limit = 1 if g == "word" and tok.upper() == "LIMIT" else 0
        if g == "op" and (
            (tok == "?" and not prepared) or (tok == ":" and not text.startswith("=", m.end()))
        ):
            return parse_error(text, m.start())
        if g == "var" and tok.startswith(":"):
            return parse_error(text, m.start())
        if g == "num" and ("e" in tok or "E" in tok) and float(tok) == float("inf"):
            return mysql_error(1367, "double", tok)
    return None


class SqlStatement(Protocol):
    """What the SQL layer reads of a classified statement (:class:`gtidkit.engine.statements.classify.Statement`):
    its kind (``select``, ``dml``, ``ddl``, ``use``, ``show``, savepoint kinds), text, recogniser ``info`` and the
    lazily parsed sqlglot ``tree``. Classification itself lives in ``engine/statements/classify.py``, done once."""

    @property
    def kind(self) -> str:
        """The statement kind (read-only here, so a ``str`` subclass such as ``StatementKind`` conforms)."""

    text: str
    info: dict[str, Any]

    @property
    def tree(self) -> exp.Expression | None:
        """The sqlglot tree (None for recogniser-only statements)."""

    @property
    def template(self) -> tuple[str, list[Any]] | None:
        """``templatize(text)``, made once per statement (the plan-cache key)."""


def parse_error(text: str, near_offset: int | None) -> MySQLError:
    """ER_PARSE_ERROR 1064 (42000) with MySQL's message shape (``near '<80 chars>' at line N``)."""
    if near_offset is None or near_offset >= len(text):
        near, line = "", text.count("\n") + 1
    else:
        near, line = text[near_offset : near_offset + 80], text.count("\n", 0, near_offset) + 1
    return mysql_error(
        1064,
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use",
        near,
        line,
    )


#: Spatial column types sqlglot's MySQL grammar lacks, and their GEOMETRY(n) spelling (n = the position in
#: :data:`gtidkit.engine.sql.spatial.SPATIAL_TYPES`; MySQL itself has no GEOMETRY(n), so the spelling is ours alone).
_SPATIAL_SPELLING = {
    "GEOMETRY": 0,
    "POINT": 1,
    "LINESTRING": 2,
    "POLYGON": 3,
    "MULTIPOINT": 4,
    "MULTILINESTRING": 5,
    "MULTIPOLYGON": 6,
    "GEOMETRYCOLLECTION": 7,
    "GEOMCOLLECTION": 7,
}
#: Words after which a spatial type name is an identifier, not a column type.
_NOT_A_COLUMN = {
    "KEY",
    "INDEX",
    "CONSTRAINT",
    "UNIQUE",
    "PRIMARY",
    "FOREIGN",
    "COLUMN",
    "TABLE",
    "SPATIAL",
    "ON",
}
_DDL_TYPES = re.compile(
    r"""('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")"""
    r"|(?P<prev>`[^`]*`|\b\w+)(?P<ws>\s+)(?P<type>" + "|".join(_SPATIAL_SPELLING) + r")\b"
    r"|(?P<srid>\s+SRID\s+\d+\b)",
    re.IGNORECASE,
)
_IS_TABLE_DDL = re.compile(r"^\s*(CREATE\s+(TEMPORARY\s+)?TABLE|ALTER\s+TABLE)\b", re.IGNORECASE)


#: MySQL's LONG column types (``sql_yacc.yy``: ``LONG VARBINARY`` is MEDIUMBLOB, ``LONG [VARCHAR | CHAR VARYING]
#: [charset]`` MEDIUMTEXT, ``LONG BYTE`` MEDIUMTEXT in the binary set, i.e. MEDIUMBLOB; manual "Using Data Types from
#: Other Database Engines"), spelled as sqlglot reads them
_LONG_TYPES = re.compile(
    r"""('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")"""
    r"|(?P<prev>`[^`]*`|\b\w+)(?P<ws>\s+)LONG(?:\s+(?P<kind>VARBINARY|VARCHAR|CHAR\s+VARYING|BYTE))?\b(?!\s*[(.])",
    re.IGNORECASE,
)
#: words after which LONG names a column, not its type (ALTER TABLE t ADD long INT, CHANGE long x INT)
_NOT_A_LONG_TYPE = _NOT_A_COLUMN | {
    "ADD",
    "CHANGE",
    "MODIFY",
    "DROP",
    "AFTER",
    "FIRST",
    "RENAME",
    "TO",
    "AS",
    "BY",
}


def _long_types(text: str) -> str:
    def sub(m: re.Match[str]) -> str:
        if m.group(1) is not None or m.group("prev").upper() in _NOT_A_LONG_TYPE:
            return m.group(0)
        kind = (m.group("kind") or "").upper()
        spelled = "MEDIUMBLOB" if kind in ("VARBINARY", "BYTE") else "MEDIUMTEXT"
        return f"{m.group('prev')}{m.group('ws')}{spelled}"

    return _LONG_TYPES.sub(sub, text) if re.search(r"\bLONG\b", text, re.IGNORECASE) else text


#: MySQL's numeric type synonyms (``sql_lex.cc``'s symbol table, RM8 13.10 "Using Data Types from Other Database
#: Engines": INT1 = TINYINT, INT2 = SMALLINT, INT3 = MIDDLEINT = MEDIUMINT, INT4 = INT, INT8 = BIGINT, FLOAT4 = FLOAT,
#: FLOAT8 = DOUBLE; REAL is DOUBLE unless sql_mode REAL_AS_FLOAT, then FLOAT), which sqlglot reads wrongly (REAL and
#: INT8 as FLOAT and TINYINT) or not at all (INT3, MIDDLEINT): spelled as the types they name.
_SYNONYMS = {
    "INT1": "TINYINT",
    "INT2": "SMALLINT",
    "INT3": "MEDIUMINT",
    "MIDDLEINT": "MEDIUMINT",
    "INT4": "INT",
    "INT8": "BIGINT",
    "FLOAT4": "FLOAT",
    "FLOAT8": "DOUBLE",
    "REAL": "DOUBLE",
}
_SYNONYM_TOKENS = re.compile(
    r"""(?P<q>'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|`[^`]*`)|(?P<w>\w+)|(?P<o>[^\s\w'"`]+)""",
)
_HAS_SYNONYM = re.compile(r"\b(?:" + "|".join(_SYNONYMS) + r")\b", re.IGNORECASE)


def type_synonyms(text: str, real_as_float: bool = False) -> str:
    """``text`` (a CREATE / ALTER TABLE) with MySQL's numeric type synonyms spelled as the types they name
    (:data:`_SYNONYMS`); ``real_as_float``: sql_mode REAL_AS_FLOAT is set, REAL is FLOAT. A synonym that is a
    quoted name, or a name after a word that introduces one (``ADD real INT``), is left alone; other text
    unchanged."""
    if not _IS_TABLE_DDL.match(text) or not _HAS_SYNONYM.search(text):
        return text

    out: list[str] = []
    at = 0
    prev: str | None = None  # the token before: a synonym is a type only after a column's name
    for m in _SYNONYM_TOKENS.finditer(text):
        word = m.group("w")
        kind = word.upper() if word is not None else ""
        if kind == "SELECT":  # CREATE TABLE ... SELECT: the query's words are names (SELECT a real FROM t)
            break
        if kind in _SYNONYMS and prev is not None and prev.upper() not in _NOT_A_LONG_TYPE:
            after = text[m.end() :].lstrip()
            if not after.startswith("."):
                out.append(text[at : m.start()])
                out.append("FLOAT" if kind == "REAL" and real_as_float else _SYNONYMS[kind])
                at = m.end()
        quoted = m.group("q")
        prev = word if word is not None else quoted if quoted is not None and quoted[0] == "`" else None
    out.append(text[at:])
    return "".join(out)


def ddl_spelling(text: str) -> str:
    """``text`` with the spatial column types of a CREATE / ALTER TABLE spelled ``GEOMETRY(n)`` for sqlglot, a
    column's ``SRID s`` attribute folded into it as ``GEOMETRY(n, s)``, the LONG types as MEDIUMTEXT /
    MEDIUMBLOB, and the numeric synonyms as :func:`type_synonyms` spells them; other text unchanged."""
    if not _IS_TABLE_DDL.match(text):
        return text
    text = type_synonyms(_long_types(text))
    out: list[str] = []
    last_type: int | None = None  # the piece holding the latest spatial type, which a SRID attaches to
    code = 0
    at = 0
    for m in _DDL_TYPES.finditer(text):
        out.append(text[at : m.start()])
        at = m.end()
        if m.group("srid") is not None:
            if last_type is None:
                out.append(m.group(0))
                continue
            srid = m.group("srid").split()[-1]
            out[last_type] = out[last_type].replace(f"GEOMETRY({code})", f"GEOMETRY({code}, {srid})")
            last_type = None
        elif m.group(1) is not None or m.group("prev").upper() in _NOT_A_COLUMN:
            out.append(m.group(0))
        else:
            code = _SPATIAL_SPELLING[m.group("type").upper()]
            last_type = len(out)
            out.append(f"{m.group('prev')}{m.group('ws')}GEOMETRY({code})")
    out.append(text[at:])
    return "".join(out)


_PARTITION_BY = re.compile(
    r"""('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|`[^`]*`)|([()])|\bPARTITION\s+BY\b""", re.IGNORECASE
)
_IS_CREATE_TABLE = re.compile(r"^\s*CREATE\s+(TEMPORARY\s+)?TABLE\b", re.IGNORECASE)


def split_partitioning(text: str) -> tuple[str, str]:
    """A CREATE TABLE's text without its trailing ``PARTITION BY ...`` clause, and that clause (``""`` when
    none): sqlglot's MySQL grammar has no partitioning, which changes no row's content (RM8 24 "Partitioning")."""
    if not _IS_CREATE_TABLE.match(text):
        return text, ""
    depth = 0
    for m in _PARTITION_BY.finditer(text):
        if m.group(1) is not None:
            continue
        if m.group(2) is not None:
            depth += 1 if m.group(2) == "(" else -1
        elif depth == 0:
            return text[: m.start()].rstrip(), text[m.start() :].strip().rstrip(";").strip()
    return text, ""


#: an introducer, N'..', or a call of CHARSET() / COLLATION() / COERCIBILITY(): what charset_literals rewrites
_CHARSET_SYNTAX = re.compile(
    r"""(?<![\w$@])(?:_[A-Za-z0-9]+\s*(?:[xXbB]?['"]|0[xXbB])|[nN]')|\b(?:CHARSET|COLLATION|COERCIBILITY)\s*\(""",
    re.IGNORECASE,
)


def parse_tree(text: str, replace: bool = False) -> exp.Expression:
    """Parse one MySQL statement with sqlglot; ``replace`` parses ``REPLACE ...`` as INSERT (flag kept by caller).

    Raises:
        MySQLError: 1064 with MySQL's message shape for text sqlglot rejects or only parses as a raw Command.
    """
    src, partitioning = split_partitioning(ddl_spelling(text))
    if replace:
        src = re.sub(r"^\s*REPLACE\b", "INSERT", text, count=1, flags=re.IGNORECASE)
    try:
        try:
            trees = sqlglot.parse(src, read="mysql")
        except MySQLError as err:  # a call's argument count (the function table's check as sqlglot builds it)
            from gtidkit.engine.sql.function_table import as_written

            raise as_written(err, src) from None
        except (AttributeError, TypeError, IndexError, KeyError, ValueError) as crash:
            # sqlglot's parser trips over some malformed input instead of reporting it: a syntax error too
            raise ParseError(str(crash)) from crash
    except (ParseError, TokenError) as err:
        from gtidkit.engine.sql.unsupported import unsupported_family

        feature = unsupported_family(text)
        if feature is not None:  # MySQL's grammar has it, sqlglot's does not: 1235, not a syntax error
            raise mysql_error(1235, feature) from err
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
        # sqlglot's fallback for statements it does not model: a MySQL statement family we do not run gives 1235,
        # anything else is a syntax error (engine/sql/unsupported.py)
        from gtidkit.engine.sql.unsupported import statement_error

        raise statement_error(text)
    _check_arguments(text, tree)
    _check_cast_types(text, tree)
    quoted = _string_as_table_name(src, tree)
    if quoted is not None:
        raise parse_error(text, quoted if src == text else None)
    if _incomplete(tree):
        raise parse_error(text, None)
    for sel in tree.find_all(exp.Select):
        into = sel.args.get("into")
        if into is not None:
            # `SELECT ... INTO name` (sqlglot's SELECT INTO table): outside a stored program MySQL has no such
            # variable; `INTO @var` reaching here is not at the statement's end (user_vars takes that form)
            target = into.this
            if isinstance(target, exp.Table) and isinstance(target.this, exp.Identifier):
                raise mysql_error(1327, target.name)
            raise parse_error(text, None)
    if partitioning:
        tree.meta["gk_partitioning"] = partitioning
    if _CHARSET_SYNTAX.search(src) is not None:
        from gtidkit.engine.sql.charset_literals import resolve_introducers, rewrite_charset_functions

        # CHARSET(_latin1'a') reads the introducer, so the functions go first
        tree = resolve_introducers(rewrite_charset_functions(tree))
    return tree


def _string_as_table_name(src: str, tree: exp.Expression) -> int | None:
    """The offset in ``src`` of a single-quoted string that sqlglot took for a table or schema name
    (``CREATE TABLE 'x' (...)``, ``SELECT * FROM 'x'``), else None: MySQL's ``table_ident`` is an identifier, never a
    TEXT_STRING, so the statement is a syntax error (1064 near the string)."""
    for table in tree.find_all(exp.Table):
        for part in (table.args.get("this"), table.args.get("db")):
            if isinstance(part, exp.Identifier) and part.quoted:
                start = part.meta.get("start")
                if start is not None and 0 <= start < len(src) and src[start] == "'":
                    return int(start)
    return None


def _incomplete(tree: exp.Expression) -> bool:
    """True for the shapes sqlglot accepts but MySQL's grammar does not: a SELECT without items, GROUP_CONCAT
    without an expression, ON DUPLICATE KEY UPDATE without ``col = expr``, a key or index without columns, ALTER TABLE ... DROP COLUMN without a name,
    ``CREATE TABLE t LIKE (s)`` (MySQL takes ``LIKE s`` or ``(LIKE s)``)."""
    if any(not sel.expressions for sel in tree.find_all(exp.Select)):
        return True
    conflict = tree.args.get("conflict") if isinstance(tree, exp.Insert) else None
    if conflict is not None and any(not isinstance(e, exp.EQ) for e in conflict.expressions):
        return True
    for gc in tree.find_all(exp.GroupConcat):
        if isinstance(gc.this, exp.Order) and gc.this.this is None:
            return True  # GROUP_CONCAT(ORDER BY x): no expression to concatenate
    for node in tree.find_all(
        exp.UniqueColumnConstraint, exp.IndexColumnConstraint, exp.IndexParameters, exp.Drop, exp.LikeProperty
    ):
        if isinstance(node, exp.IndexColumnConstraint):
            if not node.expressions and isinstance(node.parent, exp.Schema):
                return True  # KEY () in a table definition
        elif isinstance(node, exp.UniqueColumnConstraint):
            schema = node.this
            if isinstance(schema, exp.Schema) and not schema.expressions:
                return True
        elif isinstance(node, exp.IndexParameters):
            if isinstance(node.parent, exp.Index) and not node.args.get("columns"):
                return True
        elif isinstance(node, exp.Drop):
            if isinstance(node.parent, exp.Alter) and node.this is None and not node.args.get("tables"):
                return True
        elif isinstance(node.this, exp.Subquery):
            return True
    return False


def _check_arguments(text: str, tree: exp.Expression) -> None:
    """Reject the function calls sqlglot builds without their required arguments (``DAY()``, ``COUNT(DISTINCT)``).

    Raises:
        MySQLError: 1582 ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT for a native function called with too few arguments
            (MySQL checks the count when it resolves the name, ``sql/item_create.cc``); 1064 for an aggregate's
            empty DISTINCT list (a grammar error in MySQL).
    """
    upper = None
    for node in tree.find_all(exp.Func, exp.Distinct):
        if isinstance(node, exp.Distinct):
            if not node.expressions and isinstance(node.parent, exp.Func):
                raise parse_error(text, None)
            continue
        for key, required in node.arg_types.items():
            if required and node.args.get(key) in (None, []):
                # sqlglot may wrap the argument in a conversion of its own (DAY(x) is Day(TsOrDsToDate(x))):
                # name the call as written
                upper = upper or text.upper()
                name = node.sql_name()
                if name not in upper and isinstance(node.parent, exp.Func):
                    name = node.parent.sql_name()
                raise mysql_error(1582, name)


#: the string and LOB types sqlglot accepts as a CAST / CONVERT target and MySQL's grammar does not (``cast_type``
#: in sql/sql_yacc.yy: BINARY, CHAR, NCHAR, SIGNED, UNSIGNED, DATE, TIME, DATETIME, DECIMAL, FLOAT, DOUBLE, REAL,
#: JSON, YEAR and the spatial types)
_NOT_CAST_TYPES = frozenset(
    {
        exp.DataType.Type.TEXT,
        exp.DataType.Type.TINYTEXT,
        exp.DataType.Type.MEDIUMTEXT,
        exp.DataType.Type.LONGTEXT,
        exp.DataType.Type.BLOB,
        exp.DataType.Type.TINYBLOB,
        exp.DataType.Type.MEDIUMBLOB,
        exp.DataType.Type.LONGBLOB,
    }
)


_LOB_TYPE_WORD = re.compile(r"(?i)(?:\bAS|,)\s*((?:tiny|medium|long)?(?:text|blob))\b")


def _check_cast_types(text: str, tree: exp.Expression) -> None:
    """Reject ``CAST(x AS TEXT)`` / ``CONVERT(x, BLOB)`` and the other LOB targets MySQL's ``cast_type`` rule has
    no row for (sqlglot builds them; before this check the engine answered a utf8mb4 column holding the operand's
    raw bytes, e.g. ``CAST(x'ff' AS TEXT)``).

    Raises:
        MySQLError: 1064 ER_PARSE_ERROR, as MySQL's grammar (``sql/sql_yacc.yy`` ``cast_type``).
    """
    for node in tree.find_all(exp.Cast):
        to = node.args.get("to")
        if isinstance(to, exp.DataType) and to.this in _NOT_CAST_TYPES:
            m = _LOB_TYPE_WORD.search(text)
            raise parse_error(text, m.start(1) if m is not None else None)


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
    if text in _NO_LITERALS:  # a prepared statement's template, seen before
        return None
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
            if "e" in tok or "E" in tok:
                return tok  # an approximate (DOUBLE) literal: its kind would be lost as a Decimal value
            values.append(Decimal(tok) if "." in tok else int(tok))
        else:
            values.append(unquote_string(tok))
        return f":gk{len(values) - 1}"

    out = _LITERAL.sub(sub, text)
    if not values:
        if len(_NO_LITERALS) >= 4096:
            _NO_LITERALS.clear()
        _NO_LITERALS.add(text)
        return None
    return out, values


#: statement texts without literals (``templatize`` returns None for them; prepared templates repeat)
_NO_LITERALS: set[str] = set()
