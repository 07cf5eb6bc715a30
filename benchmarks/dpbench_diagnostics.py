"""Diagnostics of the DPBench harness: PrivTree's post-processing step by step (ablation) and
where auto's error comes from (headroom: parts of the same releases made exact).

The headroom maps read the exact counts: they are diagnostics, never releases.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np
from benchmarks.dpbench import (
    CRS,
    EPSILONS,
    GRID,
    REFERENCE,
    SHAPES,
    SIDE,
    SIZES,
    answer,
    load_shape,
    sample_points,
    workload,
)

from dpatlas.spatial import Heatmap, consistent, heatmap
from dpatlas.spatial.tree.estimates import leaf_of_cell, nonnegative
from dpatlas.spatial.tree.hierarchy import least_squares

__all__ = ["HEADROOM", "ablation_table", "headroom_table"]


def _paired_errors(
    directory: Path,
    reps: int,
    method: str,
    seeds: tuple[int, int],
    maps_of: Callable[[Heatmap, np.ndarray], Iterable[np.ndarray]],
) -> Iterator[tuple[str, int, float, np.ndarray]]:
    """Per setting, the MRE of every map ``maps_of(release, exact counts)`` (paired, averaged).

    ``seeds`` seed the points and the noise of repetition ``rep`` as ``[rep, n, seeds[0]]``
    and ``[rep, seeds[1]]``.
    """
    rects = workload()
    for shape in SHAPES:
        probs = load_shape(directory, shape)
        for n in SIZES:
            for eps in EPSILONS:
                errs = []
                for rep in range(reps):
                    gen = np.random.default_rng([rep, n, seeds[0]])
                    counts, xy = sample_points(probs, n, gen)
                    truth = answer(counts, rects)
                    rng = np.random.default_rng([rep, seeds[1]])
                    hm = heatmap(
                        xy, GRID, epsilon=eps, method=method, target="regions", crs=CRS, rng=rng
                    )
                    scale = np.maximum(truth, n / 1e3)
                    errs.append(
                        [
                            np.mean(np.abs(answer(m.reshape(SIDE, SIDE), rects) - truth) / scale)
                            for m in maps_of(hm, counts)
                        ]
                    )
                yield shape, n, eps, np.mean(errs, axis=0)


def _ablation_maps(hm: Heatmap, _counts: np.ndarray) -> tuple[np.ndarray, ...]:
    raw = hm.replace(estimate=None, steps=())
    return (
        consistent(raw, nonnegative=False).estimate,
        consistent(raw, smooth=False, empty_z=None).estimate,
        consistent(raw, smooth=False).estimate,
        hm.estimate,
    )


def ablation_table(directory: Path, reps: int = 12) -> str:
    """PrivTree's post-processing, step by step, on the same releases (paired): MRE ratios.

    ``plain`` is the published estimate (raw leaf counts spread evenly, least squares being a
    no-op when only leaves are measured); ``+ non-negative`` adds the total-preserving
    projection; ``+ empty regions`` the empty-region test; ``ours`` adds the pycnophylactic
    spreading (the default map).
    """
    lines = [
        "| shape | N | ε | plain / ours | + non-negative / ours | + empty regions / ours "
        "| ours (MRE) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for shape, n, eps, (plain, nonneg, empty, ours) in _paired_errors(
        directory, reps, "privtree", (5, 9), _ablation_maps
    ):
        lines.append(
            f"| {shape} | {n:.0e} | {eps:g} | {plain / ours:.2f} | {nonneg / ours:.2f} "
            f"| {empty / ours:.2f} | {ours:.3g} |"
        )
    return "\n".join(lines)


def _with_leaves(hm: Heatmap, leaves: np.ndarray) -> np.ndarray:
    """``consistent`` map of ``hm``'s tree with other leaf values (a diagnostic, not a release)."""
    h = hm.hierarchy
    assert h is not None
    noisy = np.where(h.is_leaf, leaves, h.noisy)
    tree = dataclasses.replace(h, noisy=noisy).to_metadata()
    release = dataclasses.replace(hm.release, metadata={**hm.release.metadata, "hierarchy": tree})
    return consistent(hm.replace(release=release, estimate=None, steps=())).estimate


def _in_leaf_truth(hm: Heatmap, counts: np.ndarray) -> np.ndarray:
    """Released leaf totals (least squares, non-negative) spread by the exact cell shares."""
    h = hm.hierarchy
    assert h is not None
    leaf = leaf_of_cell(h, counts.shape).ravel()
    values = nonnegative(h, least_squares(h))
    truth = counts.ravel().astype(np.float64)
    totals = np.bincount(leaf, weights=truth, minlength=h.size)[leaf]
    share = np.where(totals > 0, truth / np.maximum(totals, 1), 1 / h.n_released[leaf])
    return share * values[leaf]


HEADROOM = (
    "released",
    "exact leaves",
    "exact empty big leaves",
    "exact empty leaves",
    "exact shape",
)


def _headroom_maps(hm: Heatmap, counts: np.ndarray) -> tuple[np.ndarray, ...]:
    h = hm.hierarchy
    assert h is not None
    exact = answer(counts, (h.r0, h.r1, h.c0, h.c1))
    empty = h.is_leaf & (exact == 0)
    return (
        hm.estimate,
        _with_leaves(hm, exact),
        _with_leaves(hm, np.where(empty & (h.n_released > 1), 0.0, h.noisy)),
        _with_leaves(hm, np.where(empty, 0.0, h.noisy)),
        _in_leaf_truth(hm, counts),
    )


def headroom_table(directory: Path, reps: int = 10) -> str:
    """Where auto's error comes from: its MRE / reference PrivTree with parts made exact.

    Diagnostics that read the exact counts (never releases): on the same released tree, the
    leaf counts replaced by the exact ones; only the empty multi-cell leaves (or all empty
    leaves) set to their exact 0, the other leaves noisy; the released leaf totals spread
    inside each leaf by the exact shares of its cells instead of by smoothing.
    """
    lines = [
        "| shape | N | ε | " + " | ".join(HEADROOM) + " |",
        "|---|---|---|" + "---:|" * len(HEADROOM),
    ]
    for shape, n, eps, errs in _paired_errors(directory, reps, "auto", (11, 13), _headroom_maps):
        ratios = errs / REFERENCE[(shape, n, eps)]["privtree"]
        cells = " | ".join(f"{r:.2f}" for r in ratios)
        lines.append(f"| {shape} | {n:.0e} | {eps:g} | {cells} |")
    return "\n".join(lines)
