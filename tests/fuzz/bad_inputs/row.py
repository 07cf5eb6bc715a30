"""One row of the bad-input table, and the public inputs the rows share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from dpatlas import spatial as sp

CRS = "EPSG:3035"
GRID = sp.Grid.from_bounds((0, 0, 1_000, 1_000), cell_size=100, crs=CRS)
XY = (np.array([50.0, 450.0]), np.array([50.0, 950.0]))
K4 = nx.complete_graph(4)


@dataclass(frozen=True)
class Row:
    """One bad input: how to call it (given a scratch directory), and what must come back."""

    input: str
    entry: str
    call: Callable[[Path], Any]
    outcome: type[BaseException] | type[Warning] | str
    match: str
