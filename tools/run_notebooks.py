"""Run the notebooks in place so that they keep their outputs: ``make notebooks``.

Each notebook in ``notebooks/`` is executed top to bottom in its own folder (as a reader runs
it) and saved with its outputs, so that figures show when the notebook is browsed on a forge.
Volatile metadata (timings) is dropped to keep diffs small. The tests in ``tests/notebooks``
run every notebook again from scratch and check what is committed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def run(path: Path, timeout: int = 600) -> None:
    """Execute ``path`` and write it back with its outputs."""
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.validate(nb)
    nbformat.write(nb, path)


def main(names: list[str]) -> None:
    """Run the notebooks named (default: all of ``notebooks/``)."""
    paths = [NOTEBOOKS / n for n in names] if names else sorted(NOTEBOOKS.glob("*.ipynb"))
    for path in paths:
        print(f"running {path.name}", flush=True)
        run(path)


if __name__ == "__main__":
    main(sys.argv[1:])
