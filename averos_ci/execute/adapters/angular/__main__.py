"""``python -m averos_ci.execute.adapters.angular warm|path``: the template-workspace cache."""

from __future__ import annotations

from .template.cache import main

raise SystemExit(main())
