"""Issue 25: the planner orders the nodes in one pass of its own; graphlib's sorter decides
what that pass does not expect. Both give the same order, and a cycle fails as it always did."""

from __future__ import annotations

import graphlib
import heapq

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from averos_ci.plan.elements import Element
from averos_ci.plan.model import Phase
from averos_ci.plan.planner import _order


def _reference(new: dict[str, Element]) -> list[Element]:
    """The order as graphlib's sorter gave it before (ready nodes, smallest sort key first)."""
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for e in new.values():
        sorter.add(e.id, *e.deps)
    sorter.prepare()
    by_key = sorted(new.values(), key=lambda e: (e.phase.rank, *e.order, e.id))
    place = {e.id: i for i, e in enumerate(by_key)}
    heap = [place[n] for n in sorter.get_ready()]
    heapq.heapify(heap)
    out = []
    while heap:
        e = by_key[heapq.heappop(heap)]
        out.append(e)
        sorter.done(e.id)
        for ready in sorter.get_ready():
            heapq.heappush(heap, place[ready])
    return out


def _element(i: int, phase: Phase, order: tuple[str, int], deps: tuple[str, ...]) -> Element:
    return Element(f"n{i}", f"n{i}", "k", phase, "c", {}, deps, order)


@st.composite
def graphs(draw: st.DrawFn) -> dict[str, Element]:
    """Acyclic element tables: each node depends on earlier ones (repeats included), listed
    in any order."""
    size = draw(st.integers(1, 30))
    els = [
        _element(
            i,
            draw(st.sampled_from(list(Phase))),
            (draw(st.sampled_from("ab")), draw(st.integers(0, 2))),
            tuple(f"n{d}" for d in draw(st.lists(st.integers(0, i - 1), max_size=3))) if i else (),
        )
        for i in range(size)
    ]
    shuffled = draw(st.permutations(els))
    return {e.key: e for e in shuffled}


@settings(max_examples=200, deadline=None)
@given(graphs())
def test_the_order_is_graphlibs(new: dict[str, Element]) -> None:
    assert _order(new) == _reference(new)


def test_a_cycle_fails_as_graphlib_reports_it() -> None:
    new = {
        "n0": _element(0, Phase.ENTITY, ("", 0), ()),
        "n1": _element(1, Phase.ENTITY, ("", 0), ("n0", "n2")),
        "n2": _element(2, Phase.ENTITY, ("", 0), ("n1",)),
    }
    with pytest.raises(graphlib.CycleError) as expected:
        _reference(new)
    with pytest.raises(graphlib.CycleError) as got:
        _order(new)
    assert got.value.args == expected.value.args


def test_an_unknown_dependency_fails_as_before() -> None:
    new = {"n0": _element(0, Phase.ENTITY, ("", 0), ("nowhere",))}
    with pytest.raises(KeyError, match="nowhere"):
        _reference(new)
    with pytest.raises(KeyError, match="nowhere"):
        _order(new)
