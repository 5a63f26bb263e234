"""CREATE TABLE / CREATE INDEX trees (sqlglot, MySQL dialect) -> catalog definitions, with MySQL's DDL errors.

Accepted: column types of :data:`gtidkit.engine.sql.catalog.TYPE_INFO` with length/precision/UNSIGNED/ZEROFILL,
NULL/NOT NULL, DEFAULT literal/NULL/CURRENT_TIMESTAMP, AUTO_INCREMENT, PRIMARY KEY / UNIQUE [KEY] on a column,
table-level PRIMARY KEY, UNIQUE [KEY|INDEX] name (...), KEY/INDEX name (...), CONSTRAINT name PRIMARY KEY,
CHARACTER SET / COLLATE (column, table, and the database's default; resolved into each character column), COMMENT,
ON UPDATE CURRENT_TIMESTAMP (kept as metadata), ENUM / SET members (:mod:`gtidkit.engine.sql.enum_set`), spatial
types with SRID (spelled ``GEOMETRY(n[, srid])`` by :func:`gtidkit.engine.sql.parse.ddl_spelling`), INVISIBLE,
prefix key parts (``PRIMARY KEY (c(10))``), PARTITION BY (kept as text), ENGINE= and other table options (accepted
and ignored, as a single-engine server would). Rejected with 1235: FOREIGN KEY,
CHECK, generated columns, CREATE TEMPORARY TABLE, CREATE TABLE ... AS SELECT (``CREATE TABLE ... LIKE`` is handled by the executor).
Errors follow MySQL 8.0 (``sql/sql_table.cc``): 1060 duplicate column, 1068 multiple primary key, 1072 key
column missing, 1075 bad auto column, 1067 invalid default, 1101 BLOB/TEXT default, 1113 no columns, 1291
duplicated ENUM / SET value, 1097 too many SET members, 4028 no visible column.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import sqlglot
from sqlglot import exp

from gtidkit.engine import charsets
from gtidkit.engine.sql.catalog import SQLGLOT_TYPES, TYPE_INFO, ColumnDef, IndexDef, TableDef
from gtidkit.engine.sql.enum_set import ENUM_SET_TYPES, check_members
from gtidkit.engine.sql.spatial import SPATIAL_TYPES
from gtidkit.engine.sql.values import coerce
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

__all__ = [
    "column_def",
    "not_supported",
    "parse_create_index",
    "parse_create_table",
    "parse_create_table_text",
    "resolve_charset",
]


def not_supported(what: str) -> MySQLError:
    """ER_NOT_SUPPORTED_YET 1235 (42000): "This version of MySQL doesn't yet support '<what>'"."""
    return mysql_error(1235, what)


def _ident(node: Any) -> str:
    if isinstance(node, exp.Expression):
        return node.name
    return str(node)


def _literal_value(node: exp.Expression) -> Any:
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return int(node.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        t = node.this
        return int(t) if t.lstrip("-").isdigit() else t
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        v = _literal_value(node.this)
        return -v if isinstance(v, int) else "-" + v
    if isinstance(node, exp.Paren):
        return _literal_value(node.this)
    if isinstance(node, exp.BitString):  # b'101' (a number: a BIT or integer default)
        return int(node.this or "0", 2)
    if isinstance(node, exp.HexString):  # x'41' (a binary string, a number for BIT and integer columns)
        return bytes.fromhex(node.this if len(node.this) % 2 == 0 else "0" + node.this)
    raise ValueError(node.sql("mysql"))


_LENGTH_TEXT = re.compile(r"(\d+)(?:\.\d*)?|\.\d+")


def _type_param(p: exp.Expression) -> int:
    """A column type's length / precision / scale argument.

    MySQL's ``field_length`` is ``'(' NUM | LONG_NUM | ULONGLONG_NUM | DECIMAL_NUM ')'`` (``sql/sql_yacc.yy``),
    read with ``my_strtoull`` (``VARCHAR(10.7)`` is 10); any other token there (a hexadecimal or approximate
    literal, an introducer, a name) is a syntax error.

    Raises:
        MySQLError: 1064 near the argument.
    """
    node = p.this if isinstance(p, exp.DataTypeParam) and not p.expression else p
    text = node.this if isinstance(node, exp.Literal) and not node.is_string else None
    m = _LENGTH_TEXT.fullmatch(str(text)) if text is not None else None
    if m is None:
        raise mysql_error(
            1064,
            "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use",
            p.sql("mysql"),
            "1",
        )
    return int(m.group(1) or 0)


def _check_scale(name: str, precision: int, scale: int) -> None:
    """DECIMAL(M,D) / FLOAT(M,D) / DOUBLE(M,D): D at most 30 (DECIMAL_MAX_SCALE) and at most M.

    Raises:
        MySQLError: 1425 ER_TOO_BIG_SCALE; 1427 ER_M_BIGGER_THAN_D.
    """
    if scale > 30:
        raise mysql_error(1425, scale, name, 30)
    if scale > precision:
        raise mysql_error(1427, name)


def column_def(
    cd: exp.ColumnDef, table_charset: str | None, table_collation: str | None = None
) -> tuple[ColumnDef, bool, bool]:
    """Build the :class:`ColumnDef` for one sqlglot column definition (CREATE TABLE / ALTER TABLE ADD|MODIFY).

    Returns (column, is_primary_key, is_unique). A character column's character set and collation are resolved
    as MySQL does (RM8 10.3.5 "Column Character Set and Collation"): its own CHARACTER SET / COLLATE, else the
    table's default (``table_charset`` / ``table_collation``), and kept in the definition.

    Raises:
        MySQLError: 1115 unknown character set; the DDL errors of the module docstring.
    """
    name = cd.name
    kind = cd.args.get("kind")
    if not isinstance(kind, exp.DataType):
        raise mysql_error(
            1064,
            "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use",
            name,
            "1",
        )
    dtype = kind.this.name if hasattr(kind.this, "name") else str(kind.this)
    mapped = SQLGLOT_TYPES.get(dtype)
    if mapped is None:
        raise not_supported(f"column type {kind.sql('mysql')}")
    tname, unsigned = mapped
    members: tuple[str, ...] = ()
    srid: int | None = None
    if tname in ENUM_SET_TYPES:
        members = check_members(name, tname, tuple(str(p.this) for p in kind.expressions))
        params = []
    else:
        params = [_type_param(p) for p in kind.expressions]
    length = precision = scale = None
    if tname in ("char", "binary"):
        length = params[0] if params else 1
    elif tname in ("varchar", "varbinary"):
        if not params:
            raise mysql_error(
                1064,
                "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use",
                ")",
                "1",
            )
        length = params[0]
    elif tname == "geometry" and params:  # POINT, LINESTRING ... as parse.py spells them for sqlglot
        tname = SPATIAL_TYPES[params[0]]
        srid = params[1] if len(params) > 1 else None
    elif tname == "decimal":
        precision = params[0] if params else 10
        scale = params[1] if len(params) > 1 else 0
        if precision > 65:
            raise mysql_error(1426, precision, name, "65")
        _check_scale(name, precision, scale)
    elif tname == "float" and len(params) == 1:
        # FLOAT(p) (RM8 13.1.4): p 0..24 is FLOAT, 25..53 DOUBLE, both without a (M,D); above 53 error 1063
        if params[0] > 53:
            raise mysql_error(1063, name)
        tname = "float" if params[0] <= 24 else "double"
    elif tname in ("float", "double") and params:
        precision = params[0]
        scale = params[1] if len(params) > 1 else None
        if precision > 255:  # MAX_DOUBLE_STR_LENGTH... the display width of FLOAT(M,D) / DOUBLE(M,D)
            raise mysql_error(1439, name, 255)
        if scale is not None:
            _check_scale(name, precision, scale)
    elif tname == "bit":
        length = max(params[0], 1) if params else 1  # BIT and BIT(0) are BIT(1)
        if length > 64:  # MAX_BIT_FIELD_LENGTH
            raise mysql_error(1439, name, 64)
    elif tname in ("datetime", "timestamp", "time") and params:
        scale = params[0]
        if scale > 6:
            raise mysql_error(1426, scale, name, "6")
    elif tname == "tinyint" and dtype == "BOOLEAN" or tname == "tinyint" and params == [1]:
        length = 1
    if tname in ("char",) and length is not None and length > 255:
        raise mysql_error(1074, name, "255")
    if TYPE_INFO[tname].family == "int" and params and params[0] > 255:  # MAX_FIELD_CHARLENGTH
        raise mysql_error(1439, name, 255)
    nullable, has_default, default, default_expr = True, False, None, None
    auto_inc = is_pk = is_unique = zerofill = False
    charset = collation = None
    comment = ""
    on_update = None
    invisible = False
    for c in cd.constraints:
        k = c.kind
        if isinstance(k, exp.NotNullColumnConstraint):
            nullable = bool(k.args.get("allow_null"))
        elif isinstance(k, exp.DefaultColumnConstraint):
            has_default = True
            d = k.this
            if isinstance(d, (exp.CurrentTimestamp, exp.CurrentDatetime)) or (
                isinstance(d, exp.Anonymous) and d.name.upper() in ("NOW", "CURRENT_TIMESTAMP")
            ):
                default_expr = "CURRENT_TIMESTAMP"
            else:
                try:
                    default = _literal_value(d)
                except ValueError:
                    raise not_supported("expression DEFAULT") from None
        elif isinstance(k, exp.AutoIncrementColumnConstraint):
            auto_inc = True
        elif isinstance(k, exp.InvisibleColumnConstraint):
            invisible = True

        elif isinstance(k, exp.PrimaryKeyColumnConstraint):
            is_pk = True
        elif isinstance(k, exp.UniqueColumnConstraint):
            is_unique = True
        elif isinstance(k, exp.CharacterSetColumnConstraint):
            charset = _ident(k.this)
        elif isinstance(k, exp.CollateColumnConstraint):
            collation = _ident(k.this)
        elif isinstance(k, exp.CommentColumnConstraint):
            comment = k.this.this if isinstance(k.this, exp.Literal) else k.this.name
        elif isinstance(k, exp.ZeroFillColumnConstraint):
            zerofill = unsigned = True
        elif isinstance(k, exp.OnUpdateColumnConstraint):
            d = k.this
            if not (
                isinstance(d, (exp.CurrentTimestamp, exp.CurrentDatetime))
                or (isinstance(d, exp.Anonymous) and d.name.upper() in ("NOW", "CURRENT_TIMESTAMP"))
            ):
                raise mysql_error(1294, name)
            on_update = "CURRENT_TIMESTAMP"
        elif isinstance(
            k,
            (
                exp.CheckColumnConstraint,
                exp.ComputedColumnConstraint,
                exp.GeneratedAsIdentityColumnConstraint,
            ),
        ):
            raise not_supported(k.sql("mysql"))
        else:
            raise not_supported(f"column option {k.sql('mysql')}")
    if is_pk:
        nullable = False
    if zerofill and TYPE_INFO[tname].family == "int" and length is None:
        # the display width ZEROFILL pads to: as written, else the type's unsigned width (RM8 13.1.6)
        length = params[0] if params else _ZEROFILL_WIDTH[tname]
    col = ColumnDef(
        name=name,
        type=tname,
        length=length,
        precision=precision,
        scale=scale,
        unsigned=unsigned,
        zerofill=zerofill,
        nullable=nullable,
        has_default=False,
        auto_increment=auto_inc,
        charset=charset if TYPE_INFO[tname].family == "string" else None,
        collation=collation if TYPE_INFO[tname].family == "string" else None,
        comment=comment,
        on_update=on_update,
        members=members,
        invisible=invisible,
        srid=srid,
    )
    if TYPE_INFO[tname].family == "string" and table_charset is not None:
        cs, coll = resolve_charset(charset, collation, table_charset, table_collation)
        col = ColumnDef(**{**_asdict(col), "charset": cs, "collation": coll})
        if cs == "binary" and tname in _BINARY_OF:
            # CHAR / VARCHAR / TEXT ... CHARACTER SET binary are BINARY / VARBINARY / BLOB ... (RM8 13.3.3)
            tname = _BINARY_OF[tname]
            col = ColumnDef(**{**_asdict(col), "type": tname, "charset": None, "collation": None})
    if tname in ("varchar", "varbinary") and length is not None:
        # a row holds at most 65535 bytes (strict mode's ER_TOO_BIG_FIELDLENGTH, max counted in characters)
        cs_info = charsets.CHARSETS.get(str(col.charset or "utf8mb4").lower()) if tname == "varchar" else None
        most = 65535 // (cs_info.maxlen if cs_info is not None else 1)
        if length > most:
            raise mysql_error(1074, name, most)
    if on_update and tname not in ("datetime", "timestamp"):
        raise mysql_error(1294, name)
    if has_default:
        if TYPE_INFO[tname].max_length is not None and (default is not None or default_expr):
            raise mysql_error(1101, name)
        if default_expr and tname not in ("datetime", "timestamp"):
            raise mysql_error(1067, name)
        if default is None and not default_expr and not nullable:
            raise mysql_error(1067, name)
        if default is not None:
            try:
                default = coerce(col, default)
            except MySQLError:
                raise mysql_error(1067, name) from None
        col = ColumnDef(
            **{**_asdict(col), "has_default": True, "default": default, "default_expr": default_expr}
        )
    elif nullable and not auto_inc:
        col = ColumnDef(**{**_asdict(col), "has_default": True, "default": None})
    return col, is_pk, is_unique


#: Display width of an integer type when ZEROFILL is given without one (the digits of its unsigned maximum).
_ZEROFILL_WIDTH = {"tinyint": 3, "smallint": 5, "mediumint": 8, "int": 10, "bigint": 20}


#: A character type in the binary character set is its binary counterpart (RM8 13.3.3 "The BINARY and VARBINARY
#: Types", 13.3.4 "The BLOB and TEXT Types").
_BINARY_OF = {
    "char": "binary",
    "varchar": "varbinary",
    "tinytext": "tinyblob",
    "text": "blob",
    "mediumtext": "mediumblob",
    "longtext": "longblob",
}


def resolve_charset(
    charset: str | None, collation: str | None, table_charset: str, table_collation: str | None
) -> tuple[str, str]:
    """``(character set, collation)`` of a character column: its own, else the table's (RM8 10.3.5).

    A CHARACTER SET alone takes that set's default collation; a COLLATE alone names its set (the part before the
    first ``_``); ``utf8`` is ``utf8mb3``.

    Raises:
        MySQLError: 1115 unknown character set.
    """
    if charset is None and collation is None:
        charset, collation = table_charset, table_collation
    if charset is None:
        charset = str(collation).split("_")[0]
    cs = charsets.lookup(charset)
    coll = (collation or cs.default_collation).lower()
    if coll.startswith("utf8_"):
        coll = "utf8mb3_" + coll[5:]
    return cs.name, coll


def _asdict(c: ColumnDef) -> dict[str, Any]:
    return {f: getattr(c, f) for f in c.__slots__}  # type: ignore[attr-defined]


def _key_prefixes(nodes: list[exp.Expression]) -> tuple[int, ...]:
    """Per key part, its prefix length (``c(10)``) or 0; empty when there is no prefix."""
    out = []
    for n in nodes:
        if isinstance(n, exp.Ordered):
            n = n.this
        if isinstance(n, exp.ColumnPrefix):
            out.append(_prefix_length(n.expression))
        elif isinstance(n, exp.Anonymous) and n.expressions:
            out.append(_prefix_length(n.expressions[0]))
        else:
            out.append(0)
    return tuple(out) if any(out) else ()


def _prefix_length(node: exp.Expression) -> int:
    """A key part's prefix length: ``key_part: ident '(' NUM ')'`` (``sql/sql_yacc.yy``), so anything but an
    unsigned integer literal (``f(0.5)``, ``f(x)``) is a syntax error.

    Raises:
        MySQLError: 1064 near the length.
    """
    text = node.name if isinstance(node, exp.Literal) and not node.is_string else ""
    if not text.isdigit():
        raise mysql_error(
            1064,
            "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use",
            node.sql("mysql"),
            "1",
        )
    return int(text)


def _key_columns(nodes: list[exp.Expression]) -> tuple[str, ...]:
    out = []
    for n in nodes:
        if isinstance(n, exp.Ordered):
            n = n.this
        if isinstance(n, exp.Anonymous):  # col(10) prefix length: the whole column is indexed here
            out.append(n.name)
        else:
            out.append(n.name)
    return tuple(out)


def parse_create_table(
    tree: exp.Create,
    current_db: str | None,
    *,
    temporary: bool = False,
    select_columns: tuple[ColumnDef, ...] | None = None,
    schema_charset: Callable[[str], tuple[str, str] | None] | None = None,
) -> tuple[TableDef, bool]:
    """Build the :class:`TableDef` of a ``CREATE [TEMPORARY] TABLE`` tree. Returns (definition, if_not_exists).

    Args:
        tree: the sqlglot tree.
        current_db: the default database.
        temporary: the caller handles CREATE TEMPORARY TABLE (else it is refused).
        select_columns: for ``CREATE TABLE ... SELECT``, the columns the SELECT produces; those not defined
            explicitly are appended after the explicit ones (RM8 "CREATE TABLE ... SELECT Statement").
        schema_charset: the default ``(character set, collation)`` of a database (None when it does not exist),
            which a table without its own takes; utf8mb4 / utf8mb4_0900_ai_ci when not given.

    Raises:
        MySQLError: 1046 no database selected; 1235 unsupported clause; the DDL errors in the module docstring.
    """
    if not temporary and (
        tree.args.get("temporary")
        or any(
            isinstance(p, exp.TemporaryProperty)
            for p in (tree.args.get("properties") or exp.Properties()).expressions
        )
    ):
        raise not_supported("CREATE TEMPORARY TABLE")
    if tree.args.get("expression") is not None and select_columns is None:
        raise not_supported("CREATE TABLE ... SELECT")
    schema_node = tree.this
    if select_columns is not None and isinstance(schema_node, exp.Table):
        schema_node = exp.Schema(this=schema_node, expressions=[])
    if not isinstance(schema_node, exp.Schema):
        raise not_supported("CREATE TABLE ... LIKE")
    table = schema_node.this
    db = table.db or current_db
    if not db:
        raise mysql_error(1046)
    engine, tcomment = "InnoDB", ""
    own_charset: str | None = None
    own_collation: str | None = None
    for p in (tree.args.get("properties") or exp.Properties()).expressions:
        if isinstance(p, exp.EngineProperty):
            engine = p.this.name if isinstance(p.this, exp.Expression) else str(p.this)
            engine = {"innodb": "InnoDB", "myisam": "MyISAM", "memory": "MEMORY"}.get(engine.lower(), engine)
        elif isinstance(p, exp.CharacterSetProperty):
            own_charset = p.this.name
        elif isinstance(p, exp.CollateProperty):
            own_collation = p.this.name
        elif isinstance(p, exp.SchemaCommentProperty):
            tcomment = p.this.this if isinstance(p.this, exp.Literal) else p.this.name
    # the table's own character set / collation, else the database's (RM8 10.3.4 "Table Character Set and
    # Collation")
    base = schema_charset(db) if schema_charset is not None else None
    charset, collation = resolve_charset(
        own_charset, own_collation, *(base or ("utf8mb4", "utf8mb4_0900_ai_ci"))
    )
    columns: list[ColumnDef] = []
    indexes: list[IndexDef] = []
    pk_cols: tuple[str, ...] | None = None
    pk_prefixes: tuple[int, ...] = ()

    def set_pk(cols: tuple[str, ...], prefixes: tuple[int, ...] = ()) -> None:
        nonlocal pk_cols, pk_prefixes
        if pk_cols is not None:
            raise mysql_error(1068)
        pk_cols, pk_prefixes = cols, prefixes

    unique_cols: list[str] = []
    for e in schema_node.expressions:
        if isinstance(e, exp.ColumnDef):
            col, is_pk, is_unique = column_def(e, charset, collation)
            if any(c.name.lower() == col.name.lower() for c in columns):
                raise mysql_error(1060, col.name)
            columns.append(col)
            if is_pk:
                set_pk((col.name,))
            if is_unique:
                unique_cols.append(col.name)
        elif isinstance(e, exp.PrimaryKey):
            set_pk(_key_columns(e.expressions), _key_prefixes(e.expressions))
        elif isinstance(e, exp.Constraint) and e.expressions and isinstance(e.expressions[0], exp.PrimaryKey):
            set_pk(_key_columns(e.expressions[0].expressions), _key_prefixes(e.expressions[0].expressions))
        elif (
            isinstance(e, exp.Constraint)
            and e.expressions
            and isinstance(e.expressions[0], exp.UniqueColumnConstraint)
        ):
            u = e.expressions[0]
            cols = _key_columns(u.this.expressions if isinstance(u.this, exp.Schema) else [])
            indexes.append(IndexDef(name=e.name, columns=cols, unique=True))
        elif isinstance(e, exp.UniqueColumnConstraint):
            s = e.this
            cols = _key_columns(s.expressions if isinstance(s, exp.Schema) else [])
            name = s.this.name if isinstance(s, exp.Schema) and s.this is not None else ""
            indexes.append(IndexDef(name=name, columns=cols, unique=True))
        elif isinstance(e, exp.IndexColumnConstraint):
            if e.args.get("kind"):
                raise not_supported(f"{e.args['kind']} INDEX")
            name = e.this.name if e.this is not None else ""
            indexes.append(IndexDef(name=name, columns=_key_columns(e.expressions)))
        elif isinstance(e, (exp.ForeignKey,)) or (
            isinstance(e, exp.Constraint) and any(isinstance(x, exp.ForeignKey) for x in e.expressions)
        ):
            raise not_supported("FOREIGN KEY")
        else:
            raise not_supported(e.sql("mysql"))
    for extra in select_columns or ():
        if not any(c.name.lower() == extra.name.lower() for c in columns):
            columns.append(extra)
    if not columns:
        raise mysql_error(1113)
    if all(c.invisible for c in columns):
        raise mysql_error(4028)
    for uc in unique_cols:
        indexes.append(IndexDef(name=uc, columns=(uc,), unique=True))

    def canon(cols: tuple[str, ...]) -> tuple[str, ...]:
        out = []
        for c in cols:
            match = next((x.name for x in columns if x.name.lower() == c.lower()), None)
            if match is None:
                raise mysql_error(1072, c)
            out.append(match)
        return tuple(out)

    final: list[IndexDef] = []
    if pk_cols is not None:
        pk = canon(pk_cols)
        final.append(IndexDef(name="PRIMARY", columns=pk, unique=True, primary=True, prefixes=pk_prefixes))
        columns = [
            ColumnDef(
                **{
                    **_asdict(c),
                    "nullable": False,
                    "has_default": c.has_default and c.default is not None or bool(c.default_expr),
                }
            )
            if c.name in pk
            else c
            for c in columns
        ]
    used = {"primary"}
    for ix in indexes:
        cols = canon(ix.columns)
        name = ix.name or cols[0]
        if not ix.name:
            base, n = name, 2
            while name.lower() in used:
                name, n = f"{base}_{n}", n + 1
        elif name.lower() in used:
            raise mysql_error(1061, name)
        used.add(name.lower())
        final.append(IndexDef(name=name, columns=cols, unique=ix.unique))
    autos = [c for c in columns if c.auto_increment]
    if len(autos) > 1 or (autos and not any(ix.columns[0] == autos[0].name for ix in final)):
        raise mysql_error(1075)
    if autos and autos[0].info.family not in ("int", "float"):
        raise mysql_error(1063, autos[0].name)
    tdef = TableDef(
        schema=db,
        name=table.name,
        columns=tuple(columns),
        indexes=tuple(final),
        engine=engine,
        charset=charset,
        collation=collation,
        comment=tcomment,
        partitioning=tree.meta.get("gk_partitioning", ""),
    )
    return tdef, bool(tree.args.get("exists"))


@functools.lru_cache(maxsize=256)
def parse_create_table_text(sql: str, current_db: str | None) -> TableDef:
    """Parse MySQL ``CREATE TABLE`` text into a :class:`TableDef` (used for system-table bootstrap).

    The result depends only on the two arguments and is immutable, so it is cached: every server start creates
    the same system tables from the same text.

    Raises:
        ValueError: ``sql`` is not a CREATE TABLE statement.
        MySQLError: as :func:`parse_create_table`.
    """
    tree = sqlglot.parse_one(sql, read="mysql")
    if not isinstance(tree, exp.Create) or str(tree.args.get("kind")).upper() != "TABLE":
        raise ValueError(f"not a CREATE TABLE statement: {sql[:60]!r}")
    return parse_create_table(tree, current_db)[0]


def parse_create_index(tree: exp.Create, current_db: str | None) -> tuple[str, str, IndexDef]:
    """``CREATE [UNIQUE] INDEX name ON [db.]t (cols)`` -> (schema, table, IndexDef).

    Raises:
        MySQLError: 1046 no database selected; 1235 for FULLTEXT/SPATIAL.
    """
    ix = tree.this
    table = ix.args["table"]
    db = table.db or current_db
    if not db:
        raise mysql_error(1046)
    params = ix.args.get("params")
    cols = _key_columns(params.args.get("columns") or []) if params is not None else ()
    return db, table.name, IndexDef(name=ix.name, columns=cols, unique=bool(tree.args.get("unique")))
