"""Statements are recognised in one place (issue 20, "parse once"): no regular expression outside the statement
parser recognises a statement by its leading keyword. The test walks the AST of every module under ``src/`` and
finds each ``re.compile`` / ``re.match`` / ``re.search`` ... whose pattern (a string literal, or an f-string's
literal head) starts, after anchors and whitespace, with a MySQL statement keyword (``^\\s*kill\\b``,
``SHOW (?:FULL )?TABLES``). The statement parser is ``engine/statements/classify.py``; the modules in
:data:`ALLOWED` match statement text for a reason other than recognising a statement, each said there.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.source_tree import SRC, nodes, python_files

#: The one module that turns statement text into typed statements.
PARSER = "engine/statements/classify.py"

#: module -> why its statement-keyword patterns are not statement recognition (each reads the arguments of a
#: statement classify.py already classified, or text that is not a client's statement)
ALLOWED = {
    "engine/accounts/statements.py": "the account statements' own grammar (users, auth, privilege lists), which "
    "classify.py asks whether a CREATE / ALTER / DROP / RENAME / GRANT / REVOKE / SET text is one",
    "engine/binlog/statement_context.py": "how STATEMENT format logs a classified DML (INSERT IGNORE / UPDATE "
    "IGNORE flags of the Query event)",
    "engine/session.py": "the applier's SET gtid_next = '...' fast path inside run_set (a classified SET)",
    "engine/sql/alter.py": "ALTER TABLE ... DISABLE KEYS and RENAME TABLE arguments sqlglot lacks (classified DDL)",
    "engine/sql/dml.py": "SQLite's CHECK constraint error text, not a statement",
    "engine/sql/executor.py": "DO expr and ALTER DATABASE arguments of classified statements",
    "engine/sql/explain.py": "EXPLAIN's options and its target statement (a classified EXPLAIN)",
    "engine/sql/parse.py": "sqlglot's text fixes (CREATE TABLE options, REPLACE) before it parses a classified "
    "statement",
    "replication/filters.py": "the replica's --replicate-* filters read the database / tables of a source's Query "
    "event (statement-format binlog text of another server, as MySQL's Rpl_filter does), and the rule list of a "
    "classified CHANGE REPLICATION FILTER",
    "engine/sql/temporary.py": "TEMPORARY and index targets of a classified DDL",
    "engine/statements/locks.py": "LOCK TABLES' table list of a statement classified as lock_tables",
    "engine/statements/set_parser.py": "SET's own grammar (SET forms the engine refuses) for a classified SET",
}

_KEYWORDS = (
    "SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|TRUNCATE|RENAME|SET|SHOW|DESCRIBE|DESC|EXPLAIN|USE|"
    "BEGIN|START|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|FLUSH|RESET|PURGE|STOP|CHANGE|KILL|LOCK|UNLOCK|XA|PREPARE|"
    "EXECUTE|DEALLOCATE|ANALYZE|OPTIMIZE|CHECK|REPAIR|CHECKSUM|GRANT|REVOKE|SHUTDOWN|DO|HANDLER|LOAD|CALL|"
    "INSTALL|UNINSTALL"
)
#: a pattern's head: anchors, whitespace classes, group openings and flags, then a keyword as a whole word
_STATEMENT_HEAD = re.compile(
    rf"^(?:\^|\\A|\\s\*|\\s\+|\s|\(\?[a-zA-Z]+\)|\(\?:|\()*(?:{_KEYWORDS})(?![A-Za-z0-9_])", re.IGNORECASE
)
_RE_FUNCTIONS = {"compile", "match", "fullmatch", "search", "sub", "subn", "split", "finditer", "findall"}


def _pattern_head(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def statement_regexes(path: Path) -> list[tuple[int, str]]:
    """(line, pattern) of each statement-keyword regex in ``path``."""
    out = []
    for node in nodes(path):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            continue
        func = node.func
        if not (isinstance(func.value, ast.Name) and func.value.id == "re" and func.attr in _RE_FUNCTIONS):
            continue
        head = _pattern_head(node.args[0])
        if head is not None and _STATEMENT_HEAD.match(head):
            out.append((node.lineno, head))
    return out


def test_the_detector_sees_statement_regexes() -> None:
    """The walker finds the shapes it is meant to find, and not ordinary patterns."""
    samples = {
        r"^\s*kill\s+(\d+)": True,
        r"\s*(?:show)\s+processlist": True,
        "SHOW (?:FULL )?TABLES": True,
        r"(?i)^flush\b": True,
        r"[A-Za-z_]+": False,
        r"\bselect_expr": False,
        r"^setting": False,
    }
    for pattern, expected in samples.items():
        assert bool(_STATEMENT_HEAD.match(pattern)) == expected, pattern


def test_no_statement_keyword_regex_outside_the_parser() -> None:
    found = {}
    for path in python_files():
        rel = path.relative_to(SRC).as_posix()
        if rel == PARSER or rel in ALLOWED:
            continue
        hits = statement_regexes(path)
        if hits:
            found[rel] = hits
    assert not found, f"statement recognised by a regex outside {PARSER}: {found}"


def test_the_allow_list_has_no_stale_entries() -> None:
    """Each allowed module exists and still holds such a pattern (else its entry goes)."""
    stale = [rel for rel in ALLOWED if not (SRC / rel).exists() or not statement_regexes(SRC / rel)]
    assert not stale, stale
