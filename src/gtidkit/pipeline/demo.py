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
        t.add_column(col)
    for a, hit in pairs:
        found = (
            f"[green]{hit['check']} at {hit['file']}:{hit['offset']}[/green]" if hit else "[red]MISSED[/red]"
        )
        t.add_row(a["type"], a["host"], str(a.get("file")), str(a.get("pos")), found)
    console.print(t)


def run_demo(
    output: str | Path,
    *,
    master: str = "local[*]",
    fixtures: str | Path | None = None,
    console: Console | None = None,
) -> int:
    """Run the demo; returns the process exit status (0 = every expected anomaly found).

    Raises:
        pyspark.errors.PySparkRuntimeError: Spark could not start (Java 17 missing).
    """
    from gtidkit.generate import generate_fleet, load_manifest
    from gtidkit.pipeline.job import run_pipeline
    from gtidkit.pipeline.progress import SparkProgress
    from gtidkit.pipeline.report import print_summary
    from gtidkit.pipeline.session import build_session

    console = console or Console()
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    fleet = out / "fleet"
    console.rule("[bold]1. generating a fleet (gtidkit.generate)")
    generate_fleet(fleet, overwrite=True)
    manifest = load_manifest(fleet)
    console.print(
        f"{len(manifest.hosts)} hosts, {sum(len(h.files) for h in manifest.hosts)} binlogs, "
        f"{manifest.total_bytes} bytes in {fleet}; topology {manifest.topology}"
    )
    spark = build_session(master=master, app_name="gtidkit-demo")
    status = 0
    try:
        console.rule("[bold]2. pipeline on the generated fleet")
        with SparkProgress(spark) as progress:
            result = run_pipeline(
                spark, fleet, out / "fleet-report", topology=fleet / "topology.json", on_stage=progress.stage
            )
        print_summary(result, console)
        pairs = match_expected(manifest.anomalies, result.checks)
        _print_expected(console, pairs)
        if any(hit is None for _, hit in pairs):
            status = 1
        console.print(f"report: {result.output / 'report.html'}")
        root = find_fixtures(fixtures)
        if root is not None:
            console.rule(f"[bold]3. pipeline on the real binlogs in {root}")
            with SparkProgress(spark) as progress:
                real = run_pipeline(spark, root, out / "fixtures-report", on_stage=progress.stage)
            print_summary(real, console, max_checks=15)
            console.print(f"report: {real.output / 'report.html'}")
        else:
            console.print(f"(no real binlogs at {FIXTURES_REL}: skipped)")
    finally:
        spark.stop()
    return status


def expected_summary(manifest: Any) -> dict[str, tuple[str, str]]:
    """host → (gtid_executed, gtid_purged) as the generator's manifest states them."""
    return {h.name: (h.gtid_executed, h.gtid_purged) for h in manifest.hosts}
