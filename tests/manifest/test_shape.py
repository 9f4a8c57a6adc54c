"""The plain shape check (manifest/shape.py) is the pydantic models' fast path: the same
fields, nothing accepted that pydantic refuses, the same values, the same findings."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from averos_ci.manifest import schema, shape
from averos_ci.manifest.validate import validate_document
from averos_ci.source import load_document, parse_document
from tests.manifest.manifest_samples import EXAMPLE_MANIFEST, GOLDEN_MANIFEST, GOOD_YAML

MODELS: dict[str, type[BaseModel]] = {
    name: getattr(schema, name) for name in shape.FIELDS if name != "MemberNature"
}


def test_the_table_names_every_model_and_its_fields_in_order() -> None:
    models = {
        name
        for name, value in vars(schema).items()
        if isinstance(value, type) and issubclass(value, schema._Shape)
    } - {"_Shape", "MemberNature"}
    assert set(shape.FIELDS) == models
    for name, model in MODELS.items():
        assert list(shape.FIELDS[name]) == list(model.model_fields), name
        required = {f for f, info in model.model_fields.items() if info.is_required()}
        assert required == {f for f, kind in shape.FIELDS[name].items() if kind == shape.STR}


# Values of every type a JSON or YAML document yields, the edge cases of each kind included.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, 80, 65535, 65536, -1, 2**70]),
    st.sampled_from([0.0, 1.5, float("inf")]),
    st.sampled_from(["", "x", "Name", "simple", "composite"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


def _value(kind: str) -> st.SearchStrategy[Any]:
    """Mostly the right type for ``kind``, sometimes anything at all."""
    right: st.SearchStrategy[Any]
    if kind in (shape.STR, shape.OPT_STR):
        right = st.sampled_from(["a", "Name", ""])
    elif kind == shape.OPT_BOOL:
        right = st.booleans()
    elif kind in (shape.OPT_INT, shape.OPT_PORT):
        right = st.sampled_from([0, 1, 3000, 65535, 65536, True])
    elif kind == shape.OPT_SCALAR:
        right = SCALARS
    elif kind == shape.OPT_STRS:
        right = st.lists(st.sampled_from(["/a", 1, None]), max_size=3)
    elif kind == shape.OBJECTS:
        right = st.lists(st.dictionaries(st.sampled_from(["a", "b"]), SCALARS), max_size=2)
    elif kind.startswith("["):
        right = st.lists(_object(kind[1:-1]), max_size=2)
    else:
        right = _object(kind.rstrip("?"))
    return st.integers(0, 9).flatmap(lambda n: VALUES if n == 0 else right)


def _object(model: str) -> st.SearchStrategy[dict[str, Any]]:
    fields = shape.FIELDS[model]
    values = {name: st.deferred(lambda kind=kind: _value(kind)) for name, kind in fields.items()}
    return st.fixed_dictionaries(
        {name: values[name] for name, kind in fields.items() if kind == shape.STR},
        optional={
            **{name: values[name] for name, kind in fields.items() if kind != shape.STR},
            "unknownKey": SCALARS,
        },
    )


def _same(model: str, checked: shape.Shape, validated: BaseModel) -> None:
    for name, kind in shape.FIELDS[model].items():
        mine, theirs = getattr(checked, name), getattr(validated, name)
        if kind.startswith("[") and kind.strip("[]?") in shape.FIELDS:
            assert len(mine) == len(theirs)
            for a, b in zip(mine, theirs, strict=True):
                _same(kind.strip("[]?"), a, b)
        elif kind.endswith("?") and kind.rstrip("?") in shape.FIELDS and mine is not None:
            _same(kind.rstrip("?"), mine, theirs)
        else:
            assert mine == theirs and type(mine) is type(theirs), (model, name, mine, theirs)


@pytest.mark.parametrize("model", [m for m in shape.FIELDS if m != "Application"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_the_plain_check_accepts_pydantic_accepts_with_the_same_values(
    model: str, data: st.DataObject
) -> None:
    raw = data.draw(_object(model))
    try:
        checked = shape._object(model, raw)
    except shape._NotSure:
        checked = None
    assume(checked is not None)  # else pydantic decides: nothing to compare
    assert checked is not None
    validated = MODELS[model].model_validate(raw)  # raises if the plain check was wrong
    _same(model, checked, validated)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(app=_object("Application"))
def test_an_application_the_plain_check_accepts_validates(app: dict[str, Any]) -> None:
    checked = shape.plain_application(app)
    assume(checked is not None)
    assert checked is not None
    validated = schema.Application.model_validate(app)
    _same("Application", checked[0], validated)
    for (ei, mi), member in checked[1].items():
        raw = app["entities"][ei]["members"][mi]
        model = "SimpleMember" if raw["memberNature"] == "simple" else "CompositeMember"
        _same(model, member, MODELS[model].model_validate(raw))


def _both_ways(doc_of: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = validate_document(doc_of())
    with monkeypatch.context() as m:
        m.setattr(shape, "plain_application", lambda data: None)  # pydantic only
        slow = validate_document(doc_of())
    assert fast.issues == slow.issues
    assert json.dumps(fast.manifest) == json.dumps(slow.manifest)


@pytest.mark.parametrize("path", [GOLDEN_MANIFEST, EXAMPLE_MANIFEST], ids=["golden", "example"])
def test_real_manifests_take_the_plain_path_with_the_same_result(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = load_document(path).data
    assert shape.plain_application(data.get("project", {}).get("averosApplication", data))
    _both_ways(lambda: load_document(path), monkeypatch)


MUTATIONS: list[tuple[tuple[str | int, ...], Any]] = [
    (("entities", 0, "members", 0, "memberTag"), "BusinessID"),  # a semantic finding
    (("entities", 0, "name"), "lower"),
    (("entities", 0, "unknown"), 1),  # a warning
    (("httpAuthConfig",), {"tokenHeader": "X", "publicRoutes": ["/a"], "extra": None}),
    (("httpAuthConfig",), {"tokenHeader": "X", "publicRoutes": ["/a"]}),
    (("serviceConfigurations", 0, "apiPort"), 0),  # a shape error: pydantic's wording
    (("serviceConfigurations", 0, "more"), "kept out of the normalized form"),
    (("authentication",), [{"name": "A", "providerType": "jwt", "config": [{"key": "k"}]}]),
]


@pytest.mark.parametrize(("at", "value"), MUTATIONS)
def test_findings_and_normal_form_are_the_same_either_way(
    at: tuple[str | int, ...], value: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    app = copy.deepcopy(json.loads(GOLDEN_MANIFEST.read_text())["project"]["averosApplication"])
    node = app
    for part in at[:-1]:
        node = node[part]
    node[at[-1]] = value
    raw = json.dumps(app, indent=1).encode()
    _both_ways(lambda: parse_document(raw, path=tmp_path / "m.json"), monkeypatch)


def test_yaml_sample_either_way(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    raw = GOOD_YAML.encode()
    _both_ways(lambda: parse_document(raw, path=tmp_path / "m.yaml"), monkeypatch)


def test_a_shape_error_is_left_to_pydantic() -> None:
    with pytest.raises(ValidationError):
        schema.Application.model_validate({"applicationName": 1})
    assert shape.plain_application({"applicationName": 1}) is None
    assert shape.plain_application({"applicationName": "A", "entities": [{"name": True}]}) is None
