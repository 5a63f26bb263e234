"""Real MySQL 8.0 binlogs with ENUM, SET, CHAR/VARCHAR/TEXT/BLOB and INVISIBLE columns, applied by gtidkit's
applier with ``log_replica_updates``: the replica re-logs every Table_map and rows event byte for byte as the MySQL
source wrote it (column types, metadata, null bitmap, the optional metadata fields and the row images).

The oracle is the fixture itself (a real mysqld wrote it): ENUM index / SET bit set in 1 byte with (247|248, 1) as
metadata, CHAR(128)/VARCHAR(300) utf8mb4 lengths 512/1200, ENUM_STR_VALUE / SET_STR_VALUE /
ENUM_AND_SET_DEFAULT_CHARSET, COLUMN_CHARSET (255, 63) for a TEXT and a BLOB, COLUMN_VISIBILITY.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gtidkit.binlog.events.rows import RowsEvent, TableMapEvent
from gtidkit.binlog.file import read_events, read_transactions
from gtidkit.engine import Server
from gtidkit.gtid import GtidSet
from gtidkit.replication.applier import Applier
from gtidkit.replication.relay_log import RelayLog

sys.path.insert(0, str(Path(__file__).parent))
from relay_helpers import dump_stream

#: (fixture, a query on the replica after the apply, its rows): each file's first transaction is an ALTER USER of
#: the source's root account, which the replica has already (marked executed).
FIXTURES = [
    ("blackbeam__rust_mysql_common/mysql-enum-string-set.000001", "SELECT COUNT(*) FROM mysql.t", [(0,)]),
    (
        "blackbeam__rust_mysql_common/binlog-invisible-columns.000001",
        "SELECT f1, f2, f3, f6 FROM mysql.t1 ORDER BY f3",
        [(111, 222, -333, None), (1, 2, -3, 6000000000)],
    ),
]


def _row_events(path: Path) -> list[tuple]:
    out: list[tuple] = []
    for pe in read_events(path):
        ev = pe.event
        if isinstance(ev, TableMapEvent):
            out.append(("map", ev.column_types, ev.metadata, ev.null_bitmap, ev.optional_metadata))
        elif isinstance(ev, RowsEvent):
            out.append(("rows", ev.type_code, ev.body))
    return out


@pytest.mark.parametrize(("name", "query", "rows"), FIXTURES, ids=[f[0].split("/")[-1] for f in FIXTURES])
def test_replica_relogs_mysql_row_events_byte_for_byte(tmp_path, binlog_fixtures, name, query, rows):
    path = binlog_fixtures / name
    trxs = read_transactions(path).transactions
    with Server.open(
        tmp_path / "r", log_bin=True, log_replica_updates=True, server_id=2, binlog_row_metadata="FULL"
    ) as srv:
        with srv.session() as s:
            s.execute(f"SET GLOBAL gtid_purged = '{trxs[0].gtid}'")
        relay = RelayLog.open(tmp_path / "r", server=srv, basename="relay-bin")
        applier = Applier(srv, relay)
        applier.start()
        relay.begin_source()
        for ev in dump_stream([path]):
            relay.append(ev)
        assert srv.gtid_state.wait_for_executed(GtidSet.from_gtids(t.gtid for t in trxs), 30)
        assert applier.stop(10) and applier.last_error is None
        relogged = [r for f in srv.binlog.existing_files() for r in _row_events(srv.binlog.path(f))]
        assert relogged == _row_events(path)
        with srv.session() as s:
            assert s.execute(query)[-1].rows == rows
        relay.close()
