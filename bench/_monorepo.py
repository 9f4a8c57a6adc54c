"""A generated repository of many Averos projects (``apps/pNNN``), shared by the projects
tests and bench/projects_changed.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

MANIFEST = """\
applicationName: App{i}
defaultLanguageCode: en
entities:
  - name: Task{i}
    members:
      - {{memberNature: simple, ename: Task{i}, mname: title, memberType: string}}
"""


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def write_project(repo: Path, directory: str, i: int, **config: object) -> None:
    d = repo / directory
    d.mkdir(parents=True, exist_ok=True)
    cfg = {"adapter": "mock", "manifestPath": "app.manifest.yaml", "workspaceRoot": "generated"}
    cfg.update(config)
    (d / "averos.config.json").write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
    (d / "app.manifest.yaml").write_text(MANIFEST.format(i=i), encoding="utf-8")


def make_monorepo(repo: Path, count: int) -> list[str]:
    """``count`` projects committed on ``main``, plus decoys that are no projects: a config
    under node_modules, one in a git-ignored folder and one inside a project's generated
    workspace. Returns the project names (their directories)."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Bench")
    git(repo, "config", "user.email", "bench@example.com")
    names = [f"apps/p{i:03d}" for i in range(count)]
    for i, name in enumerate(names):
        write_project(repo, name, i)
    (repo / "libs/shared").mkdir(parents=True)
    (repo / "libs/shared/theme.scss").write_text("$c: red;\n", encoding="utf-8")
    (repo / "README.md").write_text("monorepo\n", encoding="utf-8")
    (repo / ".gitignore").write_text("scratch/\n", encoding="utf-8")
    for decoy in ("node_modules/pkg", "scratch/old", f"{names[0]}/generated/src"):
        write_project(repo, decoy, 999)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "projects")
    return names


def touch(repo: Path, *paths: str, message: str = "change") -> str:
    """Append a line to each path (creating it) and commit; returns the new commit."""
    for rel in paths:
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.suffix == ".json":  # still a valid config: one more key
            data = json.loads(p.read_text(encoding="utf-8"))
            data["maxAttempts"] = int(data.get("maxAttempts", 1)) + 1
            p.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
            continue
        with p.open("a", encoding="utf-8") as f:
            f.write("# changed\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()
