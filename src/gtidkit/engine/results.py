"""What one statement returns to a client: column metadata, rows, the OK-packet fields and session-state changes.

Everything a wire server needs to build an OK, ERR-free result set or EOF packet lives here, already decided by the
engine; the protocol layer only encodes it. Values are frozen, slotted dataclasses that validate on construction
(as h11's events), so an invalid result cannot exist.

Sources: MySQL ``include/field_types.h`` (``enum_field_types``), ``include/mysql_com.h`` (column flags,
``SERVER_STATUS_*``, ``enum_session_state_type``), ``strings/`` collation ids, the protocol docs
("Protocol::ColumnDefinition41", "OK_Packet") and ``mysql-test/r/metadata.result`` for lengths and flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum, IntFlag
from typing import Any

from gtidkit.engine.sql.fast_rows import set_slots as _set_slots
from gtidkit.engine.sql.fast_rows import uniform_width as _uniform_width

__all__ = [
    "CHARSET_BINARY",
    "CHARSET_UTF8MB3",
    "CHARSET_UTF8MB4",
    "COLLATION_IDS",
    "NOT_FIXED_DEC",
    "Column",
    "ColumnFlag",
    "Condition",
    "FieldType",
    "ServerStatus",
    "SessionStateType",
    "StateChange",
    "StatementResult",
    "charset_id",
    "mbmaxlen",
]


class FieldType(IntEnum):
    """MySQL column type codes (``enum_field_types`` in ``include/field_types.h``), MySQL's spelling."""

    MYSQL_TYPE_DECIMAL = 0
    MYSQL_TYPE_TINY = 1
    MYSQL_TYPE_SHORT = 2
    MYSQL_TYPE_LONG = 3
    MYSQL_TYPE_FLOAT = 4
    MYSQL_TYPE_DOUBLE = 5
    MYSQL_TYPE_NULL = 6
    MYSQL_TYPE_TIMESTAMP = 7
    MYSQL_TYPE_LONGLONG = 8
    MYSQL_TYPE_INT24 = 9
    MYSQL_TYPE_DATE = 10
    MYSQL_TYPE_TIME = 11
    MYSQL_TYPE_DATETIME = 12
    MYSQL_TYPE_YEAR = 13
    MYSQL_TYPE_NEWDATE = 14
    MYSQL_TYPE_VARCHAR = 15
    MYSQL_TYPE_BIT = 16
    MYSQL_TYPE_TIMESTAMP2 = 17
    MYSQL_TYPE_DATETIME2 = 18
    MYSQL_TYPE_TIME2 = 19
    MYSQL_TYPE_TYPED_ARRAY = 20
    MYSQL_TYPE_VECTOR = 242
    MYSQL_TYPE_INVALID = 243
    MYSQL_TYPE_BOOL = 244
    MYSQL_TYPE_JSON = 245
    MYSQL_TYPE_NEWDECIMAL = 246
    MYSQL_TYPE_ENUM = 247
    MYSQL_TYPE_SET = 248
    MYSQL_TYPE_TINY_BLOB = 249
    MYSQL_TYPE_MEDIUM_BLOB = 250
    MYSQL_TYPE_LONG_BLOB = 251
    MYSQL_TYPE_BLOB = 252
    MYSQL_TYPE_VAR_STRING = 253
    MYSQL_TYPE_STRING = 254
    MYSQL_TYPE_GEOMETRY = 255


class ColumnFlag(IntFlag):
    """Column definition flags (``*_FLAG`` in ``include/mysql_com.h``); the protocol sends the low 16 bits."""

    NOT_NULL = 1
    PRI_KEY = 2
    UNIQUE_KEY = 4
    MULTIPLE_KEY = 8
    BLOB = 16
    UNSIGNED = 32
    ZEROFILL = 64
    BINARY = 128
    ENUM = 256
    AUTO_INCREMENT = 512
    TIMESTAMP = 1024
    SET = 2048
    NO_DEFAULT_VALUE = 4096
    ON_UPDATE_NOW = 8192
    PART_KEY = 16384
    NUM = 32768


class ServerStatus(IntFlag):
    """``SERVER_STATUS_*`` / ``SERVER_*`` bits of the OK / EOF packets' status_flags (``include/mysql_com.h``)."""

    SERVER_STATUS_IN_TRANS = 0x0001
    SERVER_STATUS_AUTOCOMMIT = 0x0002
    SERVER_MORE_RESULTS_EXISTS = 0x0008
    SERVER_QUERY_NO_GOOD_INDEX_USED = 0x0010
    SERVER_QUERY_NO_INDEX_USED = 0x0020
    SERVER_STATUS_CURSOR_EXISTS = 0x0040
    SERVER_STATUS_LAST_ROW_SENT = 0x0080
    SERVER_STATUS_DB_DROPPED = 0x0100
    SERVER_STATUS_NO_BACKSLASH_ESCAPES = 0x0200
    SERVER_STATUS_METADATA_CHANGED = 0x0400
    SERVER_QUERY_WAS_SLOW = 0x0800
    SERVER_PS_OUT_PARAMS = 0x1000
    SERVER_STATUS_IN_TRANS_READONLY = 0x2000
    SERVER_SESSION_STATE_CHANGED = 0x4000


class SessionStateType(IntEnum):
    """``enum_session_state_type``: the entry types of the OK packet's session-state block, in tracker order."""

    SESSION_TRACK_SYSTEM_VARIABLES = 0
    SESSION_TRACK_SCHEMA = 1
    SESSION_TRACK_STATE_CHANGE = 2
    SESSION_TRACK_GTIDS = 3
    SESSION_TRACK_TRANSACTION_CHARACTERISTICS = 4
    SESSION_TRACK_TRANSACTION_STATE = 5


#: ``NOT_FIXED_DEC`` (31): the decimals MySQL sends for strings and floating-point columns without a scale.
NOT_FIXED_DEC = 31

CHARSET_BINARY = 63
CHARSET_UTF8MB3 = 33  # utf8mb3_general_ci: the system character set (metadata of @@variables)
CHARSET_UTF8MB4 = 255  # utf8mb4_0900_ai_ci: 8.0's default collation

#: Collation name -> id (``SHOW COLLATION``'s Id column) for the collations the engine can meet.
COLLATION_IDS: dict[str, int] = {
    "big5_chinese_ci": 1,
    "latin1_swedish_ci": 8,
    "ascii_general_ci": 11,
    "utf8mb3_general_ci": 33,
    "utf8_general_ci": 33,
    "utf8mb4_general_ci": 45,
    "utf8mb4_bin": 46,
    "latin1_bin": 47,
    "binary": 63,
    "ascii_bin": 65,
    "utf8mb3_bin": 83,
    "utf8_bin": 83,
    "utf8mb3_unicode_ci": 192,
    "utf8mb4_unicode_ci": 224,
    "utf8mb4_0900_ai_ci": 255,
    "utf8mb4_0900_as_ci": 305,
    "utf8mb4_0900_as_cs": 278,
    "utf8mb4_0900_bin": 309,
}
#: Character set -> its default collation in 8.0.
_DEFAULT_COLLATION = {
    "utf8mb4": "utf8mb4_0900_ai_ci",
    "utf8mb3": "utf8mb3_general_ci",
    "utf8": "utf8mb3_general_ci",
    "latin1": "latin1_swedish_ci",
    "ascii": "ascii_general_ci",
    "binary": "binary",
    "big5": "big5_chinese_ci",
}
#: Character set -> maximum bytes per character (``mbmaxlen``).
_MBMAXLEN = {"utf8mb4": 4, "utf8mb3": 3, "utf8": 3, "latin1": 1, "ascii": 1, "binary": 1, "big5": 2}


def charset_id(charset: str | None, collation: str | None = None) -> int:
    """Collation id for a column's ``charset``/``collation`` (utf8mb4_0900_ai_ci = 255 when neither is known).

    Args:
        charset: character set name (``utf8mb4``, ``latin1``, ``binary``) or ``None``.
        collation: collation name or ``None`` (then the charset's default collation).

    Returns:
        The id the ColumnDefinition41 packet carries (``character_set``).
    """
    if collation and collation.lower() in COLLATION_IDS:
        return COLLATION_IDS[collation.lower()]
    cs = (charset or "utf8mb4").lower()
    return COLLATION_IDS.get(_DEFAULT_COLLATION.get(cs, "utf8mb4_0900_ai_ci"), CHARSET_UTF8MB4)


def mbmaxlen(charset: str | None) -> int:
    """Maximum bytes per character of ``charset`` (4 for utf8mb4, the default)."""
    return _MBMAXLEN.get((charset or "utf8mb4").lower(), 4)


def _check_uint(name: str, value: int, limit: int) -> None:
    if type(value) is int and 0 <= value <= limit:  # the common case, without isinstance calls
        return
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
        raise ValueError(f"{name} must be an int in 0..{limit}, got {value!r}")


@dataclass(frozen=True, slots=True)
class Column:
    """One result-set column, as ``Protocol::ColumnDefinition41`` carries it (the catalog is always ``def``).

    Attributes:
        name: the column's name in the result (its alias, or the expression as written).
        org_name: the underlying table column's name ("" for expressions).
        table: the table alias the column was read through ("" for expressions).
        org_table: the underlying table's name ("" for expressions).
        schema: the underlying table's database ("" for expressions).
        type: a :class:`FieldType` code.
        charset: collation id (63 binary for numbers and temporal types, 255 utf8mb4_0900_ai_ci, ...).
        length: MySQL's maximum display length in bytes (CHAR(10) utf8mb4 -> 40; INT -> 11).
        flags: :class:`ColumnFlag` bits (16 bits).
        decimals: scale (0..30) or :data:`NOT_FIXED_DEC` (31) for strings / unscaled floats.

    Raises:
        ValueError: a field out of range, or a type code MySQL does not define.
        TypeError: a name field that is not a str.
    """

    name: str
    org_name: str = ""
    table: str = ""
    org_table: str = ""
    schema: str = ""
    type: int = FieldType.MYSQL_TYPE_VAR_STRING
    charset: int = CHARSET_UTF8MB4
    length: int = 0
    flags: int = 0
    decimals: int = NOT_FIXED_DEC

    def __post_init__(self) -> None:
        for f in ("name", "org_name", "table", "org_table", "schema"):
            if not isinstance(getattr(self, f), str):
                raise TypeError(f"Column.{f} must be str, got {getattr(self, f)!r}")
        try:
            FieldType(self.type)
        except ValueError as err:
            raise ValueError(f"Column.type {self.type!r} is not a MySQL field type") from err
        _check_uint("Column.charset", self.charset, 0xFFFF)
        _check_uint("Column.length", self.length, 0xFFFFFFFF)
        _check_uint("Column.flags", self.flags, 0xFFFF)
        _check_uint("Column.decimals", self.decimals, 0xFF)

    @property
    def catalog(self) -> str:
        """Always ``def`` (MySQL's only catalog)."""
        return "def"


@dataclass(frozen=True, slots=True)
class StateChange:
    """One entry of the OK packet's session-state block (what a ``session_track_*`` tracker reports).

    Attributes:
        type: a :class:`SessionStateType`.
        name: the system variable's name (SESSION_TRACK_SYSTEM_VARIABLES only, else "").
        value: the entry's text: the variable's value; the schema name; ``"1"`` for STATE_CHANGE; the GTID set in
            MySQL's text form for GTIDS (the protocol adds encoding specification 0); the SQL text for
            TRANSACTION_CHARACTERISTICS; the 8-character state (``"T_____S_"``) for TRANSACTION_STATE.

    Raises:
        ValueError: a name on a type other than SYSTEM_VARIABLES (or none on it), a STATE_CHANGE other than "1",
            or a transaction state that is not 8 characters.
        TypeError: name or value not a str.
    """

    type: SessionStateType
    value: str
    name: str = ""

    def __post_init__(self) -> None:
        t = SessionStateType(self.type)
        if not isinstance(self.value, str) or not isinstance(self.name, str):
            raise TypeError("StateChange.name and .value must be str")
        if (t == SessionStateType.SESSION_TRACK_SYSTEM_VARIABLES) != bool(self.name):
            raise ValueError("StateChange.name is required for, and only for, SESSION_TRACK_SYSTEM_VARIABLES")
        if t == SessionStateType.SESSION_TRACK_STATE_CHANGE and self.value != "1":
            raise ValueError("SESSION_TRACK_STATE_CHANGE carries the value '1'")
        if t == SessionStateType.SESSION_TRACK_TRANSACTION_STATE and len(self.value) != 8:
            raise ValueError(f"a transaction state has 8 characters, got {self.value!r}")


@dataclass(frozen=True, slots=True)
class Condition:
    """One condition of the diagnostics area, as SHOW WARNINGS lists it.

    Attributes:
        level: ``"Note"``, ``"Warning"`` or ``"Error"``.
        code: MySQL error number.
        message: MySQL's message text.
    """

    level: str
    code: int
    message: str

    def __post_init__(self) -> None:
        if self.level not in ("Note", "Warning", "Error"):
            raise ValueError(f"Condition.level must be Note, Warning or Error, got {self.level!r}")
        _check_uint("Condition.code", self.code, 0xFFFF)

    def as_tuple(self) -> tuple[str, int, str]:
        """``(level, code, message)``: one SHOW WARNINGS row."""
        return (self.level, self.code, self.message)


_STATE_CHANGED = int(ServerStatus.SERVER_SESSION_STATE_CHANGED)  # a plain int: IntFlag "&" is slow
#: a result's fields set in one call (StatementResult's __init__ / completed / result_set): object.__new__, then
#: object.__setattr__ of every field (a frozen dataclass's own way), in C when compiled (fast_rows.set_slots)
_new = object.__new__
#: ``rows`` not given to the constructor (a new empty list each time, as ``field(default_factory=list)``)
_NO_ROWS: Any = object()
_AUTOCOMMIT = int(ServerStatus.SERVER_STATUS_AUTOCOMMIT)
_U64 = 2**64 - 1


@dataclass(frozen=True, slots=True, init=False)
class StatementResult:
    """What one statement of :meth:`gtidkit.engine.session.Session.execute` returns: a result set or an OK.

    Attributes:
        columns: the result set's columns, or ``None`` for a statement answered with an OK packet.
        rows: result rows as tuples of Python values (``None`` = NULL), in column order; empty without a result
            set. A list (compares equal to a list of tuples); the result owns it and nobody mutates it.
        affected_rows: rows changed (MySQL's count: ON DUPLICATE KEY UPDATE counts 2 per updated row).
        matched_rows: rows found (UPDATE's "Rows matched"); what affected_rows becomes when the client sets
            CLIENT_FOUND_ROWS — the protocol chooses, the engine reports both. Equals affected_rows for other
            statements.
        last_insert_id: the OK packet's last_insert_id (first AUTO_INCREMENT value generated, else 0).
        warning_count: conditions this statement raised (the OK / EOF packet's warnings field).
        info: MySQL's info text (``Rows matched: 1  Changed: 1  Warnings: 0``, ``Records: 2  Duplicates: 0
            Warnings: 0``) or "".
        status_flags: :class:`ServerStatus` bits after this statement (IN_TRANS, AUTOCOMMIT, MORE_RESULTS_EXISTS
            when another statement of the same text follows, SESSION_STATE_CHANGED when state_changes is non-empty).
        state_changes: the session-state entries the enabled ``session_track_*`` trackers report, in tracker order.
        warnings: the conditions this statement raised (as SHOW WARNINGS would list them right after it).

    Raises:
        ValueError: negative counts, rows whose width differs from the columns, or status flags beyond 16 bits.
    """

    columns: tuple[Column, ...] | None = None
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    affected_rows: int = 0
    matched_rows: int = 0
    last_insert_id: int = 0
    warning_count: int = 0
    info: str = ""
    status_flags: int = int(ServerStatus.SERVER_STATUS_AUTOCOMMIT)
    state_changes: tuple[StateChange, ...] = ()
    warnings: tuple[Condition, ...] = ()

    def __init__(
        self,
        columns: tuple[Column, ...] | None = None,
        rows: list[tuple[Any, ...]] = _NO_ROWS,
        affected_rows: int = 0,
        matched_rows: int = 0,
        last_insert_id: int = 0,
        warning_count: int = 0,
        info: str = "",
        status_flags: int = _AUTOCOMMIT,
        state_changes: tuple[StateChange, ...] = (),
        warnings: tuple[Condition, ...] = (),
    ) -> None:
        """The dataclass's own ``__init__`` (the fields in order, ``rows`` a new empty list by default, then
        :meth:`__post_init__`'s checks), its fields set in one call (``fast_rows.set_slots``): every OK packet's result is built here."""
        _set_slots(
            self,
            _FIELDS,
            (
                columns,
                [] if rows is _NO_ROWS else rows,
                affected_rows,
                matched_rows,
                last_insert_id,
                warning_count,
                info,
                status_flags,
                state_changes,
                warnings,
            ),
        )
        self.__post_init__()

    def __post_init__(self) -> None:
        a, m, li, wc, sf = (
            self.affected_rows,
            self.matched_rows,
            self.last_insert_id,
            self.warning_count,
            self.status_flags,
        )
        if not (  # the common case in one expression: no call per field on this per-statement path
            type(a) is int
            and type(m) is int
            and type(li) is int
            and type(wc) is int
            and type(sf) is int
            and 0 <= a <= _U64
            and 0 <= m <= _U64
            and 0 <= li <= _U64
            and 0 <= wc <= 0xFFFF
            and 0 <= sf <= 0xFFFF
        ):
            _check_uint("affected_rows", a, _U64)
            _check_uint("matched_rows", m, _U64)
            _check_uint("last_insert_id", li, _U64)
            _check_uint("warning_count", wc, 0xFFFF)
            _check_uint("status_flags", sf, 0xFFFF)
        if self.columns is None:
            if self.rows:
                raise ValueError("rows without columns")
        elif self.rows:
            n = len(self.columns)
            widths = set(map(len, self.rows))  # C speed: results of range selects carry many rows
            if widths != {n}:
                w = next(x for x in sorted(widths) if x != n)
                raise ValueError(f"row of {w} values for {n} columns")
        if bool(self.state_changes) != bool(self.status_flags & _STATE_CHANGED):
            raise ValueError(
                "SERVER_SESSION_STATE_CHANGED must be set exactly when state_changes is non-empty"
            )

    def completed(
        self, warning_count: int, status_flags: int, state_changes: tuple[StateChange, ...]
    ) -> StatementResult:
        """This result with the session's completion fields set: ``dataclasses.replace(self, warning_count=...,
        status_flags=..., state_changes=...)``, checking only the fields that change (the session's per-statement
        path; the rest were checked when this result was made).

        Raises:
            ValueError: as the constructor, for the three fields given.
        """
        if not (
            type(warning_count) is int
            and type(status_flags) is int
            and 0 <= warning_count <= 0xFFFF
            and 0 <= status_flags <= 0xFFFF
        ):
            _check_uint("warning_count", warning_count, 0xFFFF)
            _check_uint("status_flags", status_flags, 0xFFFF)
        if bool(state_changes) != bool(status_flags & _STATE_CHANGED):
            raise ValueError(
                "SERVER_SESSION_STATE_CHANGED must be set exactly when state_changes is non-empty"
            )
        new = _new(StatementResult)
        # frozen: the constructor's own way of setting fields (object.__setattr__), every field in one call
        _set_slots(
            new,
            _FIELDS,
            (
                self.columns,
                self.rows,
                self.affected_rows,
                self.matched_rows,
                self.last_insert_id,
                warning_count,
                self.info,
                status_flags,
                state_changes,
                self.warnings,
            ),
        )
        return new

    @staticmethod
    def result_set(
        columns: tuple[Column, ...],
        rows: list[tuple[Any, ...]],
        warning_count: int,
        status_flags: int,
        state_changes: tuple[StateChange, ...],
        warnings: tuple[Condition, ...],
    ) -> StatementResult:
        """``StatementResult(columns, rows, warning_count=..., status_flags=..., state_changes=...,
        warnings=...)`` (no counts, no info: what a SELECT returns), checking only the fields given: the
        per-statement path of a prepared SELECT (``Session._prepared_select``), where the constructor's checks of
        the fixed fields cost a few percent of a point select.

        Raises:
            ValueError: as the constructor: rows whose width differs from the columns, counts or status flags
                out of range, SERVER_SESSION_STATE_CHANGED and ``state_changes`` disagreeing.
        """
        if not (
            type(warning_count) is int
            and type(status_flags) is int
            and 0 <= warning_count <= 0xFFFF
            and 0 <= status_flags <= 0xFFFF
        ):
            _check_uint("warning_count", warning_count, 0xFFFF)
            _check_uint("status_flags", status_flags, 0xFFFF)
        if bool(state_changes) != bool(status_flags & _STATE_CHANGED):
            raise ValueError(
                "SERVER_SESSION_STATE_CHANGED must be set exactly when state_changes is non-empty"
            )
        if rows:
            n = len(columns)
            # a list of tuples (every SELECT's rows) checked in C when the compiled module is in use
            if _uniform_width is None or not _uniform_width(rows, n):
                widths = set(map(len, rows))
                if widths != {n}:
                    w = next(x for x in sorted(widths) if x != n)
                    raise ValueError(f"row of {w} values for {n} columns")
        new = _new(StatementResult)
        # as completed() does: every field set in one call
        _set_slots(
            new,
            _FIELDS,
            (columns, rows, 0, 0, 0, warning_count, "", status_flags, state_changes, warnings),
        )
        return new

    @property
    def has_result_set(self) -> bool:
        """True for statements answered with a result set (SELECT, SHOW), even with zero rows."""
        return self.columns is not None

    @property
    def column_names(self) -> list[str]:
        """The result set's column names (empty without a result set)."""
        return [c.name for c in self.columns or ()]


#: the fields of :class:`StatementResult` in the order ``completed`` / ``result_set`` give their values
_FIELDS = (
    "columns",
    "rows",
    "affected_rows",
    "matched_rows",
    "last_insert_id",
    "warning_count",
    "info",
    "status_flags",
    "state_changes",
    "warnings",
)
if _FIELDS != StatementResult.__slots__:  # pragma: no cover - a field added without adding it here
    raise ImportError("StatementResult's fields and results._FIELDS disagree")
