"""The server is a thin front over the library (ARCHITECTURE: "It never imports approval or
apply code"), checked by what a tool call actually does: each tool is called through the real
server in a fresh Python process, which then reports every module in ``sys.modules`` (with the
module that first imported each) and every child process it started during the call (an audit
hook: ``subprocess.Popen``, ``os.posix_spawn``, ``os.fork``, ``os.exec*``, ``os.system``).

- ``validate`` and ``explain`` load no ``averos_ci.execute*``, ``averos_ci.github*`` or
  ``averos_ci.review*`` module and start no child process;
- ``plan`` loads no ``averos_ci.github*``, ``averos_ci.review*`` or ``averos_ci.execute.apply``
  (it may generate: a regenerating adapter's code patch is a clean generation).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import averos_ci.mcp

PROBE = r"""
import asyncio, importlib.abc, json, sys
from pathlib import Path

SPAWNS = {"subprocess.Popen", "os.posix_spawn", "os.fork", "os.forkpty", "os.exec",
          "os.spawn", "os.system", "pty.spawn"}
recording = False
spawned = []


def audit(event, args):
    if recording and event in SPAWNS:
        spawned.append(f"{event} {args[1] if event == 'subprocess.Popen' else args[:1]!r}"[:300])


sys.addaudithook(audit)
importer = {}


class Who(importlib.abc.MetaPathFinder):
    # records, for each averos_ci module, the averos_ci module whose code imported it first
    def find_spec(self, fullname, path, target=None):
        if fullname.startswith("averos_ci") and fullname not in importer:
            frame = sys._getframe(1)
            while frame is not None:
                name = frame.f_globals.get("__name__", "")
                if name.startswith("averos_ci") and name != fullname:
                    importer[fullname] = name
                    break
                frame = frame.f_back
            else:
                importer[fullname] = "(the probe)"
        return None


sys.meta_path.insert(0, Who())
from averos_ci.mcp.server import build_server
from averos_ci.mcp.workspace import Workspace

root, tool, arguments = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
server = build_server(Workspace.open(Path(root)))
recording = True
result = asyncio.run(server.call_tool(tool, arguments))
recording = False
print(json.dumps({
    "error": bool(getattr(result, "is_error", False)),
    "result": result.model_dump(mode="json", by_alias=True),
    "modules": sorted(m for m in sys.modules if m.startswith("averos_ci")),
    "importer": importer,
    "spawned": spawned,
}))
"""

NO_CORE_BEYOND_PLAN = ("averos_ci.execute", "averos_ci.github", "averos_ci.review")
NEVER_IN_PLAN = ("averos_ci.github", "averos_ci.review")


def call(root: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(root), tool, json.dumps(arguments)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert not report["error"], report["result"]
    return report


def chain(report: dict[str, Any], module: str) -> str:
    """``a <- b <- c``: who imported ``module``, and who imported that, up to the server."""
    links, seen = [module], {module}
    while (parent := report["importer"].get(links[-1])) and parent not in seen:
        links.append(parent)
        seen.add(parent)
    return " <- ".join(links)


def loaded(report: dict[str, Any], prefixes: tuple[str, ...]) -> list[str]:
    return [
        chain(report, m)
        for m in report["modules"]
        if any(m == p or m.startswith(p + ".") for p in prefixes)
    ]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("validate", {"path": "todoapp.manifest.yaml"}),
        ("validate", {"manifest": "applicationName: A\nentities: [\n"}),
        ("explain", {"subject": "REF-01"}),
        ("explain", {"subject": "entity:ToDoTask"}),
    ],
    ids=["validate-file", "validate-inline", "explain-code", "explain-node"],
)
def test_validate_and_explain_load_no_execution_and_start_no_process(
    repo: Path, tool: str, arguments: dict[str, Any]
) -> None:
    report = call(repo, tool, arguments)
    # the probe sees the modules the call did load (else an empty list below would prove nothing)
    assert f"averos_ci.mcp.{'validation' if tool == 'validate' else 'explain'}" in report["modules"]
    assert not loaded(report, NO_CORE_BEYOND_PLAN)
    assert report["spawned"] == []


def test_plan_never_loads_flows_review_or_the_apply(repo: Path) -> None:
    config = repo / "averos.config.json"
    data = json.loads(config.read_text())
    data["adapterOptions"] = {"writeFiles": True}  # a regenerating adapter: the plan generates
    config.write_text(json.dumps(data))
    report = call(repo, "plan", {})
    assert report["result"]["structuredContent"]["planHash"]
    forbidden = loaded(report, NEVER_IN_PLAN)
    if "averos_ci.execute.apply" in report["modules"]:
        forbidden.append(chain(report, "averos_ci.execute.apply"))
    assert not forbidden, "\n".join(forbidden)


def test_the_probe_sees_what_it_must_refuse(repo: Path) -> None:
    """Positive control: the same probe, on a call that does start a process (``status`` reads
    the state branch with git), reports it; so the empty lists above are evidence."""
    report = call(repo, "status", {})
    assert report["spawned"], "status runs git: the audit hook must see it"


def test_public_api() -> None:
    assert averos_ci.mcp.__all__ == ["serve"]
