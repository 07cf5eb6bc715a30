"""PrivTree's noisy split decision, on an integer lattice with exact discrete Laplace noise.

A node at depth ``d`` with exact count ``c`` splits when ``b + Z > θ`` (``θ = 0``), with the
biased count ``b = max(c - d·δ, θ - δ)`` (Zhang, Xiao, Xie, SIGMOD 2016). PrivTree's analysis
uses continuous Laplace noise; we use the core's exact discrete Laplace on the lattice
``(1/s)·ℤ`` (``s = lattice``): ``B = max(s·c - d·D, -D)`` with the integer ``D >= s·λ·ln β``,
and ``Z`` discrete Laplace of scale ``t = s·λ`` lattice steps (``P(k) ∝ exp(-|k|/t)``).

Privacy of the tree (one site added, ``D' = D + {x}``; ``λ = t/s``, ``p = e^{-1/t}``).
Only the nodes containing ``x`` change: on that root-to-leaf path every count grows by 1, i.e.
``B`` by ``s`` unless clamped. Write ``F(B) = P[B + Z > 0]``.

1. Every step of ``log F`` is at most ``1/t``: ``F(B + 1) <= e^{1/t} F(B)`` because the
   discrete Laplace pmf is ``1/t``-log-Lipschitz. For ``j >= 2``, ``F(j) = 1 - p^j/(1+p)`` and
   ``log F(j) - log F(j-1) <= p^{j-1}(1-p)``; so every step ``j`` is at most ``p^{j-2}(1-p)``.
   Summing ``s`` steps: a node whose unclamped ``D'``-value is ``Y = s·c' - d·D`` has
   ``log F(B') - log F(B) <= min(1/λ, p^{Y-1}(e^{1/λ} - 1))``, and ``0`` when ``Y <= -D``.
2. Along the path ``Y`` drops by at least ``D`` per level (counts never grow with depth, the
   bias grows by ``D``). Only nodes with ``Y > -D`` cost anything; the deepest has
   ``Y > -D``, the next ``Y > 0``, the ``j``-th above it the integer ``Y >= (j-1)·D + 1``.
   With ``e^{-D/t} <= 1/β``, the split decisions on the path cost at most
   ``2/λ + (e^{1/λ} - 1)·Σ_{j>=2} β^{-(j-1)} = 2/λ + (e^{1/λ} - 1)/(β - 1)``
   in the direction ``P[T | D'] / P[T | D]`` (not splitting is likelier under ``D``, which
   only helps); in the other direction only the path's leaf differs, by at most ``e^{1/λ}``.
3. A node that is one cell of the user's grid, or holds no released cell, is never split, by
   a rule that reads no data: its factor is 1 under every dataset, so the bound holds.

The loss is independent of the depth, as in the paper. Its bound here is a little above the
paper's ``(2β - 1)/((β - 1)λ)`` for small ``λ`` (we could not reproduce the paper's tighter
lemma in closed form), so :func:`split_rule` solves ``k · loss(λ) <= ε_tree`` for ``λ``
(``k`` the sensitivity, by group privacy for ``k`` sites per individual or ``replace``):
``λ`` is 0.2% above ``7/(3ε_tree)`` at ``ε_tree = 0.05``, 2% at 0.5, 3.5% at 1, 24% at 5.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpatlas.core.discrete_laplace import rational_scale, sample_discrete_laplace
from dpatlas.core.rng import RandomSource
from dpatlas.core.validation import check_epsilon, check_positive_int

__all__ = ["SplitRule", "split_rule"]

_MARGIN = 1e-9


@dataclass(frozen=True)
class SplitRule:
    """Public parameters of PrivTree's split test (all derived from ε_tree, k, β, s)."""

    epsilon: float
    sensitivity: int
    fanout: int
    lattice: int
    scale: tuple[int, int]
    bias: int

    @property
    def lam(self) -> float:
        """λ, the noise scale in counts."""
        return self.scale[0] / self.scale[1] / self.lattice

    @property
    def delta(self) -> float:
        """δ, the bias per level in counts."""
        return self.bias / self.lattice

    def loss(self) -> float:
        """Bound on the privacy loss of a whole tree (proof in the module docstring)."""
        return _loss(self.lam, self.fanout, self.sensitivity)

    def biased(self, counts: np.ndarray, depth: int) -> np.ndarray:
        """Biased counts ``B = max(s·c - d·D, -D)`` in lattice units (int64)."""
        raw = np.asarray(counts, dtype=np.int64) * self.lattice - depth * self.bias
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


def _loss(lam: float, fanout: int, sensitivity: int) -> float:
    if 1 / lam > 700:  # e^{1/λ} beyond float range: the bound is astronomically large
        return math.inf
    return sensitivity * (2 / lam + math.expm1(1 / lam) / (fanout - 1))


def split_rule(
    epsilon: float, *, sensitivity: int = 1, fanout: int = 4, lattice: int = 1024
) -> SplitRule:
    """The split test that costs at most ``epsilon`` for the whole tree, whatever its depth.

    Examples
    --------
    >>> rule = split_rule(0.5)
    >>> round(rule.lam, 3), round(rule.delta, 3), rule.loss() <= 0.5
    (4.742, 6.574, True)
    """
    eps = check_epsilon(epsilon, "epsilon_tree")
    k = check_positive_int(sensitivity, "sensitivity")
    beta = check_positive_int(fanout, "fanout", minimum=2)
    s = check_positive_int(lattice, "lattice")
    low, high = 1e-6, 1.0
    while _loss(high, beta, k) * (1 + _MARGIN) > eps:
        low, high = high, 2 * high
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (low, mid) if _loss(mid, beta, k) * (1 + _MARGIN) <= eps else (mid, high)
    scale = rational_scale(high * s)
    lam = scale[0] / scale[1] / s
    bias = math.ceil(lam * math.log(beta) * s * (1 + _MARGIN))
    return SplitRule(eps, k, beta, s, scale, bias)
