"""averos-ci: plan on pull request, apply on merge — the Averos application lifecycle in CI.

The package root stays import-light (``averos-ci validate`` must start fast); the layers live
in ``averos_ci.manifest``, ``averos_ci.plan``, ``averos_ci.execute``, ``averos_ci.github`` and
``averos_ci.report``.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
