"""The plan comment's sections (averos_ci.review.sections): their fixed order, the code change
as each file's diff within GitHub's budget, fences no content can close, and the one escaper
(the job summary of a run included)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from averos_ci.execute import ExecutionFailure, NodeOutcome, NodeRecord, RunMode
from averos_ci.execute.summary import summarize
from averos_ci.forge.settings import GITHUB_COMMENT_LIMIT
from averos_ci.plan import ExecutionPlan, compute_plan
from averos_ci.plan.patch import CodePatch, FileChange, FileStatus, with_patch
from averos_ci.report import summary_markdown
from averos_ci.review.comment import PlanMeta
from averos_ci.review.sections import SECTIONS, CommentParts, render_comment
from tests.github.gh_world import manifest_variant


def _plan() -> ExecutionPlan:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "m.yaml"
        p.write_text(manifest_variant(1), encoding="utf-8")
        return compute_plan(manifest_path=p, state=None, execution={"adapter": "mock"}).plan


def _diff(path: str, lines: list[str], *, old: list[str] = ()) -> str:  # type: ignore[assignment]
    head = f"--- a/{path}\n+++ b/{path}\n@@ -{1 if old else 0},{len(old)} +1,{len(lines)} @@\n"
    return head + "".join(f"-{x}\n" for x in old) + "".join(f"+{x}\n" for x in lines)


def _file(path: str, lines: list[str], status: FileStatus = FileStatus.CREATED) -> FileChange:
    return FileChange(path=path, status=status, added=len(lines), diff=_diff(path, lines))


def _parts(patch: CodePatch, **kw: object) -> CommentParts:
    plan = with_patch(_plan(), patch)
    meta = PlanMeta("default", plan.plan_hash, "a" * 40, True)
    return CommentParts(meta=meta, plan=plan, **kw)  # type: ignore[arg-type]


def test_every_section_is_shown_in_the_fixed_order() -> None:
    patch = CodePatch(files=(_file("src/app.ts", ["export const answer = 42;"]),))
    parts = _parts(
        patch,
        policy="**Policy:** passed",
        drift="⚠️ **Drift:** 1 generated file changed outside averos-ci",
        base_execution={"adapter": "other"},
        base_label="base 0123456789ab",
    )
    body = render_comment(parts, max_chars=GITHUB_COMMENT_LIMIT)
    firsts = [
        "<!-- averos-ci:status -->",
        "**Policy:** passed",
        "**Drift:**",
        "Execution settings differ from the base branch",
        "<summary>Plan</summary>",
        "**Code change:** 1 file(s), +1 -0",
        "To approve,",
    ]
    assert [s.name for s in SECTIONS] == [
        "status", "policy", "drift", "execution diff", "plan", "code change", "how to approve"
    ]  # fmt: skip
    assert [body.index(x) for x in firsts] == sorted(body.index(x) for x in firsts), body
    assert "+export const answer = 42;" in body  # the changed line itself


def test_a_300_file_change_stays_under_the_budget_and_names_every_file_it_left_out() -> None:
    files = tuple(
        _file(f"src/gen/file{i:03}.ts", [f"export const v{i}_{j} = {j};" for j in range(12)])
        for i in range(300)
    )
    parts = _parts(CodePatch(files=files), elsewhere="the job summary of [this run](https://x/1)")
    body = render_comment(parts, max_chars=GITHUB_COMMENT_LIMIT)
    assert len(body) <= GITHUB_COMMENT_LIMIT
    assert body == render_comment(parts, max_chars=GITHUB_COMMENT_LIMIT)  # stable
    shown = re.findall(r"^`(src/gen/file\d+\.ts)` \(created", body, re.M)
    note = re.search(r"\*\*(\d+) file\(s\) left out\*\* .*?are in (.*?):\n\n((?:- .*\n?)+)", body)
    assert note is not None, body[-2000:]
    left_out = re.findall(r"^- `(src/gen/file\d+\.ts)`$", note.group(3), re.M)
    assert int(note.group(1)) == len(left_out) > 0 and shown
    assert sorted(shown + left_out) == sorted(f.path for f in files)  # each one, once
    assert shown == sorted(shown)  # a stable order: by path
    assert "[this run](https://x/1)" in note.group(2)
    assert body.count("<details") == body.count("</details>")


def test_a_diff_cannot_close_its_fence_or_the_section() -> None:
    evil = ["````", "</details>", "<!-- averos-ci:status -->", "@octocat", "```diff"]
    parts = _parts(CodePatch(files=(_file("x.ts", evil),)))
    body = render_comment(parts, max_chars=GITHUB_COMMENT_LIMIT)
    block = re.search(r"^(`{5,})diff\n(.*?)\n\1$", body, re.M | re.S)
    assert block is not None, body
    assert "+````\n+</details>" in block.group(2)
    outside = body.replace(block.group(0), "")
    assert "@octocat" not in outside and outside.count("<!-- averos-ci:status -->") == 1


def test_a_conflict_stays_open_with_its_hunks() -> None:
    conflict = FileChange(
        path="m.ts",
        status=FileStatus.CHANGED,
        added=3,
        conflict="your edits collide with the generator's change",
        hunks="<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> generated\n",
        diff=_diff("m.ts", ["<<<<<<< yours", "mine"], old=["a"]),
    )
    body = render_comment(_parts(CodePatch(files=(conflict,))), max_chars=GITHUB_COMMENT_LIMIT)
    assert "<details open><summary>Conflicts (1)</summary>" in body
    assert "<<<<<<< yours\nmine\n=======\ntheirs\n>>>>>>> generated" in body


def test_a_manifest_name_cannot_mention_anyone_from_the_job_summary() -> None:
    recs = [
        NodeRecord(node_id="entity:@octocat", phase="entity", command="averos-entity",
                   outcome=NodeOutcome.FAILED, attempts=1, duration_ms=5,
                   failure=ExecutionFailure(code="X", message="ping @octocat &amp; <b>")),
    ]  # fmt: skip
    md = summary_markdown(summarize(recs, mode=RunMode.STRICT, duration_ms=9), recs)
    assert "octocat" in md
    assert re.search(r"@octocat", md) is None  # a zero-width space after every "@"
    assert "&amp;amp;" in md and "<b>" not in md  # an entity is shown, never decoded


def test_the_comment_header_counts_as_the_plan_section_does() -> None:
    """A rename and a replacement: the header's table (create 2, update 1 by nodes before)
    agreed with neither the plan's table nor its counts line just below it."""
    from averos_ci.plan.items import change_counts
    from averos_ci.review.comment import PlanMeta
    from averos_ci.review.sections import CommentParts, render_comment
    from tests.plan.plan_samples import applied, plan_of
    from tests.plan.test_change_counts import _one_of_each

    old, new = _one_of_each()
    plan = plan_of(new, applied(old))
    meta = PlanMeta(project="p", plan_hash=plan.plan_hash, head_sha="abc", has_changes=True)
    body = render_comment(CommentParts(meta=meta, plan=plan), max_chars=60_000)
    lines = body.splitlines()
    at = lines.index(
        "| planHash | head | create | update | replace | rename | unchanged | conflicts | remove |"
    )
    cells = [c.strip() for c in lines[at + 2].strip("|").split("|")][2:]
    c = change_counts(plan)
    assert (c.replace, c.rename) == (1, 1)
    assert cells == [
        str(n)
        for n in (c.create, c.update, c.replace, c.rename, c.unchanged, c.conflicts, c.delete)
    ]
