"""State file format (``.averos/state.json``), versioned, with an upgrade path."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import Field, field_validator

from averos_ci._fs import UnsafePath, safe_relpath
from averos_ci._model import WireModel
from averos_ci.plan.canonical import canonical_json

STATE_FORMAT_VERSION = 4  # 4: the pristine generated tree (regeneration)
EMPTY_STATE_HASH = hashlib.sha256(b"averos-ci:empty-state").hexdigest()


class NodeState(WireModel):
    args_hash: str  # sha256 of the node's canonical args when it was applied
    applied_at: str


class AdapterRecord(WireModel):
    """The adapter that produced the state: a state is only the base of runs of the same one."""

    name: str
    version: str | None = None
    options_digest: str | None = None  # sha256 of the canonical adapterOptions


def _relative_paths(files: dict[str, str]) -> dict[str, str]:
    """A state file may come from the state branch (anyone who can push it): every path it
    names is a plain relative one, or the state is refused (averos_ci._fs.safe_relpath)."""
    for path in files:
        try:
            safe_relpath(path)
        except UnsafePath as exc:  # a ValueError: the store names the state file and field
            raise ValueError(exc.message) from None
    return files


class NodeFiles(WireModel):
    files: dict[str, str] = {}  # workspace-relative path -> sha256 of the content after the run

    _paths = field_validator("files")(_relative_paths)


class PullRequestLocation(WireModel):
    number: int
    url: str | None = None
    branch: str
    commit: str


class WorkspaceRecord(WireModel):
    """Where the generated application is and what it holds (the fingerprint).

    ``commit``: in CI, the commit of the default branch that holds the generated files;
    ``pull_request``: set while they wait in an unmerged pull request (protected branch).
    """

    nodes: dict[str, NodeFiles] = {}
    commit: str | None = None
    pull_request: PullRequestLocation | None = None

    def files(self) -> dict[str, str]:
        return {p: h for n in self.nodes.values() for p, h in n.files.items()}


class PristineRecord(WireModel):
    """The clean generation of the applied manifest, kept apart from the workspace: the base of
    the next three-way merge. ``files``: path -> sha256 of the *generated* content (the
    workspace fingerprint has the workspace's); the contents are in the pristine store
    (``<state folder>/pristine/``, averos_ci.execute.regen.tree) under ``key``."""

    key: str
    files: dict[str, str] = {}

    _paths = field_validator("files")(_relative_paths)


class AppliedState(WireModel):
    format_version: int = STATE_FORMAT_VERSION
    manifest: dict[str, Any]  # the applied manifest, normalized (averos_ci.manifest.normalize)
    manifest_hash: str
    serial: int
    lineage: str
    built_at: str
    node_states: dict[str, NodeState] = {}
    adapter: AdapterRecord | None = None  # None: written before formatVersion 3 (unknown)
    workspace: WorkspaceRecord | None = None  # None: no fingerprint recorded
    # None: not regenerated yet (written before formatVersion 4, or by a non-regenerating run)
    pristine: PristineRecord | None = Field(default=None, exclude_if=lambda v: v is None)

    def successor(
        self,
        *,
        manifest: dict[str, Any],
        manifest_hash: str,
        node_states: dict[str, NodeState],
        adapter: AdapterRecord | None = None,
        workspace: WorkspaceRecord | None = None,
        pristine: PristineRecord | None = None,
    ) -> AppliedState:
        return AppliedState(
            manifest=manifest,
            manifest_hash=manifest_hash,
            serial=self.serial + 1,
            lineage=self.lineage,
            built_at=now_iso(),
            node_states=node_states,
            adapter=adapter,
            workspace=workspace,
            pristine=pristine,
        )

    @classmethod
    def first(
        cls,
        *,
        manifest: dict[str, Any],
        manifest_hash: str,
        node_states: dict[str, NodeState],
        adapter: AdapterRecord | None = None,
        workspace: WorkspaceRecord | None = None,
        pristine: PristineRecord | None = None,
    ) -> AppliedState:
        return cls(
            manifest=manifest,
            manifest_hash=manifest_hash,
            serial=1,
            lineage=str(uuid.uuid4()),
            built_at=now_iso(),
            node_states=node_states,
            adapter=adapter,
            workspace=workspace,
            pristine=pristine,
        )


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def state_hash(state: AppliedState | None) -> str:
    """Identity of the base state a plan was computed against."""
    if state is None:
        return EMPTY_STATE_HASH
    return hashlib.sha256(canonical_json(state.to_wire()).encode()).hexdigest()


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """Bring an older state document to the current format, one step at a time (pure)."""
    if "formatVersion" not in data:  # Averos's own state.json: step 0 of the chain
        from averos_ci.state.averos_compat import averos_to_v2

        data = averos_to_v2(data)
    if data.get("formatVersion") == 1:
        data = upgrade_v1_to_v2(data)
    if data.get("formatVersion") == 2:
        data = upgrade_v2_to_v3(data)
    if data.get("formatVersion") == 3:
        data = upgrade_v3_to_v4(data)
    return data


def upgrade_v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """v3 kept no pristine tree: the next plan regenerates it from the state's manifest and
    shows, once, every difference between it and the workspace as edits found."""
    return {**data, "formatVersion": 4}


def upgrade_v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """v2 recorded neither the adapter nor the workspace: both become unknown (``null``).

    An unknown adapter is accepted as the base of any adapter's run (with a warning) and is
    recorded by the next successful run; an absent fingerprint disables drift detection.
    """
    return {**data, "formatVersion": 3, "adapter": None, "workspace": None}


def upgrade_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    version = data.get("formatVersion")
    if version == 1:
        # v1 (averos-ci 0.0.x) had no serial/lineage/nodeStates.
        manifest_hash = str(data.get("manifestHash", ""))
        data = {
            "formatVersion": 2,
            "manifest": data.get("manifest"),
            "manifestHash": manifest_hash,
            "serial": 1,
            "lineage": str(uuid.uuid5(uuid.NAMESPACE_URL, "averos-ci:" + manifest_hash)),
            "builtAt": data.get("builtAt", "1970-01-01T00:00:00.000Z"),
            "nodeStates": {},
        }
    return data
