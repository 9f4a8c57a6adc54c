"""The state branch (default ``averos-state``): an orphan branch on the remote holding
``<project>/state.json``, checkpoints, the apply claim and run summaries.

Written with gitpython through a private index file and a scratch directory, so the user's
working tree and index are never touched. Pushes are never forced: a rejected push means the
branch moved (optimistic concurrency) and the caller re-fetches and decides again.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

import git

from averos_ci.statebranch.git_access import CredentialGit, identity_env
from averos_ci.statebranch.git_access import GitError as GitError
from averos_ci.statebranch.git_access import open_repo as open_repo
from averos_ci.statebranch.git_access import token_auth_env as token_auth_env
from averos_ci.statebranch.graft import commit_tree, graft
from averos_ci.statebranch.staging import stage, write_blobs

PRIVATE_REF_PREFIX = "refs/averos-ci/"
LINK_MODE = 0o120000  # a symlink blob in a git tree


class StateBranch:
    def __init__(
        self,
        repo_dir: Path,
        *,
        remote: str = "origin",
        branch: str = "averos-state",
        token: str | None = None,
        server_url: str = "https://github.com",
    ) -> None:
        self.repo = open_repo(repo_dir)
        self.remote = remote
        self.branch = branch
        self.private_ref = f"{PRIVATE_REF_PREFIX}{branch}"
        self._env = identity_env(self.repo)
        auth = token_auth_env(self.repo, remote, token=token, server_url=server_url)
        if auth and token:
            self.repo.git = CredentialGit(self.repo.working_dir, token)
            self.repo.git.update_environment(**auth)

    # -- reading ---------------------------------------------------------------------------

    def fetch(self) -> str | None:
        """Fetch the branch into a private ref; its tip, or ``None`` if it does not exist yet.

        One ``git fetch`` of that ref alone (no ``ls-remote`` first, the tip read in-process,
        no FETCH_HEAD and no ``git maintenance`` after it): parallel jobs fetch again after
        every rejected push, so each process counts.
        """
        try:
            self.repo.git.fetch(
                "--no-tags",
                "--quiet",
                "--no-write-fetch-head",
                "--no-auto-maintenance",
                self.remote,
                f"+refs/heads/{self.branch}:{self.private_ref}",
            )
        except git.GitCommandError as exc:
            text = _stderr(exc)  # GitPython runs git with LC_ALL=C: the message is git's own
            if "couldn't find remote ref" in text:
                return None
            raise GitError(
                f"cannot reach remote {self.remote!r} to fetch {self.branch!r}: {text}"
            ) from None
        return self.repo.commit(self.private_ref).hexsha

    def export(self, tip: str | None, subdir: str, dest: Path) -> None:
        """Write the files under ``subdir/`` at ``tip`` into ``dest`` (which is emptied first)."""
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        if tip is None:
            return
        tree = self.repo.commit(tip).tree
        try:
            sub = tree / subdir
        except KeyError:
            return
        if not isinstance(sub, git.Tree):
            return
        root = dest.resolve()
        try:
            self._export_tree(sub, subdir, root)
        except ValueError as exc:  # GitPython refuses a crafted path ("..", "/" …) in a tree
            raise GitError(
                f"{self.branch!r} holds an invalid path under {subdir!r}: {exc}",
                hint="the state branch was written by something other than averos-ci; "
                "restore it from its history and protect it",
            ) from None

    @staticmethod
    def _export_tree(sub: git.Tree, subdir: str, root: Path) -> None:
        for blob in sub.traverse():
            if not isinstance(blob, git.Blob):
                continue
            # the branch is untrusted: a crafted tree must not write outside ``dest`` or
            # leave a symlink behind (symlink blobs are skipped, others become plain files)
            rel = PurePosixPath(blob.path).relative_to(subdir)
            target = root.joinpath(*rel.parts)
            if (
                ".." in rel.parts
                or blob.mode == LINK_MODE
                or not target.resolve().is_relative_to(root)
            ):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob.data_stream.read())

    def read(self, tip: str | None, path: str) -> bytes | None:
        if tip is None:
            return None
        try:
            blob = self.repo.commit(tip).tree / path
        except KeyError:
            return None
        data: bytes = blob.data_stream.read()
        return data

    def read_pull_file(self, number: int, sha: str, path: str) -> bytes | None:
        """One file of pull request ``number`` at ``sha``, read as data (nothing checked out)."""
        ref = f"{PRIVATE_REF_PREFIX}pull/{number}"
        try:
            self.repo.git.fetch(
                "--no-tags", "--quiet", self.remote, f"+refs/pull/{number}/head:{ref}"
            )
        except git.GitCommandError as exc:
            raise GitError(f"cannot fetch pull request #{number}: {_stderr(exc)}") from None
        tip = str(self.repo.git.rev_parse(ref)).strip()
        if tip != sha:
            raise GitError(
                f"pull request #{number} moved on ({tip[:12]}, this run is for {sha[:12]})",
                hint="the run for the newer head will plan it",
            )
        return self.read(tip, path)

    def read_commit_file(self, sha: str, path: str) -> bytes | None:
        """``path`` at commit ``sha``, read as data; ``None`` when the file is not there.

        A shallow checkout (actions/checkout) lacks the commit: it is fetched by sha first.
        """
        if not re.fullmatch(r"[0-9a-f]{40}", sha):
            raise GitError(f"{sha[:64]!r} is not a commit sha")
        try:
            self.repo.git.cat_file("-e", f"{sha}^{{commit}}")
        except git.GitCommandError:
            try:
                ref = f"{PRIVATE_REF_PREFIX}base"
                self.repo.git.fetch(
                    "--no-tags", "--quiet", "--depth=1", self.remote, f"+{sha}:{ref}"
                )
            except git.GitCommandError as exc:
                raise GitError(f"cannot fetch commit {sha[:12]}: {_stderr(exc)}") from None
        try:
            blob = self.repo.commit(sha).tree / path
        except KeyError:
            return None
        if not isinstance(blob, git.Blob):
            return None
        data: bytes = blob.data_stream.read()
        return data

    # -- writing ---------------------------------------------------------------------------

    def commit(self, *, parent: str | None, subdir: str, src: Path, message: str) -> str:
        """A commit whose tree is ``parent``'s with ``subdir/`` replaced by ``src``'s files."""
        src = src.resolve()
        with self._scratch_index() as env:
            g = self.repo.git
            if parent:
                g.read_tree(parent, env=env)
            else:
                g.read_tree("--empty", env=env)
            g.rm("-r", "--cached", "--quiet", "--ignore-unmatch", "--", subdir, env=env)
            files = sorted(p for p in src.rglob("*") if p.is_file())
            shas = write_blobs(g, files, env=env)
            rels = (f"{subdir}/{file.relative_to(src).as_posix()}" for file in files)
            added = [("100644", sha, rel) for sha, rel in zip(shas, rels, strict=True)]
            stage(g, add=added, env=env)
            tree = str(g.write_tree(env=env)).strip()
            args = [tree, "-m", message] + (["-p", parent] if parent else [])
            return str(g.commit_tree(*args, env={**env, **self._env})).strip()

    def commit_paths(
        self,
        *,
        parent: str,
        changes: dict[str, Path | None],
        message: str,
        author: tuple[str, str] | None = None,
    ) -> str:
        """A commit on ``parent`` with repository paths replaced by files (``None``: deleted).

        ``author``: (name, email) of the person it is done for (the committer stays ours)."""
        with self._scratch_index() as env:
            g = self.repo.git
            g.read_tree(parent, env=env)
            removed = [rel for rel, file in sorted(changes.items()) if file is None]
            # a symlink is never committed through: it could point anywhere
            kept = [
                (r, f) for r, f in sorted(changes.items()) if f is not None and not f.is_symlink()
            ]
            shas = write_blobs(g, [file.resolve() for _, file in kept], env=env)
            added = [
                ("100755" if os.access(file, os.X_OK) else "100644", sha, rel)
                for (rel, file), sha in zip(kept, shas, strict=True)
            ]
            stage(g, remove=removed, add=added, env=env)
            tree = str(g.write_tree(env=env)).strip()
            who = {"GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1]} if author else {}
            return str(
                g.commit_tree(tree, "-p", parent, "-m", message, env={**env, **self._env, **who})
            ).strip()

    def replant(self, commit: str, *, onto: str | None, subdir: str) -> str:
        """``commit``'s ``subdir/`` re-applied onto ``onto``: a commit (same message) whose
        tree is ``onto``'s with that folder replaced — a rebase over other folders' commits,
        made in-process (it runs between a fetch and a push that parallel jobs race for)."""
        made = self.repo.commit(commit)
        try:
            folder = made.tree / subdir
        except KeyError:
            folder = None
        root = self.repo.commit(onto).tree if onto else None
        tree = graft(self.repo, root, subdir, folder if isinstance(folder, git.Tree) else None)
        message = str(made.message)
        return commit_tree(self.repo, tree, message=message, parent=onto, identity=self._env)

    def subtree(self, tip: str | None, subdir: str) -> str | None:
        """The tree id of ``subdir`` at ``tip`` (``None``: absent) — to detect foreign edits."""
        if tip is None:
            return None
        try:
            return str((self.repo.commit(tip).tree / subdir).hexsha)
        except KeyError:
            return None

    def push(self, commit: str) -> bool:
        """Push ``commit`` to the branch without force. ``False`` when rejected (it moved).

        One ``git push`` of the commit itself, its ``--porcelain`` report read here (no
        private ref updated first): parallel jobs push again after every rejection."""
        ref = f"refs/heads/{self.branch}"
        try:
            out, text = str(self.repo.git.push("--porcelain", self.remote, f"{commit}:{ref}")), ""
        except git.GitCommandError as exc:
            out, text = str(exc.stdout or ""), _stderr(exc)
        report = _report(out, ref)
        if report is None:  # git stopped before reporting on the ref
            if _rejected(text):
                return False
            raise GitError(
                f"cannot push {self.branch!r} to {self.remote!r}: {text or 'nothing reported'}"
            )
        flag, summary = report
        if flag == "!":
            if _rejected(summary):
                return False  # non-fast-forward, or lost the race for the ref lock
            raise GitError(
                f"push of {self.branch!r} to {self.remote!r} was refused: {summary}",
                hint="a branch protection rule or hook may forbid it; the token needs "
                "contents: write",
            )
        self.repo.git.update_ref(self.private_ref, commit)
        return True

    @contextmanager
    def _scratch_index(self) -> Iterator[dict[str, str]]:
        fd, path = tempfile.mkstemp(prefix="averos-ci-index.")
        os.close(fd)
        os.unlink(path)  # git creates it; an empty file is not a valid index
        try:
            yield {"GIT_INDEX_FILE": path}
        finally:
            for p in (path, path + ".lock"):
                if os.path.exists(p):
                    os.unlink(p)


def _report(out: str, ref: str) -> tuple[str, str] | None:
    """``git push --porcelain``'s line for ``ref``: its flag (``!`` rejected) and summary."""
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and parts[1].endswith(f":{ref}"):
            return parts[0][:1] or " ", parts[2]
    return None


def _rejected(text: str) -> bool:
    """A push refused because the branch moved: fetch and decide again."""
    return "non-fast-forward" in text or "fetch first" in text or _moved(text)


def _moved(text: str) -> bool:
    """The remote ref changed under us (another writer won): fetch and decide again."""
    markers = ("failed to update ref", "cannot lock ref", "incorrect old value", "stale info")
    return any(m in text for m in markers)


def _stderr(exc: git.GitCommandError) -> str:
    text = str(exc.stderr or exc.stdout or exc).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " ".join(lines)[-400:].replace("stderr: ", "")
