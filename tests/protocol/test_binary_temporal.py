"""Binary-protocol (COM_STMT_EXECUTE result) forms of temporal values the engine holds as MySQL's text.

Layouts from the client/server protocol manual ("Binary Protocol Value", MYSQL_TYPE_TIME / MYSQL_TYPE_DATETIME) and
libmysql's ``net_store_time`` / ``net_store_datetime``: TIME is ``length, is_negative, days (4), hour, minute,
second[, microsecond (4)]`` with length 0, 8 or 12; DATE / DATETIME / TIMESTAMP ``length, year (2), month, day[, hour,
minute, second[, microsecond (4)]]`` with length 0 (all zero), 4, 7 or 11 - so a negative TIME beyond a day, a
partial date and the zero date, which no Python value holds, still go out in MySQL's binary form.
"""

from __future__ import annotations

import pytest

from gtidkit.engine.results import FieldType
from gtidkit.protocol.messages import binary_value

T = FieldType


@pytest.mark.parametrize(
    ("ftype", "text", "hex_"),
    [
        (T.MYSQL_TYPE_TIME, "-838:59:59", "080122000000163b3b"),
        (T.MYSQL_TYPE_TIME, "-838:59:58.500", "0c0122000000163b3a20a10700"),
        (T.MYSQL_TYPE_TIME, "26:03:04", "080001000000020304"),
        (T.MYSQL_TYPE_TIME, "00:00:00.000", "00"),
        (T.MYSQL_TYPE_DATE, "2024-00-15", "04e807000f"),
        (T.MYSQL_TYPE_DATE, "0000-00-00", "00"),
        (T.MYSQL_TYPE_DATETIME, "0000-00-00 00:00:00.00", "00"),
        (T.MYSQL_TYPE_DATETIME, "2024-02-00 10:00:00", "07e80702000a0000"),
        (T.MYSQL_TYPE_DATETIME, "2024-01-02 03:04:05.124", "0be807010203040560e40100"),
        (T.MYSQL_TYPE_TIMESTAMP, "2024-01-02 00:00:00", "04e8070102"),
    ],
    ids=lambda v: str(v)[:26],
)
def test_temporal_text_in_binary_form(ftype: int, text: str, hex_: str) -> None:
    assert binary_value(text, ftype).hex() == hex_
