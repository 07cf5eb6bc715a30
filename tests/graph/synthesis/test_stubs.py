"""Stub matching, block balancing and the non-negative shift (graph/synthesis/_stubs.py)."""

from __future__ import annotations

import math

import numpy as np

from dpatlas.graph.synthesis._stubs import balance_blocks, pair_across, pair_within, shift_to_total


def test_pairings_are_matchings_inside_their_groups() -> None:
    gen = np.random.default_rng(0)
    keys = np.repeat([0, 1, 2], [5, 4, 1])
    nodes = np.arange(10)
    pairs = pair_within(keys, nodes, gen)
    assert len(pairs) == 2 + 2
    assert (keys[pairs[:, 0]] == keys[pairs[:, 1]]).all()
    assert np.unique(pairs).size == pairs.size
    pair = np.array([0, 0, 0, 0, 0, 3, 3])
    side = np.array([0, 0, 0, 1, 1, 0, 1])
    got = pair_across(pair, side, np.arange(7), gen)
    assert len(got) == 3
    assert all(side[a] == 0 and side[b] == 1 and pair[a] == pair[b] for a, b in got)


def test_balance_blocks_meets_row_sums() -> None:
    m = balance_blocks(
        np.array([[5.0, 2.0, 0.0], [2.0, 0.0, 1.0], [0.0, 1.0, 0.0]]), np.array([30.0, 8.0, 4.0])
    )
    assert np.allclose(m, m.T)
    assert np.allclose(m.sum(axis=1), [30.0, 8.0, 4.0], rtol=1e-3)


def test_shift_keeps_the_noisy_total() -> None:
    y = np.random.default_rng(1).laplace(0, 3, 1000) + np.r_[np.full(10, 100.0), np.zeros(990)]
    out = shift_to_total(y)
    assert out.min() >= 0
    assert math.isclose(out.sum(), y.sum(), rel_tol=1e-9)
    assert np.count_nonzero(out) < 100  # the empty cells' noise is mostly gone
