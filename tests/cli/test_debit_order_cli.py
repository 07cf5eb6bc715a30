"""The order of a release in the shell: every output is checked before the sites are read and
before the debit; a step that still fails after the debit says that the debit stays."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

from dpatlas import Budget
from dpatlas.graph.synthesis.record import SyntheticGraph
from dpatlas.spatial.products import webmap

from .conftest import LESMIS, SNOW

MAP = [SNOW, "--layer", "deaths", "--study-area", SNOW, "--study-area-layer", "streets"]
MAP += ["--cell-size", "50", "--crs", "EPSG:27700", "--method", "uniform", "--epsilon", "0.5"]
UNWRITABLE = Path("/proc/dpatlas-test")
"""A folder no process can create a file in, root or not (Linux's /proc)."""
needs_proc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not Path("/proc").is_dir(), reason="needs Linux /proc"
)


@needs_proc
@pytest.mark.parametrize("bad", ["x.gpkg", "x.html", "new/x.tif"])
def test_an_out_file_that_cannot_be_created_is_refused_before_the_debit(cli, ledger, tmp_path, bad):
    good = tmp_path / "map.gpkg"
    outs = ["--out", good, "--out", Path("/proc") / bad]
    res = cli("heatmap", *MAP, *outs, "--ledger", ledger, "--dataset", "d")
    assert res.code == 2, res.err
    assert f"--out /proc/{bad} cannot be written: cannot create a file in /proc" in res.err
    assert Budget.open(ledger, dataset="d").history == ()
    assert not good.exists()


@needs_proc
@pytest.mark.parametrize("flag", ["--out", "--communities"])
def test_synthesize_refuses_an_output_that_cannot_be_created_before_the_debit(
    cli, ledger, tmp_path, flag
):
    paths = {"--out": tmp_path / "s.txt", "--communities": tmp_path / "c.txt"}
    paths[flag] = UNWRITABLE / "s.txt"
    outs = [item for pair in paths.items() for item in pair]
    res = cli("synthesize", LESMIS, "--nodes", "77", *outs, "--ledger", ledger, "--dataset", "d")
    assert res.code == 2, res.err
    assert f"{flag} {UNWRITABLE / 's.txt'} cannot be written" in res.err
    assert Budget.open(ledger, dataset="d").history == ()


def _disk_full(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _driver_failure(*args: object, **kwargs: object) -> None:
    raise RuntimeError("GDAL: sqlite3_open failed")  # what pyogrio raises: not an OSError


@pytest.mark.parametrize("failure", [_disk_full, _driver_failure])
def test_a_map_write_that_fails_after_the_debit_says_the_debit_stays(
    cli, ledger, tmp_path, monkeypatch, failure
):
    monkeypatch.setattr(webmap, "to_html", failure)
    gpkg, page = tmp_path / "map.gpkg", tmp_path / "map.html"
    res = cli("heatmap", *MAP, "--out", gpkg, "--out", page, "--ledger", ledger, "--dataset", "d")
    assert res.code == 3, res.err
    assert "dpatlas heatmap: error: " in res.err
    assert (
        f"the release was made and stays debited from dataset 'd' in {ledger} (epsilon=0.5, "
        "delta=0); releasing again costs as much again; written: "
    ) in res.err
    assert str(gpkg) in res.err
    [spend] = Budget.open(ledger, dataset="d").history
    assert spend.epsilon == 0.5
    assert spend.products == (str(gpkg),)  # the file written before the failure is recorded
    assert gpkg.exists()
    assert not page.exists()


def test_a_synthetic_graph_write_that_fails_after_the_debit_says_the_debit_stays(
    cli, ledger, tmp_path, monkeypatch
):
    monkeypatch.setattr(SyntheticGraph, "write_communities", _disk_full)
    out, communities = tmp_path / "s.txt", tmp_path / "c.txt"
    res = cli(
        "synthesize", LESMIS, "--nodes", "77", "--epsilon", "0.5", "--out", out,
        "--communities", communities, "--ledger", ledger, "--dataset", "d", "--json",
    )  # fmt: skip
    assert res.code == 3, res.err
    assert "No space left on device" in res.err
    assert "stays debited from dataset 'd'" in res.err
    assert '"exit_code": 3' in res.out
    [spend] = Budget.open(ledger, dataset="d").history
    assert spend.products == (str(out),)


def test_debit_left_reports_every_spend_of_the_command_and_records_the_files_beside_them(
    tmp_path,
):
    from dpatlas.cli._common import Debit, Output, debit_left
    from dpatlas.core import discrete_laplace, gaussian

    ledger = tmp_path / "ledger.sqlite"
    budget = Budget.open(ledger, dataset="d", epsilon=1.0, delta=1e-5)
    out = Output(debits=[Debit(budget, ledger, "d")])
    discrete_laplace(3, sensitivity=1, epsilon=0.5, budget=budget, rng=0)
    gaussian(3.0, sensitivity=1, epsilon=0.25, delta=1e-6, budget=budget, rng=0)
    out.files.append(tmp_path / "map.gpkg")
    assert debit_left(out) == (
        f"the 2 releases were made and stay debited from dataset 'd' in {ledger} (epsilon=0.75, "
        f"delta=1e-06); releasing again costs as much again; written: {tmp_path / 'map.gpkg'}"
    )
    rows = Budget.open(ledger, dataset="d").history
    assert [row.products for row in rows] == [(str(tmp_path / "map.gpkg"),)] * 2


def test_debit_left_says_once_that_the_files_could_not_be_recorded(tmp_path, monkeypatch):
    """With two debited budgets whose ledger refuses the files, the note was added per budget."""
    from dpatlas.cli._common import Debit, Output, debit_left
    from dpatlas.core import discrete_laplace

    ledger = tmp_path / "ledger.sqlite"
    a = Budget.open(ledger, dataset="a", epsilon=1.0)
    b = Budget.open(ledger, dataset="b", epsilon=1.0)
    for budget in (a, b):
        discrete_laplace(3, sensitivity=1, epsilon=0.5, budget=budget, rng=0)

    def refuse(self, spend, paths):
        raise ValueError("the ledger is read-only")

    monkeypatch.setattr(Budget, "record_products", refuse)
    out = Output(debits=[Debit(a, ledger, "a"), Debit(b, ledger, "b")])
    out.files.append(tmp_path / "map.gpkg")
    said = debit_left(out)
    assert said.count("not recorded in the ledger") == 1
    assert said.endswith(
        f"written: {tmp_path / 'map.gpkg'} (not recorded in the ledger: the ledger is read-only)"
    )


@pytest.fixture
def demo_words():
    """``dpatlas demo`` seeded and quiet, plotting without a display."""
    import matplotlib

    matplotlib.use("Agg")
    return ["demo", "--seed", "1", "--quiet"]


def test_a_demo_write_that_fails_after_its_debit_exits_3_and_says_the_debit_stays(
    cli, tmp_path, monkeypatch, demo_words
):
    from dpatlas.spatial.products.result import Heatmap

    monkeypatch.setattr(Heatmap, "to_file", _disk_full)
    res = cli(*demo_words, "--out", tmp_path)
    assert res.code == 3, res.err
    ledger = tmp_path / "ledger.sqlite"
    assert res.err == (
        "dpatlas demo: error: [Errno 28] No space left on device; the release was made and stays "
        "debited "
        f"from dataset 'snow-cholera-deaths-1854' in {ledger} (epsilon=0.5, delta=0); releasing "
        "again costs as much again; written: no file\n"
    )
    [spend] = Budget.open(ledger, dataset="snow-cholera-deaths-1854").history
    assert spend.epsilon == 0.5


def test_a_demo_failing_after_several_debits_says_what_they_cost_together(
    cli, tmp_path, monkeypatch, demo_words
):
    import dpatlas.plot
    from dpatlas.cli.demo import _methods

    if len(_methods()) < 2:
        pytest.skip("one heatmap method: the demo draws no comparison")
    monkeypatch.setattr(dpatlas.plot, "save_figure", _disk_full)
    res = cli(*demo_words, "--out", tmp_path)
    assert res.code == 3, res.err
    ledger, k = tmp_path / "ledger.sqlite", len(_methods())
    assert (
        f"No space left on device; the {k} releases were made and stay debited from dataset "
        f"'snow-cholera-deaths-1854' in {ledger} (epsilon={0.5 * k:g}, delta=0); releasing "
        "again costs as much again; written: "
    ) in res.err
    rows = Budget.open(ledger, dataset="snow-cholera-deaths-1854").history
    assert [len(row.products) for row in rows] == [3] * k  # each map's own three files only
    assert Budget.open(ledger, dataset="les-miserables").history == ()


def test_a_demo_failing_on_a_maps_second_product_lists_the_first_as_written(
    cli, tmp_path, monkeypatch, demo_words
):
    """The three products of a map were noted together after the last: a failure on the
    GeoPackage left the PNG on disk but out of the message."""
    from dpatlas.spatial.products.result import Heatmap

    real = Heatmap.to_file

    def png_only(self, path, **kwargs):
        if Path(path).suffix != ".png":
            _disk_full()
        return real(self, path, **kwargs)

    monkeypatch.setattr(Heatmap, "to_file", png_only)
    res = cli(*demo_words, "--out", tmp_path)
    assert res.code == 3, res.err
    assert res.err.endswith(f"written: {tmp_path / 'heatmap.png'}\n"), res.err
    assert (tmp_path / "heatmap.png").is_file()


def test_a_demo_failing_on_the_triangle_json_lists_the_triangle_report_as_written(
    cli, tmp_path, monkeypatch, demo_words
):
    import dpatlas.cli.demo

    real = dpatlas.cli.demo._write_text

    def text_only(path, text):
        if Path(path).suffix == ".json":
            _disk_full()
        real(path, text)

    monkeypatch.setattr(dpatlas.cli.demo, "_write_text", text_only)
    res = cli(*demo_words, "--out", tmp_path)
    assert res.code == 3, res.err
    assert res.err.endswith(f"{tmp_path / 'triangles.txt'}\n"), res.err
    assert "'les-miserables'" in res.err


SWAPPED = (
    "the file is written beside it and swapped in whole, so the folder must be writable: "
    "choose a folder you can write to"
)


@needs_proc
def test_an_existing_writable_out_in_a_folder_without_new_files_says_why_the_folder_matters(
    cli, ledger
):
    """/proc/self/comm exists and is writable, but /proc/self takes no new file (root too)."""
    out = Path("/proc/self/comm")
    res = cli(
        "synthesize", LESMIS, "--nodes", "77", "--out", out, "--ledger", ledger, "--dataset", "d"
    )
    assert res.code == 2, res.err
    assert f"--out {out} cannot be written: cannot create a file in /proc/self (" in res.err
    assert SWAPPED in res.err
    assert Budget.open(ledger, dataset="d").history == ()


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root writes into a read-only folder: permissions do not bite",
)
def test_an_existing_writable_out_in_a_read_only_folder_is_refused_before_the_debit(
    cli, ledger, tmp_path
):
    folder = tmp_path / "maps"
    folder.mkdir()
    out = folder / "map.gpkg"
    out.write_bytes(b"an earlier map")
    folder.chmod(0o555)
    try:
        res = cli("heatmap", *MAP, "--out", out, "--ledger", ledger, "--dataset", "d")
    finally:
        folder.chmod(0o755)
    assert res.code == 2, res.err
    assert f"--out {out} cannot be written: cannot create a file in {folder} (" in res.err
    assert SWAPPED in res.err
    assert Budget.open(ledger, dataset="d").history == ()
    assert out.read_bytes() == b"an earlier map"
