"""The interface that backends plug into (entry-point group ``dpatlas.backends``).

Each adapter keeps one :class:`Backends` per exact aggregate a backend may compute (triangle
statistics in :mod:`dpatlas.graph.backends`, site counts in :mod:`dpatlas.spatial.backends`).
A backend package declares one entry point in the group, named as users write it in
``backend=`` (``dask = "dpatlas.dask:register"``); the first lookup of that name loads it, and
its ``register()`` says what it computes. The adapters never import a backend themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Generic, TypeVar

__all__ = ["GROUP", "Backends"]

GROUP = "dpatlas.backends"
F = TypeVar("F", bound=Callable[..., object])


class Backends(Generic[F]):
    """The backends that compute one exact aggregate (``what``), by name; ``"memory"`` is local.

    Examples
    --------
    >>> counts = Backends("cell counts")
    >>> counts.register("abacus", len)
    >>> counts.on("abacus") is len, counts.on("memory")
    (True, None)
    >>> counts.on("spark")
    Traceback (most recent call last):
    ...
    ValueError: backend must be "memory", "abacus" or "dask" for cell counts, got 'spark'
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self._compute: dict[str, F] = {}

    def register(self, backend: str, compute: F) -> None:
        """Let ``backend=<backend>`` compute the aggregate with ``compute``."""
        self._compute[backend] = compute

    def on(self, backend: str) -> F | None:
        """How ``backend`` computes the aggregate; None for ``"memory"`` (the caller does it).

        The first lookup of a name loads its entry point. Raises ImportError naming the extra
        to install when the backend's package cannot be imported, and ValueError naming the
        valid values of ``backend=`` when no backend of that name computes the aggregate.
        """
        if backend == "memory":
            return None
        if backend not in self._compute:
            for point in entry_points(group=GROUP, name=str(backend)):
                try:
                    point.load()()
                except ImportError as err:
                    raise ImportError(
                        f'backend={backend!r} needs the {backend} extra: pip install "dpatlas[{backend}]"'
                        f" ({err})"
                    ) from err
        if backend not in self._compute:
            known = sorted({*self._compute, *(point.name for point in entry_points(group=GROUP))})
            names = [f'"{name}"' for name in ("memory", *known)]
            valid = f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]
            raise ValueError(f"backend must be {valid} for {self.what}, got {backend!r}")
        return self._compute[backend]
