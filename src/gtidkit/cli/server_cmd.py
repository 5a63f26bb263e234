"""`gtidkit server`: run a datadir as a MySQL server (``mysqld``'s options, ``--initialize``, pid file, error log).

Sources: MySQL manual "Initializing the Data Directory" (``--initialize`` prints a generated temporary password
for root@localhost, ``--initialize-insecure`` an empty one; an existing non-empty datadir aborts with MY-010457),
"The Server Shutdown Process" (SIGTERM and the SHUTDOWN statement shut down cleanly), ``--pid-file`` and
``--log-error`` (both relative to the datadir).

Any ``--option[=value]`` mysqld knows may be given, on the command line or in ``[mysqld]`` of
``--defaults-file``; the wire server's own ones are listed in :data:`gtidkit.protocol.options.SERVER_OPTIONS`,
the rest go to the engine (``Server.open``), which refuses unknown names as mysqld does.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import socket
import string
import sys
from pathlib import Path
from typing import Any

import click

from gtidkit.errors import MySQLError

_PASSWORD_ALPHABET = string.ascii_letters + string.digits + "!#%&()*+,-.:;<=>?_"


def generate_password(length: int = 12) -> str:
    """A random temporary password like the one ``mysqld --initialize`` prints (letters, digits, punctuation)."""
    return "".join(secrets.choice(_PASSWORD_ALPHABET) for _ in range(length))


#: mysqld's on/off options whose value may also be a name (``--log-bin=binlog``: on, with that basename).
_BOOLEAN_ENGINE_OPTIONS = {"log_bin", "log_replica_updates", "log_slave_updates"}


def _engine_options(opts: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in opts.items():
        if name in _BOOLEAN_ENGINE_OPTIONS:
            out[name] = str(value).upper() not in ("0", "OFF", "FALSE")
        elif str(value).lstrip("-").isdigit():
            out[name] = int(value)  # numeric options arrive as text from argv and option files
        else:
            out[name] = value
    return out


def _setup_logging(log_error: str, datadir: Path) -> None:
    root = logging.getLogger("gtidkit")
    root.setLevel(logging.INFO)
    fmt = logging.Formatter("%(asctime)s [%(levelname)s] [Server] %(message)s", "%Y-%m-%dT%H:%M:%S")
    handler: logging.Handler
    if log_error:
        path = Path(log_error)
        if not path.is_absolute():
            path = datadir / path
        handler = logging.FileHandler(path)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(fmt)
    root.addHandler(handler)


@click.command(
    "server",
    context_settings={
        "ignore_unknown_options": True,
        "allow_extra_args": True,
        "help_option_names": ["--help"],
    },
)
@click.option("--datadir", type=click.Path(file_okay=False), default=None, help="Data directory.")
@click.option(
    "--defaults-file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Option file whose [mysqld] group is read first.",
)
@click.option(
    "--initialize", is_flag=True, help="Create the datadir with root@localhost and a generated password."
)
@click.option("--initialize-insecure", is_flag=True, help="Create the datadir with an empty root password.")
@click.pass_context
def server(
    ctx: click.Context,
    datadir: str | None,
    defaults_file: str | None,
    initialize: bool,
    initialize_insecure: bool,
) -> None:
    """Run a gtidkit datadir as a MySQL server (mysqld options: --port, --bind-address, --gtid-mode, ...)."""
    from gtidkit.protocol.options import ServerOptions, parse_args, read_defaults_file

    try:
        file_opts = read_defaults_file(defaults_file) if defaults_file else {}
        opts = ServerOptions.build(file_opts, parse_args(list(ctx.args)))
    except MySQLError as err:
        click.echo(f"[ERROR] [Server] {err.message}", err=True)
        sys.exit(1)
    datadir = datadir or str(opts.server.get("datadir") or "")
    if not datadir:
        click.echo("[ERROR] [Server] --datadir is required", err=True)
        sys.exit(1)
    path = Path(datadir).resolve()
    if initialize or initialize_insecure:
        sys.exit(_initialize(path, opts, insecure=initialize_insecure))
    sys.exit(_run(path, opts))


def _initialize(datadir: Path, opts: Any, *, insecure: bool) -> int:
    from gtidkit.engine import Server
    from gtidkit.engine.accounts.bootstrap import create_root
    from gtidkit.protocol.tls import generate_certs

    if datadir.exists() and any(datadir.iterdir()):
        click.echo(
            "[ERROR] [MY-010457] [Server] --initialize specified but the data directory has files in it. "
            "Aborting.",
            err=True,
        )
        return 1
    datadir.mkdir(parents=True, exist_ok=True)
    try:
        engine = Server.open(datadir, **_engine_options(opts.engine))
    except MySQLError as err:
        click.echo(f"[ERROR] [Server] {err}", err=True)
        return 1
    version = str(engine.globals.get("version"))
    password = "" if insecure else generate_password()
    try:
        create_root(engine, password, expire=not insecure)
    finally:
        engine.shutdown()
    generate_certs(datadir, version)
    if insecure:
        click.echo(
            "[Warning] [MY-010453] [Server] root@localhost is created with an empty password ! Please "
            "consider switching off the --initialize-insecure option.",
            err=True,
        )
    else:
        click.echo(
            f"[Note] [MY-010454] [Server] A temporary password is generated for root@localhost: {password}",
            err=True,
        )
    return 0


def _run(datadir: Path, opts: Any) -> int:
    from gtidkit.engine import Server
    from gtidkit.engine.accounts.bootstrap import create_root
    from gtidkit.protocol.server import WireServer
    from gtidkit.protocol.tls import generate_certs
    from gtidkit.replication import install as install_replication

    log = logging.getLogger("gtidkit.server")
    s = opts.server
    _setup_logging(str(s["log_error"]), datadir)
    host = socket.gethostname()
    pid_file = Path(str(s["pid_file"]) or f"{host}.pid")
    if not pid_file.is_absolute():
        pid_file = datadir / pid_file
    try:
        engine = Server.open(datadir, **_engine_options(opts.engine))
    except MySQLError as err:
        log.error("%s", err)
        log.error("Aborting")
        return 1
    if not engine.accounts.has_admin():  # made by `gtidkit sql`: root@localhost as --initialize-insecure
        create_root(engine, "")
        log.warning(
            "[MY-010453] root@localhost is created with an empty password ! Please consider switching off the "
            "--initialize-insecure option."
        )
    try:
        if int(s["auto_generate_certs"]):
            generate_certs(datadir, str(engine.globals.get("version")))
        wire = WireServer(
            engine,
            str(datadir),
            bind_address=str(s["bind_address"]),
            port=int(s["port"]),  # type: ignore[call-overload]
            max_connections=int(s["max_connections"]),  # type: ignore[call-overload]
            wait_timeout=int(s["wait_timeout"]),  # type: ignore[call-overload]
            interactive_timeout=int(s["interactive_timeout"]),  # type: ignore[call-overload]
            connect_timeout=int(s["connect_timeout"]),  # type: ignore[call-overload]
            max_allowed_packet=int(s["max_allowed_packet"]),  # type: ignore[call-overload]
        )
        if not int(s["ssl"]):
            wire.ssl_context = None
            wire.ctx.ssl_available = False
        replication = install_replication(engine, wire)
        wire.start()
    except (OSError, MySQLError) as err:
        log.error("Can't start server: %s", err)
        engine.shutdown()
        return 1
    pid_file.write_text(f"{os.getpid()}\n")
    stop = wire.shutdown_requested

    def on_signal(signum: int, _frame: Any) -> None:
        log.info("Received signal %d: shutting down", signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    # mysqld's start line, parsed by tests and scripts: the actual port (useful with --port=0)
    click.echo(
        f"ready for connections. Version: '{wire.ctx.server_version}'  socket: ''  port: {wire.port}",
        err=True,
    )
    try:
        while not stop.wait(0.5):
            pass
    finally:
        log.info("Normal shutdown")
        replication.shutdown()
        wire.shutdown()
        engine.shutdown()
        try:
            pid_file.unlink()
        except OSError:
            pass
        log.info("Shutdown complete")
    return 0
