"""`gtidkit topology check` takes the mysql client's connection options (issue 17 §4): -h, -P, -u, -pPASSWORD
(no space), --password[=PASSWORD], --defaults-file ([client] group) and MYSQL_PWD, with the mysql client's
precedence (command line, then option file, then MYSQL_PWD); run as a real subprocess against a real server."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pymysql
import pytest

from tests.protocol.prefork import run_gtidkit
from tests.protocol.server_proc import ServerProcess, running_server

USER, PASSWORD = "checker", "s3cret!"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server with an account ``checker`` / ``s3cret!`` that may read the topology."""
    datadir = tmp_path_factory.mktemp("topo") / "d"
    args = ("--log-bin", "--gtid-mode=ON", "--enforce-gtid-consistency=ON", "--server-id=1")
    with running_server(datadir, *args) as proc:
        conn = pymysql.connect(host="127.0.0.1", port=proc.port, user="root", password="")
        with conn.cursor() as cur:
            cur.execute(f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
            cur.execute(f"GRANT SELECT, REPLICATION CLIENT ON *.* TO '{USER}'@'%'")
            cur.execute("SELECT @@server_uuid")
            proc.uuid = cur.fetchone()[0]  # type: ignore[attr-defined]
        conn.close()
        yield proc


def check(
    *args: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``gtidkit topology check ARGS`` with ``env`` added to the environment (MYSQL_PWD removed unless given)."""
    environ = {k: v for k, v in os.environ.items() if k != "MYSQL_PWD"}
    return run_gtidkit(  # forked by the prefork process: a new interpreter's behaviour without its imports
        ["topology", "check", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**environ, **(env or {})},
        start_new_session=True,  # no controlling terminal: a password prompt reads stdin
    )


def option_file(tmp_path: Path, **client: object) -> str:
    """An option file whose [client] group holds ``client``."""
    path = tmp_path / "my.cnf"
    lines = ["[mysqld]", "port=1", "[client]", *(f"{k}={v}" for k, v in client.items())]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


CASES = [
    pytest.param(
        lambda p, f: ["-h", "127.0.0.1", "-P", str(p), "-u", USER, f"-p{PASSWORD}"], None, id="h-P-u-p"
    ),
    pytest.param(lambda p, f: ["-h127.0.0.1", f"-P{p}", f"-u{USER}", f"-p{PASSWORD}"], None, id="glued"),
    pytest.param(
        lambda p, f: [f"--user={USER}", f"--password={PASSWORD}", f"127.0.0.1:{p}"], None, id="long"
    ),
    pytest.param(
        lambda p, f: ["-u", USER, "-P", str(p), "127.0.0.1"], {"MYSQL_PWD": PASSWORD}, id="MYSQL_PWD"
    ),
    pytest.param(
        lambda p, f: ["-u", USER, "-P", str(p), "-pwrong", f"-p{PASSWORD}"],
        {"MYSQL_PWD": "x"},
        id="last-p-wins",
    ),
    pytest.param(
        lambda p, f: [f"--defaults-file={f(user=USER, password=PASSWORD, port=p, host='127.0.0.1')}"],
        {"MYSQL_PWD": "wrong"},
        id="defaults-file-over-MYSQL_PWD",
    ),
    pytest.param(
        lambda p, f: ["--defaults-file", f(user=USER, password="wrong", port=p), f"-p{PASSWORD}"],
        None,
        id="command-line-over-defaults-file",
    ),
]


@pytest.mark.parametrize(("make_args", "env"), CASES)
def test_connection_options(server: ServerProcess, tmp_path: Path, make_args, env) -> None:
    r = check(*make_args(server.port, lambda **kw: option_file(tmp_path, **kw)), env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"127.0.0.1:{server.port}" in r.stdout
    assert server.uuid in r.stdout  # type: ignore[attr-defined]  # whole, not cut to "…"
    assert r.stderr == ""


@pytest.mark.parametrize("flag", ["-p", "--password"])
def test_password_prompt(server: ServerProcess, flag: str) -> None:
    r = check("-u", USER, "-P", str(server.port), flag, stdin=PASSWORD + "\n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert server.uuid in r.stdout  # type: ignore[attr-defined]


def test_p_with_a_space_prompts_and_the_word_is_a_server(server: ServerProcess) -> None:
    # mysql -p secret: -p asks for the password and "secret" is the next argument (a server name here)
    r = check("-u", USER, "-P", str(server.port), "-p", "127.0.0.1", stdin=PASSWORD + "\n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"127.0.0.1:{server.port}" in r.stdout


def test_wrong_password_goes_to_stderr(server: ServerProcess) -> None:
    r = check("-u", USER, "-pnope", "-P", str(server.port))
    assert r.returncode == 2
    assert f"unreachable 127.0.0.1:{server.port}: ERROR 1045: Access denied for user '{USER}'@" in r.stderr
    assert "unreachable" not in r.stdout and "(" not in r.stderr.split("ERROR 1045", 1)[0]


def test_missing_defaults_file(tmp_path: Path) -> None:
    # MySQL 8.0 mysys (EE_FAILED_TO_OPEN_DEFAULTS_FILE): "Failed to open required defaults file" (5.x said "Could not")
    r = check(f"--defaults-file={tmp_path / 'none.cnf'}")
    assert r.returncode == 2
    assert f"Failed to open required defaults file: {tmp_path / 'none.cnf'}" in r.stderr
    assert "Traceback" not in r.stderr
