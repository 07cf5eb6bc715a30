"""One release, many products: repeated ``--out``, one debit, ``export`` for free, the ledger's files."""

from __future__ import annotations

import json

import geopandas as gpd
import numpy as np
import rasterio

from dpatlas import Budget

from .conftest import SNOW

GRID = ["--cell-size", "50", "--crs", "EPSG:27700"]
AREA = ["--study-area", SNOW, "--study-area-layer", "streets"]
DEATHS = [SNOW, "--layer", "deaths"]


def test_four_products_from_one_release_debit_the_ledger_once(run_cli, cli, ledger, tmp_path):
    outs = [tmp_path / f"map.{suffix}" for suffix in ("gpkg", "tif", "png", "html")]
    args = [*DEATHS, *AREA, *GRID, "--epsilon", "0.5", "--ledger", ledger, "--dataset", "d"]
    args += [x for path in outs for x in ("--out", path)]
    args += ["--context", f"{SNOW}:pumps", "--cmap", "magma", "--scale", "sqrt", "--json"]
    res = run_cli("heatmap", *args, "--method", "uniform", "--seed", "7")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["out"] == [str(p) for p in outs]
    assert all(p.is_file() and p.stat().st_size > 0 for p in outs)
    (spend,) = Budget.open(ledger, dataset="d").history  # one release, one debit
    assert (float(spend.epsilon), spend.mechanism) == (0.5, "heatmap/uniform")
    assert list(spend.products) == [str(p.resolve()) for p in outs]
    cells = gpd.read_file(outs[0], layer="cells")
    with rasterio.open(outs[1]) as src:
        band = src.read(1)
    np.testing.assert_array_equal(np.sort(band.ravel()), np.sort(cells["count"]))  # the same map
    page = outs[3].read_text(encoding="utf-8")
    assert "Differentially private" in page
    assert '"name":"pumps"' in page
    assert '"name":"study area"' in page
    history = cli("budget", "history", ledger, "--dataset", "d")
    assert f"wrote {outs[0].resolve()}" in history.out
    history_json = json.loads(cli("budget", "history", ledger, "--dataset", "d", "--json").out)
    assert history_json["history"][0]["products"] == [str(p.resolve()) for p in outs]


def test_export_renders_a_saved_map_again_and_spends_nothing(run_cli, cli, ledger, tmp_path):
    gpkg, tif = tmp_path / "map.gpkg", tmp_path / "map.tif"
    args = [*DEATHS, *AREA, *GRID, "--epsilon", "0.5", "--ledger", ledger, "--dataset", "d"]
    res = cli("heatmap", *args, "--out", gpkg, "--out", tif, "--nonnegative", "--target", "regions")
    assert res.code == 0, res.err
    before = Budget.open(ledger, dataset="d").history
    again = [tmp_path / "again.html", tmp_path / "again.tif", tmp_path / "again.png"]
    res = run_cli("export", gpkg, "--to", *again, "--json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["spent"] == {"epsilon": 0.0, "delta": 0.0}
    assert data["release"]["epsilon"] == 0.5
    assert Budget.open(ledger, dataset="d").history == before  # nothing spent, nothing recorded
    with rasterio.open(tif) as first, rasterio.open(again[1]) as second:
        np.testing.assert_array_equal(first.read(), second.read())
        assert first.tags() == second.tags()
    assert "nonnegative(integer)" in again[0].read_text(encoding="utf-8")
    assert "sites per cell" in again[0].read_text(encoding="utf-8")
    assert again[2].read_bytes()[:4] == b"\x89PNG"
    leaves = tmp_path / "leaves.html"  # a regions map is PrivTree's: it measured leaves
    assert cli("export", gpkg, "--to", leaves, "--unit", "leaf").code == 0
    page = leaves.read_text(encoding="utf-8")
    assert "private estimate (sites per km²)" in page
    assert "each leaf&#x27;s true count lies in its range" in page


def test_products_are_checked_before_anything_is_spent(cli, ledger, tmp_path):
    base = [*DEATHS, *AREA, *GRID, "--epsilon", "0.5", "--ledger", ledger, "--dataset", "d"]
    (tmp_path / "f.txt").write_text("a file where a folder would go")
    for extra, needle in (
        (["--out", tmp_path / "a.gpkg", "--out", tmp_path / "a.gpkg"], "is given twice"),
        (["--out", tmp_path / "a.gpkg", "--out", tmp_path / "a.xlsx"], "--out must end in"),
        (["--out", tmp_path / "a.gpkg", "--tiles", "OpenStreetMap"], "--tiles is for .html maps"),
        (["--out", tmp_path / "a.png", "--context", "nowhere.gpkg"], "--context file not found"),
        (["--out", tmp_path / "a.png", "--context", str(SNOW)], "is the POINTS file"),
        (["--out", SNOW], "is the POINTS file: writing it would destroy it"),
        (["--out", tmp_path / "f.txt" / "a.png"], "f.txt is a file, not a folder"),
        (["--out", tmp_path / "a.png", "--context", tmp_path / "f.txt"], "cannot be read as a"),
    ):
        res = cli("heatmap", *base, *extra)
        assert res.code == 2, res.err
        assert needle in res.err
    assert Budget.open(ledger, dataset="d").history == ()
    assert not any(tmp_path.glob("a.*"))
    res = cli("export", tmp_path / "none.gpkg", "--to", tmp_path / "x.txt")
    assert res.code == 2
    assert "--to must end in" in res.err  # export's flag, not heatmap's --out
    res = cli("export", tmp_path / "none.gpkg", "--to", tmp_path / "x.html")
    assert res.code == 2
    assert "saved map not found" in res.err
    plain = tmp_path / "plain.gpkg"
    gpd.read_file(SNOW, layer="pumps").to_file(plain, layer="cells")
    res = cli("export", plain, "--to", tmp_path / "x.html")
    assert res.code == 2
    assert "holds no dpatlas release record" in res.err
