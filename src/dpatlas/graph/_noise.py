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

__all__ = ["check_count_noise"]


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
    if method == "ladder":
        step_scale(epsilon)
    else:
        smooth_scale(global_sensitivity, epsilon, delta)
    if interval_epsilon:
        check_scales(1, interval_epsilon)
