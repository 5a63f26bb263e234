"""`gtidkit binlog` subcommands: show (reader) and generate (generator).

``gtidkit binlog show`` prints a mysqlbinlog-like listing (formats.md §8.5: ``# at <pos>``, the
``#yymmdd hh:mm:ss server id N  end_log_pos M CRC32 0x…`` header line, ``# Previous-GTIDs``, ``GTID
last_committed=… sequence_number=…``, ``SET @@SESSION.GTID_NEXT= '…'/*!*/;``) or, with ``--json``, one JSON
object per event (or per transaction). Times print in UTC (mysqlbinlog uses the local time zone). A file that
cannot be read to the end prints its events up to the fault, then (on stderr; with ``--json`` also as an error
entry on stdout) what failed and at which offset, and the command exits with status 2 after the remaining files. A
missing file is reported as mysqlbinlog does: ``File 'x' not found (OS errno 2 - No such file or directory)``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

import click

from gtidkit.binlog import (
    BinlogDecodeError,
    ChecksumAlg,
    EventType,
    FormatDescriptionEvent,
    GtidEvent,
    PositionedEvent,
    PreviousGtidsEvent,
    QueryEvent,
    RotateEvent,
    RowsEvent,
    RowsQueryEvent,
    StopEvent,
    TableMapEvent,
    Transaction,
    TransactionPayloadEvent,
    UnknownEvent,
    XidEvent,
    event_type_name,
    iter_transactions,
    json_binary,
    read_events,
    text,
)
from gtidkit.binlog.codec import decode_event
from gtidkit.binlog.constants import LOG_EVENT_BINLOG_IN_USE_F
from gtidkit.binlog.file import READ_CHUNK, FrameReader, decode_frame
from gtidkit.binlog.json_diff import JsonDiffs
from gtidkit.binlog.mysqlbinlog import Base64Output, ScriptError, ScriptOptions, ScriptPrinter
from gtidkit.binlog.row_image import ColumnSpec, column_specs, decode_rows
from gtidkit.cli.binlog_generate import generate
from gtidkit.cli.binlog_remote import (
    FollowStopped,
    open_store_output,
    remote_options,
    remote_requested,
    run_remote,
)
from gtidkit.cli.binlog_script import FileRange, LiveScript, following_binlogs, parse_datetime, write_script
from gtidkit.cli.interrupt import set_incomplete
from gtidkit.errors import GtidParseError
from gtidkit.gtid import GtidSet
from gtidkit.mysql_errors import EE_FILENOTFOUND, EE_READ
from gtidkit.pipeline.storage import is_remote

try:  # the compiled hot loop of --json (setup.py builds it; optional)
    import gtidkit.binlog._jsonfast as _jsonfast  # noqa: PLR0402 - mypy finds the .pyi stub this way
except ImportError:  # pragma: no cover - no C compiler at install time
    _jsonfast = None  # type: ignore[assignment]

#: True when ``--json`` uses the compiled loop (``binlog/_jsonfast.c``): installed and not turned off by
#: ``GTIDKIT_PURE_PYTHON=1`` (the pure-Python loop writes the same bytes: tests/binlog/test_jsonfast.py).
JSON_COMPILED = _jsonfast is not None and os.environ.get("GTIDKIT_PURE_PYTHON", "") in ("", "0")


@click.group("binlog")
def binlog() -> None:
    """Read and write MySQL binary logs."""


# ---------------------------------------------------------------------------------------------------------------
# Filtering (mysqlbinlog --include-gtids / --exclude-gtids)
# ---------------------------------------------------------------------------------------------------------------


class GtidFilter:
    """mysqlbinlog's GTID filter: a transaction is shown when its GTID is in ``include`` (if given) and not in
    ``exclude``. Anonymous transactions are hidden by ``--include-gtids`` and kept by ``--exclude-gtids``.
    Events outside transactions (FDE, Previous_gtids, Rotate, Stop) are always shown.
    """

    def __init__(self, include: GtidSet | None, exclude: GtidSet | None) -> None:
        self.include = include
        self.exclude = exclude
        self.skipping = False

    @property
    def active(self) -> bool:
        """True when a filter was given."""
        return self.include is not None or self.exclude is not None

    def wants(self, gtid: Any) -> bool:
        """Whether a transaction with ``gtid`` (``None`` = anonymous) is shown."""
        if gtid is None:
            return self.include is None
        if self.include is not None and gtid not in self.include:
            return False
        return not (self.exclude is not None and gtid in self.exclude)

    def event(self, pe: PositionedEvent) -> bool:
        """Whether to show this event (tracks the transaction the event belongs to)."""
        if not self.active:
            return True
        ev = pe.event
        if isinstance(ev, GtidEvent):
            self.skipping = not self.wants(ev.gtid)
        elif isinstance(ev, (FormatDescriptionEvent, PreviousGtidsEvent, RotateEvent, StopEvent)):
            self.skipping = False
        return not self.skipping


# ---------------------------------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------------------------------


def _gtid_text(ev: GtidEvent) -> str:
    return "ANONYMOUS" if ev.gtid is None else str(ev.gtid)


def _value_json(v: Any) -> Any:
    """A row value as JSON: numbers and text as they are, DECIMAL as its exact text in plain digits (MySQL's
    ``decimal2string``: ``-0.0000000123``, never exponent notation), string columns as text when
    they are UTF-8 (else ``{"hex": ...}``), JSON columns as the document, partial JSON updates as their diffs."""
    t = type(v)
    if t is int or t is str or t is float or v is None or isinstance(v, (int, float, str)):
        return v
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return {"hex": v.hex()}
    if isinstance(v, Decimal):  # MySQL's text of a DECIMAL: plain digits (str() would give 1.2E-8)
        return format(v, "f")
    if isinstance(v, (bytes, bytearray)):
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            return {"hex": bytes(v).hex()}
    if isinstance(v, JsonDiffs):
        return {"json_diffs": [{"op": d.operation, "path": d.path} for d in v.diffs]}
    return str(v)


_JSON_TYPE = 245


def _json_doc(raw: bytes) -> Any:
    """A JSON column's binary document as a JSON value (opaque scalars as MySQL's text of them)."""

    def plain(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        if isinstance(v, json_binary.JsonOpaque):
            return json_binary.temporal_text(v) or str(v)
        return _value_json(v)

    try:
        return plain(json_binary.decode(raw))
    except BinlogDecodeError:
        return {"hex": raw.hex()}


def _row_json(image: tuple[Any, ...], types: tuple[int, ...]) -> list[Any]:
    return [
        _json_doc(v) if t == _JSON_TYPE and isinstance(v, (bytes, bytearray)) else _value_json(v)
        for v, t in zip(image, types)
    ]


def event_json(
    pe: PositionedEvent, table_map: TableMapEvent | None = None, specs: Sequence[ColumnSpec] | None = None
) -> dict[str, Any]:
    """The JSON object of one event (``--json``).

    Args:
        pe: the event.
        table_map: for a rows event, the Table_map of its table id: its rows are then decoded into ``rows``
            (``[{"before": [...], "after": [...]}]``, column values in table order, ``null`` for NULL or a
            column not in the image), with ``database`` and ``table``.
        specs: ``column_specs(table_map)``, when the caller keeps them per Table_map.
    """
    h = pe.header
    out: dict[str, Any] = {
        "file": pe.file,
        "pos": pe.pos,
        "end_pos": pe.end_pos,
        "type": event_type_name(h.type_code),
        "type_code": h.type_code,
        "timestamp": h.timestamp,
        "server_id": h.server_id,
        "event_size": h.event_size,
        "log_pos": h.log_pos,
        "flags": h.flags,
        "in_payload": pe.in_payload,
    }
    if pe.checksum is not None:
        out["crc32"] = f"0x{pe.checksum:08x}"
    ev = pe.event
    if isinstance(ev, FormatDescriptionEvent):
        out.update(
            server_version=ev.server_version,
            binlog_version=ev.binlog_version,
            checksum_alg=_alg_name(ev.checksum_alg),
            create_timestamp=ev.create_timestamp,
            in_use=bool(h.flags & LOG_EVENT_BINLOG_IN_USE_F),
        )
    elif isinstance(ev, PreviousGtidsEvent):
        out["gtids"] = str(ev.gtids)
    elif isinstance(ev, GtidEvent):
        out.update(
            gtid=_gtid_text(ev),
            last_committed=ev.last_committed,
            sequence_number=ev.sequence_number,
            rbr_only=not ev.may_have_sbr,
            immediate_commit_timestamp=ev.immediate_commit_timestamp,
            original_commit_timestamp=ev.original_commit_timestamp,
            transaction_length=ev.transaction_length,
            immediate_server_version=ev.immediate_server_version,
            original_server_version=ev.original_server_version,
        )
    elif isinstance(ev, QueryEvent):
        out.update(
            thread_id=ev.thread_id,
            exec_time=ev.exec_time,
            error_code=ev.error_code,
            database=ev.database,
            query=ev.query,
        )
    elif isinstance(ev, XidEvent):
        out["xid"] = ev.xid
    elif isinstance(ev, RotateEvent):
        out.update(next_file=ev.next_file, position=ev.position)
    elif isinstance(ev, TableMapEvent):
        out.update(
            table_id=ev.table_id,
            database=ev.database,
            table=ev.table,
            column_count=ev.column_count,
            column_types=list(ev.column_types),
        )
        names = _table_shape(ev)[1]
        if names is not None:
            out["columns"] = list(names)
    elif isinstance(ev, RowsEvent):
        out.update(table_id=ev.table_id, rows_flags=ev.flags, column_count=ev.column_count)
        if table_map is not None:
            out.update(database=table_map.database, table=table_map.table)
            types = tuple(table_map.column_types)
            try:
                out["rows"] = [
                    {k: _row_json(v, types) for k, v in (("before", b), ("after", a)) if v is not None}
                    for b, a in decode_rows(table_map, ev, specs)
                ]
            except BinlogDecodeError as err:  # the listing goes on; the entry says why it has no values
                out["rows_error"] = err.message
    elif isinstance(ev, TransactionPayloadEvent):
        out.update(
            compression_type=ev.compression_type,
            uncompressed_size=ev.uncompressed_size,
            payload_size=len(ev.payload),
        )
    elif isinstance(ev, RowsQueryEvent):
        out["query"] = ev.query
    elif isinstance(ev, UnknownEvent):
        out["body_size"] = len(ev.body)
    return out


def _alg_name(alg: int) -> str:
    try:
        return ChecksumAlg(alg).name
    except ValueError:
        return str(alg)


def transaction_json(trx: Transaction) -> dict[str, Any]:
    """The JSON object of one transaction (``--json --per-transaction``)."""
    return {
        "file": trx.file,
        "begin_pos": trx.begin_pos,
        "end_pos": trx.end_pos,
        "gtid": None if trx.gtid is None else str(trx.gtid),
        "anonymous": trx.anonymous,
        "last_committed": trx.last_committed,
        "sequence_number": trx.sequence_number,
        "timestamp": trx.timestamp,
        "immediate_commit_timestamp": trx.immediate_commit_timestamp,
        "original_commit_timestamp": trx.original_commit_timestamp,
        "transaction_length": trx.transaction_length,
        "bytes": trx.bytes,
        "event_count": trx.event_count,
        "databases": list(trx.databases),
        "server_id": trx.server_id,
        "complete": trx.complete,
    }


# ---------------------------------------------------------------------------------------------------------------
# mysqlbinlog-style text: gtidkit.binlog.text is the one formatter (shared with SHOW BINLOG EVENTS)
# ---------------------------------------------------------------------------------------------------------------


def header_line(pe: PositionedEvent) -> str:
    """``#yymmdd hh:mm:ss server id N  end_log_pos M CRC32 0x…`` (mysqlbinlog ``print_header``)."""
    return text.header_line(pe.header, pe.checksum)


def event_text(pe: PositionedEvent) -> list[str]:
    """mysqlbinlog-like lines for one event (:func:`gtidkit.binlog.text.event_lines`)."""
    return text.event_lines(pe.pos, pe.header, pe.event, pe.checksum, pe.in_payload)


def transaction_text(trx: Transaction) -> str:
    """One line per transaction (``--per-transaction`` without ``--json``)."""
    gtid = "ANONYMOUS" if trx.anonymous else ("(no GTID)" if trx.gtid is None else str(trx.gtid))
    lc = (
        ""
        if trx.last_committed is None
        else f"\tlast_committed={trx.last_committed}\tsequence_number={trx.sequence_number}"
    )
    dbs = ",".join(trx.databases)
    state = "" if trx.complete else "\tINCOMPLETE"
    return (
        f"# at {trx.begin_pos}\tend {trx.end_pos}\t{gtid}{lc}\tbytes={trx.bytes}\tevents={trx.event_count}"
        f"\tdatabases={dbs or '-'}{state}"
    )


# ---------------------------------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------------------------------


def _parse_set(text: str | None, option: str) -> GtidSet | None:
    if text is None:
        return None
    try:
        return GtidSet.parse(text)
    except GtidParseError as err:
        raise click.BadParameter(str(err), param_hint=option) from err


_ENC = ("utf-8", "surrogateescape")


def _write_listing(path: str, verify: bool, out: Any) -> None:
    """Write the text listing of one file to the binary stream ``out``: framed by
    :class:`~gtidkit.binlog.file.FrameReader`, formatted from raw bytes by :func:`gtidkit.binlog.text.listing`
    in blocks of events (everything before a fault is written before the error propagates).

    Raises:
        BinlogDecodeError: at the first fault.
        OSError: the file cannot be read.
    """
    write = out.write
    write(f"# file {path}\n".encode(*_ENC))
    try:
        for block in text.listing(FrameReader(path, verify_checksum=verify), text.ListingFormatter(path)):
            write(block.encode(*_ENC))
            write(b"\n")
        write(b"# End of log file\n")
    finally:
        out.flush()


def _events(path: str, verify: bool) -> Iterator[PositionedEvent]:
    return read_events(path, verify_checksum=verify, expand_payloads=True)


def _base64_mode(ctx: click.Context, param: click.Parameter, value: str | None) -> Base64Output:
    if value is None:
        return Base64Output.AUTO
    try:
        return Base64Output.parse(value)
    except ValueError as err:
        raise click.BadParameter(str(err), ctx=ctx, param=param) from err


def _datetime(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return parse_datetime(value)
    except ValueError as err:
        raise click.BadParameter(str(err), ctx=ctx, param=param) from err


@binlog.command("show", context_settings={"help_option_names": ["--help"]})  # -h is --host, as in mysqlbinlog
@click.option(
    "--json", "as_json", is_flag=True, help="One JSON object per line (per event, or per transaction)."
)
@click.option("--per-transaction", is_flag=True, help="One entry per transaction instead of per event.")
@click.option("--include-gtids", metavar="SET", help="Print only transactions whose GTID is in SET.")
@click.option("--exclude-gtids", metavar="SET", help="Do not print the transactions whose GTID is in SET.")
@click.option("--skip-gtids", is_flag=True, help="Leave out SET @@SESSION.GTID_NEXT and Previous_gtids.")
@click.option(
    "--base64-output",
    metavar="AUTO|NEVER|DECODE-ROWS",
    callback=_base64_mode,
    help="BINLOG '...' statements for row events: AUTO (default), NEVER, or DECODE-ROWS (with -v: comments only).",
)
@click.option(
    "-v", "--verbose", count=True, help="Row changes as ### pseudo-SQL comments; -vv adds column types."
)
@click.option("--print-table-metadata", is_flag=True, help="Print the Table_map optional metadata.")
@click.option(
    "-j", "--start-position", type=click.IntRange(4), default=4, help="First event offset (first file)."
)
@click.option(
    "--stop-position",
    type=click.IntRange(0),
    help="Stop at the first event at or past this offset (last file).",
)
@click.option("--start-datetime", callback=_datetime, help="Skip events before this local DATETIME.")
@click.option(
    "--stop-datetime", callback=_datetime, help="Stop at the first event at or after this local DATETIME."
)
@click.option("-d", "--database", help="Only statements and row events of this default database.")
@click.option("-D", "--disable-log-bin", is_flag=True, help="The script runs with SQL_LOG_BIN=0.")
@click.option("-t", "--to-last-log", is_flag=True, help="Go on with the binlogs that follow the last FILE.")
@click.option(
    "-r",
    "--result-file",
    type=click.Path(),
    help="Write the output to this file (with --raw: prefix of the copied files, e.g. a directory and /); "
    "may be an object-store URI (s3://bucket/key, with --raw s3://bucket/dir/).",
)
@click.option(
    "--fs-option",
    "fs_options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Object-store option for --result-file, Hadoop names (fs.s3a.endpoint=..., fs.s3a.access.key=..., "
    "fs.s3a.secret.key=..., fs.s3a.path.style.access=true) or pyarrow's; repeatable.",
)
@click.option("--no-verify-checksum", is_flag=True, help="Do not check CRC32 footers.")
@click.option(
    "-c",
    "--verify-binlog-checksum",
    "verify_binlog_checksum",
    is_flag=True,
    help="Check CRC32 footers (mysqlbinlog's spelling; gtidkit checks them unless --no-verify-checksum).",
)
@remote_options
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
def show(
    as_json: bool,
    per_transaction: bool,
    include_gtids: str | None,
    exclude_gtids: str | None,
    skip_gtids: bool,
    base64_output: Base64Output,
    verbose: int,
    print_table_metadata: bool,
    start_position: int,
    stop_position: int | None,
    start_datetime: int | None,
    stop_datetime: int | None,
    database: str | None,
    disable_log_bin: bool,
    to_last_log: bool,
    result_file: str | None,
    fs_options: tuple[str, ...],
    no_verify_checksum: bool,
    verify_binlog_checksum: bool,
    files: tuple[str, ...],
    **remote: Any,
) -> None:
    """Print binlog FILEs as mysqlbinlog does: a script `mysql` can replay (or, with --json, the events).

    The options are mysqlbinlog 8.4's. Exit status 0 when every file was read to its end, 1 when mysqlbinlog
    would refuse an event, 2 when a file failed (what came before the fault is printed, then the error on stderr,
    and with --json an error entry with the offset).
    """
    include = _parse_set(include_gtids, "--include-gtids")
    exclude = _parse_set(exclude_gtids, "--exclude-gtids")
    verify = verify_binlog_checksum or not no_verify_checksum
    store_options = _fs_options(fs_options)
    paths = list(files)
    options = ScriptOptions(
        base64_output=base64_output,
        verbose=verbose,
        skip_gtids=skip_gtids,
        include_gtids=include,
        exclude_gtids=exclude,
        database=database,
        print_table_metadata=print_table_metadata,
        disable_log_bin=disable_log_bin,
        start_datetime=start_datetime,
        stop_datetime=stop_datetime,
    )
    remote_read = remote_requested(remote) or remote.get("raw") or remote.get("stop_never")
    if (
        remote_read
        and remote.get("stop_never")
        and not remote.get("raw")
        and not (as_json or per_transaction)
    ):
        with _result_stream(result_file, store_options) as out:
            _follow_script(remote, files, options, exclude, start_position, verify, out, store_options)
        return
    if remote_read:  # cli/binlog_remote.py
        fetched = run_remote(
            remote,
            files,
            exclude=exclude,
            start_position=start_position,
            to_last_log=to_last_log,
            result_file=result_file,
            fs_options=store_options,
        )
        if fetched is None:
            return
        paths, start_position, to_last_log = fetched, 4, False
    if to_last_log:
        paths += following_binlogs(paths[-1])
    with _result_stream(result_file, store_options) as out:
        if not as_json and not per_transaction:
            _show_script(paths, options, start_position, stop_position, verify, out)
            return
        _show_json(paths, as_json, per_transaction, GtidFilter(include, exclude), verify, out)


def _fs_options(items: tuple[str, ...]) -> dict[str, str]:
    """``--fs-option KEY=VALUE`` items as a dict.

    Raises:
        click.BadParameter: an item without ``=``.
    """
    options: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {item}", param_hint="--fs-option")
        options[key.strip()] = value
    return options


@contextlib.contextmanager
def _result_stream(result_file: str | None, store_options: dict[str, str]) -> Iterator[Any]:
    """Where the listing goes: stdout, ``--result-file`` as a local file, or as an object-store URI (streamed
    there; the object appears when the listing ends).

    Raises:
        SystemExit: 1 when the file or the object cannot be opened or written (message on stderr).
    """
    if not result_file:
        yield sys.stdout.buffer
        return
    try:
        if is_remote(result_file):
            out: Any = open_store_output(result_file, store_options)
        else:
            out = open(result_file, "wb")  # noqa: SIM115 - closed below
    except (OSError, ImportError) as err:
        message = (
            f"object-store URIs need pyarrow (pip install 'gtidkit[spark]'): {err}"
            if isinstance(err, ImportError)
            else str(err)
        )
        click.echo(f"gtidkit binlog show: {message}", err=True)
        raise SystemExit(1) from None
    try:
        yield out
    finally:
        try:
            out.close()
        except OSError as err:
            click.echo(f"gtidkit binlog show: {err}", err=True)
            raise SystemExit(1) from None


def _follow_script(
    remote: dict[str, Any],
    files: tuple[str, ...],
    options: ScriptOptions,
    exclude: GtidSet | None,
    start_position: int,
    verify: bool,
    out: Any,
    store_options: dict[str, str],
) -> None:
    """``--stop-never`` without ``--raw``: mysqlbinlog's script printed as the events arrive, until the command
    is stopped (or ``--stop-datetime`` is reached)."""
    live = LiveScript(
        ScriptPrinter(options), out, verify_checksum=verify, warn=lambda m: click.echo(m, err=True)
    )

    def on_event(name: str, pos: int, event: bytes) -> None:
        live.event(name, pos, event)
        if live.stopped:
            raise FollowStopped()

    try:
        run_remote(
            remote,
            files,
            exclude=exclude,
            start_position=start_position,
            to_last_log=True,
            result_file=None,
            fs_options=store_options,
            on_event=on_event,
        )
    except FollowStopped as stop:
        err = stop.error
        if err is None:
            live.close()
            return
        out.flush()
        if isinstance(err, BinlogDecodeError):
            where = f"at offset {err.offset}" if err.offset is not None else "(offset unknown)"
            click.echo(f"ERROR: Could not read entry {where} in {err.file}: {err.message}", err=True)
            raise SystemExit(2) from None
        if isinstance(err, ScriptError):
            click.echo(f"ERROR: {err}", err=True)
            raise SystemExit(1) from None
        if isinstance(err, BrokenPipeError):
            raise err from None
        click.echo(f"gtidkit binlog show: {err}", err=True)
        raise SystemExit(2) from None


def _show_script(
    paths: list[str],
    options: ScriptOptions,
    start_position: int,
    stop_position: int | None,
    verify: bool,
    out: Any,
) -> None:
    """The text output: mysqlbinlog's script over all files (stops at the first file that fails)."""
    ranges = [
        FileRange(p, start_position if i == 0 else 4, stop_position if i == len(paths) - 1 else None)
        for i, p in enumerate(paths)
    ]

    def on_file(i: int) -> None:
        rest = paths[i + 1 :]
        set_incomplete(
            f"the listing of {paths[i]} stopped part-way"
            + (f"; not listed: {', '.join(rest)}" if rest else "")
        )

    for path in paths:
        try:
            with open(path, "rb"):
                pass
        except OSError as err:
            click.echo(f"gtidkit binlog show: {_file_error(path, err)}", err=True)
            raise SystemExit(2) from None
    try:
        write_script(
            ranges,
            ScriptPrinter(options),
            out,
            verify_checksum=verify,
            on_file=on_file,
            warn=lambda m: click.echo(m, err=True),
        )
    except BinlogDecodeError as err:
        out.flush()
        where = f"at offset {err.offset}" if err.offset is not None else "(offset unknown)"
        click.echo(f"ERROR: Could not read entry {where} in {err.file}: {err.message}", err=True)
        raise SystemExit(2) from None
    except ScriptError as err:
        out.flush()
        click.echo(f"ERROR: {err}", err=True)
        raise SystemExit(1) from None
    except BrokenPipeError:
        raise
    except OSError as err:
        click.echo(f"gtidkit binlog show: {err}", err=True)
        raise SystemExit(2) from None


def _echo(out: Any, line: str) -> None:
    out.write(line.encode(*_ENC))
    out.write(b"\n")


_SHAPES: dict[
    tuple[bytes, bytes, bytes, bytes], tuple[Sequence[ColumnSpec] | None, tuple[str, ...] | None]
] = {}


def _table_shape(tm: TableMapEvent) -> tuple[Sequence[ColumnSpec] | None, tuple[str, ...] | None]:
    """A Table_map's column specs and names (``None`` when its metadata does not parse), computed once per
    distinct table definition: a binlog repeats the same Table_map before every statement on a table."""
    key = (tm.column_types, tm.metadata, tm.null_bitmap, tm.optional_metadata)
    shape = _SHAPES.get(key)
    if shape is None:
        try:
            specs: Sequence[ColumnSpec] | None = column_specs(tm)
        except BinlogDecodeError:
            specs = None
        try:
            names = tm.column_names()
        except BinlogDecodeError:  # a malformed optional-metadata block: the event itself decoded fine
            names = None
        if len(_SHAPES) > 4096:
            _SHAPES.clear()
        shape = _SHAPES[key] = (specs, names)
    return shape


def json_events(
    path: str,
    verify: bool,
    flt: GtidFilter,
    out: Any,
    *,
    compiled: bool | None = None,
    chunk_size: int = READ_CHUNK,
) -> None:
    """Write one JSON line per event of ``path`` to the binary stream ``out`` (``--json``): the object of
    :func:`event_json` as ``json.dumps`` writes it; rows events carry their values, decoded with their
    Table_map's column specs. The lines before a fault are written before the error propagates.

    Args:
        path: the binlog or relay-log file.
        verify: check CRC32 footers.
        flt: the GTID filter (its state follows the events).
        out: a binary stream.
        compiled: use the compiled loop (``binlog/_jsonfast.c``: the common events straight from the read
            buffer, the others through :func:`event_json`); ``None``: when :data:`JSON_COMPILED`. Both loops
            write the same bytes.
        chunk_size: bytes per read of the compiled loop's reader.

    Raises:
        BinlogDecodeError: the first fault in the file (its offset and event type).
        OSError: the file cannot be read.
    """
    if compiled if compiled is not None else JSON_COMPILED:
        if _jsonfast is None:
            raise RuntimeError("the compiled --json loop (gtidkit.binlog._jsonfast) is not built")
        _json_events_compiled(path, verify, flt, out, chunk_size)
    else:
        _json_events(path, verify, flt, out)


#: Per type code, the post-header length whose layout the compiled loop reads (Query, Xid, Table_map, Gtid /
#: Anonymous_gtid 5.7.5+, rows v1 / v2): under another FDE those types go through Python.
_C_LAYOUTS = {
    EventType.QUERY_EVENT: 13,
    EventType.XID_EVENT: 0,
    EventType.TABLE_MAP_EVENT: 8,
    EventType.GTID_LOG_EVENT: 42,
    EventType.ANONYMOUS_GTID_LOG_EVENT: 42,
    EventType.WRITE_ROWS_EVENT_V1: 8,
    EventType.UPDATE_ROWS_EVENT_V1: 8,
    EventType.DELETE_ROWS_EVENT_V1: 8,
    EventType.WRITE_ROWS_EVENT: 10,
    EventType.UPDATE_ROWS_EVENT: 10,
    EventType.DELETE_ROWS_EVENT: 10,
}
_TYPE_NAMES_JSON = tuple(json.dumps(event_type_name(t)).encode("ascii") for t in range(256))
_GTID_CODES = (EventType.GTID_LOG_EVENT, EventType.ANONYMOUS_GTID_LOG_EVENT)


def _raw_table_map(
    raw: bytes, fde: FormatDescriptionEvent
) -> tuple[TableMapEvent, Sequence[ColumnSpec] | None]:
    """The Table_map (and its column specs) of event bytes the compiled loop registered (decoded when Python
    needs it: a rows event the compiled loop left, or a new FDE; the caller keeps the result in place of the
    bytes)."""
    tm = decode_event(raw, fde, verify_checksum=False).event
    return tm, _table_shape(tm)[0]


def _json_events_compiled(path: str, verify: bool, flt: GtidFilter, out: Any, chunk_size: int) -> None:
    """:func:`json_events` with the compiled loop: runs of common events are written by ``_jsonfast.run`` from
    the reader's buffer (the reader is told where to go on), every other frame is decoded here, as
    :func:`_json_events` does."""
    assert _jsonfast is not None
    run = _jsonfast.run
    reader = FrameReader(path, verify_checksum=verify, chunk_size=chunk_size)
    # table id -> the Table_map's event bytes (read by the compiled loop) or (TableMapEvent, specs) (read here)
    maps: dict[int, Any] = {}
    prefix = f'{{"file": {json.dumps(path)}, "pos": '.encode("ascii")
    names = _TYPE_NAMES_JSON
    gtid_py = flt.active
    fde: FormatDescriptionEvent | None = None
    ok = bytes(256)
    footer = False
    lines: list[str] = []
    dumps = json.JSONEncoder(check_circular=False).encode
    try:
        for pos, buf, at, size in reader:
            if reader.fde is not fde:
                if fde is not None:  # the maps read under the FDE before keep its layout
                    for k, v in maps.items():
                        if type(v) is bytes:
                            maps[k] = _raw_table_map(v, fde)
                fde = reader.fde
                assert fde is not None
                footer = fde.checksum_alg == ChecksumAlg.CRC32
                ok = bytes(
                    1 if t in _C_LAYOUTS and fde.post_header_len(t) == _C_LAYOUTS[t] else 0
                    for t in range(256)
                )
            t = buf[at + 4]
            if ok[t] and not (gtid_py and t in _GTID_CODES):
                nxt, data = run(
                    buf, at, pos - at, footer, verify, ok, names, prefix, maps, flt.skipping, gtid_py
                )
                if nxt > at:
                    if lines:
                        _echo(out, "\n".join(lines))
                        lines.clear()
                    out.write(data)
                    reader.skip(nxt)
                    continue
            for pe in decode_frame(reader, pos, buf, at, size):
                ev = pe.event
                if isinstance(ev, TableMapEvent):
                    maps[ev.table_id] = (ev, _table_shape(ev)[0])
                if flt.event(pe):
                    tm = sp = None
                    if isinstance(ev, RowsEvent):
                        got = maps.get(ev.table_id)
                        if type(got) is bytes:
                            got = maps[ev.table_id] = _raw_table_map(got, fde)
                        if got is not None:
                            tm, sp = got
                    lines.append(dumps(event_json(pe, tm, sp)))
            if len(lines) >= 256:
                _echo(out, "\n".join(lines))
                lines.clear()
    finally:
        if lines:
            _echo(out, "\n".join(lines))


def _json_events(path: str, verify: bool, flt: GtidFilter, out: Any) -> None:
    """The pure-Python loop of :func:`json_events`: one JSON line per event, written 256 at a time."""
    maps: dict[int, tuple[TableMapEvent, Sequence[ColumnSpec] | None]] = {}
    lines: list[str] = []
    dumps = json.JSONEncoder(check_circular=False).encode
    try:
        for pe in _events(path, verify):
            ev = pe.event
            if isinstance(ev, TableMapEvent):
                maps[ev.table_id] = (ev, _table_shape(ev)[0])
            if flt.event(pe):
                tm, sp = maps.get(ev.table_id, (None, None)) if isinstance(ev, RowsEvent) else (None, None)
                lines.append(dumps(event_json(pe, tm, sp)))
                if len(lines) >= 256:
                    _echo(out, "\n".join(lines))
                    lines.clear()
    finally:
        if lines:
            _echo(out, "\n".join(lines))


def _show_json(
    paths: list[str], as_json: bool, per_transaction: bool, flt: GtidFilter, verify: bool, out: Any
) -> None:
    """--json and --per-transaction: one entry per event or transaction, every file (a failed file is reported
    and the next one is read; exit status 2 at the end)."""
    failed = False
    for i, path in enumerate(paths):
        rest = paths[i + 1 :]
        set_incomplete(
            f"the listing of {path} stopped part-way" + (f"; not listed: {', '.join(rest)}" if rest else "")
        )
        try:
            with open(path, "rb"):
                pass  # a file that cannot be opened prints nothing on stdout, only the error
            if per_transaction:
                for trx in iter_transactions(path, verify_checksum=verify):
                    if flt.active and not flt.wants(trx.gtid):
                        continue
                    _echo(out, json.dumps(transaction_json(trx)) if as_json else transaction_text(trx))
            else:
                json_events(path, verify, flt, out)
        except BinlogDecodeError as err:
            failed = True
            if as_json:
                entry: dict[str, Any] = {"file": path, "error": err.message, "pos": err.offset}
                if err.event_type is not None:
                    entry["type_code"] = err.event_type
                    entry["type"] = event_type_name(err.event_type)
                _echo(out, json.dumps(entry))
            out.flush()
            where = f"at offset {err.offset}" if err.offset is not None else "(offset unknown)"
            click.echo(f"ERROR: Could not read entry {where} in {path}: {err.message}", err=True)
        except BrokenPipeError:
            raise  # stdout's reader went away: not a file error (the group ends the command quietly)
        except OSError as err:
            failed = True
            message = _file_error(path, err)
            if as_json:
                _echo(out, json.dumps({"file": path, "error": message}))
            out.flush()
            click.echo(f"gtidkit binlog show: {message}", err=True)
    out.flush()
    if failed:
        raise SystemExit(2)


def _file_error(path: str, err: OSError) -> str:
    """mysys's wording for a file that cannot be opened or read (mysqlbinlog prints the same)."""
    code = err.errno or 0
    reason = err.strerror or os.strerror(code)
    if isinstance(err, FileNotFoundError):
        return EE_FILENOTFOUND % (path, code, reason)
    return EE_READ % (path, code, reason)


binlog.add_command(generate)

__all__ = ["JSON_COMPILED", "binlog", "event_json", "event_text", "json_events", "show", "transaction_json"]
_ = EventType  # re-exported names used by tests
