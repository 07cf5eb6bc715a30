"""The public grid of ``dpatlas heatmap``, checked in the shell's words before anything is spent.

Every check here reads public inputs only (the extent or study area, the cell size, the CRS):
a swapped ``--extent`` in degrees, a geographic ``--crs``, an extent smaller than one cell and
a grid of one cell are usage errors (exit code 2) raised before the ledger is opened. A CRS
suggestion comes from the study area's location (its centre's UTM zone), never from the sites.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dpatlas.cli._common import UsageError, check_input_file

__all__ = ["check_lonlat", "parse_crs", "study_area_grid", "suggest_crs"]


def suggest_crs(lon: float, lat: float, span: float = 0.0) -> str:
    """A projected CRS in metres for an area centred at ``(lon, lat)`` and ``span`` degrees wide.

    The UTM zone of the centre (WGS 84, EPSG:326zz north, 327zz south) for areas up to a few
    degrees across; the global equal-area EASE-Grid 2.0 (EPSG:6933) for wider ones.

    Examples
    --------
    >>> suggest_crs(116.4, 39.9)   # Beijing
    'EPSG:32650'
    >>> suggest_crs(-90.9, -0.6)   # Galápagos
    'EPSG:32715'
    >>> suggest_crs(10.0, 50.0, span=40.0)
    'EPSG:6933'
    """
    if span > 12:
        return "EPSG:6933"
    zone = min(int((lon + 180) // 6) + 1, 60)
    return f"EPSG:{(32600 if lat >= 0 else 32700) + zone}"


def _crs_hint(lonlat_bounds: tuple[float, float, float, float] | None) -> str:
    from pyproj import CRS

    if lonlat_bounds is None:
        return "a projected CRS in metres (e.g. the UTM zone of the study area)"
    west, south, east, north = lonlat_bounds
    lon, lat = (west + east) / 2, (south + north) / 2
    code = suggest_crs(lon, lat, max(east - west, north - south))
    where = f"{abs(lon):.1f}°{'E' if lon >= 0 else 'W'} {abs(lat):.1f}°{'N' if lat >= 0 else 'S'}"
    return f"--crs {code} ({CRS.from_user_input(code).name}, for the study area around {where})"


def check_lonlat(bounds: tuple[float, float, float, float], flag: str = "--extent") -> None:
    """Refuse longitudes / latitudes out of range, suggesting the swap that fixes them.

    Examples
    --------
    >>> check_lonlat((39.8, 116.2, 40.1, 116.6))
    Traceback (most recent call last):
    ...
    dpatlas.cli._common.UsageError: --extent: latitude 116.2 is out of range [-90, 90]: are ...
    try --extent 116.2,39.8,116.6,40.1
    """
    west, south, east, north = bounds
    bad = [("latitude", v, 90) for v in (south, north) if abs(v) > 90]
    bad += [("longitude", v, 180) for v in (west, east) if abs(v) > 180]
    if not bad:
        return
    what, value, limit = bad[0]
    message = f"{flag}: {what} {value:g} is out of range [-{limit}, {limit}]"
    if all(abs(v) <= 90 for v in (west, east)) and all(abs(v) <= 180 for v in (south, north)):
        swapped = ",".join(f"{v:g}" for v in (south, west, north, east))
        message += (
            f": are x and y swapped? In degrees {flag} is WEST,SOUTH,EAST,NORTH (longitudes "
            f"first): try {flag} {swapped}"
        )
    else:
        message += ": are these metres? then give their CRS with --extent-crs"
    raise UsageError(message)


def _bounds(text: str) -> tuple[float, float, float, float]:
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 4:
        raise UsageError(f"--extent must be MINX,MINY,MAXX,MAXY (4 numbers), got {text!r}")
    minx, miny, maxx, maxy = values
    if not (minx < maxx and miny < maxy):
        raise UsageError(f"--extent must have MINX < MAXX and MINY < MAXY, got {text!r}")
    return minx, miny, maxx, maxy


def parse_crs(text: str, flag: str) -> Any:
    """``text`` as a pyproj CRS, or a usage error naming ``flag``.

    Examples
    --------
    >>> parse_crs("EPSG:3035", "--crs").to_epsg()
    3035
    >>> parse_crs("garbage", "--points-crs")
    Traceback (most recent call last):
    ...
    dpatlas.cli._common.UsageError: --points-crs 'garbage' is not a CRS; give e.g. EPSG:3035
    """
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    try:
        return CRS.from_user_input(text)
    except CRSError:
        raise UsageError(f"{flag} {text!r} is not a CRS; give e.g. EPSG:3035") from None


def _lonlat(
    bounds: tuple[float, float, float, float], crs: Any
) -> tuple[float, float, float, float] | None:
    """``bounds`` (in ``crs``) as west, south, east, north in degrees, if they transform."""
    from pyproj import Transformer

    try:
        to_wgs84 = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
        west, south, east, north = to_wgs84.transform_bounds(*bounds)
        return west, south, east, north
    except Exception:
        return None


def _check_size(
    grid: Any, cell_size: float, shown: tuple[float, ...], crs: Any, lonlat: bool
) -> None:
    width, height = shown[2] - shown[0], shown[3] - shown[1]
    if width < cell_size or height < cell_size:
        hint = "use a smaller --cell-size, or a larger study area"
        if lonlat:
            hint = (
                "these look like degrees: add --extent-crs EPSG:4326 (the grid is in --crs, in "
                "metres)"
            )
        raise UsageError(
            f"the study area is {width:.4g} x {height:.4g} m in {crs.to_string()}, smaller than "
            f"one {cell_size:g} m cell; {hint}"
        )
    if grid.nx * grid.ny == 1:
        raise UsageError(
            f"a grid of 1 x 1 cell of {cell_size:g} m releases only the noisy total; use a "
            "smaller --cell-size (a map needs several cells)"
        )


def study_area_grid(
    *,
    extent: str | None,
    study_area: Path | None,
    cell_size: float,
    crs: str,
    extent_crs: str | None = None,
    layer: str | None = None,
) -> tuple[Any, Any]:
    """The public grid and the study-area outline (a GeoSeries in the grid CRS), checked.

    Raises :class:`UsageError` (exit code 2) for every mistake found in the public inputs.
    """
    import geopandas as gpd
    from shapely.geometry import box

    from dpatlas.spatial import Grid
    from dpatlas.spatial._checks import crs_kind
    from dpatlas.spatial._mask import to_crs_densified
    from dpatlas.spatial.io import read_vector

    grid_crs = parse_crs(crs, "--crs")
    if study_area is None:
        assert extent is not None
        bounds = _bounds(extent)
        given = grid_crs if extent_crs is None else parse_crs(extent_crs, "--extent-crs")
        if given.is_geographic:
            check_lonlat(bounds)
        outline = gpd.GeoSeries([box(*bounds)], crs=given)
    else:
        check_input_file("--study-area", study_area, "the study area's vector file")
        area = read_vector(study_area, layer=layer, what="--study-area")
        if area.crs is None:
            raise UsageError(
                f"--study-area {study_area} has no CRS; set one (e.g. with ogr2ogr -a_srs)"
            )
        if area.crs.is_geographic:
            check_lonlat(tuple(area.total_bounds), "--study-area")
        outline = area.geometry
    lonlat = _lonlat(tuple(outline.total_bounds), outline.crs)
    units = {axis.unit_name for axis in grid_crs.axis_info}
    if grid_crs.is_geographic or not grid_crs.is_projected or not units <= {"metre", "meter"}:
        raise UsageError(
            f"--crs {crs} is {crs_kind(grid_crs)}, but cells are measured in metres: use "
            f"{_crs_hint(lonlat)}, or an equal-area CRS of the region"
        )
    outline = to_crs_densified(outline, grid_crs)  # long edges stay curves, not chords
    shown = tuple(outline.total_bounds)
    looks_like_degrees = (
        extent is not None
        and extent_crs is None
        and all(abs(v) <= 180 for v in shown)
        and max(shown[2] - shown[0], shown[3] - shown[1]) < cell_size
    )
    polygons = study_area is None or outline.geom_type.isin(["Polygon", "MultiPolygon"]).all()
    if (study_area is None and extent_crs is None) or not polygons:
        grid = Grid.from_bounds(shown, cell_size=cell_size, crs=grid_crs)
    else:
        grid = Grid.from_polygon(outline, cell_size=cell_size, crs=grid_crs)
    _check_size(grid, cell_size, shown, grid_crs, looks_like_degrees)
    return grid, outline
