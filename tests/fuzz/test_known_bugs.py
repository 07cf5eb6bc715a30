"""Bugs the fuzzers found in other modules: strict xfails until fixed, then regression tests.

Each test states the behaviour we want; when a fix lands the xfail turns into an XPASS, which
fails the suite (``xfail_strict``): then delete the marker, and the matching entry of
``KNOWN_UNCLEAR`` / ``KNOWN_BUGS`` in ``_harness.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpatlas import (
    Budget,
    clipped_mean,
    clipped_sum,
    discrete_laplace,
    exponential,
    laplace,
    randomized_response,
    report_noisy_max,
)
from dpatlas.graph import as_edge_graph, read_edgelist
from dpatlas.spatial import Grid, suggest_cell_size

TINY = 1.1275418570687996e-307


def test_clipped_mean_tiny_epsilon_refused_without_spend():
    budget = Budget(1.0)
    with pytest.raises(ValueError, match="epsilon"):
        clipped_mean([0.0], lower=-21.0, upper=1.0, epsilon=TINY, budget=budget, rng=0)
    assert budget.history == ()


def test_clipped_sum_tiny_epsilon_is_a_value_error():
    with pytest.raises(ValueError, match="epsilon"):
        clipped_sum([0.0], lower=-21.0, upper=1.0, epsilon=TINY, rng=0)


def test_laplace_huge_value_is_a_value_error():
    with pytest.raises(ValueError, match="values"):
        laplace(1e308, sensitivity=1.0, epsilon=1.0, rng=0)


def test_scale_too_large_message_names_the_parameters():
    with pytest.raises(ValueError, match="sensitivity"):
        discrete_laplace(0, sensitivity=2.0**51, epsilon=1.0, rng=0)


def test_ragged_values_message_names_values():
    with pytest.raises(ValueError, match="values"):
        discrete_laplace([[1, 2], [3]], sensitivity=1, epsilon=1.0, rng=0)


def test_randomized_response_bool_categories_message():
    with pytest.raises(TypeError, match="categories"):
        randomized_response(0, epsilon=1.0, categories=True, rng=0)


def test_as_edge_graph_huge_n_is_a_value_error():
    with pytest.raises(ValueError, match="n"):
        as_edge_graph(np.zeros((0, 2), dtype=np.int64), n=2**40)


def test_read_edgelist_huge_n_is_a_value_error(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("0 1\n")
    with pytest.raises(ValueError, match="n"):
        read_edgelist(path, n=2**40)


@pytest.mark.xfail(reason="spatial/_checks.py:101 formats nx*ny*8/1e9 with an int too large")
def test_grid_tiny_cell_size_is_a_value_error():
    with pytest.raises(ValueError, match="max_cells"):
        Grid.from_bounds((0, 0, 1000, 1000), cell_size=1e-300, crs="EPSG:3035")


def test_suggest_cell_size_zero_c():
    with pytest.raises(ValueError, match="c must"):
        suggest_cell_size((0, 0, 1000, 1000), 1.0, 100, c=0)


def test_suggest_cell_size_nan_c():
    with pytest.raises(ValueError, match="c must"):
        suggest_cell_size((0, 0, 1000, 1000), 1.0, 100, c=math.nan)


def test_suggest_cell_size_infinite_n_sites():
    with pytest.raises(ValueError, match="n_sites"):
        suggest_cell_size((0, 0, 1000, 1000), 1.0, math.inf)


def test_tiny_scale_message_names_the_parameters():
    with pytest.raises(ValueError, match=r"sensitivity|epsilon"):
        discrete_laplace(0, sensitivity=3.4904007735453084e-81, epsilon=1.4129299630223009e243)


HUGE_EPSILON = {
    "laplace": lambda b: laplace(0.0, sensitivity=1e300, epsilon=1e300, budget=b, rng=0),
    "discrete_laplace": lambda b: discrete_laplace(
        0, sensitivity=1e300, epsilon=1e300, budget=b, rng=0
    ),
    "report_noisy_max": lambda b: report_noisy_max(
        [1, 2], sensitivity=1e300, epsilon=1e300, budget=b, rng=0
    ),
    "exponential": lambda b: exponential(
        ["a", "b"], [1, 2], sensitivity=1e300, epsilon=1e300, budget=b, rng=0
    ),
    "randomized_response": lambda b: randomized_response(
        [0, 1], epsilon=1e300, categories=2, budget=b, rng=0
    ),
    "clipped_sum": lambda b: clipped_sum([0.5], lower=0, upper=1, epsilon=1e300, budget=b, rng=0),
}


@pytest.mark.parametrize("name", sorted(HUGE_EPSILON))
def test_huge_epsilon_refused_without_spend(name):
    budget = Budget(1e6)
    with pytest.raises(ValueError, match="epsilon"):
        HUGE_EPSILON[name](budget)
    assert budget.history == ()
