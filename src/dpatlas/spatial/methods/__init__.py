"""Release methods of :func:`~dpatlas.spatial.heatmap`: each a small function to a Release.

A method receives the exact, contribution-bounded data of one map (:class:`SiteCounts`: the
counts of the released cells, the kept sites' coordinates for methods that partition space,
and the sensitivity), the public grid, ε, the random source and the budget. It returns a
:class:`~dpatlas.core.release.Release` whose ``value`` holds one noisy count per released cell
(row-major order over ``grid.released``), having debited the budget once, before any noise.
Multi-level methods (:mod:`.adaptive`, :mod:`.privtree`, and :mod:`.auto` which picks one) are
added with :func:`register_method` and put their tree in the release's ``metadata``; extra
keyword-only parameters of a method are its options (``heatmap(..., method_options=...)``).
A method's refusals that rest on public inputs only (ε, the sensitivity, its options, the grid:
e.g. a part of ε whose noise cannot be sampled) are registered with :func:`register_check`,
and :func:`open_release` runs them before the sites are read.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import Charge, open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.noise.discrete_laplace import discrete_laplace, discrete_laplace_cost
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource
from dpatlas.core.validation import MAX_EPSILON, least_accepted
from dpatlas.spatial.grid import Grid

__all__ = [
    "CHECKS",
    "METHODS",
    "Method",
    "SiteCounts",
    "check_n_sites",
    "check_options",
    "open_release",
    "register_check",
    "register_method",
    "smallest_epsilon",
    "uniform",
]


@dataclass(frozen=True, eq=False)
class SiteCounts:
    """The private input of a method: never returned, never stored in a result.

    Attributes
    ----------
    counts : numpy.ndarray
        Exact int64 counts of the released cells, row-major over ``grid.released``.
    x, y : numpy.ndarray
        Coordinates (grid CRS) of the kept sites, before dropping those outside released cells.
    sensitivity : int
        L1 sensitivity of ``counts`` under the neighbour relation (``k``, or ``2k`` for replace).
    """

    counts: np.ndarray
    x: np.ndarray
    y: np.ndarray
    sensitivity: int


class Method(Protocol):
    """Signature of a release method."""

    def __call__(
        self,
        data: SiteCounts,
        grid: Grid,
        *,
        epsilon: float,
        source: RandomSource,
        budget: Budget | None,
    ) -> Release: ...


METHODS: dict[str, Method] = {}
CHECKS: dict[str, Callable[..., Charge]] = {}
"""Public checks of the methods, by name (:func:`register_check`)."""


def register_method(name: str) -> Callable[[Method], Method]:
    """Decorator that makes a method available as ``heatmap(..., method=name)``.

    Examples
    --------
    >>> METHODS["uniform"] is uniform
    True
    """

    def add(fn: Method) -> Method:
        METHODS[name] = fn
        return fn

    return add


def register_check(name: str) -> Callable[[Callable[..., Charge]], Callable[..., Charge]]:
    """Decorator that registers the public check of method ``name`` for :func:`open_release`.

    A check is called as ``check(grid, epsilon=..., sensitivity=..., **options)``, with every
    keyword option of the method (its defaults filled in); it reads public values only, raises
    what the method would raise on them, and returns the release's
    :class:`~dpatlas.core.accounting.charge.Charge`, opened without a budget.

    The registered check refuses an ε that is too small (one whose noise, or a part of ε,
    cannot be drawn exactly, while a larger ε passes with the same options) with a message
    that names ``epsilon=`` and the smallest ε the same check accepts
    (:func:`smallest_epsilon`).

    Examples
    --------
    >>> CHECKS["uniform"] is check_uniform
    True
    >>> g = Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> check_uniform(g, epsilon=1e-16, sensitivity=1)
    Traceback (most recent call last):
    ...
    ValueError: epsilon=1e-16 is too small for heatmap method 'uniform' ...; use epsilon >= 8.881784197001254e-16
    """

    def add(fn: Callable[..., Charge]) -> Callable[..., Charge]:
        @functools.wraps(fn)
        def check(grid: Grid, *, epsilon: float, sensitivity: int, **options: Any) -> Charge:
            def run(eps: float) -> Charge:
                return fn(grid, epsilon=eps, sensitivity=sensitivity, **options)

            try:
                return run(epsilon)
            except ValueError as err:
                if _SEARCHING.get():
                    raise
                smallest = smallest_epsilon(run, epsilon)
                if smallest is None:
                    raise
                settings = ", ".join(
                    [f"sensitivity {sensitivity}", *(f"{k}={v!r}" for k, v in options.items())]
                )
                raise ValueError(
                    f"epsilon={epsilon!r} is too small for heatmap method {name!r} ({settings}): "
                    "the noise it needs cannot be drawn exactly; "
                    f"use epsilon >= {smallest!r}"
                ) from err

        CHECKS[name] = check
        return check

    return add


_SEARCHING: contextvars.ContextVar[bool] = contextvars.ContextVar("_SEARCHING", default=False)
"""True while :func:`smallest_epsilon` runs a check (an inner check then does not search)."""


def smallest_epsilon(run: Callable[[float], object], epsilon: float) -> float | None:
    """The smallest float ε above ``epsilon`` that ``run`` accepts, if ``epsilon`` is too small.

    ``run(ε)`` raises ValueError to refuse ε. When ``epsilon`` (a float in ``(0, 1e6)``) is
    refused and the largest ε, ``1e6``, is accepted, the float boundary in between is found
    by bisection on the floats' bit patterns: the result is accepted and the float just
    below it is refused, by ``run`` itself. Otherwise (``epsilon`` is not the reason) None.

    Examples
    --------
    >>> def run(eps):
    ...     if eps < 0.1:
    ...         raise ValueError("too small")
    >>> smallest_epsilon(run, 1e-5), smallest_epsilon(run, 1.0)
    (0.1, None)
    """
    if not (isinstance(epsilon, float) and 0.0 < epsilon < MAX_EPSILON):
        return None

    def accepts(eps: float) -> bool:
        try:
            run(eps)
        except ValueError:
            return False
        return True

    token = _SEARCHING.set(True)
    try:
        if accepts(epsilon) or not accepts(MAX_EPSILON):
            return None
        return least_accepted(accepts, epsilon, MAX_EPSILON)
    finally:
        _SEARCHING.reset(token)


def open_release(
    method: str, grid: Grid, *, epsilon: float, sensitivity: int, options: Mapping[str, Any]
) -> Charge:
    """Refuse, before the sites are read, what ``method`` would refuse on public inputs alone.

    Runs the method's registered check (:func:`register_check`) with ``options`` over the
    method's defaults: bad options, or a part of ε whose noise scale the exact samplers cannot
    draw. The caller checks the returned charge's cost against its budget.

    Returns
    -------
    Charge
        The release's charge, opened without a budget (nothing to spend); the method opens
        and debits its own.

    Examples
    --------
    >>> g = Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> open_release("uniform", g, epsilon=0.5, sensitivity=1, options={})
    Charge(Cost(epsilon=0.5, delta=0.0, rho=0.125), mechanism='heatmap/uniform', open)
    >>> open_release("uniform", g, epsilon=1e-300, sensitivity=1, options={})
    Traceback (most recent call last):
    ...
    ValueError: epsilon=1e-300 is too small for heatmap method 'uniform' ...; use epsilon >= 8.881784197001254e-16
    """
    check = CHECKS.get(method)
    if check is None:
        return open_charge(Cost.pure(epsilon), None, mechanism=f"heatmap/{method}")
    params = inspect.signature(METHODS[method]).parameters.values()
    defaults = {
        p.name: p.default for p in params if p.kind is p.KEYWORD_ONLY and p.default is not p.empty
    }
    return check(grid, epsilon=epsilon, sensitivity=sensitivity, **{**defaults, **options})


def check_n_sites(n_sites: Any) -> float | None:
    """``n_sites`` as a float (a public count of sites, finite and ``>= 0``), or None.

    Examples
    --------
    >>> check_n_sites(np.int64(200)), check_n_sites(None)
    (200.0, None)
    >>> check_n_sites(float("inf"))
    Traceback (most recent call last):
    ...
    ValueError: n_sites must be a finite public number >= 0 or None, got inf
    """
    if n_sites is None:
        return None
    real = isinstance(n_sites, (int, float, np.integer, np.floating)) and not isinstance(
        n_sites, (bool, np.bool_)
    )
    if not (real and np.isfinite(n_sites) and n_sites >= 0):
        raise ValueError(f"n_sites must be a finite public number >= 0 or None, got {n_sites!r}")
    return float(n_sites)


def check_options(method: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate ``method`` and its keyword ``options`` before any work; return the options.

    Examples
    --------
    >>> check_options("uniform", None)
    {}
    >>> check_options("uniform", {"n_sites": 10})
    Traceback (most recent call last):
    ...
    TypeError: method 'uniform' has no option 'n_sites'; its options are: none
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(f"method_options must be a mapping of keyword options, got {options!r}")
    params = inspect.signature(METHODS[method]).parameters
    fixed = ("epsilon", "source", "budget", "target")
    accepted = [n for n, p in params.items() if p.kind is p.KEYWORD_ONLY and n not in fixed]
    for name in options or {}:
        if name not in accepted:
            raise TypeError(
                f"method {method!r} has no option {name!r}; its options are: "
                f"{', '.join(accepted) or 'none'}"
            )
    return dict(options or {})


@register_check("uniform")
def check_uniform(grid: Grid, *, epsilon: float, sensitivity: int) -> Charge:
    """The uniform grid's charge: ε for the map, and its one scale ``Δ/ε`` checked.

    Examples
    --------
    >>> g = Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> check_uniform(g, epsilon=0.25, sensitivity=2).cost.epsilon
    0.25
    """
    return open_charge(
        discrete_laplace_cost(sensitivity, epsilon),
        None,
        mechanism="heatmap/uniform",
        note=_uniform_note(grid),
        scales=[Fraction(sensitivity) / exact_epsilon(epsilon)],
    )


def _uniform_note(grid: Grid) -> str:
    """The uniform grid's label in the budget's history, the same for its check and its debit."""
    return f"{grid.n_released} cells of {grid.cell_size:g} m, parallel composition"


@register_method("uniform")
def uniform(
    data: SiteCounts,
    grid: Grid,
    *,
    epsilon: float,
    source: RandomSource,
    budget: Budget | None,
) -> Release:
    """Uniform grid (UG, Qardaji–Yang–Li 2013): discrete Laplace ``k/ε`` on every released cell.

    Privacy (parallel composition): the cells are disjoint, so one individual's (at most
    ``k``) kept sites lie in at most ``k`` cells and change the count vector by at most ``k``
    in L1 (``2k`` under replace). The vector ``counts + Z`` with independent discrete Laplace
    ``Z_i`` of scale ``Δ/ε`` is therefore ε-DP as one release (the density ratio is
    ``exp(|c - c'|_1 / scale) <= exp(ε)``), whatever the number of cells: the whole map costs
    ε, not ε per cell, and the core debits ε once.

    Examples
    --------
    >>> from dpatlas.core.rng import get_source
    >>> g = Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> data = SiteCounts(np.array([5, 0]), np.empty(0), np.empty(0), sensitivity=1)
    >>> rel = uniform(data, g, epsilon=1.0, source=get_source(0), budget=None)
    >>> rel.value.shape, rel.scale, rel.mechanism
    ((2,), 1.0, 'heatmap/uniform')
    """
    return discrete_laplace(
        data.counts,
        sensitivity=data.sensitivity,
        epsilon=epsilon,
        rng=source,
        budget=budget,
        mechanism="heatmap/uniform",
        note=_uniform_note(grid),
    )
