"""Classification once, one table of statement specs: every kind has a handler; sqlglot's tree class decides the kind."""

from __future__ import annotations

import pytest

from gtidkit.engine.statements.classify import StatementKind, classify
from gtidkit.engine.statements.specs import SPECS


def test_every_kind_has_one_handler():
    assert all(SPECS.spec(kind).handler is not None for kind in StatementKind)


@pytest.mark.parametrize(
    "text,kind,command",
    [
        ("SELECT 1", "select", None),
        ("(SELECT 1) UNION (SELECT 2)", "select", None),
        ("INSERT INTO t VALUES (1)", "dml", None),
        ("CREATE TABLE t (a INT)", "ddl", None),
        ("FLUSH LOGS", "admin", "flush_logs"),  # sqlglot reads an alias here: the recogniser's job
        ("START REPLICA", "admin", "replica_thread"),  # sqlglot reads BEGIN here
        ("SHOW COUNT(*) WARNINGS", "show", "count_warnings"),
        ("SHOW WARNINGS LIMIT 1, 2", "show", "warnings"),
        ("COMMIT AND CHAIN", "commit", "commit"),
        ("GRANT SELECT ON *.* TO u", "account", None),
        ("CREATE USER 'u'@'%' IDENTIFIED BY 'p'", "account", None),
        ("SET PASSWORD FOR u = 'x'", "account", None),
        ("RENAME USER a TO b", "account", None),
        ("NONSENSE STATEMENT", "other", None),
    ],
)
def test_classify(text, kind, command):
    st = classify(text)
    assert (st.kind, st.command) == (kind, command)
    assert isinstance(st.kind, StatementKind)


def test_warnings_limit_is_parsed():
    assert classify("SHOW WARNINGS LIMIT 1, 2").info == {"command": "warnings", "off": 1, "cnt": 2}


def test_registered_handlers_answer_replication_statements(open_server, tmp_path):
    """A higher layer (replication) registers the statements it owns in its server's statement table; without a
    registered handler they give 1235 as before, and another server's table is not changed."""
    from gtidkit.engine.results import StatementResult
    from gtidkit.errors import MySQLError

    server = open_server()
    session = server.session()
    for text in ("START REPLICA", "SHOW REPLICA STATUS"):
        with pytest.raises(MySQLError) as err:
            session.execute(text)
        assert err.value.code == 1235
    seen = []

    def hook(sess, stmt):
        seen.append((sess.id, stmt.command))
        return StatementResult(affected_rows=7)

    server.statements.register("replica_thread", hook)
    server.provide_show("replica_status", hook)
    assert session.execute("START REPLICA")[0].affected_rows == 7
    assert session.execute("SHOW REPLICA STATUS")[0].affected_rows == 7
    assert seen == [(session.id, "replica_thread"), (session.id, "replica_status")]
    other = open_server(tmp_path / "other").session()
    with pytest.raises(MySQLError) as err:
        other.execute("START REPLICA")
    assert err.value.code == 1235
