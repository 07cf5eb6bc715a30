"""The public facts of a release, as every file, web map and ``--json`` report states them.

Every interval written says what it is: its level is in the column names (``ci95_low``,
``ci95_high`` at 95%, :func:`interval_columns`) and a sentence per layer says what it promises.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from dpatlas.core.validation import percent
from dpatlas.spatial.products.intervals import Measured, check_level, kept_sites

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["describe", "interval_columns", "release_facts"]


def interval_columns(level: float) -> tuple[str, str]:
    """Names of the interval's columns at ``level``: the level is in the name.

    Examples
    --------
    >>> interval_columns(0.95), interval_columns(0.975)
    (('ci95_low', 'ci95_high'), ('ci97_5_low', 'ci97_5_high'))
    """
    tag = "ci" + percent(level).removesuffix("%").replace(".", "_")
    return f"{tag}_low", f"{tag}_high"


def _sentences(m: Measured, level: float, kept: str = "") -> dict[str, str]:
    """What the intervals of each layer promise, in words (``kept``: :func:`kept_sites`)."""
    if kept:
        return {
            unit: f"{text} True counts are those {kept}."
            for unit, text in _sentences(m, level).items()
        }
    low, high = interval_columns(level)
    pct = percent(level)
    if m.unit == "cell":
        return {
            "cell": f"{low}, {high}: each cell's true count lies in its range with probability "
            f"at least {pct} (noise only: every cell was measured on its own)."
        }
    alone = int((m.n_cells == 1).sum())
    return {
        "cell": f"{low}, {high}: each cell's true count lies in its range with probability at "
        f"least {pct}. The map measured {m.size} leaves (blocks of cells), not single cells: "
        f"the cells of the {alone} one-cell leaves have a noise-only range; a cell in a leaf of "
        "several cells has the range from 0 to the upper end of its leaf's range (noise and "
        "spread: how sites spread inside a leaf is not released), valid but wide; column "
        "ci_covers says which, and the leaf layer has the tight ranges.",
        "leaf": f"{low}, {high}: each leaf's true count lies in its range with probability at "
        f"least {pct} (noise only: every leaf was measured once).",
    }


def release_facts(heatmap: Heatmap, level: float = 0.95) -> dict[str, Any]:
    """Public facts about the release as numbers, text and lists (``--json``, web maps).

    The same facts as :func:`describe`, typed: ``noise_scale`` is a number, a ``[low, high]``
    range when the measured units have different scales, or None when nothing was measured.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> facts = release_facts(hm)
    >>> facts["epsilon"], facts["noise_scale"], facts["ci95_halfwidth"], facts["seeded"]
    (1.0, 1.0, 3.0, True)
    """
    release, grid = heatmap.release, heatmap.grid
    m = heatmap.measured
    level = check_level(level)
    scales = np.unique(m.scale)
    widths = m.halfwidth(0.95)
    cap = release.metadata.get("max_sites_per_individual")
    facts: dict[str, Any] = {
        "epsilon": release.epsilon,
        "delta": release.delta,
        "mechanism": release.mechanism,
        "noise": m.noise if m.unit == "cell" else f"{m.noise} per leaf of a released tree",
        "noise_scale": None
        if not m.size
        else float(scales[0])
        if scales.size == 1
        else [float(scales[0]), float(scales[-1])],
        "sensitivity": release.sensitivity,
        "measured_unit": m.unit,
        "measured_units": int(m.size),
        "ci95_halfwidth": float(widths.max()) if widths.size else 0.0,
        "interval_level": level,
        "seeded": release.seeded,
        "cell_size": grid.cell_size,
        "crs": grid.crs.to_string(),
        "date": str(release.metadata.get("created", "")),
        "postprocessing": list(heatmap.steps),
        "max_sites_per_individual": None if cap is None else int(cap),
    }
    sentences = _sentences(m, level, kept_sites(release))
    facts.update({f"interval_{unit}": text for unit, text in sentences.items()})
    return facts


def _text(value: Any) -> str:
    """A fact as text: numbers short but exact (``1``, ``0.5``, ``1.3333333333333333``)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        short = f"{value:g}"
        return short if float(short) == value else repr(float(value))
    if isinstance(value, list):
        return json.dumps(value)
    return "" if value is None else str(value)


def describe(heatmap: Heatmap, level: float = 0.95) -> dict[str, str]:
    """Public facts about the release, as strings (GeoTIFF tags, file metadata, captions).

    ``measured_unit`` says what the noisy values measure (``cell`` or ``leaf``),
    ``ci95_halfwidth`` the largest noise-only 95% half-width of one such unit, and
    ``interval_cell`` (and ``interval_leaf``) what each layer's ``level`` intervals promise.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> facts = describe(hm)
    >>> facts["noise_scale"], facts["measured_unit"], facts["ci95_halfwidth"]
    ('1', 'cell', '3')
    >>> print(facts["interval_cell"])
    ci95_low, ci95_high: each cell's true count lies in its range with probability at least 95%
    (noise only: every cell was measured on its own).
    """
    facts = release_facts(heatmap, level)
    text = {key: _text(value) for key, value in facts.items()}
    scale = facts["noise_scale"]
    if isinstance(scale, list):
        text["noise_scale"] = f"{scale[0]:.17g} to {scale[1]:.17g}"
    elif scale is not None:
        text["noise_scale"] = f"{scale:.17g}"
    return text
