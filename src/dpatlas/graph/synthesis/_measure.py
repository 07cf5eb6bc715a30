"""The private measurements behind :func:`~dpatlas.graph.synthesis.synthetic.synthesize` (internal).

Every function here reads the graph and adds noise; :mod:`dpatlas.graph.synthesis.synthetic` debits the
budget once for all of them and proves their composition. Sensitivities are for *edge*
neighbours (same public node set, one edge added or removed); ``b`` below is a discrete Laplace
scale, sampled exactly by :func:`~dpatlas.core.noise.discrete_laplace.sample_discrete_laplace`.

* :func:`noisy_degrees`: the degree vector, L1 sensitivity 2 (the two endpoints move by 1),
  ``b = 2/ε``: ε-DP.
* :func:`private_partition`: one sequential label-propagation pass (module docstring of
  :func:`private_partition`): ``ε``-DP.
* :func:`noisy_blocks`: edge counts between (and inside) the communities of a released
  partition, L1 sensitivity 1 (one edge lies in exactly one cell), ``b = 1/ε``: ε-DP.
"""

from __future__ import annotations

from fractions import Fraction

import numba
import numpy as np

from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.noise.discrete_laplace import rational_scale, sample_discrete_laplace
from dpatlas.core.rng import RandomSource
from dpatlas.graph.input.edgegraph import EdgeGraph

__all__ = [
    "DEGREE_CLASSES",
    "degree_class",
    "noisy_blocks",
    "noisy_degrees",
    "partition_scales",
    "partition_size",
    "private_partition",
]

_CHUNK = 1 << 22  # noise words drawn at once by the partition pass (memory bound)


def _dlap(src: RandomSource, size: int, scale: Fraction) -> np.ndarray:
    return sample_discrete_laplace(src, size, rational_scale(scale))


def noisy_degrees(g: EdgeGraph, epsilon: float, src: RandomSource) -> np.ndarray:
    """``d + Z``, ``Z`` i.i.d. discrete Laplace of scale ``2/ε`` (ε-DP; may be negative)."""
    return g.degrees + _dlap(src, g.n, 2 / exact_epsilon(epsilon))


def partition_size(epsilon: float) -> int:
    """Number of communities the partition pass starts from (public: a function of ε only).

    Few labels at small ε: a community forms when its nodes' internal degree beats the noise
    times the number of labels (the linearised label-propagation gain ``d / (b K)``).

    >>> partition_size(0.3), partition_size(1.0), partition_size(2.0)
    (4, 8, 16)
    """
    return 4 if epsilon < 0.6 else (8 if epsilon < 1.2 else 16)


DEGREE_CLASSES = 5


def degree_class(noisy: np.ndarray) -> np.ndarray:
    """Class of each node by *noisy* degree (public once released): ``[1, 4)``, ``[4, 16)``,
    ``[16, 64)``, ``[64, 256)``, ``>= 256`` (below 1: class 0).

    >>> degree_class(np.array([-3, 1, 4, 100, 5000])).tolist()
    [0, 0, 1, 3, 4]
    """
    x = np.maximum(np.asarray(noisy, dtype=np.float64), 1.0)
    return np.minimum(np.floor(np.log(x) / np.log(4.0)).astype(np.int64), DEGREE_CLASSES - 1)


HUB_WEIGHT = 0.5
"""β: weight of a non-hub's hub-neighbour counts in its move (:func:`private_partition`)."""


def private_partition(
    g: EdgeGraph,
    weights: np.ndarray,
    epsilon: float,
    src: RandomSource,
    gen: np.random.Generator,
    *,
    resolution: float = 0.5,
    revisit: float = 0.03,
) -> np.ndarray:
    """Communities from one noisy, sequential label-propagation pass; ε-DP.

    Labels start uniformly at random in ``0 .. K-1`` (``K = partition_size(ε)``, public
    randomness). Nodes are visited by decreasing public weight (the noisy degrees). The hubs —
    the top ``⌈revisit · n⌉`` by weight — go first, and again at the end of the pass (when the
    labels around them have formed: a hub that went first, among random labels, gets to move);
    each of their visits releases ``c_u + Z_u``: ``c_u[k]`` counts *all* its neighbours
    labelled ``k`` now, ``Z_u`` has ``K`` i.i.d. discrete Laplace entries of scale ``4/ε``.
    Every other node is visited once and releases two vectors: ``a_u + X_u``, the label counts
    of its non-hub neighbours *visited before it* (a neighbour not yet visited holds a random
    label: no signal), ``X_u`` of scale ``1/ε``; and ``h_u + Y_u``, the label counts of its hub
    neighbours, ``Y_u`` of scale ``2/ε``. A node takes the label maximising
    ``(c_u + Z_u)[k]`` (a hub) or ``(a_u + X_u)[k] + β (h_u + Y_u)[k]`` (β = :data:`HUB_WEIGHT`:
    the hubs' labels are a weaker, noisier signal), minus ``γ w_u W_k / Σw`` (a modularity
    gain with resolution ``γ``; ``W_k`` sums the public weights labelled ``k``): post-processing,
    as the released vectors are formed exactly (int64) and only then rounded to floats (noise
    rounded first, past ``2**53``, would let the count decide the move).

    Proof. Fix neighbouring graphs, differing in the edge ``{u, v}``. Given everything released
    so far (the labels are functions of earlier releases and public randomness), a released
    count vector changes by one in one entry if the edge enters it and not at all otherwise
    (L1 sensitivity 1), so a release at scale ``b`` is ``1/b``-DP. If neither endpoint is a hub,
    the edge enters only the ``a`` vector of the one visited later: ``ε``. If ``u`` is a hub and
    ``v`` is not: ``u``'s two visits (``ε/4`` each) and ``v``'s ``h`` vector (``ε/2``): ``ε``. If
    both are hubs: each one's two visits, ``4 · ε/4 = ε``. The order and which nodes are hubs
    depend on the weights only (released earlier). By adaptive sequential composition the pass
    is ``ε``-DP.
    """
    k = partition_size(epsilon)
    labels = gen.integers(0, k, g.n).astype(np.int64)
    w = np.asarray(weights, dtype=np.float64)
    totals = np.bincount(labels, weights=w, minlength=k)
    order = np.argsort(-w, kind="stable")
    hubs = order[: int(np.ceil(revisit * g.n))] if revisit > 0 else order[:0]
    is_hub = np.zeros(g.n, dtype=np.bool_)
    is_hub[hubs] = True
    seen = np.zeros(g.n, dtype=np.bool_)
    own, from_hubs, hub_scale = partition_scales(epsilon)
    inv = 1.0 / max(float(w.sum()), 1.0)
    step = max(1, _CHUNK // k)
    for visit in (order, hubs):
        for lo in range(0, visit.size, step):
            part = visit[lo : lo + step]
            hub = is_hub[part]
            noise = np.zeros((part.size, k), dtype=np.int64)
            extra = np.zeros((part.size, k), dtype=np.int64)
            rows = np.flatnonzero(hub)
            noise[rows] = _dlap(src, rows.size * k, hub_scale).reshape(rows.size, k)
            rows = np.flatnonzero(~hub)
            noise[rows] = _dlap(src, rows.size * k, own).reshape(rows.size, k)
            extra[rows] = _dlap(src, rows.size * k, from_hubs).reshape(rows.size, k)
            _sweep(
                (g.indptr, g.indices, is_hub, seen),
                labels,
                part,
                noise,
                extra,
                w,
                totals,
                (resolution * inv, HUB_WEIGHT),
            )
    return labels


def partition_scales(epsilon: float) -> tuple[Fraction, Fraction, Fraction]:
    """Noise scales of :func:`private_partition` at ``ε`` (public): a non-hub's own counts,
    a non-hub's hub counts, each hub visit.

    >>> [str(b) for b in partition_scales(0.5)]
    ['2', '4', '8']
    """
    eps = exact_epsilon(epsilon)
    return 1 / eps, 2 / eps, 4 / eps


@numba.njit(cache=True, nogil=True)
def _sweep(
    graph: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    labels: np.ndarray,
    order: np.ndarray,
    noise: np.ndarray,
    extra: np.ndarray,
    w: np.ndarray,
    totals: np.ndarray,
    weights: tuple[float, float],
) -> None:  # pragma: no cover (compiled)
    indptr, indices, is_hub, seen = graph
    penalty, beta = weights
    k = totals.size
    own, hubs = np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64)
    for i in range(order.size):
        u = order[i]
        for j in range(indptr[u], indptr[u + 1]):
            v = indices[j]
            if is_hub[u]:
                own[labels[v]] += 1
            elif is_hub[v]:
                hubs[labels[v]] += 1
            elif seen[v]:
                own[labels[v]] += 1
        seen[u] = True
        totals[labels[u]] -= w[u]
        best, gain = 0, -np.inf
        for c in range(k):
            # the released integers, exact, then rounded: a function of them alone
            value = float(own[c] + noise[i, c]) + beta * float(hubs[c] + extra[i, c])
            value -= penalty * w[u] * totals[c]
            if value > gain:
                best, gain = c, value
        labels[u] = best
        totals[best] += w[u]
        for j in range(indptr[u], indptr[u + 1]):
            own[labels[indices[j]]] = 0
            hubs[labels[indices[j]]] = 0


def noisy_blocks(
    g: EdgeGraph, labels: np.ndarray, k: int, epsilon: float, src: RandomSource
) -> np.ndarray:
    """Symmetric ``k × k`` noisy edge counts: ``[a, b]`` edges between communities ``a != b``,
    ``[a, a]`` edges inside ``a``; one noise draw per cell ``a <= b`` (ε-DP, sensitivity 1)."""
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    upper = rows < g.indices
    a, b = labels[rows[upper]], labels[g.indices[upper]]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    counts = np.bincount(lo * k + hi, minlength=k * k).reshape(k, k)
    iu = np.triu_indices(k)
    noisy = counts[iu] + _dlap(src, iu[0].size, 1 / exact_epsilon(epsilon))
    out = np.zeros((k, k), dtype=np.int64)
    out[iu] = noisy
    out.T[iu] = noisy
    return out
