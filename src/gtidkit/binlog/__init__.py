"""gtidkit.binlog: MySQL binary-log event codecs (pure, no I/O) and the file reader (``binlog/file.py``).

Byte layouts follow MySQL's libbinlogevents (``libs/mysql/binlog/event/``) and
../shared/research/formats.md §1-3. Every event class decodes and encodes (mirror images); unknown event types
are kept as :class:`UnknownEvent`. The writer (``gtidkit.binlog.writer``) is imported by its full module
path; the fleet/corpus generator lives apart from the codecs, in :mod:`gtidkit.generate`.
"""

from gtidkit.binlog.codec import BinlogEvent, UnknownEvent, decode_event, encode_event
from gtidkit.binlog.constants import (
    EVENT_TYPE_NAMES,
    ChecksumAlg,
    EventFlags,
    EventType,
    GtidFlags,
    event_type_name,
)
from gtidkit.binlog.cursor import Cursor, Writer
from gtidkit.binlog.events import (
    FormatDescriptionEvent,
    GtidEvent,
    HeartbeatEvent,
    HeartbeatV2Event,
    IntvarEvent,
    PreviousGtidsEvent,
    QueryEvent,
    RandEvent,
    RotateEvent,
    RowsEvent,
    RowsQueryEvent,
    StopEvent,
    TableMapEvent,
    TransactionPayloadEvent,
    UserVarEvent,
    XidEvent,
)
from gtidkit.binlog.file import (
    FileScan,
    FileScanner,
    FrameReader,
    PositionedEvent,
    StreamScanner,
    TransactionRead,
    iter_transactions,
    read_events,
    read_previous_gtids,
    read_transactions,
    scan_file,
    scan_stream,
)
from gtidkit.binlog.header import EventHeader
from gtidkit.binlog.stream import NEED_DATA, BinlogStream
from gtidkit.binlog.transactions import Transaction, TransactionParser
from gtidkit.errors import BinlogDecodeError, BinlogError, ChecksumMismatchError

__all__ = [
    "EVENT_TYPE_NAMES",
    "NEED_DATA",
    "BinlogDecodeError",
    "BinlogError",
    "BinlogEvent",
    "BinlogStream",
    "ChecksumAlg",
    "ChecksumMismatchError",
    "Cursor",
    "EventFlags",
    "EventHeader",
    "EventType",
    "FileScan",
    "FileScanner",
    "FormatDescriptionEvent",
    "FrameReader",
    "GtidEvent",
    "GtidFlags",
    "HeartbeatEvent",
    "HeartbeatV2Event",
    "IntvarEvent",
    "PositionedEvent",
    "PreviousGtidsEvent",
    "QueryEvent",
    "RandEvent",
    "RotateEvent",
    "RowsEvent",
    "RowsQueryEvent",
    "StopEvent",
    "StreamScanner",
    "TableMapEvent",
    "Transaction",
    "TransactionParser",
    "TransactionPayloadEvent",
    "TransactionRead",
    "UnknownEvent",
    "UserVarEvent",
    "Writer",
    "XidEvent",
    "decode_event",
    "encode_event",
    "event_type_name",
    "iter_transactions",
    "read_events",
    "read_previous_gtids",
    "read_transactions",
    "scan_file",
    "scan_stream",
]
