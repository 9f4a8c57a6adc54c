"""Issue 2: a corpus of bad manifests, each located at the expected line and column.

Semantic cases edit single lines of ``GOOD_YAML`` (see ``conftest.py``) so the expected
position can be read off the text: the column is where the offending value (or key) starts.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from averos_ci.cli import run_cli
from averos_ci.manifest import validate_file
from tests.manifest.manifest_samples import GOLDEN_MANIFEST, GOOD_YAML


def edit(changes: dict[int, str]) -> str:
    """GOOD_YAML with 1-based lines replaced (a value may span lines; len+1 appends)."""
    lines = GOOD_YAML.splitlines()
    for no in sorted(changes, reverse=True):
        if no == len(lines) + 1:
            lines.append(changes[no])
        else:
            lines[no - 1] = changes[no]
    return "\n".join(lines) + "\n"


def test_edit_helper_keeps_good_manifest_valid(tmp_path: Path) -> None:
    path = tmp_path / "good.manifest.yaml"
    path.write_text(edit({}))
    result = validate_file(path)
    assert result.valid, result.issues
    assert result.issues == []


# (id, changes to GOOD_YAML, code, line, column)
SEMANTIC = [
    ("REF-01-member-ename", {9: "        ename: Customer"}, "REF-01", 9, 16),
    ("REF-02-fename-dangling", {20: "        fename: Ghost"}, "REF-02", 20, 17),
    ("REF-03-sname-unconfigured", {6: "    sname: InvoiceService"}, "REF-03", 6, 12),
    ("REF-04-mapping-ename", {39: "    ename: Ghost"}, "REF-04", 39, 12),
    ("REF-05-mapping-fieldkey", {41: "      - fieldKey: ghost"}, "REF-05", 41, 19),
    (
        "REF-06-service-ename",
        {48: "services:\n  - name: OrderService\n    ename: Ghost"},
        "REF-06",
        50,
        12,
    ),
    (
        "REF-08-provider-unmatched",
        {
            3: "enableAuthentication: true\ndefaultAuthenticationProvider: oauth\n"
            "authentication:\n  - name: Dummy\n    providerType: dummy"
        },
        "REF-08",
        4,
        32,
    ),
    ("REF-09-use-case-ename", {35: "    ename: Ghost"}, "REF-09", 35, 12),
    ("CON-01-entity", {23: "  - name: Order"}, "CON-01", 23, 11),
    ("CON-01-member", {15: "        mname: orderId"}, "CON-01", 15, 16),
    ("CON-01-composite-vs-simple-member", {21: "        memberName: status"}, "CON-01", 21, 21),
    (
        "CON-01-use-case",
        {
            36: "    useCaseType: CRUD\n  - name: OrderCRUD\n    ename: Order\n"
            "    useCaseType: Search_Entity"
        },
        "CON-01",
        37,
        11,
    ),
    (
        "CON-01-service-configuration",
        {32: "    apiProtocol: https\n  - name: OrderServiceConfiguration\n    id: OtherService"},
        "CON-01",
        33,
        11,
    ),
    (
        "CON-01-service-configuration-id",
        {32: "    apiProtocol: https\n  - name: OtherServiceConfiguration\n    id: OrderService"},
        "CON-01",
        34,
        9,
    ),
    ("CON-01-language", {48: "  - languageCode: en"}, "CON-01", 48, 19),
    (
        "CON-01-locale-id",
        {48: "      - localeID: order.status\n        localeValue: Again"},
        "CON-01",
        48,
        19,
    ),
    ("CON-02-entity-camel", {23: "  - name: customer"}, "CON-02", 23, 11),
    ("CON-02-entity-underscore", {23: "  - name: Cus_tomer"}, "CON-02", 23, 11),
    ("CON-02-application", {1: "applicationName: shop app"}, "CON-02", 1, 18),
    ("CON-02-service-sname", {6: "    sname: order-service"}, "CON-02", 6, 12),
    ("CON-03-member-dash", {27: "        mname: e-mail"}, "CON-03", 27, 16),
    ("CON-03-member-digit", {27: "        mname: 1stEmail"}, "CON-03", 27, 16),
    ("CON-04-member-65", {27: "        mname: " + "e" * 65}, "CON-04", 27, 16),
    ("CON-04-entity-65", {23: "  - name: C" + "x" * 64}, "CON-04", 23, 11),
    ("CON-05-member-class", {27: "        mname: class"}, "CON-05", 27, 16),
    ("CON-05-entity-Class", {23: "  - name: Class"}, "CON-05", 23, 11),
    ("CON-05-entity-global", {23: "  - name: Promise"}, "CON-05", 23, 11),
    ("CON-06-member-slash", {27: "        mname: a/b"}, "CON-06", 27, 16),
    ("CON-06-member-backslash", {27: "        mname: 'a\\b'"}, "CON-06", 27, 16),
    ("CON-06-entity-dotdot", {23: "  - name: ../Evil"}, "CON-06", 23, 11),
    ("CON-06-entity-nul", {23: '  - name: "Cus\\0tomer"'}, "CON-06", 23, 11),
    ("CON-06-use-case-dotdot", {34: "  - name: Order..CRUD"}, "CON-06", 34, 11),
    ("CON-07-enum-empty", {17: "        listOfEnumValues: ''"}, "CON-07", 13, 9),
    ("CON-07-enum-missing", {17: ""}, "CON-07", 13, 9),
    (
        "CON-07-enum-not-identifier",
        {17: "        listOfEnumValues: New,In Progress"},
        "CON-07",
        17,
        27,
    ),
    ("CON-07-enum-repeated", {17: "        listOfEnumValues: New,Paid,New"}, "CON-07", 17, 27),
    ("CON-08-member-type", {11: "        memberType: text"}, "CON-08", 11, 21),
    ("CON-08-relation", {22: "        fieldRelationType: ManyToMany"}, "CON-08", 22, 28),
    (
        "CON-08-delete-strategy",
        {22: "        fieldRelationType: ManyToOne\n        deleteStrategy: BURN"},
        "CON-08",
        23,
        25,
    ),
    ("CON-08-use-case-type", {36: "    useCaseType: Delete_Entity"}, "CON-08", 36, 18),
    ("CON-08-member-nature", {8: "      - memberNature: weird"}, "CON-08", 8, 23),
    (
        "CON-09-two-ids",
        {16: "        memberType: string", 17: "        memberTag: ID"},
        "CON-09",
        17,
        20,
    ),
    ("CON-09-id-on-boolean", {11: "        memberType: boolean"}, "CON-09", 11, 21),
    ("CON-09-unknown-tag", {12: "        memberTag: Key"}, "CON-09", 12, 20),
    ("CON-10-language", {44: "  - languageCode: xx"}, "CON-10", 44, 19),
    ("CON-10-default-language", {2: "defaultLanguageCode: english"}, "CON-10", 2, 22),
    ("CON-11-auth-without-provider", {3: "enableAuthentication: true"}, "CON-11", 3, 23),
    ("CON-12-protocol", {32: "    apiProtocol: ftp"}, "CON-12", 32, 18),
    ("CON-13-locale-id", {46: "      - localeID: order..status"}, "CON-13", 46, 19),
    ("SYN-10-application-name-int", {1: "applicationName: 42"}, "SYN-10", 1, 18),
    ("SYN-10-bool-as-string", {3: 'enableAuthentication: "no"'}, "SYN-10", 3, 23),
    ("SYN-10-port-string", {32: '    apiProtocol: https\n    apiPort: "443"'}, "SYN-10", 33, 14),
    ("SYN-10-port-range", {32: "    apiProtocol: https\n    apiPort: 70000"}, "SYN-10", 33, 14),
    (
        "SYN-10-member-scalar",
        {25: "      - just a member", 26: "", 27: "", 28: ""},
        "SYN-10",
        25,
        9,
    ),
    (
        "SYN-10-members-not-list",
        {24: "    members: none", 25: "", 26: "", 27: "", 28: ""},
        "SYN-10",
        24,
        14,
    ),
    ("SYN-11-member-mname", {10: ""}, "SYN-11", 8, 9),
    ("SYN-11-use-case-name", {34: "  - ename: Order", 35: ""}, "SYN-11", 34, 5),
    ("SYN-11-composite-fename", {20: ""}, "SYN-11", 18, 9),
]


# (id, file name, content, code, line, column)
STANDALONE: list[tuple[str, str, str | bytes, str, int, int]] = [
    ("SYN-05-yaml-mapping-in-scalar", "m.yaml", "applicationName: Shop: App\n", "SYN-05", 1, 22),
    (
        "SYN-05-yaml-unclosed-quote",
        "m.yaml",
        'applicationName: ShopApp\ndescription: "open\n',
        "SYN-05",
        3,
        1,
    ),
    (
        "SYN-05-json-missing-value",
        "m.json",
        '{"applicationName": "ShopApp",\n  "entities": [}\n',
        "SYN-05",
        2,
        16,
    ),
    ("SYN-05-json-trailing-comma", "m.json", '{"applicationName": "ShopApp",}', "SYN-05", 1, 31),
    (
        "SYN-06-yaml-duplicate-root",
        "m.yaml",
        "applicationName: ShopApp\nentities: []\napplicationName: Other\n",
        "SYN-06",
        3,
        1,
    ),
    (
        "SYN-06-yaml-duplicate-nested",
        "m.yaml",
        "applicationName: ShopApp\nentities:\n  - name: Order\n    name: Other\n",
        "SYN-06",
        4,
        5,
    ),
    (
        "SYN-06-json-duplicate-root",
        "m.json",
        '{\n  "applicationName": "A",\n  "applicationName": "B"\n}\n',
        "SYN-06",
        3,
        3,
    ),
    (
        "SYN-06-json-duplicate-nested",
        "m.json",
        '{"applicationName": "A",\n "entities": [{"name": "Order",\n   "name": "Other"}]}\n',
        "SYN-06",
        3,
        4,
    ),
    (
        "SYN-07-anchor",
        "m.yaml",
        "applicationName: ShopApp\ndescription: &d text\n",
        "SYN-07",
        2,
        14,
    ),
    ("SYN-07-alias-only", "m.yaml", "applicationName: ShopApp\ndescription: *d\n", "SYN-07", 2, 14),
    (
        "SYN-07-anchor-on-list-item",
        "m.yaml",
        "applicationName: ShopApp\nentities:\n  - &e {name: Order}\n  - *e\n",
        "SYN-07",
        3,
        5,
    ),
    (
        "SYN-03-latin1",
        "m.yaml",
        b"applicationName: ShopApp\ndescription: caf\xe9\n",
        "SYN-03",
        2,
        17,
    ),
    ("SYN-03-json", "m.json", b'{"applicationName":\n\n  "Sh\xffp"}', "SYN-03", 3, 6),
    ("SYN-04-empty", "m.yaml", "", "SYN-04", 1, 1),
    ("SYN-04-blank", "m.json", "  \n\n\t\n", "SYN-04", 1, 1),
    ("SYN-04-bom-only", "m.yaml", b"\xef\xbb\xbf", "SYN-04", 1, 1),
    ("SYN-08-yaml-list", "m.yaml", "- applicationName: ShopApp\n", "SYN-08", 1, 1),
    ("SYN-08-json-list", "m.json", '[{"applicationName": "ShopApp"}]', "SYN-08", 1, 1),
    ("SYN-08-yaml-scalar", "m.yaml", "just text\n", "SYN-08", 1, 1),
    ("SYN-08-json-scalar", "m.json", "42\n", "SYN-08", 1, 1),
    ("SYN-08-json-null", "m.json", "null\n", "SYN-08", 1, 1),
    (
        "SYN-10-entities-mapping",
        "m.json",
        '{\n  "applicationName": "ShopApp",\n  "entities": {"name": "Order"}\n}\n',
        "SYN-10",
        3,
        15,
    ),
    (
        "SYN-10-entity-name-list",
        "m.yaml",
        "applicationName: ShopApp\nentities:\n  - name: [Order]\n",
        "SYN-10",
        3,
        11,
    ),
    ("SYN-11-application-name", "m.json", '{"entities": []}', "SYN-11", 1, 1),
    (
        "SYN-11-json-entity-name",
        "m.json",
        '{\n  "applicationName": "ShopApp",\n  "entities": [\n    {"sname": "S"}\n  ]\n}\n',
        "SYN-11",
        4,
        5,
    ),
    (
        "SYN-13-designer-without-app",
        "m.json",
        '{\n  "project": {\n    "type": "project"\n  },\n  "version": "1"\n}\n',
        "SYN-13",
        2,
        14,
    ),
    (
        "SYN-10-designer-app-not-object",
        "m.json",
        '{"project": {"averosApplication": "ShopApp"}}',
        "SYN-10",
        1,
        35,
    ),
    (
        "REF-01-json",
        "m.json",
        textwrap.dedent("""\
        {
          "applicationName": "ShopApp",
          "entities": [
            {"name": "Order", "members": [
              {"memberNature": "simple", "ename": "Ordr", "mname": "id", "memberType": "string"}
            ]}
          ]
        }
        """),
        "REF-01",
        5,
        43,
    ),
    (
        "CON-02-designer-export",
        "m.json",
        textwrap.dedent("""\
        {
          "project": {
            "averosApplication": {
              "applicationName": "ShopApp",
              "entities": [{"name": "order"}]
            }
          },
          "diagrams": []
        }
        """),
        "CON-02",
        5,
        29,
    ),
]


def _errors(path: Path) -> list[tuple[str, int, int]]:
    return [(i.code, i.line, i.column) for i in validate_file(path).issues if i.is_error]


def _assert_cli_reports(
    path: Path, code: str, line: int, col: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["validate", str(path)]) == 2
    out, err = capsys.readouterr()
    assert f"{path}:{line}:{col}: error {code} " in out
    assert "Traceback" not in out + err
    assert "invalid: " in err


@pytest.mark.parametrize(
    ("changes", "code", "line", "col"), [pytest.param(*c[1:], id=c[0]) for c in SEMANTIC]
)
def test_semantic_error_is_located(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    changes: dict[int, str],
    code: str,
    line: int,
    col: int,
) -> None:
    path = tmp_path / "shop.manifest.yaml"
    path.write_text(edit(changes), encoding="utf-8")
    assert (code, line, col) in _errors(path)
    assert validate_file(path).manifest is None
    _assert_cli_reports(path, code, line, col, capsys)


@pytest.mark.parametrize(
    ("name", "content", "code", "line", "col"), [pytest.param(*c[1:], id=c[0]) for c in STANDALONE]
)
def test_bad_document_is_located(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str | bytes,
    code: str,
    line: int,
    col: int,
) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    assert (code, line, col) in _errors(path)
    _assert_cli_reports(path, code, line, col, capsys)


def test_non_utf8_column_counts_characters(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_bytes("applicationName: ShopApp\ndescription: éé".encode() + b"\xff\n")
    assert ("SYN-03", 2, 16) in _errors(path)


def test_json_nan_is_located(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text('{"applicationName": "ShopApp",\n "x": NaN}')
    errors = _errors(path)
    assert errors and errors[0][0] == "SYN-05"
    assert errors[0][1:] == (2, 7)


def test_sname_without_any_service_configuration(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(
        "applicationName: ShopApp\nentities:\n  - name: Order\n    sname: OrderService\n"
    )
    assert ("REF-03", 4, 12) in _errors(path)


def test_billion_laughs_is_refused_before_expansion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = ["applicationName: ShopApp", 'lol0: &l0 ["lol","lol","lol","lol","lol","lol"]']
    lines += [f"lol{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 12)]
    path = tmp_path / "bomb.manifest.yaml"
    path.write_text("\n".join(lines) + "\n")
    # Expanded this is 6 * 9**11 strings: only refusing the anchors lets the test finish.
    assert _errors(path) == [("SYN-07", 2, 7)]
    _assert_cli_reports(path, "SYN-07", 2, 7, capsys)


def test_absurd_json_nesting_is_an_issue_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    depth = 100_000
    path.write_text('{"applicationName": "ShopApp", "x": ' + "[" * depth + "]" * depth + "}")
    assert _errors(path) == [("SYN-05", 1, 1)]


def test_deep_yaml_nesting_is_an_issue_not_a_crash(tmp_path: Path) -> None:
    # Kept shallow (just over MAX_DEPTH): ruamel's scanner is quadratic in flow depth, so a
    # 10 KB file of 5,000 nested '[' takes ~40 s to refuse (reported as a bug).
    path = tmp_path / "deep.yaml"
    path.write_text("applicationName: ShopApp\nx: " + "[" * 300 + "]" * 300 + "\n")
    assert [c for c, _, _ in _errors(path)] == ["SYN-05"]


def test_missing_file_and_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.manifest.yaml"
    assert _errors(missing) == [("SYN-01", 1, 1)]
    assert _errors(tmp_path) == [("SYN-01", 1, 1)]
    for path in (missing, tmp_path):
        assert run_cli(["validate", str(path)]) == 2
        out, err = capsys.readouterr()
        assert re.search(rf"^{re.escape(str(path))}:1:1: error SYN-01 ", out, re.M)
        assert "Traceback" not in out + err


def test_oversize_file_with_max_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "shop.manifest.yaml"
    path.write_text(GOOD_YAML)
    size = path.stat().st_size
    assert run_cli(["validate", "--max-bytes", str(size), str(path)]) == 0
    capsys.readouterr()
    assert run_cli(["validate", "--max-bytes", str(size - 1), str(path)]) == 2
    out, _ = capsys.readouterr()
    assert f"{path}:1:1: error SYN-02 " in out
    assert str(size) in out


def test_unknown_key_is_a_warning_with_exit_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "shop.manifest.yaml"
    path.write_text(edit({6: "    sname: OrderService\n    colour: red"}))
    result = validate_file(path)
    assert result.valid
    assert [(i.severity.value, i.code, i.line, i.column, i.pointer) for i in result.issues] == [
        ("warning", "SYN-12", 7, 5, "/entities/0/colour")
    ]
    assert result.manifest is not None
    assert run_cli(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert f"{path}:7:5: warning SYN-12 " in out
    assert "0 error(s), 1 warning(s)" in err


def test_unknown_keys_in_nested_objects_are_located(tmp_path: Path) -> None:
    path = tmp_path / "shop.manifest.json"
    data = json.loads(json.dumps(_yaml_data()))
    data["entities"][0]["members"][0]["colour"] = "red"
    data["languages"][0]["translationEntries"][0]["tone"] = "dry"
    data["httpAuthConfig"] = {"tokenHeader": "X", "tokenHeadr": "Y"}
    path.write_text(json.dumps(data, indent=2))
    result = validate_file(path)
    assert result.valid
    pointers = sorted(i.pointer for i in result.issues if i.code == "SYN-12")
    assert pointers == [
        "/entities/0/members/0/colour",
        "/httpAuthConfig/tokenHeadr",
        "/languages/0/translationEntries/0/tone",
    ]
    text_lines = path.read_text().splitlines()
    for issue in result.issues:
        key = issue.pointer.rsplit("/", 1)[1]
        assert text_lines[issue.line - 1][issue.column - 1 :].startswith(f'"{key}"')


def test_issue_position_points_at_the_value_in_the_golden_export(tmp_path: Path) -> None:
    # The designer export is tab-indented JSON; the first occurrence is the averosApplication
    # one (the diagrams repeat the model further down).
    text = GOLDEN_MANIFEST.read_text(encoding="utf-8")
    old, new = '"fename": "TaskDetail"', '"fename": "TaskDetails"'
    first_line = text[: text.index(old)].count("\n") + 1
    path = tmp_path / "designer.json"
    path.write_text(text.replace(old, new, 1))
    errors = [i for i in validate_file(path).issues if i.is_error]
    assert [(i.code, i.line) for i in errors] == [("REF-02", first_line)]
    line = path.read_text().splitlines()[errors[0].line - 1]
    assert line[errors[0].column - 1 :] == '"TaskDetails",'
    assert errors[0].pointer.startswith("/project/averosApplication/entities/0/members/")
    assert errors[0].pointer.endswith("/fename")


def _yaml_data() -> dict[str, object]:
    from ruamel.yaml import YAML

    data: dict[str, object] = YAML(typ="safe", pure=True).load(GOOD_YAML)
    return data


def test_wrong_type_in_a_union_is_one_issue_with_a_real_pointer(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_text(
        '{"applicationName": "ShopApp", "authentication": [{"name": "A", '
        '"providerType": "x", "config": [{"key": "k", "value": [1]}]}]}'
    )
    issues = [i for i in validate_file(path).issues if i.is_error]
    assert [(i.code, i.pointer) for i in issues] == [("SYN-10", "/authentication/0/config/0/value")]


def test_non_string_yaml_key_is_located(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("applicationName: ShopApp\n1: x\n")
    assert [(i.code, i.line, i.column) for i in validate_file(path).issues] == [("SYN-12", 2, 1)]


def test_comment_only_yaml_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("# nothing here yet\n")
    assert _errors(path) == [("SYN-04", 1, 1)]


def test_multiple_yaml_documents_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("---\napplicationName: ShopApp\n---\nb: 2\n")
    assert _errors(path) == [("SYN-05", 3, 1)]


# (id, changes to GOOD_YAML, code, line, column): findings that do not fail validation
WARNINGS = [
    (
        "CON-14-enum-values-on-string",
        {12: "        memberTag: ID\n        listOfEnumValues: A,B"},
        "CON-14",
        13,
        27,
    ),
    ("REF-10-default-language-without-entry", {2: "defaultLanguageCode: fr"}, "REF-10", 2, 22),
    (
        "REF-07-target-entity",
        {47: "        localeValue: Status\n        targetEntity: Ghost"},
        "REF-07",
        48,
        23,
    ),
    ("SYN-12-unknown-root-key", {1: "applicationName: ShopApp\nversion: 2"}, "SYN-12", 2, 1),
]


@pytest.mark.parametrize(
    ("changes", "code", "line", "col"), [pytest.param(*c[1:], id=c[0]) for c in WARNINGS]
)
def test_warnings_are_located_and_exit_0(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    changes: dict[int, str],
    code: str,
    line: int,
    col: int,
) -> None:
    path = tmp_path / "shop.manifest.yaml"
    path.write_text(edit(changes), encoding="utf-8")
    result = validate_file(path)
    assert result.valid
    assert [(i.severity.value, i.code, i.line, i.column) for i in result.issues] == [
        ("warning", code, line, col)
    ]
    assert run_cli(["validate", str(path)]) == 0
    assert f"{path}:{line}:{col}: warning {code} " in capsys.readouterr().out


MORE_DUPLICATES = [
    (
        "field-mapping",
        {42: "        mapTo: _id\n  - name: OrderMapping\n    ename: Order"},
        43,
        11,
    ),
    (
        "page",
        {48: "blankPages:\n  - name: AboutPage\n  - name: AboutPage"},
        50,
        11,
    ),
    (
        "provider",
        {
            48: "authentication:\n  - name: Dummy\n    providerType: dummy\n"
            "  - name: Dummy\n    providerType: other"
        },
        51,
        11,
    ),
    (
        "service",
        {48: "services:\n  - name: OrderService\n  - name: OrderService"},
        50,
        11,
    ),
]


@pytest.mark.parametrize(
    ("changes", "line", "col"), [pytest.param(*c[1:], id=c[0]) for c in MORE_DUPLICATES]
)
def test_more_duplicates(tmp_path: Path, changes: dict[int, str], line: int, col: int) -> None:
    path = tmp_path / "shop.manifest.yaml"
    path.write_text(edit(changes), encoding="utf-8")
    assert _errors(path) == [("CON-01", line, col)]
