"""The text ``averos-ci init`` prints: what it wrote (or would write), and the checklist (a
local project: the next commands)."""

from __future__ import annotations

from averos_ci.onboard.init import Change, InitResult


def render_init(result: InitResult) -> str:
    out: list[str] = [] if result.local else [f"default branch: {result.branch}"]
    out.append("projects: " + ", ".join(result.projects))
    for f in result.files:
        line = f"{f.change.value:>9}  {f.path}" + (f" ({f.why})" if f.why else "")
        out.append(line)
        if result.dry_run and f.change is Change.CREATE:
            out.extend(f"    | {text}" for text in f.content.splitlines())
        elif f.diff and (result.dry_run or f.change is Change.CONFLICT):
            out.extend(f"    {text}" for text in f.diff.splitlines())
    out.extend(f"note: {n}" for n in result.notes)
    out.append("")
    if result.conflicts and not result.dry_run:
        out.append(
            "nothing was written: the files marked 'conflict' exist and differ (see the diffs); "
            "keep yours, or re-run with --force to replace them"
        )
    elif result.dry_run:
        out.append("dry run: nothing was written")
    elif not result.changed:
        out.append("nothing to change: the setup is already in place")
    else:
        out.append("written; commit these files")
    out.append("")
    if result.local:
        out.append("Next, on this machine (docs/how-to/what-to-commit.md):")
        out.append("  averos-ci plan        # what the manifest's application would be")
        out.append("  averos-ci run         # generate it; commit the state with the app")
        out.append("  averos-ci state show  # the applied states; `state rollback` undoes one")
        return "\n".join(out) + "\n"
    out.append("In GitHub's settings (only a person can do these):")
    out.extend(f"  [ ] {item}" for item in result.checklist)
    return "\n".join(out) + "\n"
