"""File formats behind :mod:`~dpatlas.spatial.products.export`: the public facts every file
states (:mod:`.facts`) and the GeoTIFF writer (:mod:`.geotiff`). Post-processing only.
"""
