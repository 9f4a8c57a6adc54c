"""One commit of the state branch, indexed once (``git ls-tree -r -t``), so that reading
every project's folder costs one lookup per file, not a walk from the root through trees of
thousands of entries (gitpython parses each tree anew on every ``tree / path``: with 2,000
projects, three minutes instead of seconds).

:func:`indexed` hands ``averos-ci state show``'s readers (:mod:`averos_ci.stateops.show`) a
state branch whose ``repo.commit(tip).tree / path`` answers from the index; every other use
of the repository goes to the real one."""

from __future__ import annotations

from typing import Any, cast

import git

from averos_ci.statebranch.state_branch import StateBranch


class Snapshot:
    def __init__(self, repo: git.Repo, tip: str) -> None:
        self.repo, self.tip = repo, tip
        self.entries: dict[str, tuple[int, str, str]] = {}  # path -> (mode, type, sha)
        for record in str(repo.git.ls_tree("-r", "-t", "-z", tip)).split("\0"):
            meta, tab, path = record.partition("\t")
            fields = meta.split(" ")
            if tab and len(fields) == 3:
                self.entries[path] = (int(fields[0], 8), fields[1], fields[2])

    def paths(self) -> list[str]:
        """Every file's path."""
        return [p for p, (_, kind, _) in self.entries.items() if kind == "blob"]

    def __truediv__(self, path: str) -> git.Blob | git.Tree:
        """What ``tree / path`` gives at the root of the commit (``KeyError``: absent)."""
        mode, kind, sha = self.entries[path.strip("/")]
        if kind == "tree":
            return git.Tree(self.repo, bytes.fromhex(sha), mode, path.strip("/"))
        if kind == "blob":
            return git.Blob(self.repo, bytes.fromhex(sha), mode, path.strip("/"))
        raise KeyError(path)  # a submodule: nothing the branch's readers can read


class _Commit:
    def __init__(self, tree: Snapshot) -> None:
        self.tree = tree


class _Repo:
    """The repository, but the commit ``tip`` is the indexed :class:`Snapshot`."""

    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot

    def commit(self, rev: Any = None) -> Any:
        if rev == self._snapshot.tip:
            return _Commit(self._snapshot)
        return self._snapshot.repo.commit(rev)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._snapshot.repo, name)


def indexed(sb: StateBranch, tip: str) -> tuple[StateBranch, Snapshot]:
    """``sb`` reading ``tip`` from its index (the same branch object, its ``repo`` wrapped)."""
    snapshot = Snapshot(sb.repo, tip)
    sb.repo = cast(git.Repo, _Repo(snapshot))
    return sb, snapshot
