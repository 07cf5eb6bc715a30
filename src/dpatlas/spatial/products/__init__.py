"""What a user gets from a release: the :class:`Heatmap`, post-processing, queries, export, plots.

Post-processing only: nothing here reads the sites or spends budget.
"""
