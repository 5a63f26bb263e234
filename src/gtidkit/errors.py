"""The single error tree of gtidkit.

Every error gtidkit raises derives from :class:`GtidkitError`. Where MySQL has an error code for a condition,
the error carries it (``code``, ``sqlstate``) with MySQL's message text, so a user sees what ``mysqld`` would say.
Sources: MySQL ``share/messages_to_clients.txt``; error numbers in ``../shared/research/formats.md`` §9.
"""

from __future__ import annotations


class GtidkitError(Exception):
    """Base of every error raised by gtidkit."""


class MySQLError(GtidkitError):
    """An error with MySQL's code, SQLSTATE and message text.

    Args:
        code: MySQL error number (e.g. 1772).
        message: the message text exactly as MySQL formats it.
        sqlstate: five-character SQLSTATE (``HY000`` when MySQL uses no specific one).
    """

    def __init__(self, code: int, message: str, sqlstate: str = "HY000") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.sqlstate = sqlstate

    def __str__(self) -> str:
        return f"ERROR {self.code} ({self.sqlstate}): {self.message}"


class GtidParseError(MySQLError, ValueError):
    """Malformed GTID or GTID-set text or binary encoding.

    ``code`` is 1772 (ER_MALFORMED_GTID_SET_SPECIFICATION), 1773 (ER_MALFORMED_GTID_SET_ENCODING) or 1774
    (ER_MALFORMED_GTID_SPECIFICATION). ``text`` is the offending input and ``position`` the character (text) or
    byte (binary) offset where parsing failed, or ``None`` when unknown.
    """

    def __init__(self, code: int, message: str, text: str | bytes | None = None, position: int | None = None):
        super().__init__(code, message, "HY000")
        self.text = text
        self.position = position


#: The issue tracker calls it GtidError; one class, two names.
GtidError = GtidParseError


class BinlogDecodeError(GtidkitError):
    """A binary log (or a single event) could not be decoded.

    Args:
        message: what went wrong.
        file: the file name (``None`` for bytes not read from a file).
        offset: byte offset in the file (or buffer) of the event where decoding failed.
        event_type: the event type code being decoded, if known.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        offset: int | None = None,
        event_type: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.offset = offset
        self.event_type = event_type

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(f"file {self.file}")
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        if self.event_type is not None:
            where.append(f"event type {self.event_type}")
        return f"{self.message} ({', '.join(where)})" if where else self.message


class ChecksumMismatchError(BinlogDecodeError):
    """An event's CRC32 footer does not match its bytes."""


#: The issue tracker calls it BinlogError; one class, two names.
BinlogError = BinlogDecodeError


class ProtocolError(GtidkitError):
    """MySQL wire-protocol violation (h11 style: see subclasses).

    Args:
        message: what went wrong.
        code: MySQL's error number for it when MySQL has one (e.g. 1153 ER_NET_PACKET_TOO_LARGE, 1156
            ER_NET_PACKETS_OUT_OF_ORDER, 1047 ER_UNKNOWN_COM_ERROR), else None.
        sqlstate: SQLSTATE sent with ``code`` (``08S01`` for network errors).
    """

    def __init__(self, message: str, *, code: int | None = None, sqlstate: str = "08S01") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.sqlstate = sqlstate


class LocalProtocolError(ProtocolError):
    """We (the caller of the protocol library) misused the API."""


class RemoteProtocolError(ProtocolError):
    """The peer sent bytes that break the protocol."""
