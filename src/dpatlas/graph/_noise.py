"""The cost and the noise scales of a count release, from public values (internal).

The noise of a count release is drawn after the debit; its sampler refuses a scale it cannot
represent exactly (:func:`~dpatlas.core.noise.discrete_laplace.rational_scale`, above about
``2**50``). :func:`count_scales` lists every such scale from public values only (the method,
ε, δ, the global sensitivity ``GS`` and the interval's ε), and the release's charge
(:func:`~dpatlas.core.accounting.charge.open_charge`) refuses them before the debit;
:func:`count_cost` is the release's privacy map. For the smooth method the
scale ``c·S/ε`` depends on the private smooth sensitivity ``S <= GS``, so the check uses
``c·GS/ε``: the samplers refuse only scales above a size, hence every ``S <= GS`` passes when
``GS`` does, and whether a release is refused never depends on the graph beyond ``GS``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.noise.local.piecewise_ladder import piecewise_scale

__all__ = ["COUNT_LIMIT", "PublicChecks", "count_cost", "count_scales", "count_value"]

COUNT_LIMIT = 2**61 - 1
"""The largest exact count the count releases noise; larger counts are clamped to it."""


class PublicChecks(NamedTuple):
    """What a graph release's public checks (``check_<release>``) give once they pass.

    ``cost`` is what the release debits; ``scales`` are the noise scales known from public
    values, those that depend on the number of nodes only when it was given. Both go to
    :func:`~dpatlas.core.accounting.charge.open_charge`, which refuses a scale the exact
    samplers cannot draw, or a cost the budget cannot pay, before the graph is read.
    """

    cost: Cost
    scales: tuple[Fraction, ...]


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


def count_cost(epsilon: float, delta: float, interval_epsilon: float = 0.0) -> Cost:
    """Privacy map of a count release: the count at (ε, δ), plus the interval's bound at pure
    ``interval_epsilon`` (sequential composition; the bound's sensitivity is 1).

    Examples
    --------
    >>> count_cost(1.0, 0.0, 0.25)
    Cost(epsilon=1.25, delta=0.0, rho=0.53125)
    >>> count_cost(1.0, 1e-6).rho is None
    True
    """
    cost = Cost.approx(epsilon, delta)
    return cost + Cost.pure(interval_epsilon) if interval_epsilon else cost


def count_scales(
    method: str, epsilon: float, delta: float, global_sensitivity: int, interval_epsilon: float
) -> list[Fraction]:
    """The largest noise scales a count release can draw, from public values only.

    Global: ``GS/ε``; ladder: the rung scale ``2/ε``; piecewise: its sampler's bound
    :func:`~dpatlas.core.noise.local.piecewise_ladder.piecewise_scale` (``(2/ε)(1 + 1e-8)``:
    the rate is ``ε/2 (1 - 1e-9)`` at a floor of 0 or 1), the scale its own charge checks, so
    that it cannot refuse after this one has debited; smooth: ``c·GS/ε`` (``c`` = 6 Cauchy,
    2 Laplace), which bounds ``c·S/ε`` for every private smooth bound ``S <= GS``; the
    interval's bound: ``1/ε_interval``. The charge refuses one the exact samplers cannot draw
    before anything is spent.

    Examples
    --------
    >>> count_scales("ladder", 1.0, 0.0, 10, 0.25)
    [Fraction(2, 1), Fraction(4, 1)]
    >>> count_scales("smooth", 0.5, 1e-6, 10, 0.0)
    [Fraction(40, 1)]
    """
    if global_sensitivity == 0:  # a constant count: no noise at all
        return []
    eps = exact_epsilon(epsilon)
    if method == "global":
        return [Fraction(global_sensitivity) / eps]
    if method == "ladder":
        scales = [Fraction(2) / eps]
    elif method == "piecewise":
        scales = [piecewise_scale(epsilon, global_sensitivity)]
    else:
        scales = [(6 if delta == 0 else 2) * Fraction(global_sensitivity) / eps]
    if interval_epsilon:
        scales.append(1 / exact_epsilon(interval_epsilon))
    return scales
