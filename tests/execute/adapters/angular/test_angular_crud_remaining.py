"""advanced-crud next to a single use case of the same page: only the missing part runs
(Averos 1.4.1's advanced-crud fails on a page that already exists)."""

from __future__ import annotations

from averos_ci.execute.adapters.angular.mapping import OPERATIONS, Schematic

MODEL = "src/app/model/to-do-area.ts"
VIEW = "src/app/view/to-do-area"
CREATE = f"{VIEW}/create-to-do-area/create-to-do-area.component.ts"
SEARCH = f"{VIEW}/search-to-do-area/search-to-do-area.component.ts"
ARGS = {"name": "ToDoAreaCRUD", "ename": "ToDoArea"}


class _Files:
    def __init__(self, *paths: str) -> None:
        self.paths = set(paths)

    def read(self, relative: str) -> str | None:
        return "" if relative in self.paths else None


def _crud() -> Schematic:
    op = OPERATIONS["advanced-crud"]
    assert isinstance(op, Schematic) and op.remaining is not None and op.present is not None
    return op


def test_a_create_page_already_generated_leaves_only_the_search_use_case() -> None:
    files = _Files(MODEL, CREATE)
    assert not _crud().present(files, ARGS)
    assert _crud().remaining(files, ARGS) == (
        "search-entity-uc",
        {"name": "SearchToDoArea", "ename": "ToDoArea"},
    )


def test_a_search_page_already_generated_leaves_only_the_create_use_case() -> None:
    assert _crud().remaining(_Files(MODEL, SEARCH), ARGS) == (
        "create-entity-uc",
        {"name": "CreateToDoArea", "ename": "ToDoArea"},
    )


def test_the_whole_crud_runs_when_none_or_no_model_is_there() -> None:
    assert _crud().remaining(_Files(MODEL), ARGS) is None
    assert _crud().remaining(_Files(CREATE), ARGS) is None
    assert _crud().present(_Files(MODEL, CREATE, SEARCH), ARGS)
