"""The review of a plan on a pull request: the sticky comment, approvals and who may give them,
the trusted base settings, the policy gate, the per-project and aggregate statuses, outdated
plans and the merge-queue check."""
