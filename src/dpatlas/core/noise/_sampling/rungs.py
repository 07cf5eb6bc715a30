"""Exact rungs of the ladder mechanism, drawn in fixed-size batches for every ladder.

Target (:mod:`dpatlas.core.noise.local.ladder`): ``P(r) ∝ N_r q^r`` with ``q = exp(-s/t)``, ``N_0 = 1``
and ``N_r = 2 I_{r-1}`` (``2 GS`` after the ladder). With ``M_r = max(1, N_r)`` (non-decreasing)
and ``ΔM_k = M_k - M_{k-1} >= 0``, ``Σ_r M_r q^r = Σ_k ΔM_k q^k / (1 - q)``, so a rung with
``P(r) ∝ M_r q^r`` is ``k + G``, ``P(k) ∝ ΔM_k q^k`` and ``G`` geometric of ratio ``q``; the
rung is kept when it is not empty (``N_r = M_r`` or 0), which leaves ``P(r) ∝ N_r q^r``.

``k`` is drawn by rejection from an envelope ``e_k >= ΔM_k q^k`` (every accepted proposal then
has exactly the law ``∝ ΔM_k q^k``):

* *one block* (``e_k = T q^k``, ``T = max ΔM``): ``k`` geometric, kept when
  ``below(T) < ΔM_k``. Its acceptance rate ``(1 - q) Σ ΔM_k q^k / T`` collapses when a large
  step sits where the geometric puts little mass: the 10-star ladder of a 316-leaf star
  steps from 1 to ``1.5·10**17`` at ``k = 1``, and at ε = 1000 (``q = e^-500``) the rate is
  ``7·10**-18``; the old sampler sized one array by ``1/rate`` and raised MemoryError, or not,
  depending on the private ladder;
* *blocks*, used when the one-block rate is below 1/64: a singleton block per ``k < 64``
  (weight ``ΔM_k q^k``, always kept) and one block for the rest (``e_k = T_rest q^k``). The
  block is chosen exactly by inversion (:mod:`.inversion`) against thresholds bounded with
  interval arithmetic (``q^k`` by :func:`~.inversion.exp_bounds`; a term below
  ``2**-(bits + 64)`` is bounded by ``[0, 2**-(bits + 64)]``, rigorously, from ``λ = s/t``;
  when every later block is that small, their total is bounded below by the first one's
  ``2**-⌈kλ log2 e⌉``, so a threshold next to 1 is still bounded strictly below 1); in
  the rest block ``k`` is a geometric truncated to the block, exactly (a geometric until it
  falls inside, or a uniform ``U`` kept when a geometric is ``>= U``, whichever keeps at
  least half).

Memory: every round draws at most :data:`BATCH` proposals, whatever the ladder, so whether a
release succeeds never depends on the data. The number of rounds does (timing is not hidden,
as the ladder module says): at most ``1/rate`` proposals per rung are expected, with
``rate >= 1/64`` for the one-block sampler.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from dpatlas.core.noise._sampling.dlap import sample_discrete_laplace
from dpatlas.core.noise._sampling.inversion import build_inversion, exp_bounds, sample_index
from dpatlas.core.rng import RandomSource

__all__ = ["BATCH", "sample_rungs", "steps_of"]

BATCH = 1 << 16
"""Proposals drawn per round: the sampler's memory bound."""

SINGLETONS = 64
_MIN_RATE = 1 / 64
_LN2_UP = Fraction(6932, 10000)  # > ln 2
_LOG2E_UP = Fraction(14427, 10000)  # > log2(e): e^-x >= 2^-ceil(x · 1.4427)
_FIXED = 256  # bits of the fixed point that settles the thresholds first


def geometric(src: RandomSource, size: int, ts: tuple[int, int]) -> np.ndarray:
    """``size`` exact geometrics on ``{0, 1, ...}`` with ratio ``q = exp(-s/t)``.

    From the core's exact discrete Laplace ``Z``: ``Z`` if ``Z >= 0`` else ``-Z - 1``.
    """
    z = sample_discrete_laplace(src, size, ts)
    return np.where(z >= 0, z, -z - 1)


def steps_of(lad: np.ndarray, gs: int) -> np.ndarray:
    """``ΔM_k`` for ``k = 0 .. L + 1`` (``M_r = max(1, N_r)``, constant ``2 GS`` after)."""
    return np.diff(np.concatenate([[0, 1], np.maximum(1, 2 * np.append(lad, gs))]))


def _one_block_rate(steps: np.ndarray, ts: tuple[int, int]) -> float:
    """The one-block acceptance rate ``(1 - q) Σ ΔM_k q^k / max ΔM`` (a float: timing only)."""
    q = math.exp(-ts[1] / ts[0])
    head = np.arange(min(steps.size, math.ceil(700 * ts[0] / ts[1])))  # no subnormals: slow
    return float(np.sum(steps[: head.size] * q**head)) * (1 - q) / float(steps.max())


def sample_rungs(
    src: RandomSource,
    steps: np.ndarray,
    ts: tuple[int, int],
    n: int,
    keep: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """``n`` exact rungs ``r = k + G`` kept where ``keep(r)`` (module docstring).

    ``steps`` is :func:`steps_of` of the ladder, ``ts`` the rational scale ``t/s`` of ``q``,
    ``keep`` marks the non-empty rungs.
    """
    propose = _one_block if _one_block_rate(steps, ts) >= _MIN_RATE else _Blocks(steps, ts)
    out = np.zeros(n, dtype=np.int64)
    filled = 0
    while filled < n:
        k = propose(src, steps, ts)
        r = k + geometric(src, k.size, ts)
        r = r[keep(r)][: n - filled]
        out[filled : filled + r.size] = r
        filled += r.size
    return out


def _one_block(src: RandomSource, steps: np.ndarray, ts: tuple[int, int]) -> np.ndarray:
    k = geometric(src, BATCH, ts)
    k = k[k < steps.size]
    return k[src.below(int(steps.max()), size=k.size) < steps[k].astype(np.uint64)]


class _Blocks:
    """Singleton blocks for ``k < 64``, one block for the rest; the block chosen by inversion."""

    def __init__(self, steps: np.ndarray, ts: tuple[int, int]) -> None:
        self.lam = Fraction(ts[1], ts[0])  # q = exp(-lam)
        self.head = min(SINGLETONS, steps.size)
        rest = steps[self.head :]
        self.width = int(rest.size)
        self.top = int(rest.max()) if rest.size and rest.max() > 0 else 0
        self.weights = [int(v) for v in steps[: self.head]]
        self._cache: dict[int, list[tuple[Fraction, Fraction]]] = {}
        count = self.head + (1 if self.top else 0)
        floors = [self._first_floor(j) for j in range(count - 1)]
        self.inversion = build_inversion(self._threshold, count - 1, floors=floors)
        self.p_geometric_inside = 1 - math.exp(-float(self.lam) * self.width)

    def _power(self, k: int, factor: int, bits: int) -> tuple[Fraction, Fraction]:
        """Bounds on ``factor · q^k``; ``[0, 2**-(bits+64)]`` when provably below it."""
        if factor == 0:
            return Fraction(0), Fraction(0)
        if k * self.lam >= (bits + 64 + factor.bit_length()) * _LN2_UP:
            return Fraction(0), Fraction(1, 1 << (bits + 64))
        lo, hi = exp_bounds(-k * self.lam, math.ceil(bits * 0.302) + 12)
        return factor * lo, factor * hi

    def _terms(self, bits: int) -> list[tuple[Fraction, Fraction]]:
        if bits in self._cache:
            return self._cache[bits]
        terms = [self._power(k, w, bits) for k, w in enumerate(self.weights)]
        if self.top:
            start_lo, start_hi = self._power(self.head, self.top, bits)
            tail_lo, tail_hi = self._power(self.width, 1, bits)
            q_lo, q_hi = self._power(1, 1, bits)
            # T q^K0 (1 - q^m) / (1 - q), every factor positive
            terms.append(
                (start_lo * (1 - tail_hi) / (1 - q_lo), start_hi * (1 - tail_lo) / (1 - q_hi))
            )
        self._cache[bits] = terms
        return terms

    def _threshold(self, j: int, bits: int) -> tuple[Fraction, Fraction]:
        """Bounds on ``C_j = Σ_{b <= j} w_b / Σ_b w_b``."""
        terms = self._terms(bits)
        low_in = sum((lo for lo, _ in terms[: j + 1]), Fraction(0))
        high_in = sum((hi for _, hi in terms[: j + 1]), Fraction(0))
        low_out = sum((lo for lo, _ in terms[j + 1 :]), Fraction(0))
        high_out = sum((hi for _, hi in terms[j + 1 :]), Fraction(0))
        if low_out == 0 and high_out > 0:  # negligible, but not 0: keep C_j strictly below 1
            low_out = self._floor(j + 1)
        return low_in / (low_in + high_out), high_in / (high_in + low_out)

    def _first_floor(self, j: int) -> int | None:
        """``floor(2**64 C_j)`` from the ``bits = 128`` terms in fixed point, or None if unsure.

        The same bounds as :meth:`_threshold`, each term rounded outwards to a multiple of
        ``2**-256`` (``x / (x + y)`` grows with ``x`` and falls with ``y``), except that the
        positive lower bound :meth:`_floor` puts on a negligible rest is not formed (a fraction
        of ``kλ log2 e`` bits: seconds at ε = 10**6): all it decides is that ``C_j < 1``, so
        the floor is at most ``2**64 - 1``. The floor is an integer of ``C_j`` alone, so this
        is the table :func:`~.inversion.build_inversion` would resolve from :meth:`_threshold`.
        """
        terms = self._terms(128)
        low = [(lo.numerator << _FIXED) // lo.denominator for lo, _ in terms]
        high = [-((-hi.numerator << _FIXED) // hi.denominator) for _, hi in terms]
        low_in, high_in = sum(low[: j + 1]), sum(high[: j + 1])
        low_out, high_out = sum(low[j + 1 :]), sum(high[j + 1 :])
        if low_in + high_out == 0 or high_in + low_out == 0:
            return None
        a = (low_in << 64) // (low_in + high_out)
        b = (high_in << 64) // (high_in + low_out)
        if high_out > 0:  # a later block weighs > 0 (its upper bound does): C_j < 1
            b = min(b, (1 << 64) - 1)
        return min(a, (1 << 64) - 1) if a == b else None

    def _floor(self, block: int) -> Fraction:
        """A positive lower bound on the weight of the first non-empty block from ``block`` on.

        Block ``b < 64`` weighs ``ΔM_b q^b >= q^b`` when not empty, the rest block at least
        ``q^64``; and ``q^k = e^{-kλ} >= 2**-⌈kλ log2 e⌉`` (no exponential computed).
        """
        k = (
            next(b for b in range(block, self.head) if self.weights[b] > 0)
            if any(self.weights[block:])
            else self.head
        )
        return Fraction(1, 1 << math.ceil(k * self.lam * _LOG2E_UP))

    def __call__(self, src: RandomSource, steps: np.ndarray, ts: tuple[int, int]) -> np.ndarray:
        block, _ = sample_index(src, self.inversion, BATCH)
        k = block.astype(np.int64)
        rest = np.flatnonzero(block == self.head)
        if rest.size:
            inside = self._truncated(src, rest.size, ts)
            keep = src.below(self.top, size=rest.size) < steps[self.head + inside].astype(np.uint64)
            k[rest] = np.where(keep, self.head + inside, -1)
        return k[k >= 0]

    def _truncated(self, src: RandomSource, size: int, ts: tuple[int, int]) -> np.ndarray:
        """``size`` geometrics conditioned to ``[0, width)``, exactly."""
        out = np.empty(0, dtype=np.int64)
        while out.size < size:
            if self.p_geometric_inside >= 0.5:
                g = geometric(src, 2 * size, ts)
                got = g[g < self.width]
            else:  # q^width > 1/2: a uniform U kept with probability q^U = P(geometric >= U)
                u = src.below(self.width, size=2 * size).astype(np.int64)
                got = u[geometric(src, u.size, ts) >= u]
            out = np.concatenate([out, got])
        return out[:size]
