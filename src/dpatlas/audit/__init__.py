"""Empirical privacy auditing: lower bounds on the ε a mechanism really spends.

>>> from dpatlas.audit import audit   # see audit() for a worked example
"""

from dpatlas.audit.bounds import clopper_pearson, epsilon_lower_bound
from dpatlas.audit.events import Event, select_event
from dpatlas.audit.result import AuditResult
from dpatlas.audit.runner import audit

__all__ = [
    "AuditResult",
    "Event",
    "audit",
    "clopper_pearson",
    "epsilon_lower_bound",
    "select_event",
]
