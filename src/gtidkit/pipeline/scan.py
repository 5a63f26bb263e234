"""Executor side: stream one binlog file into pipeline records (the only module that reads binlogs).

Runs inside a Spark task, one task per file (:class:`~gtidkit.pipeline.layout.FileSpec`); the file is opened
here and read as a stream (never loaded whole: a 1 GiB binlog, MySQL's default ``max_binlog_size``, is normal,
and Spark's ``binaryFile`` source refuses files over 2 GiB).

Two readers, one output: a local file of at most :data:`MMAP_MAX_BYTES` goes through the memory-mapped
``gtidkit.binlog.file.FileScanner`` (the fastest path); a larger local file, and a file on object storage or HDFS
(any :mod:`gtidkit.pipeline.storage` URI that is not local), is read as a sequential stream (``open`` / a
``pyarrow.fs`` input stream) by ``gtidkit.binlog.file.StreamScanner``, the same scan over a window of the stream,
so that the task's resident memory stays flat in the file size (mapped pages would count in it until the scan
ends). Both yield the same transactions and file facts (tests/pipeline/test_object_storage.py checks them on
every fixture).

Output forms: :func:`arrow_batches` builds ``pyarrow.RecordBatch`` es of up to :data:`BATCH_ROWS` transactions
(what the Data Source hands Spark: no per-row Python → JVM conversion), :func:`scan_records` and friends yield
plain tuples in the field order of :mod:`gtidkit.pipeline.schemas`. Memory per task is bounded by one batch plus
one read window, whatever the file size.

Fault handling follows go-mysql's rule that errors carry their location: a file that cannot be read to its end
keeps every transaction decoded before the fault, and its ``files`` row gives ``status`` (``truncated`` when the
fault is the end of the file, else ``corrupt``), ``error``, ``error_offset`` and ``good_bytes`` (the offset of
the fault: every byte before it decoded), so that ``good_bytes + bad_bytes = size`` always holds. A file that
cannot be opened (``OSError``) gets ``status='unreadable'`` and ``bad_bytes = size``.
"""

from __future__ import annotations

import gc
import struct
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from itertools import repeat
from operator import attrgetter, is_
from typing import Any

from gtidkit.errors import BinlogDecodeError
from gtidkit.pipeline.layout import FileSpec

_TRUNCATION_WORDS = (
    "truncat",
    "end of file",
    "eof",
    "incomplete",
    "short read",
)  # not "need N bytes": a body overrun inside a whole event is corruption

#: Transactions per Arrow record batch (and per list handed between the reader and the row builders).
BATCH_ROWS = 8192


def _gtid_text(sid: str | None, tag: str | None, gno: int | None) -> str | None:
    if sid is None:
        return None
    return f"{sid}:{tag}:{gno}" if tag else f"{sid}:{gno}"


def clean_text(text: str | None) -> str | None:
    """Text safe for Arrow/Parquet (valid UTF-8): bytes the decoder kept as surrogates (``surrogateescape``,
    e.g. a database name in a non-UTF-8 charset) become U+FFFD."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


_SID_TEXT: dict[Any, str] = {}


def _sid_text(sid: Any) -> str:
    """``str(uuid)``, cached (a fleet has a handful of server UUIDs and ``UUID.__str__`` costs a microsecond)."""
    text = _SID_TEXT.get(sid)
    if text is None:
        if len(_SID_TEXT) > 65536:
            _SID_TEXT.clear()
        text = _SID_TEXT[sid] = str(sid)
    return text


def classify_error(message: str, error_offset: int | None, size: int) -> str:
    """``unsupported`` for a MariaDB binlog, ``truncated`` when the fault is the file ending early, else
    ``corrupt``."""
    text = message.lower()
    if "mariadb" in text:
        return "unsupported"
    if any(word in text for word in _TRUNCATION_WORDS):
        return "truncated"
    if error_offset is not None and size - error_offset < 19:  # not even a common header left
        return "truncated"
    return "corrupt"


_HEADER = struct.Struct("<IBIIIH")  # timestamp, type_code, server_id, event_size, log_pos, flags (19 bytes)
_PREVIOUS_GTIDS_LOG_EVENT = 35


def _head_facts(head: bytes) -> tuple[int | None, int | None]:
    """(FDE header server_id, offset of a Previous_gtids event right after the FDE) from the first two headers
    in ``head`` (the file's first bytes).

    ``FileScan`` does not carry them; the writing server's id tells local transactions from replicated ones
    (MySQL keeps the originating server_id on replicated events) and the offset locates chain findings.
    """
    if len(head) < 4 + _HEADER.size:
        return None, None
    _, _, server_id, size, _, _ = _HEADER.unpack_from(head, 4)
    second = head[4 + size : 4 + size + _HEADER.size]
    prev_pos = None
    if len(second) == _HEADER.size and second[4] == _PREVIOUS_GTIDS_LOG_EVENT:
        prev_pos = 4 + size
    return int(server_id), prev_pos


def _path_head_facts(path: str) -> tuple[int | None, int | None]:
    """:func:`_head_facts` of a local file (its first 64 KiB; an FDE is a few hundred bytes)."""
    try:
        with open(path, "rb") as fh:
            return _head_facts(fh.read(64 << 10))
    except OSError:
        return None, None


def _checksum_name(alg: Any) -> str | None:
    if alg is None:
        return None
    return {0: "OFF", 1: "CRC32", 255: "UNDEFINED"}.get(int(alg), str(int(alg)))


#: Local files up to this size are memory-mapped (``FileScanner``, the fastest scan); larger ones are read as a
#: stream (``StreamScanner``, about 10 % slower) so that a task's resident memory stays bounded whatever the file
#: size: mapped pages count in the resident set until the scan ends (what YARN and Kubernetes limits look at).
MMAP_MAX_BYTES = 256 << 20


def _scanner(spec: FileSpec, verify_checksum: bool, storage_options: dict | None, stack: ExitStack) -> Any:
    """The reader for ``spec``: the memory-mapped ``FileScanner`` for a local file of at most
    :data:`MMAP_MAX_BYTES`, else a ``StreamScanner`` over the file read sequentially (a local file through
    ``open``, a remote one through a ``pyarrow.fs`` input stream) opened here and closed when ``stack`` closes.

    Raises:
        OSError: the file cannot be opened.
    """
    from gtidkit.binlog.file import FileScanner, StreamScanner

    if spec.uri is None:
        if spec.size <= MMAP_MAX_BYTES:
            return FileScanner(spec.path, verify_checksum)
        stream = stack.enter_context(open(spec.path, "rb", buffering=0))  # noqa: SIM115 (closed by stack)
        return StreamScanner(stream, spec.path, verify_checksum)
    from gtidkit.pipeline import storage

    stream = stack.enter_context(storage.open_input_stream(spec.uri, storage_options))
    return StreamScanner(stream, spec.uri, verify_checksum, size=spec.size)


def _count_none(values: tuple) -> int:
    """How many items of ``values`` are ``None``, by identity (``tuple.count(None)`` would call ``Gtid.__eq__``,
    a Python method, per item)."""
    return sum(map(is_, values, repeat(None)))


class FileTally:
    """What the ``files`` row needs beyond the ``FileScan``, accumulated batch by batch from column tuples (C-speed
    ``count``/``min``/``max``; never a Python loop per row)."""

    __slots__ = ("first_gtid", "first_ts", "last_gtid", "last_ts", "n_anon", "n_gtid", "n_txn")

    def __init__(self) -> None:
        self.first_gtid: str | None = None
        self.last_gtid: str | None = None
        self.n_txn = self.n_gtid = self.n_anon = 0
        self.first_ts: int | None = None
        self.last_ts: int | None = None

    def add(self, txns: list) -> None:
        """Count one list of ``gtidkit.binlog`` Transactions."""
        if txns:
            self.add_columns(tuple(zip(*txns)))

    def add_columns(self, cols: tuple) -> None:
        """Count one batch given as the columns of its Transactions (``tuple(zip(*txns))``)."""
        gtids, anon, stamps = cols[3], cols[4], cols[7]
        n = len(gtids)
        self.n_txn += n
        nulls = _count_none(gtids)
        if nulls < n:
            first = next(g for g in gtids if g is not None)
            if self.first_gtid is None:
                self.first_gtid = _gtid_text(_sid_text(first.sid), first.tag, first.gno)
            last = next(g for g in reversed(gtids) if g is not None)
            self.last_gtid = _gtid_text(_sid_text(last.sid), last.tag, last.gno)
            self.n_gtid += n - nulls
        if nulls and True in anon:
            self.n_anon += sum(1 for a, g in zip(anon, gtids) if a and g is None)
        if None in stamps:
            stamps = tuple(t for t in stamps if t is not None)
        if stamps:
            lo, hi = min(stamps), max(stamps)
            self.first_ts = lo if self.first_ts is None else min(self.first_ts, lo)
            self.last_ts = hi if self.last_ts is None else max(self.last_ts, hi)


class FileRun:
    """One scan of one file: :meth:`batches` yields lists of Transactions (up to ``batch_rows`` each), then
    :attr:`file_row` holds the ``files`` row (schemas.FILE_FIELDS). Never raises for bad content.

    Args:
        spec: the file (local path or storage URI).
        verify_checksum: verify CRC32 footers when the FDE announces them.
        batch_rows: transactions per yielded list.
        storage_options: filesystem options for a remote ``spec.uri`` (see :mod:`gtidkit.pipeline.storage`).
    """

    def __init__(
        self,
        spec: FileSpec,
        verify_checksum: bool = True,
        batch_rows: int = BATCH_ROWS,
        storage_options: dict | None = None,
    ) -> None:
        self.spec = spec
        self.storage_options = storage_options
        self.verify = verify_checksum
        self.batch_rows = batch_rows
        self.tally = FileTally()
        self.file_row: tuple | None = None

    def batches(self) -> Iterator[list]:
        """Transactions in file order, ``batch_rows`` at a time; :attr:`file_row` is set once exhausted."""
        for txns, _cols in self._batches(False):
            yield txns

    def column_batches(self) -> Iterator[tuple]:
        """The same batches as columns: one tuple per Transaction field (``tuple(zip(*txns))``, the transposition
        done once for the tally and the Arrow arrays); :attr:`file_row` is set once exhausted."""
        for _txns, cols in self._batches(True):
            yield cols

    def _batches(self, columns: bool) -> Iterator[tuple[list, tuple]]:
        spec, tally = self.spec, self.tally
        status, error, error_offset = "ok", None, None
        scanner = None
        pending: list = []
        stack = ExitStack()

        def emit(out: list) -> tuple[list, tuple]:
            cols = tuple(zip(*out))
            tally.add_columns(cols)
            return out, cols if columns else ()

        try:
            scanner = _scanner(spec, self.verify, self.storage_options, stack)
            size = self.batch_rows
            for chunk in scanner.batches():
                if not pending and len(chunk) == size:
                    yield emit(chunk)
                    continue
                pending.extend(chunk)
                while len(pending) >= size:
                    out, pending = pending[:size], pending[size:]
                    yield emit(out)
        except BinlogDecodeError as err:
            assert scanner is not None
            error = clean_text(err.message)
            error_offset = int(err.offset) if err.offset is not None else scanner.result.good_bytes
            status = classify_error(err.message, error_offset, spec.size)
        except OSError as err:
            status, error, error_offset = "unreadable", f"{type(err).__name__}: {err}", 0
        finally:
            stack.close()
        if pending:
            yield emit(pending)
        if scanner is None:
            from gtidkit.binlog.file import FileScan

            res = FileScan(spec.uri or spec.path, 0)
            events = 0
        else:
            res = scanner.result
            events = len(scanner.types)
        if status == "ok":
            good = spec.size
        elif status == "unreadable":
            good = 0
        else:
            good = int(error_offset)
        good = max(0, min(good, spec.size))
        if res.server_version is None:
            server_id = prev_pos = None
        else:
            head = getattr(scanner, "head", None)
            server_id, prev_pos = _head_facts(head) if head is not None else _path_head_facts(spec.path)
        self.file_row = file_row(
            spec,
            res,
            tally,
            status,
            error,
            error_offset,
            good,
            events,
            server_id,
            prev_pos if res.previous_gtids is not None else None,
        )


def file_row(
    spec: FileSpec,
    res: Any,
    tally: FileTally,
    status: str,
    error: str | None,
    error_offset: int | None,
    good: int,
    events: int,
    server_id: int | None,
    prev_pos: int | None,
) -> tuple:
    """One ``files`` row (schemas.FILE_FIELDS order) from a ``FileScan`` and what :class:`FileRun` counted."""
    prev = res.previous_gtids
    prev_rows = None
    if prev is not None:
        prev_rows = [(str(sid), tag or "", int(start), int(end)) for sid, tag, start, end in prev.intervals()]
    return (
        spec.host,
        spec.file,
        spec.uri or spec.path,
        spec.file_index,
        spec.series,
        spec.seq,
        spec.size,
        clean_text(res.server_version),
        None if res.binlog_version is None else int(res.binlog_version),
        _checksum_name(res.checksum_alg),
        server_id,
        None if prev is None else str(prev),
        prev_pos,
        prev_rows,
        tally.first_gtid,
        tally.last_gtid,
        tally.n_txn,
        tally.n_gtid,
        tally.n_anon,
        events,
        bool(res.in_use) if res.server_version is not None else None,
        res.ends_with,
        res.next_file,
        tally.first_ts,
        tally.last_ts,
        status,
        error,
        error_offset,
        good,
        spec.size - good,
    )


# -- tuples --------------------------------------------------------------------------------------------------


def transaction_row(spec: FileSpec, txn: Any) -> tuple:
    """One ``transactions`` row (schemas.TRANSACTION_FIELDS order) from a ``gtidkit.binlog`` Transaction."""
    g = txn.gtid
    sid, tag, gno = (None, None, None) if g is None else (_sid_text(g.sid), g.tag or "", int(g.gno))
    return (
        spec.host,
        spec.file,
        spec.file_index,
        int(txn.begin_pos),
        int(txn.end_pos),
        sid,
        tag,
        gno,
        bool(txn.anonymous),
        None if txn.last_committed is None else int(txn.last_committed),
        None if txn.sequence_number is None else int(txn.sequence_number),
        None if txn.timestamp is None else int(txn.timestamp),
        txn.immediate_commit_timestamp or None,
        txn.original_commit_timestamp or None,
        int(txn.bytes),
        int(txn.event_count),
        None if txn.server_id is None else int(txn.server_id),
        [clean_text(d) for d in txn.databases or ()],
        bool(txn.complete),
    )


def scan_records(
    spec: FileSpec, *, verify_checksum: bool = True, storage_options: dict | None = None
) -> Iterator[tuple]:
    """Stream ``("txn", row, None)`` per transaction, then one ``("file", None, row)`` for the file.

    The record shape is schemas.SCAN (tuples; :func:`arrow_batches` is the columnar form the Data Source uses).

    Args:
        spec: the file to read (a local path or a storage URI readable from the executor).
        verify_checksum: verify CRC32 footers when the FDE announces them.
        storage_options: filesystem options for a remote file (:mod:`gtidkit.pipeline.storage`).

    Yields:
        Tuples matching schemas.SCAN. Never raises for bad content (it is recorded in the file record).
    """
    run = FileRun(spec, verify_checksum, storage_options=storage_options)
    for txns in run.batches():
        for txn in txns:
            yield ("txn", transaction_row(spec, txn), None)
    yield ("file", None, run.file_row)


def transaction_rows(
    spec: FileSpec, *, verify_checksum: bool = True, storage_options: dict | None = None
) -> Iterator[tuple]:
    """``level=transactions``: just the transaction rows of one file."""
    for kind, txn, _ in scan_records(spec, verify_checksum=verify_checksum, storage_options=storage_options):
        if kind == "txn":
            yield txn


def file_rows(
    spec: FileSpec, *, verify_checksum: bool = True, storage_options: dict | None = None
) -> Iterator[tuple]:
    """``level=files``: the single file row (the file is still read to its end to count and verify it)."""
    run = FileRun(spec, verify_checksum, storage_options=storage_options)
    for _ in run.batches():
        pass
    yield run.file_row


# -- Arrow ---------------------------------------------------------------------------------------------------


_GNO = attrgetter("gno")
_SID = attrgetter("sid")
_TAG = attrgetter("tag")


def _gtid_columns(gtid: tuple) -> tuple[list, list, list]:
    """(sid text, tag, gno) columns of a Gtid column (``None`` for anonymous transactions).

    Without anonymous rows (the usual case) the attributes are read with ``map`` (C speed) and each distinct SID
    object is turned into text once per batch: the scanner hands out one UUID object per server UUID, so the
    lookup is keyed by ``id`` and never calls ``UUID.__hash__`` per row.
    """
    if not _count_none(gtid):
        sid_objs = list(map(_SID, gtid))
        by_id = {k: _sid_text(v) for k, v in dict(zip(map(id, sid_objs), sid_objs)).items()}
        tags = list(map(_TAG, gtid))
        if None in tags:
            tags = [t or "" for t in tags]
        return list(map(by_id.__getitem__, map(id, sid_objs))), tags, list(map(_GNO, gtid))
    sids: list = []
    tags = []
    gnos: list = []
    sa, ta, ga = sids.append, tags.append, gnos.append
    for g in gtid:
        if g is None:
            sa(None)
            ta(None)
            ga(None)
        else:
            sa(_sid_text(g.sid))
            ta(g.tag or "")
            ga(g.gno)
    return sids, tags, gnos


_NUMPY_INTS = {"int64": "int64", "int32": "int32"}


def _int_array(values: Any, arrow_type: Any) -> Any:
    """``pyarrow.array(values, arrow_type)`` for a column of Python ints (int32/int64), through
    ``numpy.fromiter`` when no value is ``None`` (a third of pyarrow's per-item conversion cost; the numpy
    buffer becomes the Arrow array without a copy). A ``None`` or an out-of-range value makes ``fromiter`` raise,
    and the column then goes through ``pyarrow.array`` as before (same values, same nulls)."""
    import numpy as np
    import pyarrow as pa

    dtype = _NUMPY_INTS.get(str(arrow_type))
    if dtype is not None:
        try:
            return pa.array(np.fromiter(values, dtype, len(values)), arrow_type)
        except (TypeError, OverflowError, ValueError):
            pass
    return pa.array(values, arrow_type)


def _zero_to_null(values: tuple) -> Any:
    """A timestamp column where 0 (not written by the server) becomes NULL; the tuple itself when it has no 0."""
    return [v or None for v in values] if 0 in values else values


def _transaction_arrays(spec: FileSpec, cols: tuple, types: list) -> list:
    """Columns (schemas.TRANSACTION_FIELDS order, Arrow ``types``) of one batch of Transactions given as their
    columns (``FileRun.column_batches``): every column converted by ``pyarrow.array`` in one call, the file's
    constant host/file/file_index by ``pyarrow.repeat``."""
    import pyarrow as pa

    (_f, begin, end, gtid, anon, lc, sn, ts, ict, oct_, nbytes, count, dbs, server_id, complete, *_rest) = (
        cols
    )
    n = len(begin)
    sids, tags, gnos = _gtid_columns(gtid)
    try:
        dbs_array = pa.array(dbs, types[17])
    except (UnicodeEncodeError, pa.ArrowException):
        dbs_array = pa.array([[clean_text(d) for d in ds] for ds in dbs], types[17])
    ints = _int_array
    return [
        pa.repeat(pa.scalar(spec.host, types[0]), n),
        pa.repeat(pa.scalar(spec.file, types[1]), n),
        pa.repeat(pa.scalar(spec.file_index, types[2]), n),
        ints(begin, types[3]),
        ints(end, types[4]),
        pa.array(sids, types[5]),
        pa.array(tags, types[6]),
        ints(gnos, types[7]),
        pa.array(anon, types[8]),
        ints(lc, types[9]),
        ints(sn, types[10]),
        ints(ts, types[11]),
        ints(_zero_to_null(ict), types[12]),
        ints(_zero_to_null(oct_), types[13]),
        ints(nbytes, types[14]),
        ints(count, types[15]),
        ints(server_id, types[16]),
        dbs_array,
        pa.array(complete, types[18]),
    ]


def _file_array(row: tuple, struct_type: Any) -> Any:
    import pyarrow as pa

    names = [f.name for f in struct_type]
    return pa.array([dict(zip(names, row))], struct_type)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (restored afterwards, unless it was already off).

    A scan allocates about three GC-tracked objects per transaction (the Transaction tuple, its Gtid, the column
    tuples), none of them part of a reference cycle, so every generation-0 collection they trigger walks a batch
    of live objects for nothing: about a tenth of the executor code's CPU (bench/bench_pipeline.py). Reference
    counting still frees everything as usual; only cyclic garbage (none on this path) waits for the block's end.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def arrow_batches(
    spec: FileSpec,
    level: str,
    schema: Any,
    *,
    verify_checksum: bool = True,
    batch_rows: int = BATCH_ROWS,
    storage_options: dict | None = None,
) -> Iterator[Any]:
    """Stream one file as ``pyarrow.RecordBatch`` es of ``schema`` (the Arrow form of the level's DDL).

    Args:
        spec: the file to read.
        level: ``transactions`` (schemas.TRANSACTIONS), ``files`` (schemas.FILES) or ``scan`` (schemas.SCAN:
            batches of ``txn`` records, then one batch holding the ``file`` record).
        schema: a ``pyarrow.Schema``; :func:`gtidkit.pipeline.schemas.arrow_schema` of the level's DDL, which
            equals what Spark derives from it.
        verify_checksum: verify CRC32 footers when the FDE announces them.
        batch_rows: transactions per batch (memory per task is bounded by one batch).
        storage_options: filesystem options for a remote file (:mod:`gtidkit.pipeline.storage`).

    Yields:
        Record batches (never empty ones). Never raises for bad content (it is recorded in the file record).

    Raises:
        ValueError: an unknown ``level``.
    """
    if level not in ("transactions", "files", "scan"):
        raise ValueError(f"arrow_batches: no Arrow form for level {level!r}")
    with gc_paused():
        yield from _arrow_batches(spec, level, schema, verify_checksum, batch_rows, storage_options)


def _arrow_batches(
    spec: FileSpec,
    level: str,
    schema: Any,
    verify_checksum: bool,
    batch_rows: int,
    storage_options: dict | None,
) -> Iterator[Any]:
    import pyarrow as pa

    run = FileRun(spec, verify_checksum, batch_rows, storage_options)
    if level == "transactions":
        types = schema.types
        for cols in run.column_batches():
            yield pa.RecordBatch.from_arrays(_transaction_arrays(spec, cols, types), schema=schema)
    elif level == "files":
        for _ in run.batches():
            pass
        row = run.file_row
        yield pa.RecordBatch.from_arrays([pa.array([v], t) for v, t in zip(row, schema.types)], schema=schema)
    elif level == "scan":
        kind_t, txn_t, file_t = schema.types
        txn_fields = list(txn_t)
        txn_types = [f.type for f in txn_fields]
        kind_txn = pa.scalar("txn", kind_t)
        for cols in run.column_batches():
            n = len(cols[0])
            txn = pa.StructArray.from_arrays(_transaction_arrays(spec, cols, txn_types), fields=txn_fields)
            yield pa.RecordBatch.from_arrays(
                [pa.repeat(kind_txn, n), txn, pa.nulls(n, file_t)], schema=schema
            )
        yield pa.RecordBatch.from_arrays(
            [pa.array(["file"], kind_t), pa.nulls(1, txn_t), _file_array(run.file_row, file_t)], schema=schema
        )


# -- events (tuples: a debugging level, one row per event) ---------------------------------------------------


def event_rows(spec: FileSpec, *, verify_checksum: bool = True) -> Iterator[tuple]:
    """``level=events``: one row per event (schemas.EVENT_FIELDS), inner events of a Transaction_payload
    included (``in_payload``); a fault ends the stream with a row of type ``ERROR`` at the fault's offset whose
    ``info`` is the error message. Local files only (``read_events`` reads a path)."""
    from gtidkit.binlog.constants import event_type_name
    from gtidkit.binlog.file import read_events

    last_end = 4
    try:
        if spec.uri is not None:
            raise OSError(f"level=events reads local files only, not {spec.uri}")
        for pe in read_events(spec.path, verify_checksum=verify_checksum):
            h, ev = pe.header, pe.event
            name = type(ev).__name__
            gtid = lc = sn = None
            info = None
            if name == "GtidEvent":
                gtid = "ANONYMOUS" if ev.gtid is None else str(ev.gtid)
                lc, sn = ev.last_committed, ev.sequence_number
            elif name == "PreviousGtidsEvent":
                info = str(ev.gtids)
            elif name == "QueryEvent":
                info = ev.query if isinstance(ev.query, str) else bytes(ev.query).decode("utf-8", "replace")
                info = clean_text(info[:1000])
            elif name == "RotateEvent":
                info = f"{ev.next_file};pos={ev.position}"
            elif name == "FormatDescriptionEvent":
                info = clean_text(ev.server_version)
            last_end = int(pe.end_pos)
            yield (
                spec.host,
                spec.file,
                int(pe.pos),
                int(pe.end_pos),
                event_type_name(h.type_code),
                int(h.type_code),
                int(h.timestamp),
                int(h.server_id),
                int(h.event_size),
                int(h.flags),
                bool(pe.in_payload),
                gtid,
                None if lc is None else int(lc),
                None if sn is None else int(sn),
                info,
            )
    except BinlogDecodeError as err:
        off = err.offset if err.offset is not None else last_end
        yield (
            spec.host,
            spec.file,
            int(off),
            spec.size,
            "ERROR",
            err.event_type,
            None,
            None,
            None,
            None,
            False,
            None,
            None,
            None,
            clean_text(err.message),
        )
    except OSError as err:
        yield (
            spec.host,
            spec.file,
            0,
            spec.size,
            "ERROR",
            None,
            None,
            None,
            None,
            None,
            False,
            None,
            None,
            None,
            f"{type(err).__name__}: {err}",
        )
