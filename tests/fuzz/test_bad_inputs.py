"""One test per row of the bad-input table (tests/fuzz/bad_inputs_table.py, docs/bad-inputs.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.fuzz.bad_inputs_table import ROWS, Row, render

DOC = Path(__file__).resolve().parents[2] / "docs" / "bad-inputs.md"


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.entry}:{r.input}" for r in ROWS])
def test_bad_input(row: Row, tmp_path: Path) -> None:
    if isinstance(row.outcome, str):
        assert row.call(tmp_path) == row.outcome
    elif issubclass(row.outcome, Warning):
        with pytest.warns(row.outcome, match=re.escape(row.match)):
            row.call(tmp_path)
    else:
        pattern = re.escape(row.match.replace("<tmp>", str(tmp_path)))
        with pytest.raises(row.outcome, match=pattern) as info:
            row.call(tmp_path)
        assert type(info.value) is row.outcome, f"raised a subclass: {info.value!r}"


def test_doc_in_sync(tmp_path: Path) -> None:
    assert DOC.read_text() == render(tmp_path), (
        "docs/bad-inputs.md is stale: run `.venv/bin/python -m tests.fuzz.bad_inputs_table "
        "> docs/bad-inputs.md`"
    )
