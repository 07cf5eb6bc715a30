"""Sensitivity of the triangle count under edge adjacency: local, at distance s, ladder, smooth.

Nothing in this module is private. These functions turn exact pair statistics of the graph in
hand (:func:`~dpatlas.graph.exact.counting.common_neighbour_stats`) into the inputs a mechanism needs
(a ladder of sensitivities, a smooth upper bound), or into diagnostics. Releasing
``T + noise(local_sensitivity(stats, 0))`` is NOT differentially private: the local sensitivity
is itself data-dependent (two disjoint edges have ``LS = 0``, their neighbour the path ``P_3``
has ``LS = 1``).

Notation (Nissim, Raskhodnikova, Smith, STOC 2007): for a pair ``i != j``, ``a_ij`` common
neighbours, ``x_ij`` the edge indicator, ``b_ij = d_i + d_j - 2 a_ij - 2 x_ij`` the other nodes
adjacent to exactly one of them, ``c_ij = 2 a_ij + b_ij = d_i + d_j - 2 x_ij``. The local
sensitivity at distance ``s`` (the largest local sensitivity of a graph at edit distance
``<= s``) is::

    LS(s) = max_{i != j} min(a_ij + floor((s + min(s, b_ij)) / 2), n - 2)

(within ``s`` flips, ``min(s, b_ij)`` one-flip candidates and then pairs of flips can be turned
into common neighbours). Since ``a + floor((s + min(s, b)) / 2) = min(a + s, floor((s + c) / 2))``,
only the Pareto frontier of the points ``(a_ij, c_ij)`` matters.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpatlas.core.noise.local.smooth import SMALLEST, smooth_peak
from dpatlas.core.validation import check_epsilon
from dpatlas.graph.exact.counting import CommonNeighbourStats

__all__ = [
    "ladder_upper_bound",
    "local_sensitivity",
    "sensitivity_ladder",
    "smooth_sensitivity",
]


def _stats(stats: Any) -> CommonNeighbourStats:
    if not isinstance(stats, CommonNeighbourStats):
        raise TypeError(
            "stats must be a CommonNeighbourStats: compute it with "
            f"common_neighbour_stats(graph), got {type(stats).__name__}"
        )
    return stats


def _distances(s: Any) -> tuple[np.ndarray, bool]:
    arr = np.asarray(s)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"s must be a non-negative integer distance (edge flips), got {s!r}")
    if arr.size and int(arr.min()) < 0:
        raise ValueError(f"s must be >= 0 (a number of edge flips), got {int(arr.min())}")
    return arr.astype(np.int64), arr.ndim == 0


def _out(values: np.ndarray, scalar: bool) -> int | np.ndarray:
    return int(values) if scalar else values


def _ls(st: CommonNeighbourStats, s: np.ndarray) -> np.ndarray:
    cap = max(st.n - 2, 0)
    if cap == 0:
        return np.zeros_like(s)
    a, c = st.frontier[:, 0], st.frontier[:, 1]
    order = np.argsort(c - 2 * a, kind="stable")
    b_sorted, a, c = (c - 2 * a)[order], a[order], c[order]
    a_suffix = np.append(np.maximum.accumulate(a[::-1])[::-1], -1)
    c_prefix = np.concatenate([[-1], np.maximum.accumulate(c)])
    k = np.searchsorted(b_sorted, s, side="left")
    steep = np.where(a_suffix[k] >= 0, s + a_suffix[k], -1)
    flat = np.where(c_prefix[k] >= 0, (s + c_prefix[k]) // 2, -1)
    return np.minimum(np.maximum(steep, flat), cap)


def _upper(st: CommonNeighbourStats, s: np.ndarray) -> np.ndarray:
    return np.minimum(np.minimum(st.a_max + s, (s + st.c_max) // 2), max(st.n - 2, 0))


def local_sensitivity(stats: CommonNeighbourStats, s: Any = 0) -> int | np.ndarray:
    """Local sensitivity at distance ``s`` of the triangle count, ``LS(s)`` (NOT private).

    ``LS(0)`` is the graph's local sensitivity ``a_max``. Evaluated on the frontier: a point
    with ``b = c - 2a >= s`` contributes ``a + s``, one with ``b < s`` contributes
    ``floor((s + c) / 2)``, so ``LS(s)`` is a suffix maximum of ``a`` and a prefix maximum of
    ``c`` over the points sorted by ``b``; capped at ``n - 2`` (0 when ``n < 3``).

    Parameters
    ----------
    stats : CommonNeighbourStats
    s : int or array-like of int, default 0
        Distance(s) in edge flips, ``>= 0``.

    Returns
    -------
    int or numpy.ndarray
        An int for a scalar ``s``, else an int64 array of the same shape.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpatlas.graph.exact.counting import common_neighbour_stats
    >>> stats = common_neighbour_stats(nx.Graph([(0, 1), (2, 3)]))  # two disjoint edges
    >>> local_sensitivity(stats, [0, 1, 2, 3]).tolist()  # capped at n - 2 = 2
    [0, 1, 2, 2]
    """
    s_arr, scalar = _distances(s)
    return _out(_ls(_stats(stats), s_arr), scalar)


def ladder_upper_bound(stats: CommonNeighbourStats, s: Any = 0) -> int | np.ndarray:
    """Cheaper relaxation ``U(s) = min(n - 2, a_max + s, floor((s + c_max) / 2))`` (NOT private).

    Proof that ``U(s) >= LS(s)``: for every pair ``a_ij <= a_max`` and ``c_ij <= c_max``, and
    ``min(a + s, floor((s + c) / 2))`` is non-decreasing in ``a`` and ``c``.

    Proof that ``U`` is itself a valid ladder (``U(0) >= LS`` and ``U_s(G) <= U_{s+1}(G')``
    for neighbours ``G ~ G'``): ``U(0) = a_max`` (as ``c_max >= 2 a_max``). Flipping one edge
    ``{u, v}`` changes ``a_ij`` by at most 1 (only if ``u`` or ``v`` is ``i`` or ``j``, and then
    for one candidate common neighbour), so ``a_max`` moves by at most 1; it changes ``c_ij``
    by at most 1 (flipping ``{i, j}`` itself moves ``d_i + d_j`` by 2 and ``2 x_ij`` by 2, and
    other flips move at most one of ``d_i``, ``d_j`` by 1), so ``c_max`` moves by at most 1.
    Hence ``a_max(G) + s <= a_max(G') + (s + 1)`` and ``s + c_max(G) <= (s + 1) + c_max(G')``.

    When ``U(s) = LS(s)``: always at ``s = 0``; whenever the frontier has a single point
    (one pair attains both ``a_max`` and ``c_max``, e.g. ``K_n``, ``K_{2,r}``, wiki-Vote); for
    ``s >= c_max - 2 a*`` where ``a*`` is the ``a`` of the frontier point with ``c = c_max``
    (both are ``floor((s + c_max) / 2)`` then); and once both reach ``n - 2``.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpatlas.graph.exact.counting import common_neighbour_stats
    >>> stats = common_neighbour_stats(nx.star_graph(5))  # U is looser here: two frontier points
    >>> ladder_upper_bound(stats, [0, 1, 2]).tolist(), local_sensitivity(stats, [0, 1, 2]).tolist()
    ([1, 2, 3], [1, 1, 2])
    """
    s_arr, scalar = _distances(s)
    return _out(_upper(_stats(stats), s_arr), scalar)


def sensitivity_ladder(stats: CommonNeighbourStats, *, relaxed: bool = False) -> np.ndarray:
    """``LS(t)`` (or ``U(t)`` when ``relaxed``) for ``t = 0, 1, ...`` until it reaches ``n - 2``.

    The last entry is the first ``t`` at which the value equals ``n - 2``; it stays ``n - 2``
    for every larger ``t``. This is the input of the ladder and smooth-sensitivity mechanisms
    and is NOT private. Both sequences are valid ladders (Zhang et al., SIGMOD 2015): ``LS``
    by definition of the local sensitivity at distance ``t``, ``U`` by the proof in
    :func:`ladder_upper_bound`.

    Returns
    -------
    numpy.ndarray
        int64, length ``<= 2 (n - 2) + 1``; ``[0]`` when ``n < 3``.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpatlas.graph.exact.counting import common_neighbour_stats
    >>> sensitivity_ladder(common_neighbour_stats(nx.path_graph(6))).tolist()
    [1, 2, 3, 3, 4]
    """
    st = _stats(stats)
    cap = max(st.n - 2, 0)
    if cap == 0:
        return np.zeros(1, dtype=np.int64)
    width = int((st.frontier[:, 1] - 2 * st.frontier[:, 0]).max())
    t = np.arange(max(width + 1, 2 * cap - st.c_max) + 1, dtype=np.int64)
    values = _upper(st, t) if relaxed else _ls(st, t)
    return values[: int(np.argmax(values >= cap)) + 1]


def smooth_sensitivity(stats: CommonNeighbourStats, beta: float, *, relaxed: bool = False) -> float:
    """β-smooth sensitivity ``S = max_{s >= 0} exp(-β s) LS(s)`` (NOT private by itself).

    The maximum is exact over the ladder (after its end the value is constant and the weight
    decreases), taken in log space, so that large ``s`` neither underflows nor loses
    precision in a subnormal factor (``smooth_peak``). With ``relaxed`` it
    uses ``U(s)``, still a β-smooth upper bound because ``U`` is a ladder:
    ``S_U(G) <= e^β S_U(G')`` for neighbours. Mechanisms: ``T + (6 S / ε) Cauchy`` with
    ``β = ε / 6`` (pure ε), or ``T + (2 S / ε) Lap(1)`` with ``β = ε / (2 ln(2 / δ))``.
    A positive ``S`` is at least :data:`~dpatlas.core.noise.local.smooth.SMALLEST`: at large
    β the product underflowed to 0, an exact release (see that module).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpatlas.graph.exact.counting import common_neighbour_stats
    >>> round(smooth_sensitivity(common_neighbour_stats(nx.path_graph(6)), 0.5), 4)
    1.2131
    """
    beta = check_epsilon(beta, "beta")
    ladder = sensitivity_ladder(stats, relaxed=relaxed)
    positive = np.flatnonzero(ladder > 0)
    if positive.size == 0:
        return 0.0
    score = np.log(ladder[positive].astype(np.float64)) - beta * positive
    best = int(positive[np.argmax(score)])
    factor = np.exp(-beta * best)
    # the product while the factor is normal; past that exp of the score (smooth_peak: a
    # subnormal factor loses the precision); never below I_0 nor underflowing to 0
    peak = float(ladder[best] * factor) if factor >= SMALLEST else smooth_peak(ladder, beta)
    return max(peak, float(ladder[0]), SMALLEST)
