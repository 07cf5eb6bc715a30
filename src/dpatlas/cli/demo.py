"""``dpatlas demo``: a private heatmap and a private triangle count of the embedded public data.

The demo reads the two datasets of ``datasets/`` in a clone of the repository (Snow's 1854
cholera deaths, one point per death; the Les Misérables co-occurrence graph, 77 nodes), opens a
fresh budget ledger in the output folder, releases a heatmap per available method and one
triangle count with its 95% interval, shows that a release beyond the budget is refused, and
writes every file into one folder. Because the data is public, the exact answers are shown beside the private ones;
with sensitive data they never are.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpatlas.cli._common import SEED_NOTE, Debit, Output, add_command, add_seed
from dpatlas.cli.progress import Steps, show_progress
from dpatlas.core.accounting.budget import Budget
from dpatlas.core.files import written_whole
from dpatlas.core.rng import RngLike
from dpatlas.errors import BudgetExceededError

__all__ = ["DemoResult", "add_parser", "find_data", "run_demo"]

SNOW = "snow-cholera-deaths-1854.gpkg"
LESMIS = "les-miserables.txt"
SNOW_DATASET, GRAPH_DATASET = "snow-cholera-deaths-1854", "les-miserables"
HEATMAP_EPSILON, CELL_SIZE, CRS = 0.5, 50.0, "EPSG:27700"
TRIANGLE_EPSILON, GRAPH_NODES = 1.0, 77
INTERVAL_EPSILON = 0.1
"""Of ``TRIANGLE_EPSILON``, the share that buys the triangle count's 95% interval (the private
bound on its noise size): a researcher reads the error bar, so the demo shows one."""
PUBLIC_NOTE = "shown only because this demo data is public; never shown for sensitive data"


@dataclass
class DemoResult:
    """What the demo wrote and spent."""

    out_dir: Path
    ledger: Path
    files: dict[str, Path] = field(default_factory=dict)
    spent: dict[str, float] = field(default_factory=dict)
    refused: str = ""
    written: list[Path] = field(default_factory=list, repr=False)
    """Every file written so far, in order (the shell's ``Output.files``)."""

    def wrote(self, *paths: Path) -> None:
        """Note files once they are whole."""
        self.files.update({path.name: path for path in paths})
        self.written.extend(paths)


def find_data(data_dir: str | Path | None = None) -> Path:
    """The folder holding the demo data: ``data_dir``, or ``datasets/`` of this clone.

    Examples
    --------
    >>> find_data().name
    'datasets'
    >>> find_data("/nowhere")
    Traceback (most recent call last):
    ...
    FileNotFoundError: demo data (snow-cholera-deaths-1854.gpkg, les-miserables.txt) not found in /nowhere; ...
    """
    candidates = (
        [Path(data_dir)]
        if data_dir is not None
        else [Path(__file__).resolve().parents[3] / "datasets", Path.cwd() / "datasets"]
    )
    for folder in candidates:
        if (folder / SNOW).is_file() and (folder / LESMIS).is_file():
            return folder
    raise FileNotFoundError(
        f"demo data ({SNOW}, {LESMIS}) not found in {', '.join(map(str, candidates))}; run the "
        "demo from a clone of dpatlas (the data is not in the wheel) or pass --data DIR"
    )


def _methods() -> list[str]:
    from dpatlas.spatial import METHODS

    return ["uniform"] + [m for m in ("adaptive", "privtree") if m in METHODS]


def _heatmaps(data: Path, out: Path, budget: Budget, rng: RngLike, result: DemoResult) -> list[str]:
    import geopandas as gpd

    from dpatlas.plot import plot_heatmaps, save_figure
    from dpatlas.spatial import Grid, heatmap

    deaths = gpd.read_file(data / SNOW, layer="deaths")
    streets = gpd.read_file(data / SNOW, layer="streets")
    pumps = gpd.read_file(data / SNOW, layer="pumps")
    grid = Grid.from_bounds(tuple(streets.total_bounds), cell_size=CELL_SIZE, crs=CRS)
    lines, maps = [], []
    for method in _methods():
        hm = heatmap(deaths, grid, epsilon=HEATMAP_EPSILON, method=method, budget=budget, rng=rng)
        hm = hm.nonnegative()
        name = "heatmap" if method == "uniform" else f"heatmap-{method}"
        context = {"streets": streets, "pumps": pumps}
        written = []
        for suffix in (".png", ".gpkg", ".html"):  # one release, three products
            kwargs = {} if suffix == ".gpkg" else {"context": context}
            written.append(hm.to_file(out / f"{name}{suffix}", **kwargs))
            result.wrote(written[-1])  # noted at once: a later failure still lists it
        budget.record_products(budget.made_here[-1], written)
        maps.append(hm)
        total = max(round(float(hm.release.value.sum())), 0)  # the release's own total
        lines.append(
            f"  {method:<9} epsilon={HEATMAP_EPSILON:g}  {hm.release.mechanism:<18} noisy total "
            f"{total} deaths (exact {len(deaths)})"
        )
    if len(maps) > 1:
        fig = plot_heatmaps(maps, _methods(), outlines=[streets, pumps])
        result.wrote(save_figure(fig, out / "heatmaps-compared.png"))
    return lines


def _triangles(
    data: Path, out: Path, budget: Budget, rng: RngLike, result: DemoResult
) -> list[str]:
    from dpatlas.cli.graph.report import release_interval, report
    from dpatlas.cli.graph.statistics import STATISTICS
    from dpatlas.graph import read_edgelist, triangle_count
    from dpatlas.graph.exact.counting import triangle_count_exact

    graph = read_edgelist(data / LESMIS, n=GRAPH_NODES)
    release = triangle_count(
        graph,
        epsilon=TRIANGLE_EPSILON - INTERVAL_EPSILON,
        interval_epsilon=INTERVAL_EPSILON,
        method="piecewise",
        budget=budget,
        rng=rng,
    )
    exact = triangle_count_exact(graph)
    source = "Les Misérables (77 characters)"
    lines = report(release, STATISTICS["triangles"], exact=exact, source=source)
    _write_text(out / "triangles.txt", "\n".join(lines) + "\n")
    result.wrote(out / "triangles.txt")
    interval = release_interval(release)
    payload = {
        "value": release.value,
        "interval95": None if interval is None else list(interval),
        "epsilon": release.epsilon,
        "delta": release.delta,
        "mechanism": release.mechanism,
        "seeded": release.seeded,
        "exact_value": exact,
        "exact_value_note": PUBLIC_NOTE,
        "release": release.to_dict(),
    }
    _write_text(out / "triangles.json", json.dumps(payload, indent=2, default=str) + "\n")
    result.wrote(out / "triangles.json")
    budget.record_products(budget.made_here[-1], [out / "triangles.txt", out / "triangles.json"])
    try:
        triangle_count(graph, epsilon=0.5, budget=budget, rng=rng)
    except BudgetExceededError as err:
        result.refused = str(err)
    return lines


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``, swapped in whole: a failure leaves the file of an
    earlier run as it was."""
    with written_whole(path) as partial:
        partial.write_text(text, encoding="utf-8")


def _ledger_lines(budgets: dict[str, Budget]) -> list[str]:
    lines = []
    for name, budget in budgets.items():
        spent, left = budget.spent, budget.remaining
        lines.append(
            f"  {name:<26} total epsilon={budget.total.epsilon:g}  spent={spent.epsilon:g}  "
            f"remaining={left.epsilon:g}  ({len(budget.history)} release(s))"
        )
    return lines


def _check_demo_ledger(ledger: Path) -> None:
    """Refuse to start afresh over a ``ledger`` that is not an earlier demo's: deleting another
    dataset's ledger would lose its spends, and the budget would start again from nothing.

    Examples
    --------
    >>> import tempfile
    >>> ledger = Path(tempfile.mkdtemp()) / "ledger.sqlite"
    >>> _ = Budget.open(ledger, dataset="nests", epsilon=1.0)
    >>> _check_demo_ledger(ledger)
    Traceback (most recent call last):
    ...
    ValueError: ... holds the budget of 'nests', not only the demo's; ... choose another --out folder
    """
    import sqlite3

    if not ledger.exists():
        return
    try:
        with closing(sqlite3.connect(f"{ledger.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            names = {row[0] for row in conn.execute("SELECT dataset FROM datasets")}
    except sqlite3.Error:
        raise ValueError(
            f"{ledger} is not a dpatlas ledger, and the demo would replace it with its own; "
            "choose another --out folder"
        ) from None
    others = sorted(names - {SNOW_DATASET, GRAPH_DATASET})
    if others:
        raise ValueError(
            f"{ledger} holds the budget of {', '.join(map(repr, others))}, not only the demo's; "
            "the demo starts its ledger afresh and would delete those spends: choose another "
            "--out folder"
        )


def run_demo(
    out_dir: str | Path = "demo-output",
    *,
    data_dir: str | Path | None = None,
    rng: RngLike = None,
    progress: bool = False,
    echo: Callable[[str], Any] = print,
    track: Output | None = None,
) -> DemoResult:
    """Run the demo into ``out_dir`` (its ledger is started afresh) and print a summary.

    ``track`` (the shell's :class:`~dpatlas.cli._common.Output`) is told the demo's ledger
    budgets once they are opened and each file once it is written, so that a step that fails
    after a debit says what stays debited (exit code 3).

    Examples
    --------
    >>> import tempfile, matplotlib
    >>> matplotlib.use("Agg")
    >>> r = run_demo(tempfile.mkdtemp(), rng=0, echo=lambda line: None)
    >>> sorted(r.files)[-2:], r.spent["les-miserables"]
    (['triangles.json', 'triangles.txt'], 1.0)
    >>> import shutil; shutil.rmtree(r.out_dir)
    """
    data = find_data(data_dir)
    out = Path(out_dir)
    ledger = out / "ledger.sqlite"
    _check_demo_ledger(ledger)
    out.mkdir(parents=True, exist_ok=True)
    ledger.unlink(missing_ok=True)
    result = DemoResult(out_dir=out, ledger=ledger)
    if track is not None:
        result.written = track.files
    n_maps = len(_methods())
    budgets = {
        SNOW_DATASET: Budget.open(ledger, dataset=SNOW_DATASET, epsilon=HEATMAP_EPSILON * n_maps),
        GRAPH_DATASET: Budget.open(ledger, dataset=GRAPH_DATASET, epsilon=TRIANGLE_EPSILON),
    }
    if track is not None:
        track.debits.extend(Debit(b, ledger, name) for name, b in budgets.items())
    with Steps(["heatmaps", "triangles"], enabled=progress, desc="demo") as bar:
        with bar.step("private heatmaps of Snow's cholera deaths"):
            map_lines = _heatmaps(data, out, budgets[SNOW_DATASET], rng, result)
        with bar.step("private triangle count of Les Misérables"):
            tri_lines = _triangles(data, out, budgets[GRAPH_DATASET], rng, result)
    result.spent = {name: b.spent.epsilon for name, b in budgets.items()}
    echo(f"Private heatmaps of Snow's 1854 cholera deaths ({CELL_SIZE:g} m cells, {CRS}; exact")
    echo(f"values {PUBLIC_NOTE}):")
    for line in map_lines:
        echo(line)
    echo("")
    for line in tri_lines:
        echo(line)
    echo("")
    echo(f"A further triangle release (epsilon=0.5) was refused: {result.refused}")
    echo("")
    echo(f"Privacy budget spent (ledger {ledger}):")
    for line in _ledger_lines(budgets):
        echo(line)
    if rng is not None:
        echo("Seeded run: the noise is reproducible and NOT secret (teaching only).")
    echo("")
    echo(f"Files written to {out}/:")
    for name in sorted(result.files):
        echo(f"  {name}")
    echo(f"  {ledger.name}  (inspect: dpatlas budget history {ledger} --dataset {GRAPH_DATASET})")
    return result


_EPILOG = """\
examples:
  dpatlas demo                      writes demo-output/
  dpatlas demo --out /tmp/demo --seed 1

Writes private heatmaps of Snow's 1854 cholera deaths (each as a PNG with ε and the
mechanism in the caption, a GeoPackage and a self-contained web map), a private
triangle count of the Les Misérables graph (text and JSON), and a budget ledger
(SQLite, with the files each release wrote), then prints the budget spent: ε = 0.5 per
map and 1 on the triangles. The demo data is public, so the exact answers are shown
beside the private ones.
"""


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register ``demo``."""
    p = add_command(
        sub,
        "demo",
        help="run the demo on the embedded public data",
        description="Private heatmap and triangle count of the embedded public data.",
        parents=parents,
        epilog=_EPILOG,
    )
    p.add_argument("--out", type=Path, default=Path("demo-output"), help="output folder")
    p.add_argument("--data", type=Path, help="folder with the demo data (default: datasets/)")
    add_seed(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    """Run ``dpatlas demo``."""
    import matplotlib

    matplotlib.use("Agg")
    result = run_demo(
        args.out,
        data_dir=args.data,
        rng=args.seed,
        progress=show_progress(args.quiet),
        echo=out.line,
        track=out,
    )
    out.payload.update(
        {
            "command": "demo",
            "out": str(result.out_dir),
            "files": {name: str(path) for name, path in sorted(result.files.items())},
            "ledger": str(result.ledger),
            "spent_epsilon": result.spent,
            "refused": result.refused,
        }
    )
    if args.seed is not None:
        out.note(SEED_NOTE)
    return 0
