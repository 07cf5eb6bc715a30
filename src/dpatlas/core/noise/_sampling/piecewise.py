"""Exact sampler of the piecewise-Laplace ladder (:mod:`dpatlas.core.noise.local.piecewise_ladder`).

A proposal picks rung ``u`` with ``P(u) ∝ M_u q^u``, ``M_u = 2 J_u + 1`` (exact rungs from
:func:`~dpatlas.core.noise._sampling.rungs.sample_rungs`, fixed-size batches), then one of the
``M_u`` positions uniformly, kept with probability ``q^{j/J_u}`` (exact Bernoulli). Every
round draws at most :data:`~dpatlas.core.noise._sampling.rungs.BATCH` proposals, so the
memory a release needs never depends on the (private) ladder.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from dpatlas.core.noise._sampling.bernoulli import bernoulli_exp_neg
from dpatlas.core.noise._sampling.rungs import BATCH, sample_rungs
from dpatlas.core.noise.local.ladder import CLIP, _starts
from dpatlas.core.rng import RandomSource

__all__ = ["draw_piecewise", "widths_at"]


def draw_piecewise(
    source: RandomSource, widths: np.ndarray, gs: int, ts: tuple[int, int], n: int
) -> np.ndarray:
    """``n`` exact noise values ``y - T`` with ``P ∝ q^ℓ`` (module docstring, Sampling).

    Each round sizes its batch from the expected acceptance of the positions (floats used
    only for the batch size, capped at ``BATCH``) and keeps the first accepted proposals in
    proposal order: i.i.d. from the target.
    """
    t, s = ts
    theta, q = s / t, math.exp(-s / t)
    sizes = 2 * np.append(widths, gs) + 1  # M_u = 2 J_u + 1 positions in rung u (T in rung 0)
    steps = np.diff(np.concatenate([[0], sizes]))
    head = np.arange(min(widths.size, math.ceil(700 / theta)))  # no subnormals; rest < e^-700
    weight, tail = q**head, q ** float(widths.size) / -math.expm1(-theta)
    target = 1 + 2 * float(np.sum(weight * _offset_mass(widths[: head.size], theta)))
    target += 2 * float(_offset_mass(np.array(gs), theta)) * tail
    proposal = float(np.sum(sizes[: head.size] * weight)) + (2 * gs + 1) * tail
    rate = target / proposal
    out = np.zeros(n, dtype=np.int64)
    filled = 0
    while filled < n:
        batch = min(int((n - filled) / rate * 1.2) + 64, BATCH)
        rung = sample_rungs(source, steps, ts, batch, _every)
        width = widths_at(widths, gs, rung)
        pos = source.below((2 * width + 1).astype(np.uint64)).astype(np.int64)
        real = (pos > 0) | (rung == 0)  # position 0 is T in rung 0 and no output elsewhere
        rung, width, pos = rung[real], width[real], pos[real]
        j = (pos + 1) // 2
        den = np.maximum(width, 1)
        keep = bernoulli_exp_neg(source, (s / t) * (j / den), _exponent((s, t), j, den))
        rung, j, pos = rung[keep][: n - filled], j[keep][: n - filled], pos[keep][: n - filled]
        start = _starts(widths, gs, rung + 1)
        offset = np.minimum(start + j, CLIP)
        out[filled : filled + rung.size] = np.where(pos % 2 == 1, offset, -offset) * (pos > 0)
        filled += rung.size
    return out


def _exponent(ts: tuple[int, int], j: np.ndarray, den: np.ndarray) -> Callable[[int], Fraction]:
    """The exact ``γ_i = (s/t) j_i / den_i`` of Bernoulli(exp(-γ_i)) (Python integers: no
    int64 overflow), for the rare draws the float estimate leaves ambiguous."""

    def exact(i: int) -> Fraction:
        return Fraction(ts[1] * int(j[i]), ts[0] * int(den[i]))

    return exact


def widths_at(widths: np.ndarray, gs: int, rung: np.ndarray) -> np.ndarray:
    """``J_u`` for rung indices ``u >= 0`` (``GS`` after the array)."""
    return np.where(rung < widths.size, widths[np.minimum(rung, widths.size - 1)], gs)


def _offset_mass(width: np.ndarray, theta: float) -> np.ndarray:
    """``g(w) = Σ_{j=1}^{w} e^{-θ j/w}`` (0 at ``w = 0``), in floats: for batch sizes only."""
    w = np.maximum(np.asarray(width, dtype=np.float64), 1.0)
    with np.errstate(over="ignore"):  # e^{θ/w} = inf: the mass is 0
        return np.where(np.asarray(width) > 0, -math.expm1(-theta) / np.expm1(theta / w), 0.0)


def _every(rung: np.ndarray) -> np.ndarray:
    return np.ones(rung.shape, dtype=bool)
