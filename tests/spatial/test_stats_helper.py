"""The chi-square helper must accept the right scale and reject a 30% wrong one."""

from __future__ import annotations

import math

import numpy as np
import pytest

ALPHA = 1e-6


@pytest.mark.parametrize("scale", [1.0, 2.0, 4.0])
def test_helper_accepts_true_scale_and_rejects_wrong(dl_pvalue, scale):
    # An independent sampler: the difference of two geometric variables is discrete Laplace.
    gen = np.random.default_rng(12345)
    q = 1 - math.exp(-1 / scale)
    draws = gen.geometric(q, 200_000) - gen.geometric(q, 200_000)
    assert dl_pvalue(draws, scale) > ALPHA
    assert dl_pvalue(draws, 0.7 * scale) < ALPHA
    assert dl_pvalue(draws, 1.3 * scale) < ALPHA


def test_helper_rejects_continuous_laplace_rounding(dl_pvalue):
    # Rounded continuous Laplace has the wrong shape near 0 at scale 1.
    gen = np.random.default_rng(7)
    draws = np.rint(gen.laplace(0, 1.0, 200_000)).astype(np.int64)
    assert dl_pvalue(draws, 1.0) < ALPHA
