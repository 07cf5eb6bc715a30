"""Group-wise projections and roundings, vectorised: one target total per group of values.

Used top-down on a hierarchy (the children of every node form a group whose target is the
node's value) and on the cells of a leaf. Pure arithmetic on released values.
"""

from __future__ import annotations

import numpy as np

__all__ = ["project_groups", "round_groups"]


def _sorted_groups(group: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Order sorting by group then descending key; group of each sorted item; rank in group."""
    order = np.lexsort((-key, group))
    g = group[order]
    start = np.searchsorted(g, g, side="left")
    rank = np.arange(g.size) - start
    return order, g, rank


def project_groups(values: np.ndarray, group: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per group ``g``, the least-squares projection of its values onto ``{x >= 0, Σx = T_g}``.

    ``group`` holds a group index per value and ``target[g]`` the total ``T_g``; a group with
    ``T_g <= 0`` becomes all zeros (the closest non-negative point). The projection of each
    group is ``x_i = max(v_i - τ_g, 0)`` with the one ``τ_g`` that meets the total
    (Held–Wolfe–Crowder 1974; Duchi et al. 2008), found for all groups at once by sorting.

    Examples
    --------
    >>> project_groups(np.array([3.0, -1.0, 2.0, 5.0, -4.0]), np.array([0, 0, 0, 1, 1]),
    ...                np.array([4.0, -1.0]))
    array([2.5, 0. , 1.5, 0. , 0. ])
    """
    values = np.asarray(values, dtype=np.float64)
    group = np.asarray(group, dtype=np.int64)
    target = np.asarray(target, dtype=np.float64)
    if values.size == 0:
        return values.copy()
    order, g, rank = _sorted_groups(group, values)
    v = values[order]
    cum = np.cumsum(v)
    first = np.arange(g.size) - rank
    cum_in_group = cum - (cum[first] - v[first])
    active = v - (cum_in_group - target[g]) / (rank + 1) > 0
    last = np.full(target.size, -1, dtype=np.int64)
    np.maximum.at(last, g[active], rank[active])
    tau_pos = np.flatnonzero(active & (rank == last[g]))
    tau = np.zeros(target.size)
    tau[g[tau_pos]] = (cum_in_group[tau_pos] - target[g[tau_pos]]) / (rank[tau_pos] + 1)
    out = np.empty_like(values)
    out[order] = np.maximum(v - tau[g], 0.0)
    out[target[group] <= 0] = 0.0
    return out


def round_groups(values: np.ndarray, group: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per group, non-negative integers summing to the integer ``target[g]``.

    ``values`` are non-negative and each group sums to at most its target (up to float
    error): every value is floored and the group's shortfall is given, one each, to its
    largest remainders (ties to the lower index, so the result is deterministic); a shortfall
    larger than the group gives every member the same extra units first.

    Examples
    --------
    >>> round_groups(np.array([2.5, 0.0, 1.5, 1.2, 0.8]), np.array([0, 0, 0, 1, 1]),
    ...              np.array([4, 2]))
    array([3, 0, 1, 1, 1])
    """
    values = np.asarray(values, dtype=np.float64)
    group = np.asarray(group, dtype=np.int64)
    target = np.asarray(target, dtype=np.int64)
    floors = np.maximum(np.floor(values), 0).astype(np.int64)
    short = target - np.bincount(group, weights=floors, minlength=target.size).astype(np.int64)
    order, g, rank = _sorted_groups(group, values - floors)
    size = np.bincount(group, minlength=target.size)
    extra = np.zeros(values.size, dtype=np.int64)
    whole, rest = np.divmod(np.maximum(short, 0), np.maximum(size, 1))
    extra[order] = whole[g] + (rank < rest[g])
    return floors + extra
