"""Private selection: the exponential mechanism and report-noisy-max, sampled exactly.

Exponential mechanism (McSherry & Talwar 2007): pick candidate ``i`` with probability
``∝ exp(ε u_i / (2Δ))`` where ``Δ`` bounds how much any score can change between neighbours;
ε-DP (Dwork & Roth 2014, Thm. 3.10). When every score moves in the same direction between
neighbours (``monotonic=True``, e.g. counts under adding one record) ``exp(ε u_i / Δ)`` is
ε-DP: the normalising sum then moves in the same direction as each term, so only one of the
two ``e^(ε/2)`` factors of the proof remains (McSherry & Talwar 2007; Dwork & Roth 2014, §3.4).

Report-noisy-max adds noise to every score and reports the index of the largest:

``noise="gumbel"``
    Gumbel noise of scale ``2Δ/ε`` makes the argmax exactly the exponential mechanism (the
    Gumbel-max trick; Durfee & Rogers 2019), so it is sampled as such.
``noise="exponential"``
    Exponential noise of scale ``2Δ/ε`` makes it exactly permute-and-flip (Ding, Kifer et al.
    2021; McKenna & Sheldon 2020): ε-DP and never worse than the exponential mechanism in
    expected score. (Exponential noise is *not* the exponential mechanism.)

Exact sampling. With ``γ_i = c ε (u_max − u_i) / Δ`` (``c = 1/2``, or 1 when monotonic):
the exponential mechanism proposes ``i`` uniformly and accepts with probability ``exp(−γ_i)``
(accepted proposals have exactly the target law; each round accepts with probability >= 1/n).
Permute-and-flip flips a coin ``exp(−γ_i)`` for every candidate and returns the first success
in a uniform random order, i.e. a uniform random one of the successes (the top scorer always
succeeds). The coins are exact (:mod:`dpatlas.core.noise._sampling.bernoulli`): ``γ_i`` is
the exact rational of the inputs, with ε the decimal the budget charges
(:func:`~dpatlas.core.accounting.cost.exact_epsilon`: ``0.1`` is ``1/10``, not the binary
``0.1000000000000000055...``), so the mechanism is exactly ε-DP for the ε charged (scores a
float would round, integers from ``2**53`` on, fractions, long doubles, are taken exactly and
their differences rounded once; so is an int or fraction sensitivity); its float estimate is
within ``2**-50`` relative (``c ε / Δ`` rounded once from that exact rational, a subtraction
and a product, each correctly rounded; underflow only costs an absolute ``2**-1000``, which
cannot move a decision at the ``2**-64`` level).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from numbers import Integral
from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.noise._sampling.bernoulli import bernoulli_exp_neg
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource, RngLike, get_source
from dpatlas.core.validation import (
    as_float_array,
    check_epsilon,
    check_sensitivity,
    float_or_inf,
)

__all__ = ["exponential", "report_noisy_max"]


def _factor(eps: float, delta: float | Fraction, monotonic: bool) -> Fraction:
    """``c ε / Δ`` exactly, ε the one charged (:func:`~dpatlas.core.accounting.cost.exact_epsilon`);
    refused (before anything is read) outside ``[2**-500, 2**500]``."""
    factor = exact_epsilon(eps) / (Fraction(delta) * (1 if monotonic else 2))
    if not 2**-500 <= factor <= 2**500:
        raise ValueError(
            f"epsilon / sensitivity must be within [2**-500, 2**500], got {float_or_inf(factor):.3g}"
        )
    return factor


def _exact_scores(scores: Any, arr: np.ndarray, u: np.ndarray) -> list[Fraction] | None:
    """The scores as exact rationals where ``u`` (their floats) may round them; None where
    ``u`` holds every score exactly (floats of up to 64 bits, integers below ``2**53``).

    Rounding is not a post-processing the proof allows: ``Δ`` bounds the change of the true
    scores, and ``2**60`` and ``2**60 + 1`` are one float (the mechanism picked each half the
    time where the law says 0.27 / 0.73 at ``ε/2Δ = 1``), while rounded neighbours can differ
    by ``Δ`` plus an ulp (256 at ``2**60``; ``2**-12`` at ``2**40``, which is ``256 Δ`` for a
    fraction score with ``Δ = 2**-20``). ``2**53 + 1`` rounds to ``2**53``, hence ``>=``.
    ``arr`` is ``np.asarray(scores)``: a float64 array or Series, or a list numpy reads as
    floats or ints with no magnitude from ``2**53`` on, needs no more; otherwise (big ints
    beside floats become floats there, Fractions objects, long doubles) the types of the items
    decide, so that ints keep their values beside floats. Where every score is a
    float exactly, both paths give the same ``γ`` and the same estimates (a float difference
    is the exact one correctly rounded), so the choice never changes a draw.
    """
    small = not np.any(np.abs(u) >= 2.0**53)
    kind = arr.dtype.kind
    if kind == "b" or (kind in "iu" and small):
        return None  # u holds the values; no list needed
    if kind == "f" and arr.dtype.itemsize <= 8 and (small or hasattr(scores, "dtype")):
        return None  # float64 or narrower, as given or of a list with no big int in it
    if isinstance(scores, (list, tuple)):
        values = list(scores)  # one-dimensional (checked): its items are the scores
    else:
        raw = scores if isinstance(scores, np.ndarray) else np.asarray(scores, dtype=object)
        values = raw.ravel().tolist()
    if all(_held(t, small) for t in set(map(type, values))):
        return None
    return [_rational(v) for v in values]


def _held(kind: type, small: bool) -> bool:
    """Does a float hold every value of type ``kind`` (every score being below ``2**53`` when
    ``small``)? Floats of up to 64 bits and bools do; integers only while ``small``."""
    if issubclass(kind, (float, np.float16, np.float32, bool, np.bool_)):
        return True
    return small and issubclass(kind, (Integral, np.integer))


def _rational(value: Any) -> Fraction:
    """A real number as an exact fraction (a float or long double as its binary value)."""
    if isinstance(value, Integral):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    ratio = getattr(value, "as_integer_ratio", None)
    return Fraction(*ratio()) if ratio is not None else Fraction(float(value))


def _gammas(
    u: np.ndarray,
    eps: float,
    delta_u: float,
    monotonic: bool,
    exact_u: list[Fraction] | None = None,
    exact_delta: Fraction | None = None,
) -> tuple[np.ndarray, Callable[[int], Fraction]]:
    delta_q = Fraction(delta_u) if exact_delta is None else exact_delta
    exact_factor = _factor(eps, delta_q, monotonic)
    factor = float(exact_factor)  # correctly rounded: within 2**-53 of the exact c ε / Δ
    if exact_u is not None:  # differences taken exactly, then rounded once
        top_q = max(exact_u)
        diffs = [top_q - v for v in exact_u]
        with np.errstate(over="ignore"):
            est = np.array([float_or_inf(d) for d in diffs]) * factor
        return est, lambda i: diffs[i] * exact_factor
    top = u.max()
    with np.errstate(over="ignore"):  # gamma > 1.7e308 becomes inf: P < exp(-1e308), taken as 0
        est = (top - u) * factor
    exact_top = Fraction(float(top))
    return est, lambda i: (exact_top - Fraction(float(u[i]))) * exact_factor


def _sample_em(src: RandomSource, est: np.ndarray, exact: Any, size: int = 1) -> np.ndarray:
    """``size`` independent exponential-mechanism draws by exact rejection."""
    n, out = est.size, np.empty(0, dtype=np.int64)
    while out.size < size:
        prop = src.below(n, size=max(n, 64, 2 * (size - out.size))).astype(np.int64)

        def gamma(i: int, prop: np.ndarray = prop) -> Fraction:
            return exact(int(prop[i]))

        ok = bernoulli_exp_neg(src, est[prop], gamma)
        out = np.concatenate([out, np.compress(ok, prop)])
    return out[:size]


def _sample_pf(src: RandomSource, est: np.ndarray, exact: Any, size: int = 1) -> np.ndarray:
    """``size`` independent permute-and-flip draws: a uniform one of the successful coins."""
    n = est.size
    coins = bernoulli_exp_neg(src, np.tile(est, size), lambda i: exact(i % n)).reshape(size, n)
    wins = coins.sum(axis=1)
    pick = src.below(wins.astype(np.uint64)).astype(np.int64)
    rank = np.cumsum(coins, axis=1) - 1
    return np.argmax(coins & (rank == pick[:, None]), axis=1)


def _select(
    scores: Any,
    candidates: Sequence[Any] | None,
    *,
    sensitivity: float,
    epsilon: float,
    monotonic: bool,
    sampler: Any,
    rng: RngLike,
    budget: Budget | None,
    mechanism: str,
    note: str,
) -> Release:
    delta_u, eps = check_sensitivity(sensitivity), check_epsilon(epsilon)
    if not isinstance(monotonic, (bool, np.bool_)):
        raise TypeError(f"monotonic must be True or False, got {monotonic!r}")
    monotonic = bool(monotonic)
    if candidates is not None:
        if isinstance(candidates, (str, bytes, set, frozenset, Mapping)) or not hasattr(
            candidates, "__len__"
        ):
            raise TypeError(
                "candidates must be a sequence (list, tuple, array) in the order of the scores, "
                f"got {type(candidates).__name__}; e.g. pass list(candidates)"
            )
        candidates = list(candidates)  # positions, not labels: a Series is read in order
    # an int or fraction sensitivity is taken exactly: its float may be rounded *down*
    exact_delta = _rational(sensitivity) if isinstance(sensitivity, (Integral, Fraction)) else None
    _factor(eps, delta_u if exact_delta is None else exact_delta, monotonic)
    charge = open_charge(Cost.pure(eps), budget, mechanism=mechanism, note=note)
    try:
        arr = np.asarray(scores)  # read once: for the floats and for the exactness check
    except ValueError:
        arr = None  # ragged: as_float_array refuses it with its own message
    u = as_float_array(scores if arr is None else arr, "scores")
    if u.ndim != 1:
        raise ValueError(f"scores must be one-dimensional, got shape {u.shape}")
    if u.size == 0:
        raise ValueError("scores must hold at least one candidate's score, got none")
    if candidates is not None and len(candidates) != u.size:
        raise ValueError(
            f"candidates and scores must have the same length, got {len(candidates)} and {u.size}"
        )
    est, exact = _gammas(
        u, eps, delta_u, monotonic, _exact_scores(scores, u if arr is None else arr, u), exact_delta
    )
    src = get_source(rng)
    charge.debit()
    index = int(sampler(src, est, exact)[0])
    value = index if candidates is None else candidates[index]
    return charge.release(
        Release,
        value=value,
        sensitivity=delta_u,
        scale=None,
        noise=None,
        seeded=src.seeded,
        metadata={"index": index, "monotonic": monotonic, "candidates": int(u.size)},
    )


def exponential(
    candidates: Sequence[Any] | None,
    scores: Any,
    *,
    sensitivity: float,
    epsilon: float,
    monotonic: bool = False,
    rng: RngLike = None,
    budget: Budget | None = None,
    mechanism: str = "exponential",
    note: str = "",
) -> Release:
    """Select a candidate with probability ``∝ exp(ε·score / (2·sensitivity))`` (exactly).

    Parameters
    ----------
    candidates : sequence or None
        What to return (``None``: the index). Public: the candidate set must not depend on
        the data.
    scores : array_like of float
        One score per candidate (higher is better); NaN and infinities are refused.
    sensitivity : float
        The most any one score can change between neighbouring datasets.
    epsilon : float
        Privacy cost, > 0.
    monotonic : bool
        True if all scores move in the same direction between neighbours (then ``ε·u/Δ``).
    rng, budget, mechanism, note
        As for :func:`~dpatlas.core.noise.laplace.laplace`; the budget is debited before sampling.

    Returns
    -------
    Release
        ``value`` is the chosen candidate (``metadata["index"]`` its position).

    Examples
    --------
    >>> rel = exponential(["a", "b", "c"], [0.0, 0.0, 50.0], sensitivity=1.0, epsilon=1.0, rng=0)
    >>> rel.value, rel.metadata["index"]
    ('c', 2)
    """
    return _select(
        scores,
        candidates,
        sensitivity=sensitivity,
        epsilon=epsilon,
        monotonic=monotonic,
        sampler=_sample_em,
        rng=rng,
        budget=budget,
        mechanism=mechanism,
        note=note,
    )


def report_noisy_max(
    scores: Any,
    *,
    sensitivity: float,
    epsilon: float,
    noise: str = "gumbel",
    monotonic: bool = False,
    candidates: Sequence[Any] | None = None,
    rng: RngLike = None,
    budget: Budget | None = None,
    mechanism: str = "report_noisy_max",
    note: str = "",
) -> Release:
    """Index (or candidate) of the largest score after noise: a private vote (PATE-style).

    ``noise="gumbel"`` is exactly :func:`exponential`; ``noise="exponential"`` is exactly
    permute-and-flip (see the module docstring). ``monotonic=True`` is only proven for Gumbel.

    Examples
    --------
    >>> votes = [3, 40, 7]  # teachers' votes per class; one teacher changes one vote
    >>> report_noisy_max(votes, sensitivity=1.0, epsilon=1.0, noise="exponential", rng=0).value
    1
    """
    if noise not in ("gumbel", "exponential"):
        raise ValueError(f"noise must be 'gumbel' or 'exponential', got {noise!r}")
    if noise == "exponential" and monotonic:
        raise ValueError(
            "monotonic=True is only supported with noise='gumbel' (the exponential mechanism); "
            "use noise='gumbel' or monotonic=False"
        )
    return _select(
        scores,
        candidates,
        sensitivity=sensitivity,
        epsilon=epsilon,
        monotonic=monotonic,
        sampler=_sample_em if noise == "gumbel" else _sample_pf,
        rng=rng,
        budget=budget,
        mechanism=mechanism,
        note=note,
    )
