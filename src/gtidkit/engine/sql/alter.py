"""ALTER TABLE and RENAME TABLE by table rebuild (MySQL's ALGORITHM=COPY), atomic with the catalog change.

Supported ALTER actions: ADD [COLUMN] col_def [FIRST | AFTER c], DROP [COLUMN] c, MODIFY [COLUMN] col_def,
ADD {INDEX|KEY|UNIQUE [KEY]} [name] (cols), ADD PRIMARY KEY (cols), DROP {INDEX|KEY} name, DROP PRIMARY KEY,
RENAME [TO] t, and table options (ENGINE=, CHARSET=: accepted). Other actions raise 1235.
Rows are copied in Python through strict-mode coercion, so MODIFY to a narrower type fails like MySQL (1264,
1265, 1406) and a new NOT NULL column without DEFAULT takes the type's implicit default (0, '', zero date).
Source: manual "ALTER TABLE Statement", "Data Type Default Values" (implicit defaults), ``sql/sql_table.cc``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from gtidkit.engine.sql.catalog import ColumnDef, IndexDef, TableDef
from gtidkit.engine.sql.ddl import column_def, not_supported
from gtidkit.engine.sql.values import coerce, from_sqlite, to_sqlite
from gtidkit.engine.storage import IntegrityError, physical_name, quote_ident
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.exec_result import ExecResult
    from gtidkit.engine.sql.executor import Executor

__all__ = ["KEYS_ONOFF", "rebuild_table", "run_alter", "run_keys_onoff", "run_rename"]

#: ``ALTER TABLE t {DISABLE|ENABLE} KEYS`` (what mysqldump / mariadb-dump put around a table's INSERTs, inside
#: ``/*!40000 ... */``); sqlglot does not parse it, so it is matched on the text.
KEYS_ONOFF = re.compile(
    r"^\s*ALTER\s+TABLE\s+(`(?:[^`]|``)+`(?:\.`(?:[^`]|``)+`)?|[\w$.`]+)\s+(?:DISABLE|ENABLE)\s+KEYS\s*$",
    re.IGNORECASE,
)

_IMPLICIT = {"int": 0, "year": 0, "float": 0.0, "decimal": 0, "string": "", "binary": b"", "json": "null"}


def implicit_default(col: ColumnDef) -> Any:
    """MySQL's implicit default of a NOT NULL column without DEFAULT (manual "Data Type Default Values")."""
    fam = col.info.family
    if fam == "temporal":
        return {"date": "0000-00-00", "time": "00:00:00"}.get(col.type, "0000-00-00 00:00:00")
    return _IMPLICIT[fam]


def rebuild_table(ex: Executor, old: TableDef, new: TableDef, sources: list[str | None]) -> None:
    """Replace ``old`` by ``new`` (possibly renamed), copying rows; ``sources[i]`` names the old column feeding
    new column ``i`` (None: the new column's default). Runs in the caller's transaction."""
    conn = ex.conn
    catalog = ex.storage.catalog
    old_phys = physical_name(old.schema, old.name)
    # the files holding the old and the new table (main., or a schema's own: engine/schema_files.py)
    old_file, new_file = ex.storage.qualifier(old.schema), ex.storage.qualifier(new.schema)
    for ix in old.indexes:
        if not ix.primary:
            conn.file_execute(
                old.schema, f"DROP INDEX IF EXISTS {old_file}{quote_ident(old_phys + '.' + ix.name)}"
            )
    tmp = old_phys + "#gk_old"
    # legacy_alter_table: SQLite would rewrite the views naming the table to name the copy about to be dropped
    # (and fail on them); a MySQL view keeps naming the table, which is the rebuilt one
    # (file_execute: the statements that change a schema file are kept for its redo, engine/schema_files.py)
    conn.file_execute(old.schema, "PRAGMA legacy_alter_table=ON")
    try:
        # main.: a session's temporary table of the same name (the temp schema) must not be the one renamed
        conn.file_execute(
            old.schema, f"ALTER TABLE {old_file}{quote_ident(old_phys)} RENAME TO {quote_ident(tmp)}"
        )
    finally:
        conn.file_execute(old.schema, "PRAGMA legacy_alter_table=OFF")
    rows = conn.execute(
        f"SELECT {', '.join(quote_ident(c.name) for c in old.columns)} FROM {old_file}{quote_ident(tmp)}"
    ).fetchall()
    catalog.drop_catalog_rows(conn, old)
    from gtidkit.engine.sql.catalog import physical_ddl

    for stmt in physical_ddl(new, new_file):
        conn.file_execute(new.schema, stmt)
    catalog.insert_catalog_rows(conn, new)
    idx = [old.column_index(s) if s is not None else -1 for s in sources]
    defaults = []
    for c in new.columns:
        if c.has_default and c.default_expr is None:
            defaults.append(c.default)
        elif c.nullable:
            defaults.append(None)
        else:
            defaults.append(implicit_default(c))
    insert = (
        f"INSERT INTO {new_file}{quote_ident(physical_name(new.schema, new.name))} "
        f"({', '.join(quote_ident(c.name) for c in new.columns)}) VALUES ({', '.join('?' * len(new.columns))})"
    )
    out = []
    for n, r in enumerate(rows, 1):
        vals = []
        for i, c in enumerate(new.columns):
            if idx[i] < 0:
                v = defaults[i]
            else:
                v = from_sqlite(old.columns[idx[i]], r[idx[i]])
            if v is None and not c.nullable:
                if c.auto_increment:
                    v = catalog.next_auto_increment(conn, new)
                else:
                    raise mysql_error(1138)
            vals.append(to_sqlite(coerce(c, v, n)))
        out.append(vals)
    try:
        conn.file_execute(new.schema, insert, out, many=True)
    except Exception as err:
        if isinstance(err, IntegrityError):
            from gtidkit.engine.sql.dml import dup_entry_error, failed_index, integrity_error

            ix = failed_index(err, new)
            if ix is not None:  # a new unique key over rows that hold a duplicate: the first one met twice
                at = [new.column_index(c) for c in ix.columns]
                seen: set[tuple[Any, ...]] = set()
                for vals in out:
                    key = tuple(vals[i] for i in at)
                    if None in key:
                        continue
                    if key in seen:
                        image = [from_sqlite(c, v) for c, v in zip(new.columns, vals, strict=True)]
                        raise dup_entry_error(new, ix, image) from err
                    seen.add(key)
            raise integrity_error(err, new, out[0] if out else [None] * len(new.columns), 0) from err
        raise
    conn.file_execute(old.schema, f"DROP TABLE {old_file}{quote_ident(tmp)}")


def _position(cols: list[ColumnDef], col: ColumnDef, pos: exp.Expression | None) -> int:
    if pos is None:
        return len(cols)
    where = str(pos.args.get("position") or "").upper()
    if where == "FIRST":
        return 0
    after = pos.this.name if pos.this is not None else ""
    for i, c in enumerate(cols):
        if c.name.lower() == after.lower():
            return i + 1
    raise mysql_error(1054, after, cols[0].name if cols else "")


def run_keys_onoff(ex: Executor, table: str, current_db: str | None) -> ExecResult:
    """``ALTER TABLE t {DISABLE|ENABLE} KEYS`` on our (InnoDB) tables: nothing changes and MySQL adds note 1031
    ER_ILLEGAL_HA naming the table (``sql/sql_table.cc`` ``alter_table_manage_keys``: only MyISAM-like engines
    can disable non-unique indexes). The statement is still DDL (implicit commit, binary-logged).

    Args:
        table: the table as written (``t``, ```t```, ```db`.`t```).

    Raises:
        MySQLError: 1046 / 1146 as for any ALTER TABLE; 1347 ER_WRONG_OBJECT for a view.
    """
    from gtidkit.engine.sql.exec_result import ExecResult
    from gtidkit.mysql_errors import message

    parts = re.findall(r"`((?:[^`]|``)+)`|([\w$]+)", table)
    names = [(q.replace("``", "`") if q else w) for q, w in parts]
    db, name = (names[0], names[1]) if len(names) == 2 else (current_db, names[0])
    t = ex.require_table(db, name)
    if t.table_type != "BASE TABLE":
        raise mysql_error(1347, t.schema, t.name, "BASE TABLE")
    return ExecResult(warnings=[("Note", 1031, message(1031, t.name))])


def run_alter(ex: Executor, tree: exp.Alter, current_db: str | None) -> ExecResult:
    """Execute ``ALTER TABLE``.

    Raises:
        MySQLError: 1146, 1060 duplicate column, 1091 cannot drop, 1090 all columns dropped, 1068 multiple
            primary key, 1061 duplicate key name, 1050 rename target exists, 1235 unsupported action.
    """
    from gtidkit.engine.sql.exec_result import ExecResult

    if str(tree.args.get("kind") or "").upper() != "TABLE":
        raise not_supported(f"ALTER {tree.args.get('kind')}")
    catalog = ex.storage.catalog
    t = tree.this
    old = catalog.require_table(t.db or current_db, t.name)
    if old.table_type != "BASE TABLE":
        raise mysql_error(3552, old.schema)
    cols = list(old.columns)
    sources: list[str | None] = [c.name for c in cols]
    indexes = list(old.indexes)
    new_name = old.name
    new_schema = old.schema
    for action in tree.args.get("actions") or []:
        if isinstance(action, exp.ColumnDef):
            col, is_pk, is_unique = column_def(action, old.charset, old.collation)
            if any(c.name.lower() == col.name.lower() for c in cols):
                raise mysql_error(1060, col.name)
            at = _position(cols, col, action.args.get("position"))
            cols.insert(at, col)
            sources.insert(at, None)
            if is_pk:
                if any(i.primary for i in indexes):
                    raise mysql_error(1068)
                indexes.insert(0, IndexDef("PRIMARY", (col.name,), True, True))
            if is_unique:
                indexes.append(IndexDef(col.name, (col.name,), True))
        elif isinstance(action, exp.ModifyColumn) or (isinstance(action, exp.AlterColumn) and False):
            cd = action.this
            col, _, _ = column_def(cd, old.charset, old.collation)
            i = next((k for k, c in enumerate(cols) if c.name.lower() == col.name.lower()), -1)
            if i < 0:
                raise mysql_error(1054, col.name, old.name)
            cols[i] = col
        elif isinstance(action, exp.Drop):
            kind = str(action.args.get("kind") or "").upper()
            targets = action.args.get("tables") or [action.this]
            for target in targets:
                name = target.name
                if kind == "COLUMN":
                    i = next((k for k, c in enumerate(cols) if c.name.lower() == name.lower()), -1)
                    if i < 0:
                        raise mysql_error(1091, name)
                    del cols[i]
                    del sources[i]
                    indexes = [
                        replace(ix, columns=tuple(c for c in ix.columns if c.lower() != name.lower()))
                        for ix in indexes
                    ]
                    indexes = [ix for ix in indexes if ix.columns]
                    if not cols:
                        raise mysql_error(1090)
                elif kind in ("INDEX", "KEY"):
                    keep = [ix for ix in indexes if ix.name.lower() != name.lower() or ix.primary]
                    if len(keep) == len(indexes):
                        raise mysql_error(1091, name)
                    indexes = keep
                else:
                    raise not_supported(f"ALTER TABLE ... DROP {kind}")
        elif isinstance(action, exp.AddConstraint):
            for c in action.expressions:
                if isinstance(c, exp.PrimaryKey):
                    if any(i.primary for i in indexes):
                        raise mysql_error(1068)
                    indexes.insert(0, IndexDef("PRIMARY", tuple(x.name for x in c.expressions), True, True))
                elif isinstance(c, exp.IndexColumnConstraint):
                    names = tuple((x.this if isinstance(x, exp.Ordered) else x).name for x in c.expressions)
                    indexes.append(IndexDef(c.this.name if c.this is not None else "", names))
                elif isinstance(c, exp.UniqueColumnConstraint):
                    s = c.this
                    names = tuple(x.name for x in (s.expressions if isinstance(s, exp.Schema) else []))
                    nm = s.this.name if isinstance(s, exp.Schema) and s.this is not None else ""
                    indexes.append(IndexDef(nm, names, True))
                else:
                    raise not_supported(f"ALTER TABLE ... ADD {c.sql(dialect='mysql')}")
        elif isinstance(action, exp.AlterRename):
            new_schema = action.this.db or old.schema
            new_name = action.this.name
        else:
            raise not_supported(f"ALTER TABLE ... {action.sql(dialect='mysql')[:40]}")
    # drop PRIMARY KEY written as "DROP PRIMARY KEY" parses as a Drop of kind None with this=PRIMARY: handled above
    final: list[IndexDef] = []
    used: set[str] = set()
    for ix in indexes:
        for c in ix.columns:
            if not any(x.name.lower() == c.lower() for x in cols):
                raise mysql_error(1072, c)
        canon = tuple(next(x.name for x in cols if x.name.lower() == c.lower()) for c in ix.columns)
        name = ix.name or canon[0]
        if not ix.name:
            base, k = name, 2
            while name.lower() in used:
                name, k = f"{base}_{k}", k + 1
        elif name.lower() in used:
            raise mysql_error(1061, name)
        used.add(name.lower())
        final.append(replace(ix, name=name, columns=canon))
    pk = next((ix.columns for ix in final if ix.primary), ())
    cols = [replace(c, nullable=False) if c.name in pk else c for c in cols]
    if (new_schema, new_name) != (old.schema, old.name):
        if not catalog.has_schema(new_schema):
            raise mysql_error(1049, new_schema)
        if catalog.get_table(new_schema, new_name) is not None:
            raise mysql_error(1050, new_name)
    new = replace(old, schema=new_schema, name=new_name, columns=tuple(cols), indexes=tuple(final))
    rebuild_table(ex, old, new, sources)
    return ExecResult(info="Records: 0  Duplicates: 0  Warnings: 0")


_RENAME = re.compile(r"^\s*RENAME\s+TABLES?\s+(.+)$", re.IGNORECASE | re.DOTALL)
_PAIR = re.compile(
    r"^\s*(`(?:[^`]|``)+`|[\w$]+)(?:\.(`(?:[^`]|``)+`|[\w$]+))?\s+TO\s+"
    r"(`(?:[^`]|``)+`|[\w$]+)(?:\.(`(?:[^`]|``)+`|[\w$]+))?\s*$",
    re.IGNORECASE,
)


def _unid(s: str | None) -> str | None:
    if s is None:
        return None
    return s[1:-1].replace("``", "`") if s.startswith("`") else s


def _rename_temporary(ex: Executor, key: tuple[str, str], dst_db: str | None, dst: str) -> None:
    """RENAME TABLE of a temporary table (MySQL 8.0.13+, RM8 "RENAME TABLE Statement"): the session's table changes
    name; a base table of the new name is not a conflict, another temporary one is (1050).

    Raises:
        MySQLError: 1046 without a database; 1050 the session has a temporary table of the new name.
    """
    from gtidkit.engine.sql import temporary

    if dst_db is None:
        raise mysql_error(1046)
    if (dst_db, dst) in ex.temp_tables:
        raise mysql_error(1050, dst)
    t = ex.temp_tables.pop(key)
    ex.run_sqlite(
        f"ALTER TABLE temp.{quote_ident(physical_name(*key))} RENAME TO {quote_ident(physical_name(dst_db, dst))}"
    )
    ex.temp_tables[(dst_db, dst)] = replace(t, schema=dst_db, name=dst)
    temporary.mark_changed(ex)


def rename_schemas(text: str, current_db: str | None) -> list[str]:
    """The schemas (as written, or ``current_db``) of every table ``RENAME TABLE a TO b [, ...]`` names: the
    files it writes (engine/schema_files.py: their locks are taken before the engine write lock). Empty when the
    text is not a RENAME TABLE that :func:`run_rename` would run."""
    m = _RENAME.match(text)
    if not m:
        return []
    out = []
    for pair in m.group(1).split(","):
        p = _PAIR.match(pair)
        if not p:
            return []
        a1, a2, b1, b2 = (_unid(g) for g in p.groups())
        for db in (a1 if a2 else current_db, b1 if b2 else current_db):
            if db is not None:
                out.append(db)
    return out


def run_rename(ex: Executor, text: str, current_db: str | None) -> ExecResult:
    """``RENAME TABLE a TO b [, c TO d ...]`` (pairs applied in order, all or nothing).

    Raises:
        MySQLError: 1046, 1146 (source missing), 1050 (target exists), 1064 malformed.
    """
    from gtidkit.engine.sql.exec_result import ExecResult
    from gtidkit.engine.sql.parse import parse_error

    m = _RENAME.match(text)
    if not m:
        from gtidkit.engine.sql.unsupported import statement_error

        raise statement_error(text)  # RENAME USER: 1235; anything else: 1064
    for pair in m.group(1).split(","):
        p = _PAIR.match(pair)
        if not p:
            raise parse_error(text, text.find(pair.strip()))
        a1, a2, b1, b2 = (_unid(g) for g in p.groups())
        src_db, src = (a1, a2) if a2 else (current_db, a1)
        dst_db, dst = (b1, b2) if b2 else (current_db, b1)
        if (src_db, src) in ex.temp_tables:  # 8.0.13+: RENAME TABLE renames the session's temporary table
            _rename_temporary(ex, (src_db, src), dst_db, dst)  # type: ignore[arg-type]
            continue
        old = ex.storage.catalog.require_table(src_db, src)  # type: ignore[arg-type]
        if dst_db is None:
            raise mysql_error(1046)
        if not ex.storage.catalog.has_schema(dst_db):
            raise mysql_error(1049, dst_db)
        if ex.storage.catalog.get_table(dst_db, dst) is not None:  # type: ignore[arg-type]
            raise mysql_error(1050, dst)
        new = replace(old, schema=dst_db, name=dst)
        rebuild_table(ex, old, new, [c.name for c in old.columns])
    return ExecResult()
