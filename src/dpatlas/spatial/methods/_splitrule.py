"""PrivTree's noisy split decision, on an integer lattice with exact discrete Laplace noise.

A node at depth ``d`` with exact count ``c`` splits when ``b + Z > θ``, with the biased count
``b = max(c - d·δ, θ - δ)`` (Zhang, Xiao, Xie, SIGMOD 2016; the threshold ``θ`` is a free
public parameter, 0 in the paper). We use the core's exact discrete Laplace on the lattice
``(1/s)·ℤ`` (``s = lattice``): ``B = max(s·c - d·D - Θ, -D)`` with the integer
``D >= s·λ·ln β`` and ``Θ = s·θ`` an integer, and ``Z`` discrete Laplace of scale ``t = s·λ``
lattice steps (``P(k) ∝ exp(-|k|/t)``); split iff ``B + Z > 0``.

Privacy of the tree (one site added, ``D' = D + {x}``; ``λ = t/s``, ``p = e^{-1/t}``).
Only the nodes containing ``x`` change: on that root-to-leaf path every count grows by 1. Let
``Y'`` be a node's unclamped ``D'``-value ``s·c' - d·D - Θ``; its ``D``-value is
``Y = max(Y' - s, -D)``. Write ``F(B) = P[B + Z > 0]`` (``p^{1-B}/(1+p)`` for ``B <= 0``,
``1 - p^B/(1+p)`` for ``B >= 1``) and ``g = log F(max(Y', -D)) - log F(Y)`` (a node's cost).

1. ``g <= 1/λ`` always (``log F`` rises by at most ``1/t`` per lattice step), ``g <=
   min(Y' + D, s)/t`` (only that many steps are unclamped) and ``g = 0`` for ``Y' <= -D``.
   For ``Y >= 0``: ``g <= (1 - e^{-1/λ})·p^{Y-1}`` (``log(1+u) <= u`` on the closed forms).
2. Along the path ``Y'`` grows by at least ``D`` per level upwards (counts never shrink
   upwards, the bias falls by ``D``). Let the deepest costly node have ``Y'_0 = u - D``,
   ``u >= 1``; the ``j``-th above it has ``Y'_j >= u + (j-1)·D``, and ``p^D <= 1/β``.
   *Old bound* (any ``D``): node 0 and node 1 cost at most ``1/λ`` each, node ``j >= 2`` has
   ``Y'_j >= (j-1)·D + 1`` so costs at most ``β^{-(j-1)}(e^{1/λ} - 1)``: in total
   ``2/λ + (e^{1/λ} - 1)/(β - 1)``.
   *Tight bound* (when ``D >= s``, i.e. ``δ >= 1``): if ``u >= s`` every node ``j >= 1`` has
   ``Y_j >= (j-1)·D``, total ``C1 = 1/λ + (1 - e^{-1/λ})·e^{1/t}·β/(β - 1)``; if ``u < s``
   node 0 costs ``u/t``, node 1 at most ``1/λ``, node ``j >= 2`` has ``Y_j >= (j-1)·D + u - s
   >= 0``, total ``u/t + 1/λ + (1 - e^{-1/λ})·e^{(s+1-u)/t}/(β - 1)``, convex in ``u``, so at
   most its value at ``u = 1`` (``C2``) or ``u = s`` (``C3``). The loss is at most
   ``max(C1, C2, C3)``, which is below the paper's ``(2β - 1)/((β - 1)λ)`` for ``λ >= 0.5``
   (``e^v - 1 - v <= 3v(1 - 1/s)`` for ``v = 1/λ <= 2``): the paper's constant holds for
   our lattice version, and :func:`split_rule` uses this bound (a slightly smaller ``λ``).
   The bounds are for ``P[T | D'] / P[T | D]`` (not splitting is likelier under ``D``,
   which only helps); in the other direction only the path's leaf differs, by at most
   ``e^{1/λ}``.
3. A node that is one cell of the user's grid, or holds no released cell, is never split, by
   a rule that reads no data: its factor is 1 under every dataset, so the bound holds.
4. The proof needs ``B`` exact: int64 arithmetic that wrapped would make ``B`` jump by
   ``2**64`` between two neighbouring counts (a node always split with 5 sites, with 6 split
   with probability 1/8: an infinite loss). The scale check keeps ``D < 2**51``, a quadtree
   of at most ``2**63`` cells per side has depth ``d < 64``, ``s <= 2**10``, and ``|θ| <=
   2**48`` counts (:data:`MAX_THETA`; ``theta_levels <= 64``) keeps ``|Θ| <= 2**58``, so with
   ``c < 2**52`` sites ``|s·c - d·D - Θ| < 2**62 + 2**57 + 2**58 < 2**63``: nothing overflows.

The loss is independent of the depth and of ``θ`` (which shifts every ``Y'`` alike), as in
the paper. :func:`split_rule` solves ``k · loss(λ) <= ε_tree`` for ``λ`` (``k`` the
sensitivity, by group privacy for ``k`` sites per individual or ``replace``), in floats with
the loss raised by a relative ``1e-9``: far more than its float evaluation error and the
relative ``2**-53`` between the binary ``ε_tree`` and the decimal a budget charges for it
(:func:`~dpatlas.core.accounting.cost.exact_epsilon`).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from dpatlas.core.noise.discrete_laplace import rational_scale, sample_discrete_laplace
from dpatlas.core.rng import RandomSource
from dpatlas.core.validation import check_epsilon, check_positive_int

__all__ = ["MAX_THETA", "SplitRule", "split_rule"]

_MARGIN = 1e-9
MAX_LATTICE = 1024
"""Finest lattice, ``1/1024`` of a count (the default), for exact int64 biased counts (point 4)."""
MAX_THETA = 2.0**48
"""Largest ``|θ|`` in counts, so that every biased count is exact in int64 (point 4 above):
far more sites than any data set holds, so no useful threshold lies beyond it."""
MAX_THETA_LEVELS = 64
"""Upper limit of ``theta_levels``, a sanity bound: twice the depth of a 2**32 × 2**32 grid's
quadtree, so no useful threshold lies further below ``θ = 0``."""


@dataclass(frozen=True)
class SplitRule:
    """Public parameters of PrivTree's split test (all derived from ε_tree, k, β, s)."""

    epsilon: float
    sensitivity: int
    fanout: int
    lattice: int
    scale: tuple[int, int]
    bias: int
    offset: int = 0

    @property
    def lam(self) -> float:
        """λ, the noise scale in counts."""
        return self.scale[0] / self.scale[1] / self.lattice

    @property
    def delta(self) -> float:
        """δ, the bias per level in counts."""
        return self.bias / self.lattice

    @property
    def theta(self) -> float:
        """θ, the split threshold in counts."""
        return self.offset / self.lattice

    def loss(self) -> float:
        """Bound on the privacy loss of a whole tree (proof in the module docstring)."""
        return _loss(self.lam, self.fanout, self.sensitivity, self.bias, self.lattice)

    def biased(self, counts: np.ndarray, depth: int) -> np.ndarray:
        """Biased counts ``B = max(s·c - d·D - Θ, -D)`` in lattice units (int64)."""
        raw = np.asarray(counts, dtype=np.int64) * self.lattice - depth * self.bias - self.offset
        return np.maximum(raw, -self.bias)

    def log_probabilities(self, biased: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact ``log P[B + Z > 0]`` and ``log P[B + Z <= 0]`` (closed forms, float-stable).

        With ``p = e^{-1/t}``: ``P[Z >= m] = p^m / (1 + p)`` for ``m >= 1`` and
        ``P[Z <= -m] = p^m / (1 + p)`` for ``m >= 0``.
        """
        log_p = -self.scale[1] / self.scale[0]
        log_norm = math.log1p(math.exp(log_p))
        b = np.asarray(biased, dtype=np.float64)
        low_tail = np.maximum(1 - b, 0) * log_p - log_norm  # log P[Z >= 1 - B], B <= 0
        high_tail = np.maximum(b, 0) * log_p - log_norm  # log P[Z <= -B], B >= 0
        split = np.where(b <= 0, low_tail, np.log1p(-np.exp(high_tail)))
        stay = np.where(b <= 0, np.log1p(-np.exp(low_tail)), high_tail)
        return split, stay

    def decide(self, counts: np.ndarray, depth: int, source: RandomSource) -> np.ndarray:
        """Noisy split decisions of the nodes at ``depth`` with exact ``counts``."""
        biased = self.biased(counts, depth)
        return biased + sample_discrete_laplace(source, biased.size, self.scale) > 0


def _loss(lam: float, fanout: int, sensitivity: int, bias: int, lattice: int) -> float:
    v = 1 / lam
    if v > 700:  # e^{1/λ} beyond float range: the bound is astronomically large
        return math.inf
    loose = 2 * v + math.expm1(v) / (fanout - 1)
    if bias < lattice:
        return sensitivity * loose
    grow = -math.expm1(-v)  # 1 - e^{-1/λ}
    step = v / lattice  # 1/t
    tight = max(
        v + grow * math.exp(step) * fanout / (fanout - 1),
        step + v + math.expm1(v) / (fanout - 1),
        2 * v + grow * math.exp(step) / (fanout - 1),
    )
    return sensitivity * min(loose, tight)


def _is_real(value: object) -> bool:
    """A real number (Python or numpy), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _bias(lam: float, fanout: int, lattice: int) -> int:
    return math.ceil(lam * math.log(fanout) * lattice * (1 + _MARGIN))


def split_rule(
    epsilon: float,
    *,
    sensitivity: int = 1,
    fanout: int = 4,
    lattice: int = 1024,
    theta: float | None = 0.0,
    theta_levels: float = 1.0,
) -> SplitRule:
    """The split test that costs at most ``epsilon`` for the whole tree, whatever its depth.

    ``theta`` is the public threshold ``θ`` in counts (rounded to the lattice); ``None``
    means ``θ = -theta_levels·δ`` (rounded to the lattice), that many levels of bias below
    the paper's ``θ = 0``: the tree splits deeper at the same cost (docs/dpbench.md measures
    it). ``theta_levels`` (default 1, ``θ = -δ``) is read only when ``theta`` is None.

    Examples
    --------
    >>> rule = split_rule(0.5)
    >>> round(rule.lam, 3), round(rule.delta, 3), rule.loss() <= 0.5, round(7 / 1.5, 3)
    (4.599, 6.377, True, 4.667)
    >>> split_rule(0.5, theta=None).theta == -split_rule(0.5).delta
    True
    >>> round(split_rule(0.5, theta=None, theta_levels=1.5).theta / rule.delta, 3)
    -1.5
    """
    eps = check_epsilon(epsilon, "epsilon_tree")
    k = check_positive_int(sensitivity, "sensitivity")
    beta = check_positive_int(fanout, "fanout", minimum=2)
    s = check_positive_int(lattice, "lattice")
    if s > MAX_LATTICE:
        raise ValueError(
            f"lattice must be at most {MAX_LATTICE} (so biased counts stay exact in int64), "
            f"got {s!r}"
        )
    # not math.isfinite: it raises OverflowError on an int beyond the floats (10**400)
    if theta is not None and not (_is_real(theta) and theta == theta and abs(theta) != math.inf):
        raise ValueError(f"theta must be a finite number of counts or None, got {theta!r}")
    if theta is not None and abs(theta) > MAX_THETA:
        raise ValueError(
            f"theta must be at most 2**48 counts in size (more sites than any map holds), got "
            f"{theta!r}; a threshold that far from 0 either never or always splits: use "
            "theta_levels for a threshold below 0"
        )
    if not (_is_real(theta_levels) and 0 <= theta_levels <= MAX_THETA_LEVELS):
        raise ValueError(
            f"theta_levels must be a number in [0, {MAX_THETA_LEVELS}] (levels of bias below "
            f"θ = 0), got {theta_levels!r}"
        )

    def too_big(lam: float) -> bool:
        return _loss(lam, beta, k, _bias(lam, beta, s), s) * (1 + _MARGIN) > eps

    low, high = 1e-6, 1.0
    while too_big(high):
        low, high = high, 2 * high
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if too_big(mid) else (low, mid)
    scale = rational_scale(high * s)
    lam = scale[0] / scale[1] / s
    bias = _bias(lam, beta, s)
    offset = int(-round(theta_levels * bias) if theta is None else round(theta * s))
    rule = SplitRule(eps, k, beta, s, scale, bias, offset)
    if rule.loss() * (1 + _MARGIN) > eps:  # the rational scale rounded λ down: refuse
        raise ValueError(f"epsilon_tree={eps!r} gives no exact split scale; use another value")
    return rule
