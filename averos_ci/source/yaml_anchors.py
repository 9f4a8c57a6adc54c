"""The YAML composer of :mod:`averos_ci.source`: it refuses anchors and aliases on the parse
that loads the document (billion-laughs files are rejected before anything is constructed)."""

from __future__ import annotations

import functools
from typing import Any


class AnchorFound(Exception):
    """An anchor or an alias, at its 1-based line and column."""

    def __init__(self, anchor: str, line: int, column: int) -> None:
        super().__init__(anchor)
        self.anchor, self.line, self.column = anchor, line, column


@functools.cache
def composer_refusing_anchors() -> type:
    """ruamel's composer, stopping at the first node with an anchor or an alias, before that
    node is composed: the check rides on the one parse (a separate pass over the events cost
    as much as the load itself)."""
    from ruamel.yaml.composer import Composer

    class RefusingAnchors(Composer):
        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.parser.peek_event()
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                mark = event.start_mark
                raise AnchorFound(str(anchor), mark.line + 1, mark.column + 1)
            return super().compose_node(parent, index)

    return RefusingAnchors
