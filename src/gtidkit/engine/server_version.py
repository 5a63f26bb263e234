"""The MySQL release a server presents as, chosen at start-up (``--server-version 5.7 | 8.0 | 8.4``), and the
behaviours that differ between them, as one table keyed by version (STYLE.md: differences are data).

=================================  ======  ======  ======  =================================================
behaviour                          5.7     8.0     8.4     source
=================================  ======  ======  ======  =================================================
each commit writes its GTID to     no      yes     yes     8.0.17 (WL#9211 GTID persister; mysql-test
mysql.gtid_executed (binlog on)                            binlog_gtid_compress_at_server_start: rows
                                                           (1,1),(2,2),(3,3)); 5.7 saves the GTIDs of a binlog
                                                           only when it is rotated or the server stops (WL#6559)
the table is compressed at start   no      yes     yes     8.0.17+ (Bug#30541799: after a restart the three rows
                                                           are one row (1,3))
Gtid event: commit timestamps,     no      yes     yes     8.0.1 (WL#7319) / 8.0.2 (WL#9556) / 8.0.14
transaction length, versions                               (WL#11879 server versions); 5.7 writes the 42-byte
                                                           body only
SHOW MASTER STATUS                 yes     yes     no      removed in 8.4.0 (a syntax error there)
SHOW BINARY LOG STATUS             no      no      yes     added in 8.2.0 (a syntax error before)
gtid_executed_compression_period   1000    0       0       default changed in 8.0.23
tagged GTIDs (uuid:tag:n,          no      no      yes     8.3.0 (WL#15294); before, SET gtid_next gives 1774
AUTOMATIC:tag)                                             and SET gtid_purged 1231, as any malformed text
mysql.gtid_executed has gtid_tag   no      no      yes     8.3.0 (WL#15294); a new datadir's release decides
(PK source_uuid, gtid_tag, start)                          the layout; an older datadir opened as 8.4 is
                                                           upgraded (rows kept, tag ''), a newer one keeps it
=================================  ======  ======  ======  =================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from gtidkit.binlog.versions import parse_server_version
from gtidkit.version import MYSQL_VERSION, RELEASES

__all__ = ["RELEASES", "Release", "resolve"]


@dataclass(frozen=True, slots=True)
class Release:
    """One presented release and what it decides (see the module table).

    Args:
        version: the release, ``"8.0.36"`` (``VERSION()``, the FDE's server version, ``immediate_server_version``).
    """

    version: str

    @property
    def number(self) -> tuple[int, int, int]:
        """``(major, minor, patch)``."""
        return parse_server_version(self.version)

    @property
    def gtid_table_on_commit(self) -> bool:
        """Every committed GTID goes to mysql.gtid_executed also when the binary log is on (8.0.17+)."""
        return self.number >= (8, 0, 17)

    @property
    def compress_at_start(self) -> bool:
        """The compression thread compresses mysql.gtid_executed when the server starts (8.0.17+)."""
        return self.number >= (8, 0, 17)

    @property
    def gtid_event_timestamps(self) -> bool:
        """Gtid events carry commit timestamps, the transaction length and server versions (8.0.1+)."""
        return self.number >= (8, 0, 1)

    @property
    def show_master_status(self) -> bool:
        """``SHOW MASTER STATUS`` exists (removed in 8.4.0)."""
        return self.number < (8, 4, 0)

    @property
    def show_binary_log_status(self) -> bool:
        """``SHOW BINARY LOG STATUS`` exists (8.2.0+)."""
        return self.number >= (8, 2, 0)

    @property
    def tagged_gtids(self) -> bool:
        """GTIDs may carry a tag (``uuid:tag:n``, ``AUTOMATIC:tag``): 8.3.0+ (WL#15294)."""
        return self.number >= (8, 3, 0)

    @property
    def gtid_tag_column(self) -> bool:
        """A new datadir's mysql.gtid_executed has the ``gtid_tag`` column (8.3.0+, WL#15294)."""
        return self.number >= (8, 3, 0)

    @property
    def default_compression_period(self) -> int:
        """``gtid_executed_compression_period``'s default: 1000 before 8.0.23, 0 since."""
        return 1000 if self.number < (8, 0, 23) else 0


def resolve(text: str | None) -> Release:
    """The release of a ``--server-version`` value: ``5.7``, ``8.0`` or ``8.4``, or a full ``X.Y.Z`` of those
    series; None gives gtidkit's default (:data:`MYSQL_VERSION`).

    Raises:
        ValueError: a version gtidkit does not present (another series, or not a version).
    """
    if text is None or str(text).strip() == "":
        return Release(MYSQL_VERSION)
    value = str(text).strip()
    if value in RELEASES:
        return Release(RELEASES[value])
    try:
        major, minor, _patch = parse_server_version(value)
    except ValueError:
        major, minor = -1, -1
    if f"{major}.{minor}" not in RELEASES or value.count(".") != 2:
        raise ValueError(
            f"--server-version {value!r}: expected one of {', '.join(RELEASES)} (or X.Y.Z of those)"
        )
    return Release(value)
