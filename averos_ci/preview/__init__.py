"""``averos-ci preview``: see the generated application running, in one command.

Builds the app in the config's workspaceRoot, serves it, starts a mock backend (json-server
seeded with sample records generated from the manifest's entities, plus a stub login) at the
URLs the generated services call, and prints the URL, opens a browser, or takes headless
Chromium screenshots of every entity page (docs/preview.md).

The pieces are usable on their own (the browser test uses them): :func:`sample_records`,
:func:`read_app`, :func:`serve_spa`, :func:`ensure_tools`, :func:`find_chromium`.
"""

from __future__ import annotations

from averos_ci.preview.app import GeneratedApp, Page, read_app
from averos_ci.preview.chromium import find_chromium
from averos_ci.preview.samples import sample_records
from averos_ci.preview.serve import serve_spa
from averos_ci.preview.session import DEFAULT_PORT, PreviewResult, preview
from averos_ci.preview.tools import ensure_tools

__all__ = [
    "DEFAULT_PORT",
    "GeneratedApp",
    "Page",
    "PreviewResult",
    "ensure_tools",
    "find_chromium",
    "preview",
    "read_app",
    "sample_records",
    "serve_spa",
]
