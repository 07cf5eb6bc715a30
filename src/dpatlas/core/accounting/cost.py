"""One owner for privacy cost: the :class:`Cost` of a release, and the one step that pays it.

A :class:`Cost` is a frozen, validated ``(ε, δ, ρ)``: the (ε, δ)-DP guarantee of a release and,
when one is known, its zCDP cost ρ. Every release computes its cost from its *public*
parameters with the privacy map that sits beside its mechanism
(:func:`~dpatlas.core.noise.discrete_laplace.discrete_laplace_cost`,
:func:`~dpatlas.core.noise.gaussian.gaussian_plan`, :func:`~dpatlas.core.noise.local.ladder.ladder_cost`,
:func:`~dpatlas.core.noise.local.smooth.smooth_cost`, ``count_cost`` of the graph counts, the parts of
a heatmap method, ...), then pays it with one step,
:func:`~dpatlas.core.accounting.charge.open_charge`:

1. ``charge = open_charge(cost, budget, mechanism=..., scales=...)``, *before the data is
   read*: refuses a noise scale the exact samplers cannot draw (``scales``, public) and a cost
   the budget cannot afford (:class:`~dpatlas.errors.BudgetExceededError`); nothing is spent;
2. read the data, compute the exact answer (refusals here spend nothing either);
3. ``charge.debit(scales)``, exactly once, *before any noise is drawn* (a second call
   raises); ``scales`` known only from the public part of the input (a graph's node count)
   are refused here, still before anything is spent;
4. draw the noise and return ``charge.release(ReleaseClass, value=..., ...)``: the
   :class:`~dpatlas.core.release.Release` takes its ``epsilon``, ``delta`` and ``rho`` from the
   cost that was debited (and refuses to be built before the debit).

A failure after the debit (an error while drawing noise, memory) propagates: the debit stands
and no output is returned. ``budget=None`` runs the same steps and spends nothing.

Arithmetic. A cost is read as the decimal the user typed (``repr``), as budgets and ledgers add
spends (:func:`~dpatlas.core.accounting.records.dec`): ``0.4 + 0.1`` composes to ``0.5``.
Every operation is exact on those decimals and rounds *up* once to a float:
``Cost.pure(ε)`` has ``ρ = ε²/2`` (Bun & Steinke 2016, Prop. 1.4; the only place this
conversion is computed in dpatlas), sequential composition ``a + b`` adds ε, δ and ρ, and
``k * cost`` is the k-fold composition, so a total never rounds below the sum. δ saturates
at 1 (a composition of many (ε, δ) draws may protect nothing, which is still a true
statement; a budget refuses it). :func:`split` cuts an ε into parts whose sum is at most the
whole, so a release made of parts charges exactly its declared ε.

The noise is calibrated to that same decimal: every exact noise scale and privacy-loss bound
is built from :func:`exact_epsilon` (``1 / exact_epsilon(0.1) == 10``), never from the
binary float (``Fraction(0.1)`` is ``0.1000000000000000055...``: noise of scale
``1/Fraction(0.1)`` is that ε, above the ``0.1`` charged), so a release is ε-DP for exactly
the ε its budget is debited. Calibrations done in floats (the Gaussian's σ, the smoothness β,
the piecewise ladder's θ, PrivTree's λ) keep margins far above the relative ``2**-53``
between the two, stated in their proofs.

How to add a release
--------------------
1. Beside the mechanism, write its privacy map: a function of the public parameters that
   returns the :class:`Cost` (``Cost.pure(epsilon)``, ``Cost.approx(epsilon, delta)``,
   ``Cost.zcdp(epsilon, delta, rho)``; composite releases add their parts' costs with ``+``
   and draw their ε parts from :func:`split`), and the exact noise scales it will draw
   (``sensitivity / exact_epsilon(epsilon)``, a :class:`~fractions.Fraction`, one per noise
   draw family; an ε part from :func:`split` likewise).
2. In the release function, validate every public parameter, then call ``open_charge``
   before touching the data (graph releases: before ``as_edge_graph``; maps: before
   ``site_counts``; core mechanisms: before reading the values' entries).
3. After the exact answer is computed and before the first random word is drawn, call
   ``charge.debit()`` (a backend that computes the answer elsewhere calls it through its
   ``checked`` callback). Inner parts of a composite release call the core mechanisms
   with ``budget=None``: the outer charge pays for them once.
4. Build the result with ``charge.release(Kind, value=..., mechanism=..., ...)``.
5. Add a case to the contract suite (``tests/privacy/_releases.py``): it then checks the
   refusal order, the exact debit, the noise distribution and the audit for the new release;
   a meta-test fails while a public release function has no case.

Examples
--------
>>> from dpatlas.core.accounting.cost import Cost  # the canonical class (doctests re-import)
>>> Cost.pure(1.0)
Cost(epsilon=1.0, delta=0.0, rho=0.5)
>>> Cost.pure(0.5) + Cost.approx(1.0, 1e-6)
Cost(epsilon=1.5, delta=1e-06, rho=None)
>>> 3 * Cost.pure(0.5)
Cost(epsilon=1.5, delta=0.0, rho=0.375)
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from dpatlas.core.validation import check_delta, check_epsilon

__all__ = ["Cost", "exact_epsilon", "split"]


def exact_epsilon(x: float) -> Fraction:
    """The exact rational a budget charges for ``x``: the decimal the user typed (``repr``).

    Budgets and ledgers add spends as these decimals (:func:`~.records.dec`), so every noise
    scale and privacy-loss bound built as an exact rational from a charged ε (or an ε part
    from :func:`split`) is built from this value, not from the binary float: the noise is
    then calibrated to exactly the ε charged. The binary ``0.1`` is
    ``0.1000000000000000055...``; noise of scale ``1/Fraction(0.1)`` would be that ε, above
    the ``0.1`` charged. (The same reading applies to δ and ρ: :class:`Cost` adds them so.)

    Examples
    --------
    >>> exact_epsilon(0.1), 1 / exact_epsilon(0.3)
    (Fraction(1, 10), Fraction(10, 3))
    >>> exact_epsilon(0.1) == Fraction(0.1), exact_epsilon(0.5) == Fraction(0.5)
    (False, True)
    """
    return Fraction(Decimal(repr(float(x))))


_LARGEST = Fraction(sys.float_info.max)


def _up(x: Fraction, name: str) -> float:
    """The smallest float whose typed decimal is ``>= x``; ``name`` says what overflowed."""
    if x > _LARGEST:
        raise OverflowError(
            f"{name} is above the largest float ({sys.float_info.max:.3g}): a cost this large "
            "protects nothing and cannot be accounted; use a smaller epsilon or fewer releases"
        )
    f = float(x)
    while f > 0 and exact_epsilon(math.nextafter(f, 0.0)) >= x:
        f = math.nextafter(f, 0.0)
    while exact_epsilon(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def _amount(x: Any, name: str, upper: float = math.inf) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {x!r} of type {type(x).__name__}")
    v = float(x)
    if not (math.isfinite(v) and 0 <= v <= upper):
        limit = "finite number >= 0" if upper == math.inf else f"number in [0, {upper:g}]"
        raise ValueError(f"{name} must be a {limit}, got {v!r}")
    return v


def _sum(values: Iterable[float], name: str) -> float:
    return _up(sum((exact_epsilon(v) for v in values), Fraction(0)), name)


@dataclass(frozen=True)
class Cost:
    """The privacy cost of a release: (ε, δ)-DP and, when known, ρ-zCDP.

    Parameters
    ----------
    epsilon : float
        ε >= 0, finite.
    delta : float, default 0.0
        δ in [0, 1] (1, reached only by composition, protects nothing; budgets refuse it).
    rho : float, optional
        The zCDP cost, finite >= 0. For ``delta == 0`` it defaults to ``ε²/2`` (a pure ε-DP
        release is ``ε²/2``-zCDP, Bun & Steinke 2016, Prop. 1.4); for ``delta > 0`` it is
        None unless the mechanism proves one (the Gaussian mechanism does).

    Examples
    --------
    >>> Cost(0.1)
    Cost(epsilon=0.1, delta=0.0, rho=0.005000000000000001)
    >>> Cost(1.0, 1e-6)
    Cost(epsilon=1.0, delta=1e-06, rho=None)
    >>> Cost(-1.0)
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be a finite number >= 0, got -1.0
    """

    epsilon: float
    delta: float = 0.0
    rho: float | None = None

    def __post_init__(self) -> None:
        eps = _amount(self.epsilon, "epsilon")
        delta = _amount(self.delta, "delta", 1.0)
        if self.rho is not None:
            rho = _amount(self.rho, "rho")
        elif delta == 0:
            x = exact_epsilon(eps)
            # ε²/2, rounded up: the one place this conversion is made
            rho = _up(x * x / 2, "rho = epsilon²/2")
        else:
            rho = None
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "rho", rho)

    @classmethod
    def pure(cls, epsilon: float) -> Cost:
        """Pure ε-DP (ε > 0 as every release takes it), with ``ρ = ε²/2``."""
        return cls(check_epsilon(epsilon))

    @classmethod
    def approx(cls, epsilon: float, delta: float) -> Cost:
        """(ε, δ)-DP without a zCDP bound (``delta = 0`` is :meth:`pure`)."""
        return cls(check_epsilon(epsilon), check_delta(delta))

    @classmethod
    def zcdp(cls, epsilon: float, delta: float, rho: float) -> Cost:
        """A release that is both (ε, δ)-DP and ρ-zCDP (e.g. Gaussian noise: ``ρ = Δ²/2σ²``)."""
        r = check_epsilon(rho, "rho", maximum=math.inf)
        return cls(check_epsilon(epsilon), check_delta(delta), r)

    @classmethod
    def compose(cls, costs: Iterable[Cost]) -> Cost:
        """Sequential composition of any number of costs, each total rounded up once.

        Examples
        --------
        >>> Cost.compose([Cost.pure(0.25), Cost.pure(0.25), Cost.pure(0.5)])
        Cost(epsilon=1.0, delta=0.0, rho=0.1875)
        >>> Cost.compose([])
        Cost(epsilon=0.0, delta=0.0, rho=0.0)
        """
        parts = list(costs)
        for part in parts:
            if not isinstance(part, Cost):
                raise TypeError(f"costs must be Cost values, got {part!r}")
        rhos = [p.rho for p in parts]
        delta = _up(
            min(sum((exact_epsilon(p.delta) for p in parts), Fraction(0)), Fraction(1)), "delta"
        )
        rho = (
            None
            if any(r is None for r in rhos)
            else _sum((r for r in rhos if r is not None), "the composed rho")
        )
        return cls(_sum((p.epsilon for p in parts), "the composed epsilon"), delta, rho)

    def __add__(self, other: Cost) -> Cost:
        """Sequential composition (Dwork & Roth 2014, Thm. 3.16; zCDP: Bun & Steinke, Lemma 2.3)."""
        if not isinstance(other, Cost):
            return NotImplemented
        return Cost.compose([self, other])

    def __mul__(self, k: int) -> Cost:
        """``k`` independent releases at this cost: the k-fold composition."""
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
            raise TypeError(f"a cost can be multiplied by an integer k >= 0, got {k!r}")
        n = int(k)
        delta = _up(min(exact_epsilon(self.delta) * n, Fraction(1)), "delta")
        rho = None if self.rho is None else _up(exact_epsilon(self.rho) * n, "the k-fold rho")
        return Cost(_up(exact_epsilon(self.epsilon) * n, "the k-fold epsilon"), delta, rho)

    __rmul__ = __mul__


def split(epsilon: float, shares: Sequence[float]) -> tuple[float, ...]:
    """Parts ``ε·share_i`` of ``epsilon`` whose sum is at most ``epsilon``, as budgets add.

    Every part but the last is ``fl(ε·share_i)``; the last is the largest float whose typed
    decimal keeps the sum of the parts' decimals ``<= ε`` (the rest, when representable). So
    the parts' composition (:meth:`Cost.compose`) is ``epsilon`` itself.

    Examples
    --------
    >>> split(1.0, [0.5, 0.5]), split(1.0, [1 / 3, 2 / 3])
    ((0.5, 0.5), (0.3333333333333333, 0.6666666666666667))
    >>> Cost.compose(Cost.pure(e) for e in split(0.3, [0.2, 0.3, 0.5])).epsilon
    0.3
    """
    eps = check_epsilon(epsilon)
    if not shares:
        raise ValueError("shares must hold at least one share")
    head = [eps * float(s) for s in shares[:-1]]
    room = exact_epsilon(eps) - sum((exact_epsilon(p) for p in head), Fraction(0))
    last = float(room) if room > 0 else 0.0
    while last > 0 and exact_epsilon(last) > room:
        last = math.nextafter(last, 0.0)
    if not all(p > 0 for p in (*head, last)):
        raise ValueError(
            f"shares must be > 0 and sum to at most 1, got {list(shares)!r} of epsilon={eps!r}"
        )
    return (*head, last)
