from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, MutableMapping
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from averos_ci import __version__

# ``-h`` everywhere: click hands help_option_names down to every sub-command's context.
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}

# Every command of the root, in the order ``--help`` lists them -> the module that registers it.
# A module is imported only when one of its commands is looked up (invoked, or listed by
# ``--help``): ``averos-ci validate`` never imports the GitHub, plan or run code.
COMMAND_MODULES = {
    "dashboard": "dashboard",
    "doctor": "doctor",
    "init": "init",
    "mcp": "mcp",
    "plan": "plan",
    "preview": "preview",
    "projects": "projects",
    "run": "run",
    "drift": "state",
    "conflict-markers": "markers",
    "validate": "validate",
    "github": "github",
    "state": "state",
}


class _LazyCommands(MutableMapping[str, Any]):
    """The root group's commands: every name is known, a command is built on first access."""

    def __init__(self, built: MutableMapping[str, Any], load: Callable[[str], Any]) -> None:
        self._built = dict(built)
        self._load = load

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMAND_MODULES:
                raise KeyError(name)
            self._built[name] = self._load(name)
        return self._built[name]

    def __contains__(self, name: object) -> bool:
        return name in self._built or name in COMMAND_MODULES

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        yield from COMMAND_MODULES
        yield from (name for name in self._built if name not in COMMAND_MODULES)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class LazyGroup(TyperGroup):
    """The root group: its command modules are imported when a command is first looked up."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _LazyCommands(self.commands, _load_command)


def _load_command(name: str) -> Any:
    """Import the module that registers ``name`` and build its click command, as typer would."""
    import typer.main

    importlib.import_module(f"averos_ci.cli.{COMMAND_MODULES[name]}")
    for command in app.registered_commands:
        assert command.callback is not None
        if (command.name or typer.main.get_command_name(command.callback.__name__)) == name:
            return typer.main.get_command_from_info(
                command,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    for group in app.registered_groups:
        if group.name == name:
            return typer.main.get_group_from_info(
                group,
                pretty_exceptions_short=app.pretty_exceptions_short,
                suggest_commands=app.suggest_commands,
                rich_markup_mode=app.rich_markup_mode,
            )
    raise LookupError(f"averos_ci.cli.{COMMAND_MODULES[name]} registers no command {name!r}")


app = typer.Typer(
    name="averos-ci",
    cls=LazyGroup,
    help="Plan on pull request, apply on merge: the Averos application lifecycle in CI.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=CONTEXT_SETTINGS,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"averos-ci {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the version and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """Plan on pull request, apply on merge: the Averos application lifecycle in CI.

    Exit codes (every command): 0 ok / no changes, 1 run failed or apply refused, 2 invalid
    input or usage, 3 internal error, 4 changes present (plan --detailed-exitcode),
    5 the plan has conflicts (plan --detailed-exitcode, run, github plan/apply),
    130 interrupted (progress persisted; resume with --resume).
    """
