"""``adapterOptions``: one parser for every adapter's options model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from averos_ci._suggest import suggest
from averos_ci._validation import problems
from averos_ci.errors import ConfigError

M = TypeVar("M", bound=BaseModel)


class AdapterOptionsError(ConfigError):
    """``adapterOptions`` do not fit the adapter's model; ``pointer`` is the first offending
    place inside ``adapterOptions`` (the config check turns it into a file:line:col)."""

    def __init__(
        self, message: str, *, pointer: tuple[str | int, ...], key: bool, hint: str | None
    ) -> None:
        super().__init__(message, hint=hint)
        self.pointer = pointer
        self.key = key  # the key itself is wrong (unknown): point at the key, not its value


def parse_adapter_options(
    model: type[M], options: Mapping[str, Any], *, adapter: str, hint: str
) -> M:
    """``options`` (camelCase, from averos.config.json) as ``model``; every problem is said,
    an unknown key with the known one it is closest to."""
    try:
        return model.model_validate(dict(options))
    except ValidationError as exc:
        found = problems(exc)
        said = "; ".join(f"{p.dotted}: {p.msg}" for p in found)
        first = found[0]
        if first.unknown_key and len(first.loc) == 1:
            known = [f.alias or n for n, f in model.model_fields.items()]
            near = suggest(str(first.loc[0]), known)
            hint = f"{near} ({hint})" if near else hint
        raise AdapterOptionsError(
            f"invalid adapterOptions for {adapter}: {said}",
            pointer=first.loc,
            key=first.unknown_key,
            hint=hint,
        ) from None
