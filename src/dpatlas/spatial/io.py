"""Readers of site files: GeoPackage / GeoJSON, CSV with lon/lat, GBIF occurrence downloads.

Readers return a GeoDataFrame of points. Counts they record in ``gdf.attrs["dpatlas"]`` (such as
rows dropped for lack of coordinates) describe the input file: for a public download such as a
GBIF export they are public; for a private file they are not to be published.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
from pyproj import CRS

from dpatlas.core.validation import check_character, check_encoding

__all__ = ["read_csv_points", "read_gbif", "read_sites", "read_vector"]

LON_NAMES = ("decimallongitude", "longitude", "lon", "long", "lng", "x")
LAT_NAMES = ("decimallatitude", "latitude", "lat", "y")


def _detect(columns: pd.Index, given: str | int | None, names: tuple[str, ...], what: str) -> Any:
    if isinstance(given, int) and not isinstance(given, bool) and given not in columns:
        if not 0 <= given < len(columns):
            raise ValueError(
                f"{what}={given} is not a column position: the file has {len(columns)} columns "
                f"(positions 0 to {len(columns) - 1})"
            )
        return columns[given]
    if given is not None:
        if given not in columns:
            raise ValueError(f"{what}={given!r} is not a column; columns are {list(columns)[:20]}")
        return given
    label = {"lon": "longitude", "lat": "latitude"}[what]
    for name in names:
        found = [c for c in columns if str(c).strip().lower() == name]
        if len(found) == 1:
            return found[0]
        if found:
            raise ValueError(
                f"{len(found)} columns could be the {label}: {found}; name one with {what}="
            )
    marks = [mark for mark in (";", "\t", "|") if len(columns) == 1 and mark in str(columns[0])]
    if marks:
        raise ValueError(
            f"no {label} column found: the header {str(columns[0])[:60]!r} is one column "
            f"holding {marks[0]!r}; pass sep={marks[0]!r}"
        )
    if len(columns) and 2 * sum(_is_number(c) for c in columns) >= len(columns):
        raise ValueError(
            f"no {label} column found: the first line ({', '.join(map(str, columns[:6]))}) looks "
            f"like data, not a header; pass header=None and the columns' positions as lon= and "
            "lat= (0-based)"
        )
    raise ValueError(
        f"no {label} column found among {list(columns)[:20]}; name it with {what}= "
        f"(detected names: {', '.join(names)})"
    )


def _is_number(text: Any) -> bool:
    try:
        float(str(text))
    except ValueError:
        return False
    return True


def _is_nan(text: str) -> bool:
    """Whether ``text`` spells NaN (``nan``, ``-NaN``): a missing value, not an unread number."""
    try:
        return bool(np.isnan(float(text)))
    except ValueError:
        return False


def _shown(value: Any) -> str:
    """A CSV cell for a message: ``'abc'``, ``nan`` or ``51.5``, never ``np.float64(51.5)``."""
    return repr(value) if isinstance(value, str) else str(value)


_DECIMAL_COMMA = re.compile(r"\s*[-+]?\d*,\d+\s*")
_THOUSANDS = re.compile(r"\s*[-+]?\d{1,3},\d{3}\s*")


def _numbers(frame: pd.DataFrame, column: Any) -> np.ndarray:
    """The column as floats; a value that is text, not a number nor missing, is refused.

    Missing values (empty cells, NA, NaN) become NaN, for ``dropna`` to drop; text such as
    ``51,5`` or ``51°30'N`` is never taken for missing (dropping it would drop every row of a
    file written with decimal commas).
    """
    raw = frame[column]
    values = pd.to_numeric(raw, errors="coerce")
    unread = np.flatnonzero(values.isna().to_numpy() & raw.notna().to_numpy())
    for i in unread:
        text = str(raw.iloc[i])
        if not _is_nan(text):  # "1_000" and "٣" too: float() reads them, pandas does not
            hint = (
                "correct or delete that row (empty cells, NA and NaN are read as missing)"
                if not _DECIMAL_COMMA.fullmatch(text)
                else "the file writes decimal commas: pass decimal=','"
                if not _THOUSANDS.fullmatch(text)
                else f"pass decimal=',' if the comma is a decimal mark ({text.strip()} reads as "
                f"{text.strip().replace(',', '.')}), or thousands=',' if it separates thousands "
                f"(it reads as {text.strip().replace(',', '')})"
            )
            raise ValueError(
                f"data row {i + 1}, column {column!r}: {text!r} is not a number; {hint}"
            )
    return values.to_numpy(dtype=np.float64)


def _points(
    frame: pd.DataFrame, lon: str, lat: str, crs: Any, dropna: bool
) -> tuple[gpd.GeoDataFrame, int]:
    x, y = _numbers(frame, lon), _numbers(frame, lat)
    present = np.isfinite(x) & np.isfinite(y)
    if not present.all() and not dropna:
        first = int(np.argmax(~present))
        raise ValueError(
            f"data row {first + 1} has no usable coordinates (column {lon!r}: "
            f"{_shown(frame[lon].iloc[first])}, column {lat!r}: "
            f"{_shown(frame[lat].iloc[first])}); pass "
            "dropna=True to drop such rows"
        )
    frame, x, y = frame[present].reset_index(drop=True), x[present], y[present]
    geographic = crs is not None and CRS.from_user_input(crs).is_geographic
    if geographic and (np.any(np.abs(y) > 90) or np.any(np.abs(x) > 180)):
        raise ValueError(
            f"latitudes (column {lat!r}) must be in [-90, 90] and longitudes (column {lon!r}) in "
            f"[-180, 180] for {crs}; are the columns swapped, or are the coordinates projected "
            "(pass crs=)?"
        )
    gdf = gpd.GeoDataFrame(frame, geometry=gpd.points_from_xy(x, y), crs=crs)
    return gdf, int((~present).sum())


def read_csv_points(
    path: str | Path,
    *,
    lon: str | int | None = None,
    lat: str | int | None = None,
    crs: Any = "EPSG:4326",
    sep: str = ",",
    dropna: bool = False,
    **read_csv_kwargs: Any,
) -> gpd.GeoDataFrame:
    """Points from a CSV file with longitude / latitude (or x / y) columns.

    Columns are named by ``lon`` / ``lat`` (a name, or a 0-based position as an int) or
    detected from common names (case-insensitive): ``decimalLongitude``, ``longitude``,
    ``lon``, ``long``, ``lng``, ``x`` and ``decimalLatitude``, ``latitude``, ``lat``, ``y``.
    A file without a header line needs ``header=None`` (passed to :func:`pandas.read_csv`) and
    positions; a file with decimal commas needs ``decimal=","`` (and a ``sep`` such as ``";"``),
    one not in UTF-8 its ``encoding`` (such as ``"cp1252"``).
    Rows without usable coordinates (missing: empty, NA, NaN; or not finite) are an error unless
    ``dropna=True``, which drops them and records how many in
    ``gdf.attrs["dpatlas"]["rows_without_coordinates"]``. A coordinate that is text, not a
    number (``51,5``, ``51°30'N``), is always an error: it is not taken for a missing value.

    Examples
    --------
    >>> import io
    >>> gdf = read_csv_points(io.StringIO("id,Latitude,Longitude\\n1,-0.5,-90.5\\n"))
    >>> gdf.geometry.iloc[0].x, gdf.crs.to_epsg()
    (-90.5, 4326)
    >>> taxi = io.StringIO("1,2008-02-02 15:36:08,116.51172,39.92123\\n")
    >>> read_csv_points(taxi, header=None, lon=2, lat=3).geometry.iloc[0].y
    39.92123
    >>> read_csv_points(io.StringIO("lat;lon\\n51,5;-0,12\\n"), sep=";", dropna=True)
    Traceback (most recent call last):
    ...
    ValueError: data row 1, column 'lon': '-0,12' is not a number; the file writes decimal commas: pass decimal=','
    """
    if read_csv_kwargs.get("encoding") is not None:
        check_encoding(read_csv_kwargs["encoding"])
    if read_csv_kwargs.get("decimal") is not None:
        check_character(read_csv_kwargs["decimal"], "decimal", example="',' or '.'")
    try:
        frame = pd.read_csv(path, sep=sep, low_memory=False, **read_csv_kwargs)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path} is empty: no header line and no rows") from None
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start]
        utf16 = exc.start == 0 and byte in (0xFF, 0xFE)  # a UTF-16 byte-order mark
        raise ValueError(
            f"{path} is not {exc.encoding} text (it holds the byte 0x{byte:02x}); "
            f"pass its encoding, e.g. encoding='{'utf-16' if utf16 else 'cp1252'}'"
            + ("" if utf16 else " (Excel on Windows) or 'latin-1'")
        ) from None
    lon_col = _detect(frame.columns, lon, LON_NAMES, "lon")
    lat_col = _detect(frame.columns, lat, LAT_NAMES, "lat")
    gdf, dropped = _points(frame, lon_col, lat_col, crs, dropna)
    gdf.attrs["dpatlas"] = {"source": str(path), "rows_without_coordinates": dropped}
    return gdf


def read_gbif(path: str | Path, *, individual_column: str | None = None) -> gpd.GeoDataFrame:
    """Points (WGS 84) from a GBIF occurrence download (Darwin Core, tab-separated, gzip or not).

    Rows without ``decimalLatitude`` / ``decimalLongitude`` are dropped; their number is in
    ``gdf.attrs["dpatlas"]["rows_without_coordinates"]`` (a fact about the public download,
    not a private statistic). ``individual_column`` (e.g. ``"recordedBy"`` for one observer,
    ``"locality"`` for one site) is checked to exist; pass the same name to
    :func:`~dpatlas.spatial.heatmap` to bound each individual's contribution. All columns are
    read as text.

    Examples
    --------
    >>> import io
    >>> text = "gbifID\\tdecimalLatitude\\tdecimalLongitude\\trecordedBy\\n1\\t-0.3\\t-91.1\\tA\\n2\\t\\t\\tB\\n"
    >>> gdf = read_gbif(io.StringIO(text), individual_column="recordedBy")
    >>> len(gdf), gdf.attrs["dpatlas"]["rows_without_coordinates"]
    (1, 1)
    """
    frame = pd.read_csv(
        path, sep="\t", dtype=str, quoting=csv.QUOTE_NONE, low_memory=False, keep_default_na=False
    )
    frame = frame.replace("", np.nan)
    for column in ("decimalLatitude", "decimalLongitude"):
        if column not in frame.columns:
            raise ValueError(
                f"{column!r} is missing: is {str(path)!r} a GBIF (Darwin Core) download?"
            )
    if individual_column is not None and individual_column not in frame.columns:
        raise ValueError(
            f"individual_column={individual_column!r} is not a column of the download; "
            "e.g. 'recordedBy' (observer) or 'locality' (site)"
        )
    gdf, dropped = _points(frame, "decimalLongitude", "decimalLatitude", "EPSG:4326", True)
    gdf.attrs["dpatlas"] = {
        "source": str(path),
        "format": "GBIF occurrence download (Darwin Core, tab-separated)",
        "records": len(frame),
        "rows_without_coordinates": dropped,
        "individual_column": individual_column,
    }
    return gdf


def read_vector(
    path: str | Path, *, layer: str | None = None, what: str = "file"
) -> gpd.GeoDataFrame:
    """``geopandas.read_file`` with errors that name the file and the fix.

    A missing layer names the layers the file has; an empty, truncated or foreign file, or a
    table without geometries (a CSV), is a ``ValueError`` naming ``what`` and the path.

    Examples
    --------
    >>> import tempfile
    >>> bad = Path(tempfile.mkdtemp()) / "empty.gpkg"
    >>> _ = bad.write_bytes(b"")
    >>> read_vector(bad, what="--study-area")
    Traceback (most recent call last):
    ...
    ValueError: --study-area .../empty.gpkg cannot be read as a vector file (empty, truncated, ...)
    """
    from pyogrio import list_layers
    from pyogrio.errors import DataLayerError, DataSourceError

    try:
        frame = gpd.read_file(path, **({} if layer is None else {"layer": layer}))
    except DataLayerError:
        names = [str(name) for name in list_layers(path)[:, 0]]
        raise ValueError(f"{what} {path}: no layer {layer!r}; its layers are {names}") from None
    except DataSourceError:
        raise ValueError(
            f"{what} {path} cannot be read as a vector file (empty, truncated, or not a "
            "GeoPackage / GeoJSON / Shapefile)"
        ) from None
    if not isinstance(frame, gpd.GeoDataFrame):
        raise ValueError(
            f"{what} {path} has no geometries (a table such as a CSV?); give a GeoPackage, "
            "GeoJSON or Shapefile"
        )
    return frame


def read_sites(path: str | Path, **kwargs: Any) -> gpd.GeoDataFrame:
    """Read sites by file type: GeoPackage / GeoJSON / Shapefile via geopandas, CSV via
    :func:`read_csv_points` (``kwargs`` go to the reader).

    Examples
    --------
    >>> read_sites("sites.xlsx")
    Traceback (most recent call last):
    ...
    ValueError: cannot read 'sites.xlsx': use .gpkg, .geojson, .json, .shp, .csv or .tsv
    """
    suffixes = [s.lower() for s in Path(path).suffixes if s.lower() not in (".gz", ".zip")]
    kind = suffixes[-1] if suffixes else ""
    if kind in (".gpkg", ".geojson", ".json", ".shp"):
        return read_vector(path, **kwargs)
    if kind in (".csv", ".tsv"):
        if kind == ".tsv":
            kwargs.setdefault("sep", "\t")
        return read_csv_points(path, **kwargs)
    raise ValueError(f"cannot read {str(path)!r}: use .gpkg, .geojson, .json, .shp, .csv or .tsv")
