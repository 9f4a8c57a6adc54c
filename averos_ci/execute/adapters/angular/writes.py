"""Write a built-in edit's files: journaled, atomic, unchanged bytes left alone."""

from __future__ import annotations

from pathlib import Path

from averos_ci._fs import atomic_write_text
from averos_ci.execute.contracts import ExecutionContext, RuntimeMutation

from .driver.journal import Journal
from .edits import Edited
from .template.workspace import contained


def write_files(
    root: Path, files: dict[str, str], *, dry_run: bool, journal: Journal | None
) -> RuntimeMutation:
    created: list[str] = []
    updated: list[str] = []
    for relative, text in sorted(files.items()):
        path = contained(root, relative)
        existed = path.is_file()
        if existed and path.read_bytes() == text.encode("utf-8"):
            continue
        (updated if existed else created).append(relative)
        if dry_run:
            continue
        if journal is not None:
            journal.save(relative)
        atomic_write_text(path, text)
    return RuntimeMutation(created=tuple(created), updated=tuple(updated))


def merge(first: RuntimeMutation, second: RuntimeMutation) -> RuntimeMutation:
    created = set(first.created) | set(second.created)
    deleted = (set(first.deleted) | set(second.deleted)) - created
    updated = (set(first.updated) | set(second.updated)) - created - deleted
    return RuntimeMutation(
        created=tuple(sorted(created)),
        updated=tuple(sorted(updated)),
        deleted=tuple(sorted(deleted)),
    )


def apply_edit(context: ExecutionContext, edited: Edited) -> RuntimeMutation:
    """Write a built-in edit's files (journaled) and log them and its notes in the node's log:
    the notes say what the node asked for that the generated app has no place for."""
    mutation = write_files(
        context.workspace_root,
        edited.files,
        dry_run=context.dry_run,
        journal=Journal(context.workspace_root),
    )
    lines = [
        f"{kind} {path}"
        for kind, paths in (("CREATE", mutation.created), ("UPDATE", mutation.updated))
        for path in paths
    ]
    lines += [f"NOT APPLIED: {note}" for note in edited.notes]
    if lines:
        context.log_file.parent.mkdir(parents=True, exist_ok=True)
        with context.log_file.open("a", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
    return mutation
