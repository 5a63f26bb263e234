"""REQUIRE_ROW_FORMAT's check of one relay-log transaction (replication/row_format.py), table-driven.

Oracle: the manual's REQUIRE_ROW_FORMAT (CHANGE REPLICATION SOURCE TO) and WL#12968's requirements as mysql-test
``rpl_channel_require_row_format`` states them: a channel with the option stops on a DML statement logged in
statement format, on LOAD DATA / INTVAR / RAND / USER_VAR events and on CREATE / DROP TEMPORARY TABLE; transaction
control, DDL and row events pass. The error is 3944 ER_CLIENT_QUERY_FAILURE_INVALID_NON_ROW_FORMAT.
"""

from __future__ import annotations

import pytest

from gtidkit.binlog.constants import EventType
from gtidkit.binlog.events.statement import IntvarEvent, QueryEvent
from gtidkit.binlog.file import PositionedEvent
from gtidkit.binlog.header import EventHeader
from gtidkit.engine.apply import BinlogTransaction
from gtidkit.errors import MySQLError
from gtidkit.replication.row_format import check_row_format


def _ev(type_code: int, event: object) -> PositionedEvent:
    return PositionedEvent("relay", 4, 100, EventHeader(0, type_code, 1, 96, 100, 0), event)


def _query(text: str) -> PositionedEvent:
    return _ev(EventType.QUERY_EVENT, QueryEvent(1, 0, 0, b"", "d", text))


def _trx(*events: PositionedEvent) -> BinlogTransaction:
    return BinlogTransaction(list(events), "relay", 100, "binlog.000001", 100)


CASES = [
    pytest.param([_query("BEGIN"), _query("COMMIT")], False, id="begin-commit"),
    pytest.param([_query("CREATE TABLE t (a INT)")], False, id="ddl"),
    pytest.param([_query("XA START 'x'"), _query("XA END 'x'")], False, id="xa"),
    pytest.param([_query("CREATE DATABASE d2")], False, id="create-database"),
    pytest.param([_query("GRANT SELECT ON d.* TO u")], False, id="account"),
    pytest.param([_query("OPTIMIZE TABLE t")], False, id="admin"),
    pytest.param([_query("TRUNCATE TABLE t")], False, id="truncate"),
    pytest.param([_query("INSERT INTO t SELECT * FROM u")], True, id="statement-insert-select"),
    pytest.param(
        [_query("BEGIN"), _query("INSERT INTO t VALUES (1)"), _query("COMMIT")], True, id="statement-dml"
    ),
    pytest.param([_query("UPDATE t SET a = 2")], True, id="statement-update"),
    pytest.param(
        [_query("BEGIN"), _ev(EventType.INTVAR_EVENT, IntvarEvent(2, 5)), _query("COMMIT")], True, id="intvar"
    ),
    pytest.param([_query("CREATE TEMPORARY TABLE tt (a INT)")], True, id="create-temporary"),
    pytest.param([_query("DROP TEMPORARY TABLE IF EXISTS tt")], True, id="drop-temporary"),
]


@pytest.mark.parametrize(("events", "refused"), CASES)
def test_check_row_format(events, refused):
    trx = _trx(*events)
    if not refused:
        check_row_format(trx)
        return
    with pytest.raises(MySQLError) as e:
        check_row_format(trx)
    assert (e.value.code, e.value.message) == (
        3944,
        "The query does not comply with variable require_row_format restrictions.",
    )
