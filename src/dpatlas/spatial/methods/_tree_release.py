"""The Release of a multi-level method: cells from the leaves, the tree in the metadata."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from dpatlas.core.accounting.charge import Charge
from dpatlas.core.release import Release
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.tree.estimates import to_cells
from dpatlas.spatial.tree.hierarchy import Hierarchy

__all__ = ["tree_of", "tree_release"]


def tree_release(
    h: Hierarchy,
    grid: Grid,
    *,
    charge: Charge,
    sensitivity: int,
    seeded: bool,
    leaf_scale: float | np.ndarray,
    metadata: Mapping[str, Any],
) -> Release:
    """A pure ε-DP release whose value is the raw leaf counts spread evenly over their cells.

    ``charge`` is the method's debited charge: the release takes its cost and mechanism.

    The noise of a cell is a share of its leaf's noise, not one draw per cell, so the
    release has no per-cell ``scale``; ``metadata["hierarchy"]`` holds the whole tree (see
    :func:`tree_of`) and ``metadata["leaf_noise"]`` the leaves' discrete Laplace scale. This is
    the "leaves" form of the contract of :mod:`dpatlas.spatial.products.intervals`, on which
    every interval of the map rests: the caller promises that each leaf with a released cell
    was measured once, ``noisy = count + Z`` with ``Z`` discrete Laplace of scale
    ``leaf_scale`` (one number, or one per node of ``h``), independent across leaves and
    drawn after the tree was fixed.
    """
    if not isinstance(leaf_scale, (int, float)):
        leaf_scale = np.asarray(leaf_scale, dtype=np.float64)
        if leaf_scale.shape != (h.size,):
            raise ValueError(
                f"leaf_scale must be one number or one per node ({h.size}), "
                f"got shape {leaf_scale.shape}"
            )
    return charge.release(
        Release,
        value=to_cells(h, h.noisy, grid),
        sensitivity=float(sensitivity),
        scale=None,
        noise=None,
        seeded=seeded,
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
