"""Private data that fails loudly when read: proves a refusal came before the data was read."""

from __future__ import annotations

__all__ = ["Unreadable"]


class Unreadable:
    """Sites (or any input) whose every access raises AssertionError naming what was read."""

    def __getattr__(self, name: str) -> None:
        raise AssertionError(f"the data was read ({name}) before a public refusal")

    def __len__(self) -> int:
        raise AssertionError("the data was read (len) before a public refusal")

    def __iter__(self) -> None:
        raise AssertionError("the data was read (iter) before a public refusal")
