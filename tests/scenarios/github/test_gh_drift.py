"""The scheduled drift check on a monorepo of five applied projects (examples/workflows/
averos-drift.yml: one matrix job per project, as separate processes against the fake GitHub):
one issue per drifted project, opened, updated in place, closed when the drift is gone, never
a duplicate — also under two runs at once; merged but unapplied changes are reported the same
way. Each finding is also recorded on the state branch for the dashboard
(``.drift/<project>.json``): written when it changes, never for a clean project, removed when
fixed, none lost by concurrent jobs. And under GitHub's secondary rate limits, a batch job
backs off and succeeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from averos_ci.dashboard import build_dashboard
from tests.github.gh_fake import FakeGitHub, SecondaryLimits
from tests.github.gh_monorepo import Monorepo, make_monorepo, project_name
from tests.github.gh_world import JobResult, git
from tests.openapi_check import load_spec, spec_path

pytestmark = pytest.mark.slow

SPEC = spec_path()  # resolved before a test installs its private $HOME
LABEL = "averos-drift"
ISSUE_ENDPOINTS = r"/issues(/\d+(/comments)?)?$|/labels"  # what the drift check calls
FAST = {"pushBackoffSeconds": 0.05, "pushBackoffMaxSeconds": 1}


def on_main(mono: Monorepo, message: str, *, remove: tuple[str, ...] = (),
            write: dict[str, str] | None = None) -> str:  # fmt: skip
    """A plain commit pushed to main (someone deleting or restoring generated files)."""
    dev = mono.world.dev
    git(dev, "checkout", "-q", "main")
    git(dev, "pull", "-q", "--ff-only", "origin", "main")
    for rel in remove:
        git(dev, "rm", "-q", rel)
    for rel, text in (write or {}).items():
        (dev / rel).parent.mkdir(parents=True, exist_ok=True)
        (dev / rel).write_text(text, encoding="utf-8")
        git(dev, "add", rel)
    git(dev, "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-q", "-m",
        message)  # fmt: skip
    git(dev, "push", "-q", "origin", "main")
    return git(dev, "rev-parse", "HEAD")


def generated(mono: Monorepo, project: str) -> list[str]:
    listing = git(mono.world.origin, "ls-tree", "-r", "--name-only", "main", f"{project}/generated")
    return sorted(listing.splitlines())


def drift_run(mono: Monorepo, projects: list[str], *, runs: int = 1) -> list[JobResult]:
    """``runs`` > 1: that many runs at once (separate processes); else the jobs in turn."""
    if runs > 1:
        return mono.wait_all(mono.start_drift(projects, runs=runs), "drift")
    results = mono.drift(projects)
    failed = [(r.code, r.stdout[-600:] + r.stderr[-1500:]) for r in results if r.code != 0]
    assert not failed, failed
    return results


def open_issues(fake: FakeGitHub) -> dict[str, dict[str, object]]:
    """project -> its open drift issue; fails on two open for one project."""
    found: dict[str, dict[str, object]] = {}
    for issue in fake.issues_labelled(LABEL):
        project = str(issue["title"]).rsplit(" in ", 1)[1]
        assert project not in found, f"two open issues for {project}"
        found[project] = issue
    return found


def records(mono: Monorepo) -> dict[str, dict[str, object]]:
    """project -> its drift record on origin's state branch."""
    origin = mono.world.origin
    listing = git(origin, "ls-tree", "-r", "--name-only", "averos-state", "--", ".drift")
    return {
        rel.removeprefix(".drift/").removesuffix(".json"): json.loads(
            git(origin, "show", f"averos-state:{rel}")
        )
        for rel in listing.splitlines()
    }


def record_commits(mono: Monorepo, project: str) -> int:
    """The state-branch commits that wrote or removed ``project``'s drift record."""
    out = git(
        mono.world.origin, "log", "--format=%H", "averos-state", "--", f".drift/{project}.json"
    )
    return len(out.splitlines())


def test_scheduled_drift_keeps_one_issue_per_project(tmp_path: Path, fake: FakeGitHub) -> None:
    """The file-writing mock stands in for a generator: each apply commits its project's
    generated application back to main; deleting it is drift."""
    spec = load_spec(SPEC)
    mono = make_monorepo(tmp_path, fake, github=FAST, adapter_options={"writeFiles": True})
    names = [project_name(i) for i in range(5)]
    files: dict[str, str] = {}
    for i in range(5):
        files.update(mono.project_files(i))
    mono.open_pr(1, "apps", files)
    mono.applied(1, "apps", names)
    p1, p2, p3, p4 = names[1:]
    app1, app2 = generated(mono, p1), generated(mono, p2)
    assert app1 and app2
    kept = {rel: git(mono.world.origin, "show", f"main:{rel}") + "\n" for rel in app2}

    # 1. drift appears in two of five projects: two issues
    on_main(mono, "tidy up", remove=(*app1, *app2))
    results = drift_run(mono, names)
    issues = open_issues(fake)
    assert sorted(issues) == [p1, p2]
    assert f"{p1}/generated" in str(issues[p1]["body"])  # what drifted: its folder is gone
    assert str(tmp_path) not in str(issues[p1]["body"])  # no runner path
    assert "drift" in str(issues[p1]["title"]) and "unapplied" not in str(issues[p1]["title"])
    assert f"{p1}/averos.config.json" in str(issues[p1]["body"])  # the commands to see it
    assert [r.outputs["drifted"] for r in results] == ["false", "true", "true", "false", "false"]
    assert len(fake.sent("POST", r"/issues$")) == 2
    first_body = {p: str(issues[p]["body"]) for p in issues}
    # the dashboard's record: the drifted projects only, outside their folders
    found = records(mono)
    assert sorted(found) == [p1, p2]
    assert found[p1]["drifted"] is True and found[p1]["unapplied"] is None
    assert found[p1]["absent"]  # its whole application is gone
    assert found[p1]["commit"] == mono.world.main() and found[p1]["formatVersion"] == 1
    site = build_dashboard(mono.world.origin, out=tmp_path / "site")
    assert [p.name for p in site.dashboard.drifted] == [p1, p2]
    assert f">{p1}</a>" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")

    # 2. a second run: p1 also has a merged change now, its issue is updated in place; p2's
    # issue, unchanged, gets no request at all
    mono.world.commit("p1-more", mono.project_files(1, extra_entities=1), "p01 grows")
    mono.world.merge("p1-more")
    patches_before = len(fake.sent("PATCH", r"/issues/\d+$"))
    drift_run(mono, names)
    issues = open_issues(fake)
    assert sorted(issues) == [p1, p2] and len(fake.sent("POST", r"/issues$")) == 2
    assert "drift and unapplied changes" in str(issues[p1]["title"])
    assert "to add" in str(issues[p1]["body"])
    assert str(issues[p2]["body"]) == first_body[p2]
    since = [ln for ln in first_body[p1].splitlines() if ln.startswith("Found since")]
    assert since and since[0] in str(issues[p1]["body"])  # since when: the first detection
    assert [r.path for r in fake.sent("PATCH", r"/issues/\d+$")[patches_before:]] == [
        f"/repos/{fake.repo}/issues/{issues[p1]['number']}"
    ]
    # p1's record gains the unapplied change, since its first detection; p2's is untouched
    again = records(mono)
    unapplied = again[p1]["unapplied"]
    assert isinstance(unapplied, dict) and unapplied["toAdd"] > 0
    assert unapplied["applied"] != unapplied["defaultBranch"]
    assert again[p1]["since"] == found[p1]["since"] and again[p2] == found[p2]
    assert (record_commits(mono, p1), record_commits(mono, p2)) == (2, 1)

    # 3. p2 is fixed, p3's merged change waits unapplied, p0's generated file holds a
    # merge's conflict markers: p2's issue closed, p3's and p0's opened
    number2 = int(str(issues[p2]["number"]))
    p0, marked = names[0], generated(mono, names[0])[0]
    markers = "<<<<<<< mine\nA\n=======\nB\n>>>>>>> generated\n"
    on_main(mono, "restore", write={**kept, marked: markers})
    mono.world.commit("p3-more", mono.project_files(3, extra_entities=1), "p03 grows")
    mono.world.merge("p3-more")
    results = drift_run(mono, names)
    issues = open_issues(fake)
    assert sorted(issues) == [p0, p1, p3]
    assert str(issues[p0]["title"]) == f"averos-ci: conflict markers in {p0}"
    assert f"{marked.removeprefix(p0 + '/generated/')}:1" in str(issues[p0]["body"])
    assert [r.outputs["issue"] for r in results] == [
        str(issues[p0]["number"]),
        str(issues[p1]["number"]),
        "",  # closed: no open issue
        str(issues[p3]["number"]),
        "",
    ]
    assert results[3].outputs["unapplied"] == "true" and results[3].outputs["drifted"] == "false"
    assert fake.issues[number2]["state"] == "closed"
    assert fake.issues[number2]["state_reason"] == "completed"
    assert any("No drift" in c for c in fake.issue_comments(number2))
    assert str(issues[p3]["title"]) == f"averos-ci: unapplied changes in {p3}"
    found = records(mono)  # p2 fixed: its record removed
    assert sorted(found) == [p0, p1, p3] and record_commits(mono, p2) == 2
    assert found[p0]["markers"] == [marked.removeprefix(f"{p0}/generated/") + ":1"]
    assert found[p0]["drifted"] is False

    # 4. two runs at once leave one open issue per project (a race closes the newer one)
    on_main(mono, "drift p04", remove=tuple(generated(mono, p4)))
    drift_run(mono, names, runs=2)
    issues = open_issues(fake)  # fails on two open issues for a project
    assert sorted(issues) == [p0, p1, p3, p4]
    duplicates = [i for i in fake.issues.values() if i["state_reason"] == "duplicate"]
    assert all(int(d["number"]) > int(str(issues[p4]["number"])) for d in duplicates)
    # ten jobs at once: every record there, each written once (the loser of a race finds
    # the same record on the fetched branch and writes nothing)
    assert sorted(records(mono)) == [p0, p1, p3, p4] and record_commits(mono, p4) == 1
    assert [record_commits(mono, p) for p in (p0, p1, p3)] == [1, 2, 1]

    assert fake.check_exchanges(spec, ISSUE_ENDPOINTS) > 10


def test_a_batch_job_backs_off_under_secondary_rate_limits(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    """Four projects merged and never applied, checked by one batch job (the matrix entry of
    more than 256 projects) while the fake allows one content-creating request per 2 s (the
    first project's label and issue come back to back: a refusal is certain, and the wait stays
    under the jobs' apiMaxWaitSeconds of 5): GitHub refuses the rest with retry-after, the
    client waits and the job succeeds — one issue each."""
    spec = load_spec(SPEC)
    fake.enforce_secondary_limits(SecondaryLimits(windows=((1, 2.0),)))
    mono = make_monorepo(tmp_path, fake, github=FAST)
    names = [project_name(i) for i in range(4)]
    files: dict[str, str] = {}
    for i in range(4):
        files.update(mono.project_files(i))
    mono.world.commit("apps", files, "four projects")
    mono.world.merge("apps")

    [result] = drift_run(mono, [" ".join(names)])

    assert result.code == 0, result.stdout + result.stderr
    assert fake.rate_limited(), "the limit was never reached: the test proves nothing"
    issues = open_issues(fake)
    assert sorted(issues) == names
    assert [r.status for r in fake.sent("POST", r"/issues$") if r.status != 403] == [201] * 4
    assert all("unapplied changes" in str(i["title"]) for i in issues.values())
    assert fake.check_exchanges(spec, ISSUE_ENDPOINTS) >= 4
