"""Where the state a plan builds on comes from: a state file, or the manifest at a git ref.
The state branch's source lives in :mod:`averos_ci.statebranch.project_state` (it implements
:class:`StateSource`; the service never imports the state branch)."""

from __future__ import annotations

import subprocess
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from averos_ci.errors import InputError
from averos_ci.source import parse_document
from averos_ci.state import FileStateStore
from averos_ci.state.model import AppliedState


class StateSource(Protocol):
    """The base of a plan: the applied state, and how messages name where it was read."""

    @property
    def where(self) -> str | Path:
        """The state's location in messages (a file, ``branch:project/state.json``)."""

    @property
    def guarded(self) -> bool:
        """Check the adapter and the workspace against the state (drift repairs included):
        true for a state a run builds on; false for a manifest taken as the base."""

    @property
    def read_only(self) -> bool:
        """Generate the code patch in a scratch folder and never write the pristine store."""

    def load(self) -> AppliedState | None:
        """The applied state (``None``: nothing applied yet)."""

    def state_file(self) -> AbstractContextManager[Path | None]:
        """A state file with its pristine store beside it, for the code patch (``None``: no
        code patch from this source)."""


@dataclass(frozen=True)
class FileState:
    """The state file of a local run (``statePath``); its pristine store is written."""

    path: Path
    guarded: bool = True
    read_only: bool = False

    @property
    def where(self) -> Path:
        return self.path

    def load(self) -> AppliedState | None:
        return FileStateStore(self.path).load()

    def state_file(self) -> AbstractContextManager[Path | None]:
        return nullcontext(self.path)


@dataclass(frozen=True)
class RefState:
    """The manifest as it is at a git ref, taken as an applied state: what a pull request from
    here into that ref would change. No adapter, no workspace, no code patch."""

    repo_root: Path
    manifest: str  # the manifest's path in the repository
    ref: str
    max_bytes: int
    guarded: bool = False
    read_only: bool = True

    @property
    def where(self) -> str:
        return f"{self.ref}:{self.manifest}"

    def state_file(self) -> AbstractContextManager[Path | None]:
        return nullcontext(None)

    def load(self) -> AppliedState | None:
        from averos_ci.manifest.issues import ManifestInvalid
        from averos_ci.manifest.validate import validate_document
        from averos_ci.plan.planner import plan_manifest

        ref = self.ref
        if ref.startswith("-") or not ref.strip():
            raise InputError(f"{ref!r} is not a git ref", hint="e.g. main, origin/main, HEAD~1")
        if self._git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode != 0:
            raise InputError(
                f"git ref {ref!r} not found",
                path=self.repo_root,
                hint="fetch it, or use against='state'",
            )
        shown = self._git("show", f"{ref}:{self.manifest}")
        if shown.returncode != 0:
            return None  # the manifest is new since ref: everything is to add
        if len(shown.stdout) > self.max_bytes:
            raise InputError(f"the manifest at {ref} is over the {self.max_bytes}-byte limit")
        doc = parse_document(
            shown.stdout, path=self.repo_root / self.manifest, what=f"manifest at {ref}"
        )
        result = validate_document(doc)
        if result.manifest is None:
            raise ManifestInvalid(result.issues)
        manifest_hash = plan_manifest(result.manifest, None).plan.manifest_hash
        return AppliedState.first(
            manifest=result.manifest, manifest_hash=manifest_hash, node_states={}
        )

    def _git(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            ["git", "-C", str(self.repo_root), *args],
            capture_output=True,
            check=False,
            timeout=60,
        )


@dataclass(frozen=True)
class LoadedState:
    """A state the caller already read, named as it was read; no code patch from it (its
    pristine store is not at hand)."""

    state: AppliedState | None
    where: str | Path
    guarded: bool = True
    read_only: bool = True

    def load(self) -> AppliedState | None:
        return self.state

    def state_file(self) -> AbstractContextManager[Path | None]:
        return nullcontext(None)
