"""The web map in a real browser (headless Chromium): drawn cells, tooltip, no errors, offline.

Skips with the reason when no Chromium or Playwright is found (``tests/helpers/browser.py``);
CI installs both and sets ``DPATLAS_REQUIRE_BROWSER=1`` so that it runs there.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import geopandas as gpd
import numpy as np
import pytest
from matplotlib.image import imread
from shapely.geometry import box
from tests.helpers.browser import chromium, visit

from dpatlas.spatial import Grid, heatmap

SNOW = Path(__file__).resolve().parents[3] / "datasets" / "snow-cholera-deaths-1854.gpkg"


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def snow():
    streets = gpd.read_file(SNOW, layer="streets")
    return {
        "deaths": gpd.read_file(SNOW, layer="deaths"),
        "streets": streets,
        "pumps": gpd.read_file(SNOW, layer="pumps"),
        "grid": Grid.from_bounds(tuple(streets.total_bounds), cell_size=50, crs="EPSG:27700"),
    }


def _fmt(value: float) -> str:
    """The page's number format (``fmt`` in the page script): integers whole, else 4 digits."""
    return str(int(value)) if float(value).is_integer() else f"{float(f'{value:.4g}')}"


def test_page_draws_every_cell_shows_its_tooltip_and_needs_no_network(browser, snow, tmp_path):
    hm = heatmap(snow["deaths"], snow["grid"], epsilon=1.0, method="uniform", rng=3).nonnegative()
    context = {"streets": snow["streets"], "pumps": snow["pumps"]}
    path = hm.to_html(tmp_path / "map.html", context=context, title="Cholera deaths, 1854")
    cells = hm.to_geodataframe()
    with visit(browser, path) as seen:
        page = seen.page
        page.wait_for_function("window.dpatlas !== undefined")
        assert page.locator("path.dpatlas-cell").count() == len(cells) == hm.grid.n_released
        assert page.evaluate("window.dpatlas.drawn") == len(cells)
        index = int(np.argmax(cells["count"]))  # the busiest cell
        centre = page.evaluate(
            f"""(() => {{
                const r = window.dpatlas.cells.getLayers()[{index}]._path.getBoundingClientRect();
                return [r.x + r.width / 2, r.y + r.height / 2];
            }})()"""
        )
        page.mouse.move(*centre)
        tooltip = page.wait_for_selector(".leaflet-tooltip").inner_text()
        row = cells.iloc[index]
        assert f"cell row {row['row']}, column {row['col']}" in tooltip
        assert f"private estimate\t{_fmt(row['count'])}" in tooltip
        assert f"95% interval\t[{_fmt(row['ci95_low'])}, {_fmt(row['ci95_high'])}]" in tooltip
        assert "the range allows for\tnoise" in tooltip
        legend = page.inner_text(".dpatlas-legend")
        assert legend.startswith("private estimate (sites per cell)")
        caption = page.inner_text(".dpatlas-caption")
        assert caption.startswith("Differentially private map, released ")
        assert "ε = 1, δ = 0 (whole map), heatmap/uniform" in caption
        assert "NOT secret" in caption  # seeded
        assert page.inner_text(".leaflet-control-layers").split() == [
            "private",
            "estimate",
            "streets",
            "pumps",
        ]
        shot = tmp_path / "map.png"
        page.screenshot(path=str(shot))
    assert seen.errors == []
    assert seen.requests == []
    pixels = imread(shot)[..., :3]
    colours = np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 200  # a blank or one-colour page has a handful
    background = np.all(np.abs(pixels - np.array([0xF2, 0xF2, 0xEF]) / 255) < 0.02, axis=-1)
    assert background.mean() < 0.5  # the cells cover most of the frame


def test_a_large_tree_release_is_drawn_on_a_canvas(browser, snow, tmp_path):
    grid = Grid.from_bounds(tuple(snow["streets"].total_bounds), cell_size=10, crs="EPSG:27700")
    hm = heatmap(snow["deaths"], grid, epsilon=1.0, method="privtree", rng=4)
    assert grid.n_released > 5_000  # beyond the SVG limit
    path = hm.to_html(tmp_path / "tree.html", scale="sqrt", cmap="magma")
    with visit(browser, path) as seen:
        seen.page.wait_for_function("window.dpatlas !== undefined")
        assert seen.page.evaluate("window.dpatlas.drawn") == grid.n_released
        assert seen.page.locator("canvas").count() >= 1
        assert seen.page.locator("path.dpatlas-cell").count() == 0
    assert seen.errors == []
    assert seen.requests == []


def test_the_harness_sees_errors_and_requests(browser, tmp_path):
    broken = tmp_path / "broken.html"
    broken.write_text(
        "<html><body><img src='https://example.org/tile.png'>"
        "<script>console.error('bad'); undefinedFunction();</script></body></html>"
    )
    with visit(browser, broken) as seen:
        seen.page.wait_for_timeout(0)
    assert "bad" in seen.errors
    assert any("undefinedFunction" in e for e in seen.errors)
    assert seen.requests == ["https://example.org/tile.png"]


def _payload(where: str) -> str:
    """Markup that, if the page ever inserts it as HTML, runs and records ``where``."""
    return f"<img src=x onerror=\"(window.pwned = window.pwned || []).push('{where}')\">"


def test_names_from_the_caller_are_shown_as_text_and_never_run(browser, tmp_path):
    grid = Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")
    hm = heatmap((np.array([500.0]), np.array([500.0])), grid, epsilon=1.0, crs=3035, rng=0)
    flag = _payload("flag name")
    release = dataclasses.replace(
        hm.release, metadata={**hm.release.metadata, "created": "<s>19</s>"}
    )
    comment = "<!--<script>"  # would turn the end of the data block into data
    ones = np.ones(grid.n_released, dtype=bool)
    hm = hm.replace(release=release, flags={flag: ones, comment: ones})
    title, layer = _payload("title"), _payload("context name")
    context = {layer: gpd.GeoSeries([box(0, 0, 1_000, 1_000)], crs=3035)}
    path = hm.to_html(tmp_path / "map.html", title=title, context=context)
    with visit(browser, path) as seen:
        page = seen.page
        page.wait_for_function("window.dpatlas !== undefined")
        page.locator("path.dpatlas-cell").first.hover()
        tooltip = page.wait_for_selector(".leaflet-tooltip").inner_text()
        page.wait_for_timeout(200)  # an injected image would have failed and run by now
        assert page.evaluate("window.pwned === undefined")
        assert page.locator("img").count() == 0
        assert page.inner_text(".dpatlas-title") == title
        assert layer in page.inner_text(".leaflet-control-layers")
        assert f"{flag}\tyes" in tooltip
        assert f"{comment}\tyes" in tooltip
        assert page.inner_text(".dpatlas-caption").startswith(
            "Differentially private map, released <s>19</s>: "
        )
    assert seen.errors == []
    assert seen.requests == []
