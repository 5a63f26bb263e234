"""One frozen dataclass per binlog event, grouped by family as in MySQL's libbinlogevents.

Each class has ``decode(body: Cursor, fde) -> event`` and ``encode(out: Writer, fde)``, mirror images of each
other; rows events and unknown events carry their type code (``decode_typed``).
"""

from gtidkit.binlog.events.control import (
    FormatDescriptionEvent,
    GtidEvent,
    HeartbeatEvent,
    HeartbeatV2Event,
    PreviousGtidsEvent,
    RotateEvent,
    StopEvent,
    TransactionPayloadEvent,
    XidEvent,
)
from gtidkit.binlog.events.rows import RowsEvent, RowsQueryEvent, TableMapEvent
from gtidkit.binlog.events.statement import IntvarEvent, QueryEvent, RandEvent, UserVarEvent, query_kind

__all__ = [
    "FormatDescriptionEvent",
    "GtidEvent",
    "HeartbeatEvent",
    "HeartbeatV2Event",
    "IntvarEvent",
    "PreviousGtidsEvent",
    "QueryEvent",
    "RandEvent",
    "RotateEvent",
    "RowsEvent",
    "RowsQueryEvent",
    "StopEvent",
    "TableMapEvent",
    "TransactionPayloadEvent",
    "UserVarEvent",
    "XidEvent",
    "query_kind",
]
