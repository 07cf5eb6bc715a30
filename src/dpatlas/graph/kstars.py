"""Private k-star counts under edge-DP: ladder (default), piecewise (k = 2), smooth or global.

The count ``Σ_v C(d_v, k)``, its ladder ``LS⁽ˢ⁾`` and the interval bounds are derived and proved
in :mod:`dpatlas.graph.exact.kstar_sensitivity`; the noise comes unchanged from :mod:`dpatlas.core.noise.local.ladder`,
:mod:`dpatlas.core.noise.local.smooth` and :mod:`dpatlas.core.noise.discrete_laplace`. The global sensitivity is
``GS = 2 C(n-2, k-1)`` (both endpoints of the flipped edge at degree ``n - 2`` otherwise).
When ``GS = 0`` (``n <= k``) every graph on the node set has no k-star: 0 is released exactly
(the budget is still debited as asked) with interval ``(0, 0)``.

``method="piecewise"`` (:mod:`dpatlas.core.noise.local.piecewise_ladder`) needs a ladder that grows by
at most 1 per rung, condition (L3). For ``k = 2`` the ladder is ``min(e_i + e_j + t, 2(n - 2))``
maximised over pairs, which does; for ``k >= 3`` one step adds up to ``C(d, k - 2)``, so the
method is refused there (before the graph is read).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.noise.discrete_laplace import (
    discrete_laplace,
    rational_scale,
    sample_discrete_laplace,
)
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.piecewise_ladder import piecewise_ladder_mechanism
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_bound, smooth_mechanism
from dpatlas.core.release import Release
from dpatlas.core.rng import RngLike
from dpatlas.core.validation import check_delta, check_epsilon
from dpatlas.graph._interval import BoundedRelease, bounded_halfwidth, interval_note
from dpatlas.graph._noise import PublicChecks, count_cost, count_scales, count_value
from dpatlas.graph.edges import _open_release
from dpatlas.graph.exact.kstar_sensitivity import (
    check_k,
    kstar_exact,
    kstar_ladder,
    star_global_sensitivity,
)
from dpatlas.graph.triangles import _checked

__all__ = ["KStarRelease", "check_kstar_count", "kstar_count"]


class KStarRelease(BoundedRelease):
    """A :class:`~dpatlas.core.release.Release` whose interval uses a bought bound.

    2-stars: the bound is on ``c_max`` (the ladder's start, steep family); larger stars: on
    ``d_max`` (the dominating ladders of :mod:`dpatlas.graph.exact.kstar_envelope`). Both
    through the certified rule of :func:`~dpatlas.graph._interval.bounded_halfwidth`.
    """

    def _halfwidth(self, level: float) -> int:
        """The certified half-width at the noisy bound (module docstring)."""
        stat = "c_max" if self.metadata["k"] == 2 else "d_max"
        return int(bounded_halfwidth(self.metadata, level, self.metadata[f"noisy_{stat}"]))


def _parameters(
    k: Any, epsilon: float, delta: float, method: Any, interval_epsilon: Any
) -> tuple[int, float, float, float]:
    """``k``, ε, δ and the interval's ε (0.0 without), checked as ``triangle_count`` checks
    them, and the piecewise method refused for ``k >= 3`` (module docstring)."""
    k = check_k(k)
    eps, d = check_epsilon(epsilon), check_delta(delta)
    extra = _checked(method, eps, d, False, interval_epsilon)  # same rules as triangle_count
    if method == "piecewise" and k != 2:
        raise ValueError(
            f"method='piecewise' needs a ladder that grows by at most 1 per step, which the "
            f"k-star ladder does only for k = 2, got k={k}; use method='ladder'"
        )
    return k, eps, d, extra


def check_kstar_count(
    n: int | None,
    k: int,
    *,
    epsilon: float,
    delta: float = 0.0,
    method: str = "ladder",
    interval_epsilon: float | None = None,
) -> PublicChecks:
    """Refuse what :func:`kstar_count` would refuse on its public parameters; its cost and
    noise scales.

    The checks :func:`kstar_count` runs before the graph is read, for a caller (the command
    line) that reads the graph itself: ``k``, ε, δ, the method and the interval's ε and, when
    the number of nodes ``n`` is known, ``k`` against ``n`` (the global sensitivity
    ``2 C(n-2, k-1)`` must stay below ``2**61``) and the noise scales it gives.

    Parameters
    ----------
    n : int or None
        Public number of nodes (None: unknown, the n-dependent checks wait for the graph).
    k, epsilon, delta, method, interval_epsilon
        As in :func:`kstar_count`.

    Returns
    -------
    PublicChecks
        The cost :func:`kstar_count` debits and the largest noise scales it can draw
        (:func:`~dpatlas.graph._noise.count_scales`), for
        :func:`~dpatlas.core.accounting.charge.open_charge`.

    Examples
    --------
    >>> check_kstar_count(10, 2, epsilon=1.0, method="global").scales  # GS = 2 C(8, 1)
    (Fraction(16, 1),)
    >>> check_kstar_count(70, 30, epsilon=1.0)
    Traceback (most recent call last):
    ...
    ValueError: k=30 is too large for n=70: the global sensitivity 2 C(n-2, k-1) exceeds 2**61; ...
    """
    k, eps, d, extra = _parameters(k, epsilon, delta, method, interval_epsilon)
    if n is None:
        return PublicChecks(count_cost(eps, d, extra), ())
    scales = count_scales(method, eps, d, star_global_sensitivity(n, k), extra)
    return PublicChecks(count_cost(eps, d, extra), tuple(scales))


def kstar_count(
    graph: Any,
    k: int,
    *,
    epsilon: float,
    delta: float = 0.0,
    method: str = "ladder",
    budget: Budget | None = None,
    rng: RngLike = None,
    n: int | None = None,
    interval_epsilon: float | None = None,
    nodes: Any = None,
) -> KStarRelease:
    """Release the number of k-stars ``Σ_v C(d_v, k)`` of ``graph`` under edge-DP.

    Parameters
    ----------
    graph : networkx.Graph, EdgeGraph, (m, 2) integer array or scipy sparse matrix
        Simple undirected graph; see :func:`~dpatlas.graph.input.edgegraph.as_edge_graph`.
    k : int
        Star size, ``>= 2`` (``k = 2`` counts wedges, paths of length 2).
    epsilon : float
        Privacy cost of the count, > 0.
    delta : float, default 0.0
        Only for ``method="smooth"``: 0 is pure ε (discrete Cauchy), ``> 0`` is (ε, δ); then an
        ε too small for the smoothness β is refused as in ``triangle_count``, before the debit.
    method : {"ladder", "piecewise", "smooth", "global"}
        Ladder mechanism on the exact ``LS⁽ˢ⁾`` (pure ε), the piecewise ladder on the same
        ``LS⁽ˢ⁾`` (pure ε, the most accurate; ``k = 2`` only), smooth sensitivity, or
        discrete Laplace at ``GS = 2 C(n-2, k-1)``.
    budget : Budget, optional
        Checked before the graph is read, debited once (``epsilon + interval_epsilon``,
        ``delta``) before any noise is drawn.
    rng : None, int or numpy.random.Generator
        ``None`` for secure noise; a seed is for tests and teaching (``seeded=True``).
    n : int, optional
        Public number of nodes; an edge array needs it (or ``nodes``): without either the
        release is refused before anything is spent.
    interval_epsilon : float, optional
        Extra ε for a private bound (on ``c_max``, the ladder's start, for ``k = 2``; on the
        largest degree for ``k >= 3``) that makes ``confidence_interval()`` work for the
        piecewise, ladder and smooth methods; ``metadata["interval"]`` says what the interval
        covers.
    nodes : array-like of int, optional
        Public node ids, for an edge array (every endpoint must be one of them).

    Returns
    -------
    KStarRelease
        ``value`` (int), ``mechanism`` ``"kstar_count/<method>"``; ``scale`` None for ladder
        and smooth (data-dependent); metadata: public facts (method, k, n, β, δ, bound).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.karate_club_graph()  # 528 wedges
    >>> rel = kstar_count(G, 2, epsilon=1.0, interval_epsilon=0.25, rng=3)
    >>> rel.mechanism, rel.epsilon, rel.scale, rel.metadata["k"]
    ('kstar_count/ladder', 1.25, None, 2)
    >>> low, high = rel.confidence_interval(0.9)
    >>> low <= rel.value <= high
    True
    """
    k, eps, d, extra = _parameters(k, epsilon, delta, method, interval_epsilon)
    name = f"kstar_count/{method}"
    checks = partial(
        check_kstar_count, k=k, epsilon=eps, delta=d, method=method, interval_epsilon=extra or None
    )
    src, g, charge, public = _open_release(graph, n, nodes, rng, budget, checks, release=name)
    gs = star_global_sensitivity(g.n, k)
    exact = count_value(kstar_exact(g, k))  # clamped, never refused: a refusal would leak
    meta: dict[str, Any] = {"method": method, "k": k, "n": g.n}
    ladder = kstar_ladder(g, k) if method != "global" and gs > 0 else None
    charge.debit(public.scales)  # count_scales on the GS above, as checked
    if gs == 0:
        rel = Release(0, eps, d, name, 0.0, None, None, src.seeded)
        meta["constant"] = True
    elif ladder is None:
        rel = discrete_laplace(exact, sensitivity=gs, epsilon=eps, rng=src, mechanism=name)
    elif method == "ladder":
        rel = ladder_mechanism(exact, ladder, epsilon=eps, global_sensitivity=gs, rng=src)
    elif method == "piecewise":
        rel = piecewise_ladder_mechanism(exact, ladder, epsilon=eps, global_sensitivity=gs, rng=src)
        meta["floor"] = rel.metadata["floor"]
    else:
        beta = smooth_beta(eps, d)
        meta.update(beta=beta, delta=d)
        bound = smooth_bound(ladder, beta, global_sensitivity=gs)
        rel = smooth_mechanism(exact, bound, epsilon=eps, delta=d, rng=src)
    covers = f"the exact {k}-star count"
    if extra and ladder is not None:
        t, s = rational_scale(1 / exact_epsilon(extra))
        # 2-stars: the ladder's start c_max = LS(0); larger stars: the largest degree
        stat = "c_max" if k == 2 else "d_max"
        value = int(ladder[0]) if k == 2 else (int(np.max(g.degrees)) if g.n else 0)
        meta.update(
            {
                f"noisy_{stat}": value + int(sample_discrete_laplace(src, 1, (t, s))[0]),
                f"{stat}_noise_scale": t / s,
                "interval_epsilon": extra,
                "count_epsilon": eps,
                "global_sensitivity": gs,
                "interval": interval_note(covers, "noise and bound", extra, stat),
            }
        )
    else:
        meta["interval"] = interval_note(covers, "none" if ladder is not None else "noise only")
    return charge.release(
        KStarRelease,
        value=rel.value,
        sensitivity=rel.sensitivity,
        scale=rel.scale,
        noise=rel.noise,
        seeded=src.seeded,
        metadata=meta,
    )
