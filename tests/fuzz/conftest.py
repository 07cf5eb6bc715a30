"""The fuzzers' 10,000-example twins run only when asked for (``-m slow``), never by default."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect this directory's ``slow`` tests when no ``-m`` expression chooses markers."""
    if config.option.markexpr:
        return
    kept, slow = [], []
    for item in items:
        is_slow = item.get_closest_marker("slow") and HERE in item.path.parents
        (slow if is_slow else kept).append(item)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = kept
