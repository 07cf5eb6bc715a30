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

from dpatlas.core.noise.discrete_laplace import rational_scale, sample_discrete_laplace
from dpatlas.core.rng import RandomSource
from dpatlas.graph.input.edgegraph import EdgeGraph

__all__ = [
    "DEGREE_CLASSES",
    "degree_class",
    "noisy_blocks",
    "noisy_degrees",
    "partition_size",
    "private_partition",
]

_CHUNK = 1 << 22  # noise words drawn at once by the partition pass (memory bound)


def _dlap(src: RandomSource, size: int, scale: Fraction) -> np.ndarray:
    return sample_discrete_laplace(src, size, rational_scale(scale))


def noisy_degrees(g: EdgeGraph, epsilon: float, src: RandomSource) -> np.ndarray:
    """``d + Z``, ``Z`` i.i.d. discrete Laplace of scale ``2/ε`` (ε-DP; may be negative)."""
    return g.degrees + _dlap(src, g.n, Fraction(2) / Fraction(epsilon))


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
    randomness). Nodes are visited by decreasing public weight (the noisy degrees). When node
    ``u`` is visited it releases ``c_u + Z_u``: ``c_u[k]`` counts its neighbours labelled ``k``
    *now*, ``Z_u`` has ``K`` i.i.d. discrete Laplace entries of scale ``b_u``; it then takes the
    label maximising ``c_u[k] + Z_u[k] - γ w_u W_k / Σw`` (a modularity gain with resolution
    ``γ``; ``W_k`` sums the public weights labelled ``k``), which is post-processing. Every node
    is visited once at ``b = 2/ε``, except the hubs — the top ``⌈revisit · n⌉`` by weight —
    which are visited twice, in the pass and again at its end (when the labels around them have
    formed: a hub that went first, among random labels, gets to move), at ``b = 4/ε`` each time.

    Proof. Given the labels so far (a function of earlier releases and public randomness), the
    vector ``c_u`` changes by one in one entry when an edge at ``u`` is added or removed, and
    not at all for an edge away from ``u``: its L1 sensitivity is 1, so one release of ``u`` is
    ``1/b``-DP: ``ε/2`` for a single visit, ``ε/4 + ε/4`` for a hub's two. The edge ``{u, v}``
    enters only the releases of ``u`` and ``v``; by adaptive sequential composition the pass is
    ``ε/2 + ε/2 = ε``-DP. Which nodes are hubs depends on the weights only (released earlier).
    """
    k = partition_size(epsilon)
    labels = gen.integers(0, k, g.n).astype(np.int64)
    w = np.asarray(weights, dtype=np.float64)
    totals = np.bincount(labels, weights=w, minlength=k)
    order = np.argsort(-w, kind="stable")
    hubs = order[: int(np.ceil(revisit * g.n))] if revisit > 0 else order[:0]
    once, twice = Fraction(2) / Fraction(epsilon), Fraction(4) / Fraction(epsilon)
    scale_of = np.where(np.isin(order, hubs), 1, 0)  # 1: a hub, visited twice at ε/4 each
    inv = 1.0 / max(float(w.sum()), 1.0)
    step = max(1, _CHUNK // k)
    for visit, scales in ((order, scale_of), (hubs, np.ones(hubs.size, dtype=np.int64))):
        for lo in range(0, visit.size, step):
            part, hub = visit[lo : lo + step], scales[lo : lo + step]
            noise = np.empty((part.size, k))
            for flag, scale in ((0, once), (1, twice)):
                rows = np.flatnonzero(hub == flag)
                noise[rows] = _dlap(src, rows.size * k, scale).reshape(rows.size, k)
            _sweep(g.indptr, g.indices, labels, part, noise, w, totals, resolution * inv)
    return labels


@numba.njit(cache=True, nogil=True)
def _sweep(
    indptr: np.ndarray,
    indices: np.ndarray,
    labels: np.ndarray,
    order: np.ndarray,
    noise: np.ndarray,
    w: np.ndarray,
    totals: np.ndarray,
    penalty: float,
) -> None:  # pragma: no cover (compiled)
    k = totals.size
    counts = np.zeros(k)
    for i in range(order.size):
        u = order[i]
        for j in range(indptr[u], indptr[u + 1]):
            counts[labels[indices[j]]] += 1.0
        totals[labels[u]] -= w[u]
        best, gain = 0, -np.inf
        for c in range(k):
            value = counts[c] + noise[i, c] - penalty * w[u] * totals[c]
            if value > gain:
                best, gain = c, value
        labels[u] = best
        totals[best] += w[u]
        for j in range(indptr[u], indptr[u + 1]):
            counts[labels[indices[j]]] = 0.0


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
    noisy = counts[iu] + _dlap(src, iu[0].size, Fraction(1) / Fraction(epsilon))
    out = np.zeros((k, k), dtype=np.int64)
    out[iu] = noisy
    out.T[iu] = noisy
    return out
