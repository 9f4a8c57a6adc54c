"""Moved: the ``execution`` part of a plan's identity is built from the adapter's own facts,
in :mod:`averos_ci.execute.adapters.identity` (Layer 3 knows no adapter).

This name stays only until its callers import it from there (the planning service); it is
a forwarding call, nothing more.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from averos_ci.config import RunConfig
    from averos_ci.plan.loaded_files import Reader


def execution_identity(
    config: RunConfig, *, root: Path | None = None, read: Reader | None = None
) -> dict[str, Any]:
    """:func:`averos_ci.execute.adapters.identity.execution_identity`."""
    from averos_ci.execute.adapters.identity import execution_identity as moved

    return moved(config, root=root, read=read)
