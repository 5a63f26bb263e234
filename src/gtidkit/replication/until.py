"""START REPLICA ... UNTIL: where the applier (SQL thread) stops by itself.

``UNTIL SQL_BEFORE_GTIDS = set | SQL_AFTER_GTIDS = set | SOURCE_LOG_FILE = 'f', SOURCE_LOG_POS = n (MASTER_* too) |
RELAY_LOG_FILE = 'f', RELAY_LOG_POS = n | SQL_AFTER_MTS_GAPS``. MySQL sources: ``sql/sql_yacc.yy`` (the
``UNTIL_SYM replica_until`` rule: 1277 ER_BAD_REPLICA_UNTIL_COND unless exactly one of source coordinates (file and
position), relay coordinates, a GTID set or SQL_AFTER_MTS_GAPS is given), ``Relay_log_info::init_until_option``
(``sql/rpl_rli.cc``: a GTID set that does not parse is 1277 too; note 1278 ER_MISSING_SKIP_REPLICA for coordinates
without ``--skip-replica-start``), ``start_slave`` (note 1279 ER_UNTIL_COND_IGNORED when the SQL thread is not
started) and ``sql/rpl_replica_until_options.cc``, whose checks this module mirrors:

==================  ======================================  =================================================
condition           at start (already reached: stop)         while applying
==================  ======================================  =================================================
SQL_BEFORE_GTIDS    the set intersects gtid_executed         before a transaction whose GTID is in the set
SQL_AFTER_GTIDS     the set is a subset of gtid_executed      after a commit that makes it a subset
SOURCE position     executed source position >= the one      after each transaction (and event outside one)
                    given
RELAY position      applied relay position >= the one given  likewise, with the relay coordinates
SQL_AFTER_MTS_GAPS  never                                    before the first transaction: this applier
                                                             leaves no gaps (one worker, commit order)
==================  ======================================  =================================================

SHOW REPLICA STATUS shows the condition as Until_Condition (``None``, ``Source`` — ``Master`` under SHOW SLAVE
STATUS —, ``Relay``, ``SQL_BEFORE_GTIDS``, ``SQL_AFTER_GTIDS``, ``SQL_AFTER_MTS_GAPS``) with Until_Log_File /
Until_Log_Pos for coordinates; it stays after the thread stopped, until the next START REPLICA.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gtidkit.errors import MySQLError
from gtidkit.gtid import GtidSet
from gtidkit.mysql_errors import mysql_error

__all__ = ["Until", "parse_until", "position_reached"]

_ITEM = re.compile(
    r"\s*(?P<name>[A-Za-z_]+)\s*(?:=\s*(?:'(?P<sq>(?:[^'\\]|\\.|'')*)'|\"(?P<dq>(?:[^\"\\]|\\.|\"\")*)\"|"
    r"(?P<num>\d+)))?\s*",
)
#: Words that end the UNTIL list (the connection options and the channel clause follow it).
_AFTER_UNTIL = {"USER", "PASSWORD", "DEFAULT_AUTH", "PLUGIN_DIR", "FOR"}
_SOURCE_FILE = {"SOURCE_LOG_FILE", "MASTER_LOG_FILE"}
_SOURCE_POS = {"SOURCE_LOG_POS", "MASTER_LOG_POS"}


@dataclass(frozen=True, slots=True)
class Until:
    """One UNTIL condition.

    Attributes:
        kind: ``SOURCE``, ``RELAY``, ``SQL_BEFORE_GTIDS``, ``SQL_AFTER_GTIDS`` or ``SQL_AFTER_MTS_GAPS``.
        gtids: the GTID set (GTID kinds), else empty.
        file, pos: the coordinates (SOURCE / RELAY kinds), else ``""`` / 0.
    """

    kind: str
    gtids: GtidSet
    file: str = ""
    pos: int = 0

    def condition(self, slave: bool = False) -> str:
        """Until_Condition as SHOW REPLICA STATUS (``slave``: SHOW SLAVE STATUS) shows it."""
        if self.kind == "SOURCE":
            return "Master" if slave else "Source"
        if self.kind == "RELAY":
            return "Relay"
        return self.kind

    @property
    def by_position(self) -> bool:
        """True for SOURCE / RELAY coordinates."""
        return self.kind in ("SOURCE", "RELAY")

    def reached_at_start(self, executed: GtidSet, source: tuple[str, int], relay: tuple[str, int]) -> bool:
        """``check_at_start_slave``: the condition already holds when the thread starts.

        Args:
            executed: gtid_executed.
            source, relay: the applier's executed (source file, position) and (relay file, position).
        """
        if self.kind == "SQL_BEFORE_GTIDS":
            return not self.gtids.isdisjoint(executed)
        if self.kind == "SQL_AFTER_GTIDS":
            return self.gtids <= executed
        return self.reached_after(executed, source, relay)

    def stops_before(self, gtid: Any) -> bool:
        """``check_before_dispatching_event``: stop before the transaction with ``gtid`` (None = anonymous)."""
        if self.kind == "SQL_AFTER_MTS_GAPS":
            return True
        return self.kind == "SQL_BEFORE_GTIDS" and gtid is not None and gtid in self.gtids

    def reached_after(self, executed: GtidSet, source: tuple[str, int], relay: tuple[str, int]) -> bool:
        """``check_after_dispatching_event``: stop after what was just applied."""
        if self.kind == "SQL_AFTER_GTIDS":
            return self.gtids <= executed
        if self.kind == "SOURCE":
            return position_reached(source, (self.file, self.pos))
        if self.kind == "RELAY":
            return position_reached(relay, (self.file, self.pos))
        return False


def position_reached(current: tuple[str, int], target: tuple[str, int]) -> bool:
    """``Until_position::check_position``: ``current`` is at or past ``target`` (files compare by their numeric
    extension when both have one, else by name; then the offsets). An empty current file has reached nothing."""
    if not current[0]:
        return False
    a, b = _file_key(current[0]), _file_key(target[0])
    if a != b:
        return a > b
    return current[1] >= target[1]


def _file_key(name: str) -> tuple[int, str]:
    base, _, ext = name.rpartition(".")
    return (int(ext), "") if base and ext.isdigit() else (-1, name)


def parse_until(text: str) -> Until | None:
    """The UNTIL clause of a START REPLICA statement, or None when it has none.

    Raises:
        MySQLError: 1277 ER_BAD_REPLICA_UNTIL_COND for a wrong combination (coordinates with a GTID set, source
            with relay coordinates, a file without its position, SQL_AFTER_MTS_GAPS with anything) or a GTID set
            that does not parse; 1064 for an option START REPLICA UNTIL does not know.
    """
    m = re.search(r"\bUNTIL\b", text, re.IGNORECASE)
    if m is None:
        return None
    items: dict[str, str | int | None] = {}
    rest = text[m.end() :]
    at = 0
    while at < len(rest):
        im = _ITEM.match(rest, at)
        if im is None or not im.group("name"):
            break
        name = im.group("name").upper()
        if name in _AFTER_UNTIL:
            break
        value: str | int | None
        if im.group("num") is not None:
            value = int(im.group("num"))
        elif im.group("sq") is not None or im.group("dq") is not None:
            value = im.group("sq") if im.group("sq") is not None else im.group("dq")
        else:
            value = None
        if name not in (
            *_SOURCE_FILE,
            *_SOURCE_POS,
            "RELAY_LOG_FILE",
            "RELAY_LOG_POS",
            "SQL_BEFORE_GTIDS",
            "SQL_AFTER_GTIDS",
            "SQL_AFTER_MTS_GAPS",
        ):
            raise mysql_error(1064, "You have an error in your SQL syntax", rest[im.start() :].strip(), 1)
        items[
            "SOURCE_LOG_FILE" if name in _SOURCE_FILE else "SOURCE_LOG_POS" if name in _SOURCE_POS else name
        ] = value
        at = im.end()
        if at < len(rest) and rest[at] == ",":
            at += 1
            continue
        break
    src_file, src_pos = items.get("SOURCE_LOG_FILE"), items.get("SOURCE_LOG_POS")
    rel_file, rel_pos = items.get("RELAY_LOG_FILE"), items.get("RELAY_LOG_POS")
    gtid_kinds = [k for k in ("SQL_BEFORE_GTIDS", "SQL_AFTER_GTIDS") if k in items]
    gaps = "SQL_AFTER_MTS_GAPS" in items
    source = "SOURCE_LOG_FILE" in items or "SOURCE_LOG_POS" in items
    relay = "RELAY_LOG_FILE" in items or "RELAY_LOG_POS" in items
    whole = (src_file is not None and src_pos) or (rel_file is not None and rel_pos) or gtid_kinds or gaps
    if (
        ((source or relay) and gtid_kinds)
        or (source and relay)
        or not whole
        or (gaps and (source or relay or gtid_kinds))
        or len(gtid_kinds) > 1
    ):
        raise mysql_error(1277)
    if gtid_kinds:
        try:
            gtids = GtidSet.parse(str(items[gtid_kinds[0]] or ""))
        except (ValueError, MySQLError) as err:
            raise mysql_error(1277) from err
        return Until(gtid_kinds[0], gtids)
    if gaps:
        return Until("SQL_AFTER_MTS_GAPS", GtidSet())
    if source:
        return Until("SOURCE", GtidSet(), str(src_file), int(src_pos or 0))
    return Until("RELAY", GtidSet(), str(rel_file), int(rel_pos or 0))
