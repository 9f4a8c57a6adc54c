"""Every finding that names a missing element says what it could be (issue 38 item 7): the
did-you-mean when a name is close (``Ordr``, ``order``), else the names there are
(``'Author' names no entity`` among ``Customer, Order``), never a bare "names no entity"."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.manifest import validate_file
from tests.manifest.test_corpus import edit

ENTITIES = "the entities are Customer, Order"
# (id, line of GOOD_YAML, its text with {name} for the reference, code, names listed)
REFERENCES = [
    ("fename", 20, "        fename: {name}", "REF-02", ENTITIES),
    ("sname", 6, "    sname: {name}", "REF-03", "the service configuration ids are OrderService"),
    ("mapping-ename", 39, "    ename: {name}", "REF-04", ENTITIES),
    ("mapping-fieldKey", 41, "      - fieldKey: {name}", "REF-05",
     "the members of Order are customer, orderId, status"),
    ("service-ename", 48, "services:\n  - name: OrderService\n    ename: {name}", "REF-06",
     ENTITIES),
    ("targetEntity", 48, "        targetEntity: {name}", "REF-07",
     "the entities and use cases are Customer, Order, OrderCRUD"),
    ("provider", 3, "enableAuthentication: true\ndefaultAuthenticationProvider: {name}\n"
     "authentication:\n  - name: Dummy\n    providerType: dummy", "REF-08",
     "the providerTypes are dummy"),
    ("use-case-ename", 35, "    ename: {name}", "REF-09", ENTITIES),
]  # fmt: skip
# A misspelling and the name it stands for, per reference kind.
NEAR = {"REF-03": ("OrderServce", "OrderService"), "REF-05": ("orderID", "orderId"),
        "REF-07": ("order", "Order"), "REF-08": ("dumy", "dummy")}  # fmt: skip


def hint_for(tmp_path: Path, line: int, text: str, code: str) -> str | None:
    path = tmp_path / "m.manifest.yaml"
    path.write_text(edit({line: text}))
    found = [i for i in validate_file(path).issues if i.code == code]
    assert len(found) == 1, validate_file(path).issues
    return found[0].hint


@pytest.mark.parametrize(("line", "text", "code", "names"), [r[1:] for r in REFERENCES],
                         ids=[r[0] for r in REFERENCES])  # fmt: skip
def test_a_name_with_no_near_miss_lists_the_names_there_are(
    tmp_path: Path, line: int, text: str, code: str, names: str
) -> None:
    hint = hint_for(tmp_path, line, text.format(name="Author"), code)
    assert hint is not None and names in hint, hint


@pytest.mark.parametrize(("line", "text", "code"), [r[1:4] for r in REFERENCES],
                         ids=[r[0] for r in REFERENCES])  # fmt: skip
def test_a_near_miss_gets_a_did_you_mean(tmp_path: Path, line: int, text: str, code: str) -> None:
    wrong, right = NEAR.get(code, ("Ordr", "Order"))
    hint = hint_for(tmp_path, line, text.format(name=wrong), code)
    assert hint is not None and hint.startswith(f"did you mean {right!r}?"), hint
