"""The policy section of the local ``plan`` output (text and markdown)."""

from __future__ import annotations

from averos_ci.plan.render import md_escape
from averos_ci.policy.evaluate import PolicyResult

_SHOWN = 10  # element ids listed per finding; the rest is counted


def _ids(elements: tuple[str, ...], esc: bool = False) -> str:
    shown = [md_escape(e) if esc else e for e in elements[:_SHOWN]]
    more = len(elements) - _SHOWN
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def render_policy_text(result: PolicyResult) -> str:
    lines = [
        "",
        "Policy: passed"
        if result.passed
        else f"Policy: FAILED, {len(result.violations)} violation(s)",
    ]
    for v in result.violations:
        lines.append(f"  x {v.rule}: {v.message}")
        if v.elements:
            lines.append(f"      {_ids(v.elements)}")
    if result.requirements:
        lines.append("Approval requirements (checked by the GitHub flow):")
        for r in result.requirements:
            lines.append(f"  - {r.rule}: {r.message}")
            if r.elements:
                lines.append(f"      {_ids(r.elements)}")
    return "\n".join(lines) + "\n"


def render_policy_markdown(result: PolicyResult) -> str:
    if result.passed:
        out = ["", "**Policy:** passed", ""]
    else:
        out = ["", f"**Policy: failed — {len(result.violations)} violation(s)**", ""]
    for v in result.violations:
        tail = f" ({_ids(v.elements, esc=True)})" if v.elements else ""
        out.append(f"- :x: `{v.rule}`: {md_escape(v.message)}{tail}")
    if result.requirements:
        out += ["", "**Approval requirements:**", ""]
        for r in result.requirements:
            tail = f" ({_ids(r.elements, esc=True)})" if r.elements else ""
            out.append(f"- `{r.rule}`: {md_escape(r.message)}{tail}")
    return "\n".join(out) + "\n"
