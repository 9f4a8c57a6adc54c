"""Reference pages generated from the code at build time (run by ``docs/gen/hooks.py``).

Each module renders one kind of page from what the code declares: the typer app, the pydantic
models, the exit-code enum, the finding codes, the JSON Schemas. Nothing here is copied from
the code by hand, so the reference cannot drift from it (``tests/docs`` checks it).
"""

from __future__ import annotations
