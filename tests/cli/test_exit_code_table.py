"""One exit-code table for every command (README, "Exit codes"), checked in one table.

A conflicting plan is 5 from ``plan --detailed-exitcode`` and ``run``; "changes present" (4) is
never confused with invalid input or usage (2). Since issue 21 a conflict is a merge collision
with a user edit (regeneration: the mock with ``writeFiles``), no longer a member's type change.
The GitHub rows run the real CLI against the fake GitHub API and a bare origin (their conflict
rows come back when the CI flows compute the code patch).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from averos_ci.errors import ExitCode
from tests.conftest import copy_example
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import CLI, World, make_world, manifest_variant

pytestmark = pytest.mark.slow

DUE = "mname: dueDate\n        memberType: "
CONFLICT = (DUE + "date", DUE + "string")  # collides with the user's edit of that line
MODEL = "workspace/src/app/model/to-do-task.ts"
FAILING = "translation-entry:fr:extra.k0"
INVALID = "applicationName: ShopApp\nentities:\n  - name: order\n"  # CON-02


def conflicting(text: str) -> str:
    assert CONFLICT[0] in text
    return text.replace(*CONFLICT)


def cli(cwd: Path, *args: str) -> int:
    return subprocess.run(
        [*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=120
    ).returncode


def local_project(tmp_path: Path) -> Path:
    """examples/todoapp, applied once with the file-writing mock adapter, then a generated
    line edited by hand."""
    work = tmp_path / "local"
    copy_example(work, mock=True)
    config = work / "averos.config.json"
    text = config.read_text(encoding="utf-8")
    (work / "failing.json").write_text(
        text.replace('"adapterOptions": {}', f'"adapterOptions": {{"failNodes": ["{FAILING}"]}}'),
        encoding="utf-8",
    )
    config.write_text(
        text.replace('"adapterOptions": {}', '"adapterOptions": {"writeFiles": true}'),
        encoding="utf-8",
    )
    assert cli(work, "run") == 0
    model = work / MODEL
    model.write_text(model.read_text().replace("dueDate?: date;", "dueDate?: Date; // mine"))
    return work


def write(project: Path, text: str) -> Path:
    path = project / "todoapp.manifest.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def github_rows(world: World, fake: FakeGitHub) -> list[tuple[str, Callable[[], int], int]]:
    fake.roles.update(alice="write", bob="write")
    # PR 1 applied: its manifest is the state the conflicting PR 2 is planned against.
    head1 = world.commit("feat1", {"todoapp.manifest.yaml": manifest_variant(1)}, "add")
    fake.add_pull(1, author="alice", head_sha=head1, head_ref="feat1")
    assert world.run("pull_request", world.pr_event("opened", 1), head1).code == 0
    c = fake.add_comment(1, user="bob", body=world.approve_command(1))
    assert world.run("issue_comment", world.comment_event(1, c), head1).code == 0
    merge1 = world.merge("feat1")
    fake.merge(1, merge1)
    assert world.run("push", world.push_event(merge1), merge1).code == 0

    head2 = world.commit(
        "feat2", {"todoapp.manifest.yaml": conflicting(manifest_variant(1))}, "retype"
    )
    fake.add_pull(2, author="alice", head_sha=head2, head_ref="feat2")
    head3 = world.commit("feat3", {"todoapp.manifest.yaml": INVALID}, "broken")
    fake.add_pull(3, author="alice", head_sha=head3, head_ref="feat3")

    return [
        ("github plan: invalid manifest", lambda: world.run(
            "pull_request", world.pr_event("opened", 3), head3).code, ExitCode.INVALID),
        ("github plan: wrong event", lambda: world.run(
            "pull_request", world.pr_event("opened", 2), head2, command="apply").code,
         ExitCode.INVALID),
    ]  # fmt: skip


def test_one_exit_code_table_across_commands(tmp_path: Path, fake: FakeGitHub) -> None:
    project = local_project(tmp_path)
    applied = (project / "todoapp.manifest.yaml").read_text(encoding="utf-8")
    rows: list[tuple[str, Callable[[], int], int]] = [
        ("--version", lambda: cli(project, "--version"), ExitCode.OK),
        ("-h", lambda: cli(project, "-h"), ExitCode.OK),
        ("plan -h", lambda: cli(project, "plan", "-h"), ExitCode.OK),
        ("unknown option", lambda: cli(project, "plan", "--no-such-option"), ExitCode.INVALID),
        ("plan -d: no changes", lambda: cli(project, "plan", "--detailed-exitcode"), ExitCode.OK),
        ("plan -d: changes", lambda: (write(project, manifest_variant(2)), cli(
            project, "plan", "--detailed-exitcode"))[1], ExitCode.CHANGES),
        ("plan -d: usage error", lambda: cli(
            project, "plan", "--detailed-exitcode", "--format", "xml"), ExitCode.INVALID),
        ("plan -d: invalid manifest", lambda: (write(project, INVALID), cli(
            project, "plan", "--detailed-exitcode"))[1], ExitCode.INVALID),
        ("validate: invalid manifest", lambda: cli(project, "validate"), ExitCode.INVALID),
        ("plan -d: conflicts", lambda: (write(project, conflicting(applied)), cli(
            project, "plan", "--detailed-exitcode"))[1], ExitCode.CONFLICTS),
        ("plan: conflicts, no -d", lambda: cli(project, "plan"), ExitCode.OK),
        ("run: conflicts", lambda: cli(project, "run"), ExitCode.CONFLICTS),
        ("run: a node fails", lambda: (write(project, manifest_variant(2)), cli(
            project, "run", "--adapter", "mock", "--config", "failing.json"))[1],
         ExitCode.FAILED),
    ]  # fmt: skip
    rows += github_rows(make_world(tmp_path, fake), fake)
    got = [(name, run()) for name, run, _ in rows]
    assert got == [(name, int(code)) for name, _, code in rows]
