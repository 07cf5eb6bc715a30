"""Shared test helpers (statistical tests for samplers): ``from tests.helpers.distributions import ...``."""
