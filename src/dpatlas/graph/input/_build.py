"""Vectorised construction of a compact symmetric CSR from integer edge arrays (internal)."""

from __future__ import annotations

from typing import Any

import numpy as np

INT32_MAX = np.iinfo(np.int32).max


def index_dtype(n: int, nnz: int) -> type[np.signedinteger]:
    """``int32`` when every index and offset fits, else ``int64``."""
    return np.int32 if max(n, nnz) <= INT32_MAX else np.int64


def compact_ids(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct ids of ``flat`` (non-negative int64) and each entry's compact index.

    Uses a presence table when the ids are dense enough, a sort otherwise.
    """
    if flat.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    top = int(flat.max())
    if top < 8 * flat.size + 1024:
        present = np.zeros(top + 1, dtype=bool)
        present[flat] = True
        ids = np.flatnonzero(present)
        code = np.cumsum(present, dtype=np.int64) - 1
        return ids, code[flat]
    ids, codes = np.unique(flat, return_inverse=True)
    return ids, codes.reshape(-1)


def unused_ids(seen: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` smallest non-negative integers not in ``seen`` (sorted distinct int64).

    Labels for public nodes without an edge (they are all below ``seen.size + count``, so no
    label can overflow whatever the ids seen).

    Examples
    --------
    >>> unused_ids(np.array([0, 2, 9]), 3).tolist()
    [1, 3, 4]
    """
    candidates = np.arange(seen.size + count, dtype=np.int64)
    return candidates[~np.isin(candidates, seen)][:count]


def symmetric_csr(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)`` of the simple undirected graph on ``n`` nodes with edges ``u[k]–v[k]``.

    ``u`` and ``v`` are int64 compact indices in ``[0, n)`` with ``u != v``; repeated edges and
    both directions are merged. Neighbour lists come out sorted.
    """
    if n > INT32_MAX:
        raise ValueError(f"graphs with more than {INT32_MAX} nodes are not supported, got n={n}")
    keys = np.concatenate([u * n + v, v * n + u])
    keys.sort(kind="stable")  # timsort: fast on the runs of SNAP files
    if keys.size:
        keep = np.empty(keys.size, dtype=bool)
        keep[0] = True
        np.not_equal(keys[1:], keys[:-1], out=keep[1:])
        keys = keys[keep]
    rows = keys // n if n else keys
    cols = keys - rows * n
    dtype = index_dtype(n, keys.size)
    indptr = np.zeros(n + 1, dtype=dtype)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, cols.astype(dtype)


def is_zero_to_n(ids: Any, n: int) -> bool:
    """True when ``ids`` is an integer array holding exactly ``0 .. n-1`` in some order.

    Such ids are the user's own names (not read off the edges), so they may be published.
    """
    if not isinstance(ids, np.ndarray) or not np.issubdtype(ids.dtype, np.integer):
        return False
    return bool(ids.size == n and np.array_equal(np.sort(ids), np.arange(n)))
