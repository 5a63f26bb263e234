"""``gtidkit pipeline demo`` (what ``make demo`` runs): a generated fleet, then the real fixture binlogs.

1. ``gtidkit.generate.generate_fleet`` writes a source and two replicas with known anomalies (an errant
   GTID, a GNO gap, rotations, a Previous_gtids chain break, an anonymous transaction in a GTID_MODE=ON
   stretch) and a ``manifest.json`` listing them;
2. the pipeline runs on it with the generated ``topology.json``; the GTID state per host is printed and every
   anomaly of the manifest is matched against the findings (host, file, offset);
3. when ``../shared/research/fixtures/binlogs`` exists (looked up from the current directory and from the
   repository root), the pipeline runs on those real binlogs, grouped as hosts by origin directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

#: manifest anomaly type → check name of :mod:`gtidkit.pipeline.checks`.
ANOMALY_CHECKS = {
    "errant_gtid": "errant",
    "gno_gap": "gap",
    "previous_gtids_chain_break": "chain_break",
    "anonymous_in_gtid_mode_on": "anonymous_in_gtid_mode",
}
FIXTURES_REL = Path("..") / "shared" / "research" / "fixtures" / "binlogs"


def _gtid_matches(anomaly: dict, finding: dict) -> bool:
    from gtidkit.gtid import GtidSet

    want = anomaly.get("gtid") or anomaly.get("missing")
    if not want:
        return True
    try:
        return bool(finding["gtid"]) and GtidSet.parse(want) <= GtidSet.parse(finding["gtid"])
    except ValueError:
        return False


def match_expected(anomalies: list[dict], checks: list[dict]) -> list[tuple[dict, dict | None]]:
    """Pair every expected anomaly with the finding that reports it (same check, host, file and offset, and
    for GTID anomalies the same GTIDs), or None when the pipeline missed it."""
    out = []
    for a in anomalies:
        name = ANOMALY_CHECKS.get(a["type"])
        hit = None
        for c in checks:
            if (
                c["check"] == name
                and c["host"] == a["host"]
                and c["file"] == a.get("file")
                and c["offset"] == a.get("pos")
                and _gtid_matches(a, c)
            ):
                hit = c
                break
        out.append((a, hit))
    return out


def find_fixtures(explicit: str | Path | None = None) -> Path | None:
    """The real-binlog fixture directory: ``explicit``, else ``../shared/research/fixtures/binlogs`` relative to
    the current directory or to the repository root; None when absent."""
    if explicit is not None:
        p = Path(explicit)
        return p if p.is_dir() else None
    repo_root = Path(__file__).resolve().parents[3]
    for base in (Path.cwd(), repo_root):
        p = (base / FIXTURES_REL).resolve()
        if p.is_dir():
            return p
    return None


def _print_expected(console: Console, pairs: list[tuple[dict, dict | None]]) -> None:
    t = Table(title="Anomalies written by the generator vs found by the pipeline")
    for col in ("anomaly", "host", "file", "pos", "found as"):
        t.add_column(col, overflow="fold")
    for a, hit in pairs:
        found = (
            f"[green]{hit['check']} at {hit['file']}:{hit['offset']}[/green]" if hit else "[red]MISSED[/red]"
        )
        pos = a.get("pos")
        t.add_row(a["type"], a["host"], a.get("file") or "", "" if pos is None else str(pos), found)
    console.print(t)


def topology_text(topology: dict[str, Any]) -> str:
    """``{"replica1": "source"}`` as ``replica1 ← source`` (several sources joined by commas)."""
    parts = []
    for replica, sources in sorted(topology.items()):
        names = [sources] if isinstance(sources, str) else list(sources or [])
        parts.append(f"{replica} ← {', '.join(names) if names else '(none)'}")
    return "; ".join(parts) or "(none)"


def run_demo(
    output: str | Path,
    *,
    master: str = "local[*]",
    fixtures: str | Path | None = None,
    console: Console | None = None,
    engine: str = "auto",
) -> int:
    """Run the demo; returns the process exit status (0 = every expected anomaly found).

    Args:
        output: directory for the generated fleet and the reports.
        master: Spark master, when an input is large enough for Spark (see ``engine``).
        fixtures: real binlogs to run on after the generated fleet (default: :func:`find_fixtures`).
        console: where the tables go (stdout); progress goes to stderr.
        engine: ``auto`` (plain Python for inputs under :data:`gtidkit.pipeline.job.LOCAL_MAX_BYTES`, the same
            tables without a JVM's start), ``spark`` or ``local``.

    Raises:
        pyspark.errors.PySparkRuntimeError: Spark could not start (Java 17 missing).
        KeyboardInterrupt: Ctrl-C (Spark stopped).
    """
    from gtidkit.generate import generate_fleet, load_manifest
    from gtidkit.pipeline.interrupt import SparkInterrupt, stop_quietly
    from gtidkit.pipeline.job import choose_engine, run_pipeline
    from gtidkit.pipeline.layout import discover
    from gtidkit.pipeline.progress import PipelineProgress
    from gtidkit.pipeline.report import print_summary

    console = console or Console()
    if not console.is_terminal and console.width < 160:
        console.width = 160  # piped (make demo | tee): as print_summary does, so every part has one width
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    fleet = out / "fleet"
    console.rule("[bold]1. generating a fleet (gtidkit.generate)")
    generate_fleet(fleet, overwrite=True)
    manifest = load_manifest(fleet)
    console.print(
        f"{len(manifest.hosts)} hosts, {sum(len(h.files) for h in manifest.hosts)} binlogs, "
        f"{manifest.total_bytes:,} bytes in {fleet}; topology {topology_text(manifest.topology)}"
    )
    spark = None
    status = 0
    with SparkInterrupt() as ctl:
        try:

            def pipeline(inp: Path, dest: Path, **kw: Any) -> Any:
                nonlocal spark
                layout = discover(inp)
                if choose_engine(engine, layout) == "spark" and spark is None:
                    from gtidkit.pipeline.session import build_session

                    console.print(f"starting Spark ({master}) for {layout.total_bytes:,} bytes of binlogs")
                    try:
                        spark = ctl.start(build_session, master=master, app_name="gtidkit-demo")
                    finally:
                        spark = ctl.spark
                use = spark if choose_engine(engine, layout) == "spark" else None
                with PipelineProgress(layout, use) as progress:
                    return run_pipeline(
                        use,
                        inp,
                        dest,
                        layout=layout,
                        on_stage=ctl.wrap(progress.stage),
                        on_file=ctl.wrap(progress.file_done),
                        on_scan=progress.set_scan,
                        **kw,
                    )

            console.rule("[bold]2. pipeline on the generated fleet")
            result = pipeline(fleet, out / "fleet-report", topology=fleet / "topology.json")
            print_summary(result, console)
            pairs = match_expected(manifest.anomalies, result.checks)
            _print_expected(console, pairs)
            if any(hit is None for _, hit in pairs):
                status = 1
            console.print(f"report: {Path(result.output) / 'report.html'}")
            root = find_fixtures(fixtures)
            if root is not None:
                console.rule(f"[bold]3. pipeline on the real binlogs in {root}")
                real = pipeline(root, out / "fixtures-report")
                print_summary(real, console, max_checks=15)
                console.print(f"report: {Path(real.output) / 'report.html'}")
            else:
                console.print(f"(no real binlogs at {FIXTURES_REL}: skipped)")
        finally:
            stop_quietly(spark)
    return status


def expected_summary(manifest: Any) -> dict[str, tuple[str, str]]:
    """host → (gtid_executed, gtid_purged) as the generator's manifest states them."""
    return {h.name: (h.gtid_executed, h.gtid_purged) for h in manifest.hosts}
