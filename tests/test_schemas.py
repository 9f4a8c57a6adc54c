"""The shipped JSON Schemas match the models, and real files validate against them."""

from __future__ import annotations

import importlib
import json
from types import ModuleType

import pytest

from averos_ci.config import load_config
from averos_ci.execute.adapters.identity import execution_identity
from averos_ci.plan import compute_plan
from averos_ci.schemas import HERE, generated, render
from tests.conftest import EXAMPLE_DIR, unavailable


def _jsonschema() -> ModuleType:
    try:
        return importlib.import_module("jsonschema")
    except ImportError:
        unavailable("jsonschema is not installed (a test extra: pip install -e '.[test]')")


jsonschema = _jsonschema()


@pytest.mark.parametrize("name", ["plan.schema.json", "state.schema.json"])
def test_shipped_schema_is_current(name: str) -> None:
    assert (HERE / name).read_text(encoding="utf-8") == render(generated()[name]), (
        "regenerate with: python -m averos_ci.schemas"
    )


def test_plan_json_validates_against_schema() -> None:
    config = load_config(EXAMPLE_DIR / "averos.config.json")
    plan = compute_plan(
        manifest_path=config.manifest_path, state=None, execution=execution_identity(config)
    ).plan
    assert "execution" in plan.to_wire()
    schema = json.loads((HERE / "plan.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(json.loads(plan.to_json()), schema)
    broken = json.loads(plan.to_json())
    broken["nodes"][0]["action"] = "explode"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
