"""The code patch of a plan, and its application.

``plan_patch``: pristine(base) — from the store when it is the tree the applied state records,
else regenerated from the state's manifest (a state without a pristine tree, migration: its
differences from the workspace are shown as edits found) — and pristine(new), always generated,
merged three-way into the workspace *in memory*; the plan gets the patch (and its hash in the
planHash). ``apply_patch`` writes exactly that patch, every path checked to stay in the
workspace (:func:`averos_ci._fs.contained`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from averos_ci._fs import atomic_write_bytes, contained
from averos_ci.config import RunConfig
from averos_ci.errors import Interrupted, PlanConflicts
from averos_ci.execute.contracts import CancelToken, ExecutionAdapter
from averos_ci.execute.events import RunnerEventListener
from averos_ci.execute.regen.generate import Generation, generate
from averos_ci.execute.regen.markers import RESOLVE_HINT, UNRESOLVED
from averos_ci.execute.regen.merge import compute_patch
from averos_ci.execute.regen.tree import EMPTY, PristineStore, Tree, pristine_folder
from averos_ci.plan.patch import CodePatch, FileChange, FileStatus, with_patch
from averos_ci.plan.planner import PlanResult, plan_manifest
from averos_ci.state.fingerprint import file_hash
from averos_ci.state.model import AppliedState


class MergeConflicts(PlanConflicts):
    """The three-way merge collides with the user's edits (exit 5; nothing written)."""


def regenerates(adapter: object) -> bool:
    """Whether runs of ``adapter`` regenerate and merge (its ``regenerates`` attribute)."""
    return bool(getattr(adapter, "regenerates", False))


@dataclass(frozen=True)
class PatchPlan:
    planned: PlanResult  # the plan with its code patch
    patch: CodePatch
    new: Generation
    store: PristineStore


def plan_patch(
    planned: PlanResult,
    *,
    config: RunConfig,
    adapter: ExecutionAdapter,
    execution: Mapping[str, Any] | None,
    listeners: Sequence[RunnerEventListener] = (),
    cancel: CancelToken | None = None,
    verbose: bool = False,
    logs_dir: Path | None = None,
    raise_interrupted: bool = True,
    scratch: Path | None = None,
) -> PatchPlan:
    """``planned`` completed with its code patch (see the module). A failed (or, without
    ``raise_interrupted``, interrupted) generation of the new manifest is in the patch
    (``generator_failed``) and in ``new.result``. ``scratch``: generate there and leave the
    pristine store unwritten (a dry run)."""
    store = PristineStore(pristine_folder(config.state_path), read_only=scratch is not None)
    options: dict[str, Any] = {
        "adapter": adapter,
        "execution": execution,
        "store": store,
        "scratch_root": scratch or scratch_folder(config),
        "cancel": cancel,
        "max_attempts": config.max_attempts,
        "development": config.development,
        "verbose": verbose,
    }
    state = planned.base_state
    base: Tree | None = EMPTY if state is None else _base(state, store)
    edits_found: tuple[str, ...] = ()
    if base is None and state is not None:  # migration, a lost store or a tree not trusted
        base = _tree(generate(state.manifest, **options), config, what="the applied manifest")
        if state.pristine is None:
            root = config.workspace_root
            edits_found = tuple(
                p for p, digest in base.hashes().items() if file_hash(contained(root, p)) != digest
            )
    assert base is not None
    new = generate(planned.manifest, listeners=listeners, logs_dir=logs_dir, **options)
    if new.interrupted and raise_interrupted:
        _tree(new, config, what="the manifest")  # raises
    if new.tree is None:
        why = new.failure or f"the generation was interrupted: {new.interrupted}"
        patch = CodePatch(edits_found=edits_found, generator_failed=why)
    else:
        patch = compute_patch(
            base,
            new.tree,
            config.workspace_root,
            edits_found=edits_found,
            scrub=_scrubber(planned, execution),
        )
    plan = planned.plan if nothing_to_merge(planned, config) else with_patch(planned.plan, patch)
    result = PlanResult(plan, planned.manifest, planned.base_state, planned.warnings)
    return PatchPlan(result, patch, new, store)


def _base(state: AppliedState, store: PristineStore) -> Tree | None:
    """The applied manifest's tree from the store, only when it is exactly the tree the
    applied state records (its paths and their hashes): the store is exported from the state
    branch, where a tree with other files may have been planted (``None``: regenerate it)."""
    record = state.pristine
    if record is None:
        return None
    tree = store.load(record.key)
    if tree is None or tree.hashes() != dict(sorted(record.files.items())):
        return None
    return tree


def _scrubber(
    planned: PlanResult, execution: Mapping[str, Any] | None
) -> Callable[[str], str] | None:
    """Masks the secrets of the new manifest and of the applied one (a removed line of a diff
    may hold an old secret): a generated file may hold them, the patch shows no value."""
    from averos_ci.plan.sensitive import SensitiveRules, scrubber, secret_values

    rules = SensitiveRules.of_execution(execution)
    nodes = list(planned.plan.nodes)
    if planned.base_state is not None:
        nodes += plan_manifest(planned.base_state.manifest, None, execution=execution).plan.nodes
    secrets = secret_values(nodes, rules)
    return scrubber(secrets) if secrets else None


def nothing_to_merge(planned: PlanResult, config: RunConfig) -> bool:
    """The workspace is missing or empty: the code change would be every generated file
    created, with nothing to merge. The plan then carries no code patch (planning a new
    application, or planning without the workspace, generates nothing); ``run`` writes the
    clean generation (a state without its workspace is refused before: state.guard)."""
    root = config.workspace_root
    return not (root.is_dir() and any(root.iterdir()))


def scratch_folder(config: RunConfig) -> Path:
    """Where clean generations run (one checkpointed workspace per tree key)."""
    return config.state_path.parent / "regen"


def _tree(generation: Generation, config: RunConfig, *, what: str) -> Tree:
    if generation.tree is not None:
        return generation.tree
    if generation.interrupted:
        raise Interrupted(
            f"the clean generation of {what} was interrupted: {generation.interrupted}",
            path=config.state_path.parent / "regen",
            hint="run the same command again: the generation resumes where it stopped",
        )
    raise PlanConflicts(
        f"{generation.failure or 'a clean generation fails'} (generating {what})",
        path=config.manifest_path,
        hint="see the node logs; a manifest the generator cannot generate cannot be applied",
    )


def apply_patch(patch: CodePatch, workspace_root: Path, *, markers: bool = False) -> None:
    """Write the patch into the workspace. Conflicts refuse the whole patch (nothing written)
    unless ``markers``: then the conflicting files get git's conflict markers. Markers left
    unresolved in the workspace refuse it in any case."""
    if (patch.conflicts and not markers) or unresolved(patch):
        raise merge_conflicts(patch)
    # every path checked before the first write: a patch that would leave the workspace
    # writes nothing
    targets = {path: contained(workspace_root, path) for path in patch.contents}
    for path, data in sorted(patch.contents.items()):
        target = targets[path]
        if data is None:
            target.unlink(missing_ok=True)
            _prune_empty(target.parent, workspace_root)
        else:
            atomic_write_bytes(target, data)


# What works, as docs/how-to/regeneration.md#conflicts says it (each case tested there).
CONFLICT_HINT = (
    "an edit on a line the generator changes, or on a line next to one, conflicts however "
    "it is adapted (a line merge cannot join two changes of touching lines). Either make "
    "each region of yours its `generated now` side (an edit kept at least one unchanged line "
    "away from it merges), or revert the manifest change, or run with "
    "--merge-conflicts=markers and resolve the markers in your editor: the next run keeps "
    "what you kept (docs/how-to/regeneration.md#conflicts)"
)


def unresolved(patch: CodePatch) -> tuple[FileChange, ...]:
    """The files of ``patch`` refused for the conflict markers left in them."""
    return tuple(f for f in patch.conflicts if (f.conflict or "").startswith(UNRESOLVED))


def merge_conflicts(patch: CodePatch, *, hunk_lines: int = 60) -> MergeConflicts:
    left = unresolved(patch)
    if left:
        return MergeConflicts(
            f"{len(left)} file(s) still hold conflict markers; nothing was written:\n"
            + "\n".join(f"  {f.conflict}" for f in left),
            hint=RESOLVE_HINT,
        )
    lines = [f"the three-way merge has {len(patch.conflicts)} conflict(s); nothing was written:"]
    for f in patch.conflicts:
        lines.append(f"  {f.path}: {f.conflict}")
        lines += [f"    {h}" for h in f.hunks.splitlines()[:hunk_lines]]
    return MergeConflicts("\n".join(lines), hint=conflict_hint(patch))


KEPT_HINT = (
    "a file no longer generated that you edited is kept: delete it (moving what you need "
    "elsewhere), or restore the element in the manifest"
)
DELETED_HINT = (
    "a file you deleted that the generator changes: restore it from git and run again, or "
    "run with --merge-conflicts=markers to take the generated file"
)


def conflict_hint(patch: CodePatch) -> str:
    """What works for the kinds of conflict ``patch`` has (one hint per kind present)."""
    kinds = {
        KEPT_HINT
        if f.status is FileStatus.KEPT
        else DELETED_HINT
        if (f.conflict or "").startswith("deleted by you")
        else CONFLICT_HINT
        for f in patch.conflicts
    }
    ordered = [h for h in (CONFLICT_HINT, KEPT_HINT, DELETED_HINT) if h in kinds]
    return "; ".join(ordered) if ordered else CONFLICT_HINT


def _prune_empty(folder: Path, root: Path) -> None:
    while folder != root and folder.is_relative_to(root):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty
        if folder.exists():
            return
        folder = folder.parent
