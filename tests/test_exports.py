"""What ``import dpatlas as dpa`` offers a notebook: every documented name, found by tab."""

from __future__ import annotations

from tests.helpers.python import run_python


def test_the_subpackages_are_attributes_and_tab_completion_lists_them():
    """``dpa.plot`` was an AttributeError (only audit, graph and spatial were loaded on use),
    and ``dir(dpa)``, which tab completion reads, listed none of the subpackages."""
    code = (
        "import dpatlas as dpa, sys; "
        "assert {'audit', 'graph', 'plot', 'spatial'} <= set(dir(dpa)), dir(dpa); "
        "assert set(dpa.__all__) <= set(dir(dpa)); "
        "assert 'matplotlib' not in sys.modules; "
        "assert dpa.plot.plot_heatmaps.__module__ == 'dpatlas.plot'"
    )
    run_python(code)
