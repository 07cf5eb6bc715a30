"""Neighbouring graph pairs and release methods shared by the triangle-count audits.

Pairs (edge-DP, public node count ``n``): two disjoint edges vs the path 0-1-2-3 (``n = 4``;
local sensitivity 0 vs 1, both triangle-free) and K₂,₄ without / with the hub–hub edge
(``n = 6``; 0 vs 4 triangles, no edge has a common neighbour but the hubs share 4).
"""

from __future__ import annotations

TWO_EDGES = [(0, 1), (2, 3)]
PATH = [(0, 1), (1, 2), (2, 3)]
K24 = [(hub, leaf) for hub in (0, 1) for leaf in range(2, 6)]
K24_HUBS = [*K24, (0, 1)]
PAIRS = {"two edges vs path": (TWO_EDGES, PATH, 4), "K2,4 +- hub edge": (K24, K24_HUBS, 6)}
METHODS = [
    ("global", {}),
    ("ladder", {}),
    ("ladder", {"relaxed": True}),
    ("smooth", {}),
    ("smooth", {"delta": 1e-3}),
]
