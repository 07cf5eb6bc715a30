"""The notebooks run top to bottom without error (each asserts its own lessons), on small data."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
BUDGET_SECONDS = 60


def _kernel_or_skip() -> None:
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        pytest.skip("no Jupyter kernel 'python3': install the dev extras (ipykernel) in this venv")


def test_there_are_three_notebooks():
    assert [p.name[:3] for p in PATHS] == ["01-", "02-", "03-"]


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_committed_with_their_outputs(path):
    """Figures show when a notebook is browsed: committed as `make notebooks` left it."""
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), (
        f"{path.name}: run `make notebooks` (every cell once, top to bottom) before committing"
    )
    outputs = [o for cell in code for o in cell.outputs]
    assert [o for o in outputs if o.output_type == "error"] == []
    assert any("image/png" in o.get("data", {}) for o in outputs), f"{path.name}: no figure"
    text = json.dumps(outputs)
    assert re.search(r"/(?:tmp|work|root|home)/", text) is None, "a local path in the outputs"


def _without_shared(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook with its ``SHARED = ...`` path pointing nowhere (as on a fresh clone)."""
    cells = [c for c in nb.cells if c.cell_type == "code" and "\nSHARED = " in f"\n{c.source}"]
    assert len(cells) == 1, "a notebook reading shared data sets SHARED in exactly one cell"
    lines = cells[0].source.splitlines()
    cells[0].source = "\n".join(
        'SHARED = Path("/nonexistent/shared/datasets")' if ln.startswith("SHARED = ") else ln
        for ln in lines
    )
    return nb


CASES = [(p, False) for p in PATHS] + [
    (p, True) for p in PATHS if "shared" in p.read_text(encoding="utf-8")
]


@pytest.mark.parametrize(
    ("path", "hide_shared"),
    CASES,
    ids=[p.stem + ("-without-shared" if hide else "") for p, hide in CASES],
)
def test_notebook_runs(path, hide_shared):
    _kernel_or_skip()
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    if hide_shared:
        nb = _without_shared(nb)
    client = NotebookClient(
        nb,
        timeout=BUDGET_SECONDS,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError on the first failing cell
    elapsed = time.perf_counter() - start
    assert elapsed < BUDGET_SECONDS, f"{path.name} took {elapsed:.0f} s"
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert errors == []
