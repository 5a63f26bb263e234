"""What a STATEMENT-format DML carries besides its text, and when MIXED logs a statement as rows instead.

A replica re-runs a statement-format DML as text, so the source logs the session state the text reads right before
its Query event (``MYSQL_BIN_LOG::write_event`` in ``sql/binlog.cc``), in this order:

1. ``Intvar(LAST_INSERT_ID)`` when the statement calls ``LAST_INSERT_ID()``;
2. ``Intvar(INSERT_ID)``: the first AUTO_INCREMENT value it generated;
3. ``Rand``: the session's RAND() seeds before the statement, when it calls ``RAND()`` without a seed
   (``thd->rand_used``; ``thd->rand_saved_seed1/2``);
4. one ``User_var`` per user variable the statement reads, in the order it first reads them
   (``thd->user_var_events``; ``Item_func_get_user_var`` / ``get_var_with_binlog``), with the value it had when
   the statement started. A variable never set is logged as NULL.

``binlog_format=MIXED`` logs a statement in statement format unless MySQL deems it unsafe
(``LEX::set_stmt_unsafe``; RM8 "Mixed Binary Logging Format" and "Determination of Safe and Unsafe Statements in
Binary Logging"), which :func:`unsafe_reason` decides from the text and the catalog.
"""

from __future__ import annotations

import re
import struct
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple

from gtidkit.binlog.events.statement import RandEvent, UserVarEvent
from gtidkit.binlog.row_image import encode_decimal
from gtidkit.mysql_errors import message

if TYPE_CHECKING:
    from gtidkit.engine.sql.catalog import Catalog

__all__ = [
    "LoggedStatement",
    "StatementTraits",
    "statement_traits",
    "unsafe_note",
    "unsafe_reason",
    "unsafe_reasons",
    "user_var_event",
]


class LoggedStatement(NamedTuple):
    """One DML (or statement-format temporary-table DDL) of the open transaction, as the binlog will show it.

    Args:
        database: the default database when it ran (the Query event's db).
        text: the statement text (a prepared statement's with its values).
        context: Intvar / Rand / User_var events logged before its Query event (STATEMENT format).
        updated_dbs: schemas of the rows it changed (Q_UPDATED_DB_NAMES).
        time_zone: the zone it ran in (Q_TIME_ZONE_CODE), None when unknown.
        changes: its row changes (the same list object as in ``Session.row_statements``), None when not kept.
        as_rows: MIXED only: logged as Table_map + rows events (an unsafe statement) instead of a Query.
    """

    database: str
    text: str
    context: tuple[Any, ...] = ()
    updated_dbs: tuple[str, ...] = ()
    time_zone: str | None = None
    changes: list[Any] | None = None
    as_rows: bool = False


# ------------------------------------------------------------------------------------------------ text scanning
#: string literals (not a quoted ``@'name'``) and comments: never scanned for function calls or variables
_LITERALS = re.compile(
    r"(?<!@)'(?:[^'\\]|\\.|'')*'|(?<!@)\"(?:[^\"\\]|\\.|\"\")*\"|/\*.*?\*/|--[^\n]*|#[^\n]*", re.DOTALL
)
#: ``RAND()`` without a seed (``Item_func_rand`` with no argument sets ``thd->rand_used``)
_RAND_CALL = re.compile(r"\bRAND\s*\(\s*\)", re.IGNORECASE)
#: a user variable: ``@name``, ``@`name```, ``@'name'`` or ``@"name"`` (not ``@@`` system variables)
_USER_VAR = re.compile(r"(?<![@\w])@(?!@)(`(?:[^`]|``)+`|'(?:[^']|'')+'|\"(?:[^\"]|\"\")+\"|[\w$.]+)(\s*:=)?")
_SYS_VAR = re.compile(r"@@(?:(GLOBAL|SESSION|LOCAL)\s*\.\s*)?`?(\w+)`?", re.IGNORECASE)

#: RM8 "Mixed Binary Logging Format": system variables that keep a statement safe when read with session scope
SAFE_SESSION_SYSVARS = frozenset(
    {
        "auto_increment_increment",
        "auto_increment_offset",
        "character_set_client",
        "character_set_connection",
        "character_set_database",
        "character_set_server",
        "collation_connection",
        "collation_database",
        "collation_server",
        "foreign_key_checks",
        "identity",
        "last_insert_id",
        "lc_time_names",
        "pseudo_thread_id",
        "sql_auto_is_null",
        "time_zone",
        "timestamp",
        "unique_checks",
    }
)

#: functions whose call makes a statement unsafe (``BINLOG_STMT_UNSAFE_SYSTEM_FUNCTION``, UUID(), UDFs...;
#: RM8 "Determination of Safe and Unsafe Statements": RAND() is one, as ``Create_func_rand`` marks it)
_UNSAFE_FUNCTIONS = re.compile(
    r"\b(UUID|UUID_SHORT|USER|SESSION_USER|SYSTEM_USER|CURRENT_USER|FOUND_ROWS|ROW_COUNT|LOAD_FILE|SYSDATE"
    r"|GET_LOCK|IS_FREE_LOCK|IS_USED_LOCK|RELEASE_LOCK|RELEASE_ALL_LOCKS|SLEEP|MASTER_POS_WAIT|SOURCE_POS_WAIT"
    r"|RAND)\s*\(|\bCURRENT_USER\b",
    re.IGNORECASE,
)
_LIMIT = re.compile(r"\bLIMIT\b", re.IGNORECASE)
_SELECT = re.compile(r"\bSELECT\b", re.IGNORECASE)
_ODKU = re.compile(r"\bON\s+DUPLICATE\s+KEY\s+UPDATE\b", re.IGNORECASE)
_INSERT_HEAD = re.compile(
    r"^\s*(INSERT|REPLACE)\s+(?:(?:LOW_PRIORITY|HIGH_PRIORITY|DELAYED)\s+)?(IGNORE\s+)?(?:INTO\s+)?"
    r"((?:`[^`]+`|\w+)(?:\s*\.\s*(?:`[^`]+`|\w+))?)",
    re.IGNORECASE,
)
_UPDATE_IGNORE = re.compile(r"^\s*UPDATE\s+(?:LOW_PRIORITY\s+)?IGNORE\b", re.IGNORECASE)
_LOG_TABLES = re.compile(r"\bmysql`?\s*\.\s*`?(general_log|slow_log)\b", re.IGNORECASE)
_SKIP_LOCKED = re.compile(r"\bSKIP\s+LOCKED\b", re.IGNORECASE)
_NOWAIT = re.compile(r"\bNOWAIT\b", re.IGNORECASE)

# MySQL's reasons: the ER_BINLOG_UNSAFE_* message codes (``LEX::binlog_stmt_unsafe_errcode``), whose texts Note 1592
# under binlog_format=STATEMENT quotes (gtidkit.mysql_errors)
UNSAFE_LIMIT = 1668
UNSAFE_SYSTEM_TABLE = 1670
UNSAFE_SYSTEM_VARIABLE = 1673
UNSAFE_SYSTEM_FUNCTION = 1674
UNSAFE_INSERT_IGNORE_SELECT = 1714
UNSAFE_INSERT_SELECT_UPDATE = 1715
UNSAFE_REPLACE_SELECT = 1716
UNSAFE_UPDATE_IGNORE = 1719
UNSAFE_WRITE_AUTOINC_SELECT = 1722
UNSAFE_INSERT_TWO_KEYS = 1724
UNSAFE_SKIP_LOCKED = 3570
UNSAFE_NOWAIT = 3571
#: ER_BINLOG_UNSAFE_STATEMENT
ER_BINLOG_UNSAFE_STATEMENT = 1592
#: the reasons in ``LEX::enum_binlog_stmt_unsafe`` order (8.0 ``sql/sql_lex.h``)
_UNSAFE_ORDER = (
    UNSAFE_LIMIT,
    UNSAFE_SYSTEM_TABLE,
    UNSAFE_SYSTEM_VARIABLE,
    UNSAFE_SYSTEM_FUNCTION,
    UNSAFE_INSERT_IGNORE_SELECT,
    UNSAFE_INSERT_SELECT_UPDATE,
    UNSAFE_WRITE_AUTOINC_SELECT,
    UNSAFE_REPLACE_SELECT,
    UNSAFE_UPDATE_IGNORE,
    UNSAFE_INSERT_TWO_KEYS,
    UNSAFE_SKIP_LOCKED,
    UNSAFE_NOWAIT,
)


class StatementTraits(NamedTuple):
    """What the text of a DML tells the binlog (computed once per text, see :func:`statement_traits`).

    Args:
        rand_used: it calls ``RAND()`` without a seed (a Rand event in STATEMENT format).
        user_vars: lower-case names of the user variables it reads, in first-read order.
        unsafe: MySQL's reasons (ER_BINLOG_UNSAFE_* codes) it is unsafe for statement format, from the text alone.
        insert_target: ``(schema or None, table)`` an INSERT/REPLACE writes, for the catalog-based rules.
        insert_select: an INSERT/REPLACE ... SELECT.
        odku: it has ON DUPLICATE KEY UPDATE.
    """

    rand_used: bool
    user_vars: tuple[str, ...]
    unsafe: tuple[int, ...]
    insert_target: tuple[str | None, str] | None
    insert_select: bool
    odku: bool


def _unquote(name: str) -> str:
    if name[:1] in "`'\"" and name[-1:] == name[:1]:
        q = name[0]
        return name[1:-1].replace(q + q, q)
    return name


def _text_unsafe(
    code: str, head: str, insert: re.Match[str] | None, insert_select: bool, odku: bool
) -> tuple[int, ...]:
    found: list[int] = []
    if (head in ("UPDATE", "DELETE") or insert_select) and _LIMIT.search(code):
        found.append(UNSAFE_LIMIT)
    if _LOG_TABLES.search(code):
        found.append(UNSAFE_SYSTEM_TABLE)
    for scope, name in _SYS_VAR.findall(code):
        if (scope or "SESSION").upper() == "GLOBAL" or name.lower() not in SAFE_SESSION_SYSVARS:
            found.append(UNSAFE_SYSTEM_VARIABLE)
            break
    if _UNSAFE_FUNCTIONS.search(code):
        found.append(UNSAFE_SYSTEM_FUNCTION)
    if insert is not None and insert_select:
        if insert.group(1).upper() == "REPLACE":
            found.append(UNSAFE_REPLACE_SELECT)
        elif insert.group(2):
            found.append(UNSAFE_INSERT_IGNORE_SELECT)
        if odku:
            found.append(UNSAFE_INSERT_SELECT_UPDATE)
    if _UPDATE_IGNORE.match(code):
        found.append(UNSAFE_UPDATE_IGNORE)
    if _SKIP_LOCKED.search(code):
        found.append(UNSAFE_SKIP_LOCKED)
    if _NOWAIT.search(code):
        found.append(UNSAFE_NOWAIT)
    return tuple(found)


def statement_traits(text: str) -> StatementTraits:
    """Scan a DML text (cached per text: prepared statements and loops repeat theirs).

    String literals and comments are skipped, so ``'@x'`` or ``'RAND()'`` inside a string count for nothing.
    """
    known = _TRAITS.get(text)
    if known is not None:
        return known
    code = _LITERALS.sub(lambda m: " " if m.group(0)[0] in "/-#" else "''", text)
    names: dict[str, None] = {}
    for raw, assign in _USER_VAR.findall(code):
        if not assign:  # ``@x := ...`` writes @x; reads are the other references
            names.setdefault(_unquote(raw).lower(), None)
    head = code.lstrip()[:6].upper()
    insert = _INSERT_HEAD.match(code)
    insert_select = insert is not None and bool(_SELECT.search(code, insert.end()))
    odku = insert is not None and bool(_ODKU.search(code))
    target = None
    if insert is not None:
        parts = [_unquote(p.strip()) for p in insert.group(3).split(".", 1)]
        target = (parts[0], parts[1]) if len(parts) == 2 else (None, parts[0])
    traits = StatementTraits(
        rand_used=bool(_RAND_CALL.search(code)),
        user_vars=tuple(names),
        unsafe=_text_unsafe(code, head, insert, insert_select, odku),
        insert_target=target,
        insert_select=insert_select,
        odku=odku,
    )
    if len(_TRAITS) >= 4096:
        _TRAITS.clear()
    _TRAITS[text] = traits
    return traits


#: DML text -> its traits
_TRAITS: dict[str, StatementTraits] = {}


def unsafe_reasons(
    text: str, catalog: Catalog | None = None, current_db: str | None = None
) -> tuple[int, ...]:
    """Why MySQL logs ``text`` in row format under MIXED (``LEX::is_stmt_unsafe``): every reason, in the order of
    ``LEX::enum_binlog_stmt_unsafe`` (the order of the 1592 notes under STATEMENT); empty when it is safe.

    From the text: the functions of :data:`_UNSAFE_FUNCTIONS` (UUID(), USER(), FOUND_ROWS(), RAND(), SYSDATE(),
    SLEEP(), GET_LOCK() ...), system variables other than :data:`SAFE_SESSION_SYSVARS` read with session scope,
    ``LIMIT`` in UPDATE / DELETE / INSERT ... SELECT, INSERT IGNORE ... SELECT, REPLACE ... SELECT,
    INSERT ... SELECT ... ON DUPLICATE KEY UPDATE, UPDATE IGNORE, the mysql log tables, SKIP LOCKED / NOWAIT.
    With the catalog: INSERT ... ON DUPLICATE KEY UPDATE into a table with more than one unique key
    (``BINLOG_STMT_UNSAFE_INSERT_TWO_KEYS``) and INSERT ... SELECT into a table with an AUTO_INCREMENT column
    (``BINLOG_STMT_UNSAFE_WRITE_AUTOINC_SELECT``).

    Args:
        text: the statement.
        catalog: the table definitions (None: the text rules only).
        current_db: the default database, for an unqualified INSERT target.

    Returns:
        The reasons as their ER_BINLOG_UNSAFE_* message codes (``UNSAFE_*`` here).
    """
    traits = statement_traits(text)
    found = set(traits.unsafe)
    t = None
    if catalog is not None and traits.insert_target is not None and (traits.odku or traits.insert_select):
        schema, table = traits.insert_target
        schema = schema or current_db
        if schema is not None:
            t = catalog.get_table(schema.lower(), table.lower()) or catalog.get_table(schema, table)
    if t is not None:
        if traits.odku and len(t.unique_keys) > 1:
            found.add(UNSAFE_INSERT_TWO_KEYS)
        if traits.insert_select and t.auto_increment_column is not None:
            found.add(UNSAFE_WRITE_AUTOINC_SELECT)
    return tuple(sorted(found, key=_UNSAFE_ORDER.index))


def unsafe_reason(text: str, catalog: Catalog | None = None, current_db: str | None = None) -> int | None:
    """The first of :func:`unsafe_reasons`, or None when the statement is safe."""
    reasons = unsafe_reasons(text, catalog, current_db)
    return reasons[0] if reasons else None


# ------------------------------------------------------------------------------------------------ events
#: ``Item_result`` codes of a User_var event
STRING_RESULT, REAL_RESULT, INT_RESULT, DECIMAL_RESULT = 0, 1, 2, 4
#: ``User_var_event::UNSIGNED_F``
UNSIGNED_F = 0x01
#: the ``binary`` collation: a byte-string value
BINARY_COLLATION = 63


def user_var_event(name: str, value: Any, collation_id: int) -> UserVarEvent:
    """The User_var event of ``@name`` holding ``value`` (``User_var_log_event::write``).

    NULL (never set, or set to NULL): only the name and is_null = 1. INT: 8 bytes little-endian and a flags byte
    (``UNSIGNED_F`` past 2**63-1). REAL: an 8-byte double. DECIMAL: precision, scale, then MySQL's binary decimal.
    STRING: the bytes, with ``binary`` (63) for a byte string. Numbers carry the connection's collation, as MySQL
    gives a numeric user variable the connection character set (5.6 captures show 33, utf8).

    Args:
        name: the variable's name as the statement wrote it (case kept).
        value: its Python value (None, int, float, Decimal, str, bytes).
        collation_id: ``collation_connection``'s id.
    """
    if value is None:
        return UserVarEvent(name=name, is_null=True)
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        unsigned = value > 0x7FFFFFFFFFFFFFFF
        raw = (value & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")
        return UserVarEvent(name, False, INT_RESULT, collation_id, raw, UNSIGNED_F if unsigned else 0)
    if isinstance(value, float):
        return UserVarEvent(name, False, REAL_RESULT, collation_id, struct.pack("<d", value))
    if isinstance(value, Decimal):
        _sign, digits, exp_ = value.as_tuple()
        scale = max(0, -int(exp_))
        intg = max(1, len(digits) + int(exp_)) if digits != (0,) or exp_ != 0 else 1
        precision = intg + scale
        raw = bytes([precision, scale]) + encode_decimal(value, precision, scale)
        return UserVarEvent(name, False, DECIMAL_RESULT, collation_id, raw)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return UserVarEvent(name, False, STRING_RESULT, BINARY_COLLATION, bytes(value))
    return UserVarEvent(
        name, False, STRING_RESULT, collation_id, str(value).encode("utf-8", "surrogateescape")
    )


def unsafe_note(reason: int) -> tuple[str, int, str]:
    """Note 1592 for a statement logged in statement format although unsafe (``THD::issue_unsafe_warnings``)."""
    return ("Note", ER_BINLOG_UNSAFE_STATEMENT, message(ER_BINLOG_UNSAFE_STATEMENT, message(reason)))


def rand_event(seeds: tuple[int, int]) -> RandEvent:
    """The Rand event of the session's seeds taken before the statement (``Rand_log_event``)."""
    return RandEvent(seed1=seeds[0], seed2=seeds[1])
