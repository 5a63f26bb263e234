"""The pipeline's report: a rich terminal summary, ``summary.json`` and a self-contained ``report.html``.

The HTML embeds three matplotlib plots as base64 PNGs (no external files): transactions per minute per host,
GTID coverage per host (GTIDs purged from the binlogs vs still in them, and errant ones), and the histogram of
logical-clock commit-group sizes (WL#7165).
"""

from __future__ import annotations

import base64
import html
import io
from collections import defaultdict
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from gtidkit.pipeline.job import PipelineResult

_MAX_CHECK_ROWS = 200


def _short(text: str | None, width: int = 60) -> str:
    if not text:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


def print_summary(result: PipelineResult, console: Console | None = None, *, max_checks: int = 30) -> None:
    """Print hosts (GTID state per host), files with faults and the checks as rich tables."""
    console = console or Console()
    if not console.is_terminal and console.width < 160:
        console.width = 160  # piped output (make demo | tee): keep the GTID sets readable
    hosts = Table(title="GTID state per host (WL#6559 §5, from the binlogs)", show_lines=False)
    for col in (
        "host",
        "files",
        "trx",
        "anon",
        "GTID_EXECUTED",
        "GTID_PURGED",
        "source",
        "groups",
        "avg/grp",
    ):
        hosts.add_column(col, overflow="fold")
    for h in result.hosts:
        hosts.add_row(
            h["host"],
            str(h["files"]),
            str(h["transactions"]),
            str(h["anonymous_transactions"]),
            h["gtid_executed_binlog"] or "(empty)",
            h["gtid_purged_binlog"] or "(empty)",
            h["source_host"] or "",
            str(h["commit_groups"]),
            f"{h['avg_group_size']:.2f}" if h["avg_group_size"] is not None else "",
        )
    console.print(hosts)
    bad = [f for f in result.files if f["status"] != "ok"]
    if bad:
        t = Table(title="Files not readable to the end (good_bytes + bad_bytes = size)")
        for col in ("host", "file", "status", "error_offset", "good_bytes", "bad_bytes", "size", "error"):
            t.add_column(col, overflow="fold")
        for f in bad:
            t.add_row(
                f["host"],
                f["file"],
                f["status"],
                str(f["error_offset"]),
                str(f["good_bytes"]),
                str(f["bad_bytes"]),
                str(f["size"]),
                _short(f["error"], 70),
            )
        console.print(t)
    counts = defaultdict(int)
    for c in result.checks:
        counts[(c["check"], c["severity"])] += 1
    t = Table(title=f"Checks ({len(result.checks)} findings; topology {result.topology_origin})")
    for col in ("check", "severity", "host", "file", "offset", "gtid", "detail"):
        t.add_column(col, overflow="fold")
    for c in result.checks[:max_checks]:
        t.add_row(
            c["check"],
            c["severity"],
            c["host"],
            c["file"] or "",
            "" if c["offset"] is None else str(c["offset"]),
            _short(c["gtid"], 60),
            _short(c["detail"], 90),
        )
    console.print(t)
    if len(result.checks) > max_checks:
        console.print(
            f"… {len(result.checks) - max_checks} more in {result.output_child('checks')} and report.html"
        )
    totals = ", ".join(f"{n} {check} ({severity})" for (check, severity), n in sorted(counts.items()))
    console.print(f"[bold]findings:[/bold] {totals or 'none'}")
    console.print(
        f"[bold]tables[/bold] in {result.output}: "
        + ", ".join(f"{k}={v}" for k, v in result.counts.items())
        + f"; {len(result.layout.files)} binlogs, {result.layout.total_bytes} bytes, "
        + f"{sum(result.timings.get(k, 0) for k in ('scan', 'tables', 'state')):.1f} s"
        + f"; engine {result.engine}"
    )


def write_summary_json(result: PipelineResult) -> None:
    """Write ``OUTPUT/summary.json`` (see :func:`gtidkit.pipeline.job.summary_dict`)."""
    from gtidkit.pipeline.job import dumps_summary
    from gtidkit.pipeline.storage import write_bytes

    write_bytes(result.output_child("summary.json"), dumps_summary(result).encode(), result.storage_options)


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def plot_pngs(result: PipelineResult) -> dict[str, bytes]:
    """The three report plots as PNG bytes: ``per_minute``, ``coverage``, ``parallelism``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out: dict[str, bytes] = {}
    # 1. transactions per minute per host
    fig, ax = plt.subplots(figsize=(9, 4))
    series: dict[str, list] = defaultdict(list)
    for host, minute, n in result.per_minute:
        if minute is not None:
            series[host].append((minute, n))
    for host, pts in sorted(series.items())[:25]:
        xs, ys = zip(*pts)
        ax.plot(xs, ys, marker="o" if len(xs) < 30 else None, markersize=3, label=host)
    ax.set_title("Transactions per minute per host (commit time)")
    ax.set_xlabel("minute (UTC)")
    ax.set_ylabel("transactions")
    ax.set_ylim(bottom=0)
    if series:
        ax.legend(fontsize=7, ncol=2)
    fig.autofmt_xdate()
    out["per_minute"] = base64.b64decode(_png(fig))
    plt.close(fig)
    # 2. GTID coverage per host
    hosts = [h for h in result.hosts if h["gtid_count"]]
    fig, ax = plt.subplots(figsize=(9, max(2.5, 0.35 * len(hosts) + 1)))
    errant = defaultdict(int)
    for c in result.checks:
        if c["check"] == "errant":
            errant[c["host"]] += 1
    from gtidkit.gtid import GtidSet

    names = [h["host"] for h in hosts]
    purged = [len(GtidSet.parse(h["gtid_purged_binlog"])) if h["gtid_purged_binlog"] else 0 for h in hosts]
    present = [h["gtid_count"] - p for h, p in zip(hosts, purged)]
    ax.barh(names, purged, color="#9bb7d4", label="purged (Previous_gtids of oldest binlog)")
    ax.barh(names, present, left=purged, color="#2f6db5", label="in the binlogs")
    for i, name in enumerate(names):
        if errant[name]:
            ax.annotate(
                f"{errant[name]} errant",
                (purged[i] + present[i], i),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                color="#c0392b",
                fontsize=8,
            )
    ax.set_title("GTID coverage per host (GTID_EXECUTED from binlogs)")
    ax.set_xlabel("GTIDs")
    if names:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.invert_yaxis()
    out["coverage"] = base64.b64decode(_png(fig))
    plt.close(fig)
    # 3. parallelism histogram
    fig, ax = plt.subplots(figsize=(9, 4))
    by_size: dict[int, int] = defaultdict(int)
    for _host, size, n in result.group_sizes:
        by_size[int(size)] += int(n)
    if by_size:
        sizes = sorted(by_size)
        ax.bar(sizes, [by_size[s] for s in sizes], color="#3c9d5d")
    ax.set_title("Logical-clock commit groups: transactions per group (all hosts)")
    ax.set_xlabel("transactions in the group (same last_committed)")
    ax.set_ylabel("groups")
    out["parallelism"] = base64.b64decode(_png(fig))
    plt.close(fig)
    return out


_BYTE_COLS = frozenset({"bytes", "bad_bytes", "good_bytes", "size"})
_ID_COLS = frozenset({"server_id", "offset", "error_offset", "previous_gtids_pos", "file_index", "seq"})


def human_bytes(n: int | None) -> str:
    """``1234567`` → ``1.2 MB`` (decimal units, as disk and object-store sizes are quoted)."""
    if n is None:
        return ""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(value) < 1000 or unit == "TB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{n} B"  # pragma: no cover - the loop always returns


def fmt(value: object, col: str = "") -> str:
    """A cell for people: integers with thousands separators (offsets and ids as they are, being positions and
    names), floats to two decimals, byte counts with a unit, timestamps to the second, ``None`` empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        if col in _BYTE_COLS:
            return f"{human_bytes(value)} ({value:,})" if value >= 1000 else f"{value} B"
        return str(value) if col in _ID_COLS else f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if hasattr(value, "isoformat"):
        return value.strftime("%Y-%m-%d %H:%M:%S") if hasattr(value, "strftime") else value.isoformat()
    return str(value)


def _table(rows: list[dict], cols: list[str]) -> str:
    """An HTML table in a horizontally scrolling box; numbers right-aligned."""
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = []
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c)
            num = isinstance(v, (int, float)) and not isinstance(v, bool)
            cells.append(f"<td{' class=num' if num else ''}>{html.escape(fmt(v, c))}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def host_summaries(result: PipelineResult) -> list[dict]:
    """One dict per host for the report's first screen: GTID_EXECUTED, GTID_PURGED, errant GTIDs and the
    findings by severity (errors, warnings; info findings are left to the detail)."""
    from gtidkit.gtid import GtidSet

    out = []
    for h in result.hosts:
        mine = [c for c in result.checks if c["host"] == h["host"]]
        errant = GtidSet()
        for c in mine:
            if c["check"] == "errant" and c["gtid"]:
                errant = errant | GtidSet.parse(c["gtid"])
        by_check: dict[tuple[str, str], int] = defaultdict(int)
        for c in mine:
            if c["severity"] in ("error", "warning"):
                by_check[(c["severity"], c["check"])] += 1
        out.append(
            {
                "host": h["host"],
                "source": h["source_host"],
                "gtid_executed": h["gtid_executed_binlog"] or "",
                "gtid_purged": h["gtid_purged_binlog"] or "",
                "errant": str(errant),
                "errors": sum(n for (sev, _), n in by_check.items() if sev == "error"),
                "warnings": sum(n for (sev, _), n in by_check.items() if sev == "warning"),
                "findings": ", ".join(f"{n} {check}" for (_, check), n in sorted(by_check.items())),
                "transactions": h["transactions"],
                "files": h["files"],
                "bytes": h["bytes"],
            }
        )
    return out


def _summary_cards(result: PipelineResult) -> str:
    cards = []
    for s in host_summaries(result):
        status = "bad" if s["errors"] else "warn" if s["warnings"] else "ok"
        verdict = (
            f"{s['errors']} error(s), {s['warnings']} warning(s): {s['findings']}"
            if s["findings"]
            else "no errors or warnings"
        )
        source = f" ← {html.escape(s['source'])}" if s["source"] else " (no source)"
        cards.append(
            f'<div class="card {status}"><h3>{html.escape(s["host"])}<small>{source}</small></h3><dl>'
            f"<dt>GTID_EXECUTED</dt><dd><code>{html.escape(s['gtid_executed'] or '(empty)')}</code></dd>"
            f"<dt>GTID_PURGED</dt><dd><code>{html.escape(s['gtid_purged'] or '(empty)')}</code></dd>"
            f"<dt>errant GTIDs</dt><dd><code>{html.escape(s['errant'] or 'none')}</code></dd>"
            f"<dt>findings</dt><dd>{html.escape(verdict)}</dd>"
            f"<dt>binlogs</dt><dd>{s['files']:,} files, {human_bytes(s['bytes'])}, "
            f"{s['transactions']:,} transactions</dd></dl></div>"
        )
    return f'<div class="cards">{"".join(cards)}</div>'


def render_html(result: PipelineResult) -> str:
    """The report as one self-contained HTML page: a one-screen summary per host (GTID_EXECUTED, GTID_PURGED,
    errant GTIDs, findings), then plots, hosts, checks and files in detail."""
    pngs = plot_pngs(result)
    imgs = "".join(
        f'<figure><img alt="{k}" src="data:image/png;base64,{base64.b64encode(v).decode()}"/></figure>'
        for k, v in pngs.items()
    )
    host_cols = [
        "host",
        "server_uuid",
        "server_id",
        "source_host",
        "files",
        "transactions",
        "gtid_transactions",
        "anonymous_transactions",
        "bytes",
        "bad_bytes",
        "gtid_executed_binlog",
        "gtid_purged_binlog",
        "commit_groups",
        "avg_group_size",
        "max_group_size",
    ]
    file_cols = [
        "host",
        "file",
        "server_version",
        "checksum_alg",
        "previous_gtids",
        "first_gtid",
        "last_gtid",
        "transactions",
        "status",
        "error_offset",
        "good_bytes",
        "bad_bytes",
        "size",
        "error",
    ]
    check_cols = ["check", "severity", "host", "file", "offset", "gtid", "detail"]
    total = sum(f["size"] for f in result.files)
    good = sum(f["good_bytes"] for f in result.files)
    more = ""
    if len(result.checks) > _MAX_CHECK_ROWS:
        more = (
            f"<p>{len(result.checks) - _MAX_CHECK_ROWS:,} more findings in the <code>checks</code> table.</p>"
        )
    inc = ""
    if result.incremental:
        i = result.incremental
        inc = (
            f"<p>Incremental run: {i['scanned']:,} file(s) scanned (new {len(i['new'])}, grown "
            f"{len(i['grown'])}, rewritten {len(i['rewritten'])}), {i['reused']:,} reused, "
            f"{len(i['gone'])} gone since the previous run.</p>"
        )
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>gtidkit pipeline report</title>
<style>body{{font-family:sans-serif;margin:2em;}} table{{border-collapse:collapse;font-size:12px}}
td,th{{border:1px solid #ccc;padding:3px 6px;vertical-align:top;white-space:nowrap}} th{{background:#eee}}
td.num{{text-align:right}} .scroll{{overflow-x:auto;max-width:100%;margin-bottom:2em}}
.cards{{display:grid;grid-template-columns:repeat(auto-fill,minmax(26em,1fr));gap:1em;margin-bottom:2em}}
.card{{border:1px solid #ccc;border-left:6px solid #3c9d5d;padding:.5em 1em;font-size:13px}}
.card.warn{{border-left-color:#e0a800}} .card.bad{{border-left-color:#c0392b}}
.card h3{{margin:.2em 0}} .card small{{font-weight:normal;color:#666;margin-left:.5em}}
dl{{display:grid;grid-template-columns:max-content 1fr;gap:.2em .8em;margin:.3em 0}} dt{{color:#555}}
dd{{margin:0;overflow-wrap:anywhere}} img{{max-width:100%}} code{{background:#f4f4f4}}</style></head><body>
<h1>gtidkit pipeline report</h1>
<p>{len(result.layout.files):,} binlog files, {len(result.hosts):,} hosts, {total:,} bytes
({good:,} decoded, {total - good:,} bad; {human_bytes(total)}); topology {html.escape(result.topology_origin)}:
<code>{html.escape(str(result.topology))}</code>; output <code>{html.escape(str(result.output))}</code>.</p>{inc}
<h2>Summary per host</h2>{_summary_cards(result)}
<h2>Plots</h2>{imgs}
<h2>Hosts</h2>{_table(result.hosts, host_cols)}
<h2>Checks</h2>{_table(result.checks[:_MAX_CHECK_ROWS], check_cols)}{more}
<h2>Files</h2>{_table(result.files, file_cols)}
</body></html>
"""


def write_html(result: PipelineResult) -> None:
    """Write ``OUTPUT/report.html`` (local or remote output)."""
    from gtidkit.pipeline.storage import write_bytes

    write_bytes(result.output_child("report.html"), render_html(result).encode(), result.storage_options)
