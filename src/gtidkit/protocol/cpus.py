"""How many CPUs this process may use: the default of ``gtidkit server --workers`` (issue 21 step 8).

A worker process runs Python statements on one core at a time (the GIL), so the server runs one worker per CPU it
may use, as mysqld sizes its thread pools from the machine (``innodb_read_io_threads`` & co.). "May use" is the
smaller of two limits:

* the CPU affinity mask (``taskset``, ``cpuset`` cgroups, ``docker --cpuset-cpus``): ``os.process_cpu_count()``
  from Python 3.13, ``len(os.sched_getaffinity(0))`` before it, ``os.cpu_count()`` where neither exists;
* the CFS bandwidth quota of the process's cgroup and of each of its ancestors (``docker --cpus=1.5``, Kubernetes
  CPU limits): cgroup v2 ``cpu.max`` (``"max 100000"`` = no limit, ``"150000 100000"`` = 1.5 CPUs), cgroup v1
  ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (quota ``-1`` = no limit); a fraction counts as a whole CPU
  (``ceil(quota / period)``, as the JVM and Go's runtime round it), and the smallest limit on the path wins.

The cgroup files are read once at start-up (a few ``open`` calls); a file that is missing or unreadable is no
limit. Where the process's cgroup path is not visible under the mount (a container without a cgroup namespace sees
the host's path), the mount's own root is read.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["available_cpus", "cgroup_cpu_limit", "worker_cpu"]

#: where the kernel lists the process's cgroups (``hierarchy-id:controllers:path`` per line)
PROC_CGROUP = Path("/proc/self/cgroup")
#: where the cgroup file systems are mounted (v2 at the root, or v1 controllers in subdirectories)
CGROUP_ROOT = Path("/sys/fs/cgroup")


def available_cpus(*, proc_cgroup: Path = PROC_CGROUP, cgroup_root: Path = CGROUP_ROOT) -> int:
    """The CPUs this process may use: its affinity mask, capped by its cgroups' CPU quota; at least 1.

    Args:
        proc_cgroup: the process's cgroup list (``/proc/self/cgroup``).
        cgroup_root: the cgroup mount point (``/sys/fs/cgroup``).

    Returns:
        A whole number of CPUs >= 1.
    """
    count = _affinity_cpus()
    limit = cgroup_cpu_limit(proc_cgroup=proc_cgroup, cgroup_root=cgroup_root)
    if limit is not None:
        count = min(count, limit)
    return max(1, count)


def worker_cpu(index: int, workers: int, allowed: Iterable[int]) -> int | None:
    """The CPU worker ``index`` of a ``workers``-process server runs on (``--worker-cpu-affinity``), or None to
    leave it where the scheduler puts it.

    Each worker of several gets one CPU of the allowed set, in turn (worker ``i`` on the ``i % n``-th allowed CPU):
    all the threads of one process then share one CPU, so a connection thread that releases the GIL (around every
    SQLite step, every socket call) hands it to a thread of its own CPU instead of waking one on the other CPU,
    and a process's working set stays in one core's caches. Measured on 2 CPUs (bench/RESULTS.md
    ``gil_cost``): server CPU per sysbench oltp_read_write transaction at 4 threads 2.39 -> 2.20 ms with 2
    workers, per oltp_point_select statement 32 -> 26 µs. One worker is never pinned: its threads may use every
    CPU (SQLite and the kernel run outside the GIL).

    Args:
        index: the worker id, ``0 .. workers - 1``.
        workers: how many worker processes the server runs.
        allowed: the CPUs the process may use (``os.sched_getaffinity(0)``).

    Returns:
        A CPU number from ``allowed``, or None when ``workers`` < 2 or ``allowed`` is empty.
    """
    cpus = sorted(allowed)
    if workers < 2 or not cpus:
        return None
    return cpus[index % len(cpus)]


def _affinity_cpus() -> int:
    process_cpu_count = getattr(os, "process_cpu_count", None)  # Python 3.13+: the affinity mask
    if process_cpu_count is not None:
        return int(process_cpu_count() or 1)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def cgroup_cpu_limit(*, proc_cgroup: Path = PROC_CGROUP, cgroup_root: Path = CGROUP_ROOT) -> int | None:
    """The CPU quota of the process's cgroup and its ancestors, rounded up to whole CPUs.

    Args:
        proc_cgroup: the process's cgroup list (``/proc/self/cgroup``).
        cgroup_root: the cgroup mount point (``/sys/fs/cgroup``).

    Returns:
        The smallest quota on the path in whole CPUs (>= 1), or None when no cgroup limits the CPU time (or none
        could be read).
    """
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    limits: list[int] = []
    for line in lines:
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and controllers == "":  # cgroup v2 (unified), mounted at the root or at unified/
            for mount in (cgroup_root, cgroup_root / "unified"):
                if (mount / "cgroup.controllers").exists():
                    limits += _walk(mount, path, _v2_limit)
                    break
        elif "cpu" in controllers.split(","):  # cgroup v1, the cpu controller (often cpu,cpuacct)
            for name in (controllers, "cpu", "cpu,cpuacct"):
                if (cgroup_root / name).is_dir():
                    limits += _walk(cgroup_root / name, path, _v1_limit)
                    break
    return min(limits) if limits else None


def _walk(mount: Path, path: str, read_limit: Callable[[Path], int | None]) -> list[int]:
    """The limits of ``mount/path`` and of each ancestor up to ``mount`` (``mount`` alone when ``path`` is not
    visible under it)."""
    here = mount / path.strip("/") if path.strip("/") else mount
    if not here.is_dir():
        here = mount
    found: list[int] = []
    while True:
        limit = read_limit(here)
        if limit is not None:
            found.append(limit)
        if here == mount or mount not in here.parents:
            return found
        here = here.parent


def _whole_cpus(quota: int, period: int) -> int | None:
    if quota <= 0 or period <= 0:
        return None
    return max(1, math.ceil(quota / period))


def _v2_limit(directory: Path) -> int | None:
    """``cpu.max``: ``"$MAX $PERIOD"``, ``max`` = no limit."""
    try:
        fields = (directory / "cpu.max").read_text().split()
    except OSError:
        return None
    if len(fields) != 2 or fields[0] == "max":
        return None
    try:
        return _whole_cpus(int(fields[0]), int(fields[1]))
    except ValueError:
        return None


def _v1_limit(directory: Path) -> int | None:
    """``cpu.cfs_quota_us`` (``-1`` = no limit) over ``cpu.cfs_period_us``."""
    try:
        quota = int((directory / "cpu.cfs_quota_us").read_text())
        period = int((directory / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return _whole_cpus(quota, period)
