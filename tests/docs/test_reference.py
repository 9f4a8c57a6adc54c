"""The generated reference covers the code: every command, option, exit code, config key,
finding code and format field the code has appears in the pages built from it.

The pages are built in-process (``docs.gen.pages.build``), as the mkdocs hook does; the
expectations are read from the code itself (the click tree, the pydantic models, the enum, the
JSON Schemas), never listed here, so a new command or key is checked the day it is added.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer
from pydantic import BaseModel

from docs.gen import cli_ref, codes_ref, config_ref, formats_ref, plan_comment
from docs.gen.pages import build


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return build()


def _sections(page: str) -> dict[str, str]:
    """Heading text -> the text up to the next heading of any level."""
    parts = re.split(r"^(#{1,6} .*)$", page, flags=re.M)
    titles = [re.sub(r"\s*\{#[\w-]+\}$", "", p.lstrip("# ").strip()) for p in parts]
    return {titles[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _click_tree() -> list[tuple[str, list[str]]]:
    """(command path, every option name and argument) from the real click tree."""
    out = []

    def visit(cmd: Any, path: tuple[str, ...], parent: Any) -> None:
        ctx = cmd.make_context(" ".join(("averos-ci", *path)), [], parent=parent,
                               resilient_parsing=True)  # fmt: skip
        names = []
        for p in cmd.get_params(ctx):
            if not p.hidden:
                names += [p.name.upper()] if p.param_type_name == "argument" else list(p.opts)
        out.append((" ".join(("averos-ci", *path)), names))
        for name in cmd.list_commands(ctx) if getattr(cmd, "commands", None) else []:
            visit(cmd.get_command(ctx, name), (*path, name), ctx)

    visit(cli_ref.root_command(), (), None)
    return out


def test_every_command_and_option_is_in_the_cli_page(pages: dict[str, str]) -> None:
    sections = _sections(pages["reference/cli.md"])
    tree = _click_tree()
    assert len(tree) > 10 and any(path == "averos-ci github apply" for path, _ in tree)
    for path, names in tree:
        title = path if path != "averos-ci" else "averos-ci (global options)"
        assert title in sections, f"no section for {path!r}"
        for name in names:
            assert f"`{name}`" in sections[title], f"{path}: {name} is not documented"


def test_every_exit_code_is_in_the_cli_page(pages: dict[str, str]) -> None:
    from averos_ci.errors import ExitCode

    table = _sections(pages["reference/cli.md"])["Exit codes"]
    for code in ExitCode:
        row = re.search(rf"^\| {int(code)} \| `{code.name}` \| (.+) \|$", table, re.M)
        assert row and row.group(1).strip(), f"exit code {int(code)} has no meaning"


def test_a_new_command_appears_without_editing_the_docs() -> None:
    """The generator reads the click tree: a command added to an app is in its page."""
    app = typer.Typer()

    @app.command()
    def first() -> None:
        """Do the first thing."""

    @app.command()
    def brand_new(
        *, level: int = typer.Option(3, "--level", help="How far to go.")
    ) -> None:  # fmt: skip
        """A command the docs never heard of."""

    commands = cli_ref.walk(typer.main.get_command(app))
    new = next(c for c in commands if c.path == ("brand-new",))
    assert new.help == "A command the docs never heard of."
    level = next(p for p in new.params if p.names == ("--level",))
    assert (level.default, level.help) == ("3", "How far to go.")
    assert "int" in level.type


def _models() -> list[tuple[str, type[BaseModel]]]:
    from averos_ci.config import ConfigFile
    from averos_ci.policy.settings import PolicySettings, ProtectedElement
    from averos_ci.projects.listfile import ProjectEntry, ProjectList

    return [
        ("averos.config.json", ConfigFile),
        ("github", config_ref.github_settings_model()),
        ("policy", PolicySettings),
        ("protectedElements entries", ProtectedElement),
        ("averos-ci.yaml", ProjectList),
        ("projects entries", ProjectEntry),
    ]


@pytest.mark.parametrize("section, model", _models(), ids=[n for n, _ in _models()])
def test_every_config_key_is_in_the_configuration_page(
    pages: dict[str, str], section: str, model: type[BaseModel]
) -> None:
    text = _sections(pages["reference/configuration.md"])[section]
    for name, field in model.model_fields.items():
        key = field.alias or name
        row = re.search(rf"^\| `{re.escape(key)}` \| ([^|]+) \|", text, re.M)
        assert row, f"{section}: key {key!r} is not documented"
        assert row.group(1).strip(), f"{section}: key {key!r} has no type"


@pytest.mark.parametrize("model", [m for _, m in _models()], ids=lambda m: m.__name__)
def test_every_config_key_has_a_description_in_its_model(model: type[BaseModel]) -> None:
    missing = [n for n, f in model.model_fields.items() if not (f.description or "").strip()]
    assert not missing, f"{model.__name__}: add Field(description=...) to {missing}"


def test_config_defaults_come_from_the_resolved_config(pages: dict[str, str]) -> None:
    text = _sections(pages["reference/configuration.md"])["averos.config.json"]
    assert re.search(r"^\| `adapter` \| string \| `\"angular-schematics\"` \|", text, re.M)
    assert re.search(r"^\| `workspaceRoot` \| string \| `\"app\"` \|", text, re.M)


def test_every_finding_code_is_explained_and_listed(pages: dict[str, str]) -> None:
    found = codes_ref.scan()
    assert {"SYN-01", "REF-01", "CON-01", "CFG-01"} <= set(found)
    unexplained = sorted(set(found) - set(codes_ref.MEANINGS))
    stale = sorted(set(codes_ref.MEANINGS) - set(found))
    assert not unexplained, f"explain {unexplained} in docs/gen/codes_ref.py MEANINGS"
    assert not stale, f"no code reports {stale} any more: drop them from MEANINGS"
    page = pages["reference/finding-codes.md"]
    for code in found:
        assert f"`{code}`" in page


def test_the_scan_reads_the_severity_from_the_call() -> None:
    found = codes_ref.scan()
    assert found["CON-14"].severities == {"warning"}
    assert found["REF-01"].severities == {"error"}
    assert found["SYN-01"].severities == {"error"}
    assert found["CFG-01"].severities == {"warning"}


def test_every_format_field_is_in_the_formats_page(pages: dict[str, str]) -> None:
    page = pages["reference/formats.md"]
    checked = 0
    for _title, _intro, schema in formats_ref.schemas():
        for _name, obj in formats_ref.objects(schema):
            for key in obj.get("properties", {}):
                assert f"| `{key}` |" in page, f"field {key!r} is not documented"
                checked += 1
    assert checked > 50
    for key in ("planHash", "baseStateHash", "nodeStates", "runtimeMutation", "durationMs"):
        assert f"| `{key}` |" in page


def test_the_plan_comment_page_is_the_real_comment(pages: dict[str, str]) -> None:
    plan = plan_comment.example_plan()
    page = pages["reference/plan-comment.md"]
    assert f"/averos approve {plan.plan_hash[:12]}" in page
    assert "<!-- averos-ci:plan project=default -->" in page
    assert "```mermaid" in page and '<details markdown="1">' in page
    assert plan_comment.comment_markdown() in page or all(
        line in page for line in plan_comment.comment_markdown().splitlines() if line
    )
