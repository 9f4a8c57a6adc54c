"""The patch job's result file: the code change of a pull request's plan, computed without
write credentials and handed to the ``complete`` job as an artifact.

The file comes from a job that ran the pull request's generator, so it is data from an
untrusted source: the ``complete`` job reads it with a size limit, validates it against this
closed model (unknown keys, wrong types, bad hashes refused, located), never executes or
imports anything from it, and checks what it is bound to (project, head, semantic plan, base
state) against the plan it recomputes itself. A forged file can at worst show a code change
that the apply will not produce — and then the apply refuses, since it executes only the
approved planHash, which covers the code change.

:func:`completed_plan` binds a loaded result to the plan the ``complete`` job computes now
(through :func:`averos_ci.github.plan_flow.plan_for`): project, head, semantic plan and base
state are checked before its code change is shown, and the full planHash is computed here by
:func:`averos_ci.plan.patch.with_patch`, never taken from the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, ValidationError

from averos_ci._fs import atomic_write_text
from averos_ci._model import WireModel
from averos_ci._validation import first_problem
from averos_ci.errors import InputError
from averos_ci.forge.context import FlowContext
from averos_ci.plan import ExecutionPlan
from averos_ci.plan.patch import CodePatch, FileChange, FileStatus, with_patch
from averos_ci.plan.planner import PlanResult
from averos_ci.planning import code_patch_needed

RESULT_FORMAT_VERSION = 1
MAX_RESULT_BYTES = 32 * 1024 * 1024  # far above a real patch, far below a runner's memory
MAX_FILES = 50_000
DEFAULT_FILE_NAME = "averos-patch.json"

Sha1 = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
Text = Annotated[str, Field(max_length=MAX_RESULT_BYTES)]
RelPath = Annotated[str, Field(min_length=1, max_length=4096)]


class PatchResultError(InputError):
    """The patch job's result cannot be used (exit 2): unreadable, too large, malformed, or
    bound to another head, plan or state."""


class WireFile(WireModel):
    path: RelPath
    status: FileStatus
    added: Annotated[int, Field(ge=0)] = 0
    removed: Annotated[int, Field(ge=0)] = 0
    old_path: RelPath | None = None
    merged: bool = False
    conflict: Text | None = None
    hunks: Text = ""
    diff: Text = ""
    before: Sha256 | None = None
    after: Sha256 | None = None

    def change(self) -> FileChange:
        return FileChange(**{k: getattr(self, k) for k in type(self).model_fields})


class WirePatch(WireModel):
    format_version: Literal[1]
    files: Annotated[list[WireFile], Field(max_length=MAX_FILES)] = []
    edits_found: Annotated[list[RelPath], Field(max_length=MAX_FILES)] = []
    generator_failed: Text | None = None
    hash: Sha256

    def code_patch(self) -> CodePatch:
        return CodePatch(
            files=tuple(f.change() for f in self.files),
            edits_found=tuple(self.edits_found),
            generator_failed=self.generator_failed,
        )


class PatchResult(WireModel):
    """``code_patch`` ``None``: the plan needs no code change (a non-regenerating adapter, no
    change, or no workspace yet) — the ``complete`` job then has nothing to add."""

    format_version: Literal[1]
    project: Annotated[str, Field(min_length=1, max_length=200)]
    head_sha: Sha1
    semantic_plan_hash: Sha256
    base_state_hash: Sha256 | None = None
    state_tip: Sha1 | None = None
    code_patch: WirePatch | None = None


@dataclass(frozen=True)
class LoadedPatch:
    """A result file as read by :func:`read_result`: validated, its patch hash checked."""

    result: PatchResult
    patch: CodePatch | None
    path: Path


def write_result(path: Path, result: PatchResult) -> None:
    atomic_write_text(path, json.dumps(result.to_wire(), indent=1, sort_keys=True) + "\n")


def read_result(path: Path) -> LoadedPatch:
    """The validated result and its code patch (its hash checked against its content)."""
    hint = (
        "the patch job's artifact is not what `averos-ci github patch` writes: re-run the "
        "plan workflow (its latest run for this head, or push)"
    )
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_RESULT_BYTES + 1)
    except OSError as exc:
        raise PatchResultError(
            f"cannot read the patch result: {exc.strerror}", path=path, hint=hint
        ) from None
    if len(raw) > MAX_RESULT_BYTES:
        raise PatchResultError(
            f"the patch result is larger than {MAX_RESULT_BYTES // (1024 * 1024)} MiB",
            path=path,
            hint=hint,
        )
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PatchResultError(f"not UTF-8: {exc.reason}", path=path, hint=hint) from None
    except json.JSONDecodeError as exc:
        raise PatchResultError(
            f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno, hint=hint
        ) from None
    if not isinstance(data, dict) or data.get("formatVersion") != RESULT_FORMAT_VERSION:
        got = data.get("formatVersion") if isinstance(data, dict) else type(data).__name__
        raise PatchResultError(
            f"unsupported formatVersion {got!r} (this averos-ci reads {RESULT_FORMAT_VERSION})",
            path=path,
            hint="the patch and complete jobs must run the same averos-ci release",
        )
    try:
        result = PatchResult.model_validate(data)
    except ValidationError as exc:
        raise PatchResultError(str(first_problem(exc)), path=path, hint=hint) from None
    if result.code_patch is None:
        return LoadedPatch(result, None, path)
    patch = result.code_patch.code_patch()
    if patch.hash != result.code_patch.hash:
        raise PatchResultError(
            f"the code patch's hash {result.code_patch.hash[:12]} is not the hash of its "
            f"content ({patch.hash[:12]}): the file was altered",
            path=path,
            hint=hint,
        )
    return LoadedPatch(result, patch, path)


REPLAN = (
    "re-run the plan workflow (its latest run for this head, or push) so that the plan and its "
)


def completed_plan(
    ctx: FlowContext, planned: PlanResult, loaded: LoadedPatch, *, head: str, state_tip: str | None
) -> ExecutionPlan:
    """The semantic plan computed now, completed with ``loaded``'s code change — after
    checking what the result is bound to. Raises :class:`PatchResultError` (exit 2)."""
    r, plan, path = loaded.result, planned.plan, loaded.path
    checks = (
        ("project", r.project, ctx.project),
        ("head", r.head_sha, head),
        ("semantic plan", r.semantic_plan_hash, plan.plan_hash),
        ("base state", r.base_state_hash, plan.base_state_hash),
    )
    for what, got, want in checks:
        if got != want:
            raise PatchResultError(
                f"the code change was computed for {what} {str(got)[:12]}, the plan is for "
                f"{what} {str(want)[:12]}: refused",
                path=path,
                hint=REPLAN + "code change are computed together again",
            )
    if r.state_tip != state_tip:
        # another project's apply moved the branch; this project's state is the same (above)
        print(
            f"the state branch moved ({str(r.state_tip)[:12]} → {str(state_tip)[:12]}); this "
            "project's state did not"
        )
    needed = code_patch_needed(ctx.config, planned)
    if loaded.patch is None:
        if needed:
            raise PatchResultError(
                "the result holds no code change, but this plan needs one: refused",
                path=path,
                hint=REPLAN + "code change are computed together again",
            )
        return plan
    if not needed:
        raise PatchResultError(
            "the result holds a code change, but this plan needs none: refused",
            path=path,
            hint=REPLAN + "code change are computed together again",
        )
    return with_patch(plan, loaded.patch)
