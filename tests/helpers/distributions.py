"""Goodness-of-fit tests for samplers: chi-square (integer support) and KS (continuous).

Every test returns a :class:`FitResult` that unpacks as ``(statistic, pvalue, passed)`` and
also checks that the draws look independent: a block of ``w`` consecutive draws that occurs twice
(for instance the same 50,000 draws concatenated twice) fails the test. ``w`` is the smallest
window for which an i.i.d. sample would show a repeat with probability at most ``alpha``:
any two windows (overlapping or not) are equal with probability at most ``p_max**w``, where
``p_max`` is the largest probability of a single value, so a union bound over the ``n**2 / 2``
pairs gives ``w = ceil(log(2 alpha / n**2) / log(p_max))``.

Typical use (``pmf`` and ``cdf`` take and return numpy arrays)::

    from tests.helpers.distributions import assert_distribution, assert_scale_detected
    assert_distribution(draws, pmf=lambda k: dlap_pmf(k, 2.0))
    assert_scale_detected(draws, lambda s: (lambda k: dlap_pmf(k, s)), 2.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = [
    "FitResult",
    "assert_distribution",
    "assert_rejected",
    "assert_scale_detected",
    "chisquare_discrete",
    "ks_continuous",
    "smooth_abs_cdf",
]

Pmf = Callable[[np.ndarray], np.ndarray]
Cdf = Callable[[np.ndarray], np.ndarray]
_MAX_WINDOW = 1 << 24


@dataclass(frozen=True)
class FitResult:
    """Outcome of a goodness-of-fit test; unpacks as ``(statistic, pvalue, passed)``.

    ``passed`` is ``pvalue > alpha`` and no repeated block of draws. ``detail`` says where the
    sample departs most from the target (worst bin, KS location) and any repeated block.
    """

    statistic: float
    pvalue: float
    passed: bool
    alpha: float
    n: int
    test: str
    detail: str

    def __iter__(self) -> Iterator[float | bool]:
        return iter((self.statistic, self.pvalue, self.passed))

    def __str__(self) -> str:
        verdict = "consistent with" if self.passed else "REJECTED against"
        return (
            f"{self.n} draws {verdict} the target: {self.test} statistic={self.statistic:.6g}, "
            f"p={self.pvalue:.3g} (alpha={self.alpha:g}); {self.detail}"
        )


def dlap_pmf(scale: float) -> Pmf:
    """pmf of the discrete Laplace distribution of ``scale``: ``P(k) ∝ exp(-|k| / scale)``."""
    p = math.exp(-1.0 / scale)
    return lambda k: (1 - p) / (1 + p) * p ** np.abs(k)


def smooth_abs_cdf(scale: tuple[int, int], delta: float, top: int) -> np.ndarray:
    """``P(|K| <= h)`` for ``h = 0 .. top - 1``: discrete Cauchy (``delta = 0``) or Laplace."""
    from dpatlas.core.noise.discrete_cauchy import discrete_cauchy_pmf

    k = np.arange(top)
    if delta == 0:
        pmf = discrete_cauchy_pmf(k, scale)
    else:
        p = math.exp(-scale[1] / scale[0])
        pmf = (1 - p) / (1 + p) * p**k
    return np.cumsum(np.where(k == 0, pmf, 2 * pmf))


def _find_repeat(keys: np.ndarray, w: int | None) -> str | None:
    """Describe a block of ``w`` consecutive equal keys occurring twice, or return None."""
    n = keys.size
    if w is None or n <= w:
        return None
    base = 0x9E3779B97F4A7C15
    inv = pow(base, -1, 1 << 64)
    mixed = keys.astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9) + np.uint64(1)
    powers = np.cumprod(np.full(n, base, dtype=np.uint64)) * np.uint64(inv)
    prefix = np.concatenate([[np.uint64(0)], np.cumsum(mixed * powers, dtype=np.uint64)])
    inv_powers = np.cumprod(np.full(n - w + 1, inv, dtype=np.uint64)) * np.uint64(base)
    hashes = (prefix[w:] - prefix[:-w]) * inv_powers
    order = np.argsort(hashes, kind="stable")
    same = np.flatnonzero(hashes[order][1:] == hashes[order][:-1])
    pairs = sorted(tuple(sorted((int(order[i]), int(order[i + 1])))) for i in same)
    for a, b in pairs:
        if np.array_equal(keys[a : a + w], keys[b : b + w]):
            return f"draws [{a}:{a + w}] repeat at [{b}:{b + w}] (not independent)"
    return None


def _window(n: int, p_max: float, alpha: float) -> int | None:
    if not 0.0 < p_max < 1.0:
        return None
    return max(1, math.ceil(math.log(2 * alpha / max(n, 2) ** 2) / math.log(p_max)))


def _support(x: np.ndarray, pmf: Pmf, support: tuple[int, int] | None) -> np.ndarray:
    if support is not None:
        return np.arange(support[0], support[1] + 1, dtype=np.int64)
    lo, hi = int(x.min()), int(x.max())
    if hi - lo > _MAX_WINDOW:
        raise ValueError(
            f"draws span {hi - lo} integers (> 2**24): use ks_continuous, or pass support="
        )
    pad = max(hi - lo, 16)
    while True:
        k = np.arange(lo - pad, hi + pad + 1, dtype=np.int64)
        mass = float(np.sum(pmf(k)))
        if abs(mass - 1.0) <= 1e-9:
            return k
        if k.size > _MAX_WINDOW:
            raise ValueError(
                f"pmf sums to {mass!r} over [{k[0]}, {k[-1]}], not 1: normalise it, or pass "
                "support=(lo, hi) for a finite support"
            )
        pad *= 4


def _pool(expected: np.ndarray, target: float) -> np.ndarray:
    """Start index of each bin: consecutive values pooled until each expects >= target."""
    cum = np.concatenate([[0.0], np.cumsum(expected)])
    starts, i = [], 0
    while i < expected.size:
        starts.append(i)
        i = int(np.searchsorted(cum, cum[i] + target, side="left"))
    if len(starts) > 1 and cum[-1] - cum[starts[-1]] < target:
        starts.pop()
    return np.asarray(starts, dtype=np.int64)


def chisquare_discrete(
    samples: Sequence[int] | np.ndarray,
    pmf: Pmf,
    *,
    alpha: float = 1e-6,
    min_expected: float = 5.0,
    max_bins: int = 1000,
    support: tuple[int, int] | None = None,
) -> FitResult:
    """Pearson chi-square test of integer draws against ``pmf`` (a normalised, vectorised pmf).

    The support is ``support=(lo, hi)`` (inclusive) when given, else the range of the draws
    widened until ``pmf`` sums to 1 within 1e-9. Consecutive values (tails included) are
    pooled so that every bin expects at least ``max(min_expected, n / max_bins)`` draws;
    degrees of freedom = bins - 1. Draws outside ``support`` or at a value of probability 0
    fail the test (p = 0).
    """
    x = np.asarray(samples)
    if x.ndim != 1 or x.size < 2 or not np.issubdtype(x.dtype, np.integer):
        raise ValueError(
            f"samples must be a 1-d integer array of >= 2 draws, got {x.dtype}{x.shape}"
        )
    n = x.size
    k = _support(x, pmf, support)
    prob = np.asarray(pmf(k), dtype=np.float64)
    prob = prob / prob.sum()
    observed = np.bincount(np.clip(x - k[0], 0, k.size), minlength=k.size + 1)
    outside = int(observed[k.size]) + int(np.count_nonzero(x < k[0]))
    impossible = int(observed[: k.size][prob == 0].sum()) + outside
    starts = _pool(prob * n, max(min_expected, n / max_bins))
    if starts.size < 2:
        raise ValueError("fewer than 2 bins: draw more samples or lower min_expected")
    exp_bins = np.add.reduceat(prob * n, starts)
    obs_bins = np.add.reduceat(observed[: k.size], starts)
    contrib = (obs_bins - exp_bins) ** 2 / exp_bins
    stat = float(contrib.sum()) if impossible == 0 else math.inf
    pvalue = float(stats.chi2.sf(stat, starts.size - 1))
    ends = np.append(k[starts[1:] - 1], k[-1])
    j = int(np.argmax(contrib))
    detail = (
        f"{starts.size} bins; worst bin [{k[starts[j]]}, {ends[j]}]: observed {obs_bins[j]}, "
        f"expected {exp_bins[j]:.1f}"
    )
    if impossible:
        detail += f"; {impossible} draws at values of probability 0 or outside the support"
    repeat = _find_repeat(x, _window(n, float(prob.max()), alpha))
    if repeat:
        detail += f"; {repeat}"
    passed = pvalue > alpha and repeat is None
    return FitResult(stat, pvalue, passed, alpha, n, "chi-square", detail)


def ks_continuous(
    samples: Sequence[float] | np.ndarray,
    cdf: Cdf,
    *,
    alpha: float = 1e-6,
    max_atom: float = 2.0**-20,
) -> FitResult:
    """One-sample Kolmogorov–Smirnov test of draws against a continuous ``cdf``.

    ``max_atom`` bounds the probability of any single output value (the sampler's resolution;
    2**-20 by default); it sets the window of the repeated-block check.
    """
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)):
        raise ValueError(f"samples must be a 1-d array of >= 2 finite draws, got shape {x.shape}")
    res = stats.kstest(x, cdf)
    detail = f"largest CDF gap at x={float(res.statistic_location):.6g}"
    repeat = _find_repeat((x + 0.0).view(np.uint64), _window(x.size, max_atom, alpha))
    if repeat:
        detail += f"; {repeat}"
    passed = float(res.pvalue) > alpha and repeat is None
    return FitResult(float(res.statistic), float(res.pvalue), passed, alpha, x.size, "KS", detail)


def _run(samples: np.ndarray, pmf: Pmf | None, cdf: Cdf | None, **kwargs: object) -> FitResult:
    if (pmf is None) == (cdf is None):
        raise TypeError("give exactly one of pmf= (integer draws) or cdf= (continuous draws)")
    if pmf is not None:
        return chisquare_discrete(samples, pmf, **kwargs)  # type: ignore[arg-type]
    return ks_continuous(samples, cdf, **kwargs)  # type: ignore[arg-type]


def assert_distribution(
    samples: np.ndarray, *, pmf: Pmf | None = None, cdf: Cdf | None = None, **kwargs: object
) -> FitResult:
    """Raise AssertionError (with the reason) unless the draws fit ``pmf`` or ``cdf``."""
    res = _run(samples, pmf, cdf, **kwargs)
    if not res.passed:
        raise AssertionError(str(res))
    return res


def assert_rejected(
    samples: np.ndarray, *, pmf: Pmf | None = None, cdf: Cdf | None = None, **kwargs: object
) -> FitResult:
    """Raise AssertionError unless the test rejects the draws (to show a test has power)."""
    res = _run(samples, pmf, cdf, **kwargs)
    if res.passed:
        raise AssertionError(f"expected a rejection, but {res}")
    return res


def assert_scale_detected(
    samples: np.ndarray,
    family: Callable[[float], Pmf | Cdf],
    scale: float,
    *,
    kind: str = "pmf",
    factors: Sequence[float] = (0.7, 1.3),
    **kwargs: object,
) -> None:
    """Draws fit ``family(scale)`` and are rejected against ``family(scale * f)`` for each f.

    ``family`` maps a scale to a pmf (``kind="pmf"``) or a cdf (``kind="cdf"``).
    """
    if kind not in ("pmf", "cdf"):
        raise ValueError(f"kind must be 'pmf' or 'cdf', got {kind!r}")
    assert_distribution(samples, **{kind: family(scale)}, **kwargs)  # type: ignore[arg-type]
    for f in factors:
        assert_rejected(samples, **{kind: family(scale * f)}, **kwargs)  # type: ignore[arg-type]
