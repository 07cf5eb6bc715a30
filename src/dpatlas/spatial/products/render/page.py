"""The web map's page: its HTML template, style and script, and the vendored Leaflet.

Text not written by dpatlas (the title, context-layer names, column and flag names, values)
reaches the page as text: the script sets the title as ``textContent`` and escapes names and
values (``esc``) where Leaflet or the tooltip take HTML; the caption arrives escaped.

Leaflet 1.9.4 (BSD-2-Clause, vendored from the npm registry by ``tools/vendor_leaflet.py``, its
licence in ``_leaflet/LICENSE``) is inlined into every page, so the page needs no network.
"""

from __future__ import annotations

from importlib.resources import files

__all__ = ["SCRIPT", "STYLE", "TEMPLATE", "asset"]


def asset(name: str) -> str:
    """The text of a vendored Leaflet file (``leaflet.js``, ``leaflet.css``)."""
    return (files("dpatlas.spatial.products.render") / "_leaflet" / name).read_text(
        encoding="utf-8"
    )


STYLE = """
html, body { height: 100%; margin: 0; font: 13px/1.35 system-ui, sans-serif; }
#map { position: absolute; top: 0; bottom: 0; width: 100%; background: #f2f2ef; }
.dpatlas-box { background: rgba(255, 255, 255, 0.92); padding: 6px 9px; border-radius: 4px;
  box-shadow: 0 1px 4px rgba(0, 0, 0, 0.3); }
.dpatlas-title { font-size: 15px; font-weight: 600; }
.dpatlas-caption { max-width: 440px; font-size: 12px; }
.dpatlas-bar { width: 220px; height: 12px; margin: 4px 0 2px; border: 1px solid #555; }
.dpatlas-ticks { display: flex; justify-content: space-between; width: 222px; font-size: 11px; }
.dpatlas-swatch { display: inline-block; width: 12px; height: 12px; background: #9e9e9e;
  vertical-align: middle; margin-right: 4px; border: 1px solid #555; }
.dpatlas-tooltip table td { padding: 0 4px; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("dpatlas-data").textContent);
  var map = L.map("map", {preferCanvas: data.canvas, zoomSnap: 0.25});
  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
                       .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  function fmt(v) {
    if (v === null || v === undefined) { return "–"; }
    if (typeof v === "boolean") { return v ? "yes" : "no"; }
    if (typeof v !== "number") { return String(v); }
    return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
  }
  function tip(p) {
    var head = p.row !== undefined ? "cell row " + p.row + ", column " + p.col
             : p.leaf !== undefined ? "leaf " + p.leaf : "";
    var rows = ["<b>" + esc(head) + "</b>"];
    data.fields.forEach(function (f) {
      var keys = f[0];
      var text = keys.length === 2 ? "[" + fmt(p[keys[0]]) + ", " + fmt(p[keys[1]]) + "]"
                                   : fmt(p[keys[0]]);
      rows.push("<tr><td>" + esc(f[1]) + "</td><td>" + esc(text) + "</td></tr>");
    });
    return rows[0] + "<table>" + rows.slice(1).join("") + "</table>";
  }
  var cells = L.geoJSON(data.cells, {
    style: function (f) {
      return {fillColor: f.properties._fill, fillOpacity: 0.8, color: "#444", weight: 0.4,
              className: "dpatlas-cell"};
    },
    onEachFeature: function (f, layer) {
      layer.bindTooltip(tip(f.properties), {sticky: true, className: "dpatlas-tooltip"});
    }
  }).addTo(map);
  var overlays = {"private estimate": cells};
  data.context.forEach(function (c) {
    var layer = L.geoJSON(c.geojson, {
      interactive: false,
      style: {color: "#222", weight: 1.2, opacity: 0.8, fill: false},
      pointToLayer: function (f, latlng) {
        return L.circleMarker(latlng, {radius: 3, color: "#111", weight: 1, fillColor: "#fff",
                                       fillOpacity: 1, interactive: false});
      }
    }).addTo(map);
    overlays[esc(c.name)] = layer;  // Leaflet's layer control writes names as HTML
  });
  var bases = {};
  if (data.tiles) {
    bases[data.tiles.name] = L.tileLayer(data.tiles.url, {
      attribution: data.tiles.attribution, maxZoom: 19
    }).addTo(map);
  }
  L.control.layers(bases, overlays, {collapsed: false}).addTo(map);
  L.control.scale({imperial: false}).addTo(map);
  function box(position, extra) {
    var div = L.DomUtil.create("div", "dpatlas-box " + extra);
    L.DomEvent.disableClickPropagation(div);
    var control = L.control({position: position});
    control.onAdd = function () { return div; };
    control.addTo(map);
    return div;
  }
  box("topleft", "dpatlas-title").textContent = document.title;
  var lg = data.legend;
  var legend = "<div>" + lg.label + "</div>" +
    "<div class='dpatlas-bar' style='background: linear-gradient(to right, " +
    lg.stops.join(", ") + ")'></div><div class='dpatlas-ticks'>" +
    lg.ticks.map(function (t) { return "<span>" + fmt(t) + "</span>"; }).join("") + "</div>";
  if (data.suppressed) {
    legend += "<div><span class='dpatlas-swatch'></span>suppressed (noisy count below the threshold)</div>";
  }
  box("bottomright", "dpatlas-legend").innerHTML = legend;
  box("bottomleft", "dpatlas-caption").innerHTML = data.caption;
  map.fitBounds(cells.getBounds(), {padding: [10, 10]});
  window.dpatlas = {map: map, cells: cells, drawn: cells.getLayers().length};
})();
"""

TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{leaflet_css}</style>
<style>{style}</style>
</head>
<body>
<div id="map"></div>
<script>{leaflet_js}</script>
<script type="application/json" id="dpatlas-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
