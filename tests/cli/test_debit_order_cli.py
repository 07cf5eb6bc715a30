"""The order of a release in the shell: every output is checked before the sites are read and
before the debit; a step that still fails after the debit says that the debit stays."""

from __future__ import annotations

import errno
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
