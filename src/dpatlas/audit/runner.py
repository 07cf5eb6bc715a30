"""Run a mechanism on two neighbouring inputs and turn the outputs into a bound on its ε."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from dpatlas.audit.bounds import _check_confidence, clopper_pearson, epsilon_lower_bound
from dpatlas.audit.events import Event, select_event
from dpatlas.audit.result import AuditResult
from dpatlas.core.release import Release
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import check_delta, check_epsilon, check_positive_int

__all__ = ["audit"]

_CHUNK_VALUES = 2**21  # output numbers per batched call
_MAX_VALUES = 2**27  # output numbers kept per input (1 GiB of float64)


def _accepts_size(mechanism: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(mechanism).parameters
    except (TypeError, ValueError):
        return False
    size = params.get("size")
    return size is not None and size.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )


def _as_array(output: Any) -> NDArray[np.float64]:
    value = output.value if isinstance(output, Release) else output
    arr = np.asarray(value)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(
            f"mechanism must return numbers, an array or a Release, got {type(output).__name__}"
        )
    arr = arr.astype(np.float64)
    if arr.size == 0:
        raise ValueError(
            "mechanism returned an empty output; the auditor needs at least one number per run"
        )
    if np.isnan(arr).any():
        raise ValueError("mechanism returned NaN; the auditor needs numeric outputs")
    return arr


def _check_memory(dim: int, samples: int) -> None:
    if dim * samples > _MAX_VALUES:
        raise ValueError(
            f"outputs of length {dim} over samples={samples} runs are too many to keep "
            f"({dim * samples * 8 / 2**30:.1f} GiB); pass fewer samples or audit a mechanism "
            "that returns only the coordinates that can change"
        )


def _run(
    mechanism: Callable[..., Any], data: Any, samples: int, gen: np.random.Generator
) -> NDArray[np.float64]:
    """``samples`` outputs as a ``(samples, dim)`` array, in batches when the mechanism can."""
    if not _accepts_size(mechanism):
        first = _as_array(mechanism(data, rng=gen)).ravel()
        _check_memory(first.size, samples)
        rows = [first] + [_as_array(mechanism(data, rng=gen)).ravel() for _ in range(samples - 1)]
        if len({row.size for row in rows}) != 1:
            raise ValueError("mechanism outputs must all have the same length")
        return np.stack(rows)
    parts: list[NDArray[np.float64]] = []
    done, chunk = 0, min(samples, 1_000)
    while done < samples:
        k = min(chunk, samples - done)
        arr = _as_array(mechanism(data, size=k, rng=gen))
        if arr.ndim == 0 or arr.shape[0] != k:
            raise ValueError(
                f"mechanism(d, size={k}, rng=...) must return {k} outputs along the first "
                f"axis, got shape {arr.shape}"
            )
        parts.append(arr.reshape(k, -1))
        if parts[-1].shape[1] != parts[0].shape[1]:
            raise ValueError(
                "mechanism outputs must all have the same length, got "
                f"{parts[0].shape[1]} number(s) per output in the first batch and "
                f"{parts[-1].shape[1]} in the batch of size={k}"
            )
        if done == 0:
            _check_memory(parts[0].shape[1], samples)
            chunk = max(1, _CHUNK_VALUES // parts[0].shape[1])
        done += k
    return np.concatenate(parts)


def _parse_events(
    events: Literal["auto"] | Event | Sequence[Event],
) -> tuple[Event | None, Sequence[Event] | None]:
    """``(fixed event, None)``, ``(None, candidates)`` or ``(None, None)`` for ``"auto"``."""
    if isinstance(events, Event):
        return events, None
    if isinstance(events, str) and events == "auto":
        return None, None
    if isinstance(events, Sequence) and not isinstance(events, str):
        return None, events
    raise TypeError(f'events must be "auto", an Event or a sequence of Event, got {events!r}')


def audit(
    mechanism: Callable[..., Any],
    d: Any,
    d_prime: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    samples: int = 200_000,
    events: Literal["auto"] | Event | Sequence[Event] = "auto",
    confidence: float = 0.99,
    rng: RngLike = None,
) -> AuditResult:
    """Look for an output event that ``mechanism`` makes more than ``e^ε`` times likelier.

    The mechanism is run ``samples`` times on each of two neighbouring inputs. On one half of
    the runs an event ``E`` is chosen: the interval event (``{o ≥ τ}``, ``{o ≤ τ}``, a bin or
    a point, on one coordinate of the output or on the sum of its coordinates) whose bound is
    largest there (StatDP, Ding et al. 2018; DP-Sniper, Bichsel et al. 2021). On the other
    half, Clopper–Pearson intervals for ``p = P[M(d) ∈ E]`` and ``q = P[M(d′) ∈ E]`` give
    ``ε_lb = max(0, ln((p_low − δ)/q_high), ln((q_low − δ)/p_high))``.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(d, size=k, rng=gen)`` returning ``k`` outputs (first axis) when it has a
        ``size`` parameter, else ``mechanism(d, rng=gen)`` returning one output. Outputs are
        numbers, fixed-length arrays (flattened) or :class:`~dpatlas.core.release.Release`
        objects (their ``value``). ``gen`` is a :class:`numpy.random.Generator` that the
        mechanism must draw all its randomness from.
    d, d_prime : object
        Two neighbouring inputs, passed through unchanged.
    epsilon : float
        Claimed ε (> 0).
    delta : float, default 0.0
        Claimed δ, in [0, 1).
    samples : int, default 200_000
        Runs per input (half to choose the event, half to test it).
    events : "auto", Event or sequence of Event, default "auto"
        ``"auto"`` searches all interval events; a sequence restricts the search to those
        events; a single Event is tested on all ``samples`` runs without a selection half.
    confidence : float, default 0.99
        Probability that ``ε_lb`` does not exceed the true ε.
    rng : None, int, numpy.random.Generator or RandomSource
        Seeds the mechanism runs and the split (``get_source(rng).generator()``); ``None`` uses
        the secure default.

    Returns
    -------
    AuditResult
        ``passed`` is False when ``ε_lb > epsilon``, i.e. a violation was detected.

    Notes
    -----
    Validity: let ``ε*`` be the smallest ε for which ``M`` is (ε, δ)-DP on ``(d, d′)``. The
    event depends only on the selection half, which is independent of the test half (the runs
    are i.i.d. and the split is a random permutation drawn before looking at outputs), so
    conditionally on ``E`` the test counts are Binomial(n, p) and Binomial(n, q) with ``E``
    fixed. Each of the four one-sided interval ends fails with probability at most
    ``(1 − confidence)/4`` (Bonferroni; intervals at ``1 − (1 − confidence)/2``); outside those
    failures ``p_low − δ <= p − δ <= e^{ε*} q <= e^{ε*} q_high`` and likewise with ``d, d′``
    swapped, so ``P[ε_lb > ε*] <= 1 − confidence``. An audit that passes is evidence, not a
    proof: it only examined these two inputs and these events.

    Reach: ``n`` test runs can show at most ``ε_lb ≈ ln(n / ln(4/(1 − confidence)))`` (9.7 for
    ``n = 100,000`` at 99%). Vector outputs are examined one coordinate at a time and through
    their sum; a loss spread over several coordinates (e.g. L1 sensitivity 2 over two cells)
    is only partly visible, as no joint event is searched. Mechanisms without ``size`` cost one
    Python call per run: use fewer ``samples`` for them.

    Examples
    --------
    A correct ε = 1 counting query (sensitivity 1) on neighbouring counts 3 and 4:

    >>> from dpatlas.core import discrete_laplace
    >>> def count(c, *, size, rng):
    ...     return discrete_laplace([c] * size, sensitivity=1, epsilon=1.0, rng=rng).value
    >>> result = audit(count, 3, 4, epsilon=1.0, samples=20_000, rng=7)
    >>> result.passed, 0.5 < result.epsilon_lb <= 1.0
    (True, True)
    >>> print(result)  # doctest: +ELLIPSIS
    audit passed: ε_lb = ... <= claimed ε = 1 (δ = 0, confidence 0.99)
      event E: o[0] ...
      p = P[M(d) ∈ E]  = ...
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable, got {mechanism!r}")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    samples = check_positive_int(samples, "samples", minimum=2)
    confidence = _check_confidence(confidence)
    fixed, candidates = _parse_events(events)
    gen = get_source(rng).generator()
    gen_d, gen_dp, gen_split = gen.spawn(3)
    out_d = _run(mechanism, d, samples, gen_d)
    out_dp = _run(mechanism, d_prime, samples, gen_dp)
    if out_d.shape[1] != out_dp.shape[1]:
        raise ValueError(
            f"outputs on d and d_prime differ in length ({out_d.shape[1]} vs "
            f"{out_dp.shape[1]}); the auditor needs fixed-length outputs"
        )
    if fixed is not None:
        event, test_d, test_dp = fixed, out_d, out_dp
    else:
        half = samples // 2
        perm_d, perm_dp = gen_split.permutation(samples), gen_split.permutation(samples)
        event, _ = select_event(
            out_d[perm_d[:half]],
            out_dp[perm_dp[:half]],
            delta=delta,
            confidence=confidence,
            candidates=candidates,
        )
        test_d, test_dp = out_d[perm_d[half : 2 * half]], out_dp[perm_dp[half : 2 * half]]
    n = test_d.shape[0]
    k_d, k_dp = int(event.contains(test_d).sum()), int(event.contains(test_dp).sum())
    bound, forward = epsilon_lower_bound(k_d, k_dp, n, delta=delta, confidence=confidence)
    level = 1.0 - (1.0 - confidence) / 2
    (p_low, p_high), (q_low, q_high) = (clopper_pearson(k, n, level) for k in (k_d, k_dp))
    return AuditResult(
        event=event,
        p=k_d / n,
        q=k_dp / n,
        p_interval=(float(p_low), float(p_high)),
        q_interval=(float(q_low), float(q_high)),
        epsilon_lb=float(bound),
        epsilon=epsilon,
        delta=delta,
        confidence=confidence,
        samples=samples,
        n_test=n,
        forward=bool(forward),
    )
