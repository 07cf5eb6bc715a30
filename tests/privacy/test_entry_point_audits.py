"""Audits of every public release function through its public entry point (issue #17, problem 3).

Design. Each case of ``_entry_points.CASES`` calls the real function (``triangle_count`` in
every method, with and without a bought interval; ``kstar_count``, also with an interval;
``clustering_coefficient``; ``edge_count``; ``degree_histogram`` both ways; ``heatmap``
uniform, adaptive, PrivTree, ``auto`` for ``target="regions"`` on a grid of 64 cells, where it
runs PrivTree with its real options, ε/3 for the tree and θ = -1.5δ, and the default
(``target="cells"``) on a grid of 256 cells, where it publishes posterior medians; ``estimate_n_sites``; every core
mechanism) on two neighbouring inputs where it takes its real code path, and audits the whole
output: :func:`dpatlas.audit.summarize` turns the release into numbers (value, noisy bounds
and counts in the metadata, the released tree and a structure code that hashes the tree's
shape, the blocks and the measured nodes).
``suggest_cell_size`` is not audited: it reads no data (public extent, ε and N only), and
``sensitivity_report`` releases nothing (labelled NOT private).

Runs. The auditor bounds ε from Clopper–Pearson intervals at 99% on the test half of the
runs. For a violation by a factor 2 on a tight pair the best event has ``p = 1/(1 + e^{-2ε})``
and ``q = 1 - p`` (a shift by the sensitivity under noise at 2ε); the smallest test half that
shows ``ε_lb > ε`` is 62 runs per input at ε = 1 and 66 at ε = 2
(:func:`test_runs_suffice_for_a_tight_two_fold_violation` recomputes it). The event is not
known in advance: half the runs choose it, so each case uses at least 3 times that many test
runs (600 runs per input for the one-release-per-call paths, thousands for batched ones).

Power, the meta-test. The same audit, with the same number of runs, must fail when the
release is run at ``broken · ε`` and audited against ``ε``. ``broken = 2`` where the pair
realises the whole ε (a shift by the sensitivity). Several mechanisms never realise their
whole ε on any pair: the ladder realises ε/2 (its proof's normaliser factor never appears;
exact pmf, :func:`test_the_ladder_realises_half_its_epsilon`), smooth sensitivity with
Cauchy noise under ε/5, and composite releases split ε over parts that no one-coordinate
event sees together (interval purchase, clustering, PrivTree, the adaptive grid, the clipped
mean). Running those at 2ε violates nothing on these inputs (their loss stays about ε), so
no audit of any length can catch it; for them ``broken`` is the factor at which the pair's
realised loss is about twice the claim (4, 2.5 for the piecewise ladder, whose rate is about
0.81ε to 0.86ε once its floor is below GS, and 24 for Cauchy), stated per case
(``Case.realised``). The sampler-distribution tests in tests/core are the sharper guard
there. Both audits run in the default suite (about a minute of CPU in all);
``-m slow`` repeats the passing audits with ten times the runs.
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from tests.privacy._entry_points import CASES, GRID_8, GRID_16, K5, SITES_8, SITES_16, _plus

from dpatlas.audit import AuditResult, audit, clopper_pearson
from dpatlas.core.noise.local.ladder_exact import ladder_pmf
from dpatlas.graph import as_edge_graph
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder
from dpatlas.spatial import heatmap
from dpatlas.spatial.methods import privtree as privtree_module


def run(name: str, scale: float, samples_factor: int = 1, offset: int = 0) -> AuditResult:
    """Audit case ``name`` run at ``scale · ε`` against its claimed ε (seeded per case)."""
    case = CASES[name]
    return audit(
        case.mechanism(scale),
        case.d,
        case.d_prime,
        epsilon=case.epsilon,
        delta=case.delta,
        samples=samples_factor * case.samples,
        rng=zlib.crc32(name.encode()) + offset,
    )


@pytest.mark.parametrize("name", CASES)
def test_release_passes_its_audit(name: str) -> None:
    result = run(name, 1.0)
    assert result.passed, str(result)


@pytest.mark.parametrize("name", CASES)
def test_broken_variant_is_caught_with_the_same_runs(name: str) -> None:
    case = CASES[name]
    result = run(name, case.broken, offset=1)
    assert not result.passed, f"{name} at {case.broken}·ε not caught ({case.realised}):\n{result}"


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_release_passes_with_ten_times_the_runs(name: str) -> None:
    result = run(name, 1.0, samples_factor=10, offset=2)
    assert result.passed, str(result)


def tight_runs_needed(epsilon: float, confidence: float = 0.99) -> int:
    """Test runs per input that show ε_lb > ε for a tight 2ε violation, the event known."""
    p = 1 / (1 + math.exp(-2 * epsilon))
    level = 1 - (1 - confidence) / 2
    for n in range(2, 100_000):
        low, _ = clopper_pearson(round(p * n), n, level)
        _, high = clopper_pearson(round((1 - p) * n), n, level)
        if math.log(float(low) / float(high)) > epsilon:
            return n
    raise AssertionError("unreachable")


def test_runs_suffice_for_a_tight_two_fold_violation() -> None:
    assert (tight_runs_needed(1.0), tight_runs_needed(2.0)) == (62, 66)
    for name, case in CASES.items():
        assert case.samples // 2 >= 3 * tight_runs_needed(case.epsilon), name


def test_the_ladder_realises_half_its_epsilon() -> None:
    # exact output laws of triangle_count/ladder on K5 and K5 minus an edge (n = 5): the
    # largest pointwise log-ratio is ε/2, so at 2ε the loss is ε: no audit could catch that
    graphs = [as_edge_graph(np.array(edges), n=5) for edges in (K5, K5[1:])]
    stats = [common_neighbour_stats(g) for g in graphs]
    outputs = np.arange(-60, 71)
    laws = [
        ladder_pmf(outputs - s.triangles, sensitivity_ladder(s), 1.0, global_sensitivity=3)
        for s in stats
    ]
    ratio = np.abs(np.log(laws[0] / laws[1]))
    assert 0.49 < ratio.max() < 0.51


def test_auto_runs_privtree_with_its_real_options_on_the_audited_grid() -> None:
    cells = heatmap(SITES_16, GRID_16, epsilon=1.0, crs="EPSG:3035", rng=0)
    assert cells.steps == ("empirical_bayes",)  # the default map's posterior medians run
    hm = heatmap(SITES_8, GRID_8, epsilon=1.0, target="regions", crs="EPSG:3035", rng=0)
    meta = hm.release.metadata
    assert (meta["auto_choice"], meta["epsilon_tree"]) == ("privtree", pytest.approx(1 / 3))
    assert meta["split"]["theta"] == pytest.approx(-1.5 * meta["split"]["delta"], abs=1e-3)
    assert len(meta["hierarchy"]["parent"]) > 1  # a real tree


def test_a_leak_through_the_released_tree_alone_is_caught(monkeypatch) -> None:
    # PrivTree whose split test forgets its noise: the leaf counts stay noisy, but the tree is
    # a function of the data. auto's tree (ε/3: δ = 9.6, θ = -1.5δ) splits a depth-2 node of
    # 2 × 2 cells when it holds more than 2δ + θ = 4.8 sites: 4 sites in a far corner do not
    # split it, 5 do, every time. Only the structure code (coordinate 0) sees that.
    def exact_split(self, counts, depth, source):
        return self.biased(counts, depth) > 0

    monkeypatch.setattr(privtree_module.SplitRule, "decide", exact_split)
    case = CASES["heatmap/auto-privtree"]
    four = SITES_8
    for _ in range(4):
        four = _plus(four, 6_500.0, 6_500.0)
    five = _plus(four, 6_500.0, 6_500.0)
    result = audit(case.mechanism(1.0), four, five, epsilon=1.0, samples=200, rng=1717)
    assert not result.passed
    assert result.event.projection == 0
    assert (result.p, result.q) in ((1.0, 0.0), (0.0, 1.0))
