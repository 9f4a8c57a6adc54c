"""Issue 2: random mutations of the golden manifest never crash validation (or planning).

The model is the golden export's ``averosApplication`` (the diagrams are left out to keep
each example fast); findings must be located issues and the CLI must exit 0 or 2.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from averos_ci.cli import run_cli
from averos_ci.manifest import validate_file
from averos_ci.plan import plan_manifest
from tests.manifest.manifest_samples import GOLDEN_MANIFEST

GOLDEN: dict[str, Any] = json.loads(GOLDEN_MANIFEST.read_text(encoding="utf-8"))
APP: dict[str, Any] = copy.deepcopy(GOLDEN["project"]["averosApplication"])
# Fewer translations keep every example fast (locating a finding re-parses the file with
# ruamel.yaml); every element kind stays represented.
APP["languages"] = [
    {**lang, "translationEntries": lang["translationEntries"][:4]} for lang in APP["languages"][:2]
]
Path_ = tuple[str | int, ...]


def _paths(node: Any, at: Path_ = ()) -> list[Path_]:
    out = [at] if at else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*at, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*at, i))
    return out


PATHS = _paths(APP)


def _get(doc: Any, path: Path_) -> Any:
    for part in path:
        doc = doc[part]
    return doc


STRING_PATHS = [p for p in PATHS if isinstance(_get(APP, p), str)]
REFERENCE_KEYS = {
    "ename",
    "fename",
    "sname",
    "name",
    "mname",
    "memberName",
    "id",
    "languageCode",
    "localeID",
    "fieldKey",
    "defaultAuthenticationProvider",
    "providerType",
    "defaultLanguageCode",
    "useCaseType",
    "memberType",
    "memberTag",
    "fieldRelationType",
    "memberNature",
    "targetEntity",
}
REFERENCE_PATHS = [p for p in STRING_PATHS if p[-1] in REFERENCE_KEYS]

NASTY = st.sampled_from(
    [
        "/",
        "..",
        "\x00",
        "../../etc/passwd",
        "a/b",
        "\\",
        "é",
        "名前",
        "🙂",
        "\u202e",
        "\ufeff",
        " ",
        "",
        "\n",
        "\t",
        "%",
        "::error::",
        "${{ secrets.X }}",
        "<script>",
        "`",
        "|",
        "@here",
        "x" * 70,
        "y" * 5000,
        "class",
        "constructor",
        "__proto__",
        "~1",
        "#",
        "&a",
        "*a",
    ]
)
ODD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.just([]),
    st.just({}),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    doc = copy.deepcopy(APP)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        kind = draw(st.sampled_from(["delete", "retype", "rename", "inject", "long"]))
        if kind == "delete":
            path = draw(st.sampled_from(PATHS))
            try:
                parent = _get(doc, path[:-1])
                del parent[path[-1]]
            except (KeyError, IndexError, TypeError):
                pass
        else:
            pool = (
                PATHS
                if kind == "retype"
                else (REFERENCE_PATHS if kind == "rename" else STRING_PATHS)
            )
            path = draw(st.sampled_from(pool))
            try:
                parent = _get(doc, path[:-1])
                old = parent[path[-1]]
            except (KeyError, IndexError, TypeError):
                continue
            if kind == "retype":
                parent[path[-1]] = draw(ODD_VALUES)
            elif kind == "rename":
                parent[path[-1]] = draw(st.text(min_size=0, max_size=12))
            elif kind == "inject" and isinstance(old, str):
                at = draw(st.integers(min_value=0, max_value=len(old)))
                parent[path[-1]] = old[:at] + draw(NASTY) + old[at:]
            elif isinstance(old, str):
                parent[path[-1]] = old * draw(st.integers(min_value=20, max_value=200))
    return doc


CODE = re.compile(r"^(SYN|REF|CON)-\d\d$")


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    doc=mutated(),
    shape=st.sampled_from(["flat.json", "designer.json", "flat.yaml"]),
    via_cli=st.sampled_from([True, False, False, False]),
)
def test_mutations_never_crash(doc: dict[str, Any], shape: str, via_cli: bool) -> None:
    data: Any = doc if shape.startswith("flat") else {"project": {"averosApplication": doc}}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"m.{shape}"
        # JSON is valid YAML: the .yaml file goes through ruamel.yaml
        path.write_text(
            json.dumps(data, indent=1, ensure_ascii=shape.endswith("yaml")), encoding="utf-8"
        )
        result = validate_file(path)
        for issue in result.issues:
            assert CODE.match(issue.code), issue
            assert issue.line >= 1 and issue.column >= 1, issue
            assert issue.file == str(path)
        assert result.valid == (result.manifest is not None)
        if result.manifest is not None:
            plan = plan_manifest(result.manifest, None).plan
            assert all(n.action.value == "create" for n in plan.nodes)
        if via_cli:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = run_cli(["validate", "--format", "json", str(path)])
            assert code == (0 if result.valid else 2), err.getvalue()
            assert "Traceback" not in err.getvalue()
            assert json.loads(out.getvalue())["valid"] is result.valid
