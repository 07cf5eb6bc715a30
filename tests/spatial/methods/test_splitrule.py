"""PrivTree's split decisions: exact privacy of whole paths, their sampler, their audit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpatlas.audit import audit
from dpatlas.core import get_source
from dpatlas.spatial.methods._splitrule import SplitRule, split_rule

ALPHA = 1e-6
MAX_THETA = 2.0**48  # counts: the largest |θ| split_rule accepts


def path_log_ratios(rule: SplitRule, counts: np.ndarray, max_depth: int) -> np.ndarray:
    """Exact ``log P[leaf at depth ℓ | D'] - log P[leaf at depth ℓ | D]`` for every ℓ.

    ``counts[d]`` is the count of the depth-``d`` node on the path of the added site under D;
    D' has one more site in each. The tree outside the path is identical under both, so the
    probability of a whole tree differs only by these path factors. A node at ``max_depth``
    (one cell) is a leaf without a decision.
    """
    split, stay = rule.log_probabilities(rule_biased(rule, counts))
    split2, stay2 = rule.log_probabilities(rule_biased(rule, counts + 1))
    above = np.r_[0.0, np.cumsum(split2 - split)]
    ratios = above[: max_depth + 1].copy()
    ratios[:max_depth] += (stay2 - stay)[:max_depth]
    return ratios


def rule_biased(rule: SplitRule, counts: np.ndarray) -> np.ndarray:
    return np.array([rule.biased(np.array([c]), d)[0] for d, c in enumerate(counts)])


@pytest.mark.parametrize("eps", [0.02, 0.1, 0.5, 1.0, 4.0])
@pytest.mark.parametrize("k", [1, 2])
def test_split_rule_parameters_and_bound(eps, k):
    rule = split_rule(eps, sensitivity=k)
    paper = 7 / (3 * eps / k)
    assert rule.loss() <= eps
    # the tight bound is below the paper's constant wherever δ >= 1 (ε_tree / k <= 3)
    assert 0.94 * paper <= rule.lam <= (paper if eps / k <= 2 else 1.25 * paper)
    assert rule.delta >= rule.lam * math.log(4)
    assert rule.delta <= rule.lam * math.log(4) + 2 / rule.lattice


@pytest.mark.parametrize("theta", [0.0, None, 7.5])
@pytest.mark.parametrize("eps", [0.05, 0.5, 2.0])
def test_exact_privacy_loss_of_whole_paths_is_at_most_epsilon_tree(eps, theta):
    """All sites in one cell is the tight case (Y drops by exactly δ per level); also random paths.

    The tight bound (below the paper's constant) is checked against the exact path losses,
    for the paper's θ = 0, the default θ = -δ and another threshold.
    """
    rule = split_rule(eps, theta=theta)
    depth = 24
    worst = 0.0
    for c in np.arange(0, int(depth * rule.delta) + 10, max(1, int(rule.lam / 8))):
        ratios = path_log_ratios(rule, np.full(depth + 1, c), depth)
        worst = max(worst, np.abs(ratios).max())
    gen = np.random.default_rng(0)
    for _ in range(300):
        counts = np.sort(gen.integers(0, int(depth * rule.delta), depth + 1))[::-1]
        worst = max(worst, np.abs(path_log_ratios(rule, counts, depth)).max())
    assert worst <= eps
    assert worst > (0.8 if eps <= 0.5 else 0.5) * eps  # nearly attained: the check can fail


def test_theta_shifts_the_threshold_and_is_validated():
    rule, low = split_rule(0.5), split_rule(0.5, theta=None)
    assert low.theta == -low.delta
    assert low.lam == rule.lam
    counts = np.array([3, 10, 40])
    raw = counts * rule.lattice - 2 * rule.bias
    assert (low.biased(counts, 2) == np.maximum(raw + rule.bias, -rule.bias)).all()
    assert (rule.biased(counts, 2) == np.maximum(raw, -rule.bias)).all()
    with pytest.raises(
        ValueError, match="theta must be a finite number of counts or None, got nan"
    ):
        split_rule(0.5, theta=math.nan)
    with pytest.raises(ValueError, match=r"theta must be at most 2\*\*48 counts"):
        split_rule(0.5, theta=10**400)  # raised OverflowError (math.isfinite of a huge int)
    with pytest.raises(ValueError, match="theta must be a finite number"):
        split_rule(0.5, theta=-math.inf)


@pytest.mark.parametrize("levels", [0.0, 1.5, 3.0])
def test_theta_levels_shift_the_threshold_and_keep_the_exact_path_loss(levels):
    """θ = -levels·δ: a public shift of every biased count, so the loss bound is unchanged."""
    eps = 0.5
    rule = split_rule(eps, theta=None, theta_levels=levels)
    assert rule.offset == -round(levels * rule.bias)
    assert rule.lam == split_rule(eps).lam
    depth = 24
    worst = max(
        np.abs(path_log_ratios(rule, np.full(depth + 1, c), depth)).max()
        for c in range(0, int(depth * rule.delta) + 10, max(1, int(rule.lam / 8)))
    )
    assert 0.8 * eps < worst <= eps


@pytest.mark.parametrize("bad", [-0.5, 65, math.nan, True, "1"])
def test_theta_levels_are_validated(bad):
    with pytest.raises(ValueError, match=r"theta_levels must be a number in \[0, 64\]"):
        split_rule(0.5, theta=None, theta_levels=bad)


def test_the_path_check_catches_a_tree_without_depth_bias():
    rule = split_rule(0.5)
    unbiased = SplitRule(rule.epsilon, 1, 4, rule.lattice, rule.scale, bias=0)
    ratios = path_log_ratios(unbiased, np.full(13, 0), 12)
    assert np.abs(ratios).max() > 2 * 0.5


@pytest.mark.parametrize("k", [1, 3])
def test_group_privacy_for_k_sites(k):
    rule = split_rule(0.5, sensitivity=k)
    counts = np.full(17, 40)
    d_plus_k = path_log_ratios(rule, counts + k - 1, 16)  # k steps of one site each
    total = sum(np.abs(path_log_ratios(rule, counts + j, 16)).max() for j in range(k))
    assert np.abs(d_plus_k).max() <= total <= 0.5 + 1e-12


@pytest.mark.parametrize("offset", [-1.0, 0.5, 0.7])  # at 0 P(split) ~ 1/2 for any scale
def test_decisions_follow_the_exact_split_probability(offset):
    """200,000 decisions at one biased count: binomial test, rejecting scales x0.7 and x1.3."""
    rule = split_rule(0.5)
    depth = 3
    count = round(depth * rule.delta + offset * rule.lam)
    n = 200_000
    hits = int(rule.decide(np.full(n, count), depth, get_source(11)).sum())
    p = float(np.exp(rule.log_probabilities(rule.biased(np.array([count]), depth))[0][0]))
    assert stats.binomtest(hits, n, p).pvalue > ALPHA
    for factor in (0.7, 1.3):
        t, s = rule.scale
        wrong = SplitRule(rule.epsilon, 1, 4, rule.lattice, (round(t * factor), s), rule.bias)
        q = float(np.exp(wrong.log_probabilities(wrong.biased(np.array([count]), depth))[0][0]))
        assert stats.binomtest(hits, n, q).pvalue < ALPHA


def _leaf_depth(rule: SplitRule, counts: list[int]):
    """Batched path simulation with the real sampler: depth of the leaf holding the extra site."""

    def mechanism(_d, *, size, rng):
        source = get_source(rng)
        depth_of_leaf = np.full(size, len(counts) - 1)
        alive = np.arange(size)
        for d, c in enumerate(counts[:-1]):
            split = rule.decide(np.full(alive.size, c), d, source)
            depth_of_leaf[alive[~split]] = d
            alive = alive[split]
        return depth_of_leaf

    return mechanism


def test_audit_of_the_split_path_passes_and_catches_a_missing_bias():
    rule = split_rule(1.0)
    counts = [int(4 * rule.delta)] * 9
    result = audit(
        lambda d, *, size, rng: _leaf_depth(rule, d)(d, size=size, rng=rng),
        counts,
        [c + 1 for c in counts],
        epsilon=1.0,
        samples=100_000,
        rng=3,
    )
    assert result.passed
    broken = SplitRule(rule.epsilon, 1, 4, rule.lattice, rule.scale, bias=0)
    counts = [1] * 9
    result = audit(
        lambda d, *, size, rng: _leaf_depth(broken, d)(d, size=size, rng=rng),
        counts,
        [c + 1 for c in counts],
        epsilon=1.0,
        samples=100_000,
        rng=3,
    )
    assert not result.passed


def test_a_theta_near_the_int64_limit_is_refused_not_wrapped():
    """θ ≈ 9.007e15 counts put the biased counts next to 2**63: int64 wrapped them, so at depth 1
    a node with 5 sites always split while one with 6 split with probability 1/8 (an infinite
    privacy loss for one site). Such a θ is now refused, like every θ beyond ``MAX_THETA``."""
    rule = split_rule(0.5)
    wrapping = (2**63 - rule.bias + 5 * rule.lattice) / rule.lattice
    for bad in (wrapping, -wrapping, 1e16, 1e300, MAX_THETA * 2):
        with pytest.raises(ValueError, match=r"theta must be at most 2\*\*48 counts in size"):
            split_rule(0.5, theta=bad)
    with pytest.raises(ValueError, match=r"lattice must be at most 1024 .* got 2048"):
        split_rule(0.5, lattice=2048)


@pytest.mark.parametrize("theta", [MAX_THETA, -MAX_THETA])
def test_biased_counts_are_exact_at_the_extreme_public_inputs(theta):
    """At the largest accepted |θ|, the largest bias (scale 2**50) and depth 63, and up to 2**52
    sites, ``B = max(s·c - d·D - Θ, -D)`` in int64 equals the exact integer, and rises with c."""
    rule = split_rule(1.02 * 1024 * 7 / 3 / 2**50, theta=theta)  # about the finest ε_tree
    assert rule.scale[0] / rule.scale[1] > 2**49
    counts = np.array([0, 1, 2, 2**40, 2**52 - 1], dtype=np.int64)
    for depth in (0, 1, 40, 63):
        exact = [
            max(int(c) * rule.lattice - depth * rule.bias - rule.offset, -rule.bias) for c in counts
        ]
        got = rule.biased(counts, depth)
        assert got.tolist() == exact
        assert (np.diff(got) >= 0).all()


def test_theta_takes_any_real_number_but_not_a_bool():
    """np.int64(3) was refused as "not a finite number" and True was taken as 1 count."""
    rule = split_rule(0.5, theta=np.int64(3))
    assert rule.theta == split_rule(0.5, theta=3.0).theta
    assert type(rule.offset) is int
    assert split_rule(0.5, theta=None, theta_levels=np.int64(2)).offset == -2 * split_rule(0.5).bias
    with pytest.raises(
        ValueError, match="theta must be a finite number of counts or None, got True"
    ):
        split_rule(0.5, theta=True)


def worst_path_loss(rule: SplitRule, depth: int = 48) -> float:
    """Exact maximum over every count path of ``log P[splits on the path | D'] - log P[... | D]``.

    A dynamic programme over (depth, count of the node holding the added site, ``c' >= 1``):
    counts never grow going down, so the best path from a node continues to a child with a
    count at most its own; the path's leaf only lowers the ratio (not splitting is likelier
    under ``D``). Depth 48 with counts up to 60 noise scales above the deepest bias covers
    every node whose factor is not 1 to within float rounding.
    """
    t = rule.scale[0] / rule.scale[1]
    cmax = int((depth * rule.bias + rule.offset + 60 * t) / rule.lattice) + 5
    counts = np.arange(1, cmax + 1, dtype=np.int64)
    below = np.zeros(cmax)
    worst = 0.0
    for d in range(depth, -1, -1):
        split_added = rule.log_probabilities(rule.biased(counts, d))[0]
        split_base = rule.log_probabilities(rule.biased(counts - 1, d))[0]
        here = split_added - split_base + np.maximum(below, 0.0)
        worst = max(worst, float(here.max()))
        below = np.maximum.accumulate(here)
    return worst


@pytest.mark.parametrize("theta", [0.0, None, 7.5])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("eps", [0.05, 0.5, 2.0, 8.0])
def test_the_worst_path_over_all_counts_costs_at_most_epsilon_tree(eps, k, theta):
    """The exact supremum over all paths (not a sample of them), both directions, k sites."""
    rule = split_rule(eps, sensitivity=k, theta=theta)
    worst = worst_path_loss(rule)
    assert k * worst <= eps
    assert k / rule.lam <= eps  # removing a site: only the path's leaf, by at most e^{1/λ}
    assert k * worst > 0.4 * eps  # the bound is nearly reached: the check can fail


def test_the_worst_path_check_catches_a_bias_below_lambda_ln_beta():
    rule = split_rule(0.5)
    weak = SplitRule(rule.epsilon, 1, 4, rule.lattice, rule.scale, bias=rule.bias // 2)
    assert worst_path_loss(weak) > 0.5
