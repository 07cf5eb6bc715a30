"""The neighbour relation of private maps: one individual and the sites it owns."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Literal

__all__ = ["SiteAdjacency"]

_RELATIONS = ("add_remove", "replace")
MAX_SITES_PER_INDIVIDUAL = 2**31 - 1  # beyond it the noise scale leaves the exact samplers


@dataclass(frozen=True)
class SiteAdjacency:
    """Neighbouring site sets: they differ by one individual owning up to ``k`` sites.

    Two site sets are neighbours when one is obtained from the other by adding or removing
    one individual with at most ``k = max_sites_per_individual`` sites (``relation="add_remove"``,
    the default), or by replacing the sites of one individual with at most ``k`` others
    (``relation="replace"``).

    Sensitivity of a histogram over disjoint cells (L1, and of every single cell): adding or
    removing an individual changes at most ``k`` cell counts by a total of at most ``k``, so the
    sensitivity is ``k``. Replacing one individual removes up to ``k`` sites and adds up to ``k``
    others, so the L1 change is at most ``2k``: the replace relation doubles it.

    Parameters
    ----------
    max_sites_per_individual : int, default 1
        The public cap ``k``; the pipeline keeps at most ``k`` sites per individual, chosen
        uniformly at random (never by location). At most ``2**31 - 1``.
    relation : {"add_remove", "replace"}, default "add_remove"
        Which neighbour relation the guarantee refers to.

    Examples
    --------
    >>> SiteAdjacency().sensitivity
    1
    >>> SiteAdjacency(max_sites_per_individual=3, relation="replace").sensitivity
    6
    """

    max_sites_per_individual: int = 1
    relation: Literal["add_remove", "replace"] = "add_remove"

    def __post_init__(self) -> None:
        k = self.max_sites_per_individual
        if isinstance(k, bool):
            raise TypeError(f"max_sites_per_individual must be an int >= 1, got {k!r}")
        try:
            k_int = operator.index(k)
        except TypeError:
            raise TypeError(f"max_sites_per_individual must be an int >= 1, got {k!r}") from None
        if k_int < 1:
            raise ValueError(f"max_sites_per_individual must be an int >= 1, got {k!r}")
        if k_int > MAX_SITES_PER_INDIVIDUAL:
            raise ValueError(
                f"max_sites_per_individual must be <= {MAX_SITES_PER_INDIVIDUAL:,}, got {k!r}; "
                "a cap that large makes every count pure noise: use the most sites one "
                "individual can really own"
            )
        object.__setattr__(self, "max_sites_per_individual", k_int)
        if self.relation not in _RELATIONS:
            raise ValueError(
                f"relation must be one of {_RELATIONS}, got {self.relation!r}; "
                '"add_remove" is the usual choice'
            )

    @property
    def sensitivity(self) -> int:
        """L1 sensitivity of a histogram over disjoint cells: ``k``, or ``2k`` for ``replace``."""
        factor = 2 if self.relation == "replace" else 1
        return factor * self.max_sites_per_individual
