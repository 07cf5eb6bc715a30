"""Rebuild the embedded demo datasets (kept for provenance; the outputs are committed).

Needs the libpysal wheel's example data: ``pip download --no-deps libpysal==4.14.1`` and unzip
it; pass the unzipped folder as the first argument. Runs offline otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

import geopandas as gpd
import networkx as nx
import numpy as np
from shapely.geometry import Point

HERE = Path(__file__).resolve().parent


def build_snow(libpysal_dir: Path) -> None:
    src = libpysal_dir / "libpysal" / "examples" / "snow_maps"
    buildings = gpd.read_file(src / "SohoPeople.shp").to_crs("EPSG:27700")
    deaths = buildings.loc[buildings.index.repeat(buildings["Count"])].reset_index(drop=True)
    deaths["death_id"] = np.arange(len(deaths))
    deaths["building_id"] = buildings.index.repeat(buildings["Count"])
    deaths["geometry"] = [Point(round(g.x, 2), round(g.y, 2)) for g in deaths.geometry]
    out = HERE / "snow-cholera-deaths-1854.gpkg"
    deaths[["death_id", "building_id", "geometry"]].to_file(out, driver="GPKG", layer="deaths")
    for name, layer in (("SohoWater", "pumps"), ("Soho_Network", "streets")):
        gdf = gpd.read_file(src / f"{name}.shp").to_crs("EPSG:27700")[["geometry"]]
        gdf.to_file(out, driver="GPKG", layer=layer)


def build_les_miserables() -> None:
    graph = nx.les_miserables_graph()
    names = sorted(graph.nodes())
    index = {v: i for i, v in enumerate(names)}
    edges = sorted(tuple(sorted((index[a], index[b]))) for a, b in graph.edges())
    with open(HERE / "les-miserables.txt", "w") as f:
        f.write("# Les Miserables character co-occurrence network (Knuth, The Stanford GraphBase, 1993)\n")
        f.write(f"# Nodes: {graph.number_of_nodes()} Edges: {graph.number_of_edges()}\n")
        f.write("# FromNodeId\tToNodeId\n")
        f.writelines(f"{u}\t{v}\n" for u, v in edges)
    with open(HERE / "les-miserables-names.txt", "w") as f:
        f.write("# node id\tcharacter\n")
        f.writelines(f"{i}\t{n}\n" for i, n in enumerate(names))


if __name__ == "__main__":
    build_snow(Path(sys.argv[1]))
    build_les_miserables()
