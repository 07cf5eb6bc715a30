"""Empirical privacy auditing: lower bounds on the ε a mechanism really spends.

:func:`audit` runs a mechanism (yours or dpatlas's) many times on two neighbouring inputs,
chooses an output event on half of the runs and, on the other half, turns Clopper–Pearson
intervals of the event's two probabilities into a lower bound ``ε_lb`` on the privacy loss that
holds with the stated confidence. ``ε_lb`` above the claimed ε proves a bug (up to that
confidence); ``ε_lb`` below it is evidence, not proof. The pieces are public too:
:func:`clopper_pearson`, :func:`epsilon_lower_bound`, :class:`Event` and :func:`select_event`;
:func:`summarize` turns a whole release (value, metadata, released structure) into the
numbers the auditor examines.

>>> from dpatlas.audit import audit   # see audit() for a worked example
"""

from dpatlas.audit.bounds import clopper_pearson, epsilon_lower_bound
from dpatlas.audit.events import Event, select_event
from dpatlas.audit.result import AuditResult
from dpatlas.audit.runner import audit
from dpatlas.audit.summary import summarize

__all__ = [
    "AuditResult",
    "Event",
    "audit",
    "clopper_pearson",
    "epsilon_lower_bound",
    "select_event",
    "summarize",
]
