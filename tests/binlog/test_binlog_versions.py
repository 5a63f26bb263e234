"""versions.py: the post-header tables agree with the FDE every real server in the fixtures wrote."""

from __future__ import annotations

import pytest

from gtidkit.binlog import BinlogDecodeError, FormatDescriptionEvent, read_events
from gtidkit.binlog.versions import (
    has_checksum_alg,
    is_mariadb,
    parse_server_version,
    post_header_lengths_for,
    server_version_number,
)
from tests.conftest import BINLOG_FIXTURES

#: Builds whose FDE is not the release table of their version: file → why.
NOT_RELEASE_TABLES = {
    "bug11747887-bin.000003": "5.6.4-m7 milestone build without the v2 rows events (another 5.6.4-m7 has them)",
    "ver_5_1-wl2325_r.001": "5.2.2-a_drop6p13: a feature tree that numbered its own row events 16-19",
    "ver_5_1-wl2325_s.001": "5.2.2-a_drop6p13: same feature tree",
    "mysql-bin.aurora-padding": "Aurora 5.7.12 announces its own extra types (up to 105 entries)",
}


def _fdes() -> list[tuple[str, FormatDescriptionEvent]]:
    out = []
    for p in sorted(BINLOG_FIXTURES.rglob("*")) if BINLOG_FIXTURES.exists() else []:
        if not p.is_file() or p.read_bytes()[:4] != b"\xfebin":
            continue
        try:
            for pe in read_events(p):
                if isinstance(pe.event, FormatDescriptionEvent):
                    out.append((p.name, pe.event))
        except BinlogDecodeError:
            pass
    return out


FDES = _fdes()


@pytest.mark.parametrize(("name", "fde"), FDES, ids=[f"{n}:{f.server_version}" for n, f in FDES])
def test_release_tables_match_real_fdes(name: str, fde: FormatDescriptionEvent) -> None:
    ours = post_header_lengths_for(fde.server_version)
    if name in NOT_RELEASE_TABLES:
        assert ours != fde.post_header_lengths
        n = min(len(ours), len(fde.post_header_lengths))
        if "wl2325" not in name:  # the others agree on the types both know, apart from the FDE's own length
            diff = [i for i in range(n) if ours[i] != fde.post_header_lengths[i]]
            assert diff == [14]
        return
    assert ours == fde.post_header_lengths
    assert (
        FormatDescriptionEvent.for_server(
            fde.server_version, checksum_alg=fde.checksum_alg
        ).post_header_lengths
        == fde.post_header_lengths
    )


def test_every_version_family_is_covered() -> None:
    families = {parse_server_version(f.server_version)[:2] for _, f in FDES}
    assert {(5, 0), (5, 1), (5, 5), (5, 6), (5, 7), (8, 0), (8, 4), (9, 0)} <= families


@pytest.mark.parametrize(
    ("text", "parsed", "number"),
    [
        ("8.0.36", (8, 0, 36), 80036),
        ("5.6.51-91.0-log", (5, 6, 51), 50651),
        ("8.4.11-11", (8, 4, 11), 80411),
        ("garbage", (0, 0, 0), 0),
    ],
)
def test_parse_server_version(text: str, parsed: tuple[int, int, int], number: int) -> None:
    assert parse_server_version(text) == parsed and server_version_number(text) == number


def test_checksum_split_and_mariadb() -> None:
    assert not has_checksum_alg("5.6.0") and has_checksum_alg("5.6.1") and not has_checksum_alg("5.5.62-log")
    assert is_mariadb("10.5.15-MariaDB-1:10.5.15+maria~focal-log") and not is_mariadb("8.0.36")
    with pytest.raises(ValueError):
        post_header_lengths_for("4.1.22")


def test_fde_size_formula() -> None:
    """The FDE's own entry is 57 + number of types (formats.md §1.4)."""
    for _, fde in FDES:
        assert fde.post_header_len(15) == 57 + len(fde.post_header_lengths)
