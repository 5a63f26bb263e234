"""Issue 21 step 6: SET GLOBAL, accounts and gtid_purged published across the processes of one server
(engine/shared_config.py), at the engine level: a ``shared=True`` primary here and a worker-role engine in another
process (tests/engine/multi/engine_worker.py).

What MySQL promises: one set of global variables, one account cache, one gtid_purged for every connection; a SET
GLOBAL does not survive a restart.
"""

from __future__ import annotations

import sqlite3
import threading

import pytest

from gtidkit.engine.server import Server
from gtidkit.engine.shared_config import FILE
from gtidkit.errors import MySQLError
from tests.engine.multi.test_worker_open import OPTS, Worker


@pytest.fixture
def primary(tmp_path):
    server = Server.open(tmp_path, shared=True, **OPTS)
    yield server
    if not server.closed:
        server.shutdown()


def test_a_worker_that_starts_later_loads_what_was_set_before(primary) -> None:
    """A worker opened (or replacing a dead one) after SET GLOBAL, CREATE USER and SET GLOBAL gtid_purged starts
    with them."""
    s = primary.session()
    s.execute("SET GLOBAL max_execution_time = 77")
    s.execute("SET GLOBAL super_read_only = ON")
    s.execute("SET GLOBAL read_only = OFF")  # turns super_read_only OFF too: both published
    s.execute("CREATE USER late@'%' IDENTIFIED BY 'x'")
    s.execute("SET GLOBAL gtid_purged = '+bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1-4'")
    worker = Worker(primary.datadir)
    try:
        assert worker.sql(
            "SELECT @@GLOBAL.max_execution_time, @@GLOBAL.read_only, @@GLOBAL.super_read_only"
        ) == [[77, 0, 0]]
        assert worker.sql("SELECT @@GLOBAL.gtid_purged") == [["bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1-4"]]
        assert worker.sql("SHOW GRANTS FOR late@'%'") == [["GRANT USAGE ON *.* TO `late`@`%`"]]
    finally:
        worker.quit()
    s.close()


def test_set_global_does_not_survive_a_restart(tmp_path) -> None:
    """The server's first process empties the published values at start-up (MySQL: a SET GLOBAL lasts until the
    server stops); the file exists only with a shared page."""
    one = Server.open(tmp_path / "plain", **OPTS)
    one.session().execute("SET GLOBAL max_execution_time = 5")
    one.shutdown()
    assert not (tmp_path / "plain" / FILE).exists()
    server = Server.open(tmp_path / "d", shared=True, **OPTS)
    server.session().execute("SET GLOBAL max_execution_time = 5")
    server.shutdown()
    server = Server.open(tmp_path / "d", shared=True, **OPTS)
    try:
        assert server.globals.values["max_execution_time"] == 0
        worker = Worker(tmp_path / "d")
        try:
            assert worker.sql("SELECT @@GLOBAL.max_execution_time") == [[0]]
        finally:
            worker.quit()
    finally:
        server.shutdown()


@pytest.mark.parametrize("rounds", [40], ids=["40-rounds"])
def test_concurrent_sets_of_one_variable_end_equal_in_both_processes(primary, rounds: int) -> None:
    """Both processes SET GLOBAL the same variable at once, many times: afterwards both read the same value (the
    last publication wins everywhere), as one mysqld's last SET would."""
    worker = Worker(primary.datadir)
    s = primary.session()
    errors: list[BaseException] = []

    def here() -> None:
        try:
            for i in range(rounds):
                s.execute(f"SET GLOBAL max_execution_time = {1000 + i}")
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    t = threading.Thread(target=here)
    t.start()
    for i in range(rounds):
        worker.sql(f"SET GLOBAL max_execution_time = {2000 + i}")
    t.join(120)
    assert not errors
    try:
        theirs = worker.sql("SELECT @@GLOBAL.max_execution_time")[0][0]
        ours = s.execute("SELECT @@GLOBAL.max_execution_time")[-1].rows[0][0]
        assert ours == theirs
        assert theirs in (1000 + rounds - 1, 2000 + rounds - 1)
    finally:
        worker.quit()
        s.close()


def test_a_publication_that_cannot_be_written_is_a_mysql_error(primary) -> None:
    """A SET GLOBAL whose publication cannot be written (here: another writer holds the file past the busy
    timeout) fails with 1026 ER_ERROR_ON_WRITE naming the file, not a Python traceback."""
    blocker = sqlite3.connect(str(primary.datadir / FILE), isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    assert primary.shared_config is not None
    primary.shared_config._db.execute("PRAGMA busy_timeout = 50")
    s = primary.session()
    try:
        with pytest.raises(MySQLError) as err:
            s.execute("SET GLOBAL max_execution_time = 9")
        assert err.value.code == 1026
        assert err.value.message == (
            f"Error writing file '{primary.datadir / FILE}' (errno: 5 - database is locked)"
        )
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
        s.close()
