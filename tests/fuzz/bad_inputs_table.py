"""The bad-input table: one row per refused (or flagged) input, shared by the test and the doc.

``docs/bad-inputs.md`` is rendered from these rows with the real messages:
``.venv/bin/python -m tests.fuzz.bad_inputs_table > docs/bad-inputs.md``;
``test_bad_inputs.py::test_doc_in_sync`` fails when the two drift apart.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import geopandas as gpd
import networkx as nx
import numpy as np
import shapely

import dpatlas as dp
from dpatlas import graph as gr
from dpatlas import spatial as sp
from dpatlas.errors import BudgetExceededError, LedgerError

CRS = "EPSG:3035"
GRID = sp.Grid.from_bounds((0, 0, 1_000, 1_000), cell_size=100, crs=CRS)
XY = (np.array([50.0, 450.0]), np.array([50.0, 950.0]))
K4 = nx.complete_graph(4)


@dataclass(frozen=True)
class Row:
    """One bad input: how to call it (given a scratch directory), and what must come back."""

    input: str
    entry: str
    call: Callable[[Path], Any]
    outcome: type[BaseException] | type[Warning] | str
    match: str


def _spent_then_overspend(_: Path) -> Any:
    budget = dp.Budget(1.0)
    dp.laplace(1.0, sensitivity=1, epsilon=0.75, budget=budget, rng=0)
    try:
        return dp.laplace(1.0, sensitivity=1, epsilon=0.5, budget=budget, rng=0)
    finally:
        assert len(budget.history) == 1, "the refused release was recorded"


def _edge_file(text: str) -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        path = tmp / "edges.txt"
        path.write_text(text)
        return gr.read_edgelist(path, n=3)

    return call


def _gdf(geoms: list[Any], crs: Any = CRS) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(geometry=gpd.GeoSeries(geoms, crs=crs))


def _outside(_: Path) -> str:
    hm = sp.heatmap(
        (np.array([50.0, 5_000.0]), np.array([50.0, 50.0])),
        GRID,
        epsilon=1.0,
        method="uniform",
        crs=CRS,
        rng=0,
    )
    return f"no error: dropped, counts shape {hm.counts.shape}"


ROWS: tuple[Row, ...] = (
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
    Row(
        "empty polygon",
        "spatial.Grid.from_polygon",
        lambda _: sp.Grid.from_polygon(shapely.Polygon(), cell_size=10, crs=CRS),
        ValueError,
        "polygon must be a non-empty Polygon or MultiPolygon",
    ),
    Row(
        "empty point geometry",
        "spatial.heatmap",
        lambda _: sp.heatmap(_gdf([shapely.Point(), shapely.Point(5, 5)]), GRID, epsilon=1),
        ValueError,
        "sites have empty points, first at position 0",
    ),
    Row(
        "Polygon sites",
        "spatial.heatmap",
        lambda _: sp.heatmap(_gdf([shapely.box(0, 0, 10, 10)]), GRID, epsilon=1),
        ValueError,
        "sites must be Point geometries, got a Polygon",
    ),
    Row(
        "directed graph",
        "graph.triangle_count",
        lambda _: gr.triangle_count(nx.DiGraph([(0, 1), (1, 2)]), epsilon=1),
        TypeError,
        "graph is directed",
    ),
    Row(
        "multigraph",
        "graph.as_edge_graph",
        lambda _: gr.as_edge_graph(nx.MultiGraph([(0, 1), (0, 1)])),
        TypeError,
        "graph is a multigraph",
    ),
    Row(
        "self-loop in an edge array",
        "graph.as_edge_graph",
        lambda _: gr.as_edge_graph(np.array([[0, 0], [0, 1]]), n=3),
        ValueError,
        "edges contain 1 self-loop(s)",
    ),
    Row(
        "self-loop in a networkx graph",
        "graph.triangle_count",
        lambda _: gr.triangle_count(nx.Graph([(0, 0), (0, 1)]), epsilon=1),
        ValueError,
        "graph has 1 self-loop(s)",
    ),
    Row(
        "self-loop line in an edge-list file",
        "graph.read_edgelist",
        _edge_file("0 0\n0 1\n"),
        UserWarning,
        "edges.txt: dropped 1 self-loop(s)",
    ),
    Row(
        "fewer than 3 nodes (n=2)",
        "graph.triangle_count",
        lambda _: f"no error: value {gr.triangle_count(np.array([[0, 1]]), epsilon=1, n=2).value}",
        "no error: value 0",
        "",
    ),
    Row(
        "edges without a public node set (no n= or nodes=)",
        "graph.triangle_count",
        lambda _: gr.triangle_count(np.array([[0, 1], [1, 2]]), epsilon=1),
        ValueError,
        "triangle_count/piecewise needs the public node set, and the edges alone do not give it: "
        "pass n=",
    ),
    Row(
        "more distinct node ids than the public n",
        "graph.triangle_count",
        lambda _: gr.triangle_count(np.array([[0, 1], [1, 2]]), epsilon=1, n=2),
        ValueError,
        "the edges use 3 distinct node ids but n=2: a graph on n nodes has at most n",
    ),
    Row(
        "unknown method",
        "graph.triangle_count",
        lambda _: gr.triangle_count(K4, epsilon=1, method="exact", n=4),
        ValueError,
        "method must be one of 'piecewise', 'ladder', 'smooth', 'global', got 'exact'",
    ),
    Row(
        "geographic CRS",
        "spatial.Grid.from_bounds",
        lambda _: sp.Grid.from_bounds((0, 0, 1, 1), cell_size=0.1, crs="EPSG:4326"),
        ValueError,
        "crs must be a projected CRS so that cells have a size in metres, got EPSG:4326",
    ),
    Row(
        "missing grid CRS",
        "spatial.Grid.from_bounds",
        lambda _: sp.Grid.from_bounds((0, 0, 1, 1), cell_size=0.1, crs=None),
        TypeError,
        "crs is required (a projected CRS in metres), got None",
    ),
    Row(
        "sites without a CRS",
        "spatial.heatmap",
        lambda _: sp.heatmap(XY, GRID, epsilon=1),
        ValueError,
        "sites have no CRS",
    ),
    Row(
        "grid too large",
        "spatial.Grid.from_bounds",
        lambda _: sp.Grid.from_bounds((0, 0, 1e7, 1e7), cell_size=1, crs=CRS),
        ValueError,
        "more than max_cells=100,000,000",
    ),
    Row(
        "cell_size=1e-300 (a cell count beyond the float range)",
        "spatial.Grid.from_bounds",
        lambda _: sp.Grid.from_bounds((0, 0, 1000, 1000), cell_size=1e-300, crs=CRS),
        ValueError,
        "= 1.00e+606 cells at cell_size=1e-300, more than max_cells=100,000,000",
    ),
    Row(
        "n_sites=9e307 (more suggested cells than a grid may have)",
        "spatial.suggest_cell_size",
        lambda _: sp.suggest_cell_size((0, 0, 1000, 1000), 1.0, 9e307),
        ValueError,
        "n_sites * epsilon / c = 9e+306 suggested cells, more than max_cells=100,000,000",
    ),
    Row(
        "points outside the extent",
        "spatial.heatmap",
        _outside,
        "no error: dropped, counts shape (10, 10)",
        "",
    ),
    Row(
        "sites in another CRS than the grid",
        "spatial.heatmap",
        lambda _: (
            "no error: re-projected, crs "
            + sp.heatmap(
                _gdf([shapely.Point(5, 5)], "EPSG:3857"), GRID, epsilon=1, rng=0
            ).release.metadata["grid"]["crs"]
        ),
        "no error: re-projected, crs EPSG:3035",
        "",
    ),
    Row(
        "max_sites_per_individual=0",
        "spatial.heatmap",
        lambda _: sp.heatmap(XY, GRID, epsilon=1, crs=CRS, max_sites_per_individual=0),
        ValueError,
        "max_sites_per_individual must be an int >= 1, got 0",
    ),
    Row(
        "query level=1",
        "spatial.Heatmap.query",
        lambda _: sp.heatmap(XY, GRID, epsilon=1, crs=CRS, method="uniform", rng=0).query(
            shapely.box(0, 0, 100, 100), level=1.0
        ),
        ValueError,
        "level must be in (0, 1), got 1.0",
    ),
    Row(
        "suppress threshold=nan",
        "spatial.suppress",
        lambda _: sp.suppress(sp.heatmap(XY, GRID, epsilon=1, crs=CRS, rng=0), float("nan")),
        ValueError,
        "threshold must be finite, got nan",
    ),
    Row(
        "budget overspend",
        "laplace (with budget=)",
        _spent_then_overspend,
        BudgetExceededError,
        "privacy budget exceeded: requested epsilon=0.5",
    ),
    Row(
        "ledger path is a directory",
        "Budget.open",
        lambda tmp: dp.Budget.open(tmp, dataset="d", epsilon=1),
        LedgerError,
        "ledger path <tmp> is a directory",
    ),
    Row(
        "unknown dataset in a ledger",
        "Budget.open",
        lambda tmp: dp.Budget.open(tmp / "l.sqlite", dataset="d"),
        ValueError,
        "dataset 'd' is not in ledger <tmp>/l.sqlite; pass epsilon= to register it",
    ),
    Row(
        "seeded run (rng=int)",
        "laplace",
        lambda _: f"flagged: seeded={dp.laplace(1.0, sensitivity=1, epsilon=1, rng=0).seeded}",
        "flagged: seeded=True",
        "",
    ),
    Row(
        "seeded run (rng=int)",
        "spatial.heatmap",
        lambda _: (
            f"flagged: seeded={sp.heatmap(XY, GRID, epsilon=1, crs=CRS, rng=1).release.seeded}"
        ),
        "flagged: seeded=True",
        "",
    ),
)


def outcome_of(row: Row, tmp: Path) -> tuple[str, str]:
    """Run a row; return (outcome name, message) with the scratch path shown as ``<tmp>``."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            result = row.call(tmp)
        except (Exception, Warning) as exc:
            return type(exc).__name__, str(exc).replace(str(tmp), "<tmp>")
    return "result", str(result)


def render(tmp: Path) -> str:
    """The markdown of docs/bad-inputs.md, with the messages the rows really produce."""
    lines = [
        "# Bad inputs: what dpatlas refuses, and how",
        "",
        "Generated by `python -m tests.fuzz.bad_inputs_table > docs/bad-inputs.md` from the rows",
        "tested in `tests/fuzz/test_bad_inputs.py` (which fails when this page drifts). Warnings",
        "are errors in the test suite; a refused release spends nothing from the budget.",
        "",
        "| Input | Entry point | Outcome | Message |",
        "|---|---|---|---|",
    ]
    for row in ROWS:
        kind, message = outcome_of(row, tmp)
        message = message.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {row.input} | `{row.entry}` | {kind} | {message} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        print(render(Path(scratch)), end="")
