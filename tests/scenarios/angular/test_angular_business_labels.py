"""A one-to-one related record is shown by its entity's BusinessID, as Averos 2 shows it
(issue 41; app_edits/labels.py).

A Shelf holds one Book (``OneToOne``) and ``Book.title`` is its BusinessID. The real 1.4.1
``add-composite-member`` labels the relation ``book.name`` in every use case of
``shelfVL.json``; the adapter makes it ``book.title``, whichever of the two nodes runs first
(the plan's order, then the other order by running the relation's node again after the tag).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from averos_ci.execute.adapters.angular.adapter import AngularSchematicsAdapter
from averos_ci.execute.adapters.angular.testing import context, fresh_workspace
from averos_ci.execute.contracts import ExecutionState
from averos_ci.plan.model import PlanNode
from tests.plan.plan_samples import plan_of

pytestmark = [pytest.mark.angular, pytest.mark.slow]

SHELF_VL = "src/assets/viewlayout/shelfVL.json"


def _service(name: str, path: str) -> dict[str, Any]:
    return {
        "type": "service",
        "name": f"{name}Configuration",
        "id": name,
        "apiProtocol": "http",
        "apiHost": "127.0.0.1",
        "apiPort": 3000,
        "apiEndPoint": path,
    }


def _manifest(*, tagged: bool) -> dict[str, Any]:
    title: dict[str, Any] = {
        "memberNature": "simple",
        "ename": "Book",
        "mname": "title",
        "memberType": "string",
    }
    if tagged:
        title["memberTag"] = "BusinessID"
    return {
        "applicationName": "ToDoApp",  # the cached template's application
        "defaultLanguageCode": "en",
        "enableAuthentication": False,
        "entities": [
            {"name": "Book", "sname": "BookService", "members": [title]},
            {
                "name": "Shelf",
                "sname": "ShelfService",
                "members": [
                    {
                        "memberNature": "composite",
                        "ename": "Shelf",
                        "fename": "Book",
                        "memberName": "book",
                        "fieldRelationType": "OneToOne",
                    }
                ],
            },
        ],
        "serviceConfigurations": [
            _service("BookService", "/books"),
            _service("ShelfService", "/shelves"),
        ],
    }


def _labels(ws: Path) -> set[str]:
    layout = json.loads((ws / SHELF_VL).read_text(encoding="utf-8"))
    return {
        str(entry.get("entityCompositeFieldName"))
        for view in layout.values()
        if isinstance(view, dict)
        for entry in view.get("ucViewLayout", [])
        if entry.get("entityFieldName") == "book"
    }


def _run(adapter: AngularSchematicsAdapter, ws: Path, nodes: list[PlanNode]) -> None:
    state = ExecutionState(cwd=ws)
    for node in nodes:
        result = adapter.execute(node, context(ws, node.id), state)
        assert result.success, (node.id, result.failure)


def test_a_related_record_is_labelled_by_its_business_id(
    angular_template: Path, angular_env: Path, tmp_path: Path
) -> None:
    nodes = [n for n in plan_of(_manifest(tagged=True)).nodes if n.command != "ng-add"]
    commands = [n.command for n in nodes]
    assert "add-composite-member" in commands and "add-simple-member" in commands
    ws = tmp_path / "ws"
    fresh_workspace(angular_template, ws, shared_node_modules=True)
    adapter = AngularSchematicsAdapter({"templateCache": True})
    try:
        _run(adapter, ws, nodes)
        assert _labels(ws) == {"book.title"}  # 1.4.1 writes book.name
        # the other order: the relation is labelled again by the schematic, then the tag's
        # node (run again, as a regeneration does) relabels it
        (relation,) = [n for n in nodes if n.command == "add-composite-member"]
        (tag,) = [n for n in nodes if n.id.endswith(":title")]
        layout = (ws / SHELF_VL).read_text(encoding="utf-8")
        (ws / SHELF_VL).write_text(layout.replace("book.title", "book.name"), encoding="utf-8")
        _run(adapter, ws, [tag])
        assert _labels(ws) == {"book.title"}
        before = (ws / SHELF_VL).read_bytes()
        _run(adapter, ws, [relation, tag])  # idempotent
        assert (ws / SHELF_VL).read_bytes() == before
    finally:
        adapter.close()


def test_without_a_business_id_the_runtime_label_stays(
    angular_template: Path, angular_env: Path, tmp_path: Path
) -> None:
    nodes = [n for n in plan_of(_manifest(tagged=False)).nodes if n.command != "ng-add"]
    ws = tmp_path / "ws"
    fresh_workspace(angular_template, ws, shared_node_modules=True)
    adapter = AngularSchematicsAdapter({"templateCache": True})
    try:
        _run(adapter, ws, nodes)
    finally:
        adapter.close()
    assert _labels(ws) == {"book.name"}  # what 1.4.1's add-composite-member writes
