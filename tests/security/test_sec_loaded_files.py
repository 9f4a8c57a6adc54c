"""The code an execution loads is part of the plan's identity, not only its name.

The ``execution`` part of a plan named the node-module adapter's module path and the
listeners' ``module:attribute``, but not what those files hold: a pull request that only
changes the adapter's JavaScript kept the planHash (an earlier approval still counted) and
the plan comment showed no difference. Now the SHA-256 of each file the execution loads --
the adapter module, the local modules it imports, its package.json, and listener modules
that live in the repository -- is in the identity, and the comment lists the change."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from averos_ci.config import RunConfig, default_config
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.plan import compute_plan
from averos_ci.plan.execution_diff import execution_changes
from tests.github.gh_fake import FakeGitHub
from tests.github.gh_world import World, git, make_world
from tests.plan.plan_samples import EXAMPLE_MANIFEST

INDEX = "import { help } from './helper.js';\nexport default class A { execute() { help(); } }\n"
HELPER = "export function help() { return 1; }\n"
PACKAGE = '{"type": "module"}\n'


def node_files(root: Path, **changed: str) -> None:
    files = {"index.js": INDEX, "helper.js": HELPER, "package.json": PACKAGE}
    files.update({k.replace("_", "."): v for k, v in changed.items()})
    (root / "adapter").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / "adapter" / name).write_text(text, encoding="utf-8")


def node_config(base: Path) -> RunConfig:
    return replace(
        default_config(base), adapter="node-module", adapter_options={"module": "adapter/index.js"}
    )


def plan_hash(config: RunConfig) -> str:
    execution = execution_identity(config)
    return compute_plan(
        manifest_path=EXAMPLE_MANIFEST, state=None, execution=execution
    ).plan.plan_hash


@pytest.mark.parametrize(
    "changed",
    [
        {"index_js": INDEX + "// and a backdoor\n"},
        {"helper_js": "export function help() { require('child_process'); }\n"},
        {"package_json": '{"type": "commonjs"}\n'},
    ],
    ids=["the module", "a module it imports", "its package.json"],
)
def test_the_node_module_adapters_code_changes_the_plan_hash(
    tmp_path: Path, changed: dict[str, str]
) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    node_files(a)
    node_files(b, **changed)
    assert plan_hash(node_config(a)) != plan_hash(node_config(b))
    node_files(b)  # the same files again: the same plan, wherever the checkout lives
    assert plan_hash(node_config(a)) == plan_hash(node_config(b))


def test_the_changed_file_is_named_in_the_execution_changes(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    node_files(a)
    node_files(b, helper_js="export function help() { return 2; }\n")
    changes = execution_changes(
        execution_identity(node_config(a)), execution_identity(node_config(b))
    )
    keys = [c.key for c in changes]
    assert keys == ["loadedFiles.adapter/helper.js"], keys


def test_a_listener_module_in_the_repository_changes_the_plan_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "ci_hooks"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    listener = pkg / "notify.py"
    listener.write_text("def make():\n    return None\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    config = replace(default_config(tmp_path), listeners=("ci_hooks.notify:make",))
    first = plan_hash(config)
    listener.write_text("import os\ndef make():\n    os.system('curl evil')\n", encoding="utf-8")
    assert plan_hash(config) != first
    assert "ci_hooks.notify" not in sys.modules  # found, never imported by planning
    identity = execution_identity(config)
    assert set(identity["loadedFiles"]) == {"ci_hooks/__init__.py", "ci_hooks/notify.py"}


# -- the plan comment of a pull request that changes only the adapter's code ----------------


@pytest.fixture
def world(tmp_path: Path, fake: FakeGitHub) -> World:
    fake.roles.update(alice="write", bob="write")
    w = make_world(tmp_path, fake)
    data = json.loads((w.dev / "averos.config.json").read_text(encoding="utf-8"))
    data.update(adapter="node-module", adapterOptions={"module": "adapter/index.js"})
    node_files(w.dev)
    files = {"averos.config.json": json.dumps(data, indent=2) + "\n"}
    files.update(
        {
            f"adapter/{n}": (w.dev / "adapter" / n).read_text()
            for n in ("index.js", "helper.js", "package.json")
        }
    )
    fake.base_sha = w.commit("main", files, "a node-module adapter")
    return w


@pytest.mark.slow
def test_a_pull_request_changing_only_the_adapter_code_is_a_new_plan(
    world: World, fake: FakeGitHub
) -> None:
    evil = "export function help() { return require('child_process'); }\n"
    head = world.commit("feat1", {"adapter/helper.js": evil}, "only the adapter's code")
    same = world.commit(
        "feat2", {"README.md": "hello\n"}, "nothing the execution loads", base="main"
    )
    hashes = {}
    for number, sha, branch in ((1, head, "feat1"), (2, same, "feat2")):
        fake.add_pull(number, author="alice", head_sha=sha, head_ref=branch)
        r = world.run("pull_request", world.pr_event("opened", number), sha)
        assert r.code == 0, r.stdout + r.stderr
        hashes[number] = r.outputs["plan-hash"]
    assert hashes[1] != hashes[2], "a change of the adapter's code kept the planHash"
    (body,) = [str(c["body"]) for c in fake.bot_comments(1) if "averos-ci:plan" in c["body"]]
    assert "Execution settings differ from the base branch" in body, body
    assert "- `loadedFiles.adapter/helper.js`: `sha256:" in body, body
    (other,) = [str(c["body"]) for c in fake.bot_comments(2) if "averos-ci:plan" in c["body"]]
    assert "differ from the base branch" not in other, other
    assert git(world.origin, "rev-parse", "main") == fake.base_sha


@pytest.mark.slow
def test_base_execution_reads_the_files_of_the_base_commit(world: World) -> None:
    """The base branch's identity hashes the base commit's files, not the checkout's."""
    from averos_ci.config import load_config
    from averos_ci.github.base_execution import base_execution
    from averos_ci.statebranch.state_branch import StateBranch

    checkout = world.checkout(str(world.fake.base_sha))
    (checkout / "adapter" / "helper.js").write_text("changed in the checkout\n", encoding="utf-8")
    config = load_config(checkout / "averos.config.json")
    ctx = SimpleNamespace(
        config=config, repo_root=checkout.resolve(), state_branch=lambda: StateBranch(checkout)
    )
    base, _ = base_execution(ctx, str(world.fake.base_sha))  # type: ignore[arg-type]
    head = execution_identity(config)
    assert base is not None
    assert [c.key for c in execution_changes(base, head)] == ["loadedFiles.adapter/helper.js"]
