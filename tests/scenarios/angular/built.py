"""Builds shared by the real-Angular tests: an app that several tests build is generated and
built once per session (per xdist worker), and the tests taking it share an xdist group
(``pytest.mark.xdist_group(<its group>)``) so that one worker builds it.

``todo_build``: the ToDo example (examples/todoapp) with its services moved to a free port
(the browser test starts json-server there), generated from nothing by an ordinary ``apply``
and built with ``averos-ci preview``'s build. Its tests only read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from averos_ci.config import load_config
from averos_ci.execute.adapters.angular.testing import tree_digest
from averos_ci.planning import apply
from averos_ci.preview.build import build_app
from tests.scenarios.angular.applied import CONFIG, TODO, cache_env
from tests.scenarios.angular.browser import free_port
from tests.scenarios.angular.slot import build_in_slot

TODO_GROUP = "todo-build"
KEEP_CHILDREN = "todo-keep-children"  # the example with deleteStrategy KEEP_CHILDREN


@dataclass(frozen=True)
class Built:
    project: Path
    api_port: int  # the port of every service of the manifest
    digest: dict[str, str]  # the generated workspace (tree_digest: without the build output)
    served: Path  # the build's output folder, with its index.html

    @property
    def workspace(self) -> Path:
        return self.project / "workspace"


_built: dict[str, Built] = {}


@pytest.fixture(scope="session")
def todo_build(
    angular_template: Path, angular_cache_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Built:
    return _build(TODO_GROUP, angular_cache_dir, tmp_path_factory)


@pytest.fixture(scope="session")
def todo_keep_children_build(
    angular_template: Path, angular_cache_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Built:
    """The example whose ToDoArea.toDoTasks says ``deleteStrategy: KEEP_CHILDREN``; its tests
    share TODO_GROUP (one worker builds both)."""
    return _build(KEEP_CHILDREN, angular_cache_dir, tmp_path_factory)


def _build(key: str, angular_cache_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Built:
    if key not in _built:
        port = free_port()
        project = _todo_project(tmp_path_factory.mktemp(key) / "project", port, key)
        with cache_env(angular_cache_dir):
            outcome = apply(load_config(project / "averos.config.json"))
            assert outcome.summary.success, outcome.summary.failures
            ws = project / "workspace"
            digest = tree_digest(ws)
            log, cache = project / "build.log", angular_cache_dir
            served = build_in_slot(
                ws, cache, lambda copy: build_app(copy, npx="npx", cache=cache, log=log)
            )
        _built[key] = Built(project=project, api_port=port, digest=digest, served=served)
    return _built[key]


def _todo_project(project: Path, api_port: int, key: str = TODO_GROUP) -> Path:
    project.mkdir(parents=True)
    yaml = YAML()
    doc = yaml.load(TODO.read_text(encoding="utf-8"))
    assert doc["enableAuthentication"] is False
    for service in doc["serviceConfigurations"]:
        service["apiPort"] = api_port
    if key == KEEP_CHILDREN:
        [area] = [e for e in doc["entities"] if e["name"] == "ToDoArea"]
        [relation] = [m for m in area["members"] if m.get("memberName") == "toDoTasks"]
        relation["deleteStrategy"] = "KEEP_CHILDREN"
    with (project / TODO.name).open("w", encoding="utf-8") as f:
        yaml.dump(doc, f)
    config = {**CONFIG, "manifestPath": TODO.name}
    (project / "averos.config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return project
