"""``gtidkit demo``: the whole story on real processes — a source and a passive replica with the binary log off.

1. Two `gtidkit server` processes on 127.0.0.1 (each with its default worker processes, one per CPU): the source
   (``--log-bin``, gtid_mode=ON) and a replica with the binary log off, which keeps its GTIDs in
   ``mysql.gtid_executed`` inside each applied transaction (WL#6559).
2. ``CHANGE REPLICATION SOURCE TO ... SOURCE_AUTO_POSITION=1``; START REPLICA; the replica converges by GTIDs.
3. Read-your-writes (WL#6972): the OK packet of a write carries its GTID (session_track_gtids=OWN_GTID); a read on
   the replica after ``WAIT_FOR_EXECUTED_GTID_SET`` sees it, a read without the wait may not (shown with the
   applier stopped).
4. The replica is killed with SIGKILL under load, restarted, and resumes by auto-position: same data checksum, same
   gtid_executed as the source.
5. The pipeline (Spark, or its JVM-free local engine for a few MB) over the source's binlogs, compared with the
   replica's ``mysql.gtid_executed`` table; then the fleet demo (``gtidkit pipeline demo``).
"""

from __future__ import annotations

import json
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click

from gtidkit.cli.interrupt import interrupted, set_incomplete

__all__ = ["demo"]


def _connect(port: int, **kw: Any) -> Any:
    import pymysql

    return pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True, **kw)


def _one(conn: Any, sql: str) -> Any:
    with conn.cursor() as cur:
        cur.execute(sql)
        row = cur.fetchone()
    return None if row is None else row[0]


def _one_row(conn: Any, sql: str) -> tuple[Any, ...]:
    with conn.cursor() as cur:
        cur.execute(sql)
        return tuple(cur.fetchone())


def _run(conn: Any, *sqls: str) -> None:
    with conn.cursor() as cur:
        for sql in sqls:
            cur.execute(sql)


def _replica_status(conn: Any) -> dict[str, Any]:
    import pymysql.cursors

    with conn.cursor(pymysql.cursors.DictCursor) as cur:
        cur.execute("SHOW REPLICA STATUS")
        return cur.fetchone() or {}


def _wait_caught_up(source: Any, replica: Any, timeout: float = 120) -> str:
    target = _one(source, "SELECT @@GLOBAL.gtid_executed")
    r = _one(replica, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{target}', {int(timeout)})")
    if r != 0:
        st = _replica_status(replica)
        raise click.ClickException(
            f"replica did not catch up with {target}: Last_IO_Error: {st.get('Last_IO_Error') or '(none)'}; "
            f"Last_SQL_Error: {st.get('Last_SQL_Error') or '(none)'}"
        )
    return str(target)


def _checksum(conn: Any) -> tuple[int, int]:
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*), COALESCE(SUM(id * 7 + k), 0) FROM app.orders")
        n, s = cur.fetchone()
    return int(n), int(s)


#: The step being run (for the Ctrl-C message).
_CURRENT = {"step": "start-up"}


def _step(title: str) -> None:
    _CURRENT["step"] = title
    set_incomplete(_interrupted_note())
    click.secho(f"\n== {title}", bold=True)


def _interrupted_note() -> str:
    """What a Ctrl-C now leaves undone (for ``gtidkit: interrupted:``)."""
    return f"during step {_CURRENT['step']}; the servers are stopped, the later steps were not run"


def replication_story(out: Path) -> dict[str, Any]:
    """Run steps 1-4 of the module docstring under ``out/servers``; returns the figures the story printed.

    Raises:
        click.ClickException: a step did not reach MySQL's expected state (the message says which).
    """
    from gtidkit.cli.server_process import ServerProcess
    from gtidkit.gtid import GtidSet
    from gtidkit.protocol.client import last_gtids

    servers = out / "servers"
    shutil.rmtree(servers, ignore_errors=True)
    servers.mkdir(parents=True)
    source = ServerProcess(
        servers / "source",
        "--server-id",
        "1",
        "--log-bin",
        "--gtid-mode",
        "ON",
        "--enforce-gtid-consistency",
        "ON",
    )
    replica = ServerProcess(
        servers / "replica",
        "--server-id",
        "2",
        "--skip-log-bin",
        "--gtid-mode",
        "ON",
        "--enforce-gtid-consistency",
        "ON",
    )
    figures: dict[str, Any] = {}
    try:
        _step("1. a source (binlog on) and a passive replica (binlog OFF), real processes on 127.0.0.1")
        source.start()
        replica.start()
        src, rep = _connect(source.port), _connect(replica.port)
        for name, server, conn in (("source ", source, src), ("replica", replica, rep)):
            # workers: gtidkit server's default, one worker process per CPU (issue 21 step 8)
            log_bin, workers = _one_row(conn, "SELECT @@GLOBAL.log_bin, @@GLOBAL.gtidkit_workers")
            click.echo(f"{name} port {server.port}  log_bin={log_bin}  worker processes={workers}")
        _run(
            src,
            "CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'",
            "GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'",
            "CREATE DATABASE app",
            "CREATE TABLE app.orders (id INT PRIMARY KEY AUTO_INCREMENT, k INT NOT NULL, note VARCHAR(40))",
        )
        with src.cursor() as cur:
            for i in range(50):
                cur.execute("INSERT INTO app.orders (k, note) VALUES (%s, %s)", (i, f"order {i}"))

        _step("2. CHANGE REPLICATION SOURCE TO ... SOURCE_AUTO_POSITION=1; START REPLICA")
        _run(
            rep,
            f"CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={source.port}, SOURCE_USER='repl', "
            "SOURCE_PASSWORD='replpw', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1",
            "START REPLICA",
        )
        target = _wait_caught_up(src, rep)
        st = _replica_status(rep)
        for col in ("Replica_IO_Running", "Replica_SQL_Running", "Retrieved_Gtid_Set", "Executed_Gtid_Set"):
            click.echo(f"  {col}: {st.get(col)}")
        with rep.cursor() as cur:
            cur.execute("SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed")
            rows = cur.fetchall()
        click.echo(
            f"  replica mysql.gtid_executed: {len(rows)} rows (binlog off: the table is the record, written "
            "inside each applied transaction); the first ones:"
        )
        for u, a, b in rows[:3]:
            click.echo(f"    source_uuid {u}  interval_start {a}  interval_end {b}")
        figures["caught_up"] = target

        _step(
            "3. read-your-writes: the GTID from the OK packet, then WAIT_FOR_EXECUTED_GTID_SET on the replica"
        )
        from pymysql.constants import CLIENT

        writer = _connect(source.port, client_flag=CLIENT.SESSION_TRACK)
        _run(writer, "SET session_track_gtids = OWN_GTID")
        _run(rep, "STOP REPLICA SQL_THREAD")  # make the replica lag, deterministically
        _run(writer, "INSERT INTO app.orders (k, note) VALUES (1000, 'read me back')")
        mine = last_gtids(writer)
        click.echo(f"  the write's OK packet carried GTID {mine}")
        stale = _one(rep, "SELECT COUNT(*) FROM app.orders WHERE k = 1000")
        waited = _one(rep, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{mine}', 1)")
        click.echo(
            f"  replica without waiting: {stale} row(s); WAIT_FOR_EXECUTED_GTID_SET(.., 1) = {waited} (timeout)"
        )
        _run(rep, "START REPLICA SQL_THREAD")
        waited = _one(rep, f"SELECT WAIT_FOR_EXECUTED_GTID_SET('{mine}', 30)")
        fresh = _one(rep, "SELECT COUNT(*) FROM app.orders WHERE k = 1000")
        click.echo(f"  replica after WAIT_FOR_EXECUTED_GTID_SET = {waited}: {fresh} row(s)")
        if (stale, fresh) != (0, 1) or waited != 0:
            raise click.ClickException("read-your-writes did not behave as expected")
        figures["read_your_writes"] = {"gtid": str(mine), "stale": stale, "fresh": fresh}
        writer.close()

        _step("4. SIGKILL the replica while it applies, restart it, resume by auto-position")
        stop = threading.Event()

        def load() -> None:
            conn = _connect(source.port)
            with conn.cursor() as cur:
                i = 0
                while not stop.is_set() and i < 400:
                    cur.execute("INSERT INTO app.orders (k, note) VALUES (%s, 'under load')", (2000 + i,))
                    i += 1
            conn.close()

        t = threading.Thread(target=load)
        t.start()
        time.sleep(1.5)
        rep.close()
        replica.kill()
        click.echo("  replica killed (SIGKILL)")
        t.join()
        replica.restart()
        rep = _connect(replica.port)
        st = _replica_status(rep)
        click.echo(
            f"  restarted; Replica_IO_Running={st.get('Replica_IO_Running')} SQL={st.get('Replica_SQL_Running')}"
        )
        target = _wait_caught_up(src, rep)
        a, b = _checksum(src), _checksum(rep)
        ga = GtidSet.parse(_one(src, "SELECT @@GLOBAL.gtid_executed"))
        gb = GtidSet.parse(_one(rep, "SELECT @@GLOBAL.gtid_executed"))
        click.echo(f"  source:  {a[0]} rows, checksum {a[1]}, gtid_executed {ga}")
        click.echo(f"  replica: {b[0]} rows, checksum {b[1]}, gtid_executed {gb}")
        if a != b or ga != gb:
            raise click.ClickException("the replica diverged from the source after the crash")
        figures["after_crash"] = {"rows": a[0], "gtid_executed": str(ga)}
        with rep.cursor() as cur:
            cur.execute("SELECT source_uuid, interval_start, interval_end FROM mysql.gtid_executed")
            figures["replica_gtid_executed_rows"] = [
                {"source_uuid": r[0], "interval_start": int(r[1]), "interval_end": int(r[2])}
                for r in cur.fetchall()
            ]
        figures["source_uuid"] = _one(src, "SELECT @@GLOBAL.server_uuid")
        src.close()
        rep.close()
    finally:
        replica.stop()
        source.stop()
    # the source's binlogs as a one-host fleet for the pipeline
    fleet = out / "replication-fleet" / "source"
    shutil.rmtree(fleet.parent, ignore_errors=True)
    fleet.mkdir(parents=True)
    for f in sorted((servers / "source").glob("binlog.[0-9]*")):
        shutil.copy2(f, fleet / f.name)
    (out / "replica_gtid_executed.json").write_text(
        json.dumps(figures["replica_gtid_executed_rows"], indent=1)
    )
    return figures


def pipeline_over_source(out: Path, master: str, figures: dict[str, Any], engine: str = "auto") -> None:
    """Step 5: the pipeline over the source's binlogs; its GTID_EXECUTED equals the replica's table.

    The pipeline's ``gtid_executed`` table (Parquet, read back with pyarrow) and the replica's
    ``mysql.gtid_executed`` rows (singletons until the compressor merges them) are both folded into GTID sets
    and compared. ``engine`` as for ``gtidkit pipeline run`` (auto: no JVM for a few MB of binlogs).

    Raises:
        click.ClickException: the sets differ.
        KeyboardInterrupt: Ctrl-C (Spark stopped).
    """
    from gtidkit.pipeline import local, schemas
    from gtidkit.pipeline.gtid_state import set_from_rows
    from gtidkit.pipeline.interrupt import SparkInterrupt, stop_quietly
    from gtidkit.pipeline.job import choose_engine, run_pipeline
    from gtidkit.pipeline.layout import discover
    from gtidkit.pipeline.progress import PipelineProgress

    _step("5. the pipeline over the source's binlogs, against the replica's mysql.gtid_executed table")
    fleet = out / "replication-fleet"
    layout = discover(fleet)
    spark = None
    with SparkInterrupt() as ctl:
        try:
            if choose_engine(engine, layout) == "spark":
                from gtidkit.pipeline.session import build_session

                try:
                    spark = ctl.start(build_session, master=master, app_name="gtidkit-demo-replication")
                finally:
                    spark = ctl.spark
            with PipelineProgress(layout, spark) as progress:
                result = run_pipeline(
                    spark,
                    fleet,
                    out / "replication-pipeline",
                    layout=layout,
                    on_stage=ctl.wrap(progress.stage),
                    on_file=ctl.wrap(progress.file_done),
                )
        finally:
            stop_quietly(spark)
    host = next(h for h in result.hosts if h["host"] == "source")
    rows = local.read_rows(result.output_child("gtid_executed"), schemas.GTID_EXECUTED)
    spark_set = set_from_rows(r for r in rows if r["host"] == "source")
    table_set = set_from_rows(figures["replica_gtid_executed_rows"])
    click.echo(
        f"  pipeline ({result.engine} engine): {len(result.files)} binlog(s), {host['transactions']} transactions"
    )
    click.echo(f"  pipeline's GTID_EXECUTED of the source's binlogs: {spark_set}")
    click.echo(
        f"  replica's mysql.gtid_executed table ({len(figures['replica_gtid_executed_rows'])} rows): {table_set}"
    )
    if spark_set != table_set:
        raise click.ClickException("the pipeline's GTID_EXECUTED differs from the replica's table")


@click.command("demo")
@click.option("--output", default="demo-out", show_default=True, type=click.Path(file_okay=False))
@click.option("--master", default="local[2]", show_default=True, help="Spark master for the pipeline steps.")
@click.option(
    "--engine",
    type=click.Choice(["auto", "spark", "local"]),
    default="auto",
    show_default=True,
    help="Pipeline engine, as for pipeline run (auto: no JVM for the demo's few MB of binlogs).",
)
@click.option(
    "--skip-fleet", is_flag=True, help="Do not run the fleet pipeline demo after the replication story."
)
def demo(output: str, master: str, engine: str, skip_fleet: bool) -> None:
    """The whole story: source + passive replica (binlog off), GTID replication, read-your-writes, a replica crash
    and resume, then the pipeline over the binlogs (see the module docstring). Exits 130 on Ctrl-C (servers and
    Spark stopped)."""
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    set_incomplete(_interrupted_note())
    try:
        figures = replication_story(out)
        pipeline_over_source(out, master, figures, engine)
        status = 0
        if not skip_fleet:
            from gtidkit.pipeline.demo import run_demo

            _step("6. the fleet pipeline demo (generated fleet + the real MySQL binlogs of ../shared)")
            status = run_demo(str(out), master=master, fixtures=None, engine=engine)
    except KeyboardInterrupt:
        interrupted(_interrupted_note())
    sys.exit(status)
