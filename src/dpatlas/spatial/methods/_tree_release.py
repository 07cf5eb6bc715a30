"""The Release of a multi-level method: cells from the leaves, the tree in the metadata."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dpatlas.core.release import Release
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.tree.estimates import to_cells
from dpatlas.spatial.tree.hierarchy import Hierarchy

__all__ = ["leaf_intervals", "noise_of", "tree_of", "tree_release"]


def tree_release(
    h: Hierarchy,
    grid: Grid,
    *,
    epsilon: float,
    mechanism: str,
    sensitivity: int,
    seeded: bool,
    leaf_scale: float,
    metadata: Mapping[str, Any],
) -> Release:
    """A pure ε-DP release whose value is the raw leaf counts spread evenly over their cells.

    The noise of a cell is a share of its leaf's noise, not one draw per cell, so the
    release has no per-cell ``scale``; ``metadata["leaf_noise"]`` gives the leaves' discrete
    Laplace scale and ``metadata["hierarchy"]`` the whole tree (see :func:`tree_of`).
    """
    return Release(
        value=to_cells(h, h.noisy, grid),
        epsilon=epsilon,
        delta=0.0,
        mechanism=mechanism,
        sensitivity=float(sensitivity),
        scale=None,
        noise=None,
        seeded=seeded,
        rho=epsilon**2 / 2,
        metadata={
            "hierarchy": h.to_metadata(),
            "leaf_noise": {"noise": "discrete_laplace", "scale": leaf_scale},
            **metadata,
        },
    )


def tree_of(release: Release) -> Hierarchy | None:
    """The released tree of a multi-level method, or None for a one-level release."""
    data = release.metadata.get("hierarchy")
    return None if data is None else Hierarchy.from_metadata(data)


def noise_of(release: Release) -> tuple[str | None, float | None, str]:
    """``(noise, scale, unit)``: per cell for one-level releases, per leaf for trees."""
    leaf_noise = release.metadata.get("leaf_noise")
    if leaf_noise is None:
        return release.noise, release.scale, "cell"
    return str(leaf_noise["noise"]), float(leaf_noise["scale"]), "leaf"


def leaf_intervals(release: Release, h: Hierarchy, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-node interval of the raw leaf counts (``nan`` for internal nodes).

    From the leaves' noise distribution and public scale only; a leaf without released cells
    is exact (0, 0).
    """
    noise, scale, _ = noise_of(release)
    leaf = h.is_leaf & (h.n_released > 0)
    model = Release(
        value=h.noisy[leaf],
        epsilon=release.epsilon,
        delta=0.0,
        mechanism=release.mechanism,
        sensitivity=release.sensitivity,
        scale=scale,
        noise=noise,
        seeded=release.seeded,
    )
    low, high = np.full(h.size, np.nan), np.full(h.size, np.nan)
    low[leaf], high[leaf] = model.confidence_interval(level)
    exact = h.is_leaf & (h.n_released == 0)
    low[exact], high[exact] = 0.0, 0.0
    return low, high
