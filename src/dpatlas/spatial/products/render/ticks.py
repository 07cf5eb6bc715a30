"""Tick labels that never overlap: long metre coordinates on narrow maps."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["overlapping_ticks", "separate_ticks"]


def separate_ticks(fig: Any, *, most: int = 6, gap: float = 4.0) -> None:
    """Thin each axis's tick labels until no two labels of one axes overlap (``gap`` pixels apart).

    Long metre coordinates (``4,400,000``) on a narrow map collide with a fixed number of
    ticks. This draws the figure (without rendering), keeps as many ticks as fit, turns the
    x labels upright when even two side by side do not fit, and keeps a single tick when the
    axis is shorter than two labels.
    """
    for ax in fig.axes:
        if ax.get_label() != "<colorbar>":
            for axis in (ax.yaxis, ax.xaxis):
                _fit_ticks(fig, ax, axis, most, gap)


def _fit_ticks(fig: Any, ax: Any, axis: Any, most: int, gap: float) -> None:
    from matplotlib.ticker import FixedLocator, MaxNLocator

    across = axis is ax.xaxis
    for rotation in (0, 90) if across else (0,):
        if across:
            ax.tick_params(axis="x", labelrotation=rotation)
        bins = most
        while bins >= 1:
            axis.set_major_locator(MaxNLocator(bins))
            fig.draw_without_rendering()
            labels = _shown(ax, axis)
            if not _crowded(labels, gap):
                return
            boxes = [t.get_window_extent() for t in labels]
            size = max(b.width if across and rotation == 0 else b.height for b in boxes)
            frame = ax.get_window_extent()
            fit = int((frame.width if across else frame.height) // (size + gap))
            bins = min(bins - 1, max(fit - 1, 1))
    low, high = axis.get_view_interval()
    axis.set_major_locator(FixedLocator([float(np.mean(MaxNLocator(1).tick_values(low, high)))]))


def _shown(ax: Any, axis: Any) -> list[Any]:
    low, high = sorted(axis.get_view_interval())
    return [
        label
        for tick, label in zip(axis.get_majorticklocs(), axis.get_majorticklabels(), strict=False)
        if low <= tick <= high and label.get_text() and label.get_visible()
    ]


def _crowded(labels: list[Any], gap: float) -> list[tuple[str, str]]:
    boxes = [t.get_window_extent().padded(gap / 2) for t in labels]
    return [
        (labels[i].get_text(), labels[j].get_text())
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if boxes[i].overlaps(boxes[j])
    ]


def overlapping_ticks(ax: Any, gap: float = 0.0) -> list[tuple[str, str]]:
    """Pairs of shown tick labels of ``ax`` (both axes) closer than ``gap`` pixels, after a draw."""
    return _crowded([*_shown(ax, ax.xaxis), *_shown(ax, ax.yaxis)], gap)
