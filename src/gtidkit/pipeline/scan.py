"""Executor side: stream one binlog file into pipeline rows (the only module that reads binlogs).

Runs inside a Spark task, one task per file (:class:`~gtidkit.pipeline.layout.FileSpec`); the file is opened
here and read as a stream by ``gtidkit.binlog.file`` (never loaded whole: a 1 GiB binlog, MySQL's default
``max_binlog_size``, is normal, and Spark's ``binaryFile`` source refuses files over 2 GiB), and turned into
plain tuples whose field order is the DDL in :mod:`gtidkit.pipeline.schemas`.

Fault handling follows go-mysql's rule that errors carry their location: a file that cannot be read to its end
keeps every transaction decoded before the fault, and its ``files`` row gives ``status`` (``truncated`` when the
fault is the end of the file, else ``corrupt``), ``error``, ``error_offset`` and ``good_bytes`` (the offset of
the fault: every byte before it decoded), so that ``good_bytes + bad_bytes = size`` always holds. A file that
cannot be opened (``OSError``) gets ``status='unreadable'`` and ``bad_bytes = size``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

from gtidkit.errors import BinlogDecodeError
from gtidkit.pipeline.layout import FileSpec

_TRUNCATION_WORDS = ("truncat", "end of file", "eof", "incomplete", "short read", "need")


def _gtid_parts(gtid: Any) -> tuple[str | None, str | None, int | None]:
    if gtid is None:
        return None, None, None
    return str(gtid.sid), gtid.tag or "", int(gtid.gno)


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


def _none_if_zero(value: int | None) -> int | None:
    return None if not value else int(value)


def transaction_row(spec: FileSpec, txn: Any) -> tuple:
    """One ``transactions`` row (schemas.TRANSACTION_FIELDS order) from a ``gtidkit.binlog`` Transaction."""
    sid, tag, gno = _gtid_parts(txn.gtid)
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
        _none_if_zero(txn.immediate_commit_timestamp),
        _none_if_zero(txn.original_commit_timestamp),
        int(txn.bytes),
        int(txn.event_count),
        None if txn.server_id is None else int(txn.server_id),
        [clean_text(d) for d in txn.databases or ()],
        bool(txn.complete),
    )


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


def _head_facts(path: str) -> tuple[int | None, int | None]:
    """(FDE header server_id, offset of a Previous_gtids event right after the FDE) from the first two headers.

    ``FileScan`` does not carry them; the writing server's id tells local transactions from replicated ones
    (MySQL keeps the originating server_id on replicated events) and the offset locates chain findings.
    """
    try:
        with open(path, "rb") as fh:
            fh.seek(4)
            first = fh.read(_HEADER.size)
            if len(first) < _HEADER.size:
                return None, None
            _, _, server_id, size, _, _ = _HEADER.unpack(first)
            fh.seek(4 + size)
            second = fh.read(_HEADER.size)
    except OSError:
        return None, None
    prev_pos = None
    if len(second) == _HEADER.size and second[4] == _PREVIOUS_GTIDS_LOG_EVENT:
        prev_pos = 4 + size
    return int(server_id), prev_pos


def _checksum_name(alg: Any) -> str | None:
    if alg is None:
        return None
    return {0: "OFF", 1: "CRC32", 255: "UNDEFINED"}.get(int(alg), str(int(alg)))


def scan_records(spec: FileSpec, *, verify_checksum: bool = True) -> Iterator[tuple]:
    """Stream ``("txn", row, None)`` per transaction, then one ``("file", None, row)`` for the file.

    The record shape is schemas.SCAN. One pass over the file by ``gtidkit.binlog.file``'s streaming scanner
    (the engine behind ``scan_file``/``iter_transactions``): transactions are yielded as they are found, never
    collected, so memory stays flat whatever the file size.

    Args:
        spec: the file to read (its ``path`` must be readable on the executor).
        verify_checksum: verify CRC32 footers when the FDE announces them.

    Yields:
        Tuples matching schemas.SCAN. Never raises for bad content (it is recorded in the file record).
    """
    from gtidkit.binlog.file import FileScanner  # streaming FileScan; see docs/PIPELINE.md "binlog API"

    scanner = FileScanner(spec.path, verify_checksum)
    acc: dict[str, Any] = {"first_gtid": None, "last_gtid": None, "n_txn": 0, "n_gtid": 0, "n_anon": 0,
                           "first_ts": None, "last_ts": None, "status": "ok", "error": None, "error_offset": None}
    try:
        for txn in scanner.run():
            row = transaction_row(spec, txn)
            acc["n_txn"] += 1
            if row[7] is None:
                acc["n_anon"] += 1 if row[8] else 0
            else:
                acc["n_gtid"] += 1
                text = _gtid_text(row[5], row[6], row[7])
                acc["first_gtid"] = acc["first_gtid"] or text
                acc["last_gtid"] = text
            ts = row[11]
            if ts is not None:
                acc["first_ts"] = ts if acc["first_ts"] is None else min(acc["first_ts"], ts)
                acc["last_ts"] = ts if acc["last_ts"] is None else max(acc["last_ts"], ts)
            yield ("txn", row, None)
    except BinlogDecodeError as err:
        good = scanner.result.good_bytes
        acc["error"] = clean_text(err.message)
        acc["error_offset"] = int(err.offset) if err.offset is not None else good
        acc["status"] = classify_error(err.message, acc["error_offset"], spec.size)
    except OSError as err:
        acc.update(status="unreadable", error=f"{type(err).__name__}: {err}", error_offset=0)
    res = scanner.result
    if acc["status"] == "ok":
        good_bytes = spec.size
    elif acc["status"] == "unreadable":
        good_bytes = 0
    else:
        good_bytes = int(acc["error_offset"])
    acc["good_bytes"] = max(0, min(good_bytes, spec.size))
    acc["events"] = sum(scanner.counts)
    server_id, prev_pos = _head_facts(spec.path) if res.server_version is not None else (None, None)
    yield ("file", None, file_row(spec, res, acc, server_id, prev_pos if res.previous_gtids is not None else None))


def file_row(spec: FileSpec, res: Any, acc: dict[str, Any], server_id: int | None, prev_pos: int | None) -> tuple:
    """One ``files`` row (schemas.FILE_FIELDS order) from a ``FileScan`` and what :func:`scan_records` counted."""
    prev = res.previous_gtids
    prev_rows = None
    if prev is not None:
        prev_rows = [(str(sid), tag or "", int(start), int(end)) for sid, tag, start, end in prev.intervals()]
    good = acc["good_bytes"]
    return (
        spec.host,
        spec.file,
        spec.path,
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
        acc["first_gtid"],
        acc["last_gtid"],
        acc["n_txn"],
        acc["n_gtid"],
        acc["n_anon"],
        acc["events"],
        bool(res.in_use) if res.server_version is not None else None,
        res.ends_with,
        res.next_file,
        acc["first_ts"],
        acc["last_ts"],
        acc["status"],
        acc["error"],
        acc["error_offset"],
        good,
        spec.size - good,
    )


def transaction_rows(spec: FileSpec, *, verify_checksum: bool = True) -> Iterator[tuple]:
    """``level=transactions``: just the transaction rows of one file."""
    for kind, txn, _ in scan_records(spec, verify_checksum=verify_checksum):
        if kind == "txn":
            yield txn


def file_rows(spec: FileSpec, *, verify_checksum: bool = True) -> Iterator[tuple]:
    """``level=files``: the single file row (the file is still read to its end to count and verify it)."""
    for kind, _, row in scan_records(spec, verify_checksum=verify_checksum):
        if kind == "file":
            yield row


def event_rows(spec: FileSpec, *, verify_checksum: bool = True) -> Iterator[tuple]:
    """``level=events``: one row per event (schemas.EVENT_FIELDS), inner events of a Transaction_payload
    included (``in_payload``); a fault ends the stream with a row of type ``ERROR`` at the fault's offset whose
    ``info`` is the error message."""
    from gtidkit.binlog.constants import event_type_name
    from gtidkit.binlog.file import read_events

    last_end = 4
    try:
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
                spec.host, spec.file, int(pe.pos), int(pe.end_pos),
                event_type_name(h.type_code), int(h.type_code),
                int(h.timestamp), int(h.server_id), int(h.event_size), int(h.flags), bool(pe.in_payload),
                gtid, None if lc is None else int(lc), None if sn is None else int(sn), info,
            )
    except BinlogDecodeError as err:
        off = err.offset if err.offset is not None else last_end
        yield (spec.host, spec.file, int(off), spec.size, "ERROR", err.event_type, None, None, None, None, False,
               None, None, None, clean_text(err.message))
    except OSError as err:
        yield (spec.host, spec.file, 0, spec.size, "ERROR", None, None, None, None, None, False,
               None, None, None, f"{type(err).__name__}: {err}")
