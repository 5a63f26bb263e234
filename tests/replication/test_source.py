"""The source side over real `gtidkit server` processes, byte by byte (formats.md section 7, rpl_binlog_sender.cc).

Expected layouts are MySQL's: the fake Rotate (timestamp 0, log_pos 0, flags 0x20 LOG_EVENT_ARTIFICIAL_F, body u64
position + file name, CRC32 only when the replica declared a checksum), the file's own FDE with IN_USE cleared
(log_pos and create_timestamp zeroed when a file/pos dump starts past 4), the file's events byte for byte, Heartbeat
(type 27, timestamp 0, log_pos = the position, body = file name), EOF at the end of a non-blocking dump, ERR 1236
with the sender's texts (8.0.26+ wording).
"""

from __future__ import annotations

import struct
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest
from protocol.server_proc import ServerProcess, running_server

from gtidkit.gtid import GtidSet
from replication.cluster import wait_until

SOURCE_ARGS = ("--log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")
NON_BLOCK = 0x01


#: one process and supervised (issue 21): dump threads and replication clients through the hand-off
pytestmark = pytest.mark.usefixtures("server_mode")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory, server_mode: str) -> Iterator[ServerProcess]:
    """A source with db.t and five committed transactions (GTIDs 1-5)."""
    with running_server(tmp_path_factory.mktemp("src") / "d", *SOURCE_ARGS) as srv:
        with connect(srv) as c, c.cursor() as cur:
            cur.execute("CREATE DATABASE db")
            cur.execute("CREATE TABLE db.t (id INT PRIMARY KEY, v VARCHAR(20))")
            for i in range(3):
                cur.execute("INSERT INTO db.t VALUES (%s, %s)", (i, f"v{i}"))
        yield srv


def connect(srv: ServerProcess, user: str = "root", password: str = "") -> pymysql.Connection:
    """A client connection (autocommit)."""
    return pymysql.connect(host="127.0.0.1", port=srv.port, user=user, password=password, autocommit=True)


def server_uuid(srv: ServerProcess) -> str:
    with connect(srv) as c, c.cursor() as cur:
        cur.execute("SELECT @@GLOBAL.server_uuid")
        return cur.fetchone()[0]


def binlog_bytes(srv: ServerProcess, name: str = "binlog.000001") -> bytes:
    """The file as the source wrote it (the input the dump must reproduce)."""
    return (srv.datadir / name).read_bytes()


def file_events(data: bytes) -> list[tuple[int, bytes]]:
    """(offset, raw event) of every event of a binlog file."""
    out, pos = [], 4
    while pos + 19 <= len(data):
        size = struct.unpack_from("<I", data, pos + 9)[0]
        out.append((pos, data[pos : pos + size]))
        pos += size
    return out


def header(ev: bytes) -> tuple[int, int, int, int, int, int]:
    """(timestamp, type, server_id, size, log_pos, flags)."""
    return struct.unpack_from("<IBIIIH", ev, 0)


def crc_ok(ev: bytes) -> bool:
    return zlib.crc32(ev[:-4]) == struct.unpack_from("<I", ev, len(ev) - 4)[0]


def dump_gtid_body(
    gtids: GtidSet, *, flags: int = NON_BLOCK, server_id: int = 99, name: bytes = b""
) -> bytes:
    data = gtids.encode()
    return struct.pack("<HII", flags, server_id, len(name)) + name + struct.pack("<QI", 4, len(data)) + data


def dump_body(pos: int, name: str, *, flags: int = NON_BLOCK, server_id: int = 99) -> bytes:
    return struct.pack("<IHI", pos, flags, server_id) + name.encode()


class Stream:
    """A dump connection read packet by packet (PyMySQL checks framing and sequence ids)."""

    def __init__(self, conn: pymysql.Connection) -> None:
        self.conn = conn

    def next(self) -> bytes:
        """The next event (without the 00 byte); raises StopIteration at EOF, OperationalError on ERR."""
        pkt = self.conn._read_packet()  # type: ignore[attr-defined]
        if pkt.is_eof_packet():
            raise StopIteration
        data = pkt.get_all_data()
        assert data[0] == 0
        return data[1:]

    def all(self) -> list[bytes]:
        out = []
        while True:
            try:
                out.append(self.next())
            except StopIteration:
                return out


def start_dump(
    srv: ServerProcess, command: int, body: bytes, *, checksum: bool = True, setup: tuple[str, ...] = ()
) -> Stream:
    conn = connect(srv)
    with conn.cursor() as cur:
        if checksum:
            cur.execute(
                "SET @source_binlog_checksum = @@global.binlog_checksum, "
                "@master_binlog_checksum = @@global.binlog_checksum"
            )
        for q in setup:
            cur.execute(q)
    conn._execute_command(command, body)  # type: ignore[attr-defined]
    return Stream(conn)


def test_gtid_dump_from_scratch_is_fake_rotate_fde_then_the_file(source: ServerProcess) -> None:
    s = start_dump(source, 0x1E, dump_gtid_body(GtidSet()))
    events = s.all()
    s.conn.close()
    data = binlog_bytes(source)
    rot = events[0]
    ts, typ, sid, size, log_pos, flags = header(rot)
    assert (ts, typ, sid, log_pos, flags) == (0, 4, 1, 0, 0x20)
    assert size == len(rot) == 19 + 8 + len("binlog.000001") + 4 and crc_ok(rot)
    assert rot[19:-4] == struct.pack("<Q", 4) + b"binlog.000001"
    file_evs = file_events(data)
    fde = bytearray(file_evs[0][1])
    fde[17] &= ~1  # IN_USE cleared; the CRC was computed with it cleared
    assert events[1] == bytes(fde) and crc_ok(events[1])
    # then every event of the file, byte for byte, up to the end of the flushed data
    assert events[2:] == [raw for _, raw in file_evs[1:]]


def test_file_pos_dump_past_4_zeroes_fde_log_pos_and_created(source: ServerProcess) -> None:
    data = binlog_bytes(source)
    evs = file_events(data)
    gtid_offsets = [pos for pos, raw in evs if raw[4] == 33]
    start = gtid_offsets[2]
    s = start_dump(source, 0x12, dump_body(start, "binlog.000001"))
    events = s.all()
    s.conn.close()
    assert events[0][19:-4] == struct.pack("<Q", start) + b"binlog.000001"
    fde = events[1]
    assert header(fde)[4] == 0  # log_pos 0: the replica must not take it as a position
    assert struct.unpack_from("<I", fde, 19 + 2 + 50)[0] == 0  # create_timestamp 0
    assert crc_ok(fde)  # recomputed after the change
    assert events[2:] == [raw for pos, raw in evs if pos >= start]


def test_file_pos_dump_at_4_keeps_the_fde_log_pos(source: ServerProcess) -> None:
    s = start_dump(source, 0x12, dump_body(4, "binlog.000001"))
    events = s.all()
    s.conn.close()
    evs = file_events(binlog_bytes(source))
    assert header(events[1])[4] == evs[0][0] + len(evs[0][1])
    assert events[2:] == [raw for _, raw in evs[1:]]


def test_skipping_the_replicas_gtids_sends_a_heartbeat_at_the_skipped_end(source: ServerProcess) -> None:
    uuid = server_uuid(source)
    s = start_dump(source, 0x1E, dump_gtid_body(GtidSet.parse(f"{uuid}:1-3")))
    events = s.all()
    s.conn.close()
    evs = file_events(binlog_bytes(source))
    gtid4 = [pos for pos, raw in evs if raw[4] == 33][3]
    # first transaction skipped: create_timestamp zeroed, log_pos kept (GTID protocol)
    assert struct.unpack_from("<I", events[1], 19 + 52)[0] == 0 and header(events[1])[4] != 0
    assert crc_ok(events[1])
    assert events[2][4] == 35  # Previous_gtids
    hb = events[3]
    ts, typ, sid, _size, log_pos, flags = header(hb)
    assert (ts, typ, sid, log_pos, flags) == (0, 27, 1, gtid4, 0)
    assert hb[19:-4] == b"binlog.000001" and crc_ok(hb)
    assert events[4:] == [raw for pos, raw in evs if pos >= gtid4]


def test_all_skipped_ends_with_a_heartbeat_at_the_end(source: ServerProcess) -> None:
    uuid = server_uuid(source)
    s = start_dump(source, 0x1E, dump_gtid_body(GtidSet.parse(f"{uuid}:1-5")))
    events = s.all()
    s.conn.close()
    end = len(binlog_bytes(source))
    assert [e[4] for e in events] == [4, 15, 35, 27]
    assert header(events[-1])[4] == end


def test_no_checksum_declared_is_fatal_after_the_fake_rotate(source: ServerProcess) -> None:
    s = start_dump(source, 0x1E, dump_gtid_body(GtidSet()), checksum=False)
    rot = s.next()
    assert header(rot)[3] == len(rot) == 19 + 8 + len("binlog.000001")  # no CRC: none was declared
    fde_end = file_events(binlog_bytes(source))[0][1]
    fde_end_pos = 4 + len(fde_end)
    with pytest.raises(pymysql.err.OperationalError) as err:
        s.next()
    assert err.value.args == (
        1236,
        (
            "Replica can not handle replication events with the checksum that source is configured to log; "
            f"the first event '' at 4, the last event read from './binlog.000001' at {fde_end_pos}, "
            f"the last byte read from './binlog.000001' at {fde_end_pos}."
        ),
    )
    s.conn.close()


@pytest.mark.parametrize(
    ("pos", "name", "text"),
    [
        (3, "binlog.000001", "Client requested source to start replication from position < 4"),
        (10**9, "binlog.000001", "Client requested source to start replication from position > file size"),
        (4, "binlog.000099", "Could not find first log file name in binary log index file"),
    ],
    ids=["pos-below-4", "pos-past-size", "unknown-file"],
)
def test_file_pos_errors(source: ServerProcess, pos: int, name: str, text: str) -> None:
    s = start_dump(source, 0x12, dump_body(pos, name))
    with pytest.raises(pymysql.err.OperationalError) as err:
        s.next()
    assert err.value.args == (1236, text)
    s.conn.close()


def test_replica_with_more_gtids_of_the_source_uuid(source: ServerProcess) -> None:
    uuid = server_uuid(source)
    s = start_dump(source, 0x1E, dump_gtid_body(GtidSet.parse(f"{uuid}:1-100")))
    with pytest.raises(pymysql.err.OperationalError) as err:
        s.next()
    # 8.0.26+ wording, cut to MYSQL_ERRMSG_SIZE - 1 = 511 bytes as MySQL's diagnostics area does (real replicas
    # report the 5.7 wording ending "...to account for transactions that have been")
    assert err.value.args == (
        1236,
        (
            "Replica has more GTIDs than the source has, using the source's SERVER_UUID. This may indicate that "
            "the end of the binary log was truncated or that the last binary log file was lost, e.g., after a power "
            "or disk failure when sync_binlog != 1. The source may or may not have rolled back transactions that "
            "were already replicated to the replica. Suggest to replicate any transactions that source has rolled "
            "back from replica to source, and/or commit empty transactions on source to account for transactions "
            "that hav"
        ),
    )
    assert len(err.value.args[1]) == 511
    s.conn.close()


def test_malformed_gtid_dump_packet(source: ServerProcess) -> None:
    s = start_dump(source, 0x1E, b"\x01\x00")
    with pytest.raises(pymysql.err.OperationalError) as err:
        s.next()
    assert err.value.args == (1835, "Malformed communication packet.")
    s.conn.close()


def test_dump_needs_replication_slave(source: ServerProcess) -> None:
    with connect(source) as c, c.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS 'plain'@'%' IDENTIFIED BY 'pw'")
    conn = connect(source, "plain", "pw")
    conn._execute_command(0x1E, dump_gtid_body(GtidSet()))  # type: ignore[attr-defined]
    with pytest.raises(pymysql.err.OperationalError) as err:
        conn._read_packet()  # type: ignore[attr-defined]
    assert err.value.args == (
        1227,
        "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this operation",
    )
    with conn.cursor() as cur:  # the connection stays usable, as after check_global_access in MySQL
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
    conn.close()


# ------------------------------------------------------------------------------------ a source of its own
@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server(tmp_path / "d", *SOURCE_ARGS) as srv:
        with connect(srv) as c, c.cursor() as cur:
            cur.execute("CREATE DATABASE db")
            cur.execute("CREATE TABLE db.t (id INT PRIMARY KEY)")
        yield srv


def test_blocking_dump_heartbeats_follows_commits_and_rotations(fresh: ServerProcess) -> None:
    s = start_dump(
        fresh,
        0x1E,
        dump_gtid_body(GtidSet(), flags=0),
        setup=("SET @master_heartbeat_period = 200000000, @source_heartbeat_period = 200000000",),
    )
    first = [s.next() for _ in range(1 + 1 + 1 + 2 * 2)]  # rotate, FDE, Previous_gtids, 2 DDL (Gtid + Query)
    assert [e[4] for e in first] == [4, 15, 35, 33, 2, 33, 2]
    end = len(binlog_bytes(fresh))
    hb = s.next()  # idle: a heartbeat after the period, at the read position
    assert header(hb)[1] == 27 and header(hb)[4] == end and hb[19:-4] == b"binlog.000001"
    # a commit made while the dump waits is sent at once (woken by the binlog)
    with connect(fresh) as c, c.cursor() as cur:
        cur.execute("INSERT INTO db.t VALUES (1)")
        evs = []
        while len(evs) < 5:
            e = s.next()
            if e[4] != 27:
                evs.append(e)
        assert [e[4] for e in evs] == [33, 2, 19, 30, 16]  # Gtid, BEGIN, Table_map, Write_rows, Xid
        cur.execute("FLUSH BINARY LOGS")
    got = []
    while len(got) < 4:
        e = s.next()
        if e[4] != 27:
            got.append(e)
    real_rotate, fake_rotate, fde, prev = got
    assert header(real_rotate)[4] != 0 and real_rotate[19:-4] == struct.pack("<Q", 4) + b"binlog.000002"
    assert header(fake_rotate)[4] == 0 and header(fake_rotate)[5] == 0x20
    assert fake_rotate[19:-4] == struct.pack("<Q", 4) + b"binlog.000002"
    assert fde[4] == 15 and prev[4] == 35
    s.conn.close()


def test_processlist_shows_the_dump_and_a_new_dump_of_the_same_replica_kills_it(fresh: ServerProcess) -> None:
    uuid_setup = (
        (
            "SET @slave_uuid = 'aaaaaaaa-0000-0000-0000-000000000001', "
            "@replica_uuid = 'aaaaaaaa-0000-0000-0000-000000000001'"
        ),
    )
    old = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet(), flags=0, server_id=7), setup=uuid_setup)
    for _ in range(3):
        old.next()
    with connect(fresh) as c, c.cursor() as cur:
        deadline = time.monotonic() + 10
        while True:
            cur.execute("SHOW PROCESSLIST")
            commands = [r[4] for r in cur.fetchall()]
            if "Binlog Dump GTID" in commands or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert "Binlog Dump GTID" in commands
    new = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet(), flags=0, server_id=7), setup=uuid_setup)
    assert new.next()[4] == 4
    with pytest.raises(pymysql.err.OperationalError) as err:
        while True:
            old.next()
    assert err.value.args[0] == 1236
    assert err.value.args[1].startswith(
        "A replica with the same server_uuid/server_id as this replica has connected to the source; "
        "the first event '' at 4, the last event read from './binlog.000001'"
    )
    old.conn.close()
    new.conn.close()


def register_body(
    server_id: int, host: bytes, user: bytes, pw: bytes, port: int, source_id: int = 0
) -> bytes:
    return (
        struct.pack("<I", server_id)
        + bytes([len(host)])
        + host
        + bytes([len(user)])
        + user
        + bytes([len(pw)])
        + pw
        + struct.pack("<HII", port, 0, source_id)
    )


def test_register_slave_and_show_replicas(fresh: ServerProcess) -> None:
    conn = connect(fresh)
    with conn.cursor() as cur:
        cur.execute("SET @replica_uuid = 'aaaaaaaa-0000-0000-0000-000000000002'")
    conn._execute_command(0x15, register_body(42, b"replica-host", b"ru", b"rp", 3307))  # type: ignore[attr-defined]
    assert conn._read_packet().is_ok_packet()  # type: ignore[attr-defined]
    with connect(fresh) as c, c.cursor() as cur:
        cur.execute("SHOW REPLICAS")
        assert [d[0] for d in cur.description] == ["Server_Id", "Host", "Port", "Source_Id", "Replica_UUID"]
        assert cur.fetchall() == ((42, "replica-host", 3307, 1, "aaaaaaaa-0000-0000-0000-000000000002"),)
        cur.execute("SHOW SLAVE HOSTS")
        assert [d[0] for d in cur.description] == ["Server_id", "Host", "Port", "Master_id", "Slave_UUID"]
        assert len(cur.fetchall()) == 1
        conn.close()  # unregister_replica when its connection ends
        deadline = time.monotonic() + 10
        rows: tuple = ((),)
        while rows and time.monotonic() < deadline:
            cur.execute("SHOW REPLICAS")
            rows = cur.fetchall()
            time.sleep(0.05)
        assert rows == ()


def test_register_slave_wrong_parameters(fresh: ServerProcess) -> None:
    conn = connect(fresh)
    conn._execute_command(0x15, struct.pack("<I", 5) + b"\x00\x00\x00")  # type: ignore[attr-defined]
    with pytest.raises(pymysql.err.OperationalError) as err:
        conn._read_packet()  # type: ignore[attr-defined]
    assert err.value.args == (1105, "Wrong parameters when registering replica")
    conn.close()


def test_purged_required_gtids(fresh: ServerProcess) -> None:
    uuid = server_uuid(fresh)
    with connect(fresh) as c, c.cursor() as cur:
        cur.execute("INSERT INTO db.t VALUES (1)")
        cur.execute("FLUSH BINARY LOGS")
        cur.execute("PURGE BINARY LOGS TO 'binlog.000002'")
        cur.execute("SELECT @@GLOBAL.gtid_purged")
        assert cur.fetchone()[0] == f"{uuid}:1-3"
    s = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet.parse(f"{uuid}:1")))
    with pytest.raises(pymysql.err.OperationalError) as err:
        s.next()
    assert err.value.args == (
        1236,
        (
            "Cannot replicate because the source purged required binary logs. Replicate the missing transactions "
            "from elsewhere, or provision a new replica from backup. Consider increasing the source's binary log "
            f"expiration period. The GTID set sent by the replica is '{uuid}:1', and the missing transactions are "
            f"'{uuid}:2-3'"
        ),
    )
    s.conn.close()
    # a replica holding every purged GTID starts in binlog.000002
    s = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet.parse(f"{uuid}:1-3")))
    events = s.all()
    assert events[0][19:-4] == struct.pack("<Q", 4) + b"binlog.000002"
    s.conn.close()


def test_gtid_dump_needs_gtid_mode_on(tmp_path: Path) -> None:
    with running_server(tmp_path / "d", "--log-bin", "--server-id=1", "--gtid-mode=OFF") as srv:
        s = start_dump(srv, 0x1E, dump_gtid_body(GtidSet()))
        with pytest.raises(pymysql.err.OperationalError) as err:
            s.next()
        assert err.value.args == (
            1236,
            (
                "The replication sender thread cannot start in AUTO_POSITION mode: this server has GTID_MODE = OFF "
                "instead of ON."
            ),
        )
        s.conn.close()


def test_concurrent_dumps_see_the_same_stream(fresh: ServerProcess) -> None:
    results: list[list[bytes]] = []

    def one(server_id: int) -> None:  # distinct server ids: the same one would kill the other (zombie)
        s = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet(), server_id=server_id))
        results.append(s.all())
        s.conn.close()

    threads = [threading.Thread(target=one, args=(100 + i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(results) == 3 and results[0] == results[1] == results[2]


def test_heartbeat_v2_when_asked(fresh: ServerProcess) -> None:
    s = start_dump(
        fresh,
        0x1E,
        dump_gtid_body(GtidSet(), flags=0x02),  # USE_HEARTBEAT_EVENT_V2, blocking
        setup=("SET @source_heartbeat_period = 100000000",),
    )
    end = len(binlog_bytes(fresh))
    while True:
        e = s.next()
        if e[4] == 41:
            break
    ts, _typ, sid, _size, log_pos, flags = header(e)
    assert (ts, sid, log_pos, flags) == (0, 1, end, 0) and crc_ok(e)
    name = b"binlog.000001"
    pos = end.to_bytes(2, "little")  # packed int: < 2**16 -> 0xfc + u16
    assert e[19:-4] == bytes([1, len(name)]) + name + bytes([2, 3, 0xFC]) + pos + b"\x00"
    s.conn.close()


def test_checksum_mismatch_with_source_verify_checksum(fresh: ServerProcess) -> None:
    with connect(fresh) as c, c.cursor() as cur:
        cur.execute("INSERT INTO db.t VALUES (1)")
        cur.execute("FLUSH BINARY LOGS")
    # with several workers, each reads the rotation (and binlog.000001's GTIDs) at its next GTID read: let every
    # worker do so before the file is damaged below, as a server reads a closed binlog's GTIDs once
    for _ in range(fresh.workers):
        with connect(fresh) as c, c.cursor() as cur:
            cur.execute("SELECT @@GLOBAL.gtid_executed, @@GLOBAL.gtid_purged")
    path = fresh.datadir / "binlog.000001"
    data = bytearray(path.read_bytes())
    evs = file_events(bytes(data))
    bad_at, bad = next((p, raw) for p, raw in evs if raw[4] == 30)  # the Write_rows event
    data[bad_at + 25] ^= 0xFF  # a body byte: the CRC no longer matches
    path.write_bytes(bytes(data))
    s = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet()))  # source_verify_checksum OFF: sent as it is
    assert bytes(data[bad_at : bad_at + len(bad)]) in s.all()
    s.conn.close()
    with connect(fresh) as c, c.cursor() as cur:
        cur.execute("SET GLOBAL source_verify_checksum = ON")
    s = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet()))
    with pytest.raises(pymysql.err.OperationalError) as err:
        while True:
            s.next()
    assert err.value.args == (
        1236,
        (
            "event read from binlog did not pass crc check; the first event '' at 4, the last event read from "
            f"'./binlog.000001' at {bad_at}, the last byte read from './binlog.000001' at {bad_at + len(bad)}."
        ),
    )
    s.conn.close()


def processlist_ids(srv: ServerProcess) -> set[int]:
    with connect(srv) as c, c.cursor() as cur:
        cur.execute("SHOW PROCESSLIST")
        return {r[0] for r in cur.fetchall()}


def test_kill_ends_a_waiting_dump_and_shutdown_is_not_held_up(fresh: ServerProcess) -> None:
    s = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet(), flags=0, server_id=8))
    for _ in range(3):
        s.next()
    dump_id = s.conn.thread_id()
    assert dump_id in processlist_ids(fresh)
    with connect(fresh) as c, c.cursor() as cur:
        cur.execute(f"KILL {dump_id}")
    with pytest.raises(pymysql.err.OperationalError) as err:
        while True:  # what was sent before the KILL, then the closed connection
            s.next()
    assert err.value.args[0] == 2013
    s.conn.close()
    # the dump thread waits for the binlog with no heartbeat and no polling (nothing is committed): only the
    # KILL's wake-up of that wait ends it, and then its connection leaves the process list
    wait_until(lambda: dump_id not in processlist_ids(fresh), timeout=30, what="the killed dump to end")
    waiting = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet(), flags=0, server_id=9))
    waiting.next()
    assert fresh.stop(timeout=30) == 0  # SIGTERM with a dump blocked in wait_for_update
    waiting.conn.close()


def test_kill_query_ends_a_waiting_dump(fresh: ServerProcess) -> None:
    """MySQL's sender stops on ``thd->killed`` (KILL QUERY too) and the dump command then closes the connection."""
    s = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet(), flags=0, server_id=8))
    for _ in range(3):
        s.next()
    dump_id = s.conn.thread_id()
    assert dump_id in processlist_ids(fresh)
    with connect(fresh) as c, c.cursor() as cur:
        cur.execute(f"KILL QUERY {dump_id}")
        assert cur.description is None  # an OK to the killer, no result set
    s.conn._sock.settimeout(20)  # type: ignore[attr-defined]  # a dump the KILL QUERY missed fails, not hangs
    with pytest.raises(pymysql.err.OperationalError) as err:
        while True:  # what was sent before the KILL QUERY, then the closed connection
            s.next()
    assert err.value.args[0] == 2013 and "timed out" not in str(err.value)
    s.conn.close()
    # nothing is committed and no heartbeat is due: only the KILL QUERY's wake-up ends the wait
    wait_until(lambda: dump_id not in processlist_ids(fresh), timeout=30, what="the KILLed dump to end")


def test_what_replicas_send_first_runs_through_the_engine(source: ServerProcess) -> None:
    """The I/O thread's and python-mysql-replication's opening queries (formats.md 7.5, tooling.md 3)."""
    with connect(source) as c, c.cursor() as cur:
        cur.execute("SELECT UNIX_TIMESTAMP()")
        assert abs(cur.fetchone()[0] - time.time()) < 60
        cur.execute("SELECT @@GLOBAL.SERVER_ID")
        assert cur.fetchone() == (1,)
        cur.execute("SET @master_heartbeat_period = 30000000000, @source_heartbeat_period = 30000000000")
        cur.execute(
            "SET @master_binlog_checksum = @@global.binlog_checksum, "
            "@source_binlog_checksum = @@global.binlog_checksum"
        )
        cur.execute("SELECT @source_binlog_checksum")
        assert cur.fetchone() == ("CRC32",)
        cur.execute("SELECT @master_binlog_checksum")
        assert cur.fetchone() == ("CRC32",)
        cur.execute("SELECT @@GLOBAL.GTID_MODE")
        assert cur.fetchone() == ("ON",)
        cur.execute("SELECT @@GLOBAL.SERVER_UUID")
        assert cur.fetchone() == (server_uuid(source),)
        cur.execute(
            "SET @slave_uuid = 'aaaaaaaa-0000-0000-0000-000000000003', "
            "@replica_uuid = 'aaaaaaaa-0000-0000-0000-000000000003'"
        )
        cur.execute("SET @mariadb_slave_capability=4")
        cur.execute("SHOW GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM'")
        assert cur.fetchall() == (("binlog_checksum", "CRC32"),)
        cur.execute("SHOW VARIABLES LIKE 'BINLOG_ROW_METADATA'")
        assert cur.fetchall() == (("binlog_row_metadata", "MINIMAL"),)  # mysqld's default
        size = len(binlog_bytes(source))
        # 1-5 from the fixture, plus one GTID per account statement an earlier test of this module ran
        cur.execute("SELECT @@GLOBAL.gtid_executed")
        executed = cur.fetchone()[0]
        assert executed.startswith(f"{server_uuid(source)}:1-")
        with pytest.raises(pymysql.err.ProgrammingError) as exc:
            cur.execute("SHOW BINARY LOG STATUS")
        assert exc.value.args[0] == 1064
        for stmt in ("SHOW MASTER STATUS",):
            cur.execute(stmt)
            assert [d[0] for d in cur.description] == [
                "File",
                "Position",
                "Binlog_Do_DB",
                "Binlog_Ignore_DB",
                "Executed_Gtid_Set",
            ]
            assert cur.fetchall() == (("binlog.000001", size, "", "", executed),)


def test_zombie_by_server_id_without_uuid(fresh: ServerProcess) -> None:
    old = start_dump(fresh, 0x12, dump_body(4, "binlog.000001", flags=0, server_id=11))
    assert old.next()[4] == 4
    deadline = time.monotonic() + 10
    with connect(fresh) as c, c.cursor() as cur:
        while True:  # the first dump is running (Binlog Dump in the process list)
            cur.execute("SHOW PROCESSLIST")
            if "Binlog Dump" in [r[4] for r in cur.fetchall()] or time.monotonic() > deadline:
                break
            time.sleep(0.05)
    other = start_dump(fresh, 0x12, dump_body(4, "binlog.000001", flags=0, server_id=12))
    new = start_dump(fresh, 0x12, dump_body(4, "binlog.000001", flags=0, server_id=11))
    assert new.next()[4] == 4
    with pytest.raises(pymysql.err.OperationalError) as err:
        while True:
            old.next()
    assert err.value.args[1].startswith("A replica with the same server_uuid/server_id as this replica has")
    assert other.next()[4] == 4  # another server_id is left alone
    for s in (old, new, other):
        s.conn.close()


def test_binlog_checksum_none(tmp_path: Path) -> None:
    """A NONE binlog: events without CRC; the first fake Rotate still follows the replica's declaration."""
    with running_server(tmp_path / "d", *SOURCE_ARGS, "--binlog-checksum=NONE") as srv:
        with connect(srv) as c, c.cursor() as cur:
            cur.execute("CREATE DATABASE db")
            cur.execute("FLUSH BINARY LOGS")
        declared = start_dump(  # a replica that can read CRC32 (a MySQL replica sends its own global's value)
            srv,
            0x1E,
            dump_gtid_body(GtidSet()),
            checksum=False,
            setup=("SET @source_binlog_checksum = 'CRC32'",),
        )
        events = declared.all()
        declared.conn.close()
        rot1 = events[0]
        assert len(rot1) == 19 + 8 + 13 + 4 and crc_ok(rot1)  # CRC: the replica's algorithm before any FDE
        data1 = binlog_bytes(srv)
        evs1 = [raw for _, raw in file_events(data1)]
        assert events[1 : 1 + len(evs1)] == [
            evs1[0][:17] + bytes([evs1[0][17] & ~1]) + evs1[0][18:],
            *evs1[1:],
        ]
        rot2 = events[1 + len(evs1)]
        assert (
            len(rot2) == 19 + 8 + 13 and rot2[19:] == struct.pack("<Q", 4) + b"binlog.000002"
        )  # file 1: NONE
        undeclared = start_dump(srv, 0x1E, dump_gtid_body(GtidSet()), checksum=False)
        assert [e[4] for e in undeclared.all()][:3] == [4, 15, 35]  # nothing to refuse: no checksums
        undeclared.conn.close()


def test_register_needs_replication_slave(source: ServerProcess) -> None:
    with connect(source) as c, c.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS 'plain2'@'%' IDENTIFIED BY 'pw'")
    conn = connect(source, "plain2", "pw")
    conn._execute_command(0x15, register_body(43, b"h", b"u", b"p", 1))  # type: ignore[attr-defined]
    with pytest.raises(pymysql.err.OperationalError) as err:
        conn._read_packet()  # type: ignore[attr-defined]
    assert err.value.args[0] == 1227
    conn.close()
    with connect(source) as c, c.cursor() as cur:
        cur.execute("GRANT REPLICATION SLAVE ON *.* TO 'plain2'@'%'")
    conn = connect(source, "plain2", "pw")
    conn._execute_command(0x15, register_body(43, b"h", b"u", b"p", 1))  # type: ignore[attr-defined]
    assert conn._read_packet().is_ok_packet()  # type: ignore[attr-defined]
    with conn.cursor() as cur:  # REPLICATION SLAVE is also what SHOW REPLICAS needs
        cur.execute("SHOW REPLICAS")
        assert [r[0] for r in cur.fetchall()] == [43]
    conn.close()


def test_empty_file_name_starts_at_the_first_binlog_and_server_id_0_does_not_block(
    source: ServerProcess,
) -> None:
    # COM_BINLOG_DUMP with no file name: the first file of the index; server_id 0 without NON_BLOCK: EOF at the end
    s = start_dump(source, 0x12, dump_body(4, "", flags=0, server_id=0))
    events = s.all()
    s.conn.close()
    assert events[0][19:-4] == struct.pack("<Q", 4) + b"binlog.000001"
    assert events[2:] == [raw for _, raw in file_events(binlog_bytes(source))[1:]]


def test_gtid_dump_naming_a_file_skips_the_gtid_start_checks(source: ServerProcess) -> None:
    """check_start_file: a file named in COM_BINLOG_DUMP_GTID is used as it is (no "has more GTIDs" check), only
    the skipping applies."""
    uuid = server_uuid(source)
    body = dump_gtid_body(GtidSet.parse(f"{uuid}:1-100"), name=b"binlog.000001")
    s = start_dump(source, 0x1E, body)
    events = s.all()
    s.conn.close()
    assert [e[4] for e in events] == [4, 15, 35, 27]  # everything skipped, one heartbeat at the end


# ----------------------------------------------------------------------------------------- PROCESSLIST State
SENDING = "Sending binlog event to replica"  # the manual's "Replication Source Thread States", 8.0.26+ names
WAITING = "Source has sent all binlog to replica; waiting for more updates"


def dump_row(srv: ServerProcess, dump_id: int) -> tuple[str, str, str]:
    """(Command, State) of SHOW PROCESSLIST and STATE of information_schema.PROCESSLIST for one connection."""
    with connect(srv) as c, c.cursor() as cur:
        cur.execute("SHOW PROCESSLIST")
        command, state = next((r[4], r[6]) for r in cur.fetchall() if r[0] == dump_id)
        cur.execute(f"SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = {dump_id}")
        return command, state, cur.fetchone()[0]


def test_processlist_shows_dump_thread_state(fresh: ServerProcess) -> None:
    with connect(fresh) as c, c.cursor() as cur:
        cur.execute("CREATE TABLE db.b (id INT PRIMARY KEY, v LONGTEXT)")
        for i in range(12):  # 12 MiB of row events: more than the socket buffers hold while nobody reads
            cur.execute("INSERT INTO db.b VALUES (%s, REPEAT('x', 1048576))", (i,))
    end = len(binlog_bytes(fresh))
    s = start_dump(fresh, 0x1E, dump_gtid_body(GtidSet(), flags=0, server_id=11))
    dump_id = s.conn.thread_id()
    s.next()
    assert s.next()[4] == 15  # the FDE: the sender is in the file, and blocked sending while we do not read
    assert dump_row(fresh, dump_id) == ("Binlog Dump GTID", SENDING, SENDING)
    while header(s.next())[4] != end:  # read everything: the sender reaches the end and waits
        pass
    wait_until(lambda: dump_row(fresh, dump_id) == ("Binlog Dump GTID", WAITING, WAITING), timeout=30)
    with connect(fresh) as c, c.cursor() as cur:  # woken by a commit, sends it, and waits again
        cur.execute("INSERT INTO db.t VALUES (100)")
    while header(s.next())[1] != 16:  # up to the Xid
        pass
    wait_until(lambda: dump_row(fresh, dump_id) == ("Binlog Dump GTID", WAITING, WAITING), timeout=30)
    # COM_BINLOG_DUMP (file/pos) from the end of the file: Command 'Binlog Dump', waiting at once
    end = len(binlog_bytes(fresh))
    fp = start_dump(fresh, 0x12, dump_body(end, "binlog.000001", flags=0, server_id=12))
    fp.next()
    fp.next()
    fp_id = fp.conn.thread_id()
    wait_until(lambda: dump_row(fresh, fp_id) == ("Binlog Dump", WAITING, WAITING), timeout=30)
    s.conn.close()
    fp.conn.close()
