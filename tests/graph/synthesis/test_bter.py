"""The BTER / block-model generator and its fit (graph/synthesis/_bter.py, _fit.py)."""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas.graph.synthesis import _fit
from dpatlas.graph.synthesis._bter import BLOCK_CAPS, generate
from dpatlas.graph.synthesis._fit import fit_capped


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


def _within(keys: np.ndarray, groups: np.ndarray, n: int) -> int:
    return int((groups[keys // n] == groups[keys % n]).sum())


def _two_groups() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One community, two groups of degree class 2 mixed in every block; released: few edges
    inside the groups, most across (degrees, communities, groups, released counts)."""
    n = 400
    blocks = np.zeros((4, 4))
    blocks[2, 2] = blocks[3, 3] = 100.0
    blocks[2, 3] = blocks[3, 2] = 3800.0
    return np.full(n, 20), np.zeros(n, dtype=np.int64), 2 + np.arange(n) % 2, blocks


def test_affinity_blocks_respect_released_counts() -> None:
    # uncapped, the blocks put ~half their edges inside the groups
    deg, labels, groups, blocks = _two_groups()
    n = deg.size
    capped = generate(deg, labels, groups, blocks, 1.0, np.random.default_rng(1), cap=1.25)
    assert _within(capped, groups, n) < 1.6 * 200
    free = generate(deg, labels, groups, blocks, 1.0, np.random.default_rng(1))
    assert _within(free, groups, n) > 3 * 200


def test_fit_capped_on_the_generator() -> None:
    # capped blocks lose most of their triangles (each needs an edge inside a group)
    deg, labels, groups, blocks = _two_groups()
    n = deg.size

    def make(scale: float, cap: float | None) -> np.ndarray:
        return generate(deg, labels, groups, blocks, scale, np.random.default_rng(5), cap=cap)

    at_one = [_fit._triangles(make(1.0, c), n) for c in BLOCK_CAPS]
    assert all(np.diff(at_one) > 0)  # more triangles with a looser cap (this example)
    target = float(np.sqrt(at_one[1] * at_one[2]))  # between the caps 1.5 and 2
    keys, _, cap = fit_capped(target, make, n, BLOCK_CAPS)
    assert cap == BLOCK_CAPS[2]  # the smallest cap reaching the target
    assert _fit._triangles(keys, n) == pytest.approx(target, rel=0.01)  # the fit's tolerance
    assert fit_capped(10 * at_one[-1], make, n, BLOCK_CAPS)[1:] == (1.0, None)
