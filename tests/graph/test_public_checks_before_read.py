"""Public parameters that depend on the number of nodes are refused before the graph is read.

A degree cap above ``n - 1``, a k too large for ``n`` and a global-sensitivity noise scale the
exact samplers cannot draw are all functions of public values (``n``, ``k``, ε). They used to be
checked only after the edges were converted; each graph below is malformed (a self-loop), so
reading it raises, and the refusal must name the public parameter instead, with nothing spent.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import Charge, open_charge
from dpatlas.graph import (
    clustering_coefficient,
    degree_histogram,
    edge_count,
    kstar_count,
    read_edgelist,
    synthesize,
    triangle_count,
)
from dpatlas.graph._noise import PublicChecks

LOOP = np.array([[0, 0]])  # reading it raises "edges contain 1 self-loop(s)"
SIZE = 70  # public n: 2 C(68, 29) is above 2**61


def _nx_loop(size: int) -> nx.Graph:
    g = nx.empty_graph(size)
    g.add_edge(0, 0)  # reading it raises "graph has 1 self-loop(s)"
    return g


CASES: dict[str, tuple[Callable[..., Any], str]] = {
    "degree cap above n - 1": (
        lambda g, **kw: degree_histogram(g, epsilon=1.0, max_degree=99, **kw),
        r"max_degree must be <= n - 1 = 69 .*got 99",
    ),
    "degree cap negative": (
        lambda g, **kw: degree_histogram(g, epsilon=1.0, max_degree=-1, method="direct", **kw),
        r"max_degree must be >= 0, got -1",
    ),
    "k-star k too large for n": (
        lambda g, **kw: kstar_count(g, 30, epsilon=1.0, **kw),
        r"k=30 is too large for n=70",
    ),
    "k-star global scale": (
        lambda g, **kw: kstar_count(g, 2, epsilon=1e-16, method="global", **kw),
        r"noise scale .* too large",
    ),
    "clustering global scale": (
        lambda g, **kw: clustering_coefficient(g, epsilon=1e-15, method="global", **kw),
        r"noise scale .* too large",
    ),
    "triangle global scale": (
        lambda g, **kw: triangle_count(g, epsilon=1e-16, method="global", **kw),
        r"noise scale .* too large",
    ),
}


@pytest.mark.parametrize("source", ["n", "nodes", "networkx"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_on_public_values_before_the_read(case: str, source: str) -> None:
    call, message = CASES[case]
    budget = Budget(10.0)
    kwargs: dict[str, Any] = {"budget": budget}
    if source == "n":
        graph: Any = LOOP
        kwargs["n"] = SIZE
    elif source == "nodes":
        graph = LOOP
        kwargs["nodes"] = list(range(SIZE))
    else:
        graph = _nx_loop(SIZE)
    with pytest.raises(ValueError, match=message):
        call(graph, **kwargs)
    assert budget.spent.epsilon == 0.0
    assert len(budget.history) == 0


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_refusal_is_the_release_check_a_caller_can_run_first(case: str) -> None:
    """``check_<release>`` (what the command line runs on --nodes before it reads the edge
    list) refuses on ``n`` alone what the release refuses; the release calls it."""
    from dpatlas.graph.clustering import check_clustering_coefficient
    from dpatlas.graph.degrees import check_degree_histogram
    from dpatlas.graph.kstars import check_kstar_count
    from dpatlas.graph.triangles import check_triangle_count

    checks = {
        "degree cap above n - 1": lambda: check_degree_histogram(SIZE, epsilon=1.0, max_degree=99),
        "degree cap negative": lambda: check_degree_histogram(
            SIZE, epsilon=1.0, max_degree=-1, method="direct"
        ),
        "k-star k too large for n": lambda: check_kstar_count(SIZE, 30, epsilon=1.0),
        "k-star global scale": lambda: check_kstar_count(SIZE, 2, epsilon=1e-16, method="global"),
        "clustering global scale": lambda: check_clustering_coefficient(
            SIZE, epsilon=1e-15, method="global"
        ),
        "triangle global scale": lambda: check_triangle_count(SIZE, epsilon=1e-16, method="global"),
    }
    with pytest.raises(ValueError, match=CASES[case][1]):
        _open(checks[case])


def _open(checks: Callable[[], Any]) -> None:
    """Run a release's checks and open its charge on what they give, as the release does."""
    public = checks()
    open_charge(public.cost, None, mechanism="checked", scales=public.scales)


class Checked(Exception):
    """Raised by a stand-in for a release's check: the release called it."""


@pytest.mark.parametrize(
    ("module", "release"),
    [
        ("edges", "edge_count"),
        ("degrees", "degree_histogram"),
        ("kstars", "kstar_count"),
        ("triangles", "triangle_count"),
        ("clustering", "clustering_coefficient"),
        ("synthesis.synthetic", "synthesize"),
    ],
)
def test_every_release_opens_its_charge_with_its_own_check(monkeypatch, module, release) -> None:
    """The cost and scales a release checks come from ``check_<release>``, the function the
    command line calls before reading the edge list: the two cannot drift apart."""
    import importlib

    import dpatlas.graph as graphs

    def stand_in(n: Any, **params: Any) -> None:
        raise Checked(n, params)

    monkeypatch.setattr(
        importlib.import_module(f"dpatlas.graph.{module}"), f"check_{release}", stand_in
    )
    args = (2,) if release == "kstar_count" else ()
    with pytest.raises(Checked) as caught:
        getattr(graphs, release)(LOOP, *args, n=SIZE, epsilon=1.0)
    assert caught.value.args[0] == SIZE


def test_the_same_graphs_with_valid_parameters_are_refused_by_the_read() -> None:
    # the control: the graphs are malformed, so a release that passes its public checks reads
    # them and is refused for the self-loop (nothing spent either)
    with pytest.raises(ValueError, match="self-loop"):
        degree_histogram(LOOP, n=4, epsilon=1.0, max_degree=3)
    with pytest.raises(ValueError, match="self-loop"):
        kstar_count(_nx_loop(4), 2, epsilon=1.0, method="global")


def test_public_node_count_reads_no_edge() -> None:
    from dpatlas.graph.edges import public_node_count  # new: imported here, so the tests above
    # also run (and fail) on the sources before it

    assert public_node_count(LOOP, 7, None) == 7
    assert public_node_count(LOOP, None, {5, 9}) == 2
    assert public_node_count(_nx_loop(6), None, None) == 6
    assert public_node_count(LOOP, None, None) is None
    assert public_node_count(LOOP, None, [[0, 1]]) is None  # malformed: the read refuses it
    with pytest.raises(TypeError, match="n must be a non-negative integer"):
        public_node_count(LOOP, -1, None)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: kstar_count(nx.path_graph(4), 30, n=70, epsilon=1.0), "does not match"),
        (
            lambda: degree_histogram([(0, 1)], nodes=["a", "b"], max_degree=5, epsilon=1.0),
            "integer",
        ),
        (lambda: degree_histogram(sp.csr_matrix((3, 4)), max_degree=9, epsilon=1.0), "square"),
    ],
)
def test_the_read_names_inputs_it_refuses_before_an_n_dependent_check(call, message) -> None:
    """An n= that contradicts the graph, ids that are not integers or a matrix that is not
    square were reported as a bad k or max_degree on the wrong n; found by the final review."""
    with pytest.raises((ValueError, TypeError), match=message):
        call()


MARK = Fraction(7, 3)
"""A noise scale no release computes: it reaches the debit only through the public check."""

RELEASES: dict[str, tuple[str, str, Callable[..., Any]]] = {
    "edge count": ("dpatlas.graph.edges", "check_edge_count", edge_count),
    "degree histogram": ("dpatlas.graph.degrees", "check_degree_histogram", degree_histogram),
    "k-stars": (
        "dpatlas.graph.kstars",
        "check_kstar_count",
        lambda g, **kw: kstar_count(g, 2, **kw),
    ),
    "triangles": ("dpatlas.graph.triangles", "check_triangle_count", triangle_count),
    "clustering": (
        "dpatlas.graph.clustering",
        "check_clustering_coefficient",
        clustering_coefficient,
    ),
    "synthesize": ("dpatlas.graph.synthesis.synthetic", "check_synthesize", synthesize),
}


@pytest.mark.parametrize("known", [True, False], ids=["n known", "n read off the edges"])
@pytest.mark.parametrize("name", sorted(RELEASES))
def test_each_release_debits_the_scales_its_public_check_gave(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, known: bool
) -> None:
    """The debit's scales are the check's (the releases used to compute them a second time,
    free to drift from what was checked), also when n is known only after the read."""
    import importlib

    module, function, release = RELEASES[name]
    checks: list[tuple[int | None, tuple[Fraction, ...]]] = []
    original = getattr(importlib.import_module(module), function)

    def check(n: int | None, *args: Any, **kwargs: Any) -> PublicChecks:
        public = original(n, *args, **kwargs)
        marked = PublicChecks(public.cost, (*public.scales, MARK))
        checks.append((n, marked.scales))
        return marked

    debited: list[tuple[Fraction, ...]] = []
    debit = Charge.debit

    def spy(self: Charge, scales: Any = ()) -> Any:
        debited.append(tuple(scales))
        return debit(self, scales)

    monkeypatch.setattr(f"{module}.{function}", check)
    monkeypatch.setattr(Charge, "debit", spy)
    karate = nx.karate_club_graph()
    if known or name == "synthesize":  # synthesize needs n=: its scales do not depend on n
        graph, kw = karate, {"n": 34} if name == "synthesize" else {}
    else:
        path = tmp_path / "karate.txt"
        path.write_text("".join(f"{u} {v}\n" for u, v in karate.edges()))
        graph, kw = read_edgelist(path), {"n": 34}  # ids read off the edges: n known later
    release(graph, epsilon=1.0, rng=0, **kw)
    assert [n for n, _ in checks] == [34] if known or name == "synthesize" else [None, 34]
    assert debited[0] == checks[-1][1]  # the release's own debit (the first): as checked
