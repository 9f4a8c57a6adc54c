"""The ``averos-validate`` entry of a repository's ``.pre-commit-config.yaml``.

The entry is pinned to an immutable release tag (``pre-commit autoupdate`` moves it). When
averos-ci's GitHub repository is not known (a local project set up from a clone install), the
entry is a ``repo: local`` hook running the ``averos-ci`` installed on the machine. An existing
file keeps everything else: the entry is appended to ``repos``, or an entry that pins another
repository or tag is reported (and replaced only with ``--force``).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

PATH = ".pre-commit-config.yaml"
HOOK_ID = "averos-validate"
LOCAL = "local"  # pre-commit's repository of hooks defined in the file itself


@dataclass(frozen=True)
class Merge:
    text: str  # the file as init would leave it
    differs: str | None  # why an existing entry is not ours (a conflict); None: no conflict


def entry_text(*, repo_url: str | None, rev: str) -> str:
    """The entry pinned to ``repo_url`` at ``rev``; ``repo_url=None``: the local hook (the
    fields of averos-ci's ``.pre-commit-hooks.yaml``, run by the installed ``averos-ci``)."""
    if repo_url is None:
        return (
            f"  - repo: {LOCAL}\n"
            "    hooks:\n"
            f"      - id: {HOOK_ID} # the averos-ci installed here; `averos-ci init "
            "--action-repo OWNER/NAME` pins a release instead\n"
            "        name: validate Averos manifests\n"
            "        entry: averos-ci validate\n"
            "        language: system\n"
            "        types_or: [yaml, json]\n"
            "        files: (manifest\\.(json|ya?ml)|\\.averos\\.(json|ya?ml)"
            "|(^|/)averos[^/]*\\.config\\.json)$\n"
        )
    return (
        f"  - repo: {repo_url}\n"
        f"    rev: {rev} # an immutable release tag; `pre-commit autoupdate` moves it\n"
        "    hooks:\n"
        f"      - id: {HOOK_ID}\n"
    )


def merge(existing: str | None, *, repo_url: str | None, rev: str, force: bool) -> Merge:
    if existing is None or not existing.strip():
        return Merge("repos:\n" + entry_text(repo_url=repo_url, rev=rev), None)
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    try:
        data = yaml.load(existing)
    except YAMLError as exc:
        return Merge(existing, f"{PATH} is not valid YAML ({type(exc).__name__})")
    repos = data.get("repos") if isinstance(data, dict) else None
    if not isinstance(repos, list):
        return Merge(existing, f"{PATH} has no 'repos' list")
    ours = [r for r in repos if isinstance(r, dict) and _has_hook(r)]
    if not ours:
        if _repos_is_last(existing):  # append as text: the user's layout stays byte for byte
            text = existing.rstrip("\n") + "\n" + entry_text(repo_url=repo_url, rev=rev)
            return Merge(text, None)
        repos.append(_entry(yaml, repo_url=repo_url, rev=rev))
        return Merge(_dump(yaml, data), None)
    wrong = [r for r in ours if not _pins(r, repo_url=repo_url, rev=rev)]
    if not wrong:
        return Merge(existing, None)
    why = ", ".join(_shown(r.get("repo"), r.get("rev")) for r in wrong)
    if not force:
        return Merge(existing, f"the {HOOK_ID} hook pins {why}, not {_shown(repo_url, rev)}")
    for entry in wrong:
        if repo_url is not None and entry.get("repo") != LOCAL:
            entry["repo"], entry["rev"] = repo_url, rev
            continue
        entry["hooks"] = [h for h in entry["hooks"] if not _is_ours(h)]  # moved to a new entry
        if not entry["hooks"]:
            repos.remove(entry)
    if any(r.get("repo") != repo_url for r in wrong):
        repos.append(_entry(yaml, repo_url=repo_url, rev=rev))
    return Merge(_dump(yaml, data), None)


def _pins(entry: dict[str, Any], *, repo_url: str | None, rev: str) -> bool:
    if repo_url is None:
        return entry.get("repo") == LOCAL
    return (entry.get("repo"), str(entry.get("rev"))) == (repo_url, rev)


def _shown(repo_url: object, rev: object) -> str:
    return "a local hook (repo: local)" if repo_url in (None, LOCAL) else f"{repo_url}@{rev}"


def _entry(yaml: YAML, *, repo_url: str | None, rev: str) -> Any:
    if repo_url is not None:
        return {"repo": repo_url, "rev": rev, "hooks": [{"id": HOOK_ID}]}
    return yaml.load("repos:\n" + entry_text(repo_url=None, rev=rev))["repos"][0]


def _dump(yaml: YAML, data: Any) -> str:
    yaml.indent(mapping=2, sequence=4, offset=2)
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _repos_is_last(text: str) -> bool:
    """``repos:`` is a block at the top level and no other top-level key follows it."""
    keys = [line.split(":")[0] for line in text.splitlines() if line[:1].isalpha()]
    return bool(keys) and keys[-1] == "repos" and "repos: [" not in text


def _has_hook(entry: dict[str, Any]) -> bool:
    hooks = entry.get("hooks")
    return isinstance(hooks, list) and any(_is_ours(h) for h in hooks)


def _is_ours(hook: object) -> bool:
    return isinstance(hook, dict) and hook.get("id") == HOOK_ID
