"""Input guards and conversions behind :func:`dpatlas.graph.input.edgegraph.as_edge_graph` (internal).

Each converter returns the keyword arguments of an ``EdgeGraph``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import scipy.sparse as sp

from dpatlas.graph.input._build import (
    compact_ids,
    index_dtype,
    is_zero_to_n,
    symmetric_csr,
    unused_ids,
)

_KINDS = (
    "a networkx.Graph, an EdgeGraph, an (m, 2) integer array of edges "
    "or a scipy.sparse adjacency matrix"
)


def is_networkx_graph(obj: Any) -> bool:
    """True for any networkx graph object (without importing networkx when it is not loaded)."""
    nx = sys.modules.get("networkx")
    return nx is not None and isinstance(obj, nx.Graph)


def from_networkx(g: Any) -> dict[str, Any]:
    """Guard against directed graphs, multigraphs and self-loops; keep the node set and order."""
    import networkx as nx

    if g.is_directed():
        raise TypeError(
            "graph is directed; edge-DP triangle counting needs an undirected graph: "
            "pass G.to_undirected()"
        )
    if g.is_multigraph():
        raise TypeError(
            "graph is a multigraph; edge-DP counts need a simple graph: pass nx.Graph(G), "
            "which merges parallel edges"
        )
    loops = nx.number_of_selfloops(g)
    if loops:
        raise ValueError(
            f"graph has {loops} self-loop(s); a self-loop is not an edge of a simple graph: "
            "remove them with G.remove_edges_from(nx.selfloop_edges(G))"
        )
    labels = tuple(g.nodes)
    index = {v: i for i, v in enumerate(labels)}
    m = g.number_of_edges()
    flat = np.fromiter((index[x] for e in g.edges() for x in e), dtype=np.int64, count=2 * m)
    indptr, indices = symmetric_csr(flat[0::2], flat[1::2], len(labels))
    return {
        "n": len(labels),
        "indptr": indptr,
        "indices": indices,
        "ids": labels,
        "nodes_public": True,
        "ids_public": True,
    }


def from_scipy(a: Any) -> dict[str, Any]:
    """Square matrix with a symmetric non-zero pattern and an empty diagonal."""
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"adjacency matrix must be square, got shape {a.shape}")
    pattern = sp.csr_array(a, dtype=bool, copy=True)
    pattern.eliminate_zeros()
    loops = int(np.count_nonzero(pattern.diagonal()))
    if loops:
        raise ValueError(
            f"adjacency matrix has {loops} non-zero diagonal entr(y/ies) (self-loops); "
            "clear them with A.setdiag(0); A.eliminate_zeros()"
        )
    asym = (pattern != pattern.T).nnz
    if asym:
        raise ValueError(
            f"adjacency matrix is not symmetric ({asym} entries differ from the transpose); "
            "an undirected graph needs A[i, j] != 0 exactly when A[j, i] != 0: "
            "symmetrise with A = A.maximum(A.T) if the edges are undirected"
        )
    pattern.sort_indices()
    n = a.shape[0]
    dtype = index_dtype(n, pattern.nnz)
    return {
        "n": n,
        "indptr": pattern.indptr.astype(dtype),
        "ids": np.arange(n),
        "indices": pattern.indices.astype(dtype),
        "nodes_public": True,
        "ids_public": True,
    }


def edge_array(edges: Any, name: str = "edges") -> np.ndarray:
    """``edges`` as an int64 array of shape (m, 2), with type and shape guards."""
    if isinstance(edges, (str, bytes, dict, set)) or not hasattr(edges, "__len__"):
        raise TypeError(f"graph must be {_KINDS}, got {type(edges).__name__}")
    try:
        arr = np.asarray(edges)
    except ValueError as exc:
        raise ValueError(f"{name} must be an (m, 2) array of node ids: {exc}") from None
    if arr.size == 0 and arr.ndim <= 2:
        arr = arr.reshape(0, 2).astype(np.int64)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(
            f"{name} must be an integer array of node ids, got dtype {arr.dtype}; "
            f"if the ids are whole numbers convert them with {name}.astype(np.int64)"
        )
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            f"{name} must have shape (m, 2), got {arr.shape}; "
            "for an adjacency matrix pass scipy.sparse.csr_array(matrix)"
        )
    if arr.dtype == np.uint64 and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} has node ids above {np.iinfo(np.int64).max}")
    return arr.astype(np.int64, copy=False)


def from_edges(
    edges: Any, *, n: int | None, nodes: Any, drop_self_loops: bool
) -> tuple[dict[str, Any], int]:
    """Compact CSR of an edge array; returns the ``EdgeGraph`` fields and the self-loops dropped."""
    arr = edge_array(edges)
    u, v = arr[:, 0], arr[:, 1]
    loops = u == v
    n_loops = int(np.count_nonzero(loops))
    if n_loops and not drop_self_loops:
        raise ValueError(
            f"edges contain {n_loops} self-loop(s) (rows with u == v); a simple graph has none: "
            "drop them with edges = edges[edges[:, 0] != edges[:, 1]]"
        )
    if n_loops:
        u, v = u[~loops], v[~loops]
    if u.size and min(int(u.min()), int(v.min())) < 0:
        raise ValueError(
            f"node ids must be non-negative integers, got {min(int(u.min()), int(v.min()))}"
        )
    if nodes is not None:
        ids, u, v = _map_to_nodes(nodes, u, v, n)
    elif n is not None:
        ids, u, v = _relabel(u, v, check_node_count(n, GRAPH_BYTES_PER_NODE, "to build the graph"))
    else:
        ids, codes = compact_ids(np.concatenate([u, v]))
        u, v = codes[: u.size], codes[u.size :]
    indptr, indices = symmetric_csr(u, v, ids.size)
    parts = {
        "n": int(ids.size),
        "indptr": indptr,
        "indices": indices,
        "ids": ids,
        "nodes_public": n is not None or nodes is not None,
        # names from the user: nodes=, or ids that are exactly 0 .. n-1 (not relabelled)
        "ids_public": nodes is not None or (n is not None and is_zero_to_n(ids, n)),
    }
    return parts, n_loops


def _relabel(u: np.ndarray, v: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ids, endpoints on the public node count ``n``: ``0 .. n-1`` as is, else relabelled.

    Ids that all lie in ``0 .. n-1`` are the node indices. Otherwise the ``k`` distinct ids,
    sorted, become ``0 .. k-1`` and the other ``n - k`` public nodes, which have no edge, are
    isolated nodes (labelled by the smallest integers not among the ids). Both give the same graph up to the names
    of its nodes, and every release is a function of the graph up to names (counts of
    triangles, edges, stars, degrees), so which branch runs changes no output. More than ``n``
    distinct ids is no graph on ``n`` nodes: outside the domain, refused (a check that no
    graph on the public node set fails, so it treats all neighbours alike).
    """
    top = max(int(u.max()), int(v.max())) if u.size else -1
    if top < n:
        return np.arange(n), u, v
    seen, codes = compact_ids(np.concatenate([u, v]))
    if seen.size > n:
        raise ValueError(
            f"the edges use {seen.size} distinct node ids but n={n}: a graph on n nodes has at "
            f"most n; pass the public number of nodes as n (at least {seen.size}), or the "
            "public node ids as nodes="
        )
    ids = np.concatenate([seen, unused_ids(seen, n - seen.size)])
    return ids, codes[: u.size], codes[u.size :]


GRAPH_BYTES_PER_NODE = 32
"""Peak memory per public node to build a graph on ``n`` nodes (measured 29 bytes at n = 10**6
on 3 edges: the int64 node ids, the int32 CSR offsets, the degree count and the 0 .. n-1 check)."""


def physical_memory() -> int | None:
    """This machine's physical memory in bytes (a public fact), or None where it is unknown."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows) or no such name
        return None


def check_node_count(n: Any, bytes_per_node: int = 0, task: str = "") -> int:
    """``n`` as an int after its type and size checks, all on public values.

    With ``bytes_per_node``, an ``n`` whose arrays would need more than this machine's physical
    memory (``task``: what they are for) is refused too, before anything is allocated or read.

    Examples
    --------
    >>> check_node_count(36_692, GRAPH_BYTES_PER_NODE, "to build the graph")
    36692
    >>> check_node_count(2**31)
    Traceback (most recent call last):
    ...
    ValueError: n must be below 2**31 (node ids are held in int32 CSR arrays), got 2147483648
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise TypeError(f"n must be a non-negative integer (the public number of nodes), got {n!r}")
    if n >= 2**31:
        raise ValueError(f"n must be below 2**31 (node ids are held in int32 CSR arrays), got {n}")
    have = physical_memory()
    need = int(n) * bytes_per_node
    if have is not None and need > have:
        raise ValueError(
            f"n={n} needs about {need / 2**30:.1f} GiB of memory ({bytes_per_node} bytes per node "
            f"{task}), more than this machine's {have / 2**30:.1f} GiB; check n= (the public "
            f"number of nodes; at most {have // bytes_per_node:,} fit), or use a machine with "
            "more memory"
        )
    return int(n)


def _map_to_nodes(
    nodes: Any, u: np.ndarray, v: np.ndarray, n: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ids = np.asarray(sorted(nodes) if isinstance(nodes, (set, frozenset)) else nodes)
    if ids.ndim == 1 and ids.size == 0:  # np.asarray([]) is float64: no node, no bad id
        ids = ids.astype(np.int64)
    if ids.ndim != 1 or ids.dtype == bool or not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(
            f"nodes must be a 1-D array of integer node ids, got {ids.dtype} {ids.shape}"
        )
    ids = ids.astype(np.int64)
    if ids.size and int(ids.min()) < 0:  # no edge can use it, and an edge list cannot hold it
        raise ValueError(
            f"nodes must be non-negative integer ids, as node ids in edges are, got {ids.min()}; "
            "number the nodes 0 .. N-1 or drop the negative ids"
        )
    order = np.argsort(ids, kind="stable")
    ranked = ids[order]
    if ranked.size > 1 and np.any(ranked[1:] == ranked[:-1]):
        twice = int(ranked[1:][ranked[1:] == ranked[:-1]][0])
        raise ValueError(
            f"nodes must not contain repeated ids, got {twice} more than once; "
            "pass np.unique(nodes)"
        )
    if n is not None and n != ids.size:
        raise ValueError(f"n={n} does not match len(nodes)={ids.size}; give one of them")
    mapped = []
    for side in (u, v):
        pos = np.minimum(np.searchsorted(ranked, side), max(ranked.size - 1, 0))
        bad = ranked[pos] != side if ranked.size else np.ones(side.size, dtype=bool)
        if np.any(bad):
            raise ValueError(
                f"edges use node id {int(side[bad][0])}, which is not among the public node ids "
                "given as nodes=; list every endpoint"
            )
        mapped.append(order[pos])
    return ids, mapped[0], mapped[1]
