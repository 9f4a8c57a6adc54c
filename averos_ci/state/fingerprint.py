"""The workspace fingerprint recorded in the state: per node, the files its RuntimeMutation
created or updated, with their content hashes *after* the run — and the adapter record.

Hashes are taken once the whole run is over, so a file touched by several nodes carries its
final content under each of them; a file that no longer exists is not recorded (the mock
adapter's mutations name files it never writes: its fingerprint is empty).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from averos_ci._fs import contained, is_safe_relpath
from averos_ci.plan.canonical import canonical_json
from averos_ci.state.model import AdapterRecord, NodeFiles, WorkspaceRecord


def file_hash(path: Path) -> str | None:
    """sha256 of a regular file's content; ``None`` when absent or not a regular file."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def adapter_record(adapter: Any, options: Mapping[str, Any]) -> AdapterRecord:
    """What produced the state: the adapter's name, its version and a digest of its options."""
    from averos_ci import __version__

    version = getattr(adapter, "version", None) or __version__
    digest = hashlib.sha256(canonical_json(dict(options)).encode()).hexdigest()
    return AdapterRecord(name=str(adapter.name), version=str(version), options_digest=digest)


def build_fingerprint(
    workspace_root: Path,
    *,
    previous: WorkspaceRecord | None,
    mutations: Mapping[str, Iterable[str]],
    keep: Iterable[str],
) -> WorkspaceRecord:
    """The fingerprint after a run.

    ``mutations``: node id -> created/updated paths of the nodes that ran (deleted files
    simply no longer exist and drop out);
    ``keep``: ids of the nodes of the applied plan (nodes of the previous fingerprint that
    are no longer in the plan are dropped). Nodes that did not run keep their file list.
    """
    keep = set(keep)
    lists: dict[str, set[str]] = {
        node: set(nf.files) for node, nf in (previous.nodes if previous else {}).items()
    }
    for node, written in mutations.items():
        lists.setdefault(node, set()).update(written)
    nodes: dict[str, NodeFiles] = {}
    cache: dict[str, str | None] = {}
    for node in sorted(lists):
        if node not in keep:
            continue
        files: dict[str, str] = {}
        for rel in sorted(lists[node]):
            if not is_safe_relpath(rel):  # an adapter's mutation is data: never outside
                continue
            if rel not in cache:
                cache[rel] = file_hash(contained(workspace_root, rel))
            digest = cache[rel]
            if digest is not None:
                files[rel] = digest
        if files:
            nodes[node] = NodeFiles(files=files)
    return WorkspaceRecord(nodes=nodes)
