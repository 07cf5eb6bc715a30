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
``P(k) ∝ ΔM_k q^k`` and ``G`` is
geometric with ratio ``q``; the rung is then kept when it is not empty (``N_r = M_r`` or 0), so
``P(r) ∝ N_r q^r``. ``k`` is drawn by exact rejection in fixed-size batches
(:mod:`dpatlas.core.noise._sampling.rungs`: a geometric proposal accepted when
``below(max ΔM) < ΔM_k``, or, when a large early step makes that slow, blocks chosen by exact
inversion), so the memory a release needs never depends on the ladder. Geometric draws come
from the core's exact discrete Laplace ``Z`` as ``Z`` if ``Z >= 0`` else ``-Z - 1``. Inside
rung ``r`` the offset is ``u_{r-1} + 1 + U`` with ``U`` uniform on ``[0, I_{r-1})``
(forgetting ``u_{r-1}`` is not DP), then a fair sign. Running time depends on the (private)
ladder: timing is not hidden.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import Charge, open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.noise._sampling.rungs import sample_rungs, steps_of
from dpatlas.core.noise.discrete_laplace import rational_scale
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource, RngLike, get_source
from dpatlas.core.validation import as_int_array, check_epsilon, check_positive_int

__all__ = [
    "check_ladder",
    "check_value",
    "clamp_release",
    "ladder_cost",
    "ladder_mechanism",
    "noisy_release",
    "rung_sizes",
    "sample_ladder_rungs",
    "step_scale",
]

CLIP = 2**62
"""Noise magnitudes are capped here; releases are clamped to ``±CLIP/2`` (see clamp_release)."""


def check_value(value: Any) -> int:
    """The exact answer as one int, clamped to ``|value| <= 2**61 - 1``.

    Not an integer scalar is refused (a type check). A magnitude of ``2**61`` or more is
    clamped, not refused: a refusal would reveal whether the private answer is that large,
    while clamping ``f`` to ``[-L, L]`` keeps (L1) ``|f(G) - f(G')| <= I_0(G)`` and (S1)
    (clamping never moves two values apart) and leaves the ladder's (L2), the smooth bound's
    (S2) untouched: the release is then the mechanism on the clamped ``f``, at the same ε.

    Examples
    --------
    >>> check_value(7), check_value(2**70) == 2**61 - 1
    (7, True)
    """
    arr = as_int_array(value, "value", saturate=CLIP // 2 - 1)
    if arr.ndim != 0:
        raise ValueError(f"value must be one integer, got shape {arr.shape}: {value!r}")
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


def check_ladder(ladder: Any, global_sensitivity: Any = None) -> tuple[np.ndarray, int]:
    """``(ladder as int64, GS)`` after checking: non-empty, non-decreasing, in ``[0, GS]``."""
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


def step_scale(epsilon: float) -> tuple[int, int]:
    """The exact rational ``t/s >= 2/ε`` of the rung weights ``q^r``, ``q = exp(-s/t)`` (``ε' = 2s/t``)."""
    return rational_scale(2 / exact_epsilon(check_epsilon(epsilon)))


def rung_sizes(lad: np.ndarray, gs: int, r: np.ndarray) -> np.ndarray:
    """``I_{r-1}``: the outputs on each side of rung ``r`` (0 for ``r = 0``; ``GS`` after the array)."""
    idx = np.asarray(r, dtype=np.int64) - 1
    out = np.where(idx >= lad.size, gs, 0).astype(np.int64)
    inside = (idx >= 0) & (idx < lad.size)
    out[inside] = lad[idx[inside]]
    return out


def _depths(lad: np.ndarray, cap: int = CLIP) -> np.ndarray:
    """``u_0, u_1, ..., u_L`` (``u_t = I_0 + ... + I_{t-1}``), exact below ``cap``, else ``cap``.

    An int64 ``cumsum`` would wrap past ``2**63`` (the 10-star ladder of a 420-node star sums
    to about ``4·10**20``) and start far rungs next to the answer; every offset at or beyond
    ``CLIP`` is capped to ``CLIP`` anyway (:func:`clamp_release`), so saturating is exact. The
    exact laws (``cap = 2**63 - 1``) saturate at the largest int64, beyond every distance.
    """
    if float(np.sum(lad, dtype=np.float64)) < 2.0**62:  # the exact total is below 2**63
        cum = np.cumsum(lad)
    else:
        cum = np.minimum(np.cumsum(lad.astype(object)), cap).astype(np.int64)
    return np.concatenate([[0], np.minimum(cum, cap)])


def _starts(lad: np.ndarray, gs: int, r: np.ndarray) -> np.ndarray:
    """``u_{r-1}`` for rungs ``r >= 1``, capped at ``CLIP``."""
    cum = _depths(lad)
    idx = np.asarray(r, dtype=np.int64) - 1
    out = cum[np.minimum(idx, lad.size)]
    extra = idx - lad.size
    far = extra > 0
    if far.any():
        room = (CLIP - int(cum[-1])) // gs
        out[far] = np.where(extra[far] > room, CLIP, cum[-1] + np.minimum(extra[far], room) * gs)
    return out


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
    0.39
    """
    lad, gs = check_ladder(ladder, global_sensitivity)
    return _rungs(source, lad, gs, step_scale(epsilon), check_positive_int(size, "size", minimum=0))


def _rungs(
    source: RandomSource, lad: np.ndarray, gs: int, ts: tuple[int, int], n: int
) -> np.ndarray:
    if gs == 0:
        return np.zeros(n, dtype=np.int64)

    def keep(r: np.ndarray) -> np.ndarray:
        return (r == 0) | (rung_sizes(lad, gs, r) > 0)

    return sample_rungs(source, steps_of(lad, gs), ts, n, keep)


def _place(source: RandomSource, lad: np.ndarray, gs: int, rungs: np.ndarray) -> np.ndarray:
    """Noise for each rung: ``±(u_{r-1} + 1 + U)``, ``U`` uniform on ``[0, I_{r-1})``."""
    noise = np.zeros(rungs.size, dtype=np.int64)
    hit = np.flatnonzero(rungs > 0)
    width = rung_sizes(lad, gs, rungs[hit]).astype(np.uint64)
    # in uint64: a start <= CLIP plus an offset below GS < 2**63 cannot wrap
    start = _starts(lad, gs, rungs[hit]).astype(np.uint64) + np.uint64(1)
    offset = np.minimum(start + source.below(width), np.uint64(CLIP)).astype(np.int64)
    noise[hit] = np.where(source.bits(hit.size), -offset, offset)
    return noise


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

    ``ladder`` (``I_0, I_1, ...``, private) must satisfy (L1)–(L2) of the module docstring;
    ``global_sensitivity`` is the public ``GS`` it continues with (default: its last entry).
    ``budget`` is debited once before any noise (an overspend raises and draws nothing);
    ``size`` draws independent releases that cost ``size * epsilon`` together; ``rng=None``
    is secure, a seed is for tests and teaching only (``seeded=True``); ``metadata`` takes
    public facts only. The release has ``scale=None`` and ``sensitivity=None``: its noise
    scale depends on the data, so ``confidence_interval()`` raises.

    Examples
    --------
    >>> rel = ladder_mechanism(100, [2, 3, 3, 4], epsilon=1.0, rng=1)
    >>> rel.mechanism, rel.epsilon, rel.scale, rel.seeded
    ('ladder', 1.0, None, True)
    >>> abs(rel.value - 100) < 40
    True
    """
    eps = check_epsilon(epsilon)
    count = 1 if size is None else check_positive_int(size, "size")
    charge = open_charge(
        ladder_cost(eps, count),
        budget,
        mechanism=mechanism,
        note=note,
        scales=[2 / exact_epsilon(eps)],  # the rung weights' scale (step_scale)
    )
    x = check_value(value)
    lad, gs = check_ladder(ladder, global_sensitivity)
    src = get_source(rng)
    charge.debit()
    noise = _place(src, lad, gs, _rungs(src, lad, gs, step_scale(eps), count))
    return noisy_release(charge, x, noise, size, src.seeded, "ladder", metadata)


def ladder_cost(epsilon: float, size: int = 1) -> Cost:
    """Privacy map: ``size`` independent ladder releases at ε cost ``size·ε`` (pure).

    Each draw is ε-DP (module docstring; the sampler runs at ``ε' = 2s/t <= ε``), and ``size``
    independent draws compose to ``size·ε`` with zCDP cost ``size·ε²/2``.

    Examples
    --------
    >>> ladder_cost(0.5, 4)
    Cost(epsilon=2.0, delta=0.0, rho=0.5)
    """
    return Cost.pure(epsilon) * check_positive_int(size, "size")


def noisy_release(
    charge: Charge,
    value: int,
    noise: np.ndarray,
    size: int | None,
    seeded: bool,
    noise_name: str,
    metadata: dict[str, Any] | None,
) -> Release:
    """The Release of ``clamp_release(value, noise)`` for a data-dependent scale (``scale=None``).

    Its ε, δ and ρ are those of the debited ``charge`` (all ``noise.size`` draws together).
    """
    return charge.release(
        Release,
        value=int(clamp_release(value, noise)[0]) if size is None else clamp_release(value, noise),
        sensitivity=None,
        scale=None,
        noise=noise_name,
        seeded=seeded,
        metadata=dict(metadata or {}),
    )
