"""gtidkit.gtid: MySQL GTIDs and GTID sets as pure values (imports nothing else of gtidkit but errors).

Public surface: :class:`Gtid`, :class:`GtidSet`, :class:`Interval`, ``MAX_GNO``. Text follows MySQL's
``Gtid_set::add_gtid_text`` / ``to_string`` (closed intervals, ``uuid:1-5:tag:7``); the binary SID-block
form (exclusive ends) lives in :mod:`gtidkit.gtid.encoding`.
"""

from gtidkit.gtid.gtid import Gtid
from gtidkit.gtid.gtid_set import GtidSet, parse_tsids
from gtidkit.gtid.interval import MAX_GNO, Interval
from gtidkit.gtid.sid import Sid, normalize_tag, parse_sid

__all__ = ["MAX_GNO", "Gtid", "GtidSet", "Interval", "Sid", "normalize_tag", "parse_sid", "parse_tsids"]
