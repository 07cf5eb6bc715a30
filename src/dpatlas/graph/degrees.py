"""Private degree histograms under edge-DP: constrained inference (sorted) or the direct histogram.

Bins are degrees ``0 .. D`` with ``D = max_degree`` (public, default ``n - 1``, the largest
possible degree, so nothing is clipped); a degree above ``D`` is counted in the top bin ``D``.

Sensitivities (neighbours differ in one edge ``{u, v}``; only ``d_u`` and ``d_v`` change, each by
exactly 1, and clipping at ``D`` is 1-Lipschitz so the clipped degrees move by at most 1):

* Direct histogram, L1 sensitivity ≤ 4: each of the two moved nodes leaves one bin and enters
  another (or stays), changing at most two counts by 1 each.
* Sorted (clipped) degree sequence, L1 sensitivity ≤ 2 (Hay, Li, Miklau, Jensen, ICDM 2009):
  the unsorted sequences differ by 1 in two coordinates (L1 distance 2), and sorting does not
  increase L1 distance: ``Σ|x_(i) - y_(i)|`` is the cost of the monotone matching, which is an
  optimal transport plan between the two empirical distributions on the line, so it is at most
  the cost ``Σ|x_i - y_i|`` of any other matching.

Each release adds discrete Laplace noise (:func:`~dpatlas.core.noise.discrete_laplace.discrete_laplace`)
at the stated sensitivity, keeps that raw noisy vector as ``release.raw`` (part of the same
release, no extra cost), then post-processes (free under DP): ``"sorted"`` fits the
non-decreasing sequence closest in least squares (isotonic regression, pool-adjacent-violators in
``scipy.optimize.isotonic_regression``), clips to ``[0, D]``, rounds and counts the bins;
``"direct"`` projects onto ``{h >= 0, Σh = n}`` (Euclidean simplex projection) and rounds by
largest remainders. Both outputs are non-negative integer histograms summing to the public ``n``.

Intervals. ``release.raw.confidence_interval(level)`` gives, for each entry of the raw noisy
vector (the sorted degree sequence, or the bins for ``"direct"``), the exact discrete Laplace
quantile at the public scale: each entry's interval covers its exact value with probability
``>= level`` ("noise only", marginal per entry, not simultaneous). The post-processed histogram
has no per-bin interval and ``release.confidence_interval()`` raises: isotonic fitting and the
simplex projection move every entry by amounts that depend on the others, so a per-bin interval
around it would cover only under assumptions (a simultaneous band is valid, e.g. isotonic
regression never moves a sequence farther from a monotone truth in max-norm than the noise did,
but a band over ``n`` entries is several times wider than one entry's error).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.noise.discrete_laplace import discrete_laplace, discrete_laplace_cost
from dpatlas.core.release import Release
from dpatlas.core.rng import RngLike
from dpatlas.core.validation import check_epsilon
from dpatlas.graph._interval import interval_note
from dpatlas.graph._noise import PublicChecks
from dpatlas.graph.edges import _open_release

__all__ = [
    "DEGREE_METHODS",
    "DegreeHistogramRelease",
    "check_degree_histogram",
    "degree_histogram",
    "project_simplex",
    "round_to_total",
]

DEGREE_METHODS = ("sorted", "direct")
_SENSITIVITY = {"sorted": 2, "direct": 4}
"""L1 sensitivity of each method's noisy vector (module docstring)."""


@dataclass(frozen=True)
class DegreeHistogramRelease(Release):
    """A post-processed histogram, with the raw noisy vector it came from (``raw``)."""

    raw: Release | None = None

    def confidence_interval(self, level: float = 0.95) -> tuple[Any, Any]:
        """Refused: isotonic fitting / projection mixes the noise of many entries (see ``raw``)."""
        what = "sorted degree sequence" if self.metadata.get("method") == "sorted" else "bins"
        raise ValueError(
            "a degree histogram has no per-bin confidence interval: the noise (scale "
            f"metadata['noise_scale']={self.metadata.get('noise_scale')}) was added to the {what} "
            "before post-processing, which mixes entries; release.raw.confidence_interval(level) "
            f"gives an interval for each entry of the raw noisy {what}"
        )


def project_simplex(x: np.ndarray, total: float) -> np.ndarray:
    """Euclidean projection of ``x`` onto ``{y >= 0, Σy = total}`` (sort-based, vectorised).

    Examples
    --------
    >>> project_simplex(np.array([3.0, -1.0, 1.0]), 3.0).tolist()
    [2.5, 0.0, 0.5]
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0 or total <= 0:
        return np.zeros_like(x)
    u = np.sort(x)[::-1]
    css = np.cumsum(u) - total
    k = np.arange(1, x.size + 1)
    rho = int(np.flatnonzero(u - css / k > 0)[-1])
    return np.maximum(x - css[rho] / (rho + 1), 0.0)


def round_to_total(x: np.ndarray, total: int) -> np.ndarray:
    """Non-negative ``x`` (summing to ``total``) rounded to integers with the same sum.

    Floors, then gives the missing units to the largest remainders (ties: lowest index).

    Examples
    --------
    >>> round_to_total(np.array([2.5, 0.0, 0.5]), 3).tolist()
    [3, 0, 0]
    """
    base = np.floor(x).astype(np.int64)
    short = int(total) - int(base.sum())
    if short > 0:
        order = np.argsort(-(x - base), kind="stable")[:short]
        base[order] += 1
    return base


def _checked(method: Any, max_degree: Any, n: int) -> int:
    if method not in DEGREE_METHODS:
        raise ValueError(
            f"method must be one of {', '.join(map(repr, DEGREE_METHODS))}, got {method!r}"
        )
    if max_degree is None:
        return max(n - 1, 0)
    if isinstance(max_degree, bool) or not isinstance(max_degree, (int, np.integer)):
        raise TypeError(f"max_degree must be an integer (public), got {max_degree!r}")
    if max_degree < 0:
        raise ValueError(f"max_degree must be >= 0, got {max_degree}; e.g. max_degree=100")
    if max_degree > max(n - 1, 0):  # bins no degree can reach: an array of zeros, or no memory
        raise ValueError(
            f"max_degree must be <= n - 1 = {max(n - 1, 0)} (no node of {n} has a larger "
            f"degree), got {max_degree}; omit it for bins 0 .. n - 1"
        )
    return int(max_degree)


def check_degree_histogram(
    n: int | None, *, epsilon: float, max_degree: int | None = None, method: str = "sorted"
) -> PublicChecks:
    """Refuse what :func:`degree_histogram` would refuse on its public parameters; its cost
    and noise scale.

    The checks :func:`degree_histogram` runs before the graph is read, for a caller (the
    command line) that reads the graph itself: ε, the method and, when the number of nodes
    ``n`` is known, the degree cap (an integer in ``0 .. n - 1``).

    Parameters
    ----------
    n : int or None
        Public number of nodes (None: unknown, the cap is checked on the graph's).
    epsilon, max_degree, method
        As in :func:`degree_histogram`.

    Returns
    -------
    PublicChecks
        The cost :func:`degree_histogram` debits and its noise scale (Δ/ε), for
        :func:`~dpatlas.core.accounting.charge.open_charge`.

    Examples
    --------
    >>> check_degree_histogram(10, epsilon=1.0, max_degree=9).scales
    (Fraction(2, 1),)
    >>> check_degree_histogram(4, epsilon=1.0, max_degree=9)
    Traceback (most recent call last):
    ...
    ValueError: max_degree must be <= n - 1 = 3 (no node of 4 has a larger degree), got 9; ...
    """
    eps = check_epsilon(epsilon)
    if n is None:  # the method only: the cap is checked on the graph's n
        _checked(method, None, 0)
    else:
        _checked(method, max_degree, n)
    sensitivity = _SENSITIVITY[method]
    return PublicChecks(
        discrete_laplace_cost(sensitivity, eps), (sensitivity / exact_epsilon(eps),)
    )


def degree_histogram(
    graph: Any,
    *,
    epsilon: float,
    max_degree: int | None = None,
    method: str = "sorted",
    budget: Budget | None = None,
    rng: RngLike = None,
    n: int | None = None,
    nodes: Any = None,
) -> DegreeHistogramRelease:
    """Release the degree histogram (bins ``0 .. max_degree``) of ``graph`` under edge-DP.

    Parameters
    ----------
    graph : networkx.Graph, EdgeGraph, (m, 2) integer array or scipy sparse matrix
        Simple undirected graph; see :func:`~dpatlas.graph.input.edgegraph.as_edge_graph`.
    epsilon : float
        Privacy cost, > 0.
    max_degree : int, optional
        Public top bin ``D``, at most ``n - 1``; degrees above it are counted in bin ``D``.
        Default ``n - 1`` (public: nothing is clipped). Not estimated from the data. An
        invalid one is refused before the graph is read and before anything is spent.
    method : {"sorted", "direct"}
        ``"sorted"``: noisy sorted degree sequence (Δ = 2) + isotonic regression (Hay et al.
        2009), more accurate on large sparse graphs; ``"direct"``: noisy bins (Δ = 4).
    budget : Budget, optional
        Checked before the graph is read, debited once before noise is drawn.
    rng : None, int or numpy.random.Generator
        ``None`` for secure noise; a seed is for tests and teaching (``seeded=True``).
    n : int, optional
        Public number of nodes; an edge array needs it (or ``nodes``): without either the
        release is refused before anything is spent.
    nodes : array-like of int, optional
        Public node ids, for an edge array (every endpoint must be one of them).

    Returns
    -------
    DegreeHistogramRelease
        ``value``: int64 array of length ``D + 1`` summing to ``n``; ``sensitivity`` 2 or 4;
        ``scale`` None (post-processed: ``confidence_interval()`` raises); ``raw``: the raw
        noisy vector as a release with per-entry intervals; metadata ``method``, ``n``,
        ``max_degree``, ``noise_scale`` (the public scale of the raw noise) and ``interval``.

    Examples
    --------
    >>> import networkx as nx
    >>> rel = degree_histogram(nx.star_graph(9), epsilon=2.0, max_degree=9, rng=1)
    >>> int(rel.value.sum()), rel.value.size, rel.sensitivity, rel.metadata["method"]
    (10, 10, 2.0, 'sorted')
    >>> low, high = rel.raw.confidence_interval(0.9)  # each entry of the noisy sorted degrees
    >>> bool(np.all(low <= rel.raw.value)), int(high[0] - low[0])
    (True, 4)
    """
    eps = check_epsilon(epsilon)
    if method not in DEGREE_METHODS:
        _checked(method, None, 0)
    name = f"degree_histogram/{method}"
    sensitivity = _SENSITIVITY[method]
    checks = partial(check_degree_histogram, epsilon=eps, max_degree=max_degree, method=method)
    src, g, charge, public = _open_release(
        graph, n, nodes, rng, budget, checks, release="degree_histogram", mechanism=name
    )
    top = _checked(method, max_degree, g.n)
    deg = np.minimum(g.degrees.astype(np.int64), top)
    charge.debit(public.scales)
    if method == "sorted":
        from scipy.optimize import isotonic_regression  # on use: scipy.optimize is slow to load

        raw = discrete_laplace(
            np.sort(deg), sensitivity=sensitivity, epsilon=eps, rng=src, mechanism=name
        )
        fit = isotonic_regression(np.asarray(raw.value, dtype=np.float64)).x if g.n else np.zeros(0)
        seq = np.clip(np.rint(fit), 0, top).astype(np.int64)
        value = np.bincount(seq, minlength=top + 1)
    else:
        hist = np.bincount(deg, minlength=top + 1)
        raw = discrete_laplace(hist, sensitivity=sensitivity, epsilon=eps, rng=src, mechanism=name)
        value = round_to_total(project_simplex(np.asarray(raw.value), g.n), g.n)
    what = "sorted degree sequence (ascending)" if method == "sorted" else "degree histogram bins"
    meta = {
        "method": method,
        "n": g.n,
        "max_degree": top,
        "noise_scale": raw.scale,
        "interval": interval_note(f"release.raw: each entry of the exact {what}", "noise only"),
    }
    return charge.release(
        DegreeHistogramRelease,
        value=value,
        sensitivity=raw.sensitivity,
        scale=None,
        noise=raw.noise,
        seeded=src.seeded,
        metadata=meta,
        raw=raw,
    )
