"""The HTML report (issues 10, 17): numbers for people, wrapping tables, a one-screen summary per host first."""

from __future__ import annotations

import re

import pytest

from gtidkit.gtid import GtidSet
from gtidkit.pipeline.report import fmt, human_bytes

pytestmark = pytest.mark.spark


@pytest.mark.parametrize(
    ("value", "col", "text"),
    [
        (1.9851485148514851, "avg_group_size", "1.99"),
        (1234567, "transactions", "1,234,567"),
        (1234567, "bytes", "1.2 MB (1,234,567)"),
        (999, "size", "999 B"),
        (120034, "offset", "120034"),
        (None, "gtid", ""),
        (True, "in_use", "yes"),
    ],
    ids=lambda v: str(v),
)
def test_fmt(value, col, text):
    assert fmt(value, col) == text


def test_human_bytes():
    assert [human_bytes(n) for n in (12, 12_345, 2_000_000_000, 10**13)] == [
        "12 B",
        "12.3 KB",
        "2.0 GB",
        "10.0 TB",
    ]


def _text(fleet_result) -> str:
    html = (fleet_result.output / "report.html").read_text()
    return re.sub(r'src="data:image/png;base64,[^"]+"', "", html)


def test_summary_per_host_comes_first(fleet_result, fleet_manifest):
    html = _text(fleet_result)
    summary = html[html.index("<h2>Summary per host</h2>") : html.index("<h2>Plots</h2>")]
    assert html.index("<h2>Summary per host</h2>") < html.index("<h2>Hosts</h2>")
    errant_hosts = {a["host"] for a in fleet_manifest.anomalies_of("errant_gtid")}
    for h in fleet_manifest.hosts:
        card = summary[summary.index(f"<h3>{h.name}<") :]
        card = card[: card.index("</div>")]
        got = re.search(r"<dt>GTID_EXECUTED</dt><dd><code>([^<]*)</code>", card).group(1)
        assert GtidSet.parse(got) == GtidSet.parse(h.gtid_executed)
        errant = re.search(r"<dt>errant GTIDs</dt><dd><code>([^<]*)</code>", card).group(1)
        assert (errant != "none") == (h.name in errant_hosts), h.name


def test_numbers_are_formatted_and_tables_wrap(fleet_result):
    html = _text(fleet_result)
    assert not re.search(r"\d\.\d{3,}", html)  # no 1.9851485148514851 (GTID sets and versions have none)
    assert html.count("<table>") == 4  # topology, hosts, checks, files; they wrap instead of scrolling
    assert "overflow-x" not in html and "td.gtid{" in html and "word-break:break-all" in html
