"""Per-server-version tables: the FDE post-header length arrays and server version parsing.

A binlog writer announces, in its Format_description_event, one post-header length per event type it knows
(index = type code − 1). The arrays below are copied from real FDEs of each version (see
../shared/research/fixtures/binlogs/, checked by ``tests/binlog/test_versions.py``) and from
../shared/research/formats.md §1.4. MySQL source: ``Format_description_event::Format_description_event``
(``libs/mysql/binlog/event/control_events.cpp``), which builds the same table for the running server.

Version cut-overs marked [uncertain] are inferred from release notes, not from a real file of that version.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right

from gtidkit.binlog.constants import CHECKSUM_VERSION_SPLIT, EventType

_T = EventType

# Post-header lengths that never changed across versions, by type code.
_COMMON: dict[int, int] = {
    _T.START_EVENT_V3: 56,
    _T.QUERY_EVENT: 13,
    _T.STOP_EVENT: 0,
    _T.ROTATE_EVENT: 8,
    _T.INTVAR_EVENT: 0,
    _T.LOAD_EVENT: 18,
    _T.SLAVE_EVENT: 0,
    _T.CREATE_FILE_EVENT: 4,
    _T.APPEND_BLOCK_EVENT: 4,
    _T.EXEC_LOAD_EVENT: 4,
    _T.DELETE_FILE_EVENT: 4,
    _T.NEW_LOAD_EVENT: 18,
    _T.RAND_EVENT: 0,
    _T.USER_VAR_EVENT: 0,
    _T.FORMAT_DESCRIPTION_EVENT: 0,  # filled in: 57 + number of types
    _T.XID_EVENT: 0,
    _T.BEGIN_LOAD_QUERY_EVENT: 4,
    _T.EXECUTE_LOAD_QUERY_EVENT: 26,
    _T.TABLE_MAP_EVENT: 8,
    _T.PRE_GA_WRITE_ROWS_EVENT: 0,
    _T.PRE_GA_UPDATE_ROWS_EVENT: 0,
    _T.PRE_GA_DELETE_ROWS_EVENT: 0,
    _T.WRITE_ROWS_EVENT_V1: 8,
    _T.UPDATE_ROWS_EVENT_V1: 8,
    _T.DELETE_ROWS_EVENT_V1: 8,
    _T.INCIDENT_EVENT: 2,
    _T.HEARTBEAT_LOG_EVENT: 0,
    _T.IGNORABLE_LOG_EVENT: 0,
    _T.ROWS_QUERY_LOG_EVENT: 0,
    _T.WRITE_ROWS_EVENT: 10,
    _T.UPDATE_ROWS_EVENT: 10,
    _T.DELETE_ROWS_EVENT: 10,
    _T.GTID_LOG_EVENT: 42,
    _T.ANONYMOUS_GTID_LOG_EVENT: 42,
    _T.PREVIOUS_GTIDS_LOG_EVENT: 0,
    _T.TRANSACTION_CONTEXT_EVENT: 18,
    _T.VIEW_CHANGE_EVENT: 52,
    _T.XA_PREPARE_LOG_EVENT: 0,
    _T.PARTIAL_UPDATE_ROWS_EVENT: 10,
    _T.TRANSACTION_PAYLOAD_EVENT: 40,  # sic: MySQL stores the enum value, not a length
    _T.HEARTBEAT_LOG_EVENT_V2: 0,
    _T.GTID_TAGGED_LOG_EVENT: 0,
}

# 8.0 stopped announcing lengths for event types it can no longer write (Start_v3, Load, …): zero them.
_ZEROED_80 = (
    _T.START_EVENT_V3,
    _T.LOAD_EVENT,
    _T.CREATE_FILE_EVENT,
    _T.EXEC_LOAD_EVENT,
    _T.NEW_LOAD_EVENT,
)
# 8.4 (and 9.x) also dropped the v1 rows events.
_ZEROED_84 = _ZEROED_80 + (_T.WRITE_ROWS_EVENT_V1, _T.UPDATE_ROWS_EVENT_V1, _T.DELETE_ROWS_EVENT_V1)


def _table(n_types: int, overrides: dict[int, int] | None = None, zeroed: tuple[int, ...] = ()) -> bytes:
    lengths = dict(_COMMON)
    lengths.update(overrides or {})
    for t in zeroed:
        lengths[t] = 0
    lengths[_T.FORMAT_DESCRIPTION_EVENT] = 57 + n_types
    return bytes(lengths[t] for t in range(1, n_types + 1))


_GTID_56: dict[int, int] = {_T.GTID_LOG_EVENT: 25, _T.ANONYMOUS_GTID_LOG_EVENT: 25}

#: (first server version, post-header length array) in ascending order: a writer of version v uses the last
#: entry whose version is <= v.
POST_HEADER_TABLES: tuple[tuple[tuple[int, int, int], bytes], ...] = (
    ((5, 0, 0), _table(18)),  # 5.0: up to EXECUTE_LOAD_QUERY [real 5.0.16..5.0.91 files]
    ((5, 1, 0), _table(26)),  # 5.1: + Table_map, rows v0/v1, Incident [real 5.1.23..5.1.43]
    ((5, 5, 0), _table(27)),  # 5.5: + Heartbeat [real 5.5.33]
    ((5, 6, 0), _table(32)),  # 5.6 milestones: + Ignorable, Rows_query, rows v2 [real 5.6.4-m7]
    ((5, 6, 5), _table(35, _GTID_56)),  # 5.6.5+: + Gtid, Anonymous_gtid (25), Previous_gtids [5.6.16..5.6.51]
    ((5, 7, 5), _table(37)),  # 5.7.5: Gtid 42 (logical clock), Transaction_context, View_change [5.7.6-m16]
    ((5, 7, 7), _table(38)),  # 5.7.7+: + XA_prepare [real 5.7.12..5.7.44]
    ((8, 0, 0), _table(38, zeroed=_ZEROED_80)),  # 8.0.0: obsolete types zeroed [real 8.0.2]
    ((8, 0, 3), _table(39, zeroed=_ZEROED_80)),  # 8.0.3: + Partial_update_rows [real 8.0.17]
    ((8, 0, 20), _table(40, zeroed=_ZEROED_80)),  # 8.0.20: + Transaction_payload [real 8.0.22, 8.0.26]
    ((8, 0, 27), _table(41, zeroed=_ZEROED_80)),  # + Heartbeat_v2 [real 8.0.28..8.0.40; 8.0.27 uncertain]
    (
        (8, 3, 0),
        _table(42, zeroed=_ZEROED_84),
    ),  # 8.3: + Gtid_tagged [real 8.4.10, 9.0.1, 9.6.0; 8.3 uncertain]
)
_TABLE_KEYS = [k for k, _ in POST_HEADER_TABLES]

_VERSION_RE = re.compile(r"^\s*(\d+)\.(\d+)\.(\d+)")


@functools.lru_cache(maxsize=64)
def parse_server_version(text: str) -> tuple[int, int, int]:
    """``"5.6.51-91.0-log"`` → ``(5, 6, 51)`` (MySQL's ``do_server_version_split``).

    Returns ``(0, 0, 0)`` for text that does not start with three dotted numbers, as MySQL does. Cached: a
    server asks for its own release's number at every commit (``Release.gtid_table_on_commit``).
    """
    m = _VERSION_RE.match(text)
    if not m:
        return (0, 0, 0)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def server_version_number(text: str) -> int:
    """Server version as the integer of Gtid events: major·10000 + minor·100 + patch (``8.0.36`` → 80036)."""
    major, minor, patch = parse_server_version(text)
    return major * 10000 + minor * 100 + patch


def is_mariadb(server_version: str) -> bool:
    """True when an FDE's server version string names MariaDB."""
    return "mariadb" in server_version.lower()


def has_checksum_alg(server_version: str) -> bool:
    """True when an FDE written by this version ends with the checksum algorithm byte (>= 5.6.1)."""
    return parse_server_version(server_version) >= CHECKSUM_VERSION_SPLIT


def post_header_lengths_for(server_version: str) -> bytes:
    """MySQL's post-header length array for ``server_version`` (index = type code − 1).

    Raises:
        ValueError: for versions older than 5.0 (binlog v4 starts with 5.0).
    """
    v = parse_server_version(server_version)
    i = bisect_right(_TABLE_KEYS, v) - 1
    if i < 0:
        raise ValueError(f"no binlog v4 post-header table for server version {server_version!r} (< 5.0)")
    return POST_HEADER_TABLES[i][1]
