"""``backend="dask"`` in the public release functions: same releases, accounting on the driver.

These run once the lead has applied the dispatch hooks (see the dask report); until then they
skip with that reason.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpatlas.core.accounting.budget import Budget
from dpatlas.errors import BudgetExceededError
from dpatlas.graph import sensitivity_report, triangle_count
from dpatlas.graph._testgraphs import chung_lu_edges
from dpatlas.spatial import Grid, heatmap


def hooked(fn) -> pytest.MarkDecorator:
    missing = "backend" not in inspect.signature(fn).parameters
    return pytest.mark.skipif(missing, reason=f"{fn.__name__}(backend=...) hook not applied yet")


GRID = Grid.from_bounds((0, 0, 10_000, 10_000), cell_size=500, crs="EPSG:3035")


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, Path]:
    gen = np.random.default_rng(2)
    frame = pd.DataFrame(
        {"x": gen.uniform(0, 1e4, 20_000), "y": gen.uniform(0, 1e4, 20_000)}
    ).assign(who=gen.integers(0, 4_000, 20_000))
    folder = tmp_path_factory.mktemp("sites")
    for i in range(4):
        frame.iloc[i * 5_000 : (i + 1) * 5_000].to_parquet(folder / f"{i}.parquet")
    return frame, folder


@hooked(heatmap)
@pytest.mark.parametrize("method", ["uniform", "privtree"])
def test_heatmap_release_identical_between_backends(sites, method, client) -> None:
    frame, folder = sites
    kwargs = {"epsilon": 1.0, "crs": "EPSG:3035", "rng": 4, "method": method}
    kwargs["max_sites_per_individual"] = 2
    memory = heatmap(
        (frame.x.to_numpy(), frame.y.to_numpy()),
        GRID,
        individual_column=frame.who.to_numpy(),
        **kwargs,
    )
    dask = heatmap(folder, GRID, individual_column="who", backend="dask", client=client, **kwargs)
    assert np.array_equal(dask.release.value, memory.release.value)
    assert dask.release.seeded


@hooked(heatmap)
def test_heatmap_budget_is_debited_once_on_the_driver(sites, client) -> None:
    _, folder = sites
    budget = Budget(1.0)
    heatmap(folder, GRID, epsilon=0.75, crs=3035, budget=budget, backend="dask", client=client)
    assert float(budget.spent.epsilon) == 0.75
    assert len(budget.history) == 1
    with pytest.raises(BudgetExceededError):
        heatmap(folder, GRID, epsilon=0.5, crs=3035, budget=budget, backend="dask")
    assert len(budget.history) == 1
    with pytest.raises(ValueError, match='backend must be "memory" or "dask"'):
        heatmap(folder, GRID, epsilon=0.1, crs=3035, backend="spark")


@hooked(triangle_count)
@pytest.mark.parametrize("method", ["ladder", "smooth", "global"])
def test_triangle_release_identical_between_backends(tmp_path, method, client) -> None:
    edges = chung_lu_edges(3_000, 12_000, seed=2)
    pd.DataFrame({"src": edges[:, 0], "dst": edges[:, 1]}).to_parquet(tmp_path / "e.parquet")
    kwargs = {"n": 3_000, "epsilon": 1.0, "rng": 4, "method": method}
    memory = triangle_count(edges, **kwargs)
    dask = triangle_count(tmp_path, backend="dask", client=client, **kwargs)
    assert dask.to_dict() == memory.to_dict()


@hooked(sensitivity_report)
def test_sensitivity_report_identical_between_backends(tmp_path, client) -> None:
    edges = chung_lu_edges(2_000, 8_000, seed=4)
    pd.DataFrame({"src": edges[:, 0], "dst": edges[:, 1]}).to_parquet(tmp_path / "e.parquet")
    memory = sensitivity_report(edges, n=2_000)
    assert sensitivity_report(tmp_path, n=2_000, backend="dask", client=client) == memory


@hooked(triangle_count)
def test_triangle_count_on_dask_needs_n_before_anything_is_spent(tmp_path) -> None:
    # was a PrivacyLeakWarning and a release on the nodes seen in the edges (issue #17)
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=r"needs the public node set.*pass n="):
        triangle_count(tmp_path, epsilon=0.5, budget=budget, backend="dask")
    with pytest.raises(ValueError, match=r"nodes= is for in-memory edge arrays"):
        triangle_count(tmp_path, epsilon=0.5, nodes=[0, 1], budget=budget, backend="dask")
    assert budget.history == ()


@hooked(triangle_count)
def test_triangle_count_on_dask_debits_before_the_wedge_guard(tmp_path, client, monkeypatch):
    # the max_wedges guard reads the data: its refusal comes after the debit (issue #17), so
    # the ledger is the same whether or not the guard trips
    from dpatlas.dask import triangle_stats
    from dpatlas.graph.backends import TRIANGLE_STATS

    def guarded(*args, **kwargs):
        return triangle_stats(*args, max_wedges=1_000, **kwargs)

    TRIANGLE_STATS.on("dask")  # loads the entry point first, so the patch is not overwritten
    monkeypatch.setitem(TRIANGLE_STATS._compute, "dask", guarded)
    star = pd.DataFrame({"src": np.zeros(100, dtype=np.int64), "dst": np.arange(1, 101)})
    star.to_parquet(tmp_path / "star.parquet")  # C(100, 2) = 4,950 wedges
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=r"above max_wedges=1,000: .* debited before this check"):
        triangle_count(tmp_path, n=101, epsilon=0.5, budget=budget, backend="dask", client=client)
    assert [s.epsilon for s in budget.history] == [0.5]
    with pytest.raises(ValueError, match=r"3 distinct node ids but n=2"):  # checked: no debit
        triangle_count(
            pd.DataFrame({"src": [5, 6], "dst": [6, 7]}).pipe(_parquet, tmp_path / "bad"),
            n=2,
            epsilon=0.25,
            budget=budget,
            backend="dask",
            client=client,
        )
    assert len(budget.history) == 1


def _parquet(frame: pd.DataFrame, folder: Path) -> Path:
    folder.mkdir()
    frame.to_parquet(folder / "e.parquet")
    return folder
