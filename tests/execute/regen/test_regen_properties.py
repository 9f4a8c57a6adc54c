"""The laws of regenerate-and-merge (issue 21 "Proof"), for random sequences of manifest edits
(adds, removes, type changes, renames with ``renamedFrom``) interleaved with random user edits
(lines added in generated files, files deleted, new files), with the file-writing mock:

(i) with no user edits the workspace equals a clean generation of the last manifest, byte for
    byte;
(ii) every user edit that no generator change touched is still there: after an apply, every
    generated file is the clean generation plus exactly the user's own lines;
(iii) every collision is reported as a conflict: a refused apply (exit 5) names the files and
    writes nothing — so no silent mangling ever passes (ii).

Each apply records which branch it took (``hypothesis.event``, shown by
``--hypothesis-show-statistics``, and a counter): a test fails when a law's branch was never
reached in its examples, so a law cannot pass by never being exercised.
"""

from __future__ import annotations

import copy
import itertools
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from averos_ci.execute.regen.tree import PristineStore
from tests.execute.regen.regen_project import Project, clean_generation, manifest, member

NAMES = ["Book", "Shelf", "Author", "Loan"]
MEMBERS = ["title", "code", "count", "note"]
TYPES = ["string", "number", "boolean", "date"]
USER = "// USER-"  # every line a user adds carries this and a unique number
SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

Model = dict[str, list[tuple[str, str]]]  # entity -> [(member, type)], in order


def raw_of(
    model: Model, renames: dict[str, str], member_renames: dict[tuple[str, str], str]
) -> dict[str, Any]:
    entities = []
    for name, members in model.items():
        entity: dict[str, Any] = {
            "name": name,
            "members": [
                member(
                    name,
                    m,
                    t,
                    **(
                        {"renamedFrom": member_renames[(name, m)]}
                        if (name, m) in member_renames
                        else {}
                    ),
                )
                for m, t in members
            ],
        }
        if name in renames:
            entity["renamedFrom"] = renames[name]
        entities.append(entity)
    use_cases = [{"name": f"Search{n}", "ename": n, "useCaseType": "Search_Entity"} for n in model]
    entries = [
        {"localeID": f"{n.lower()}.{m}", "localeValue": f"{n} {m}"}
        for n, ms in model.items()
        for m, _ in ms[:1]
    ]
    return manifest(entities, use_cases, entries)


@st.composite
def manifest_edit(
    draw: st.DrawFn, model: Model
) -> tuple[Model, dict[str, str], dict[tuple[str, str], str]]:
    model = copy.deepcopy(model)
    renames: dict[str, str] = {}
    member_renames: dict[tuple[str, str], str] = {}
    free = [n for n in NAMES if n not in model]
    kinds = ["add_member", "remove_member", "retype", "rename_member"]
    if free:
        kinds += ["add_entity", "rename_entity"]
    if len(model) > 1:
        kinds.append("remove_entity")
    kind = draw(st.sampled_from(kinds))
    entity = draw(st.sampled_from(sorted(model)))
    members = model[entity]
    unused = [m for m in MEMBERS if m not in {x for x, _ in members}]
    if kind == "add_entity":
        model[draw(st.sampled_from(free))] = [
            (draw(st.sampled_from(MEMBERS)), draw(st.sampled_from(TYPES)))
        ]
    elif kind == "remove_entity":
        del model[entity]
    elif kind == "rename_entity":
        new = draw(st.sampled_from(free))
        model = {(new if k == entity else k): v for k, v in model.items()}
        renames[new] = entity
    elif kind == "add_member" and unused:
        at = draw(st.integers(0, len(members)))
        members.insert(at, (draw(st.sampled_from(unused)), draw(st.sampled_from(TYPES))))
    elif kind == "remove_member" and len(members) > 1:
        members.pop(draw(st.integers(0, len(members) - 1)))
    elif kind == "retype":
        i = draw(st.integers(0, len(members) - 1))
        name, old = members[i]
        members[i] = (name, draw(st.sampled_from([t for t in TYPES if t != old])))
    elif kind == "rename_member" and unused:
        i = draw(st.integers(0, len(members) - 1))
        new = draw(st.sampled_from(unused))
        member_renames[(entity, new)] = members[i][0]
        members[i] = (new, members[i][1])
    return model, renames, member_renames


def strip_user_lines(data: bytes) -> bytes:
    return b"".join(line for line in data.splitlines(keepends=True) if USER.encode() not in line)


class World:
    """The project, what the user did to it, and the checks after every step."""

    def __init__(self, root: Path, model: Model, reached: Counter[str]) -> None:
        self.root = root
        self.reached = reached  # the branches the applies took (see the module docstring)
        self.project = Project(root / "p", raw_of(model, {}, {}))
        assert self.project.cli("run") == 0
        self.user_files: dict[str, bytes] = {}  # new files the user created
        self.user_deleted: set[str] = set()  # generated files the user deleted
        self.counter = itertools.count()
        self.edited = False
        self.cleans = itertools.count()

    def pristine(self) -> dict[str, bytes]:
        state = self.project.state()
        tree = PristineStore(self.project.root / ".averos/pristine").load(state["pristine"]["key"])
        assert tree is not None
        return tree.files

    def user_edit(self, data: st.DataObject) -> None:
        files = sorted(p for p in self.project.files() if p not in self.user_files)
        kind = data.draw(st.sampled_from(["line", "line", "delete", "new"]))
        self.edited = True
        if kind == "new":
            rel = f"notes/user-{next(self.counter)}.txt"
            self.user_files[rel] = f"{USER}{next(self.counter)} my notes\n".encode()
            path = self.project.file(rel)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(self.user_files[rel])
        elif files and kind == "delete":
            rel = data.draw(st.sampled_from(files))
            self.project.file(rel).unlink()
            self.user_deleted.add(rel)
        elif files:
            rel = data.draw(st.sampled_from(files))
            path = self.project.file(rel)
            lines = path.read_bytes().splitlines(keepends=True)
            at = data.draw(st.integers(0, len(lines)))
            lines.insert(at, f"{USER}{next(self.counter)}\n".encode())
            path.write_bytes(b"".join(lines))

    def apply(self, raw: dict[str, Any]) -> None:
        before_files, before_state = self.project.files(), self.project.state()
        self.project.write(raw)
        code = self.project.cli("run")
        if code == 5:  # (iii): a collision is refused, nothing is written
            assert self.project.files() == before_files
            assert self.project.state() == before_state
            self.took("(iii) collision refused, nothing written")
            self.resolve(raw)
            return
        assert code == 0
        self.check(raw)

    def resolve(self, raw: dict[str, Any]) -> None:
        """Give up the user's edits of the conflicting files (what a user may do), re-apply."""
        base = self.pristine()
        for rel in set(base) | set(self.project.files()):
            if rel in self.user_files:
                continue
            path = self.project.file(rel)
            if rel in base:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(base[rel])
            else:  # a kept (no longer generated) file
                path.unlink()
        self.user_deleted.clear()
        assert self.project.cli("run") == 0
        self.check(raw)

    def check(self, raw: dict[str, Any]) -> None:
        now = self.project.files()
        new = self.pristine()
        for rel, data in self.user_files.items():  # new user files are never touched
            assert now.get(rel) == data, rel
        for rel, generated in new.items():
            if rel not in now:
                assert rel in self.user_deleted, f"{rel} vanished"
                continue
            assert strip_user_lines(now[rel]) == generated, rel  # (ii): only the user's lines
        for rel in now:
            assert rel in new or rel in self.user_files or USER.encode() in now[rel], rel
        if any(USER.encode() in now[rel] for rel in new if rel in now):
            self.took("(ii) user lines kept in generated files")
        if not self.edited:  # (i): byte for byte a clean generation
            fresh = clean_generation(self.root / f"clean{next(self.cleans)}", raw)
            assert now == fresh
            self.took("(i) compared with a clean generation")

    def took(self, branch: str) -> None:
        event(branch)
        self.reached[branch] += 1


def _start(data: st.DataObject) -> Model:
    names = data.draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=2, unique=True))
    return {
        n: [
            (m, data.draw(st.sampled_from(TYPES)))
            for m in data.draw(
                st.lists(st.sampled_from(MEMBERS), min_size=1, max_size=3, unique=True)
            )
        ]
        for n in names
    }


def _run(data: st.DataObject, *, user_edits: bool, reached: Counter[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="averos-ci-regen-prop-") as tmp:
        model = _start(data)
        world = World(Path(tmp), model, reached)
        for _ in range(data.draw(st.integers(1, 3))):
            if user_edits:
                for _ in range(data.draw(st.integers(0, 2))):
                    world.user_edit(data)
            model, renames, member_renames = data.draw(manifest_edit(model))
            world.apply(raw_of(model, renames, member_renames))
        shutil.rmtree(tmp, ignore_errors=True)


def test_without_user_edits_the_workspace_is_a_clean_generation() -> None:
    reached: Counter[str] = Counter()

    @SETTINGS
    @given(data=st.data())
    def examples(data: st.DataObject) -> None:
        _run(data, user_edits=False, reached=reached)

    examples()
    assert reached["(i) compared with a clean generation"], reached


def test_user_edits_survive_and_every_collision_is_a_conflict() -> None:
    reached: Counter[str] = Counter()

    # Derandomized: a collision is drawn in about one example in five (5 applies of 25 in a
    # measured run), so random seeds would miss law (iii) entirely about once in 150 runs and
    # fail CI by chance; a fixed seed reaches it every time (the check below says so if a
    # change of the strategies ever stops it).
    @settings(SETTINGS, derandomize=True)
    @given(data=st.data())
    def examples(data: st.DataObject) -> None:
        _run(data, user_edits=True, reached=reached)

    examples()
    laws = ("(ii) user lines kept in generated files", "(iii) collision refused, nothing written")
    assert all(reached[law] for law in laws), f"a law's branch was never reached: {reached}"
