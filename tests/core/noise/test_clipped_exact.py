"""clipped_sum / clipped_mean sum exactly (issue #17 leftover; Casacuberta et al., CCS 2022).

A float sum of values clipped to [0, 1] can move by more than 1 when one record is removed
(every addition rounds); the integer sum the mechanisms now add noise to cannot.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dpatlas.core import clipped_sum
from dpatlas.core.noise._sampling.exact_sum import exact_units, record_grid

ONE = 1 - 2.0**-53  # 0.9999999999999999
# found by a search over values in [0, 1]: the float sum moves by more than the bound 1
D = [ONE, 2.0**-52, ONE, 1.0, 2.0**-53, ONE, 0.5 + 2.0**-53, 2.0**-53, 2.0**-52, 2.0**-52]
D += [0.5 + 2.0**-53, ONE, 2.0**-52, 1.0, 2.0**-52, 1.0, ONE, 0.5 + 2.0**-53, 2.0**-52]
D += [0.5 + 2.0**-53, 2.0**-53, 1.0, 2.0**-53, 0.5 + 2.0**-53, ONE, 2.0**-53, ONE, 2.0**-53]
D += [2.0**-53, ONE, 2.0**-53, ONE, 0.5 + 2.0**-53, 0.5 + 2.0**-53, 0.5 + 2.0**-53, 1.0]
D += [2.0**-52, ONE, 0.5 + 2.0**-53]
D_PRIME = D[:2] + D[3:]  # the third record removed


def test_the_float_sum_exceeds_its_sensitivity_on_this_pair() -> None:
    moved = abs(float(np.sum(D)) - float(np.sum(D_PRIME)))
    assert moved > 1.0  # the attack: noise calibrated to 1 does not cover this


def test_the_exact_sum_moves_by_at_most_one_record() -> None:
    g, a, b = record_grid(0.0, 1.0, 1.0)
    (u, n), (u_prime, n_prime) = (exact_units(x, 0.0, 1.0, g) for x in (D, D_PRIME))
    assert (n, n_prime) == (len(D), len(D) - 1)
    assert abs(u - u_prime) <= max(abs(a), abs(b))
    # and it is the exact sum of the rounded records, no float addition involved
    assert u == sum(round(Fraction(x) / Fraction(g)) for x in np.clip(D, 0.0, 1.0))


def test_int64_blocks_never_overflow() -> None:
    g, _, b = record_grid(-1.0, 1.0, 1e-3)
    values = np.ones(3 << 20)  # three blocks, each 2**20 records of b units
    assert exact_units(values, -1.0, 1.0, g) == (3 * (1 << 20) * b, 3 << 20)


def test_clipped_sum_releases_the_noisy_exact_sum() -> None:
    # at a large epsilon the noise is a few grid steps: the release is the exact sum
    rel = clipped_sum(D, lower=0.0, upper=1.0, epsilon=1e6, rng=0)
    exact = float(sum(Fraction(x) for x in D))
    assert abs(rel.value - exact) < 1e-4
    assert rel.metadata["grid"] == record_grid(0.0, 1.0, 1e6)[0]
