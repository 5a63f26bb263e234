"""Views: CREATE [OR REPLACE] VIEW, DROP VIEW, SELECT from a view, SHOW CREATE VIEW, information_schema.VIEWS.

Sources: RM8 "CREATE VIEW Statement" (the view's columns are named by the column list or after the SELECT's
items; 1353 ER_VIEW_WRONG_LIST when the list's length differs; 1351 ER_VIEW_SELECT_VARIABLE for a SELECT that
reads variables; 1352 ER_VIEW_SELECT_TMPTABLE for one reading a temporary table; 1050 when the name exists, unless OR REPLACE, which on a base table gives 1347 ER_WRONG_OBJECT),
"DROP VIEW Statement" (1051 ER_BAD_TABLE_ERROR listing the missing views, notes with IF EXISTS; 1347 for a base
table), "SHOW CREATE VIEW Statement" (columns View, Create View, character_set_client, collation_connection),
"The INFORMATION_SCHEMA VIEWS Table"; ``no_binlog_gtid_mode_on``: CREATE VIEW and DROP VIEW are DDL, one GTID each.

How: the SELECT is planned once by the SQL layer (table names resolved to their physical SQLite names, MySQL
functions rewritten) and stored as a SQLite view under the view's physical name, so a SELECT from the view is an
ordinary SELECT from a table; the catalog keeps the view as a :class:`~gtidkit.engine.sql.catalog.TableDef` with
``table_type`` VIEW, its columns (typed as CREATE TABLE ... SELECT would type them) and its definition.

Not done (1235): INSERT / UPDATE / DELETE through a view (MySQL's updatable views), WITH CHECK OPTION, ALTER VIEW;
the stored definition is the SELECT as written, where MySQL stores and shows a rewritten canonical form.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from sqlglot import exp

from gtidkit.engine.sql.catalog import ColumnDef, TableDef
from gtidkit.engine.sql.ddl import not_supported
from gtidkit.engine.sql.exec_result import ExecResult
from gtidkit.engine.storage import physical_name, quote_ident
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.sql.executor import Executor

__all__ = ["create_view", "drop_views"]


def create_view(ex: Executor, tree: exp.Create, text: str, current_db: str | None) -> ExecResult:
    """``CREATE [OR REPLACE] [ALGORITHM=..] [DEFINER=..] [SQL SECURITY ..] VIEW v [(cols)] AS SELECT ...``.

    Raises:
        MySQLError: 1046 / 1049 / 1146 / 1054 resolution errors; 1050 the name exists; 1347 OR REPLACE of a
            base table; 1351 a variable in the SELECT; 1353 a column list of the wrong length; 1235 WITH CHECK
            OPTION or a SELECT that needs per-query values (DATABASE(), VERSION(), a GTID function).
    """
    from gtidkit.engine.sql.create_select import column_from_metadata, select_text
    from gtidkit.engine.sql.metadata import result_columns
    from gtidkit.engine.sql.parse import parse_tree

    target = tree.this
    names: list[str] | None = None
    if isinstance(target, exp.Schema):
        names = [e.name for e in target.expressions]
        target = target.this
    db = target.db or current_db
    if db is None:
        raise mysql_error(1046)
    catalog = ex.storage.catalog
    if not catalog.has_schema(db):
        raise mysql_error(1049, db)
    db = catalog.canonical_schema(db)
    if "WITH CHECK OPTION" in " ".join(text.upper().split()) or "WITH LOCAL CHECK OPTION" in text.upper():
        raise not_supported("CREATE VIEW ... WITH CHECK OPTION")
    query = select_text(text)
    existing = catalog.get_table(db, target.name)
    if existing is not None:
        if not tree.args.get("replace"):
            raise mysql_error(1050, target.name)
        if existing.table_type != "VIEW":
            raise mysql_error(1347, db, target.name, "VIEW")
    select_tree = parse_tree(query)
    storage = ex.storage
    cross_file = False
    for t in select_tree.find_all(exp.Table):
        tdb = t.db or current_db
        if tdb is not None and (catalog.canonical_schema(tdb), t.name) in ex.temp_tables:
            raise mysql_error(1352, t.name)
        # a SQLite view names tables of its own file only (engine/schema_files.py): one reading another file's
        # tables (or such a view) is a TEMP view of every connection instead (Catalog.create_view)
        if tdb is not None and storage.schema_files():
            tschema = catalog.canonical_schema(tdb)
            if storage.qualifier(tschema) != storage.qualifier(db) or (
                physical_name(tschema, t.name) in storage.cross_views()
            ):
                cross_file = True
    if any(True for _ in select_tree.find_all(exp.Parameter, exp.Placeholder)):
        raise mysql_error(1351)
    plan = ex.plan_select(select_tree, db if target.db else current_db, query)
    if not hasattr(plan, "sql"):  # a SELECT without tables (evaluated in Python): literal items only
        items = []
        for item, name in zip(plan.items, plan.columns):
            if not isinstance(item, (exp.Literal, exp.Null, exp.Neg, exp.Boolean)):
                raise not_supported("a view on a SELECT without tables of non-literal items")
            items.append(f"{item.sql(dialect='sqlite')} AS {quote_ident(name)}")
        sqlite_select = "SELECT " + ", ".join(items)
    else:
        if plan.variables:
            raise mysql_error(1351)
        if ":gk" in plan.sql or plan.virtual or plan.needs_threads:
            raise not_supported("a view reading per-query values (DATABASE(), VERSION(), session tables)")
        sqlite_select = plan.sql
    probe = ex.execute_select(query, current_db)
    metadata = result_columns(probe.columns, probe.rows, probe.metadata)
    if names is not None and len(names) != len(probe.columns):
        raise mysql_error(1353)
    columns: list[ColumnDef] = []
    for i, (item_name, meta) in enumerate(zip(probe.columns, metadata)):
        name = names[i] if names is not None else item_name
        src = ex.get_table(meta.schema, meta.org_table) if meta.schema and meta.org_table else None
        col = src.column(meta.org_name) if src is not None and meta.org_name else None
        col = (
            replace(col, name=name, auto_increment=False)
            if col is not None
            else column_from_metadata(name, meta)
        )
        if any(c.name.lower() == name.lower() for c in columns):
            raise mysql_error(1060, name)
        columns.append(col)
    view = TableDef(
        schema=db,
        name=target.name,
        columns=tuple(columns),
        engine="",
        charset="",
        collation="",
        comment="VIEW",
        table_type="VIEW",
        view_definition=query,
    )
    # in its schema's file: a SQLite view names tables of its own file only (engine/schema_files.py)
    cols = ", ".join(quote_ident(c.name) for c in columns)
    if cross_file:
        ddl = f"CREATE TEMP VIEW {quote_ident(physical_name(db, target.name))} ({cols}) AS {sqlite_select}"
    else:
        ddl = f"CREATE VIEW {storage.qualifier(db)}{quote_ident(physical_name(db, target.name))} ({cols}) AS {sqlite_select}"
    catalog.create_view(ex.conn, view, ddl, replace=existing is not None, cross_file=cross_file)
    return ExecResult()


def drop_views(
    ex: Executor, tables: list[exp.Table], current_db: str | None, *, if_exists: bool
) -> ExecResult:
    """``DROP VIEW [IF EXISTS] v [, v2 ...]``.

    Raises:
        MySQLError: 1046 no database; 1347 a base table named; 1051 "Unknown table 'db.v,db.w'" for missing views
            (without IF EXISTS; nothing is dropped then).
    """
    catalog = ex.storage.catalog
    missing = []
    found = []
    for node in tables:
        db = node.db or current_db
        if db is None:
            raise mysql_error(1046)
        t = catalog.get_table(db, node.name)
        if t is None:
            missing.append(f"{db}.{node.name}")
        elif t.table_type != "VIEW":
            raise mysql_error(1347, t.schema, t.name, "VIEW")
        else:
            found.append(t)
    if missing and not if_exists:  # 8.0: nothing is dropped when one is missing (atomic DDL)
        raise mysql_error(1051, ",".join(missing))
    for t in found:
        catalog.drop_table(ex.conn, t.schema, t.name)
    return ExecResult(warnings=[("Note", 1051, f"Unknown table '{m}'") for m in missing])
