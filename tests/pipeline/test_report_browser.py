"""The HTML report as a browser shows it: 20 hosts and three years of binlogs, through the real CLI, rendered by
headless Chromium at 1400 px (a screenshot is kept beside the report; the page must not scroll sideways).

Chromium is the Debian ``chromium`` package (``.ci/run`` installs it); without it these tests are skipped.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gtidkit.generate import generate_fleet

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTH = 1400


def _us(year: int) -> int:
    return int(dt.datetime(year, 3, 1, tzinfo=dt.timezone.utc).timestamp() * 1_000_000)


@pytest.fixture(scope="module")
def wide_fleet(tmp_path_factory) -> Path:
    """Two generated fleets of 10 hosts each (a source, 9 replicas), three years apart: 20 hosts."""
    root = tmp_path_factory.mktemp("wide") / "fleet"
    root.mkdir()
    for prefix, seed, year in (("eu", 11, 2023), ("us", 12, 2026)):
        part = root.parent / f"gen-{prefix}"
        generate_fleet(part, seed=seed, replicas=9, transactions=120, start_us=_us(year))
        for host in sorted(p for p in part.iterdir() if p.is_dir()):
            host.rename(root / f"{prefix}-{host.name}")
    return root


@pytest.fixture(scope="module")
def report(wide_fleet, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wide-out")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "gtidkit",
            "pipeline",
            "run",
            "--input",
            str(wide_fleet),
            "--output",
            str(out),
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    return out / "report.html"


def _chromium(tmp_path: Path, *args: str) -> str:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (Debian package chromium; .ci/run installs it)")
    p = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout


def test_no_horizontal_scroll_at_1400px(report, tmp_path):
    measure = tmp_path / "measure.html"
    probe = (
        "<script>document.body.dataset.scroll = document.documentElement.scrollWidth + ' ' + "
        "document.documentElement.clientWidth</script></body>"
    )
    measure.write_text(report.read_text().replace("</body>", probe))
    dom = _chromium(tmp_path, f"--window-size={WIDTH},1000", "--dump-dom", measure.as_uri())
    scroll, client = map(int, re.search(r'data-scroll="(\d+) (\d+)"', dom).groups())
    assert client <= WIDTH
    assert scroll <= client, f"the page scrolls sideways: {scroll} px of content in {client} px"


def test_screenshot(report, tmp_path):
    shot = report.parent / "report-1400.png"
    _chromium(
        tmp_path, "--hide-scrollbars", f"--window-size={WIDTH},3000", f"--screenshot={shot}", report.as_uri()
    )
    from PIL import Image

    with Image.open(shot) as im:
        assert im.size == (WIDTH, 3000)
        assert len(im.convert("L").resize((140, 300)).getcolors(maxcolors=65536)) > 20  # not a blank page


def _text(report: Path) -> str:
    return re.sub(r'src="data:image/png;base64,[^"]+"', "", report.read_text())


def test_top_of_the_page(report):
    from gtidkit import __version__

    html = _text(report)
    assert re.search(
        r"Generated \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC by gtidkit " + re.escape(__version__), html
    )
    order = [
        html.index(h)
        for h in ("<h2>Findings by severity", "<h2>Summary per host", "<h2>Topology", "<h2>Plots")
    ]
    assert order == sorted(order)
    assert re.search(r'<div class="sev error"><b>\d+</b> errors?', html)


def test_no_python_reprs_and_topology_is_a_table(report):
    html = _text(report)
    assert not re.search(r"\{'|\('|\['|=True|=False|\bNone\b", html)
    topo = html[html.index("<h2>Topology") : html.index("<h2>Plots")]
    assert "<th>replicates from</th>" in topo
    assert topo.count("<tr>") == 21  # header + 20 hosts
    assert "<td>eu-source</td>" in topo and "(none: a source)" in topo


def test_a_replicated_gap_is_named_once_at_its_source(report):
    html = _text(report)
    checks = html[html.index("<h2>Checks") : html.index("<h2>Files")]
    gap_rows = re.findall(r"<tr><td>gap</td>.*?</tr>", checks)
    assert len(gap_rows) == 2  # one per fleet, though each of its 10 hosts has the hole
    for prefix in ("eu", "us"):
        row = next(r for r in gap_rows if f"<td>{prefix}-source</td>" in r)
        assert f"root cause: {prefix}-source" in row
        assert f"inherited by {prefix}-replica1, " in row


def test_plots_readable_with_20_hosts_and_years(wide_fleet, tmp_path):
    from gtidkit.pipeline.job import run_pipeline
    from gtidkit.pipeline.report import plot_figures

    result = run_pipeline(None, wide_fleet, tmp_path / "out", write_report=False)
    figs = plot_figures(result)
    ax = figs["activity"].axes[0]
    assert "per week" in ax.get_title()  # three years: weekly buckets, not a million minute points
    colors = [
        tuple(line.get_color()) if not isinstance(line.get_color(), str) else line.get_color()
        for line in ax.lines
    ]
    assert len(ax.lines) == 20 and len(set(colors)) == 20
    assert len(ax.get_legend().get_texts()) == 20
    for name in ("activity", "coverage", "parallelism"):
        fig = figs[name]
        fig.canvas.draw()
        for axis in (fig.axes[0].yaxis, fig.axes[0].xaxis):
            if name == "activity" and axis is fig.axes[0].xaxis:
                continue  # dates
            labels = [t.get_text() for t in axis.get_ticklabels() if t.get_text()]
            if name == "coverage" and axis is fig.axes[0].yaxis:
                assert len(labels) == 20  # every host named
                continue
            assert labels and all(re.fullmatch(r"−?[\d,]+", t) for t in labels), (name, labels)
        # tick labels never overlap one another (dates included)
        renderer = fig.canvas.get_renderer()
        for axis in (fig.axes[0].xaxis, fig.axes[0].yaxis):
            boxes = [t.get_window_extent(renderer) for t in axis.get_ticklabels() if t.get_text()]
            for a, b in itertools.pairwise(boxes):
                assert not a.overlaps(b), (name, a, b)
