"""The operator commands on the state branch (``averos-ci state show|abandon|rollback``), run
from a local clone: their target (:mod:`.target`: the branch and project a config's ``github``
settings name), the read-only view (:mod:`.show`), the one-commit writing operation
(:mod:`.operation`: abandon) and the rollback (:mod:`.rollback`).

Above :mod:`averos_ci.forge` (the settings) and :mod:`averos_ci.statebranch` (the store),
below :mod:`averos_ci.cli`.
"""
