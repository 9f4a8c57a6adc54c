"""The ``status`` tool (read-only): a project's applied state, its drift, the plan of the
working tree against it, and — with a GitHub token — the open pull requests and their
``averos-ci/…`` statuses."""

from __future__ import annotations

import itertools
from typing import Any

from averos_ci.errors import AverosCIError
from averos_ci.mcp.remote import Remote, git
from averos_ci.mcp.workspace import Workspace

MAX_PULLS = 50  # a status call stays a handful of requests, whatever the repository


def status(ws: Workspace, *, forge: Remote, project: str | None = None) -> dict[str, Any]:
    from averos_ci.mcp.planning import plan_summary
    from averos_ci.state import FileStateStore

    cfg = ws.run_config(project)
    local = FileStateStore(cfg.state_path).load()
    name = _project_name(ws, project, cfg.github)
    branch_state = _state_on_branch(ws, name, str(cfg.github.get("stateBranch") or "averos-state"))
    try:
        plan = plan_summary(ws, project=project)
        plan_error = None
    except AverosCIError as exc:
        plan, plan_error = None, str(exc)
    return {
        "project": name,
        "config": ws.relative(cfg.config_path) if cfg.config_path else None,
        "localState": _state_wire(local, ws.relative(cfg.state_path)),
        "stateBranch": branch_state,
        "drift": plan["drift"] if plan else None,
        "plan": (
            {k: plan[k] for k in ("planHash", "applicable", "hasChanges", "counts", "text")}
            if plan
            else None
        ),
        "planError": plan_error,
        "pullRequests": _pull_requests(forge),
    }


def _project_name(ws: Workspace, project: str | None, github: dict[str, Any]) -> str:
    from averos_ci.projects.model import default_project_name

    if github.get("project"):
        return str(github["project"])
    if not project:
        return "default"
    target = ws.inside(project, what="project")
    directory = target if target.is_dir() else target.parent
    return default_project_name(ws.relative(directory) if directory != ws.root else ".")


def _state_wire(state: Any, where: str) -> dict[str, Any] | None:
    if state is None:
        return None
    return {
        "where": where,
        "application": state.manifest.get("application", {}).get("applicationName"),
        "serial": state.serial,
        "manifestHash": state.manifest_hash,
        "builtAt": state.built_at,
        "adapter": state.adapter.name if state.adapter else None,
        "nodes": len(state.node_states),
    }


def _state_on_branch(ws: Workspace, project: str, branch: str) -> dict[str, Any] | None:
    """The state CI applied, from the state branch as last fetched (never fetched here)."""
    from averos_ci.state.store import parse_state

    for ref in (f"refs/remotes/origin/{branch}", f"refs/heads/{branch}"):
        shown = git(ws.root, "show", f"{ref}:{project}/state.json", check=False)
        if shown.returncode == 0:
            try:
                state = parse_state(shown.stdout.encode(), path=ws.root / f"{ref}:{project}")
            except AverosCIError as exc:
                return {"where": ref, "error": str(exc)}
            return _state_wire(state, f"{ref}:{project}/state.json")
    return None


def _pull_requests(forge: Remote) -> dict[str, Any]:
    from averos_ci.forge.api import GitHubClient

    if not forge.configured:
        return {"checked": False, "reason": "no GitHub token or repository configured", "open": []}
    token, repository = forge.require()
    out = []
    try:
        with GitHubClient(token=token, repository=repository, api_url=forge.api_url) as client:
            pulls = client.paginate(f"/repos/{repository}/pulls", params={"state": "open"})
            for pr in itertools.islice(pulls, MAX_PULLS):
                sha = str((pr.get("head") or {}).get("sha") or "")
                statuses: list[dict[str, Any]] = []
                if sha:
                    combined = client.request("GET", f"/repos/{repository}/commits/{sha}/status")
                    statuses = combined.json().get("statuses") or []
                out.append(
                    {
                        "number": pr.get("number"),
                        "title": pr.get("title"),
                        "author": (pr.get("user") or {}).get("login"),
                        "url": pr.get("html_url"),
                        "head": pr.get("head", {}).get("ref"),
                        "plans": [
                            {
                                "context": s.get("context"),
                                "state": s.get("state"),
                                "description": s.get("description"),
                            }
                            for s in statuses
                            if str(s.get("context", "")).startswith("averos-ci/")
                        ],
                    }
                )
    except AverosCIError as exc:
        return {"checked": False, "reason": forge.scrub(str(exc)), "open": out}
    return {"checked": True, "reason": None, "open": out}
