"""Exact triangle statistics of an edge list on a Dask cluster (NOT private: mechanism inputs).

:func:`triangle_stats` returns the same :class:`~dpatlas.graph.exact.counting.CommonNeighbourStats`
as :func:`~dpatlas.graph.exact.counting.common_neighbour_stats` on the same graph, so the ladder and
smooth-sensitivity mechanisms run unchanged on the driver. The edges are laid out as row blocks
of a symmetric CSR in decreasing-degree order (:mod:`._layout`); each task multiplies one pair
of blocks with scipy and returns a few numbers (:mod:`._blocks`): nothing per wedge ever
leaves a task and there is no shuffle of wedges.

* Triangles: ``(L[Z, X] @ L[X]) * L[Z]`` for every pair of block groups ``X <= Z``, with ``L``
  the edges oriented towards higher degree.
* ``c_max`` (every pair, including those without a common neighbour) from the degrees and
  the rows of the few highest-degree nodes, on the driver.
* The ``(a, c)`` frontier: block ``0`` with itself, then each row block ``I`` with the blocks
  ``J >= I`` that can still hold an undominated pair, in waves; between waves the driver
  merges the levels and narrows the blocks that remain (the pruning of
  :mod:`dpatlas.graph.exact._pairs`, exact).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from operator import getitem
from typing import Any

import numpy as np

from dask import delayed
from dpatlas.core.validation import check_positive_int
from dpatlas.dask import _layout
from dpatlas.dask._blocks import block_triangles
from dpatlas.dask._cluster import get_client
from dpatlas.dask._frames import check_pair, frame_of, partitions
from dpatlas.dask._frontier import frontier
from dpatlas.graph.exact.counting import CommonNeighbourStats, common_neighbour_stats
from dpatlas.graph.input.edgegraph import as_edge_graph

__all__ = ["DEFAULT_MAX_WEDGES", "triangle_stats"]

DEFAULT_MAX_WEDGES = 10**10
PAIRS_PER_BLOCK = 625_000
MAX_BLOCKS = 64
TRIANGLE_GROUPS = 8
PAIRS_PER_GROUP = 2_500_000


def _check_frame(frame: Any, columns: tuple[str, str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"edges have no column(s) {missing}; their columns are {list(frame.columns)}: "
            "pass columns=(source, target)"
        )
    for c in columns:
        if frame[c].dtype.kind not in "iu":
            raise _layout.not_integer(c, frame[c].dtype)


def _check_summary(loops: int, low: int) -> None:
    if loops:
        raise ValueError(
            f"edges contain {loops} self-loop(s) (rows with u == v); a simple graph has none: "
            "drop them, e.g. edges[edges.src != edges.dst]"
        )
    if low < 0:
        raise ValueError(f"node ids must be non-negative integers, got {low}")


def _triangles(run: Any, layout: _layout.Layout) -> list[Any]:
    """Futures of the triangle partials over pairs of block groups ``X <= Z``."""
    count = len(layout.blocks)
    want = int(np.clip(-(-int(layout.ds.sum()) // PAIRS_PER_GROUP), 2, TRIANGLE_GROUPS))
    edges = np.unique(np.linspace(0, count, min(count, want) + 1).astype(int))
    groups = [(int(a), int(b)) for a, b in itertools.pairwise(edges)]
    out = []
    for zi, (za, zb) in enumerate(groups):
        for xa, xb in groups[: zi + 1]:
            out.append(
                run.submit(
                    block_triangles,
                    layout.blocks[za:zb],
                    (int(layout.bounds[za]), int(layout.bounds[zb])),
                    layout.blocks[xa:xb],
                    (int(layout.bounds[xa]), int(layout.bounds[xb])),
                    layout.n,
                )
            )
    return out


def _layout_of(
    run: Any,
    edges: Any,
    n: int | None,
    columns: tuple[str, str],
    max_wedges: int,
    checked: Callable[[], None] | None,
):
    frame = frame_of(edges, "edges")
    _check_frame(frame, columns)
    parts = partitions(frame, list(columns), "edges")
    threads = sum(run.nthreads().values())
    buckets = max(1, min(len(parts), 2 * threads, 64))
    splits = run.compute([delayed(_layout.hash_split)(p, columns, buckets) for p in parts])
    loops, low, high = _layout.frame_summary(run, [run.submit(getitem, f, 0) for f in splits])
    _check_summary(loops, low)
    span = max(high + 1, n or 0, 1)
    pieces = _layout.split_futures(run, splits, buckets, skip=1)
    hashed = [run.submit(_layout.hash_block, span, *p) for p in pieces]
    ids, deg = _layout.gather_degrees(run, [run.submit(getitem, h, 1) for h in hashed])
    relabel = n is None or high >= n  # ids in 0 .. n-1 are node indices; others are ranked
    if n is not None and ids.size > n:
        raise ValueError(
            f"the edges use {ids.size} distinct node ids but n={n}: a graph on n nodes has at "
            f"most n; pass the public number of nodes as n (at least {ids.size})"
        )
    full = deg
    if n is not None:
        full = np.zeros(n, dtype=np.int64)
        if relabel:  # sorted ids to 0 .. k-1; the other n - k nodes are isolated
            full[: ids.size] = deg
        else:
            full[ids] = deg
    if checked is not None:
        checked()
    wedges = int(np.sum(full * (full - 1) // 2))
    if wedges > max_wedges:
        raise ValueError(
            f"the graph has {wedges:,} wedges (sum of C(d, 2)) above max_wedges={max_wedges:,}: "
            "the all-pairs common-neighbour search may cost that many sparse-product steps; "
            "pass a larger max_wedges= if the cluster can afford it"
            + ("" if checked is None else " (the release was debited before this check)")
        )
    order = np.argsort(-full, kind="stable")
    rank = np.empty(full.size, dtype=np.int64)
    rank[order] = np.arange(full.size)
    ds = full[order]
    want = int(np.clip(-(-int(ds.sum()) // PAIRS_PER_BLOCK), 4 * threads, MAX_BLOCKS))
    bounds = _layout.block_bounds(ds, want)
    mapping = run.scatter([(ids if relabel else None, rank)], broadcast=True)[0]
    moved = [
        run.submit(_layout.rank_split, run.submit(getitem, h, 0), mapping, bounds) for h in hashed
    ]
    blocks = [
        run.submit(
            _layout.rank_block,
            int(lo),
            int(hi),
            full.size,
            *[run.submit(getitem, f, b) for f in moved],
        )
        for b, (lo, hi) in enumerate(itertools.pairwise(bounds))
    ]
    return _layout.Layout(full.size, ds, bounds, blocks)


def triangle_stats(
    edges: Any,
    *,
    n: int | None = None,
    client: Any = None,
    columns: tuple[str, str] = ("src", "dst"),
    max_wedges: int = DEFAULT_MAX_WEDGES,
    checked: Callable[[], None] | None = None,
) -> CommonNeighbourStats:
    """Exact common-neighbour statistics and triangle count of an edge list, on Dask (NOT private).

    Parameters
    ----------
    edges : dask DataFrame, or str / PathLike
        Integer columns ``columns`` (one row per edge; both directions and repeats are merged),
        or a path, folder or glob of Parquet files with them (read on the workers). Every
        partition's own dtype is checked, not only the first file's: float, string or missing
        ids, and uint64 ids above ``2**63 - 1``, are refused before ``checked`` is called.
    n : int, optional
        Public number of nodes. Ids in ``0 .. n-1`` are the node indices; other ids are
        relabelled (sorted distinct ids to ``0 .. k-1``, the other nodes isolated), and more
        than ``n`` distinct ids is refused. Without it the node set is the set of ids seen in
        the edges, which depends on the data (``triangle_count`` refuses that).
    client : distributed.Client, optional
        ``None`` uses the current client, or starts a local cluster.
    columns : (str, str), default ("src", "dst")
    max_wedges : int, default 10**10
        Refuse (before the sparse products) a graph with more wedges ``sum_v C(d_v, 2)``:
        the all-pairs search costs up to that many steps when little can be pruned. This
        guard protects the cluster and depends on the data: whether it refuses reveals
        whether the graph has more than ``max_wedges`` wedges.
    checked : callable, optional
        Called with no argument once the input passed its checks (columns, self-loops, ids,
        ``n``) and before the ``max_wedges`` guard. ``triangle_count`` debits its budget
        here, so the ledger never depends on the guard; the guard's refusal itself is not
        covered by ε (like the running time, which no release hides): do not publish it.

    Returns
    -------
    CommonNeighbourStats
        Equal, field for field, to ``common_neighbour_stats`` of the same graph.

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> from distributed import Client, LocalCluster
    >>> k24 = dd.from_dict({"src": [0, 0, 0, 0, 1, 1, 1, 1], "dst": [2, 3, 4, 5] * 2}, 2)
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
    ...     with Client(cluster) as client:
    ...         s = triangle_stats(k24, n=6, client=client)
    >>> s.a_max, s.c_max, s.triangles, s.frontier.tolist()
    (4, 8, 0, [[4, 8]])
    """
    if n is not None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise TypeError(
                f"n must be a non-negative integer (the public number of nodes), got {n!r}"
            )
        n = int(n)
    limit = check_positive_int(max_wedges, "max_wedges")
    columns = check_pair(columns, "columns", ("src", "dst"))
    run = get_client(client)
    layout = _layout_of(run, edges, n, columns, limit, checked)
    m = int(layout.ds.sum()) // 2
    if m == 0:
        return common_neighbour_stats(as_edge_graph(np.zeros((0, 2), dtype=np.int64), n=layout.n))
    triangles = _triangles(run, layout)
    front = frontier(run, layout)
    a = np.flatnonzero((front[:-1] >= 0) & (front[:-1] > front[1:]))
    points = np.column_stack([a, front[a]]).astype(np.int64)
    points.flags.writeable = False
    return CommonNeighbourStats(
        n=layout.n,
        m=m,
        d_max=int(layout.ds[0]),
        a_max=int(a[-1]) if a.size else 0,
        c_max=int(front[0]),
        frontier=points,
        triangles=int(sum(run.gather(triangles))),
    )
