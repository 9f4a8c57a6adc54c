"""The operator commands on the state (``averos-ci state …``, ``averos-ci drift``). On the
state branch, run from a local clone: their target (:mod:`.target`: the branch and project a
config's ``github`` settings name), the read-only view (:mod:`.show`), the one-commit writing
operation (:mod:`.operation`: abandon) and the rollback (:mod:`.rollback`). On the local state
file: reset, adopt and drift (:mod:`.local`); a local project's history
in git (:mod:`.local_history`, ``state show``) and its rollback, an apply of the earlier
manifest (:mod:`.local_rollback`).

Above :mod:`averos_ci.forge` (the settings) and :mod:`averos_ci.statebranch` (the store),
below :mod:`averos_ci.cli`.
"""
