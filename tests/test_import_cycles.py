"""The package's shape: no import cycle anywhere in ``averos_ci/`` — between modules or between
folders, counting imports inside functions and under ``TYPE_CHECKING`` too — imports that point
down the documented floors, and modules and folders of a readable size."""

from __future__ import annotations

import ast
import statistics
from collections.abc import Iterator, Mapping
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "averos_ci"

MAX_MODULE_LINES = 400
MAX_FOLDER_MODULES = 20
MEDIAN_MODULE_LINES = 120

# The layers: a package on the left never imports one on the right.
LAYERS: Mapping[str, tuple[str, ...]] = {
    "averos_ci.statebranch": ("averos_ci.forge", "averos_ci.review", "averos_ci.github"),
    "averos_ci.forge": ("averos_ci.review", "averos_ci.github"),
    "averos_ci.review": ("averos_ci.github",),
}


# The floors, top to bottom (ARCHITECTURE.md): a module imports its own floor or one below,
# never one above. A folder is ``averos_ci.<name>`` (sub-folders belong to it); a module at the
# package root is a unit of its own. What is not listed is base (the lowest floor).
FLOORS: tuple[tuple[str, ...], ...] = (
    ("__main__", "cli"),
    ("github",),
    ("review", "onboard", "mcp", "preview", "stateops", "dashboard"),
    ("forge",),
    ("statebranch",),
    ("planning",),
    # a run's reports render execute's RunnerSummary: the apply (planning/) writes them
    ("config_check", "report"),
    ("execute",),
    ("state", "policy", "projects", "schemas"),
    ("config",),
    ("plan",),
    ("manifest",),
)
BASE_FLOOR = len(FLOORS)

# Upward imports another change of this round removes, each checked to still be there (so the
# set empties as they go; the lead empties it at merge). Their folder cycles are not counted.
KNOWN_UPWARD = frozenset(
    {
        # the adapter's prediction is asked when a plan is rendered or checked; it should be
        # asked once when planning and carried on the plan (outside its hash)
        "averos_ci.plan.not_applied -> averos_ci.execute.adapters",
        # the planner takes an AppliedState: the applied-state model must sit at plan's floor
        # (40 importers of averos_ci.state.model)
        "averos_ci.plan.planner -> averos_ci.state.model",
    }
)


def folder(module: str) -> str:
    """The unit of the folder graph: ``averos_ci.plan.model`` -> ``plan``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def floor(unit: str) -> int:
    return next((i for i, names in enumerate(FLOORS) if unit in names), BASE_FLOOR)


def folder_graph(graph: Mapping[str, set[str]]) -> dict[str, dict[str, set[str]]]:
    """folder -> folder it imports -> the module imports that make the edge (for the message)."""
    edges: dict[str, dict[str, set[str]]] = {}
    for name, deps in graph.items():
        for dep in deps:
            a, b = folder(name), folder(dep)
            if a and b and a != b:
                edges.setdefault(a, {}).setdefault(b, set()).add(f"{name} -> {dep}")
    return edges


def without(graph: Mapping[str, set[str]], known: frozenset[str]) -> dict[str, set[str]]:
    return {
        name: {d for d in deps if f"{name} -> {d}" not in known} for name, deps in graph.items()
    }


def folder_cycles(graph: Mapping[str, set[str]]) -> list[str]:
    """Each pair of folders that import each other, and every longer folder cycle, with the
    module imports on each side."""
    edges = folder_graph(graph)
    found = [
        f"{a} <-> {b} ({'; '.join(sorted(edges[a][b]))} | {'; '.join(sorted(edges[b][a]))})"
        for a in sorted(edges)
        for b in sorted(edges[a])
        if a < b and a in edges.get(b, {})
    ]
    pairs = {(a, b) for a in edges for b in edges[a] if a in edges.get(b, {})}
    rest = {a: {b for b in edges[a] if (a, b) not in pairs} for a in edges}
    found += [" -> ".join(c) for c in cycles(rest)]
    return found


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    return sorted(
        f"{name} -> {dep}"
        for name, deps in graph.items()
        for dep in deps
        if folder(name) != folder(dep) and floor(folder(dep)) < floor(folder(name))
    )


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(p, root): p for p in sorted(root.rglob("*.py"))}


def imports(path: Path, name: str, known: set[str]) -> Iterator[str]:
    """Every module ``path`` imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                yield sub if sub in known else source


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    found = modules(root)
    known = set(found)
    return {
        name: {dep for dep in imports(path, name, known) if dep in known and dep != name}
        for name, path in found.items()
    }


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The cycles TopologicalSorter finds, one at a time: each found is cut and the rest
    searched again, so that a known cycle does not hide another."""
    graph = {k: set(v) for k, v in graph.items()}
    found: list[list[str]] = []
    while True:
        try:
            TopologicalSorter(graph).prepare()
        except CycleError as exc:
            cycle: list[str] = exc.args[1]
            found.append(cycle)
            graph[cycle[1]].discard(cycle[0])  # the cycle is [a, b, ..., a]: b -> a closes it
            continue
        return found


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert not found, "import cycle(s): " + "; ".join(" -> ".join(c) for c in found)


def test_a_cycle_fails(tmp_path: Path) -> None:
    pkg = tmp_path / "averos_ci"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("")
    (pkg / "a" / "one.py").write_text("def f():\n    from averos_ci.a import two\n")
    (pkg / "a" / "two.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import one\n"
    )
    assert cycles(import_graph(pkg)) in (
        [["averos_ci.a.one", "averos_ci.a.two", "averos_ci.a.one"]],
        [["averos_ci.a.two", "averos_ci.a.one", "averos_ci.a.two"]],
    )


def test_no_folder_cycle() -> None:
    found = folder_cycles(without(import_graph(), KNOWN_UPWARD))
    assert not found, "folder cycle(s):\n" + "\n".join(found)


def test_a_folder_cycle_fails(tmp_path: Path) -> None:
    """Two folders whose modules import each other (no module cycle): a folder cycle."""
    pkg = tmp_path / "averos_ci"
    for sub in ("a", "b"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "one.py").write_text("from averos_ci.b import two\n")
    (pkg / "a" / "three.py").write_text("")
    (pkg / "b" / "two.py").write_text("def f():\n    from averos_ci.a import three\n")
    graph = import_graph(pkg)
    assert cycles(graph) == []
    assert folder_cycles(graph) == [
        "a <-> b (averos_ci.a.one -> averos_ci.b.two | averos_ci.b.two -> averos_ci.a.three)"
    ]


def test_imports_point_down_the_floors() -> None:
    found = upward_imports(import_graph())
    wrong = [w for w in found if w not in KNOWN_UPWARD]
    assert not wrong, "upward import(s) across the floors:\n" + "\n".join(wrong)
    fixed = sorted(KNOWN_UPWARD - set(found))
    assert not fixed, f"no longer upward, drop from KNOWN_UPWARD: {fixed}"


def test_an_upward_import_fails(tmp_path: Path) -> None:
    pkg = tmp_path / "averos_ci"
    for sub in ("plan", "execute"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "execute" / "run.py").write_text("")
    (pkg / "plan" / "model.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from averos_ci.execute import run\n"
    )
    assert upward_imports(import_graph(pkg)) == ["averos_ci.plan.model -> averos_ci.execute.run"]


@pytest.mark.parametrize("low", sorted(LAYERS))
def test_layers_point_down(low: str) -> None:
    graph = import_graph()
    wrong = sorted(
        f"{name} -> {dep}"
        for name, deps in graph.items()
        if name == low or name.startswith(low + ".")
        for dep in deps
        if any(dep == up or dep.startswith(up + ".") for up in LAYERS[low])
    )
    assert not wrong, f"{low} must not import {', '.join(LAYERS[low])}: " + "; ".join(wrong)


def test_the_mcp_server_never_reaches_approval_or_apply() -> None:
    """``averos_ci/mcp/`` is a front over the library: nothing it imports, even indirectly,
    is a CI flow or a review rule (approvals, gates)."""
    graph = import_graph()
    seen: set[str] = set()
    todo = [m for m in graph if m == "averos_ci.mcp" or m.startswith("averos_ci.mcp.")]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph[name])
    banned = ("averos_ci.github", "averos_ci.review")
    wrong = sorted(m for m in seen if any(m == b or m.startswith(b + ".") for b in banned))
    assert not wrong, f"averos_ci.mcp reaches {wrong}"


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_over_the_limit() -> None:
    long = {
        p.relative_to(PACKAGE.parent).as_posix(): _lines(p)
        for p in PACKAGE.rglob("*.py")
        if _lines(p) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_folder_over_the_limit() -> None:
    big = {
        d.relative_to(PACKAGE.parent).as_posix(): n
        for d in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]
        if (n := len(list(d.glob("*.py")))) > MAX_FOLDER_MODULES
    }
    assert not big, f"folders over {MAX_FOLDER_MODULES} modules: {big}"


def test_median_module_is_short() -> None:
    median = statistics.median(_lines(p) for p in PACKAGE.rglob("*.py"))
    assert median < MEDIAN_MODULE_LINES, f"median module: {median} lines"
