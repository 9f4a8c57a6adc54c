"""The code patch as reviewers read it: in the terminal per file ``+N -M``; in markdown each
file's diff, folded in groups (created, changed, deleted), conflicts open, within a budget
that names every file it leaves out; and as one git-style unified diff (``plan --diff``).

Works on the patch's wire form (``plan.code_patch``, what ``plan --format json`` holds and
the planHash covers): everything shown is taken from it, so a saved plan renders like a fresh
one and an approval covers every byte a reviewer read.
"""

from __future__ import annotations

from typing import Any

from averos_ci._markdown import code, code_block, escape
from averos_ci.plan.items import plain
from averos_ci.plan.patch import CodePatch, diff_lines

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


# (group title, statuses, open): conflicts first and open, the rest folded
_GROUPS = (
    ("Conflicts", None, True),
    ("Created files", ("created",), False),
    ("Changed files", ("changed", "renamed"), False),
    ("Deleted files", ("deleted",), False),
)


def _name(f: dict[str, Any]) -> str:
    if f["status"] == "renamed" and f.get("oldPath"):
        return f"{code(f['oldPath'])} → {code(f['path'])}"
    return code(f["path"])


def _file_block(f: dict[str, Any]) -> str:
    notes = [f"{f['status']}, +{f['added']} -{f['removed']}"]
    if f["merged"] and not f["conflict"]:
        notes.append("your edits will be merged")
    if f["conflict"]:
        notes.append(f"**conflict**: {escape(f['conflict'])}")
    out = [f"{_name(f)} ({'; '.join(notes)})", ""]
    if f["conflict"] and f["hunks"]:
        out += ["Conflicting regions:", "", code_block(f["hunks"], "diff"), ""]
    if f["diff"]:
        out += [code_block(f["diff"], "diff"), ""]
    return "\n".join(out) + "\n"


def _grouped(files: list[dict[str, Any]]) -> list[tuple[str, bool, list[dict[str, Any]]]]:
    out = []
    for title, statuses, opened in _GROUPS:
        chosen = [
            f
            for f in files
            if (bool(f["conflict"]) or f["status"] == "kept") == (statuses is None)
            and (statuses is None or f["status"] in statuses)
        ]
        if chosen:
            out.append((title, opened, sorted(chosen, key=lambda f: str(f["path"]))))
    return out


_LOCAL = "the JSON plan (`averos-ci plan --format json`) and `averos-ci plan --diff`"


def _listed(f: dict[str, Any]) -> str:
    return f"- {_name(f)}\n"


def render_patch_markdown(
    patch: CodePatch | dict[str, Any], *, budget: int = 20_000, elsewhere: str | None = None
) -> str:
    """The code change as markdown within ``budget`` characters: each file's diff, in a
    stable order (group, then path). Files whose diff does not fit are named in a list that
    says where they are (``elsewhere``: e.g. the job summary and the plan artifact)."""
    w = _wire(patch)
    files: list[dict[str, Any]] = w["files"]
    head: list[str] = []
    if w.get("generatorFailed"):
        head += [f"**Code change — conflict:** {escape(w['generatorFailed'])}", ""]
    if w.get("editsFound"):
        head += [
            f"**Edits found:** {len(w['editsFound'])} file(s) differ from a clean generation "
            "of the applied manifest; they are kept as your edits and merged.",
            "",
        ]
    if not files:
        text = "\n".join(head)
        return text[:budget] if len(text) > budget else text
    added = sum(f["added"] for f in files)
    removed = sum(f["removed"] for f in files)
    head += [f"**Code change:** {len(files)} file(s), +{added} -{removed}", ""]
    groups = _grouped(files)
    used = sum(len(x) + 1 for x in head)
    # the names of the files not (yet) shown: reserved, so that every left-out file is named
    reserve = sum(len(_listed(f)) for f in files) + 300 + len(elsewhere or "")
    body: list[str] = []
    left_out: list[dict[str, Any]] = []
    for title, opened, chosen in groups:
        summary = f"<summary>{title} ({len(chosen)})</summary>"
        opening = f"<details{' open' if opened else ''}>{summary}\n\n"
        closing = "</details>\n"
        shown: list[str] = []
        cost = len(opening) + len(closing)
        for f in chosen:
            block, name = _file_block(f), len(_listed(f))
            if used + cost + len(block) + reserve - name <= budget:
                shown.append(block)
                cost += len(block)
                reserve -= name
            else:
                left_out.append(f)
        if shown:
            body.append(opening + "".join(shown) + closing)
            used += cost
    tail: list[str] = []
    if left_out:
        where = elsewhere or _LOCAL
        tail = [
            "",
            f"**{len(left_out)} file(s) left out** of this comment (GitHub's size limit); "
            f"their diffs are in {where}:",
            "",
            *(_listed(f).rstrip("\n") for f in left_out),
        ]
    text = "\n".join(head) + "\n" + "\n".join(body) + "\n".join(tail)
    if len(text) > budget:  # not even the names fit: say how many, never cut a fence
        text = (
            "\n".join(head)
            + "\n"
            + "\n".join(body)
            + (
                f"\n**{len(left_out)} file(s) left out** of this comment (GitHub's size limit); "
                f"every diff is in {elsewhere or 'the JSON plan'}.\n"
            )
        )
    if len(text) > budget:  # a budget too small for any diff: the counts only
        text = "\n".join(head)[:budget]
    return text


def git_diff(patch: CodePatch | dict[str, Any]) -> str:
    """The whole code change as one git-style unified diff (``diff --git a/… b/…``), for
    ``git apply --check`` or a pager such as ``delta``, taken from the hashed patch only:
    ``git apply`` writes the files the run writes, byte for byte (a last line without its
    newline is git's ``\\ No newline at end of file``). A conflicting file's diff holds its
    conflict markers, as the apply would write them; a renamed file is git's rename
    (``rename from``/``rename to``, then its content change)."""
    out: list[str] = []
    for f in sorted(_wire(patch)["files"], key=lambda f: str(f["path"])):
        body = diff_lines(f["diff"])
        while body and body[0].startswith(("--- ", "+++ ")):
            body.pop(0)  # our own headers below: git wants /dev/null for a created file
        path = f["path"]
        old = f.get("oldPath")
        if f["status"] == "renamed" and old:
            # the diff is against the old file (a pure rename has none): git's rename
            out.append(f"diff --git a/{old} b/{path}\n")
            out += ["similarity index 100%\n"] if not body else []
            out += [f"rename from {old}\n", f"rename to {path}\n"]
            out += [f"--- a/{old}\n", f"+++ b/{path}\n", *body] if body else []
            continue
        # a file absent now (created) or after the apply (deleted): git wants /dev/null on
        # that side, and an empty one has no hunk, only its mode line
        created = f["before"] is None and f["status"] == "created"
        deleted = f["after"] is None and f["status"] == "deleted"
        if not body and not created and not deleted:
            continue
        out.append(f"diff --git a/{path} b/{path}\n")
        a, b = f"a/{path}", f"b/{path}"
        if created:
            out.append("new file mode 100644\n")
            a = "/dev/null"
        elif deleted:
            out.append("deleted file mode 100644\n")
            b = "/dev/null"
        out += [f"--- {a}\n", f"+++ {b}\n", *body] if body else []
    return "".join(out)
