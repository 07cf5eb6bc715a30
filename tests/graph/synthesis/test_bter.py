"""The BTER / block-model generator (graph/synthesis/_bter.py)."""

from __future__ import annotations

import numpy as np

from dpatlas.graph.synthesis._bter import generate


def test_generate_hits_target_degrees() -> None:
    gen = np.random.default_rng(3)
    deg = gen.integers(1, 30, 500)
    deg[0] += 1 if deg.sum() % 2 else 0
    labels = np.repeat([0, 1], 250)
    blocks = np.array([[2000.0, 300.0], [300.0, 2000.0]])
    keys = generate(deg, labels, labels, blocks, 0.5, gen)
    got = np.bincount(np.r_[keys // 500, keys % 500], minlength=500)
    assert np.abs(got - deg).sum() / deg.sum() < 0.02
    u, v = keys // 500, keys % 500
    assert (u < v).all()
    assert np.unique(keys).size == keys.size
