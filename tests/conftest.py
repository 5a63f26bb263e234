"""Shared pytest fixtures: paths to ../shared (read in place, never copied) and one Spark session per run."""

from __future__ import annotations

import functools
import gc
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def _bytecode_cache_for_subprocesses() -> None:
    """Let the Python processes the tests start (servers, CLI runs, drivers) reuse compiled bytecode.

    With ``PYTHONDONTWRITEBYTECODE`` set (as on the CI machines), every ``python -m gtidkit`` the suite starts
    compiled all of gtidkit again (~0.3 s of CPU each, hundreds of times). The children get a bytecode cache
    outside the source tree instead (``PYTHONPYCACHEPREFIX`` in the temporary directory, one per user; Python
    checks each entry against its source's mtime and size), so the tree still gets no ``__pycache__``.
    """
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and "PYTHONPYCACHEPREFIX" not in os.environ:
        os.environ["PYTHONPYCACHEPREFIX"] = str(
            Path(tempfile.gettempdir()) / f"gtidkit-pycache-{os.getuid()}"
        )
        del os.environ["PYTHONDONTWRITEBYTECODE"]


_bytecode_cache_for_subprocesses()

#: where :func:`_temporary_files_in_memory` keeps the temporary directory it replaced, for the processes that
#: inherit its ``TMPDIR`` (xdist workers, test subprocesses, a second import of this module as ``tests.conftest``)
_DISK_TMP_ENV = "GTIDKIT_TEST_DISK_TMPDIR"
#: the temporary directory of the machine's disk, before :func:`_temporary_files_in_memory` points ``TMPDIR`` at
#: memory: what must outlive a run (the JVMs' class-data archive, :func:`class_archive`) stays there
DISK_TMP = Path(os.environ.get(_DISK_TMP_ENV) or tempfile.gettempdir())
#: ``GTIDKIT_TEST_TMPDIR=disk`` keeps the suite's temporary files on the disk (``TMPDIR`` set by the caller does too)
TMPDIR_ENV = "GTIDKIT_TEST_TMPDIR"
#: the free space a memory file system must have for the suite's temporary files (a run's peak is well under 1 GiB
#: with pytest's ``tmp_path_retention_policy = "failed"``: a passing test's directory goes at its teardown)
_MEMORY_TMP_FREE = 4 << 30
#: run directories of ended runs kept under the memory directory (the newest: a failed run's files, for a look)
_KEEP_ENDED_RUNS = 2


def _tmpfs_mounts() -> set[str]:
    """The mount points of tmpfs file systems that allow executing files (``/proc/self/mounts``; a test may run
    a script or interpreter it wrote into its ``tmp_path``); empty when unreadable."""
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return set()
    return {
        fields[1]
        for fields in (line.split() for line in lines)
        if len(fields) > 3 and fields[2] == "tmpfs" and "noexec" not in fields[3].split(",")
    }


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _temporary_files_in_memory() -> Path | None:
    """Point ``TMPDIR`` (and so pytest's ``tmp_path``, every ``tempfile`` of the tests and of the servers, CLIs and
    drivers they start) at a per-run directory on ``/dev/shm`` when it is a tmpfs with room; returns that directory,
    or None when the files stay where they were (``TMPDIR`` set by the caller, ``GTIDKIT_TEST_TMPDIR=disk``, no
    tmpfs with :data:`_MEMORY_TMP_FREE` free).

    MySQL's own test runner does the same (``mysql-test-run.pl --mem``). The engine fsyncs the WAL at each COMMIT
    and the binary log at each group (``sync_binlog=1``): on this machine's disk an fsync took ~4 ms, and one behind
    another process's writeback (Spark's Parquet, the generated fleets) seconds; on tmpfs the same calls return at
    once. The code under test is unchanged (every fsync is still made); no test can lose power, and a SIGKILLed
    process's writes survive in the page cache whatever the file system, so crash tests keep what they check.
    Run directories of ended runs are removed at the next start but the newest :data:`_KEEP_ENDED_RUNS`; a run that
    passes removes its own (:func:`pytest_unconfigure`)."""
    if "TMPDIR" in os.environ or os.environ.get(TMPDIR_ENV, "") == "disk":
        return None
    shm = "/dev/shm"
    if shm not in _tmpfs_mounts():
        return None
    try:
        stat = os.statvfs(shm)
    except OSError:
        return None
    if stat.f_bavail * stat.f_frsize < _MEMORY_TMP_FREE:
        return None
    root = Path(shm) / f"gtidkit-tests-{os.getuid()}"
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        ended = [d for d in root.iterdir() if d.name.isdigit() and not _pid_alive(int(d.name))]
        ended.sort(key=lambda d: d.stat().st_mtime, reverse=True)
        for old in ended[_KEEP_ENDED_RUNS:]:
            shutil.rmtree(old, ignore_errors=True)
        run = root / str(os.getpid())
        run.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return None
    os.environ[_DISK_TMP_ENV] = str(DISK_TMP)
    os.environ["TMPDIR"] = str(run)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    return run


#: this process's run directory in memory when it made one (the controller of an xdist run, or a serial run)
_MEMORY_RUN = _temporary_files_in_memory()

#: options of every JVM the tests start (C1 compiler only, serial GC): ``tests/conftest.py::_short_lived_jvms``
SHORT_LIVED_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
#: the JVM's class-data-sharing messages are off: a JVM that cannot use the archive runs without it silently, and the
#: JVM prints its warnings on stdout, which the CLI's ``--json`` keeps for JSON
_QUIET_CDS = "-Xlog:cds=off -Xlog:cds+dynamic=off"


def class_archive() -> Path | None:
    """Where the suite's Spark JVMs keep their class-data archive (the JDK's dynamic CDS archive: Spark's classes
    loaded, verified and laid out once, mapped by every later JVM), one per Java binary and PySpark install, in the
    temporary directory (one per user, as the subprocesses' bytecode cache): None when Java or PySpark is missing.

    Measured on a local[2] session (CPU seconds of the driver JVM, under load): start 11.1 -> 6.6, the first run of
    the job on the generated fleet 25.6 -> 22.5. The archive (120-190 MB: the classes that session loaded) is written
    once, when the first ``spark`` session of a run on this machine ends (:func:`spark`); every later JVM of the
    suite maps it. What Spark
    computes is unchanged.
    """
    import hashlib
    import importlib.util

    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    spec = importlib.util.find_spec("pyspark")
    if not java or spec is None or spec.origin is None:
        return None
    try:
        real = Path(java).resolve()
        jars = Path(spec.origin).parent / "jars"
        stamp = f"{real}:{real.stat().st_size}:{real.stat().st_mtime_ns}:{jars}:{jars.stat().st_mtime_ns}"
    except OSError:
        return None
    key = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    return DISK_TMP / f"gtidkit-jvm-cds-{os.getuid()}" / f"spark-{key}.jsa"


def _short_lived_jvms() -> None:
    """Start the suite's JVMs as short-lived JVMs: the JIT's C1 compiler only and the serial garbage collector, and
    the class-data archive of :func:`class_archive` when there is one.

    Every JVM the suite starts lives seconds to a few minutes on a few MB of binlogs (the ``spark`` session, each
    ``gtidkit pipeline run --engine spark``, the standalone cluster's master, worker and driver), so C2's
    compilations and the parallel collector's threads cost CPU they never pay back: measured on the session and
    four runs of the job on the generated fleet, the driver process tree used 16.6 instead of 24.5 CPU seconds to
    start and 14-17 instead of 24-31 per warm run (40 instead of 71 for the first, cold one). Spark's own
    environment variables carry them, so subprocesses inherit them: ``SPARK_SUBMIT_OPTS`` (every driver started
    through ``spark-submit``, as pyspark starts its JVM) and ``SPARK_DAEMON_JAVA_OPTS`` (a standalone master and
    worker); executors get them through ``spark.executor.extraJavaOptions`` (bench/standalone_cluster.py). What
    Spark computes is unchanged; a value set by the caller is kept."""
    archive = class_archive()
    options = SHORT_LIVED_JVM_OPTIONS
    if archive is not None and archive.is_file():
        options += f" -XX:SharedArchiveFile={archive} {_QUIET_CDS}"
    for name in ("SPARK_SUBMIT_OPTS", "SPARK_DAEMON_JAVA_OPTS"):
        os.environ.setdefault(name, options)


_short_lived_jvms()


def _map_a_class_archive_written_since() -> None:
    """When the run started without a class-data archive (its JVM options are exactly the suite's own, without
    ``-XX:SharedArchiveFile``) and the Spark session has written one since (:func:`end_spark`, in this worker or
    the other), give it to the JVMs started from now on: the option variables that :func:`_short_lived_jvms` set
    gain it. Without this a fresh machine's run would write the archive and never use it."""
    if os.environ.get("SPARK_SUBMIT_OPTS") != SHORT_LIVED_JVM_OPTIONS:
        return
    archive = class_archive()
    if archive is None or not archive.is_file():
        return
    options = f"{SHORT_LIVED_JVM_OPTIONS} -XX:SharedArchiveFile={archive} {_QUIET_CDS}"
    for name in ("SPARK_SUBMIT_OPTS", "SPARK_DAEMON_JAVA_OPTS"):
        if os.environ.get(name) == SHORT_LIVED_JVM_OPTIONS:
            os.environ[name] = options


ROOT = Path(__file__).resolve().parents[1]
SHARED = (ROOT / ".." / "shared").resolve()
RESEARCH = SHARED / "research"
FIXTURES = RESEARCH / "fixtures"
BINLOG_FIXTURES = FIXTURES / "binlogs"
GTID_VECTORS = FIXTURES / "gtid_vectors.jsonl"
MYSQL_TEST = FIXTURES / "mysql-test"


def need_shared(path: Path) -> Path:
    """Return ``path`` or fail loudly: the shared fixtures are part of the test contract."""
    if not path.exists():
        pytest.fail(f"shared fixture missing: {path} (CI clones shared/ beside the repo)")
    return path


@pytest.fixture(scope="session")
def binlog_fixtures() -> Path:
    """Directory of the real MySQL binlogs (../shared/research/fixtures/binlogs)."""
    return need_shared(BINLOG_FIXTURES)


@pytest.fixture(scope="session")
def gtid_vectors_path() -> Path:
    """Path of ../shared/research/fixtures/gtid_vectors.jsonl."""
    return need_shared(GTID_VECTORS)


#: test directories whose modules that use the Spark session all run on one pytest-xdist worker: they share one
#: Spark session (the ``spark`` fixture) and the session fixtures built on it (tests/pipeline/conftest.py)
_ONE_WORKER_DIRS = {"tests/pipeline/": "spark"}
#: a module uses the Spark session when a test or fixture of it takes ``spark`` or a session fixture built on it
#: (tests/pipeline/conftest.py); a module that only names Spark (its CLI tests start their own JVM in a
#: subprocess, a standalone cluster) shares nothing with the session and may run on the other worker
_SPARK = re.compile(r"\bdef \w+\([^)]*\b(?:spark|fleet_result|fixtures_result)\b")


#: what in a test module's text makes its tests one unit of work: a fixture shared by several of its tests
_SHARED_FIXTURE = re.compile(r"""scope\s*=\s*["'](?:module|class|package|session)["']""")

#: a module whose checks walk src/'s syntax trees through tests/source_tree.py (parsed once per process): all such
#: modules are one unit of work, ``source``, so one worker parses src/ once for all of them
_SOURCE_CHECKS = re.compile(r"^from tests\.source_tree import", re.MULTILINE)
_SOURCE_UNIT = "source"


@functools.cache
def _module_text(path: str) -> str | None:
    """The text of the test module at ``path`` (relative to the repository root), None when unreadable."""
    try:
        return (ROOT / path).read_text(encoding="utf-8")
    except OSError:
        return None


@functools.cache
def _reads_source(path: str) -> bool:
    """Whether the test module at ``path`` reads src/ through tests/source_tree.py (:data:`_SOURCE_CHECKS`)."""
    text = _module_text(path)
    return text is not None and _SOURCE_CHECKS.search(text) is not None


def xdist_scope(nodeid: str) -> str:
    """The unit of work pytest-xdist hands to one worker under ``make test`` (``-n 2 --dist loadgroup``), from a test's
    node id: an explicit ``@pytest.mark.xdist_group`` name when pytest-xdist put one in the id; one unit for every
    test of a module that uses the Spark session (:data:`_SPARK`) under a directory of :data:`_ONE_WORKER_DIRS`
    (so a run starts one local Spark); one unit, ``source``, for the modules that read src/'s syntax trees through
    tests/source_tree.py (one parse per worker instead of one per check); the module when it has a
    fixture broader than a test (so its server or cluster is set up once, on one worker, and its tests keep their
    order); else the test alone (any free worker takes it)."""
    path, _, rest = nodeid.partition("::")
    if rest.rfind("@") > rest.rfind("]"):
        return rest.rsplit("@", 1)[1]
    text = _module_text(path)
    for prefix, group in _ONE_WORKER_DIRS.items():
        if path.startswith(prefix) and (text is None or _SPARK.search(text)):
            return group
    if _reads_source(path):
        return _SOURCE_UNIT
    return path if text is None or _SHARED_FIXTURE.search(text) else nodeid


#: a module that starts its own JVMs (CLI runs with ``--engine spark``, a standalone cluster) marks those tests
#: ``spark`` (they need Java) without taking the Spark session: its unit is one of the longest after the Spark unit
_OWN_JVM = re.compile(r"\bpytest\.mark\.spark\b")

#: the order in which units are handed out, by the directory of their tests: the Spark unit (the longest) first,
#: then the tests that start server processes (replication, CLI, wire), then the units that start their own JVMs
#: (the CLI's ``--engine spark`` runs, the standalone cluster: by then the Spark unit is over, and its session's
#: JVM has written the class-data archive those JVMs map, :func:`class_archive`, on a machine that had none), the
#: static checks that share one parse of src/ (``source``, :data:`_SOURCE_CHECKS`), the pipeline's, then every other directory (binlog, gtid, the top-level checks such as test_collection's two
#: collections); the in-process engine tests, thousands of small units, come last to fill the gaps, so that both
#: workers finish together
_RANK = (
    "spark",
    "tests/replication/",
    "tests/cli/",
    "tests/protocol/",
    "jvm",
    _SOURCE_UNIT,
    "tests/pipeline/",
    "",
    "tests/engine/",
)


def _unit_rank(scope: str, tests: dict[str, bool]) -> tuple[int, int]:
    """Sort key of a unit of work (longest expected first): its place in :data:`_RANK` (``jvm`` for a unit of a
    module that starts its own JVMs, :data:`_OWN_JVM`; else its directory's place, a directory not named there
    taking the place of ``""``), then the number of its tests (more first); the sort is stable, so collection
    order decides the rest."""
    first = next(iter(tests), "")
    text = _module_text(first.partition("::")[0])
    if scope != "spark" and text is not None and _OWN_JVM.search(text):
        return _RANK.index("jvm"), -len(tests)
    for rank, prefix in enumerate(_RANK):
        if prefix and (scope == prefix or first.startswith(prefix)):
            return rank, -len(tests)
    return _RANK.index(""), -len(tests)


# a hook of pytest-xdist (optional: without pytest-xdist the suite runs in one process)
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``--dist loadgroup`` schedules by :func:`xdist_scope` (pytest-xdist's own loadgroup groups only tests marked
    ``xdist_group``, and with pytest 9 not even those: it renames items through an attribute pytest no longer
    reads), handing out the units in :func:`_unit_rank` order."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ScopeScheduling(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            if not self.ordered:  # the first assignment: the queue is complete, put the long units first
                units = sorted(self.workqueue.items(), key=lambda unit: _unit_rank(*unit))
                self.workqueue.clear()
                self.workqueue.update(units)
                self.ordered = True
            super()._assign_work_unit(node)

    return ScopeScheduling(config, log)


def _remove_orphan_dumps(directory: Path) -> None:
    """Remove the archives half-made by runs that ended before renaming theirs (an interrupted run's JVM still
    writes its archive when its stdin closes): ``<archive>.<pid>.tmp`` whose pytest process is gone."""
    for path in directory.glob("*.jsa.*.tmp"):
        pid = path.suffixes[-2].lstrip(".")
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            path.unlink(missing_ok=True)


#: how to end this process's Spark session, once: set by the ``spark`` fixture, run by :func:`end_spark`
_SPARK_END: list[Callable[[], None]] = []


def end_spark() -> None:
    """End the ``spark`` fixture's session now if it runs: its context stops and its JVM exits (writing the
    class-data archive when the fixture asked it to). A no-op when there is none or it already ended."""
    while _SPARK_END:
        _SPARK_END.pop()()


def _end_jvm(dump: Path | None, archive: Path | None) -> None:
    """End the JVM of this process's pyspark gateway (its stdin closed, as pyspark's own exit does) and await it;
    rename its class-data archive ``dump`` into ``archive`` when it wrote one."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)
    if proc is not None and proc.stdin is not None:
        proc.stdin.close()
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if dump is None or archive is None:
        return
    if dump.is_file() and dump.stat().st_size > 0 and proc is not None and proc.returncode == 0:
        dump.replace(archive)
    else:
        dump.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for the whole run (local[2], UI off), ended after the last test that uses it
    (:func:`pytest_runtest_protocol`) or at the end of the run.

    When this machine has no class-data archive yet (:func:`class_archive`) and the JVMs' options are the suite's
    own, this session's JVM writes it when it exits (``-XX:ArchiveClassesAtExit``, to a temporary name renamed into
    place, so a concurrent run never maps half a file). The session's end closes the JVM's stdin (as pyspark's own
    exit does) and awaits it: ended after its last user, its exit (and the archive's dump, ~15 s on an idle
    machine) runs while the other xdist worker still has tests, instead of at the end of the run."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from gtidkit.pipeline.session import build_session

    archive = class_archive()
    dump = None
    saved = os.environ.get("SPARK_SUBMIT_OPTS")
    if archive is not None and not archive.is_file() and saved == SHORT_LIVED_JVM_OPTIONS:
        archive.parent.mkdir(parents=True, exist_ok=True)
        _remove_orphan_dumps(archive.parent)
        dump = archive.with_name(f"{archive.name}.{os.getpid()}.tmp")
        os.environ["SPARK_SUBMIT_OPTS"] = f"{saved} -XX:ArchiveClassesAtExit={dump} {_QUIET_CDS}"
    try:
        session = build_session(master="local[2]", app_name="gtidkit-tests")
    finally:
        if saved is not None:
            os.environ["SPARK_SUBMIT_OPTS"] = saved

    def end() -> None:
        session.stop()
        _end_jvm(dump, archive)

    _SPARK_END.append(end)
    yield session
    end_spark()


#: the node id of the last test of the run that uses the ``spark`` session, when ending the session after it is
#: safe (:func:`pytest_collection_finish`)
_LAST_SPARK_USER = pytest.StashKey[str]()


def _note_last_spark_user(session: pytest.Session) -> None:
    """Remember the last of the run's tests that take the ``spark`` fixture (directly or through another fixture),
    when the run gives its tests to a process in collection order, so that nothing after it uses the session: a
    serial run, ``--dist load``, or ``--dist loadgroup`` with every such test in the one ``spark`` unit
    (:func:`xdist_scope`; a unit's tests run in collection order on one worker)."""
    users = [item for item in session.items if "spark" in getattr(item, "fixturenames", ())]
    if not users:
        return
    dist = session.config.getoption("dist", "no")
    if dist in ("no", "load") or (
        dist == "loadgroup" and all(xdist_scope(i.nodeid) == "spark" for i in users)
    ):
        session.config.stash[_LAST_SPARK_USER] = users[-1].nodeid


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """Before a test that starts its own JVMs (marked ``spark``), let them map a class-data archive written since the
    run started (:func:`_map_a_class_archive_written_since`); after the last test that uses the ``spark`` session
    (:func:`_note_last_spark_user`), end it (:func:`end_spark`); after the last test of a run of modules that read
    src/'s syntax trees (:data:`_SOURCE_CHECKS`), drop the trees (``tests/source_tree.py``'s ``forget``): they
    would otherwise stay under the garbage collector, walked by every later full collection."""
    if item.get_closest_marker("spark") is not None:
        _map_a_class_archive_written_since()
    yield
    if item.nodeid == item.config.stash.get(_LAST_SPARK_USER, None):
        end_spark()
    path = item.nodeid.partition("::")[0]
    if _reads_source(path) and (nextitem is None or not _reads_source(nextitem.nodeid.partition("::")[0])):
        trees = sys.modules.get("tests.source_tree")
        if trees is not None:
            trees.forget()


def pytest_configure(config: pytest.Config) -> None:
    """A run started with SIGINT ignored (a background job of a non-interactive shell, or an xdist worker started by
    one) would hand that on to every command a test starts, which then could not be interrupted as a terminal's
    Ctrl-C does (tests/pipeline/test_cli_demo.py, tests/cli/test_cli_behaviour.py): handle it in this process, so
    the commands start with SIGINT's default action."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


#: ``tests/protocol/server_proc.py``'s SUPERVISED_ENV and WORKERS_ENV: every server the suite starts through its
#: helpers then runs ``--supervised`` (one worker) or ``--workers=N``.
_SUPERVISED_ENV = "GTIDKIT_TEST_SUPERVISED"
_WORKERS_ENV = "GTIDKIT_TEST_WORKERS"
#: server_mode's params: the environment each sets (``workers2``: a supervisor and two worker processes)
_SERVER_MODES = {
    "plain": {_SUPERVISED_ENV: "0", _WORKERS_ENV: "0"},
    "workers2": {_SUPERVISED_ENV: "1", _WORKERS_ENV: "2"},
}


@pytest.fixture(scope="module", params=list(_SERVER_MODES))
def server_mode(request: pytest.FixtureRequest) -> Any:
    """Run the servers a module starts both as one process and as a supervisor with two worker processes sharing
    the datadir (issue 21): the same results whichever worker a connection lands in. A module opts in with
    ``pytestmark = pytest.mark.usefixtures("server_mode")``, and its module-scoped server fixtures take
    ``server_mode`` as an argument so that they start once per mode. The mode wins over the environment's
    ``GTIDKIT_TEST_WORKERS`` for the module."""
    old = {name: os.environ.get(name) for name in _SERVER_MODES[request.param]}
    os.environ.update(_SERVER_MODES[request.param])
    try:
        yield request.param
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _multi_worker(item: pytest.Item) -> bool:
    """Whether ``item`` runs against servers with several worker processes: the ``workers2`` param of
    :func:`server_mode`, or (for a test without that fixture) ``GTIDKIT_TEST_WORKERS`` >= 2."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "server_mode" in callspec.params:
        return bool(callspec.params["server_mode"] == "workers2")
    raw = os.environ.get(_WORKERS_ENV, "").strip()
    return raw.isdigit() and int(raw) >= 2


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Against a multi-worker server, the tests ``tests/multi_worker_known.py`` lists (a cross-worker behaviour
    another part of issue 21 builds) are strict xfails naming what they need; everywhere else they run as
    written."""
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        import multi_worker_known as known
    finally:
        sys.path.pop(0)
    for item in items:
        key = known.needs(item.nodeid)
        if key is not None and _multi_worker(item):
            reason = f"needs {known.BEHAVIOURS[key]} (docs/design/multi_worker_suite.md)"
            run = known.base_id(item.nodeid) not in known.NOT_RUN
            item.add_marker(
                pytest.mark.xfail(
                    reason=reason if run else f"not run (would hang or stall): {reason}", strict=True, run=run
                )
            )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once the tests are collected (every pytest-xdist worker collects all ~7500), collect the garbage of the
    collection and freeze what is left (:func:`gc.freeze`): the modules, items and fixtures stay alive to the end
    of the run, and every later full collection (about one per ten tests of the engine) would walk them all again,
    as would the interpreter's exit. Objects made by the tests are collected as usual."""
    _note_last_spark_user(session)
    gc.collect()
    gc.freeze()


#: the run's exit status (:func:`pytest_sessionfinish`), read by :func:`pytest_unconfigure`
_EXIT_STATUS = pytest.StashKey[int]()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remember the run's exit status for :func:`pytest_unconfigure`."""
    session.config.stash[_EXIT_STATUS] = int(exitstatus)


def pytest_unconfigure(config: pytest.Config) -> None:
    """A run that passed removes the run directory it made in memory (:func:`_temporary_files_in_memory`); a run
    that failed leaves it for a look (the next runs remove it in time)."""
    if _MEMORY_RUN is not None and config.stash.get(_EXIT_STATUS, 1) == 0:
        shutil.rmtree(_MEMORY_RUN, ignore_errors=True)
