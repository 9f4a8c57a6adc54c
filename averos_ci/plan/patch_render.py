"""The code patch as reviewers read it: per file ``+N -M``, created / deleted / renamed files,
files where the user's edits are merged, and merge conflicts with their hunks.

Works on the patch's wire form (``plan.code_patch``, what ``plan --format json`` holds), so a
saved plan renders like a fresh one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from averos_ci.plan.patch import CodePatch
from averos_ci.plan.review import plain

_MARKS = {"created": "+", "deleted": "-", "changed": "~", "renamed": "→", "kept": "!"}


def _wire(patch: CodePatch | dict[str, Any]) -> dict[str, Any]:
    return patch.to_wire() if isinstance(patch, CodePatch) else patch


def _line(f: dict[str, Any]) -> str:
    status = f["status"]
    path = plain(f["path"])
    if status == "renamed":
        path = f"{plain(f['oldPath'])} → {path}"
    text = f"{_MARKS.get(status, '~')} {path} ({status}, +{f['added']} -{f['removed']})"
    if f["merged"] and not f["conflict"]:
        text += "  your edits will be merged"
    if f["conflict"]:
        text += f"  CONFLICT: {plain(f['conflict'])}"
    return text


def render_patch_text(patch: CodePatch | dict[str, Any], *, hunk_lines: int = 40) -> str:
    """The terminal rendering (empty when the patch changes nothing and found nothing)."""
    w = _wire(patch)
    files: list[dict[str, Any]] = w["files"]
    lines: list[str] = []
    if w.get("generatorFailed"):
        lines.append(f"Code change: CONFLICT: {plain(w['generatorFailed'])}")
    if w.get("editsFound"):
        found = w["editsFound"]
        lines.append(
            f"Edits found: {len(found)} file(s) differ from a clean generation of the applied "
            "manifest (the state had no pristine tree); they are kept as your edits and merged:"
        )
        lines += [f"  ! {plain(p)}" for p in found[:50]]
        if len(found) > 50:
            lines.append(f"  … and {len(found) - 50} more")
    if files:
        added = sum(f["added"] for f in files)
        removed = sum(f["removed"] for f in files)
        conflicts = [f for f in files if f["conflict"]]
        lines.append(
            f"Code change: {len(files)} file(s), +{added} -{removed}"
            + (f", {len(conflicts)} merge conflict(s)" if conflicts else "")
            + ":"
        )
        lines += [f"  {_line(f)}" for f in files]
        for f in conflicts:
            if f["hunks"]:
                lines.append(f"Conflict in {plain(f['path'])}:")
                hunks = f["hunks"].splitlines()
                lines += [f"    {h}" for h in hunks[:hunk_lines]]
                if len(hunks) > hunk_lines:
                    lines.append(f"    … {len(hunks) - hunk_lines} more line(s)")
    if not lines:
        return ""
    return "\n".join(lines) + "\n\n"


def render_patch_markdown(
    patch: CodePatch | dict[str, Any],
    *,
    md_escape: Callable[[str], str],
    budget: int = 20_000,
    hunk_lines: int = 30,
) -> str:
    """A markdown section for the PR comment / job summary: the summary table and the
    conflicting hunks, within ``budget`` characters (the whole patch is in the JSON plan).
    ``md_escape``: averos_ci.plan.markdown's (passed in: that module renders this one)."""
    w = _wire(patch)
    files: list[dict[str, Any]] = w["files"]
    out: list[str] = []
    if w.get("generatorFailed"):
        out += [f"**Code change — conflict:** {md_escape(w['generatorFailed'])}", ""]
    if w.get("editsFound"):
        out += [
            f"**Edits found:** {len(w['editsFound'])} file(s) differ from a clean generation "
            "of the applied manifest; they are kept as your edits and merged.",
            "",
        ]
    if files:
        out += ["**Code change:**", "", "| file | change | lines | |", "|---|---|---:|---|"]
        for f in files:
            note = (
                f"**conflict**: {md_escape(f['conflict'])}"
                if f["conflict"]
                else ("your edits will be merged" if f["merged"] else "")
            )
            name = f["path"] if f["status"] != "renamed" else f"{f['oldPath']} → {f['path']}"
            name = name.replace("`", "").replace("|", "\\|").replace("\n", " ")
            out.append(f"| `{name}` | {f['status']} | +{f['added']} -{f['removed']} | {note} |")
        out.append("")
        for f in (f for f in files if f["conflict"] and f["hunks"]):
            hunks = f["hunks"].splitlines()[:hunk_lines]
            block = [
                f"<details open><summary>Conflict in <code>{md_escape(f['path'])}</code></summary>",
                "",
                "```diff",
                *(h.replace("```", "` ` `") for h in hunks),
                "```",
                "</details>",
                "",
            ]
            if sum(len(x) + 1 for x in out + block) > budget:
                out.append("*(more conflict hunks left out: see the JSON plan)*")
                break
            out += block
    text = "\n".join(out)
    if len(text) > budget:
        text = text[: budget - 60].rsplit("\n", 1)[0] + "\n\n*(code change truncated)*"
    return text + ("\n" if text else "")
