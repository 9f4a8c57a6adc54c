"""``adapterOptions``: one parser for every adapter's options model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from averos_ci._validation import problems
from averos_ci.errors import ConfigError

M = TypeVar("M", bound=BaseModel)


def parse_adapter_options(
    model: type[M], options: Mapping[str, Any], *, adapter: str, hint: str
) -> M:
    """``options`` (camelCase, from averos.config.json) as ``model``; every problem is said."""
    try:
        return model.model_validate(dict(options))
    except ValidationError as exc:
        said = "; ".join(f"{p.dotted}: {p.msg}" for p in problems(exc))
        raise ConfigError(f"invalid adapterOptions for {adapter}: {said}", hint=hint) from None
