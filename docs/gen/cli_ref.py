"""The command-line reference, walked from the typer app's click command tree."""

from __future__ import annotations

import inspect
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Any

from docs.gen.markdown import code, table

# click appends "[default: X]" or "[default: X; 1<=x<=5]" to the help: the table has a column.
_DEFAULT_ONLY = re.compile(r"\s*\[default: [^\];]*\]")
_DEFAULT_FIRST = re.compile(r"\[default: [^\];]*;\s*")


@dataclass(frozen=True)
class Param:
    """What the reference shows of one click parameter."""

    kind: str  # "option" or "argument"
    names: tuple[str, ...]  # ("--format",) or ("PATHS",)
    type: str
    default: str
    help: str


@dataclass(frozen=True)
class Command:
    path: tuple[str, ...]  # ("github", "plan"); () for the root
    usage: str
    help: str
    params: tuple[Param, ...]
    is_group: bool


def root_command() -> Any:
    """The click command behind ``averos-ci`` (typer builds it from the app)."""
    import typer.main

    from averos_ci.cli import app

    return typer.main.get_command(app)


def walk(command: Any | None = None) -> list[Command]:
    """Every command and sub-command, depth first, in the order ``--help`` lists them."""
    root = command if command is not None else root_command()
    out: list[Command] = []

    def visit(cmd: Any, path: tuple[str, ...], parent: Any | None) -> None:
        name = " ".join(("averos-ci", *path))
        ctx = cmd.make_context(name, [], parent=parent, resilient_parsing=True)
        params = tuple(_param(p, ctx) for p in cmd.get_params(ctx) if not p.hidden)
        usage = " ".join([name, *cmd.collect_usage_pieces(ctx)])
        subs = getattr(cmd, "commands", {})
        out.append(Command(path, usage, inspect.cleandoc(cmd.help or ""), params, bool(subs)))
        for sub_name in cmd.list_commands(ctx) if subs else []:
            sub = cmd.get_command(ctx, sub_name)
            if sub is not None and not sub.hidden:
                visit(sub, (*path, sub_name), ctx)

    visit(root, (), None)
    return out


def _param(p: Any, ctx: Any) -> Param:
    if p.param_type_name == "argument":
        pieces = p.get_usage_pieces(ctx)
        return Param(
            "argument",
            (p.name.upper(),),
            " ".join(pieces),
            "required" if p.required else "optional",
            getattr(p, "help", None) or "",
        )
    record = p.get_help_record(ctx)
    opts_text, help_text = record if record else (" / ".join(p.opts), p.help or "")
    names = tuple(p.opts) + tuple(p.secondary_opts)
    type_text = "flag" if p.is_flag else (opts_text.split(" ", 1)[1] if " " in opts_text else "")
    help_text = _DEFAULT_FIRST.sub("[", _DEFAULT_ONLY.sub("", help_text)).strip()
    return Param("option", names, type_text, _default(p), help_text)


def _default(p: Any) -> str:
    value = p.default
    if callable(value) or value is None or (p.is_flag and value is False):
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) if value else ""
    return str(getattr(value, "value", value))


def exit_codes() -> list[tuple[int, str, str]]:
    """``averos_ci.errors.ExitCode``: value, name and the comment that explains it."""
    from averos_ci import errors

    source = inspect.getsource(errors.ExitCode)
    comments: dict[str, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            match = re.match(r"\s*(\w+)\s*=", tok.line)
            if match:
                comments[match.group(1)] = tok.string.lstrip("# ").strip()
    return [(int(c), c.name, comments.get(c.name, "")) for c in errors.ExitCode]


def render() -> str:
    commands = walk()
    lines = [
        "# Command line",
        "",
        "<!-- Generated from the typer app (averos_ci/cli) by docs/gen/cli_ref.py: "
        "do not edit. -->",
        "",
        "`averos-ci` and `averos` are the same program (`averos` exists so that Averos's own "
        "command lines, such as `averos run --config=averos.config.json --verbose --resume`, "
        "work unchanged); `python -m averos_ci` too. `averos-ci --help` and "
        "`averos-ci COMMAND --help` (or `-h`) print what this page shows.",
        "",
        "## Exit codes",
        "",
        "One table for every command; a code never changes meaning from one command to "
        "another (`averos_ci.errors.ExitCode`).",
        "",
        *table(["code", "name", "meaning"], [(v, code(n), m) for v, n, m in exit_codes()]),
        'Unlike Terraform\'s `-detailed-exitcode` (2 = changes), "changes present" is 4 so '
        "that it is never mistaken for a usage error. In a shell step:",
        "",
        "```bash",
        "code=0; averos-ci plan --detailed-exitcode || code=$?",
        'case $code in 0) echo "no changes" ;; 4) echo "changes to apply" ;; *) exit "$code" ;; '
        "esac",
        "```",
        "",
        "What each code means for `run` and for `github …`: [Running a plan](run.md#exit-codes), "
        "[GitHub Actions](github-action.md#exit-codes).",
        "",
        "## Commands",
        "",
        *table(
            ["command", "what it does"],
            [
                (f"[`{c.usage.split(' [')[0]}`](#{_slug(c)})", _first_line(c.help))
                for c in commands
                if c.path
            ],
        ),
    ]
    for cmd in commands:
        lines += _section(cmd)
    return "\n".join(lines).rstrip() + "\n"


def title(cmd: Command) -> str:
    return " ".join(("averos-ci", *cmd.path))


def _slug(cmd: Command) -> str:
    from docs.gen.markdown import anchor

    return anchor(title(cmd))


def _first_line(text: str) -> str:
    return text.split("\n\n", 1)[0].replace("\n", " ")


def _section(cmd: Command) -> list[str]:
    level = "##" if len(cmd.path) <= 1 else "###"
    head = f"{level} {title(cmd)}" if cmd.path else "## averos-ci (global options)"
    lines = [head, "", "```", cmd.usage, "```", "", cmd.help or "", ""]
    rows = [
        (" ".join(code(n) for n in p.names), p.type and code(p.type), p.default, p.help)
        for p in cmd.params
    ]
    if rows:
        lines += table(["option", "type", "default", "description"], rows)
    return lines
