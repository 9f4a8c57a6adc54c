"""Per-node log files: one per node under ``logsDir/nodes``, with a file-system-safe name.

Node ids contain ``:`` (and may contain anything a manifest name allows), so the readable
part keeps only ``[A-Za-z0-9._-]`` and a hash of the full id keeps names distinct, also on
case-insensitive file systems.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

NODE_LOG_DIR = "nodes"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_READABLE = 80


def node_log_name(node_id: str) -> str:
    readable = _UNSAFE.sub("_", node_id).strip("._")[:_MAX_READABLE] or "node"
    digest = hashlib.sha256(node_id.encode("utf-8")).hexdigest()[:12]
    return f"{readable}.{digest}.log"


def node_log_path(logs_dir: Path, node_id: str) -> Path:
    return logs_dir / NODE_LOG_DIR / node_log_name(node_id)


def tail(path: Path, *, max_lines: int = 40, max_bytes: int = 8192) -> str:
    """The end of a log file ('' if absent), for failure excerpts."""
    try:
        with path.open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read()
    except OSError:
        return ""
    lines = data.decode("utf-8", errors="replace").splitlines()
    if size > max_bytes and lines:
        lines = lines[1:]  # the first line was cut by the byte window
    return "\n".join(lines[-max_lines:])
