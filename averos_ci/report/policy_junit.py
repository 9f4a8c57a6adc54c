"""JUnit XML for a policy verdict: one testcase per rule that applies to the plan.

A violation (``forbidRemovals``, ``maxNodes``) or an approval requirement that is not met
is a failure; a requirement that is met passes. CI test reporters then show why an apply
was refused next to the node results of the applies that ran.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

import junit_xml

from averos_ci._fs import atomic_write_bytes
from averos_ci.policy.evaluate import PolicyResult

SUITE = "averos-ci policy"
_TIME_S = 0.001  # a policy check takes no measurable time; reporters want time > 0


def render_policy_junit(
    result: PolicyResult, *, unmet: Mapping[str, str] | None = None, timestamp: str | None = None
) -> bytes:
    """``unmet``: requirement rule → why it is not met (rules absent from it are met)."""
    unmet = unmet or {}
    cases = []
    for v in result.violations:
        case = junit_xml.TestCase(name=v.rule, classname="policy", elapsed_sec=_TIME_S)
        case.add_failure_info(
            message=f"{v.rule}: {v.message}", output="\n".join(v.elements), failure_type=v.rule
        )
        cases.append(case)
    for r in result.requirements:
        case = junit_xml.TestCase(name=r.rule, classname="policy", elapsed_sec=_TIME_S)
        if r.rule in unmet:
            case.add_failure_info(
                message=f"{r.rule}: {r.message}: {unmet[r.rule]}",
                output="\n".join(r.elements),
                failure_type=r.rule,
            )
        cases.append(case)
    suite = junit_xml.TestSuite(SUITE, cases, timestamp=timestamp)
    root = ET.fromstring(junit_xml.to_xml_report_string([suite], encoding="utf-8"))
    for element in (root, *root.iter("testsuite")):
        element.attrib.pop("disabled", None)  # not allowed by Jenkins' junit-10.xsd
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def write_policy_junit(
    path: Path, result: PolicyResult, *, unmet: Mapping[str, str] | None = None
) -> None:
    atomic_write_bytes(path, render_policy_junit(result, unmet=unmet))
