"""``gtidkit binlog show`` reading from a live server (cli/binlog_remote.py): mysqlbinlog's
``--read-from-remote-source=BINLOG-DUMP-GTIDS`` / ``--read-from-remote-server``, ``--raw``, ``--result-file`` as a
prefix, ``--exclude-gtids`` sent as the dump's GTID set, ``--stop-never`` across rotations and a source restart.

The source is a real ``gtidkit server`` process written to by the real ``mariadb`` client's protocol (PyMySQL);
what the copy must equal is the source's own binlog files, byte for byte (compared after the source shut down,
when it has cleared the IN_USE flag of its last file's Format_description, as the dump stream does).
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pymysql
import pytest

from gtidkit.binlog.file import read_transactions
from tests.protocol.prefork import popen_gtidkit, run_gtidkit
from tests.protocol.server_proc import free_port, running_server

SOURCE_ARGS = ("--log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=9")


def _free_port() -> int:
    return free_port()  # the restart finds the same port: one from below the ephemeral range


def _sql(port: int, *stmts: str) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
    out: list[tuple] = []
    try:
        with conn.cursor() as cur:
            for st in stmts:
                cur.execute(st)
                out = list(cur.fetchall())
    finally:
        conn.close()
    return out


def _show(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return run_gtidkit(
        ["binlog", "show", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _binlogs(datadir: Path) -> list[Path]:
    return sorted(p for p in datadir.iterdir() if p.name.startswith("binlog.0"))


def _gtids(path: Path) -> list[str]:
    return [str(t.gtid) for t in read_transactions(path).transactions if t.gtid is not None]


@pytest.mark.parametrize(
    "protocol",
    [
        pytest.param(("--read-from-remote-source=BINLOG-DUMP-GTIDS",), id="gtids"),
        pytest.param(("--read-from-remote-server",), id="positions"),
    ],
)
def test_raw_copy_is_byte_identical(tmp_path: Path, protocol: tuple[str, ...]) -> None:
    """--raw --to-last-log -r DIR/: every source file copied under its own name; after the source stopped, each copy
    equals the source's file byte for byte."""
    with running_server(tmp_path / "src", *SOURCE_ARGS) as src:
        _sql(
            src.port,
            "CREATE DATABASE d",
            "CREATE TABLE d.t (id INT PRIMARY KEY, v TEXT)",
            "INSERT INTO d.t VALUES (1,'a'),(2,'b')",
            "FLUSH BINARY LOGS",
            "INSERT INTO d.t VALUES (3,'c')",
            "UPDATE d.t SET v='z' WHERE id=1",
        )
        names = [r[0] for r in _sql(src.port, "SHOW BINARY LOGS")]
        r = _show(
            *protocol, "-h127.0.0.1", f"-P{src.port}", "-uroot", "--raw", "--to-last-log",
            "-r", f"{tmp_path / 'copy'}/", names[0],
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        src.stop()
    copies = sorted(p.name for p in (tmp_path / "copy").iterdir())
    assert copies == names
    _assert_identical(tmp_path / "copy", tmp_path / "src", names)


def _assert_identical(copy: Path, src: Path, names: list[str]) -> None:
    """Each copy equals the source's file; the last one (active while copied) may lack only the Stop event the
    source wrote at its shutdown."""
    for name in names[:-1]:
        assert (copy / name).read_bytes() == (src / name).read_bytes(), name
    last, whole = (copy / names[-1]).read_bytes(), (src / names[-1]).read_bytes()
    assert whole.startswith(last), names[-1]
    rest = whole[len(last) :]
    assert rest == b"" or (rest[4] == 3 and int.from_bytes(rest[9:13], "little") == len(rest)), rest


def test_one_file_by_position_and_text_output(tmp_path: Path) -> None:
    """-R FILE (no --to-last-log): only FILE is read; without --raw the events are printed as mysqlbinlog's script
    (its GTID_NEXT lines are the source's GTIDs of that file)."""
    with running_server(tmp_path / "src", *SOURCE_ARGS) as src:
        _sql(src.port, "CREATE DATABASE d", "FLUSH BINARY LOGS", "CREATE TABLE d.t (id INT PRIMARY KEY)")
        names = [r[0] for r in _sql(src.port, "SHOW BINARY LOGS")]
        uuid = _sql(src.port, "SELECT @@server_uuid")[0][0]
        r = _show("-R", "-h127.0.0.1", f"-P{src.port}", "-uroot", "--raw", "-r", f"{tmp_path}/c-", names[-2])
        assert r.returncode == 0, r.stderr
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("c-")) == [f"c-{names[-2]}"]
        r = _show("-R", "-h127.0.0.1", f"-P{src.port}", "-uroot", names[-2])
        assert r.returncode == 0, r.stderr
    assert f"SET @@SESSION.GTID_NEXT= '{uuid}:1'" in r.stdout
    assert "CREATE DATABASE d" in r.stdout
    assert "CREATE TABLE d.t" not in r.stdout


def test_exclude_gtids_is_the_dump_set(tmp_path: Path) -> None:
    """BINLOG-DUMP-GTIDS with --exclude-gtids: the source skips those transactions (the copy lacks them), and the
    printed script has no GTID_NEXT for them."""
    with running_server(tmp_path / "src", *SOURCE_ARGS) as src:
        _sql(src.port, "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY)")
        for i in range(4):
            _sql(src.port, f"INSERT INTO d.t VALUES ({i})")
        uuid = _sql(src.port, "SELECT @@server_uuid")[0][0]
        first = _sql(src.port, "SHOW BINARY LOGS")[0][0]
        common = ("--read-from-remote-source=BINLOG-DUMP-GTIDS", "-h127.0.0.1", f"-P{src.port}", "-uroot")
        r = _show(
            *common, f"--exclude-gtids={uuid}:1-4", "--raw", "--to-last-log", "-r", f"{tmp_path}/x/", first
        )
        assert r.returncode == 0, r.stderr
        got = [g for p in sorted((tmp_path / "x").iterdir()) for g in _gtids(p)]
        assert got == [f"{uuid}:5", f"{uuid}:6"]
        r = _show(*common, f"--exclude-gtids={uuid}:1-4", "--to-last-log", first)
        assert r.returncode == 0, r.stderr
    nexts = [ln for ln in r.stdout.splitlines() if ln.startswith(f"SET @@SESSION.GTID_NEXT= '{uuid}")]
    assert nexts == [
        f"SET @@SESSION.GTID_NEXT= '{uuid}:5'/*!*/;",
        f"SET @@SESSION.GTID_NEXT= '{uuid}:6'/*!*/;",
    ]


def _wait_for(pred, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_stop_never_follows_rotations_and_survives_a_source_restart(tmp_path: Path) -> None:
    """--raw --stop-never: new transactions and new files arrive while connected; the source is stopped and started
    again on the same port; the copier reconnects and resumes from what it saved (nothing asked twice). At the end
    every copy equals the source's file, and the copy holds every GTID once."""
    port = _free_port()
    args = (*SOURCE_ARGS, f"--port={port}")
    copy = tmp_path / "copy"
    with running_server(tmp_path / "src", *args) as src:
        _sql(port, "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY)")
        first = _sql(port, "SHOW BINARY LOGS")[0][0]
        uuid = _sql(port, "SELECT @@server_uuid")[0][0]
        copier = popen_gtidkit(
            [
                "binlog", "show",
                "--read-from-remote-source=BINLOG-DUMP-GTIDS", "-h127.0.0.1", f"-P{port}", "-uroot",
                "--raw", "--stop-never", "-r", f"{copy}/", first,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:

            def saved() -> list[str]:
                if not copy.exists():
                    return []
                out = []
                for p in sorted(copy.iterdir()):
                    try:
                        out += _gtids(p)
                    except Exception:  # noqa: BLE001 - a file being written
                        return []
                return out

            _sql(port, "INSERT INTO d.t VALUES (1)", "FLUSH BINARY LOGS", "INSERT INTO d.t VALUES (2)")
            _wait_for(lambda: len(saved()) == 4)
            src.stop()
            with running_server(tmp_path / "src", *args, init=False) as src2:
                _sql(port, "INSERT INTO d.t VALUES (3)", "FLUSH BINARY LOGS", "INSERT INTO d.t VALUES (4)")
                _wait_for(lambda: len(saved()) == 6)
                assert copier.poll() is None
                src2.stop()
        finally:
            copier.send_signal(signal.SIGTERM)
            try:
                copier.wait(30)
            except subprocess.TimeoutExpired:
                copier.kill()
                copier.wait()
    assert sorted(saved()) == sorted(f"{uuid}:{n}" for n in range(1, 7))
    names = [p.name for p in _binlogs(tmp_path / "src")]
    assert sorted(p.name for p in copy.iterdir()) == names
    _assert_identical(copy, tmp_path / "src", names)


def _script_prefix(stream: str, local: str) -> None:
    """The live listing equals the listing of the source's own files, up to where the live one was stopped (the
    live one has no epilogue; the last file of the local one may have more events)."""
    body = stream.rstrip("\n")
    assert body, "nothing printed"
    cut = body.rfind("\n# at ")
    assert cut > 0
    assert local.startswith(body[:cut]), "the live listing differs from the listing of the files"


def test_stop_never_without_raw_prints_as_events_arrive(tmp_path: Path) -> None:
    """--stop-never without --raw (mysqlbinlog's behaviour): the script of the events is printed while the command
    stays connected: a transaction written after the listing started appears on its output (flushed at once, the
    process still running), across a rotation and a source restart, each event once. Its text equals the listing
    of the source's files."""
    port = _free_port()
    args = (*SOURCE_ARGS, f"--port={port}")
    out_path = tmp_path / "live.sql"
    with running_server(tmp_path / "src", *args) as src:
        _sql(port, "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))")
        first = _sql(port, "SHOW BINARY LOGS")[0][0]
        uuid = _sql(port, "SELECT @@server_uuid")[0][0]
        with out_path.open("wb") as out:
            follower = popen_gtidkit(
                [
                    "binlog", "show",
                    "--read-from-remote-source=BINLOG-DUMP-GTIDS", "-h127.0.0.1", f"-P{port}", "-uroot",
                    "--stop-never", first,
                ],
                stdout=out,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
        try:

            def printed() -> list[str]:
                text = out_path.read_text(errors="replace")
                return [ln for ln in text.splitlines() if ln.startswith(f"SET @@SESSION.GTID_NEXT= '{uuid}")]

            _wait_for(lambda: len(printed()) == 2)
            _sql(port, "INSERT INTO d.t VALUES (1, 'one')")
            _wait_for(lambda: len(printed()) == 3)
            _sql(port, "FLUSH BINARY LOGS", "INSERT INTO d.t VALUES (2, 'two')")
            _wait_for(lambda: len(printed()) == 4)
            assert follower.poll() is None, follower.communicate()
            src.stop()
            with running_server(tmp_path / "src", *args, init=False) as src2:
                _sql(port, "UPDATE d.t SET v = 'deux' WHERE id = 2")
                _wait_for(lambda: len(printed()) == 5)
                assert follower.poll() is None
                src2.stop()
        finally:
            follower.send_signal(signal.SIGTERM)
            try:
                _, err = follower.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                follower.kill()
                _, err = follower.communicate()
    assert "Traceback" not in err, err
    assert printed() == [f"SET @@SESSION.GTID_NEXT= '{uuid}:{n}'/*!*/;" for n in range(1, 6)]
    names = [str(p) for p in _binlogs(tmp_path / "src")]
    r = _show(*names)
    assert r.returncode == 0, r.stderr
    _script_prefix(out_path.read_text(errors="replace"), r.stdout)


def test_stop_never_without_raw_ends_at_stop_datetime(tmp_path: Path) -> None:
    """--stop-never with --stop-datetime: the live listing ends at the first event at or after that time (a
    transaction written later), with mysqlbinlog's end of script, exit status 0."""
    with running_server(tmp_path / "src", *SOURCE_ARGS) as src:
        _sql(src.port, "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY)")
        first = _sql(src.port, "SHOW BINARY LOGS")[0][0]
        uuid = _sql(src.port, "SELECT @@server_uuid")[0][0]
        stop = int(time.time()) + 2
        follower = popen_gtidkit(
            [
                "binlog", "show",
                "--read-from-remote-source=BINLOG-DUMP-GTIDS", "-h127.0.0.1", f"-P{src.port}", "-uroot",
                "--stop-never", "--stop-datetime", time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stop)),
                first,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            while time.time() < stop + 0.2:
                time.sleep(0.1)
            _sql(src.port, "INSERT INTO d.t VALUES (1)")
            out, err = follower.communicate(timeout=60)
        finally:
            if follower.poll() is None:
                follower.kill()
                follower.communicate()
    assert follower.returncode == 0, err
    assert f"SET @@SESSION.GTID_NEXT= '{uuid}:2'" in out
    assert f"{uuid}:3" not in out
    assert out.endswith("# End of log file\n/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n"
                        "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n")  # fmt: skip
    assert "DELIMITER ;\n" in out
