"""The outcome of an audit: the event tested, its probabilities and the bound on ε."""

from __future__ import annotations

from dataclasses import dataclass, field

from dpatlas.audit.events import Event

__all__ = ["AuditResult"]


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`: the tested event, its probabilities and the bound on ε.

    Attributes
    ----------
    event : Event
        The event ``E`` tested (chosen on the selection half unless given).
    p, q : float
        Empirical ``P[M(d) ∈ E]`` and ``P[M(d′) ∈ E]`` on the ``n_test`` test runs per input.
    p_interval, q_interval : tuple of float
        Clopper–Pearson intervals, each at confidence ``1 − (1 − confidence)/2``.
    epsilon_lb : float
        Lower bound on the true ε that holds with probability ``>= confidence``.
    epsilon, delta : float
        The claim under test.
    confidence : float
    samples : int
        Runs of the mechanism per input (selection and test halves together).
    n_test : int
        Runs per input used for the bound.
    forward : bool
        True when the bound is ``ln((p_low − δ)/q_high)``, False for the reversed ratio.
    passed : bool
        ``epsilon_lb <= epsilon``: the audit found no violation (it never proves privacy).
    """

    event: Event
    p: float
    q: float
    p_interval: tuple[float, float]
    q_interval: tuple[float, float]
    epsilon_lb: float
    epsilon: float
    delta: float
    confidence: float
    samples: int
    n_test: int
    forward: bool
    passed: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "passed", bool(self.epsilon_lb <= self.epsilon))

    def __str__(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        rel = "<=" if self.passed else ">"
        ratio = "(p_low - δ) / q_high" if self.forward else "(q_low - δ) / p_high"
        return "\n".join(
            [
                f"audit {verdict}: ε_lb = {self.epsilon_lb:.4f} {rel} claimed ε = {self.epsilon:g}"
                f" (δ = {self.delta:g}, confidence {self.confidence:g})",
                f"  event E: {self.event}",
                f"  p = P[M(d) ∈ E]  = {self.p:.5f}  "
                f"[{self.p_interval[0]:.5f}, {self.p_interval[1]:.5f}]",
                f"  q = P[M(d′) ∈ E] = {self.q:.5f}  "
                f"[{self.q_interval[0]:.5f}, {self.q_interval[1]:.5f}]",
                f"  bound from ln({ratio}); {self.samples} runs per input, "
                f"{self.n_test} for the test",
            ]
        )
