"""Dask triangle statistics equal the in-memory ones field for field, and so do releases."""

from __future__ import annotations

from pathlib import Path

import dask.dataframe as dd
import networkx as nx
import numpy as np
import pandas as pd
import pytest

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.dask import _layout, triangle_stats
from dpatlas.graph import sensitivity_report, triangle_count
from dpatlas.graph._testgraphs import chung_lu_edges
from dpatlas.graph.exact.counting import CommonNeighbourStats, common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder, smooth_sensitivity
from dpatlas.graph.input.edgegraph import as_edge_graph


def fields(s: CommonNeighbourStats) -> tuple:
    return (s.n, s.m, s.d_max, s.a_max, s.c_max, s.triangles, s.frontier.tolist())


def write(edges: np.ndarray, folder: Path, files: int = 4) -> Path:
    folder.mkdir(exist_ok=True)
    step = -(-len(edges) // files)
    for i in range(files):
        chunk = edges[i * step : (i + 1) * step]
        pd.DataFrame({"src": chunk[:, 0], "dst": chunk[:, 1]}).to_parquet(folder / f"{i}.parquet")
    return folder


def frame(edges: list[tuple[int, int]], parts: int = 2) -> dd.DataFrame:
    arr = np.array(edges, dtype=np.int64).reshape(-1, 2)
    return dd.from_pandas(pd.DataFrame({"src": arr[:, 0], "dst": arr[:, 1]}), npartitions=parts)


@pytest.mark.shared
def test_ca_grqc_stats_ladder_and_smooth_equal_in_memory(shared_datasets, tmp_path, client):
    raw = np.loadtxt(shared_datasets / "graphs" / "ca-GrQc.txt", dtype=np.int64, comments="#")
    raw = raw[raw[:, 0] != raw[:, 1]]  # SNAP lists 12 self-loops; the Dask path refuses them
    memory = common_neighbour_stats(as_edge_graph(raw))
    dask = triangle_stats(write(raw, tmp_path / "grqc"), client=client)
    assert fields(dask) == fields(memory)
    assert (dask.triangles, dask.a_max) == (48_260, 61)
    assert np.array_equal(sensitivity_ladder(dask), sensitivity_ladder(memory))
    assert smooth_sensitivity(dask, 1 / 6) == smooth_sensitivity(memory, 1 / 6)


def test_seeded_synthetic_graph_with_repeats_and_isolated_nodes(tmp_path, client):
    edges = chung_lu_edges(20_000, 60_000, seed=5)
    noisy = np.concatenate([edges, edges[:5_000, ::-1], edges[-3_000:]])  # both ways, repeats
    noisy = noisy[np.random.default_rng(1).permutation(len(noisy))]
    memory = common_neighbour_stats(as_edge_graph(edges, n=25_000))
    dask = triangle_stats(write(noisy, tmp_path / "cl", files=5), n=25_000, client=client)
    assert fields(dask) == fields(memory)
    assert dask.frontier.shape[0] > 1  # a frontier with several points is exercised
    assert np.array_equal(sensitivity_ladder(dask), sensitivity_ladder(memory))
    assert np.array_equal(
        sensitivity_ladder(dask, relaxed=True), sensitivity_ladder(memory, relaxed=True)
    )


def test_seeded_ladder_release_is_identical_between_backends(tmp_path, client):
    edges = chung_lu_edges(5_000, 20_000, seed=9)
    memory = common_neighbour_stats(as_edge_graph(edges, n=5_000))
    dask = triangle_stats(write(edges, tmp_path / "e"), n=5_000, client=client)
    values = [
        ladder_mechanism(
            s.triangles, sensitivity_ladder(s), epsilon=0.5, global_sensitivity=4_998, rng=3
        ).value
        for s in (memory, dask)
    ]
    assert values[0] == values[1]


@pytest.mark.parametrize(
    "graph",
    [
        nx.complete_bipartite_graph(2, 5),  # K_{2,r}: no edge has a common neighbour
        nx.star_graph(5),
        nx.Graph([(0, 1), (2, 3)]),  # two disjoint edges
        nx.complete_graph(7),
        nx.path_graph(6),
    ],
    ids=["K2r", "star", "two-edges", "K7", "path"],
)
def test_structural_edge_cases(graph, client):
    edges = list(graph.edges())
    dask = triangle_stats(frame(edges), n=graph.number_of_nodes(), client=client)
    assert fields(dask) == fields(common_neighbour_stats(graph))


def test_node_ids_from_the_data_and_empty_graphs(client):
    edges = [(10, 70), (70, 400), (400, 10), (400, 9_000)]
    dask = triangle_stats(frame(edges), client=client)
    assert fields(dask) == fields(common_neighbour_stats(as_edge_graph(edges)))
    assert dask.n == 4
    relabelled = triangle_stats(frame(edges), n=10, client=client)  # 6 isolated nodes
    assert fields(relabelled) == fields(common_neighbour_stats(as_edge_graph(edges, n=10)))
    assert relabelled.n == 10
    empty = triangle_stats(frame([]), n=5, client=client)
    assert fields(empty) == fields(common_neighbour_stats(as_edge_graph(np.zeros((0, 2)), n=5)))


def test_wedge_budget_is_checked_before_the_products(client):
    star = frame([(0, k) for k in range(1, 101)])  # C(100, 2) = 4950 wedges
    with pytest.raises(ValueError, match=r"4,950 wedges .* max_wedges=1,000: .* larger max_wedges"):
        triangle_stats(star, n=101, max_wedges=1_000, client=client)
    assert triangle_stats(star, n=101, max_wedges=4_950, client=client).a_max == 1


def test_input_errors_name_the_fix(client):
    with pytest.raises(ValueError, match=r"1 self-loop\(s\)"):
        triangle_stats(frame([(0, 1), (2, 2)]), client=client)
    with pytest.raises(ValueError, match="non-negative integers, got -4"):
        triangle_stats(frame([(0, 1), (-4, 2)]), client=client)
    with pytest.raises(ValueError, match="4 distinct node ids but n=3"):
        triangle_stats(frame([(0, 1), (7, 2)]), n=3, client=client)
    floats = dd.from_pandas(pd.DataFrame({"src": [0.0], "dst": [1.0]}), npartitions=1)
    with pytest.raises(TypeError, match=r"column 'src' has dtype float64; convert"):
        triangle_stats(floats, client=client)
    with pytest.raises(ValueError, match=r"no column\(s\) \['u'\]"):
        triangle_stats(frame([(0, 1)]), columns=("u", "dst"), client=client)
    with pytest.raises(TypeError, match="n must be a non-negative integer"):
        triangle_stats(frame([(0, 1)]), n=True, client=client)
    with pytest.raises(TypeError, match=r"edges must be .* got ndarray"):
        triangle_stats(np.array([[0, 1]]), client=client)


def test_smooth_epsilon_too_small_is_refused_before_the_debit_and_the_job(tmp_path, client):
    budget = Budget(1.0, 1e-3)
    with pytest.raises(ValueError, match=r"too small .* delta=1e-06 .* use epsilon >= 2\.11"):
        triangle_count(  # a path that does not exist: the refusal comes before reading
            str(tmp_path / "nothing*.parquet"),
            n=4,
            epsilon=1e-10,
            delta=1e-6,
            method="smooth",
            budget=budget,
            backend="dask",
            client=client,
        )
    assert budget.history == ()


def test_every_partition_must_hold_integer_ids_not_only_the_meta(tmp_path, client):
    # the meta is the first file's (int64); each later file keeps its own dtype
    later = {
        "floats": (pd.DataFrame({"src": [2.9, 3.5], "dst": [0.2, 0.7]}), TypeError),
        "nan": (pd.DataFrame({"src": [2.0, np.nan], "dst": [0.0, 1.0]}), ValueError),
        "strings": (pd.DataFrame({"src": ["7", "x"], "dst": ["1", "2"]}), TypeError),
    }
    matches = {
        "floats": r"^edges must hold integer node ids, column 'src' has dtype float64; convert",
        "nan": r"^edges have missing node ids in column 'src'; drop those rows",
        "strings": r"^edges must hold integer node ids, column 'src' has dtype (str|object)",
    }
    for name, (second, exc) in later.items():
        folder = tmp_path / name
        folder.mkdir()
        pd.DataFrame({"src": [0, 1], "dst": [1, 2]}).to_parquet(folder / "a.parquet")
        second.to_parquet(folder / "b.parquet")
        budget = Budget(1.0)
        with pytest.raises(exc, match=matches[name]):
            triangle_count(str(folder), n=4, epsilon=0.5, budget=budget, backend="dask")
        assert budget.history == ()  # refused before the debit, never truncated to 2 or 0


def test_missing_and_out_of_range_ids_are_named(client):
    missing = pd.DataFrame(
        {"src": pd.array([0, 1, None], dtype="Int64"), "dst": pd.array([1, 2, 0], dtype="Int64")}
    )
    with pytest.raises(ValueError, match=r"^edges have missing node ids in column 'src'; drop"):
        triangle_stats(dd.from_pandas(missing, npartitions=1), n=10, client=client)
    huge = pd.DataFrame(
        {"src": np.array([0, 1], dtype="uint64"), "dst": np.array([1, 2**63 + 5], dtype="uint64")}
    )
    with pytest.raises(
        ValueError, match=r"at most 2\*\*63 - 1, column 'dst' holds 9223372036854775813"
    ):
        triangle_stats(dd.from_pandas(huge, npartitions=1), n=10, client=client)
    below = pd.DataFrame({"src": np.array([0, 2**63 - 1], dtype="uint64"), "dst": [1, 2]})
    assert triangle_stats(dd.from_pandas(below, npartitions=1), n=10, client=client).m == 2


def test_columns_and_head_are_checked_before_the_job(tmp_path, client):
    nothing = str(tmp_path / "nothing*.parquet")  # never read: the checks come first
    pair = r"columns must be a pair of two distinct column names, e.g. columns=\('src', 'dst'\)"
    for columns in ["src", ("src",), ("src", "src")]:
        with pytest.raises(ValueError, match=pair):
            triangle_stats(nothing, n=3, columns=columns, client=client)
    with pytest.raises(ValueError, match="head must be an integer >= 1, got 0"):
        sensitivity_report(nothing, n=3, head=0, backend="dask", client=client)


@pytest.mark.parametrize("n", [10, 2**33])  # 2**33: ra * n + rb would overflow int64
def test_rank_block_sorts_pairs_exactly_beyond_the_single_key_range(n):
    pieces = (np.array([n - 1, n - 2]), np.array([5, 7])), (np.array([n - 1]), np.array([3]))
    lo, hi, indptr, indices = _layout.rank_block(n - 2, n, n, *pieces)
    assert (lo, hi) == (n - 2, n)
    assert indptr.tolist() == [0, 1, 3]
    assert indices.tolist() == [7, 3, 5]
