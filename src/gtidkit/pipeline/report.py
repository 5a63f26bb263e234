"""The pipeline's report: a rich terminal summary, ``summary.json`` and a self-contained ``report.html``.

The HTML embeds three matplotlib plots as base64 PNGs (no external files): transactions per minute per host,
GTID coverage per host (GTIDs purged from the binlogs vs still in them, and errant ones), and the histogram of
logical-clock commit-group sizes (WL#7165).
"""

from __future__ import annotations

import base64
import datetime
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
    findings = fold_gaps(result)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for c in findings:
        counts[(c["check"], c["severity"])] += 1
    folded = f", {len(result.checks)} rows in the checks table" if len(findings) < len(result.checks) else ""
    t = Table(title=f"Checks ({len(findings)} findings{folded}; topology {result.topology_origin})")
    for col in ("check", "severity", "host", "file", "offset", "gtid", "detail"):
        t.add_column(col, overflow="fold")
    for c in findings[:max_checks]:
        t.add_row(
            c["check"],
            c["severity"],
            c["host"],
            c["file"] or "",
            "" if c["offset"] is None else str(c["offset"]),
            c["gtid"] or "",
            c["detail"] or "",
        )
    console.print(t)
    if len(findings) > max_checks:
        console.print(
            f"… {len(findings) - max_checks} more in {result.output_child('checks')} and report.html"
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
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")  # tight: labels and legends never clipped
    return base64.b64encode(buf.getvalue()).decode("ascii")


#: Buckets of the activity plot, the finest whose point count stays readable: (name, seconds, longest span).
_BUCKETS = (
    ("minute", 60, 6 * 3600),
    ("hour", 3600, 21 * 86400),
    ("day", 86400, 2 * 366 * 86400),
    ("week", 7 * 86400, None),
)
#: Most hosts drawn as lines of their own; the rest are summed as "other hosts".
MAX_PLOT_HOSTS = 20


def host_colors(n: int) -> list:
    """``n`` distinct colours (matplotlib's tab10, then tab20's lighter shades, then evenly spaced hues)."""
    import matplotlib

    if n <= 10:
        return list(matplotlib.colormaps["tab10"].colors[:n])
    if n <= 20:
        tab20 = matplotlib.colormaps["tab20"].colors
        return [tab20[2 * i] for i in range(10)] + [tab20[2 * i + 1] for i in range(n - 10)]
    return [matplotlib.colormaps["hsv"](i / n) for i in range(n)]


def bucket_for_span(span_s: float) -> tuple[str, int]:
    """The activity plot's bucket for a commit-time span of ``span_s`` seconds: (name, seconds), the finest of
    :data:`_BUCKETS` that keeps the plot readable (a few hundred points per host at most)."""
    name, seconds, _ = next(b for b in _BUCKETS if b[2] is None or span_s <= b[2])
    return name, seconds


def activity_series(result: PipelineResult) -> tuple[str, dict[str, list[tuple]]]:
    """The result's activity rows per host: (bucket name, host → [(bucket start, transactions)])."""
    series: dict[str, list[tuple]] = defaultdict(list)
    for host, start, n in result.activity:
        if start is not None:
            series[host].append((start, int(n)))
    return result.activity_bucket, dict(series)


def plot_figures(result: PipelineResult) -> dict:
    """The report's plots as matplotlib figures: ``activity`` (transactions per minute / hour / day / week per
    host, the bucket chosen from the time span), ``coverage`` (GTIDs per host: purged, in the binlogs, errant)
    and ``parallelism`` (commit-group sizes). Integer ticks, one distinct colour per host (up to
    :data:`MAX_PLOT_HOSTS`, the rest summed), legends outside the axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator, StrMethodFormatter

    from gtidkit.gtid import GtidSet

    figs: dict = {}
    # 1. activity per host
    bucket, series = activity_series(result)
    ranked = sorted(series, key=lambda h: (-sum(n for _t, n in series[h]), h))
    shown = sorted(ranked[: MAX_PLOT_HOSTS - 1] if len(ranked) > MAX_PLOT_HOSTS else ranked)
    rest = [h for h in ranked if h not in shown]
    lines = {h: series[h] for h in shown}
    if rest:
        other: dict = defaultdict(int)
        for h in rest:
            for t, n in series[h]:
                other[t] += n
        lines[f"{len(rest)} other hosts"] = sorted(other.items())
    fig, ax = plt.subplots(figsize=(10, 4.2))
    for (host, pts), color in zip(lines.items(), host_colors(len(lines))):
        xs, ys = zip(*pts)
        ax.plot(
            xs, ys, marker="o" if len(xs) < 40 else None, markersize=3, linewidth=1.2, label=host, color=color
        )
    ax.set_title(f"Transactions per {bucket} per host (commit time, UTC)")
    ax.set_ylabel(f"transactions per {bucket}")
    top = max((n for pts in lines.values() for _t, n in pts), default=1)
    ax.set_ylim(0, top * 1.08)  # markers of the busiest bucket stay inside the frame
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    locator = mdates.AutoDateLocator(maxticks=10)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.grid(alpha=0.3)
    if lines:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), ncol=1 if len(lines) <= 12 else 2)
    figs["activity"] = fig
    # 2. GTID coverage per host
    hosts = [h for h in result.hosts if h["gtid_count"]]
    fig, ax = plt.subplots(figsize=(10, max(2.5, 0.32 * len(hosts) + 1.2)))
    errant = defaultdict(int)
    for c in result.checks:
        if c["check"] == "errant" and c["gtid"]:
            errant[c["host"]] += len(GtidSet.parse(c["gtid"]))
    names = [h["host"] for h in hosts]
    purged = [len(GtidSet.parse(h["gtid_purged_binlog"])) if h["gtid_purged_binlog"] else 0 for h in hosts]
    present = [h["gtid_count"] - p for h, p in zip(hosts, purged)]
    ax.barh(names, purged, color="#9bb7d4", label="purged (Previous_gtids of the oldest binlog)")
    ax.barh(names, present, left=purged, color="#2f6db5", label="in the binlogs")
    for i, name in enumerate(names):
        if errant[name]:
            ax.annotate(
                f"{errant[name]:,} errant",
                (purged[i] + present[i], i),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                color="#c0392b",
                fontsize=8,
            )
    ax.set_title("GTID coverage per host (GTID_EXECUTED from the binlogs)")
    ax.set_xlabel("GTIDs")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.margins(x=0.12)  # room for the "N errant" labels
    ax.tick_params(axis="y", labelsize=8)
    if names:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.invert_yaxis()
    figs["coverage"] = fig
    # 3. parallelism histogram
    fig, ax = plt.subplots(figsize=(10, 3.8))
    by_size: dict[int, int] = defaultdict(int)
    for _host, size, n in result.group_sizes:
        by_size[int(size)] += int(n)
    if by_size:
        sizes = sorted(by_size)
        ax.bar(sizes, [by_size[s] for s in sizes], color="#3c9d5d", width=0.8)
    ax.set_title("Logical-clock commit groups: transactions per group (all hosts)")
    ax.set_xlabel("transactions in the group (same last_committed)")
    ax.set_ylabel("groups")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(integer=True))
        axis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    figs["parallelism"] = fig
    return figs


def plot_pngs(result: PipelineResult) -> dict[str, bytes]:
    """The report's plots (:func:`plot_figures`) as PNG bytes: ``activity``, ``coverage``, ``parallelism``."""
    import matplotlib.pyplot as plt

    out: dict[str, bytes] = {}
    for name, fig in plot_figures(result).items():
        out[name] = base64.b64decode(_png(fig))
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


def _table(rows: list[dict], cols: list[str], wrap_cols: frozenset[str] = frozenset()) -> str:
    """An HTML table that fits the page width: long cells wrap (GTID sets and UUIDs anywhere, never cut),
    numbers right-aligned."""
    head = "".join(f"<th>{html.escape(c.replace('_', ' '))}</th>" for c in cols)
    body = []
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c)
            num = isinstance(v, (int, float)) and not isinstance(v, bool)
            cls = "num" if num else "gtid" if c in wrap_cols or "gtid" in c or "uuid" in c else ""
            cells.append(f"<td{f' class={cls}' if cls else ''}>{html.escape(fmt(v, c))}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def fold_gaps(result: PipelineResult) -> list[dict]:
    """The checks for people: a GNO gap replicated to every replica is one finding, named at its root cause.

    A gap's GTIDs belong to one server_uuid; the host whose own UUID that is (the source that skipped the GNOs)
    is the root cause, and the same gap on other hosts is inherited through replication. The finding is kept
    once, on the originating host (or, when no host of the input owns the UUID, on the first host reporting
    it), its detail naming the hosts that inherited it. Other checks are returned as they are.
    """
    owner = {h["server_uuid"]: h["host"] for h in result.hosts if h.get("server_uuid")}
    groups: dict[str, list[dict]] = defaultdict(list)
    out: list[dict] = []
    for c in result.checks:
        if c["check"] == "gap" and c["gtid"]:
            if not groups[c["gtid"]]:
                out.append(c)  # placeholder keeps the order; replaced below
            groups[c["gtid"]].append(c)
        else:
            out.append(c)
    folded = []
    for c in out:
        if c["check"] != "gap" or not c["gtid"] or c["gtid"] not in groups:
            folded.append(c)
            continue
        rows = groups.pop(c["gtid"])
        origin = owner.get(c["gtid"].split(":", 1)[0])
        root = next((r for r in rows if r["host"] == origin), rows[0])
        others = sorted({r["host"] for r in rows} - {root["host"]})
        detail = root["detail"]
        if origin is not None:
            detail += f"; root cause: {origin} (the server_uuid's own host)"
        else:
            detail += "; root cause: a server outside the input (its UUID is no host's)"
        if others:
            detail += f"; inherited by {', '.join(others)}"
        folded.append({**root, "detail": detail, "hosts": [root["host"], *others]})
    return folded


def severity_counts(findings: list[dict]) -> dict[str, dict[str, int]]:
    """severity → check → number of findings (as :func:`fold_gaps` counts them), severities in rank order."""
    out: dict[str, dict[str, int]] = {"error": {}, "warning": {}, "info": {}}
    for c in findings:
        by = out.setdefault(c["severity"], {})
        by[c["check"]] = by.get(c["check"], 0) + 1
    return out


def _severity_summary(findings: list[dict]) -> str:
    parts = []
    for sev, by in severity_counts(findings).items():
        n = sum(by.values())
        what = ", ".join(f"{k:,} {name}" for name, k in sorted(by.items())) or "none"
        parts.append(
            f'<div class="sev {sev}"><b>{n:,}</b> {sev}{"s" if n != 1 else ""}<br><small>{what}</small></div>'
        )
    return f'<div class="sevs">{"".join(parts)}</div>'


def _topology_table(result: PipelineResult) -> str:
    rows = []
    uuids = {h["host"]: h.get("server_uuid") for h in result.hosts}
    for h in result.hosts:
        sources = result.topology.get(h["host"], [])
        rows.append(
            {
                "host": h["host"],
                "server_uuid": uuids.get(h["host"]) or "unknown (no GTID of its own in the binlogs)",
                "server_id": h.get("server_id"),
                "replicates_from": ", ".join(sources) if sources else "(none: a source)",
            }
        )
    return _table(rows, ["host", "server_uuid", "server_id", "replicates_from"])


def host_summaries(result: PipelineResult) -> list[dict]:
    """One dict per host for the report's first screen: GTID_EXECUTED, GTID_PURGED, errant GTIDs and the
    findings by severity (errors, warnings; info findings are left to the detail). A gap inherited from
    another host counts at its root cause only (:func:`fold_gaps`); the inheriting host lists it as such."""
    from gtidkit.gtid import GtidSet

    folded = fold_gaps(result)
    out = []
    for h in result.hosts:
        mine = [c for c in folded if c["host"] == h["host"]]
        inherited = [c for c in folded if h["host"] in c.get("hosts", [])[1:]]
        errant = GtidSet()
        for c in mine:
            if c["check"] == "errant" and c["gtid"]:
                errant = errant | GtidSet.parse(c["gtid"])
        by_check: dict[tuple[str, str], int] = defaultdict(int)
        for c in mine:
            if c["severity"] in ("error", "warning"):
                by_check[(c["severity"], c["check"])] += 1
        findings = [f"{n} {check}" for (_, check), n in sorted(by_check.items())]
        if inherited:
            findings.append(
                f"{len(inherited)} gap(s) inherited from {', '.join(sorted({c['host'] for c in inherited}))}"
            )
        out.append(
            {
                "host": h["host"],
                "source": h["source_host"],
                "gtid_executed": h["gtid_executed_binlog"] or "",
                "gtid_purged": h["gtid_purged_binlog"] or "",
                "errant": str(errant),
                "errors": sum(n for (sev, _), n in by_check.items() if sev == "error"),
                "warnings": sum(n for (sev, _), n in by_check.items() if sev == "warning"),
                "findings": ", ".join(findings),
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
            if s["errors"] or s["warnings"]
            else s["findings"] or "no errors or warnings"
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


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em 2em;max-width:1800px;color:#222}
h1{margin-bottom:.2em} .meta{color:#555;margin-top:0}
table{border-collapse:collapse;font-size:12px;width:100%;margin-bottom:2em}
td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;overflow-wrap:break-word;text-align:left}
th{background:#eee;font-weight:600} td.num{text-align:right}
td.gtid{font-family:ui-monospace,monospace;font-size:11px;word-break:break-all;min-width:9em}
.sevs{display:flex;gap:1em;margin:1em 0 2em}
.sev{flex:1;border:1px solid #ccc;border-left:8px solid #3c9d5d;padding:.5em 1em;font-size:15px}
.sev b{font-size:24px} .sev.error{border-left-color:#c0392b} .sev.warning{border-left-color:#e0a800}
.sev.info{border-left-color:#2f6db5} .sev small{color:#555;font-size:12px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(26em,1fr));gap:1em;margin-bottom:2em}
.card{border:1px solid #ccc;border-left:6px solid #3c9d5d;padding:.5em 1em;font-size:13px;min-width:0}
.card.warn{border-left-color:#e0a800} .card.bad{border-left-color:#c0392b}
.card h3{margin:.2em 0} .card small{font-weight:normal;color:#666;margin-left:.5em}
dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2em .8em;margin:.3em 0} dt{color:#555}
dd{margin:0;overflow-wrap:anywhere} code{background:#f4f4f4;word-break:break-all}
figure{margin:0 0 1.5em} img{max-width:100%;height:auto}
"""


def render_html(result: PipelineResult, *, now: datetime.datetime | None = None) -> str:
    """The report as one self-contained HTML page: generation time and gtidkit version, a severity summary
    (a replicated gap counted once, at its root cause), a one-screen summary per host (GTID_EXECUTED,
    GTID_PURGED, errant GTIDs, findings), the topology, plots, then hosts, checks and files in detail. Every
    table fits the page width (long cells wrap; GTID sets and UUIDs are never cut)."""
    from gtidkit import __version__

    generated = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d %H:%M:%S UTC")
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
    findings = fold_gaps(result)
    total = sum(f["size"] for f in result.files)
    good = sum(f["good_bytes"] for f in result.files)
    more = ""
    if len(findings) > _MAX_CHECK_ROWS:
        more = f"<p>{len(findings) - _MAX_CHECK_ROWS:,} more findings in the <code>checks</code> table.</p>"
    inc = ""
    if result.incremental:
        i = result.incremental
        inc = (
            f"<p>Incremental run: {i['scanned']:,} file(s) scanned (new {len(i['new'])}, grown "
            f"{len(i['grown'])}, rewritten {len(i['rewritten'])}), {i['reused']:,} reused, "
            f"{len(i['gone'])} gone since the previous run.</p>"
        )
    folded_note = ""
    if len(findings) < len(result.checks):
        folded_note = (
            f" ({len(result.checks):,} rows in the <code>checks</code> table: a gap replicated to several hosts "
            "is one finding here, at its root cause)"
        )
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>gtidkit pipeline report</title><style>{_CSS}</style></head><body>
<h1>gtidkit pipeline report</h1>
<p class="meta">Generated {generated} by gtidkit {html.escape(__version__)} ({html.escape(result.engine)} engine);
output <code>{html.escape(str(result.output))}</code>.</p>
<p>{len(result.layout.files):,} binlog files, {len(result.hosts):,} hosts, {total:,} bytes
({good:,} decoded, {total - good:,} bad; {human_bytes(total)}); topology {html.escape(result.topology_origin)}.</p>{inc}
<h2>Findings by severity</h2>{_severity_summary(findings)}
<h2>Summary per host</h2>{_summary_cards(result)}
<h2>Topology ({html.escape(result.topology_origin)})</h2>{_topology_table(result)}
<h2>Plots</h2>{imgs}
<h2>Hosts</h2>{_table(result.hosts, host_cols)}
<h2>Checks</h2><p>{len(findings):,} findings{folded_note}.</p>{_table(findings[:_MAX_CHECK_ROWS], check_cols)}{more}
<h2>Files</h2>{_table(result.files, file_cols, frozenset({"previous_gtids", "error"}))}
</body></html>
"""


def write_html(result: PipelineResult) -> None:
    """Write ``OUTPUT/report.html`` (local or remote output)."""
    from gtidkit.pipeline.storage import write_bytes

    write_bytes(result.output_child("report.html"), render_html(result).encode(), result.storage_options)
