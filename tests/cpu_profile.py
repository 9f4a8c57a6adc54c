"""Per-test CPU, for finding where the suite's time goes (docs/development.md).

Load it with ``-p tests.cpu_profile`` and set ``AVEROS_CI_TEST_CPU`` to a folder: each test
appends one JSON line (node id, wall seconds, CPU seconds of the test process and of the
children it waited for) to ``<folder>/<worker>.jsonl``. Setup and teardown count with the test,
so a session fixture's cost lands on the first test that uses it; the teardown after a worker's
last test, where pytest ends the session fixtures (a Docker engine and all it ran, the GitHub
World's job zygote and all its jobs), is a record of its own: ``"session": true``, its name
``session teardown (after <last test>)``. CPU is what a 2-core machine
runs out of: a wall time measured beside other workers says little, a CPU time stays.

``python -m tests.cpu_profile FOLDER`` prints the costliest tests and the totals.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Generator
from pathlib import Path

import pytest


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


Sample = tuple[float, float, float]  # wall, own CPU, children's CPU
_LAST_TEARDOWN = pytest.StashKey[tuple[Sample, Sample]]()


def _sample() -> Sample:
    return (time.perf_counter(), *_cpu())


def _record(test: str, before: Sample, after: Sample, **extra: object) -> dict[str, object]:
    return {
        "test": test,
        "wall": round(after[0] - before[0], 3),
        "cpu": round(after[1] - before[1], 3),
        "childrenCpu": round(after[2] - before[2], 3),
        **extra,
    }


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    if nextitem is not None or not os.environ.get("AVEROS_CI_TEST_CPU"):
        return (yield)
    before = _sample()
    try:
        return (yield)
    finally:
        item.stash[_LAST_TEARDOWN] = (before, _sample())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    folder = os.environ.get("AVEROS_CI_TEST_CPU")
    if not folder:
        return (yield)
    before = _sample()
    try:
        return (yield)
    finally:
        after = _sample()
        records = [_record(item.nodeid, before, after)]
        if _LAST_TEARDOWN in item.stash:  # the session's teardown: not this test's
            start, end = item.stash[_LAST_TEARDOWN]
            test_end = (
                after[0] - (end[0] - start[0]),
                after[1] - (end[1] - start[1]),
                after[2] - (end[2] - start[2]),
            )
            records = [
                _record(item.nodeid, before, test_end),
                _record(f"session teardown (after {item.nodeid})", start, end, session=True),
            ]
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        records[-1]["ended"] = round(time.time(), 3)  # when the worker was done with it
        Path(folder).mkdir(parents=True, exist_ok=True)
        with (Path(folder) / f"{worker}.jsonl").open("a", encoding="utf-8") as out:
            out.writelines(json.dumps(record) + "\n" for record in records)


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: python -m tests.cpu_profile FOLDER [TOP]", file=sys.stderr)
        return 2
    top = int(argv[1]) if len(argv) == 2 else 30
    records = [
        json.loads(line)
        for path in sorted(Path(argv[0]).glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    for record in records:
        record["total"] = record["cpu"] + record["childrenCpu"]
    records.sort(key=lambda r: r["total"], reverse=True)
    print(f"{'CPU s':>8} {'own':>7} {'wall s':>8}  test")
    for record in records[:top]:
        print(
            f"{record['total']:8.1f} {record['cpu']:7.1f} {record['wall']:8.1f}  {record['test']}"
        )
    files: dict[str, float] = {}
    for record in records:
        name = "(session teardowns)" if record.get("session") else record["test"].split("::")[0]
        files[name] = files.get(name, 0.0) + record["total"]
    print(f"\n{'CPU s':>8}  file")
    for name, cpu in sorted(files.items(), key=lambda kv: kv[1], reverse=True)[:top]:
        print(f"{cpu:8.1f}  {name}")
    total = sum(r["total"] for r in records)
    shown = sum(r["total"] for r in records[:top])
    wall = sum(r["wall"] for r in records)
    sessions = sum(1 for r in records if r.get("session"))
    print(
        f"{len(records) - sessions} tests and {sessions} session teardown(s): {total:.0f} s CPU "
        f"in all ({total / 60:.1f} min), the {min(top, len(records))} above {shown:.0f} s, "
        f"wall summed {wall:.0f} s"
    )
    _machine(Path(argv[0]))
    return 0


def _machine(folder: Path) -> None:
    """When each worker finished (a late one ran a long test at the end) and, with the
    ``/proc/stat`` line `.ci/run` saved before pytest in ``stat.start``, how busy the machine's
    CPUs were: at 100 % the suite waits for CPU, and only less CPU makes it faster."""
    ends = {
        path.stem: max(json.loads(line).get("ended", 0.0) for line in path.read_text().splitlines())
        for path in sorted(folder.glob("*.jsonl"))
        if path.stat().st_size
    }
    start = folder / "stat.start"
    if start.is_file() and Path("/proc/stat").is_file():
        began = start.stat().st_mtime
        print(
            "workers finished after: "
            + ", ".join(f"{name} {end - began:.0f} s" for name, end in ends.items())
        )
        with open("/proc/stat", encoding="ascii") as now:
            before, after = _busy(start.read_text()), _busy(now.readline())
        ticks = os.sysconf("SC_CLK_TCK")
        used, waited = ((a - b) / ticks for a, b in zip(after, before, strict=True))
        share = 100 * used / (used + waited) if used + waited else 0.0
        print(
            f"machine ({os.cpu_count()} CPUs): busy {used:.0f} s, idle {waited:.0f} s "
            f"({share:.0f} % busy) while the tests ran"
        )


def _busy(line: str) -> tuple[int, int]:
    """(busy, idle) ticks of the ``/proc/stat`` "cpu" line: busy is user, nice, system, irq,
    softirq and steal (guest time is inside user); idle is idle and iowait."""
    ticks = [int(f) for f in line.split()[1:9]]
    return sum(ticks) - ticks[3] - ticks[4], ticks[3] + ticks[4]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
