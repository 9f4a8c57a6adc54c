"""Reports of a run: RunnerSummary JSON, JUnit XML, job-summary markdown."""

from averos_ci.report.job_summary import append_step_summary, summary_markdown, write_markdown
from averos_ci.report.junit import render_junit, write_junit
from averos_ci.report.policy_junit import render_policy_junit, write_policy_junit
from averos_ci.report.summary_json import write_summary_json

__all__ = [
    "append_step_summary",
    "render_junit",
    "render_policy_junit",
    "summary_markdown",
    "write_junit",
    "write_markdown",
    "write_policy_junit",
    "write_summary_json",
]
