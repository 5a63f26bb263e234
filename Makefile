# gtidkit: two commands on a fresh machine.
#   make demo   source + passive replica by GTIDs (read-your-writes, crash, resume), then the PySpark pipeline
#               (and on ../shared/research/fixtures/binlogs when present)
#   make test   the test suite on 2 pytest-xdist workers (PYTEST_WORKERS=N for another count; `make test PYTEST_XDIST=`
#               runs it serially) with the type check (mypy, config in pyproject.toml: gtid/, binlog/, engine/,
#               protocol/) and the lint beside it; fails when any of the three fails (`make typecheck lint` alone: seconds)
#               the suite's temporary files go to /dev/shm when it is a tmpfs with 4 GiB free, as mysql-test-run's
#               --mem (GTIDKIT_TEST_TMPDIR=disk or a TMPDIR of your own keeps them where they were)
#   make test-workers   the tests that talk to a server (tests/protocol, tests/replication, tests/cli) with every
#               server they start running --workers=2 (GTIDKIT_TEST_WORKERS; SERVER_WORKERS=N for another count)
PY ?= python3
VENV := .venv
PYBIN := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
export SPARK_LOCAL_IP ?= 127.0.0.1
export PYSPARK_PYTHON := $(abspath $(PYBIN))
export PYSPARK_DRIVER_PYTHON := $(abspath $(PYBIN))

# pytest-xdist: one worker per core (the machine this runs on has 2); tests/conftest.py schedules a module (its
# module-scoped servers) and the Spark tests (one session) onto one worker each
PYTEST_WORKERS ?= 2
PYTEST_XDIST ?= -n $(PYTEST_WORKERS) --dist loadgroup

# the directories whose tests start servers through tests/protocol/server_proc.py (make test-workers)
SERVER_TESTS ?= tests/protocol tests/replication tests/cli
SERVER_WORKERS ?= 2

.PHONY: install test test-workers typecheck demo bench lint clean

# pip byte-compiles what it installs one file after the other (~45 s of CPU here: pyspark, sympy, moto, ...);
# compileall -j 0 does the same work on every core
$(STAMP): pyproject.toml setup.py
	$(PY) -m venv $(VENV)
	$(PYBIN) -m pip install -q --upgrade pip
	$(PYBIN) -m pip install -q --no-compile -e '.[spark,dev]'
	$(PYBIN) -m compileall -q -j 0 $$($(PYBIN) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
	touch $(STAMP)

install: $(STAMP)

# mypy and ruff (~8 s of CPU) run beside the suite, niced so that they take the CPU it leaves idle; their output
# follows the suite's, and `make test` fails when the suite, the type check or the lint fails
test: $(STAMP)
	@checks=$$(mktemp -d); \
	( nice -n 10 $(MAKE) -k --no-print-directory typecheck lint >"$$checks/out" 2>&1; echo $$? >"$$checks/rc" ) & \
	$(PYBIN) -m pytest -q -p no:cacheprovider $(PYTEST_XDIST); suite=$$?; \
	wait; cat "$$checks/out"; rc=$$(cat "$$checks/rc"); rm -rf "$$checks"; \
	if [ "$$rc" != 0 ]; then echo "make test: the type check or the lint failed (above)" >&2; fi; \
	[ "$$suite" = 0 ] && [ "$$rc" = 0 ]

test-workers: $(STAMP)
	GTIDKIT_TEST_WORKERS=$(SERVER_WORKERS) $(PYBIN) -m pytest -q -p no:cacheprovider --timeout 300 $(PYTEST_XDIST) $(SERVER_TESTS)

typecheck: $(STAMP)
	$(VENV)/bin/mypy

demo: $(STAMP)
	$(VENV)/bin/gtidkit demo --output demo-out

bench: $(STAMP)
	$(PYBIN) bench/run_all.py

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench

clean:
	rm -rf $(VENV) demo-out bench/out
