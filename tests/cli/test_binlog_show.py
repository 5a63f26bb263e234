"""`gtidkit binlog show`: JSON and mysqlbinlog-style text, filters, faults (exit 2); checked against the real
mysqlbinlog outputs kept beside the fixtures, and run once as a real subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gtidkit.binlog import iter_transactions, read_events
from gtidkit.cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
FIX = (ROOT / ".." / "shared" / "research" / "fixtures" / "binlogs").resolve()
GTID57 = FIX / "zalora__binlog-parser/gtid-fixtures/mysql-bin.01"
TAGGED = FIX / "blackbeam__rust_mysql_common/binlog_transaction_with_GTID_TAG.000001"
COMPRESSED = FIX / "osheroff__mysql-binlog-connector-java/mysql-bin.compressed"
TRUNCATED = FIX / "blackbeam__rust_mysql_common/binlog_truncated_prev_gtid_event.000001"
MARIADB = FIX / "blackbeam__rust_mysql_common/mariadb-bin.000001"
SID57 = "10440e47-3885-11eb-ac5b-0242ac110002"


def show(*args: str):
    return CliRunner().invoke(cli, ["binlog", "show", *args])


def json_lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.strip()]


def test_json_per_event_fields() -> None:
    res = show("--json", str(GTID57), str(TAGGED))
    assert res.exit_code == 0, res.output
    objs = json_lines(res.output)
    assert len(objs) == sum(1 for _ in read_events(GTID57)) + sum(1 for _ in read_events(TAGGED))
    for o in objs:
        assert {"file", "pos", "end_pos", "type", "type_code"} <= o.keys()
    fde = objs[0]
    assert fde["type"] == "FORMAT_DESCRIPTION_EVENT" and fde["server_version"] == "5.7.32-log"
    assert fde["checksum_alg"] == "CRC32" and fde["type_code"] == 15 and fde["pos"] == 4
    prev = [o for o in objs if o["type"] == "PREVIOUS_GTIDS_LOG_EVENT"]
    assert prev[0]["gtids"] == f"{SID57}:1-5"
    gtids = [o for o in objs if o["type"] in ("GTID_LOG_EVENT", "GTID_TAGGED_LOG_EVENT")]
    assert [o["gtid"] for o in gtids[:2]] == [f"{SID57}:6", f"{SID57}:7"]
    assert [(o["last_committed"], o["sequence_number"]) for o in gtids[:3]] == [(0, 1), (1, 2), (2, 3)]
    assert gtids[-1]["type_code"] == 42 and gtids[-1]["gtid"].split(":")[1] == "mytag"


def test_json_payload_contents_are_listed() -> None:
    objs = json_lines(show("--json", str(COMPRESSED)).output)
    anon = [o for o in objs if o["type"] == "ANONYMOUS_GTID_LOG_EVENT"]
    assert anon[0]["gtid"] == "ANONYMOUS"
    inner = [o for o in objs if o["in_payload"]]
    assert [o["type"] for o in inner] == ["QUERY_EVENT", "TABLE_MAP_EVENT", "UPDATE_ROWS_EVENT", "XID_EVENT"]
    payload = next(o for o in objs if o["type"] == "TRANSACTION_PAYLOAD_EVENT")
    assert all(o["pos"] == payload["pos"] for o in inner)


def test_per_transaction_json() -> None:
    res = show("--json", "--per-transaction", str(GTID57))
    objs = json_lines(res.output)
    assert len(objs) == len(list(iter_transactions(GTID57))) == 17
    assert objs[0]["gtid"] == f"{SID57}:6" and objs[0]["begin_pos"] == 194 and objs[0]["complete"]


def test_include_and_exclude_gtids() -> None:
    res = show("--json", "--include-gtids", f"{SID57}:7-8", str(GTID57))
    objs = json_lines(res.output)
    assert [o["gtid"] for o in objs if "gtid" in o] == [f"{SID57}:7", f"{SID57}:8"]
    assert objs[0]["type"] == "FORMAT_DESCRIPTION_EVENT"  # events outside transactions are kept
    res = show("--json", "--per-transaction", "--exclude-gtids", f"{SID57}:1-20", str(GTID57))
    assert [o["gtid"] for o in json_lines(res.output)] == [f"{SID57}:21", f"{SID57}:22"]
    res = show("--include-gtids", "not-a-set", str(GTID57))
    assert res.exit_code == 2 and "1772" in res.output


def test_fault_prints_events_then_error_and_exits_2() -> None:
    res = show("--json", str(TRUNCATED), str(GTID57))
    assert res.exit_code == 2
    objs = json_lines(res.stdout)
    assert objs[0]["type"] == "FORMAT_DESCRIPTION_EVENT" and objs[0]["file"] == str(TRUNCATED)
    assert objs[1]["file"] == str(TRUNCATED) and objs[1]["pos"] == 120 and "error" in objs[1]
    assert objs[2]["file"] == str(GTID57)  # the next file is still printed
    assert f"ERROR: Could not read entry at offset 120 in {TRUNCATED}: " in res.stderr
    res = show(str(MARIADB))
    assert res.exit_code == 2 and "MariaDB" in res.stderr and "offset 4" in res.stderr
    assert "ERROR" not in res.stdout  # stdout: the listing only
    missing = FIX / "no-such-file"
    res = show("--json", str(missing))
    text = f"File '{missing}' not found (OS errno 2 - No such file or directory)"
    assert res.exit_code == 2 and json_lines(res.stdout) == [{"file": str(missing), "error": text}]


def test_missing_file_says_file_not_found(tmp_path: Path) -> None:
    # mysqlbinlog: "mysqlbinlog: File 'x' not found (OS errno 2 - No such file or directory)" on stderr
    missing = tmp_path / "binlog.000009"
    proc = subprocess.run(
        [sys.executable, "-m", "gtidkit", "binlog", "show", str(missing), str(GTID57)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr == (
        f"gtidkit binlog show: File '{missing}' not found (OS errno 2 - No such file or directory)\n"
    )
    # as mysqlbinlog stops at a file it cannot open, the script is not started (a half script must not be replayed)
    assert proc.stdout == ""


def test_text_listing_shape() -> None:
    out = show(str(GTID57)).output
    # mysqlbinlog 8.x prints every Gtid field, 0 when the event (here 5.7's) does not carry it
    assert (
        "# at 194\n#201207 12:10:06 server id 1  end_log_pos 259 CRC32 0x01ba5b9c \tGTID\tlast_committed=0"
        "\tsequence_number=1\trbr_only=no\toriginal_committed_timestamp=0\timmediate_commit_timestamp=0"
        "\ttransaction_length=0\n" in out
    )
    assert f"SET @@SESSION.GTID_NEXT= '{SID57}:6'/*!*/;" in out
    assert f"Previous-GTIDs\n# {SID57}:1-5\n" in out


HEADER_RE = re.compile(
    r"^#\d{6} [ \d]\d:\d\d:\d\d server id (\d+)\s+end_log_pos (\d+) (?:CRC32 (0x[0-9a-f]{8}))?"
)


def _listing(text: str) -> dict[str, list]:
    """What must agree with mysqlbinlog: event positions and header fields, GTID_NEXT values, Previous-GTIDs
    lines, GTID lines and the in-use warning (times are left out: mysqlbinlog printed local time)."""
    lines = text.splitlines()
    heads, nexts, sets, gtid_lines = [], [], [], []
    for i, line in enumerate(lines):
        m = re.match(r"^# at (\d+)$", line)
        if m and i + 1 < len(lines):
            h = HEADER_RE.match(lines[i + 1])
            if h:
                heads.append((int(m.group(1)), *h.groups()))
        m = re.match(r"^SET @@SESSION.GTID_NEXT= '([^']+)'/\*!\*/;$", line)
        if m:
            nexts.append(m.group(1))
        if re.match(r"^# ([0-9a-f]{8}-[0-9a-f-]{27}:.*|\[empty\])$", line):
            sets.append(line)
        m = re.search(
            r"\t(GTID|Anonymous_GTID)\t(last_committed=\d+\tsequence_number=\d+\trbr_only=\w+)", line
        )
        if m:
            gtid_lines.append(m.groups())
    warn = any("either in use or was not closed properly" in x for x in lines)
    return {"heads": heads, "gtid_next": nexts, "sets": sets, "gtid_lines": gtid_lines, "in_use": [warn]}


COMPANIONS = (
    sorted(p for p in FIX.rglob("*") if re.search(r"-result|plaintext-", p.name)) if FIX.exists() else []
)


@pytest.mark.parametrize("companion", COMPANIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_agrees_with_real_mysqlbinlog_output(companion: Path) -> None:
    binlog = companion.with_name(companion.name.replace("-result", "").replace("plaintext-", ""))
    assert binlog.exists()
    expected = _listing(companion.read_text(encoding="utf-8", errors="replace"))
    res = show(str(binlog))
    if "MariaDB" in companion.read_text(errors="replace")[:3000] or res.exit_code == 2:
        assert "MariaDB" in res.output  # the only kind of companion we refuse
        return
    assert res.exit_code == 0, res.output
    ours = _listing(res.output)
    assert expected["heads"], companion
    # test-mysql-bin-result stops at 26399 while the stored binlog goes on to 34094 (mysqlbinlog was run on the
    # file while it was shorter): the real output must be a prefix of ours, event for event.
    for key, values in expected.items():
        assert ours[key][: len(values)] == values, key
    if ours["heads"][-1][2] != expected["heads"][-1][2]:
        assert companion.name == "test-mysql-bin-result"


def test_real_subprocess() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gtidkit", "binlog", "show", "--json", str(TRUNCATED), str(TAGGED)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    objs = json_lines(proc.stdout)
    assert objs[1]["error"] and objs[1]["pos"] == 120
    assert any(o.get("type") == "GTID_TAGGED_LOG_EVENT" for o in objs)
