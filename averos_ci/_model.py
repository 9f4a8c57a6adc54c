"""Base classes for the JSON-facing models: camelCase on the wire, snake_case in Python."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class WireModel(BaseModel):
    """Immutable value with camelCase JSON; unknown keys are an error."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        frozen=True,
        extra="forbid",
    )

    def to_wire(self) -> dict[str, object]:
        return self.model_dump(mode="json", by_alias=True)
