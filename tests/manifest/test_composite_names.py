"""CON-16: composite member names the Averos 1.4 schematic would not generate are flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from averos_ci.manifest import validate_file

MANIFEST = """\
applicationName: ShopApp
serviceConfigurations:
  - {{name: OrderServiceConfiguration, id: OrderService}}
  - {{name: LineServiceConfiguration, id: LineService}}
entities:
  - name: Order
    sname: OrderService
    members:
      - memberNature: composite
        ename: Order
        fename: OrderLine
        memberName: {name}
        fieldRelationType: {relation}
  - name: OrderLine
    sname: LineService
"""


@pytest.mark.parametrize(
    ("name", "relation", "expected"),
    [
        ("orderLines", "OneToMany", []),
        ("orderLine", "OneToOne", []),
        ("lines", "OneToMany", [("CON-16", 12, 21)]),
        ("orderLines", "ManyToOne", [("CON-16", 12, 21)]),
    ],
)
def test_composite_member_name_matches_the_schematic(
    tmp_path: Path, name: str, relation: str, expected: list[tuple[str, int, int]]
) -> None:
    path = tmp_path / "shop.manifest.yaml"
    path.write_text(MANIFEST.format(name=name, relation=relation))
    result = validate_file(path)
    assert result.valid  # a warning, never fatal
    assert [(i.code, i.line, i.column) for i in result.issues] == expected


@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_lone_surrogate_escape_is_a_located_error(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"m.manifest.{suffix}"
    if suffix == "json":
        path.write_text('{"applicationName": "App",\n "description": "x\\ud800y"}')
        where = (2, 19)
    else:
        path.write_text('applicationName: App\ndescription: "x\\ud800y"\n')
        where = (2, 16)
    issues = validate_file(path).issues
    assert [(i.code, i.line, i.column) for i in issues] == [("SYN-03", *where)]


def test_surrogate_pair_escape_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "m.manifest.json"
    path.write_text('{"applicationName": "App", "description": "\\ud83d\\ude00"}')
    assert validate_file(path).issues == []
