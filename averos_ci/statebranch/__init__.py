"""The state branch: a git-backed store of each project's applied state and of the protocol
of an apply (claim, progress, seal, landing, restore, commit-back, history) with the operator
commands (show, abandon, rollback). Usable without GitHub: nothing here imports the forge, the
review rules or the flows."""
