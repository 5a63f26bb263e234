"""SELECT ... INTO OUTFILE / INTO DUMPFILE: a result written to a server file (RM8 15.2.13.1 "SELECT ... INTO").

The clause (kept by :func:`gtidkit.engine.statements.classify.classify` in ``info["into_file"]``, the statement's
text being the SELECT without it)::

    INTO OUTFILE 'file_name' [CHARACTER SET charset_name] [export_options]
    INTO DUMPFILE 'file_name'

What MySQL does (``sql/sql_exchange.cc`` / ``query_result.cc``, ``select_export`` and ``select_dump``):

- the file is created before the query runs: a name without a directory lies in the default database's directory
  of the datadir; it must lie under ``secure_file_priv`` (1290 ``--secure-file-priv``; NULL: nowhere) and must not
  exist (1086 ``File 'name' already exists``); the global FILE privilege is checked by the wire server's authorizer
  (1045, as LOAD DATA INFILE);
- OUTFILE writes each row as LOAD DATA reads it back (the same FIELDS / LINES defaults): fields separated by
  FIELDS TERMINATED BY, each row after LINES STARTING BY and before LINES TERMINATED BY; NULL as ``\\N`` (``NULL``
  without an escape character); ENCLOSED BY around every field (OPTIONALLY: around strings and temporal values
  only, not numbers); the escape character before itself, the enclosure character (or the field terminator's
  first character without an enclosure), the line terminator's first character and NUL (written ``\\0``); an
  enclosure character that is one of the escape letters (``ntrb0ZN``) is doubled instead (mysql-test
  ``loaddata.result``: ``FIELDS ENCLOSED BY 'r'`` writes ``r`` inside a field as ``rr``);
- without CHARACTER SET the values are written as they are stored (no conversion);
- DUMPFILE writes one row's values one after the other, nothing between or after them; a second row is 1172;
- the OK packet's affected rows is the number of rows written.

Not supported: fixed-size rows (FIELDS TERMINATED BY '' and ENCLOSED BY '': 1235); a prepared INTO OUTFILE /
DUMPFILE (1295 at PREPARE).
"""

from __future__ import annotations

import datetime as _dt
import os
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from gtidkit.engine import charsets
from gtidkit.engine.results import StatementResult
from gtidkit.engine.statements.export_options import Parser, parse_charset, parse_export_options
from gtidkit.engine.statements.load_data import secure_file_path
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session
    from gtidkit.engine.statements.classify import Statement

__all__ = ["run_into_file"]

#: READ_INFO's escape letters: an enclosure character among them is doubled, not escaped (it would read back as
#: a control character)
_ESCAPE_LETTERS = b"ntrb0ZN"


def run_into_file(session: Session, stmt: Statement) -> StatementResult:
    """Run a classified SELECT whose ``info["into_file"]`` holds its INTO OUTFILE / DUMPFILE clause.

    Raises:
        MySQLError: 1064 for a malformed clause; 1083 for a two-character ENCLOSED BY / ESCAPED BY; 1290 outside
            secure_file_priv; 1086 an existing file; 1172 a second row for DUMPFILE; what the SELECT raises.
    """
    p = Parser(stmt.info["into_file"])
    p.expect("INTO")
    dump = p.expect("OUTFILE", "DUMPFILE") == "DUMPFILE"
    name = p.string()
    opts: dict[str, Any] = {}
    if not dump:
        parse_charset(p, opts)
        parse_export_options(p, opts)
    if p.peek() is not None:
        raise p.fail()
    if len(opts.get("enclosed", "")) > 1 or len(opts.get("escaped", "\\")) > 1:
        raise mysql_error(1083)
    field_term = opts.get("field_term", "\t")
    enclosed = opts.get("enclosed", "")
    if not dump and not field_term and not enclosed:
        raise mysql_error(
            1235, "SELECT ... INTO OUTFILE with fixed-size rows (empty FIELDS TERMINATED BY and ENCLOSED BY)"
        )
    path = _path(session, name)
    if not secure_file_path(session, path):
        raise mysql_error(1290, "--secure-file-priv")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
    except FileExistsError:
        raise mysql_error(1086, name) from None
    except OSError as err:
        raise mysql_error(1, path, err.errno or 0, os.strerror(err.errno or 0)) from None
    try:
        res = session.run_sql(stmt, writes=False)
        rows = res.rows or []
        if dump:
            if len(rows) > 1:
                raise mysql_error(1172)
            data = b"".join(_bytes(v, None) for v in rows[0] if v is not None) if rows else b""
        else:
            mode = str(session.resolve_sysvar("sql_mode", None)).upper()
            escaped = opts.get("escaped", "\\")
            escape = escaped if (opts.get("escaped_given") or "NO_BACKSLASH_ESCAPES" not in mode) else ""
            data = _export(rows, opts, escape)
        os.write(fd, data)
    except BaseException:
        os.close(fd)
        os.unlink(path)  # MySQL removes the file of a failed statement (select_export::abort_result_set)
        raise
    os.close(fd)
    return StatementResult(affected_rows=len(rows), warnings=res.warnings)


def _path(session: Session, name: str) -> str:
    """Where ``name`` is written: under the datadir's directory of the default database when it names no
    directory, else relative to the datadir (``fn_format`` with ``mysql_real_data_home``), resolved."""
    datadir = str(session.server.globals.get("datadir") or os.getcwd())
    if not os.path.dirname(name):
        return os.path.realpath(os.path.join(datadir, session.current_db or "", name))
    return os.path.realpath(os.path.join(datadir, name))


def _bytes(v: Any, charset: str | None) -> bytes:
    """A value's text as written: bytes as stored, numbers and temporal values in MySQL's text form, strings in
    ``charset`` (UTF-8 as stored without one)."""
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if isinstance(v, bool):
        text = "1" if v else "0"
    elif isinstance(v, float):
        text = str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)
    elif isinstance(v, Decimal):
        text = format(v, "f")
    elif isinstance(v, _dt.datetime):
        text = v.strftime("%Y-%m-%d %H:%M:%S.%f" if v.microsecond else "%Y-%m-%d %H:%M:%S")
    elif isinstance(v, _dt.timedelta):
        text = _time_text(v)
    else:
        text = str(v)
    if charset is None or charset == "binary":
        return text.encode("utf-8", "surrogateescape")
    return charsets.encode(text, charset)


def _time_text(v: _dt.timedelta) -> str:
    neg = v < _dt.timedelta(0)
    v = -v if neg else v
    secs = v.days * 86400 + v.seconds
    text = f"{secs // 3600:02d}:{secs % 3600 // 60:02d}:{secs % 60:02d}"
    if v.microseconds:
        text += f".{v.microseconds:06d}"
    return ("-" if neg else "") + text


def _export(rows: list[tuple[Any, ...]], opts: dict[str, Any], escape: str) -> bytes:
    """The OUTFILE bytes of ``rows`` (see the module docstring for MySQL's rules)."""
    charset = opts.get("charset")
    enc = (opts.get("enclosed") or "").encode()
    term = opts.get("field_term", "\t").encode()
    line_term = opts.get("line_term", "\n").encode()
    line_start = opts.get("line_start", "").encode()
    esc = escape.encode()
    optionally = bool(opts.get("optionally"))
    sep_char = enc[:1] or term[:1]
    ambiguous_sep = bool(sep_char) and sep_char in _ESCAPE_LETTERS
    specials = {c for c in (esc[:1], sep_char, line_term[:1], b"\0") if c}
    null = esc + b"N" if esc else b"NULL"
    out = bytearray()
    for row in rows:
        out += line_start
        for k, v in enumerate(row):
            if k:
                out += term
            if v is None:
                out += null
                continue
            raw = _bytes(v, charset)
            if esc:
                escaped = bytearray()
                for b in raw:
                    ch = bytes((b,))
                    if ch in specials:
                        escaped += sep_char if ch == sep_char and ambiguous_sep else esc
                        escaped += b"0" if ch == b"\0" else ch
                    else:
                        escaped.append(b)
                raw = bytes(escaped)
            number = isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)
            if enc and not (optionally and number):
                out += enc + raw + enc
            else:
                out += raw
        out += line_term
    return bytes(out)
