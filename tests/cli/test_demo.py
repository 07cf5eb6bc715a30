"""``dpatlas demo``: files exist and re-read, the ledger adds up, the overspend is refused."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import geopandas as gpd
import matplotlib
import pytest

from dpatlas import Budget
from dpatlas.cli.demo import GRAPH_DATASET, SNOW_DATASET, find_data, run_demo

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    lines: list[str] = []
    return run_demo(out, rng=7, echo=lines.append), lines


def test_files_exist_and_reread(demo):
    result, _ = demo
    out = result.out_dir
    for name in ("heatmap.png", "heatmap.gpkg", "triangles.txt", "triangles.json"):
        assert (out / name).is_file(), name
    maps = sorted(n for n in result.files if n.endswith(".gpkg"))
    assert maps[0] == "heatmap-adaptive.gpkg" or maps == ["heatmap.gpkg"]
    for name in maps:
        assert (out / name.replace(".gpkg", ".png")).read_bytes()[:4] == b"\x89PNG"
        assert "Differentially private" in (out / name.replace(".gpkg", ".html")).read_text()
        cells = gpd.read_file(out / name, layer="cells")
        assert cells.crs.to_epsg() == 27700
        assert len(cells) == 17 * 15  # 50 m cells over the streets' extent
        assert (cells["count"] >= 0).all()  # non-negative post-processing
    if len(maps) > 1:
        assert (out / "heatmaps-compared.png").read_bytes()[:4] == b"\x89PNG"
    uniform = gpd.read_file(out / "heatmap.gpkg", layer="cells")
    # 255 cells: too few for posterior medians, the default map keeps the release's total
    assert uniform["count"].sum() == max(uniform["raw"].sum(), 0)
    report = json.loads((out / "triangles.json").read_text())
    assert isinstance(report["value"], int)
    assert report["exact_value"] == 467  # Les Misérables has 467 triangles (public data)
    assert "public" in report["exact_value_note"]
    assert (report["epsilon"], report["mechanism"]) == (1.0, "triangle_count/piecewise")
    assert report["seeded"] is True
    text = (out / "triangles.txt").read_text()
    assert "exact value    467   (shown only because this data is public)" in text
    low, high = report["interval95"]  # bought with 0.1 of the 1.0: the error bar is shown
    assert low < report["value"] < high
    assert f"95% interval   [{low}, {high}]" in text
    assert "epsilon        1   delta 0   (of which 0.1 for the interval)" in text


def test_ledger_sums_and_refusal(demo):
    result, lines = demo
    maps = [n for n in result.files if n.endswith(".gpkg")]
    heat = Budget.open(result.ledger, dataset=SNOW_DATASET)
    graph = Budget.open(result.ledger, dataset=GRAPH_DATASET)
    assert len(heat.history) == len(maps)
    assert [len(s.products) for s in heat.history] == [3] * len(maps)  # png, gpkg, html each
    assert sum(s.epsilon for s in heat.history) == Decimal("0.5") * len(maps)
    assert heat.remaining.epsilon == 0
    assert [(s.epsilon, s.mechanism) for s in graph.history] == [
        (Decimal("1.0"), "triangle_count/piecewise")
    ]  # the refused release of ε = 0.5 spent nothing
    assert result.spent == {SNOW_DATASET: 0.5 * len(maps), GRAPH_DATASET: 1.0}
    assert result.refused.startswith("privacy budget exceeded: requested epsilon=0.5")
    text = "\n".join(lines)
    assert "A further triangle release (epsilon=0.5) was refused" in text
    assert f"Files written to {result.out_dir}/" in text
    assert "NOT secret" in text  # seeded run says so


def test_rerun_starts_a_fresh_ledger(demo):
    result, _ = demo
    again = run_demo(result.out_dir, rng=8, echo=lambda line: None)
    assert len(Budget.open(again.ledger, dataset=GRAPH_DATASET).history) == 1


def test_missing_data_says_how_to_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="run the demo from a clone of dpatlas"):
        find_data(tmp_path)


def test_console_script_demo_under_a_minute(tmp_path):
    script = Path(sys.executable).with_name("dpatlas")
    if not script.is_file():
        pytest.skip(f"console script not installed beside {sys.executable}")
    start = time.perf_counter()
    proc = subprocess.run(
        [script, "demo", "--out", tmp_path / "out"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr
    assert elapsed < 60
    assert f"Files written to {tmp_path / 'out'}/" in proc.stdout
    assert "NOT secret" not in proc.stdout  # the default demo uses secure randomness
    assert (tmp_path / "out" / "ledger.sqlite").is_file()


def test_the_demo_refuses_a_folder_holding_another_ledger(tmp_path):
    ledger = tmp_path / "ledger.sqlite"
    Budget.open(ledger, dataset="nests-2026", epsilon=1.0)
    with pytest.raises(ValueError, match=r"holds the budget of 'nests-2026'.*another --out"):
        run_demo(tmp_path, rng=0, echo=lambda line: None)
    assert Budget.open(ledger, dataset="nests-2026").total.epsilon == 1.0
    assert not (tmp_path / "heatmap.png").exists()


def test_the_demo_refuses_a_folder_whose_ledger_file_is_no_ledger(tmp_path):
    (tmp_path / "ledger.sqlite").write_text("my notes\n")
    with pytest.raises(ValueError, match="is not a dpatlas ledger"):
        run_demo(tmp_path, rng=0, echo=lambda line: None)
    assert (tmp_path / "ledger.sqlite").read_text() == "my notes\n"
