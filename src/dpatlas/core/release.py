"""The record of one private release: the noisy value and everything needed to read it.

A :class:`Release` is immutable. It carries the privacy cost (``epsilon``, ``delta``, ``rho``),
the mechanism, the sensitivity, the noise distribution and its *public* scale, and whether the
noise came from a seeded (reproducible, therefore not secret) source. Confidence intervals and
variances are computed from the registered noise distribution and the public scale only, so
they are post-processing and cost no privacy.

When the noise scale depends on the data (smooth sensitivity, ladder functions) the scale is
itself private: such releases set ``scale=None`` and an interval needs a separate private bound.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpatlas.core.validation import check_level

__all__ = ["NoiseModel", "Release", "noise_model", "register_noise"]


@dataclass(frozen=True)
class NoiseModel:
    """How to read noise of one distribution: interval half-width and variance from the scale."""

    halfwidth: Callable[[float, float], float]
    variance: Callable[[float], float]


_NOISE: dict[str, NoiseModel] = {}


def register_noise(
    name: str,
    *,
    halfwidth: Callable[[float, float], float],
    variance: Callable[[float], float],
) -> None:
    """Register a noise distribution by name (done once by each mechanism module).

    ``halfwidth(scale, level)`` returns the smallest ``h`` with ``P(|noise| <= h) >= level``;
    ``variance(scale)`` the noise variance.
    """
    _NOISE[name] = NoiseModel(halfwidth=halfwidth, variance=variance)


def noise_model(name: str) -> NoiseModel:
    """The registered noise distribution ``name``.

    Examples
    --------
    Each mechanism module registers its noise on import (``discrete_laplace``, ``gaussian``,
    ...); a model of one's own is registered the same way:

    >>> register_noise("rounding", halfwidth=lambda b, level: b * level, variance=lambda b: b * b / 12)
    >>> noise_model("rounding").halfwidth(2.0, 0.5)
    1.0
    """
    try:
        return _NOISE[name]
    except KeyError:
        raise ValueError(f"no noise model registered for {name!r}") from None


def _plain(x: Any) -> Any:
    """``x`` in JSON's types: arrays as lists, numpy scalars as Python ones, others as str."""
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, np.generic):
        return _plain(x.item())
    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)  # e.g. an exponential mechanism's candidate of the user's own type


@dataclass(frozen=True)
class Release:
    """One differentially private release.

    Attributes
    ----------
    value : int, float or numpy.ndarray
        The private output (never the exact answer).
    epsilon, delta : float
        The privacy cost of this release, debited from the budget when one was given.
    mechanism : str
        What produced it, e.g. ``"discrete_laplace"`` or ``"triangle_count/ladder"``.
    sensitivity : float or None
        The global sensitivity used (``None`` for data-dependent mechanisms).
    scale : float or None
        The public noise scale, or ``None`` when the scale depends on the data.
    noise : str or None
        The registered noise distribution the scale refers to.
    seeded : bool
        True when the noise came from a seeded source: reproducible, for tests and teaching only.
    rho : float or None
        The zCDP cost, when defined.
    metadata : dict
        Free-form, JSON-serialisable details (method options, budget split, notes).

    Examples
    --------
    >>> from dpatlas.core.noise.discrete_laplace import discrete_laplace
    >>> rel = discrete_laplace(100, sensitivity=1, epsilon=1.0, rng=7)
    >>> rel.epsilon, rel.mechanism, rel.seeded
    (1.0, 'discrete_laplace', True)
    >>> low, high = rel.confidence_interval(0.95)
    >>> int(high - low)
    6
    >>> rel.to_dict()["noise"]
    'discrete_laplace'
    """

    value: Any
    epsilon: float
    delta: float
    mechanism: str
    sensitivity: float | None
    scale: float | None
    noise: str | None
    seeded: bool
    rho: float | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def _model(self) -> NoiseModel:
        if self.scale is None or self.noise is None:
            raise ValueError(
                f"{self.mechanism!r} has no public noise scale (the scale depends on the data and "
                "is private, or the output is a selection or a ratio), so no interval can be "
                "computed from the release alone; see the release function's docs for a private "
                "interval (it spends a stated part of epsilon on a noisy bound) or an estimator"
            )
        return noise_model(self.noise)

    def variance(self) -> float:
        """Variance of the noise added to each value (public: a function of the scale)."""
        return self._model().variance(float(self.scale))  # type: ignore[arg-type]

    def confidence_interval(self, level: float = 0.95) -> tuple[Any, Any]:
        """Interval that contains the exact answer with probability >= ``level``.

        Computed from the noise distribution and the public scale only (post-processing).
        For arrays, the interval holds for each entry separately.
        """
        h: float | int = self._model().halfwidth(float(self.scale), check_level(level))  # type: ignore[arg-type]
        v = np.asarray(self.value)
        if np.issubdtype(v.dtype, np.integer) and float(h).is_integer():
            h = int(h)
        low, high = v - h, v + h
        if v.ndim == 0:
            return low.item(), high.item()
        return low, high

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary of the release (values of other types as their ``str``).

        Examples
        --------
        >>> import datetime
        >>> rel = Release(np.array([1, 2]), 1.0, 0.0, "x", None, None, None, False)
        >>> day = Release(datetime.date(2026, 1, 2), 1.0, 0.0, "x", None, None, None, False)
        >>> rel.to_dict()["value"], day.to_dict()["value"]
        ([1, 2], '2026-01-02')
        """
        return {
            "value": _plain(self.value),
            "epsilon": self.epsilon,
            "delta": self.delta,
            "rho": self.rho,
            "mechanism": self.mechanism,
            "sensitivity": self.sensitivity,
            "scale": self.scale,
            "noise": self.noise,
            "seeded": self.seeded,
            "metadata": _plain(dict(self.metadata)),
        }

    def to_json(self, **kwargs: Any) -> str:
        """The release as a JSON string (``kwargs`` go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), **kwargs)
