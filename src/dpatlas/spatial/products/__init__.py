"""What a user gets from a release: the :class:`Heatmap`, post-processing, queries, export, plots,
saved release records and the self-contained web map.

Post-processing only: nothing here reads the sites or spends budget.
"""
