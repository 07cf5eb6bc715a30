"""Validation at the boundary: turn user input into checked Python and numpy values.

Messages name the parameter, echo the value and say how to fix it.
"""

from __future__ import annotations

import codecs
import math
import numbers
import struct
from collections.abc import Callable
from typing import Any, cast

import numpy as np

__all__ = [
    "as_float_array",
    "as_int_array",
    "check_character",
    "check_delta",
    "check_encoding",
    "check_epsilon",
    "check_level",
    "check_positive_int",
    "check_sensitivity",
    "is_integer_text",
    "percent",
    "value_count",
]


def _real(x: Any, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {x!r} of type {type(x).__name__}")
    return float_or_inf(x)


def float_or_inf(x: numbers.Real) -> float:
    """``float(x)``, with an int beyond the float range as ``±inf`` (for the range checks).

    Examples
    --------
    >>> float_or_inf(10**400), float_or_inf(-(10**400)), float_or_inf(3)
    (inf, -inf, 3.0)
    """
    try:
        return float(x)
    except OverflowError:
        return math.inf if cast(int, x) > 0 else -math.inf


MAX_EPSILON = 1e6


def check_epsilon(x: Any, name: str = "epsilon", *, maximum: float = MAX_EPSILON) -> float:
    """Return ``x`` as a float after checking it is finite, > 0 and <= ``maximum``.

    The default cap of 1e6 is far beyond any meaningful guarantee (ε = 50 already lets an
    adversary tell neighbours apart with odds of e^50) and keeps ε², e^ε and Δ/ε finite.

    Examples
    --------
    >>> check_epsilon(0.5)
    0.5
    >>> check_epsilon(-1)
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be a finite number > 0, got -1.0
    >>> check_epsilon(1e300)
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be at most 1e+06, got 1e+300; a larger epsilon protects nothing
    """
    v = _real(x, name)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {v!r}")
    if v > maximum:
        raise ValueError(
            f"{name} must be at most {maximum:g}, got {v:g}; a larger {name} protects nothing"
        )
    return v


def check_delta(x: Any, name: str = "delta") -> float:
    """Return ``x`` as a float after checking 0 <= x < 1.

    Examples
    --------
    >>> check_delta(1e-6)
    1e-06
    >>> check_delta(1.0)
    Traceback (most recent call last):
    ...
    ValueError: delta must be in [0, 1), got 1.0; use a small value such as 1e-6, or 0 for pure DP
    """
    v = _real(x, name)
    if not (0.0 <= v < 1.0):
        raise ValueError(
            f"{name} must be in [0, 1), got {v!r}; use a small value such as 1e-6, or 0 for pure DP"
        )
    return v


def check_sensitivity(x: Any, name: str = "sensitivity") -> float:
    """Return ``x`` as a float, rounded up, after checking it is finite and > 0.

    An int above ``2**53`` or a fraction may have no float equal to it; the float just above it
    is returned (``float(x)`` rounds to the nearest, possibly below: noise calibrated to it
    would be too small).

    Examples
    --------
    >>> check_sensitivity(2)
    2.0
    >>> check_sensitivity(2**53 + 1) == 2**53 + 2
    True
    >>> check_sensitivity(float("inf"))
    Traceback (most recent call last):
    ...
    ValueError: sensitivity must be a finite number > 0, got inf; bound each individual's contribution first
    """
    v = _real(x, name)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(
            f"{name} must be a finite number > 0, got {v!r}; "
            "bound each individual's contribution first"
        )
    exact = int(x) if isinstance(x, numbers.Integral) else x  # numpy ints compare as floats
    return math.nextafter(v, math.inf) if v < exact else v


def least_accepted(accepts: Callable[[float], bool], refused: float, accepted: float) -> float:
    """The least float in ``(refused, accepted]`` that ``accepts``, by bisection on the floats'
    bit patterns (positive floats order as their bits do); ``accepts`` must be monotone there.

    The result is accepted and the float just below it is refused, by ``accepts`` itself: a
    message can state the smallest value a check takes, exactly. ``refused`` must be refused
    and ``accepted`` accepted (positive floats, ``refused < accepted``): a ValueError if not.

    Examples
    --------
    >>> least_accepted(lambda x: x >= 0.1, 1e-5, 1.0)
    0.1
    """
    if not (0.0 < refused < accepted) or accepts(refused) or not accepts(accepted):
        raise ValueError(
            f"least_accepted needs 0 < refused < accepted with refused refused and accepted "
            f"accepted, got refused={refused!r}, accepted={accepted!r}"
        )
    low, high = _bits(refused), _bits(accepted)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if accepts(_float(mid)) else (mid, high)
    return _float(high)


def _bits(x: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", x))[0])


def _float(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", bits))[0])


MAX_LEVEL = 1 - 1e-9
"""The highest interval level: tails of 1e-9 and more are computed with a margin to spare."""


def check_level(level: Any) -> float:
    """``level`` (of an interval) as a float in (0, 1 - 1e-9], or the ValueError every interval raises.

    Python and numpy real numbers (``Fraction`` too) are accepted; a bool is not. Above
    ``1 - 1e-9`` the tail probabilities are too small for the quantiles of every interval to be
    computed reliably in floating point (a lattice's folded mass, ``1 - level`` rounding to 0),
    so such levels are refused rather than answered with an interval that may not hold. A numpy
    float is read as the decimal it prints as, so ``np.float32(0.9)`` is 0.9 (not
    0.8999999761581421).

    Examples
    --------
    >>> from fractions import Fraction
    >>> check_level(np.float32(0.5)), check_level(np.float32(0.9)), check_level(Fraction(9, 10))
    (0.5, 0.9, 0.9)
    >>> check_level(95)
    Traceback (most recent call last):
    ...
    ValueError: level must be in (0, 1), got 95; e.g. 0.95 for a 95% interval
    """
    real = isinstance(level, numbers.Real)  # numpy's ints and floats are registered too
    if isinstance(level, (bool, np.bool_)) or not (real and 0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level!r}; e.g. 0.95 for a 95% interval")
    if level > MAX_LEVEL:
        raise ValueError(
            f"level must be at most 1 - 1e-9 (a 99.9999999% interval), got {level!r}: smaller "
            "tail probabilities are beyond what floating point computes reliably"
        )
    return float(str(level)) if isinstance(level, np.floating) else float(level)


def percent(level: Any) -> str:
    """``level`` (of an interval, :func:`check_level`) in percent, never rounded up to 100%.

    Ten significant digits, and more where ten would read 100: a 99.9999999% interval is not
    a certainty.

    Examples
    --------
    >>> percent(0.95), percent(0.975), percent(0.999), percent(0.9999)
    ('95%', '97.5%', '99.9%', '99.99%')
    >>> percent(1 - 1e-9)
    '99.9999999%'
    """
    share = 100 * check_level(level)
    digits = 10
    while (text := f"{share:.{digits}g}") == "100":
        digits += 1
    return f"{text}%"


def check_positive_int(x: Any, name: str, *, minimum: int = 1) -> int:
    """Return ``x`` as an int after checking it is an integer >= ``minimum``.

    Examples
    --------
    >>> check_positive_int(3, "k")
    3
    >>> check_positive_int(0, "k")
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer >= 1, got 0
    """
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {x!r} of type {type(x).__name__}")
    if x < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {x!r}")
    return int(x)


def check_encoding(x: Any, name: str = "encoding") -> str:
    """Return ``x`` after checking it names a text encoding Python knows (``codecs.lookup``).

    Examples
    --------
    >>> check_encoding("cp1252")
    'cp1252'
    >>> check_encoding("foo")
    Traceback (most recent call last):
    ...
    ValueError: encoding must be a text encoding such as 'utf-8', 'cp1252' or 'latin-1', got 'foo'
    """
    try:
        known = isinstance(x, str) and codecs.lookup(x)._is_text_encoding
    except LookupError:
        known = False
    if not known:
        raise ValueError(
            f"{name} must be a text encoding such as 'utf-8', 'cp1252' or 'latin-1', got {x!r}"
        )
    return cast(str, x)


def check_character(x: Any, name: str, *, example: str) -> str:
    """Return ``x`` after checking it is one character (a decimal mark, a separator).

    Examples
    --------
    >>> check_character(",", "decimal", example="','")
    ','
    >>> check_character(",,", "decimal", example="','")
    Traceback (most recent call last):
    ...
    ValueError: decimal must be one character such as ',', got ',,'
    """
    if not (isinstance(x, str) and len(x) == 1):
        raise ValueError(f"{name} must be one character such as {example}, got {x!r}")
    return x


def is_integer_text(text: str) -> bool:
    """Whether ``text`` is an integer in ASCII digits with an optional sign, as ``int()`` and
    numpy's readers take it (``str.isdigit`` alone also accepts ``²`` and ``٣``).

    Examples
    --------
    >>> is_integer_text("-12"), is_integer_text("+7"), is_integer_text("²"), is_integer_text("٣")
    (True, True, False, False)
    """
    return text.isascii() and text.lstrip("+-").isdigit()


def _is_real(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _as_floats(arr: np.ndarray, name: str) -> np.ndarray:
    try:
        return arr.astype(np.float64)
    except OverflowError:
        raise ValueError(
            f"{name} must be finite numbers, got an integer beyond the float range"
        ) from None


def _as_numeric_array(values: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values)
    except ValueError:
        raise ValueError(
            f"{name} must be a scalar or a rectangular array; got nested sequences of unequal lengths"
        ) from None
    if arr.dtype == object and arr.size and all(_is_real(v) for v in arr.flat):
        arr = _as_floats(arr, name)  # e.g. Python ints beyond int64, Fractions
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be numbers (a scalar or an array), got dtype {arr.dtype}")
    if np.iscomplexobj(arr):
        raise TypeError(f"{name} must be real numbers, got complex values")
    return arr


def as_int_array(values: Any, name: str = "values", *, saturate: int | None = None) -> np.ndarray:
    """Return ``values`` as an int64 array, refusing NaN, infinities and non-integral numbers.

    Magnitudes of ``2**62`` and more are refused, unless ``saturate`` (a bound ``L < 2**62``)
    is given: then every value is clamped to ``[-L, L]``. Mechanisms pass ``saturate`` for
    the private answer they noise: a refusal there would depend on the data (whether the
    answer exceeds ``2**62``), while clamping never moves two answers further apart
    (``|clip(a) - clip(b)| <= |a - b|``), so the sensitivity and the privacy proof stand.

    Examples
    --------
    >>> as_int_array([1, 2.0, True])
    array([1, 2, 1])
    >>> as_int_array([1.5])
    Traceback (most recent call last):
    ...
    ValueError: values must be integers, got 1.5 at index (0,); round or use laplace() for real values
    >>> as_int_array([2**63 - 1, -1e300, 5], saturate=2**62 - 1).tolist()
    [4611686018427387903, -4611686018427387903, 5]
    """
    if saturate is not None and isinstance(values, int) and not isinstance(values, bool):
        values = max(-saturate, min(values, saturate))  # a Python int beyond int64
    arr = _as_numeric_array(values, name)
    if np.issubdtype(arr.dtype, np.floating):
        bad = ~np.isfinite(arr)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(
                f"{name} must be finite, got {arr[idx].item()!r} at index {idx}; drop or impute it first"
            )
        frac = arr != np.round(arr)
        if frac.any():
            idx = tuple(int(i) for i in np.argwhere(frac)[0])
            raise ValueError(
                f"{name} must be integers, got {arr[idx].item()!r} at index {idx}; "
                "round or use laplace() for real values"
            )
        if saturate is not None:  # ±2**62 are exact floats and int64s; then clamp exactly
            return np.clip(np.clip(arr, -(2.0**62), 2.0**62).astype(np.int64), -saturate, saturate)
        if np.abs(arr).max(initial=0) >= 2.0**62:
            raise ValueError(f"{name} must be below 2**62 in magnitude to be noised exactly")
    elif saturate is not None:
        if arr.dtype == np.uint64:
            arr = np.minimum(arr, np.uint64(saturate))
        return np.clip(arr.astype(np.int64), -saturate, saturate)
    elif arr.size and (arr.max() >= 2**62 or (arr.dtype.kind == "i" and arr.min() <= -(2**62))):
        # int64 noise is then at least 2**62 / 2**50 = 4096 scales from overflowing (P ~ e^-4096)
        raise ValueError(f"{name} must be below 2**62 in magnitude to be noised exactly")
    return arr.astype(np.int64)


def value_count(values: Any, name: str = "values") -> int:
    """The number of entries of ``values`` (its shape is public), refusing what is no array.

    Examples
    --------
    >>> value_count([[1, 2], [3, 4]]), value_count(2.5)
    (4, 1)
    """
    return int(_as_numeric_array(values, name).size)


def as_float_array(values: Any, name: str = "values") -> np.ndarray:
    """Return ``values`` as a float64 array, refusing NaN and infinities.

    Examples
    --------
    >>> as_float_array([1, 2.5])
    array([1. , 2.5])
    >>> as_float_array([float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: values must be finite, got nan at index (0,); drop or impute it first
    """
    arr = _as_numeric_array(values, name).astype(np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must be finite, got {arr[idx].item()!r} at index {idx}; drop or impute it first"
        )
    return arr
