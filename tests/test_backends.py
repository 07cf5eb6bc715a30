"""Backends plug in through the entry-point group ``dpatlas.backends``, found on first use."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import pytest

from dpatlas import _backends
from dpatlas._backends import Backends


class FakePoint:
    """An entry point whose ``register()`` is ``register`` (or whose import fails)."""

    def __init__(self, name: str, register: Any) -> None:
        self.name, self._register = name, register

    def load(self) -> Any:
        if isinstance(self._register, Exception):
            raise self._register
        return self._register


def test_dask_declares_its_entry_point() -> None:
    (point,) = entry_points(group=_backends.GROUP, name="dask")
    assert point.value == "dpatlas.dask:register"


def test_first_lookup_loads_the_entry_point_and_an_absent_extra_names_it(monkeypatch) -> None:
    counts = Backends("test counts")
    points = {
        "abacus": FakePoint("abacus", lambda: counts.register("abacus", len)),
        "ray": FakePoint("ray", ModuleNotFoundError("No module named 'ray'")),
    }
    monkeypatch.setattr(
        _backends,
        "entry_points",
        lambda group, name=None: [p for n, p in points.items() if name in (None, n)],
    )
    assert counts.on("abacus") is len
    with pytest.raises(
        ImportError, match=r'backend=\'ray\' needs the ray extra: pip install "dpatlas\[ray\]"'
    ):
        counts.on("ray")
    with pytest.raises(
        ValueError, match='backend must be "memory", "abacus" or "ray" for test counts'
    ):
        counts.on("spark")
