"""Issue 3: the plan JSON of the ToDo example and of the golden Averos export, byte for byte.

Regenerate after an intended change with ``AVEROS_CI_UPDATE_GOLDENS=1 pytest tests/plan``
and review the diff of ``tests/plan/golden/`` like code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from averos_ci.cli import run_cli
from tests.conftest import GOLDEN_MANIFEST
from tests.plan.plan_samples import EXAMPLE_MANIFEST, example_raw, golden_raw

GOLDEN_DIR = Path(__file__).parent / "golden"
CASES = [
    pytest.param("todoapp.plan.json", EXAMPLE_MANIFEST, example_raw, id="todoapp"),
    pytest.param("averos-golden.plan.json", GOLDEN_MANIFEST, golden_raw, id="averos-golden"),
]


def _plan_json(
    manifest: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> str:
    monkeypatch.chdir(tmp_path)  # no averos.config.json here: defaults + flags only
    code = run_cli(
        [
            "plan",
            "--manifest",
            str(manifest),
            "--state",
            str(tmp_path / "no-state.json"),
            "--format",
            "json",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize(("name", "manifest", "raw"), CASES)
def test_plan_json_is_byte_identical_to_golden(
    name: str,
    manifest: Path,
    raw: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = _plan_json(manifest, tmp_path, capsys, monkeypatch)
    golden = GOLDEN_DIR / name
    if os.environ.get("AVEROS_CI_UPDATE_GOLDENS") == "1":
        golden.write_bytes(out.encode("utf-8"))
    assert golden.exists(), f"missing {golden}: run with AVEROS_CI_UPDATE_GOLDENS=1"
    assert out.encode("utf-8") == golden.read_bytes(), (
        f"plan JSON differs from {golden}; if intended, regenerate with AVEROS_CI_UPDATE_GOLDENS=1"
    )
    out_file = tmp_path / "plan.json"
    assert (
        run_cli(
            [
                "plan",
                "--manifest",
                str(manifest),
                "--state",
                str(tmp_path / "none.json"),
                "--format",
                "json",
                "--out",
                str(out_file),
            ]
        )
        == 0
    )
    assert out_file.read_bytes() == golden.read_bytes()


def _expected_ids(raw: dict[str, Any]) -> set[str]:
    """Node ids as DESIGN.md names them, derived from the raw manifest by hand."""
    ids = {f"application:{raw['applicationName']}"}
    for e in raw.get("entities", []):
        ids.add(f"entity:{e['name']}")
        for m in e.get("members", []):
            if m["memberNature"] == "simple":
                ids.add(f"simple-field:{e['name']}:{m['mname']}")
            else:
                ids.add(f"composite-field:{e['name']}:{m['memberName']}")
    ids |= {f"mapping:{f['name']}" for f in raw.get("fieldMappings", [])}
    ids |= {f"service-config:{s['name']}" for s in raw.get("serviceConfigurations", [])}
    ids |= {f"use-case:{u['name']}" for u in raw.get("useCases", [])}
    ids |= {f"page:{p['name']}" for p in raw.get("blankPages", [])}
    ids |= {f"auth:{a['name']}" for a in raw.get("authentication", [])}
    if raw.get("httpAuthConfig") is not None:
        ids.add("auth:http-auth-config")
    for lang in raw.get("languages", []):
        ids.add(f"translation:{lang['languageCode']}")
        ids |= {
            f"translation-entry:{lang['languageCode']}:{t['localeID']}"
            for t in lang.get("translationEntries", [])
        }
    return ids


@pytest.mark.parametrize(("name", "manifest", "raw"), CASES)
def test_golden_plan_covers_exactly_the_manifest(name: str, manifest: Path, raw: Any) -> None:
    """Guards the checked-in file itself, so a wrong regeneration cannot go unnoticed."""
    doc = json.loads((GOLDEN_DIR / name).read_text(encoding="utf-8"))
    ids = [n["id"] for n in doc["nodes"]]
    assert len(ids) == len(set(ids))
    assert set(ids) == _expected_ids(raw())
    assert {n["action"] for n in doc["nodes"]} == {"create"}
    assert doc["applicable"] is True
    assert doc["counts"] == {
        "create": len(ids),
        "update": 0,
        "skip": 0,
        "conflicts": 0,
        "remove": 0,
    }
    assert sorted(c["id"] for c in doc["diff"]["toAdd"]) == sorted(ids)
    assert doc["formatVersion"] == 2
    assert doc["applicationName"] == "ToDoApp"
    for key in ("planHash", "manifestHash", "baseStateHash"):
        assert len(doc[key]) == 64 and int(doc[key], 16) >= 0
    seen: set[str] = set()
    for node in doc["nodes"]:
        assert set(node["dependsOn"]) <= seen, node["id"]
        seen.add(node["id"])
