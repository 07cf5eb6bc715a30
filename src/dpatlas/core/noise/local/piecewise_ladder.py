"""Piecewise-Laplace ladder with a floored normalizer: pure ε-DP at nearly ε per rung, exact.

Setting (as :mod:`dpatlas.core.noise.local.ladder`). ``f`` is an integer query with public global
sensitivity ``GS`` and ``I_0(G) <= I_1(G) <= ...`` a ladder in ``[0, GS]`` (entries after the
array are ``GS``) with, for all neighbours ``G ~ G'`` and ``t >= 0``,

(L1) ``|f(G) - f(G')| <= I_0(G)``, (L2) ``I_t(G) <= I_{t+1}(G')``, and here also
(L3) ``I_{t+1}(G) <= I_t(G) + 1`` for every ``G`` (the ladder grows by at most 1 per rung).

``LS⁽ᵗ⁾`` of the triangle count and its relaxation ``U(t)`` satisfy (L3) (each pair's term
``min(a + t, ⌊(t + c)/2⌋, n - 2)`` grows by at most 1 with ``t``), as does ``LS⁽ᵗ⁾`` of the
2-star count (``min(e_i + e_j + t, 2(n - 2))``).

Mechanism. A public *floor* ``K`` (default ``⌈4/ε⌉``, capped at ``GS``) gives the widths
``J_t = max(I_t, K)``, which satisfy (L1)–(L3) as well (a maximum with a constant keeps each).
With ``u_t = J_0 + ... + J_{t-1}``, an output ``y`` at distance ``d = |y - T| >= 1`` lies in
rung ``t`` (``u_t < d <= u_{t+1}``) at offset ``j = d - u_t`` in ``[1, J_t]``; its *length* is
``ℓ(y) = t + j / J_t`` and ``ℓ(T) = 0`` — the piecewise-linear inverse of the ladder, so the
noise is Laplace-shaped with scale ``J_t / θ`` inside rung ``t`` (Durfee's piecewise Laplace,
arXiv 2505.02798, 2025; the ladder of Zhang et al. 2015 rounds ``ℓ`` up to ``⌈ℓ⌉``). The
release has ``P_G(y) = q^{ℓ_G(y)} / Z(G)`` with ``q = e^{-θ}``.

Privacy (proved here; the floor is what makes the normalizer nearly constant).

Lemma 1, ``ℓ_G'(y) <= ℓ_G(y) + 1``. Let ``d = |y - T| = u_t(G) + j`` with ``1 <= j <= J_t(G)``
(or ``d = 0``). By (L1) at ``G'`` and (L2), ``d' = |y - T'| <= d + J_0(G') <= J_0(G') +
Σ_{i<t} J_{i+1}(G') + j = u_{t+1}(G') + j`` with ``j <= J_t(G) <= J_{t+1}(G')``. So ``d'`` lies in
a rung ``<= t + 1`` of ``G'``, and in rung ``t + 1`` only at an offset ``j' <= j``, where
``ℓ_G'(y) = t + 1 + j'/J_{t+1}(G') <= t + 1 + j/J_t(G)``; in a lower rung ``ℓ_G'(y) <= t + 1``.
(``d = 0``: ``d' <= J_0(G')`` gives ``ℓ_G'(y) <= 1``.) Symmetrically ``ℓ_G(y) <= ℓ_G'(y) + 1``.

Lemma 2, ``Z(G) <= ρ_K Z(G')``. Rung ``t`` holds mass ``2 q^t g(J_t)`` with
``g(w) = Σ_{j=1}^{w} q^{j/w} = (1 - q)/(e^{θ/w} - 1)`` (``g(0) = 0``), so
``Z = 1 + 2 Σ_t q^t g(J_t)``. ``g`` increases with slope at most ``κ = (1 - q)/θ``
(``dg/dw = κ u² e^u/(e^u - 1)²`` with ``u = θ/w``, and ``u e^{u/2} <= e^u - 1``). By (L2),
``Z(G) <= 1 + 2 Σ_t q^t g(J_{t+1}(G')) = 1 + (Z(G') - 1 - 2 g_0)/q`` with ``g_0 = g(J_0(G'))``,
i.e. ``Z(G)/Z(G') <= 1/q - (1 - q + 2 g_0)/(q Z(G'))``, which grows with ``Z(G')``. By (L3),
``g(J_t(G')) <= g_0 + κ t``, so ``Z(G') <= 1 + 2 g_0/(1 - q) + 2 κ q/(1 - q)²``. Together
``Z(G)/Z(G') <= ρ(g_0) = (1 - q + 2 g_0 + 2/θ) / (1 - q + 2 g_0 + 2q/θ)``, which falls as ``g_0``
grows; ``J_0(G') >= K`` gives ``ρ(g_0) <= ρ_K = ρ(g(K))``.

Theorem. ``P_G(y)/P_G'(y) = q^{ℓ_G(y) - ℓ_G'(y)} Z(G')/Z(G) <= e^θ ρ_K``, so the mechanism is
ε-DP for ``θ + ln ρ_K <= ε``; :func:`piecewise_theta` picks the largest such rational ``θ``
(a relative ``1e-9`` below the float solution, which covers the float evaluation of
``ρ_K`` and the relative ``2**-53`` between the binary ε it is solved for and the decimal ε
a budget charges, :func:`~dpatlas.core.accounting.cost.exact_epsilon`). When ``K >= GS``
all widths are ``GS``, ``Z`` does not depend on the graph and ``θ = ε``, the charged
decimal exactly: the discrete Laplace mechanism at the global sensitivity.

The price of the normalizer is ``ln ρ_K ≈ θ/(1 + Kθ)``: without a floor about ``θ``, so that
``θ ≈ ε/2`` as in the exponential mechanism (McSherry–Talwar 2007) and the ladder; with the
default ``K = ⌈4/ε⌉`` about ε/5, so ``θ ≈ 0.81 ε``. A larger floor lowers it further but widens
the rungs of every graph whose ladder is below ``K``; the floor costs noise only there (local
sensitivity below ``4/ε``), where the ladder's own widths are small too.

Sampling is exact (integers, rationals and exact Bernoulli draws only). ``θ = s/t`` is a
rational. A proposal picks rung ``u >= 0`` with ``P(u) ∝ (2 J_u + 1) q^u`` (as in the ladder
sampler of :mod:`dpatlas.core.noise.local.ladder`: ``u = k + G`` with ``P(k) ∝ ΔM_k q^k`` by a thinned
geometric and ``G`` geometric, from the core's exact discrete Laplace), then one of the
``2 J_u + 1`` positions uniformly (:mod:`dpatlas.core.noise._sampling.piecewise`, in batches of
a fixed size whatever the ladder): position 0 is ``T`` in rung 0 and nothing in later rungs
(rejected), the others are the offsets ``±j``, ``1 <= j <= J_u``. Every position has proposal
weight ``q^u``; ``T`` is kept always and offset ``j`` with probability ``q^{j/J_u}``
(Bernoulli(exp(-γ)) for the rational ``γ = θ j/J_u``, Canonne–Kamath–Steinke 2020), so a kept
output has probability ``∝ q^ℓ``. The kept share is about ``min(1, 1/θ)`` of the positions,
whatever ``θ`` (``T`` is never thinned); rejected proposals are discarded. Running time
depends on the (private) ladder, as the ladder's does: timing is not hidden.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.noise._sampling.piecewise import draw_piecewise
from dpatlas.core.noise.discrete_laplace import rational_scale
from dpatlas.core.noise.local.ladder import check_ladder, check_value, ladder_cost, noisy_release
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource, RngLike, get_source
from dpatlas.core.validation import check_epsilon, check_positive_int

__all__ = [
    "FLOOR_FACTOR",
    "check_unit_growth",
    "default_floor",
    "floored_widths",
    "normalizer_loss",
    "piecewise_ladder_mechanism",
    "piecewise_scale",
    "piecewise_theta",
    "sample_piecewise_ladder",
]

FLOOR_FACTOR = 4
"""Default floor ``K = ⌈FLOOR_FACTOR / ε⌉``: the normalizer then takes about ``ε/5``.

Chosen on synthetic ladders ``min(a + t, GS)``, not on the benchmark graphs; the trade-off
(a larger floor shrinks the normalizer's share but widens the rungs of graphs whose ladder is
below it) is measured in ``docs/triangles.md``.
"""

_MARGIN = 1e-9


def default_floor(epsilon: float) -> int:
    """The default public floor ``⌈4/ε⌉``, exact for the decimal ε a budget charges.

    Examples
    --------
    >>> default_floor(1.0), default_floor(0.1), default_floor(2.0), default_floor(0.3)
    (4, 40, 2, 14)
    """
    eps = exact_epsilon(check_epsilon(epsilon))
    return math.ceil(FLOOR_FACTOR / eps)


def normalizer_loss(theta: float, floor: int) -> float:
    """``ln ρ_K``: the bound on ``ln Z(G) - ln Z(G')`` of Lemma 2 for rate ``θ`` and floor ``K``.

    Examples
    --------
    >>> round(normalizer_loss(0.8, 4), 4), round(normalizer_loss(0.8, 0), 4)
    (0.1882, 0.6001)
    """
    one_q = -math.expm1(-theta)
    # g(K) <= e^-700 when θ/K > 700: taking 0 only raises the bound (ρ falls as g grows)
    g = one_q / math.expm1(theta / floor) if floor > 0 and theta < 700 * floor else 0.0
    base = one_q + 2 * g + 2 * (1 - one_q) / theta
    return math.log1p(2 * one_q / theta / base)


def piecewise_theta(epsilon: float, floor: int, global_sensitivity: int) -> tuple[int, int]:
    """``(t, s)`` with the rung rate ``θ = s/t`` as large as ``θ + ln ρ_K <= ε`` allows.

    ``floor`` is the floor actually used (``min(K, GS)``). When it equals ``GS`` every width is
    ``GS`` whatever the graph, ``Z`` is the same for all graphs and ``θ = ε`` (the noise is then
    the discrete Laplace of scale ``GS/ε``). Otherwise the float solution ``θ*`` of
    ``θ + ln ρ_K = ε (1 - 1e-9)`` is found by bisection (the left side increases with ``θ``),
    then rounded down to a fraction with numerator below ``2**41``.

    Examples
    --------
    >>> t, s = piecewise_theta(1.0, 4, 100)
    >>> round(s / t, 4), s / t + normalizer_loss(s / t, 4) <= 1.0
    (0.8112, True)
    >>> piecewise_theta(1.0, 3, 3)
    (1, 1)
    """
    eps = check_epsilon(epsilon)
    k = check_positive_int(floor, "floor", minimum=0)
    if k >= global_sensitivity:
        return rational_scale(1 / exact_epsilon(eps))
    target = eps * (1 - _MARGIN)
    lo, hi = 0.0, eps
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid + normalizer_loss(mid, k) <= target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= lo * 1e-15:
            break
    t, s = rational_scale(Fraction(1 / lo))  # t/s >= 1/lo: θ = s/t <= lo
    if not s / t + normalizer_loss(s / t, k) <= eps:  # cannot happen: θ <= lo; fail closed
        raise ArithmeticError(f"rate {s}/{t} exceeds epsilon={eps} with floor={k}")
    return t, s


def check_unit_growth(ladder: Any, global_sensitivity: Any = None) -> tuple[np.ndarray, int]:
    """:func:`~dpatlas.core.noise.local.ladder.check_ladder` plus (L3) on the array and its ``GS`` tail."""
    lad, gs = check_ladder(ladder, global_sensitivity)
    if np.any(np.diff(np.append(lad, gs)) > 1):
        raise ValueError(
            "ladder must grow by at most 1 per rung, also into global_sensitivity="
            f"{gs} after its last entry {int(lad[-1])} (condition (L3) of the piecewise "
            "ladder); use method='ladder' for ladders that jump"
        )
    return lad, gs


def floored_widths(
    lad: np.ndarray, gs: int, floor: int | None, epsilon: float
) -> tuple[np.ndarray, int]:
    """``(J, K')``: the widths ``max(I_t, K')`` with ``K' = min(K, GS)`` (default ``⌈4/ε⌉``)."""
    k = default_floor(epsilon) if floor is None else check_positive_int(floor, "floor", minimum=0)
    k = min(k, gs)
    return np.maximum(lad, k), k


def sample_piecewise_ladder(
    source: RandomSource,
    ladder: Any,
    epsilon: float,
    size: int,
    *,
    floor: int | None = None,
    global_sensitivity: int | None = None,
) -> np.ndarray:
    """Draw ``size`` exact noise values ``y - T`` of the piecewise ladder (module docstring).

    Examples
    --------
    >>> from dpatlas.core.rng import get_source
    >>> z = sample_piecewise_ladder(get_source(0), [3, 4, 5, 5], 1.0, 100_000, floor=1)
    >>> round(float((z == 0).mean()), 2)  # exact: 0.0814
    0.08
    """
    lad, gs = check_unit_growth(ladder, global_sensitivity)
    eps = check_epsilon(epsilon)
    count = check_positive_int(size, "size", minimum=0)
    if gs == 0:
        return np.zeros(count, dtype=np.int64)
    widths, k = floored_widths(lad, gs, floor, eps)
    return draw_piecewise(source, widths, gs, piecewise_theta(eps, k, gs), count)


def piecewise_ladder_mechanism(
    value: int,
    ladder: Any,
    *,
    epsilon: float,
    floor: int | None = None,
    global_sensitivity: int | None = None,
    rng: RngLike = None,
    budget: Budget | None = None,
    size: int | None = None,
    mechanism: str = "piecewise_ladder",
    note: str = "",
    metadata: dict[str, Any] | None = None,
) -> Release:
    """Release the integer ``value`` with the piecewise-Laplace ladder (pure ε-DP).

    ``ladder`` (``I_0, I_1, ...``, private) must satisfy (L1)–(L3) of the module docstring
    for every pair of neighbours (the caller's proof; (L3) is also checked on this ladder);
    ``global_sensitivity`` is the public ``GS`` it continues with (default: its last entry).
    ``floor`` is the public ``K`` (default ``⌈4/ε⌉``): it must not be derived from the data.
    ``budget`` is debited once before any noise; ``size`` draws independent releases costing
    ``size * epsilon``; ``rng=None`` is secure, a seed is for tests (``seeded=True``). The
    release has ``scale=None`` (the noise scale depends on the data) and records ``floor``
    and the rate ``theta`` (public) in its metadata.

    Examples
    --------
    >>> rel = piecewise_ladder_mechanism(100, [2, 3, 3, 4], epsilon=1.0, rng=1)
    >>> rel.mechanism, rel.epsilon, rel.scale, rel.metadata["floor"]
    ('piecewise_ladder', 1.0, None, 4)
    >>> abs(rel.value - 100) < 40
    True
    """
    eps = check_epsilon(epsilon)
    count = 1 if size is None else check_positive_int(size, "size")
    scales = [] if global_sensitivity is None else [piecewise_scale(eps, global_sensitivity)]
    charge = open_charge(
        ladder_cost(eps, count), budget, mechanism=mechanism, note=note, scales=scales
    )
    x = check_value(value)
    lad, gs = check_unit_growth(ladder, global_sensitivity)
    src = get_source(rng)
    widths, k = floored_widths(lad, gs, floor, eps)
    ts = piecewise_theta(eps, k, gs) if gs > 0 else (1, 1)  # public: GS, the floor and ε
    charge.debit()
    noise = (
        draw_piecewise(src, widths, gs, ts, count) if gs > 0 else np.zeros(count, dtype=np.int64)
    )
    meta = {**(metadata or {}), "floor": k, "theta": ts[1] / ts[0]}
    return noisy_release(charge, x, noise, size, src.seeded, "piecewise_ladder", meta)


def piecewise_scale(epsilon: float, global_sensitivity: int) -> Fraction:
    """An upper bound on the sampler's ``1/θ`` from public values, whatever the floor:
    ``(2/ε)(1 + 1e-8)``; checked before the budget.

    ``ln ρ_K <= θ`` for every floor (``ρ`` falls with ``g_0``, and at ``g_0 = 0``
    ``q(θ(1 - q) + 2) <= θ(1 - q) + 2q``), so :func:`piecewise_theta`'s float solution of
    ``θ + ln ρ_K = ε(1 - 1e-9)`` is at least ``ε(1 - 1e-9)/2``; bisection (relative 1e-15)
    and rounding ``θ`` down to a fraction (relative ``2**-38``) leave ``1/θ`` below
    ``(2/ε)(1 + 1.01e-9)``. (When the floor reaches ``GS``, ``θ = ε``.)

    Examples
    --------
    >>> piecewise_scale(0.5, 10) == 4 * (1 + Fraction(1, 10**8))
    True
    """
    eps = check_epsilon(epsilon)
    if int(global_sensitivity) <= 0:
        return Fraction(1)
    return 2 / exact_epsilon(eps) * (1 + Fraction(1, 10**8))
