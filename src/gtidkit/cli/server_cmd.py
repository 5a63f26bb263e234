"""`gtidkit server`: run a datadir as a MySQL server (``mysqld``'s options, ``--initialize``, pid file, error log).

Sources: MySQL manual "Initializing the Data Directory" (``--initialize`` prints a generated temporary password
for root@localhost, ``--initialize-insecure`` an empty one; an existing non-empty datadir aborts with MY-010457),
"The Server Shutdown Process" (SIGTERM and the SHUTDOWN statement shut down cleanly), "Unix Signal Handling in
MySQL" (SIGHUP reloads the grant tables and flushes the logs, SIGUSR1 flushes the error log; the server keeps
running), ``--pid-file`` and ``--log-error`` (both relative to the datadir).

Options are mysqld's, on the command line or in ``--defaults-file`` (:mod:`gtidkit.protocol.options`: the option
table, option files, the warnings and errors of an unknown or out-of-range option); the engine's go to
``Server.open``, the wire server's to :class:`~gtidkit.protocol.server.WireServer`. Defaults are mysqld 8.0's:
binary log ON (``binlog.000001`` in the datadir), server_id 1, gtid_mode OFF, enforce_gtid_consistency OFF,
binlog_format ROW.
"""

from __future__ import annotations

import errno
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

from gtidkit.cli.interrupt import EXIT_INTERRUPTED, set_incomplete
from gtidkit.errors import GtidkitError, MySQLError

_PASSWORD_ALPHABET = string.ascii_letters + string.digits + "!#%&()*+,-.:;<=>?_"


def generate_password(length: int = 12) -> str:
    """A random temporary password like the one ``mysqld --initialize`` prints (letters, digits, punctuation)."""
    return "".join(secrets.choice(_PASSWORD_ALPHABET) for _ in range(length))


#: Python logging levels -> mysqld's error-log labels.
_LEVELS = {"INFO": "Note", "WARNING": "Warning", "ERROR": "ERROR", "CRITICAL": "ERROR", "DEBUG": "Note"}


class _MysqldFormatter(logging.Formatter):
    """mysqld's error-log lines: ``<time> [Warning] [MY-000081] [Server] <text>`` (the MY- code from a record's
    ``mysql_code`` attribute, when there is one)."""

    def format(self, record: logging.LogRecord) -> str:
        code = getattr(record, "mysql_code", 0)
        level = _LEVELS.get(record.levelname, record.levelname)
        tag = f" [MY-{code:06d}]" if code else ""
        return f"{self.formatTime(record, '%Y-%m-%dT%H:%M:%S')} [{level}]{tag} [Server] {record.getMessage()}"


def setup_logging(log_error: str, datadir: Path) -> None:
    """Send the server's log lines to ``--log-error`` (relative to ``datadir``; "" = stderr) in mysqld's format.

    Raises:
        OSError: the file cannot be opened.
    """
    root = logging.getLogger("gtidkit")
    root.setLevel(logging.INFO)
    handler: logging.Handler
    if log_error:
        path = Path(log_error)
        if not path.is_absolute():
            path = datadir / path
        handler = logging.FileHandler(path)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_MysqldFormatter())
    root.addHandler(handler)


def reopen_error_log() -> None:
    """FLUSH ERROR LOGS: close and reopen the error log file (``--log-error``), so that a log rotated away by
    ``mv`` is replaced by a new file of the same name (RM8 "Server Log Maintenance"). Nothing for stderr."""
    for handler in logging.getLogger("gtidkit").handlers:
        if isinstance(handler, logging.FileHandler):
            stream = open(handler.baseFilename, handler.mode, encoding=handler.encoding)  # noqa: SIM115
            old = handler.setStream(stream)
            if old is not None:
                old.close()


def flush_on_signal(engine: Any, signum: int, *, rotate: bool = True) -> None:
    """What mysqld's signal thread does for SIGHUP / SIGUSR1, the server staying up (``signal_hand`` in
    ``sql/mysqld.cc`` calls ``handle_reload_request``).

    SIGHUP (RM8 "Unix Signal Handling in MySQL": "reload the grant tables and to flush tables, logs, the thread
    cache, and the host cache"): reopen the error log, rotate the binary log (as FLUSH LOGS: nothing when it is
    off) and re-read the grant tables (FLUSH PRIVILEGES). SIGUSR1 ("flush the error log, general query log, and
    slow query log"): reopen the error log only. Tables, thread and host caches have nothing to flush here.

    Args:
        engine: the engine ``Server``.
        signum: ``signal.SIGHUP`` or ``signal.SIGUSR1``.
        rotate: rotate the binary log on SIGHUP. A server of several workers passes the signal to each (each
            reopens its error log and re-reads the grant tables into its own process) and only worker 0 rotates,
            so that one SIGHUP is one rotation, as in mysqld.

    A failure is written to the error log, never raised: the server keeps running, as mysqld does.
    """
    log = logging.getLogger("gtidkit.server")
    try:
        reopen_error_log()
    except OSError as err:
        log.error("Could not open file '%s' for error logging: %s", err.filename, err.strerror)
    if signum != signal.SIGHUP:
        return
    log.info(
        "Received SIGHUP: %s",
        "flushing logs and reloading the grant tables" if rotate else "reloading the grant tables",
    )
    if rotate:
        try:
            engine.rotate()
        except (MySQLError, OSError) as err:
            log.error("Failed to flush the binary log on SIGHUP: %s", err)
    try:
        conn = engine.storage.connect()
        try:
            engine.accounts.load(conn)
        finally:
            conn.close()
    except (GtidkitError, OSError) as err:
        log.error("Failed to reload the grant tables on SIGHUP: %s", err)


def _log_option_warnings(opts: Any) -> None:
    """The option warnings (adjusted values, options gtidkit ignores) as the error log's first lines."""
    log = logging.getLogger("gtidkit.server")
    for line in opts.warnings:
        log.warning("%s", line.text, extra={"mysql_code": line.code})


@click.command(
    "server",
    add_help_option=False,
    context_settings={
        "ignore_unknown_options": True,
        "allow_extra_args": True,
        "allow_interspersed_args": False,
    },
)
@click.pass_context
def server(ctx: click.Context) -> None:
    """Run a gtidkit datadir as a MySQL server, with mysqld's options (--help --verbose lists them)."""
    from gtidkit.protocol.options import OptionError, help_text, load

    try:
        opts = load(list(ctx.args))
    except OptionError as err:
        for line in err.lines:
            click.echo(str(line), err=True)
        sys.exit(1)
    cmd = opts.command
    if cmd["help"]:
        click.echo("Usage: gtidkit server [OPTIONS]")
        click.echo(help_text(verbose=bool(cmd["verbose"])), nl=False)
        return
    if cmd["version"]:
        from gtidkit.version import SERVER_VERSION

        click.echo(f"gtidkit server  Ver {SERVER_VERSION} (mysqld-compatible, gtidkit)")
        return
    datadir = cmd["datadir"]
    if not datadir:
        click.echo("[ERROR] [Server] --datadir (-h) is required", err=True)
        sys.exit(1)
    path = Path(datadir).resolve()
    if cmd["initialize"] or cmd["initialize_insecure"]:
        sys.exit(_initialize(path, opts, insecure=bool(cmd["initialize_insecure"])))
    sys.exit(_run(path, opts, list(ctx.args)))


def _initialize(datadir: Path, opts: Any, *, insecure: bool) -> int:
    from gtidkit.engine import Server
    from gtidkit.engine.accounts.bootstrap import create_root
    from gtidkit.protocol.tls import generate_certs
    from gtidkit.replication.channel import create_metadata_tables

    if datadir.exists() and any(datadir.iterdir()):
        click.echo(
            "[ERROR] [MY-010457] [Server] --initialize specified but the data directory has files in it. "
            "Aborting.",
            err=True,
        )
        return 1
    for line in opts.warnings:
        click.echo(str(line), err=True)
    try:
        datadir.mkdir(parents=True, exist_ok=True)
        engine = Server.open(datadir, **opts.engine)
    except (GtidkitError, OSError) as err:
        click.echo(f"[ERROR] [Server] {err}", err=True)
        return 1
    version = str(engine.globals.get("version"))
    password = "" if insecure else generate_password()
    try:
        create_root(engine, password, expire=not insecure)
        create_metadata_tables(engine)  # mysqld --initialize creates the replica metadata tables too
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


def log_start_failure(log: logging.Logger, err: OSError | MySQLError, port: object) -> None:
    """mysqld's lines for a listener that cannot start (MY-010262 "Can't start server: Bind on TCP/IP port: ...",
    MY-010257 "Do you already have another mysqld server running on port: N ?"), then "Aborting"."""
    if isinstance(err, OSError) and err.errno == errno.EADDRINUSE:
        log.error("Can't start server: Bind on TCP/IP port: %s", err.strerror)
        log.error("Do you already have another gtidkit server or mysqld running on port: %s ?", port)
    elif isinstance(err, OSError):
        log.error("Can't start server: %s", err.strerror or err)
    else:
        log.error("Can't start server: %s", err.message)
    log.error("Aborting")


def start_serving(
    datadir: Path,
    opts: Any,
    *,
    lock_fd: int | None = None,
    port: int | None = None,
    id_source: Any = None,
    worker_id: int = 0,
    role: str = "primary",
) -> tuple[Any, Any, Any] | int:
    """Open the engine, build the wire server and install replication: what ``gtidkit server`` runs in its one
    process, or in each worker process of a supervised server (cli/supervisor.py).

    Args:
        datadir: the data directory.
        opts: the parsed options (:func:`gtidkit.protocol.options.load`).
        lock_fd: a worker's inherited datadir lock descriptor (adopted by the engine); None: take the lock.
        port: a worker's supervisor port: connections arrive by :meth:`WireServer.adopt` instead of a listener
            of its own; None: listen on ``--port``.
        id_source: a worker's connection-id allocator (``fn() -> int``, the supervisor's sequence).
        worker_id: ``@@gtidkit_worker_id`` of this process.
        role: ``primary`` (the one-process open: recovery, singletons), ``shared`` (the same, and the shared page
            other workers join: the first worker of several), ``worker`` (``Server.open(role="worker")``: no
            recovery, no singletons; docs/design/multi_worker.md "Step 4 as built"), ``takeover`` (the worker open,
            then the singletons of the process that died: a replacement of worker 0 while other workers serve).

    Returns:
        ``(engine, wire, replication)``, serving; or 1 after the failure was written to the error log.
    """
    from gtidkit.engine import Server
    from gtidkit.engine.accounts.bootstrap import create_root
    from gtidkit.protocol.server import WireServer
    from gtidkit.protocol.tls import generate_certs
    from gtidkit.replication import install as install_replication

    log = logging.getLogger("gtidkit.server")
    s = opts.wire
    extra: dict[str, Any] = {} if lock_fd is None else {"datadir_lock_fd": lock_fd}
    if role == "shared":
        extra.update(shared=True, worker_id=worker_id)
    elif role in ("worker", "takeover"):  # the inherited lock stays open, not adopted
        extra = {"role": "worker", "worker_id": worker_id, "singletons": role == "takeover"}
    try:
        engine = Server.open(datadir, **opts.engine, **extra)
    except (GtidkitError, OSError) as err:  # OSError: e.g. --log-bin=/no/such/dir/name
        log.error("%s", err)
        log.error("Aborting", extra={"mysql_code": 10119})
        return 1
    engine.worker_id = worker_id
    engine.globals.set("gtidkit_workers", int(opts.command.get("gtidkit_workers") or 1))
    if id_source is not None:
        engine.id_source = id_source
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
        elif s["ssl_cert"] or s["ssl_key"] or s["ssl_ca"]:
            import ssl

            from gtidkit.mysql_errors import unknown_error
            from gtidkit.protocol.tls import server_context

            try:
                wire.ssl_context = server_context(
                    datadir,
                    cert=str(s["ssl_cert"]) if s["ssl_cert"] else None,
                    key=str(s["ssl_key"]) if s["ssl_key"] else None,
                    ca=str(s["ssl_ca"]) if s["ssl_ca"] else None,
                )
            except (OSError, ssl.SSLError) as err:  # mysqld: "Failed to set up SSL because of ..."
                raise unknown_error(
                    f"Failed to set up SSL because of the following SSL library error: {err}"
                ) from err
            wire.ctx.ssl_available = wire.ssl_context is not None
        filters = {k: tuple(v) for k, v in s.items() if k.startswith("replicate_") and v}
        if port is not None:
            wire.attach(port)  # before replication: @@port / report_port are the supervisor's
        replication = install_replication(engine, wire, options={"filters": filters})
        if port is None:
            wire.start()
    except (OSError, MySQLError) as err:
        log_start_failure(log, err, s["port"])
        engine.shutdown()
        return 1
    except (
        ValueError
    ) as err:  # a replication filter mysqld refuses at start-up ("Could not add do table rule")
        log.error("%s", err)
        log.error("Aborting", extra={"mysql_code": 10119})
        engine.shutdown()
        return 1
    return engine, wire, replication


def pid_file_path(datadir: Path, opts: Any) -> Path:
    """``--pid-file`` (relative to the datadir; default ``host_name.pid``)."""
    pid_file = Path(str(opts.wire["pid_file"] or f"{socket.gethostname()}.pid"))
    return pid_file if pid_file.is_absolute() else datadir / pid_file


def _run(datadir: Path, opts: Any, args: list[str]) -> int:
    log = logging.getLogger("gtidkit.server")
    s = opts.wire
    try:
        setup_logging(str(s["log_error"] or ""), datadir)
    except OSError as err:
        # mysqld: "Could not open file '...' for error logging", then Aborting
        click.echo(
            f"[ERROR] [Server] Could not open file '{err.filename}' for error logging: {err.strerror}",
            err=True,
        )
        click.echo("[ERROR] [MY-010119] [Server] Aborting", err=True)
        return 1
    _log_option_warnings(opts)
    workers = int(opts.command.get("gtidkit_workers") or 1)
    set_incomplete(f"the server on {datadir} was starting and never accepted connections")
    if opts.command.get("supervised") or workers > 1:
        from gtidkit.cli.supervisor import Supervisor

        return Supervisor(datadir, opts, args).run()
    pid_file = pid_file_path(datadir, opts)
    started = start_serving(datadir, opts)
    if isinstance(started, int):
        return started
    engine, wire, replication = started
    try:
        pid_file.write_text(f"{os.getpid()}\n")
    except OSError as err:
        log.error("Can't start server: can't create PID file: %s", err)
        replication.shutdown()
        wire.shutdown()
        engine.shutdown()
        return 1
    stop = wire.shutdown_requested
    received: list[int] = []

    def on_signal(signum: int, _frame: Any) -> None:
        log.info("Received signal %d: shutting down", signum)
        received.append(signum)
        stop.set()

    flushes: list[int] = []  # SIGHUP / SIGUSR1 received, handled by the loop below (not inside the handler)

    def on_flush_signal(signum: int, _frame: Any) -> None:
        flushes.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_flush_signal)
    signal.signal(signal.SIGUSR1, on_flush_signal)
    # mysqld's start line, parsed by tests and scripts: the actual port (useful with --port=0)
    click.echo(
        f"ready for connections. Version: '{wire.ctx.server_version}'  socket: ''  port: {wire.port}",
        err=True,
    )
    try:
        while not stop.wait(0.2):
            while flushes:
                flush_on_signal(engine, flushes.pop(0))
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
    if signal.SIGINT in received:  # Ctrl-C: a clean shutdown all the same, reported as an interruption
        click.echo(
            "gtidkit: interrupted: the server shut down cleanly; client connections were closed and their open "
            "transactions rolled back",
            err=True,
        )
        return EXIT_INTERRUPTED
    return 0
