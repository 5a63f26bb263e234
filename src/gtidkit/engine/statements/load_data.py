"""LOAD DATA [LOCAL] INFILE: a text file's lines into a table, through the INSERT path.

The statement (RM8 15.2.9 "LOAD DATA Statement")::

    LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file_name'
        [REPLACE | IGNORE] INTO TABLE tbl_name [PARTITION (p, ...)] [CHARACTER SET charset_name]
        [{FIELDS | COLUMNS} [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c'] [ESCAPED BY 'c']]
        [LINES [STARTING BY 's'] [TERMINATED BY 's']]
        [IGNORE n {LINES | ROWS}] [(col_name_or_user_var, ...)] [SET col_name = expr, ...]

What MySQL does, in its order (``sql/sql_load.cc`` ``Sql_cmd_load_table::execute`` / ``execute_inner``):

1. LOCAL while the global ``local_infile`` is OFF or the client did not offer CLIENT_LOCAL_FILES: 3948, before
   anything else. (The privileges, INSERT, INSERT + DELETE for REPLACE, and the global FILE privilege for a server
   file, are checked by the wire server's authorizer before the statement runs: 1142 / 1045.)
2. The table and the column list: 1046 / 1146 / 1054; ENCLOSED BY / ESCAPED BY longer than one character: 1083.
3. The file: LOCAL asks the client for it (the protocol's LOCAL INFILE request, answered by the wire server's
   reader: ``Session.local_infile_reader``); a server file must lie under ``secure_file_priv`` (1290
   ``--secure-file-priv``; NULL refuses every file) and exist (29 File not found).
4. The lines (``READ_INFO``): defaults FIELDS TERMINATED BY '\\t' ENCLOSED BY '' ESCAPED BY '\\\\', LINES
   TERMINATED BY '\\n' STARTING BY ''; ``\\N`` (and an unenclosed ``NULL`` when an enclosure is set) is NULL; the
   escape sequences ``\\0 \\b \\n \\r \\t \\Z``; the first ``IGNORE n LINES`` skipped.
5. Each line's fields go to the listed columns / user variables in order: a NULL into a NOT NULL column is 1263
   (the type's zero value; TIMESTAMP NOT NULL: the current time; AUTO_INCREMENT: the next value), a missing field
   1261 (the column's zero value, NULL for a column whose default is NULL), extra fields 1262, each "at row N"
   where N counts the loaded lines; the SET expressions are evaluated per row with the user variables assigned.
   Strict sql_mode makes these errors unless IGNORE or LOCAL ("the server has no way to stop transmission of the
   file in the middle of the operation": LOCAL implies IGNORE when no REPLACE is given).
6. The rows are written by the INSERT code (:func:`gtidkit.engine.sql.dml.constant_insert_plan`): type
   conversion warnings 1265 / 1366 / 1264 as an INSERT of the same strings, duplicates (error 1062, IGNORE's
   warnings, REPLACE's deletes), AUTO_INCREMENT, GTIDs, the binary log. OK info ``Records: N  Deleted: D
   Skipped: S  Warnings: W`` (ER_LOAD_INFO), affected rows = rows written + rows deleted.

Binary log: under ROW format the rows are rows events, as MySQL writes them. Under STATEMENT (and MIXED) format
MySQL logs the file's bytes in Begin_load_query / Append_block events and the statement as Execute_load_query; here
the statement is logged as the equivalent ``INSERT ... VALUES`` of the rows loaded (README "Known differences").
Not supported: LOAD XML (1235), fixed-row format (FIELDS and ENCLOSED BY both empty: 1235), PARTITION restrictions
(the clause is accepted; rows are not checked against the named partitions).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gtidkit.engine import charsets
from gtidkit.engine.binlog.transaction_events import session_binlog_format
from gtidkit.engine.results import Condition, StatementResult
from gtidkit.engine.sql.parse import unquote_string
from gtidkit.engine.statements.classify import Statement, StatementKind, is_load_data_local
from gtidkit.engine.statements.export_options import Parser, parse_charset, parse_export_options
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.sql.catalog import ColumnDef, TableDef

__all__ = ["LoadData", "local_infile_error", "parse_load_data", "run_load_data", "split_lines"]


def local_infile_error(session: Session, text: str) -> MySQLError | None:
    """3948 for a LOAD DATA / XML LOCAL statement while the global ``local_infile`` is OFF or the client cannot
    send files (no reader: it did not offer CLIENT_LOCAL_FILES), else None."""
    if not is_load_data_local(text):
        return None
    if session.server.globals.values["local_infile"] and session.local_infile_reader is not None:
        return None
    return mysql_error(3948)


@dataclass(frozen=True, slots=True)
class LoadData:
    """One parsed LOAD DATA statement.

    Attributes:
        local: LOCAL (the client sends the file).
        file_name: the file as written (client path for LOCAL, server path otherwise).
        duplicates: ``error`` (neither keyword), ``replace`` or ``ignore``.
        schema: the table's database as written, or None; ``table``: its name.
        charset: CHARACTER SET, or None (``character_set_database``).
        field_term / enclosed / escaped / line_start / line_term: the FIELDS / LINES strings (MySQL's defaults
            when not given); ``optionally``: OPTIONALLY ENCLOSED (reading is the same).
        escaped_given: ESCAPED BY was written (under NO_BACKSLASH_ESCAPES the default escape is off).
        skip_lines: IGNORE n LINES.
        targets: the column list, each ``("col", name)`` or ``("var", name)``; empty: every visible column.
        assignments: the SET list as (column, expression text).
    """

    local: bool
    file_name: str
    duplicates: str
    schema: str | None
    table: str
    charset: str | None = None
    field_term: str = "\t"
    enclosed: str = ""
    optionally: bool = False
    escaped: str = "\\"
    escaped_given: bool = False
    line_start: str = ""
    line_term: str = "\n"
    skip_lines: int = 0
    targets: tuple[tuple[str, str], ...] = ()
    assignments: tuple[tuple[str, str], ...] = ()


def parse_load_data(text: str) -> LoadData:
    """Parse a LOAD DATA statement (comment-stripped text, as classified).

    Raises:
        MySQLError: 1064 for text MySQL's grammar rejects; 1235 for LOAD XML.
    """
    p = Parser(text)
    p.expect("LOAD")
    if p.word("XML"):
        raise mysql_error(1235, "LOAD XML")
    p.expect("DATA")
    p.word("LOW_PRIORITY", "CONCURRENT")
    local = p.word("LOCAL") is not None
    p.expect("INFILE")
    file_name = p.string()
    dup = p.word("REPLACE", "IGNORE")
    duplicates = dup.lower() if dup else "error"
    p.expect("INTO")
    p.expect("TABLE")
    schema = None
    table = p.name()
    if p.sym("."):
        schema, table = table, p.name()
    fields: dict[str, Any] = {}
    if p.word("PARTITION"):
        if not p.sym("("):
            raise p.fail()
        p.name()
        while p.sym(","):
            p.name()
        if not p.sym(")"):
            raise p.fail()
    parse_charset(p, fields)
    parse_export_options(p, fields)
    if p.word("IGNORE"):
        t = p.peek()
        if t is None or t.kind != "word" or not t.text.isdigit():
            raise p.fail()
        p.i += 1
        fields["skip_lines"] = int(t.text)
        p.expect("LINES", "ROWS")
    targets: list[tuple[str, str]] = []
    if p.sym("(") and not p.sym(")"):
        while True:
            t = p.peek()
            if t is not None and t.kind == "var":
                p.i += 1
                targets.append(("var", _var_name(t.text)))
            else:
                targets.append(("col", _column_name(p)))
            if p.sym(")"):
                break
            if not p.sym(","):
                raise p.fail()
    assignments: list[tuple[str, str]] = []
    if p.word("SET"):
        assignments = _assignments(p)
    if p.peek() is not None:
        raise p.fail()
    for key in ("enclosed", "escaped"):
        if len(fields.get(key, "")) > 1:
            raise mysql_error(1083)
    return LoadData(local, file_name, duplicates, schema, table, targets=tuple(targets),
                    assignments=tuple(assignments), **fields)  # fmt: skip


def _var_name(tok: str) -> str:
    body = tok[1:]
    if body[:1] == "`":
        return body[1:-1].replace("``", "`").lower()
    if body[:1] in "'\"":
        return unquote_string(body).lower()
    return body.lower()


def _column_name(p: Parser) -> str:
    name = p.name()
    while p.sym("."):  # t.col / db.t.col: the last part names the column
        name = p.name()
    return name


def _assignments(p: Parser) -> list[tuple[str, str]]:
    """``col = expr, ...`` of the SET clause: each expression's text up to the next comma outside parentheses."""
    out: list[tuple[str, str]] = []
    while True:
        col = _column_name(p)
        if not (p.sym("=") or (p.sym(":") and p.sym("="))):
            raise p.fail()
        start = p.peek()
        if start is None:
            raise p.fail()
        depth = 0
        end = len(p.text)
        while True:
            t = p.peek()
            if t is None:
                break
            if t.kind == "sym" and t.text == "(":
                depth += 1
            elif t.kind == "sym" and t.text == ")":
                depth -= 1
            elif t.kind == "sym" and t.text == "," and depth == 0:
                end = t.start
                break
            p.i += 1
        expr = p.text[start.start : end].strip()
        if not expr:
            raise p.fail()
        out.append((col, expr))
        if not p.sym(","):
            return out


# ---------------------------------------------------------------- reading lines ------------------------------------
#: READ_INFO::unescape: the character after the escape character -> what it stands for (others: themselves)
_UNESCAPE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "0": "\0", "Z": "\x1a"}


def split_lines(data: str, ld: LoadData, escape: str) -> list[list[str | None]]:
    """The lines of ``data`` as MySQL's ``READ_INFO`` reads them, each a list of its fields (None for NULL: ``\\N``
    unenclosed, or an unenclosed ``NULL`` when FIELDS ENCLOSED BY is set).

    ``escape`` is the escape character in force ("" for none). The first ``ld.skip_lines`` lines are dropped; with
    LINES STARTING BY, text before the prefix is skipped and a line without it is no line. A last line without its
    terminator is a line; nothing after the last terminator is no line. The text is searched from one special
    string (escape, terminators, enclosure) to the next, not read character by character.
    """
    start = ld.line_start
    scan = _Scanner(ld.field_term, ld.line_term, ld.enclosed, escape)
    n = len(data)
    pos = 0
    lines: list[list[str | None]] = []
    skip = ld.skip_lines
    while pos < n:
        if start:
            k = data.find(start, pos)
            if k < 0:
                break
            pos = k + len(start)
        fields: list[str | None] = []
        ended = False
        while not ended:
            value, pos, ended = scan.field(data, pos)
            fields.append(value)
        if skip:
            skip -= 1
            continue
        lines.append(fields)
    return lines


class _Scanner:
    """Reads one field at a time (``READ_INFO::read_field``) with two searches: outside an enclosure for the
    escape character or a terminator, inside one for the escape character or the enclosure."""

    def __init__(self, term: str, lterm: str, enc: str, escape: str) -> None:
        self.term = term
        self.lterm = lterm
        self.enc = enc
        self.escape = escape
        esc = [f"{re.escape(escape)}(.)"] if escape else []
        self.plain = re.compile("|".join([*esc, *(re.escape(t) for t in (term, lterm) if t)]), re.DOTALL)
        self.inside = re.compile("|".join([*esc, re.escape(enc)]), re.DOTALL) if enc else None

    def field(self, data: str, pos: int) -> tuple[str | None, int, bool]:
        """(the field's value or None for NULL, the position after it and its terminator, the line ended)."""
        enc = self.enc
        if enc and data.startswith(enc, pos):
            return self._enclosed(data, pos + len(enc))
        out: list[str] = []
        first = pos
        while True:
            m = self.plain.search(data, pos)
            if m is None:
                out.append(data[pos:])
                return self._plain_value(out, data, first, len(data)), len(data), True
            out.append(data[pos : m.start()])
            escaped = m.group(1) if self.escape else None
            if escaped is not None:
                out.append(_UNESCAPE.get(escaped, escaped))
                pos = m.end()
                continue
            ended = not (self.term and m.group() == self.term)  # else the line terminator
            return self._plain_value(out, data, first, m.start()), m.end(), ended

    def _plain_value(self, out: list[str], data: str, first: int, end: int) -> str | None:
        raw = data[first:end]
        if self.escape and raw == self.escape + "N":
            return None  # \N
        if self.enc and raw == "NULL":
            return None  # NULL unenclosed, with an enclosure set
        return "".join(out)

    def _enclosed(self, data: str, pos: int) -> tuple[str | None, int, bool]:
        enc, term, lterm = self.enc, self.term, self.lterm
        assert self.inside is not None
        out: list[str] = []
        n = len(data)
        while True:
            m = self.inside.search(data, pos)
            if m is None:  # no closing enclosure: MySQL reads the enclosure character as data
                out.append(data[pos:])
                return enc + "".join(out), n, True
            out.append(data[pos : m.start()])
            escaped = m.group(1) if self.escape else None
            if escaped is not None:
                out.append(_UNESCAPE.get(escaped, escaped))
                pos = m.end()
                continue
            after = m.end()
            if data.startswith(enc, after):  # a doubled enclosure character is one character
                out.append(enc)
                pos = after + len(enc)
                continue
            if term and data.startswith(term, after):
                return "".join(out), after + len(term), False
            if lterm and data.startswith(lterm, after):
                return "".join(out), after + len(lterm), True
            if after >= n:
                return "".join(out), after, True
            out.append(enc)  # an enclosure character inside the field
            pos = after


# ---------------------------------------------------------------- the statement ------------------------------------
def _read_server_file(session: Session, ld: LoadData, schema: str) -> bytes:
    """The bytes of a server-side file: relative names are under the datadir's database directory (``fn_format``
    with ``mysql_real_data_home`` + the table's database), limited by ``secure_file_priv``.

    Raises:
        MySQLError: 1290 outside ``secure_file_priv`` (or while it is NULL); 29 no such file; 1085 not a regular
            file.
    """
    datadir = str(session.server.globals.get("datadir") or os.getcwd())
    name = ld.file_name
    path = os.path.join(datadir, schema, name) if not os.path.dirname(name) else os.path.join(datadir, name)
    path = os.path.realpath(path)
    if not secure_file_path(session, path):
        raise mysql_error(1290, "--secure-file-priv")
    try:
        st = os.stat(path)
    except OSError as err:
        raise mysql_error(29, path, err.errno or 2, os.strerror(err.errno or 2)) from None
    import stat as _stat

    if not (_stat.S_ISREG(st.st_mode) or _stat.S_ISFIFO(st.st_mode)):
        raise mysql_error(1085, path)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as err:
        raise mysql_error(29, path, err.errno or 2, os.strerror(err.errno or 2)) from None


def secure_file_path(session: Session, path: str) -> bool:
    """``is_secure_file_path``: ``path`` (absolute, resolved) may be read or written by LOAD DATA / SELECT ... INTO
    OUTFILE: ``secure_file_priv`` is empty (no limit), or ``path`` lies under it; NULL allows nothing."""
    priv = session.server.globals.get("secure_file_priv")
    if priv is None or str(priv).upper() == "NULL":
        return False
    if priv == "":
        return True
    root = os.path.realpath(str(priv))
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def check_load_data(session: Session, stmt: Statement) -> None:
    """LOAD DATA's syntax check (the parser's 1064, before anything happens), and what it writes for the
    lifecycle's read_only / READ ONLY transaction checks: ``stmt.info["load"]`` (the parsed clauses) and
    ``stmt.info["write_target"]`` (an INSERT into its table, when a database is known).

    Raises:
        MySQLError: 1064 for a statement that does not parse.
    """
    from gtidkit.engine.statements.classify import classify

    ld = parse_load_data(stmt.text)
    stmt.info["load"] = ld
    db = ld.schema or session.current_db
    stmt.info["write_target"] = (
        classify(f"INSERT INTO {_qid(db)}.{_qid(ld.table)} () VALUES ()") if db is not None else None
    )


def run_load_data(session: Session, stmt: Statement) -> StatementResult:
    """Run a classified LOAD DATA statement (see the module docstring for MySQL's order of checks); its
    lifecycle (GTID checks, 1290 / 1792, the autocommit) is the dispatcher's, its spec a DML statement's.

    Raises:
        MySQLError: 3948, 1064, 1046, 1146, 1054, 1083, 1290, 29, 1261 / 1262 / 1263 / 1366 ... in strict mode,
            1062.
    """
    ld = stmt.info.get("load") or parse_load_data(stmt.text)
    refused = local_infile_error(session, stmt.text) if ld.local else None
    if refused is not None:  # Sql_cmd_load_table::execute: before the table is opened or the file asked for
        raise refused
    return _load(session, ld, stmt.text)


def _fetch_local(session: Session, ld: LoadData) -> bytes:
    """The client's file (the LOCAL INFILE request through the session's reader).

    Raises:
        MySQLError: 3948 without a reader; what the reader raises (2013 when the client went away).
    """
    reader = session.local_infile_reader
    if reader is None:
        raise mysql_error(3948)
    return bytes(reader(ld.file_name))


def _load(session: Session, ld: LoadData, stmt_text: str) -> StatementResult:
    from gtidkit.engine.sql.dml import check_target, constant_insert_plan
    from gtidkit.engine.statements import locks
    from gtidkit.engine.statements.classify import classify

    ex = session.executor
    db = ld.schema or session.current_db
    tdef = ex.require_table(db, ld.table)
    check_target(tdef)  # a view: 1235, as INSERT through one
    probe = classify(f"INSERT INTO {_qid(tdef.schema)}.{_qid(tdef.name)} () VALUES ()")
    if session.server.table_locks.active:
        locks.check_statement(session, "dml", probe.text)
    items, set_cols = _targets(tdef, ld)
    if not ld.field_term and not ld.enclosed:
        raise mysql_error(1235, "LOAD DATA with fixed-size rows (empty FIELDS TERMINATED BY and ENCLOSED BY)")
    # only now is the file asked for (net_request_file after the table checks); errors before it leave the
    # client's file unread, as MySQL never asks for it then
    data = _fetch_local(session, ld) if ld.local else _read_server_file(session, ld, tdef.schema)
    cs = ld.charset or str(session.resolve_sysvar("character_set_database", None) or "utf8mb4")
    try:
        text = charsets.decode(data, cs)  # binary: the bytes as they are (UTF-8 text stays UTF-8)
    except MySQLError:
        raise mysql_error(1115, cs) from None
    mode = str(session.resolve_sysvar("sql_mode", None)).upper()
    escape = ld.escaped if (ld.escaped_given or "NO_BACKSLASH_ESCAPES" not in mode) else ""
    ignore = ld.duplicates == "ignore" or (ld.local and ld.duplicates == "error")
    strict = ("STRICT_TRANS_TABLES" in mode or "STRICT_ALL_TABLES" in mode) and not ignore
    lines = split_lines(text, ld, escape)
    warnings: list[tuple[str, int, str]] = []
    # the listed columns, then the SET ones; a SET of a listed column replaces its field (fill_record runs last)
    target = tuple(dict.fromkeys([i for kind, i in items if kind == "col"] + [i for i, _ in set_cols]))
    slots = {col: k for k, col in enumerate(target)}
    rows: list[tuple[Any, ...]] = []
    set_select = _set_select(ex, tdef, items, set_cols) if set_cols else None
    for row_no, fields in enumerate(lines, 1):
        values: list[Any] = []
        for k, (kind, ref) in enumerate(items):
            if k < len(fields):
                v = fields[k]
                if kind == "var":
                    session.user_vars[ref] = v
                    continue
                col = tdef.columns[ref]
                value: Any = v
                if v is None and not col.nullable and not col.auto_increment:
                    if col.type == "timestamp":
                        value = ex.now()
                    else:
                        _warn(warnings, strict, mysql_error(1263, col.name, row_no))
                        value = _zero(col)
                values.append(value)
                continue
            if kind == "var":
                session.user_vars[ref] = None
                continue
            col = tdef.columns[ref]
            _warn(warnings, strict, mysql_error(1261, row_no))
            if col.type == "timestamp" and not col.nullable:
                values.append(ex.now())
            elif col.nullable and (not col.has_default or col.default is None) and not col.auto_increment:
                values.append(None)
            else:
                values.append(0 if col.auto_increment else _zero(col))
        if len(fields) > len(items):
            _warn(warnings, strict, mysql_error(1262, row_no))
        if set_select is not None:
            assigned = _evaluate_set(session, set_select, tdef, items, values)
            values.extend([None] * (len(target) - len(values)))
            for (idx, _), v in zip(set_cols, assigned):
                values[slots[idx]] = v
        rows.append(tuple(values))
    mode_name = "replace" if ld.duplicates == "replace" else ("ignore" if ignore else "insert")
    plan = constant_insert_plan(tdef, target, rows, mode_name)
    # STATEMENT / MIXED format logs the statement as the INSERT of its rows; ROW format logs rows, and a Rows_query
    # event (binlog_rows_query_log_events) shows the statement as sent, as MySQL's does
    if session_binlog_format(session.server, session) == "ROW":
        insert_text = stmt_text
    else:
        insert_text = _insert_text(tdef, target, rows, mode_name)
    ins = Statement(StatementKind("dml"), insert_text, {"plan": plan})
    if not rows:
        res = StatementResult()
    else:
        if session.executor.storage.has_file(tdef.schema):
            # its schema's own file (engine/schema_files.py): that file's lock, the engine write lock at COMMIT
            session.ensure_write_trx(files_only=True)
            session.lock_schema_files([tdef.schema])
        else:
            session.ensure_write_trx()
        res = session.run_sql(ins, writes=True)
    deleted, copied = _counts(res, len(rows), mode_name)
    store = session.executor.dml_store
    duplicates = list(store.duplicate_rows) if rows and store is not None else []
    conditions = _in_row_order([Condition(*w) for w in warnings], list(res.warnings), duplicates)
    info = mysql_error(1087, len(rows), deleted, len(rows) - copied, len(conditions)).message
    return dataclasses.replace(res, warnings=conditions, info=info, affected_rows=copied + deleted)


def _counts(res: StatementResult, records: int, mode: str) -> tuple[int, int]:
    """(rows deleted, rows written) of the INSERT that loaded ``records`` rows: REPLACE deleted one row per
    duplicate (affected = written + deleted); IGNORE skipped the duplicates."""
    affected = int(res.affected_rows or 0)
    if mode == "replace":
        return affected - records, records
    return 0, affected


#: where in a row's handling ``read_sep_field`` raises each LOAD condition: the fields' conversions as they are
#: stored, 1261 for the missing ones, the NOT NULL check (1263) before ``write_record`` (1062), 1262 after it
_PHASE = {1261: 1, 1263: 2, 1062: 3, 1262: 4}
_ROW_OF = re.compile(r"(?:at row|^Row) (\d+)")


def _in_row_order(
    load: list[Condition], written: list[Condition], duplicate_rows: list[int]
) -> tuple[Condition, ...]:
    """The load's own conditions and the INSERT's merged as MySQL raises them, row by row (see :data:`_PHASE`); the
    INSERT's 1062 warnings name no row: ``duplicate_rows`` gives theirs, in order (any other condition without a
    row number belongs to the row of the one before it)."""
    keyed: list[tuple[int, int, int, Condition]] = []
    dups = iter(duplicate_rows)
    row = 0
    for seq, c in enumerate(load + written):
        if seq == len(load):
            row = 0
        m = _ROW_OF.search(c.message)
        if m is not None:
            row = int(m.group(1))
        elif c.code == 1062 and seq >= len(load):
            row = next(dups, row)
        keyed.append((row, _PHASE.get(c.code, 0), seq, c))
    return tuple(k[3] for k in sorted(keyed, key=lambda k: k[:3]))


def _warn(warnings: list[tuple[str, int, str]], strict: bool, err: MySQLError) -> None:
    """A LOAD DATA condition: an error in strict mode without IGNORE / LOCAL, else a warning."""
    if strict:
        raise err
    warnings.append(("Warning", err.code, err.message))


def _zero(col: ColumnDef) -> Any:
    """``Field::reset``: the type's zero value (0, '', the zero date)."""
    from gtidkit.engine.sql.values import implicit_default

    return implicit_default(col)


def _targets(tdef: TableDef, ld: LoadData) -> tuple[list[tuple[str, Any]], list[tuple[int, str]]]:
    """The items fields go to, ``("col", column index)`` / ``("var", name)``, and the SET columns with their
    expressions.

    Raises:
        MySQLError: 1054 unknown column; 1110 a column listed twice.
    """
    items: list[tuple[str, Any]] = []
    if not ld.targets:
        items = [("col", i) for i, c in enumerate(tdef.columns) if not c.invisible]
    else:
        for kind, name in ld.targets:
            if kind == "var":
                items.append(("var", name))
                continue
            idx = tdef.column_index(name)
            if idx < 0:
                raise mysql_error(1054, name, "field list")
            if ("col", idx) in items:
                raise mysql_error(1110, tdef.columns[idx].name)
            items.append(("col", idx))
    set_cols: list[tuple[int, str]] = []
    for name, expr in ld.assignments:
        idx = tdef.column_index(name)
        if idx < 0:
            raise mysql_error(1054, name, "field list")
        if any(i == idx for i, _ in set_cols):
            raise mysql_error(1110, tdef.columns[idx].name)
        set_cols.append((idx, expr))
    return items, set_cols


#: user variable holding the loaded value of column i while the SET expressions are evaluated
_COLUMN_VAR = "__gk_load_col{}"


def _set_select(
    ex: Any, tdef: TableDef, items: list[tuple[str, Any]], set_cols: list[tuple[int, str]]
) -> str:
    """``SELECT expr, ...`` of the SET expressions, their column references read from user variables that hold the
    row's loaded values (MySQL evaluates them against the row being filled, ``fill_record``).

    Raises:
        MySQLError: 1064 for an expression that does not parse; 1054 for an unknown column.
    """
    from sqlglot import exp

    from gtidkit.engine.sql.parse import parse_tree

    text = "SELECT " + ", ".join(expr for _, expr in set_cols)
    tree = parse_tree(text)
    for col in list(tree.find_all(exp.Column)):
        if col.find_ancestor(exp.Select) is not tree:
            continue  # a subquery's own columns
        idx = tdef.column_index(col.name)
        if idx < 0:
            raise mysql_error(1054, col.name, "field list")
        col.replace(exp.Parameter(this=exp.Var(this=_COLUMN_VAR.format(idx))))
    return tree.sql(dialect="mysql")


def _evaluate_set(
    session: Session, select: str, tdef: TableDef, items: list[tuple[str, Any]], values: list[Any]
) -> tuple[Any, ...]:
    """The SET expressions' values for one row (its user variables already assigned)."""
    cols = [i for kind, i in items if kind == "col"]
    for i, v in zip(cols, values):
        session.user_vars[_COLUMN_VAR.format(i)] = v
    try:
        er = session.executor.execute_select(select, session.current_db)
    finally:
        for i in cols:
            session.user_vars.pop(_COLUMN_VAR.format(i), None)
    row = (er.rows or [()])[0]
    return tuple(row)


def _qid(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _literal(v: Any) -> str:
    """``v`` as a SQL literal that reads back the same under any sql_mode (no backslashes: strings holding one or a
    control character are written as hexadecimal with an introducer)."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, Decimal)):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (bytes, bytearray)):
        return "X'" + bytes(v).hex() + "'" if v else "''"
    if isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
        return "'" + str(v) + "'"
    s = str(v)
    if "\\" in s or any(ord(ch) < 32 for ch in s):
        return "_utf8mb4 X'" + s.encode("utf-8", "surrogateescape").hex() + "'"
    return "'" + s.replace("'", "''") + "'"


def _insert_text(tdef: TableDef, target: tuple[int, ...], rows: list[tuple[Any, ...]], mode: str) -> str:
    """The INSERT equivalent to the load (what STATEMENT format logs in place of MySQL's Execute_load_query)."""
    verb = {"replace": "REPLACE", "ignore": "INSERT IGNORE"}.get(mode, "INSERT")
    cols = ", ".join(_qid(tdef.columns[i].name) for i in target)
    values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in rows)
    return f"{verb} INTO {_qid(tdef.schema)}.{_qid(tdef.name)} ({cols}) VALUES {values or '()'}"
