"""Output events for the auditor and their selection on held-out samples.

Every event is a closed interval of a 1-D projection of the output: ``{o ≥ τ}``
(``high = inf``), ``{o ≤ τ}`` (``low = -inf``), a bin ``{a ≤ o ≤ b}`` or a point ``{o = v}``.
Candidate ends are quantiles of the pooled samples of both inputs (denser in the tails, as in
DP-Sniper, Bichsel et al. 2021), every value when the support is small, and every value
carrying a visible atom of mass; all ``O(m²)`` intervals between them are scored at once from
sorted samples, in the style of StatDP (Ding et al. 2018).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpatlas.audit.bounds import _check_confidence, selection_score
from dpatlas.audit.summary import as_float
from dpatlas.core.validation import check_delta, check_positive_int

__all__ = ["Event", "select_event"]

_MAX_SCORED_EVENTS = 2_000_000


@dataclass(frozen=True)
class Event:
    """The event ``{low ≤ projection(o) ≤ high}`` on a mechanism output ``o``.

    Parameters
    ----------
    low, high : float
        Closed ends, ``-inf`` / ``inf`` for one-sided threshold events.
    projection : int or None, default 0
        Coordinate ``o[projection]`` of the flattened output (``0`` for a scalar output), or
        ``None`` for the sum of all coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> event = Event(low=1.5, projection=None)
    >>> print(event)
    sum(o) ≥ 1.5
    >>> event.contains(np.array([[1.0, 1.0], [0.0, 1.0]])).tolist()
    [True, False]
    """

    low: float = -math.inf
    high: float = math.inf
    projection: int | None = 0

    def __post_init__(self) -> None:
        for name in ("low", "high"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise TypeError(f"{name} must be a number, got {value!r}")
            number = as_float(value, name, "use math.inf for an open end")
            if math.isnan(number):
                raise ValueError(f"{name} must not be NaN, got {value!r}")
            object.__setattr__(self, name, number)
        if self.low > self.high:
            raise ValueError(f"need low <= high, got low={self.low!r}, high={self.high!r}")
        proj = self.projection
        if proj is not None and (
            isinstance(proj, bool) or not isinstance(proj, (int, np.integer)) or proj < 0
        ):
            raise ValueError(f"projection must be an int >= 0 or None (sum), got {proj!r}")

    def project(self, outputs: NDArray[np.float64]) -> NDArray[np.float64]:
        """The projected outputs, one number per row of a ``(samples, dim)`` array."""
        if self.projection is None:
            return np.asarray(outputs.sum(axis=1))
        if self.projection >= outputs.shape[1]:
            raise ValueError(
                f"projection {self.projection} is out of range for outputs of length "
                f"{outputs.shape[1]}"
            )
        return np.asarray(outputs[:, self.projection])

    def contains(self, outputs: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Whether each row of a ``(samples, dim)`` output array falls in the event."""
        x = self.project(outputs)
        return np.asarray((x >= self.low) & (x <= self.high))

    def __str__(self) -> str:
        name = "sum(o)" if self.projection is None else f"o[{self.projection}]"
        if self.low == self.high:
            return f"{name} = {self.low:g}"
        if self.high == math.inf:
            return f"{name} ≥ {self.low:g}"
        if self.low == -math.inf:
            return f"{name} ≤ {self.high:g}"
        return f"{name} ∈ [{self.low:g}, {self.high:g}]"


def _thresholds(ordered: NDArray[np.float64], m: int) -> NDArray[np.float64]:
    """Candidate interval ends: all values of a small support, else quantiles plus atoms.

    ``ordered`` is the sorted pooled sample of both inputs.
    """
    n = ordered.size
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    values, counts = ordered[starts], np.diff(np.append(starts, n))
    if values.size <= m:
        return values
    tail = np.geomspace(min(10.0 / n, 0.5 / m), 1.0 / m, num=8)
    levels = np.concatenate([np.linspace(0.0, 1.0, m), tail, 1.0 - tail])
    quantiles = ordered[np.round(levels * (n - 1)).astype(np.int64)]
    atoms = values[counts >= max(2.0, n / m)]
    return np.unique(np.concatenate([quantiles, atoms]))


def _score_projection(
    x_d: NDArray[np.float64], x_dp: NDArray[np.float64], m: int, delta: float, alpha: float
) -> tuple[float, float, float]:
    """Best (score, low, high) over the intervals between candidate ends of one projection.

    ``alpha`` is the error level already divided by the number of projections; it is divided
    again by the number of intervals scored here.
    """
    x_d, x_dp = np.sort(x_d), np.sort(x_dp)
    t = _thresholds(np.sort(np.concatenate([x_d, x_dp]), kind="mergesort"), m)
    lows = np.concatenate([[-np.inf], t])
    highs = np.concatenate([t, [np.inf]])
    valid = lows[:, None] <= highs[None, :]
    valid[0, -1] = False  # the whole output space says nothing
    counts = []
    for x in (x_d, x_dp):
        below_low = np.searchsorted(x, lows, side="left")
        up_to_high = np.searchsorted(x, highs, side="right")
        counts.append((up_to_high[None, :] - below_low[:, None])[valid])
    score = selection_score(counts[0], counts[1], x_d.size, delta, alpha / counts[0].size)
    best = int(np.argmax(score))
    i, j = np.nonzero(valid)
    return float(score[best]), float(lows[i[best]]), float(highs[j[best]])


def _check_samples(
    outputs_d: NDArray[np.float64], outputs_d_prime: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The two samples as float64 ``(runs, dim)`` arrays of one shape, or a ValueError."""
    checked = []
    for name, outputs in (("outputs_d", outputs_d), ("outputs_d_prime", outputs_d_prime)):
        arr = np.asarray(outputs)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
        if arr.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D array (runs, dim), got shape {arr.shape}; "
                "reshape one number per run with x.reshape(-1, 1)"
            )
        if arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ValueError(
                f"{name} must hold at least one run and one coordinate, got shape {arr.shape}"
            )
        arr = arr.astype(np.float64)
        if np.isnan(arr).any():
            raise ValueError(f"{name} must not contain NaN; the auditor needs numeric outputs")
        checked.append(arr)
    if checked[0].shape != checked[1].shape:
        raise ValueError(
            "outputs_d and outputs_d_prime must have the same shape (runs, dim), got "
            f"{checked[0].shape} and {checked[1].shape}; run the same mechanism as many "
            "times on both inputs"
        )
    return checked[0], checked[1]


def select_event(
    outputs_d: NDArray[np.float64],
    outputs_d_prime: NDArray[np.float64],
    *,
    delta: float = 0.0,
    confidence: float = 0.99,
    candidates: Iterable[Event] | None = None,
    max_thresholds: int = 100,
) -> tuple[Event, float]:
    """The event with the largest ε lower bound on these samples (use a held-out half).

    Parameters
    ----------
    outputs_d, outputs_d_prime : ndarray, shape (n, dim)
        Outputs of the mechanism on ``d`` and on ``d′``: numbers without NaN, one row per run,
        the same ``n >= 1`` and ``dim >= 1`` for both.
    delta, confidence : float
        As in :func:`dpatlas.audit.audit` (δ in [0, 1), confidence in (0, 1)). The score of an event is its bound
        ``ln((p_low − δ) / q_high)`` (either direction) on these samples at the confidence
        ``1 − (1 − confidence)/K``, ``K`` the number of events scored: a bound that holds for
        all of them at once, so narrow or low-mass events whose ratio is noise lose (the
        winner's curse would otherwise pick them and the test half would not confirm them).
    candidates : iterable of Event, optional
        Score only these events (a list, a tuple, a generator ...); by default all intervals
        between candidate ends of each coordinate and, when ``dim > 1``, of the sum of
        coordinates.
    max_thresholds : int, default 100
        Quantile levels per projection, at least 2 (fewer for long vectors, to score at most
        ~2 M events).

    Returns
    -------
    event : Event
    score : float
        Its bound on these samples before clipping at 0 (``-inf`` if no event has mass).

    Examples
    --------
    >>> import numpy as np
    >>> gen = np.random.default_rng(1)
    >>> d = (gen.random((50_000, 1)) < 0.6).astype(float)   # Bernoulli(0.6)
    >>> d_prime = (gen.random((50_000, 1)) < 0.3).astype(float)   # Bernoulli(0.3)
    >>> event, score = select_event(d, d_prime)
    >>> event.contains(np.array([[0.0], [1.0]])).tolist(), round(score, 1)
    ([False, True], 0.7)
    """
    outputs_d, outputs_d_prime = _check_samples(outputs_d, outputs_d_prime)
    delta = check_delta(delta)
    confidence = _check_confidence(confidence)
    max_thresholds = check_positive_int(max_thresholds, "max_thresholds", minimum=2)
    n, dim = outputs_d.shape
    if candidates is not None:
        if isinstance(candidates, Event) or not isinstance(candidates, Iterable):
            raise TypeError(
                f"candidates must be an iterable of Event, got {type(candidates).__name__}; "
                "pass a list, e.g. [event]"
            )
        events = list(candidates)
        if not events or not all(isinstance(e, Event) for e in events):
            raise TypeError(f"candidates must be a non-empty sequence of Event, got {events!r}")
        k_d = [int(e.contains(outputs_d).sum()) for e in events]
        k_dp = [int(e.contains(outputs_d_prime).sum()) for e in events]
        alpha = (1.0 - confidence) / len(events)
        scores = selection_score(np.array(k_d), np.array(k_dp), n, delta, alpha)
        best = int(np.argmax(scores))
        return events[best], float(scores[best])
    projections: list[int | None] = list(range(dim)) + ([None] if dim > 1 else [])
    m = int(np.clip(math.isqrt(_MAX_SCORED_EVENTS // len(projections)), 8, max_thresholds))
    alpha = (1.0 - confidence) / len(projections)
    best_event, best_score = Event(projection=projections[0]), -math.inf
    for proj in projections:
        probe = Event(projection=proj)
        score, low, high = _score_projection(
            probe.project(outputs_d), probe.project(outputs_d_prime), m, delta, alpha
        )
        if score > best_score:
            best_event, best_score = Event(low, high, proj), score
    return best_event, best_score
