"""Block sums of the user's cells: the compiled prefix-sum table against numpy's cumulative sums."""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas.spatial.methods._cells import prefix_sums, rect_sums


def reference(array):
    """The two numpy cumulative sums prefix_sums() ran before it was compiled."""
    table = np.zeros((array.shape[0] + 1, array.shape[1] + 1), dtype=np.int64)
    np.cumsum(array, axis=0, out=table[1:, 1:])
    np.cumsum(table[1:, 1:], axis=1, out=table[1:, 1:])
    return table


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (9, 1), (37, 23), (64, 64)])
def test_prefix_sums_equal_numpys_cumulative_sums(shape):
    gen = np.random.default_rng(sum(shape))
    counts = gen.integers(0, 1_000, shape) * (gen.random(shape) < 0.3)
    released = gen.random(shape) < 0.7
    for array in (counts, counts.astype(np.int32), released):
        got = prefix_sums(array)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, reference(array.astype(np.int64)))
    r0, c0 = gen.integers(0, shape[0], 50), gen.integers(0, shape[1], 50)
    r1, c1 = r0 + gen.integers(1, shape[0] - r0 + 1), c0 + gen.integers(1, shape[1] - c0 + 1)
    want = [released[a:b, c:d].sum() for a, b, c, d in zip(r0, r1, c0, c1, strict=True)]
    np.testing.assert_array_equal(rect_sums(prefix_sums(released), r0, r1, c0, c1), want)


def test_prefix_sums_refuses_floats():
    with pytest.raises(TypeError, match="needs integers or booleans, got dtype float64"):
        prefix_sums(np.ones((2, 2)))
