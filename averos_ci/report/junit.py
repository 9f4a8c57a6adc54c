"""JUnit XML through junit-xml: one testcase per executed or skipped node.

classname = phase, name = node id, time > 0 always. Failures carry the ExecutionFailure,
skipped cases their reason; cancelled nodes are not test cases (the summary counts them).
The output validates against Jenkins' junit-10.xsd (junit-xml's ``disabled`` attribute,
which that schema does not allow, is removed).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import junit_xml

from averos_ci._fs import atomic_write_bytes
from averos_ci.execute.logs import tail
from averos_ci.execute.summary import NodeOutcome, NodeRecord

MIN_TIME_S = 0.001


def render_junit(
    records: Sequence[NodeRecord], *, suite_name: str = "averos-ci", timestamp: str | None = None
) -> bytes:
    cases = []
    for r in records:
        if r.outcome is NodeOutcome.CANCELLED:
            continue
        case = junit_xml.TestCase(
            name=r.node_id, classname=r.phase, elapsed_sec=max(r.duration_ms / 1000, MIN_TIME_S)
        )
        if r.outcome is NodeOutcome.FAILED and r.failure is not None:
            f = r.failure
            output = "\n".join(
                p
                for p in (
                    f.details,
                    f"attempts: {r.attempts}",
                    tail(Path(r.log_file)) if r.log_file else "",
                )
                if p
            )
            case.add_failure_info(
                message=f"{f.code}: {f.message}", output=output, failure_type=f.code
            )
        elif r.outcome is NodeOutcome.SKIPPED:
            case.add_skipped_info(message=r.reason or "skipped")
        cases.append(case)
    suite = junit_xml.TestSuite(suite_name, cases, timestamp=timestamp)
    root = ET.fromstring(junit_xml.to_xml_report_string([suite], encoding="utf-8"))
    for element in (root, *root.iter("testsuite")):
        element.attrib.pop("disabled", None)
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def write_junit(
    path: Path,
    records: Sequence[NodeRecord],
    *,
    suite_name: str = "averos-ci",
    timestamp: str | None = None,
) -> None:
    atomic_write_bytes(path, render_junit(records, suite_name=suite_name, timestamp=timestamp))
