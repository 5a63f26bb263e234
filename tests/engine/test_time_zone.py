"""@@time_zone: values, the functions that depend on it, TIMESTAMP storage in UTC, and replication of the zone.

Every expected value comes from MySQL: ``mysql-test/r/timezone2.result`` (mysql/mysql-server; cited per test),
the manual ("MySQL Server Time Zone Support": offsets -13:59..+14:00, named zones only with the time zone tables
loaded, which a fresh 8.4 has empty; "Date and Time Functions": the CONVERT_TZ example; "The DATE, DATETIME, and
TIMESTAMP Types": TIMESTAMP converted to UTC for storage and back, DATETIME not).
"""

from __future__ import annotations

import pytest

from gtidkit.binlog.events.query_status import decode_status_vars
from gtidkit.binlog.events.statement import QueryEvent
from gtidkit.engine import Server
from gtidkit.engine.apply import read_transactions
from gtidkit.errors import MySQLError


def _one(s, sql):
    return s.execute(sql)[-1].rows[0][0]


@pytest.fixture
def s(open_server):
    srv = open_server(gtid_mode="ON", log_bin=True)
    sess = srv.session()
    sess.execute("CREATE DATABASE d; USE d")
    return sess


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("+00:00", "+00:00"),
        ("+10:30", "+10:30"),  # timezone2.result: set time_zone='+10:30'
        ("-10:00", "-10:00"),  # timezone2.result
        ("+01:30", "+01:30"),  # timezone2.result: show variables like 'time_zone' -> +01:30
        ("+14:00", "+14:00"),  # manual: the range is -13:59 to +14:00 inclusive
        ("-13:59", "-13:59"),
        ("system", "SYSTEM"),
    ],
)
def test_set_time_zone_accepted(s, value, shown):
    s.execute(f"SET time_zone = '{value}'")
    assert _one(s, "SELECT @@time_zone") == shown


@pytest.mark.parametrize(
    "value",
    [
        "0",  # timezone2.result: ERROR HY000: Unknown or incorrect time zone: '0'
        "0:0",  # timezone2.result
        "-20:00",  # timezone2.result
        "+20:00",  # timezone2.result
        "Some/Unknown/Time/Zone",  # timezone2.result
        "+14:01",  # manual: beyond +14:00
        "-14:00",  # manual: beyond -13:59
        "UTC",  # a fresh MySQL 8.4: mysql.time_zone_name is empty until mysql_tzinfo_to_sql loads it
        "Europe/Moscow",
    ],
)
def test_set_time_zone_refused(s, value):
    with pytest.raises(MySQLError) as e:
        s.execute(f"SET time_zone = '{value}'")
    assert (e.value.code, e.value.message) == (1298, f"Unknown or incorrect time zone: '{value}'")
    assert _one(s, "SELECT @@time_zone") == "SYSTEM"


def test_set_time_zone_default(s):
    """timezone2.result: ``set time_zone = default`` shows SYSTEM again."""
    s.execute("SET time_zone = '+01:30'")
    s.execute("SET time_zone = DEFAULT")
    assert _one(s, "SELECT @@time_zone") == "SYSTEM"


@pytest.mark.parametrize(("zone", "diff"), [("+00:00", 0), ("+10:30", -37800), ("-10:00", 36000)])
def test_now_is_in_the_session_zone(s, zone, diff):
    """timezone2.result: unix_timestamp(utc_timestamp())-unix_timestamp(current_timestamp()) is 0, -37800, 36000."""
    s.execute(f"SET time_zone = '{zone}'")
    s.execute("SET timestamp = 1000000000")  # one statement time for both calls
    assert _one(s, "SELECT unix_timestamp(utc_timestamp())-unix_timestamp(current_timestamp())") == diff
    assert _one(s, "SELECT NOW() = UTC_TIMESTAMP()") == (1 if diff == 0 else 0)


def test_utc_functions_ignore_the_zone(s):
    """UTC_TIMESTAMP/UTC_DATE/UTC_TIME are UTC whatever the session zone (manual); 1000000000 is
    2001-09-09 01:46:40 UTC (timezone2.result: NOW() at that timestamp shown in Japan, +09:00, is 10:46:40)."""
    s.execute("SET timestamp = 1000000000")
    s.execute("SET time_zone = '-10:00'")
    assert s.execute("SELECT UTC_TIMESTAMP(), UTC_DATE(), UTC_TIME()")[0].rows == [
        ("2001-09-09 01:46:40", "2001-09-09", "01:46:40")
    ]
    assert s.execute("SELECT NOW(), CURDATE(), CURTIME(), LOCALTIME")[0].rows == [
        ("2001-09-08 15:46:40", "2001-09-08", "15:46:40", "2001-09-08 15:46:40")
    ]
    assert _one(s, "SELECT UNIX_TIMESTAMP()") == 1000000000
    assert _one(s, "SELECT FROM_UNIXTIME(1000000000)") == "2001-09-08 15:46:40"
    # past TIMESTAMP's range, BIGINT UNSIGNED's maximum included: NULL (the statement fuzz found an internal error)
    assert _one(s, "SELECT FROM_UNIXTIME(18446744073709551615)") is None
    assert _one(s, "SELECT UNIX_TIMESTAMP('2001-09-08 15:46:40')") == 1000000000


def test_timestamp_column_in_three_zones(s):
    """timezone2.result: '2003-03-30 02:30:00' stored in +00:00, +10:30 and -10:00, all read in -10:00."""
    s.execute("CREATE TABLE t1 (ts TIMESTAMP)")
    for zone in ("+00:00", "+10:30", "-10:00"):
        s.execute(f"SET time_zone = '{zone}'")
        s.execute("INSERT INTO t1 (ts) VALUES ('2003-03-30 02:30:00')")
    assert s.execute("SELECT * FROM t1")[0].rows == [
        ("2003-03-29 16:30:00",),
        ("2003-03-29 06:00:00",),
        ("2003-03-30 02:30:00",),
    ]


def test_timestamp_converted_datetime_not(s):
    """Manual "The DATE, DATETIME, and TIMESTAMP Types": TIMESTAMP goes to UTC and back, DATETIME is not converted;
    comparisons and UPDATE see the session-zone value."""
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME)")
    s.execute("SET time_zone = '+00:00'")
    s.execute("INSERT INTO t VALUES (1, '2024-01-01 12:00:00', '2024-01-01 12:00:00')")
    s.execute("SET time_zone = '+05:00'")
    assert s.execute("SELECT ts, dt FROM t")[0].rows == [("2024-01-01 17:00:00", "2024-01-01 12:00:00")]
    assert s.execute("SELECT id FROM t WHERE ts = '2024-01-01 17:00:00'")[0].rows == [(1,)]
    s.execute("UPDATE t SET dt = ts WHERE ts = '2024-01-01 17:00:00'")
    s.execute("UPDATE t SET ts = '2024-06-01 05:00:00' WHERE id = 1")
    s.execute("SET time_zone = '+00:00'")
    assert s.execute("SELECT ts, dt FROM t")[0].rows == [("2024-06-01 00:00:00", "2024-01-01 17:00:00")]


def test_current_timestamp_defaults_follow_the_zone(s):
    """DEFAULT / ON UPDATE CURRENT_TIMESTAMP store the statement time: read back in any zone it equals NOW()."""
    s.execute(
        "CREATE TABLE t (id INT PRIMARY KEY, v INT, "
        "ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, dt DATETIME DEFAULT CURRENT_TIMESTAMP)"
    )
    s.execute("SET time_zone = '+05:00'")
    s.execute("SET timestamp = 1000000000")
    s.execute("INSERT INTO t (id, v) VALUES (1, 1)")
    s.execute("SET time_zone = '+00:00'")
    # 1000000000 = 2001-09-09 01:46:40 UTC (timezone2.result via Japan +09:00); dt keeps the +05:00 wall time
    assert s.execute("SELECT ts, dt FROM t")[0].rows == [("2001-09-09 01:46:40", "2001-09-09 06:46:40")]
    s.execute("SET timestamp = 1000003600")
    s.execute("SET time_zone = '-10:00'")
    s.execute("UPDATE t SET v = 2")
    s.execute("SET time_zone = '+00:00'")
    assert _one(s, "SELECT ts FROM t") == "2001-09-09 02:46:40"


def test_convert_tz(s):
    """Manual "Date and Time Functions": CONVERT_TZ('2004-01-01 12:00:00','+00:00','+10:00') = '2004-01-01 22:00:00';
    timezone2.result: an unknown zone or a NULL argument gives NULL."""
    assert _one(s, "SELECT CONVERT_TZ('2004-01-01 12:00:00','+00:00','+10:00')") == "2004-01-01 22:00:00"
    assert _one(s, "SELECT convert_tz('2003-12-31 04:00:00', 'SomeNotExistingTimeZone', 'UTC')") is None
    assert _one(s, "SELECT convert_tz('2003-12-31 04:00:00', NULL, 'UTC')") is None
    assert _one(s, "SELECT convert_tz(NULL, '+00:00', '+01:00')") is None
    # timezone2.result: set timestamp=1000000000; insert now() into a TIMESTAMP; convert_tz(ts, @@time_zone,
    # 'Japan') -> 2001-09-09 10:46:40 (Japan is +09:00 all year)
    s.execute("CREATE TABLE t1 (ts TIMESTAMP)")
    s.execute("SET timestamp = 1000000000")
    s.execute("INSERT INTO t1 (ts) VALUES (now())")
    s.execute("SET time_zone = '+02:00'")
    assert _one(s, "SELECT convert_tz(ts, @@time_zone, '+09:00') FROM t1") == "2001-09-09 10:46:40"


def test_default_time_zone_option(open_server):
    """mysqld --default-time-zone sets the global time_zone (RM8 "MySQL Server Time Zone Support")."""
    srv = open_server(default_time_zone="+03:00")
    s = srv.session()
    assert s.execute("SELECT @@global.time_zone, @@session.time_zone")[0].rows == [("+03:00", "+03:00")]
    with pytest.raises(MySQLError) as e:
        Server.open(srv.datadir.parent / "other", default_time_zone="Mars/Base")
    assert e.value.code == 1298


def _query_events(srv):
    out = []
    for name in srv.binlog.existing_files():
        for trx in read_transactions(srv.binlog.path(name)):
            out += [e.event for e in trx.events if isinstance(e.event, QueryEvent)]
    return out


@pytest.mark.parametrize("binlog_format", ["STATEMENT", "ROW"])
def test_replica_computes_the_same_values(tmp_path, binlog_format):
    """A statement run in +05:00 on the source gives the same DATETIME and TIMESTAMP values on a replica: its
    Query event carries Q_TIME_ZONE_CODE '+05:00' (STATEMENT; ``Query_log_event::do_apply_event`` sets it), or
    the rows event carries the TIMESTAMP as UTC seconds (ROW)."""
    with Server.open(tmp_path / "a", gtid_mode="ON", log_bin=True, binlog_format=binlog_format) as src:
        s = src.session()
        s.execute(
            "CREATE DATABASE d; USE d; CREATE TABLE t (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME)"
        )
        s.execute("SET time_zone = '+05:00'")
        s.execute(
            "INSERT INTO t VALUES (1, FROM_UNIXTIME(1000000000), FROM_UNIXTIME(1000000000)), "
            "(2, '2024-01-01 12:00:00', '2024-01-01 12:00:00')"
        )
        trxs = []
        for name in src.binlog.existing_files():
            trxs += list(read_transactions(src.binlog.path(name)))
        inserts = [e for e in _query_events(src) if e.query.startswith("INSERT")]
        if binlog_format == "STATEMENT":
            assert [decode_status_vars(e.status_vars).time_zone for e in inserts] == ["+05:00"]
        with Server.open(tmp_path / "b", log_bin=False) as rep, rep.applier_session() as ap:
            for trx in trxs:
                ap.apply(trx)
            r = rep.session()
            r.execute("SET time_zone = '+00:00'")
            # 1000000000 = 2001-09-09 01:46:40 UTC; +05:00 wall time 06:46:40; 12:00 at +05:00 = 07:00 UTC
            assert r.execute("SELECT id, ts, dt FROM d.t ORDER BY id")[0].rows == [
                (1, "2001-09-09 01:46:40", "2001-09-09 06:46:40"),
                (2, "2024-01-01 07:00:00", "2024-01-01 12:00:00"),
            ]
