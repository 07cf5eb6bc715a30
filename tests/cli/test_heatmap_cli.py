"""``dpatlas heatmap``: files written and re-read, the ledger debited, refusals, input formats."""

from __future__ import annotations

import json

import geopandas as gpd
import numpy as np
import pyogrio
import pytest
import rasterio

from dpatlas import Budget

from .conftest import SNOW

GRID = ["--cell-size", "50", "--crs", "EPSG:27700"]
AREA = ["--study-area", SNOW, "--study-area-layer", "streets"]
DEATHS = [SNOW, "--layer", "deaths"]


def test_gpkg_release_debits_the_ledger_then_overspend_is_refused(run_cli, ledger, tmp_path):
    out = tmp_path / "map.gpkg"
    args = [*DEATHS, *AREA, *GRID, "--out", out, "--ledger", ledger, "--dataset", "d", "--json"]
    args += ["--method", "uniform"]
    res = run_cli("heatmap", *args, "--epsilon", "0.75")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["release"]["epsilon"] == 0.75  # numbers as numbers
    assert data["release"]["mechanism"] == "heatmap/uniform"
    assert data["release"]["seeded"] is False
    assert data["grid"]["shape"] == [15, 17]
    assert data["budget"]["remaining"]["epsilon"] == 0.25
    assert "steps" not in res.err  # stderr is a pipe: no progress bar
    cells = gpd.read_file(out, layer="cells")
    assert cells.crs.to_epsg() == 27700
    assert len(cells) == 15 * 17
    assert {"count", "raw", "ci95_low", "ci95_high", "ci_covers"} <= set(cells.columns)
    # discrete Laplace of scale 4/3: P(|Z| <= 3) = 0.932, P(|Z| <= 4) = 0.968, so ±4 at 95%,
    # both ends clipped at 0 (counts are never negative)
    assert (cells["ci95_high"] == (cells["raw"] + 4).clip(lower=0)).all()
    assert (cells["ci95_low"] == (cells["raw"] - 4).clip(lower=0)).all()
    assert (cells["ci_covers"] == "noise").all()

    out.unlink()
    refused = run_cli("heatmap", *args, "--epsilon", "0.5")
    assert refused.code == 1
    err = json.loads(refused.out)
    assert err["error_type"] == "BudgetExceededError"
    assert (err["requested_epsilon"], err["remaining_epsilon"]) == (0.5, 0.25)
    assert refused.err.strip().count("\n") == 0
    assert "refused: privacy budget exceeded: requested epsilon=0.5" in refused.err
    assert not out.exists()
    assert len(Budget.open(ledger, dataset="d").history) == 1


def test_geotiff_and_geojson_outputs(cli, tmp_path):
    tif, geojson = tmp_path / "map.tif", tmp_path / "map.geojson"
    base = [*DEATHS, *AREA, *GRID, "--epsilon", "1", "--seed", "5", "--nonnegative", "--method"]
    base += ["privtree"]  # a tree release: intervals and exports work the same way
    res = cli("heatmap", *base, "--out", tif)
    assert res.code == 0, res.err
    assert "seeded run" in res.err
    assert "NOT secret" in res.err
    assert "no --ledger given" in res.err
    with rasterio.open(tif) as src:
        assert src.crs.to_epsg() == 27700
        assert (src.height, src.width) == (15, 17)
        assert src.tags()["epsilon"] == "1"
        assert src.tags()["seeded"] == "True"
        band = src.read(1)
    assert band.min() >= 0  # --nonnegative
    assert cli("heatmap", *base, "--out", geojson).code == 0
    cells = gpd.read_file(geojson)
    assert cells.crs.to_epsg() == 4326
    np.testing.assert_array_equal(np.sort(cells["count"]), np.sort(band.ravel()))  # same seed


def test_intervals_are_said_in_words_and_a_tree_map_writes_its_leaves(cli, tmp_path):
    out, leaves = tmp_path / "map.gpkg", tmp_path / "leaves.geojson"
    base = [*DEATHS, *AREA, *GRID, "--epsilon", "1", "--seed", "3", "--method", "privtree"]
    res = cli("heatmap", *base, "--out", out)
    assert res.code == 0, res.err
    assert "noise discrete_laplace of scale 2 on each leaf" in res.out
    assert '95% ranges per leaf (layer "leaves" of map.gpkg): each leaf\'s true count' in res.out
    assert "any other cell gets 0 to the upper end of its leaf's range" in res.out
    assert "valid, but wide" in res.out
    assert pyogrio.list_layers(out)[:, 0].tolist() == ["cells", "leaves"]
    cells, tree = gpd.read_file(out, layer="cells"), gpd.read_file(out, layer="leaves")
    assert set(cells["ci_covers"]) == {"noise", "noise and spread"}
    assert (tree["ci_covers"] == "noise").all()
    assert tree["n_cells"].sum() == len(cells)
    assert "leaf" in pyogrio.read_info(out, layer="leaves")["layer_metadata"]["interval"]
    geojson = cli("heatmap", *base, "--out", leaves, "--unit", "leaf")
    assert "95% ranges per leaf (columns ci95_low, ci95_high of leaves.geojson)" in geojson.out
    assert "95% ranges per cell (write .gpkg, or --unit cell with .geojson / .html)" in geojson.out
    assert len(gpd.read_file(leaves)) == len(tree)
    refused = cli("heatmap", *base, "--out", out, "--unit", "leaf")
    assert refused.code != 0
    assert "--unit is for .geojson, .html and .png maps" in refused.err
    uniform = [*DEATHS, *AREA, *GRID, "--epsilon", "1", "--method", "uniform", "--out"]
    refused = cli("heatmap", *uniform, leaves, "--unit", "leaf")
    assert refused.code != 0
    assert "--unit leaf needs a multi-level release" in refused.err
    png = cli("heatmap", *uniform, tmp_path / "map.png")
    said = "map counts: each cell's most likely count"
    assert said not in res.out  # PrivTree
    assert said not in png.out  # 255 cells: too few for posterior medians
    fine = [*DEATHS, *AREA, "--cell-size", "25", "--crs", "EPSG:27700", "--epsilon", "1"]
    assert said in cli("heatmap", *fine, "--out", tmp_path / "fine.png").out
    assert "each cell's true count lies in its" in png.out
    assert "95% ranges per cell (write .gpkg for them)" in png.out
    assert "only noise to allow for: every cell was measured on its own" in png.out


def test_png_has_privacy_caption(cli, tmp_path):
    png = tmp_path / "map.png"
    res = cli("heatmap", *DEATHS, *AREA, *GRID, "--epsilon", "0.5", "--out", png, "--quiet")
    assert res.code == 0, res.err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert res.err == ""  # --quiet: no notes


def test_csv_and_gbif_inputs(cli, tmp_path):
    deaths = gpd.read_file(SNOW, layer="deaths").to_crs("EPSG:4326")
    csv = tmp_path / "deaths.csv"
    deaths.assign(lon=deaths.geometry.x, lat=deaths.geometry.y).drop(columns="geometry").to_csv(
        csv, index=False
    )
    res = cli(
        "heatmap", csv, *AREA, *GRID, "--epsilon", "1", "--out", tmp_path / "a.gpkg", "--json"
    )
    assert res.code == 0, res.err
    gbif = tmp_path / "occurrence.txt"
    rows = ["gbifID\tdecimalLatitude\tdecimalLongitude\trecordedBy"]
    rows += [f"{i}\t{p.y}\t{p.x}\tobserver{i % 7}" for i, p in enumerate(deaths.geometry)]
    gbif.write_text("\n".join(rows) + "\n")
    lonlat = "--extent -0.1425,51.5085,-0.1290,51.5170 --extent-crs EPSG:4326"  # west of Greenwich
    bound = "--epsilon 1 --individual-column recordedBy --max-sites 3 --json"
    res = cli("heatmap", gbif, *GRID, "--out", tmp_path / "b.gpkg", opts=f"{lonlat} {bound}")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["release"]["max_sites_per_individual"] == 3
    assert data["release"]["sensitivity"] == 3.0
    cells = gpd.read_file(tmp_path / "b.gpkg", layer="cells")
    ny, nx = data["grid"]["shape"]
    assert len(cells) == data["grid"]["n_released"] < nx * ny  # the box, re-projected, is tilted


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"--crs": "EPSG:4326"}, "--crs EPSG:4326 is geographic (degrees)"),
        ({"--out": "map.xlsx"}, "--out must end in .gpkg"),
        ({"POINTS": "nowhere.gpkg"}, "POINTS file not found: nowhere.gpkg"),
        ({"--study-area": None, "--extent": "1,2,3"}, "--extent must be MINX,MINY,MAXX,MAXY"),
        ({"--max-sites": "0"}, "--max-sites must be an integer >= 1"),
        ({"--individual-column": "observer"}, "--individual-column observer is not a column"),
        ({"--dataset": "d"}, "--dataset needs --ledger"),
        ({"--epsilon": "0"}, "expected a finite number > 0"),
    ],
)
def test_bad_input_exits_2_with_one_line(cli, tmp_path, change, needle):
    opts = {
        "POINTS": SNOW,
        "--layer": "deaths",
        "--study-area": SNOW,
        "--study-area-layer": "streets",
        "--cell-size": "50",
        "--crs": "EPSG:27700",
        "--epsilon": "1",
        "--out": tmp_path / "map.gpkg",
    }
    opts.update(change)
    if opts["--study-area"] is None:
        del opts["--study-area"], opts["--study-area-layer"]
    args = [opts.pop("POINTS")] + [str(x) for kv in opts.items() for x in kv]
    res = cli("heatmap", *args)
    assert res.code == 2
    assert needle in res.err
    assert len(res.err.strip().splitlines()) == 1, res.err
    assert not (tmp_path / "map.gpkg").exists()


def check_heatmap_refusal(method: str, target: str, epsilon: str) -> ValueError:
    """The library's refusal of ``epsilon`` on a grid of many cells (the CLI's has 255)."""
    from dpatlas.spatial import Grid
    from dpatlas.spatial.heatmap import check_heatmap

    grid = Grid.from_bounds((0, 0, 850, 750), cell_size=50, crs="EPSG:27700")
    with pytest.raises(ValueError, match=r"; use epsilon >= \S+$") as err:
        check_heatmap(grid, epsilon=float(epsilon), method=method, target=target)
    return err.value


@pytest.mark.parametrize(
    ("method", "target", "epsilon"),
    [
        ("uniform", "cells", "1e-16"),
        ("privtree", "cells", "1e-14"),
        ("adaptive", "cells", "1e-14"),
        ("auto", "cells", "1e-16"),
        ("auto", "regions", "1e-14"),
    ],
)
def test_an_epsilon_too_small_to_sample_is_refused_before_the_points_are_read(
    cli, ledger, tmp_path, method, target, epsilon
):
    """It was refused after the read: a missing POINTS file was reported instead."""
    args = [tmp_path / "nowhere.gpkg", *AREA, *GRID, "--epsilon", epsilon, "--method", method]
    args += ["--target", target, "--out", tmp_path / "map.gpkg", "--ledger", ledger]
    res = cli("heatmap", *args, "--dataset", "d")
    assert res.code == 2
    assert f"--epsilon {float(epsilon)!r} is too small for heatmap method {method!r}" in res.err
    least = float(res.err.strip().rsplit("; use --epsilon >= ", 1)[1])  # the library's smallest ε
    assert least == float(str(check_heatmap_refusal(method, target, epsilon)).rsplit(" ", 1)[1])
    assert len(res.err.strip().splitlines()) == 1, res.err
    assert Budget.open(ledger, dataset="d").history == ()


def test_a_zcdp_ledger_checks_the_methods_own_cost_as_the_library_does(cli, tmp_path):
    """The CLI checked ``Cost.pure(ε)`` (ρ = ε²/2) while the release debits PrivTree's two
    halves (ρ = ε²/4): at ε = 0.22 on a (1, 1e-6) zCDP ledger (ρ ≈ 0.0175) it refused a map
    that ``heatmap(..., budget=)`` releases."""
    ledger = tmp_path / "z.sqlite"
    opts = "--dataset z --epsilon 1 --delta 1e-6 --accounting zcdp"
    assert cli("budget", "init", ledger, opts=opts).code == 0
    args = [*DEATHS, *AREA, *GRID, "--epsilon", "0.22", "--method", "privtree"]
    args += ["--out", tmp_path / "map.gpkg", "--ledger", ledger, "--dataset", "z", "--seed", "1"]
    res = cli("heatmap", *args)
    assert res.code == 0, res.err
    [spend] = Budget.open(ledger, dataset="z").history
    assert float(spend.rho) == pytest.approx(2 * 0.11**2 / 2)
