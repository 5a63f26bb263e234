"""Client-side helpers for reading your own writes: the GTIDs a server reported in its last OK packet.

No stock Python client exposes SESSION_TRACK_GTIDS (``../shared/research/tooling.md`` section 2). PyMySQL, asked for
``CLIENT.SESSION_TRACK``, keeps the bytes after the OK packet's warning count in ``conn._result.message`` (lenenc
info, then the lenenc session-state block) and the status flags in ``conn.server_status``; this module decodes them
with the same codec the server uses (:mod:`gtidkit.protocol.session_tracker`). ``conn.commit()`` discards its OK
packet in PyMySQL, so commit with ``cursor.execute("COMMIT")`` to see the GTID of the commit.

Example::

    conn = pymysql.connect(..., client_flag=pymysql.constants.CLIENT.SESSION_TRACK, autocommit=True)
    conn.cursor().execute("SET session_track_gtids = OWN_GTID")
    conn.cursor().execute("INSERT INTO t VALUES (1)")
    last_gtids(conn)            # GtidSet of what that INSERT committed
"""

from __future__ import annotations

from typing import Any

from gtidkit.errors import RemoteProtocolError
from gtidkit.gtid import GtidSet
from gtidkit.protocol.constants import ServerStatus, SessionStateType
from gtidkit.protocol.session_tracker import TrackedChange, decode_state
from gtidkit.protocol.wire import Reader


def session_state(after_warnings: bytes, status_flags: int) -> list[TrackedChange]:
    """The session-state entries of an OK packet, given the bytes after its warning count.

    Returns an empty list when SERVER_SESSION_STATE_CHANGED is not set.

    Raises:
        RemoteProtocolError: the bytes are not a well-formed info string + state block.
    """
    if not status_flags & ServerStatus.SERVER_SESSION_STATE_CHANGED or not after_warnings:
        return []
    r = Reader(after_warnings)
    r.lenenc_str()  # the info string
    if not r.remaining():
        raise RemoteProtocolError("SERVER_SESSION_STATE_CHANGED without a session-state block")
    return decode_state(r.lenenc_str())


def last_gtids(conn: Any) -> GtidSet | None:
    """The GTID set a PyMySQL connection's last OK packet reported (``session_track_gtids``), or None.

    Args:
        conn: a ``pymysql.connections.Connection`` opened with ``client_flag=CLIENT.SESSION_TRACK``.

    Raises:
        RemoteProtocolError: malformed session-state bytes.
        gtidkit.errors.GtidParseError: the reported text is not a GTID set.
    """
    result = getattr(conn, "_result", None)
    message = getattr(result, "message", None) if result is not None else None
    if not isinstance(message, (bytes, bytearray)):
        return None
    entries = session_state(bytes(message), int(getattr(conn, "server_status", 0)))
    texts = [e.value for e in entries if e.type == SessionStateType.SESSION_TRACK_GTIDS]
    if not texts:
        return None
    return GtidSet.parse(",".join(texts))
