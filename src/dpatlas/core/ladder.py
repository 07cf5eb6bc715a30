"""Ladder mechanism over the integers (Zhang, Cormode, Procopiuc, Srivastava, Xiao, SIGMOD 2015).

Setting. ``f`` is an integer query with public global sensitivity ``GS``. A *ladder* is a
sequence ``I_0(G) <= I_1(G) <= ...`` of integers in ``[0, GS]``, given as an array whose
entries after the last are ``GS``, such that for all neighbours ``G ~ G'`` and ``t >= 0``

(L1) ``|f(G) - f(G')| <= I_0(G)`` (``I_0`` bounds the local sensitivity), and
(L2) ``I_t(G) <= I_{t+1}(G')`` (the ladder definition of Zhang et al., Sec. 3).

With ``T = f(G)`` and ``u_t = I_0 + ... + I_{t-1}`` (``u_0 = 0``), the *rung* of an output
``y`` is ``0`` for ``y = T`` and otherwise the ``t >= 1`` with ``u_{t-1} < |y - T| <= u_t``;
rung ``t`` holds ``N_t = 2 I_{t-1}`` integers (``N_0 = 1``). The mechanism releases ``y`` with
probability ``exp(-ε r(y) / 2) / Z``: the exponential mechanism with quality ``-rung``.

Privacy (the ε-DP theorem of Zhang et al., Sec. 3, proved here in full). Claim:
``|r_G(y) - r_G'(y)| <= 1``. If ``r_G(y) = t`` then ``|y - T| <= u_t(G)``, and by (L1) at
``G'`` and (L2), ``|y - T'| <= u_t(G) + I_0(G') <= I_0(G') + Σ_{i<t} I_{i+1}(G') = u_{t+1}(G')``,
so ``r_G'(y) <= t + 1``; the other direction is symmetric. Hence the quality has sensitivity 1,
``Z(G') <= e^{ε/2} Z(G)``, and ``P_G(y) / P_G'(y) <= e^{ε/2} e^{ε/2} = e^ε`` (McSherry–Talwar
2007). ``Z`` is finite: rung ``t`` has at most ``2 GS`` outputs of weight ``e^{-εt/2}``.
Empty rungs (``I_{t-1} = 0``) are allowed.

Sampling is exact (integers only, no floating-point ``exp``/``log`` on the path): with
``q = exp(-1/b)``, ``b = t/s >= 2/ε`` the core's rational scale (so the mechanism runs at
``ε' = 2/b <= ε``, equal to ε when ``2/ε`` is a small fraction such as 2 or 4), put
``M_r = max(1, N_r)`` (non-decreasing) and ``ΔM_r = M_r - M_{r-1} >= 0``. Since
``Σ_r M_r q^r = Σ_k ΔM_k q^k / (1 - q)``, a rung with ``P(r) ∝ M_r q^r`` is ``k + G`` where
``P(k) ∝ ΔM_k q^k`` (a geometric proposal accepted when ``below(max ΔM) < ΔM_k``) and ``G`` is
geometric with ratio ``q``; the rung is then kept when it is not empty (``N_r = M_r`` or 0), so
``P(r) ∝ N_r q^r``. Geometric draws come from the core's exact discrete Laplace ``Z`` as
``Z`` if ``Z >= 0`` else ``-Z - 1``. Inside rung ``r`` the offset is ``u_{r-1} + 1 + U`` with
``U`` uniform on ``[0, I_{r-1})`` (forgetting ``u_{r-1}`` is not DP), then a fair sign.
The running time depends on the (private) ladder; dpatlas does not hide timing.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpatlas.core.budget import Budget
from dpatlas.core.discrete_laplace import rational_scale, sample_discrete_laplace
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource, RngLike, get_source
from dpatlas.core.validation import as_int_array, check_epsilon, check_positive_int

__all__ = [
    "check_value",
    "clamp_release",
    "ladder_halfwidth",
    "ladder_mechanism",
    "ladder_pmf",
    "ladder_probabilities",
    "sample_ladder",
    "sample_ladder_rungs",
]

CLIP = 2**62
"""Noise magnitudes are capped here; releases are clamped to ``±CLIP/2`` (see clamp_release)."""


def check_value(value: Any) -> int:
    """The exact answer as an int, checked to be an integer scalar with ``|value| < 2**61``."""
    arr = as_int_array(value, "value")
    if arr.ndim != 0 or abs(int(arr)) >= CLIP // 2:
        raise ValueError(f"value must be one integer below 2**61 in magnitude, got {value!r}")
    return int(arr)


def clamp_release(value: int, noise: np.ndarray) -> np.ndarray:
    """``clip(value + noise, ±2**61)``: post-processing that makes the ``±2**62`` noise cap exact.

    For ``|value| < 2**61`` (see :func:`check_value`), clamping ``value + noise`` at ``±2**61``
    gives the same result whether or not ``|noise|`` was first capped at ``2**62``, so a capped
    sampler releases exactly a post-processing of the uncapped mechanism.

    Examples
    --------
    >>> clamp_release(5, np.array([-2, 2**62])).tolist()
    [3, 2305843009213693952]
    """
    return np.clip(np.asarray(noise, dtype=np.int64) + int(value), -CLIP // 2, CLIP // 2)


def _ladder(ladder: Any, global_sensitivity: Any) -> tuple[np.ndarray, int]:
    lad = as_int_array(ladder, "ladder")
    if lad.ndim != 1 or lad.size == 0:
        raise ValueError(f"ladder must be a non-empty 1-d array of integers, got shape {lad.shape}")
    gs = int(lad[-1]) if global_sensitivity is None else int(as_int_array(global_sensitivity))
    if lad.min() < 0 or np.any(np.diff(lad) < 0) or lad.max() > gs:
        raise ValueError(
            f"ladder must be non-decreasing integers in [0, global_sensitivity={gs}], got "
            f"{lad[:8].tolist()}{'...' if lad.size > 8 else ''}"
        )
    return lad, gs


def _ratio(epsilon: float) -> tuple[int, int]:
    """The exact rational scale ``t/s >= 2/ε`` of the geometric steps: ``q = exp(-s/t)``."""
    return rational_scale(Fraction(2) / Fraction(check_epsilon(epsilon)))


def _geometric(src: RandomSource, size: int, ts: tuple[int, int]) -> np.ndarray:
    z = sample_discrete_laplace(src, size, ts)
    return np.where(z >= 0, z, -z - 1)


def _sizes(lad: np.ndarray, gs: int, r: np.ndarray) -> np.ndarray:
    """``I_{r-1}`` for each rung ``r`` (0 for ``r = 0``; ``GS`` after the array)."""
    idx = np.asarray(r, dtype=np.int64) - 1
    out = np.where(idx >= lad.size, gs, 0).astype(np.int64)
    inside = (idx >= 0) & (idx < lad.size)
    out[inside] = lad[idx[inside]]
    return out


def _starts(lad: np.ndarray, gs: int, r: np.ndarray) -> np.ndarray:
    """``u_{r-1}`` for rungs ``r >= 1``, capped at ``CLIP``."""
    cum = np.concatenate([[0], np.cumsum(lad)])
    idx = np.asarray(r, dtype=np.int64) - 1
    out = cum[np.minimum(idx, lad.size)]
    extra = idx - lad.size
    far = extra > 0
    if far.any():
        room = (CLIP - int(cum[-1])) // gs
        out[far] = np.where(extra[far] > room, CLIP, cum[-1] + np.minimum(extra[far], room) * gs)
    return out


def _log_norm(lad: np.ndarray, gs: int, log_q: float) -> float:
    """``log Z``: rungs ``0 .. L`` summed, plus the geometric tail ``2 GS q^(L+1) / (1 - q)``."""
    head = _log_weights(lad, gs, log_q, np.arange(lad.size + 1))
    top = float(head.max())
    total = top + math.log(float(np.exp(head - top).sum()))
    if gs == 0:
        return total
    tail = math.log(2 * gs) + (lad.size + 1) * log_q - math.log(-math.expm1(log_q))
    return float(np.logaddexp(total, tail))


def _log_weights(lad: np.ndarray, gs: int, log_q: float, r: np.ndarray) -> np.ndarray:
    """``log(N_r q^r)`` (``-inf`` for empty rungs)."""
    count = np.where(r == 0, 1.0, 2.0 * _sizes(lad, gs, r))
    with np.errstate(divide="ignore"):
        return np.log(count) + r * log_q


def ladder_probabilities(
    ladder: Any, epsilon: float, max_rung: int, *, global_sensitivity: int | None = None
) -> np.ndarray:
    """Exact probabilities of rungs ``0 .. max_rung`` under the ladder mechanism (in log space).

    ``ladder[t]`` is ``I_t``; entries after the array are ``global_sensitivity`` (default: the
    last entry). The probabilities are those of the sampler, i.e. at ``ε' = 2/b`` with ``b`` the
    core's rational scale ``>= 2/ε`` (``ε' = ε`` for ε = 1, 0.5, 2, ...).

    Examples
    --------
    >>> ladder_probabilities([1, 2, 2], 2.0, 3).round(4).tolist()  # GS = 2 after the array
    [0.3858, 0.2838, 0.2088, 0.0768]
    """
    lad, gs = _ladder(ladder, global_sensitivity)
    t, s = _ratio(epsilon)
    log_q = -s / t
    r = np.arange(check_positive_int(max_rung, "max_rung", minimum=0) + 1)
    return np.exp(_log_weights(lad, gs, log_q, r) - _log_norm(lad, gs, log_q))


def ladder_pmf(
    k: Any, ladder: Any, epsilon: float, *, global_sensitivity: int | None = None
) -> np.ndarray:
    """Exact ``P(noise = k)`` of the ladder mechanism (every output of rung ``r`` has ``q^r / Z``).

    Examples
    --------
    >>> ladder_pmf([0, 1, -1, 2], [1, 2, 2], 2.0).round(4).tolist()
    [0.3858, 0.1419, 0.1419, 0.0522]
    """
    d = np.abs(as_int_array(k, "k"))
    lad, gs = _ladder(ladder, global_sensitivity)
    t, s = _ratio(epsilon)
    log_q = -s / t
    cum = np.concatenate([[0], np.cumsum(lad)])
    rung = np.searchsorted(cum, d, side="left").astype(np.int64)
    far = d > cum[-1]
    if gs == 0:
        return np.where(d == 0, 1.0, 0.0)
    rung[far] = lad.size + -((cum[-1] - d[far]) // gs)
    return np.exp(rung * log_q - _log_norm(lad, gs, log_q))


def sample_ladder_rungs(
    source: RandomSource,
    ladder: Any,
    epsilon: float,
    size: int,
    *,
    global_sensitivity: int | None = None,
) -> np.ndarray:
    """Draw ``size`` exact rungs with ``P(r) ∝ N_r exp(-ε' r / 2)`` (see the module docstring).

    Examples
    --------
    >>> from dpatlas.core.rng import get_source
    >>> r = sample_ladder_rungs(get_source(0), [1, 2, 2], 2.0, 100_000)
    >>> round(float((r == 0).mean()), 2)  # exact: 0.3858
    0.38
    """
    lad, gs = _ladder(ladder, global_sensitivity)
    ts = _ratio(epsilon)
    n = check_positive_int(size, "size", minimum=0)
    out = np.zeros(n, dtype=np.int64)
    if gs == 0:
        return out
    steps = np.diff(np.concatenate([[0, 1], np.maximum(1, 2 * np.append(lad, gs))]))
    top = int(steps.max())
    q = math.exp(-ts[1] / ts[0])
    with np.errstate(under="ignore"):
        rate = float(np.sum(steps * q ** np.arange(steps.size))) * (1 - q) / top
    filled = 0
    while filled < n:
        k = _geometric(source, int((n - filled) / rate * 1.1) + 16, ts)
        k = k[k < steps.size]
        k = k[source.below(top, size=k.size) < steps[k].astype(np.uint64)]
        r = k + _geometric(source, k.size, ts)
        r = r[(r == 0) | (_sizes(lad, gs, r) > 0)][: n - filled]
        out[filled : filled + r.size] = r
        filled += r.size
    return out


def _place(source: RandomSource, lad: np.ndarray, gs: int, rungs: np.ndarray) -> np.ndarray:
    """Noise for each rung: ``±(u_{r-1} + 1 + U)``, ``U`` uniform on ``[0, I_{r-1})``."""
    noise = np.zeros(rungs.size, dtype=np.int64)
    hit = np.flatnonzero(rungs > 0)
    width = _sizes(lad, gs, rungs[hit]).astype(np.uint64)
    offset = _starts(lad, gs, rungs[hit]) + 1 + source.below(width).astype(np.int64)
    offset = np.minimum(offset, CLIP)
    noise[hit] = np.where(source.bits(hit.size), -offset, offset)
    return noise


def sample_ladder(
    source: RandomSource,
    ladder: Any,
    epsilon: float,
    size: int,
    *,
    global_sensitivity: int | None = None,
) -> np.ndarray:
    """Draw ``size`` exact ladder-mechanism noise values (output minus ``T``), int64.

    Magnitudes are capped at ``2**62`` (see :func:`clamp_release`).

    Examples
    --------
    >>> from dpatlas.core.rng import get_source
    >>> z = sample_ladder(get_source(0), [1, 2, 2], 2.0, 100_000)
    >>> z.dtype, round(float((z == 1).mean()), 2), round(float((z == 2).mean()), 2)
    (dtype('int64'), 0.14, 0.05)
    """
    lad, gs = _ladder(ladder, global_sensitivity)
    rungs = sample_ladder_rungs(source, lad, epsilon, size, global_sensitivity=gs)
    return _place(source, lad, gs, rungs)


def ladder_halfwidth(
    upper: Any, lower: Any, epsilon: float, level: float, *, global_sensitivity: int
) -> int:
    """Half-width ``h`` with ``P(|noise| > h) <= 1 - level`` for *every* ladder between bounds.

    For ladders ``lower <= I <= upper`` (pointwise, both extended by ``GS``) and any ``t``:
    ``P(R > t) = A / (A + B)`` with ``A = Σ_{r>t} N_r q^r`` and ``B = Σ_{r<=t} N_r q^r``;
    ``x / (x + y)`` grows with ``x`` and falls with ``y``, so ``P(R > t) <= Ã / (Ã + B_lower)``
    (``Ã`` from ``upper``). On ``R <= t``, ``|noise| <= u_t(I) <= u_t(upper)``. The smallest
    ``t`` whose bound is ``<= 1 - level`` gives ``h = u_t(upper)``. Computed from public or
    already private inputs only (e.g. ladders built on a noisy upper bound of a statistic).

    Examples
    --------
    >>> ladder_halfwidth([3, 4, 5], [3, 3, 4, 4, 5], 1.0, 0.9, global_sensitivity=5)
    27
    """
    up, gs = _ladder(upper, global_sensitivity)
    low, _ = _ladder(lower, global_sensitivity)
    gamma = 1.0 - float(level)
    if not 0.0 < gamma < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    t, s = _ratio(epsilon)
    log_q = -s / t
    extra = (math.log(2 * gs + 2) - math.log(gamma) - math.log(-math.expm1(log_q)) + 1) / -log_q
    r = np.arange(max(up.size, low.size) + 2 + math.ceil(extra))
    if (_sizes(low, gs, r) > _sizes(up, gs, r)).any():
        raise ValueError("lower must not exceed upper at any rung")
    wu, wl = _log_weights(up, gs, log_q, r), _log_weights(low, gs, log_q, r)
    tail = math.log(2 * gs) + r.size * log_q - math.log(-math.expm1(log_q)) if gs else -np.inf
    above = np.logaddexp.accumulate(np.append(wu, tail)[::-1])[::-1][1:]
    below = np.logaddexp.accumulate(wl)
    bound = np.exp(above - np.logaddexp(above, below))
    rung = int(np.argmax(bound <= gamma * (1 - 1e-9)))
    return int(np.sum(_sizes(up, gs, np.arange(1, rung + 1))))


def ladder_mechanism(
    value: int,
    ladder: Any,
    *,
    epsilon: float,
    global_sensitivity: int | None = None,
    rng: RngLike = None,
    budget: Budget | None = None,
    size: int | None = None,
    mechanism: str = "ladder",
    note: str = "",
    metadata: dict[str, Any] | None = None,
) -> Release:
    """Release the integer ``value`` with the ladder mechanism (pure ε-DP).

    Parameters
    ----------
    value : int
        The exact answer ``T = f(G)``, ``|T| < 2**61``.
    ladder : array_like of int
        ``I_0, I_1, ...`` of ``G`` satisfying (L1) and (L2) of the module docstring; private.
    epsilon : float
        Privacy cost, > 0.
    global_sensitivity : int, optional
        Public ``GS``, the value of the ladder after its last entry (default: the last entry).
    rng : None, int or numpy.random.Generator
        ``None`` (default) for secure noise; a seed makes it reproducible (tests and teaching
        only; recorded as ``seeded=True``).
    budget : Budget, optional
        Debited once, before any noise is drawn; an overspend raises and draws nothing.
    size : int, optional
        Draw ``size`` independent releases at once (auditing, benchmarks); they cost
        ``size * epsilon`` together, which is what is debited and recorded.
    mechanism, note : str
        Labels for the release and the budget history.
    metadata : dict, optional
        Public facts to record; never put data-dependent values here.

    Returns
    -------
    Release
        ``scale`` and ``sensitivity`` are None: the noise scale depends on the (private)
        ladder, so ``confidence_interval()`` raises unless the caller provides a private bound.

    Examples
    --------
    >>> rel = ladder_mechanism(100, [2, 3, 3, 4], epsilon=1.0, rng=1)
    >>> rel.mechanism, rel.epsilon, rel.scale, rel.seeded
    ('ladder', 1.0, None, True)
    >>> abs(rel.value - 100) < 40
    True
    """
    x = check_value(value)
    lad, gs = _ladder(ladder, global_sensitivity)
    eps = check_epsilon(epsilon)
    count = 1 if size is None else check_positive_int(size, "size")
    src = get_source(rng)
    if budget is not None:
        budget.spend(eps * count, 0.0, mechanism=mechanism, note=note)
    noisy = clamp_release(x, sample_ladder(src, lad, eps, count, global_sensitivity=gs))
    return Release(
        value=int(noisy[0]) if size is None else noisy,
        epsilon=eps * count,
        delta=0.0,
        mechanism=mechanism,
        sensitivity=None,
        scale=None,
        noise="ladder",
        seeded=src.seeded,
        rho=(eps * count) ** 2 / 2,
        metadata=dict(metadata or {}),
    )
