"""Drawing machinery behind :mod:`~dpatlas.spatial.products.plot` (matplotlib maps) and
:mod:`~dpatlas.spatial.products.webmap` (the self-contained web map): public context layers,
tick labels, the web page and its GeoJSON. Post-processing only: nothing here sees the sites.
"""
