"""Random sources for tests: count the words a mechanism draws, or script the first words."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from dpatlas.core.rng import RandomSource

__all__ = ["CountingSource", "ScriptedSource"]


class CountingSource(RandomSource):
    """Seeded words that count how many were drawn (``.drawn``); ``seeded`` is True."""

    seeded = True

    def __init__(self, seed: int = 0) -> None:
        self._bg = np.random.PCG64(seed)
        self.drawn = 0

    def _raw(self, n: int) -> np.ndarray:
        self.drawn += n
        return self._bg.random_raw(n).astype(np.uint64)


class ScriptedSource(CountingSource):
    """Serves ``words`` first (in order, across calls), then seeded words."""

    def __init__(self, words: Iterable[int], seed: int = 0) -> None:
        super().__init__(seed)
        self._script = [int(w) for w in words]

    def _raw(self, n: int) -> np.ndarray:
        head, self._script = self._script[:n], self._script[n:]
        rest = super()._raw(n - len(head))
        self.drawn += len(head)
        return np.concatenate([np.asarray(head, dtype=np.uint64), rest])
