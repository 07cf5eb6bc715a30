"""An edge list on Dask laid out as row blocks of a symmetric CSR in degree-rank order (internal).

Two all-to-all passes over the edges (never over wedges):

1. every partition sends each directed pair ``(a, b)`` (both directions of every edge) to the
   hash block ``a % H``; a hash block sorts and de-duplicates its pairs and counts each node's
   degree. The driver gathers the degrees (``n`` integers), checks them, and ranks the nodes by
   decreasing degree (stable, as in :mod:`dpatlas.graph.exact._pairs`).
2. every hash block sends its pairs, relabelled to ranks, to the rank block holding the row;
   a rank block is the CSR of the rows ``lo .. hi - 1`` (columns are ranks, sorted).

Rank blocks hold about equal numbers of pairs, so the first ones hold few, high-degree nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import getitem
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "Block",
    "Layout",
    "hash_block",
    "hash_split",
    "integer_ids",
    "not_integer",
    "rank_block",
    "rank_split",
]

_ONE_KEY = 3_037_000_499  # the largest span with span**2 < 2**63: pairs sort as one int64 key

Block = tuple[int, int, np.ndarray, np.ndarray]  # lo, hi, indptr (hi - lo + 1), indices


@dataclass(frozen=True)
class Layout:
    """The driver's view: public-size arrays (degrees by rank) and futures of the rank blocks."""

    n: int
    ds: np.ndarray
    bounds: np.ndarray
    blocks: list[Any]


def not_integer(column: str, dtype: Any) -> TypeError:
    """The refusal of a non-integer id column (the meta's or one partition's own dtype)."""
    return TypeError(
        f"edges must hold integer node ids, column {column!r} has dtype {dtype}; convert it "
        "with astype('int64') (ids must be whole numbers) in every file"
    )


def integer_ids(ids: pd.Series, column: str) -> np.ndarray:
    """The int64 ids of one partition's column, checked: never cast from floats or wrapped.

    Each partition keeps its file's own dtype (the meta is the first file's), so a float,
    string or missing id, or a uint64 id above int64, is refused here, naming ``column``.
    """
    if ids.isna().any():
        raise ValueError(
            f"edges have missing node ids in column {column!r}; drop those rows, e.g. "
            f"edges.dropna(subset=[{column!r}])"
        )
    if ids.dtype.kind not in "iu":
        raise not_integer(column, ids.dtype)
    values = ids.to_numpy()
    if values.dtype.kind == "u" and values.size and values.max() > np.iinfo(np.int64).max:
        raise ValueError(
            f"node ids must be at most 2**63 - 1, column {column!r} holds {int(values.max())}; "
            "relabel the nodes (e.g. to 0 .. n-1)"
        )
    return values.astype(np.int64)


def _ids(part: Any, columns: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    u, v = (integer_ids(part[c], c) for c in columns)
    return u, v


def hash_split(part: Any, columns: tuple[str, str], buckets: int) -> tuple[Any, ...]:
    """``(summary, piece_0, ..., piece_{H-1})``: summary = (self-loops, min id, max id)."""
    u, v = _ids(part, columns)
    loops = u == v
    summary = (
        int(np.count_nonzero(loops)),
        int(min(u.min(), v.min())) if u.size else 0,
        int(max(u.max(), v.max())) if u.size else -1,
    )
    a = np.concatenate([u[~loops], v[~loops]])
    b = np.concatenate([v[~loops], u[~loops]])
    return (summary, *((a[p], b[p]) for p in _split(a % buckets, buckets)))


def _split(where: np.ndarray, count: int) -> list[np.ndarray]:
    """Positions of each value ``0 .. count - 1`` of ``where`` (a stable radix sort)."""
    order = np.argsort(where.astype(np.uint8 if count <= 256 else np.uint16), kind="stable")
    return np.split(order, np.searchsorted(where[order], np.arange(1, count)))


def hash_block(span: int, *pieces: tuple[np.ndarray, np.ndarray]) -> tuple[Any, Any]:
    """``((a, b) distinct pairs sorted by a, (node ids, degrees))`` of one hash block.

    Ids lie in ``[0, span)``; pairs are sorted as one ``a * span + b`` key when it fits.
    """
    a = np.concatenate([p[0] for p in pieces])
    b = np.concatenate([p[1] for p in pieces])
    if span <= _ONE_KEY:  # span**2 < 2**63: one sort of a single key
        keys = np.sort(a * np.int64(span) + b)
        keys = keys[_firsts(keys)]
        a, b = np.divmod(keys, np.int64(span))
    else:
        order = np.lexsort((b, a))
        a, b = a[order], b[order]
        keep = _firsts(a)
        keep[1:] |= b[1:] != b[:-1]
        a, b = a[keep], b[keep]
    starts = np.flatnonzero(_firsts(a))
    ids, counts = a[starts], np.diff(np.append(starts, a.size))
    return (a, b), (ids, counts.astype(np.int64))


def _firsts(values: np.ndarray) -> np.ndarray:
    """True where a sorted array starts a new value (faster than ``np.unique``: docs/design-notes.md)."""
    out = np.ones(values.size, dtype=bool)
    np.not_equal(values[1:], values[:-1], out=out[1:])
    return out


def rank_split(
    pairs: tuple[np.ndarray, np.ndarray], mapping: tuple[Any, np.ndarray], bounds: np.ndarray
) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Relabel ``(a, b)`` to ranks and split by the rank block of ``a``."""
    ids, rank = mapping
    a, b = pairs
    if ids is not None:
        a, b = np.searchsorted(ids, a), np.searchsorted(ids, b)
    ra, rb = rank[a], rank[b]
    where = np.searchsorted(bounds, ra, side="right") - 1
    return tuple((ra[p], rb[p]) for p in _split(where, bounds.size - 1))


def rank_block(lo: int, hi: int, n: int, *pieces: tuple[np.ndarray, np.ndarray]) -> Block:
    """CSR rows ``lo .. hi - 1`` (rank space) from the pairs sent to this block.

    Pairs are sorted as one ``ra * n + rb`` key when it fits in int64, else by ``lexsort``.
    """
    ra = np.concatenate([p[0] for p in pieces])
    rb = np.concatenate([p[1] for p in pieces])
    if n <= _ONE_KEY:
        keys = np.sort(ra * np.int64(n) + rb)
        ra, rb = np.divmod(keys, np.int64(n))
    else:
        order = np.lexsort((rb, ra))
        ra, rb = ra[order], rb[order]
    dtype = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(np.bincount(ra - lo, minlength=hi - lo), out=indptr[1:])
    return lo, hi, indptr, rb.astype(dtype)


def gather_degrees(client: Any, degree_futures: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """All ``(node id, degree)`` pairs, sorted by id (each id lives in exactly one hash block)."""
    parts = client.gather(degree_futures)
    ids = np.concatenate([p[0] for p in parts])
    deg = np.concatenate([p[1] for p in parts])
    order = np.argsort(ids, kind="stable")
    return ids[order], deg[order]


def split_futures(client: Any, futures: list[Any], count: int, skip: int = 0) -> list[list[Any]]:
    """``out[k][i]``: the ``skip + k``-th item of the ``i``-th future's tuple."""
    return [[client.submit(getitem, f, skip + k) for f in futures] for k in range(count)]


def block_bounds(ds: np.ndarray, blocks: int) -> np.ndarray:
    """Rank boundaries ``0 = b_0 < ... < b_B = n`` splitting the pairs about evenly."""
    total = np.cumsum(ds)
    if ds.size == 0 or total[-1] == 0:
        return np.array([0, ds.size], dtype=np.int64)
    marks = total[-1] * np.arange(1, blocks) / blocks
    inner = np.searchsorted(total, marks, side="left") + 1
    return np.unique(np.concatenate([[0], np.minimum(inner, ds.size), [ds.size]])).astype(np.int64)


def frame_summary(client: Any, summaries: list[Any]) -> tuple[int, int, int]:
    """Self-loops, smallest and largest id over all partitions."""
    rows = pd.DataFrame(client.gather(summaries), columns=["loops", "low", "high"])
    return int(rows.loops.sum()), int(rows.low.min()), int(rows.high.max())
