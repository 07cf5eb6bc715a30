"""Neighbouring graph pairs and release methods shared by the triangle-count audits.

Pairs (edge-DP, public node count ``n``): two disjoint edges vs the path 0-1-2-3 (``n = 4``;
local sensitivity 0 vs 1, both triangle-free) and K₂,₄ without / with the hub–hub edge
(``n = 6``; 0 vs 4 triangles, no edge has a common neighbour but the hubs share 4), and the
same K₂,₄ pair among 9 nodes (3 isolated): ``GS = 7`` exceeds ``a_max = 4``, so the ladder grows
(4, 4, 5, 5, 6, 6, 7) and the piecewise ladder's floor ``⌈4/ε⌉`` is below ``GS`` at ε = 1, where
on the two smaller pairs it reaches ``GS`` (its noise is then discrete Laplace of scale ``GS/ε``).
"""

from __future__ import annotations

TWO_EDGES = [(0, 1), (2, 3)]
PATH = [(0, 1), (1, 2), (2, 3)]
K24 = [(hub, leaf) for hub in (0, 1) for leaf in range(2, 6)]
K24_HUBS = [*K24, (0, 1)]
PAIRS = {
    "two edges vs path": (TWO_EDGES, PATH, 4),
    "K2,4 +- hub edge": (K24, K24_HUBS, 6),
    "K2,4 +- hub edge, n = 9": (K24, K24_HUBS, 9),
}
METHODS = [
    ("global", {}),
    ("piecewise", {}),
    ("piecewise", {"relaxed": True}),
    ("ladder", {}),
    ("ladder", {"relaxed": True}),
    ("smooth", {}),
    ("smooth", {"delta": 1e-3}),
]
