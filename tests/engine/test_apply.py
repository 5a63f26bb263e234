"""The applier seam (engine/apply.py): real MySQL binlog transactions applied into a fresh engine, and round trips.

Expected values come from MySQL: the ``mysqlbinlog -v`` output shipped with the zalora fixture
(``gtid-fixtures/plaintext-mysql-bin.01``), MySQL's own ``binlog_old_versions.result`` for ``ver_5_1_23.001``
(mysql/mysql-server ``mysql-test/suite/binlog/r/binlog_old_versions.result``: the tables after replaying that
binlog), the GTIDs and event counts of ``../shared/research/fixtures/binlogs/INDEX.md``. Round trips compare two
engines: what engine A logged, applied into engine B.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from pathlib import Path

import pytest

from gtidkit.binlog import read_events
from gtidkit.binlog.events.control import GtidEvent
from gtidkit.engine import Server
from gtidkit.engine.apply import MySQLRandom, read_transactions
from gtidkit.errors import MySQLError
from gtidkit.gtid import Gtid, GtidSet
from gtidkit.version import MYSQL_VERSION
from tests.engine.datadirs import open_new

ZALORA_SID = "10440e47-3885-11eb-ac5b-0242ac110002"


def _rows(server: Server, sql: str) -> list[tuple]:
    with server.session() as s:
        return s.execute(sql)[-1].rows


def _executed(server: Server) -> GtidSet:
    return server.gtid_state.executed()


def checksum(server: Server) -> str:
    """A checksum of every user table's rows (ordered), as a CHECKSUM TABLE over the whole instance."""
    h = hashlib.sha256()
    with server.session() as s:
        for (db,) in sorted(s.execute("SHOW DATABASES")[-1].rows):
            if db in ("mysql", "information_schema", "performance_schema", "sys"):
                continue
            for (t,) in sorted(s.execute(f"SHOW TABLES FROM `{db}`")[-1].rows):
                rows = s.execute(f"SELECT * FROM `{db}`.`{t}`")[-1].rows
                h.update(f"{db}.{t}:{sorted(map(repr, rows))}".encode())
    return h.hexdigest()


# ------------------------------------------------------------------------------------------------ real fixtures
def test_zalora_gtid_fixture_rows_and_gtids(tmp_path, binlog_fixtures):
    """5.7.32 binlog with GTIDs :6-22 (INDEX.md): DDL as Query events, then ROW inserts/updates/deletes.

    The ``rooms`` table has a FOREIGN KEY, which this engine's SQL layer does not support (1235): its CREATE and
    the two transactions writing to it stop the applier as any unsupported statement stops MySQL's; the test
    checks that each such failure leaves nothing behind (GTID not executed, not owned) and applies the rest.
    """
    path = binlog_fixtures / "zalora__binlog-parser" / "gtid-fixtures" / "mysql-bin.01"
    failed: dict[int, int] = {}
    with open_new(tmp_path / "b", log_bin=False) as srv:
        ap = srv.applier_session()
        trxs = list(read_transactions(path))
        assert [t.gtid.gno for t in trxs] == list(range(6, 23))  # INDEX.md: gno 6..22
        for trx in trxs:
            try:
                assert ap.apply(trx) is True
            except MySQLError as err:
                failed[trx.gtid.gno] = err.code
                assert trx.gtid not in _executed(srv)
                assert not srv.gtid_state.owned()
        assert failed == {18: 1235, 20: 1146, 21: 1146}
        # plaintext-mysql-bin.01: INSERT buildings (1, 'ACME Headquaters', ...), (2, 'ACME Sales', ...), then
        # DELETE FROM buildings WHERE @1=1
        assert _rows(srv, "SELECT * FROM test_db.buildings ORDER BY building_no") == [
            (2, "ACME Sales", "5000 North 1st Street CA 95134")
        ]
        expected = GtidSet.parse(f"{ZALORA_SID}:6-17:19:22")
        assert _executed(srv) == expected
        # binlog off: the GTIDs are in mysql.gtid_executed, committed with the data (WL#6559); an 8.0 datadir's
        # table has no gtid_tag column (8.3+)
        table = GtidSet.from_intervals(
            (Gtid.parse(f"{u}:1").sid, "", a, b)
            for u, a, b in _rows(
                srv, "SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed"
            )
        )
        assert table == expected
        pos = ap.applied_position()
        assert (
            pos is not None and pos.relay_log_file == "mysql-bin.01" and pos.relay_log_pos == trxs[-1].end_pos
        )
        # the applier kept the source's session state from the Query status variables (sql_mode=1436549152 on
        # the DML transactions: mysqlbinlog's "SET @@session.sql_mode=1436549152")
        assert "STRICT_TRANS_TABLES" in ap.session_vars["sql_mode"]
        ap.close()


def test_percona_84_two_files(tmp_path, binlog_fixtures):
    """8.4.10: CREATE DATABASE t (gno 1), CREATE TABLE t.a (gno 2) in binlog.000002, a row insert (gno 3) in
    binlog.000003 (INDEX.md: WRITE_ROWS_V2×1; the one event carries three row images, ids 1-3)."""
    d = binlog_fixtures / "percona__percona-server-mysql-operator"
    with open_new(tmp_path / "b", log_bin=False) as srv, srv.applier_session() as ap:
        for name in ("binlog.000002", "binlog.000003"):
            for trx in read_transactions(d / name):
                assert ap.apply(trx)
        assert _executed(srv) == GtidSet.parse("ca3ce93b-9bea-11f1-b808-e608fdb6e3c5:1-3")
        assert _rows(srv, "SELECT * FROM t.a ORDER BY id") == [(1,), (2,), (3,)]
        assert ap.applied_position().relay_log_file == "binlog.000003"


def test_ver_5_1_23_statements_intvar_rand_user_var(tmp_path, binlog_fixtures):
    """A 5.1.23 binlog (no GTIDs: anonymous) with User_var, Rand and Intvar(LAST_INSERT_ID) before statements and
    MyISAM rows events whose Table_map and rows are separate groups. MySQL's binlog_old_versions.result after
    replaying it: t1 = (0,'last_insert_id'), (1,'one'), (3,...), (4,'four'), (674568,'random'); t2 = (3, ...).
    The LOAD DATA events (t3) are not applied by this engine: they stop with 1235. The tables are created here in
    utf8mb4 (8.0's default) while the 5.1 source's rows carry latin1 CHAR(50) (50 bytes): an 8.0 replica needs
    replica_type_conversions=ALL_NON_LOSSY for CHAR(50 bytes) -> CHAR(200 bytes), else 13146 (mysql-test replays
    this file through mysqlbinlog | mysql, where no applier check runs)."""
    path = binlog_fixtures / "blackbeam__rust_mysql_common" / "ver_5_1_23.001"
    opts = {"log_bin": False, "gtid_mode": "OFF", "replica_type_conversions": "ALL_NON_LOSSY"}
    with open_new(tmp_path / "b", **opts) as srv, srv.applier_session() as ap:
        ap.execute("CREATE DATABASE test")  # mysql-test's servers have the `test` database
        codes = []
        for trx in read_transactions(path):
            try:
                ap.apply(trx)
            except MySQLError as err:
                codes.append(err.code)
        assert set(codes) == {1235}
        assert _rows(srv, "SELECT * FROM test.t1 ORDER BY a") == [
            (0, "last_insert_id"),
            (1, "one"),
            (3, "last stm in trx: next event should be xid"),
            (4, "four"),
            (674568, "random"),
        ]
        assert _rows(srv, "SELECT * FROM test.t2 ORDER BY a") == [(3, "first stm in trx")]
        assert _executed(srv) == GtidSet()  # anonymous transactions


def test_yelp_50_statement_based(tmp_path, binlog_fixtures):
    """A 5.0.91 binlog: CREATE DATABASE / CREATE TABLE then statement-based INSERTs, three with an INSERT_ID
    Intvar (1, 2, 3) before them (INDEX.md: INTVAR×3)."""
    path = binlog_fixtures / "Yelp__ybinlogp" / "mysql-bin.default-path"
    with open_new(tmp_path / "b", log_bin=False, gtid_mode="OFF") as srv, srv.applier_session() as ap:
        assert sum(ap.apply(t) for t in read_transactions(path)) == 14
        assert _rows(srv, "SELECT x FROM ybinlogp.test1 ORDER BY x") == [(i,) for i in range(1, 8)]
        assert _rows(srv, "SELECT * FROM foobar.test2 ORDER BY id") == [
            (1, "This is the winter of our discontent"),
            (2, "Tomorrow and tomorrow and tomorrow"),
            (3, "Bananas r good"),
        ]


def test_mysql_rand_matches_manual():
    """RAND(N) seeds its generator with (N*0x10001+55555555, N*0x10000001) (Item_func_rand::seed_random); the MySQL
    manual's example SELECT RAND(3) gives 0.90576975597606 (RM8 "Mathematical Functions")."""
    r = MySQLRandom((3 * 0x10001 + 55555555) % 0x3FFFFFFF, (3 * 0x10000001) % 0x3FFFFFFF)
    assert round(r(), 14) == 0.90576975597606


# ------------------------------------------------------------------------------------------------ GTID behaviour
def _source_with_workload(path: Path, *, binlog_format: str = "ROW") -> Server:
    src = open_new(path, log_bin=True, server_id=11, binlog_format=binlog_format)
    with src.session() as s:
        s.execute("CREATE DATABASE db")
        s.execute("CREATE TABLE db.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), n DECIMAL(8,2))")
        s.execute("CREATE TABLE db.nopk (a INT, b VARCHAR(10))")
        for i in range(5):
            s.execute(f"INSERT INTO db.t (v, n) VALUES ('v{i}', {i}.25), ('w{i}', -{i}.5)")
        s.execute("BEGIN")
        s.execute("UPDATE db.t SET v = CONCAT(v, '!') WHERE id % 3 = 0")
        s.execute("DELETE FROM db.t WHERE id = 2")
        s.execute("INSERT INTO db.nopk VALUES (1, 'x'), (1, 'x'), (2, NULL)")
        s.execute("COMMIT")
        s.execute("DELETE FROM db.nopk WHERE a = 1 LIMIT 1")
        s.execute("UPDATE db.nopk SET b = 'y' WHERE a = 2")
        s.execute("SET GTID_NEXT = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:7'")
        s.execute("INSERT INTO db.t (v) VALUES ('explicit')")
        s.execute("SET GTID_NEXT = 'AUTOMATIC'")
        s.execute("ALTER TABLE db.t ADD COLUMN z INT DEFAULT 9")
        s.execute("INSERT INTO db.t (v, z) VALUES ('after', 1)")
    return src


def _source_transactions(src: Server) -> list:
    assert src.binlog is not None
    out = []
    for name in src.binlog.existing_files():
        out += list(read_transactions(src.binlog.path(name)))
    return out


@pytest.mark.parametrize("binlog_format", ["ROW", "STATEMENT"])
def test_round_trip_binlog_off(tmp_path, binlog_format):
    """Engine A's binlog applied into engine B with the binary log off: equal data and equal gtid_executed, the
    GTIDs in B's mysql.gtid_executed (WL#6559), gtid_purged = gtid_executed (nothing in any binlog)."""
    src = _source_with_workload(tmp_path / "a", binlog_format=binlog_format)
    try:
        trxs = _source_transactions(src)
        with open_new(tmp_path / "b", log_bin=False, server_id=22) as rep, rep.applier_session() as ap:
            for trx in trxs:
                assert ap.apply(trx)
            assert checksum(rep) == checksum(src)
            assert _executed(rep) == _executed(src)
            assert rep.gtid_state.purged() == _executed(src)
    finally:
        src.shutdown()


def test_skip_executed_gtid_counts_as_applied(tmp_path):
    """An already executed GTID makes the transaction be skipped (rpl_gtid_execution.cc), its position recorded."""
    src = _source_with_workload(tmp_path / "a")
    try:
        trxs = _source_transactions(src)
        with open_new(tmp_path / "b", log_bin=False) as rep, rep.applier_session() as ap:
            for trx in trxs[:4]:
                ap.apply(trx)
            before = checksum(rep)
            assert ap.apply(trxs[3]) is False  # again: skipped
            assert checksum(rep) == before
            assert ap.applied_position().relay_log_pos == trxs[3].end_pos
            for trx in trxs:  # resume from the start: everything already applied is skipped
                ap.apply(trx)
            assert checksum(rep) == checksum(src)
            assert _executed(rep) == _executed(src)
    finally:
        src.shutdown()


def _gtid_events(server: Server) -> list:
    assert server.binlog is not None
    out = []
    for name in server.binlog.existing_files():
        for pe in read_events(server.binlog.path(name)):
            if isinstance(pe.event, GtidEvent):
                out.append(pe)
    return out


def test_log_replica_updates_on_relogs_original_gtid_timestamps_server_id(tmp_path):
    """With log_replica_updates=ON the applier's binlog carries the source's GTIDs, original_commit_timestamp and
    server id; immediate_commit_timestamp is the replica's own (WL#7592 / Gtid_log_event::do_apply_event)."""
    src = _source_with_workload(tmp_path / "a")
    try:
        trxs = _source_transactions(src)
        with open_new(tmp_path / "b", log_bin=True, log_replica_updates=True, server_id=22) as rep:
            with rep.applier_session() as ap:
                for trx in trxs:
                    ap.apply(trx)
            assert checksum(rep) == checksum(src)
            a_events = _gtid_events(src)
            b_events = _gtid_events(rep)
            assert [e.event.gtid for e in b_events] == [e.event.gtid for e in a_events]
            for a, b in zip(a_events, b_events):
                assert b.header.server_id == 11  # the source's server id, kept on every re-logged event
                assert b.event.original_commit_timestamp == a.event.original_commit_timestamp
                assert b.event.immediate_commit_timestamp >= a.event.immediate_commit_timestamp
            assert _executed(rep) == _executed(src)
            assert rep.gtid_state.purged() == GtidSet()
    finally:
        src.shutdown()


def test_log_replica_updates_off_applier_not_binlogged(tmp_path):
    """log_bin ON, log_replica_updates OFF: the applier's transactions are not binlogged; their GTIDs go into
    mysql.gtid_executed in the same transaction and into gtid_purged (not in any binlog). A client session of the
    same server still binlogs its own transactions."""
    src = _source_with_workload(tmp_path / "a")
    try:
        trxs = _source_transactions(src)
        with open_new(tmp_path / "b", log_bin=True, log_replica_updates=False, server_id=22) as rep:
            with rep.applier_session() as ap:
                for trx in trxs:
                    ap.apply(trx)
            assert _gtid_events(rep) == []
            assert _executed(rep) == _executed(src)
            assert rep.gtid_state.purged() == _executed(src)
            with rep.session() as s:
                s.execute("CREATE DATABASE local_only")
            assert len(_gtid_events(rep)) == 1
    finally:
        src.shutdown()


def test_applier_survives_restart_position_and_gtids_agree(tmp_path):
    """Stop after some transactions, restart the replica: the stored position and gtid_executed agree, and
    resuming from the position finishes with the source's data."""
    src = _source_with_workload(tmp_path / "a")
    try:
        trxs = _source_transactions(src)
        with open_new(tmp_path / "b", log_bin=False) as rep, rep.applier_session() as ap:
            for trx in trxs[:6]:
                ap.apply(trx)
        with open_new(tmp_path / "b", log_bin=False) as rep, rep.applier_session() as ap:
            pos = ap.applied_position()
            assert pos.relay_log_pos == trxs[5].end_pos
            done = {t.gtid for t in trxs[:6]}
            assert _executed(rep) == GtidSet.from_gtids(g for g in done if g is not None)
            for trx in trxs:
                if trx.end_pos > pos.relay_log_pos or trx.file != pos.relay_log_file:
                    ap.apply(trx)
            assert checksum(rep) == checksum(src)
    finally:
        src.shutdown()


def test_anonymous_transactions_need_gtid_mode_below_on(tmp_path, binlog_fixtures):
    """A transaction without a GTID applies with GTID_NEXT=ANONYMOUS: accepted with gtid_mode OFF_PERMISSIVE,
    refused with gtid_mode ON (1782 ER_CANT_SET_GTID_NEXT_TO_ANONYMOUS_WHEN_GTID_MODE_IS_ON, the error a MySQL
    replica stops with), leaving nothing applied and nothing owned."""
    path = binlog_fixtures / "Yelp__ybinlogp" / "mysql-bin.default-path"
    first = next(read_transactions(path))  # CREATE DATABASE ybinlogp, no Gtid event (5.0.91)
    with open_new(tmp_path / "on", log_bin=False, gtid_mode="ON") as srv, srv.applier_session() as ap:
        with pytest.raises(MySQLError) as err:
            ap.apply(first)
        assert err.value.code == 1782
        assert _rows(srv, "SHOW DATABASES LIKE 'ybinlogp'") == []
    with (
        open_new(
            tmp_path / "perm", log_bin=True, gtid_mode="OFF_PERMISSIVE", enforce_gtid_consistency="ON"
        ) as srv,
        srv.applier_session() as ap,
    ):
        assert ap.apply(first)
        assert _rows(srv, "SHOW DATABASES LIKE 'ybinlogp'") == [("ybinlogp",)]
        assert _executed(srv) == GtidSet()


def _built(events: list, server_id: int = 5) -> tuple:
    """Events encoded as a source would write them, then decoded (BinlogEvent: header + event)."""
    from gtidkit.binlog import FormatDescriptionEvent, decode_event, encode_event

    fde = FormatDescriptionEvent.for_server("8.0.36")
    return tuple(
        decode_event(encode_event(e, fde, server_id=server_id, timestamp=1700000000), fde) for e in events
    )


def test_auto_increment_increment_from_query_status_vars(tmp_path):
    """The manual's auto_increment_increment example (RM8 "auto_increment_increment"): with increment 10 and
    offset 1, ``INSERT INTO autoinc1 VALUES (NULL), (NULL), (NULL), (NULL)`` stores 1, 11, 21, 31. A
    statement-based source logs that INSERT with Q_AUTO_INCREMENT (10, 1) and INSERT_ID 1; the applier must
    produce the same ids."""
    import struct

    from gtidkit.binlog import GtidEvent, IntvarEvent, QueryEvent, XidEvent
    from gtidkit.engine.apply import BinlogTransaction

    sid = "bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb"
    status = bytes([3]) + struct.pack("<HH", 10, 1)  # Q_AUTO_INCREMENT: increment, offset

    def gtid_event(gno: int) -> GtidEvent:
        return GtidEvent(0, Gtid.parse(f"{sid}:{gno}"), 0, gno, 1700000000000000, 1700000000000000)

    ddl = BinlogTransaction(
        _built(
            [
                gtid_event(1),
                QueryEvent(1, 0, 0, b"", "", "CREATE DATABASE test"),
            ]
        )
    )
    ddl2 = BinlogTransaction(
        _built(
            [
                gtid_event(2),
                QueryEvent(
                    1,
                    0,
                    0,
                    b"",
                    "test",
                    "CREATE TABLE autoinc1 (col INT NOT NULL AUTO_INCREMENT PRIMARY KEY)",
                ),
            ]
        )
    )
    dml = BinlogTransaction(
        _built(
            [
                gtid_event(3),
                QueryEvent(1, 0, 0, status, "test", "BEGIN"),
                IntvarEvent(2, 1),
                QueryEvent(
                    1, 0, 0, status, "test", "INSERT INTO autoinc1 VALUES (NULL), (NULL), (NULL), (NULL)"
                ),
                XidEvent(9),
            ]
        )
    )
    # the statement time: NOW() / UNIX_TIMESTAMP() on the replica are the source's (the Query event's header
    # timestamp, mysqlbinlog's "SET TIMESTAMP=1700000000"; RM8 "timestamp" system variable)
    ddl3 = BinlogTransaction(
        _built([gtid_event(4), QueryEvent(1, 0, 0, b"", "test", "CREATE TABLE tt (u BIGINT, d DATETIME)")])
    )
    dml2 = BinlogTransaction(
        _built(
            [
                gtid_event(5),
                QueryEvent(1, 0, 0, b"", "test", "BEGIN"),
                QueryEvent(1, 0, 0, b"", "test", "INSERT INTO tt VALUES (UNIX_TIMESTAMP(), NOW())"),
                XidEvent(10),
            ]
        )
    )
    with open_new(tmp_path / "b", log_bin=False) as srv, srv.applier_session() as ap:
        for trx in (ddl, ddl2, dml, ddl3, dml2):
            assert ap.apply(trx)
        assert _rows(srv, "SELECT col FROM test.autoinc1 ORDER BY col") == [(1,), (11,), (21,), (31,)]
        assert _executed(srv) == GtidSet.parse(f"{sid}:1-5")
        ((u, d),) = _rows(srv, "SELECT u, UNIX_TIMESTAMP(d) FROM test.tt")
        assert u == 1700000000 and d == 1700000000


def test_transactions_from_events_matches_read_transactions(binlog_fixtures):
    """Grouping a stream of events (a relay log being read) gives the same transactions as reading the file."""
    from gtidkit.engine.apply import transactions_from_events

    path = binlog_fixtures / "zalora__binlog-parser" / "gtid-fixtures" / "mysql-bin.01"
    streamed = list(transactions_from_events(read_events(path), "mysql-bin.01"))
    whole = list(read_transactions(path))
    assert [(t.gtid, t.end_pos, len(t.events)) for t in streamed] == [
        (t.gtid, t.end_pos, len(t.events)) for t in whole
    ]
    assert all(isinstance(t.events[0].event, GtidEvent) for t in streamed)


def test_log_replica_updates_relogs_a_57_source_with_unknown_originals(tmp_path, binlog_fixtures):
    """A 5.7 source writes no commit timestamps nor server versions in its Gtid events; an 8.0 replica with
    log_replica_updates re-logs such a transaction with original_commit_timestamp 0 and original_server_version
    UNDEFINED_SERVER_VERSION (999999) (control_events.h; formats.md §2.1), the source's server id in every event
    header, and its own immediate_commit_timestamp / immediate_server_version."""
    path = binlog_fixtures / "zalora__binlog-parser" / "gtid-fixtures" / "mysql-bin.01"
    trxs = [t for t in read_transactions(path) if t.gtid.gno <= 17]  # the DDL (no FOREIGN KEY yet)
    source_ids = {t.events[0].header.server_id for t in trxs}
    with open_new(tmp_path / "b", log_bin=True, log_replica_updates=True, server_id=22) as rep:
        with rep.applier_session() as ap:
            for trx in trxs:
                assert ap.apply(trx)
        relogged = _gtid_events(rep)
    assert [e.event.gtid for e in relogged] == [t.gtid for t in trxs]
    for e in relogged:
        assert e.header.server_id in source_ids and e.header.server_id != 22
        assert e.event.original_commit_timestamp == 0
        assert e.event.immediate_commit_timestamp > 0
        assert e.event.original_server_version == 999999
        major, minor, patch = (int(x) for x in MYSQL_VERSION.split("."))
        assert e.event.immediate_server_version == major * 10000 + minor * 100 + patch


def test_transaction_ending_in_rollback_is_consumed(tmp_path):
    """BEGIN ... ROLLBACK in a binlog (a source rolled back a transaction that had touched a non-transactional
    table): the applier rolls it back and still records its position, so it is not applied again."""
    from gtidkit.binlog import GtidEvent, QueryEvent, XidEvent
    from gtidkit.engine.apply import BinlogTransaction

    sid = "cccccccc-cccc-cccc-cccc-cccccccccccc"

    def gev(gno: int) -> GtidEvent:
        return GtidEvent(0, Gtid.parse(f"{sid}:{gno}"), 0, gno, 1700000000000000, 1700000000000000)

    setup = [
        BinlogTransaction(
            _built([gev(1), QueryEvent(1, 0, 0, b"", "", "CREATE DATABASE d")]), "relay.000001", 100
        ),
        BinlogTransaction(
            _built([gev(2), QueryEvent(1, 0, 0, b"", "d", "CREATE TABLE t (a INT PRIMARY KEY)")]),
            "relay.000001",
            200,
        ),
    ]
    rolled = BinlogTransaction(
        _built(
            [
                gev(3),
                QueryEvent(1, 0, 0, b"", "d", "BEGIN"),
                QueryEvent(1, 0, 0, b"", "d", "INSERT INTO t VALUES (1)"),
                QueryEvent(1, 0, 0, b"", "d", "ROLLBACK"),
            ]
        ),
        "relay.000001",
        300,
    )
    after = BinlogTransaction(
        _built(
            [
                gev(4),
                QueryEvent(1, 0, 0, b"", "d", "BEGIN"),
                QueryEvent(1, 0, 0, b"", "d", "INSERT INTO t VALUES (2)"),
                XidEvent(3),
            ]
        ),
        "relay.000001",
        400,
    )
    with open_new(tmp_path / "b", log_bin=False) as srv, srv.applier_session() as ap:
        for trx in [*setup, rolled]:
            ap.apply(trx)
        assert _rows(srv, "SELECT a FROM d.t") == []
        assert ap.applied_position().relay_log_pos == 300
        assert ap.apply(after)
        assert _rows(srv, "SELECT a FROM d.t") == [(2,)]
        assert ap.applied_position().relay_log_pos == 400
        assert not srv.gtid_state.owned()


def test_tagged_gtid_transaction_from_96(tmp_path, binlog_fixtures):
    """A MySQL 9.6 transaction with a tagged GTID (Gtid_tagged_log_event, INDEX.md: ...:mytag:3) writing
    test.orders; its Table_map (INT NOT NULL, INT NULL, DECIMAL(10,2) NULL: metadata 0a02, null bitmap 06) names no
    columns, so the test creates a table of that shape. GTID_NEXT takes the tagged GTID through the API; the replica
    presents 8.4 (tags are 8.3.0+; an 8.0 replica refuses them)."""
    path = binlog_fixtures / "blackbeam__rust_mysql_common" / "binlog_transaction_with_GTID_TAG.000001"
    (trx,) = list(read_transactions(path))
    with open_new(tmp_path / "b", log_bin=False, server_version="8.4") as srv, srv.applier_session() as ap:
        ap.execute("SET GTID_NEXT='AUTOMATIC'")
        with srv.session() as s:
            s.execute("CREATE DATABASE test")
            s.execute("CREATE TABLE test.orders (id INT NOT NULL PRIMARY KEY, qty INT, amount DECIMAL(10,2))")
        before = _executed(srv)
        assert ap.apply(trx)
        assert _rows(srv, "SELECT id, qty, amount FROM test.orders") == [(3, 100, Decimal("250.00"))]
        assert _executed(srv) - before == GtidSet.parse("55778904-0299-11f1-b1b8-4ef0c4956feb:mytag:3")
        assert ap.apply(trx) is False  # executed now: skipped


def test_minimal_row_images(tmp_path):
    """binlog_row_image=MINIMAL (RM8 "binlog_row_image"): the before image carries only the primary key, an UPDATE's
    after image only the columns the statement set, an INSERT's only the columns given. The applier finds the row
    by the key, changes only the logged columns and gives the missing INSERT columns their defaults
    (Rows_log_event::do_apply_event); what it records (for log_replica_updates) are full rows."""
    import struct

    from gtidkit.binlog import GtidEvent, QueryEvent, XidEvent
    from gtidkit.binlog.constants import EventType
    from gtidkit.binlog.events.rows import STMT_END_F, RowsEvent, TableMapEvent
    from gtidkit.engine.apply import BinlogTransaction

    sid = "dddddddd-dddd-dddd-dddd-dddddddddddd"

    def gev(gno: int) -> GtidEvent:
        return GtidEvent(0, Gtid.parse(f"{sid}:{gno}"), 0, gno, 1700000000000000, 1700000000000000)

    tm = TableMapEvent(77, 1, "m", "t", bytes([3, 3, 3]), b"", b"\x06")  # id INT NOT NULL, a INT, b INT

    def rows(type_code: EventType, before: bytes, after: bytes | None, body: bytes) -> RowsEvent:
        return RowsEvent(int(type_code), 77, STMT_END_F, b"", 3, before, after, body)

    def i32(*vals: int) -> bytes:
        return b"".join(struct.pack("<i", v) for v in vals)

    ddl = [
        BinlogTransaction(_built([gev(1), QueryEvent(1, 0, 0, b"", "", "CREATE DATABASE m")])),
        BinlogTransaction(
            _built(
                [
                    gev(2),
                    QueryEvent(
                        1, 0, 0, b"", "m", "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT DEFAULT 7)"
                    ),
                ]
            )
        ),
    ]
    # INSERT INTO t (id, a) VALUES (1, 10): image of columns {id, a} (bitmap 0b011), null bits 0, values
    ins = rows(EventType.WRITE_ROWS_EVENT, b"\x03", None, b"\x00" + i32(1, 10))
    # UPDATE t SET a = 11 WHERE id = 1: before {id} = 1, after {a} = 11
    upd = rows(EventType.UPDATE_ROWS_EVENT, b"\x01", b"\x02", b"\x00" + i32(1) + b"\x00" + i32(11))
    # DELETE FROM t WHERE id = 1 (a second row first, so the table is not empty at the end)
    ins2 = rows(EventType.WRITE_ROWS_EVENT, b"\x07", None, b"\x00" + i32(2, 20, 30))
    dele = rows(EventType.DELETE_ROWS_EVENT, b"\x01", None, b"\x00" + i32(1))

    def dml(gno: int, ev: RowsEvent) -> BinlogTransaction:
        return BinlogTransaction(
            _built([gev(gno), QueryEvent(1, 0, 0, b"", "m", "BEGIN"), tm, ev, XidEvent(gno)])
        )

    with (
        open_new(tmp_path / "b", log_bin=True, log_replica_updates=True) as srv,
        srv.applier_session() as ap,
    ):
        for trx in ddl:
            assert ap.apply(trx)
        assert ap.apply(dml(3, ins))
        assert _rows(srv, "SELECT * FROM m.t") == [(1, 10, 7)]
        assert ap.apply(dml(4, upd))
        assert _rows(srv, "SELECT * FROM m.t") == [(1, 11, 7)]
        assert ap.apply(dml(5, ins2))
        assert ap.apply(dml(6, dele))
        assert _rows(srv, "SELECT * FROM m.t") == [(2, 20, 30)]
        # re-logged with full images: the update's before/after rows are whole
        from gtidkit.engine.sql.rowimage import decode_rows

        relogged = []
        for name in srv.binlog.existing_files():
            for t in read_transactions(srv.binlog.path(name)):
                maps = {}
                for item in t.events:
                    if isinstance(item.event, TableMapEvent):
                        maps[item.event.table_id] = item.event
                    elif isinstance(item.event, RowsEvent):
                        relogged += decode_rows(maps[item.event.table_id], item.event)
        assert relogged == [
            (None, (1, 10, 7)),
            ((1, 10, 7), (1, 11, 7)),
            (None, (2, 20, 30)),
            ((1, 11, 7), None),
        ]
