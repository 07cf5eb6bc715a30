"""Errors and warnings raised by dpatlas.

``TypeError`` and ``ValueError`` are used for the wrong kind of input and a bad value; the
classes here are for what is specific to privacy.
"""

from __future__ import annotations

__all__ = ["BudgetExceededError", "LedgerError", "PrivacyLeakWarning"]


class BudgetExceededError(ValueError):
    """A release would spend more privacy budget than remains; nothing was spent.

    Attributes
    ----------
    requested_epsilon, requested_delta : float
        What the refused release would have taken from the budget (under zCDP accounting,
        the growth of the budget's ε at its δ; ``asked`` then gives the release's own ε and ρ).
    remaining_epsilon, remaining_delta : float
        What the budget had left (unchanged by the refusal).

    Examples
    --------
    >>> err = BudgetExceededError(0.5, 0.0, 0.25, 0.0)
    >>> print(err)
    privacy budget exceeded: requested epsilon=0.5, delta=0; remaining epsilon=0.25, delta=0
    (short by epsilon=0.25). Nothing was spent; release with a smaller epsilon or open a new
    budget for new data.
    >>> print(BudgetExceededError(0.5, 1e-6, 1.0, 0.0))
    privacy budget exceeded: requested epsilon=0.5, delta=1e-06; remaining epsilon=1, delta=0
    (short by delta=1e-06). Nothing was spent; release with a smaller delta (delta=0 for a
    pure-ε release) or open a new budget for new data.
    """

    def __init__(
        self,
        requested_epsilon: float,
        requested_delta: float,
        remaining_epsilon: float,
        remaining_delta: float,
        asked: tuple[float, float] | None = None,
    ) -> None:
        self.requested_epsilon = requested_epsilon
        self.requested_delta = requested_delta
        self.remaining_epsilon = remaining_epsilon
        self.remaining_delta = remaining_delta
        short = []
        if requested_epsilon > remaining_epsilon:
            short.append(f"epsilon={requested_epsilon - remaining_epsilon:.6g}")
        if requested_delta > remaining_delta:
            short.append(f"delta={requested_delta - remaining_delta:.6g}")
        request = f"requested epsilon={requested_epsilon:.6g}, delta={requested_delta:.6g}"
        if asked is not None:  # zCDP: the release's own ε and ρ, then what it costs the budget
            request = (
                f"requested epsilon={asked[0]:.6g} (rho={asked[1]:.6g}), which under zCDP "
                f"accounting takes epsilon={requested_epsilon:.6g}, delta={requested_delta:.6g} "
                "of the budget"
            )
        smaller = "a smaller epsilon"
        if short and short[0].startswith("delta"):  # only δ is short: a smaller ε will not fit
            smaller = "a smaller delta (delta=0 for a pure-ε release)"
        elif len(short) == 2:
            smaller = "a smaller epsilon and delta"
        super().__init__(
            f"privacy budget exceeded: {request}; remaining epsilon={remaining_epsilon:.6g}, "
            f"delta={remaining_delta:.6g} (short by {', '.join(short) or 'a rounding margin'}). "
            f"Nothing was spent; release with {smaller} or open a new budget for new data."
        )


class PrivacyLeakWarning(UserWarning):
    """A public parameter was taken from the data; the result may not be differentially private.

    For code outside the releases. No dpatlas release warns and goes on: a release whose grid
    extent or node count would come from the data is refused before anything is spent
    (DESIGN rule 7), since a warning does not make it private.
    """


class LedgerError(RuntimeError):
    """A persistent budget ledger cannot be used safely: corrupt, locked, wrong schema, read-only."""
