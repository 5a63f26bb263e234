"""What the wire server and replication may use of the engine's SQL layer and statement code: their one door.

The protocol and replication packages never import ``gtidkit.engine.sql`` or ``gtidkit.engine.statements``
(``tests/test_layers.py``: ``test_protocol_and_replication_use_the_engine_api``); the few helpers of those packages
that the layers above need are re-exported here, so the engine may move them without touching its callers. The rest
of their contract is the :class:`~gtidkit.engine.session.Session` / :class:`~gtidkit.engine.server.Server` API
(``protocol/engine_seam.py`` types it) and :mod:`gtidkit.engine.results`.

* :func:`split_statements`: a COM_QUERY's text cut into statements as the engine's parser cuts it (the wire server
  splits once and runs each with ``session.execute(text, split=False)``).
* :func:`bound_text`, :func:`literal`, :func:`placeholder_positions`: a prepared statement's text with its values
  written in as SQL literals (COM_STMT_EXECUTE of a statement the server answers itself, mysqld's
  ``Prepared_statement::insert_params`` for the query log), and where its ``?`` placeholders are.
* :data:`THREAD_ID_OFFSET`: performance_schema THREAD_ID = PROCESSLIST_ID + this offset for a connection's thread.
* :func:`table_names`: the ``(schema, table)`` pairs of a table list (ANALYZE / CHECK / OPTIMIZE / REPAIR TABLE),
  for their privilege check.
* :func:`parse_load_data`, :func:`local_infile_error`: a LOAD DATA statement's parsed clauses and the 3948 refusal
  of LOCAL, for its privilege check (INSERT / DELETE on the table, FILE for a server file).
* :func:`classify`, :class:`StatementKind`: a statement's kind and parsed arguments, for the replica's
  REQUIRE_ROW_FORMAT check of a relay-log Query event (replication/row_format.py).
* :func:`row_status`: this process's ``Innodb_rows_*`` status counters (a multi-worker server sums the workers').
* :func:`statement_status`, :data:`COM_NAMES`: this process's ``Com_xxx`` / ``Questions`` / ``Queries`` sums and the
  ``Com_`` counter names (a multi-worker server sums the workers').
* :func:`result_set`: a :class:`~gtidkit.engine.results.StatementResult` with a result set from column names and
  rows (SHOW REPLICA STATUS, SHOW REPLICAS and the replication statements' answers).
"""

from __future__ import annotations

from gtidkit.engine.sql.catalog import THREAD_ID_OFFSET
from gtidkit.engine.sql.metadata import result_set
from gtidkit.engine.sql.parse import split_statements
from gtidkit.engine.statements.classify import StatementKind, classify
from gtidkit.engine.statements.com_counters import COM_NAMES, statement_status
from gtidkit.engine.statements.innodb_status import row_status
from gtidkit.engine.statements.load_data import local_infile_error, parse_load_data
from gtidkit.engine.statements.maintenance import table_names
from gtidkit.engine.statements.prepared import bound_text, literal, placeholder_positions

__all__ = [
    "COM_NAMES",
    "THREAD_ID_OFFSET",
    "StatementKind",
    "bound_text",
    "classify",
    "literal",
    "local_infile_error",
    "parse_load_data",
    "placeholder_positions",
    "result_set",
    "row_status",
    "split_statements",
    "statement_status",
    "table_names",
]
