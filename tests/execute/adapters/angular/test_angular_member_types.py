"""The member-type fix of the entity model (Averos 1.4.1 declares number members as string)."""

from __future__ import annotations

from pathlib import Path

from averos_ci.execute.adapters.angular.app_edits.member_types import member_type

MODEL = """export class Book {
    @ID()
    id!: string;
    title!: string;
    pages!: string;
    pagesCount!: string;
    isRead!: string;
}"""


def _root(tmp_path: Path) -> Path:
    (tmp_path / "src/app/model").mkdir(parents=True)
    (tmp_path / "src/app/model/book.ts").write_text(MODEL)
    return tmp_path


def test_number_and_boolean_members_get_their_type(tmp_path: Path) -> None:
    root = _root(tmp_path)
    edited = member_type(root, {"ename": "Book", "mname": "pages", "memberType": "number"})
    text = edited.files["src/app/model/book.ts"]
    assert "    pages!: number;\n    pagesCount!: string;" in text
    assert text.replace("pages!: number", "pages!: string") == MODEL
    edited = member_type(root, {"ename": "Book", "mname": "is_read", "memberType": "boolean"})
    assert "    isRead!: boolean;" in edited.files["src/app/model/book.ts"]


def test_other_types_and_missing_or_edited_declarations_are_left_alone(tmp_path: Path) -> None:
    root = _root(tmp_path)
    for args in (
        {"ename": "Book", "mname": "title", "memberType": "string"},
        {"ename": "Book", "mname": "title", "memberType": "textarea"},
        {"ename": "Book", "mname": "nothing", "memberType": "number"},  # not declared
        {"ename": "Shelf", "mname": "pages", "memberType": "number"},  # no model file
    ):
        assert member_type(root, args).files == {}
    (root / "src/app/model/book.ts").write_text(MODEL.replace("pages!: string", "pages?: number"))
    pages = {"ename": "Book", "mname": "pages", "memberType": "number"}
    assert member_type(root, pages).files == {}
