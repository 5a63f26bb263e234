"""python-mysql-replication (PyPI mysql-replication) streams from a real `gtidkit server` (tooling.md section 3).

The client is the oracle: it speaks to MySQL in production (SHOW GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM',
SET @master_binlog_checksum, SET @mariadb_slave_capability, COM_REGISTER_SLAVE, COM_BINLOG_DUMP_GTID with its
3-byte empty file name, or SHOW BINARY LOG STATUS + COM_BINLOG_DUMP; its control connection reads
BINLOG_ROW_METADATA) and decodes row values with the Table_map's column names.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pymysql
import pytest
from protocol.server_proc import ServerProcess, running_server
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent, QueryEvent, RotateEvent, XidEvent
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

SOURCE_ARGS = (
    "--log-bin",
    "--gtid-mode=ON",
    "--enforce-gtid-consistency=ON",
    "--server-id=1",
    "--binlog-row-metadata=FULL",  # python-mysql-replication names columns from the Table_map
)
ROW_EVENTS = [GtidEvent, WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent, XidEvent, QueryEvent, RotateEvent]


@pytest.fixture
def source(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server(tmp_path / "d", *SOURCE_ARGS) as srv:
        yield srv


def settings(srv: ServerProcess) -> dict:
    return {"host": "127.0.0.1", "port": srv.port, "user": "root", "password": ""}


def execute(srv: ServerProcess, *statements: str) -> None:
    with (
        pymysql.connect(host="127.0.0.1", port=srv.port, user="root", autocommit=True) as c,
        c.cursor() as cur,
    ):
        for s in statements:
            cur.execute(s)


def uuid_of(srv: ServerProcess) -> str:
    with pymysql.connect(host="127.0.0.1", port=srv.port, user="root") as c, c.cursor() as cur:
        cur.execute("SELECT @@GLOBAL.server_uuid")
        return cur.fetchone()[0]


WORKLOAD = (
    "CREATE DATABASE shop",
    "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(8,2), qty BIGINT)",
    "INSERT INTO shop.items VALUES (1, 'apple', 1.25, 10), (2, 'pear', 2.50, 20)",
    "UPDATE shop.items SET qty = qty + 1 WHERE id = 1",
    "DELETE FROM shop.items WHERE id = 2",
    "INSERT INTO shop.items VALUES (3, 'fig', 9.99, -3)",
)


def collect(stream: BinLogStreamReader, *, until_gtids: int | None = None, timeout: float = 30) -> list:
    out = []
    deadline = time.monotonic() + timeout
    for ev in stream:
        out.append(ev)
        if until_gtids is not None and sum(isinstance(e, GtidEvent) for e in out) >= until_gtids:
            # wait for the last transaction's commit event too
            if isinstance(ev, (XidEvent, QueryEvent)) and not isinstance(out[-2], GtidEvent):
                break
            if isinstance(ev, QueryEvent) and ev.query != "BEGIN":
                break
        assert time.monotonic() < deadline, "stream did not deliver in time"
    return out


def test_non_blocking_auto_position_sees_every_gtid_and_row(source: ServerProcess) -> None:
    execute(source, *WORKLOAD)
    uuid = uuid_of(source)
    stream = BinLogStreamReader(
        connection_settings=settings(source),
        server_id=101,
        auto_position="",
        blocking=False,
        only_events=ROW_EVENTS,
        report_slave=("replica-host", "ru", "rp", 3307),
    )
    try:
        events = list(stream)
    finally:
        stream.close()
    assert [e.gtid for e in events if isinstance(e, GtidEvent)] == [f"{uuid}:{n}" for n in range(1, 7)]
    writes = [r["values"] for e in events if isinstance(e, WriteRowsEvent) for r in e.rows]
    assert writes == [
        {"id": 1, "name": "apple", "price": Decimal("1.25"), "qty": 10},
        {"id": 2, "name": "pear", "price": Decimal("2.50"), "qty": 20},
        {"id": 3, "name": "fig", "price": Decimal("9.99"), "qty": -3},
    ]
    updates = [
        (r["before_values"], r["after_values"])
        for e in events
        if isinstance(e, UpdateRowsEvent)
        for r in e.rows
    ]
    assert [(b["qty"], a["qty"]) for b, a in updates] == [(10, 11)]
    deletes = [r["values"]["id"] for e in events if isinstance(e, DeleteRowsEvent) for r in e.rows]
    assert deletes == [2]
    assert all(e.schema == "shop" and e.table == "items" for e in events if isinstance(e, WriteRowsEvent))


def test_auto_position_skips_what_the_reader_has(source: ServerProcess) -> None:
    execute(source, *WORKLOAD)
    uuid = uuid_of(source)
    stream = BinLogStreamReader(
        connection_settings=settings(source),
        server_id=102,
        auto_position=f"{uuid}:1-4",
        blocking=False,
        only_events=ROW_EVENTS,
    )
    try:
        events = list(stream)
    finally:
        stream.close()
    assert [e.gtid for e in events if isinstance(e, GtidEvent)] == [f"{uuid}:5", f"{uuid}:6"]


def test_blocking_stream_sees_live_commits(source: ServerProcess) -> None:
    execute(source, *WORKLOAD[:2])
    uuid = uuid_of(source)
    stream = BinLogStreamReader(
        connection_settings=settings(source),
        server_id=103,
        auto_position="",
        blocking=True,
        only_events=ROW_EVENTS,
        slave_heartbeat=1,
    )
    got: list = []
    done = threading.Event()

    def read() -> None:
        for ev in stream:
            got.append(ev)
            if isinstance(ev, WriteRowsEvent) and any(r["values"]["id"] == 50 for r in ev.rows):
                done.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 30
        while sum(isinstance(e, GtidEvent) for e in got) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sum(isinstance(e, GtidEvent) for e in got) == 2  # caught up, now blocked in the dump
        for i in range(40, 51):  # commits made while the reader waits
            execute(source, f"INSERT INTO shop.items VALUES ({i}, 'n{i}', {i}.5, {i})")
        assert done.wait(30)
    finally:
        stream.close()
        reader.join(10)
    assert [e.gtid for e in got if isinstance(e, GtidEvent)] == [f"{uuid}:{n}" for n in range(1, 14)]
    ids = [r["values"]["id"] for e in got if isinstance(e, WriteRowsEvent) for r in e.rows]
    assert ids == list(range(40, 51))


def test_file_position_mode(source: ServerProcess) -> None:
    execute(source, *WORKLOAD[:3])
    with pymysql.connect(host="127.0.0.1", port=source.port, user="root") as c, c.cursor() as cur:
        cur.execute("SHOW MASTER STATUS")
        file, pos = cur.fetchone()[:2]
    execute(source, "INSERT INTO shop.items VALUES (7, 'kiwi', 0.5, 7)", "FLUSH BINARY LOGS")
    execute(source, "INSERT INTO shop.items VALUES (8, 'lime', 0.75, 8)")
    stream = BinLogStreamReader(
        connection_settings=settings(source),
        server_id=104,
        log_file=file,
        log_pos=pos,
        resume_stream=True,
        blocking=False,
        only_events=ROW_EVENTS,
    )
    try:
        events = list(stream)
    finally:
        stream.close()
    ids = [r["values"]["id"] for e in events if isinstance(e, WriteRowsEvent) for r in e.rows]
    assert ids == [7, 8]  # from the given position, across the rotation
    rotates = [(e.next_binlog, e.position) for e in events if isinstance(e, RotateEvent)]
    assert ("binlog.000002", 4) in rotates
    # without a position the client asks SHOW BINARY LOG STATUS for the current file and (no resume_stream)
    # dumps it from position 4: only the row written after the rotation
    stream = BinLogStreamReader(
        connection_settings=settings(source), server_id=105, blocking=False, only_events=[WriteRowsEvent]
    )
    try:
        assert [r["values"]["id"] for e in stream for r in e.rows] == [8]
    finally:
        stream.close()


def test_blocking_stream_across_rotations_made_while_streaming(source: ServerProcess) -> None:
    """Commits and FLUSH BINARY LOGS racing the dump: every GTID arrives once, in order, across the files."""
    execute(source, *WORKLOAD[:2])
    uuid = uuid_of(source)
    stream = BinLogStreamReader(
        connection_settings=settings(source),
        server_id=106,
        auto_position="",
        blocking=True,
        only_events=ROW_EVENTS,
    )
    got: list = []
    done, streaming = threading.Event(), threading.Event()

    def read() -> None:
        for ev in stream:
            got.append(ev)
            streaming.set()
            if isinstance(ev, WriteRowsEvent) and any(r["values"]["id"] == 129 for r in ev.rows):
                done.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        # auto_position="" is falsy for the library: it asks SHOW BINARY LOG STATUS and dumps the *current* file from
        # position 4, so the race starts only once the stream is on binlog.000001 (it connects lazily, in the thread)
        assert streaming.wait(60)
        conn = pymysql.connect(host="127.0.0.1", port=source.port, user="root", autocommit=True)
        with conn, conn.cursor() as cur:
            for i in range(100, 130):
                cur.execute(f"INSERT INTO shop.items VALUES ({i}, 'r', 1, {i})")
                if i % 6 == 0:
                    cur.execute("FLUSH BINARY LOGS")
        assert done.wait(60)
    finally:
        stream.close()
        reader.join(10)
    gtids = [e.gtid for e in got if isinstance(e, GtidEvent)]
    assert gtids == [f"{uuid}:{n}" for n in range(1, 33)]
    assert [r["values"]["id"] for e in got if isinstance(e, WriteRowsEvent) for r in e.rows] == list(
        range(100, 130)
    )
    files = [e.next_binlog for e in got if isinstance(e, RotateEvent)]
    assert files[-1] == "binlog.000006" and "binlog.000002" in files


def _text(v: object) -> object:
    """python-mysql-replication 1.0 hands JSON keys and strings back as UTF-8 bytes: compare them as text."""
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, dict):
        return {_text(k): _text(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_text(x) for x in v]
    return v


def test_json_columns_decode_to_the_same_documents(source: ServerProcess) -> None:
    """JSON values travel as MySQL's binary JSON: the client's ``read_binary_json`` reads back each document
    (nested objects and arrays, int16/int32/int64/uint64, doubles, literals, strings past 127 bytes, and a large
    object whose offsets pass 65535)."""
    big = "x" * 70000
    execute(
        source,
        "CREATE DATABASE app",
        "CREATE TABLE app.docs (id INT PRIMARY KEY, doc JSON)",
        """INSERT INTO app.docs VALUES (1, '{"b": [1, -2, 70000, -70000, 5000000000, 18446744073709551615], """
        """"a": {"t": true, "f": false, "n": null}, "pi": 3.25, "s": "héllo"}')""",
        f"""INSERT INTO app.docs VALUES (2, '["{"y" * 200}", [], {{}}, -1]'), (3, '"{big}"'), (4, NULL)""",
        f"""INSERT INTO app.docs VALUES (5, '{{"k": "{big}", "n": 7}}')""",
        """UPDATE app.docs SET doc = JSON_OBJECT('a', 1) WHERE id = 1""",
    )
    with pymysql.connect(host="127.0.0.1", port=source.port, user="root") as c, c.cursor() as cur:
        # PyMySQL decodes a JSON column (type 245, binary charset) as text in the connection's encoding
        cur.execute("SELECT doc FROM app.docs WHERE id = 1")
        assert cur.description[0][1] == 245
        assert cur.fetchone() == ('{"a": 1}',)
    stream = BinLogStreamReader(
        connection_settings=settings(source),
        server_id=105,
        auto_position="",
        blocking=False,
        only_events=ROW_EVENTS,
    )
    try:
        events = list(stream)
    finally:
        stream.close()
    writes = {
        r["values"]["id"]: _text(r["values"]["doc"])
        for e in events
        if isinstance(e, WriteRowsEvent)
        for r in e.rows
    }
    assert writes[1] == {
        "b": [1, -2, 70000, -70000, 5000000000, 18446744073709551615],
        "a": {"t": True, "f": False, "n": None},
        "pi": 3.25,
        "s": "héllo",
    }
    assert writes[2] == ["y" * 200, [], {}, -1]
    assert writes[3] == big
    assert writes[4] is None
    assert writes[5] == {"k": big, "n": 7}
    updates = [
        (_text(r["before_values"]["doc"]), _text(r["after_values"]["doc"]))
        for e in events
        if isinstance(e, UpdateRowsEvent)
        for r in e.rows
    ]
    assert updates == [(writes[1], {"a": 1})]
