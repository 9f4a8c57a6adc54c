"""Regenerate and merge (the Copier/JHipster model): the application a manifest describes is
what the adapter generates for it from nothing; a change is the difference between two such
clean generations, merged three-way into the user's workspace with git's machinery.

- :mod:`.tree`: a generated tree (path -> bytes) and the content-addressed pristine store;
- :mod:`.generate`: a clean generation in a scratch workspace (checkpointed, resumable);
- :mod:`.merge`: the per-file three-way merge (``git merge-file``) -> a code patch;
- :mod:`.eol`: line endings read as LF by the merge, written back in the user's style;
- :mod:`.markers`: unresolved conflict markers left in files (found, located file:line);
- :mod:`.patching`: the patch of a plan (base tree, new tree, workspace) and its application.
"""

from __future__ import annotations

from averos_ci.execute.regen.patching import (
    MergeConflicts,
    PatchPlan,
    apply_patch,
    nothing_to_merge,
    plan_patch,
    regenerates,
)

__all__ = [
    "MergeConflicts",
    "PatchPlan",
    "apply_patch",
    "nothing_to_merge",
    "plan_patch",
    "regenerates",
]
