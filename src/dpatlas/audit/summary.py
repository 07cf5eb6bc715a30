"""Turn everything a release shows into one fixed-length vector of numbers, for :func:`audit`.

:func:`audit` examines numbers (one coordinate at a time, or their sum). A release shows more
than its ``value``: the noisy bounds and counts in its ``metadata``, the tree a multi-level
heatmap publishes, the decisions that shaped it. :func:`summarize` walks a release (or a
tuple of outputs) and returns, in a canonical order that depends on no other run:

* coordinate 0, the *structure code*: a hash, scaled to ``[0, 1)``, of everything that is not
  a measurement: strings, ``None``, booleans, every array's length, and every integer or
  boolean array outside a ``value`` field (a tree's node rectangles and parents, which nodes
  were measured, the blocks of a grid level). Two runs share a code exactly when they
  released the same structure, so the point events ``{code = c}`` audit the structure;
* then one coordinate per number met on the walk (``value`` first; scalars as they are,
  arrays by their first ``width`` entries, padded with 0, then their length).

Every coordinate is a function of the one output alone (no padding to the longest run), so
the auditor's selection and test halves stay independent. Keys named in ``ignore`` are
skipped: by default ``"created"``, the wall-clock time a heatmap records, which depends on
no data.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Collection, Iterable, Mapping
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpatlas.core.validation import check_positive_int

__all__ = ["summarize"]

_CODE_BITS = 52


def summarize(
    *outputs: Any, width: int = 128, ignore: str | Collection[str] = ("created",)
) -> NDArray:
    """A fixed-length float64 vector of every released field of ``outputs`` (module docstring).

    Parameters
    ----------
    *outputs : Release, dataclass, mapping, sequence, array or number
        What one run of a mechanism shows, e.g. ``summarize(hm.release, hm.estimate)``.
    width : int, default 128
        Entries kept of each array, at least 1 (the rest is cut, which loses events, never
        validity); make it at least the longest array to audit every entry.
    ignore : str or collection of str, default ("created",)
        Mapping keys and fields to skip: only for values that do not depend on the data. A
        single str is one key name (``ignore="created"`` is ``ignore=("created",)``).

    Returns
    -------
    numpy.ndarray
        ``[structure code in [0, 1), numbers ...]``; its length depends on the keys and the
        array lengths seen, so give :func:`audit` outputs whose keys do not vary between runs.

    Examples
    --------
    >>> from dpatlas.core import discrete_laplace
    >>> rel = discrete_laplace([3, 4], sensitivity=1, epsilon=50.0, rng=0)
    >>> v = summarize(rel, width=4)
    >>> v[1:7].tolist()  # value padded to 4 entries, its length, then epsilon
    [3.0, 4.0, 0.0, 0.0, 2.0, 50.0]
    >>> bool(0 <= v[0] < 1), bool(summarize(rel, width=4)[0] == v[0])
    (True, True)
    """
    width = check_positive_int(width, "width")
    skipped = _key_names(ignore)
    structure: list[str] = []
    numbers: list[float] = []
    for i, out in enumerate(outputs):
        _walk(out, f"[{i}]", structure, numbers, width, skipped, in_value=False)
    digest = hashlib.blake2b("\x1f".join(structure).encode(), digest_size=8).digest()
    code = (int.from_bytes(digest, "big") >> (64 - _CODE_BITS)) / 2**_CODE_BITS
    return np.array([code, *numbers], dtype=np.float64)


def _key_names(ignore: Any) -> frozenset[str]:
    """``ignore`` as a set of key names; a str is one name, not the set of its letters."""
    if isinstance(ignore, str):
        return frozenset((ignore,))
    if not isinstance(ignore, Iterable):
        raise TypeError(
            f"ignore must be a key name or a collection of key names, got {ignore!r}; "
            "pass () to ignore nothing, e.g. ('created',) to skip the wall-clock time"
        )
    names = tuple(ignore)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(
                f"ignore must hold key names (str), got {name!r} of type {type(name).__name__}; "
                "keys are compared as str(key), e.g. ignore=('created', '3')"
            )
    return frozenset(names)


def as_float(x: Any, what: str, fix: str) -> float:
    """``float(x)``, or a ValueError naming ``what`` and ``fix`` for an int beyond the floats."""
    try:
        return float(x)
    except OverflowError:
        digits = math.floor(math.log10(abs(x))) + 1
        raise ValueError(
            f"{what} is an integer of {digits} digits, beyond the float range; {fix}"
        ) from None


def _one_array(obj: Any) -> NDArray | None:
    """``obj`` as one numpy array, or None when its items must be walked one by one.

    That is when nested lists are ragged, or when numbers sit among strings (numpy would
    turn them into text, hashed into the structure code instead of kept as coordinates).
    """
    if isinstance(obj, np.ndarray):
        return obj
    try:
        array = np.asarray(obj)
    except ValueError:  # ragged nesting
        return None
    if array.dtype.kind in "US":
        items = np.asarray(obj, dtype=object).flat
        if not all(isinstance(item, (str, bytes)) for item in items):
            return None
    return array


def _walk(
    obj: Any,
    path: str,
    structure: list[str],
    numbers: list[float],
    width: int,
    ignore: frozenset[str],
    *,
    in_value: bool,
) -> None:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.name not in ignore:
                value = getattr(obj, f.name)
                sub = f"{path}.{f.name}"
                _walk(value, sub, structure, numbers, width, ignore, in_value=f.name == "value")
        return
    if isinstance(obj, Mapping):
        for key in sorted(obj, key=str):
            if str(key) not in ignore:
                sub = f"{path}[{key!r}]"
                _walk(obj[key], sub, structure, numbers, width, ignore, in_value=in_value)
        return
    if obj is None or isinstance(obj, (str, bytes)):
        structure.append(f"{path}={obj!r}")
        return
    if isinstance(obj, (bool, np.bool_)):
        structure.append(f"{path}={bool(obj)}")
        numbers.append(float(obj))
        return
    if isinstance(obj, Real):
        numbers.append(
            as_float(obj, f"outputs{path}", "scale it down or convert it to a float first")
        )
        return
    array = _one_array(obj)
    if array is None or array.dtype == object:  # a sequence of mixed things: walk it
        if not isinstance(obj, Iterable):
            raise TypeError(
                f"summarize cannot read outputs{path} of type {type(obj).__name__}; pass "
                "numbers, text, arrays, sequences, mappings or dataclasses"
            )
        # an iterator is read once; a set's iteration order of strings changes with the
        # process's hash seed, so its items are walked in the order of their reprs
        items = sorted(obj, key=repr) if isinstance(obj, (set, frozenset)) else list(obj)
        for i, item in enumerate(items):
            _walk(item, f"{path}[{i}]", structure, numbers, width, ignore, in_value=in_value)
        structure.append(f"{path}#len={len(items)}")
        return
    flat = array.ravel()
    structure.append(f"{path}#shape={array.shape}")
    if array.dtype.kind in "USM":  # text or dates: structure only
        structure.append(f"{path}={flat.tolist()}")
        return
    if not in_value and (array.dtype == bool or np.issubdtype(array.dtype, np.integer)):
        structure.append(f"{path}={flat.tolist()}")
    kept = flat[:width].astype(np.float64)
    numbers.extend(kept.tolist())
    numbers.extend([0.0] * (width - kept.size))
    numbers.append(float(flat.size))
