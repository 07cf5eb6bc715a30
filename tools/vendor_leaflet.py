"""Vendor Leaflet into dpatlas: ``python tools/vendor_leaflet.py leaflet-1.9.4.tgz``.

The web map (:mod:`dpatlas.spatial.products.webmap`) inlines Leaflet's JavaScript and CSS so
that one HTML file shows the private layer without any network. This script takes the npm
registry's tarball (``npm pack leaflet@1.9.4``), checks its SHA-256 against the one recorded
below, and writes ``leaflet.js`` (without its source-map comment), ``leaflet.css`` (its three
images inlined as ``data:`` URIs, so the page never asks for a file) and Leaflet's BSD-2-Clause
``LICENSE`` to ``src/dpatlas/spatial/products/render/_leaflet/``.
"""

from __future__ import annotations

import base64
import hashlib
import sys
import tarfile
from pathlib import Path

VERSION = "1.9.4"
SHA256 = "84c65a256e50657896f54c33bd857b6849ebe94c817803be818bf32a3dde0b77"
TARGET = (
    Path(__file__).resolve().parents[1]
    / "src"
    / "dpatlas"
    / "spatial"
    / "products"
    / "render"
    / "_leaflet"
)
IMAGES = ("layers.png", "layers-2x.png", "marker-icon.png")


def main(tarball: str) -> None:
    """Check the tarball, then write the three files."""
    data = Path(tarball).read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != SHA256:
        raise SystemExit(f"{tarball}: sha256 {digest}, expected {SHA256} (leaflet {VERSION})")
    with tarfile.open(tarball) as tar:

        def read(name: str) -> bytes:
            member = tar.extractfile(f"package/{name}")
            assert member is not None, name
            return member.read()

        js = read("dist/leaflet.js").decode()
        css = read("dist/leaflet.css").decode()
        for image in IMAGES:
            uri = "data:image/png;base64," + base64.b64encode(read(f"dist/images/{image}")).decode()
            css = css.replace(f"url(images/{image})", f"url({uri})")
        licence = read("LICENSE").decode()
    js = js.replace("\n//# sourceMappingURL=leaflet.js.map", "\n")
    TARGET.mkdir(parents=True, exist_ok=True)
    (TARGET / "leaflet.js").write_text(js, encoding="utf-8")
    (TARGET / "leaflet.css").write_text(css, encoding="utf-8")
    (TARGET / "LICENSE").write_text(licence, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
