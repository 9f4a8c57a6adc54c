"""The policy's JUnit report: valid against Jenkins' junit-10.xsd; a violation or an unmet
requirement is a failure, a met requirement passes."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import junitparser
import xmlschema

from averos_ci.policy import PolicyResult, evaluate_policy, load_policy
from averos_ci.report import render_policy_junit, write_policy_junit
from tests.plan.plan_samples import applied, example_raw, plan_of

XSD = Path(__file__).parent / "data" / "junit-10.xsd"


def _result(**settings: Any) -> PolicyResult:
    base = example_raw()
    new = copy.deepcopy(base)
    new["useCases"] = [u for u in new["useCases"] if u["name"] != "SearchToDoTask"]
    fr = next(lang for lang in new["languages"] if lang["languageCode"] == "fr")
    fr["translationEntries"][0]["localeValue"] = "Changé <&>"
    plan = plan_of(new, applied(base))
    return evaluate_policy(plan, load_policy(settings, config_path=None))


def test_violations_and_unmet_requirements_are_failures(tmp_path: Path) -> None:
    result = _result(forbidRemovals=True, requiredApprovals=2, updatesNeedPermission="maintain")
    assert [v.rule for v in result.violations] == ["forbidRemovals"]
    path = tmp_path / "policy-junit.xml"
    write_policy_junit(path, result, unmet={"requiredApprovals": "1 so far"})
    xmlschema.XMLSchema(str(XSD)).validate(str(path))
    suite = next(iter(junitparser.JUnitXml.fromfile(str(path))))
    outcome = {case.name: [type(r).__name__ for r in case.result] for case in suite}
    assert outcome == {
        "forbidRemovals": ["Failure"],
        "requiredApprovals": ["Failure"],
        "updatesNeedPermission": [],  # met
    }
    assert suite.failures == 2 and suite.tests == 3
    text = path.read_text(encoding="utf-8")
    assert "use-case:SearchToDoTask" in text and "1 so far" in text


def test_a_policy_with_nothing_to_say_is_an_empty_valid_suite() -> None:
    data = render_policy_junit(_result())
    schema = xmlschema.XMLSchema(str(XSD))
    schema.validate(data.decode())
    assert b"<testcase" not in data
