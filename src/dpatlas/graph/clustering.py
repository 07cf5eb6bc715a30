"""Private global clustering coefficient (transitivity) under edge-DP.

``C = 3 T / W`` with ``T`` the triangles and ``W = Σ_v C(d_v, 2)`` the wedges (2-stars); ``C = 0``
when ``W = 0`` (networkx's convention). Budget split: ``triangle_share · ε`` releases ``T`` with
:func:`~dpatlas.graph.triangles.triangle_count`, the rest releases ``W`` with
:func:`~dpatlas.graph.kstars.kstar_count` (``k = 2``), same ``method``; ``interval_epsilon`` and
``delta`` are split in half between the two. Sequential composition: the pair is
``(ε + interval_epsilon, δ)``-DP, and the ratio ``min(1, max(0, 3T̂) / max(Ŵ, 1))`` is
post-processing. The budget is checked, then debited once for the total before any noise.

Interval. Whatever the method, it is the hull of the released value
``min(1, max(0, 3T̂)/max(Ŵ, 1))`` and of the ``c = 3ρ`` in ``[0, 1]`` with
``|T̂ - ρŴ| <= τ_k (G_T + ρ G_W)`` (:mod:`dpatlas.core.interval_ratio`): ``G`` each part's
worst-case noise quantile at its bought bound (piecewise, ladder, smooth) or at its public scale
(global), the bound raised by one margin (and floor), and ``τ_k`` the multiplier of the block of
``λ = G_T/(G_T + ρG_W)`` in which ``ρ`` falls. At the true ``ρ = T/W`` the condition is
``|K_T - ρ K_W| <= τ_k (G_T + ρ G_W)`` (``K`` the count noises), and one certificate for the pair
(:mod:`dpatlas.core.interval_pairs`) makes its probability at least the level for every graph.
The pair shares one miss rate, so each part's term is close to its own quantile at ``level``
(the box of two intervals at ``sqrt(level)`` paid ``γ/2`` twice; for Cauchy noise that quantile
is twice the one at ``γ``), and when both parts weigh about the same their noises partly cancel,
which the per-block multipliers use. It reads the released counts, the bought bounds and public
values only: post-processing.
A part without an interval of that kind (a constant release of a graph too small for the
statistic) falls back to the box: both parts' own intervals at ``sqrt(level)``, valid as the
parts draw independent noise.

Coverage is "noise and bound" for piecewise, ladder and smooth (marginal over all the noise,
every graph) and "noise only" for global; ``metadata["interval"]`` says which.

Average local clustering ``(1/n) Σ_v t_v / C(d_v, 2)`` is not offered: flipping ``{u, w}``
changes the coefficient of every common neighbour of ``u`` and ``w`` (a degree-2 common neighbour
goes from 0 to 1), so with ``n - 2`` such neighbours one flip moves the average by about
``(n - 2)/n``: the global sensitivity is the whole range, and we have no proven exact local
sensitivity at distance ``s`` for a ladder.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.cost import Cost, exact_epsilon, split
from dpatlas.core.interval_pairs import PairRule, PublicLaplace, pair_rule
from dpatlas.core.noise.discrete_laplace import rational_scale
from dpatlas.core.noise.local.smooth import smooth_beta
from dpatlas.core.release import Release
from dpatlas.core.rng import RngLike
from dpatlas.core.validation import (
    MAX_EPSILON,
    MAX_LEVEL,
    check_delta,
    check_epsilon,
    least_accepted,
)
from dpatlas.graph._interval import check_level, interval_note, noise_family
from dpatlas.graph._noise import PublicChecks, count_cost, count_scales
from dpatlas.graph.adjacency import EdgeAdjacency
from dpatlas.graph.edges import _open_release
from dpatlas.graph.exact.kstar_sensitivity import star_global_sensitivity
from dpatlas.graph.kstars import kstar_count
from dpatlas.graph.triangles import _checked, triangle_count

__all__ = [
    "ClusteringRelease",
    "check_clustering_coefficient",
    "clustering_coefficient",
    "clustering_cost",
    "pair_rule_of",
    "ratio_interval",
]


@dataclass(frozen=True)
class ClusteringRelease(Release):
    """The ratio, with the two part releases it was computed from (both private releases)."""

    triangles: Release | None = None
    wedges: Release | None = None

    def confidence_interval(self, level: float = 0.95) -> tuple[float, float]:
        """Interval for ``C`` with coverage ``>= level`` (module docstring)."""
        lev = check_level(level)
        tri, wed = self.triangles, self.wedges
        if tri is None or wed is None:
            raise ValueError(
                "a ClusteringRelease needs its two parts; build it with clustering_coefficient"
            )
        if "none" in {r.metadata.get("interval", {}).get("kind") for r in (tri, wed)}:
            raise ValueError(
                f"this {self.mechanism} release has no interval: its noise scale depends on the "
                "graph; buy one with clustering_coefficient(..., interval_epsilon=0.1) (CLI: "
                "--interval-epsilon), or use method='global', whose interval is free"
            )
        pair = pair_rule_of(tri, wed, lev)
        if pair is None:
            if math.sqrt(lev) > MAX_LEVEL:  # the parts' own check would quote sqrt(level)
                raise ValueError(
                    f"level must be at most about 1 - 2e-9 for this {self.mechanism} release, "
                    f"got {level!r}: its interval joins its two parts' intervals at "
                    "sqrt(level), which may be at most 1 - 1e-9"
                )
            t_lo, t_hi = tri.confidence_interval(math.sqrt(lev))
            w_lo, w_hi = wed.confidence_interval(math.sqrt(lev))
            low, high = ratio_interval(t_lo, t_hi, w_lo, w_hi)
        else:
            rule, bounds = pair
            low, high = rule.interval(tri.value, wed.value, *bounds)
        return float(low), float(high)


def pair_rule_of(
    triangles: Release, wedges: Release, level: float
) -> tuple[PairRule, tuple[float, float]] | None:
    """The pair rule of the two parts and their noisy bounds, or None for the box fallback.

    Reads public metadata and the bought noisy bounds only (``(0, 0)`` for public scales).

    Examples
    --------
    >>> import networkx as nx
    >>> rel = clustering_coefficient(nx.karate_club_graph(), epsilon=2.0, method="global", rng=4)
    >>> rule, bounds = pair_rule_of(rel.triangles, rel.wedges, 0.9)
    >>> bounds, rule.certified >= 0.9
    ((0.0, 0.0), True)
    """
    kinds = {r.metadata.get("interval", {}).get("kind") for r in (triangles, wedges)}
    if kinds == {"noise only"} and triangles.scale and wedges.scale:  # global: public scales
        public = (PublicLaplace(float(triangles.scale)), PublicLaplace(float(wedges.scale)))
        return pair_rule(*public, level, None), (0.0, 0.0)
    if kinds != {"noise and bound"}:
        return None  # constant parts, or no bought bound (their own intervals raise)
    scale = rational_scale(1 / exact_epsilon(triangles.metadata["interval_epsilon"]))
    fams = (noise_family(triangles.metadata), noise_family(wedges.metadata))
    bounds = (float(triangles.metadata["noisy_a_max"]), float(wedges.metadata["noisy_c_max"]))
    return pair_rule(*fams, level, scale), bounds


def ratio_interval(t_lo: Any, t_hi: Any, w_lo: Any, w_hi: Any) -> tuple[np.ndarray, np.ndarray]:
    """The values of ``3T/W`` (clipped to ``[0, 1]``) when ``T ∈ [t_lo, t_hi]``, ``W ∈ [w_lo, w_hi]``.

    Vectorised; ``[0, 1]`` when ``w_hi <= 0``, upper end 1 when ``w_lo <= 0``.

    Examples
    --------
    >>> [x.tolist() for x in ratio_interval([90, 90], [110, 110], [900, -5], [1100, 1100])]
    [[0.2454..., 0.2454...], [0.3666..., 1.0]]
    """
    t_lo, t_hi, w_lo, w_hi = (np.asarray(x, dtype=np.float64) for x in (t_lo, t_hi, w_lo, w_hi))
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(w_hi > 0, np.minimum(1.0, 3 * np.maximum(t_lo, 0) / w_hi), 0.0)
        high = np.where(w_lo > 0, np.clip(3 * t_hi / w_lo, 0.0, 1.0), 1.0)
    return low, np.where(w_hi > 0, high, 1.0)


def _check_share(share: Any) -> float:
    """``share`` as a float in (0, 1): any real number (as ``epsilon`` takes), not a bool.

    A numpy float is read as the decimal it prints as (``np.float32(0.3)`` is 0.3), as levels are.
    """
    real = isinstance(share, numbers.Real) and not isinstance(share, (bool, np.bool_))
    if not (real and 0 < share < 1):
        raise ValueError(f"triangle_share must be a number in (0, 1), got {share!r}; e.g. 0.5")
    return float(str(share)) if isinstance(share, np.floating) else float(share)


def check_smooth_shares(epsilon: float, delta: float, triangle_share: float) -> None:
    """Refuse an ``epsilon`` whose triangle or wedge share is too small for smooth sensitivity.

    Public values only, so callers that read the graph themselves (the command line) run it
    before the read, as :func:`clustering_coefficient` does before its debit.

    The refusal names the ``epsilon`` given and the smallest one accepted with these
    ``delta`` and ``triangle_share`` (found with the same check; the float below is refused).

    Examples
    --------
    >>> check_smooth_shares(1.0, 1e-6, 0.5)
    >>> check_smooth_shares(1e-12, 0.0, 0.5)
    Traceback (most recent call last):
    ...
    ValueError: epsilon=1e-12 is too small for the clustering coefficient's smooth sensitivity ...
    """
    eps, d, share = check_epsilon(epsilon), check_delta(delta), _check_share(triangle_share)
    if _shares_ok(eps, d, share):
        return
    part = min(split(eps, [share, 1 - share]))
    if not _shares_ok(MAX_EPSILON, d, share):
        raise ValueError(
            f"triangle_share={share!r} leaves one of the clustering coefficient's two counts too "
            f"small a share of any epsilon for smooth sensitivity with delta={d or 0!r}; use a "
            "triangle_share nearer 0.5"
        )
    least = least_accepted(lambda e: _shares_ok(e, d, share), eps, MAX_EPSILON)
    raise ValueError(
        f"epsilon={eps!r} is too small for the clustering coefficient's smooth sensitivity with "
        f"delta={d or 0!r} (triangle_share={share!r} gives the smaller of its two counts "
        f"{part!r}, below the proofs' margin); use epsilon >= {least!r}"
    )


def _shares_ok(epsilon: float, delta: float, share: float) -> bool:
    eps_t, eps_w = split(epsilon, [share, 1 - share])
    try:
        smooth_beta(min(eps_t, eps_w), delta / 2)
    except ValueError:
        return False
    return True


def clustering_cost(
    epsilon: float, delta: float = 0.0, interval_epsilon: float = 0.0, triangle_share: float = 0.5
) -> Cost:
    """The privacy cost :func:`clustering_coefficient` debits, from its public parameters.

    Two count releases (triangles at ``triangle_share · ε``, wedges at the rest, each with half
    of ``δ`` and of ``interval_epsilon``) composed: under zCDP accounting their ρ is less than
    that of one release at ε. A caller that must refuse before reading the graph checks this.

    Examples
    --------
    >>> clustering_cost(1.0)
    Cost(epsilon=1.0, delta=0.0, rho=0.25)
    """
    eps_t, eps_w = split(check_epsilon(epsilon), [_check_share(triangle_share), 1 - triangle_share])
    half_d, half_x = check_delta(delta) / 2, interval_epsilon / 2
    return count_cost(eps_t, half_d, half_x) + count_cost(eps_w, half_d, half_x)


def _parameters(
    epsilon: float, delta: float, method: Any, triangle_share: Any, interval_epsilon: Any
) -> tuple[float, float, float, float]:
    """ε, δ, the triangles' share and the interval's ε (0.0 without), checked; for the smooth
    method each count's share of ε too, refused here rather than after the debit."""
    eps, d = check_epsilon(epsilon), check_delta(delta)
    share = _check_share(triangle_share)
    if method == "smooth":  # before the whole ε is checked: its least ε is too small
        check_smooth_shares(eps, d, share)
    extra = _checked(method, eps, d, False, interval_epsilon)  # same rules as triangle_count
    return eps, d, share, extra


def _scales(
    n: int, method: str, epsilon: float, delta: float, share: float, interval_epsilon: float
) -> list[Fraction]:
    """The largest noise scales of the two counts on ``n`` public nodes."""
    eps_t, eps_w = split(epsilon, [share, 1 - share])
    tri_gs = EdgeAdjacency().triangle_global_sensitivity(n)
    wedge_gs = star_global_sensitivity(n, 2)
    scales = count_scales(method, eps_t, delta / 2, tri_gs, interval_epsilon / 2)
    return scales + count_scales(method, eps_w, delta / 2, wedge_gs, interval_epsilon / 2)


def check_clustering_coefficient(
    n: int | None,
    *,
    epsilon: float,
    delta: float = 0.0,
    method: str = "piecewise",
    triangle_share: float = 0.5,
    interval_epsilon: float | None = None,
) -> PublicChecks:
    """Refuse what :func:`clustering_coefficient` would refuse on its public parameters; its
    cost and noise scales.

    The checks :func:`clustering_coefficient` runs before the graph is read, for a caller
    (the command line) that reads the graph itself: ε, δ, the method, the triangles' share
    (for the smooth method: each count's share of ε) and the interval's ε and, when the
    number of nodes ``n`` is known, the noise scales of both counts.

    Parameters
    ----------
    n : int or None
        Public number of nodes (None: unknown, the scales are checked on the graph's).
    epsilon, delta, method, triangle_share, interval_epsilon
        As in :func:`clustering_coefficient`.

    Returns
    -------
    PublicChecks
        The cost :func:`clustering_coefficient` debits (:func:`clustering_cost`) and the
        largest noise scales of its two counts, for
        :func:`~dpatlas.core.accounting.charge.open_charge`.

    Examples
    --------
    >>> check_clustering_coefficient(12, epsilon=1.0, method="global").scales
    (Fraction(20, 1), Fraction(40, 1))
    >>> check_clustering_coefficient(12, epsilon=1.0, triangle_share=1.5)
    Traceback (most recent call last):
    ...
    ValueError: triangle_share must be a number in (0, 1), got 1.5; e.g. 0.5
    """
    eps, d, share, extra = _parameters(epsilon, delta, method, triangle_share, interval_epsilon)
    cost = clustering_cost(eps, d, extra, share)
    if n is None:
        return PublicChecks(cost, ())
    return PublicChecks(cost, tuple(_scales(n, method, eps, d, share, extra)))


def clustering_coefficient(
    graph: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    method: str = "piecewise",
    triangle_share: float = 0.5,
    budget: Budget | None = None,
    rng: RngLike = None,
    n: int | None = None,
    interval_epsilon: float | None = None,
    nodes: Any = None,
) -> ClusteringRelease:
    """Release the global clustering coefficient ``3 T / W`` of ``graph`` under edge-DP.

    Parameters
    ----------
    graph : networkx.Graph, EdgeGraph, (m, 2) integer array or scipy sparse matrix
        Simple undirected graph; see :func:`~dpatlas.graph.input.edgegraph.as_edge_graph`.
    epsilon : float
        Privacy cost of the two counts together, > 0.
    delta : float, default 0.0
        Only for ``method="smooth"``; split in half between the counts.
    method : {"piecewise", "ladder", "smooth", "global"}
        Mechanism of both counts (see :func:`~dpatlas.graph.triangles.triangle_count`; the
        wedges are 2-stars, whose ladder suits the piecewise method too).
    triangle_share : float, default 0.5
        Fraction of ``epsilon`` (in (0, 1)) spent on the triangles; the rest on the wedges.
    budget : Budget, optional
        Checked before the graph is read; debited once (``epsilon + interval_epsilon``,
        ``delta``) before any noise is drawn.
    rng : None, int or numpy.random.Generator
        ``None`` for secure noise; a seed is for tests and teaching (``seeded=True``).
    n : int, optional
        Public number of nodes; an edge array needs it (or ``nodes``): without either the
        release is refused before anything is spent.
    interval_epsilon : float, optional
        Extra ε (half per count) that makes ``confidence_interval()`` work for
        piecewise/ladder/smooth.
    nodes : array-like of int, optional
        Public node ids, for an edge array (every endpoint must be one of them).

    Returns
    -------
    ClusteringRelease
        ``value`` (float in [0, 1]); ``triangles`` and ``wedges``: the part releases;
        metadata: method, n, share, and the two noisy counts.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.karate_club_graph()  # transitivity 0.2557
    >>> rel = clustering_coefficient(G, epsilon=2.0, method="global", rng=4)
    >>> rel.mechanism, rel.epsilon, 0.0 <= rel.value <= 1.0
    ('clustering_coefficient/global', 2.0, True)
    >>> low, high = rel.confidence_interval(0.9)
    >>> low <= rel.value <= high
    True
    """
    eps, d, share, extra = _parameters(epsilon, delta, method, triangle_share, interval_epsilon)
    name = f"clustering_coefficient/{method}"
    eps_t, eps_w = split(eps, [share, 1 - share])  # exact sum <= ε
    checks = partial(
        check_clustering_coefficient,
        epsilon=eps,
        delta=d,
        method=method,
        triangle_share=share,
        interval_epsilon=extra or None,
    )
    src, g, charge, public = _open_release(graph, n, nodes, rng, budget, checks, release=name)
    charge.debit(public.scales)  # both counts' scales on g.n, as checked
    part: dict[str, Any] = {
        "delta": d / 2,
        "method": method,
        "rng": src,
        "interval_epsilon": extra / 2 or None,
    }
    tri = triangle_count(g, epsilon=eps_t, **part)
    wed = kstar_count(g, 2, epsilon=eps_w, **part)
    value = min(1.0, max(0, 3 * int(tri.value)) / max(int(wed.value), 1))
    kinds = {tri.metadata["interval"]["kind"], wed.metadata["interval"]["kind"]}
    kind = next(k for k in ("none", "noise and bound", "noise only") if k in kinds)
    meta = {
        "method": method,
        "n": g.n,
        "triangle_share": share,
        "noisy_triangles": int(tri.value),
        "noisy_wedges": int(wed.value),
        "interval_epsilon": extra or None,
        "interval": interval_note("the exact global clustering coefficient 3T/W", kind, extra),
    }
    return charge.release(
        ClusteringRelease,
        value=value,
        sensitivity=None,
        scale=None,
        noise=None,
        seeded=src.seeded,
        metadata=meta,
        triangles=tri,
        wedges=wed,
    )
