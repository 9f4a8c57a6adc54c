"""Replacing one folder of a commit's tree in-process: the trees on the folder's path are
written as loose objects by gitdb (no git process), the commit by one ``git hash-object``.

A push to the state branch rejected because another project's job moved it is re-applied on
the fetched tip (:func:`averos_ci.statebranch.landing.land`): in a matrix of N jobs this is
the critical section between the fetch and the push, and it runs on a machine shared by N
processes, so every process it spawns lengthens it and makes the next collision likelier.
Grafting the project's folder into the tip's tree by hand takes one process where the index
route (read-tree, rm, read-tree --prefix, write-tree, commit-tree) took five.
"""

from __future__ import annotations

import os
from io import BytesIO
from pathlib import PurePosixPath

import git
from git.objects.fun import tree_to_stream
from gitdb import IStream, LooseObjectDB  # type: ignore[import-untyped]

TREE_MODE = 0o040000

Entry = tuple[bytes, int, str]  # (binsha, mode, name), as git stores a tree entry


def graft(repo: git.Repo, root: git.Tree | None, subdir: str, folder: git.Tree | None) -> git.Tree:
    """``root`` (``None``: empty) with ``subdir`` replaced by ``folder`` (``None``: removed)."""
    sha = _graft(repo, root, PurePosixPath(subdir).parts, folder)
    return git.Tree(repo, sha if sha is not None else _store(repo, []))


def commit_tree(
    repo: git.Repo, tree: git.Tree, *, message: str, parent: str | None, identity: dict[str, str]
) -> str:
    """A commit of ``tree`` on ``parent``, as ``git commit-tree -m`` makes it: the identity
    is ``GIT_{AUTHOR,COMMITTER}_{NAME,EMAIL}`` of ``identity`` (see ``identity_env``), else of
    the environment."""
    parents = [repo.commit(parent)] if parent else []
    made = git.Commit.create_from_tree(
        repo,
        tree,
        message.rstrip("\n") + "\n",
        parent_commits=parents,
        author=_actor("AUTHOR", identity),
        committer=_actor("COMMITTER", identity),
    )
    return made.hexsha


def _actor(role: str, identity: dict[str, str]) -> git.Actor | None:
    def get(key: str) -> str | None:
        return identity.get(f"GIT_{role}_{key}") or os.environ.get(f"GIT_{role}_{key}")

    name, email = get("NAME"), get("EMAIL")
    return git.Actor(name, email) if name and email else None


def _graft(
    repo: git.Repo, tree: git.Tree | None, parts: tuple[str, ...], folder: git.Tree | None
) -> bytes | None:
    name, rest = parts[0], parts[1:]
    entries: list[Entry] = []
    below: git.Tree | None = None
    for item in tree or ():
        if item.name != name:
            entries.append((item.binsha, item.mode, item.name))
        elif isinstance(item, git.Tree):
            below = item
    new = (folder.binsha if folder is not None else None) if not rest else None
    if rest:
        new = _graft(repo, below, rest, folder)
    if new is not None:
        entries.append((new, TREE_MODE, name))
    if not entries:
        return None  # git keeps no empty folder
    return _store(repo, entries)


def _store(repo: git.Repo, entries: list[Entry]) -> bytes:
    # git's order: by name, a folder's name compared as if it ended with "/"
    entries.sort(key=lambda e: e[2].encode() + (b"/" if e[1] == TREE_MODE else b""))
    out = BytesIO()
    tree_to_stream(entries, out.write)
    data = out.getvalue()
    # GitPython's own store runs `git hash-object` per object; gitdb's writes the file itself
    stored = LooseObjectDB(repo.odb.root_path()).store(IStream(b"tree", len(data), BytesIO(data)))
    return bytes(stored.binsha)
