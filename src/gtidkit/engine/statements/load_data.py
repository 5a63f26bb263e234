"""LOAD DATA LOCAL INFILE and the ``local_infile`` switch.

MySQL refuses LOAD DATA LOCAL before it asks the client for the file when the server's ``local_infile`` is OFF
(8.0's default) or the client did not offer CLIENT_LOCAL_FILES: ER_CLIENT_LOCAL_FILES_DISABLED 3948
(``sql/sql_load.cc``, RM8 "Security Considerations for LOAD DATA LOCAL"). Drivers' test suites check exactly that
refusal. With ``local_infile`` ON the statement itself (the file request of the client/server protocol, then the
rows) is not implemented: 1235 as for any statement family gtidkit does not run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gtidkit.engine.statements.classify import is_load_data_local
from gtidkit.errors import MySQLError
from gtidkit.mysql_errors import mysql_error

if TYPE_CHECKING:
    from gtidkit.engine.session import Session

__all__ = ["local_infile_error"]


def local_infile_error(session: Session, text: str) -> MySQLError | None:
    """3948 for a LOAD DATA / XML LOCAL statement while the global ``local_infile`` is OFF, else None."""
    if not is_load_data_local(text) or session.server.globals.values["local_infile"]:
        return None
    return mysql_error(3948)
