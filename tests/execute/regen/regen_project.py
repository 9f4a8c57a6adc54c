"""A project applied by the file-writing mock (``"writeFiles": true``): its manifest is a small
dict built in the test; commands run in process through ``run_cli``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from averos_ci.cli import run_cli
from averos_ci.execute.regen.tree import snapshot

SIMPLE = "simple"


def member(ename: str, mname: str, mtype: str = "string", **extra: Any) -> dict[str, Any]:
    return {"memberNature": SIMPLE, "ename": ename, "mname": mname, "memberType": mtype, **extra}


def library(*, shelf: bool = True, title_type: str = "string") -> dict[str, Any]:
    """The library example in small: books on shelves."""
    entities: list[dict[str, Any]] = [
        {
            "name": "Book",
            "members": [
                member("Book", "bookId", memberTag="ID"),
                member("Book", "title", title_type),
                member("Book", "pages", "number"),
            ],
        }
    ]
    use_cases = [{"name": "BookCRUD", "ename": "Book", "useCaseType": "CRUD"}]
    entries = [{"localeID": "book.title", "localeValue": "Title"}]
    if shelf:
        entities[0]["members"].append(
            {
                "memberNature": "composite",
                "ename": "Book",
                "fename": "Shelf",
                "memberName": "shelf",
                "fieldRelationType": "ManyToOne",
            }
        )
        entities.append(
            {
                "name": "Shelf",
                "members": [member("Shelf", "shelfId", memberTag="ID"), member("Shelf", "label")],
            }
        )
        use_cases.append({"name": "SearchShelf", "ename": "Shelf", "useCaseType": "Search_Entity"})
        entries.append({"localeID": "shelf.label", "localeValue": "Label"})
    return manifest(entities, use_cases, entries)


def manifest(
    entities: list[dict[str, Any]],
    use_cases: list[dict[str, Any]] = (),  # type: ignore[assignment]
    entries: list[dict[str, Any]] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    return {
        "applicationName": "LibraryApp",
        "defaultLanguageCode": "en",
        "enableAuthentication": False,
        "entities": entities,
        "useCases": list(use_cases),
        "languages": [{"languageCode": "en", "translationEntries": list(entries)}],
    }


class Project:
    def __init__(self, root: Path, raw: dict[str, Any]) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.config = root / "averos.config.json"
        self.config.write_text(
            json.dumps(
                {
                    "workspaceRoot": "ws",
                    "manifestPath": "app.manifest.json",
                    "statePath": ".averos/state.json",
                    "checkpointPath": ".averos/checkpoints.json",
                    "logsDir": ".averos/logs",
                    "adapter": "mock",
                    "adapterOptions": {"writeFiles": True},
                }
            )
        )
        self.ws = root / "ws"
        self.write(raw)

    def write(self, raw: dict[str, Any]) -> None:
        (self.root / "app.manifest.json").write_text(json.dumps(raw, indent=1))

    def cli(self, *args: str) -> int:
        return run_cli([args[0], "--config", str(self.config), *args[1:]])

    def files(self) -> dict[str, bytes]:
        return snapshot(self.ws) if self.ws.is_dir() else {}

    def state(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.root / ".averos/state.json").read_text())
        return data

    def file(self, rel: str) -> Path:
        return self.ws / rel


def clean_generation(tmp: Path, raw: dict[str, Any]) -> dict[str, bytes]:
    """What the adapter generates for ``raw`` from nothing, in a fresh project."""
    fresh = Project(tmp, raw)
    assert fresh.cli("run") == 0
    return fresh.files()
