"""The brute-force triangle helpers on hand-computed graphs."""

from __future__ import annotations

import networkx as nx
import numpy as np
from tests.helpers.brute_triangles import (
    brute_ls,
    brute_ls_ball,
    graph_of,
    ls_table,
    mask_of,
    nrs_formula,
    triangles_of_masks,
)


def test_brute_force_helpers_on_hand_computed_graphs() -> None:
    k4 = mask_of(nx.complete_graph(4))
    assert triangles_of_masks(np.array([k4]), 4).tolist() == [4]
    assert brute_ls(np.array([k4, mask_of(nx.path_graph(4)), 0]), 4).tolist() == [2, 1, 0]
    assert brute_ls_ball(nx.empty_graph(4), 2) == 1
    assert brute_ls_ball(nx.Graph([(0, 1), (2, 3)]), 1) == 1
    assert ls_table(4, 2)[:, 0].tolist() == [0, 0, 1]
    assert graph_of(k4, 4).number_of_edges() == 6
    assert nrs_formula(nx.empty_graph(5), np.arange(8)).tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
