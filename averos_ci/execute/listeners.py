"""Built-in listeners besides the console: the JSON-lines event log, and listeners from config."""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from averos_ci.errors import ConfigError
from averos_ci.execute.events import RunnerEvent, RunnerEventListener

EVENTS_FILE_NAME = "events.jsonl"


class JsonlEventLog:
    """Appends one JSON object per event to ``logsDir/events.jsonl`` (flushed per event)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = path.open("a", encoding="utf-8")
        if _ends_torn(path):  # a crash cut the last event: keep it on a line of its own
            self._file.write("\n")

    def on_event(self, event: RunnerEvent) -> None:
        if self._file is not None:
            self._file.write(event.model_dump_json(by_alias=True) + "\n")
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _ends_torn(path: Path) -> bool:
    with path.open("rb") as f:
        f.seek(0, 2)
        if f.tell() == 0:
            return False
        f.seek(-1, 2)
        return f.read(1) != b"\n"


class CollectingListener:
    """Keeps every event in memory (handy for tests and embedding)."""

    def __init__(self) -> None:
        self.events: list[RunnerEvent] = []

    def on_event(self, event: RunnerEvent) -> None:
        self.events.append(event)


def listener_target(spec: str) -> Any:
    """The object a ``"module:attribute"`` entry names (imported, not yet called): what a
    config check can verify without running a user's factory."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"listener {spec!r} must be written 'module:attribute'")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(
            f"listener {spec!r} cannot be loaded: {exc}",
            hint="check the module is importable (installed or on PYTHONPATH)",
        ) from None


def load_listeners(specs: Iterable[str]) -> list[RunnerEventListener]:
    """Build listeners named ``module:attribute`` in the config's ``listeners`` key.

    The attribute is either a listener object or a zero-argument factory returning one.
    """
    found: list[RunnerEventListener] = []
    for spec in specs:
        target = listener_target(spec)
        is_instance = isinstance(target, RunnerEventListener) and not isinstance(target, type)
        if is_instance:
            listener = target
        else:
            try:
                listener = target()
            except Exception as exc:  # a user's factory: any failure is a config problem
                raise ConfigError(
                    f"listener {spec!r} could not be created: {type(exc).__name__}: {exc}",
                    hint="a listener entry names an object with on_event(event), or a "
                    "factory callable with no arguments that returns one",
                ) from None
        if not isinstance(listener, RunnerEventListener):
            raise ConfigError(f"listener {spec!r} has no on_event(event) method")
        found.append(listener)
    return found
