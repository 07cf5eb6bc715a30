"""The README's examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpatlas import Budget, BudgetExceededError
from dpatlas.cli.demo import HEATMAP_EPSILON, TRIANGLE_EPSILON, _methods

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block(heading: str) -> str:
    section = README.split(f"## {heading}\n", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, f"no python block under '## {heading}'"
    return found.group(1)


def test_ten_lines_run_as_written(tmp_path, monkeypatch):
    (tmp_path / "datasets").symlink_to(ROOT / "datasets")
    monkeypatch.chdir(tmp_path)
    code = _block("Ten lines")
    *body, last = code.strip().splitlines()
    assert "refused" in last
    scope: dict[str, object] = {}
    exec("\n".join(body), scope)  # the README's own code
    with pytest.raises(BudgetExceededError):
        exec(last, scope)
    assert {"map.gpkg", "map.html", "ledger.sqlite"} <= {p.name for p in tmp_path.iterdir()}
    history = Budget.open("ledger.sqlite", dataset="les-miserables").history
    assert [float(s.epsilon) for s in history] == [0.5]  # the refused release spent nothing


def test_the_readme_states_the_demos_real_spending():
    maps = len(_methods())
    assert (
        f"spends ε = {HEATMAP_EPSILON:g} on each of its {['', 'one', 'two', 'three'][maps]} maps"
        in README
    )
    assert f"{HEATMAP_EPSILON * maps:g} in all" in README
    assert f"ε = {TRIANGLE_EPSILON:g} on the Les Misérables triangle count" in README
