"""Private triangle counts under edge-DP: piecewise ladder (default), ladder, smooth, global.

Neighbours (:class:`~dpatlas.graph.adjacency.EdgeAdjacency`): graphs on the *same public node
set* that differ in one edge. The node count ``n`` is part of the query, not of the data: give
it as ``n=`` or ``nodes=`` (or use a networkx graph / sparse matrix, whose node set the caller
built and which must be the public one). Edges without a public node set are refused before
anything is spent (:func:`~dpatlas.graph.edges.public_graph`): the number of nodes with an
edge is data, and a release on it is not edge-DP.

The exact count ``T``, the sensitivity ladder ``LS(t)`` (or its relaxation ``U(t)``) and the
smooth sensitivity come from :mod:`dpatlas.graph.exact.counting` and
:mod:`dpatlas.graph.exact.triangle_sensitivity`; the noise comes from
:mod:`dpatlas.core.noise.local.piecewise_ladder`, :mod:`dpatlas.core.noise.local.ladder`,
:mod:`dpatlas.core.noise.local.smooth` and :mod:`dpatlas.core.noise.discrete_laplace`. Noise scaled to
the observed local sensitivity is never offered: it is not private (:func:`sensitivity_report`
shows it, labelled NOT private).

Intervals. The global method's interval is the core's: the exact discrete Laplace quantile at
the public scale ``(n-2)/ε``, free ("noise only"). The piecewise, ladder and smooth noise scales
depend on the graph, so their releases carry no scale and ``confidence_interval()`` raises,
unless ``interval_epsilon`` buys a private bound: ``â = a_max + Z``, ``Z`` discrete Laplace of
scale ``1/interval_epsilon``. ``a_max`` (the most common neighbours of any pair) has edge
sensitivity 1: flipping ``{u, v}`` changes ``a_ij = Σ_k x_ik x_jk`` only through the one term
with ``{i, k}`` or ``{j, k}`` equal to ``{u, v}``, so each ``a_ij``, hence the maximum, moves by
at most 1; the pair ``(count, â)`` is ``(ε + interval_epsilon)``-DP. Both ladders (``LS(t)`` and
the relaxed ``U(t)``) start at ``a_max`` and climb by 0 or 1 per step (each pair's term
``min(a + t, ⌊(t + c)/2⌋)`` does, and so does a maximum of such terms), so by the insertion
lemma of :mod:`dpatlas.core.noise.local.ladder_exact` the ladder noise is stochastically below that of
the steep ladder ``min(n-2, A + t)`` for any ``A >= a_max``, and the smooth bound is below the
steep ladder's; the piecewise noise, whose widths are those ladders raised to the public floor,
is below the steep ladder's raised alike (the lemma of
:class:`~dpatlas.core.noise.local.piecewise_steep.SteepPiecewise`). The interval is ``value ± h(â)``,
``h`` the worst noise quantile at ``â`` plus a margin, with the margin certified by
:mod:`dpatlas.core.interval` so that the coverage, over the count noise and ``Z`` together, is at
least the level for every graph ("noise and bound"; post-processing of ``â``, the release and
public values). ``metadata["interval"]`` says so. Both ends are then raised to at least 0 (a
count is never negative, so coverage cannot drop); the estimate itself is not cut.

Graphs with ``n < 3`` have no triangles and ``LS(t) = 0`` for all ``t``: the answer 0 is the
same for every graph on that node set, so it is released exactly (the budget is still debited
as asked, so accounting never depends on ``n``) with interval ``(0, 0)``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.noise.discrete_laplace import (
    discrete_laplace,
    rational_scale,
    sample_discrete_laplace,
)
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.piecewise_ladder import piecewise_ladder_mechanism
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_mechanism
from dpatlas.core.release import Release
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import check_delta, check_epsilon
from dpatlas.graph._interval import BoundedRelease, bounded_halfwidth, interval_note
from dpatlas.graph._noise import PublicChecks, count_cost, count_scales, count_value
from dpatlas.graph.adjacency import EdgeAdjacency
from dpatlas.graph.backends import TRIANGLE_STATS
from dpatlas.graph.edges import public_node_count, require_node_set
from dpatlas.graph.exact.counting import common_neighbour_stats, triangle_count_exact
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder, smooth_sensitivity
from dpatlas.graph.input._convert import check_node_count
from dpatlas.graph.input.edgegraph import as_edge_graph

__all__ = ["METHODS", "TriangleRelease", "check_triangle_count", "triangle_count"]

METHODS = ("piecewise", "ladder", "smooth", "global")


class TriangleRelease(BoundedRelease):
    """A :class:`~dpatlas.core.release.Release` whose interval uses the bought bound on ``a_max``."""

    def _halfwidth(self, level: float) -> int:
        """The certified half-width at the noisy ``a_max`` (module docstring)."""
        return int(bounded_halfwidth(self.metadata, level, self.metadata["noisy_a_max"]))


def _checked(
    method: Any, epsilon: float, delta: float, relaxed: Any, interval_epsilon: Any
) -> float:
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}")
    if delta > 0 and method != "smooth":
        raise ValueError(
            f"delta={delta!r} applies only to method='smooth'; the {method} method is pure ε-DP: "
            "pass delta=0"
        )
    if method == "smooth":
        smooth_beta(epsilon, delta)  # an epsilon too small for it is refused before the debit
    if not isinstance(relaxed, (bool, np.bool_)):
        raise TypeError(f"relaxed must be True or False, got {relaxed!r}")
    if interval_epsilon is None:
        return 0.0
    if method == "global":
        raise ValueError(
            "interval_epsilon is not needed for method='global': its noise scale is public, so "
            "confidence_interval() is free; drop interval_epsilon"
        )
    return check_epsilon(interval_epsilon, "interval_epsilon")


def check_triangle_count(
    n: int | None,
    *,
    epsilon: float,
    delta: float = 0.0,
    method: str = "piecewise",
    relaxed: bool = False,
    interval_epsilon: float | None = None,
) -> PublicChecks:
    """Refuse what :func:`triangle_count` would refuse on its public parameters; its cost and
    noise scales.

    The checks :func:`triangle_count` runs before the graph is read, for a caller (the
    command line) that reads the graph itself: ε, δ, the method, ``relaxed`` and the
    interval's ε and, when the number of nodes ``n`` is known, the noise scales it draws on
    ``n`` nodes (the global sensitivity is ``n - 2``).

    Parameters
    ----------
    n : int or None
        Public number of nodes (None: unknown, the scales are checked on the graph's).
    epsilon, delta, method, relaxed, interval_epsilon
        As in :func:`triangle_count`.

    Returns
    -------
    PublicChecks
        The cost :func:`triangle_count` debits and the largest noise scales it can draw
        (:func:`~dpatlas.graph._noise.count_scales`), for
        :func:`~dpatlas.core.accounting.charge.open_charge`.

    Examples
    --------
    >>> check_triangle_count(12, epsilon=0.5, method="global").scales  # GS = n - 2
    (Fraction(20, 1),)
    >>> check_triangle_count(12, epsilon=0.5, method="global", interval_epsilon=0.1)
    Traceback (most recent call last):
    ...
    ValueError: interval_epsilon is not needed for method='global': ...
    """
    eps, d = check_epsilon(epsilon), check_delta(delta)
    extra = _checked(method, eps, d, relaxed, interval_epsilon)
    if n is None:
        return PublicChecks(count_cost(eps, d, extra), ())
    gs = EdgeAdjacency().triangle_global_sensitivity(n)
    return PublicChecks(count_cost(eps, d, extra), tuple(count_scales(method, eps, d, gs, extra)))


def triangle_count(
    graph: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    method: str = "piecewise",
    budget: Budget | None = None,
    rng: RngLike = None,
    n: int | None = None,
    relaxed: bool = False,
    interval_epsilon: float | None = None,
    backend: str = "memory",
    client: Any = None,
    nodes: Any = None,
) -> TriangleRelease:
    """Release the number of triangles of ``graph`` under edge-DP.

    Parameters
    ----------
    graph : networkx.Graph, EdgeGraph, (m, 2) integer array or scipy sparse matrix
        Simple undirected graph; see :func:`~dpatlas.graph.input.edgegraph.as_edge_graph`.
    epsilon : float
        Privacy cost of the count, > 0.
    delta : float, default 0.0
        Only for ``method="smooth"``: 0 gives pure ε-DP (discrete Cauchy noise, β = ε/6),
        ``delta > 0`` (ε, δ)-DP (discrete Laplace noise, scale ``2S/ε``). With ``delta > 0``,
        an ε too small for β = ln(1 + ε/2 ln(2/δ)) - 2**-37 > 0 (about ``2e-10``) is refused,
        with the smallest one accepted, before the debit and before the graph is read.
    method : {"piecewise", "ladder", "smooth", "global"}
        ``"piecewise"`` (pure ε; the most accurate: piecewise-Laplace noise over the same
        ladder with a floored normalizer, :mod:`dpatlas.core.noise.local.piecewise_ladder`; measured
        in ``docs/triangles.md``), ``"ladder"`` (Zhang et al., SIGMOD 2015; pure ε),
        ``"smooth"`` (Nissim–Raskhodnikova–Smith 2007), ``"global"`` (discrete Laplace at
        ``n - 2``).
    budget : Budget, optional
        Checked before counting, debited once (``epsilon + interval_epsilon``, ``delta``)
        before any noise is drawn; an overspend raises and spends nothing.
    rng : None, int or numpy.random.Generator
        ``None`` (default) for secure noise; a seed makes the noise reproducible, which is for
        tests and teaching only and is recorded as ``seeded=True``.
    n : int, optional
        Public number of nodes (edge-DP assumes the node set is public). An edge array needs
        it (or ``nodes``); ids need not be ``0 .. n-1`` (they are relabelled, nodes without an
        edge are isolated). Without either the release is refused before anything is spent.
    relaxed : bool, default False
        Use the cheaper ladder ``U(t) = min(n-2, a_max + t, ⌊(t + c_max)/2⌋) >= LS(t)``.
    interval_epsilon : float, optional
        Extra ε for a private bound on ``a_max`` that makes ``confidence_interval()`` work for
        the piecewise, ladder and smooth methods (module docstring); without it they raise. The interval
        nears the noise's own quantile as ``interval_epsilon * a_max`` grows; what a given
        ``interval_epsilon`` buys is measured in ``docs/intervals-graphs.md``.
    backend : {"memory", "dask"}, default "memory"
        ``"dask"``: ``graph`` is an edge list on Dask (a dask DataFrame or Parquet path with
        integer ``src``, ``dst`` columns) whose exact statistics are computed on the cluster
        (:func:`dpatlas.dask.triangle_stats`, equal to the in-memory ones); the budget and the
        noise stay here, on the driver.
    client : distributed.Client, optional
        For ``backend="dask"``; ``None`` uses the current client or starts a local cluster.
    nodes : array-like of int, optional
        Public node ids, for an in-memory edge array (every endpoint must be one of them).

    Returns
    -------
    TriangleRelease
        ``value`` (int), ``epsilon``, ``delta``, ``mechanism`` (``"triangle_count/<method>"``);
        ``scale`` and ``sensitivity`` are None for piecewise, ladder and smooth
        (data-dependent); ``metadata`` holds public facts only (method, n, β, δ, relaxed, the
        piecewise floor, interval bound) and
        ``metadata["interval"]``: what ``confidence_interval()`` covers and how.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.karate_club_graph()  # 45 triangles
    >>> rel = triangle_count(G, epsilon=1.0, rng=3)
    >>> rel.mechanism, rel.epsilon, rel.scale, rel.metadata["n"], rel.metadata["floor"]
    ('triangle_count/piecewise', 1.0, None, 34, 4)
    >>> rel = triangle_count(G, epsilon=1.0, interval_epsilon=0.25, rng=3)
    >>> low, high = rel.confidence_interval(0.9)
    >>> rel.epsilon, low <= rel.value <= high
    (1.25, True)
    >>> rel = triangle_count([(10, 11), (11, 12), (12, 10)], epsilon=1.0, n=100, rng=0)
    >>> rel.metadata["n"]  # ids relabelled; 97 isolated nodes
    100
    >>> triangle_count([(0, 1), (1, 2), (2, 0)], epsilon=1.0)  # no public node set
    Traceback (most recent call last):
    ...
    ValueError: triangle_count/piecewise needs the public node set, ... pass n=<number of nodes> ...
    """
    eps, d = check_epsilon(epsilon), check_delta(delta)
    extra = _checked(method, eps, d, relaxed, interval_epsilon)
    relaxed = bool(relaxed)  # np.True_ too; metadata holds a Python bool
    name = f"triangle_count/{method}"
    if backend != "memory" and nodes is not None:
        raise ValueError(
            f"nodes= is for in-memory edge arrays; with backend={backend!r} pass the public "
            "number of nodes as n= (ids are relabelled)"
        )
    require_node_set(graph, n, nodes, name)
    # public: n (the Dask path requires n=); a scale the samplers cannot draw is refused
    # before the graph is read
    checks = partial(
        check_triangle_count,
        epsilon=eps,
        delta=d,
        method=method,
        relaxed=relaxed,
        interval_epsilon=extra or None,
    )
    known = public_node_count(graph, n, nodes)
    public = checks(known)
    src = get_source(rng)
    charge = open_charge(public.cost, budget, mechanism=name, scales=public.scales)

    elsewhere = TRIANGLE_STATS.on(backend)
    if elsewhere is not None:
        g_n = check_node_count(n)
    else:
        g = as_edge_graph(graph, n=n, nodes=nodes)
        g_n = g.n
    if known != g_n:  # the scales wait for the graph's own n; debited as checked
        public = checks(g_n)
    gs = EdgeAdjacency().triangle_global_sensitivity(g_n)  # GS = n - 2: public
    if elsewhere is not None:
        # the backend debits through `checked` once the input is checked and before any work
        # guard whose refusal depends on the data (dpatlas.graph.backends)
        scales = public.scales
        exact_stats = elsewhere(graph, n=g_n, client=client, checked=lambda: charge.debit(scales))
        stats = None if method == "global" else exact_stats
        exact = exact_stats.triangles
    else:
        stats = None if method == "global" else common_neighbour_stats(g)
        exact = triangle_count_exact(g) if stats is None else stats.triangles
        charge.debit(public.scales)
    exact = count_value(exact)
    meta: dict[str, Any] = {"method": method, "n": g_n}
    if gs == 0:
        rel = Release(0, eps, d, name, 0.0, None, None, src.seeded)
        meta["constant"] = True
    elif stats is None:
        rel = discrete_laplace(exact, sensitivity=gs, epsilon=eps, rng=src, mechanism=name)
    elif method == "piecewise":
        ladder = sensitivity_ladder(stats, relaxed=relaxed)
        rel = piecewise_ladder_mechanism(exact, ladder, epsilon=eps, global_sensitivity=gs, rng=src)
        meta.update(relaxed=relaxed, floor=rel.metadata["floor"])
    elif method == "ladder":
        meta["relaxed"] = relaxed
        ladder = sensitivity_ladder(stats, relaxed=relaxed)
        rel = ladder_mechanism(exact, ladder, epsilon=eps, global_sensitivity=gs, rng=src)
    else:
        beta = smooth_beta(eps, d)
        meta.update(relaxed=relaxed, beta=beta, delta=d)
        # max with LS(0) = min(a_max, n - 2) only undoes float rounding: S >= LS(0) exactly
        bound = max(smooth_sensitivity(stats, beta, relaxed=relaxed), float(min(stats.a_max, gs)))
        rel = smooth_mechanism(exact, bound, epsilon=eps, delta=d, rng=src)
    covers = "the exact triangle count"
    if extra and gs > 0 and stats is not None:
        t, s = rational_scale(1 / exact_epsilon(extra))
        noisy = stats.a_max + int(sample_discrete_laplace(src, 1, (t, s))[0])
        meta.update(
            noisy_a_max=noisy,
            a_max_noise_scale=t / s,
            interval_epsilon=extra,
            count_epsilon=eps,
            global_sensitivity=gs,
            interval=interval_note(covers, "noise and bound", extra, "a_max"),
        )
    elif gs == 0 or stats is None:
        meta["interval"] = interval_note(covers, "noise only")
    else:
        meta["interval"] = interval_note(covers, "none")
    return charge.release(
        TriangleRelease,
        value=rel.value,
        sensitivity=rel.sensitivity,
        scale=rel.scale,
        noise=rel.noise,
        seeded=src.seeded,
        metadata=meta,
    )
