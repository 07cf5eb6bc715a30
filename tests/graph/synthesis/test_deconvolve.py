"""Target degrees by deconvolution of the noisy degrees (graph/synthesis/_deconvolve.py)."""

from __future__ import annotations

import numpy as np

from dpatlas.graph.synthesis._deconvolve import deconvolved_degrees


def test_deconvolution_keeps_the_distribution_and_range() -> None:
    gen = np.random.default_rng(0)
    d = np.r_[np.ones(3000, dtype=np.int64), np.full(1000, 40)]
    x = d + np.rint(gen.laplace(0, 5.0, d.size)).astype(np.int64)
    t = deconvolved_degrees(x, 5.0, 5000, gen)
    assert t.min() >= 0
    assert t.max() <= 4999
    assert abs(t.mean() - d.mean()) < 1.0
    assert (t[:3000] < 10).mean() > 0.8
    assert (np.abs(t[3000:] - 40) < 10).mean() > 0.8
    assert np.count_nonzero(np.clip(x, 0, None) == 0) > np.count_nonzero(t == 0)
