"""The benchmark targets page, generated from bench/_targets.py (the one table every bench
checks its figures against)."""

from __future__ import annotations

from bench._targets import BENCHES, TARGETS, Target
from docs.gen.markdown import code, table

INTRO = """\
# Benchmarks and their targets

Generated from `bench/_targets.py`, the one table every bench checks its figures against
(`bench/_figures.py`). A bench exits 1 when a figure misses: in full mode (the default)
against its **target**, in quick mode (`--quick`, what `.ci/run` runs) against its **quick
tolerance**, and prints which figure missed and by how much. A bench that cannot measure (a
tool missing) fails under `CI=true`.

`--targets-scale X` multiplies every limit by X, in the direction that makes it harder when
X < 1: an upper bound `<= T` becomes `<= T*X`, a lower bound `>= T` becomes `>= T/X`.
`tests/bench/test_targets_scale.py` runs each bench's quick mode with `--targets-scale 0.001`
and expects exit 1 with every checked figure named: each check can fail.

Ratios are measured side by side in one run (paired runs, the median of the per-pair or
per-run ratios): a shared machine's load hits both sides alike, so the quick checks hold
without wider margins. Where a quick mode measures a smaller size, its tolerance is stated and
explained below. `.ci/run` also records the wall time of each of its stages and of pytest
(`build/ci-times.txt`, printed at the end); with `AVEROS_CI_WARM=1` (a warm run: caches filled)
it fails when the whole run exceeds 12 minutes.
"""


def _limit(t: Target, value: float | None) -> str:
    return "not checked" if value is None else f"{t.op} {value:g} {t.unit}"


def render() -> str:
    lines = [INTRO, "## The benches", ""]
    lines += table(
        ["bench", "how it samples", "full mode", "quick mode"],
        [(code(f"python bench/{b.name}.py"), b.method, b.full, b.quick) for b in BENCHES],
    )
    lines += ["## The targets", ""]
    lines += table(
        ["figure", "measure", "target (full)", "quick tolerance", "why", "last figure"],
        [
            (
                f"{code(t.key)}: {t.figure}",
                t.measure,
                _limit(t, t.full),
                _limit(t, t.quick),
                t.why,
                t.last,
            )
            for t in TARGETS
        ],
    )
    return "\n".join(lines)
