"""Progress bars: drawn on a terminal, silent otherwise."""

from __future__ import annotations

import io

from dpatlas.cli.progress import Steps, show_progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_show_progress_only_on_a_terminal_and_not_quiet():
    assert show_progress(False, _Terminal())
    assert not show_progress(True, _Terminal())
    assert not show_progress(False, io.StringIO())


def test_enabled_bar_names_steps_and_counts_them(capsys):
    with Steps(["read", "release"], enabled=True, desc="demo") as bar:
        with bar.step("reading edges.txt"):
            pass
        with bar.step("drawing noise"):
            assert list(bar.iterate(range(3), "repetitions")) == [0, 1, 2]
    err = capsys.readouterr().err
    assert "demo: reading edges.txt" in err
    assert "demo: drawing noise" in err
    assert "0/2 steps" in err
    assert bar.done == 2


def test_disabled_bar_prints_nothing(capsys):
    with Steps(["read"], enabled=False) as bar, bar.step("reading"):
        pass
    assert capsys.readouterr().err == ""
    assert bar.done == 1
