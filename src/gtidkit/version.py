"""The one place for the MySQL server version gtidkit presents as (STYLE.md section 5: one server-version constant).

``MYSQL_VERSION`` is the release whose behaviour and byte layouts gtidkit follows: ``VERSION()``, the Format_description
event of every binlog we write (its post-header table, :mod:`gtidkit.binlog.versions`), the generator's files and the
Gtid events' ``immediate_server_version`` (``80036``) derive from it. ``SERVER_VERSION`` is ``@@version``: the number
plus a suffix, the way MySQL appends ``-log`` or ``-debug``. Tables of *real* MySQL versions (what other servers
wrote) stay in :mod:`gtidkit.binlog.versions`.
"""

from __future__ import annotations

#: The MySQL release gtidkit follows (``VERSION()``, our binlogs' Format_description ``server_version``).
MYSQL_VERSION = "8.0.36"
#: ``@@version``: :data:`MYSQL_VERSION` with gtidkit's suffix.
SERVER_VERSION = f"{MYSQL_VERSION}-gtidkit"

#: ``--server-version`` short names -> the release a server then presents as (engine/server_version.py says what
#: each decides); 8.0 is the default, :data:`MYSQL_VERSION`.
RELEASES = {"5.7": "5.7.44", "8.0": MYSQL_VERSION, "8.4": "8.4.3"}

__all__ = ["MYSQL_VERSION", "RELEASES", "SERVER_VERSION"]
