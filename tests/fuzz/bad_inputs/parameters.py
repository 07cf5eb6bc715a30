"""Bad privacy parameters and values: ε, δ, sensitivity, NaN, infinite and huge values."""

from __future__ import annotations

import numpy as np
from tests.fuzz.bad_inputs.row import CRS, GRID, K4, XY, Row

import dpatlas as dp
from dpatlas import graph as gr
from dpatlas import spatial as sp

PARAMETERS: tuple[Row, ...] = (
    Row(
        "epsilon=0",
        "laplace",
        lambda _: dp.laplace(1.0, sensitivity=1, epsilon=0),
        ValueError,
        "epsilon must be a finite number > 0, got 0.0",
    ),
    Row(
        "epsilon=-1",
        "discrete_laplace",
        lambda _: dp.discrete_laplace(1, sensitivity=1, epsilon=-1),
        ValueError,
        "epsilon must be a finite number > 0, got -1.0",
    ),
    Row(
        "epsilon=nan",
        "graph.triangle_count",
        lambda _: gr.triangle_count(K4, epsilon=float("nan"), n=4),
        ValueError,
        "epsilon must be a finite number > 0, got nan",
    ),
    Row(
        "epsilon=inf",
        "spatial.heatmap",
        lambda _: sp.heatmap(XY, GRID, epsilon=float("inf"), crs=CRS),
        ValueError,
        "epsilon must be a finite number > 0, got inf",
    ),
    Row(
        "epsilon=True (bool)",
        "clipped_sum",
        lambda _: dp.clipped_sum([1.0], lower=0, upper=1, epsilon=True),
        TypeError,
        "epsilon must be a real number, got True of type bool",
    ),
    Row(
        "delta=1",
        "gaussian",
        lambda _: dp.gaussian(1.0, sensitivity=1, epsilon=1, delta=1.0),
        ValueError,
        "delta must be in [0, 1), got 1.0",
    ),
    Row(
        "delta=-0.1",
        "Budget",
        lambda _: dp.Budget(1.0, delta=-0.1),
        ValueError,
        "delta must be in [0, 1), got -0.1",
    ),
    Row(
        "delta=0",
        "gaussian",
        lambda _: dp.gaussian(1.0, sensitivity=1, epsilon=1, delta=0.0),
        ValueError,
        "delta must be > 0 for the Gaussian mechanism, got 0.0",
    ),
    Row(
        "delta>0 with a pure method",
        "graph.triangle_count",
        lambda _: gr.triangle_count(K4, epsilon=1, delta=1e-6, n=4),
        ValueError,
        "delta=1e-06 applies only to method='smooth'",
    ),
    Row(
        "epsilon below 2**-35 with pure-ε smooth sensitivity",
        "graph.kstar_count",
        lambda _: gr.kstar_count(K4, 3, epsilon=1e-12, method="smooth", n=4),
        ValueError,
        "epsilon=1e-12 is too small for smooth sensitivity with delta=0",
    ),
    Row(
        "epsilon too small for PrivTree's split noise",
        "spatial.heatmap",
        lambda _: sp.heatmap(XY, GRID, epsilon=1e-14, method="privtree", crs=CRS),
        ValueError,
        "epsilon=1e-14 is too small for heatmap method 'privtree'",
    ),
    Row(
        "sensitivity=0",
        "laplace",
        lambda _: dp.laplace(1.0, sensitivity=0, epsilon=1),
        ValueError,
        "sensitivity must be a finite number > 0, got 0.0",
    ),
    Row(
        "sensitivity=-1",
        "report_noisy_max",
        lambda _: dp.report_noisy_max([1, 2], sensitivity=-1, epsilon=1),
        ValueError,
        "sensitivity must be a finite number > 0, got -1.0",
    ),
    Row(
        "sensitivity=inf",
        "discrete_laplace",
        lambda _: dp.discrete_laplace(1, sensitivity=float("inf"), epsilon=1),
        ValueError,
        "sensitivity must be a finite number > 0, got inf",
    ),
    Row(
        "NaN value",
        "laplace",
        lambda _: dp.laplace(float("nan"), sensitivity=1, epsilon=1),
        ValueError,
        "values must be finite, got nan",
    ),
    Row(
        "infinite value",
        "clipped_sum",
        lambda _: dp.clipped_sum([1.0, float("inf")], lower=0, upper=1, epsilon=1),
        ValueError,
        "values must be finite, got inf at index (1,)",
    ),
    Row(
        "noise scale near the largest float",
        "laplace",
        lambda _: dp.laplace(1.7e308, sensitivity=1e300, epsilon=1e-5),
        ValueError,
        "noise of scale sensitivity / epsilon = 1e+305 could exceed the largest float",
    ),
    Row(
        "value near the largest float (saturates: no refusal depends on the data)",
        "laplace",
        lambda _: f"no error: value {dp.laplace(1.7e308, sensitivity=1.0, epsilon=1.0).value:.4g}",
        "no error: value 1.7e+308",
        "",
    ),
    Row(
        "integer value beyond 2**62 (clamped: no refusal depends on the data)",
        "discrete_laplace",
        lambda _: (
            "no error: clamped to "
            + str(
                abs(dp.discrete_laplace(np.array([2**63 - 1]), sensitivity=1, epsilon=50).value[0])
            )
        ),
        "no error: clamped to 4611686018427387903",
        "",
    ),
    Row(
        "lower >= upper",
        "clipped_mean",
        lambda _: dp.clipped_mean([1.0], lower=1, upper=0, epsilon=1),
        ValueError,
        "lower must be < upper",
    ),
    Row(
        "NaN site coordinate",
        "spatial.heatmap",
        lambda _: sp.heatmap((np.array([np.nan]), np.array([5.0])), GRID, epsilon=1, crs=CRS),
        ValueError,
        "site coordinates must be finite, got (nan, 5.0) at position 0",
    ),
    Row(
        "empty values",
        "laplace",
        lambda _: f"no error: value shape {dp.laplace([], sensitivity=1, epsilon=1).value.shape}",
        "no error: value shape (0,)",
        "",
    ),
)
