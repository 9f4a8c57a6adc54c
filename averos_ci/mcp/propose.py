"""The ``propose`` tool: the manifest changes of the working tree, committed on a new branch,
pushed to origin, and a pull request opened — so the plan comment, a person's approval and the
apply on merge happen as for any other change. Nothing here approves or applies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from averos_ci.errors import AverosCIError, InputError
from averos_ci.mcp.remote import GitFailed, Remote, git
from averos_ci.mcp.workspace import Workspace

FOOTER = (
    "\n\n---\nProposed by an agent through `averos-ci mcp`. The plan comment below is what "
    "would be applied; a person reviews it and approves it. The agent cannot approve."
)


@dataclass(frozen=True)
class Identity:
    """The git author and committer of the agent's commits (never the global git config)."""

    name: str = "averos-ci agent"
    email: str = "agent@averos-ci.invalid"

    def env(self) -> dict[str, str]:
        return {
            "GIT_AUTHOR_NAME": self.name,
            "GIT_AUTHOR_EMAIL": self.email,
            "GIT_COMMITTER_NAME": self.name,
            "GIT_COMMITTER_EMAIL": self.email,
        }


def propose(
    ws: Workspace,
    *,
    forge: Remote,
    branch: str,
    title: str,
    body: str,
    base: str | None = None,
    identity: Identity = Identity(),
) -> dict[str, Any]:
    from averos_ci.forge.api import GitHubClient
    from averos_ci.manifest.issues import ManifestInvalid
    from averos_ci.manifest.validate import validate_file

    token, repository = forge.require()
    if not title.strip():
        raise InputError("the pull request needs a title")
    current = git(ws.root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    if current.returncode != 0:
        raise InputError("HEAD is detached", hint="check out the branch the change is based on")
    start = current.stdout.strip()
    base = base or start
    _check_branch(ws, branch, base=base)
    files = changed_manifests(ws)
    if not files:
        raise InputError(
            "no manifest change in the working tree to propose",
            hint="change a manifest with edit_manifest first",
        )
    for rel in files:
        result = validate_file(ws.root / rel, max_bytes=ws.max_bytes)
        if not result.valid:
            raise ManifestInvalid(result.issues)
    git(ws.root, "checkout", "--quiet", "-b", branch)
    try:
        git(ws.root, "add", "--", *files)
        git(
            ws.root,
            "-c",
            "commit.gpgsign=false",
            "commit",
            "--quiet",
            "-m",
            title,
            *(["-m", body] if body.strip() else []),
            "--",
            *files,
            env=identity.env(),
        )
    except GitFailed:
        git(ws.root, "checkout", "--quiet", start, check=False)
        git(ws.root, "branch", "-D", branch, check=False)
        raise
    commit = git(ws.root, "rev-parse", "HEAD").stdout.strip()
    refspec = f"refs/heads/{branch}:refs/heads/{branch}"
    try:
        git(ws.root, "push", "--quiet", "origin", refspec, scrub=forge)
    except GitFailed as exc:
        exc.hint = (
            f"the commit {commit[:12]} is on the local branch {branch!r}: check origin and its "
            "credentials, then push it and open the pull request"
        )
        raise
    try:
        with GitHubClient(token=token, repository=repository, api_url=forge.api_url) as client:
            pr = client.create_pull(title=title, head=branch, base=base, body=body + FOOTER)
    except AverosCIError as exc:
        exc.hint = f"the branch {branch!r} is pushed; open the pull request from it by hand"
        raise
    return {
        "branch": branch,
        "base": base,
        "commit": commit,
        "files": files,
        "pullRequest": {"number": pr.get("number"), "url": pr.get("html_url")},
    }


def _check_branch(ws: Workspace, branch: str, *, base: str) -> None:
    cfg = ws.run_config()
    state_branch = str(cfg.github.get("stateBranch") or "averos-state")
    fmt = git(ws.root, "check-ref-format", "--branch", branch, check=False)
    if fmt.returncode != 0 or branch.startswith("-"):
        raise InputError(f"{branch!r} is not a valid branch name")
    for ref in (f"refs/heads/{branch}", f"refs/remotes/origin/{branch}"):
        if git(ws.root, "rev-parse", "--verify", "--quiet", ref, check=False).returncode == 0:
            raise InputError(f"branch {branch!r} already exists", hint="choose a new name")
    if branch in (state_branch, base):
        raise InputError(
            f"the change is never committed to {branch!r}",
            hint="name a new branch, e.g. agent/add-status-field",
        )


def changed_manifests(ws: Workspace) -> list[str]:
    """Repository-relative manifests that differ from HEAD (modified or new)."""
    out = git(ws.root, "status", "--porcelain=v1", "-z", "--untracked-files=all").stdout
    paths = []
    entries = out.split("\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        if "R" in status or "C" in status:
            i += 1  # the rename's source path follows
        if "D" in status:
            continue
        try:
            ws.manifest(path)
        except InputError:
            continue
        paths.append(path)
    return sorted(paths)
