"""mysqld's start-up options (gtidkit.protocol.options, option_files): syntax, option files, defaults, messages.

Expected texts and codes are mysys's (``mysys/errors.cc`` globerrs, ``include/mysys_err.h``: EE_UNKNOWN_VARIABLE 67,
EE_UNKNOWN_OPTION 68, EE_ADJUSTED_UNSIGNED_VALUE_FOR_OPTION 81, EE_ADJUSTED_ULONGLONG_VALUE_FOR_OPTION 82, ...) and
my_getopt's rules (``mysys/my_getopt.cc``: a negative value of an unsigned option is set to the minimum with 82, an
out-of-range one is clamped with 81, ``--skip-x=0`` is x on); defaults are mysqld 8.0's ``mysqld --verbose --help``
(``mysql-test/r/mysqld--help-notwin.result``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gtidkit.engine import sysvars
from gtidkit.protocol.mysqld_option_names import MYSQLD_OPTION_NAMES
from gtidkit.protocol.option_files import OptionError, read_option_file
from gtidkit.protocol.options import OPTIONS, help_text, load


@pytest.mark.parametrize(
    ("args", "key", "value"),
    [
        (["--server-id=5"], "server_id", 5),
        (["--server_id", "5"], "server_id", 5),
        (["--SERVER-ID=5"], "server_id", 5),
        (["--gtid-mode", "on", "--enforce-gtid-consistency"], "gtid_mode", "ON"),
        (["--enforce-gtid-consistency"], "enforce_gtid_consistency", "ON"),
        (["--enforce-gtid-consistency", "warn"], "enforce_gtid_consistency", "WARN"),
        (["--enforce-gtid-consistency", "--server-id=2"], "enforce_gtid_consistency", "ON"),
        (["--enforce-gtid-consistency=WARN"], "enforce_gtid_consistency", "WARN"),
        (["--gtid-mode=3", "--enforce-gtid-consistency=ON"], "gtid_mode", "ON"),  # an enum's index
        (["--skip-log-bin"], "log_bin", False),
        (["--disable-log-bin"], "log_bin", False),
        (["--skip-log-bin=0"], "log_bin", True),  # my_getopt's double negation
        (["--log-bin"], "log_bin", True),
        (["--log-bin=mysql-bin"], "log_bin_basename", "mysql-bin"),
        (["--log-bin-index=/x/i.index"], "log_bin_index", "/x/i.index"),
        (["--skip-log-replica-updates"], "log_replica_updates", False),
        (["--log-slave-updates=OFF"], "log_replica_updates", False),
        (["--enable-log-replica-updates"], "log_replica_updates", True),
        (["--skip-replica-start"], "skip_replica_start", True),  # the whole name first
        (["--max-binlog-size=64K"], "max_binlog_size", 65536),
        (["--max-binlog-size", "1M"], "max_binlog_size", 1 << 20),
        (["--default-time-zone=+03:00"], "time_zone", "+03:00"),
        (["--server-id=1", "--server-id=2"], "server_id", 2),  # later wins
        (["--loose-server-id=9"], "server_id", 9),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_engine_option_spellings(args: list[str], key: str, value: object) -> None:
    assert load(args).engine[key] == value


@pytest.mark.parametrize(
    ("args", "key", "value"),
    [
        (["--port", "3307"], "port", 3307),
        (["-P", "3307"], "port", 3307),
        (["-P3307"], "port", 3307),
        (["--max-connections=2"], "max_connections", 2),
        (["--max-allowed-packet=1M"], "max_allowed_packet", 1 << 20),
        (["--bind-address", "0.0.0.0"], "bind_address", "0.0.0.0"),
        (["--skip-ssl"], "ssl", False),
        (["--ssl=0"], "ssl", False),
        (["--log-error=err.log"], "log_error", "err.log"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_wire_option_spellings(args: list[str], key: str, value: object) -> None:
    assert load(args).wire[key] == value


@pytest.mark.parametrize(
    ("args", "key", "value"),
    [
        (["-h", "/data"], "datadir", "/data"),
        (["-h/data"], "datadir", "/data"),
        (["--datadir=/data"], "datadir", "/data"),
        (["-?"], "help", True),
        (["--help", "-v"], "verbose", True),
        (["-V"], "version", True),
        (["--initialize-insecure"], "initialize_insecure", True),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_command_options(args: list[str], key: str, value: object) -> None:
    assert load(args).command[key] == value


def test_mysqld_80_defaults() -> None:
    # mysqld --verbose --help (8.0): log-bin on with base name binlog, server-id 1, gtid-mode OFF,
    # enforce-gtid-consistency FALSE, binlog-format ROW
    opts = load([])
    assert {k: opts.engine[k] for k in ("log_bin", "gtid_mode", "enforce_gtid_consistency", "server_id")} == {
        "log_bin": True,
        "gtid_mode": "OFF",
        "enforce_gtid_consistency": "OFF",
        "server_id": 1,
    }
    assert opts.engine["binlog_format"] == "ROW"
    assert "log_bin_basename" not in opts.engine  # the engine's default name: binlog.000001
    assert opts.wire["port"] == 3306 and opts.wire["max_connections"] == 151
    assert opts.warnings == []


@pytest.mark.parametrize(
    ("args", "lines", "key", "value"),
    [
        (
            ["--server-id=-5"],
            ["[Warning] [MY-000082] [Server] option 'server_id': value -5 adjusted to 0."],
            "server_id",
            0,
        ),
        (
            ["--port", "99999"],
            ["[Warning] [MY-000081] [Server] option 'port': unsigned value 99999 adjusted to 65535."],
            "port",
            65535,
        ),
        (
            ["--max-binlog-size=100"],
            ["[Warning] [MY-000081] [Server] option 'max_binlog_size': unsigned value 100 adjusted to 4096."],
            "max_binlog_size",
            4096,
        ),
        (
            ["--log-replica-updates=maybe"],
            [
                (
                    "[Warning] [MY-000073] [Server] mysqld: ignoring option '--log_replica_updates' due to invalid value "
                    "'maybe'."
                )
            ],
            "log_replica_updates",
            True,
        ),
        (
            ["--innodb-buffer-pool-size", "1G"],
            [
                (
                    "[Warning] [Server] option 'innodb_buffer_pool_size' is a mysqld option that gtidkit does not "
                    "implement; it is ignored."
                )
            ],
            None,
            None,
        ),
        (
            ["--loose-group-replication-group-name=x"],
            ["[Warning] [MY-000067] [Server] unknown variable 'group-replication-group-name=x'."],
            None,
            None,
        ),
    ],
    ids=[
        "negative-unsigned",
        "port-too-big",
        "below-minimum",
        "bad-boolean",
        "not-modelled",
        "loose-unknown",
    ],
)
def test_adjusted_and_ignored_values_warn(
    args: list[str], lines: list[str], key: str | None, value: object
) -> None:
    opts = load(args)
    assert [str(w) for w in opts.warnings] == lines
    if key is not None:
        assert {**opts.engine, **opts.wire}[key] == value


@pytest.mark.parametrize(
    ("args", "lines"),
    [
        (
            ["--no-such=1", "--nope", "--server-id=3", "--also-not"],
            [
                "[ERROR] [MY-000067] [Server] unknown variable 'no-such=1'.",
                "[ERROR] [MY-000068] [Server] unknown option '--nope'.",
                "[ERROR] [MY-000068] [Server] unknown option '--also-not'.",
                "[ERROR] [MY-010119] [Server] Aborting",
            ],
        ),
        (
            ["--query-cache-size=0"],  # removed in 8.0: mysqld 8.0 refuses it too
            [
                "[ERROR] [MY-000067] [Server] unknown variable 'query-cache-size=0'.",
                "[ERROR] [MY-010119] [Server] Aborting",
            ],
        ),
        (
            ["--gtid-mode=maybe"],
            [
                "[ERROR] [MY-000077] [Server] mysqld: Error while setting value 'maybe' to 'gtid_mode'.",
                "[ERROR] [MY-010119] [Server] Aborting",
            ],
        ),
        (
            ["--port=12x"],
            [
                "[ERROR] [MY-000058] [Server] Unknown suffix 'x' used for variable 'port' (value '12x').",
                "[ERROR] [MY-000077] [Server] mysqld: Error while setting value '12x' to 'port'.",
                "[ERROR] [MY-010119] [Server] Aborting",
            ],
        ),
        (
            ["--server-id"],
            [
                "[ERROR] [MY-000071] [Server] mysqld: option '--server_id' requires an argument.",
                "[ERROR] [MY-010119] [Server] Aborting",
            ],
        ),
        (["-h"], ["[ERROR] [MY-000072] [Server] mysqld: option '-h' requires an argument."]),
        (["-Z"], ["[ERROR] [MY-000069] [Server] mysqld: unknown option '-Z'."]),
        (["start"], ["[ERROR] [MY-010147] [Server] Too many arguments (first extra is 'start')."]),
    ],
    ids=[
        "all-unknown-at-once",
        "removed-in-80",
        "bad-enum",
        "bad-suffix",
        "missing-value",
        "short-h",
        "short-unknown",
        "positional",
    ],
)
def test_refused_options(args: list[str], lines: list[str]) -> None:
    with pytest.raises(OptionError) as exc:
        load(args)
    assert [str(line) for line in exc.value.lines] == lines


def test_option_table_comes_from_the_sysvar_table() -> None:
    # one copy of each piece of knowledge: every variable that is a mysqld option has its type, range and default
    for name, opt in OPTIONS.items():
        if (
            name in sysvars.SYSVARS
            and opt.owner in ("engine", "both")
            and name not in ("log_bin", "log_bin_index")
        ):
            var = sysvars.lookup(name)
            assert (opt.default, opt.minimum, opt.maximum, opt.choices) == (
                var.default,
                var.minimum,
                var.maximum,
                var.choices,
            ), name
    # and every modelled option is a real mysqld option
    assert set(OPTIONS) <= MYSQLD_OPTION_NAMES | {
        "defaults_file",
        "defaults_extra_file",
        "help",
        "verbose",
        "version",
        "server_version",  # gtidkit's own: the release presented (engine/server_version.py)
        "workers",  # gtidkit's own: worker processes (issue 21, cli/supervisor.py)
        "supervised",
        "worker_cpu_affinity",  # gtidkit's own: each worker of several on one CPU (protocol/cpus.py, h-gil)
        "gtidkit_file_per_schema",  # gtidkit's own: a file per schema (issue 21 step 9)
        "gtidkit_row_locks",  # gtidkit's own: row locks, the write lock at COMMIT (multi_worker.md §5.7)
    }


def test_help_verbose_lists_every_option_with_its_default() -> None:
    text = help_text(verbose=True)
    table = text.split("Variables (--variable-name=value)", 1)[1]
    rows = {
        # an empty default is an empty column (mysqld--help-notwin.result: "replica-type-conversions ")
        line.split()[0]: (line.split(None, 1) + [""])[1]
        for line in table.splitlines()[3:]
        if line and line[0] != " "
    }
    for row, value in {
        "log-bin": "binlog",
        "server-id": "1",
        "gtid-mode": "OFF",
        "enforce-gtid-consistency": "OFF",
        "binlog-format": "ROW",
        "port": "3306",
        "log-replica-updates": "TRUE",
        "log-bin-index": "(No default value)",
        "replica-type-conversions": "",
        # mysqld 8.0's (engine/sysvar_versions.py), not the 8.4 behaviour the engine keeps as a fallback
        "binlog-transaction-dependency-tracking": "COMMIT_ORDER",
        "default-authentication-plugin": "caching_sha2_password",
    }.items():
        assert rows[row] == value, row
    assert "-h, --datadir=name" in text and "--enforce-gtid-consistency[=name]" in text


# ---------------------------------------------------------------------------------------------- option files
DBA_CNF = """\
# a DBA's my.cnf
[client]
port = 3306
socket = /var/run/mysqld/mysqld.sock

[mysqld]
user = mysql
pid-file = mysqld.pid
socket = /var/run/mysqld/mysqld.sock
datadir = {datadir}
log_error = error.log
character-set-server = utf8mb4
collation_server = utf8mb4_0900_ai_ci
skip-name-resolve
innodb_buffer_pool_size = 2G    # half the RAM
innodb_log_file_size = 512M
innodb_flush_log_at_trx_commit = 1
innodb_file_per_table = 1
slow_query_log = 1
slow_query_log_file = "/var/log/mysql/slow.log"
long_query_time = 2
max_connections = 500
table_open_cache = 4000
log-bin = mysql-bin
server-id = 42
binlog_expire_logs_seconds = 604800
loose-rpl_semi_sync_source_enabled = 1

[mysqld-8.0]
gtid_mode = ON
enforce_gtid_consistency = ON

[mysqldump]
quick
max_allowed_packet = 64M

!includedir {confd}
"""


def test_realistic_dba_my_cnf(tmp_path: Path) -> None:
    confd = tmp_path / "conf.d"
    confd.mkdir()
    (confd / "b.cnf").write_text("[mysqld]\nmax_connections = 600\n")
    (confd / "a.cnf").write_text("[mysqld]\nperformance_schema = OFF\nsync_binlog = 0\n")
    (confd / "README").write_text("not an option file\n")
    cnf = tmp_path / "my.cnf"
    cnf.write_text(DBA_CNF.format(datadir=tmp_path / "data", confd=confd))
    opts = load([f"--defaults-file={cnf}", "--server-id", "43"])
    assert opts.command["datadir"] == str(tmp_path / "data")
    assert opts.engine["server_id"] == 43  # the command line wins over the file
    assert opts.engine["log_bin_basename"] == "mysql-bin"
    assert (opts.engine["gtid_mode"], opts.engine["enforce_gtid_consistency"]) == ("ON", "ON")
    assert opts.engine["character_set_server"] == "utf8mb4"
    assert opts.engine["binlog_expire_logs_seconds"] == 604800
    assert opts.engine["sync_binlog"] == 0
    assert opts.wire["max_connections"] == 600  # !includedir files in name order, after the including file's
    assert opts.wire["log_error"] == "error.log"
    assert opts.wire["pid_file"] == "mysqld.pid"
    ignored = sorted(w.text.split("'")[1] for w in opts.warnings if w.code == 0)
    assert ignored == sorted(
        [
            "user",
            "socket",
            "innodb_buffer_pool_size",
            "innodb_log_file_size",
            "innodb_flush_log_at_trx_commit",
            "innodb_file_per_table",
            "slow_query_log",
            "slow_query_log_file",
            "long_query_time",
            "table_open_cache",
            "performance_schema",
        ]
    )
    assert [str(w) for w in opts.warnings if w.code] == [
        "[Warning] [MY-000067] [Server] unknown variable 'rpl_semi_sync_source_enabled=1'."
    ]


@pytest.mark.parametrize(
    ("text", "settings"),
    [
        ("[mysqld]\nport=1\n", [("port", "1")]),
        ("[MYSQLD]\n port = 1 \n", [("port", "1")]),
        ("[server]\nskip-log-bin\n", [("skip-log-bin", None)]),
        ("[mysqld-8.0]\nlog_bin='a b' # comment\n", [("log_bin", "a b")]),
        ("[mysqld-8.4]\nport=1\n[mysqld-5.7]\nport=2\n", []),
        ("[client]\nport=1\n[mysql]\nport=2\n", []),
        ('; comment\n# comment\n[mysqld]\nsql_mode="A#B"\n', [("sql_mode", "A#B")]),
        ("[mysqld]\ngeneral_log_file=/x#y\n", [("general_log_file", "/x#y")]),
    ],
    ids=[
        "plain",
        "case-and-spaces",
        "server-group",
        "quotes-comment",
        "other-version",
        "client-groups",
        "hash-in-quotes",
        "hash-in-word",
    ],
)
def test_option_file_syntax(tmp_path: Path, text: str, settings: list[tuple[str, str | None]]) -> None:
    cnf = tmp_path / "my.cnf"
    cnf.write_text(text)
    assert [(s.name, s.value) for s in read_option_file(cnf)] == settings


def test_include_follows_and_missing_include_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "extra.cnf").write_text("[mysqld]\nserver-id=7\n")
    cnf = tmp_path / "my.cnf"
    cnf.write_text("[mysqld]\nserver-id=1\n!include extra.cnf\n!include missing.cnf\n")
    assert [(s.name, s.value) for s in read_option_file(cnf)] == [("server-id", "1"), ("server-id", "7")]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "port=1\n[mysqld]\n",
            "[ERROR] [MY-000052] [Server] Found option without preceding group in config file {f} at line 1.",
        ),
        (
            "[mysqld\nport=1\n",
            "[ERROR] [MY-000051] [Server] Wrong group definition in config file {f} at line 1.",
        ),
        (
            "[mysqld]\n!inclde x\n",
            "[ERROR] [MY-000049] [Server] Wrong '!inclde' directive in config file {f} at line 2.",
        ),
    ],
    ids=["no-group", "bad-group", "bad-directive"],
)
def test_option_file_errors(tmp_path: Path, text: str, line: str) -> None:
    cnf = tmp_path / "my.cnf"
    cnf.write_text(text)
    with pytest.raises(OptionError) as exc:
        read_option_file(cnf)
    assert str(exc.value.lines[0]) == line.format(f=cnf)


def test_missing_files(tmp_path: Path) -> None:
    with pytest.raises(OptionError) as exc:
        load([f"--defaults-file={tmp_path / 'nope.cnf'}"])
    assert str(exc.value.lines[0]) == (
        f"[ERROR] [MY-000047] [Server] Failed to open required defaults file: {tmp_path / 'nope.cnf'}"
    )
    cnf = tmp_path / "my.cnf"
    cnf.write_text(f"[mysqld]\n!includedir {tmp_path / 'nodir'}\n")
    with pytest.raises(OptionError) as exc:
        load([f"--defaults-file={cnf}"])
    assert [str(line) for line in exc.value.lines] == [
        (
            f"[ERROR] [MY-000012] [Server] Can't read dir of '{tmp_path / 'nodir'}' (OS errno 2 - No such file or "
            "directory)"
        ),
        "[ERROR] [MY-000048] [Server] Fatal error in defaults handling. Program aborted!",
    ]
    assert load([f"--defaults-file={tmp_path / 'nope.cnf'}", "--no-defaults"]).engine["server_id"] == 1
