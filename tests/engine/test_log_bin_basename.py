"""``log_bin_basename`` / ``log_bin_index`` (``--log-bin=NAME``, ``--log-bin-index``) in the embedded engine.

Oracle: RM8 "Binary Logging Options and Variables": the files are ``<base_name>.NNNNNN`` with an index
``<base_name>.index``, in the datadir unless the name has a path; an extension given with the base name is ignored;
``@@log_bin_basename`` and ``@@log_bin_index`` are the full paths (NULL with the binary log off); a restart with the
same options continues the same sequence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gtidkit.engine import Server

GTID_OFF = {"gtid_mode": "OFF", "enforce_gtid_consistency": "OFF"}


def _files(server: Server) -> list[str]:
    s = server.session()
    try:
        return [row[0] for row in s.execute("SHOW BINARY LOGS")[0].rows]
    finally:
        s.close()


def _variables(server: Server) -> tuple:
    s = server.session()
    try:
        return s.execute("SELECT @@log_bin_basename, @@log_bin_index")[0].rows[0]
    finally:
        s.close()


@pytest.mark.parametrize(
    ("options", "files", "basename", "index"),
    [
        ({}, ["binlog.000001"], "binlog", "binlog.index"),
        ({"log_bin_basename": "mysql-bin"}, ["mysql-bin.000001"], "mysql-bin", "mysql-bin.index"),
        ({"log_bin_basename": "mysql-bin.log"}, ["mysql-bin.000001"], "mysql-bin", "mysql-bin.index"),
        (
            {"log_bin_basename": "mysql-bin", "log_bin_index": "other.index"},
            ["mysql-bin.000001"],
            "mysql-bin",
            "other.index",
        ),
    ],
    ids=["default", "name", "extension-ignored", "own-index"],
)
def test_names_in_the_datadir(
    tmp_path: Path, options: dict[str, str], files: list[str], basename: str, index: str
) -> None:
    d = tmp_path / "d"
    with Server.open(d, log_bin=True, **GTID_OFF, **options) as server:
        assert _files(server) == files
        assert _variables(server) == (str(d / basename), str(d / index))
    assert (d / index).read_text() == "".join(f"./{name}\n" for name in files)
    with Server.open(d, log_bin=True, **GTID_OFF, **options) as server:  # a restart continues the sequence
        assert _files(server) == [*files, files[0].replace("000001", "000002")]


def test_elsewhere_and_off(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    d = tmp_path / "d"
    with Server.open(d, log_bin=True, log_bin_basename=str(logs / "b"), **GTID_OFF) as server:
        assert _files(server) == ["b.000001"]
        assert _variables(server) == (str(logs / "b"), str(logs / "b.index"))
    assert (logs / "b.index").read_text() == f"{logs}/b.000001\n"
    assert not list(d.glob("*.index"))
    with Server.open(d, log_bin=False, **GTID_OFF) as server:
        assert _variables(server) == (None, None)
