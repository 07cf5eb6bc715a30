"""Randomized response (Warner 1965): each record answers truthfully only with some probability.

Binary: report the true bit with probability ``p = e^ε / (1 + e^ε)``, else the other bit.
k-ary (``categories=k``): report the truth with ``p = e^ε / (e^ε + k − 1)``, else one of the
``k − 1`` other categories uniformly (generalised RR, Kairouz, Oh & Viswanath 2014).

Privacy (proof). For any report ``r`` and true values ``v, v'`` of one record,
``P(r | v) / P(r | v') <= p / ((1 − p)/(k − 1)) = e^ε``: each response is ε-locally DP, so
the release of all responses (each depending on its own record only) is ε-DP when one
record's value changes, and any aggregate of them (counts, :func:`estimate_frequencies`) is
post-processing. The coin game (answer truthfully on heads, answer with a
second coin on tails) gives ``P(yes | yes) = 3/4``, ``P(yes | no) = 1/4``: ε = ln 3.

Exact sampling: ``p`` is irrational, so the "lie" event (``u < 1 − p``) is decided by
:mod:`dpatlas.core.noise._sampling.inversion` against ``floor(2**64 (1 − p))`` computed with interval
arithmetic, settled with further words in the rare tie: exact, not rounded. The other category
is drawn with exact uniform integers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.noise._sampling.inversion import build_inversion, exp_bounds, sample_index
from dpatlas.core.release import Release
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import as_int_array, check_epsilon, check_positive_int

__all__ = [
    "FrequencyEstimate",
    "estimate_frequencies",
    "randomized_response",
    "randomized_response_epsilon",
]


def _truth_probability(epsilon: float, k: int) -> float:
    return 1.0 / (1.0 + (k - 1) * math.exp(-epsilon))


def randomized_response_epsilon(p_truth: float, categories: int = 2) -> float:
    """Privacy map: RR that tells the truth with ``p_truth`` over ``categories`` values.

    Examples
    --------
    >>> math.isclose(randomized_response_epsilon(0.75), math.log(3))  # the coin game
    True
    >>> randomized_response_epsilon(0.5)
    Traceback (most recent call last):
    ...
    ValueError: p_truth must be in (1/categories, 1) = (0.5, 1), got 0.5
    """
    k = check_positive_int(categories, "categories", minimum=2)
    if not (1 / k < p_truth < 1):
        raise ValueError(
            f"p_truth must be in (1/categories, 1) = ({1 / k:.6g}, 1), got {p_truth!r}"
        )
    return math.log(p_truth * (k - 1) / (1 - p_truth))


def _labels(values: Any, categories: Any) -> tuple[np.ndarray, list[Any] | None, int]:
    if categories is None:
        x = as_int_array(values)
        bad = (x != 0) & (x != 1)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(
                f"values must be bits (0 or 1), got {x[idx]} at index {idx}; "
                "pass categories= for k-ary data"
            )
        return x, None, 2
    if isinstance(categories, (int, np.integer)) and not isinstance(categories, bool):
        k = check_positive_int(categories, "categories", minimum=2)
        if k > 2**62:  # labels and their shifts are int64
            raise ValueError(f"categories must be at most 2**62, got {k}; relabel the values")
        x = as_int_array(values)
        if x.size and (x.min() < 0 or x.max() >= k):
            raise ValueError(f"values must be in 0..{k - 1} for categories={k}")
        return x, None, k
    if isinstance(categories, (bool, str, bytes)) or not hasattr(categories, "__iter__"):
        raise TypeError(
            f"categories must be an int k >= 2 or a sequence of labels, got {categories!r}"
        )
    labels = list(categories)
    try:
        index = {c: i for i, c in enumerate(labels)}
    except TypeError:
        raise TypeError(f"categories must be hashable labels, got {categories!r}") from None
    if len(index) != len(labels):
        first, again = _equal_keys(labels)
        raise ValueError(
            f"categories must be distinct labels, got {first!r} and {again!r}, which are one "
            "key in Python (1 == 1.0 == True); give each label once"
        )
    if len(index) < 2:
        raise ValueError(f"categories must hold at least 2 distinct labels, got {labels!r}")
    # tuple labels: values is a sequence of labels, not an array with a dimension per item
    tuples = any(isinstance(c, tuple) for c in labels)
    items = _object_array(list(values)) if tuples else np.asarray(values, dtype=object)
    try:
        x = np.vectorize(index.__getitem__, otypes=[np.int64])(items) if items.size else items
    except KeyError as err:
        raise ValueError(f"value {err.args[0]!r} is not one of the categories") from None
    except TypeError as err:  # an unhashable value such as a dict or a list
        raise TypeError(f"values must be labels from categories, got {values!r}: {err}") from None
    return np.asarray(x, dtype=np.int64).reshape(items.shape), labels, len(labels)


def _equal_keys(labels: list[Any]) -> tuple[Any, Any]:
    """The first two labels that are one dictionary key."""
    seen: dict[Any, Any] = {}
    for c in labels:
        if c in seen:
            return seen[c], c
        seen[c] = c
    raise AssertionError("no repeated label")


def _object_array(items: list[Any]) -> np.ndarray:
    """A 1-D object array holding ``items`` as they are (tuples stay whole)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def randomized_response(
    values: Any,
    *,
    epsilon: float,
    categories: int | Sequence[Any] | None = None,
    rng: RngLike = None,
    budget: Budget | None = None,
    mechanism: str = "randomized_response",
    note: str = "",
) -> Release:
    """Randomize each record's value: truthful with probability ``e^ε / (e^ε + k − 1)``.

    Parameters
    ----------
    values : array_like
        Bits (0/1 or bool) by default; integers ``0..k-1`` with ``categories=k``; labels with
        ``categories=[label, ...]``.
    epsilon : float
        Privacy cost (local, per record), > 0.
    categories : int or sequence, optional
        The number of categories or their labels (the public domain).
    rng : None, int or numpy.random.Generator
        ``None`` (default) for secure noise; a seed makes the noise reproducible, which is for
        tests and teaching only and is recorded as ``seeded=True``.
    budget : Budget, optional
        Debited by ``epsilon`` before any randomness is drawn.
    mechanism, note : str
        Labels recorded in the release and the budget history.

    Returns
    -------
    Release
        ``value``: the randomized responses (same shape; labels when labels were given);
        ``metadata`` holds ``p_truth`` and ``categories`` for :func:`estimate_frequencies`.

    Examples
    --------
    >>> rel = randomized_response([1, 0, 1, 1], epsilon=math.log(3), rng=0)
    >>> rel.value.shape, round(rel.metadata["p_truth"], 6)
    ((4,), 0.75)
    >>> randomized_response(["a", "c"], epsilon=1.0, categories=["a", "b", "c"], rng=1).value.shape
    (2,)
    """
    eps = check_epsilon(epsilon)
    charge = open_charge(Cost.pure(eps), budget, mechanism=mechanism, note=note)
    x, labels, k = _labels(values, categories)
    src = get_source(rng)
    charge.debit()

    def lie_bounds(_: int, bits: int) -> tuple[Fraction, Fraction]:
        lo, hi = exp_bounds(exact_epsilon(eps), math.ceil(bits * 0.302) + 8)
        return Fraction(k - 1) / (hi + k - 1), Fraction(k - 1) / (lo + k - 1)

    truth = sample_index(src, build_inversion(lie_bounds, 1), x.size)[0].astype(bool)
    flat = x.reshape(-1).copy()
    lie = np.flatnonzero(~truth)
    if k == 2:
        flat[lie] = 1 - flat[lie]
    else:
        flat[lie] = (flat[lie] + 1 + src.below(k - 1, size=lie.size).astype(np.int64)) % k
    out: Any = flat.reshape(x.shape)
    if labels is not None:
        out = _object_array(labels)[out] if out.size else out.astype(object)
    return charge.release(
        Release,
        value=out,
        sensitivity=None,
        scale=None,
        noise=None,
        seeded=src.seeded,
        metadata={"p_truth": _truth_probability(eps, k), "categories": k, "labels": labels},
    )


class FrequencyEstimate(NamedTuple):
    """Unbiased frequency estimates from randomized responses, their variances and ``n``."""

    estimate: np.ndarray
    variance: np.ndarray
    n: int


def estimate_frequencies(release: Release) -> FrequencyEstimate:
    """Unbiased category frequencies from a :func:`randomized_response` release (post-processing).

    With ``λ_j`` the observed share of category ``j``, ``p`` the truth probability and
    ``q = (1 − p)/(k − 1)``: ``f̂_j = (λ_j − q) / (p − q)`` (``E[λ_j] = f_j p + (1 − f_j) q``).
    Its variance ``(f_j p(1 − p) + (1 − f_j) q(1 − q)) / (n (p − q)²)`` is exact; it is
    evaluated at ``f̂_j`` clipped to [0, 1]. For bits it is ``p(1 − p)/(n (2p − 1)²)`` whatever f.

    Examples
    --------
    >>> rel = randomized_response(np.r_[np.ones(3000), np.zeros(7000)], epsilon=1.0, rng=2)
    >>> est = estimate_frequencies(rel)
    >>> abs(float(est.estimate[1]) - 0.3) < 4 * float(np.sqrt(est.variance[1]))
    True
    """
    if "categories" not in release.metadata or "p_truth" not in release.metadata:
        raise ValueError(
            f"release {release.mechanism!r} is not a randomized_response release; "
            "estimate_frequencies reads only those"
        )
    k, p = int(release.metadata["categories"]), float(release.metadata["p_truth"])
    if not p - (1 - p) / (k - 1) > 0:  # ε so small that p = q in floating point
        raise ValueError(
            f"epsilon={release.epsilon:g} is too small to invert: the truthful and the other "
            "answers are equally likely in floating point, so the responses carry no "
            "estimable signal; use a larger epsilon"
        )
    labels = release.metadata.get("labels")
    flat = np.asarray(release.value, dtype=object if labels else np.int64).reshape(-1)
    if labels:
        index = {c: i for i, c in enumerate(labels)}
        flat = np.asarray([index[v] for v in flat], dtype=np.int64)
    n = flat.size
    if n == 0:
        raise ValueError("the release holds no responses; there is nothing to estimate")
    q = (1 - p) / (k - 1)
    share = np.bincount(flat, minlength=k) / n
    est = (share - q) / (p - q)
    f = np.clip(est, 0.0, 1.0)
    var = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)
    return FrequencyEstimate(est, var, n)
