"""Every product writer swaps its file in whole: a write that fails half-way leaves the old file.

The writers used to open the output in place (GeoJSON, GeoTIFF, PNG, HTML, the synthetic
edge list and communities, the demo's reports): a full disk or a driver error half-way left
half a file over a good one, perhaps the only copy of a release that cost budget. Each case
below writes a good file, then makes the same writer fail after it has started writing (a
partial write, then an error), and checks that the good file is untouched and no temporary
file is left behind.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
import networkx as nx
import numpy as np
import pytest

import dpatlas.spatial as sp
from dpatlas.graph import synthesize
from dpatlas.spatial.products import webmap
from dpatlas.spatial.products.formats import geotiff

matplotlib.use("Agg")


def _half_then_full(path: Any, *args: Any, **kwargs: Any) -> None:
    """A writer that gets half-way, then finds the disk full."""
    Path(path).write_bytes(b"half a fi")
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture(scope="module")
def heatmap() -> Any:
    g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    return sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)


@pytest.fixture(scope="module")
def synthetic() -> Any:
    labels = {i: f"n{i}" for i in range(40)} | {39: "n39\ud800"}  # a label UTF-8 cannot encode
    graph = nx.relabel_nodes(nx.planted_partition_graph(2, 20, 0.5, 0.02, seed=1), labels)
    return synthesize(graph, n=40, epsilon=2.0, rng=3)


def _break_gdf_to_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import geopandas as gpd

    monkeypatch.setattr(gpd.GeoDataFrame, "to_file", lambda self, path, **kw: _half_then_full(path))


def _break_geotiff_tags(monkeypatch: pytest.MonkeyPatch) -> None:
    def describe(*args: Any) -> None:  # after the bands are written, before the tags
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(geotiff, "describe", describe)


def _break_savefig(monkeypatch: pytest.MonkeyPatch) -> None:
    from matplotlib.figure import Figure

    monkeypatch.setattr(Figure, "savefig", lambda self, path, **kw: _half_then_full(path))


def _break_page(monkeypatch: pytest.MonkeyPatch) -> None:
    save = webmap.WebMap.save

    def half_a_page(self: webmap.WebMap, path: Any) -> Path:  # fails encoding, mid-way
        return save(webmap.WebMap(self.html + "\ud800", self.n_cells), path)

    monkeypatch.setattr(webmap.WebMap, "save", half_a_page)


HEATMAP_WRITERS: dict[str, tuple[str, Callable[[pytest.MonkeyPatch], None]]] = {
    "GeoPackage": ("map.gpkg", _break_gdf_to_file),
    "GeoJSON": ("map.geojson", _break_gdf_to_file),
    "GeoTIFF": ("map.tif", _break_geotiff_tags),
    "PNG": ("map.png", _break_savefig),
    "HTML": ("map.html", _break_page),
}


def _untouched(path: Path, before: bytes) -> None:
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no partial file left


@pytest.mark.parametrize("kind", sorted(HEATMAP_WRITERS))
def test_a_heatmap_write_that_fails_half_way_leaves_the_old_file(
    heatmap, tmp_path, monkeypatch, kind
):
    name, breaks = HEATMAP_WRITERS[kind]
    path = heatmap.to_file(tmp_path / name)
    before = path.read_bytes()
    breaks(monkeypatch)
    with pytest.raises((OSError, UnicodeEncodeError)):
        heatmap.to_file(path)
    _untouched(path, before)


def test_a_figure_save_that_fails_half_way_leaves_the_old_file(tmp_path, monkeypatch):
    from dpatlas.plot import plot_privacy_utility, save_figure

    path = save_figure(plot_privacy_utility([0.1, 1.0], {"a": [0.2, 0.02]}), tmp_path / "c.png")
    before = path.read_bytes()
    _break_savefig(monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        save_figure(plot_privacy_utility([0.1, 1.0], {"a": [0.3, 0.03]}), path)
    _untouched(path, before)


def test_a_synthetic_edge_list_write_that_fails_half_way_leaves_the_old_file(
    synthetic, tmp_path, monkeypatch
):
    path = tmp_path / "synthetic.txt"
    path.write_text("# the edges of an earlier release\n0 1\n")
    before = path.read_bytes()

    def half_the_edges(graph: Any, fh: Any, **kwargs: Any) -> None:
        fh.write(b"n0 n1\n")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(nx, "write_edgelist", half_the_edges)
    with pytest.raises(OSError, match="No space left"):
        synthetic.write_edgelist(path)
    _untouched(path, before)


def test_a_communities_write_that_fails_half_way_leaves_the_old_file(synthetic, tmp_path):
    path = tmp_path / "communities.txt"
    path.write_text("# the communities of an earlier release\n")
    before = path.read_bytes()
    with pytest.raises(UnicodeEncodeError):  # the last node's label: after the other lines
        synthetic.write_communities(path)
    _untouched(path, before)


def test_the_demo_reports_are_swapped_in_whole(tmp_path, monkeypatch):
    """A failed write of triangles.json leaves an earlier run's file (the demo writes into the
    same folder again)."""
    from dpatlas.cli import demo

    old = tmp_path / "triangles.json"
    old.write_text('{"value": 470}\n')
    dumps = demo.json.dumps

    def half_dumps(value: Any, **kwargs: Any) -> str:  # the report only: a text UTF-8 refuses
        text = dumps(value, **kwargs)
        return text + "\ud800" if "exact_value_note" in text else text

    monkeypatch.setattr(demo.json, "dumps", half_dumps)
    with pytest.raises(UnicodeEncodeError):
        demo.run_demo(tmp_path, rng=0, echo=lambda line: None)
    assert old.read_text() == '{"value": 470}\n'
    assert not [p for p in tmp_path.iterdir() if ".partial-" in p.name]


def test_written_whole_keeps_the_mode_and_replaces_the_file_a_link_points_to(tmp_path):
    from dpatlas.core.files import written_whole

    target = tmp_path / "real.txt"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with written_whole(link) as partial:
        partial.write_text("new")
    assert link.is_symlink()
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o640


def test_written_whole_refuses_a_read_only_file_before_writing(tmp_path, monkeypatch):
    """The swap replaced a read-only file (open(path, "wb") refused it before the swap)."""
    import os

    from dpatlas.core.files import written_whole

    target = tmp_path / "kept.txt"
    target.write_text("kept")
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == target else real(p, mode))
    refused = pytest.raises(PermissionError, match=r"kept\.txt exists and is read-only; make it")
    with refused, written_whole(target) as partial:
        partial.write_text("new")
    assert target.read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]
