"""Spatial tests draw figures with the non-interactive Agg backend."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
