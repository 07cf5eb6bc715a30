"""Refuse, before anything is spent, a count release whose noise cannot be sampled (internal).

The noise of a count release is drawn after ``budget.spend``; its sampler refuses a scale it
cannot represent exactly (:func:`~dpatlas.core.noise.discrete_laplace.rational_scale`, above about
``2**50``). :func:`check_count_noise` runs every such check first, on public values only: the
method, ε, δ, the global sensitivity ``GS`` and the interval's ε. For the smooth method the
scale ``c·S/ε`` depends on the private smooth sensitivity ``S <= GS``, so the check uses
``c·GS/ε``: the samplers refuse only scales above a size, hence every ``S <= GS`` passes when
``GS`` does, and whether a release is refused never depends on the graph beyond ``GS``.
"""

from __future__ import annotations

from dpatlas.core.noise.discrete_laplace import check_scales
from dpatlas.core.noise.ladder import step_scale
from dpatlas.core.noise.smooth import smooth_scale

__all__ = ["COUNT_LIMIT", "check_count_noise", "count_value"]

COUNT_LIMIT = 2**61 - 1
"""The largest exact count the count releases noise; larger counts are clamped to it."""


def count_value(exact: int) -> int:
    """``min(exact, COUNT_LIMIT)``: the exact count inside the mechanisms' public range.

    The core's ladder, smooth and discrete Laplace mechanisms add int64 noise to values below
    ``2**61`` in magnitude. A larger count is clamped, not refused: a refusal would reveal
    whether the count exceeds ``2**61`` (one bit of the data, for free). Proof that clamping
    keeps every release private: ``f ↦ min(f, C)`` never moves two counts further apart
    (``|min(a, C) - min(b, C)| <= |a - b|``), so a global sensitivity, a local sensitivity
    ``I_0`` (ladder condition (L1)) or a smooth bound (S1) of ``f`` is one of ``min(f, C)``
    too, and (L2), (S2) concern the ladder alone. The release is then of ``min(f, C)`` at the
    same ε. No graph that fits in memory comes near: ``T <= (2m)^{3/2} / 6``.

    Examples
    --------
    >>> count_value(45), count_value(2**70) == COUNT_LIMIT
    (45, True)
    """
    return min(int(exact), COUNT_LIMIT)


def check_count_noise(
    method: str, epsilon: float, delta: float, global_sensitivity: int, interval_epsilon: float
) -> None:
    """Raise the sampler's ValueError now if the release's noise could not be drawn later.

    Examples
    --------
    >>> check_count_noise("ladder", 1.0, 0.0, 10, 0.25)
    >>> check_count_noise("ladder", 1e-300, 0.0, 10, 0.0)
    Traceback (most recent call last):
    ...
    ValueError: noise scale sensitivity/epsilon is about 2**998, too large (> 2**50) ...
    """
    if global_sensitivity == 0:  # a constant count: no noise at all
        return
    if method == "global":
        check_scales(global_sensitivity, epsilon)
        return
    if method in ("ladder", "piecewise"):  # the piecewise rate is >= ε/2: 1/rate <= 2/ε
        step_scale(epsilon)
    else:
        smooth_scale(global_sensitivity, epsilon, delta)
    if interval_epsilon:
        check_scales(1, interval_epsilon)
