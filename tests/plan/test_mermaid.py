"""Issue 14: the plan's Mermaid picture parses with Mermaid's own parser, whatever the names.

The parser is the npm ``mermaid`` package run by Node under jsdom (``mermaid.parse``), installed
by ``.ci/run`` from ``tests/plan/mermaid/package-lock.json`` into
``$AVEROS_CI_CACHE_DIR/mermaid-check/<lockfile sha256[:12]>``. Without it the test skips, and
fails under ``CI=true``.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute.adapters.angular.options import cache_root
from averos_ci.plan import ExecutionPlan
from averos_ci.plan.mermaid import MAX_NODES, flowchart, label
from averos_ci.plan.render import render_markdown
from tests.conftest import unavailable
from tests.plan.plan_samples import applied, example_raw, golden_raw, plan_of
from tests.plan.test_golden_renderings import library_plan, todo_plan
from tests.plan.test_render_markdown import NASTY, big_plan

HERE = Path(__file__).parent / "mermaid"


@pytest.fixture(scope="session")
def mermaid_dir() -> Path:
    """Resolved before the per-test empty $HOME is installed (the folder .ci/run fills)."""
    lock = hashlib.sha256((HERE / "package-lock.json").read_bytes()).hexdigest()[:12]
    return cache_root(None) / "mermaid-check" / lock


def _parse(texts: list[str], modules: Path, tmp_path: Path) -> list[dict[str, Any]]:
    node = shutil.which("node")
    reason = None
    if node is None:
        reason = "node is not installed"
    elif not (modules / "node_modules" / "mermaid").is_dir():
        reason = f"{modules}/node_modules has no mermaid: run .ci/run (it runs npm ci there)"
    if reason is not None:
        unavailable(f"the Mermaid parser is missing: {reason}")
    assert node is not None
    # ESM resolves packages next to the script: run a copy beside a link to the modules.
    shutil.copy(HERE / "parse.mjs", tmp_path / "parse.mjs")
    (tmp_path / "node_modules").symlink_to(modules / "node_modules")
    proc = subprocess.run(
        [node, "parse.mjs"],
        cwd=tmp_path,
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results: list[dict[str, Any]] = json.loads(proc.stdout)
    return results


def _evil_plan() -> ExecutionPlan:
    """The example with node ids and phases full of what Mermaid and markdown interpret."""
    plan = plan_of(example_raw())
    wire: dict[str, Any] = json.loads(plan.to_json())
    tricks = [NASTY, '"]; A-->B; click A "http://e"', "```\nend\nsubgraph x", "#quot; %% ;:{}"]
    ids = {n["id"]: n["id"] + tricks[i % len(tricks)] for i, n in enumerate(wire["nodes"])}
    for node in wire["nodes"]:
        node["id"] = ids[node["id"]]
        node["dependsOn"] = [ids[d] for d in node["dependsOn"]]
    evil = ExecutionPlan.model_validate(wire)
    chart = flowchart(evil)
    assert chart is not None and chart.text.count(" --> ") > 10  # edges kept
    return evil


def _block(markdown: str) -> str:
    match = re.search(r"^```mermaid\n(.*?)^```$", markdown, re.S | re.M)
    assert match, "the markdown has a Mermaid block"
    return match.group(1)


def test_mermaid_blocks_parse(mermaid_dir: Path, tmp_path: Path) -> None:
    todo_update = todo_plan()
    plans = [
        library_plan(),
        todo_update,
        plan_of(example_raw()),
        plan_of(golden_raw()),
        _evil_plan(),
        big_plan(),
    ]
    texts = [_block(render_markdown(p)) for p in plans]
    broken = 'flowchart LR\n  n0["a"b"]\n'  # the parser is real: this must be refused
    results = _parse([*texts, broken], mermaid_dir, tmp_path)
    assert [r["ok"] for r in results] == [True] * len(texts) + [False], results
    assert {r["type"] for r in results[:-1]} == {"flowchart-v2"}


def test_labels_cannot_escape() -> None:
    out = label('a"]\n--> b `x` <y> #35; %%')
    assert out.startswith('"') and out.endswith('"')
    assert re.fullmatch(r'"[A-Za-z0-9 :._/#;-]*"', out), out
    assert "\n" not in out and "`" not in out and "<" not in out


def test_large_plans_say_how_many_nodes_were_left_out() -> None:
    plan = big_plan()
    chart = flowchart(plan)
    assert chart is not None
    assert chart.shown <= MAX_NODES
    assert chart.shown + chart.left_out == len(plan.executable_nodes())
    assert f"{chart.left_out} more left out of the picture" in render_markdown(plan)


def test_picture_has_phases_and_edges() -> None:
    plan = plan_of(example_raw())
    chart = flowchart(plan)
    assert chart is not None and chart.left_out == 0
    phases = re.findall(r'subgraph p\d+\["([a-z-]+)"\]', chart.text)
    assert phases == list(dict.fromkeys(n.phase.value for n in plan.executable_nodes()))
    number = {n.id: i for i, n in enumerate(plan.executable_nodes())}
    edges = set(re.findall(r"^  (n\d+) --> (n\d+)$", chart.text, re.M))
    expected = {
        (f"n{number[d]}", f"n{number[n.id]}") for n in plan.executable_nodes() for d in n.depends_on
    }
    assert edges == expected and edges


def test_no_picture_without_changes() -> None:
    raw = example_raw()
    plan = plan_of(raw, applied(raw))
    assert flowchart(plan) is None
    assert "mermaid" not in render_markdown(plan)
