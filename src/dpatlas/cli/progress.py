"""Progress bars for the command line: named steps with a live clock, quiet when not wanted.

A :class:`Steps` bar counts the steps of a command ("read edge list", "sensitivity search",
"release", ...) and keeps its elapsed time moving while one long step runs, so a user sees that
work goes on even when the step (a C-level parse, a sparse product) reports nothing itself.
The bar shows step names and times only, never a count taken from the data: the number of
sites or edges in a private file is private.

Bars are drawn on stderr with :mod:`tqdm`, and only when stderr is a terminal and the user did
not ask for ``--quiet``; otherwise every call is a no-op.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO, TypeVar

from tqdm import tqdm

__all__ = ["Steps", "show_progress"]

T = TypeVar("T")

_TICK_SECONDS = 0.5


def show_progress(quiet: bool, stream: TextIO | None = None) -> bool:
    """True when bars should be drawn: not ``quiet`` and ``stream`` (stderr) is a terminal.

    Examples
    --------
    >>> import io
    >>> show_progress(False, io.StringIO()), show_progress(True, io.StringIO())
    (False, False)
    """
    stream = sys.stderr if stream is None else stream
    return not quiet and bool(getattr(stream, "isatty", lambda: False)())


class Steps:
    """A progress bar over the named steps of one command.

    Parameters
    ----------
    steps : sequence of str
        The step names, in order (the bar's total is their number).
    enabled : bool
        Draw the bar (see :func:`show_progress`); when False nothing is drawn.
    desc : str, default ""
        Prefix of the bar, e.g. the command name.

    Examples
    --------
    >>> with Steps(["read", "release"], enabled=False) as bar:
    ...     with bar.step("read"):
    ...         data = [1, 2, 3]
    ...     with bar.step("release"):
    ...         total = sum(bar.iterate(data, "adding"))
    >>> total, bar.done
    (6, 2)
    """

    def __init__(self, steps: Sequence[str], *, enabled: bool, desc: str = "") -> None:
        self.steps = list(steps)
        self.enabled = bool(enabled)
        self.done = 0
        self._prefix = f"{desc}: " if desc else ""
        self._bar: Any = None
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> Steps:
        if self.enabled:
            self._bar = tqdm(
                total=len(self.steps),
                desc=self._prefix + (self.steps[0] if self.steps else ""),
                file=sys.stderr,
                leave=False,
                bar_format="{desc} {bar} {n_fmt}/{total_fmt} steps [{elapsed}]",
                dynamic_ncols=True,
            )
            self._ticker = threading.Thread(target=self._tick, daemon=True)
            self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self._bar is not None:
            self._bar.close()

    def _tick(self) -> None:
        while not self._stop.wait(_TICK_SECONDS):
            self._bar.refresh()

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Show ``name`` while the block runs, then count the step as done."""
        if self._bar is not None:
            self._bar.set_description_str(self._prefix + name, refresh=True)
        yield
        self.done += 1
        if self._bar is not None:
            self._bar.update(1)

    def iterate(self, items: Iterable[T], name: str, total: int | None = None) -> Iterator[T]:
        """Iterate over public ``items`` (e.g. ε values, repetitions) with a nested bar."""
        if not self.enabled:
            yield from items
            return
        yield from tqdm(items, desc=name, total=total, file=sys.stderr, leave=False, position=1)
