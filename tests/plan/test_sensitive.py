"""Sensitive values (authentication provider ``config``, fields a config's ``sensitive`` list
marks) never appear in a rendered plan, a plan JSON or a run's reports, while a change of them
is still shown as a change and still changes the planHash."""

from __future__ import annotations

import json
import secrets
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest

from averos_ci.cli import run_cli
from averos_ci.config import load_config
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.execute.contracts import (
    ExecutionContext,
    ExecutionFailure,
    ExecutionResult,
    ExecutionState,
    RuntimeMutation,
)
from averos_ci.plan.model import PlanNode
from averos_ci.plan.planner import compute_plan
from averos_ci.plan.render import render_json, render_markdown, render_text
from averos_ci.planning import apply
from averos_ci.review.comment import PlanMeta
from averos_ci.review.sections import CommentParts, render_comment
from averos_ci.state import FileStateStore
from tests.conftest import GOLDEN_MANIFEST
from tests.security.test_sec_secret_forms import leaked_forms, leaky

USER_RULE = "service-config:*/apiHost"


def _secret(tag: str, style: str) -> str:
    if style == "quoted":  # changes under every encoding: JSON, markdown, URL, shell
        return leaky(tag)
    return f"{tag}-{secrets.token_hex(12)}"


class Secrets:
    """One generation of secret values, each a distinct random string (``style`` "hex", or
    "quoted": with quotes, a backslash, non-ASCII letters and markup characters)."""

    def __init__(self, style: str = "hex") -> None:
        self.client_secret = _secret("cs", style)
        self.password = _secret("pw", style)
        self.api_host = _secret("host", style)  # the user-marked field

    def all(self) -> list[str]:
        return [self.client_secret, self.password, self.api_host]


def write_manifest(project: Path, s: Secrets) -> None:
    doc = json.loads(GOLDEN_MANIFEST.read_text(encoding="utf-8"))
    app = doc["project"]["averosApplication"]
    google = next(p for p in app["authentication"] if p["name"] == "GoogleAuthProvider")
    google["config"] = [c for c in google["config"] if c["key"] not in ("clientSecret", "pw")]
    google["config"] += [
        {"key": "clientSecret", "value": s.client_secret},
        {"key": "pw", "value": s.password},
    ]
    for sc in app["serviceConfigurations"]:
        if sc["name"] == "ToDoServiceConfiguration":
            sc["apiHost"] = s.api_host
    (project / "app.manifest.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    config = {
        "manifestPath": "app.manifest.json",
        "workspaceRoot": "workspace",
        "adapter": "mock",
        "sensitive": [USER_RULE],
    }
    (work / "averos.config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    monkeypatch.chdir(work)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return work


def files_text(root: Path) -> Iterator[tuple[Path, str]]:
    for p in sorted(root.rglob("*")):
        if p.is_file():
            yield p, p.read_text(encoding="utf-8", errors="replace")


def assert_absent(values: list[str], text: str, where: str) -> None:
    """No value in any form it could be printed in (raw, JSON, markdown, URL, shell)."""
    for v in values:
        for form in leaked_forms(v):
            assert form not in text, f"secret {v!r} found in {where} (as {form!r})"


@pytest.fixture(params=["hex", "quoted"])
def style(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_no_secret_in_any_output_and_the_change_is_shown(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    style: str,
) -> None:
    old, new = Secrets(style), Secrets(style)
    write_manifest(project, old)
    assert run_cli(["run"]) == 0
    state = FileStateStore(project / ".averos/state.json").load()
    assert state is not None  # the state keeps what was applied (README)
    provider = state.manifest["authentication"]["GoogleAuthProvider"]
    assert provider["config"]["clientSecret"] == old.client_secret
    write_manifest(project, new)
    leaked = old.all() + new.all()
    capsys.readouterr()

    # text plan (what `averos-ci plan` prints to a pipe), markdown, plan JSON on stdout
    assert run_cli(["plan"]) == 0
    text = capsys.readouterr()
    assert_absent(leaked, text.out + text.err, "the text plan")
    assert "~ auth:GoogleAuthProvider  [authentication-provider]" in text.out
    assert "~ config: (sensitive) → (sensitive) (entries changed: clientSecret, pw)" in text.out
    assert "~ service-config:ToDoServiceConfiguration  [service-configuration]" in text.out
    assert "~ apiHost: (sensitive) → (sensitive)" in text.out
    assert "2 to update" in text.out
    for fmt in ("markdown", "json"):
        assert run_cli(["plan", "--format", fmt]) == 0
        out = capsys.readouterr()
        assert_absent(leaked, out.out + out.err, f"plan --format {fmt}")

    # plan JSON artifact: masked, flagged, and the change still listed
    assert run_cli(["plan", "--out", "plan.json"]) == 0
    raw = (project / "plan.json").read_text()
    assert_absent(leaked, raw, "plan.json")
    saved = json.loads(raw)
    updated = {c["id"]: c for c in saved["diff"]["toUpdate"]}
    (config,) = updated["auth:GoogleAuthProvider"]["attributes"]
    assert config["sensitive"] is True and config["op"] == "update"
    assert config["after"]["clientSecret"] == "(sensitive)"
    (host,) = updated["service-config:ToDoServiceConfiguration"]["attributes"]
    assert host == {
        "field": "apiHost",
        "op": "update",
        "before": "(sensitive)",
        "after": "(sensitive)",
        "sensitive": True,
    }
    assert saved["execution"]["sensitive"] == [USER_RULE]
    node = next(n for n in saved["nodes"] if n["id"] == "service-config:ToDoServiceConfiguration")
    assert node["args"]["apiHost"] == "(sensitive)" and node["action"] == "update"

    # the PR comment body and the markdown renderer, from the same plan
    cfg = load_config(project / "averos.config.json")
    plan = compute_plan(
        manifest_path=cfg.manifest_path,
        state=FileStateStore(cfg.state_path).load(),
        execution=execution_identity(cfg),
    ).plan
    assert plan.plan_hash == saved["planHash"]
    meta = PlanMeta(project="app", plan_hash=plan.plan_hash, head_sha="a" * 40, has_changes=True)
    comment = render_comment(CommentParts(meta=meta, plan=plan), max_chars=65536)
    md = render_markdown(plan)
    for name, body in (("comment", comment), ("markdown", md), ("text", render_text(plan))):
        assert_absent(leaked, body, name)
        assert "(sensitive)" in body and "clientSecret" in body, name

    # the run of that saved plan: job summary, JUnit, logs, console
    summary_file = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary_file))
    reports = ["--junit", "junit.xml", "--summary-md", "summary.md", "--summary-json", "s.json"]
    assert run_cli(["run", "--plan", "plan.json", "--verbose", *reports]) == 0
    out = capsys.readouterr()
    assert_absent(leaked, out.out + out.err, "the run's console output")
    assert_absent(leaked, summary_file.read_text(), "$GITHUB_STEP_SUMMARY")
    for name in ("junit.xml", "summary.md", "s.json"):
        assert_absent(leaked, (project / name).read_text(), name)
    for path, body in files_text(project / ".averos/logs"):
        assert_absent(leaked, body, str(path))
    applied = FileStateStore(project / ".averos/state.json").load()
    assert applied is not None  # the real values were applied, not the markers
    provider = applied.manifest["authentication"]["GoogleAuthProvider"]
    assert provider["config"]["clientSecret"] == new.client_secret
    assert applied.manifest["serviceConfigurations"]["ToDoServiceConfiguration"]["apiHost"] == (
        new.api_host
    )


def test_a_secret_change_changes_the_hash_not_the_masked_json(project: Path, style: str) -> None:
    a, b = Secrets(style), Secrets(style)
    outputs = []
    for s in (a, b):
        write_manifest(project, s)
        cfg = load_config(project / "averos.config.json")
        plan = compute_plan(
            manifest_path=cfg.manifest_path, state=None, execution=execution_identity(cfg)
        ).plan
        outputs.append(json.loads(render_json(plan)))
    first, second = outputs
    assert first["planHash"] != second["planHash"]
    assert first["manifestHash"] != second["manifestHash"]
    for doc in (first, second):
        del doc["planHash"], doc["manifestHash"]
    assert first == second  # everything a reader sees is equal: only the hashes tell


def test_the_rule_list_is_part_of_the_plan_identity(project: Path) -> None:
    write_manifest(project, Secrets())
    cfg = load_config(project / "averos.config.json")

    def plan_hash(rules: tuple[str, ...]) -> str:
        c = replace(cfg, sensitive=rules)
        return compute_plan(
            manifest_path=c.manifest_path, state=None, execution=execution_identity(c)
        ).plan.plan_hash

    assert plan_hash((USER_RULE,)) != plan_hash(())


def test_saved_masked_plan_round_trip_equals_a_run(
    project: Path, tmp_path: Path, style: str
) -> None:
    s = Secrets(style)
    write_manifest(project, s)
    twin = tmp_path / "twin"
    shutil.copytree(project, twin)
    assert run_cli(["plan", "--out", "plan.json"]) == 0
    assert s.client_secret not in (project / "plan.json").read_text()
    assert run_cli(["run", "--plan", "plan.json"]) == 0
    assert run_cli(["run", "--config", str(twin / "averos.config.json")]) == 0
    mine = FileStateStore(project / ".averos/state.json").load()
    theirs = FileStateStore(twin / ".averos/state.json").load()
    assert mine is not None and theirs is not None
    assert mine.manifest_hash == theirs.manifest_hash
    assert mine.node_states.keys() == theirs.node_states.keys()
    assert {k: v.args_hash for k, v in mine.node_states.items()} == {
        k: v.args_hash for k, v in theirs.node_states.items()
    }


def test_saved_masked_plan_is_stale_after_a_secret_change(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_manifest(project, Secrets())
    assert run_cli(["plan", "--out", "plan.json"]) == 0
    write_manifest(project, Secrets())  # only a secret changed: the masked JSON is the same
    capsys.readouterr()
    assert run_cli(["run", "--plan", "plan.json"]) == 1
    assert "saved plan is stale" in capsys.readouterr().err
    assert not (project / ".averos/state.json").exists()


def test_an_edited_masked_plan_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_manifest(project, Secrets())
    assert run_cli(["plan", "--out", "plan.json"]) == 0
    doc = json.loads((project / "plan.json").read_text())
    page = next(n for n in doc["nodes"] if n["id"].startswith("page:"))
    page["args"]["targetMenu"] = "elsewhere"  # planHash kept: the file no longer matches it
    (project / "plan.json").write_text(json.dumps(doc), encoding="utf-8")
    capsys.readouterr()
    assert run_cli(["run", "--plan", "plan.json"]) == 2
    assert "was modified after it was written" in capsys.readouterr().err
    assert not (project / ".averos/state.json").exists()


class EchoingAdapter:
    """Fails the provider node with a message, details and a log that echo its args (as a
    tool's error output may): the run's outputs must not carry them."""

    name: ClassVar[str] = "echo"
    supports_concurrency: ClassVar[bool] = False

    def preflight(self, context: ExecutionContext) -> None:
        pass

    def open(self, context: ExecutionContext) -> None:
        pass

    def close(self) -> None:
        pass

    def execute(
        self, node: PlanNode, context: ExecutionContext, state: ExecutionState
    ) -> ExecutionResult:
        if node.id != "auth:GoogleAuthProvider":
            return ExecutionResult(success=True, duration_ms=0, runtime_mutation=RuntimeMutation())
        echoed = json.dumps(node.args)
        context.log_file.parent.mkdir(parents=True, exist_ok=True)
        context.log_file.write_text(f"tool output: {echoed}\n", encoding="utf-8")
        failure = ExecutionFailure(
            code="SCHEMATIC_FAILED", message=f"bad options {echoed}", details=echoed
        )
        return ExecutionResult(success=False, duration_ms=0, failure=failure)


def test_failure_messages_and_node_logs_are_scrubbed(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], style: str
) -> None:
    s = Secrets(style)
    write_manifest(project, s)
    cfg = load_config(project / "averos.config.json")
    reports = {k: tmp_path / f"report.{k}" for k in ("xml", "md", "json")}
    outcome = apply(
        cfg,
        adapter=EchoingAdapter(),
        verbose=True,
        junit=reports["xml"],
        summary_md=reports["md"],
        summary_json=reports["json"],
    )
    assert not outcome.summary.success
    out = capsys.readouterr()
    assert_absent(s.all(), out.out + out.err, "the console")
    failure = outcome.summary.failures[0].failure
    assert "bad options" in failure.message and "(sensitive)" in failure.message
    for name, path in reports.items():
        body = path.read_text()
        assert_absent(s.all(), body, name)
        assert "bad options" in body
    for path, body in files_text(project / ".averos"):
        if path.name == "state.json":
            continue
        assert_absent(s.all(), body, str(path))
    log = next(p for p, _ in files_text(project / ".averos/logs") if "GoogleAuthProvider" in p.name)
    assert "tool output:" in log.read_text()


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (["auth:*/config", "/authentication/*/config"], "rules name plan nodes"),
        (["auth:*/config", "apiHost"], "is not <node id glob>/<arg>"),
        (["auth:*/config", "services:*/apiHost"], "names no node kind"),
    ],
)
def test_bad_rules_are_located_config_errors(
    project: Path, rules: list[Any], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write_manifest(project, Secrets())
    config = project / "averos.config.json"
    doc = json.loads(config.read_text())
    doc["sensitive"] = rules
    config.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    capsys.readouterr()
    assert run_cli(["plan"]) == 2
    err = capsys.readouterr().err
    line = next(i for i, t in enumerate(config.read_text().splitlines(), 1) if rules[1] in t)
    assert f"{config}:{line}:" in err and "/sensitive/1" in err and message in err
    assert "hint:" in err and "service-config:*/apiHost" in err
