"""The graph adapter's data: a simple undirected graph as a compact symmetric CSR.

Everything here is exact and *not private*: an :class:`EdgeGraph` is the raw data that the
counting and sensitivity functions read before a mechanism adds noise.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from dpatlas.graph.input._build import is_zero_to_n, unused_ids
from dpatlas.graph.input._convert import from_edges, from_networkx, from_scipy, is_networkx_graph

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["EdgeGraph", "as_edge_graph"]


def _frozen(a: Any, dtype: Any = None) -> np.ndarray:
    out = np.array(a, dtype=dtype, copy=None)
    if out is a:
        out = out.view()
    out.flags.writeable = False
    return out


@dataclass(frozen=True, eq=False)
class EdgeGraph:
    """A simple undirected graph on nodes ``0 .. n-1`` in symmetric CSR form.

    Build one with :func:`as_edge_graph` or :func:`dpatlas.graph.input.io.read_edgelist`, which
    validate their input; the constructor only checks shapes. The arrays are read-only.

    Attributes
    ----------
    n : int
        Number of nodes. Under edge-DP the node set is public (see
        :class:`~dpatlas.graph.adjacency.EdgeAdjacency`).
    indptr, indices : numpy.ndarray
        Symmetric CSR: the neighbours of node ``i`` are ``indices[indptr[i]:indptr[i + 1]]``,
        sorted, without self-loops or repeats; ``int32`` when it fits, else ``int64``.
    ids : numpy.ndarray or tuple
        Original id of each compact node index (a tuple of labels for a networkx graph).
    nodes_public : bool
        True when the node set came from the user (a networkx graph's nodes, a matrix's shape,
        ``n=`` or ``nodes=``); False when it was derived from the edges themselves, in which
        case ``n`` counts only nodes with an edge and is itself data-dependent.
    ids_public : bool
        True when the node *names* are public as well: a networkx graph's nodes, a matrix's
        indices, ``nodes=``, or ids that are exactly ``0 .. n-1``; False when some were read
        off the edges (ids outside ``0 .. n-1`` relabelled, or the ids seen in an edge list),
        so that which names occur depends on the data. Counts do not read names; a release
        that names its nodes (:func:`~dpatlas.graph.synthesis.synthetic.synthesize`) needs True.

    Exact counts computed from the graph are cached on it (the graph is immutable).

    Examples
    --------
    >>> g = as_edge_graph([(0, 1), (1, 2), (2, 0)], n=4)
    >>> g
    EdgeGraph(n=4, m=3, nodes_public=True)
    >>> g.degrees.tolist()
    [2, 2, 2, 0]
    """

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    ids: np.ndarray | tuple[Any, ...]
    nodes_public: bool = field(default=False)
    ids_public: bool = field(default=False)
    _memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        indptr, indices = _frozen(self.indptr), _frozen(self.indices)
        if indptr.ndim != 1 or indptr.size != self.n + 1 or int(indptr[-1]) != indices.size:
            raise ValueError(
                f"inconsistent CSR: n={self.n}, len(indptr)={indptr.size}, "
                f"len(indices)={indices.size}; build graphs with as_edge_graph(...)"
            )
        if len(self.ids) != self.n:
            raise ValueError(f"ids must have one entry per node (n={self.n}), got {len(self.ids)}")
        object.__setattr__(self, "indptr", indptr)
        object.__setattr__(self, "indices", indices)
        if isinstance(self.ids, np.ndarray):
            object.__setattr__(self, "ids", _frozen(self.ids))

    @property
    def m(self) -> int:
        """Number of undirected edges."""
        return int(self.indices.size // 2)

    @property
    def degrees(self) -> np.ndarray:
        """Degree of every node (int64 array of length ``n``)."""
        return np.diff(self.indptr).astype(np.int64)

    def to_scipy(self, dtype: Any = np.int32) -> sp.csr_array:
        """Symmetric adjacency matrix as a ``scipy.sparse.csr_array`` with ones of ``dtype``.

        Examples
        --------
        >>> as_edge_graph([(0, 1)]).to_scipy().toarray().tolist()
        [[0, 1], [1, 0]]
        """
        data = np.ones(self.indices.size, dtype=dtype)
        a = sp.csr_array((data, self.indices.copy(), self.indptr.copy()), shape=(self.n, self.n))
        a.has_sorted_indices = True
        return a

    def to_networkx(self) -> nx.Graph:
        """The same graph as a ``networkx.Graph`` labelled by :attr:`ids` (isolated nodes kept).

        Examples
        --------
        >>> sorted(as_edge_graph([(5, 9)]).to_networkx().edges())
        [(5, 9)]
        """
        import networkx as nx

        labels = self.ids.tolist() if isinstance(self.ids, np.ndarray) else list(self.ids)
        rows = np.repeat(np.arange(self.n), np.diff(self.indptr))
        upper = rows < self.indices
        g = nx.Graph()
        g.add_nodes_from(labels)
        g.add_edges_from(
            (labels[i], labels[j])
            for i, j in zip(rows[upper].tolist(), self.indices[upper].tolist(), strict=True)
        )
        return g

    def __repr__(self) -> str:
        return f"EdgeGraph(n={self.n}, m={self.m}, nodes_public={self.nodes_public})"


def as_edge_graph(graph: Any, *, n: int | None = None, nodes: Any = None) -> EdgeGraph:
    """Validate ``graph`` and return it as an :class:`EdgeGraph`.

    Parameters
    ----------
    graph : networkx.Graph, EdgeGraph, array-like of shape (m, 2), or scipy sparse matrix
        An undirected simple networkx graph (its node set is the public node set); an
        :class:`EdgeGraph` (returned as is); integer edges ``(u, v)`` (both directions and
        repeats are merged); or a square symmetric sparse adjacency matrix whose non-zero
        pattern is the edge set (weights are ignored).
    n : int, optional
        Public number of nodes. For an edge array or an EdgeGraph read from an edge list
        (``nodes_public=False``), ids in ``0 .. n-1`` are kept; other integer ids are
        relabelled (sorted distinct ids to ``0 .. k-1``); either way the ``n - k`` nodes
        without an edge are isolated nodes, and more than ``n`` distinct ids is refused.
    nodes : array-like of int, optional
        Public node ids, for an edge array or an EdgeGraph read without a node set (its ids
        are the file's); every edge endpoint must be one of them.

    Returns
    -------
    EdgeGraph
        ``nodes_public`` is False only for an edge array given without ``n`` or ``nodes``.

    Raises
    ------
    TypeError
        Directed graphs or multigraphs, unsupported objects, non-integer edge arrays.
    ValueError
        Self-loops, asymmetric or non-square matrices, negative ids, wrong shapes, ``n`` or
        ``nodes`` inconsistent with the graph.

    Examples
    --------
    >>> import networkx as nx
    >>> as_edge_graph(nx.cycle_graph(4))
    EdgeGraph(n=4, m=4, nodes_public=True)
    >>> as_edge_graph([[10, 20], [20, 10], [20, 30]]).ids.tolist()
    [10, 20, 30]
    >>> g = as_edge_graph([[10, 20], [20, 30]], n=5)  # relabelled; 2 isolated nodes
    >>> g, g.ids.tolist(), g.degrees.tolist()
    (EdgeGraph(n=5, m=2, nodes_public=True), [10, 20, 30, 0, 1], [1, 2, 1, 0, 0])
    >>> as_edge_graph(nx.DiGraph([(0, 1)]))
    Traceback (most recent call last):
    ...
    TypeError: graph is directed; edge-DP triangle counting needs an undirected graph: pass G.to_undirected()
    """
    if isinstance(graph, EdgeGraph):
        if nodes is not None and not graph.nodes_public:  # read off the edges: map onto nodes=
            return EdgeGraph(
                **from_edges(_id_edges(graph), n=n, nodes=nodes, drop_self_loops=False)[0]
            )
        _no_nodes(nodes, "this EdgeGraph (built on its node set)")
        if n is not None and not graph.nodes_public:
            if n < graph.n:
                raise ValueError(
                    f"the edges use {graph.n} distinct node ids but n={n}: a graph on n nodes "
                    f"has at most n; pass the public number of nodes as n (at least {graph.n})"
                )
            if n > graph.n:
                return _with_isolated_nodes(graph, n)
        _check_n(n, graph.n, "the EdgeGraph")
        if n is None or graph.nodes_public:
            return graph
        return replace(graph, nodes_public=True, ids_public=is_zero_to_n(graph.ids, n))
    if is_networkx_graph(graph):
        _no_nodes(nodes, "a networkx graph")
        parts = from_networkx(graph)
        _check_n(n, parts["n"], "the networkx graph")
    elif sp.issparse(graph):
        _no_nodes(nodes, "a sparse matrix")
        parts = from_scipy(graph)
        _check_n(n, parts["n"], "the matrix")
    else:
        parts, _ = from_edges(graph, n=n, nodes=nodes, drop_self_loops=False)
    return EdgeGraph(**parts)


def _id_edges(graph: EdgeGraph) -> np.ndarray:
    """The edges of ``graph`` as an ``(m, 2)`` array of its original integer ids."""
    rows = np.repeat(np.arange(graph.n), np.diff(graph.indptr))
    upper = rows < graph.indices
    ids = np.asarray(graph.ids)
    return np.column_stack([ids[rows[upper]], ids[graph.indices[upper]]])


def _with_isolated_nodes(graph: EdgeGraph, n: int) -> EdgeGraph:
    """``graph`` (nodes seen in its edges) plus isolated nodes up to the public count ``n``.

    A SNAP file lists only nodes with an edge; the public node set can be larger (ca-GrQc: 5,242
    nodes, 5,241 with an edge). The extra nodes get the smallest integer ids not seen.
    """
    extra = n - graph.n
    indptr = np.concatenate([graph.indptr, np.full(extra, graph.indptr[-1], graph.indptr.dtype)])
    if isinstance(graph.ids, np.ndarray) and np.issubdtype(graph.ids.dtype, np.integer):
        seen = graph.ids.astype(np.int64)
        ids: np.ndarray | tuple[Any, ...] = np.concatenate([seen, unused_ids(seen, extra)])
    else:
        ids = (*graph.ids, *(f"isolated-{i}" for i in range(extra)))
    return EdgeGraph(
        n, indptr, graph.indices, ids, nodes_public=True, ids_public=is_zero_to_n(ids, n)
    )


def _check_n(n: int | None, actual: int, what: str) -> None:
    if n is not None and n != actual:
        raise ValueError(f"n={n!r} does not match {what}, which has {actual} nodes; omit n")


def _no_nodes(nodes: Any, what: str) -> None:
    if nodes is not None:
        raise ValueError(f"nodes= is only for edge arrays; {what} brings its own node set")
