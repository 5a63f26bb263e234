"""``pytest`` and ``python -m pytest`` collect the same tests from ``tests/``, with no collection error.

The two ways of starting pytest differ in one thing: ``python -m pytest`` puts the current directory on
``sys.path``, the ``pytest`` script does not. A test module that imports a helper by a name only the current
directory makes importable (``tests.protocol.server_proc`` without pyproject's ``pythonpath``, a conftest fallback)
fails to import under the script and its tests silently vanish from that run. The script's collection runs here
from the repository root in a fresh process; the other side is this run's own collection when this run collected
the whole suite (``make test``: a ``python -m pytest`` process, or pytest-xdist workers, which execnet starts with
the current directory on ``sys.path`` too), else a ``python -m pytest`` process beside the script's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script() -> list[str]:
    """The ``pytest`` console script of this interpreter's environment; without one, the interpreter with ``-P``
    (Python 3.11+: no current directory on ``sys.path``, as under the script)."""
    script = Path(sys.executable).with_name("pytest")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-P", "-m", "pytest"]


def _whole_suite(session: pytest.Session) -> set[str] | None:
    """The node ids this run collected when it collected the whole suite (``tests``, no ``-k``, ``-m`` or
    ``--deselect``), else None. In a pytest-xdist worker these are every item, not only the worker's share."""
    config = session.config
    whole = config.args_source == pytest.Config.ArgsSource.TESTPATHS or [
        Path(a).resolve() for a in config.args
    ] == [ROOT / "tests"]
    if not whole or config.option.keyword or config.option.markexpr or config.option.deselect:
        return None
    return {item.nodeid for item in session.items}


def test_pytest_and_python_m_pytest_collect_the_same_items(request: pytest.FixtureRequest) -> None:
    args = ["--collect-only", "-q", "-p", "no:cacheprovider", "tests"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    own = _whole_suite(request.session)
    runs = {
        "pytest": subprocess.Popen(
            [*_script(), *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ),
    }
    if own is None:
        runs["python -m pytest"] = subprocess.Popen(
            [sys.executable, "-m", "pytest", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    items = {} if own is None else {"python -m pytest": own}
    for how, proc in runs.items():
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"{how} --collect-only failed:\n{out[-4000:]}"
        items[how] = {line for line in out.splitlines() if "::" in line}
    assert len(items["pytest"]) > 5000, "the collection should be the whole suite"
    only_script = sorted(items["pytest"] - items["python -m pytest"])
    only_module = sorted(items["python -m pytest"] - items["pytest"])
    assert not only_script and not only_module, (only_script[:20], only_module[:20])


@pytest.mark.parametrize(
    ("nodeid", "unit"),
    [
        # the Spark tests: one unit, one session per run
        ("tests/pipeline/test_fleet.py::test_x", "spark"),
        ("tests/pipeline/test_transforms.py::test_y[a]", "spark"),
        ("tests/pipeline/test_corrupt.py::test_every_byte_accounted", "spark"),  # through a module fixture
        (
            "tests/pipeline/test_local_engine.py::test_choose_engine[x]",
            "spark",
        ),  # the module's other tests do
        # a pipeline module without Spark (no session to share, no module fixture): each test alone
        ("tests/pipeline/test_layout_and_state.py::test_v", None),
        # Spark only in subprocesses (the CLI's own JVM, a standalone cluster): no session to share
        ("tests/pipeline/test_cli_run.py::test_json_output_is_only_json", "tests/pipeline/test_cli_run.py"),
        ("tests/pipeline/test_standalone_cluster.py::test_job", None),
        # a module with a module-scoped server: one unit, its tests in order on one worker
        (
            "tests/protocol/test_charsets_wire.py::test_set_names_utf8_is_utf8mb3",
            "tests/protocol/test_charsets_wire.py",
        ),
        # function-scoped fixtures only: each test is its own unit
        ("tests/cli/test_pitr.py::test_point_in_time_recovery[stop-datetime]", None),
        ("tests/engine/test_crash.py::test_sigkill_invariant[binlog_off]", None),
        # pytest-xdist's own group suffix wins; an '@' inside a parameter id is no group
        ("tests/engine/test_crash.py::test_z@mygroup", "mygroup"),
        ("tests/engine/test_accounts.py::test_w[root@localhost]", None),
        # the checks that walk src/'s syntax trees (tests/source_tree.py): one unit, one parse per worker
        ("tests/test_layers.py::test_import_direction[cli/main.py]", "source"),
        ("tests/engine/test_show_routing.py::test_every_show_command_has_exactly_one_provider", "source"),
        ("tests/test_readme.py::test_readme_python_example", None),
    ],
    ids=[
        "pipeline",
        "pipeline-param",
        "pipeline-module-fixture",
        "pipeline-same-module",
        "pipeline-no-spark",
        "pipeline-cli-jvm",
        "pipeline-standalone",
        "module-fixture",
        "function-only",
        "function-only-2",
        "group",
        "at-in-id",
        "source-checks",
        "source-checks-engine",
        "no-source-checks",
    ],
)
def test_xdist_units(nodeid: str, unit: str | None) -> None:
    from tests.conftest import xdist_scope

    assert xdist_scope(nodeid) == (nodeid if unit is None else unit)


def test_units_are_handed_out_longest_first_and_engine_tests_last() -> None:
    from tests.conftest import _unit_rank

    units = {
        "tests/engine/test_a.py::test_x": {"tests/engine/test_a.py::test_x": False},
        "tests/test_collection.py::test_y": {"tests/test_collection.py::test_y": False},
        "tests/gtid/test_g.py::test_z": {"tests/gtid/test_g.py::test_z": False},
        "tests/protocol/test_p.py": {
            "tests/protocol/test_p.py::a": False,
            "tests/protocol/test_p.py::b": False,
        },
        "tests/cli/test_c.py::test_c": {"tests/cli/test_c.py::test_c": False},
        "tests/protocol/test_q.py": {"tests/protocol/test_q.py::a": False},
        "tests/replication/test_r.py": {"tests/replication/test_r.py::a": False},
        "spark": {"tests/pipeline/test_fleet.py::a": False},
        # modules whose tests start their own JVMs (marked spark): after the server units (the Spark unit is over)
        "tests/pipeline/test_standalone_cluster.py::test_job": {
            "tests/pipeline/test_standalone_cluster.py::test_job": False
        },
        "tests/pipeline/test_cli_run.py": {
            "tests/pipeline/test_cli_run.py::a": False,
            "tests/pipeline/test_cli_run.py::b": False,
        },
        "tests/pipeline/test_layout_and_state.py::test_v": {
            "tests/pipeline/test_layout_and_state.py::test_v": False
        },
        "source": {"tests/engine/test_show_routing.py::a": False, "tests/test_layers.py::b": False},
    }
    order = [scope for scope, _ in sorted(units.items(), key=lambda unit: _unit_rank(*unit))]
    assert (
        order
        == [
            "spark",
            "tests/replication/test_r.py",
            "tests/cli/test_c.py::test_c",
            "tests/protocol/test_p.py",  # two tests before one
            "tests/protocol/test_q.py",
            "tests/pipeline/test_cli_run.py",  # two tests before one
            "tests/pipeline/test_standalone_cluster.py::test_job",
            "source",  # the static checks sharing one parse of src/: one long unit, before the pipeline's small ones
            "tests/pipeline/test_layout_and_state.py::test_v",
            "tests/test_collection.py::test_y",
            "tests/gtid/test_g.py::test_z",
            "tests/engine/test_a.py::test_x",
        ]
    )


@pytest.mark.parametrize(
    ("dist", "uses", "last"),
    [
        # loadgroup: every test that takes the session is in the one "spark" unit, run in collection order
        (
            "loadgroup",
            {"tests/pipeline/test_fleet.py::a": True, "tests/pipeline/test_fleet.py::b": True},
            "b",
        ),
        ("loadgroup", {"tests/pipeline/test_fleet.py::a": True, "tests/engine/test_e.py::c": False}, "a"),
        # a session user outside the unit could run on the same worker after it: the session lives to the end
        ("loadgroup", {"tests/pipeline/test_fleet.py::a": True, "tests/engine/test_e.py::c": True}, None),
        # serial and --dist load run the tests in collection order
        ("no", {"tests/pipeline/test_fleet.py::a": True, "tests/engine/test_e.py::c": True}, "c"),
        ("load", {"tests/pipeline/test_fleet.py::a": True, "tests/engine/test_e.py::c": False}, "a"),
        # a unit per module or file: modules run in any order
        ("loadscope", {"tests/pipeline/test_fleet.py::a": True}, None),
        ("no", {"tests/engine/test_e.py::c": False}, None),
    ],
    ids=[
        "loadgroup",
        "loadgroup-then-other",
        "loadgroup-outside-user",
        "serial",
        "load",
        "loadscope",
        "no-user",
    ],
)
def test_spark_session_ends_after_its_last_user(dist: str, uses: dict[str, bool], last: str | None) -> None:
    from types import SimpleNamespace

    from tests.conftest import _LAST_SPARK_USER, _note_last_spark_user

    config = SimpleNamespace(getoption=lambda name, default=None: dist, stash=pytest.Stash())
    items = [
        SimpleNamespace(nodeid=n, fixturenames=["spark"] if u else ["tmp_path"]) for n, u in uses.items()
    ]
    _note_last_spark_user(SimpleNamespace(items=items, config=config))  # type: ignore[arg-type]
    got = config.stash.get(_LAST_SPARK_USER, None)
    assert (got.rsplit("::", 1)[1] if got else None) == last


@pytest.mark.parametrize(
    ("env", "tmpfs", "free_gib", "in_memory"),
    [
        ({}, True, 8, True),
        ({}, True, 1, False),  # too little room
        ({}, False, 8, False),  # /dev/shm is no tmpfs
        ({"TMPDIR": "/var/tmp"}, True, 8, False),  # the caller chose
        ({"GTIDKIT_TEST_TMPDIR": "disk"}, True, 8, False),
    ],
    ids=["tmpfs", "too-small", "no-tmpfs", "caller-tmpdir", "opt-out"],
)
def test_temporary_files_go_to_memory_when_there_is_room(
    monkeypatch, env, tmpfs, free_gib, in_memory
) -> None:
    import tempfile
    from types import SimpleNamespace

    import tests.conftest as suite

    for name in ("TMPDIR", "GTIDKIT_TEST_TMPDIR", "GTIDKIT_TEST_DISK_TMPDIR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(tempfile, "tempdir", tempfile.tempdir)
    monkeypatch.setattr(suite, "_tmpfs_mounts", lambda: {"/dev/shm"} if tmpfs else set())
    monkeypatch.setattr(suite.os, "statvfs", lambda _p: SimpleNamespace(f_bavail=free_gib << 30, f_frsize=1))
    run = Path("/dev/shm") / f"gtidkit-tests-{os.getuid()}" / str(os.getpid())
    existed = run.exists()
    try:
        got = suite._temporary_files_in_memory()
        if in_memory:
            assert got == run and run.is_dir()
            assert os.environ["TMPDIR"] == str(run) and tempfile.gettempdir() == str(run)
            assert os.environ["GTIDKIT_TEST_DISK_TMPDIR"] == str(suite.DISK_TMP)
        else:
            assert got is None
            assert os.environ.get("TMPDIR") == env.get("TMPDIR")
    finally:
        if not existed and run.exists():
            run.rmdir()


@pytest.mark.parametrize(
    ("submit", "written", "gains"),
    [
        ("suite", True, True),  # the run started without an archive, the session wrote one since
        ("suite", False, False),  # none written yet
        ("caller", True, False),  # options of the caller's own are kept
    ],
    ids=["written-since", "not-yet", "caller-options"],
)
def test_jvms_started_later_map_an_archive_written_since(
    monkeypatch, tmp_path, submit, written, gains
) -> None:
    import tests.conftest as suite

    archive = tmp_path / "spark-x.jsa"
    if written:
        archive.write_bytes(b"x")
    own = suite.SHORT_LIVED_JVM_OPTIONS if submit == "suite" else "-Xmx1g"
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", own)
    monkeypatch.setenv("SPARK_DAEMON_JAVA_OPTS", own)
    monkeypatch.setattr(suite, "class_archive", lambda: archive)
    suite._map_a_class_archive_written_since()
    for name in ("SPARK_SUBMIT_OPTS", "SPARK_DAEMON_JAVA_OPTS"):
        if gains:
            assert os.environ[name].split() == [
                *own.split(),
                f"-XX:SharedArchiveFile={archive}",
                *suite._QUIET_CDS.split(),
            ]
        else:
            assert os.environ[name] == own
