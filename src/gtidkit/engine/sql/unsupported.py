"""MySQL statements this engine does not run: ER_NOT_SUPPORTED_YET 1235, never ER_PARSE_ERROR 1064.

1064 tells a DBA "your SQL is wrong"; for a statement MySQL 8.4 accepts (a view, a GRANT, XA, LOAD DATA ...) that is
a lie, so each statement family of RM8 chapter 15 "SQL Statements" that the engine lacks is listed here with the
shape MySQL's grammar (``sql/sql_yacc.yy``) gives it, and answers 1235 naming the family. Text that fits no
family, supported or not, is a genuine syntax error: 1064 with MySQL's wording, ``near '<rest of the text from
the first token that cannot be right>' at line N`` (the rest is cut at 80 characters, as ``ER_PARSE_ERROR``'s
``%-.80s``).

The shapes are deliberately loose past their keywords (a statement that fits the family but has a subtle error
deeper inside gets 1235 instead of 1064): telling families apart is what matters to a client.

A refused statement the classifier recognises (XA, SHUTDOWN without the wire server, CHANGE REPLICATION FILTER, the
replica statements without a replication layer) is a row of the statement specs whose handler raises this error
(:func:`gtidkit.engine.statements.specs.refusal`), so it runs the statement lifecycle (implicit commit, GTID
pre-checks) as MySQL runs it before failing; this table gives the family and the message for it and for the text the
classifier does not key (the SQL layer raises :func:`statement_error` for those).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

_ID = r"(?:`(?:[^`]|``)+`|[\w$]+)(?:\s*\.\s*(?:`(?:[^`]|``)+`|[\w$]+))?"
_STR = r"(?:'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")"
_USER = rf"(?:{_STR}|{_ID})(?:\s*@\s*(?:{_STR}|{_ID}))?|CURRENT_USER(?:\s*\(\s*\))?"
_DEFINER = rf"(?:DEFINER\s*=\s*(?:{_USER})\s+)?"
_ANY = r"(?:\s.*)?"


@dataclass(frozen=True, slots=True)
class Family:
    """One statement family: its whole shape (a regex over the statement text) and its 1235 name."""

    shape: re.Pattern[str]
    feature: str


def _f(shape: str, feature: str) -> tuple[str, str]:
    return shape, feature


#: Families MySQL 8.4 has and this engine does not run (RM8 chapter 15), as (shape, 1235 name) rows compiled by
#: :func:`families` on first use (only a statement the engine refuses reaches them; a process that sends none
#: never compiles the 70-odd shapes). First match wins.
_FAMILIES: tuple[tuple[str, str], ...] = (
    _f(
        rf"CREATE\s+(?:OR\s+REPLACE\s+)?(?:ALGORITHM\s*=\s*\w+\s+)?{_DEFINER}(?:SQL\s+SECURITY\s+\w+\s+)?"
        rf"VIEW\s+{_ID}.*?\bAS\s.+",
        "CREATE VIEW",
    ),
    _f(
        rf"ALTER\s+(?:ALGORITHM\s*=\s*\w+\s+)?{_DEFINER}(?:SQL\s+SECURITY\s+\w+\s+)?VIEW\s+{_ID}.*?\bAS\s.+",
        "ALTER VIEW",
    ),
    _f(
        rf"CREATE\s+{_DEFINER}TRIGGER\s+(?:IF\s+NOT\s+EXISTS\s+)?{_ID}\s+(?:BEFORE|AFTER)\s.+",
        "CREATE TRIGGER",
    ),
    _f(rf"CREATE\s+{_DEFINER}PROCEDURE\s+(?:IF\s+NOT\s+EXISTS\s+)?{_ID}\s*\(.*", "CREATE PROCEDURE"),
    _f(
        rf"CREATE\s+(?:AGGREGATE\s+)?{_DEFINER}FUNCTION\s+(?:IF\s+NOT\s+EXISTS\s+)?{_ID}.+RETURNS?\s.+",
        "CREATE FUNCTION",
    ),
    _f(
        rf"CREATE\s+{_DEFINER}EVENT\s+(?:IF\s+NOT\s+EXISTS\s+)?{_ID}\s+ON\s+SCHEDULE\s.+",
        "CREATE EVENT",
    ),
    _f(rf"ALTER\s+{_DEFINER}EVENT\s+{_ID}{_ANY}", "ALTER EVENT"),
    _f(rf"ALTER\s+(?:PROCEDURE|FUNCTION)\s+{_ID}{_ANY}", "ALTER ROUTINE"),
    _f(rf"CREATE\s+USER\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:{_USER}){_ANY}", "CREATE USER"),
    _f(rf"ALTER\s+USER\s+(?:IF\s+EXISTS\s+)?(?:{_USER}){_ANY}", "ALTER USER"),
    _f(rf"DROP\s+USER\s+(?:IF\s+EXISTS\s+)?(?:{_USER}){_ANY}", "DROP USER"),
    _f(rf"RENAME\s+USER\s+(?:{_USER})\s+TO\s.+", "RENAME USER"),
    _f(rf"CREATE\s+ROLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:{_USER}){_ANY}", "CREATE ROLE"),
    _f(rf"DROP\s+ROLE\s+(?:IF\s+EXISTS\s+)?(?:{_USER}){_ANY}", "DROP ROLE"),
    _f(r"GRANT\s.+\sTO\s.+", "GRANT"),
    _f(r"REVOKE\s.+\sFROM\s.+", "REVOKE"),
    _f(r"SET\s+PASSWORD(?:\s+FOR\s+.+?)?\s*=.+|SET\s+PASSWORD\s+TO\s+RANDOM.*", "SET PASSWORD"),
    _f(r"SET\s+(?:DEFAULT\s+)?ROLE\s.+", "SET ROLE"),
    _f(rf"SET\s+RESOURCE\s+GROUP\s+{_ID}{_ANY}", "SET RESOURCE GROUP"),
    _f(r"SET\s+PERSIST_ONLY\s.+", "SET PERSIST_ONLY"),
    _f(r"RESET\s+PERSIST(?:\s.*)?", "RESET PERSIST"),
    _f(
        rf"DROP\s+VIEW\s+(?:IF\s+EXISTS\s+)?{_ID}(?:\s*,\s*{_ID})*(?:\s+(?:RESTRICT|CASCADE))?",
        "DROP VIEW",
    ),
    _f(rf"DROP\s+(?:TRIGGER|PROCEDURE|FUNCTION|EVENT)\s+(?:IF\s+EXISTS\s+)?{_ID}", "DROP ROUTINE"),
    _f(rf"(?:DROP|DEALLOCATE)\s+PREPARE\s+{_ID}", "DEALLOCATE PREPARE"),
    _f(rf"PREPARE\s+{_ID}\s+FROM\s.+", "PREPARE"),
    _f(rf"EXECUTE\s+{_ID}(?:\s+USING\s.+)?", "EXECUTE"),
    _f(rf"DEALLOCATE\s+PREPARE\s+{_ID}", "DEALLOCATE PREPARE"),
    _f(rf"CALL\s+{_ID}(?:\s*\(.*\))?", "CALL"),
    _f(rf"HANDLER\s+{_ID}\s+(?:OPEN|READ|CLOSE)\b.*", "HANDLER"),
    _f(r"XA\s+(?:START|BEGIN|END|PREPARE|COMMIT|ROLLBACK)\s.+|XA\s+RECOVER(?:\s+CONVERT\s+XID)?", "XA"),
    _f(r"LOAD\s+(?:DATA|XML)\s.*\bINTO\s+TABLE\s.+", "LOAD DATA"),
    _f(r"LOAD\s+INDEX\s+INTO\s+CACHE\s.+", "LOAD INDEX INTO CACHE"),
    _f(r"CACHE\s+INDEX\s.+\sIN\s.+", "CACHE INDEX"),
    _f(r"(?:INSTALL|UNINSTALL)\s+(?:PLUGIN|COMPONENT)\s.+", "INSTALL/UNINSTALL PLUGIN"),
    _f(r"SHUTDOWN", "SHUTDOWN"),
    _f(r"RESTART", "RESTART"),
    _f(r"CLONE\s+(?:LOCAL|INSTANCE)\s.+", "CLONE"),
    _f(rf"HELP\s+(?:{_STR}|\w+)", "HELP"),
    _f(rf"IMPORT\s+TABLE\s+FROM\s+{_STR}.*", "IMPORT TABLE"),
    _f(r"(?:CREATE|ALTER|DROP)\s+(?:UNDO\s+)?TABLESPACE\s.+", "TABLESPACE"),
    _f(r"(?:CREATE|ALTER|DROP)\s+LOGFILE\s+GROUP\s.+", "LOGFILE GROUP"),
    _f(r"(?:CREATE|ALTER|DROP)\s+SERVER\s.+", "SERVER"),
    _f(
        r"(?:CREATE(?:\s+OR\s+REPLACE)?|DROP)\s+SPATIAL\s+REFERENCE\s+SYSTEM\s.+",
        "SPATIAL REFERENCE SYSTEM",
    ),
    _f(r"(?:CREATE|ALTER|DROP)\s+RESOURCE\s+GROUP\s.+", "RESOURCE GROUP"),
    _f(r"ALTER\s+INSTANCE\s.+", "ALTER INSTANCE"),
    _f(r"LOCK\s+INSTANCE\s+FOR\s+BACKUP", "LOCK INSTANCE FOR BACKUP"),
    _f(r"UNLOCK\s+INSTANCE", "UNLOCK INSTANCE"),
    _f(r"(?:START|STOP)\s+GROUP_REPLICATION.*", "GROUP_REPLICATION"),
    _f(r"CHANGE\s+REPLICATION\s+FILTER\s.+", "CHANGE REPLICATION FILTER"),
    _f(r"(?:SIGNAL\s+(?:SQLSTATE\s.+|\w+.*)|RESIGNAL(?:\s.*)?)", "SIGNAL"),
    _f(r"GET\s+(?:CURRENT\s+|STACKED\s+)?DIAGNOSTICS\s.+", "GET DIAGNOSTICS"),
    _f(r"(?:EXPLAIN|DESCRIBE|DESC)\s+(?:FORMAT\s*=\s*\w+\s+)?FOR\s+CONNECTION\s.*", "EXPLAIN FOR CONNECTION"),
    _f(r"VALUES\s+ROW\s*\(.*", "VALUES statement"),
    _f(r"SHOW\s+ENGINE\s+\w+\s+(?:STATUS|MUTEX|LOGS)", "SHOW ENGINE"),
    _f(r"SHOW\s+(?:FULL\s+)?PROCESSLIST", "SHOW PROCESSLIST"),
    _f(r"SHOW\s+GRANTS(?:\s+FOR\s.+)?", "SHOW GRANTS"),
    _f(r"SHOW\s+CREATE\s+(?:VIEW|PROCEDURE|FUNCTION|TRIGGER|EVENT|USER)\s+.+", "SHOW CREATE"),
    _f(r"SHOW\s+(?:TRIGGERS|EVENTS)(?:\s.*)?", "SHOW TRIGGERS/EVENTS"),
    _f(
        r"SHOW\s+(?:PROCEDURE|FUNCTION)\s+(?:STATUS|CODE)(?:\s.*)?",
        "SHOW PROCEDURE/FUNCTION",
    ),
    _f(r"SHOW\s+PLUGINS(?:\s.*)?", "SHOW PLUGINS"),
    _f(r"SHOW\s+PRIVILEGES", "SHOW PRIVILEGES"),
    _f(r"SHOW\s+OPEN\s+TABLES(?:\s.*)?", "SHOW OPEN TABLES"),
    _f(
        r"SHOW\s+(?:CHARACTER\s+SET|CHARSET|COLLATION)(?:\s.*)?",
        "SHOW CHARACTER SET/COLLATION",
    ),
    _f(r"SHOW\s+PROFILES?(?:\s.*)?", "SHOW PROFILE"),
    _f(r"SHOW\s+RELAYLOG\s+EVENTS(?:\s.*)?", "SHOW RELAYLOG EVENTS"),
    _f(r"SHOW\s+COUNT\s*\(\s*\*\s*\)\s+(?:WARNINGS|ERRORS)", "SHOW COUNT(*)"),
    _f(r"SHOW\s+(?:ERRORS|WARNINGS)(?:\s+LIMIT\s.+)?", "SHOW ERRORS/WARNINGS"),
    _f(
        r"SHOW\s+(?:(?:REPLICA|SLAVE)\s+STATUS(?:\s.*)?|REPLICAS|SLAVE\s+HOSTS|MASTER\s+STATUS|BINARY\s+LOG\s+STATUS|(?:BINARY|MASTER)\s+LOGS)",
        "SHOW REPLICA STATUS",
    ),
    _f(r"SHOW\s+BINLOG\s+EVENTS(?:\s.*)?", "SHOW BINLOG EVENTS"),
    _f(
        r"SHOW\s+(?:GLOBAL\s+|SESSION\s+|LOCAL\s+)?VARIABLES(?:\s.*)?",
        "SHOW VARIABLES",
    ),
    _f(
        r"SHOW\s+(?:EXTENDED\s+)?(?:FULL\s+)?(?:TABLES|COLUMNS|FIELDS|INDEX|INDEXES|KEYS)(?:\s.*)?",
        "SHOW TABLES/COLUMNS/INDEX",
    ),
    _f(r"SHOW\s+(?:DATABASES|SCHEMAS)(?:\s.*)?", "SHOW DATABASES"),
    _f(r"SHOW\s+CREATE\s+(?:TABLE|DATABASE|SCHEMA)\s.+", "SHOW CREATE TABLE/DATABASE"),
)

_SHOW_WORDS = (
    "ENGINE|ENGINES|STORAGE|PROCESSLIST|FULL|GRANTS|CREATE|TRIGGERS|EVENTS|PROCEDURE|FUNCTION|PLUGINS|PRIVILEGES"
    "|STATUS|GLOBAL|SESSION|LOCAL|OPEN|TABLE|CHARACTER|CHARSET|COLLATION|PROFILE|PROFILES|RELAYLOG|COUNT|ERRORS"
    "|WARNINGS|REPLICA|SLAVE|REPLICAS|MASTER|BINARY|BINLOG|VARIABLES|TABLES|COLUMNS|FIELDS|INDEX|INDEXES|KEYS"
    "|EXTENDED|DATABASES|SCHEMAS"
)
#: Leading keywords of every statement family, supported or not (alternatives joined by ``|``): a syntax error is
#: reported at the first token past the longest prefix any of them accepts, as MySQL's parser stops there.
_PATHS: tuple[tuple[frozenset[str], ...], ...] = tuple(
    tuple(frozenset(alt.split("|")) for alt in p.split())
    for p in (
        (
            "CREATE OR|ALGORITHM|DEFINER|SQL|VIEW|TRIGGER|PROCEDURE|FUNCTION|AGGREGATE|EVENT|USER|ROLE|TABLESPACE|UNDO"
            "|LOGFILE|SERVER|SPATIAL|RESOURCE|TABLE|DATABASE|SCHEMA|INDEX|UNIQUE|FULLTEXT|TEMPORARY"
        ),
        (
            "ALTER ALGORITHM|DEFINER|SQL|VIEW|EVENT|USER|PROCEDURE|FUNCTION|TABLESPACE|UNDO|LOGFILE|SERVER|RESOURCE"
            "|INSTANCE|TABLE|DATABASE|SCHEMA"
        ),
        (
            "DROP VIEW|TRIGGER|PROCEDURE|FUNCTION|EVENT|USER|ROLE|PREPARE|TABLESPACE|UNDO|LOGFILE|SERVER|SPATIAL"
            "|RESOURCE|TABLE|TABLES|DATABASE|SCHEMA|INDEX|TEMPORARY"
        ),
        "RENAME USER|TABLE|TABLES",
        f"SHOW {_SHOW_WORDS}",
        "LOCK TABLES|TABLE",
        "LOCK INSTANCE FOR BACKUP",
        "UNLOCK TABLES|TABLE|INSTANCE",
        "PURGE BINARY|MASTER LOGS",
        "RESET MASTER|BINARY|REPLICA|SLAVE|PERSIST",
        "GRANT",
        "REVOKE",
        "SET",
        "PREPARE",
        "EXECUTE",
        "DEALLOCATE PREPARE",
        "CALL",
        "ANALYZE|OPTIMIZE|CHECK|CHECKSUM|REPAIR NO_WRITE_TO_BINLOG|LOCAL|TABLE|TABLES",
        "HANDLER",
        "XA START|BEGIN|END|PREPARE|COMMIT|ROLLBACK|RECOVER",
        "LOAD DATA|XML|INDEX",
        "CACHE INDEX",
        "INSTALL|UNINSTALL PLUGIN|COMPONENT",
        "SHUTDOWN",
        "RESTART",
        "CLONE LOCAL|INSTANCE",
        "HELP",
        "BINLOG",
        "IMPORT TABLE FROM",
        "START TRANSACTION|REPLICA|SLAVE|GROUP_REPLICATION",
        "STOP REPLICA|SLAVE|GROUP_REPLICATION",
        "CHANGE REPLICATION|MASTER",
        "SIGNAL",
        "RESIGNAL",
        "GET CURRENT|STACKED|DIAGNOSTICS",
        "EXPLAIN",
        "DESCRIBE",
        "DESC",
        "VALUES",
        "SELECT",
        "WITH",
        "TABLE",
        "INSERT",
        "REPLACE",
        "UPDATE",
        "DELETE",
        "TRUNCATE",
        "USE",
        "BEGIN",
        "COMMIT",
        "ROLLBACK",
        "SAVEPOINT",
        "RELEASE SAVEPOINT",
        "FLUSH",
        "KILL",
        "DO",
    )
)
_WORD = re.compile(r"`(?:[^`]|``)*`|'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"|[\w$]+|\S")


@functools.cache
def families() -> tuple[Family, ...]:
    """The statement families this engine lacks (RM8 chapter 15), each shape compiled to match a whole
    statement (leading blanks, an optional ``;``), case-insensitive; compiled once, on the first call."""
    return tuple(
        Family(re.compile(rf"^\s*(?:{shape})\s*;?\s*$", re.IGNORECASE | re.DOTALL), feature)
        for shape, feature in _FAMILIES
    )


def unsupported_family(text: str) -> str | None:
    """The 1235 feature name when ``text`` is a MySQL statement of a family this engine lacks, else None."""
    for fam in families():
        if fam.shape.match(text):
            return fam.feature
    return None


def syntax_error(text: str) -> MySQLError:
    """ER_PARSE_ERROR 1064 for ``text``, near the first token no statement family can continue with."""
    tokens = [(m.group(), m.start()) for m in _WORD.finditer(text)]
    best = 0
    for path in _PATHS:
        n = 0
        while n < len(path) and n < len(tokens) and tokens[n][0].upper() in path[n]:
            n += 1
        best = max(best, n)
    pos = tokens[best][1] if best < len(tokens) else len(text.rstrip().rstrip(";").rstrip())
    return parse_error_at(text, pos)


def parse_error_at(text: str, pos: int) -> MySQLError:
    """ER_PARSE_ERROR 1064 with MySQL's wording for the token at ``pos`` of ``text`` (line counted from 1)."""
    near = text[pos:].rstrip().rstrip(";").rstrip()[:80]
    line = text.count("\n", 0, pos) + 1
    return mysql_error(
        1064,
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for "
        "the right syntax to use",
        near,
        line,
    )


def statement_error(text: str) -> MySQLError:
    """The error for a statement the engine cannot run: 1235 naming its family, or 1064 when MySQL would not
    parse it either."""
    feature = unsupported_family(text)
    if feature is not None:
        return mysql_error(1235, feature)
    return syntax_error(text)
