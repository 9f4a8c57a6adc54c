"""The verdict of a bench: each figure it measures is checked against its row of
``bench/_targets.py`` and the bench exits 1 when one misses.

Full mode checks a figure against its target, quick mode against its quick tolerance;
``--targets-scale X`` multiplies every limit by X in the direction that makes it harder when
X < 1 (an upper bound ``<= T`` becomes ``<= T*X``, a lower bound ``>= T`` becomes ``>= T/X``):
0.001 makes every target impossible, which is how ``tests/bench`` proves each check can fail.
"""

from __future__ import annotations

import argparse
import os
import sys

try:  # run as ``python bench/x.py`` (bench/ on sys.path) or imported as ``bench._figures``
    from _targets import TARGETS, Target
except ImportError:  # pragma: no cover - the package spelling
    from bench._targets import TARGETS, Target


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"true", "1"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--targets-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="multiply every target by X (0.001: every target impossible; proves the checks)",
    )


def limit_of(target: Target, *, quick: bool, scale: float) -> float | None:
    base = target.quick if quick else target.full
    if base is None:
        return None
    return base * scale if target.op == "<=" else base / scale


class Figures:
    """The figures of one bench run and their verdicts."""

    def __init__(self, bench: str, *, quick: bool, scale: float) -> None:
        if scale <= 0:
            raise SystemExit(f"--targets-scale must be > 0, not {scale}")
        self.bench, self.quick, self.scale = bench, quick, scale
        self.rows = {t.key: t for t in TARGETS if t.bench == bench}
        if not self.rows:
            raise SystemExit(f"bench/_targets.py has no target for the bench {bench!r}")
        self.missed: list[str] = []
        self.seen: set[str] = set()

    def check(self, key: str, value: float) -> bool:
        """Print the figure with its verdict; True when it meets its limit (or has none)."""
        target = self.rows[key]
        self.seen.add(key)
        limit = limit_of(target, quick=self.quick, scale=self.scale)
        mode = "quick tolerance" if self.quick else "target"
        shown = f"{value:.4g} {target.unit}"
        if limit is None:
            print(f"[figure] {key} = {shown} (no {mode} in this mode)", flush=True)
            return True
        met = value <= limit if target.op == "<=" else value >= limit
        scaled = "" if self.scale == 1 else f" (x{self.scale:g} by --targets-scale)"
        bound = f"{mode} {target.op} {limit:.4g} {target.unit}{scaled}"
        if met:
            print(f"[figure] {key} = {shown}: met, {bound}", flush=True)
            return True
        by = value - limit if target.op == "<=" else limit - value
        factor = value / limit if target.op == "<=" else (limit / value if value else float("inf"))
        line = (
            f"{key} = {shown} MISSED its {bound}: "
            f"{'over' if target.op == '<=' else 'under'} by {by:.4g} {target.unit} "
            f"({factor:.3g}x the limit) - {target.figure}"
        )
        print(f"[figure] {line}", flush=True)
        self.missed.append(line)
        return False

    def cannot_measure(self, reason: str) -> int:
        """A tool is missing: under CI=true that fails the bench (CI never passes by not
        measuring), elsewhere it says so and exits 0."""
        code = 1 if in_ci() else 0
        verdict = "fails under CI=true" if code else "nothing measured (it fails under CI=true)"
        print(f"{self.bench}: cannot measure: {reason}: {verdict}", file=sys.stderr)
        return code

    def exit_code(self) -> int:
        """1 when a figure missed its limit, or a figure this mode must check went unmeasured
        (a bench that forgets a figure must not pass by silence)."""
        unmeasured = [
            key
            for key, t in self.rows.items()
            if key not in self.seen and limit_of(t, quick=self.quick, scale=self.scale) is not None
        ]
        for key in unmeasured:
            self.missed.append(f"{key} MISSED: not measured (the bench must check it in this mode)")
        mode = "quick" if self.quick else "full"
        if not self.missed:
            print(f"{self.bench} ({mode} mode): every figure met its limit", flush=True)
            return 0
        print(f"{self.bench} ({mode} mode): {len(self.missed)} figure(s) missed:", file=sys.stderr)
        for line in self.missed:
            print(f"  {line}", file=sys.stderr)
        return 1
