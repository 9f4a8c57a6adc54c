"""The generated pages: their place in the site and the function that writes each."""

from __future__ import annotations

from collections.abc import Callable

from docs.gen import bench_ref, cli_ref, codes_ref, config_ref, formats_ref, plan_comment

PAGES: dict[str, Callable[[], str]] = {
    "reference/cli.md": cli_ref.render,
    "reference/configuration.md": config_ref.render,
    "reference/finding-codes.md": codes_ref.render,
    "reference/formats.md": formats_ref.render,
    "reference/plan-comment.md": plan_comment.render,
    "reference/benchmarks.md": bench_ref.render,
}


def build() -> dict[str, str]:
    """Every generated page, by its path under ``docs/``."""
    return {uri: render() for uri, render in PAGES.items()}
